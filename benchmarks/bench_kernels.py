"""Kernel rates of two source trees side by side, one core (for a change to the kernels).

Each round runs every measurement once per tree, each tree in its own process (PYTHONPATH
selects the tree; kernels come from that tree's numba cache), alternating the order of
the trees from round to round, so that a busy machine slows both alike.

Measurements (random couplings, hysteron spans, rule 1, one numba thread, serial kernels,
systems drawn beforehand with the same seeds in both trees), in systems per second of the
process's CPU time:

- ``psl_search``: P_sl by the self-loop search (group ``any_self_loop``);
- ``psl_table``: P_sl by the enumeration (group ``transitions``);
- ``all``: every enumeration observable plus the cyclic drive (``bench_psl.py``'s
  "all observables");
- ``avalanche``, ``cyclic``, ``saturated``, ``first_loops``: the drives of the
  event-driven kernels (N = 64 and 512; constant columns: their own kernel under rule 1),
  ``float64``: the round-off twin (N = 8), ``chains``: the serial chains' saturated loop
  (N = 16), ``pair_scan``: the two-element chains' scan of the drive range (cells);
- ``psl_table_rule0``, ``psl_table_rule2``, ``avalanche_rule0``, ``avalanche_rule2``: the
  state table's and the event-driven relaxation's other rules (N = 8 and 64);
- ``sweep_<couplings>_<N J0>``: the amplitude sweep of the symmetric drive with its
  summary (groups ``multiperiodic`` and ``periods``) at N = 4, 16, 64, from weak couplings
  (random, N J0 = 0.1) to strong constant columns and rows (N J0 = 100).

Prints, per measurement, the median and the best rate of each tree over the rounds and the
ratios of the medians and of the bests.

    python benchmarks/bench_kernels.py OLD_TREE NEW_TREE [--rounds 4] [--seconds 1]
        [--sizes 4,6,8,10,12,14] [--only saturated,chains]
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

    def pair_scan(n=400):
        from hyst.kernels import mechanics as kern

        rng = np.random.default_rng(6)
        xm = np.tile(np.array([-(2**40), -(2**39)], np.int64), (n, 1))
        xp = np.tile(np.array([2**40, 3 * 2**39], np.int64), (n, 1))
        d = rng.integers(0, 3 * 2**40, (n, 2))
        out = np.zeros((n, len(codes.PAIR_CELL_COLUMNS)), np.int64)
        return lambda: kern.pair_scan.serial(xm, xp, d, 1, 2, codes.RULE_1, out)

    def psl_table_rule(rule, N=8, n=400):
        sy, _, starts = draw("random", N, n, N)
        return lambda: batch.enumerate_batch(
            sy, starts, rule, codes.WHAT_TRANSITIONS, parallel=False
        )

    def avalanche_rule(rule, N=64, n=200):
        sy, spins, _ = draw("random", N, n, 7)
        return lambda: batch.avalanche_batch(sy, spins, rule, parallel=False)

    def sweep(couplings, N, NJ0, n):
        sy = sample_systems(couplings, "hysteron", N, NJ0, n, np.random.default_rng(11))
        return lambda: batch.amplitude_sweep_batch(sy, "1", parallel=False)

    for couplings, N, NJ0, n in (
        ("random", 4, 1.0, 2000),
        ("random", 16, 0.1, 1000),
        ("symmetric", 16, 10.0, 500),
        ("columns", 16, 100.0, 100),
        ("rows", 16, 100.0, 200),
        ("columns", 64, 100.0, 10),
    ):
        rows.append(
            (
                f"sweep_{couplings}_{NJ0:g}",
                N,
                n,
                lambda c=couplings, N=N, J=NJ0, n=n: sweep(c, N, J, n),
            )
        )

    rows += [
        ("float64", 8, 200, float64),
        ("chains", 16, 400, chains),
        ("pair_scan", 2, 400, pair_scan),
        ("psl_table_rule0", 8, 400, lambda: psl_table_rule("0")),
        ("psl_table_rule2", 8, 400, lambda: psl_table_rule("2")),
        ("avalanche_rule0", 64, 200, lambda: avalanche_rule("0")),
        ("avalanche_rule2", 64, 200, lambda: avalanche_rule("2")),
    ]
    return rows


def child(sizes, seconds, only):
    """Run every measurement (or those whose name starts with one of ``only``) in this
    process (tree = PYTHONPATH); print JSON rates."""
    import numba

    numba.set_num_threads(1)
    rates = {}
    for name, N, n, make in measurements(sizes):
        if only and not name.startswith(tuple(only)):
            continue
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
    ap.add_argument("--only", default="", help="measurements whose names start so, commas")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    if args.child:
        child(sizes, args.seconds, [x for x in args.only.split(",") if x])
        return
    if len(args.trees) != 2:
        ap.error("two trees: OLD NEW")
    rates = [{}, {}]  # tree -> measurement -> its rate in each round (or why it failed)
    for r in range(args.rounds):
        for t in (0, 1) if r % 2 == 0 else (1, 0):
            env = dict(os.environ, PYTHONPATH=args.trees[t], NUMBA_NUM_THREADS="1")
            cmd = [sys.executable, __file__, "--child", "--seconds", str(args.seconds)]
            cmd += ["--only", args.only]
            out = subprocess.run(
                cmd + ["--sizes", args.sizes], env=env, capture_output=True, text=True
            )
            if out.returncode:
                sys.exit(out.stderr)
            for key, v in json.loads(out.stdout.splitlines()[-1]).items():
                rates[t].setdefault(key, []).append(v)
            print(f"round {r + 1} tree {t} done", file=sys.stderr, flush=True)
    old, new = args.trees
    print(
        f"| measurement | {old} median (systems/s) | {new} median | new / old median "
        f"| {old} best | {new} best | new / old best |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key, a in rates[0].items():
        b = rates[1].get(key, ["missing"])
        if all(isinstance(v, float) for v in a + b):
            ma, mb, ba, bb = np.median(a), np.median(b), max(a), max(b)
            print(
                f"| {key} | {ma:,.0f} | {mb:,.0f} | {mb / ma:.3f} "
                f"| {ba:,.0f} | {bb:,.0f} | {bb / ba:.3f} |"
            )
        else:
            print(f"| {key} | {a[0]} | {b[0]} | | | | |")


if __name__ == "__main__":
    main()
