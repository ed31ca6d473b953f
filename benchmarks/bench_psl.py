"""Throughput of the full P_sl computation (and of all observables) per core.

For N = 4…14 (hysteron spans, random couplings, NJ0 = 10, rule 1) prints
samples per second for

- P_sl alone (every up/down transition out of every potentially stable state),
  on one thread and on all cores;
- all per-system observables together (P_s, P_g^0, f_G, P_sl^0, P_sl, P_RC, A,
  cyclic drive τ and T), on one thread;
- the same P_sl computation driven through the peer package ``hysteron`` on
  identical instances (its own thresholds and avalanches; N ≤ --peer-max-n),
  and the ratio.

    python benchmarks/bench_psl.py [--seconds 2] [--peer-max-n 10]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from hyst.kernels import codes
from hyst.model import batch
from hyst.model.ensembles import sample_systems


def _enum(sy, starts, what, threads):
    """The enumeration kernel on ``threads`` numba threads (1: the serial twin)."""
    numba.set_num_threads(threads)
    return batch.enumerate_batch(sy, starts, "1", what, parallel=threads > 1).columns


def _all(sy, starts, spins, threads):
    out = _enum(sy, starts, codes.WHAT_ALL, threads)
    batch.cyclic_drive_batch(sy, spins, "1", 100_000, parallel=threads > 1)
    return out


def rate(fn, sy, *args, seconds):
    """Samples per second of ``fn`` on ``sy`` (repeated for about ``seconds``)."""
    fn(sy[:4], *(a[:4] for a in args))  # compile / warm up
    n, reps, t0 = sy.samples, 0, time.perf_counter()
    while True:
        fn(sy, *args)
        reps += 1
        dt = time.perf_counter() - t0
        if dt > seconds:
            return reps * n / dt


def peer_psl(sy) -> np.ndarray:
    """P_sl of each system computed with the peer package alone (slow reference)."""
    from hyst.reference.peer import STABILITY_ERROR, critical_field, peer_avalanche

    found = np.zeros(sy.samples, bool)
    for k in range(sy.samples):
        hp, hm, c = (a[k].tolist() for a in (sy.h_plus, sy.h_minus, sy.couplings))
        N = len(hp)
        for S in range(1 << N):
            up = critical_field(hp, hm, c, S, +1)
            dn = critical_field(hp, hm, c, S, -1)
            if not dn < up:
                continue
            for direction, h in ((+1, up), (-1, dn)):
                if not np.isfinite(h):
                    continue
                if peer_avalanche(hp, hm, c, S, direction) == STABILITY_ERROR:
                    found[k] = True
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--peer-max-n", type=int, default=10)
    parser.add_argument("--peer-samples", type=int, default=20)
    parser.add_argument("--sizes", default="4,6,8,10,12,14")
    args = parser.parse_args(argv)
    cores = numba.config.NUMBA_NUM_THREADS
    print(
        f"# hyst P_sl benchmark: random couplings, hysteron spans, NJ0 = 10, rule 1; {cores} cores"
    )
    print(
        f"{'N':>3} {'P_sl 1 core':>12} {'P_sl all':>12} {'all obs 1 core':>15} "
        f"{'peer 1 core':>12} {'ratio':>8}"
    )
    for N in map(int, args.sizes.split(",")):
        rng = np.random.default_rng(N)
        n = max(64, int(2_000_000 / (1 << N) / N))
        sy = sample_systems("random", "hysteron", N, 10.0, n, rng)
        spins = np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)
        starts = (spins > 0).astype(np.int64) @ (np.int64(1) << np.arange(N, dtype=np.int64))
        numba.set_num_threads(1)
        psl1 = rate(
            lambda s, st: _enum(s, st, codes.WHAT_TRANSITIONS, 1),
            sy,
            starts,
            seconds=args.seconds,
        )
        all1 = rate(lambda s, st, sp: _all(s, st, sp, 1), sy, starts, spins, seconds=args.seconds)
        numba.set_num_threads(cores)
        psln = rate(
            lambda s, st: _enum(s, st, codes.WHAT_TRANSITIONS, cores),
            sy,
            starts,
            seconds=args.seconds,
        )
        peer, ratio = float("nan"), float("nan")
        if N <= args.peer_max_n:
            m = args.peer_samples
            peer_psl(sy[:2])  # compile the peer
            t0 = time.perf_counter()
            found = peer_psl(sy[:m])
            peer = m / (time.perf_counter() - t0)
            ours = (
                _enum(sy[:m], starts[:m], codes.WHAT_TRANSITIONS, cores)["n_self_loop_transitions"]
                > 0
            )
            assert np.array_equal(found, ours), "peer and hyst disagree on P_sl"
            ratio = psl1 / peer
        print(
            f"{N:3d} {psl1:12,.0f} {psln:12,.0f} {all1:15,.0f} {peer:12,.1f} {ratio:8,.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
