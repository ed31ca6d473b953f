"""Large strictly self-loop-free systems: flips per second and drive cost.

Per ensemble (symmetric, constant columns, constant rows; hysteron spans, rule 1)
and J0, on one thread:

- ``draw``: drawing one system (N = 1024) in its compact form;
- ``set-up``: building one system's couplings view and local fields (N = 1024;
  the symmetric form unpacks N(N-1)/2 numbers, the others are O(N));
- ``flips/s``: flips per second of the event-driven kernel at N = 1024
  (relaxing a random state at H = 0 to S0, then the avalanche at H^+(S0)),
  with and without the set-up;
- ``drive``: wall time of one full cyclic-drive sample at N = 512 (set-up,
  preparation, finding U_max, cycling to a periodic orbit), with the mean flips,
  cycles, τ and T of those samples.

    python benchmarks/bench_large.py [--samples 40] [--J0 0.01 1 100]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from hyst.kernels import drive, relaxation
from hyst.kernels.jit import jit
from hyst.model.ensembles import sample_systems


@jit
def _set_up_only(systems, starts):
    """The per-system set-up of the kernels alone (couplings view and local fields)."""
    N = starts.shape[1]
    s = np.empty(N, np.int8)
    neg = np.empty(N, np.int64)
    f = np.empty(N, np.int64)
    buf = relaxation.transpose_buffer(systems.form, N)
    total = 0
    for k in range(starts.shape[0]):
        drive.prepare(k, starts, systems, s, neg, f, buf)
        total += f[0]
    return total


def _spins(rng, n, N):
    return np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)


def avalanche_rate(ens, J0, n, rng, N=1024):
    """(seconds to draw a system, seconds of set-up per system, flips per second with
    and without the set-up)."""
    t0 = time.perf_counter()
    sy = sample_systems(ens, "hysteron", N, J0 * N, n, rng)
    draw = (time.perf_counter() - t0) / n
    spins = _spins(rng, n, N)
    out = np.zeros((n, 8), np.int64)
    ops = sy.kernel_batch()
    drive.avalanche_batch.serial(ops, spins, 1, out)  # warm up
    _set_up_only(ops, spins)
    t0 = time.perf_counter()
    _set_up_only(ops, spins)
    set_up = time.perf_counter() - t0
    t0 = time.perf_counter()
    drive.avalanche_batch.serial(ops, spins, 1, out)
    dt = time.perf_counter() - t0
    flips = out[:, 5].sum() + out[out[:, 1] == 0, 2].sum()
    return draw, set_up / n, flips / dt, flips / max(dt - set_up, 1e-9)


def drive_cost(ens, J0, n, rng, N=512):
    """(seconds per cyclic-drive sample, output rows)."""
    sy = sample_systems(ens, "hysteron", N, J0 * N, n, rng)
    spins = _spins(rng, n, N)
    out = np.zeros((n, 7), np.int64)
    umax = np.zeros(n, np.int64)
    drive.cyclic_drive_batch.serial(sy[:1].kernel_batch(), spins[:1], 1, 100_000, out[:1], umax[:1])
    t0 = time.perf_counter()
    drive.cyclic_drive_batch.serial(sy.kernel_batch(), spins, 1, 100_000, out, umax)
    return (time.perf_counter() - t0) / n, out


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--J0", type=float, nargs="+", default=[0.01, 1.0, 100.0])
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    n = args.samples
    print(f"# one thread; {n} systems per measurement")
    print(
        f"{'ensemble':10s} {'J0':>6s} {'draw':>8s} {'set-up':>8s} {'flips/s':>11s} "
        f"{'w/o set-up':>11s} | {'drive N=512':>11s} {'flips':>6s} {'cycles':>6s} "
        f"{'<tau>':>5s} {'<T>':>5s}"
    )
    print(f"{'':17s} {'(N = 1024, per system; flips/s of relaxation + avalanche)':>55s}")
    for ens in ("symmetric", "columns", "rows"):
        for J0 in args.J0:
            rng = np.random.default_rng(1)
            draw, set_up, rate, bare = avalanche_rate(ens, J0, n, rng)
            per_drive, out = drive_cost(ens, J0, n, rng)
            orbit = out[:, 1] == drive.ORBIT
            print(
                f"{ens:10s} {J0:6g} {draw * 1e3:6.2f}ms {set_up * 1e3:6.2f}ms {rate:11,.0f} "
                f"{bare:11,.0f} | {per_drive * 1e3:9.2f}ms {out[:, 5].mean():6.0f} "
                f"{out[:, 4].mean():6.1f} {out[orbit, 2].mean():5.2f} {out[orbit, 3].mean():5.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
