"""Which jobs a change plans: dry runs after a real run of a small configuration, in a copy
of the repository whose code (or configuration) a test edits.

Code fingerprints are derived from the import graph (hyst.provenance.fingerprints): a
change plans exactly the outputs whose code imports the edited module. Each test prints
the jobs its dry runs planned (``pytest -s`` shows them)."""

from __future__ import annotations

import pytest
import yaml
from workflow_runs import REPO, RepositoryCopy, rule_counts, snakemake

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
    assert planned(repo, "edit hyst/plotting/l4.py") == [("figure", "figures/tiny_l4.png")]
    repo.edit("hyst/plotting/networks.py", append="\nEDITED = 1\n")
    jobs = planned(repo, "and hyst/plotting/networks.py")
    assert jobs == [("figure", "figures/tiny_chains_fig.png"), ("figure", "figures/tiny_l4.png")]
    # the drawing helpers of the sweeps family: its two figures join
    repo.edit("hyst/plotting/panels.py", append="\nEDITED = 1\n")
    jobs = planned(repo, "and hyst/plotting/panels.py")
    assert rule_counts(jobs) == {"figure": 4}, jobs


def test_a_change_to_plotting_plans_no_sampling(repo):
    # render and save, run by every figure: every figure, nothing else
    repo.edit("hyst/plotting/__init__.py", append="\nEDITED = 1\n")
    jobs = planned(repo, "edit hyst/plotting/__init__.py")
    assert outputs(jobs, "figure") == {f"figures/{name}.png" for name in SMALL["figures"]}
    assert rule_counts(jobs) == {"figure": len(SMALL["figures"])}, jobs


def test_a_kernel_change_plans_the_sampling_of_the_points_it_affects(repo):
    # kernels/mechanics.py: the mechanics of bilinear elements, imported by the networks
    # kind and the networks figures alone: no point is sampled again
    repo.edit("hyst/kernels/mechanics.py", append="\nEDITED_KERNEL = 1\n")
    jobs = planned(repo, "edit hyst/kernels/mechanics.py")
    assert rule_counts(jobs) == {"networks jobs": 2, "collect": 1, "figure": 1}, jobs
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


def test_docstrings_and_comments_plan_nothing(repo):
    repo.edit("hyst/kernels/drive.py", '"""', '"""Edited. ', append="\n# a comment\n")
    repo.edit("hyst/plotting/l4.py", '"""', '"""Edited. ', append="\n# a comment\n")
    repo.edit("hyst/studies/points.py", "    name = ", "    # a comment\n    name = ")
    assert planned(repo, "docstrings and comments") == []
