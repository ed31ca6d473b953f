"""Snakemake's scheduler keeps one re-evaluation timer pending at a time
(hyst/pipeline/scheduler.py): many requests release its semaphore once, an earlier one still
gets its own release, and the Snakefile applies the change in every run."""

import threading
from pathlib import Path

from snakemake.scheduling.job_scheduler import JobScheduler

from hyst.pipeline.scheduler import coalesce_reevaluations

ROOT = Path(__file__).resolve().parents[1]


def bare_scheduler():
    """A JobScheduler with nothing but the semaphore its timers release."""
    scheduler = object.__new__(JobScheduler)
    scheduler._open_jobs = threading.Semaphore(0)
    return scheduler


def released(scheduler, timeout: float) -> bool:
    return scheduler._open_jobs.acquire(timeout=timeout)


def test_many_requests_release_the_scheduler_once():
    coalesce_reevaluations()
    scheduler = bare_scheduler()
    before = threading.active_count()
    for _ in range(200):
        scheduler._schedule_reevalutation(0.05)
    assert threading.active_count() <= before + 1  # one timer, not 200
    assert released(scheduler, 60)
    assert not released(scheduler, 0.5)  # and no other release after it
    # once it has fired, the next request starts a timer of its own again
    scheduler._schedule_reevalutation(0.01)
    assert released(scheduler, 60)


def test_an_earlier_request_is_not_held_back_by_a_later_one():
    coalesce_reevaluations()
    scheduler = bare_scheduler()
    scheduler._schedule_reevalutation(3600)  # due in an hour (a daemon timer)
    scheduler._schedule_reevalutation(0.01)
    assert released(scheduler, 60)


def test_each_scheduler_has_its_own_pending_release():
    coalesce_reevaluations()
    first, second = bare_scheduler(), bare_scheduler()
    first._schedule_reevalutation(0.01)
    second._schedule_reevalutation(0.01)
    assert released(first, 60) and released(second, 60)


def test_the_change_is_made_once_and_by_the_snakefile():
    coalesce_reevaluations()
    assert JobScheduler._schedule_reevalutation.coalesced
    assert coalesce_reevaluations() is False  # already made: nothing changes
    common = (ROOT / "workflow" / "rules" / "common.smk").read_text()
    assert "\ncoalesce_reevaluations()\n" in common
