"""What a run will take (hyst.pipeline.estimate): every job of the run with its expected CPU
time, and a wall time from a schedule of those jobs on the cores."""

from __future__ import annotations

import pytest
import yaml
from workflow_runs import REPO, planned_jobs, snakemake

from hyst.pipeline.config import validate
from hyst.pipeline.estimate import run_estimate, schedule


def test_the_schedule_runs_ready_jobs_on_free_cores_after_what_they_need():
    # two independent jobs on two cores: side by side; on one core: one after the other
    two = [("a", 3.0, 1, [], 0), ("b", 2.0, 1, [], 0)]
    assert schedule(two, 2) == 3.0 and schedule(two, 1) == 5.0
    # a chain waits; a job of two threads takes both cores, for half its CPU time
    chain = [("a", 3.0, 1, [], 0), ("b", 2.0, 1, ["a"], 0), ("c", 4.0, 2, [], 0)]
    assert schedule(chain, 2) == pytest.approx(2.0 + 3.0 + 2.0)
    # a long job (priority) first: on 2 cores, 4 short jobs beside it
    jobs = [(f"s{i}", 1.0, 1, [], 0) for i in range(4)] + [("long", 4.0, 1, [], 1)]
    assert schedule(jobs, 2) == 4.0


def test_every_job_of_a_run_is_estimated(tmp_path):
    """The estimate's jobs are the jobs a dry run of the same configuration plans."""
    cfg = yaml.safe_load((REPO / "config" / "quick.yaml").read_text())
    planned = {out for _rule, out in planned_jobs(snakemake(tmp_path, cfg, "-n").stdout)}
    est = run_estimate(validate(cfg), 2)
    estimated = {out.removeprefix("results/") for out in est.jobs}
    # the dry run names a job by its first output; a figure's caption is a job of its own
    assert estimated == planned
    assert all(sec > 0 for sec in est.jobs.values())
    assert est.rules["results/paper_comparison.md"] == "paper_comparison"
    # more cores, less wall time; a first run adds the compilation
    assert run_estimate(validate(cfg), 4).wall_seconds < est.wall_seconds
    cold = run_estimate(validate(cfg), 2, compiled=False)
    assert cold.wall_seconds == pytest.approx(est.wall_seconds + cold.compile_seconds)


def test_the_cost_per_system_follows_its_measured_growth_with_the_couplings():
    from hyst.sampling.cost import nj0_factor, seconds_per_system

    rates = {
        "seconds_per_system": {"multiperiodic": {"random": {"N": [4, 8], "seconds": [1.0, 2.0]}}},
        "nj0_factor": {
            "multiperiodic": {
                "random": {"N": 8, "NJ0": [0.1, 1.0, 10.0, 100.0], "factor": [0.5, 0.5, 1, 4]}
            }
        },
    }
    assert nj0_factor("multiperiodic", "random", 10.0, rates) == pytest.approx(1.0)
    assert nj0_factor("multiperiodic", "random", 100.0, rates) == pytest.approx(4.0)
    assert nj0_factor("multiperiodic", "random", 1e4, rates) == pytest.approx(4.0)  # held
    assert nj0_factor("multiperiodic", "random", 0.01, rates) == pytest.approx(0.5)
    assert nj0_factor("multiperiodic", "random", 10**1.5, rates) == pytest.approx(2.0)  # log-log
    # the weak ensemble has no table of its own: random stands in; a group not measured: 1
    assert nj0_factor("multiperiodic", "weak", 100.0, rates) == pytest.approx(4.0)
    assert nj0_factor("transitions", "random", 100.0, rates) == 1.0
    assert seconds_per_system("multiperiodic", "random", 8, rates, 100.0) == pytest.approx(8.0)
    assert seconds_per_system("multiperiodic", "random", 8, rates) == pytest.approx(2.0)


def test_a_cost_measured_at_several_N_grows_with_N_between_them():
    """A group whose N·J0 dependence is measured at several N (a list of tables): the factor
    is interpolated log-log in N between them and held beyond; one table stands for every N;
    the other groups' factors do not depend on N."""
    from hyst.sampling.cost import nj0_factor, seconds_per_system

    ladder = [0.1, 1.0, 10.0, 100.0]
    rates = {
        "seconds_per_system": {"periods": {"random": {"N": [16, 64], "seconds": [1.0, 1.0]}}},
        "nj0_factor": {
            "periods": {
                "random": [
                    {"N": 16, "NJ0": ladder, "factor": [4.0, 4.0, 1.0, 1.0]},
                    {"N": 64, "NJ0": ladder, "factor": [16.0, 16.0, 1.0, 1.0]},
                ],
                "symmetric": {"N": 16, "NJ0": ladder, "factor": [2.0, 2.0, 1.0, 1.0]},
            }
        },
    }
    assert nj0_factor("periods", "random", 0.1, rates, 16) == pytest.approx(4.0)
    assert nj0_factor("periods", "random", 0.1, rates, 32) == pytest.approx(8.0)  # log-log
    assert nj0_factor("periods", "random", 0.1, rates, 64) == pytest.approx(16.0)
    assert nj0_factor("periods", "random", 0.1, rates, 1024) == pytest.approx(16.0)  # held
    assert nj0_factor("periods", "random", 0.1, rates, 4) == pytest.approx(4.0)
    assert nj0_factor("periods", "random", 0.1, rates) == pytest.approx(4.0)  # the first
    assert nj0_factor("periods", "random", 10.0, rates, 32) == pytest.approx(1.0)
    assert nj0_factor("periods", "symmetric", 0.1, rates, 64) == pytest.approx(2.0)
    assert seconds_per_system("periods", "random", 32, rates, 0.1) == pytest.approx(8.0)


def test_the_designed_groups_cost_more_at_weak_couplings_in_the_rates():
    """The measured rates carry the N·J0 dependence of the groups of designed materials (at
    N·J0 = 0.1 their random-coupling drives sweep many more amplitudes than at 10)."""
    from hyst.sampling.cost import load_rates, nj0_factor

    rates = load_rates()
    for group in ("addressability", "reachability", "periods"):
        assert nj0_factor(group, "random", 0.1, rates, 16) > 2.0, group
        assert nj0_factor(group, "random", 10.0, rates, 16) == pytest.approx(1.0), group


def test_groups_one_kernel_call_serves_alike_cost_that_call_once():
    """A point's estimate runs the kernel passes of its groups: groups that one call serves
    alike (the amplitude sweep's multiperiodic and periods, the addressing call's
    addressability and reachability) cost the most costly one's time, once; the groups of
    different passes, and those one pass adds work for (the enumeration's transitions and
    zero-field dynamics), add up."""
    from hyst.sampling.cost import point_seconds
    from hyst.sampling.passes import plan
    from hyst.sampling.sampler import Point

    table = {"N": [4, 8], "seconds": [1.0, 1.0]}
    seconds = {"periods": 3.0, "multiperiodic": 2.0, "addressability": 5.0}
    seconds |= {"reachability": 7.0, "transitions": 11.0, "zero_field": 13.0}
    rates = {
        "seconds_per_system": {
            g: {"random": {**table, "seconds": [s, s]}} for g, s in seconds.items()
        }
    }
    point = Point("random", "hysteron", "1", 8, 10.0)
    one_call = {p.name for p, _served in plan(("periods", "multiperiodic", "reachability"))}
    assert one_call == {"amplitude_sweep", "addressing"}
    assert point_seconds(point, ["periods", "multiperiodic"], 10, rates) == pytest.approx(30.0)
    assert point_seconds(point, ["addressability", "reachability"], 10, rates) == pytest.approx(
        70.0
    )
    designed = ["addressability", "reachability", "periods", "multiperiodic"]
    assert point_seconds(point, designed, 10, rates) == pytest.approx(100.0)
    assert point_seconds(point, ["transitions", "zero_field"], 10, rates) == pytest.approx(240.0)
