"""The parameters of one system in the field's other conventions, converted exactly.

hyst's convention (the paper's): spins s_i = ±1 and element thresholds

    H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j,      c_ii = 0:

an element down (s_i = −1) flips up where H rises above H_i^+(S), one up flips down where
H falls below H_i^−(S).

**The** ``hysteron`` **package of N. Keim and J. Paulsen**: spins s_i = ±1 (float), the local
field f_i = H + Σ_j s_j J_ji (``state @ interactions`` with ``interactions[j, i]`` = J_ji,
the effect of j on i, its diagonal J_ii a self-coupling); an element down flips up where
f_i ≥ Hon_i, one up flips down where f_i ≤ Hoff_i. The self-coupling is folded into the
thresholds (s_i = −1 before an up flip, +1 before a down flip):

    h_i^+ = Hon_i + J_ii,    h_i^− = Hoff_i − J_ii,    c_ij = J_ji  (i ≠ j);

back, ``interactions`` = cᵀ (zero diagonal), Hon = h^+, Hoff = h^−.

**States 0/1** (n_i = (1 + s_i)/2; e.g. van Hecke, Phys. Rev. E 104, 054402, 2021):
switching fields U_i^±(S) = u_i^± − Σ_j J_ij n_j, a self-coupling J_ii acting only on an
element that is up (n_i = 1, its down flip). With n_j = (1 + s_j)/2:

    c_ij = J_ij / 2  (i ≠ j),
    h_i^+ = u_i^+ − ½ Σ_{j≠i} J_ij,
    h_i^− = u_i^− − J_ii − ½ Σ_{j≠i} J_ij;

back, J_ij = 2 c_ij (zero diagonal), u_i^± = h_i^± + Σ_{j≠i} c_ij. The halves are exact
when the J_ij are multiples of 2^-39 field units (hyst quantises parameters to 2^-40).

Both conventions give, state by state, the same thresholds H_i^±(S) as hyst, so every
transition, avalanche and drive is the same (``tests/test_conventions.py`` drives random
instances in both, against the ``hysteron`` package where it applies).
"""

from __future__ import annotations

import numpy as np


def _square(name: str, value) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: not a matrix of real numbers") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name}: must be a square N x N matrix, got shape {a.shape}")
    return _finite(name, a)


def _vector(name: str, value, N: int, of: str) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: not a list of real numbers") from None
    if a.shape != (N,):
        raise ValueError(f"{name}: must have N = {N} entries (the size of {of}), got {a.shape}")
    return _finite(name, a)


def _finite(name: str, a: np.ndarray) -> np.ndarray:
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        where = ",".join(map(str, bad[0]))
        raise ValueError(f"{name}[{where}]: {a[tuple(bad[0])]} is not a finite number")
    return a


def from_hysteron(interactions, Hon, Hoff) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h_plus, h_minus, c) of the system the ``hysteron`` package simulates with
    ``interactions``, ``Hon`` and ``Hoff`` (its self-couplings folded into the thresholds);
    ``ValueError`` with one line naming the argument where they do not fit."""
    J = _square("interactions", interactions)
    N = J.shape[0]
    on = _vector("Hon", Hon, N, "interactions")
    off = _vector("Hoff", Hoff, N, "interactions")
    self_coupling = np.diag(J).copy()
    c = J.T.copy()
    np.fill_diagonal(c, 0.0)
    return on + self_coupling, off - self_coupling, c


def to_hysteron(h_plus, h_minus, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(interactions, Hon, Hoff), the arguments of the ``hysteron`` package, of the
    system (h_plus, h_minus, c) (zero diagonal)."""
    return (
        np.array(c, dtype=np.float64).T.copy(),
        np.array(h_plus, dtype=np.float64),
        np.array(h_minus, dtype=np.float64),
    )


def from_zero_one(u_plus, u_minus, J) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h_plus, h_minus, c) of the system with states 0/1, thresholds ``u_plus``,
    ``u_minus`` and couplings ``J`` (self-couplings folded into the down thresholds);
    ``ValueError`` with one line naming the argument where they do not fit."""
    J = _square("J", J)
    N = J.shape[0]
    up = _vector("u_plus", u_plus, N, "J")
    down = _vector("u_minus", u_minus, N, "J")
    self_coupling = np.diag(J).copy()
    off = J.copy()
    np.fill_diagonal(off, 0.0)
    half_sum = off.sum(axis=1) / 2
    return up - half_sum, down - self_coupling - half_sum, off / 2


def to_zero_one(h_plus, h_minus, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u_plus, u_minus, J) with states 0/1 of the system (h_plus, h_minus, c) (zero
    diagonal)."""
    c = np.array(c, dtype=np.float64)
    row_sum = c.sum(axis=1)
    return (
        np.asarray(h_plus, dtype=np.float64) + row_sum,
        np.asarray(h_minus, dtype=np.float64) + row_sum,
        2 * c,
    )
