"""Interaction and span ensembles of the paper.

Each ensemble is parameterised by N and N·J0 (J0 = NJ0 / N). Midpoints
h_i^c ~ U[−1, 1]; spans σ_i from the span ensemble; h_i^± = h_i^c ± σ_i/2.
The underlying random variables are quantised *before* the structure is built,
so structural equalities (c_ij = c_ji, constant columns/rows, equal spans) hold
exactly in the integer representation.

Coupling ensembles (c_ii = 0):

- ``random``:    c_ij ~ U[−J0, J0] independent
- ``weak``:      weak asymmetry, c_ij·c_ji > 0: |c_ij|, |c_ji| ~ U[0, J0]
                 independent with a common random sign per pair
- ``symmetric``: c_ij = c_ji ~ U[−J0, J0]
- ``ferro``:     c_ij ~ U[0, J0]
- ``columns``:   c_ik = −d_k, d_k ~ U[0, J0] (constant columns)
- ``rows``:      c_ki = −d_k, d_k ~ U[0, J0] (constant rows)

Span ensembles: ``hysteron`` σ_i ~ U[0, 0.5]; ``spin`` σ_i = 0; ``equal`` σ_i = 0.5.

Direction-dependent couplings (``direction_asymmetry`` α in [0, 1], random and symmetric
couplings): the couplings drawn as above are c^+, those of the up thresholds; those of the
down thresholds are

    c^− = √(1 − α²) c^+ + α c′,

with c′ an independent draw of the same ensemble (from a child stream of the generator, so
that h^± and c^+ are those of α = 0), rounded to the nearest quantum. Each
entry of c^− has the mean (0) and the variance (J0²/3) of the ensemble, so J0 keeps its
meaning; the correlation of c^+_ij and c^−_ij is √(1 − α²): α = 0 is the paper's model
(c^− = c^+, nothing more drawn: the same systems bit for bit), α = 1 independent
matrices. c^− of symmetric couplings is symmetric, exactly. The entries of c^− are not
uniform and reach up to √2 J0 in magnitude (at α = 1/√2). The other ensembles are
refused: their entries have a nonzero mean (ferro, columns, rows) or a sign structure
(weak) that a mix does not keep.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.streams import fill_uniform
from hyst.model.systems import Systems, fill_dense_couplings, quantize

COUPLING_ENSEMBLES = {
    "random": "c_ij ~ U[-J0, J0] independent",
    "weak": "weak asymmetry: c_ij c_ji > 0, |c_ij|, |c_ji| ~ U[0, J0], common random sign",
    "symmetric": "c_ij = c_ji ~ U[-J0, J0]",
    "ferro": "c_ij ~ U[0, J0]",
    "columns": "constant columns: c_ik = -d_k, d_k ~ U[0, J0]",
    "rows": "constant rows: c_ki = -d_k, d_k ~ U[0, J0]",
}
SPAN_ENSEMBLES = {
    "hysteron": "sigma_i ~ U[0, 0.5]",
    "spin": "sigma_i = 0",
    "equal": "sigma_i = 0.5",
}
#: Coupling ensembles that take a ``direction_asymmetry`` α > 0 (zero-mean entries: the mix
#: keeps their mean and variance, and symmetry).
DIRECTED_ENSEMBLES = ("random", "symmetric")
#: Coupling ensembles proven free of self-loops under single-flip rules (0, 1, 1p).
SELF_LOOP_FREE = ("symmetric", "ferro", "columns", "rows")
#: Version of the random streams that turn a generator into systems (part of every
#: dataset's provenance): 2 draws symmetric couplings as an upper triangle and the
#: structured ensembles in compact form; 3 draws the iid dense ensembles (random, ferro)
#: as A with c = A^T, the layout the event-driven kernels read (no transpose per system);
#: 4 draws every ensemble's couplings from one compiled stream per system
#: (``uniform_quanta_per_system``) instead of numpy's bounded integers (3x faster).
SAMPLING_VERSION = 4


def _check(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name}: {value!r} is not one of {', '.join(allowed)}")


def uniform_quanta(rng: np.random.Generator, low: float, high: float, shape) -> np.ndarray:
    """Uniform on the quantum grid of [low, high] (int64 multiples of ``QUANTUM``).

    Drawn as integers directly: the exact discrete uniform distribution, and
    several times cheaper than quantising floats for the N^2 couplings of
    large systems.
    """
    lo, hi = quantize([low, high]).tolist()
    return rng.integers(lo, hi, size=shape, dtype=np.int64, endpoint=True)


def uniform_quanta_per_system(
    rng: np.random.Generator, low: float, high: float, shape
) -> np.ndarray:
    """Uniform on the quantum grid of [low, high] like ``uniform_quanta``, for the many
    values of each system: ``shape[0]`` systems, each drawn from a stream of its own.

    ``rng`` gives each system three 64-bit words, which seed its SFC64 stream in
    compiled code (:mod:`hyst.kernels.streams`, exact discrete uniform by Lemire's
    method, about 1 ns a value where numpy takes 3.3 ns): a system's values depend on
    its own words only.
    """
    lo, hi = quantize([low, high]).tolist()
    keys = rng.integers(0, 2**64, size=(shape[0], 3), dtype=np.uint64)
    out = np.empty(shape, np.int64)
    fill_uniform(keys, lo, hi - lo + 1, out.reshape(shape[0], -1))
    return out


def coupling_quanta(N: int, NJ0: float) -> int:
    """The coupling scale J0 = NJ0/N in field quanta (``hyst.model.systems.QUANTUM``): every
    ensemble draws its couplings on the quantum grid of [−J0, J0] or [0, J0], so where this
    is 0 every coupling is exactly 0."""
    return int(quantize([NJ0 / N])[0])


def draw_couplings(kind: str, N: int, NJ0: float, samples: int, rng: np.random.Generator):
    """Couplings of the ensemble ``kind`` with J0 = NJ0/N in their compact form:
    (form, dense couplings or None, packed or None), see ``hyst.model.systems.COUPLING_FORMS``.

    Symmetric couplings draw only the upper triangle (row by row); constant
    columns and rows draw the N strengths d_k. Neither builds a matrix. Every ensemble
    draws its couplings with ``uniform_quanta_per_system``.
    """
    _check("couplings", kind, COUPLING_ENSEMBLES)
    J0 = NJ0 / N
    shape = (samples, N, N)
    draw = uniform_quanta_per_system
    if kind in ("columns", "rows"):
        return kind, None, draw(rng, 0.0, J0, (samples, N))
    if kind == "symmetric":
        return "symmetric", None, draw(rng, -J0, J0, (samples, N * (N - 1) // 2))
    if kind == "random":  # iid entries: drawn in the kernels' layout, c = A^T (no copy)
        c = draw(rng, -J0, J0, shape).transpose(0, 2, 1)
    elif kind == "weak":
        c = draw(rng, 0.0, J0, shape)
        sign = rng.integers(0, 2, size=shape, dtype=np.int8)
        sign = np.triu(sign, 1)
        sign |= np.transpose(sign, (0, 2, 1))
        c[sign == 1] *= -1
    else:  # ferro: iid entries, drawn like random
        c = draw(rng, 0.0, J0, shape).transpose(0, 2, 1)
    idx = np.arange(N)
    c[:, idx, idx] = 0
    return "dense", c, None


def sample_couplings(kind: str, N: int, NJ0: float, samples: int, rng: np.random.Generator):
    """int64 couplings (samples, N, N) of the ensemble ``kind`` with J0 = NJ0/N (dense)."""
    return dense_couplings_of(*draw_couplings(kind, N, NJ0, samples, rng), N)


def dense_couplings_of(form: str, c, packed, N: int) -> np.ndarray:
    """Dense C-contiguous couplings (samples, N, N) of one ``draw_couplings`` answer."""
    if c is None:
        c = np.empty((packed.shape[0], N, N), np.int64)
        fill_dense_couplings(form, packed, c)
    return np.ascontiguousarray(c)


def check_direction_asymmetry(alpha, couplings: str | None = None) -> float:
    """α as a float in [0, 1], refused with one line otherwise (or for an ensemble outside
    ``DIRECTED_ENSEMBLES`` when α > 0)."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating):
        raise ValueError(f"direction_asymmetry: {alpha!r} is not a number in [0, 1]")
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"direction_asymmetry: {alpha!r} is not in [0, 1]")
    if alpha > 0 and couplings is not None and couplings not in DIRECTED_ENSEMBLES:
        raise ValueError(
            f"direction_asymmetry: {alpha!r} > 0 needs couplings "
            f"{' or '.join(DIRECTED_ENSEMBLES)}, not {couplings!r}"
        )
    return alpha


def mix_couplings(c_plus: np.ndarray, c_other: np.ndarray, alpha: float) -> np.ndarray:
    """c^− = √(1 − α²) c^+ + α c′ rounded to the nearest quantum (int64, same shape; exact
    at α = 0 and α = 1, symmetric where both are). The float64 products of at most 2^47
    quanta round to within one quantum, the same on every machine (IEEE 754)."""
    keep = np.sqrt(1.0 - alpha * alpha)
    mixed = np.rint(keep * c_plus.astype(np.float64) + alpha * c_other.astype(np.float64))
    return mixed.astype(np.int64)


def sample_spans(kind: str, N: int, samples: int, rng: np.random.Generator):
    """Float spans σ (samples, N) of the span ensemble ``kind``."""
    _check("spans", kind, SPAN_ENSEMBLES)
    if kind == "hysteron":
        return rng.uniform(0.0, 0.5, (samples, N))
    return np.full((samples, N), 0.0 if kind == "spin" else 0.5)


def sample_systems(
    couplings: str,
    spans: str,
    N: int,
    NJ0: float,
    samples: int,
    rng: np.random.Generator,
    direction_asymmetry: float = 0.0,
) -> Systems:
    """Draw ``samples`` systems of the (couplings, spans) ensemble at (N, NJ0).

    The draw order is fixed (midpoints, spans, couplings), so a given generator state
    always yields the same systems. Where ``direction_asymmetry`` α > 0, the independent
    couplings c′ of c^− come from a child stream of the generator (``Generator.spawn``,
    which does not advance it): every α draws the same h^± and c^+ as α = 0, the paper's
    systems, and leaves the generator where α = 0 does.
    """
    alpha = check_direction_asymmetry(direction_asymmetry, couplings)
    _check("couplings", couplings, COUPLING_ENSEMBLES)
    _check("spans", spans, SPAN_ENSEMBLES)
    if N < 2:
        raise ValueError(f"N: {N} is not allowed (N >= 2)")
    if not NJ0 > 0:
        raise ValueError(f"NJ0: {NJ0} is not allowed (NJ0 > 0)")
    mid = uniform_quanta(rng, -1.0, 1.0, (samples, N))
    half = quantize(0.5 * sample_spans(spans, N, samples, rng))
    form, c, packed = draw_couplings(couplings, N, NJ0, samples, rng)
    if alpha > 0:
        c_plus = dense_couplings_of(form, c, packed, N)
        # c′ from a child stream: the generator itself is not advanced, so what is drawn
        # after the systems (the sampler's random starts) is the same at every α
        c_other = sample_couplings(couplings, N, NJ0, samples, rng.spawn(1)[0])
        c_minus = mix_couplings(c_plus, c_other, alpha)
        return Systems(mid + half, mid - half, c_plus, couplings_minus=c_minus)
    return Systems(mid + half, mid - half, c, form=form, packed=packed)
