"""Sampling cost per system of every observable group, for ``hyst config check``'s estimate.

For each observable group and a ladder of N (random couplings, hysteron spans, rule 1,
NJ0 = 10: the ensemble of ``bench_psl.py``; avalanche and cyclic also with symmetric
couplings) one chunk is sampled the way a Dask task does
(``sample_chunk`` on the calling thread, one numba thread) after a warm-up chunk that
compiles the kernels; its size grows until a measurement takes ``--seconds`` of process
CPU time (time the process spends descheduled on a shared machine does not count). The
result, CPU seconds per system, goes to ``benchmarks/rates.json``, which
:mod:`hyst.sampling.cost` interpolates, with the CPU seconds that compiling every kernel into
an empty numba cache takes (what the first run of a fresh checkout pays once).

    NUMBA_NUM_THREADS=1 python benchmarks/bench_rates.py [--seconds 0.5] [-o benchmarks/rates.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from hyst.catalogue import GROUPS  # noqa: E402
from hyst.model.ensembles import sample_systems  # noqa: E402
from hyst.sampling.sampler import Point, SamplingJob, chunk_size, sample_chunk  # noqa: E402

SPANS, RULE, NJ0, SEED = "hysteron", "1", 10.0, 1
SMALL, LARGE = [2, 4, 8, 12, 16], [4, 16, 64, 256, 1024]
#: (group, couplings, the N measured): the 2^N enumerations to their limit, the others to
#: N = 1024; the drive groups (avalanche, cyclic and those of designed materials) also in
#: the strictly self-loop-free ensembles their studies use (symmetric, constant columns,
#: constant rows: a flip moves every field in the column and row forms, and their
#: avalanches and amplitude sweeps cost up to ten times the symmetric ones at large N J0).
LADDERS = [
    ("transitions", "random", SMALL),
    ("zero_field", "random", SMALL),
    ("float64", "random", SMALL),
    ("any_self_loop", "random", [4, 8, 16, 24]),
    ("avalanche", "random", LARGE),
    ("avalanche", "symmetric", LARGE),
    ("avalanche", "columns", LARGE),
    ("avalanche", "rows", LARGE),
    ("cyclic", "random", LARGE),
    ("cyclic", "symmetric", LARGE),
    ("cyclic", "columns", LARGE),
    ("cyclic", "rows", LARGE),
    ("saturated_loop", "random", LARGE),
    ("multiperiodic", "random", [2, 4, 8, 16, 32]),
    ("multiperiodic", "symmetric", [2, 4, 8, 16, 32]),
    ("multiperiodic", "columns", [2, 4, 8, 16, 32]),
    ("multiperiodic", "rows", [2, 4, 8, 16, 32]),
    ("addressability", "random", [2, 4, 8, 16, 32, 64]),
    ("addressability", "symmetric", [2, 4, 8, 16, 32, 64]),
    ("addressability", "columns", [2, 4, 8, 16, 32, 64]),
    ("addressability", "rows", [2, 4, 8, 16, 32, 64]),
    ("reachability", "random", [2, 4, 8, 12, 16]),
    ("reachability", "symmetric", [2, 4, 8, 12, 16]),
    ("reachability", "columns", [2, 4, 8, 12, 16]),
    ("reachability", "rows", [2, 4, 8, 12, 16]),
    ("periods", "random", [2, 4, 8, 16, 32, 64]),
    ("periods", "symmetric", [2, 4, 8, 16, 32, 64]),
    ("periods", "columns", [2, 4, 8, 16, 32, 64]),
    ("periods", "rows", [2, 4, 8, 16, 32, 64]),
]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def seconds_per_system(
    group: str, couplings: str, N: int, target: float, nj0: float = NJ0
) -> tuple[float, int]:
    """CPU seconds per system of ``group`` at ``N`` (and ``nj0``) and the systems measured."""
    # a chunk's tallies do not depend on the job's samples: one job for every chunk size
    job = SamplingJob(Point(couplings, SPANS, RULE, N, nj0), 1, (group,), SEED)
    sample_chunk(job, 0, 2, parallel=False)  # compile, warm
    size = 4
    while True:
        t0 = time.process_time()
        sample_chunk(job, 1, size, parallel=False)
        dt = time.process_time() - t0
        if dt >= target or size >= 64 * chunk_size(N):
            return dt / size, size
        size = min(64 * chunk_size(N), max(2 * size, int(size * 1.2 * target / max(dt, 1e-6))))


#: Where the cost per system depends on the coupling strength (the amplitude sweeps of the
#: drive groups drive more amplitudes at large N J0, the self-loop search meets more
#: potentially stable states): per group, ensemble and one N, the cost at each of these
#: N J0 over its cost at the ladders' N J0 = 10 (``nj0_factor`` of the rates file).
NJ0_LADDER = [0.1, 1.0, 10.0, 100.0]
NJ0_SCALING = [
    ("transitions", "random", 8),
    ("zero_field", "random", 8),
    ("any_self_loop", "random", 16),
    ("avalanche", "symmetric", 64),
    ("avalanche", "columns", 64),
    ("avalanche", "rows", 64),
    ("cyclic", "symmetric", 64),
    ("cyclic", "columns", 64),
    ("cyclic", "rows", 64),
    ("saturated_loop", "random", 64),
    ("multiperiodic", "random", 8),
    ("multiperiodic", "symmetric", 8),
    ("multiperiodic", "columns", 8),
    ("multiperiodic", "rows", 8),
    # the groups of designed materials: at N = 16 (the state table of addressability and
    # reachability) and at N = 64 (event-driven drives; the factor grows with N between them)
    ("addressability", "random", 16),
    ("addressability", "random", 64),
    ("addressability", "symmetric", 16),
    ("addressability", "symmetric", 64),
    ("addressability", "columns", 16),
    ("addressability", "columns", 64),
    ("addressability", "rows", 16),
    ("addressability", "rows", 64),
    ("reachability", "random", 16),
    ("reachability", "symmetric", 16),
    ("reachability", "columns", 16),
    ("reachability", "rows", 16),
    ("periods", "random", 16),
    ("periods", "random", 64),
    ("periods", "symmetric", 16),
    ("periods", "symmetric", 64),
    ("periods", "columns", 16),
    ("periods", "columns", 64),
    ("periods", "rows", 16),
    ("periods", "rows", 64),
]

COMPILE = """
from hyst.sampling.warm import compile_sampler
print(compile_sampler())
"""


def compile_seconds() -> float:
    """CPU seconds to compile every kernel of the sampler into an empty numba cache (what the
    first run of a fresh checkout pays once), in a process of its own."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", COMPILE], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.split()[-1])


def nj0_factors(target: float, only: set | None = None) -> dict:
    """{group: {couplings: {"N": N, "NJ0": [...], "factor": [...]}}} of :data:`NJ0_SCALING`
    (of the groups ``only``, where given); a list of such tables, N ascending, where a group
    and ensemble is measured at several N."""
    out: dict = {}
    for group, couplings, N in NJ0_SCALING:
        if only and group not in only:
            continue
        secs = [seconds_per_system(group, couplings, N, target, nj0)[0] for nj0 in NJ0_LADDER]
        at10 = secs[NJ0_LADDER.index(NJ0)]
        factors = [float(f"{s / at10:.3g}") for s in secs]
        print(f"{group:15s} {couplings:9s} N = {N:4d}: cost / cost at N J0 = 10: {factors}")
        table = {"N": N, "NJ0": NJ0_LADDER, "factor": factors}
        by_ensemble = out.setdefault(group, {})
        if couplings in by_ensemble:  # several N: a list of tables
            before = by_ensemble[couplings]
            by_ensemble[couplings] = [*(before if isinstance(before, list) else [before]), table]
        else:
            by_ensemble[couplings] = table
    return out


#: The N of the random-order analysis's measured table (the races study kind).
RANDOM_ORDER_LADDER = (3, 4, 5, 6, 7, 8)


def races_rates(target: float) -> dict:
    """{"random_order": {"N": [...], "seconds": [...]}}: CPU seconds per system of the
    random-order analysis (:func:`hyst.model.random_order.random_order_analysis`), random
    couplings, hysteron spans, N J0 = 10, as the races study kind runs it."""
    from hyst.model.random_order import random_order_analysis

    Ns, secs = [], []
    for N in RANDOM_ORDER_LADDER:
        systems = sample_systems("random", "hysteron", N, NJ0, 400, np.random.default_rng(N))
        random_order_analysis(systems, 0)  # compiled and warm
        t0, done = time.process_time(), 0
        while done < systems.samples and (done < 5 or time.process_time() - t0 < target):
            random_order_analysis(systems, done)
            done += 1
        per = (time.process_time() - t0) / done
        print(f"random order      random    N = {N:5d}: {per * 1e3:10.4f} ms/system ({done})")
        Ns.append(N)
        secs.append(float(f"{per:.4g}"))
    return {"random_order": {"N": Ns, "seconds": secs}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="CPU seconds per measurement")
    ap.add_argument("-o", "--output", default=str(Path(__file__).with_name("rates.json")))
    ap.add_argument(
        "--groups",
        help="measure only these groups (comma-separated) and keep the rest of --output, "
        "compile time included",
    )
    ap.add_argument(
        "--nj0-only",
        action="store_true",
        help="measure only the dependence on N J0 (nj0_factor) and keep the rest of --output; "
        "with --groups, only theirs (the other groups' factors kept)",
    )
    ap.add_argument(
        "--races-only",
        action="store_true",
        help="measure only the races study kind's random-order analysis (races_seconds) and "
        "keep the rest of --output",
    )
    args = ap.parse_args()
    if args.races_only:
        kept = json.loads(Path(args.output).read_text())
        kept["races_seconds"] = races_rates(args.seconds)
        Path(args.output).write_text(json.dumps(kept, indent=1) + "\n")
        print(f"wrote {args.output}")
        return
    only = set(args.groups.split(",")) if args.groups else None
    if args.nj0_only:
        kept = json.loads(Path(args.output).read_text())
        measured = nj0_factors(args.seconds, only)
        factors = (kept.get("nj0_factor") or {}) if only else {}
        for group, by_ensemble in measured.items():
            factors.setdefault(group, {}).update(by_ensemble)
        kept["nj0_factor"] = factors
        Path(args.output).write_text(json.dumps(kept, indent=1) + "\n")
        print(f"wrote {args.output}")
        return
    if only:
        kept = json.loads(Path(args.output).read_text())
        compiled, table = kept["compile_seconds"], kept["seconds_per_system"]
        factors = kept.get("nj0_factor")
        races = kept.get("races_seconds")
    else:
        compiled = compile_seconds()
        print(f"compiling every kernel into an empty cache: {compiled:.0f} s of CPU time")
        table, factors, races = {}, None, None
    for group, couplings, ladder in LADDERS:
        if only and group not in only:
            continue
        assert group in GROUPS, group
        Ns, secs = [], []
        for N in ladder:
            per, size = seconds_per_system(group, couplings, N, args.seconds)
            print(
                f"{group:15s} {couplings:9s} N = {N:5d}: {per * 1e3:10.4f} ms/system "
                f"({size} systems)"
            )
            Ns.append(N)
            secs.append(float(f"{per:.4g}"))
        table.setdefault(group, {})[couplings] = {"N": Ns, "seconds": secs}
    out = {
        "what": "CPU seconds per system of one thread, per observable group, coupling "
        "ensemble and N (benchmarks/bench_rates.py)",
        "ensemble": {"spans": SPANS, "rule": RULE, "NJ0": NJ0},
        "machine": {"cpu": cpu_model(), "python": platform.python_version()},
        "date": datetime.date.today().isoformat(),
        "compile_seconds": round(compiled, 1),
        "seconds_per_system": table,
        "nj0_factor": factors or nj0_factors(args.seconds),
        "races_seconds": races or races_rates(args.seconds),
    }
    # what this script does not measure (the pipeline's per-job costs, from
    # bench_estimate.py --calibrate) is kept
    output = Path(args.output)
    out = {**(json.loads(output.read_text()) if output.exists() else {}), **out}
    output.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
