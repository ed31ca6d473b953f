"""The run's job server: a warm process that runs the pipeline's jobs in forked children.

A Snakemake job of a script rule is a new Python process. Before it does any work it imports
numpy, xarray, netCDF4, matplotlib, the study kinds and loads the numba kernels from their
cache: 1.5 to 3 s of CPU per job, paid again by each of a run's ~140 jobs, while the quick
preset's science is a minute. The job server pays that once per run:

- the Snakefile starts it (:func:`start`) when the run executes its jobs on this machine
  (the default profile; never for ``--profile slurm``, whose jobs run where SLURM puts them);
- on a first run it compiles the sampler's serial kernels into numba's cache first; then,
  when the first job of a task comes, it imports the task's modules (:data:`TASKS`, each
  task's ``preload``), and when the first sampling job comes it loads the sampler's
  kernels (:class:`Preload`): each once per run, and only what the run's jobs need;
- each job's script (``workflow/scripts/``) is a client (:func:`run_task`): it sends the
  job (the ``snakemake`` object Snakemake gave the script, its working folder and
  environment) and its standard output and error (the file descriptors themselves) over a
  Unix socket; the server forks a child that runs the task with everything already
  imported, and answers with the child's exit status and resource usage;
- the NetCDF files a job reads (its studies' datasets and analyses) are loaded by the server
  before it forks the job's child, each once per run (again if the file changed), and the
  child reads them from memory (:func:`hyst.provenance.files.keep_loaded`): a dataset
  read by a dozen figures, captions and analyses is opened once, not a dozen times;
- without a server (a SLURM job, a script run by hand) the client runs the task itself;
- on a first run (the sampler's kernels not in numba's cache yet) the first job of each
  other study kind runs before the rest of its kind (:data:`PRELOADED_KINDS`), so that its
  kernels compile once, not in every job of the kind that starts beside it.

What a job computes does not depend on where it runs: the same task function, the same
code (a job without a server imports it as it starts; the server, as the first job that
needs it comes), the same inputs. A killed client (Snakemake cancelling a job, Ctrl-C)
closes its connection, and the server kills the child; a server whose Snakemake process
has gone stops itself. Each child's CPU time and peak memory go to its job's log and to a
table of the run (``<results>/benchmarks/job_server.tsv``): Snakemake's ``benchmark:``
files time the client, which waits.

The server is single-threaded (``selectors``): it forks only from a process without other
threads, so a child never inherits a lock held by a thread that does not exist in it.
Nothing in it starts numba's thread pool (only serial kernels are loaded): a job with
threads starts its own pool in its child.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import pickle
import selectors
import signal
import socket
import struct
import sys
import time
from pathlib import Path

#: The environment variable that tells a job's script where the run's server listens.
ENV = "HYST_JOB_SERVER"
#: The module of each task (a rule's work); each defines ``run(snakemake)`` and may define
#: ``preload()``, which imports what its jobs load lazily (the server calls it once).
TASKS = {
    "job": "hyst.pipeline.tasks.job",
    "collect": "hyst.pipeline.tasks.collect",
    "analyse": "hyst.pipeline.tasks.analyse",
    "figure": "hyst.pipeline.tasks.figure",
    "caption": "hyst.pipeline.tasks.caption",
    "tables": "hyst.pipeline.tasks.tables",
    "comparison": "hyst.pipeline.tasks.comparison",
    "manifest": "hyst.pipeline.tasks.manifest",
}
#: The study kinds whose kernels the server loads (compiles on a first run) itself before any
#: job runs: the sampler's, which the points kind's jobs run. On a first run the first job of
#: any other kind runs before the rest of its kind: it compiles the kind's kernels into
#: numba's cache, from which the others load them, instead of each job that starts beside
#: it compiling them too (two pair-statistics jobs of the quick preset: 15 CPU-s each).
PRELOADED_KINDS = ("points",)
#: Seconds between two checks for finished children and a vanished parent.
POLL_SECONDS = 0.02
#: Seconds a client waits for the server to come up before it runs the task itself.
READY_SECONDS = 600.0
_HEADER = struct.Struct("!Q")
#: The files of a server's folder: its socket, its process id (written when it starts), and
#: the mark that it is ready (on a first run, once it has compiled the sampler's kernels).
SOCKET, PID, READY = "socket", "pid", "ready"


def task_module(task: str):
    """The module of a task, imported."""
    return importlib.import_module(TASKS[task])


def task_function(task: str):
    """A task's function: ``run`` of a task of :data:`TASKS`, or a ``module:function``."""
    if ":" in task:
        module, name = task.split(":", 1)
        return getattr(importlib.import_module(module), name)
    return task_module(task).run


def run_here(task: str, sm) -> None:
    """Run a task in this process (no server)."""
    task_function(task)(sm)


# ---- client -------------------------------------------------------------------------------


def _send(sock: socket.socket, header: dict, payload: bytes, fds=()) -> None:
    head = json.dumps(header).encode()
    data = _HEADER.pack(len(head)) + head + _HEADER.pack(len(payload)) + payload
    if fds:
        socket.send_fds(sock, [data[:1]], list(fds))
        sock.sendall(data[1:])
    else:
        sock.sendall(data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        part = sock.recv(min(n - got, 1 << 20))
        if not part:
            raise ConnectionError("the connection closed early")
        chunks.append(part)
        got += len(part)
    return b"".join(chunks)


def _recv_message(sock: socket.socket, with_fds: int = 0) -> tuple[dict, bytes, list[int]]:
    fds: list[int] = []
    if with_fds:
        first, fds, _flags, _addr = socket.recv_fds(sock, 1, with_fds)
        if not first:
            raise ConnectionError("the connection closed early")
    else:
        first = _recv_exact(sock, 1)
    rest = _recv_exact(sock, _HEADER.size - 1)
    (n_head,) = _HEADER.unpack(first + rest)
    header = json.loads(_recv_exact(sock, n_head))
    (n_payload,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    return header, _recv_exact(sock, n_payload), fds


def _alive(pid_file: Path) -> bool:
    """Whether the server whose process id ``pid_file`` holds is running (or starting)."""
    try:
        text = pid_file.read_text().strip()
    except FileNotFoundError:
        return False
    if not text:
        return True  # written by the starter in a moment
    try:
        os.kill(int(text), 0)
    except (ProcessLookupError, ValueError):
        return False
    except PermissionError:
        return True
    return True


def _connect(folder: str, wait: float) -> socket.socket | None:
    """A connection to the server of ``folder``; waits up to ``wait`` seconds while the
    server is starting (on a first run it compiles the kernels first); None if there is none."""
    where = Path(folder)
    deadline = time.monotonic() + wait
    while not (where / READY).exists():
        if not _alive(where / PID) or time.monotonic() > deadline:
            return None
        time.sleep(0.05)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(where / SOCKET))
    except OSError:
        sock.close()
        return None
    return sock


def _datasets_read(sm) -> list[str]:
    """The NetCDF files among a job's inputs (its studies' datasets and analyses)."""
    inputs = getattr(sm, "input", ())  # Snakemake's list of every input file
    return [str(p) for p in inputs if str(p).endswith(".nc")] if isinstance(inputs, list) else []


def run_task(task: str, sm) -> None:
    """Run a task for the Snakemake job ``sm``: in the run's server when there is one
    (``HYST_JOB_SERVER``), else in this process. Exits with the task's status."""
    folder = os.environ.get(ENV)
    sock = _connect(folder, READY_SECONDS) if folder else None
    if sock is None:
        run_here(task, sm)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    with sock:
        job = " ".join([sm.rule, *(f"{k}={v}" for k, v in sm.wildcards.items())])
        header = {"task": task, "job": job, "cwd": os.getcwd(), "env": dict(os.environ)}
        header["kind"] = dict(sm.wildcards).get("kind")  # a study kind's job: its kind
        header["reads"] = _datasets_read(sm)
        _send(sock, header, pickle.dumps(sm), fds=(1, 2))
        try:
            reply, _payload, _fds = _recv_message(sock)
        except (ConnectionError, OSError):
            sys.exit(f"hyst: the run's job server stopped while it ran this {task} job")
    status = int(reply["status"])
    if sm.log:
        with open(sm.log[0], "a") as fh:
            fh.write(
                f"hyst: ran in the run's job server: {reply['wall']:.2f} s, CPU "
                f"{reply['user']:.2f} s user + {reply['sys']:.2f} s system, peak memory "
                f"{reply['maxrss_mb']:.0f} MB\n"
            )
    if status:
        sys.exit(status)


# ---- server -------------------------------------------------------------------------------


def _child(header: dict, payload: bytes, fds: list[int]) -> None:
    """The forked child: the job's output and error, folder and environment, then the task."""
    status = 1
    try:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        os.chdir(header["cwd"])
        os.environ.clear()
        os.environ.update(header["env"])
        run_here(header["task"], pickle.loads(payload))
        status = 0
    except SystemExit as exit_:
        if isinstance(exit_.code, str):
            print(exit_.code, file=sys.stderr)
            status = 1
        else:
            status = int(exit_.code or 0)
    except BaseException:  # noqa: BLE001 (reported as a script's traceback, to its job)
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


class _Server:
    """The server's loop (see the module docstring)."""

    def __init__(
        self,
        folder: str,
        parent: int,
        table: str | None,
        first_run: bool = False,
        preload: Preload | None = None,
    ):
        self.folder = Path(folder)
        self.preload = preload  # what the children need loaded, loaded as their jobs come
        self.parent = parent
        self.table = table
        self.running: dict[int, tuple[socket.socket, dict, float]] = {}  # pid -> (conn, header, t0)
        self.selector = selectors.DefaultSelector()
        self.stopping = False
        # a first run: each study kind's first job compiles the kind's kernels alone
        self.first_run = first_run
        self.compiling: dict[str, int] = {}  # kind -> the pid of its first job, running
        self.compiled: set[str] = set(PRELOADED_KINDS)  # kinds whose first job has ended
        self.held: dict[str, list] = {}  # kind -> [(conn, header, payload, fds)] waiting

    def serve(self) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.folder / SOCKET))
        listener.listen(64)
        self.listener = listener
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        (self.folder / READY).touch()
        try:
            while not self.stopping:
                for key, _mask in self.selector.select(POLL_SECONDS):
                    if key.data == "accept":
                        self._accept()
                    else:
                        self._client_event(key.fileobj, key.data)
                self._reap()
                if os.getppid() != self.parent:  # Snakemake has gone: so do its jobs
                    break
        finally:
            self._shutdown()

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        conn.settimeout(30)
        try:
            header, payload, fds = _recv_message(conn, with_fds=2)
        except (ConnectionError, OSError, ValueError):
            conn.close()
            return
        if header.get("task") == "__stop__":
            self.stopping = True
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        kind = header.get("kind")
        if self.first_run and kind and kind not in self.compiled:
            if kind in self.compiling:  # its first job compiles the kernels: wait for it
                conn.setblocking(False)
                self.held.setdefault(kind, []).append((conn, header, payload, fds))
                self.selector.register(conn, selectors.EVENT_READ, ("held", kind))
                return
            self.compiling[kind] = self._start(conn, header, payload, fds)
            return
        self._start(conn, header, payload, fds)

    def _start(self, conn, header: dict, payload: bytes, fds: list[int]) -> int:
        """Fork the job's child; its pid. The datasets the job reads are loaded here first,
        once per run (:func:`hyst.provenance.files.keep_loaded`): the child inherits them."""
        if self.preload is not None:
            self.preload(header)
        reads = header.get("reads") or []
        if reads:
            from hyst.provenance.files import keep_loaded

            keep_loaded(os.path.join(header["cwd"], path) for path in reads)
        pid = os.fork()
        if pid == 0:  # the child
            self.listener.close()
            for other, _h, _t in self.running.values():
                other.close()
            for waiting in self.held.values():
                for other, _h, _p, other_fds in waiting:
                    other.close()
                    for fd in other_fds:
                        os.close(fd)
            conn.close()
            _child(header, payload, fds)
        for fd in fds:
            os.close(fd)
        conn.setblocking(False)
        self.running[pid] = (conn, header, time.monotonic())
        self.selector.register(conn, selectors.EVENT_READ, pid)
        return pid

    def _release(self, kind: str) -> None:
        """The first job of ``kind`` has ended (its kernels are in numba's cache, or it
        failed): the jobs of the kind held for it start."""
        del self.compiling[kind]
        self.compiled.add(kind)
        for conn, header, payload, fds in self.held.pop(kind, []):
            self.selector.unregister(conn)
            self._start(conn, header, payload, fds)

    def _client_event(self, conn, key) -> None:
        """A client's connection readable while its child runs (``key``: the child's pid) or
        while its job is held (``key``: ("held", kind)): the client has gone."""
        try:
            data = conn.recv(1)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data and isinstance(key, tuple):  # a held job: dropped
            waiting = self.held.get(key[1], [])
            for entry in [e for e in waiting if e[0] is conn]:
                waiting.remove(entry)
                for fd in entry[3]:
                    os.close(fd)
            self.selector.unregister(conn)
            conn.close()
            return
        if not data and key in self.running:
            try:
                os.kill(key, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def _reap(self) -> None:
        while self.running:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn, header, t0 = self.running.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            reply = {
                "status": code if code >= 0 else 128 - code,
                "wall": time.monotonic() - t0,
                "user": usage.ru_utime,
                "sys": usage.ru_stime,
                "maxrss_mb": usage.ru_maxrss / 1024,
            }
            self._record(header, reply)
            self.selector.unregister(conn)
            try:
                conn.setblocking(True)
                _send(conn, {**reply}, b"")
            except OSError:
                pass
            conn.close()
            kind = header.get("kind")
            if self.compiling.get(kind) == pid:
                self._release(kind)

    def _record(self, header: dict, reply: dict) -> None:
        if not self.table:
            return
        table = Path(header["cwd"], self.table)
        table.parent.mkdir(parents=True, exist_ok=True)
        new = not table.exists()
        with open(table, "a") as fh:
            if new:
                fh.write("task\tjob\tstatus\twall_s\tuser_s\tsys_s\tmaxrss_mb\n")
            fh.write(
                f"{header['task']}\t{header.get('job', '')}\t{reply['status']}\t"
                f"{reply['wall']:.3f}\t{reply['user']:.3f}\t{reply['sys']:.3f}\t"
                f"{reply['maxrss_mb']:.1f}\n"
            )

    def _shutdown(self) -> None:
        for waiting in self.held.values():
            for conn, _header, _payload, fds in waiting:
                conn.close()
                for fd in fds:
                    os.close(fd)
        for pid in list(self.running):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        self.listener.close()
        for name in (READY, SOCKET, PID):
            (self.folder / name).unlink(missing_ok=True)
        try:
            self.folder.rmdir()
        except OSError:
            pass


def _read_and_write_a_dataset() -> None:
    """Write a small dataset and read it back, as the jobs do (:mod:`hyst.provenance.files`).

    xarray imports its optional array libraries (pint, dask.array and what they import, 250
    modules) the first time it decodes or converts a variable, and keeps them for the rest
    of the process: done once here, every forked job finds them imported (0.2 to 0.3 s of
    CPU a job that reads a dataset, measured on the quick preset's figures)."""
    import tempfile

    import numpy as np
    import xarray as xr

    from hyst.provenance.files import content_hash, read_dataset, write_dataset

    ds = xr.Dataset(
        {
            "count": (("N", "NJ0"), np.arange(6, dtype=np.int64).reshape(2, 3)),
            "p": (("N", "NJ0"), np.array([[0.5, np.nan, 1.0], [0.25, 0.0, 1.0]])),
            "ok": ("N", np.array([True, False])),
        },
        coords={"N": [2, 4], "NJ0": [0.1, 1.0, 10.0], "rule": "1"},
        attrs={"kind": "points"},
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "warm.nc"
        write_dataset(ds, path)
        back = read_dataset(path)
    content_hash(back)
    back["p"].where(back["ok"]).sel(N=2).mean("NJ0").values  # noqa: B018


def preload_tasks(tasks=tuple(TASKS), common: bool = True) -> None:
    """Import ``tasks``' modules and what their jobs load lazily (each task's ``preload``);
    with ``common``, what every task's job needs: read and write a small dataset
    (:func:`_read_and_write_a_dataset`) and import the module of the ``snakemake`` object.
    All a job of those tasks needs in its child but the sampler's kernels."""
    for task in tasks:
        module = task_module(task)
        if hasattr(module, "preload"):
            module.preload()
    if common:
        _read_and_write_a_dataset()
        # a job's child unpickles the ``snakemake`` object Snakemake made for its script:
        # the module of its class once here, not in every child (0.2 s of CPU a job)
        importlib.import_module("snakemake.script")


def compile_first(selections=None) -> bool:
    """On a first run (no kernel in numba's cache), compile the sampler's serial kernels of
    the run's ``selections`` of observable groups (default: every group together and each
    alone, :func:`hyst.sampling.warm.every_selection`) into the cache, the selections shared
    out between two fresh processes (:func:`hyst.sampling.warm.compile_sampler`): nothing is
    imported into this process. Returns whether this is a first run."""
    from hyst.pipeline.console import kernels_cached
    from hyst.sampling.warm import compile_sampler

    if kernels_cached():
        return False
    processes = min(2, os.cpu_count() or 1)
    print(
        f"hyst: the job server compiles the sampler's kernels ({processes} processes) "
        "before the first jobs run",
        file=sys.stderr,
        flush=True,
    )
    compile_sampler(
        parallel=(False,),
        processes=processes,
        selections=selections,
        report=CompileProgress(),
    )
    return True


def load_kernels(selections=None) -> None:
    """Load the sampler's serial kernels of ``selections`` from numba's cache into this
    process (compiling any missing): a points job's child only runs them."""
    from hyst.sampling.warm import compile_sampler

    compile_sampler(parallel=(False,), selections=selections)


class Preload:
    """What the server loads for its children, each part when the first job that needs it
    comes, never again: a task's modules (:func:`preload_tasks`) when its first job comes,
    the sampler's kernels of the run's ``selections`` (:func:`load_kernels`) when the first
    job of a kind in :data:`PRELOADED_KINDS` comes. A run that draws no figure imports no
    plotting, one that only redraws figures loads no kernel (4.3 CPU-s for all of it).

    After each part, the objects loaded are frozen out of the garbage collector, so that a
    child's collections neither walk them nor write to their pages (copy on write): a full
    collection in a child took 0.17 s of CPU before, 0.01 s after. Nothing loaded may
    start numba's thread pool: a child forked from a process whose threads it lacks would
    hang on their locks."""

    def __init__(self, selections=None):
        self.selections = selections
        self.done: set[str] = set()  # the parts loaded: task names, and "kernels"

    def parts(self, header: dict) -> list[str]:
        """The parts a job needs (``header``: the client's), in the order they load."""
        task = header.get("task")
        wanted = [task] if task in TASKS else []
        if header.get("kind") in PRELOADED_KINDS:
            wanted.append("kernels")
        return [part for part in wanted if part not in self.done]

    def __call__(self, header: dict) -> None:
        """Load what the job of ``header`` needs and is not loaded yet."""
        missing = self.parts(header)
        for part in missing:
            if part == "kernels":
                load_kernels(self.selections)
            else:  # a task: what every task needs with the first
                preload_tasks((part,), common=not self.done - {"kernels"})
            self.done.add(part)
        if missing:
            if _threads_started():  # a fork would leave the children a pool without threads
                raise RuntimeError("numba's thread pool started in the job server while preloading")
            gc.collect()
            gc.freeze()


class CompileProgress:
    """The console's line while a first run compiles: the selections of observable groups
    whose kernels are compiled, of all, and the time so far; at most one line every
    ``every`` seconds (the progress line's pace, :data:`hyst.pipeline.progress.LOG_SECONDS`),
    and none for the last (the server's "ready" line follows)."""

    def __init__(self, every: float = 15.0, stream=None, clock=time.monotonic):
        self.every, self.stream, self.clock = every, stream, clock
        self.start = self.last = clock()

    def __call__(self, done: int, total: int) -> None:
        """``done`` of ``total`` selections compiled."""
        now = self.clock()
        if done >= total or now - self.last < self.every:
            return
        self.last = now
        from hyst.sampling.cost import duration_text

        print(
            f"hyst: compiling the sampler's kernels: {done} of {total} selections of "
            f"observable groups done, {duration_text(now - self.start)} so far",
            file=self.stream or sys.stderr,
            flush=True,
        )


def _threads_started() -> bool:
    """Whether numba's thread pool has started in this process (then it must not fork)."""
    from numba.np.ufunc import parallel

    return bool(getattr(parallel, "_is_initialized", False))


def main(argv=None) -> None:
    """``python -m hyst.pipeline.jobserver FOLDER --parent PID [--table FILE]``."""
    import argparse

    parser = argparse.ArgumentParser(description="The run's job server (see its docstring).")
    parser.add_argument("folder")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--table", default=None)
    parser.add_argument("--no-preload", action="store_true", help="import nothing first")
    parser.add_argument(
        "--selections",
        default=None,
        help="the run's selections of observable groups, as JSON: [[group, ...], ...]",
    )
    parser.add_argument(
        "--first-run", action="store_true", help="as on a first run: one first job per kind"
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    t0 = time.perf_counter()
    selections = json.loads(args.selections) if args.selections else None
    compiled = not args.no_preload and compile_first(selections)
    took = f" ({time.perf_counter() - t0:.1f} s to compile the kernels)" if compiled else ""
    print(
        f"hyst: the job server is ready{took}; the jobs run in its forked processes",
        file=sys.stderr,
        flush=True,
    )
    preload = None if args.no_preload else Preload(selections)
    first_run = compiled or args.first_run
    _Server(args.folder, args.parent, args.table, first_run, preload).serve()


class JobServer:
    """A started server: its folder (``HYST_JOB_SERVER``) and its process. ``selections``:
    the run's selections of observable groups (:func:`hyst.studies.sampler_selections`),
    whose sampler kernels the server compiles on a first run before its first job, and
    loads when the first sampling job comes (default: every group together and each alone)."""

    def __init__(
        self,
        table: str | None = None,
        preload: bool = True,
        first_run: bool = False,
        selections=None,
    ):
        import subprocess
        import tempfile

        # a short path: a Unix socket's path has at most 107 bytes
        self.folder = tempfile.mkdtemp(prefix="hyst-jobs-")
        pid_file = Path(self.folder, PID)
        pid_file.write_text("")
        command = [sys.executable, "-m", "hyst.pipeline.jobserver", self.folder]
        command += ["--parent", str(os.getpid())]
        if table:
            command += ["--table", table]
        if not preload:
            command.append("--no-preload")
        if selections is not None:  # the sampler's kernels to load (compile on a first run)
            command += ["--selections", json.dumps([list(s) for s in selections])]
        if first_run:  # as on a first run whatever numba's cache holds (tests)
            command.append("--first-run")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        pid_file.write_text(str(self.process.pid))
        os.environ[ENV] = self.folder

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (its running children are killed) and remove its folder."""
        import shutil
        import subprocess

        os.environ.pop(ENV, None)
        if self.process.poll() is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(Path(self.folder, SOCKET)))
                _send(sock, {"task": "__stop__"}, b"", fds=(1, 2))
            except OSError:
                self.process.terminate()
            finally:
                sock.close()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


if __name__ == "__main__":
    main()
