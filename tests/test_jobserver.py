"""The run's job server (hyst.pipeline.jobserver): a client's job runs in a forked child of
the server with the client's output, error, folder and environment; its exit status and
its one-line failures come back to the client; a client that goes kills its child; a server
whose parent goes stops; without a server the client runs the job itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hyst.pipeline import jobserver

TESTS = Path(__file__).resolve().parent


def _client(task, folder, env, **params):
    code = (
        "import sys, json; from jobserver_tasks import Job; "
        "from hyst.pipeline.jobserver import run_task; "
        f"run_task({task!r}, Job({str(folder)!r}, **json.loads(sys.argv[1])))"
    )
    return [sys.executable, "-c", code, json.dumps(params)], env


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    srv = jobserver.JobServer(table="table.tsv", preload=False)
    try:
        yield srv
    finally:
        srv.stop()


def _run(task, folder, env, **params):
    cmd, env = _client(task, folder, env, **params)
    return subprocess.run(cmd, env=env, cwd=folder, capture_output=True, text=True, timeout=60)


def test_a_job_runs_in_a_child_of_the_server_with_the_clients_output_folder_and_environment(
    server, tmp_path
):
    env = {**os.environ, "HYST_TEST_VALUE": "from the client"}
    assert env[jobserver.ENV] == server.folder
    proc = _run("jobserver_tasks:echo", tmp_path, env, out=str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "to stdout\n"
    assert "to stderr" in proc.stderr
    cwd, value, pid = (tmp_path / "out").read_text().splitlines()
    assert Path(cwd) == tmp_path and value == "from the client"
    assert int(pid) not in (os.getpid(), server.process.pid)  # a child of the server
    # the child's resources: in the job's log and in the run's table
    assert "ran in the run's job server" in (tmp_path / "job.log").read_text()
    rows = (tmp_path / "table.tsv").read_text().splitlines()
    assert rows[0].split("\t")[:3] == ["task", "job", "status"]
    assert rows[1].split("\t")[:3] == ["jobserver_tasks:echo", f"test case={tmp_path.name}", "0"]


def test_failures_come_back_as_the_scripts_would_give_them(server, tmp_path):
    proc = _run("jobserver_tasks:fails", tmp_path, dict(os.environ))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[0] == "hyst: this job failed, in one line"
    proc = _run("jobserver_tasks:raises", tmp_path, dict(os.environ))
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "ValueError: a bug in a task" in proc.stderr
    proc = _run("jobserver_tasks:exits", tmp_path, dict(os.environ), status=3)
    assert proc.returncode == 3


def test_a_client_that_goes_takes_its_child_with_it(server, tmp_path):
    cmd, env = _client(
        "jobserver_tasks:sleeps", tmp_path, dict(os.environ), pid=str(tmp_path / "pid")
    )
    client = subprocess.Popen(cmd, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not (tmp_path / "pid").exists() or not (tmp_path / "pid").read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int((tmp_path / "pid").read_text())
    client.send_signal(signal.SIGTERM)
    client.wait(10)
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the job's child outlived its client")
    assert server.process.poll() is None  # the server serves on


def test_without_a_server_the_client_runs_the_job_itself(tmp_path, monkeypatch):
    env = {**os.environ, "PYTHONPATH": str(TESTS), "HYST_TEST_VALUE": "here"}
    env.pop(jobserver.ENV, None)
    proc = _run("jobserver_tasks:echo", tmp_path, env, out=str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "job.log").exists()  # no server line
    # a server that has gone (its folder left behind): the same
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / jobserver.PID).write_text("999999999")
    proc = _run(
        "jobserver_tasks:echo",
        tmp_path,
        {**env, jobserver.ENV: str(stale)},
        out=str(tmp_path / "o2"),
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o2").read_text().splitlines()[1] == "here"


def test_a_server_whose_parent_goes_stops(tmp_path):
    code = (
        "import json; from hyst.pipeline.jobserver import JobServer, READY; import time, pathlib; "
        "s = JobServer(preload=False); "
        "t = time.monotonic()\n"
        "while not (pathlib.Path(s.folder) / READY).exists() and time.monotonic() - t < 30: "
        "time.sleep(0.05)\n"
        "print(json.dumps([s.folder, s.process.pid]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    folder, pid = json.loads(out.stdout)
    deadline = time.monotonic() + 30
    while Path(folder, jobserver.SOCKET).exists():
        assert time.monotonic() < deadline, "the server outlived its parent"
        time.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        for _ in range(200):
            os.kill(pid, 0)
            time.sleep(0.05)


_WARM_CHECK = """
import sys
import numpy as np
import xarray as xr
from hyst.pipeline import jobserver
jobserver.preload_tasks()
ds = xr.Dataset(
    {"p": (("N", "NJ0"), np.array([[0.1, np.nan], [0.2, 0.3]]))},
    coords={"N": [4, 8], "NJ0": [0.5, 5.0]},
)
from hyst.plotting import save
from hyst.plotting.style import new_figure, style
before = set(sys.modules)
from hyst.provenance.files import content_hash, read_dataset, write_dataset
write_dataset(ds, sys.argv[1] + "/d.nc")
back = read_dataset(sys.argv[1] + "/d.nc")
content_hash(back)
with style():
    fig, axes = new_figure(1, 1, (2.0, 1.5))
    axes[0, 0].loglog(back["NJ0"], back["p"].sel(N=8), label=r"$N = 8$")
    axes[0, 0].legend(title="N")
save(fig, sys.argv[1] + "/f", dpi=60, formats=("png",))
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_the_servers_preload_leaves_a_job_nothing_to_import_to_read_write_and_draw(tmp_path):
    """What the server loads before forking (:func:`jobserver.preload_tasks`: its dataset
    round trip, the figure task's small figure) leaves a forked job no module to import for
    reading, writing and hashing a dataset and drawing and saving a figure: otherwise each
    job imports them again (xarray's optional array libraries alone are 250 modules, 0.2 to
    0.3 s of CPU a job)."""
    proc = subprocess.run(
        [sys.executable, "-c", _WARM_CHECK, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == []
    assert (tmp_path / "f.png").stat().st_size > 0


def _wait_for(condition, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.02)


@pytest.mark.parametrize("first_run", [True, False])
def test_on_a_first_run_a_kinds_first_job_runs_before_the_rest_of_its_kind(
    tmp_path, monkeypatch, first_run
):
    """On a first run, the first job of a study kind compiles the kind's kernels: the kind's
    other jobs wait until it has ended, then run side by side; other kinds, jobs of no kind
    (a figure) and the points kind, whose kernels the server loaded itself, run at once.
    On a later run nothing waits. (Each job here runs until the test releases it.)"""
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    release = tmp_path / "release"
    srv = jobserver.JobServer(preload=False, first_run=first_run)
    clients, marks = [], {}
    try:
        env = dict(os.environ)
        jobs = [("pairs1", "pairs"), ("pairs2", "pairs"), ("pairs3", "pairs")]
        jobs += [("networks", "networks"), ("figure", None), ("points1", "points")]
        jobs += [("points2", "points")]
        for name, kind in jobs:
            folder = tmp_path / name
            folder.mkdir()
            out = folder / "job"
            marks[name] = out
            cmd, env_ = _client(
                "jobserver_tasks:waits", folder, env, kind=kind, out=str(out), release=str(release)
            )
            clients.append(subprocess.Popen(cmd, env=env_, cwd=folder))

        def started(name):
            return marks[name].with_suffix(".started").exists()

        pairs = ("pairs1", "pairs2", "pairs3")
        others = ("networks", "figure", "points1", "points2")
        _wait_for(lambda: all(map(started, others)), "the jobs of other kinds to start")
        if first_run:  # one job of the kind runs, whichever came first; the others wait
            _wait_for(lambda: any(map(started, pairs)), "a first pair job")
            time.sleep(1.0)
            assert sum(map(started, pairs)) == 1
            release.touch()
            _wait_for(lambda: all(map(started, pairs)), "the held pair jobs")
        else:  # all at once
            _wait_for(lambda: all(map(started, pairs)), "every pair job")
            release.touch()
        for client in clients:
            assert client.wait(60) == 0
    finally:
        release.touch()
        srv.stop()


def test_a_held_job_whose_client_goes_never_runs(tmp_path, monkeypatch):
    """A job held behind its kind's first job (a first run) whose client goes (Snakemake
    cancelled it) is dropped: it never runs; the kind's other held jobs still do."""
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    release = tmp_path / "release"
    srv = jobserver.JobServer(preload=False, first_run=True)
    try:
        env = dict(os.environ)
        clients = {}
        for name in ("first", "cancelled", "kept"):
            folder = tmp_path / name
            folder.mkdir()
            cmd, env_ = _client(
                "jobserver_tasks:waits",
                folder,
                env,
                kind="pairs",
                out=str(folder / "job"),
                release=str(release),
            )
            clients[name] = subprocess.Popen(cmd, env=env_, cwd=folder)
            if name == "first":  # the kind's first job, before the others come
                _wait_for((folder / "job.started").exists, "the first job")
        time.sleep(1.0)  # both others held by now
        clients["cancelled"].send_signal(signal.SIGTERM)
        clients["cancelled"].wait(10)
        time.sleep(0.5)
        release.touch()
        assert clients["first"].wait(60) == 0 and clients["kept"].wait(60) == 0
        time.sleep(0.5)
        assert not (tmp_path / "cancelled" / "job.started").exists()
        assert (tmp_path / "kept" / "job.ended").exists()
        assert srv.process.poll() is None  # the server serves on
    finally:
        release.touch()
        srv.stop()


def test_a_jobs_datasets_are_loaded_by_the_server_and_loaded_again_when_they_change(
    server, tmp_path
):
    """The NetCDF inputs of a job are loaded by the server before it forks the job, so the
    job reads them from memory; a file written again meanwhile is loaded again, and the job
    reads what the file holds now."""
    import numpy as np
    import xarray as xr

    from hyst.provenance.files import write_dataset

    def dataset(values):
        return xr.Dataset({"x": ("k", np.asarray(values, float))})

    write_dataset(dataset([1, 2, 3]), tmp_path / "a.nc")
    out = tmp_path / "out.json"
    args = dict(out=str(out), input=["a.nc"])
    proc = _run("jobserver_tasks:reads_datasets", tmp_path, os.environ, **args)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text()) == {"a.nc": [True, 6.0]}
    write_dataset(dataset([10, 20]), tmp_path / "a.nc")
    proc = _run("jobserver_tasks:reads_datasets", tmp_path, os.environ, **args)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text()) == {"a.nc": [True, 30.0]}


def test_the_server_compiles_the_kernels_of_the_selections_it_is_given(monkeypatch):
    """The run's selections of observable groups reach the server, which compiles their
    kernels on a first run before the first job (without them, every group's), and loads
    them when the first sampling job comes."""
    import subprocess as sp

    commands, compiled, served = [], [], []

    class NoProcess:
        pid = 0

        def __init__(self, command, **_kw):
            commands.append(command)

    def serve(server):
        served.append(server.preload.selections)
        raise SystemExit(0)  # the server's loop is not the point here

    monkeypatch.setattr(sp, "Popen", NoProcess)
    monkeypatch.setattr(jobserver, "compile_first", lambda s: compiled.append(s) or False)
    monkeypatch.setattr(jobserver._Server, "serve", serve)
    monkeypatch.setattr(jobserver.signal, "signal", lambda *_: None)  # this process's own
    selections = [("transitions", "zero_field"), ("avalanche", "cyclic")]
    for given in (selections, None):
        srv = jobserver.JobServer(selections=given)
        monkeypatch.delenv(jobserver.ENV)
        with pytest.raises(SystemExit):
            jobserver.main(commands[-1][3:])
        Path(srv.folder, jobserver.PID).unlink()
        os.rmdir(srv.folder)
    assert compiled == served == [[list(s) for s in selections], None]


def test_the_server_loads_what_a_job_needs_when_the_first_job_that_needs_it_comes(monkeypatch):
    """A task's modules load when its first job comes, the sampler's kernels when the first
    sampling job comes, each once: a run that draws no figure imports no plotting, one that
    only redraws figures loads no kernel. After each load the server's objects are frozen
    out of the garbage collector (the children's collections skip them)."""
    loaded, frozen = [], []
    monkeypatch.setattr(
        jobserver, "preload_tasks", lambda tasks, common: loaded.append((*tasks, common))
    )
    monkeypatch.setattr(jobserver, "load_kernels", lambda s: loaded.append(("kernels", s)))
    monkeypatch.setattr(jobserver.gc, "freeze", lambda: frozen.append(len(loaded)))
    # this process's own thread pool, which earlier tests may have started, is not the point
    monkeypatch.setattr(jobserver, "_threads_started", lambda: False)
    selections = [["transitions"]]
    preload = jobserver.Preload(selections)
    jobs = [
        {"task": "figure", "kind": None},
        {"task": "figure", "kind": None},
        {"task": "job", "kind": "pairs"},
        {"task": "job", "kind": "points"},
        {"task": "job", "kind": "points"},
        {"task": "jobserver_tasks:waits", "kind": None},  # a function of no task: nothing
        {"task": "caption", "kind": None},
    ]
    for header in jobs:
        preload(header)
    # what every task needs (a dataset's round trip) with the first task's modules only
    assert loaded == [("figure", True), ("job", False), ("kernels", selections), ("caption", False)]
    assert frozen == [1, 2, 3, 4]
    assert preload.parts({"task": "job", "kind": "points"}) == []
    assert preload.parts({"task": "analyse"}) == ["analyse"]
    # what a part loaded started numba's thread pool: the server forks no child after it
    monkeypatch.setattr(jobserver, "_threads_started", lambda: True)
    with pytest.raises(RuntimeError, match="thread pool started"):
        preload({"task": "analyse", "kind": None})


def test_a_first_runs_compile_prints_a_line_at_the_progress_lines_pace():
    """While a first run compiles, the server prints the selections done, of all, and the
    time so far: at most a line every 15 s, none for the last selection (the "ready" line
    follows)."""
    import io

    now = [100.0]
    stream = io.StringIO()
    progress = jobserver.CompileProgress(stream=stream, clock=lambda: now[0])
    for done, at in enumerate([104.0, 116.0, 117.0, 140.0, 150.0, 190.0], 1):
        now[0] = at
        progress(done, 6)
    assert stream.getvalue().splitlines() == [
        "hyst: compiling the sampler's kernels: 2 of 6 selections of observable groups done, "
        "16 s so far",
        "hyst: compiling the sampler's kernels: 4 of 6 selections of observable groups done, "
        "40 s so far",
    ]


@pytest.mark.parametrize("processes", [1, 2])
def test_compile_sampler_reports_each_task_as_it_ends(processes):
    from hyst.sampling.warm import compile_sampler

    calls = []
    compile_sampler(
        (False,),
        processes=processes,
        selections=[("float64",), ("transitions",)],
        report=lambda *done_of_all: calls.append(done_of_all),
    )
    assert calls == [(1, 2), (2, 2)]
