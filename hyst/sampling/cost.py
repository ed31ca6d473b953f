"""What sampling costs before it runs: core-seconds from measured rates, and memory.

Rates are CPU seconds per system of one thread, per observable group and N, measured on
this machine by ``benchmarks/bench_rates.py`` and kept with the benchmarks in
``benchmarks/rates.json``. Between the measured N the time per system is interpolated
(log-log: power laws in N; for the groups that enumerate the 2^N states, log-linear:
exponential in N) and beyond them extrapolated from the last two. A point computing several
groups runs the kernel passes that serve them (:func:`hyst.sampling.passes.plan`): a pass
whose one call serves all its groups alike (``KernelPass.one_call``: the amplitude sweep's
multiperiodic and periods, the addressing call's addressability and reachability) costs the
time of its most costly group, any other pass the sum of its groups' times, an upper
estimate (the groups of one chunk share its draw). Estimates, not promises: within a factor
of about two on the machine measured (``benchmarks/bench_study_costs.py`` measures a
preset's studies against them).

Memory: a chunk holds ``chunk_size(N)`` systems, each with N x N couplings drawn as float64
and kept as int64 (:mod:`hyst.model.systems`), 16 bytes per coupling, plus the working
arrays of the kernels (another copy, counted here): ``32 N^2`` bytes per system.
"""

from __future__ import annotations

import functools
import json
import math
import os
from pathlib import Path

from hyst.catalogue import GROUPS
from hyst.model.ensembles import SELF_LOOP_FREE
from hyst.sampling.passes import plan
from hyst.sampling.sampler import chunk_size

#: The rates file written by benchmarks/bench_rates.py.
RATES_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "rates.json"
#: Bytes per coupling of a chunk (float64 draw, int64 couplings, a working copy of each).
BYTES_PER_COUPLING = 32
#: Memory of a sampling process besides its chunk (interpreter, numba, NumPy, Dask).
BASE_BYTES = 400 * 2**20


@functools.lru_cache(maxsize=4)
def load_rates(path: str | None = None) -> dict | None:
    """The measured rates (see the module docstring), or None where no file is kept."""
    path = Path(path) if path else RATES_PATH
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _measured(by_ensemble: dict, couplings: str) -> dict:
    """The table of ``couplings``, or else of the ensemble that stands for it (symmetric for
    the strictly self-loop-free ensembles, random for the others), or else the one there is."""
    stand_in = "symmetric" if couplings in SELF_LOOP_FREE else "random"
    return (
        by_ensemble.get(couplings)
        or by_ensemble.get(stand_in)
        or by_ensemble.get("random")
        or next(iter(by_ensemble.values()))
    )


def nj0_factor(group: str, couplings: str, NJ0: float, rates: dict, N: int | None = None) -> float:
    """The cost per system at ``NJ0`` over that at the rates' N J0 (``nj0_factor`` of the
    rates file: the drive groups' amplitude sweeps and the self-loop search grow with the
    couplings), interpolated log-log, constant beyond the measured range; 1 where not
    measured. A group measured at several N (a list of tables, N ascending) is interpolated
    log-log in ``N`` between them too, held beyond them (the first table where ``N`` is
    None)."""
    by_ensemble = (rates.get("nj0_factor") or {}).get(group)
    if not by_ensemble or not NJ0 or NJ0 <= 0:
        return 1.0
    tables = _measured(by_ensemble, couplings)
    if isinstance(tables, dict):
        tables = [tables]
    logs = [_log_interpolated(t["NJ0"], t["factor"], NJ0) for t in tables]
    if N is None or len(tables) == 1:
        return math.exp(logs[0])
    return math.exp(_interpolated([math.log(t["N"]) for t in tables], logs, math.log(N)))


def _log_interpolated(xs, values, at: float) -> float:
    """log of ``values`` at ``at``, interpolated log-log in ``xs``, held beyond them."""
    return _interpolated(
        [math.log(x) for x in xs], [math.log(max(v, 1e-12)) for v in values], math.log(at)
    )


def _interpolated(x: list, y: list, at: float) -> float:
    """Linear between the points (x ascending) around ``at``, held beyond the first and last."""
    if len(x) == 1:
        return y[0]
    at = min(max(at, x[0]), x[-1])
    k = 1
    while k < len(x) - 1 and x[k] < at:
        k += 1
    slope = (y[k] - y[k - 1]) / (x[k] - x[k - 1])
    return y[k - 1] + slope * (at - x[k - 1])


def seconds_per_system(
    group: str, couplings: str, N: int, rates: dict, NJ0: float | None = None
) -> float:
    """CPU seconds of one thread per system of ``group`` at ``N`` (interpolated), measured
    in ``couplings`` or else in the ensemble that stands for it (symmetric for the strictly
    self-loop-free ensembles, random for the others); at ``NJ0``, scaled by
    :func:`nj0_factor`."""
    table = _measured(rates["seconds_per_system"][group], couplings)
    factor = nj0_factor(group, couplings, NJ0, rates, N) if NJ0 is not None else 1.0
    return factor * _at_N(group, table, N)


def _at_N(group: str, table: dict, N: int) -> float:
    """A measured table of ``group`` at ``N`` (:func:`table_seconds`; log-linear for the
    groups that enumerate the 2^N states)."""
    return table_seconds(table, N, exponential=GROUPS[group].max_N is not None)


def table_seconds(table: dict, N: int, exponential: bool) -> float:
    """A measured table {"N": [...], "seconds": [...]} at ``N``: log-log between its N
    (log-linear where the cost grows like 2^N), extrapolated from the last two beyond them."""
    Ns, secs = table["N"], table["seconds"]
    x = [float(n) if exponential else math.log(n) for n in Ns]
    y = [math.log(s) for s in secs]
    at = float(N) if exponential else math.log(N)
    if len(x) == 1:
        return secs[0]
    k = 1
    while k < len(x) - 1 and x[k] < at:
        k += 1
    slope = (y[k] - y[k - 1]) / (x[k] - x[k - 1])
    return math.exp(y[k - 1] + slope * (at - x[k - 1]))


def point_seconds(point, groups, samples: int, rates: dict | None = None) -> float | None:
    """Core-seconds to sample ``samples`` systems of ``groups`` at a
    :class:`hyst.sampling.sampler.Point` (None: no rates)."""
    rates = load_rates() if rates is None else rates
    if rates is None:
        return None
    total = 0.0
    for kernel_pass, served in plan(tuple(groups)):
        each = [seconds_per_system(g, point.couplings, point.N, rates, point.NJ0) for g in served]
        total += max(each) if kernel_pass.one_call else sum(each)
    return samples * total


def chunk_bytes(N: int) -> int:
    """Peak memory of a process sampling one chunk at ``N`` (see the module docstring)."""
    return BASE_BYTES + BYTES_PER_COUPLING * chunk_size(N) * N * N


def machine_bytes() -> int:
    """Physical memory of this machine."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def bytes_text(n: float) -> str:
    """``n`` bytes for a person: 1.2 GiB, 74.5 TiB."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # pragma: no cover


def hours_text(core_hours: float) -> str:
    """Core-hours for a person: 0.02, 1.4, 3,100, 2.6e+09."""
    if core_hours >= 1e6:
        return f"{core_hours:.2g}"
    if core_hours >= 100:
        return f"{core_hours:,.0f}"
    return f"{core_hours:.2g}" if core_hours < 1 else f"{core_hours:.1f}"


def duration_text(seconds: float) -> str:
    """A duration for a person: 45 s, 3 min 20 s, 1 h 05 min."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
