"""Study kind ``loops``: schema, jobs, run and collect, reuse, Dask chunks, tables, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hyst.cli.main import main
from hyst.combinatorics import realize, store
from hyst.combinatorics.counts import count_file
from hyst.combinatorics.realizations import realize_file
from hyst.combinatorics.tables import NEW, report_tables
from hyst.pipeline.config import ConfigError, validate
from hyst.provenance.files import read_dataset
from hyst.studies import collect, plan, run_job

STUDY = {
    "kind": "loops",
    "count": [{"n_e": [2, 3]}, {"n_e": 4, "L": [8, 16]}, {"n_e": 5, "L": [18]}],
    "burnside": [{"n_e": 3}],
    "realize": [{"n_e": [2, 3]}, {"n_e": 4, "L": [8]}],
}


def config(**studies):
    return validate({"seed": 1, "studies": studies or {"loops": STUDY}})


def run_all(cfg, results, log=None):
    lines = [] if log is None else log
    p = plan(cfg)
    for name, job in p.jobs["loops"].items():
        run_job("loops", job.payload, name, results, config=cfg, threads=1, log=lines.append)
    return lines


def test_schema_defaults_and_one_line_errors():
    study = config()["studies"]["loops"]
    assert study["variants"] == ["R", "W+"] and study["lp_form"] == "eliminated"
    assert study["store_max"] == store.DEFAULTS["store_max"]
    bad = {
        "count": [{"n_e": 3, "L": [10]}],
    }
    with pytest.raises(ConfigError) as err:
        config(loops={"kind": "loops", **bad})
    assert str(err.value).startswith("studies.loops.count[0].L: 10 is not allowed for n_e = 3")
    with pytest.raises(ConfigError, match="studies.loops.variants"):
        config(loops={**STUDY, "variants": ["R", "M"]})
    with pytest.raises(ConfigError, match="studies.loops.count"):
        config(loops={"kind": "loops", "count": [{"n_e": 9}]})
    with pytest.raises(ConfigError, match="give at least one cell"):
        config(loops={"kind": "loops"})
    with pytest.raises(ConfigError, match="unknown key"):
        config(loops={**STUDY, "cells": []})


def test_jobs_are_keyed_by_what_they_compute():
    cfg = config(a=STUDY, b={"kind": "loops", "count": [{"n_e": 3}]})
    p = plan(cfg)
    jobs = p.jobs["loops"]

    def cells(job):
        return {store.job_name(c) for c in jobs[job].payload["cells"]}

    # (5, 18) runs its chunks on Dask: a job of its own, named by its cell
    big = [j for j in jobs if j.startswith("count-n5-L18-")]
    assert len(big) == 1 and cells(big[0]) == {big[0]}
    # the small cells of the same studies share one job per task: a's counts of n_e = 2, 3
    # (every L), (4, 8) and (4, 16); b's counts of n_e = 3 (without Burnside: cells of their
    # own) are b's alone: a job of their own, so a change to a changes no job of b
    counts = sorted((j for j in jobs if j.startswith("count-") and j not in big), key=cells)
    realizes = [j for j in jobs if j.startswith("realize-")]
    assert sorted(len(cells(j)) for j in counts) == [2, 1 + 2 + 2]
    assert {j for _k, j in p.needs["b"]} == {j for j in counts if len(cells(j)) == 2}
    assert len(realizes) == 1 and len(cells(realizes[0])) == 1 + 2 + 1
    assert len(jobs) == 4
    # every cell of a study is in a job the study needs, and in one job only
    for name, study in cfg["studies"].items():
        needed = {j for _k, j in p.needs[name]}
        wanted = {store.job_name(c) for c in sum(plan_payloads(study), [])}
        assert wanted <= set().union(*(cells(j) for j in needed))
    owners = [c for j in jobs for c in cells(j)]
    assert len(owners) == len(set(owners))
    # b's count of (3, 6) differs from a's only by the Burnside flag: a cell of its own;
    # with the flag, b's cells are a's: one job holds them once, for both studies, and a's
    # other small counts share a job of a's alone
    again = plan(
        config(a=STUDY, b={"kind": "loops", "count": [{"n_e": 3}], "burnside": [{"n_e": 3}]})
    )
    small = [j for j in again.jobs["loops"] if j.startswith("count-") and "-L18-" not in j]
    sizes = {j: len(again.jobs["loops"][j].payload["cells"]) for j in small}
    assert sorted(sizes.values()) == [2, 1 + 2]
    shared = {j for j, n in sizes.items() if n == 2}
    assert {j for _k, j in again.needs["b"]} == shared
    assert shared < {j for _k, j in again.needs["a"]}


def test_payload_variants_follow_the_variants_table():
    """A payload lists its variants in the order of realize.VARIANTS (store sorts them by
    name, which is that order, without importing the LP code)."""
    assert list(realize.VARIANTS) == sorted(realize.VARIANTS)
    payload = store.realize_payload(4, 8, ["W+", "R", "W"], "conservative", "compact", 10)
    assert payload["variants"] == ["R", "W", "W+"]


def plan_payloads(study):
    from hyst.studies import KINDS

    return KINDS["loops"].payloads(study)


def test_run_collect_reuse_and_tables(tmp_path):
    cfg = config()
    run_all(cfg, tmp_path)
    ds = collect("loops", cfg["studies"]["loops"], cfg, tmp_path)
    M = ds.M.to_pandas()
    assert M.loc[2, 4] == 1 and M.loc[3, 6] == 6 and M.loc[3, 8] == 2 and M.loc[4, 16] == 112
    assert M.loc[5, 18] == 3_088_096 and M.loc[4, 6] == -1 and 10 not in M.columns
    assert int(ds.M_burnside.sel(n_e=3, L=6)) == 6 and int(ds.M_burnside.sel(n_e=2, L=4)) == -1
    assert ds.M_R.sel(n_e=4, L=8) == 56 and ds.M_W.sel(n_e=4, L=8) == 24
    assert ds.M_R.sel(n_e=3, L=8) == 0 and ds.M_W.sel(n_e=3, L=6) == 2
    assert int(ds.M_R_failed.max()) == 0 and int(ds.M_W_failed.max()) == 0
    assert (ds.M_paper.sel(n_e=4, L=16) == 112) and (ds.M_paper.sel(n_e=5, L=18) == -1)
    # representatives of the stored cells, with their statuses where checked
    stored = ds.loop_L.values
    assert (stored == 8).sum() == 2 + 56 and (stored == 16).sum() == 112
    checked = ds.loop_status_M_R.values[stored == 16]
    assert (checked == -9).all()  # (4, 16) counted, not checked
    assert (ds.loop_status_M_R.values[(stored == 8) & (ds.loop_n_e.values == 4)] == 1).all()
    assert (ds.loop_support_M_R.values[(stored == 8) & (ds.loop_n_e.values == 3)] > 0).all()
    assert "n_e=5" not in str(ds.loop_n_e.values)  # (5, 18) is too large to store
    assert not {"seconds", "scan_seconds", "wall_seconds"} & set(ds.attrs)  # timings: the log
    # a second run reuses every file
    lines = run_all(cfg, tmp_path)
    assert lines and all(line.endswith("reused") for line in lines)
    # tables: the paper's numbers, the new cell marked
    tables = report_tables(ds)
    assert "56/56/24" in tables["md"] and f"3,088,096{NEW}" in tables["md"]
    assert "Disagreements with the paper: none." in tables["md"]
    assert "\\begin{tabular}" in tables["tex"] and "+====" in tables["rst"]


def test_dask_chunks_give_the_same_files(tmp_path):
    from hyst.sampling.cluster import client

    count = store.count_payload(5, 18, 8, 0, False)
    real = store.realize_payload(4, 10, ["R", "W+"], "conservative", "compact", 50)
    plain = (count_file(count, tmp_path / "a"), realize_file(real, tmp_path / "a"))
    with client(None, None, 2) as c:
        viadask = (
            count_file(count, tmp_path / "b", client=c),
            realize_file(real, tmp_path / "b", client=c),
        )
    assert plain[0].attrs["M"] == viadask[0].attrs["M"] == 3_088_096
    for name in plain[1].data_vars:
        np.testing.assert_array_equal(plain[1][name].values, viadask[1][name].values)


def test_interrupted_realize_resumes_from_its_blocks(tmp_path):
    payload = store.realize_payload(4, 12, ["R", "W+"], "conservative", "compact", 100)
    first = realize_file(payload, tmp_path)
    path = store.cell_path(tmp_path, payload)
    path.unlink()
    blocks = sorted(path.with_suffix("").glob("block-*.nc"))
    assert len(blocks) == 5
    blocks[2].unlink()  # as if killed while this block ran
    lines = []
    again = realize_file(payload, tmp_path, log=lines.append)
    assert any("4 of 5 blocks reused" in line for line in lines)
    assert sum("block 200-300 done" in line for line in lines) == 1
    for name in first.data_vars:
        np.testing.assert_array_equal(first[name].values, again[name].values)
    assert json.loads(again.attrs["summary"])["R"]["feasible"] == 145


def test_stale_files_are_recomputed(tmp_path):
    payload = store.count_payload(3, 6, 8, 100, False)
    count_file(payload, tmp_path)
    path = store.cell_path(tmp_path, payload)
    ds = read_dataset(path)
    ds.attrs["code_fingerprint"] = "0" * 16
    ds.to_netcdf(path)
    lines = []
    count_file(payload, tmp_path, log=lines.append)
    assert lines[0] == f"{path}: provenance does not match, recomputing"
    assert "M(3, 6) = 6" in lines[1] and not any("reused" in line for line in lines)


def test_command_line(tmp_path, capsys):
    results = str(tmp_path / "r")
    assert main(["loops", "--n-e", "3", "--results", results, "-q"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert rows["6"][1:4] == ["6", "6", "2"] and rows["8"][1:4] == ["2", "0", "0"]
    assert main(["loops", "--n-e", "3", "--results", results, "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [r["M"] for r in data["rows"]] == [6, 2]
    assert "reused" in captured.err and "M(3" not in captured.err  # nothing computed again
    assert (
        main(["loops", "--n-e", "4", "--L", "10", "--results", results, "--realize-max", "0"]) == 0
    )
    assert "176" in capsys.readouterr().out
    assert main(["loops", "--n-e", "3", "--L", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "L: 10 is not allowed for n_e = 3" in err
    with pytest.raises(SystemExit) as stop:
        main(["loops", "--n-e", "3", "--variants", "R,Q"])
    assert stop.value.code == 2
