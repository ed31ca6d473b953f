"""Kernel rates of two source trees side by side, one core (for a change to the kernels).

Each round runs every measurement once per tree, each tree in its own process (PYTHONPATH
selects the tree; kernels come from that tree's numba cache), alternating the order of
the trees from round to round, so that a busy machine slows both alike. Prints, per
measurement, the best rate of each tree over the rounds and their ratio.

Measurements (random couplings, hysteron spans, rule 1, one numba thread, serial kernels,
systems drawn beforehand with the same seeds in both trees), in systems per second of the
process's CPU time:

- ``psl_search``: P_sl by the self-loop search (group ``any_self_loop``);
- ``psl_table``: P_sl by the enumeration (group ``transitions``);
- ``all``: every enumeration observable plus the cyclic drive (``bench_psl.py``'s
  "all observables");
- ``avalanche``, ``cyclic``, ``saturated``, ``first_loops``: the drives of the
  event-driven kernels (N = 64 and 512), ``float64``: the round-off twin (N = 8),
  ``chains``: the serial chains' saturated loop (N = 16).

    python benchmarks/bench_kernels.py OLD_TREE NEW_TREE [--rounds 4] [--seconds 1]
        [--sizes 4,6,8,10,12,14]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _rate(fn, n, seconds):
    """Systems per second of CPU time of this process (a shared machine's other load
    lengthens the wall time, much less the CPU time of a single-threaded call)."""
    fn()  # compile or load, warm up
    reps, t0 = 0, time.process_time()
    while True:
        fn()
        reps += 1
        dt = time.process_time() - t0
        if dt > seconds:
            return reps * n / dt


def measurements(sizes):
    """(name, N, samples, make) of every measurement; make() returns the call to time."""
    from hyst.kernels import codes
    from hyst.model import batch
    from hyst.model.ensembles import sample_systems

    def draw(couplings, N, n, seed):
        rng = np.random.default_rng(seed)
        sy = sample_systems(couplings, "hysteron", N, 10.0, n, rng)
        spins = np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)
        starts = (spins > 0).astype(np.int64) @ (np.int64(1) << np.arange(N, dtype=np.int64))
        return sy, spins, starts

    rows = []
    for N in sizes:
        n = max(64, int(400_000 / (1 << N) / N))

        def psl_search(N=N, n=n):
            sy, _, _ = draw("random", N, n, N)
            return lambda: batch.any_self_loop_batch(sy, "1", parallel=False)

        def psl_table(N=N, n=n):
            sy, _, starts = draw("random", N, n, N)
            return lambda: batch.enumerate_batch(
                sy, starts, "1", codes.WHAT_TRANSITIONS, parallel=False
            )

        def every(N=N, n=n):
            sy, spins, starts = draw("random", N, n, N)

            def run():
                batch.enumerate_batch(sy, starts, "1", codes.WHAT_ALL, parallel=False)
                batch.cyclic_drive_batch(sy, spins, "1", 100_000, parallel=False)

            return run

        rows += [("psl_search", N, n, psl_search), ("psl_table", N, n, psl_table)]
        rows.append(("all", N, n, every))

    def drives(couplings, N, n):
        sy, spins, _ = draw(couplings, N, n, 7)
        return {
            "avalanche": lambda: batch.avalanche_batch(sy, spins, "1", parallel=False),
            "cyclic": lambda: batch.cyclic_drive_batch(sy, spins, "1", 1000, parallel=False),
            "saturated": lambda: batch.saturated_loop_batch(sy, "1", parallel=False),
            "first_loops": lambda: batch.first_loops_batch(sy, "1", parallel=False),
        }

    for couplings, N, n in (("random", 64, 200), ("symmetric", 512, 20), ("columns", 512, 20)):
        for name in ("avalanche", "cyclic", "saturated", "first_loops"):
            rows.append(
                (
                    f"{name}_{couplings}",
                    N,
                    n,
                    lambda c=couplings, N=N, n=n, k=name: drives(c, N, n)[k],
                )
            )

    def float64(N=8, n=200):
        sy, _, _ = draw("random", N, n, 3)
        hp, hm, c = sy.to_floats()
        return lambda: batch.float64_transitions_batch(sy, hp, hm, c, "1", parallel=False)

    def chains(N=16, n=400):
        from hyst.networks import mechanics
        from hyst.networks.elements import SerialChains

        rng = np.random.default_rng(5)
        xm = rng.integers(-(2**30), 0, (n, N))
        chains = SerialChains(
            xm, xm + rng.integers(0, 2**30, (n, N)), rng.integers(0, 2**29, (n, N))
        )
        return lambda: mechanics.saturated_loop(chains, "1", parallel=False)

    rows += [("float64", 8, 200, float64), ("chains", 16, 400, chains)]
    return rows


def child(sizes, seconds):
    """Run every measurement in this process (tree = PYTHONPATH); print JSON rates."""
    import numba

    numba.set_num_threads(1)
    rates = {}
    for name, N, n, make in measurements(sizes):
        try:
            rates[f"{name} N={N}"] = _rate(make(), n, seconds)
        except Exception as exc:  # a measurement the tree does not have
            rates[f"{name} N={N}"] = repr(exc)
    print(json.dumps(rates))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--sizes", default="4,6,8,10,12,14")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    if args.child:
        child(sizes, args.seconds)
        return
    if len(args.trees) != 2:
        ap.error("two trees: OLD NEW")
    best = [{}, {}]
    for r in range(args.rounds):
        for t in (0, 1) if r % 2 == 0 else (1, 0):
            env = dict(os.environ, PYTHONPATH=args.trees[t], NUMBA_NUM_THREADS="1")
            cmd = [sys.executable, __file__, "--child", "--seconds", str(args.seconds)]
            out = subprocess.run(
                cmd + ["--sizes", args.sizes], env=env, capture_output=True, text=True
            )
            if out.returncode:
                sys.exit(out.stderr)
            for key, v in json.loads(out.stdout.splitlines()[-1]).items():
                if isinstance(v, float):
                    best[t][key] = max(best[t].get(key, 0.0), v)
                else:
                    best[t].setdefault(key, v)
            print(f"round {r + 1} tree {t} done", file=sys.stderr, flush=True)
    print(f"| measurement | {args.trees[0]} (systems/s) | {args.trees[1]} | new / old |")
    print("|---|---:|---:|---:|")
    for key in best[0]:
        a, b = best[0][key], best[1].get(key)
        if isinstance(a, float) and isinstance(b, float):
            print(f"| {key} | {a:,.0f} | {b:,.0f} | {b / a:.3f} |")
        else:
            print(f"| {key} | {a} | {b} | |")


if __name__ == "__main__":
    main()
