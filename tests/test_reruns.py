"""Which jobs a change plans: dry runs after a real run of a small configuration, in a copy
of the repository whose code (or configuration) a test edits, then real runs.

Code fingerprints are derived from the import graph (hyst.provenance.fingerprints): a
change plans exactly the outputs whose code imports the edited module. A study's dataset
is rebuilt only when its own points or code change, a figure only when its data, binding,
params or code change (a study's description changes captions alone). Each test prints
the jobs its dry runs planned (``pytest -s`` shows them)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time

import pytest
import yaml
from workflow_runs import REPO, RepositoryCopy, mtimes, rule_counts, snakemake

from hyst.provenance.fingerprints import imported_modules
from hyst.studies import KIND_MODULES

BASE = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
#: The test configuration, with a study sharing points with ``tiny_random`` (rule 1) and
#: points of its own (rule 2), a pairs and a networks study, and figures of four families
#: (sweeps: tiny_fig2 and tiny_rules_fig; l4: tiny_l4; networks: tiny_chains_fig).
SMALL = {
    **BASE,
    "batch": {"max_points": 6},
    "resources": {"threads": 1, "mem_mb": 2000, "runtime": 10},
    "studies": {
        **BASE["studies"],
        "tiny_rules": {
            "description": "rules 1 and 2, random hysterons",
            "couplings": ["random"],
            "spans": ["hysteron"],
            "rule": ["1", "2"],
            "N": [3, 4],
            "NJ0": [0.3, 30.0],
            "samples": 1500,
            "records": {"l4": 50},
        },
        "tiny_pairs": {"kind": "pairs", "description": "pairs", "samples": 300, "sigma": [0, 0.5]},
        "tiny_chains": {
            "kind": "networks",
            "part": "chains",
            "description": "random chains",
            "phi": [0.5],
            "N": [2, 4],
            "samples": 40,
            "cross_check": 2,
        },
    },
    "figures": {
        **BASE["figures"],
        "tiny_rules_fig": {"type": "rules", "studies": ["tiny_rules"]},
        "tiny_l4": {"type": "l4_pairs", "studies": ["tiny_pairs"]},
        "tiny_chains_fig": {"type": "random_chains", "studies": ["tiny_chains"]},
    },
}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("small")
    snakemake(work, SMALL)
    return work


@pytest.fixture
def repo(small_run, tmp_path):
    """A copy of the repository and of the small run: nothing to do before an edit."""
    copy = RepositoryCopy(tmp_path, small_run)
    assert copy.dry_run(SMALL) == []
    return copy


def planned(copy: RepositoryCopy, label: str, config=SMALL) -> list:
    """The jobs a dry run plans, printed under ``label``."""
    jobs = copy.dry_run(config)
    print(f"\n{label}: {len(jobs)} jobs {rule_counts(jobs)}")
    for rule, output in jobs:
        print(f"    {rule:<10} {output}")
    return jobs


def outputs(jobs, rule: str) -> set:
    return {out for r, out in jobs if r == rule}


def test_a_module_of_one_figure_family_plans_exactly_its_figures(repo):
    repo.edit("hyst/plotting/l4.py", append="\nEDITED = 1\n")
    manifest = ("manifest", "manifest.json")  # lists every result file: after any change
    assert planned(repo, "edit hyst/plotting/l4.py") == [
        ("figure", "figures/tiny_l4.png"),
        manifest,
    ]
    repo.edit("hyst/plotting/networks.py", append="\nEDITED = 1\n")
    jobs = planned(repo, "and hyst/plotting/networks.py")
    assert jobs == [
        ("figure", "figures/tiny_chains_fig.png"),
        ("figure", "figures/tiny_l4.png"),
        manifest,
    ]
    # the drawing helpers of the sweeps family: its two figures join
    repo.edit("hyst/plotting/panels.py", append="\nEDITED = 1\n")
    jobs = planned(repo, "and hyst/plotting/panels.py")
    assert rule_counts(jobs) == {"figure": 4, "manifest": 1}, jobs


def test_a_change_to_plotting_plans_no_sampling(repo):
    # render and save, run by every figure (and imported by the captions, which live in
    # the package): every figure and caption, nothing else
    repo.edit("hyst/plotting/__init__.py", append="\nEDITED = 1\n")
    jobs = planned(repo, "edit hyst/plotting/__init__.py")
    assert outputs(jobs, "figure") == {f"figures/{name}.png" for name in SMALL["figures"]}
    figures = len(SMALL["figures"])
    assert rule_counts(jobs) == {"figure": figures, "caption": figures, "manifest": 1}


def test_a_kernel_change_plans_the_sampling_of_the_points_it_affects(repo):
    # kernels/mechanics.py: the mechanics of bilinear elements, imported by the networks
    # kind and the networks figures alone: no point is sampled again
    repo.edit("hyst/kernels/mechanics.py", append="\nEDITED_KERNEL = 1\n")
    jobs = planned(repo, "edit hyst/kernels/mechanics.py")
    assert rule_counts(jobs) == {
        "networks jobs": 2,
        "collect": 1,
        "figure": 1,
        "caption": 1,
        "manifest": 1,
    }, jobs
    assert outputs(jobs, "figure") == {"figures/tiny_chains_fig.png"}
    # kernels/loop_enumeration.py: imported by the loops kind alone (none configured)
    repo.edit("hyst/kernels/loop_enumeration.py", append="\nEDITED_KERNEL = 1\n")
    assert planned(repo, "and hyst/kernels/loop_enumeration.py") == jobs
    # kernels/drive.py: every kernel call of the model goes through hyst.model.batch, which
    # imports it: every sampled point of every kind, every dataset and every figure
    repo.edit("hyst/kernels/drive.py", append="\nEDITED_KERNEL = 1\n")
    jobs = planned(repo, "and hyst/kernels/drive.py")
    counts = rule_counts(jobs)
    assert counts["points jobs"] == 3, jobs  # rules job and job_long (the long job first)
    assert counts["pairs jobs"] == 2 and counts["networks jobs"] == 2, jobs
    assert outputs(jobs, "collect") == {f"datasets/{s}.nc" for s in SMALL["studies"]}


def test_the_papers_statements_determine_no_sampled_result(repo):
    """hyst.catalogue.paper is read by the comparison page alone: no kind imports it."""
    for module in KIND_MODULES.values():
        assert "hyst.catalogue.paper" not in imported_modules([module]), module
    assert "hyst.catalogue.paper" in imported_modules(["hyst.comparison.claims"])
    repo.edit("hyst/catalogue/paper.py", append="\nEDITED = 1\n")
    assert planned(repo, "edit hyst/catalogue/paper.py") == []


def test_counts_of_loop_cells_do_not_depend_on_the_linear_programs():
    """A count file records the fingerprint of the counting code: a change to the LPs
    re-checks the realizability of the cells and recounts none."""
    counting = imported_modules(["hyst.combinatorics.counts"])
    realizing = imported_modules(["hyst.combinatorics.realizations"])
    assert "hyst.kernels.loop_enumeration" in counting
    assert set(counting) - {"hyst.combinatorics.counts"} < set(realizing)
    for module in ("hyst.combinatorics.lp", "hyst.combinatorics.realize", "hyst.model.relax"):
        assert module in realizing and module not in counting


def test_a_job_finds_its_fingerprint_in_the_cache_without_grimp(tmp_path):
    """The first process builds the import graph with grimp and caches it; the next (a
    pipeline job after Snakemake computed every fingerprint) neither imports grimp nor
    parses a syntax tree."""
    code = (
        "import sys; from hyst.studies import KINDS; print(KINDS['points'].fingerprint()); "
        "print('grimp' in sys.modules)"
    )
    env = {**os.environ, "HYST_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}

    def run():
        cmd = [sys.executable, "-c", code]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout

    first, second = run().split(), run().split()
    assert first == [first[0], "True"] and second == [first[0], "False"]
    assert {p.name for p in tmp_path.iterdir()} == {"code-digests.json", "import-graphs.json"}


def test_docstrings_and_comments_plan_nothing(repo):
    repo.edit("hyst/kernels/drive.py", '"""', '"""Edited. ', append="\n# a comment\n")
    repo.edit("hyst/plotting/l4.py", '"""', '"""Edited. ', append="\n# a comment\n")
    repo.edit("hyst/studies/points.py", "    name = ", "    # a comment\n    name = ")
    assert planned(repo, "docstrings and comments") == []


def test_adding_one_n_to_one_study_samples_only_its_points_and_rebuilds_only_its_dataset(
    small_run, tmp_path
):
    """tiny_random shares every point with tiny_rules (rule 1): its new points (N = 5) are a
    job of their own, and nothing tiny_rules reads changes."""
    run = RepositoryCopy(tmp_path, small_run, code=False)
    cfg = copy.deepcopy(SMALL)
    cfg["studies"]["tiny_random"]["N"] = [3, 4, 5]
    jobs = planned(run, "add N = 5 to tiny_random", cfg)
    assert rule_counts(jobs) == {
        "points jobs": 1,
        "collect": 1,
        "figure": 1,
        "caption": 1,
        "manifest": 1,
    }
    assert outputs(jobs, "collect") == {"datasets/tiny_random.nc"}
    assert outputs(jobs, "figure") == {"figures/tiny_fig2.png"}
    results = run.runs / "results"
    before = {d: mtimes(results / d) for d in ("points", "datasets", "figures")}
    run.run(cfg)
    assert run.dry_run(cfg) == []
    after = {d: mtimes(results / d) for d in ("points", "datasets", "figures")}
    # the two new point files (NJ0 = 0.3 and 30 at N = 5); no other file was written again
    assert len(after["points"]) == len(before["points"]) + 2
    assert {f: t for f, t in after["points"].items() if f in before["points"]} == before["points"]
    changed = {d: {f for f, t in before[d].items() if after[d][f] != t} for d in before}
    assert changed["datasets"] == {"tiny_random.nc"}
    assert changed["figures"] == {"tiny_fig2.png", "tiny_fig2.pdf", "tiny_fig2.caption.rst"}


def test_editing_a_description_rewrites_captions_alone(small_run, tmp_path):
    run = RepositoryCopy(tmp_path, small_run, code=False)
    cfg = copy.deepcopy(SMALL)
    cfg["studies"]["tiny_rules"]["description"] = "the four rules, edited"
    jobs = planned(run, "edit the description of tiny_rules", cfg)
    assert jobs == [
        ("caption", "figures/tiny_rules_fig.caption.rst"),
        ("manifest", "manifest.json"),
    ]
    figures = run.runs / "results" / "figures"
    before = mtimes(figures)
    run.run(cfg)
    assert run.dry_run(cfg) == []
    assert (
        "study `tiny_rules` (the four rules, edited)"
        in (figures / "tiny_rules_fig.caption.rst").read_text()
    )
    after = mtimes(figures)
    assert {f for f, t in before.items() if after[f] != t} == {"tiny_rules_fig.caption.rst"}


def test_a_run_removes_the_temporary_files_a_killed_run_left(small_run, tmp_path):
    """Atomic writers write ``.<name>.<random>.tmp`` next to the file, then rename it; a
    writer killed in between leaves it. A run removes those of its results folder, and the
    old ones of the fingerprint caches (other runs may be writing there)."""
    run = RepositoryCopy(tmp_path, small_run, code=False)
    results = run.runs / "results"
    point = next((results / "points").rglob("*.nc"))
    stale = [
        point.parent / f".{point.name}.k1ll3d.tmp",
        results / "datasets" / ".tiny_random.nc.x7y8z9.tmp",
        results / "figures" / ".tiny_fig2.png.a1b2c3.tmp",
    ]
    cache = tmp_path / "cache"
    cache.mkdir()
    old_cache_tmp = cache / ".code-digests.json.q1w2e3.tmp"
    recent_cache_tmp = cache / ".import-graphs.json.r4t5y6.tmp"  # may be another run's
    not_ours = [results / "notes.tmp", results / "datasets" / "x.tmp"]
    for path in [*stale, old_cache_tmp, recent_cache_tmp, *not_ours]:
        path.write_text("partial")
    an_hour_ago = time.time() - 3600
    os.utime(old_cache_tmp, (an_hour_ago, an_hour_ago))
    (results / "figures" / "tiny_l4.png").unlink()  # something to do
    err = run.run(SMALL, env={"HYST_CACHE_DIR": str(cache)}).stderr
    assert not any(p.exists() for p in [*stale, old_cache_tmp])
    assert recent_cache_tmp.exists() and all(p.exists() for p in not_ours)
    for path in stale:  # said, relative to the run folder (results: results)
        assert f"hyst: removed {path.relative_to(run.runs)}, left by a killed run" in err
