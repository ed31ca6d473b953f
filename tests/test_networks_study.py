"""The study kind ``networks``: schema and checks, jobs, run and collect, reuse."""

import copy

import numpy as np
import pytest

from hyst.model.two_elements import l4_condition
from hyst.networks.chains import chains_dataset
from hyst.networks.pair import hysteron_pair_conditions
from hyst.networks.scan import PAPER_PANELS, cell_centres, scan_panels
from hyst.pipeline.config import ConfigError, validate
from hyst.provenance.files import content_hash
from hyst.studies import KINDS, collect, plan, run_job

PANELS = {"wide": {"x1": [-1.0, 1.0], "x2": [0.2, 0.4]}, "spin": {"x1": [0, 0], "x2": [1, 1]}}
BASE = {
    "seed": 3,
    "resources": {"threads": 1, "mem_mb": 1000, "runtime": 10},
    "studies": {
        "planes": {
            "kind": "networks",
            "part": "planes",
            "grid": {"low": -3.0, "high": 3.0, "cells": 20},
            "panels": PANELS,
            "block": 7,
        },
        "chains": {
            "kind": "networks",
            "part": "chains",
            "phi": [0.0, 0.5],
            "N": [3, 20],
            "samples": 30,
            "cross_check": 2,
        },
    },
    "figures": {},
}


def _run(config, results, log=None, threads=1):
    p = plan(config)
    lines = []
    for kind, name in sorted({j for needs in p.needs.values() for j in needs}):
        job = p.job(kind, name)
        log_to = log or lines.append
        run_job(kind, job.payload, name, results, config=config, threads=threads, log=log_to)
    return {n: collect(n, s, config, results) for n, s in config["studies"].items()}, lines


def test_run_and_collect_equal_the_direct_computations(tmp_path):
    config = validate(copy.deepcopy(BASE))
    got, _ = _run(config, tmp_path)
    panels = {k: (tuple(v["x1"]), tuple(v["x2"])) for k, v in PANELS.items()}
    direct = scan_panels(panels, cell_centres(-3.0, 3.0, 20))
    for var in ("attractor", "in_graph", "paper", "exact", "behaviour", "ties", "h_plus", "c12"):
        assert np.array_equal(got["planes"][var].values, direct[var].values), var
    chains = chains_dataset([0.0, 0.5], [3, 20], samples=30, seed=3, checks=2)
    for var in ("self_loop_probability", "saturated_loop_probability", "saturated_loop_L"):
        assert np.array_equal(got["chains"][var].values, chains[var].values, equal_nan=True)
    assert got["planes"].attrs["kind"] == "networks"
    assert KINDS["networks"].caption("planes", got["planes"]).startswith("study `planes`")
    assert "re-simulated mechanically" in KINDS["networks"].caption("chains", got["chains"])


def test_results_do_not_depend_on_blocks_and_are_reused(tmp_path):
    a, _ = _run(validate(copy.deepcopy(BASE)), tmp_path / "a")
    other = copy.deepcopy(BASE)
    other["studies"]["planes"]["block"] = 20
    b, _ = _run(validate(other), tmp_path / "b")
    assert content_hash(a["planes"]) == content_hash(b["planes"])
    _again, lines = _run(validate(copy.deepcopy(BASE)), tmp_path / "a")
    assert sum("reused" in line for line in lines) == 2 + 4  # 2 panels, 2 x 2 chain points


def test_a_job_of_one_thread_computes_what_a_cluster_of_two_does(tmp_path):
    """A job of one thread runs its tasks in its own thread (no Dask cluster); its datasets
    are those of the same jobs on a LocalCluster of two threads, and it logs every task."""
    config = validate(copy.deepcopy(BASE))
    here, lines = _run(config, tmp_path / "here", threads=1)
    cluster, cluster_lines = _run(config, tmp_path / "cluster", threads=2)
    for name in here:
        assert content_hash(here[name]) == content_hash(cluster[name]), name
    tasks = sorted(line for line in lines if line.startswith("task "))
    assert tasks and tasks == sorted(line for line in cluster_lines if line.startswith("task "))


def test_adding_a_point_computes_only_that(tmp_path):
    _run(validate(copy.deepcopy(BASE)), tmp_path)
    more = copy.deepcopy(BASE)
    more["studies"]["chains"]["phi"] = [0.0, 0.5, 1.0]
    _got, lines = _run(validate(more), tmp_path)
    assert sum("reused" in line for line in lines) == 2 + 4


def test_paper_panels_share_jobs():
    config = validate(
        {
            **copy.deepcopy(BASE),
            "studies": {
                "p": {
                    "kind": "networks",
                    "part": "planes",
                    "grid": {"low": -1, "high": 1, "cells": 4},
                }
            },
        }
    )
    p = plan(config)
    (job,) = p.needs["p"]  # every scan of a planes study in one job
    planes = p.job(*job).payload["planes"]
    distinct = {(tuple(x1), tuple(x2)) for x1, x2 in PAPER_PANELS.values()}
    assert len(planes) == len(distinct) < len(PAPER_PANELS)
    assert {(tuple(q["x1"]), tuple(q["x2"])) for q in planes} == distinct


@pytest.mark.parametrize(
    "edit, message",
    [
        ({"part": "lines"}, "studies.planes.part"),
        ({"phi": [0.5]}, "studies.planes.phi: not allowed with part: planes"),
        ({"grid": {"low": 1.0, "high": -1.0, "cells": 4}}, "studies.planes.grid: high -1.0"),
        ({"panels": {"bad": {"x1": [1, -1], "x2": [0, 0]}}}, "studies.planes.panels.bad.x1"),
    ],
)
def test_configuration_errors_are_one_line(edit, message):
    config = copy.deepcopy(BASE)
    config["studies"]["planes"].update(edit)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")) as err:
        validate(config)
    assert "\n" not in str(err.value)


def test_chains_need_their_keys():
    config = copy.deepcopy(BASE)
    del config["studies"]["chains"]["samples"]
    with pytest.raises(ConfigError, match="studies.chains: part chains needs 'samples'"):
        validate(config)


def test_hysteron_pair_conditions_reproduce_the_equal_span_region():
    """Two hysterons with equal spans σ: SL5 ∪ SL6 is the Supplemental's L = 4 region
    (``hyst.model.two_elements.l4_condition``) on random couplings."""
    rng = np.random.default_rng(2)
    q = 2**40
    for sigma in (0.0, 0.5, 2.0):
        c12, c21 = rng.uniform(-3, 3, (2, 4000))
        cond = hysteron_pair_conditions(
            int((-0.5 + sigma / 2) * q),
            int((-0.5 - sigma / 2) * q),
            int((0.5 + sigma / 2) * q),
            int((0.5 - sigma / 2) * q),
            np.rint(c12 * q).astype(np.int64),
            np.rint(c21 * q).astype(np.int64),
        )
        assert np.array_equal(cond["SL5"] | cond["SL6"], l4_condition(c12, c21, sigma, 1.0))
