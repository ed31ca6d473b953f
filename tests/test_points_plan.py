"""Jobs of the ``points`` kind: how sampled points are packed into jobs.

Packing is scheduling only: each point has its own file keyed by what the point is,
so the datasets must not depend on it (checked by running a small configuration
packed two ways).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hyst.catalogue import ENUMERATION_MAX_N
from hyst.pipeline.config import load, validate
from hyst.provenance.files import content_hash
from hyst.studies import collect, plan, run_job
from hyst.studies.points import PointSpec, study_specs

CONFIGS = Path(__file__).resolve().parents[1] / "config"


def _class(spec: PointSpec) -> tuple:
    p = spec.point
    return (p.couplings, p.spans, p.rule, p.N > ENUMERATION_MAX_N)


@pytest.mark.parametrize("preset", ["quick.yaml", "config.yaml", "test.yaml"])
def test_every_point_is_in_one_job_and_jobs_respect_their_limits(preset):
    config = load(CONFIGS / preset)
    p = plan(config)
    jobs = p.jobs["points"]
    size = config["batch"]["max_points"]
    owners: dict[str, str] = {}
    for name, job in jobs.items():
        specs = [PointSpec.from_identity(d) for d in job.payload["points"]]
        assert 0 < len(specs) <= size, name
        # enumerated and large systems never share a job
        assert len({_class(s)[3] for s in specs}) == 1, name
        classes = {_class(s)[:3] for s in specs}
        if len(classes) == 1:
            assert "more-" not in name
        else:
            assert f"-and{len(classes) - 1}more-" in name
        first = specs[0].point
        assert name.startswith(f"{first.couplings}-{first.spans}-rule{first.rule}")
        # jobs of large systems are the long ones: scheduled first
        assert job.long == (first.N > ENUMERATION_MAX_N), name
        for s in specs:
            assert s.key() not in owners, f"{s.key()} in {owners.get(s.key())} and {name}"
            owners[s.key()] = name
    points = {
        spec.key(): spec
        for study in config["studies"].values()
        if study.get("kind", "points") == "points"
        for _labels, spec in study_specs(study, config["seed"])
    }
    assert set(owners) == set(points)
    # the studies that need each point: a job's points are needed by the same studies (a
    # change to one study's points changes no job another study needs alone)
    needed_by: dict[str, set] = {}
    for name, study in config["studies"].items():
        if study.get("kind", "points") == "points":
            for _labels, spec in study_specs(study, config["seed"]):
                needed_by.setdefault(spec.key(), set()).add(name)
    for name in jobs:
        assert len({frozenset(needed_by[k]) for k, o in owners.items() if o == name}) == 1, name
    # a class of points needed by the same studies that fits in one job is never split
    by_class: dict[tuple, set] = {}
    for key, spec in points.items():
        by_class.setdefault((frozenset(needed_by[key]), _class(spec)), set()).add(owners[key])
    for (studies, cls), names in by_class.items():
        n = sum(_class(s) == cls and needed_by[k] == studies for k, s in points.items())
        if n <= size:
            assert len(names) == 1, cls
    # each study needs exactly the jobs that own its points
    for name, study in config["studies"].items():
        if study.get("kind", "points") != "points":
            continue
        wanted = {owners[spec.key()] for _l, spec in study_specs(study, config["seed"])}
        assert {j for _k, j in p.needs[name]} == wanted


def _tiny(max_points: int) -> dict:
    base = {"N": [2, 3], "NJ0": [1.0, 30.0], "samples": 300, "spans": ["hysteron"]}
    return validate(
        {
            "seed": 5,
            "batch": {"max_points": max_points},
            "resources": {"threads": 1, "mem_mb": 1000, "runtime": 10},
            "studies": {
                "a": {**base, "couplings": ["random", "symmetric"]},
                "b": {**base, "couplings": ["rows"], "rule": ["0", "2"]},
            },
            "figures": {},
        }
    )


def test_packing_changes_no_result(tmp_path):
    # four classes (random and symmetric under rule 1, rows under rules 0 and 2) of four
    # points each: chunks of at most max_points per class, packed while they fit
    # (each study's points are packed apart: a's and b's points are their own)
    expected_sizes = {1: [1] * 16, 3: [1, 1, 1, 1, 3, 3, 3, 3], 8: [8, 8], 50: [8, 8]}
    hashes = []
    for max_points, sizes in expected_sizes.items():
        config = _tiny(max_points)
        p = plan(config)
        assert sorted(len(j.payload["points"]) for j in p.jobs["points"].values()) == sizes
        results = tmp_path / f"packed{max_points}"
        for name, job in p.jobs["points"].items():
            run_job("points", job.payload, name, results, config=config, threads=1, log=print)
        hashes.append(
            {s: content_hash(collect(s, config["studies"][s], config, results)) for s in "ab"}
        )
    assert all(h == hashes[0] for h in hashes)


@pytest.mark.parametrize("preset", ["quick.yaml", "config.yaml"])
def test_long_jobs_pattern_matches_exactly_the_long_jobs(preset):
    """The workflow's constraint for rule ``job_long``: every long job's name in full,
    no other job's name, no prefix or extension of one."""
    p = plan(load(CONFIGS / preset))
    pattern = re.compile(p.long_jobs_pattern("points"))
    jobs = p.jobs["points"]
    long = {n for n, j in jobs.items() if j.long}
    assert long and long != set(jobs)  # both kinds occur in the presets
    for name in jobs:
        assert bool(pattern.fullmatch(name)) == (name in long), name
    for name in long:
        assert not pattern.fullmatch(name[:-1]) and not pattern.fullmatch(name + "0")
    # the rule's constraints cover every kind: the long jobs of every kind (names of
    # different kinds never coincide) and the kinds that have long jobs
    every, kinds = re.compile(p.long_jobs_pattern()), re.compile(p.long_kinds_pattern())
    names = [name for kind_jobs in p.jobs.values() for name in kind_jobs]
    assert len(names) == len(set(names))
    for kind, kind_jobs in p.jobs.items():
        assert bool(kinds.fullmatch(kind)) == any(j.long for j in kind_jobs.values()), kind
        for name, job in kind_jobs.items():
            assert bool(every.fullmatch(name)) == job.long, name


def test_long_jobs_pattern_without_long_jobs_matches_nothing():
    config = load(CONFIGS / "quick.yaml")
    config["studies"] = {
        n: s
        for n, s in config["studies"].items()
        if s.get("kind", "points") == "points" and max(s["N"]) <= ENUMERATION_MAX_N
    }
    p = plan(config)
    assert p.jobs["points"] and not any(j.long for j in p.jobs["points"].values())
    pattern = re.compile(p.long_jobs_pattern("points"))
    assert not any(pattern.fullmatch(n) for n in [*p.jobs["points"], "", "x"])
