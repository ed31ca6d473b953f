"""The Snakemake pipeline for real: locally, on an existing Dask cluster and under
SLURM, with datasets identical to each other and to calling the kernels
directly; incremental recompute, a killed run restarting cleanly, bad configs."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import xarray as xr
import yaml

from hyst.config import validate
from hyst.io import read_dataset, tally_to_dataset
from hyst.observables import sample_point
from hyst.pipeline import plan

REPO = Path(__file__).resolve().parents[1]
BASE = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
STUDIES = sorted(BASE["studies"])


def snakemake_cmd(workdir: Path, config: dict, *extra, profile="default") -> list:
    """The command running the repository's Snakefile in ``workdir`` with ``config``."""
    workdir.mkdir(parents=True, exist_ok=True)
    cfg = workdir / "config.yaml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False))
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(cfg),
        "--profile",
        str(REPO / "profiles" / profile),
        *extra,
    ]


def snakemake(workdir: Path, config: dict, *extra, profile="default", check=True, timeout=900):
    """Run the repository's Snakefile in ``workdir`` with ``config`` written there."""
    cmd = snakemake_cmd(workdir, config, *extra, profile=profile)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def datasets(workdir: Path) -> dict:
    return {s: read_dataset(workdir / "results" / "datasets" / f"{s}.nc") for s in STUDIES}


def assert_same_datasets(a: dict, b: dict):
    for s in STUDIES:
        xr.testing.assert_identical(a[s], b[s])


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("local")
    t0 = time.perf_counter()
    snakemake(work, BASE)
    return work, datasets(work), time.perf_counter() - t0


def test_local_run_matches_direct_kernel_calls(local_run):
    work, ds, _ = local_run
    config = validate(BASE)
    batches, studies = plan(config)
    assert ds["tiny_random"].sizes["N"] == 2 and ds["tiny_random"].sizes["NJ0"] == 2
    assert ds["tiny_large_n"].sizes["J0"] == 2
    for name, specs in studies.items():
        for labels, spec in specs:
            direct = tally_to_dataset(
                spec.point,
                spec.samples,
                spec.seed,
                spec.groups,
                sample_point(spec.point, spec.samples, spec.seed, spec.groups),
            )
            xr.testing.assert_identical(read_dataset(work / spec.path("results")), direct)
            sel = ds[name].sel({k: v for k, v in labels.items()})
            assert int(sel["samples"]) == spec.samples
    log = next((work / "results" / "logs" / "sample").glob("*.log")).read_text()
    assert "chunk 1/" in log and "samples/s" in log


def test_nothing_reruns_and_key_order_does_not_matter(local_run):
    work, _, _ = local_run
    out = snakemake(work, BASE, "-n").stdout
    assert "Nothing to be done" in out, out
    reordered = {k: BASE[k] for k in reversed(list(BASE))}
    reordered["studies"] = {
        s: {k: v for k, v in reversed(list(BASE["studies"][s].items()))} for s in STUDIES
    }
    out = snakemake(work, reordered, "-n").stdout
    assert "Nothing to be done" in out, out


def test_adding_points_or_samples_reruns_only_what_changed(local_run, tmp_path):
    work, ds, _ = local_run
    inc = tmp_path / "inc"
    shutil.copytree(work, inc)  # results and Snakemake's metadata
    points = {p: p.stat().st_mtime_ns for p in (inc / "results" / "points").rglob("*.nc")}
    cfg = copy.deepcopy(BASE)
    cfg["studies"]["tiny_random"]["NJ0"] = [0.3, 3.0, 30.0]
    dry = snakemake(inc, cfg, "-n").stdout
    assert "collect" in dry and "tiny_large_n" not in dry.split("Job stats")[0].replace(
        "tiny_large_n.nc,", ""
    )
    snakemake(inc, cfg)
    after = {p: p.stat().st_mtime_ns for p in (inc / "results" / "points").rglob("*.nc")}
    assert all(after[p] == t for p, t in points.items())  # nothing existing was recomputed
    assert len(after) == len(points) + 2  # NJ0 = 3 for N = 3 and N = 4
    new = datasets(inc)
    assert new["tiny_random"].sizes["NJ0"] == 3
    xr.testing.assert_identical(
        new["tiny_random"].drop_dims("l4_loop").sel(NJ0=[0.3, 30.0]),
        ds["tiny_random"].drop_dims("l4_loop"),
    )
    xr.testing.assert_identical(new["tiny_large_n"], ds["tiny_large_n"])
    # more samples for one study: only its points are recomputed
    cfg["studies"]["tiny_large_n"]["samples"] = 300
    dry = snakemake(inc, cfg, "-n").stdout
    assert "tiny_large_n" in dry and "tiny_random.nc" not in dry.split("Job stats")[0]


def test_bad_config_rejected_before_any_job(tmp_path):
    cfg = copy.deepcopy(BASE)
    cfg["studies"]["tiny_random"]["N"] = [1, 3]
    proc = snakemake(tmp_path, cfg, check=False)
    assert proc.returncode != 0
    assert "studies.tiny_random.N[0]: 1 is less than the minimum of 2" in proc.stderr
    assert not (tmp_path / "results").exists()


def test_killed_run_restarts_to_identical_datasets(local_run, tmp_path):
    _, ds, _ = local_run
    work = tmp_path / "killed"
    cmd = snakemake_cmd(work, BASE)
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    batches = work / "results" / "batches"
    deadline = time.time() + 300
    while time.time() < deadline and not (batches.exists() and any(batches.glob("*.json"))):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # kill snakemake and its jobs mid-run
    proc.wait()
    assert not (work / "results" / "datasets").exists()
    # a damaged point file is detected by its batch and recomputed, never read
    manifest = next(batches.glob("*.json"))
    damaged = Path(work / json.loads(manifest.read_text())["files"][0])
    damaged.write_bytes(b"garbage")
    manifest.unlink()
    snakemake(work, BASE, "--unlock")  # Snakemake's lock survives a SIGKILL
    snakemake(work, BASE)
    assert_same_datasets(datasets(work), ds)


def test_existing_dask_cluster_via_scheduler_file(local_run, tmp_path):
    _, ds, _ = local_run
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    bin_dir = Path(sys.executable).parent
    procs = [
        subprocess.Popen(
            [
                str(bin_dir / "dask"),
                "scheduler",
                "--scheduler-file",
                str(sched_file),
                "--port",
                "0",
                "--no-dashboard",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    ]
    try:
        deadline = time.time() + 60
        while not sched_file.exists() and time.time() < deadline:
            time.sleep(0.2)
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(bin_dir / "dask"),
                        "worker",
                        "--scheduler-file",
                        str(sched_file),
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
            )
        from distributed import Client

        with Client(scheduler_file=str(sched_file), timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        cfg = copy.deepcopy(BASE)
        cfg["dask"] = {"scheduler_file": str(sched_file)}
        snakemake(tmp_path / "dask", cfg)
        with Client(scheduler_file=str(sched_file), timeout="60s") as client:
            assert len(client.scheduler_info()["workers"]) == 2
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
    assert_same_datasets(datasets(tmp_path / "dask"), ds)


def _slurm_available() -> bool:
    try:
        return subprocess.run(
            ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20
        ).stdout.strip() in ("idle", "mixed", "allocated")
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False


def test_slurm_profile_runs_every_job_through_sbatch(local_run, tmp_path):
    if os.environ.get("HYST_NO_SLURM") == "1":
        pytest.skip("HYST_NO_SLURM=1: no local SLURM on this machine (scripts/start-slurm)")
    assert _slurm_available(), "SLURM is not running: start it with `bash scripts/start-slurm`"
    _, ds, _ = local_run
    work = tmp_path / "slurm"
    snakemake(work, BASE, profile="slurm", timeout=1200)
    assert_same_datasets(datasets(work), ds)
    logs = list((work / "results" / "logs" / "sample").glob("*.log"))
    assert logs and all(re.search(r"SLURM_JOB_ID=\d+", f.read_text()) for f in logs)


def test_snakemake_lint_is_clean():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(REPO / "Snakefile"),
            "--lint",
            "--configfile",
            str(REPO / "config" / "quick.yaml"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations" in proc.stdout + proc.stderr


def test_presets_plan_the_paper_studies():
    for name in ("config.yaml", "quick.yaml"):
        config = validate(yaml.safe_load((REPO / "config" / name).read_text()))
        assert {
            "random_hysterons",
            "spins",
            "equal_spans",
            "weak_asymmetry",
            "rules",
            "well_behaved_rule2",
        } <= set(config["studies"])
    batches, studies = plan(validate(yaml.safe_load((REPO / "config" / "config.yaml").read_text())))
    small = [spec for specs in studies.values() for _l, spec in specs if spec.point.N <= 10]
    assert small and all(spec.samples == 100_000 for spec in small)  # the paper's counts
    large = [spec for s in ("large_n", "large_n_1024") for _l, spec in studies[s]]
    assert all(spec.samples == 5000 for spec in large)
    assert len(batches) == 20


def shrunk_quick_config() -> dict:
    """The quick preset with every study kept but tiny (seconds per job)."""
    cfg = yaml.safe_load((REPO / "config" / "quick.yaml").read_text())
    for name, study in cfg["studies"].items():
        if max(study["N"]) <= 18:
            study["N"] = sorted(study["N"])[:2]
            study["samples"] = 300
            if isinstance(study.get("NJ0"), dict):
                study["NJ0"] = [0.1, 1.0, 10.0, 100.0]
        else:
            study["N"] = sorted(study["N"])[:2]
            study["samples"] = 20
            if isinstance(study.get("J0"), dict):
                study["J0"] = [0.01, 1.0, 100.0]
        if name == "large_l4":
            study["N"] = [64]
    cfg["pairs"]["samples"] = 300
    return cfg


def test_every_figure_rule_renders_and_the_report_has_captions(tmp_path):
    from hyst.plotting import FIGURES

    work = tmp_path / "figs"
    snakemake(work, shrunk_quick_config())
    figures = work / "results" / "figures"
    for name in FIGURES:
        for ext in ("png", "pdf"):
            assert (figures / f"{name}.{ext}").stat().st_size > 1000, name
    caption = (figures / "fig2_random_hysterons.caption.rst").read_text()
    assert "300 samples per point" in caption and "Small-coupling exponents" in caption
    assert "P_sl" in caption
    report = work / "report.html"
    snakemake(work, shrunk_quick_config(), "--report", str(report))
    text = report.read_text(errors="ignore")
    assert report.stat().st_size > 100_000 and "fig2_random_hysterons" in text
    # editing only a plotting parameter re-renders only figures
    cfg = shrunk_quick_config()
    cfg["figures"] = {"fig2_random_hysterons": {"inset_at": 10.0}}
    dry = snakemake(work, cfg, "-n").stdout
    jobs = dry.split("Job stats:")[1].split("Reasons")[0]
    assert "figure" in jobs and "sample" not in jobs and "collect" not in jobs
