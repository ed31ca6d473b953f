"""Run one job of a study kind (over :func:`hyst.studies.run_job`). Its progress goes to the
job's log; a long job (rule ``job_long``) also shows it on the console, at most every
:data:`CONSOLE_SECONDS` and at its first and last lines, so that the first minutes of a run
are not silent. A chunk that the cluster cannot compute
(:class:`hyst.sampling.chunks.SamplingFailed`) ends the job with one line on the console
and in the log, no traceback."""

from __future__ import annotations

import importlib
import json
import sys
import time

from hyst.provenance.files import atomic_write_text
from hyst.sampling.chunks import SamplingFailed
from hyst.studies import KINDS, run_job

#: Seconds between two progress lines of a long job on the console.
CONSOLE_SECONDS = 20


def preload() -> None:
    """Every study kind's module, and the parts of scipy that the loop and t-graph kinds
    import only when they solve (the workflow imports the kinds to plan, without them)."""
    for name in KINDS:
        KINDS[name]  # noqa: B018 (imports the kind's module)
    importlib.import_module("scipy.optimize")
    importlib.import_module("scipy.sparse")
    importlib.import_module("scipy.stats")


def run(sm) -> None:
    """The job ``sm.wildcards.job`` of the kind ``sm.wildcards.kind``; its manifest."""
    kind, name = sm.wildcards.kind, sm.wildcards.job
    console = sm.rule == "job_long"
    last = [0.0]

    own = f"job {name}"  # how the kind's lines about the whole job begin

    def log(line, log_file):
        print(line, file=log_file, flush=True)
        now = time.monotonic()
        if console and (now - last[0] >= CONSOLE_SECONDS or line.startswith(own)):
            last[0] = now
            # the job named once: "hyst: NAME on host ...", "hyst: NAME: sampled ..."
            text = line[len(own) :] if line.startswith(own) else f": {line}"
            print(f"hyst: {name}{text}", file=sys.stderr, flush=True)

    with open(sm.log[0], "w") as log_file:
        try:
            info = run_job(
                kind,
                json.loads(sm.params.payload),
                name,
                sm.params.results,
                config=KINDS[kind].job_config(sm.config),
                threads=sm.threads,
                log=lambda line: log(line, log_file),
            )
        except SamplingFailed as err:  # the cluster could not compute a chunk: one line
            print(f"job {name} failed: {err}", file=log_file, flush=True)
            sys.exit(f"hyst: {name}: {err}")
    atomic_write_text(sm.output[0], json.dumps({"kind": kind, "job": name, **info}, indent=1))
