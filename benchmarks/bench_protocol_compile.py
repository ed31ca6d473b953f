"""CPU seconds to compile the drive protocols' batch kernels (the amplitude sweep and the
symmetric drive, each with its serial twin) into an empty numba cache, in this process:
the part of a first run's compile that those kernels and the relaxation kernels they call
take. Run it with an empty cache folder, so that nothing loads from an earlier run:

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/bench_protocol_compile.py
"""

from __future__ import annotations

import time

import numpy as np

from hyst.kernels import protocol_batches
from hyst.kernels.protocols import DRIVE_COLUMNS, SWEEP_SUMMARY_COLUMNS
from hyst.model.systems import Systems


def main():
    rng = np.random.default_rng(1)
    h_plus = rng.uniform(0, 1, (4, 3))
    couplings = rng.uniform(-0.1, 0.1, (4, 3, 3)) * (1 - np.eye(3))
    batch = Systems.from_floats(h_plus, h_plus - 1, couplings).kernel_batch()
    sweeps = np.zeros((4, len(SWEEP_SUMMARY_COLUMNS)), np.int64)
    drives = np.zeros((4, len(DRIVE_COLUMNS)), np.int64)
    amplitudes = np.full(4, 1 << 39, np.int64)
    sweep, symmetric = protocol_batches.sweep_batch, protocol_batches.symmetric_batch
    calls = {
        "sweep_batch.serial": lambda: sweep.serial(batch, 1, 1000, False, 1, sweeps),
        "sweep_batch": lambda: sweep(batch, 1, 1000, False, 2, sweeps),
        "symmetric_batch.serial": lambda: symmetric.serial(batch, amplitudes, 1, 1000, 1, drives),
        "symmetric_batch": lambda: symmetric(batch, amplitudes, 1, 1000, 2, drives),
    }
    total = 0.0
    for name, call in calls.items():
        t0 = time.process_time()
        call()
        seconds = time.process_time() - t0
        total += seconds
        print(f"{name:<24} {seconds:6.1f} CPU-s")
    print(f"{'all four':<24} {total:6.1f} CPU-s")


if __name__ == "__main__":
    main()
