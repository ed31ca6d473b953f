"""The self-loop search with direction-dependent couplings against the plain search, side by
side in one run, one thread.

Per (N, N·J0), on the same drawn h^± and c^+ (the α axis changes c^− alone): the plain
search on the paper's model (α = 0); the direction-dependent search on the same systems
with c^− = c^+ held as a pair (its cost on the same work: both find the same loops after
the same nodes); and the direction-dependent search at α = 0.5 and α = 1. samples/s of the
search alone, P_sl, and the mean complete-search nodes of the loop-free systems.

    python benchmarks/bench_self_loop_search_directed.py [--N 12 16] [--NJ0 0.1 1 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hyst.model.batch import any_self_loop_batch
from hyst.model.ensembles import sample_systems
from hyst.model.systems import Systems


def rate(systems: Systems, rule: str, seconds: float):
    """(samples/s of the serial search repeated for about ``seconds``, its columns)."""
    any_self_loop_batch(systems[:2], rule, parallel=False)  # compile / load
    reps, t0 = 0, time.perf_counter()
    while True:
        cols = any_self_loop_batch(systems, rule, parallel=False)
        reps += 1
        dt = time.perf_counter() - t0
        if dt > seconds:
            return reps * systems.samples / dt, cols


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--samples", type=int, default=500)
    ap.add_argument("--rule", default="1")
    ap.add_argument("--N", type=int, nargs="+", default=[12, 16])
    ap.add_argument("--NJ0", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    args = ap.parse_args(argv)
    print(f"random couplings, hysterons, rule {args.rule}, one thread, {args.samples} systems")
    print("| N | N·J0 | search | samples/s | P_sl | nodes (loop-free) |")
    print("|---:|---:|---|---:|---:|---:|")
    for N in args.N:
        for NJ0 in args.NJ0:
            cases = []
            for alpha in (0.0, 0.5, 1.0):
                rng = np.random.default_rng([N, int(NJ0 * 1000)])
                sy = sample_systems(
                    "random", "hysteron", N, NJ0, args.samples, rng, direction_asymmetry=alpha
                )
                if alpha == 0.0:
                    c = np.ascontiguousarray(sy.couplings)
                    pair = Systems(sy.h_plus, sy.h_minus, c.copy(), couplings_minus=c.copy())
                    cases += [("plain, α = 0", sy), ("J±, c− = c+", pair)]
                else:
                    cases.append((f"J±, α = {alpha:g}", sy))
            for label, sy in cases:
                r, cols = rate(sy, args.rule, args.seconds)
                loop = cols["self_loop"] == 1
                nodes = cols["search_nodes"][~loop].mean() if (~loop).any() else 0.0
                print(
                    f"| {N} | {NJ0:g} | {label} | {r:,.0f} | {loop.mean():.3f} | {nodes:,.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
