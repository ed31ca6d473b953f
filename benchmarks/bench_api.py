"""The public API's cost per system against the peer ``hysteron``: the amplitude sweep to the
first period T > 1 on the same random instances, one call per system, single thread.

Per N (default 3, 6, 10), on ``--samples`` instances (random couplings, hysteron spans,
N·J0 = ``--NJ0``, rule 1), systems per second and the time per system as a multiple of the
peer's (lower is better) of

- ``hyst.System(...).amplitude_sweep(first_only=True)``, one call per system (a system
  built and a dataset of its amplitudes returned each time);
- ``hyst.amplitude_sweeps(...)`` on one system per call, a dataset of one system returned;
- ``hyst.amplitude_sweeps(..., dataset=False)`` on one system per call (the light path for
  one system: float arrays in, checked and quantised in the compiled kernel, a dict of
  one-element arrays out, no xarray objects);
- ``hyst.amplitude_sweeps(...)`` on all the systems in one call, one thread (the batch
  form);
- the peer's ``amplitude_sweep``, one call per system (its table of all states computed
  once outside the timing; a system where it raises, a self-loop on the way, timed too).

All run in one process, side by side, on one thread (this machine is shared and its speed
varies): CPU seconds, the best of three rounds.

    python benchmarks/bench_api.py [--N 3 6 10] [--samples 2000] [--NJ0 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from hysteron import hysteron as hy

import hyst
from hyst.model.ensembles import sample_systems
from hyst.reference import peer


def timed(fn, n) -> float:
    """CPU seconds per system of ``fn()`` (best of three rounds; CPU time, not wall time,
    so that other processes on a shared machine count less)."""
    best = np.inf
    for _ in range(3):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best / n


def rates_at(N: int, NJ0: float, samples: int, seed: int) -> dict[str, float]:
    """Seconds per system of each way (see the module docstring) at N."""
    sy = sample_systems("random", "hysteron", N, NJ0, samples, np.random.default_rng(seed))
    hp, hm, c = (np.asarray(x) for x in sy.to_floats())
    n = sy.samples
    states = hy.compute_possible_states(N)
    arrays = [peer.peer_arrays(hp[k], hm[k], c[k]) for k in range(n)]

    def system_calls():
        for k in range(n):
            hyst.System(hp[k], hm[k], c[k]).amplitude_sweep(first_only=True)

    def dataset_calls():
        for k in range(n):
            hyst.amplitude_sweeps(hp[k], hm[k], c[k], first_only=True, threads=1)

    def light_calls():
        for k in range(n):
            hyst.amplitude_sweeps(hp[k], hm[k], c[k], first_only=True, threads=1, dataset=False)

    def batch():
        hyst.amplitude_sweeps(hp, hm, c, first_only=True, threads=1)

    def peer_calls():
        for inter, Hon, Hoff in arrays:
            try:
                hy.amplitude_sweep(inter, Hon, Hoff, states)
            except hy.StabilityError:
                pass

    for fn in (system_calls, dataset_calls, light_calls, batch, peer_calls):  # compile, warm
        fn()
    return {
        "hyst.System(...).amplitude_sweep, a call each": timed(system_calls, n),
        "hyst.amplitude_sweeps, a call each": timed(dataset_calls, n),
        "hyst.amplitude_sweeps(dataset=False), a call each": timed(light_calls, n),
        "hyst.amplitude_sweeps, all in one call": timed(batch, n),
        "peer hysteron amplitude_sweep, a call each": timed(peer_calls, n),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--N", type=int, nargs="+", default=[3, 6, 10])
    ap.add_argument("--NJ0", type=float, default=1.0)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    print(f"{'N':>3} {'what':<50} {'systems/s':>11} {'x peer time':>12}")
    for N in a.N:
        times = rates_at(N, a.NJ0, a.samples, a.seed)
        ref = times["peer hysteron amplitude_sweep, a call each"]
        for what, sec in times.items():
            print(f"{N:>3} {what:<50} {1 / sec:>11,.0f} {sec / ref:>12.3f}")


if __name__ == "__main__":
    main()
