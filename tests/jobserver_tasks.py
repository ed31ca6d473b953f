"""Tasks and a stand-in for Snakemake's ``snakemake`` object, for tests/test_jobserver.py (the
job server imports this module by name: ``jobserver_tasks:<function>``)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


class Job:
    """What a task gets from Snakemake: the rule, wildcards, log and params (here a dict)."""

    def __init__(self, folder, **params):
        self.rule = "test"
        self.wildcards = {"case": Path(folder).name}
        if "kind" in params:  # a study kind's job
            self.wildcards["kind"] = params["kind"]
        self.log = [str(Path(folder) / "job.log")]
        self.input = params.pop("input", [])  # files, as Snakemake lists a job's inputs
        self.params = params


def echo(job):
    print("to stdout", flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    Path(job.params["out"]).write_text(
        f"{os.getcwd()}\n{os.environ.get('HYST_TEST_VALUE')}\n{os.getpid()}\n"
    )


def fails(job):
    sys.exit("hyst: this job failed, in one line")


def raises(job):
    raise ValueError("a bug in a task")


def exits(job):
    sys.exit(job.params["status"])


def sleeps(job):
    Path(job.params["pid"]).write_text(str(os.getpid()))
    time.sleep(120)


def waits(job):
    """Mark that it started (``<out>.started``), wait for the file ``release``, then mark that
    it ended (``<out>.ended``)."""
    out, release = Path(job.params["out"]), Path(job.params["release"])
    out.with_suffix(".started").touch()
    deadline = time.monotonic() + 120
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    out.with_suffix(".ended").touch()


def reads_datasets(job):
    """Write, for each input dataset, whether the process it was forked from had it loaded
    and the sum of its variable ``x``."""
    import json

    from hyst.provenance import files

    out = {}
    for path in job.input:
        loaded = os.path.abspath(path) in files._KEPT
        out[path] = [loaded, float(files.read_dataset(path)["x"].sum())]
    Path(job.params["out"]).write_text(json.dumps(out))
