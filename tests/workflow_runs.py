"""Running the repository's Snakefile in tests: real runs, dry runs and the jobs they plan,
and dry runs in a copy of the repository whose code a test edits."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
#: What a copy of the repository's code leaves out: the environment, results, caches, the
#: built documentation, and files other processes (the docs build, other test workers) may
#: be writing while it copies.
COPY_IGNORED = (
    ".venv",
    ".git",
    "results",
    ".snakemake",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    "_build",
    "jupyter_execute",
)


#: What the tests add to the SLURM profile: the test cluster (scripts/start-slurm) answers at
#: once, so the first status check of a job comes after 1 s, not the profile's 10 s (the
#: executor then waits 10 s longer after each check at which no job has finished). A test
#: waits for each job about half as long, with a core idle.
SLURM_TEST_OPTIONS = ("--slurm-init-seconds-before-status-checks", "1")


def snakemake_cmd(workdir: Path, config: dict, *extra, profile="default", repo=REPO) -> list:
    """The command running ``repo``'s Snakefile in ``workdir`` with ``config``."""
    workdir.mkdir(parents=True, exist_ok=True)
    cfg = workdir / "config.yaml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False))
    if profile == "slurm":
        extra = (*SLURM_TEST_OPTIONS, *extra)
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(repo / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(cfg),
        "--profile",
        str(repo / "profiles" / profile),
        *extra,
    ]


def snakemake(workdir: Path, config: dict, *extra, profile="default", check=True, timeout=900):
    """Run the repository's Snakefile in ``workdir`` with ``config`` written there."""
    cmd = snakemake_cmd(workdir, config, *extra, profile=profile)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def slurm_available() -> bool:
    """Whether a SLURM node is up (``bash scripts/start-slurm`` starts one on this machine)."""
    try:
        return subprocess.run(
            ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20
        ).stdout.strip() in ("idle", "mixed", "allocated")
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False


def planned_jobs(dry_run_output: str) -> list[tuple[str, str]]:
    """(rule, first output below the results folder) of every job a dry run planned
    (``localrule all`` left out), sorted."""
    jobs = re.findall(
        r"^rule (\w+):\n(?:\s+\w+: .*\n)*?\s+output: ([^,\n]+)", dry_run_output, flags=re.M
    )
    return sorted((rule, str(Path(out).relative_to("results"))) for rule, out in jobs)


def rule_counts(jobs) -> dict[str, int]:
    """Planned jobs per rule, the jobs of study kinds (rules ``job`` and ``job_long``) per
    kind: {"points jobs": 3, "collect": 2, ...}."""
    return dict(
        Counter(
            f"{out.split('/')[1]} jobs" if rule in ("job", "job_long") else rule
            for rule, out in jobs
        )
    )


class RepositoryCopy:
    """A copy of a finished run's folder and, with ``code``, of the repository (code only),
    for runs and dry runs after editing the copy's code or the configuration. Snakemake
    runs with the repository's package first on the path, from the run folder (the working
    directory would come first on ``sys.path``)."""

    def __init__(self, tmp_path: Path, run: Path, code: bool = True):
        self.repo = tmp_path / "repo" if code else REPO
        if code:
            shutil.copytree(
                REPO,
                self.repo,
                ignore=shutil.ignore_patterns(*COPY_IGNORED),
            )
        self.runs = tmp_path / "runs"
        shutil.copytree(run, self.runs)
        self.env = {**os.environ, "PYTHONPATH": str(self.repo)}

    def edit(self, path: str, old: str | None = None, new: str = "", append: str = "") -> None:
        """Replace ``old`` by ``new`` once (``old`` must occur) and append ``append``."""
        assert self.repo != REPO, "edit a copy of the repository, never the repository"
        file = self.repo / path
        text = file.read_text()
        if old is not None:
            assert old in text, f"{path}: {old!r} not found"
            text = text.replace(old, new, 1)
        file.write_text(text + append)

    def run(self, config: dict, *extra, check=True, env=None) -> subprocess.CompletedProcess:
        """Run Snakemake (``env``: more environment variables)."""
        cmd = snakemake_cmd(self.runs, config, *extra, repo=self.repo)
        env = {**self.env, **(env or {})}
        kw = dict(capture_output=True, text=True, env=env, timeout=900, cwd=self.runs)
        proc = subprocess.run(cmd, **kw)
        if check and proc.returncode != 0:
            raise AssertionError(f"snakemake failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def dry_run(self, config: dict) -> list[tuple[str, str]]:
        """The jobs a dry run plans (see :func:`planned_jobs`)."""
        return planned_jobs(self.run(config, "-n").stdout)


def mtimes(folder: Path) -> dict[str, int]:
    """{path below ``folder``: modification time (ns)} of every file below it."""
    return {
        str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()
    }
