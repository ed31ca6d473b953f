"""Shared helpers: run the enumeration kernel on a batch and return named columns."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

from hyst.kernels import enumeration  # noqa: E402
from hyst.model import Systems, rule_code  # noqa: E402

settings.register_profile(
    "hyst", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("hyst")


def run_enumeration(systems: Systems, rule="1", starts=None, what=enumeration.WHAT_ALL, K=8):
    """Per-sample columns (dict name -> array), gap fraction, loop histograms, L4 arrays."""
    n, N = systems.h_plus.shape
    if starts is None:
        starts = np.zeros(n, np.int64)
    out = np.zeros((n, enumeration.NCOL), np.int64)
    gapf = np.zeros(n)
    hist_L = np.zeros((1, (1 << N) + 1), np.int64)
    hist_ne = np.zeros((1, N + 1), np.int64)
    l4s = np.zeros((n, K), np.int64)
    l4m = np.zeros((n, K), np.int64)
    l4c = np.zeros(n, np.int64)
    enumeration.enumerate_observables(
        systems.h_plus,
        systems.h_minus,
        systems.couplings,
        np.asarray(starts, np.int64),
        rule_code(rule),
        what,
        out,
        gapf,
        hist_L,
        hist_ne,
        l4s,
        l4m,
        l4c,
    )
    cols = {name: out[:, k] for k, name in enumerate(enumeration.COLUMNS)}
    cols["gap_fraction"] = gapf
    cols["hist_L"] = hist_L.sum(axis=0)
    cols["hist_ne"] = hist_ne.sum(axis=0)
    cols["l4_state"], cols["l4_mask"], cols["l4_count"] = l4s, l4m, l4c
    return cols


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
