"""Large strictly self-loop-free systems: flips per second and drive cost.

- flips/s of the event-driven array kernel at N = 1024 (relaxation of a
  random state at H = 0 plus the avalanche at H^+(S0), rule 1), per ensemble;
- wall time of one full cyclic-drive sample (prepare, find U_max, cycle to a
  periodic orbit) at N = 512, per ensemble;
- the cost of drawing one system (couplings dominate at large N).

    python benchmarks/bench_large.py [--samples 40]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from hyst.ensembles import sample_systems
from hyst.kernels import drive


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--J0", type=float, default=1.0)
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    n = args.samples
    print(f"# one thread; J0 = {args.J0}; {n} systems per measurement")
    print(
        f"{'ensemble':10s} {'draw N=1024':>12s} {'flips/s N=1024':>15s} "
        f"{'drive N=512':>12s} {'<tau>':>6s} {'<T>':>5s}"
    )
    for ens in ("symmetric", "columns", "rows"):
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        sy = sample_systems(ens, "hysteron", 1024, args.J0 * 1024, n, rng)
        draw = (time.perf_counter() - t0) / n
        spins = np.where(rng.random((n, 1024)) < 0.5, -1, 1).astype(np.int8)
        out = np.zeros((n, 8), np.int64)
        drive.avalanche_batch_serial(
            sy.h_plus[:1], sy.h_minus[:1], sy.couplings[:1], spins[:1], 1, out[:1]
        )
        t0 = time.perf_counter()
        drive.avalanche_batch_serial(sy.h_plus, sy.h_minus, sy.couplings, spins, 1, out)
        dt = time.perf_counter() - t0
        flips = out[:, 5].sum() + out[out[:, 1] == 0, 2].sum()
        sy5 = sample_systems(ens, "hysteron", 512, args.J0 * 512, n, rng)
        sp5 = np.where(rng.random((n, 512)) < 0.5, -1, 1).astype(np.int8)
        dout = np.zeros((n, 7), np.int64)
        umax = np.zeros(n, np.int64)
        drive.cyclic_drive_batch_serial(
            sy5.h_plus[:1],
            sy5.h_minus[:1],
            sy5.couplings[:1],
            sp5[:1],
            1,
            100_000,
            dout[:1],
            umax[:1],
        )
        t0 = time.perf_counter()
        drive.cyclic_drive_batch_serial(
            sy5.h_plus, sy5.h_minus, sy5.couplings, sp5, 1, 100_000, dout, umax
        )
        per_drive = (time.perf_counter() - t0) / n
        orbit = dout[:, 1] == drive.ORBIT
        print(
            f"{ens:10s} {draw * 1e3:10.1f}ms {flips / dt:15,.0f} {per_drive * 1e3:10.1f}ms "
            f"{dout[orbit, 2].mean():6.2f} {dout[orbit, 3].mean():5.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
