"""Random serial chains of N bilinear elements with a fraction φ of active ones.

Beyond the paper ("larger, more complex networks remain to be understood").
A chain of N elements in series (no spring) is drawn element by element:

    x_i^c  ~ U[−1, 1]                    midpoint of the switching displacements
    σ_i^0  ~ U[0, sigma0_max]            physical span (sigma0_max = 0.5)
    |d_i|  ~ U[0, d_max]                 size of the force jump (d_max = 1)
    d_i < 0 (active) with probability φ, independently; passive (d_i > 0) otherwise

all on the exact quantum grid (``hyst.model.ensembles.uniform_quanta``), x_i^± =
x_i^c ± σ_i^0/2. In reduced units (H/N) the mapped hysterons have midpoints
x_i^c, couplings c_ij/N = −d_j/N (constant columns with "N J0" = d_max) and spans
σ_i/N = σ_i^0 + 2 (1 − 1/N) d_i: a passive chain is a member of the paper's
constant-columns ensemble (with spans grown by its force jumps), an all-active
one of the ferromagnetic ensemble; an active element with |d_i| >
N σ_i^0 / (2 (N − 1)) has a negative span.

Per (φ, N) point and sample chunk the generator is seeded by
``numpy.random.SeedSequence`` keyed by the base seed, the ensemble identity
(φ, N, d_max, sigma0_max) and the chunk index, so a point depends only on its
parameters, its sample count and the seed.

Observables (rule 1):

- N ≤ 18, every state enumerated (``hyst.kernels.state_table``):
  ``self_loop_probability`` P_sl (some transition out of a potentially stable
  state ends in a self-loop), ``gap_probability_at_zero`` P_g^0 (no state stable
  at U = 0), and the distinct self-loops met by length L and element count n_e;
- any N, the saturated hysteresis loop driven event by event from all −1 to all
  +1 and back (``hyst.model.batch.first_loops_batch`` on the compact
  constant-columns form): ``saturated_loop_probability`` P_sl^sat (a branch
  ends in a self-loop) and that self-loop's L and n_e (at most one per branch);
- ``negative_span_probability``: some element maps to a negative span (an
  intrinsically unstable hysteron, an L = 2 oscillation once reached); its
  exact value for these distributions is ``negative_span_probability``;
- ``self_loop_nonnegative_spans`` / ``nonnegative_span_chains``: self-loops
  among the chains whose spans are all ≥ 0 (N ≤ 18).

A subsample of every chunk (``cross_check`` chains) is re-simulated by the direct
mechanical simulation (``hyst.networks.mechanics``): its transition graph
(N ≤ 10) and its saturated loop (any N) must equal the mapped model's; a
disagreement stops the run with an error.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.kernels import codes
from hyst.model import batch, seeds
from hyst.model.ensembles import SAMPLING_VERSION, uniform_quanta
from hyst.model.transition_graph import transition_graph
from hyst.networks.elements import SerialChains
from hyst.networks.mapping import chain_mapping
from hyst.networks.mechanics import mechanical_transition_graph, saturated_loop

#: Chains per chunk (part of every point's provenance: changing it changes the streams).
CHUNK_SIZE = 500
#: Largest N whose 2^N states are enumerated (P_sl, P_g^0).
ENUMERATION_MAX_N = 18
#: Largest N of the mechanical graph cross-check (the saturated loop is checked at any N).
GRAPH_CHECK_MAX_N = 10
#: Largest N of a chain (phase states are 64-bit masks in the mechanical simulation).
CHAIN_MAX_N = 64
#: Version of the chain streams (part of the provenance).
CHAINS_SAMPLING_VERSION = 1


def check_point(phi, N, d_max=1.0, sigma0_max=0.5) -> tuple[float, int, float, float]:
    """Validated (φ, N, d_max, sigma0_max); one-line errors naming the option."""
    if not (isinstance(phi, int | float) and 0.0 <= float(phi) <= 1.0):
        raise ValueError(f"phi: {phi!r} is not allowed (a fraction in [0, 1])")
    if not (isinstance(N, int | np.integer) and 2 <= int(N) <= CHAIN_MAX_N):
        raise ValueError(f"N: {N!r} is not allowed (an integer in [2, {CHAIN_MAX_N}])")
    for name, v in (("d_max", d_max), ("sigma0_max", sigma0_max)):
        if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
            raise ValueError(f"{name}: {v!r} is not allowed (a finite number > 0)")
    return float(phi), int(N), float(d_max), float(sigma0_max)


def sample_chains(phi, N, samples, rng, d_max=1.0, sigma0_max=0.5) -> SerialChains:
    """``samples`` random chains of the (φ, N) ensemble (module docstring); fixed draw
    order: midpoints, spans, jump sizes, active flags."""
    phi, N, d_max, sigma0_max = check_point(phi, N, d_max, sigma0_max)
    mid = uniform_quanta(rng, -1.0, 1.0, (samples, N))
    half = uniform_quanta(rng, 0.0, sigma0_max, (samples, N)) // 2
    size = uniform_quanta(rng, 0.0, d_max, (samples, N))
    active = rng.random((samples, N)) < phi
    return SerialChains(mid - half, mid + half, np.where(active, -size, size))


def negative_span_probability(phi, N, d_max=1.0, sigma0_max=0.5) -> float:
    """P(some element of a chain maps to a negative span) = 1 − (1 − φ p_N)^N.

    Element i's span σ_i = N σ_i^0 + 2 (N − 1) d_i is negative iff it is active and
    |d_i| > a σ_i^0 with a = N / (2 (N − 1)); for |d| ~ U[0, D], σ^0 ~ U[0, s]:
    p_N = 1 − a s / (2 D) if a s ≤ D, else D / (2 a s).
    """
    phi, N, d_max, sigma0_max = check_point(phi, N, d_max, sigma0_max)
    a = N / (2.0 * (N - 1))
    ratio = a * sigma0_max / d_max
    p = 1.0 - ratio / 2.0 if ratio <= 1.0 else 1.0 / (2.0 * ratio)
    return 1.0 - (1.0 - phi * p) ** N


def point_identity(phi, N, d_max=1.0, sigma0_max=0.5) -> dict:
    """What the sampled chains depend on."""
    phi, N, d_max, sigma0_max = check_point(phi, N, d_max, sigma0_max)
    return {
        "study": "random_chains",
        "phi": repr(phi),
        "N": N,
        "d_max": repr(d_max),
        "sigma0_max": repr(sigma0_max),
    }


def chunk_generator(identity: dict, seed: int, chunk: int) -> np.random.Generator:
    """Generator of one chunk, keyed by (seed, identity, chunk) (``hyst.model.seeds``)."""
    return seeds.generator(seed, identity, chunk)


def cross_check(chains: SerialChains, sy, loops, count: int) -> int:
    """Re-simulate the first ``count`` chains mechanically (``loops``: the mapped model's
    first loops of the saturated loop, ``codes.MECH_LOOP_COLUMNS``); raise on any
    disagreement. Returns how many chains were compared."""
    count = min(count, chains.samples)
    mech = saturated_loop(chains[:count])
    if not all(np.array_equal(mech[name], loops[name][:count]) for name in codes.MECH_LOOP_COLUMNS):
        raise RuntimeError("cross-check: the mechanical saturated loop differs from the mapping")
    if chains.N <= GRAPH_CHECK_MAX_N:
        for k in range(count):
            if mechanical_transition_graph(chains, k) != transition_graph(sy, k):
                raise RuntimeError(f"cross-check: chain {k}: mechanical graph != mapped graph")
    return count


def sample_chunk(
    phi, N, seed, chunk, size, d_max=1.0, sigma0_max=0.5, checks=4, parallel=False
) -> dict:
    """Tallies (integer counts and histograms) of one chunk of ``size`` chains."""
    identity = point_identity(phi, N, d_max, sigma0_max)
    rng = chunk_generator(identity, seed, chunk)
    chains = sample_chains(phi, N, size, rng, d_max, sigma0_max)
    sy = chain_mapping(chains)
    t = {"samples": size, "active_elements": int((chains.d < 0).sum())}
    t["negative_span_probability"] = int(np.any(sy.h_plus < sy.h_minus, axis=1).sum())
    loops = batch.first_loops_batch(sy, "1", parallel=parallel)
    is_loop = loops["outcome"] == codes.SELF_LOOP
    t["saturated_loop_probability"] = int(is_loop.any(axis=1).sum())
    t["saturated_loop_L"] = np.bincount(loops["L"][is_loop], minlength=N + 1)
    t["saturated_loop_n_e"] = np.bincount(loops["n_e"][is_loop], minlength=N + 1)
    if N <= ENUMERATION_MAX_N:
        what = codes.WHAT_TRANSITIONS | codes.WHAT_ZERO_FIELD
        out = batch.enumerate_batch(
            sy, np.zeros(size, np.int64), "1", what, parallel=parallel, l4_per_system=1
        )
        looped = out.columns["n_self_loop_transitions"] > 0
        t["self_loop_probability"] = int(looped.sum())
        t["gap_probability_at_zero"] = int((out.columns["n_stable_at_zero"] == 0).sum())
        t["self_loop_L"] = out.loop_length_hist
        t["self_loop_n_e"] = out.loop_elements_hist
        nonneg = ~np.any(sy.h_plus < sy.h_minus, axis=1)
        t["nonnegative_span_chains"] = int(nonneg.sum())
        t["self_loop_nonnegative_spans"] = int((nonneg & looped).sum())
        t["ties"] = int((out.columns["ties"] > 0).sum())
    t["cross_checked"] = cross_check(chains, sy, loops, checks) if checks else 0
    return t


def chunks(samples: int) -> list[tuple[int, int]]:
    """[(chunk index, size)] covering ``samples`` chains in chunks of ``CHUNK_SIZE``."""
    return [
        (k, min(CHUNK_SIZE, samples - k * CHUNK_SIZE)) for k in range(-(-samples // CHUNK_SIZE))
    ]


def merge(tallies) -> dict:
    """Sum chunk tallies (histograms padded to the longest)."""
    total: dict = {}
    for t in tallies:
        for k, v in t.items():
            if isinstance(v, np.ndarray):
                old = total.get(k, np.zeros(0, np.int64))
                n = max(old.size, v.size)
                new = np.zeros(n, np.int64)
                new[: old.size] += old
                new[: v.size] += v
                total[k] = new
            else:
                total[k] = total.get(k, 0) + v
    return total


def sample_point(phi, N, samples, seed, d_max=1.0, sigma0_max=0.5, checks=4, parallel=False):
    """Merged tallies of one (φ, N) point (chunks in order)."""
    return merge(
        sample_chunk(phi, N, seed, k, size, d_max, sigma0_max, checks, parallel)
        for k, size in chunks(samples)
    )


PROBABILITIES = (
    "self_loop_probability",
    "self_loop_probability_nonnegative_spans",
    "gap_probability_at_zero",
    "saturated_loop_probability",
    "negative_span_probability",
)
HISTOGRAMS = ("self_loop_L", "self_loop_n_e", "saturated_loop_L", "saturated_loop_n_e")


def tally_dataset(t: dict) -> xr.Dataset:
    """One point's tallies as a Dataset (counts 0-d, histograms along ``<name>_bin``)."""
    return xr.Dataset(
        {k: ((f"{k}_bin",), v) if isinstance(v, np.ndarray) else ((), v) for k, v in t.items()}
    )


def tally_from_dataset(ds: xr.Dataset) -> dict:
    """Inverse of ``tally_dataset``."""
    return {
        k: (np.asarray(v.values, np.int64) if v.ndim else int(v.values))
        for k, v in ds.data_vars.items()
    }


def chains_dataset(
    phis, Ns, samples, seed, d_max=1.0, sigma0_max=0.5, checks=4, parallel=False
) -> xr.Dataset:
    """The (φ, N) study as a Dataset, every point sampled here (see ``assemble``)."""
    tallies = {}
    for phi in phis:
        for N in Ns:
            tallies[float(phi), int(N)] = sample_point(
                phi, N, samples, seed, d_max, sigma0_max, checks, parallel
            )
    attrs = {
        "samples": int(samples),
        "seed": int(seed),
        "d_max": float(d_max),
        "sigma0_max": float(sigma0_max),
    }
    return assemble(tallies, phis, Ns, attrs)


def assemble(tallies: dict, phis, Ns, attrs: dict) -> xr.Dataset:
    """The (φ, N) Dataset from per-point tallies {(φ, N): tally}: probabilities with
    binomial standard errors (NaN where not measured: P_sl and P_g^0 beyond N = 18),
    histograms along L and n_e, the exact negative-span probability and cross-check
    counts (no timings: a dataset depends only on what was sampled).
    ``attrs`` holds samples, seed, d_max and sigma0_max."""
    phis = [float(p) for p in phis]
    Ns = [int(n) for n in Ns]
    d_max, sigma0_max = float(attrs["d_max"]), float(attrs["sigma0_max"])
    shape = (len(phis), len(Ns))
    data = {name: np.full(shape, np.nan) for name in PROBABILITIES}
    errs = {name: np.full(shape, np.nan) for name in PROBABILITIES}
    checked = np.zeros(shape, np.int64)
    active = np.zeros(shape)
    for a, phi in enumerate(phis):
        for b, N in enumerate(Ns):
            t = tallies[phi, N]
            if "self_loop_nonnegative_spans" in t and t["nonnegative_span_chains"]:
                n = t["nonnegative_span_chains"]
                p = t["self_loop_nonnegative_spans"] / n
                data["self_loop_probability_nonnegative_spans"][a, b] = p
                errs["self_loop_probability_nonnegative_spans"][a, b] = math.sqrt(p * (1 - p) / n)
            for name in PROBABILITIES:
                if name in t:
                    p = t[name] / t["samples"]
                    data[name][a, b] = p
                    errs[name][a, b] = math.sqrt(p * (1 - p) / t["samples"])
            checked[a, b] = t["cross_checked"]
            active[a, b] = t["active_elements"] / (t["samples"] * N)
    size = 1 + max(
        (
            int(np.flatnonzero(t[h]).max())
            for t in tallies.values()
            for h in HISTOGRAMS
            if h in t and t[h].any()
        ),
        default=0,
    )
    hists = {name: np.zeros((*shape, size), np.int64) for name in HISTOGRAMS}
    for a, phi in enumerate(phis):
        for b, N in enumerate(Ns):
            t = tallies[phi, N]
            for name in HISTOGRAMS:
                if name in t:
                    h = t[name][:size]
                    hists[name][a, b, : h.size] = h
    dims = ("phi", "N")
    variables = {name: (dims, data[name]) for name in PROBABILITIES}
    variables.update({f"{name}_stderr": (dims, errs[name]) for name in PROBABILITIES})
    variables["self_loop_L"] = (("phi", "N", "L"), hists["self_loop_L"])
    variables["self_loop_n_e"] = (("phi", "N", "n_e"), hists["self_loop_n_e"])
    variables["saturated_loop_L"] = (("phi", "N", "L"), hists["saturated_loop_L"])
    variables["saturated_loop_n_e"] = (("phi", "N", "n_e"), hists["saturated_loop_n_e"])
    variables["negative_span_probability_exact"] = (
        dims,
        np.array([[negative_span_probability(p, n, d_max, sigma0_max) for n in Ns] for p in phis]),
    )
    variables["cross_checked"] = (dims, checked)
    variables["active_fraction"] = (dims, active)
    return xr.Dataset(
        variables,
        coords={"phi": phis, "N": Ns, "L": np.arange(size), "n_e": np.arange(size)},
        attrs={
            **attrs,
            "rule": "1",
            "chunk_size": CHUNK_SIZE,
            "chains_sampling_version": CHAINS_SAMPLING_VERSION,
            "quantum_sampling_version": SAMPLING_VERSION,
            "hyst_version": __version__,
        },
    )
