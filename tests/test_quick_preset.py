"""The quick preset (config/quick.yaml) run end to end, as `bash scripts/run` runs it: its
datasets pinned bit for bit, self-describing, every figure with its caption and the report,
no overlapping text, and what the run says at its end.

A file of its own, apart from tests/test_pipeline.py: the run takes minutes, and pytest-xdist
keeps a file's tests on one worker, so the two files can run side by side."""

from __future__ import annotations

import copy
import json
import re
import time

import netCDF4
import pytest
import yaml
from workflow_runs import REPO, snakemake

from hyst.pipeline.config import validate
from hyst.provenance.files import read_dataset
from hyst.studies.point_jobs import LAYOUT

#: Content hashes (hyst.provenance.files.content_hash: every variable's name, dims, dtype
#: and values) of the quick preset's datasets. They pin the sampled numbers across
#: refactors; a change that alters them on purpose must say why in its commit and update this file.
QUICK_HASHES = json.loads((REPO / "tests" / "data" / "quick_preset_hashes.json").read_text())


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("quick")
    cfg = yaml.safe_load((REPO / "config" / "quick.yaml").read_text())
    t0 = time.perf_counter()
    proc = snakemake(work, cfg, timeout=1800)
    (work / "run.stderr").write_text(proc.stderr)  # what the console showed
    return work, cfg, time.perf_counter() - t0


def test_quick_preset_datasets_are_bit_identical_to_the_pinned_hashes(quick_run):
    from hyst.provenance.files import content_hash

    work, cfg, _ = quick_run
    got = {
        name: content_hash(read_dataset(work / "results" / "datasets" / f"{name}.nc"))
        for name in cfg["studies"]
    }
    assert got == QUICK_HASHES


#: Studies of the quick preset sampled again with other workers and chunks (the smallest of
#: each kind that times its work, and one points study of two couplings and three spans).
AGAIN = ("tgraphs_census", "loops", "networks_two_elements", "roundoff_check")


def test_datasets_are_byte_identical_whatever_the_workers_and_chunks(quick_run, tmp_path):
    """A dataset's bytes depend only on the configuration and seed: the same studies run
    again on two worker threads per job, with the points batched differently, write
    byte-identical files (timings go to the logs and benchmarks, never into data)."""
    work, cfg, _ = quick_run
    again = copy.deepcopy(cfg)
    again["studies"] = {name: cfg["studies"][name] for name in AGAIN}
    again.update(figures={}, comparison={}, resources={**cfg.get("resources", {}), "threads": 2})
    again["batch"] = {"max_points": 1}
    snakemake(tmp_path, again, timeout=900)
    for name in AGAIN:
        first = (work / "results" / "datasets" / f"{name}.nc").read_bytes()
        second = (tmp_path / "results" / "datasets" / f"{name}.nc").read_bytes()
        assert first == second, f"{name}.nc differs between the two runs"


def test_every_dataset_and_analysis_of_a_quick_run_reads_as_cf(quick_run):
    """cf-xarray and pint-xarray read every dataset and analysis: every unit parses (UDUNITS),
    every variable and coordinate has a long_name, no coordinate is named like a dimension
    it does not index; the field's unit is stated."""
    from cf_checks import cf_problems

    work, _, _ = quick_run
    files = sorted((work / "results" / "datasets").glob("*.nc"))
    files += sorted((work / "results" / "analysis").glob("*.nc"))
    problems = {}
    for path in files:
        ds = read_dataset(path)
        found = cf_problems(ds)
        if "field_unit" not in ds.attrs:
            found.append("no field_unit attribute")
        if found:
            problems[path.name] = found
    assert not problems, problems
    assert len(files) > 20


def test_quick_preset_datasets_describe_themselves(quick_run):
    """Every variable and coordinate of every study dataset and analysis of the quick preset
    (every dataset kind) has long_name and description; every file carries CF Conventions
    and provenance; hyst.open_results holds them all, with the run's configuration."""
    import hyst
    from hyst.catalogue.variables import CONVENTIONS, undescribed

    work, cfg, _ = quick_run
    tree = hyst.open_results(work / "results")
    config = json.loads(tree.attrs["config"])
    assert config["seed"] == cfg["seed"] and set(config["studies"]) == set(cfg["studies"])
    kinds = set()
    for path, node in tree.subtree_with_keys:
        if not path.startswith(("datasets/", "analysis/")):
            continue
        ds = node.to_dataset(inherit=False)
        assert undescribed(ds) == [], path
        assert ds.attrs["Conventions"] == CONVENTIONS, path
        assert {"hyst_version", "code_fingerprint"} <= set(ds.attrs), path
        kinds.add(ds.attrs.get("kind", "analysis"))
    assert kinds == {"points", "pairs", "networks", "loops", "tgraphs", "races", "analysis"}
    assert set(tree["datasets"].children) == set(cfg["studies"])
    # the per-point files that the points jobs write (results/points/) too
    points = sorted((work / "results" / "points").rglob("*.nc"))
    assert len(points) > 100
    for path in points:  # only names and attributes are checked: netCDF4 reads them alone
        with netCDF4.Dataset(path) as nc:
            assert nc.getncattr("Conventions") == CONVENTIONS, path
            # the packed arrays (hyst.studies.point_jobs) and every variable packed in them
            assert all("long_name" in var.ncattrs() for var in nc.variables.values()), path
            packed = json.loads(nc.getncattr(LAYOUT))
        bare = [e["name"] for e in packed if not {"long_name", "description"} <= set(e["attrs"])]
        assert bare == [], path


def test_quick_preset_renders_every_figure_with_captions_and_report(quick_run):
    from test_report_graph import graph_rules

    work, cfg, _ = quick_run
    figures = work / "results" / "figures"
    assert validate(cfg)["figure_files"]["formats"] == []  # the quick preset: PNG alone
    for name in cfg["figures"]:
        assert (figures / f"{name}.png").stat().st_size > 1000, name
        assert not (figures / f"{name}.pdf").exists(), name
    caption = (figures / "fig2_random_hysterons.caption.rst").read_text()
    assert "4000 samples per point" in caption and "Small-coupling exponents" in caption
    # 4000 samples at 2 NJ0 per decade: a window of >= 20 events below 2 % of the plateau
    # may hold too few points; the caption says so, next to the paper's slope
    assert re.search(r"P_sl(?: ~ \(N J0\)\^|: per-N| not determined)", caption), caption
    assert "(paper 3)" in caption
    report = work / "report.html"
    made = snakemake(work, cfg, "--report", str(report))
    said = made.stdout + made.stderr
    assert "Missing metadata" not in said and "(ERROR/" not in said and "WARNING" not in said
    text = report.read_text(errors="ignore")
    assert report.stat().st_size > 100_000 and "fig2_random_hysterons" in text
    drawn = graph_rules(text)  # the rule graph: each rule once, `figure` and `caption` too
    assert {"figure", "caption", "analyse", "collect"} <= set(drawn), drawn
    assert set(drawn.values()) == {1}, drawn
    # editing only a plotting parameter re-renders only that figure
    edited = copy.deepcopy(cfg)
    edited["figures"]["fig2_random_hysterons"]["params"] = {"inset_at": 10.0}
    dry = snakemake(work, edited, "-n").stdout
    jobs = dry.split("Job stats:")[1].split("Reasons")[0]
    assert re.search(r"figure\s+1\b", jobs) and "collect" not in jobs
    assert not re.search(r"^job(?:_long)?\s+\d+\s*$", jobs, flags=re.M), jobs  # no job of a kind


def test_a_run_says_where_its_results_are_and_its_captions_are_valid_rst(quick_run):
    from test_captions_rst import rst_problems

    work, cfg, _ = quick_run
    err = (work / "run.stderr").read_text()
    end = err[err.rindex("hyst: done. The results:") :]
    assert f"results/figures/ ({len(cfg['figures'])} PNG, each with a caption)" in end, end
    assert "results/paper_comparison.md (and .html)" in end, end
    assert "--configfile config.yaml --report results/report.html" in end, end
    # the long jobs' progress shows on the console too, not only in their logs
    # (the job named once)
    assert re.search(r"^hyst: [\w.-]+ on host .*: \d+ points", err, flags=re.M), err
    assert re.search(r"^hyst: [\w.-]+: sampled \d+ systems in ", err, flags=re.M), err
    captions = sorted((work / "results" / "figures").glob("*.caption.rst"))
    assert len(captions) == len(cfg["figures"])
    for path in captions:  # what the report renders: no docutils warning or error
        assert not rst_problems(path.read_text()), path.name


def test_every_figure_of_a_quick_run_has_no_overlapping_text_and_no_covered_marker(quick_run):
    """Each figure of the quick preset rendered from its datasets as the pipeline renders
    it: no two texts overlap, no text (or inset) sits on a data point's marker."""
    from figure_layout import layout_problems

    from hyst.plotting import render
    from hyst.provenance.files import read_dataset

    work, cfg, _ = quick_run
    results = work / "results"
    problems = {}
    for name, binding in cfg["figures"].items():
        datasets = [read_dataset(results / "datasets" / f"{s}.nc") for s in binding["studies"]]
        analyses = {
            s: read_dataset(results / "analysis" / f"{s}.nc")
            for s in binding["studies"]
            if (results / "analysis" / f"{s}.nc").exists()
        }
        fig = render(
            binding["type"], datasets, analysis=analyses or None, **binding.get("params", {})
        )
        found = layout_problems(fig)
        if found:
            problems[name] = found
    assert problems == {}


def test_figure_files_choose_the_formats_and_rerender_only_figures(quick_run):
    """`figure_files` is the one place that names a figure's formats: asking for PDF and
    SVG plans every figure again (and nothing else), each with those files."""
    work, cfg, _ = quick_run
    edited = {**cfg, "figure_files": {"formats": ["pdf", "svg"], "dpi": 150}}
    out = snakemake(work, edited, "-n", "--quiet", "rules").stdout
    planned = dict(re.findall(r"^(\w+)\s+(\d+)$", out, re.MULTILINE))
    assert planned.pop("figure") == str(len(cfg["figures"])), out
    assert set(planned) <= {"all", "total", "manifest"}, out  # the manifest lists them
    out = snakemake(work, edited, "-n", "--forcerun", "figure").stdout
    assert "fig2_random_hysterons.pdf" in out and "fig2_random_hysterons.svg" in out
