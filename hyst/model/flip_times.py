"""Flip times of the elements: the race-condition rule settled by each element's speed.

When several elements are unstable at once, which one flips first can be set by how fast
each one snaps (Jin & van Hecke, arXiv 2507.02387: hysterons in oil whose viscosity sets
their snapping times). The flip-time rule gives element i a flip time τ_i > 0 and flips,
of the unstable elements, the one with the largest margin / τ_i first: the margin is the
distance of the field beyond the element's threshold, and an element driven that far past
its threshold reaches its switch after a time ∝ τ_i / margin. With equal τ_i it is rule 1;
with flip times spread over many decades it is a fixed priority order (the fastest
unstable element flips first, whatever the margins).

Only the ratios τ_i / τ_j matter. Flip times are quantised like the fields, to integer
multiples of 2^−40, and the kernels compare m_i·τ_j with m_j·τ_i exactly in 128-bit
integer arithmetic (:func:`hyst.kernels.rules.product_order`); equal ratios flip the lowest
index and are counted as ties, as rule 1's equal margins.

Drawn flip times are log-uniform over ``decades`` decades: τ_i = 10^(decades·u_i) with u_i
uniform in [0, 1), from a stream keyed by the seed and what is drawn (``flip_times_for``).

>>> q = quantize_flip_times([1.0, 2.0, 0.5], 3)
>>> (q // q.min()).tolist()
[2, 4, 1]
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import FLIP_TIME_RULE_CODES, RULE_TAU
from hyst.model import seeds
from hyst.model.systems import QUANTUM_BITS, RULE_DESCRIPTIONS, RULE_NAMES, RULES

#: The flip-time rule's name (``rule="tau"``).
FLIP_TIME_RULE = "tau"
#: Every race-condition rule of the single-system tools: name -> kernel code.
RACE_RULES: dict[str, int] = {**RULES, **FLIP_TIME_RULE_CODES}
#: Kernel code -> name, every rule.
RACE_RULE_NAMES: dict[int, str] = {**RULE_NAMES, RULE_TAU: FLIP_TIME_RULE}
#: What each race-condition rule does, every rule (the configured rules' and the flip-time
#: rule's).
RACE_RULE_DESCRIPTIONS: dict[str, str] = {
    **RULE_DESCRIPTIONS,
    FLIP_TIME_RULE: "flip the unstable element with the largest margin / flip time tau_i "
    "(the fastest to snap)",
}
#: Largest flip-time spread drawn, in decades (10^6 · 2^40 < 2^60: every product of a
#: margin and a flip time fits the exact 128-bit comparison, every τ an int64).
MAX_FLIP_TIME_DECADES = 6.0
#: Largest flip time accepted (field-like units; only ratios matter).
MAX_FLIP_TIME = 2.0**21


def race_rule_code(rule) -> int:
    """Kernel code of a race-condition rule by name ('0', '1', '1p', '2' or 'tau'), refused
    with one line naming the allowed ones."""
    if isinstance(rule, int | np.integer) and not isinstance(rule, bool):
        if int(rule) in RACE_RULE_NAMES:
            return int(rule)
    key = str(rule)
    if key not in RACE_RULES:
        raise ValueError(f"rule: {rule!r} is not one of {', '.join(RACE_RULES)}")
    return RACE_RULES[key]


def quantize_flip_times(flip_times, N: int) -> np.ndarray:
    """Flip times τ_i (N positive numbers) -> int64 multiples of 2^−40, refused with one
    line when not N finite numbers in [2^−40, 2^21]."""
    try:
        tau = np.asarray(flip_times, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"flip_times: {flip_times!r} is not a list of numbers") from None
    if tau.ndim != 1 or tau.shape[0] != N:
        raise ValueError(
            f"flip_times: {tau.shape[0] if tau.ndim == 1 else tau.shape} values given, the "
            f"system has N = {N} elements (one flip time per element)"
        )
    if not np.all(np.isfinite(tau)) or np.any(tau <= 0):
        bad = next(float(t) for t in tau if not (np.isfinite(t) and t > 0))
        raise ValueError(f"flip_times: {bad!r} is not allowed (every flip time must be > 0)")
    if np.any(tau > MAX_FLIP_TIME):
        raise ValueError(
            f"flip_times: {float(tau.max())!r} is too large (at most 2**21; only ratios matter)"
        )
    q = np.rint(tau * 2.0**QUANTUM_BITS).astype(np.int64)
    if np.any(q <= 0):
        raise ValueError(
            f"flip_times: {float(tau.min())!r} is below the quantum 2**-40 (only ratios "
            "matter: scale them up)"
        )
    return q


def check_decades(decades) -> float:
    """A flip-time spread in decades, refused with one line unless 0 ≤ decades ≤ 6."""
    ok = isinstance(decades, int | float | np.integer | np.floating) and not isinstance(
        decades, bool
    )
    if not ok or not 0 <= float(decades) <= MAX_FLIP_TIME_DECADES:
        raise ValueError(
            f"flip_time_decades: {decades!r} is not allowed (a number in [0, "
            f"{MAX_FLIP_TIME_DECADES:g}])"
        )
    return float(decades)


def log_uniform_flip_times(u, decades: float) -> np.ndarray:
    """Quantised flip times τ = 10^(decades·u) of uniform numbers u in [0, 1) (any shape):
    log-uniform over ``decades`` decades, all equal to 1 when decades = 0. The same u at
    several spreads gives the same order of the elements' speeds, spread further apart."""
    decades = check_decades(decades)
    return np.rint(10.0 ** (decades * np.asarray(u, float)) * 2.0**QUANTUM_BITS).astype(np.int64)


def draw_flip_times(rng: np.random.Generator, decades: float, samples: int, N: int) -> np.ndarray:
    """(samples, N) quantised flip times log-uniform over ``decades`` decades,
    τ = 10^(decades·u) with u uniform in [0, 1) drawn from ``rng``."""
    decades = check_decades(decades)
    return log_uniform_flip_times(rng.random((samples, N)), decades)


def flip_times_for(N: int, decades: float, seed: int = 0) -> np.ndarray:
    """The N quantised flip times of one system drawn log-uniformly over ``decades``
    decades, keyed by (N, decades) under ``seed``: the same numbers on every machine."""
    decades = check_decades(decades)
    identity = {"flip_times": "log_uniform", "N": int(N), "decades": decades}
    return draw_flip_times(seeds.generator(int(seed), identity), decades, 1, N)[0]


def unit_flip_times(N: int) -> np.ndarray:
    """Equal flip times (the flip-time rule is then rule 1): one (1, N) row for the
    kernels' ``flip_times`` argument."""
    return np.full((1, N), np.int64(1) << QUANTUM_BITS, np.int64)


def kernel_rule(rule, flip_times, samples: int, N: int) -> tuple[int, np.ndarray]:
    """(kernel code, flip times (samples, N) or (1, N) int64) for a kernel that carries flip
    times: ``flip_times`` are quantised already (int64, (N,) or (samples, N)) or None. The
    flip-time rule needs them; the other rules ignore them."""
    code = race_rule_code(rule)
    if flip_times is None:
        if code == RULE_TAU:
            raise ValueError("rule: 'tau' needs flip_times (one flip time per element)")
        return code, unit_flip_times(N)
    tau = np.atleast_2d(np.asarray(flip_times, np.int64))
    if tau.shape[1] != N or tau.shape[0] not in (1, samples):
        raise ValueError(
            f"flip_times: shape {tau.shape} does not fit {samples} systems of N = {N} "
            f"elements ((N,), (1, N) or (samples, N))"
        )
    if np.any(tau <= 0):
        raise ValueError("flip_times: every flip time must be > 0")
    return code, np.ascontiguousarray(tau)
