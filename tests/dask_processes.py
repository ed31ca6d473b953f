"""A real Dask cluster for tests: a ``dask scheduler`` process and ``dask worker`` processes
started from this environment's command line, as a user starts them on a shared cluster, with
their logs kept so that a test can read what Dask did."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

#: The ``dask`` command of this environment.
DASK = str(Path(sys.executable).parent / "dask")


@contextlib.contextmanager
def dask_processes(folder: Path, workers: int, *worker_options: str, env=None):
    """Start ``dask scheduler`` and ``workers`` ``dask worker`` processes (one thread each,
    plus ``worker_options``) writing ``folder/scheduler.json``; yield (scheduler file,
    {worker address: worker pid}, [worker Popen]). Logs: ``folder/scheduler.log`` and
    ``folder/worker-<i>.log``. Every process is stopped at the end."""
    folder.mkdir(parents=True, exist_ok=True)
    sched_file = folder / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False", **(env or {})}
    procs: list[subprocess.Popen] = []

    def start(args, log):
        with open(folder / log, "w") as out:
            procs.append(subprocess.Popen([DASK, *args], stdout=out, stderr=out, env=env))
        return procs[-1]

    try:
        start(
            ["scheduler", "--scheduler-file", str(sched_file), "--port", "0", "--no-dashboard"],
            "scheduler.log",
        )
        deadline = time.time() + 60
        while not sched_file.exists() and time.time() < deadline:
            time.sleep(0.2)
        worker_procs = [
            start(
                [
                    "worker",
                    "--scheduler-file",
                    str(sched_file),
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    *worker_options,
                ],
                f"worker-{i}.log",
            )
            for i in range(workers)
        ]
        from distributed import Client

        with Client(scheduler_file=str(sched_file), timeout="60s") as client:
            if workers:
                client.wait_for_workers(workers, timeout=120)
            pids = client.run(os.getpid)
        yield sched_file, pids, worker_procs
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
