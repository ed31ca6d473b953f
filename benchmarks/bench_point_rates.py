"""Sampling rates of a sweep point in two source trees, measured side by side.

For N = 4…14 (random couplings, hysteron spans, NJ0 = 10, rule 1: the ensemble of
``bench_psl.py``) each tree's sampler samples one point the way a Dask task does
(``sample_chunk`` on the calling thread, chunks merged in chunk order) with

- the P_sl group (``transitions``),
- every default observable group ("all": transitions, zero_field, avalanche, cyclic),

and, at N = 4, the enumeration kernel alone on one pre-drawn chunk (``what`` = transitions),
the rate a point could reach with no cost around the kernel. Systems per second of
process CPU time on one thread (NUMBA_NUM_THREADS = 1), so that time the process spends
descheduled on a shared machine does not count.

Every round runs each tree in a process of its own (``PYTHONPATH`` selects the tree), the
two in alternating order; the table gives the median over the rounds and the spread
(min–max). Chunks hold ``min(chunk_size(N), 2^(22 − N))`` systems: whole chunks up to
N = 8, where the fixed cost per chunk matters; fewer systems at large N, where a whole
chunk would take seconds. Both trees sample the same chunks.

    python benchmarks/bench_point_rates.py BEFORE_TREE AFTER_TREE [--rounds 5]
        [--seconds 2] [--sizes 4,6,8,10,12,14]

A tree is a checkout of the repository (e.g. ``git worktree add /tmp/before 1b1a403``);
the layouts before and after issue 26's package moves are both understood.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ENSEMBLE = ("random", "hysteron", "1")
NJ0 = 10.0
SEED = 1
ALL = ("transitions", "zero_field", "avalanche", "cyclic")


def _sampler():
    """(Point, chunk_size, sample_chunk, Tally, draw_chunk, enumerate_batch, WHAT_TRANSITIONS)
    of the tree on ``sys.path``."""
    from hyst.kernels.codes import WHAT_TRANSITIONS

    try:
        from hyst.model.batch import enumerate_batch
        from hyst.sampling.sampler import Point, chunk_size, draw_chunk, sample_chunk
        from hyst.sampling.tallies import Tally
    except ImportError:  # the layout before issue 26
        from hyst.kernel_calls import enumerate_batch
        from hyst.sampler import Point, chunk_size, draw_chunk, sample_chunk
        from hyst.statistics import Tally
    try:  # a chunk of a SamplingJob (a chunk's tallies do not depend on the job's samples)
        from hyst.sampling.sampler import SamplingJob

        job_chunk = sample_chunk

        def sample_chunk(point, seed, chunk, size, groups, parallel):
            return job_chunk(SamplingJob(point, 1, groups, seed), chunk, size, parallel)

    except ImportError:  # before the SamplingJob: sample_chunk(point, seed, chunk, ...)
        pass
    return Point, chunk_size, sample_chunk, Tally, draw_chunk, enumerate_batch, WHAT_TRANSITIONS


def _timed(step, seconds: float) -> float:
    """Systems per CPU second of ``step(k)`` (returns the systems it did) for k = 0, 1, …
    until ``seconds`` of CPU time have passed."""
    done, k, t0 = 0, 0, time.process_time()
    while True:
        done += step(k)
        k += 1
        dt = time.process_time() - t0
        if dt >= seconds:
            return done / dt


def measure(sizes: list[int], seconds: float) -> dict:
    """Rates of the tree on ``sys.path``: {"psl": {N: rate}, "all": {N: rate}, "kernel": rate}."""
    Point, chunk_size, sample_chunk, Tally, draw_chunk, enumerate_batch, what = _sampler()
    import numpy as np

    rates: dict = {"psl": {}, "all": {}}
    for N in sizes:
        point = Point(*ENSEMBLE, N, NJ0)
        size = min(chunk_size(N), 2 ** (22 - N))
        for name, groups in (("psl", ("transitions",)), ("all", ALL)):
            sample_chunk(point, SEED + 1, 0, 16, groups, parallel=False)  # load the kernels
            total = Tally()

            def step(k, point=point, size=size, groups=groups, total=total):
                total.merge(sample_chunk(point, SEED, k, size, groups, parallel=False))
                return size

            rates[name][N] = _timed(step, seconds)
    point = Point(*ENSEMBLE, 4, NJ0)
    systems, spins = draw_chunk(point, SEED, 0, chunk_size(4))
    starts = (spins > 0).astype(np.int64) @ (np.int64(1) << np.arange(4, dtype=np.int64))

    def kernel(_k):
        enumerate_batch(systems, starts, ENSEMBLE[2], what, parallel=False)
        return systems.samples

    kernel(0)
    rates["kernel"] = _timed(kernel, seconds)
    return rates


def run_tree(tree: Path, sizes: list[int], seconds: float) -> dict:
    """``measure`` in a fresh process on one thread, with ``tree`` first on ``sys.path``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        "--sizes",
        ",".join(map(str, sizes)),
        "--seconds",
        str(seconds),
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


def _label(tree: Path) -> str:
    head = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{tree.name} ({head}{', modified' if dirty else ''})"


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})"


def table(results: dict, trees: list[Path], sizes: list[int]) -> str:
    """Markdown: median rate (min–max over the rounds) per tree, and after / before."""
    before, after = (results[str(t)] for t in trees)

    def series(runs, kind, N=None):
        return [r[kind] if N is None else r[kind][str(N)] for r in runs]

    lines = [
        "| N | P_sl, before | P_sl, after | after / before | all observables, before "
        "| all observables, after | after / before |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for N in sizes:
        cells = [str(N)]
        for kind in ("psl", "all"):
            b, a = series(before, kind, N), series(after, kind, N)
            cells += [_cell(b), _cell(a), f"{statistics.median(a) / statistics.median(b):.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    b, a = series(before, "kernel"), series(after, "kernel")
    lines.append(
        f"\nThe enumeration kernel alone at N = 4 (transitions, one pre-drawn chunk): before "
        f"{_cell(b)}, after {_cell(a)} systems/s."
    )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trees", nargs="*", type=Path, help="BEFORE and AFTER source trees")
    parser.add_argument("--rounds", type=int, default=5, help="processes per tree, alternated")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time per measurement")
    parser.add_argument("--sizes", default="4,6,8,10,12,14")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")]
    if args.worker:
        print(json.dumps(measure(sizes, args.seconds)))
        return
    if len(args.trees) != 2:
        parser.error("give two source trees: BEFORE AFTER")
    trees = [t.resolve() for t in args.trees]
    for t in trees:
        if not (t / "hyst" / "__init__.py").is_file():
            parser.error(f"{t}: not a source tree of hyst (no hyst/__init__.py)")
    results: dict = {str(t): [] for t in trees}
    for r in range(args.rounds):
        for t in trees if r % 2 == 0 else trees[::-1]:
            results[str(t)].append(run_tree(t, sizes, args.seconds))
            print(f"round {r + 1}/{args.rounds}: {t.name} done", file=sys.stderr, flush=True)
    print(
        f"before: {_label(trees[0])}; after: {_label(trees[1])}; {args.rounds} rounds, "
        f"{args.seconds:g} s of CPU time per measurement; systems/s, median (min–max)\n"
    )
    print(table(results, trees, sizes))


if __name__ == "__main__":
    main()
