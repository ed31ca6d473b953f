"""The run's console (hyst.pipeline.progress): one line of progress from Snakemake's records,
what the run does at its start, warnings and errors with the failed job's log, and nothing
else of Snakemake's blocks per job."""

from __future__ import annotations

import io
import json
import logging

import pytest

from hyst.pipeline import progress
from hyst.pipeline.progress import Console, RecordHandler, duration


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def record(event=None, level=logging.INFO, msg="", **extra):
    r = logging.LogRecord("snakemake", level, __file__, 1, msg, None, None)
    if event:
        r.event = event
    r.__dict__.update(extra)
    return r


@pytest.fixture
def plan(monkeypatch):
    monkeypatch.setattr(progress, "PLAN", {"cores": 2, "jobs": {}})
    return progress.PLAN


def test_durations_read_as_a_person_says_them():
    assert [duration(s) for s in (0.4, 45, 200, 3725)] == [
        "0 s",
        "45 s",
        "3 min 20 s",
        "1 h 02 min",
    ]


def test_a_run_shows_its_jobs_then_one_line_per_interval_and_the_samples(tmp_path, plan):
    manifest = tmp_path / "job.json"
    manifest.write_text(json.dumps({"files": [], "samples": 4000}))
    plan["jobs"] = {str(manifest): ("job", 10.0), "fig.png": ("figure", 2.0)}
    out, clock = io.StringIO(), Clock()
    handler = RecordHandler(Console(out, tty=False, clock=clock))
    handler.handle(record("run_info", stats={"job": 1, "figure": 1, "all": 1, "total": 3}))
    assert out.getvalue() == "hyst: 2 jobs to run: 1 study job, 1 figure\n"
    # Snakemake's block per job and its chatter: not shown
    handler.handle(record("job_info", jobid=1, rule_name="job", output=[str(manifest)], log=[]))
    handler.handle(record(msg="Select jobs to execute..."))
    handler.handle(record("shellcmd", shellcmd="python x"))
    clock.now = 10.0
    handler.handle(record("job_finished", job_id=1))
    lines = out.getvalue().splitlines()
    assert lines[1] == ("hyst: 1 of 2 jobs done (50 %), 400 samples/s, 10 s so far, about 1 s left")
    handler.handle(record("job_info", jobid=2, rule_name="figure", output=["fig.png"], log=[]))
    clock.now = 12.0
    handler.handle(record("job_finished", job_id=2))  # the last: shown at once
    assert (
        out.getvalue().splitlines()[2]
        == "hyst: 2 of 2 jobs done (100 %), 333 samples/s, 12 s so far"
    )
    assert len(out.getvalue().splitlines()) == 3


def test_between_intervals_no_line_is_printed_off_a_terminal(plan):
    out, clock = io.StringIO(), Clock()
    console = Console(out, tty=False, clock=clock)
    console.run_info({"figure": 5}, 5)
    for jobid in range(3):
        console.job_info(jobid, "figure", [f"f{jobid}.png"], [])
        clock.now += 1
        console.job_finished(jobid)
    assert len(out.getvalue().splitlines()) == 2  # the start and the first line
    clock.now += progress.LOG_SECONDS
    console.job_info(9, "figure", ["f9.png"], [])
    console.job_finished(9)
    assert out.getvalue().splitlines()[-1].startswith("hyst: 4 of 5 jobs done (80 %)")


def test_on_a_terminal_the_line_is_redrawn_in_place_and_other_lines_go_above_it(plan):
    out, clock = io.StringIO(), Clock()
    console = Console(out, tty=True, clock=clock)
    console.run_info({"figure": 2}, 2)
    console.job_info(1, "figure", ["a.png"], [])
    clock.now = 1
    console.job_finished(1)
    line = "hyst: 1 of 2 jobs done (50 %), 1 s so far, about 1 s left"
    assert out.getvalue().endswith("\r" + line)
    console.message(logging.WARNING, "a warning")
    assert out.getvalue().endswith("\r" + " " * len(line) + "\ra warning\n")
    console.job_info(2, "figure", ["b.png"], [])
    clock.now = 2
    console.job_finished(2)
    assert out.getvalue().endswith("\rhyst: 2 of 2 jobs done (100 %), 2 s so far\n")


def test_the_time_left_comes_from_the_expected_cost_of_the_jobs_not_done(plan):
    plan["jobs"] = {f"s{i}": ("job", 100.0) for i in range(4)} | {
        f"f{i}.png": ("figure", 1.0) for i in range(10)
    }
    out, clock = io.StringIO(), Clock()
    console = Console(out, tty=False, clock=clock)
    console.run_info({"job": 4, "figure": 10}, 14)
    clock.now = 60.0  # a first run's compile: no job done meanwhile

    def figures(ids, seconds):
        for i in ids:
            console.job_info(i, "figure", [f"f{i}.png"], [])
            clock.now += seconds
            console.job_finished(i)

    figures(range(4), 0.5)  # as expected: 1 CPU-s each on 2 cores
    # left: 4 sampling jobs (400 s) and 6 figures (6 s) over 2 cores, the compile not counted
    assert console._left(clock.now) == pytest.approx(406 / 2)
    figures(range(4, 8), 1.0)  # twice as slow: the speed over the jobs done since the first
    measured = (3 * 0.5 + 4 * 1.0) / (7 / 2)  # from the first job done to the last
    weight = (7 / 2) / (7 / 2 + progress.PRIOR_SECONDS)  # 3.5 s of expected time
    assert console._left(clock.now) == pytest.approx(402 / 2 * measured**weight)


def slow_first_jobs(plan, seconds: float):
    """A console after 12 jobs of ``seconds`` expected CPU each on 2 cores, of 112 alike:
    two of them took ten times as long (a first run's jobs that compile their kind's
    kernels), the others as expected. Returns (the console, its clock)."""
    plan["jobs"] = {f"j{i}": ("job", seconds) for i in range(112)}
    clock = Clock()
    console = Console(io.StringIO(), tty=False, clock=clock)
    console.run_info({"job": 112}, 112)
    for i in range(12):
        console.job_info(i, "job", [f"j{i}"], [])
        clock.now += seconds / 2 * (10 if i in (3, 4) else 1)
        console.job_finished(i)
    return console, clock


def test_a_few_slow_jobs_move_the_time_left_little_a_long_window_sets_it(plan):
    """Two jobs that took ten times their expected time among the first twelve short ones
    (1 CPU-s each): the time left stays within a third of the expected costs' (100 CPU-s
    over 2 cores), where the measured pace alone said 2.6 times as long. Among jobs of
    ten minutes each, the measured pace sets it."""
    console, clock = slow_first_jobs(plan, 1.0)
    expected_left = 100 / 2
    measured = (11 / 2 + 2 * 4.5) / (11 / 2)  # the 11 jobs' time against their expectation
    assert measured > 2.5
    assert expected_left < console._left(clock.now) < 1.35 * expected_left
    console, clock = slow_first_jobs(plan, 600.0)
    assert console._left(clock.now) == pytest.approx(100 * 600 / 2 * measured, rel=0.03)


def test_a_failed_job_shows_its_rule_output_and_the_end_of_its_log(tmp_path, plan):
    log = tmp_path / "job.log"
    log.write_text("".join(f"line {i}\n" for i in range(30)) + "ValueError: bad\n")
    out = io.StringIO()
    handler = RecordHandler(Console(out, tty=False))
    handler.handle(
        record("job_info", jobid=7, rule_name="figure", output=["f.png"], log=[str(log)])
    )
    handler.handle(record("job_error", level=logging.ERROR, jobid=7, msg="Error in rule figure"))
    text = out.getvalue().splitlines()
    assert text[0] == "hyst: a figure job failed: f.png"
    assert text[1] == f"  its log, {log}:"
    assert text[-1] == "    ValueError: bad" and len(text) == 2 + progress.LOG_TAIL


def test_warnings_errors_and_the_runs_fate_are_shown_info_chatter_is_not(plan):
    out = io.StringIO()
    handler = RecordHandler(Console(out, tty=False))
    # before the run starts its jobs: what --lint or --report say is shown, the chatter not
    for msg in ("Building DAG of jobs...", "Using shell: /usr/bin/bash"):
        handler.handle(record(msg=msg))
    handler.handle(record(msg="Congratulations, your workflow is in a good condition!"))
    handler.handle(record("run_info", stats={"figure": 1, "total": 1}))
    for msg in ("Select jobs to execute...", "Execute 2 jobs...", "[Fri Nov 27 2026]"):
        handler.handle(record(msg=msg))
    handler.handle(
        record(msg="Nothing to be done (all requested files are present and up to date).")
    )
    handler.handle(record(level=logging.WARNING, msg="a Snakemake warning"))
    handler.handle(record("error", level=logging.ERROR, msg="MissingInputException: x"))
    assert out.getvalue().splitlines() == [
        "Congratulations, your workflow is in a good condition!",
        "hyst: 1 job to run: 1 figure",
        "Nothing to be done (all requested files are present and up to date).",
        "a Snakemake warning",
        "MissingInputException: x",
    ]
