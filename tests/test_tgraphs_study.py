"""The ``tgraphs`` study kind, ``hyst tgraphs`` and ``hyst.tgraphs`` (issue 30, item 5)."""

import doctest

import pytest

import hyst
import hyst.api.tgraphs
import hyst.combinatorics.tgraph_search
from hyst.cli.main import main
from hyst.studies import KINDS
from hyst.studies.tgraphs import KIND


def test_api_doctests():
    assert hyst.tgraphs is hyst.api.tgraphs
    assert doctest.testmod(hyst.api.tgraphs).failed == 0
    assert doctest.testmod(hyst.combinatorics.tgraph_search).failed == 0


def test_study_jobs_collect_and_reuse(tmp_path):
    study = {"census": [2], "sample": [2, 4], "samples": 2000, "pairwise_sample": 0,
             "weights": False}  # fmt: skip
    config = {"seed": 5, "dask": {}, "resources": {"threads": 1}}
    assert KINDS["tgraphs"] is KIND
    jobs, needs = KIND.jobs({"t": study}, config)
    assert len(jobs) == 3 and sorted(needs["t"]) == sorted(jobs)
    for job in jobs.values():
        KIND.run(job, tmp_path, config=config, threads=1, log=lambda _x: None)
    said = []
    for job in jobs.values():  # a second run reuses every file
        KIND.run(job, tmp_path, config=config, threads=1, log=said.append)
    assert len(said) == 3 and all("reus" in line for line in said)
    ds = KIND.collect("t", study, config, tmp_path)
    assert int(ds.realizable.sel(n=2)) == 35
    assert ds.orders_good.sel(n=2, rule="0", definition="reachable").values.tolist() == [
        "1977", "1224"]  # fmt: skip
    assert int(ds.sampled.sel(n_sampled=4, rule="0", sampled_what="ties").sum()) == 0
    tables = KIND.tables(ds)
    assert "| realizable t-graphs | 35 | – |" in tables["md"]
    assert r"\begin{tabular}{lrr}" in tables["tex"]
    assert "n = 2" in KIND.summary(ds)


def test_command_line(tmp_path, capsys):
    assert main(["tgraphs", "--n", "2", "--samples", "1000", "--results", str(tmp_path), "-q"]) == 0
    out = capsys.readouterr().out
    assert "| with simple self-loops forbidden | 850 of 1,260 (67.46 %) |" in out
    assert "| pairwise-realizable t-graphs | 29 of 35 |" in out
    assert main(["tgraphs", "--n", "5", "--samples", "500", "--results", str(tmp_path), "-q",
                 "--json"]) == 0  # fmt: skip
    assert '"scaffolds": "798,699,998,426,557,317,120 (analytic)"' in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n", "11"], "argument --n: 11 is not allowed (2 <= K <= 10)"),
        (["--n", "2", "--samples", "0"], "argument --samples: 0 is not allowed (must be >= 1)"),
        (
            ["--n", "2", "--pairwise-sample", "-1"],
            "argument --pairwise-sample: -1 is not allowed (>= 0)",
        ),
    ],
)
def test_bad_options_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as err:
        main(["tgraphs", *argv])
    assert err.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_share_figure_renders_in_the_house_style(tmp_path):
    from figure_layout import layout_problems

    from hyst import plotting

    ds = hyst.tgraphs.census(2, samples=2000)
    fig = hyst.tgraphs.plot_shares(ds)
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    assert [ax.get_ylabel() for ax in panels] == ["share well defined (reachable states)", ""]
    assert [len(ax.get_legend().get_texts()) for ax in panels] == [4, 4]
    assert layout_problems(fig) == []
    assert plotting.save(fig, tmp_path / "shares", dpi=50)
