"""Design inequalities of a self-loop in the pairwise model, with the drive H eliminated.

Parameters of n elements (field units): bare thresholds h_i^± and couplings c_ij
(i ≠ j). In state S the element thresholds are H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j,
linear forms in the parameters; H_i^±(S) does not depend on s_i.

A loop S^0 → S^1 → … → S^{L−1} → S^0 (element e_k flips at step k) is a self-loop
at a field H under rule 1 (flip the most unstable element) when, for every k:

up step (s_e = −1 in S^k)
    e is unstable:                 H > H_e^+(S^k)
    e is the most unstable:        H_e^+(S^k) < H_j^+(S^k) for every other down j
    no element wants to flip down: H > H_j^−(S^k) for every up j   (``conservative``)
down step (s_e = +1): the mirror image
    H < H_e^−(S^k);  H_e^−(S^k) > H_j^−(S^k) for every other up j;
    H < H_j^+(S^k) for every down j                                (``conservative``)

The ``conservative`` rows are the Supplemental's treatment of states that are
unconditionally unstable (H^−(S) > H^+(S)): a loop that needs H inside
(H^+(S), H^−(S)) of one of its states, where up and down flips compete, is
counted as not realizable. The exact rule-1 resolution of that competition is
available as ``mode="rule1"``: an up element j loses against e iff its
instability H_j^− − H is smaller than H − H_e^+, i.e. 2H > H_e^+(S^k) + H_j^−(S^k)
(which also holds when j is stable, given H > H_e^+); mirror image for down steps.

H is eliminated as in the Supplemental: every lower bound on H is below every
upper bound. In both modes a bound on 2H is a sum of two thresholds (2 H_e^+ or
H_e^+ + H_j^−), so all coefficients stay integers. Positive spans h_i^+ ≥ h_i^−
(which exclude L = 2 loops) are optional (``spans="positive"``): the paper's
counts M_R and M_W are reproduced without them (``spans="any"``, the default),
i.e. with negative spans allowed, as active elements can produce (main text;
``hyst.model.systems`` allows them too). All rows are homogeneous, so
strict inequalities "> 0" are feasible iff the same rows "≥ 1" are (scale a
solution): the LP uses margin 1 and no bounds on the variables.

Variables (the columns of every row): h^+_0 … h^+_{n−1}, h^−_0 … h^−_{n−1}, then c_ij
for i ≠ j, row by row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.combinatorics.structures import Loop
from hyst.kernels import loop_enumeration as kernel

MODES = {
    "conservative": "the Supplemental's rule: a loop needing a state inside its "
    "unconditionally unstable range is not realizable",
    "rule1": "exact rule-1 resolution of up/down competition (most unstable element flips)",
}
SPANS = {
    "any": "spans h_i^+ - h_i^- of either sign (the paper's counts)",
    "positive": "hysterons with h_i^+ >= h_i^- only",
}


def n_variables(n: int) -> int:
    """The number of model parameters of n elements: 2n thresholds h_i^+, h_i^- and n(n-1)
    couplings c_ij (i != j)."""
    return 2 * n + n * (n - 1)


def coupling_index(n: int, i: int, j: int) -> int:
    """Column of c_ij (i ≠ j)."""
    return 2 * n + i * (n - 1) + (j if j < i else j - 1)


def threshold_form(n: int, i: int, up: bool, state: int) -> np.ndarray:
    """Coefficients of H_i^+(S) (``up``) or H_i^−(S) = h_i^± − Σ_{j≠i} c_ij s_j."""
    row = np.zeros(n_variables(n), np.int64)
    row[i if up else n + i] = 1
    for j in range(n):
        if j != i:
            row[coupling_index(n, i, j)] = -1 if (state >> j) & 1 else 1
    return row


@dataclass
class DesignSystem:
    """The design inequalities of one loop.

    ``lower2``/``upper2``: rows whose value is a lower/upper bound on 2H;
    ``selection``: rows > 0 saying that the flipped element is the most unstable
    of its kind; ``weak``: rows ≥ 0 (positive spans, when asked for).
    With H eliminated (the Supplemental's form) the strict rows are every
    upper2 − lower2 difference plus the selection rows (``strict``); the
    equivalent ``compact`` form keeps 2H as a last variable (Fourier–Motzkin:
    the same feasible set of parameters, with far fewer rows).
    """

    n: int
    mode: str
    spans: str
    lower2: np.ndarray
    upper2: np.ndarray
    selection: np.ndarray
    weak: np.ndarray

    @property
    def strict(self) -> np.ndarray:
        """H eliminated: (upper2 − lower2 for every pair) and the selection rows, > 0."""
        nv = self.lower2.shape[1]
        pairs = (self.upper2[:, None, :] - self.lower2[None, :, :]).reshape(-1, nv)
        return np.unique(np.vstack([pairs, self.selection]), axis=0)

    def compact(self) -> tuple[np.ndarray, np.ndarray]:
        """(strict, weak) rows over the variables and 2H (last column): 2H − lower2 > 0,
        upper2 − 2H > 0, selection > 0; spans ≥ 0."""
        lo, up, sel = self.lower2, self.upper2, self.selection
        nv = lo.shape[1]
        strict = np.zeros((lo.shape[0] + up.shape[0] + sel.shape[0], nv + 1), np.int64)
        strict[: lo.shape[0], :nv] = -lo
        strict[: lo.shape[0], nv] = 1
        strict[lo.shape[0] : lo.shape[0] + up.shape[0], :nv] = up
        strict[lo.shape[0] : lo.shape[0] + up.shape[0], nv] = -1
        strict[lo.shape[0] + up.shape[0] :, :nv] = sel
        weak = np.zeros((self.weak.shape[0], nv + 1), np.int64)
        weak[:, :nv] = self.weak
        return strict, weak


def _unique_rows(rows, n: int) -> np.ndarray:
    """Distinct rows (sorted by their bytes: a fixed order, fast)."""
    rows = np.ascontiguousarray(np.asarray(rows, np.int64).reshape(-1, n_variables(n)))
    if rows.shape[0] < 2:
        return rows
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    return rows[np.sort(first)]


def _span_rows(n: int, spans: str) -> np.ndarray:
    weak = np.zeros((n if spans == "positive" else 0, n_variables(n)), np.int64)
    for i in range(weak.shape[0]):
        weak[i, i] = 1
        weak[i, n + i] = -1
    return weak


def _check_options(mode: str, spans: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
    if spans not in SPANS:
        raise ValueError(f"spans: {spans!r} is not one of {', '.join(SPANS)}")


def design_system(loop: Loop, mode: str = "conservative", spans: str = "any") -> DesignSystem:
    """The design inequalities of ``loop`` (labels 0 … n−1, all flipping), built by the
    kernel ``hyst.kernels.loop_enumeration.design_rows``."""
    _check_options(mode, spans)
    n, L = loop.n_e, loop.L
    nv = n_variables(n)
    lower = np.zeros((L * n, nv), np.int64)
    upper = np.zeros((L * n, nv), np.int64)
    selection = np.zeros((L * (n - 1), nv), np.int64)
    flips = np.asarray(loop.flips, np.int64)
    nl, nu, ns = kernel.design_rows(n, loop.start, flips, mode == "rule1", lower, upper, selection)
    return DesignSystem(
        n,
        mode,
        spans,
        _unique_rows(lower[:nl], n),
        _unique_rows(upper[:nu], n),
        _unique_rows(selection[:ns], n),
        _span_rows(n, spans),
    )


def reference_system(loop: Loop, mode: str = "conservative", spans: str = "any") -> DesignSystem:
    """The same inequalities written out plainly in Python (a slow reference)."""
    _check_options(mode, spans)
    n = loop.n_e
    lower, upper, selection = [], [], []
    for state, e in zip(loop.states(), loop.flips, strict=True):
        up = not (state >> e) & 1
        own = threshold_form(n, e, up, state)
        for j in range(n):
            is_up = bool((state >> j) & 1)
            if j != e and is_up != up:  # a down element when e flips up, and vice versa
                rival = threshold_form(n, j, up, state)
                selection.append(rival - own if up else own - rival)
        bounds = lower if up else upper
        bounds.append(2 * own)
        for j in range(n):
            if bool((state >> j) & 1) == up:  # an element that could flip the other way
                opposite = threshold_form(n, j, not up, state)
                bounds.append(2 * opposite if mode == "conservative" else own + opposite)
    return DesignSystem(
        n,
        mode,
        spans,
        _unique_rows(lower, n),
        _unique_rows(upper, n),
        _unique_rows(selection, n),
        _span_rows(n, spans),
    )


def field_window(system: DesignSystem, x) -> tuple[int, int]:
    """(max lower bound, min upper bound) on 2H at the parameters x (exact for integers)."""
    xo = np.asarray(x).astype(object)
    lo = max(system.lower2.astype(object) @ xo)
    hi = min(system.upper2.astype(object) @ xo)
    return int(lo), int(hi)


def parameters(n: int, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h_plus, h_minus, couplings) from a variable vector (same dtype as x)."""
    x = np.asarray(x)
    hp, hm = x[:n].copy(), x[n : 2 * n].copy()
    c = np.zeros((n, n), x.dtype)
    for i in range(n):
        for j in range(n):
            if i != j:
                c[i, j] = x[coupling_index(n, i, j)]
    return hp, hm, c


def variables(h_plus, h_minus, couplings) -> np.ndarray:
    """The variable vector of (h_plus, h_minus, couplings) (inverse of ``parameters``)."""
    hp, hm, c = (np.asarray(a) for a in (h_plus, h_minus, couplings))
    n = hp.shape[0]
    x = np.zeros(n_variables(n), np.result_type(hp, hm, c))
    x[:n], x[n : 2 * n] = hp, hm
    for i in range(n):
        for j in range(n):
            if i != j:
                x[coupling_index(n, i, j)] = c[i, j]
    return x


def coupling_pairs(n: int) -> list[tuple[int, int]]:
    """(column of c_ij, column of c_ji) for i < j: the weak-asymmetry pairs."""
    return [
        (coupling_index(n, i, j), coupling_index(n, j, i))
        for i in range(n)
        for j in range(i + 1, n)
    ]


def field_range(h_plus, h_minus, couplings, states) -> tuple[int, int] | None:
    """Open range (lo, hi) of the drive, as 2H in the parameters' units, where the cycle
    ``states`` (consecutive states differ in one element) is a cycle of the rule-1
    dynamics of the given system (any number of elements; those that never flip
    included), or None if no field gives it.

    Exact for integer parameters: the rule-1 rows of ``design_rows`` over all N
    elements, evaluated at the system (no conservative exclusion: the actual
    competition of up and down flips is resolved by comparing instabilities). The
    selection rows do not depend on H; they must all be positive.
    """
    hp, hm, c = (np.asarray(a, np.int64) for a in (h_plus, h_minus, couplings))
    n = hp.shape[0]
    states = [int(s) for s in states]
    flips = np.asarray(
        [(a ^ b).bit_length() - 1 for a, b in zip(states, states[1:] + states[:1], strict=True)],
        np.int64,
    )
    nv = n_variables(n)
    L = len(states)
    lower = np.zeros((L * n, nv), np.int64)
    upper = np.zeros((L * n, nv), np.int64)
    selection = np.zeros((L * (n - 1), nv), np.int64)
    nl, nu, ns = kernel.design_rows(n, states[0], flips, True, lower, upper, selection)
    x = variables(hp, hm, c).astype(object)
    if ns and min(selection[:ns].astype(object) @ x) <= 0:
        return None
    lo = int(max(lower[:nl].astype(object) @ x))
    hi = int(min(upper[:nu].astype(object) @ x))
    return (lo, hi) if lo < hi else None
