"""``hyst.sample_point``: one sweep point sampled from Python, as ``hyst point`` samples it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - imports for the annotations only
    import xarray


def sample_point(
    *,
    couplings: str,
    spans: str = "hysteron",
    rule: str = "1",
    N: int,
    NJ0: float,
    samples: int,
    seed: int = 0,
    observables: str | Sequence[str] = "all",
    records: Mapping[str, int] | None = None,
    threads: int | None = None,
    progress: Callable[[int, int, int, float], None] | None = None,
    backend: str = "cpu",
) -> xarray.Dataset:
    """Sample ``samples`` systems of one ensemble at (N, N·J0) and tally every observable.

    Returns the ``xarray.Dataset`` that ``hyst point`` writes with the same options, bit
    for bit: per observable the estimate, its count and trials, its standard error,
    histograms, the records asked for, and provenance attributes; every variable and
    coordinate carries ``long_name``, ``description`` and ``units`` (CF conventions).
    The result depends only on the arguments, never on ``threads`` or on how the samples
    are chunked. Bad arguments raise ``ValueError`` with one line naming the argument and
    what is allowed.

    Parameters
    ----------
    couplings : str
        The interaction ensemble: couplings c_ij drawn in [−J0, J0] (``hyst point --help``
        lists the ensembles).
    spans : str, default "hysteron"
        The span ensemble of the bare thresholds h_i^±.
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule every transition is resolved under.
    N : int
        Number of elements.
    NJ0 : float
        Coupling strength N·J0.
    samples : int
        Systems drawn (≥ 1).
    seed : int, default 0
        Base seed (≥ 0).
    observables : str or sequence of str, default "all"
        "all" (every group that applies at this N) or observable group names.
    records : mapping of str to int, optional
        {name: k}: keep at most k records per point (e.g. ``{"l4": 100}``: L = 4
        self-loops).
    threads : int, optional
        Numba threads (default: all cores).
    progress : callable, optional
        ``progress(chunks_done, chunks, samples_done, samples_per_second)``, called after
        each chunk.
    backend : {"cpu", "cuda"}, default "cpu"
        Where the enumeration of all 2^N states and the self-loop search run: the CPU, or
        an NVIDIA GPU (``pip install 'hyst[cuda]'``; numba's CUDA simulator with
        ``NUMBA_ENABLE_CUDASIM=1``). The dataset is the same on both; "cuda" where it
        cannot run raises ``ValueError`` before anything is sampled.

    Examples
    --------
    >>> import hyst
    >>> ds = hyst.sample_point(couplings="random", N=4, NJ0=10.0, samples=200, seed=1,
    ...                        observables=["transitions"])
    >>> float(ds.self_loop_probability) == int(ds.self_loop_probability_count) / 200
    True
    """
    from hyst.sampling.sampler import Point, resolve_groups
    from hyst.studies.points import PointSpec
    from hyst.systems.point_records import record_caps

    point = Point(couplings, spans, rule, N, NJ0)
    if isinstance(observables, str):
        groups = None if observables == "all" else observables.split(",")
    else:
        groups = list(observables)
    groups = resolve_groups(point, groups)
    requests = ",".join(f"{k}={v}" for k, v in (records or {}).items())
    caps = record_caps(requests, groups, names=("records", "observables"))
    # checks samples, seed and backend: one line
    job = PointSpec(point, samples, groups, seed, caps, backend)
    if threads is not None:
        import numba

        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads: {threads!r} is not allowed (an integer >= 1)")
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return job.sample(progress)
