"""Throughput of the exact P_sl-only search (``any_self_loop``) per core.

Prints, for each N and NJ0 (random couplings, rule 1 unless told otherwise):

- samples/s of the search alone on one thread (systems drawn beforehand), with
  P_sl, the share of systems decided by the reachable search, and the mean
  complete-search nodes of the loop-free systems;
- samples/s of drawing plus searching on one thread (what a sweep point costs);

then the enumeration ``transitions`` group (full P_sl) at N = 10, NJ0 = 10 on
one thread for comparison (same ensemble and rule), and the two targets end to
end (``sample_point``, all numba threads):

- N = 24, NJ0 = 100, 1000 random hysterons, rule 1 (target: under 60 s);
- the N = 16 P_sl curve over the paper's 13 NJ0 values at 10^4 samples each
  (target: under 30 minutes).

    python benchmarks/bench_any_self_loop.py [--seconds 2] [--couplings random]
        [--spans hysteron] [--N 10 12 ... 24] [--NJ0 0.1 1 10 100] [--rule 1]
        [--samples 2000] [--no-targets]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from hyst.kernels import codes
from hyst.model import batch
from hyst.model.ensembles import sample_systems
from hyst.sampling.sampler import Point, sample_point

PAPER_NJ0 = [float(x) for x in 10.0 ** (np.arange(13) / 4 - 1)]


def search_self_loops(systems, rule, parallel):
    return batch.any_self_loop_batch(systems, rule, parallel=parallel)


def psl(point, samples):
    """(P_sl, seconds) of a sweep point through the sampler (group any_self_loop)."""
    t0 = time.perf_counter()
    counts = sample_point(point, samples, seed=1, groups=["any_self_loop"]).counts
    return counts["self_loop_probability"] / samples, time.perf_counter() - t0


def search_rate(systems, rule, seconds):
    """(samples/s of the serial search, its columns) repeated for about ``seconds``."""
    search_self_loops(systems[:2], rule, parallel=False)  # compile / load
    reps, t0 = 0, time.perf_counter()
    while True:
        cols = search_self_loops(systems, rule, parallel=False)
        reps += 1
        dt = time.perf_counter() - t0
        if dt > seconds:
            return reps * systems.samples / dt, cols


def draw_and_search_rate(couplings, spans, N, NJ0, rule, n, seed):
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    systems = sample_systems(couplings, spans, N, NJ0, n, rng)
    search_self_loops(systems, rule, parallel=False)
    return n / (time.perf_counter() - t0)


def enumeration_rate(couplings, spans, N, NJ0, rule, n, seconds):
    """samples/s of the enumeration ``transitions`` group on one thread."""
    sy = sample_systems(couplings, spans, N, NJ0, n, np.random.default_rng(1))

    def run(k):
        batch.enumerate_batch(
            sy[:k], np.zeros(k, np.int64), rule, codes.WHAT_TRANSITIONS, parallel=False
        )

    run(2)
    reps, t0 = 0, time.perf_counter()
    while True:
        run(n)
        reps += 1
        dt = time.perf_counter() - t0
        if dt > seconds:
            return reps * n / dt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--samples", type=int, default=2000, help="systems per (N, NJ0) row")
    ap.add_argument("--couplings", default="random")
    ap.add_argument("--spans", default="hysteron")
    ap.add_argument("--rule", default="1")
    ap.add_argument("--N", type=int, nargs="+", default=[10, 12, 14, 16, 18, 20, 22, 24])
    ap.add_argument("--NJ0", type=float, nargs="+", default=[0.1, 1.0, 10.0, 100.0])
    ap.add_argument("--no-targets", action="store_true")
    args = ap.parse_args(argv)
    print(
        f"numba threads: {numba.get_num_threads()}; couplings {args.couplings}; spans "
        f"{args.spans}; rule {args.rule}"
    )
    print(
        "|  N |   NJ0 | search, 1 core (samples/s) | draw + search, 1 core | P_sl "
        "| found by reachable search | complete-search nodes (loop-free) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for N in args.N:
        for NJ0 in args.NJ0:
            rng = np.random.default_rng([N, int(NJ0 * 1000)])
            sy = sample_systems(args.couplings, args.spans, N, NJ0, args.samples, rng)
            rate, cols = search_rate(sy, args.rule, args.seconds)
            both = draw_and_search_rate(
                args.couplings, args.spans, N, NJ0, args.rule, args.samples, N
            )
            loop = cols["self_loop"] == 1
            reach = (cols["found_by"] == codes.FOUND_REACHABLE).mean()
            nodes = cols["search_nodes"][~loop].mean() if (~loop).any() else 0.0
            print(
                f"| {N} | {NJ0:g} | {rate:,.0f} | {both:,.0f} | {loop.mean():.4f} "
                f"| {reach:.4f} | {nodes:,.0f} |",
                flush=True,
            )
    enum = enumeration_rate(args.couplings, args.spans, 10, 10.0, args.rule, 2000, args.seconds)
    sy = sample_systems(args.couplings, args.spans, 10, 10.0, 2000, np.random.default_rng(1))
    search, _ = search_rate(sy, args.rule, args.seconds)
    print(
        f"\nN = 10, NJ0 = 10, 1 core: enumeration 'transitions' {enum:,.0f} samples/s; "
        f"any_self_loop {search:,.0f} samples/s"
    )
    if args.no_targets:
        return
    # load the parallel kernel (numba's cache: about 0.6 s in a fresh process) first
    psl(Point("random", "hysteron", "1", 24, 100.0), 4)
    p, dt = psl(Point("random", "hysteron", "1", 24, 100.0), 1000)
    print(
        f"target N = 24, NJ0 = 100, 1000 random hysterons, rule 1, end to end: {dt:.2f} s "
        f"(P_sl = {p:.4f})"
    )
    total = 0.0
    for NJ0 in PAPER_NJ0:
        p, dt = psl(Point("random", "hysteron", "1", 16, NJ0), 10_000)
        total += dt
        print(f"  N = 16, NJ0 = {NJ0:.4g}: P_sl = {p:.4f} ({dt:.2f} s)", flush=True)
    print(f"target N = 16 curve, 13 NJ0 x 10^4: {total:.1f} s")


if __name__ == "__main__":
    main()
