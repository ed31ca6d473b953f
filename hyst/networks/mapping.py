"""Serial chains of bilinear elements as hysteron systems (exact mapping).

Derivation (general chain, force balance)
-----------------------------------------
N elements f_i = x_i − d_i s_i and a spring of stiffness k = p/q are in series
under an imposed total displacement U. In series every element carries the
same force f, and the spring stretches by f/k, so

    U = Σ_i x_i + f/k = Σ_i (f + d_i s_i) + (q/p) f
    ⇒  f = p (U − Σ_j d_j s_j) / D,      D = pN + q,
    ⇒  D x_i = p U − p Σ_j d_j s_j + D d_i s_i.

Element i (s_i = −1) leaves its lower branch when x_i reaches x_i^+, i.e. at

    p U_i^+(S) = D x_i^+ + (D − p) d_i + p Σ_{j≠i} d_j s_j,

and element i (s_i = +1) leaves its upper branch at x_i = x_i^−:

    p U_i^−(S) = D x_i^− − (D − p) d_i + p Σ_{j≠i} d_j s_j.

With the field H = p U this is exactly the hysteron form
H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j with

    h_i^± = D x_i^± ± (D − p) d_i,      c_ij = −p d_j   (i ≠ j),
    σ_i = h_i^+ − h_i^− = D σ_i^0 + 2 (D − p) d_i.

Without a spring (k = ∞: p = 1, q = 0, D = N) and H = U:
h_i^± = N x_i^± ± (N − 1) d_i, c_ij = −d_j, σ_i = N σ_i^0 + 2 (N − 1) d_i.
For N = 2 this is the Supplemental's h_i^± = 2 x_i^± ± d_i, c_12 = −d_2,
c_21 = −d_1, σ_i = 2 (σ_i^0 + d_i); for one element and a spring (N = 1,
H = p U) it is U_1^± = [(k + 1) x_1^± ± d_1]/k and σ_1 = [(k + 1) σ_1^0 + 2 d_1]/k
in units of U. All of these are integers when x, d, U are: the mapping is
exact in int64 quanta. A hysteron span is negative iff
d_i < −D σ_i^0 / (2 (D − p)) (N = 2: d_i < −σ_i^0; one element and a spring:
d_1 < −(k + 1) σ_1^0 / 2).

Coupling structure, and the paper's ensembles
---------------------------------------------
c_ij = −p d_j does not depend on i: **every serial chain maps to constant
columns** (``hyst.model.systems.COUPLING_FORMS["columns"]`` with strengths p d_j, so
the compact form of the event-driven kernels applies at any N). Hence

- all passive (d_j ≥ 0): exactly the paper's strictly self-loop-free
  *constant-columns* ensemble (c_ik = −d_k, d_k ≥ 0), with spans
  σ_i ≥ D σ_i^0 ≥ 0 (the hatched region of Fig. 3d, f);
- all active (d_j < 0): c_ij > 0, the strictly self-loop-free *ferromagnetic*
  ensemble as long as every span stays ≥ 0 (weakly active elements); strongly
  active elements give negative spans, outside every ensemble of the paper;
- equal force jumps d_j = d: c_ij = −p d for all pairs, the *symmetric*
  ensemble (self-loop free for any sign of d while the spans are ≥ 0);
- mixed signs: c_ij c_ji = p² d_i d_j < 0 for an active–passive pair, which
  violates weak asymmetry; these are the chains that can self-loop with spans
  ≥ 0 (the L = 4 loops SL5, SL6 of two elements).

The chain ensembles differ from the paper's in one more way: the spans are
correlated with the column strengths (σ_i grows with d_i), while the paper
draws σ_i independently of the couplings.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from hyst.model.systems import QUANTUM, Systems
from hyst.networks.elements import SerialChains, spring_ratio


def chain_parameters(chains: SerialChains) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(h_plus, h_minus, column strengths p d_j) of the mapped systems (int64 quanta)."""
    p, q = chains.ratio
    D = p * chains.N + q
    _check_range(chains, D)
    jump = (D - p) * chains.d
    return D * chains.x_plus + jump, D * chains.x_minus - jump, p * chains.d


def chain_mapping(chains: SerialChains) -> Systems:
    """The hysteron systems of a batch of serial chains, in constant-columns form.

    Field H = p U (H = U without a spring); c_ij = −p d_j is stored as the
    column strengths p d_j (``Systems(form="columns")``); negative spans and
    strengths are allowed.
    """
    hp, hm, strengths = chain_parameters(chains)
    return Systems(hp, hm, form="columns", packed=np.ascontiguousarray(strengths))


def two_element_mapping(x1_minus, x1_plus, d1, x2_minus, x2_plus, d2) -> dict:
    """The Supplemental's two-element mapping, written out (any numbers, no quantisation):
    h_i^± = 2 x_i^± ± d_i, c_12 = −d_2, c_21 = −d_1, σ_i = 2 (σ_i^0 + d_i)."""
    return {
        "h1_plus": 2 * x1_plus + d1,
        "h1_minus": 2 * x1_minus - d1,
        "h2_plus": 2 * x2_plus + d2,
        "h2_minus": 2 * x2_minus - d2,
        "c12": -d2,
        "c21": -d1,
        "sigma1": 2 * ((x1_plus - x1_minus) + d1),
        "sigma2": 2 * ((x2_plus - x2_minus) + d2),
    }


def spring_thresholds(x_minus, x_plus, d, spring) -> tuple[Fraction, Fraction, Fraction]:
    """One element and a spring k: (U_1^+, U_1^−, σ_1) as exact fractions of the inputs'
    units, U_1^± = [(k + 1) x^± ± d]/k, σ_1 = [(k + 1) σ^0 + 2 d]/k (Supplemental)."""
    p, q = spring_ratio(spring)
    if q == 0:
        raise ValueError("spring: None is not allowed here (one element needs a spring)")
    k = Fraction(p, q)
    xm, xp, dd = (Fraction(v) for v in (x_minus, x_plus, d))
    up = ((k + 1) * xp + dd) / k
    down = ((k + 1) * xm - dd) / k
    return up, down, ((k + 1) * (xp - xm) + 2 * dd) / k


def negative_span_threshold(chains: SerialChains) -> np.ndarray:
    """d_i below which element i maps to a negative span: −D σ_i^0 / (2 (D − p)) (float
    displacement units; −inf for a single element without a spring, which never has one)."""
    p, q = chains.ratio
    D = p * chains.N + q
    sigma0 = chains.sigma0.astype(float) * QUANTUM
    if D == p:
        return np.full(sigma0.shape, -np.inf)
    return -D * sigma0 / (2.0 * (D - p))


def _check_range(chains: SerialChains, D: int) -> None:
    """Refuse chains whose scaled thresholds could overflow int64."""
    largest = max(
        (int(np.abs(a).max()) for a in (chains.x_minus, chains.x_plus, chains.d) if a.size),
        default=0,
    )
    if (2 * D + chains.N) * largest >= 2**58:
        raise ValueError(
            f"chains: parameters up to {largest * QUANTUM:g} with N = {chains.N} and spring "
            f"{chains.spring} overflow the exact int64 range; use smaller displacements"
        )
