"""Sampling one sweep point: draw systems, run the kernels, tally every observable.

A *point* is (couplings, spans, rule, N, NJ0). Its samples are split into
chunks of ``chunk_size(N)`` systems; chunk k draws from a generator keyed by
the base seed, the point's *ensemble identity* (couplings, spans, N, NJ0: the
rule is not part of it, so every rule sees the same systems) and k
(:mod:`hyst.model.seeds`). Chunk results are integer counts, float sums and
histograms merged in chunk order, so a point's result depends only on its
parameters, its sample count and the seed, never on how chunks are scheduled.

What the sampler runs for one point is a :class:`SamplingJob`: the point, its sample count,
observable groups, base seed and records, validated once when it is built. The study kinds
build it (:class:`hyst.studies.points.PointSpec` is one, with its file), the sampler runs it
here (:func:`sample_job`, :func:`sample_chunk`) or chunk by chunk on a Dask client
(:func:`hyst.sampling.chunks.sample_points`), which pickles it to the workers.

A chunk runs the kernel passes of its observable groups, as the table of
:mod:`hyst.sampling.passes` says; each pass is decoded into named per-sample arrays (the
field names of :mod:`hyst.catalogue`) and :class:`hyst.sampling.tallies.Tally` tallies the
catalogue's observables of the groups it served.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from hyst.catalogue import GROUPS, RECORDS, groups_allowing, observables
from hyst.model import seeds
from hyst.model.cuda_batch import check_backend
from hyst.model.ensembles import (
    COUPLING_ENSEMBLES,
    SELF_LOOP_FREE,
    SPAN_ENSEMBLES,
    check_direction_asymmetry,
    sample_systems,
)
from hyst.model.systems import RULES, Systems
from hyst.sampling.malloc import keep_large_buffers
from hyst.sampling.passes import Chunk, compute
from hyst.sampling.tallies import Tally

#: Largest number of systems per chunk (small N); chunks hold at most ~2^24 couplings.
MAX_CHUNK_SIZE = 10_000


def chunk_size(N: int) -> int:
    """Systems per chunk of a point with N elements: a fixed function of N (it is part of
    every point's provenance: changing it changes the random streams)."""
    return int(min(MAX_CHUNK_SIZE, max(16, 2**24 // (N * N))))


@dataclass(frozen=True)
class Point:
    """One sweep point: an ensemble (couplings, spans, N, NJ0) and a race-condition rule;
    ``direction_asymmetry`` α > 0 draws direction-dependent couplings
    (:func:`hyst.model.ensembles.sample_systems`; α = 0 is the paper's model, and its points
    keep their identity)."""

    couplings: str
    spans: str
    rule: str
    N: int
    NJ0: float
    direction_asymmetry: float = 0.0

    def __post_init__(self):
        for name, value, choices in (
            ("couplings", self.couplings, COUPLING_ENSEMBLES),
            ("spans", self.spans, SPAN_ENSEMBLES),
        ):
            if not isinstance(value, str) or value not in choices:
                raise ValueError(f"{name}: {value!r} is not one of {', '.join(choices)}")
        if not isinstance(self.rule, str | int) or str(self.rule) not in RULES:
            raise ValueError(f"rule: {self.rule!r} is not one of {', '.join(RULES)}")
        object.__setattr__(self, "rule", str(self.rule))
        if not isinstance(self.N, int | np.integer) or self.N < 2:
            raise ValueError(f"N: {self.N!r} is not allowed (an integer >= 2)")
        object.__setattr__(self, "N", int(self.N))
        if not (isinstance(self.NJ0, int | float) and math.isfinite(self.NJ0) and self.NJ0 > 0):
            raise ValueError(f"NJ0: {self.NJ0!r} is not allowed (a finite number > 0)")
        object.__setattr__(self, "NJ0", float(self.NJ0))
        alpha = check_direction_asymmetry(self.direction_asymmetry, self.couplings)
        object.__setattr__(self, "direction_asymmetry", alpha)

    @property
    def J0(self) -> float:
        """The coupling scale J0 = (N J0) / N: couplings are drawn in [−J0, J0]."""
        return self.NJ0 / self.N

    def ensemble_identity(self) -> dict:
        """What the chunks' generators are keyed by: the ensemble (not the rule, and not the
        direction asymmetry, which changes only c^−, drawn after the rest)."""
        return {
            "couplings": self.couplings,
            "spans": self.spans,
            "N": self.N,
            "NJ0": repr(self.NJ0),
        }

    def canonical(self) -> dict:
        """The point's identity: its ensemble identity (couplings, spans, N, N J0), the rule
        and, where it is not 0, the direction asymmetry. The chunks' generators leave α out
        (``ensemble_identity``): points that differ only in α draw the same h^± and c^+ and
        differ in c^− alone (common random numbers along the α axis; α = 0 is the paper's
        point, identity unchanged)."""
        canonical = {**self.ensemble_identity(), "rule": self.rule}
        if self.direction_asymmetry:
            canonical["direction_asymmetry"] = repr(self.direction_asymmetry)
        return canonical

    def key(self) -> str:
        """Stable hash of the point's canonical parameters (hex)."""
        return seeds.digest(self.canonical(), 16)


def chunk_generator(point: Point, seed: int, chunk: int) -> np.random.Generator:
    """Generator of chunk ``chunk`` of a point (independent of every other chunk)."""
    return seeds.generator(seed, point.ensemble_identity(), chunk)


def chunk_bounds(samples: int, size: int) -> list[tuple[int, int]]:
    """[(chunk index, chunk size)] covering ``samples`` samples in chunks of ``size``."""
    return [(k, min(size, samples - k * size)) for k in range(-(-samples // size))]


def resolve_groups(point: Point, groups=None) -> tuple[str, ...]:
    """Observable groups to compute for a point (default "all": every default group that
    supports its N), in catalogue order."""
    if groups is None or groups == "all":
        groups = [g.name for g in GROUPS.values() if g.default and g.allows(point.N)]
    groups = tuple(groups)
    for name in groups:
        if name not in GROUPS:
            raise ValueError(f"observables: {name!r} is not one of {', '.join(GROUPS)}")
        group = GROUPS[name]
        if not group.allows(point.N):
            raise ValueError(
                f"observables: {name!r} needs N <= {group.max_N} (N = {point.N}; at "
                f"N = {point.N}: {groups_allowing(point.N)})"
            )
    return tuple(g for g in GROUPS if g in groups)


def draw_chunk(point: Point, seed: int, chunk: int, size: int) -> tuple[Systems, np.ndarray]:
    """The systems of chunk ``chunk`` of a point and their random start states (int8 ±1)."""
    rng = chunk_generator(point, seed, chunk)
    systems = sample_systems(
        point.couplings,
        point.spans,
        point.N,
        point.NJ0,
        size,
        rng,
        direction_asymmetry=point.direction_asymmetry,
    )
    start_spins = np.where(rng.random((size, point.N)) < 0.5, np.int8(-1), np.int8(1))
    return systems, start_spins


def record_salt(point: Point, seed: int) -> int:
    """Salt of the bottom-k keys of a point's records (:mod:`hyst.sampling.tallies`): a function
    of the point's identity (rule included) and the base seed only."""
    return seeds.record_salt(seed, {"records": point.canonical()})


def _count(name: str, value, least: int) -> int:
    """``value`` as an int if it is an integer >= ``least`` (not a bool), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
        raise ValueError(f"{name}: {value!r} is not allowed (an integer >= {least})")
    return int(value)


@dataclass(frozen=True)
class SamplingJob:
    """What the sampler runs for one sweep point: everything the point's tallies depend on.

    - ``point``: the sweep point (:class:`Point`: coupling and span ensembles, race-condition
      rule, N elements, coupling strength N·J0 in field units).
    - ``samples``: the number of systems drawn (an integer >= 1), in chunks of
      :func:`chunk_size` systems; chunk k holds systems k·chunk_size(N) onwards.
    - ``groups``: the observable groups computed (names of :data:`hyst.catalogue.GROUPS`);
      given as None or "all" (every default group that supports N) or any iterable of
      names, kept resolved: a tuple in catalogue order (:func:`resolve_groups`).
    - ``seed``: the base seed of the random streams (an integer, 0 <= seed < 2^64); chunk
      k's systems come from the stream keyed by the seed, the point's ensemble identity and k.
    - ``records``: the records kept per point, as sorted (name, k) pairs: at most k records
      of the catalogue's records observable ``name`` (e.g. ``(("l4", 2000),)``), a seeded
      bottom-k sample (:mod:`hyst.sampling.tallies`); given as a mapping or pairs; empty:
      none.
    - ``backend``: where the kernels run, "cpu" (default) or "cuda" (an NVIDIA GPU, or
      numba's CUDA simulator: :mod:`hyst.model.cuda_batch`). An operational choice: the
      tallies are the same on both, so it is no part of a point's identity.

    Every field is checked here, once, when the job is built: a bad value raises
    ``ValueError`` with one line naming the field and what is allowed ("samples: 0 is not
    allowed (an integer >= 1)"). The job is frozen and made of plain values, so that it
    pickles to Dask workers (:func:`hyst.sampling.chunks.sample_points`) and hashes.
    """

    point: Point
    samples: int
    groups: tuple[str, ...]
    seed: int
    records: tuple[tuple[str, int], ...] = ()
    backend: str = "cpu"

    def __post_init__(self):
        if not isinstance(self.point, Point):
            raise ValueError(f"point: {self.point!r} is not allowed (a Point)")
        object.__setattr__(self, "samples", _count("samples", self.samples, 1))
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            seed = -1
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed: {self.seed!r} is not allowed (an integer, 0 <= seed < 2^64)")
        object.__setattr__(self, "seed", int(seed))
        object.__setattr__(self, "groups", resolve_groups(self.point, self.groups))
        pairs = self.records.items() if isinstance(self.records, Mapping) else self.records
        kept = {o.name for o in observables(RECORDS)}
        caps = {}
        for name, cap in pairs or ():
            if name not in kept:
                raise ValueError(f"records: {name!r} is not one of {', '.join(sorted(kept))}")
            caps[str(name)] = _count(f"records: {name}", cap, 1)
        object.__setattr__(self, "records", tuple(sorted(caps.items())))
        check_backend(self.backend)

    def sampling_job(self) -> SamplingJob:
        """This job as a plain :class:`SamplingJob` (what a subclass adds left out): what is
        sent to Dask workers, which then unpickle classes of :mod:`hyst.sampling` alone."""
        if type(self) is SamplingJob:
            return self
        return SamplingJob(
            self.point, self.samples, self.groups, self.seed, self.records, self.backend
        )


def sample_chunk(job: SamplingJob, chunk: int, size: int, parallel: bool = True) -> Tally:
    """Draw chunk ``chunk`` (``size`` systems) of a job's point and tally its observables.

    The kernel passes of the job's groups run, are decoded and measured
    (:func:`hyst.sampling.passes.compute`), then tallied, with the job's records kept as
    the seeded bottom-k sample of :mod:`hyst.sampling.tallies`.
    ``parallel`` runs the kernels on all numba threads; ``False`` keeps them on
    the calling thread (for thread pools such as Dask workers). Same result.
    """
    keep_large_buffers()
    point, seed = job.point, job.seed
    caps = dict(job.records)
    salt = record_salt(point, seed) if caps else 0  # the salt keys records only
    offset = chunk * chunk_size(point.N)
    systems, start_spins = draw_chunk(point, seed, chunk, size)
    drawn = Chunk(
        point, seed, chunk, offset, systems, start_spins, bool(caps), parallel, job.backend
    )
    measured = compute(drawn, job.groups)
    tally = Tally(record_caps=caps, record_salt=salt)
    tally.add_count("samples", size)
    tally.add_measured(measured)
    return tally


# ---- the guard of the strictly self-loop-free ensembles --------------------------------------


def check_self_loop_free(point: Point, tally: Tally):
    """Raise if a strictly self-loop-free ensemble produced a self-loop (or, for
    constant rows, an avalanche of more than two flips; for constant columns, a
    cyclic-drive orbit whose period is not the drive's).

    Symmetric, ferromagnetic, constant-columns and constant-rows couplings
    cannot self-loop in transitions out of stable states under single-flip
    rules (0, 1, 1'); symmetric couplings cannot self-loop from any state
    (Lyapunov function), and the rule-1 preparation of S0 from a random state
    reaches a stable state in all four (the paper's large-N protocol; none of
    945,000 test preparations failed). Such counts are recorded in every
    dataset; here a nonzero count stops the run.

    Under rule 2 (every unstable element flips at once) see :func:`rule_two_problems`.
    """
    if point.couplings not in SELF_LOOP_FREE or point.direction_asymmetry:
        return
    if point.rule == "2":
        bad = rule_two_problems(point, tally)
        if bad:
            raise RuntimeError(f"rule-2 statement violated in the ensemble {point}: {bad}")
        return
    keys = [
        "avalanche_self_loop_probability",
        "drive_self_loop_probability",
        "saturated_loop_probability",
        "saturated_loop_any_probability",
        "self_loop_probability",
    ]
    if point.couplings == "symmetric":
        keys.append("self_loop_probability_at_zero")
    bad = {k: tally.counts[k] for k in keys if tally.counts.get(k, 0)}
    # the preparation (rule 1 from a random state at H = 0) always reaches a stable S0
    # in these ensembles (paper, large-N protocol); a start that did not is a self-loop
    trials = tally.counts.get("samples", 0)
    for key in ("prepared_starts", "drive_self_loop_probability_trials"):
        if key in tally.counts and tally.counts[key] != trials:
            bad[f"unprepared ({key})"] = trials - tally.counts[key]
    hist = tally.hists.get("avalanche_size_hist")
    if point.couplings == "rows" and hist is not None and hist[3:].sum():
        bad["avalanches_longer_than_2"] = int(hist[3:].sum())  # Appendix D: A <= 2
    periods = tally.hists.get("period_hist")
    if point.couplings == "columns" and periods is not None and periods[2:].sum():
        bad["periods_other_than_1"] = int(periods[2:].sum())  # no scrambling: T = 1
    if bad:
        raise RuntimeError(f"theorem violated in the self-loop-free ensemble {point}: {bad}")


#: Rule 2 in the self-loop-free ensembles: every self-loop length histogram of transitions
#: out of stable states holds L = 2 loops only (ferromagnetic couplings: none at all).
RULE_TWO_LENGTH_HISTS = ("self_loop_length_hist", "saturated_loop_length_hist")
RULE_TWO_PROBABILITIES = (
    "self_loop_probability",
    "avalanche_self_loop_probability",
    "drive_self_loop_probability",
    "saturated_loop_any_probability",
)


def rule_two_problems(point: Point, tally: Tally) -> dict:
    """What contradicts the Supplemental's rule-2 statements in a tally of a self-loop-free
    ensemble (an empty dict if nothing does).

    Ferromagnetic couplings: no self-loop in any transition out of a stable state (every
    flip goes along the drive, so the magnetisation is monotonic; the paper finds none).
    Symmetric, constant-column and constant-row couplings: "all self-loops have size
    L = 2" (the 2-cycles of parallel updates).
    """
    bad = {}
    if point.couplings == "ferro":
        for key in RULE_TWO_PROBABILITIES:
            if tally.counts.get(key, 0):
                bad[key] = tally.counts[key]
        return bad
    for key in RULE_TWO_LENGTH_HISTS:
        hist = tally.hists.get(key)
        if hist is not None:
            other = int(hist.sum()) - int(hist[2] if hist.size > 2 else 0)
            if other:
                bad[f"{key} (L != 2)"] = other
    return bad


def sample_job(
    job: SamplingJob,
    chunks: list[int] | None = None,
    progress: Callable[[int, int, int, float], None] | None = None,
) -> Tally:
    """Tally a job's systems (all chunks, or only ``chunks``), in chunk order, on all numba
    threads; ``progress(chunks_done, chunks, samples_done, rate)`` is called after each."""
    bounds = chunk_bounds(job.samples, chunk_size(job.point.N))
    if chunks is not None:
        bounds = [bounds[k] for k in chunks]
    total = Tally()
    t0 = time.perf_counter()
    done = 0
    for i, (k, size) in enumerate(bounds):
        total.merge(sample_chunk(job, k, size))
        done += size
        if progress is not None:
            progress(i + 1, len(bounds), done, done / max(time.perf_counter() - t0, 1e-9))
    return total


def sample_point(
    point: Point,
    samples: int,
    seed: int,
    groups=None,
    chunks: list[int] | None = None,
    progress: Callable[[int, int, int, float], None] | None = None,
    records: dict | None = None,
    backend: str = "cpu",
) -> Tally:
    """Tally ``samples`` systems of ``point``: :func:`sample_job` of the
    :class:`SamplingJob` of these arguments (``groups``: None for every default group;
    ``records``: records kept per point by name; ``backend``: "cpu" or "cuda")."""
    job = SamplingJob(point, samples, groups, seed, records or (), backend)
    return sample_job(job, chunks, progress)
