"""The pairwise census of t-graphs with direction-dependent couplings: ``hyst tgraphs
--directed-pairwise`` and the ``tgraphs`` study's ``directed_pairwise`` beside the paper's
pairwise model (n = 2: 29 of the 35 realizable t-graphs for the paper's model, all 35 with
c^+ ≠ c^−)."""

import pytest

import hyst
from hyst.cli.main import main
from hyst.studies.tgraphs import KIND

#: The census row of the direction-dependent pairwise model at n = 2.
DIRECTED_ROW = "| realizable by pairwise hysterons with direction-dependent couplings | 35 of 35 |"


def test_study_counts_both_pairwise_models(tmp_path):
    study = {"census": [2], "sample": [], "samples": 100, "pairwise_sample": 0,
             "weights": False, "directed_pairwise": True}  # fmt: skip
    config = {"seed": 5, "dask": {}, "resources": {"threads": 1}}
    jobs, _ = KIND.jobs({"t": study}, config)
    plain, _ = KIND.jobs({"t": {**study, "directed_pairwise": False}}, config)
    assert set(jobs).isdisjoint(plain)  # the option is part of the job's identity
    without = {**study}
    del without["directed_pairwise"]
    assert KIND.jobs({"t": without}, config)[0].keys() == plain.keys()  # off: as before
    for job in jobs.values():
        KIND.run(job, tmp_path, config=config, threads=1, log=lambda _x: None)
    ds = KIND.collect("t", study, config, tmp_path)
    assert int(ds.pairwise_full.sel(n=2)) == 29 and int(ds.pairwise_full_of.sel(n=2)) == 35
    assert int(ds.directed_pairwise_full.sel(n=2)) == 35
    assert int(ds.pairwise_goe.sel(n=2)) == int(ds.directed_pairwise_goe.sel(n=2)) == 13
    md = KIND.tables(ds)["md"]
    assert DIRECTED_ROW in md
    assert "| ... Garden-of-Eden-reduced t-graphs | 13 of 13 |" in md
    for job in plain.values():
        KIND.run(job, tmp_path, config=config, threads=1, log=lambda _x: None)
    off = KIND.collect("t", {**study, "directed_pairwise": False}, config, tmp_path)
    assert "directed_pairwise_full" not in off
    assert "direction-dependent" not in KIND.tables(off)["md"]


def test_command_line(tmp_path, capsys):
    argv = ["tgraphs", "--n", "2", "--samples", "500", "--results", str(tmp_path), "-q"]
    assert main([*argv, "--directed-pairwise"]) == 0
    out = capsys.readouterr().out
    assert "| pairwise-realizable t-graphs | 29 of 35 |" in out
    assert DIRECTED_ROW in out


def test_directed_pairwise_beyond_the_exact_census_is_one_line(tmp_path, capsys):
    assert main(["tgraphs", "--n", "4", "--directed-pairwise", "--results", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "--directed-pairwise: not allowed with --n 4" in lines[0]
    assert captured.out == "" and not any(tmp_path.iterdir())


def test_api_census():
    ds = hyst.tgraphs.census(2, samples=200, directed_pairwise=True)
    assert int(ds.directed_pairwise_full.sel(n=2)) == 35
    assert "directed_pairwise_full" not in hyst.tgraphs.census(2, samples=200)
    with pytest.raises(ValueError, match="^directed_pairwise: True is not allowed for n = 4"):
        hyst.tgraphs.census(4, samples=200, directed_pairwise=True)
