"""The hysteron model in exact integer arithmetic.

A system of N elements s_i = ±1 has bare thresholds h_i^± and couplings c_ij
(c_ii = 0). In state S the element thresholds are

    H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j,

and the state thresholds are H^+(S) = min_{i: s_i=−1} H_i^+(S) and
H^−(S) = max_{i: s_i=+1} H_i^−(S) (±∞ when empty). Negative spans
h_i^+ < h_i^− are allowed.

Exactness
---------
Every parameter is quantised to an integer multiple of ``QUANTUM = 2**-40``
(field units) and all threshold sums are taken in int64. A state that differs
from S only in element k then has *exactly* the same local field on k, so the
structural equalities of the model (e.g. H_k^−(S') = H_k^+(S) for spins after
k flips) hold bit for bit, whatever the order of summation.

Fields and the symbolic 0⁺
--------------------------
A field is a pair ``(Hc, eps)`` with ``Hc`` an integer and ``eps`` in
{+1, 0, −1}: H = Hc + eps·0⁺. An element's instability margin (times two) is

    s_i = −1:  m_i = 2 (Hc − H_i^+(S)) + eps
    s_i = +1:  m_i = 2 (H_i^−(S) − Hc) − eps

and the element is unstable iff m_i > 0. With eps = 0 a margin of exactly 0 is
a *tie* (a threshold exactly at the field): it is counted and the element is
treated as stable.

States are integer bitmasks for enumeration (bit i set ⇔ s_i = +1) and int8
arrays of ±1 for large N.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Parameters are integer multiples of this quantum (field units).
QUANTUM_BITS = 40
QUANTUM = 2.0**-QUANTUM_BITS
#: Sentinel for an infinite threshold (H^+ of the all-up state, H^− of the all-down state).
INF = np.int64(2**61)
#: Largest |threshold| allowed, so that margins 2(H − H_i) never overflow int64.
MAX_THRESHOLD = 2**59

#: Race-condition rules: name -> kernel code.
RULES: dict[str, int] = {"0": 0, "1": 1, "1p": 2, "2": 3}
RULE_NAMES: dict[int, str] = {v: k for k, v in RULES.items()}
RULE_DESCRIPTIONS = {
    "0": "a race condition (more than one unstable element) makes the transition ill-defined",
    "1": "flip the most unstable element (largest distance beyond its threshold)",
    "1p": "flip the least unstable element",
    "2": "flip all unstable elements simultaneously",
}

#: Outcome codes of a relaxation.
STABLE, SELF_LOOP, ILL_DEFINED = 0, 1, 2
OUTCOME_NAMES = {STABLE: "stable", SELF_LOOP: "self_loop", ILL_DEFINED: "ill_defined"}


def rule_code(rule: str | int) -> int:
    """Kernel code of a race-condition rule given by name ('0', '1', '1p', '2')."""
    if isinstance(rule, int | np.integer) and int(rule) in RULE_NAMES:
        return int(rule)
    key = str(rule)
    if key not in RULES:
        raise ValueError(f"rule: {rule!r} is not one of {', '.join(RULES)}")
    return RULES[key]


def quantize(x) -> np.ndarray:
    """Float field values -> int64 multiples of ``QUANTUM`` (round to nearest)."""
    q = np.rint(np.asarray(x, dtype=np.float64) * 2.0**QUANTUM_BITS)
    if np.any(np.abs(q) > MAX_THRESHOLD):
        raise ValueError("parameter magnitude too large for exact int64 thresholds")
    return q.astype(np.int64)


def dequantize(q) -> np.ndarray:
    """int64 multiples of ``QUANTUM`` -> float64 field values."""
    return np.asarray(q, dtype=np.float64) * QUANTUM


@dataclass(frozen=True)
class Systems:
    """A batch of systems in exact integer form.

    Attributes
    ----------
    h_plus, h_minus : int64 (samples, N)
        Bare up / down thresholds h_i^±, in units of ``QUANTUM``.
    couplings : int64 (samples, N, N)
        c_ij with zero diagonal, in units of ``QUANTUM``.
    """

    h_plus: np.ndarray
    h_minus: np.ndarray
    couplings: np.ndarray

    def __post_init__(self):
        hp, hm, c = self.h_plus, self.h_minus, self.couplings
        if hp.ndim != 2 or hm.shape != hp.shape or c.shape != hp.shape + (hp.shape[1],):
            raise ValueError("Systems: shapes must be (samples, N), (samples, N), (samples, N, N)")
        for a in (hp, hm, c):
            if a.dtype != np.int64:
                raise TypeError("Systems: arrays must be int64 (use quantize)")
        bound = np.abs(np.maximum(np.abs(hp), np.abs(hm))) + np.abs(c).sum(axis=2)
        if bound.size and bound.max() >= MAX_THRESHOLD:
            raise ValueError("Systems: thresholds could overflow int64; couplings too large")

    @property
    def samples(self) -> int:
        return self.h_plus.shape[0]

    @property
    def N(self) -> int:
        return self.h_plus.shape[1]

    def __getitem__(self, index) -> Systems:
        index = np.atleast_1d(np.arange(self.samples)[index])
        return Systems(self.h_plus[index], self.h_minus[index], self.couplings[index])

    @classmethod
    def from_floats(cls, h_plus, h_minus, couplings) -> Systems:
        """Quantise float parameters (one system or a batch)."""
        hp, hm, c = (np.asarray(a, dtype=np.float64) for a in (h_plus, h_minus, couplings))
        hp, hm = np.atleast_2d(hp), np.atleast_2d(hm)
        c = c[None] if c.ndim == 2 else c.copy()
        idx = np.arange(c.shape[1])
        c[:, idx, idx] = 0.0
        return cls(quantize(hp), quantize(hm), quantize(c))

    def to_floats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(h_plus, h_minus, couplings) as float64 field values."""
        return dequantize(self.h_plus), dequantize(self.h_minus), dequantize(self.couplings)


def state_to_spins(state: int, N: int) -> np.ndarray:
    """Bitmask -> int8 array of ±1 (bit i set ⇔ s_i = +1)."""
    return np.where((int(state) >> np.arange(N)) & 1, 1, -1).astype(np.int8)


def spins_to_state(spins) -> int:
    """int8 array of ±1 -> bitmask (N ≤ 62)."""
    spins = np.asarray(spins)
    return int(sum(1 << i for i, s in enumerate(spins) if s > 0))
