"""Fundamental self-loops: enumeration rate and LP (realizability) rate per core.

- ``enumerate``: representatives per second of the enumerator (counting only, one
  thread, all chunks of the cell), per cell;
- ``lp``: loops per second of the realizability check (``blocks.realize_block``: design
  inequalities, stacked HiGHS LPs, weak-asymmetry branching, exact re-simulation of
  every feasible point), on a random sample of a cell's representatives, per LP
  form and set of variants.

    python benchmarks/bench_loops.py --count 5:18 5:20 --lp 5:12 5:16 --sample 400
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hyst.combinatorics import blocks, cells
from hyst.combinatorics import structures as S


def _cell(text):
    n, L = (int(v) for v in text.split(":"))
    S.check_cell(n, L)
    return n, L


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=_cell, nargs="*", default=[(5, 16), (5, 18), (5, 20)])
    parser.add_argument("--lp", type=_cell, nargs="*", default=[(4, 12), (5, 12), (5, 16)])
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    S.count_loops(4, 10)  # compile
    print("| cell | M | seconds | representatives/s |")
    print("|---|---:|---:|---:|")
    for n, L in args.count:
        got = cells.count_cell(n, L)
        print(
            f"| ({n}, {L}) | {got.count:,} | {got.seconds:.2f} | {got.count / got.seconds:,.0f} |"
        )
    print()
    print("| cell | LP form | variants | loops | loops/s |")
    print("|---|---|---|---:|---:|")
    rng = np.random.default_rng(args.seed)
    for n, L in args.lp:
        reps = S.enumerate_cell(n, L)
        take = np.sort(rng.choice(reps.count, min(args.sample, reps.count), replace=False))
        for form in ("eliminated", "compact"):
            for variants in (("R",), ("R", "W+"), ("R", "R+", "W", "W+")):
                block = blocks.Block(
                    reps.starts[take],
                    reps.flips[take],
                    variants,
                    "conservative",
                    form == "eliminated",
                )
                t0 = time.perf_counter()
                blocks.realize_block(block)
                dt = time.perf_counter() - t0
                print(
                    f"| ({n}, {L}) | {form} | {','.join(variants)} | {take.size} | "
                    f"{take.size / dt:,.0f} |"
                )


if __name__ == "__main__":
    main()
