"""The amplitude sweep per system, hyst against the peer package ``hysteron``, one core each.

The peer's ``amplitude_sweep`` drives the symmetric cyclic drive ±A from saturation at
every midpoint between neighbouring |H^±(S)| of all 2^N states (but the first) until a
period T > 1; hyst's sweep (``hyst.kernels.protocols.sweep``, first T > 1 too) drives only
the amplitudes where the response can change. Same instances (random couplings, hysteron
spans, NJ0 given, rule 1); the peer gets its table of all states precomputed outside the
timing. Systems where the peer raises (a self-loop along the drive) are timed as well (it
stops there) and counted. Prints systems per second of

- hyst's batch kernel on one thread (``sweep_batch.serial``);
- hyst's Python wrapper ``hyst.model.protocols.amplitude_sweep``, one call per system;
- the peer's ``amplitude_sweep`` (numba), one call per system;

and the ratios, and checks that both find the same critical amplitude where the peer
finishes.

    python benchmarks/bench_protocols.py [--N 10] [--NJ0 1] [--samples 200]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from hysteron import hysteron as hy

from hyst.kernels import codes, protocol_batches
from hyst.kernels import protocols as kp
from hyst.model import protocols
from hyst.model.ensembles import sample_systems
from hyst.reference import peer


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--N", type=int, default=10)
    ap.add_argument("--NJ0", type=float, default=1.0)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    numba.set_num_threads(1)
    sy = sample_systems("random", "hysteron", a.N, a.NJ0, a.samples, np.random.default_rng(a.seed))
    batch = sy.kernel_batch()
    out = np.zeros((sy.samples, len(kp.SWEEP_SUMMARY_COLUMNS)), np.int64)
    protocol_batches.sweep_batch.serial(batch, codes.RULE_1, 100_000, True, 1, out[:2])  # compile
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 2 or reps == 0:
        protocol_batches.sweep_batch.serial(batch, codes.RULE_1, 100_000, True, 1, out)
        reps += 1
    kernel = reps * sy.samples / (time.perf_counter() - t0)

    protocols.amplitude_sweep(sy, "1")  # compile
    t0 = time.perf_counter()
    ours = [protocols.amplitude_sweep(sy, "1", index=k) for k in range(sy.samples)]
    wrapper = sy.samples / (time.perf_counter() - t0)

    states = hy.compute_possible_states(a.N)
    arrays = [
        peer.peer_arrays(*(np.asarray(x[k]) for x in (sy.h_plus, sy.h_minus, sy.couplings)))
        for k in range(sy.samples)
    ]
    for inter, Hon, Hoff in arrays[:10]:  # compile
        try:
            hy.amplitude_sweep(inter, Hon, Hoff, states)
            break
        except hy.StabilityError:
            continue
    theirs = []
    t0 = time.perf_counter()
    for inter, Hon, Hoff in arrays:
        try:
            theirs.append(hy.amplitude_sweep(inter, Hon, Hoff, states))
        except hy.StabilityError:
            theirs.append(None)
    reference = sy.samples / (time.perf_counter() - t0)

    same = errors = 0
    for k, t in enumerate(theirs):
        if t is None:
            errors += 1
            continue
        T, A = t
        amps = protocols.distinct_amplitudes(sy, k)
        j = int(np.searchsorted((amps[:-1] + amps[1:]) / 2, A))
        crit = ours[k].critical_amplitude
        assert (T > 1) == (crit is not None and crit <= amps[j]), k
        same += 1
    assert np.array_equal(out[:, kp.SS_CRITICAL], [s.critical_amplitude or -1 for s in ours])
    print(f"N = {a.N}, NJ0 = {a.NJ0}, {sy.samples} systems (random couplings, hysteron spans)")
    print(f"peer StabilityError (a self-loop on the way): {errors}; same result: {same}")
    print(f"T > 1 found (hyst): {sum(s.critical_amplitude is not None for s in ours)}")
    print(f"hyst sweep_batch, 1 thread : {kernel:12,.0f} systems/s  ({kernel / reference:,.0f}x)")
    print(f"hyst amplitude_sweep calls : {wrapper:12,.0f} systems/s  ({wrapper / reference:,.0f}x)")
    print(f"peer amplitude_sweep       : {reference:12,.1f} systems/s")


if __name__ == "__main__":
    main()
