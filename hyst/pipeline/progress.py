"""The console of a run: one progress line instead of Snakemake's block per job.

Snakemake prints a block of ten lines for every job (142 jobs of the quick preset: 2,400
lines), and hyst's own lines drown in them. The logger plugin ``hyst`` (the package
``snakemake_logger_plugin_hyst``, installed beside hyst; the default profile selects it)
hands Snakemake's log records to :class:`Console`, which prints

- at the start, what the run will do: its jobs by stage;
- while it runs, one line: the jobs done of all, the samples drawn per second by the
  sampling jobs so far, the time it has taken and the time left (from each job's expected
  cost, :data:`PLAN`, corrected by how fast the last jobs went, in proportion to how much
  expected time they cover). On a terminal the
  line is rewritten in place; elsewhere (a log file, CI) a new line is printed at most every
  :data:`LOG_SECONDS`;
- Snakemake's warnings and errors, each failed job with its log's last lines;
- nothing else of Snakemake's: its full log stays in ``.snakemake/log/``.

hyst's own lines (the job server's, the long sampling jobs', the summary at the end) are
written by hyst to the console directly and pass through unchanged.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from snakemake_interface_logger_plugins.base import LogHandlerBase

from hyst.sampling.cost import duration_text as duration

#: Seconds between two progress lines when the console is not a terminal.
LOG_SECONDS = 15.0
#: Seconds between two redraws of the line on a terminal.
TTY_SECONDS = 0.25
#: What the run is expected to cost, set by the Snakefile at its start
#: (:func:`hyst.pipeline.estimate.run_estimate`): the cores, and each job's rule and
#: expected CPU seconds by its first output. Empty: the time left is extrapolated from the
#: jobs done.
PLAN: dict = {"cores": 1, "jobs": {}}
#: The jobs over which the run's speed (elapsed against expected time) is measured.
SPEED_JOBS = 20
#: What the expected costs' own pace weighs against the pace measured over the last jobs:
#: as much as a window of this many seconds of expected wall time (their expected CPU over
#: the cores). A few short jobs measure the pace poorly (in a first run, the jobs that
#: compile their study kind's kernels took ten times their expected time, and the time left
#: shown was three times too long), so a short window moves the estimate little; a long one
#: (the jobs of a large run, minutes each) sets it.
PRIOR_SECONDS = 20.0
#: The rules whose jobs sample (their manifests count the samples drawn).
SAMPLING_RULES = ("job", "job_long")
#: The stage each rule's jobs are counted under at the start (one, several).
STAGES = {
    "job": ("study job", "study jobs (sampling and the other kinds)"),
    "job_long": ("study job", "study jobs (sampling and the other kinds)"),
    "collect": ("dataset", "datasets"),
    "analyse": ("analysis", "analyses"),
    "figure": ("figure", "figures"),
    "caption": ("caption", "captions"),
    "study_tables": ("table", "tables"),
    "paper_comparison": ("comparison page", "comparison pages"),
    "manifest": ("manifest", "manifests"),
}
#: The beginnings of Snakemake's plain lines that the console shows: nothing to do, where
#: the complete log is, and that it is waiting for a job to end after an error.
SHOWN = ("Nothing to be done", "Complete log", "Will exit after finishing")
#: The beginnings of the lines Snakemake prints while it starts a run: not shown.
CHATTER = (
    "Assuming unrestricted shared filesystem",
    "host:",
    "Building DAG of jobs",
    "Using shell:",
    "Provided cores:",
    "Provided resources:",
    "Rules claiming more threads",
    "Select jobs to execute",
    "Execute ",
    "Job stats:",
    "Conda environments: ignored",
    "Singularity containers: ignored",
)
#: Lines of a failed job's log shown on the console.
LOG_TAIL = 15


class Console:
    """What a run shows while it runs (see the module docstring)."""

    def __init__(self, stream=None, tty: bool | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.t0 = clock()
        self.jobs: dict[int, dict] = {}  # jobid -> {rule, output, log}: started, not done
        self.counts: dict[str, int] = {}  # the run's jobs by rule
        self.finished: Counter = Counter()  # jobs done by rule
        self.total = 0
        self.started = False  # the run has started its jobs (Snakemake's run_info)
        self.done = 0
        self.cost_done = 0.0
        self.history: list[tuple[float, float]] = []  # (time, cost_done) at the last jobs
        self.samples = 0
        self.last_line = -1e9
        self.drawn = ""  # the progress line as last drawn on a terminal
        self.lock = threading.Lock()

    # ---- events ---------------------------------------------------------------------------

    def run_info(self, counts: dict[str, int], total: int) -> None:
        """The jobs of the run, by rule."""
        self.total = total
        self.started = True
        self.counts = {rule: n for rule, n in counts.items() if rule != "all"}
        self.t0 = self.clock()
        stages = Counter()
        for rule, n in counts.items():
            if rule != "all":
                stages[STAGES.get(rule, (rule, rule))] += n
        parts = ", ".join(f"{n} {names[n != 1]}" for names, n in stages.items())
        jobs = sum(stages.values())
        self._print(f"hyst: {jobs} {'job' if jobs == 1 else 'jobs'} to run: {parts}")

    def job_info(self, jobid: int, rule: str, output, log) -> None:
        """A job has been started."""
        self.jobs[jobid] = {"rule": rule, "output": list(output or []), "log": list(log or [])}

    def job_finished(self, jobid: int) -> None:
        """A job has finished (successfully)."""
        job = self.jobs.pop(jobid, None)
        if job is None or job["rule"] == "all":
            return
        self.done += 1
        self.finished[job["rule"]] += 1
        self.cost_done += self._expected(job)
        self.history.append((self.clock(), self.cost_done))
        del self.history[: -SPEED_JOBS - 1]
        if job["rule"] in SAMPLING_RULES and job["output"]:
            self.samples += _samples(job["output"][0])
        self.show()

    def job_error(self, jobid: int) -> None:
        """A job has failed: its rule, its output, the tail of its log."""
        job = self.jobs.get(jobid, {"rule": "?", "output": [], "log": []})
        what = job["output"][0] if job["output"] else job["rule"]
        lines = [f"hyst: a {job['rule']} job failed: {what}"]
        for path in job["log"]:
            lines.append(f"  its log, {path}:")
            try:
                text = Path(path).read_text(errors="replace").splitlines()[-LOG_TAIL:]
            except OSError:
                text = ["  (no log was written)"]
            lines += [f"    {line}" for line in text]
        self._print("\n".join(lines))

    def message(self, level: int, text: str) -> None:
        """A plain record of Snakemake's: warnings and errors are shown, and the few lines
        that say what became of the run (:data:`SHOWN`). Before a run starts its jobs
        (Snakemake's ``--lint``, ``--report``, ``--summary`` print their findings this way)
        every other line is shown too, but for Snakemake's start-up lines (:data:`CHATTER`);
        once it runs them, none."""
        if not text.strip():
            return
        if level >= logging.WARNING or text.startswith(SHOWN):
            self._print(text.rstrip())
        elif not self.started and not text.startswith(CHATTER):
            self._print(text.rstrip())

    # ---- the progress line ---------------------------------------------------------------

    def _expected(self, job: dict) -> float:
        """The expected CPU seconds of a job: its own, else its rule's mean."""
        jobs = PLAN["jobs"]
        if job["output"] and job["output"][0] in jobs:
            return jobs[job["output"][0]][1]
        return self._rule_mean(job["rule"])

    def _rule_mean(self, rule: str) -> float:
        costs = [sec for r, sec in PLAN["jobs"].values() if r == rule]
        if not costs:
            costs = [sec for _r, sec in PLAN["jobs"].values()] or [1.0]
        return sum(costs) / len(costs)

    def line(self) -> str:
        """The progress line: jobs done, samples per second, elapsed and left."""
        elapsed = self.clock() - self.t0
        words = [f"hyst: {self.done} of {self.total} jobs done"]
        if self.total:
            words[0] += f" ({100 * self.done / self.total:.0f} %)"
        if self.samples and elapsed > 0:
            words.append(f"{self.samples / elapsed:,.0f} samples/s")
        words.append(f"{duration(elapsed)} so far")
        left = self._left(elapsed)
        if left is not None:
            words.append(f"about {duration(left)} left")
        return ", ".join(words)

    def _left(self, elapsed: float) -> float | None:
        """Seconds left: the expected CPU time of the jobs not done (those running: their
        own; those not started: their rule's mean) over the cores, scaled by the run's
        speed: how the time taken by the last jobs done compares with what was expected of
        them, weighed against the expected costs' own pace (1) by how much expected time
        they cover (:data:`PRIOR_SECONDS`): the geometric mean, the measured speed's weight
        w = T / (T + PRIOR_SECONDS) for the jobs' expected wall time T."""
        if not self.done or self.done >= self.total:
            return None
        if not PLAN["jobs"]:
            return (self.total - self.done) * elapsed / self.done
        started = Counter(job["rule"] for job in self.jobs.values())
        remaining = sum(self._expected(job) for job in self.jobs.values())
        for rule, count in self.counts.items():
            remaining += max(0, count - self.finished[rule] - started[rule]) * self._rule_mean(rule)
        cores = max(1, int(PLAN["cores"]))
        speed = 1.0
        if len(self.history) >= 4:  # over the last jobs: a first run's compile is past
            (t0, c0), (t1, c1) = self.history[0], self.history[-1]
            if c1 > c0:
                expected = (c1 - c0) / cores
                measured = min(3.0, max(0.3, (t1 - t0) / expected))
                speed = measured ** (expected / (expected + PRIOR_SECONDS))
        return remaining / cores * speed

    def show(self, force: bool = False) -> None:
        """Draw the line: in place on a terminal, else at most every LOG_SECONDS."""
        now = self.clock()
        finished = self.total and self.done >= self.total
        with self.lock:
            if self.tty:
                if not (force or finished or now - self.last_line >= TTY_SECONDS):
                    return
                self.last_line = now
                text = self.line()
                pad = max(0, len(self.drawn) - len(text))
                self.stream.write("\r" + text + " " * pad + ("\n" if finished else ""))
                self.drawn = "" if finished else text
            else:
                if not (force or finished or now - self.last_line >= LOG_SECONDS):
                    return
                self.last_line = now
                self.stream.write(self.line() + "\n")
            self.stream.flush()

    def _print(self, text: str) -> None:
        """A line of its own, above the progress line on a terminal."""
        with self.lock:
            if self.tty and self.drawn:
                self.stream.write("\r" + " " * len(self.drawn) + "\r")
                self.drawn = ""
            self.stream.write(text + "\n")
            self.stream.flush()


def _samples(manifest: str) -> int:
    """The systems a job sampled, from its manifest (0 if it says none)."""
    try:
        return int(json.loads(Path(manifest).read_text()).get("samples", 0))
    except (OSError, ValueError, AttributeError):
        return 0


class RecordHandler(logging.Handler):
    """Snakemake's log records to a :class:`Console` (the logger plugin's handler)."""

    def __init__(self, console: Console | None = None):
        super().__init__()
        self.console = console or Console()

    def emit(self, record: logging.LogRecord) -> None:
        """Show one Snakemake log record (run info, job start or end, error, ...) on the console;
        a failure is reported through ``handleError`` and never stops the run."""
        event = str(getattr(record, "event", "") or "")
        c = self.console
        try:
            if event == "run_info":
                counts = dict(getattr(record, "stats", {}) or {})
                total = int(counts.pop("total", sum(counts.values())))
                c.run_info(counts, total - counts.get("all", 0))
            elif event == "job_info":
                c.job_info(
                    int(getattr(record, "jobid", 0)),
                    str(getattr(record, "rule_name", "")),
                    getattr(record, "output", []),
                    getattr(record, "log", []),
                )
            elif event == "job_finished":
                c.job_finished(int(getattr(record, "job_id", 0)))
            elif event == "job_error":
                c.job_error(int(getattr(record, "jobid", 0)))
            elif event == "error":
                c.message(logging.ERROR, record.getMessage())
            elif not event:
                c.message(record.levelno, record.getMessage())
        except Exception:  # noqa: BLE001 (the console must never stop a run)
            self.handleError(record)


class LogHandler(LogHandlerBase):
    """The logger plugin's handler (``--logger hyst``; the default profile selects it): the
    run's records to a :class:`Console`. A dry run, ``--verbose`` and ``--debug-dag`` print
    Snakemake's own output instead: there the blocks per job are what was asked for."""

    def __post_init__(self) -> None:
        s = self.common_settings
        stream = sys.stdout if s.stdout else sys.stderr
        if s.dryrun or s.verbose or s.debug_dag:
            from snakemake.logging import ColorizingTextHandler, DefaultFilter, DefaultFormatter

            inner: logging.Handler = ColorizingTextHandler(nocolor=s.nocolor, stream=stream)
            inner.addFilter(DefaultFilter(s.quiet, s.debug_dag, s.dryrun, s.printshellcmds))
            inner.setFormatter(DefaultFormatter(s.quiet, s.show_failed_logs))
        else:
            inner = RecordHandler(Console(stream))
        self.inner = inner

    def emit(self, record: logging.LogRecord) -> None:
        """Pass the record to the inner handler (the console, or Snakemake's own text handler)."""
        self.inner.handle(record)

    @property
    def writes_to_stream(self) -> bool:
        """Snakemake's plugin API: the handler writes to a stream (stdout or stderr)."""
        return True

    @property
    def writes_to_file(self) -> bool:
        """Snakemake's plugin API: the handler writes no log file."""
        return False

    @property
    def has_filter(self) -> bool:
        """Snakemake's plugin API: the handler filters records itself."""
        return True

    @property
    def has_formatter(self) -> bool:
        """Snakemake's plugin API: the handler formats records itself."""
        return True

    @property
    def needs_rulegraph(self) -> bool:
        """Snakemake's plugin API: the handler needs no rule graph."""
        return False
