"""The share of well-defined parameter space of the general hysteron model, by sampling
uniformly random total orders of its n·2^n switching fields.

Each sample draws the n·2^n fields independently and uniformly from [0, 2^40) (int64): their
order is a uniformly random total order, and under rules 1 and 1′, whose races between an up
and a down flip compare sums of fields, the values are uniform too (a point of the cube, the
natural measure of "parameter space"). Equal values have probability below 10^-5 a sample
even at n = 8; the kernels count the ties they meet (``ties``), and equal fields follow the
field convention U + d·0⁺ of :mod:`hyst.kernels.tgraphs`.

A set of fields gives a well-defined t-graph by one of four definitions (the columns of
:data:`hyst.kernels.tgraphs.ORDER_COLUMNS` they read):

- ``all_states_stable``: every transition of every state ends in a stable state and every
  state has a stability interval (max U^−(S) < min U^+(S)): the peer's count by linear
  extensions of the design inequalities (850 of 20,160 = 4.22 % at n = 2);
- ``all_transitions``: every transition of every state ends in a stable state, stable or not
  the state it starts from: the peer code's ``make_graph`` succeeding (1,224 of 20,160 =
  6.07 % at n = 2). The difference is the stability of every state;
- ``stable_states``: the transitions of the states with a stability interval (as hyst's
  pairwise P_sl counts transitions from potentially stable states);
- ``reachable``: the transitions of the states reachable from the all-down state (the
  Garden-of-Eden-reduced graph: 1,977 of 20,160 = 9.81 % at n = 2).

With ``no_simple_self_loops`` each pair U_i^+(S), U_i^−(S + i) is sorted so that U^+ is the
larger: a uniformly random order conditioned on no simple self-loop (the n·2^(n−1) pairs are
disjoint; the peer's 850 of 1,260 = 67.46 % at n = 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.model import seeds
from hyst.model.general import order_columns, order_statistics

#: Fields are uniform on [0, FIELD_SPAN).
FIELD_SPAN = 2**40
#: Samples per random stream (results do not depend on how many run at once).
CHUNK = 4096
DEFINITIONS = ("all_states_stable", "all_transitions", "stable_states", "reachable")
RULES = ("0", "1", "1p", "2")


def draw_fields(n: int, samples: int, seed: int, chunk: int, no_simple: bool) -> np.ndarray:
    """Chunk ``chunk`` of the random fields (samples, 2^n, n) of n hysterons under ``seed``."""
    rng = seeds.generator(seed, {"tgraphs_orders": n, "no_simple": bool(no_simple)}, chunk)
    u = rng.integers(0, FIELD_SPAN, size=(samples, 1 << n, n), dtype=np.int64)
    if no_simple:
        for S in range(1 << n):
            for i in range(n):
                if not (S >> i) & 1:
                    a, b = u[:, S, i].copy(), u[:, S | 1 << i, i].copy()
                    u[:, S, i] = np.maximum(a, b)
                    u[:, S | 1 << i, i] = np.minimum(a, b)
    return u


def well_defined(table: np.ndarray) -> dict:
    """{definition: boolean per sample} from rows of ``ORDER_COLUMNS``."""
    c = dict(zip(order_columns(), table.T, strict=True))
    clean = c["bad_all"] == 0
    return {
        "all_states_stable": clean & (c["unstable_states"] == 0),
        "all_transitions": clean,
        "stable_states": c["bad_stable"] == 0,
        "reachable": c["bad_reachable"] == 0,
    }


@dataclass(frozen=True)
class Share:
    """k of m samples: the share, its standard error and the exact 95 % (Clopper-Pearson)
    interval (``upper``: the bound quoted when k = 0)."""

    k: int
    m: int

    @property
    def value(self) -> float:
        """The share k/m of samples with a well-defined t-graph."""
        return self.k / self.m

    @property
    def error(self) -> float:
        """The binomial standard error sqrt(p(1 − p)/m) of the share p = k/m."""
        p = self.value
        return float(np.sqrt(max(p * (1 - p), 0.0) / self.m))

    @property
    def upper(self) -> float:
        """The upper end of the exact 95 % Clopper-Pearson interval of the share (1 when k = m)."""
        from scipy import stats  # here, not at the top: the workflow imports this module to plan

        return float(stats.beta.ppf(0.975, self.k + 1, self.m - self.k)) if self.k < self.m else 1.0

    def text(self) -> str:
        """'4.22 ± 0.05 %', or '< 0.015 % (95 % CL)' when none was found."""
        if self.k == 0:
            return f"< {100 * self.upper:.2g} % (95 % CL)"
        return f"{100 * self.value:.3g} ± {100 * self.error:.2g} %"


def sample_shares(n: int, samples: int, seed: int = 0, no_simple: bool = False) -> dict:
    """{rule: {definition or 'self_loop'/'race'/'ties': Share}}: the shares of ``samples``
    random fields of n hysterons (the same fields for every rule). 'self_loop' and 'race':
    the samples with a self-loop, with a rule-0 race, somewhere among all transitions."""
    if n < 1 or samples < 1:
        raise ValueError(f"n: {n}, samples: {samples}; both must be at least 1")
    counts = {r: dict.fromkeys((*DEFINITIONS, "self_loop", "race", "ties"), 0) for r in RULES}
    for chunk, start in enumerate(range(0, samples, CHUNK)):
        u = draw_fields(n, min(CHUNK, samples - start), seed, chunk, no_simple)
        for rule in RULES:
            table = order_statistics(u, n, rule)
            c = dict(zip(order_columns(), table.T, strict=True))
            for name, ok in well_defined(table).items():
                counts[rule][name] += int(ok.sum())
            counts[rule]["self_loop"] += int((c["self_loops_all"] > 0).sum())
            counts[rule]["race"] += int((c["bad_all"] > c["self_loops_all"]).sum())
            counts[rule]["ties"] += int((c["ties"] > 0).sum())
    return {r: {k: Share(v, samples) for k, v in counts[r].items()} for r in RULES}
