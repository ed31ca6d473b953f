"""Two coupled elements in the (c12, c21) plane (Supplemental, "N = 2 coupled hysterons").

Midpoints h_1^c = −Δh^c/2, h_2^c = +Δh^c/2, equal spans σ, couplings
c12, c21 ~ U[−c_max, c_max]. For each system we record whether an L = 4
self-loop occurs at some H (the P_sl transitions under rule 1); the
figure overlays the analytic region of the Supplemental: spins need
c12 c21 < 0 and |c12 − c21| > |Δh^c|; equal spans σ add |c_kl| > σ/2 and
|Δc| > |Δh^c + σ|.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import xarray as xr

from hyst import __version__
from hyst.kernels import enumeration
from hyst.model import Systems, quantize


def pair_systems(
    sigma: float, delta_h: float, c_max: float, samples: int, rng: np.random.Generator
) -> Systems:
    """``samples`` two-element systems with equal spans ``sigma``."""
    c = np.zeros((samples, 2, 2), np.int64)
    c[:, 0, 1] = quantize(rng.uniform(-c_max, c_max, samples))
    c[:, 1, 0] = quantize(rng.uniform(-c_max, c_max, samples))
    mid = quantize(np.array([-delta_h / 2, delta_h / 2]))
    half = quantize(sigma / 2)
    hp = np.broadcast_to(mid + half, (samples, 2)).copy()
    hm = np.broadcast_to(mid - half, (samples, 2)).copy()
    return Systems(hp, hm, c)


def pairs_dataset(sigmas, delta_h: float, c_max: float, samples: int, seed: int) -> xr.Dataset:
    """(c12, c21, self_loop) for ``samples`` pairs at each span in ``sigmas``."""
    c12, c21, loop = [], [], []
    for sigma in sigmas:
        key = json.dumps(
            {"pairs": float(sigma), "delta_h": float(delta_h), "c_max": float(c_max)},
            sort_keys=True,
        ).encode()
        words = np.frombuffer(hashlib.sha256(key).digest(), dtype=np.uint32)
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), *map(int, words)]))
        sy = pair_systems(float(sigma), delta_h, c_max, samples, rng)
        n = sy.samples
        out = np.zeros((n, enumeration.NCOL), np.int64)
        enumeration.enumerate_observables(
            sy.h_plus,
            sy.h_minus,
            sy.couplings,
            np.zeros(n, np.int64),
            1,
            enumeration.WHAT_TRANSITIONS,
            out,
            np.zeros(n),
            np.zeros((1, 5), np.int64),
            np.zeros((1, 3), np.int64),
            np.zeros((n, 1), np.int64),
            np.zeros((n, 1), np.int64),
            np.zeros(n, np.int64),
        )
        _hp, _hm, c = sy.to_floats()
        c12.append(c[:, 0, 1])
        c21.append(c[:, 1, 0])
        loop.append((out[:, enumeration.COL["n_self_loop_transitions"]] > 0).astype(np.int8))
    coords = {"sigma": np.asarray(sigmas, float), "pair": np.arange(samples)}
    return xr.Dataset(
        {
            "c12": (("sigma", "pair"), np.array(c12)),
            "c21": (("sigma", "pair"), np.array(c21)),
            "self_loop": (("sigma", "pair"), np.array(loop)),
        },
        coords=coords,
        attrs={
            "delta_h": float(delta_h),
            "c_max": float(c_max),
            "samples": int(samples),
            "seed": int(seed),
            "rule": "1",
            "hyst_version": __version__,
        },
    )
