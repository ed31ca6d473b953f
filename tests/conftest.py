"""Shared helpers: run the enumeration kernel on a batch and return named columns."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

from hyst.kernels import codes  # noqa: E402
from hyst.model import batch  # noqa: E402
from hyst.model.systems import Systems  # noqa: E402

settings.register_profile(
    "hyst", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("hyst")


def run_enumeration(systems: Systems, rule="1", starts=None, what=codes.WHAT_ALL, K=8):
    """Per-sample columns (dict name -> array), gap fraction, loop histograms, L4 arrays."""
    n = systems.samples
    if starts is None:
        starts = np.zeros(n, np.int64)
    out = batch.enumerate_batch(systems, starts, rule, what, l4_per_system=K)
    cols = {name: out.columns[name] for name in out.columns.names}
    cols["gap_fraction"] = out.gap_fraction
    cols["hist_L"] = out.loop_length_hist
    cols["hist_ne"] = out.loop_elements_hist
    cols["l4_state"], cols["l4_mask"], cols["l4_count"] = out.l4_state, out.l4_mask, out.l4_count
    return cols


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


#: Test files that take minutes (pipeline runs, clusters, every figure type), longest first:
#: they start first, so that with the files spread over the cores (pytest-xdist,
#: ``--dist loadfile``) no long file starts last while the other cores idle. Only the order
#: changes. pytest-xdist keeps it only with ``--no-loadscope-reorder`` (scripts/test): by
#: default it starts the files with the most tests first, and the quick preset's run (6
#: tests, a third of the suite's time) started last.
LONG_FILES = (
    "test_quick_preset.py",
    "test_cluster_faults.py",
    "test_pipeline.py",
    "test_reruns.py",
    "test_peer_protocols.py",
    "test_plotting.py",
    "test_networks_study.py",
    "test_cli_pipeline.py",
    "test_loops_study.py",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
