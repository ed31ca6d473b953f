"""One pending re-evaluation of Snakemake's scheduler at a time.

Snakemake's scheduler (``snakemake.scheduling.job_scheduler.JobScheduler``) evaluates its
waiting jobs whenever its semaphore is released: when a job ends, and from a timer that
every evaluation with jobs still waiting starts (``--max-jobs-per-timespan``, by default
100 jobs a second: the evaluation after the timespan frees the job count again). Each
evaluation that finds jobs waiting starts a new timer, so every job that ends starts a
chain of one evaluation a second that lasts until no job waits: after k jobs, k
evaluations a second, each of which sizes every input of every waiting job. A warm run of
the quick preset (170 jobs in 2 minutes) made 9,470 evaluations, about 26 CPU-s of the
main process's 30, measured with ``python -m cProfile $(which snakemake) ...``.

:func:`coalesce_reevaluations` keeps one timer pending at a time: a request finds the
pending one, due no later, and starts nothing. Every evaluation looks at every waiting job,
so one evaluation serves all the requests it answers; the rate limit is unchanged (an
evaluation still follows each timespan while jobs wait), and so is the evaluation on each
job's end, which Snakemake starts without a timer.
"""

from __future__ import annotations

import threading
import time


def coalesce_reevaluations() -> bool:
    """Make Snakemake's scheduler keep at most one re-evaluation timer pending (the module
    docstring). Returns whether the scheduler was changed: False where this Snakemake has
    no such timer (another version) or it was changed before."""
    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:
        return False
    name = "_schedule_reevalutation"  # Snakemake's spelling
    original = getattr(JobScheduler, name, None)
    if original is None or getattr(original, "coalesced", False):
        return False

    def schedule_reevaluation(self, delay) -> None:
        """Release the scheduler's semaphore ``delay`` seconds from now, unless a release
        is already due by then."""
        due = time.monotonic() + delay
        with _LOCK:
            pending = _PENDING.get(id(self))
            if pending is not None and pending <= due:
                return
            _PENDING[id(self)] = due

        def release():
            with _LOCK:
                if _PENDING.get(id(self)) == due:
                    del _PENDING[id(self)]
            self._open_jobs.release()

        timer = threading.Timer(delay, release)
        timer.daemon = True  # a pending evaluation never holds the process at its end
        timer.start()

    schedule_reevaluation.coalesced = True
    setattr(JobScheduler, name, schedule_reevaluation)
    return True


#: The time each scheduler's pending re-evaluation is due (time.monotonic()), by id().
_PENDING: dict[int, float] = {}
_LOCK = threading.Lock()
