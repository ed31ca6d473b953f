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
from collections import Counter
from pathlib import Path

import pytest
import xarray as xr
import yaml
from dask_processes import dask_processes
from workflow_runs import COPY_IGNORED, REPO, slurm_available, snakemake, snakemake_cmd

from hyst.pipeline.config import validate
from hyst.plotting import FIGURE_TYPES
from hyst.provenance.files import read_dataset
from hyst.sampling.sampler import sample_point
from hyst.sampling.tallies import tally_to_dataset
from hyst.studies.point_jobs import read_point_dataset, write_point
from hyst.studies.points import study_specs

BASE = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
STUDIES = sorted(BASE["studies"])


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
    assert ds["tiny_random"].sizes["N"] == 2 and ds["tiny_random"].sizes["NJ0"] == 2
    assert ds["tiny_large_n"].sizes["J0"] == 2
    assert ds["tiny_large_n"].attrs["sweep"] == "J0" and ds["tiny_random"].attrs["sweep"] == "NJ0"
    for name, study in config["studies"].items():
        for labels, spec in study_specs(study, config["seed"]):
            tally = sample_point(
                spec.point, spec.samples, spec.seed, spec.groups, records=dict(spec.records)
            )
            direct = tally_to_dataset(tally, spec.groups, spec.attrs())
            xr.testing.assert_identical(read_point_dataset(work / spec.path("results")), direct)
            sel = ds[name].sel({k: v for k, v in labels.items()})
            assert int(sel["samples"]) == spec.samples
    log = next((work / "results" / "logs" / "points").glob("*.log")).read_text()
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
    # where the work runs and what it may use determine no result: editing `resources:`
    # and `dask:` reruns and rebuilds nothing
    moved = copy.deepcopy(BASE)
    moved["resources"] = {"threads": 1, "mem_mb": 3000, "runtime": 30}
    moved["dask"] = {"address": "tcp://127.0.0.1:8786"}
    out = snakemake(work, moved, "-n").stdout
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
    # identical but for the attribute that records the study's (changed) configuration
    grown = new["tiny_random"].drop_dims("l4_loop").copy()
    before = ds["tiny_random"].drop_dims("l4_loop").copy()  # the attrs are popped below
    assert json.loads(grown.attrs.pop("study_config"))["NJ0"] == [0.3, 3.0, 30.0]
    assert json.loads(before.attrs.pop("study_config"))["NJ0"] == [0.3, 30.0]
    xr.testing.assert_identical(grown.sel(NJ0=[0.3, 30.0]), before)
    xr.testing.assert_identical(new["tiny_large_n"], ds["tiny_large_n"])
    # more samples for one study: only its points are recomputed
    cfg["studies"]["tiny_large_n"]["samples"] = 300
    dry = snakemake(inc, cfg, "-n").stdout
    assert "tiny_large_n" in dry and "tiny_random.nc" not in dry.split("Job stats")[0]


def test_a_run_writes_a_manifest_that_verify_checks(local_run, tmp_path, capsys):
    """The run's manifest lists every result file; `hyst verify` finds them all as the run
    left them, then names a file changed since, a file missing and a file whose recorded
    code is not the current code, one line each, with exit status 1."""
    from hyst.cli.main import main
    from hyst.pipeline.manifest import read_manifest

    work, _, _ = local_run
    results = tmp_path / "results"
    shutil.copytree(work / "results", results)
    manifest = read_manifest(results)
    assert sorted(manifest["files"]) == sorted(
        [f"datasets/{s}.nc" for s in STUDIES]
        + [f"figures/{f}.{e}" for f in BASE["figures"] for e in ("png", "pdf", "caption.rst")]
    )
    assert "resources" not in manifest["configuration"]  # where it ran is no part of it
    assert main(["verify", str(results)]) == 0
    assert "5 files match" in capsys.readouterr().out
    (results / "figures" / "tiny_fig2.caption.rst").write_text("edited by hand\n")
    (results / "datasets" / "tiny_large_n.nc").unlink()
    recorded = json.loads((results / "manifest.json").read_text())
    recorded["files"]["datasets/tiny_random.nc"]["code"]["collect/points"] = "0" * 16
    (results / "manifest.json").write_text(json.dumps(recorded))
    assert main(["verify", str(results)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3, out
    assert out[0] == f"{results}/datasets/tiny_large_n.nc: missing (the manifest lists it)"
    assert out[1].startswith(f"{results}/datasets/tiny_random.nc: made by code that has changed")
    assert out[2].startswith(f"{results}/figures/tiny_fig2.caption.rst: changed since the run")


def test_status_counts_result_files_and_names_what_a_rerun_would_make(
    local_run, tmp_path, monkeypatch, capsys
):
    """`hyst status` of a finished run: every point done, every file up to date. With one
    point file deleted, one whose provenance no longer matches and a figure deleted: one
    missing, one stale, and the files Snakemake would make named with why."""
    from hyst.cli.main import main

    work, _, _ = local_run
    copy_ = tmp_path / "copy"
    shutil.copytree(work, copy_)  # results and Snakemake's metadata
    monkeypatch.chdir(copy_)
    assert main(["status", "config.yaml", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["studies"]["tiny_random"]["result_files"] == {"done": 4}
    assert status["to_make"] == [] and set(status["files"]) >= {"datasets", "figures"}
    points = sorted((copy_ / "results" / "points").rglob("*.nc"))
    points[0].unlink()
    ds = read_point_dataset(points[1])
    ds.attrs["code_fingerprint"] = "0" * 16  # made by other code
    write_point(ds, points[1])
    (copy_ / "results" / "figures" / "tiny_fig2.png").unlink()
    assert main(["status", "config.yaml", "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    total = Counter()
    for study in after["studies"].values():
        total.update(study["result_files"])
    done = sum(s["result_files"]["done"] for s in status["studies"].values())
    assert total == {"done": done - 2, "stale": 1, "missing": 1}, after
    assert {"file": "results/figures/tiny_fig2.png", "why": "missing"} in after["to_make"]
    assert main(["status", "config.yaml"]) == 0
    out = capsys.readouterr().out
    assert "1 stale" in out and "1 missing" in out, out
    assert "results/figures/tiny_fig2.png: missing" in out, out
    assert out.rstrip().endswith("to finish: run the same command again"), out


def test_export_writes_a_workflow_run_ro_crate_that_reads_back(local_run, tmp_path, capsys):
    from rocrate.rocrate import ROCrate

    from hyst.cli.main import main
    from hyst.pipeline.manifest import read_manifest

    work, _, _ = local_run
    assert main(["export", str(work / "results"), "--ro-crate", str(tmp_path / "crate")]) == 0
    assert "RO-Crate of 5 result files" in capsys.readouterr().out
    crate = ROCrate(tmp_path / "crate")
    profiles = {e["@id"] for e in crate.root_dataset["conformsTo"]}
    assert "https://w3id.org/ro/wfrun/workflow/0.5" in profiles
    assert crate.mainEntity.id == "Snakefile" and (tmp_path / "crate" / "workflow").is_dir()
    (action,) = crate.get_by_type("CreateAction")
    assert action["instrument"].id == "Snakefile"
    assert [o.id for o in action["object"]] == ["configuration.yaml"]
    files = read_manifest(work / "results")["files"]
    results = {e.id: e for e in action["result"]}
    assert set(files) <= set(results) and "manifest.json" in results
    for path, entry in files.items():
        assert results[path]["sha256"] == entry["sha256"]
        assert (tmp_path / "crate" / path).read_bytes() == (work / "results" / path).read_bytes()
    versions = {s["name"]: s["version"] for s in crate.mainEntity["softwareRequirements"]}
    assert {"python", "numpy", "numba", "xarray", "snakemake"} <= set(versions)
    assert yaml.safe_load((tmp_path / "crate" / "configuration.yaml").read_text())["studies"]
    # an existing crate is never overwritten: one line, exit 2
    assert main(["export", str(work / "results"), "--ro-crate", str(tmp_path / "crate")]) == 2
    assert "is not an empty folder" in capsys.readouterr().err


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
    batches = work / "results" / "jobs" / "points"
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
    from distributed import Client

    _, ds, _ = local_run
    with dask_processes(tmp_path / "cluster", 2) as (sched_file, _pids, _procs):
        cfg = copy.deepcopy(BASE)
        cfg["dask"] = {"scheduler_file": str(sched_file)}
        snakemake(tmp_path / "dask", cfg)
        with Client(scheduler_file=str(sched_file), timeout="60s") as client:
            assert len(client.scheduler_info()["workers"]) == 2
    assert_same_datasets(datasets(tmp_path / "dask"), ds)


@pytest.mark.slurm
def test_slurm_profile_runs_every_job_through_sbatch(local_run, tmp_path):
    if os.environ.get("HYST_NO_SLURM") == "1":
        pytest.skip("HYST_NO_SLURM=1: no local SLURM on this machine (scripts/start-slurm)")
    assert slurm_available(), "SLURM is not running: start it with `bash scripts/start-slurm`"
    _, ds, _ = local_run
    work = tmp_path / "slurm"
    snakemake(work, BASE, profile="slurm", timeout=1200)
    assert_same_datasets(datasets(work), ds)
    logs = list((work / "results" / "logs" / "points").glob("*.log"))
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


def test_presets_bind_every_figure_type_and_use_the_papers_sample_counts():
    presets = {
        name: validate(yaml.safe_load((REPO / "config" / name).read_text()))
        for name in ("config.yaml", "medium.yaml", "quick.yaml")
    }
    for config in presets.values():
        bound = {binding["type"] for binding in config["figures"].values()}
        assert bound == set(FIGURE_TYPES)  # every paper figure is rendered
    # the quick preset is the paper preset at reduced sizes: same studies, same figures
    for name in ("medium.yaml", "quick.yaml"):
        assert presets[name]["studies"].keys() == presets["config.yaml"]["studies"].keys()
        assert presets[name]["figures"] == presets["config.yaml"]["figures"]
    paper = presets["config.yaml"]
    # the paper's Monte Carlo: 10^5 systems per point, N <= 10, on N J0 = 10^-1 ... 10^2 at 4
    # points a decade; a study of hyst's own on another grid (where the paper's sizes leave a
    # fit undetermined) samples at least as many
    paper_grid = {"start": 0.1, "stop": 100, "per_decade": 4}
    for name, study in paper["studies"].items():
        if study.get("kind", "points") == "points" and max(study["N"]) <= 10:
            if study.get("NJ0") == paper_grid:
                assert study["samples"] == 100_000, name
            else:
                assert study["samples"] >= 100_000, name
    assert sum(s.get("NJ0") == paper_grid for s in paper["studies"].values()) >= 8


def test_renaming_a_bound_study_fails_at_validation_with_one_line(tmp_path):
    cfg = yaml.safe_load((REPO / "config" / "quick.yaml").read_text())
    cfg["studies"]["renamed_spins"] = cfg["studies"].pop("spins")
    proc = snakemake(tmp_path, cfg, "-n", check=False)
    assert proc.returncode != 0
    line = "figures.figS_spins.studies[0]: 'spins' is not a study of this configuration"
    assert line in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    said = [ln for ln in proc.stderr.splitlines() if ln.startswith("hyst:")]
    assert len(said) == 1, proc.stderr
    assert said[0].startswith(f"hyst: invalid configuration: {line}"), proc.stderr
    assert not (tmp_path / "results").exists()


def _planned(dry: str) -> str:
    return dry.split("Job stats:")[1].split("Reasons")[0] if "Job stats:" in dry else ""


def test_code_fingerprint_reruns_what_the_edited_code_produced(local_run, tmp_path):
    """In a copy of the repository: editing a kernel's code plans its sampling jobs again
    (their point files record the old fingerprint); editing plotting plans only figures;
    editing comments or docstrings plans nothing."""
    work, _, _ = local_run
    repo = tmp_path / "repo"
    shutil.copytree(
        REPO,
        repo,
        ignore=shutil.ignore_patterns(*COPY_IGNORED),
    )
    runs = tmp_path / "runs"
    shutil.copytree(work, runs)
    env = {**os.environ, "PYTHONPATH": str(repo)}

    def dry():
        cmd = snakemake_cmd(runs, BASE, "-n")
        cmd[cmd.index("-s") + 1] = str(repo / "Snakefile")
        # run from the run folder: the working directory would come first on sys.path
        kw = dict(capture_output=True, text=True, env=env, timeout=600, cwd=runs)
        proc = subprocess.run(cmd, **kw)
        assert proc.returncode == 0, proc.stderr
        return _planned(proc.stdout)

    assert dry() == ""  # an identical copy: nothing to do
    kernel = repo / "hyst" / "kernels" / "drive.py"
    text = kernel.read_text().replace("Drive protocols", "The drive protocols", 1)
    kernel.write_text(text + "\n# a comment\n")  # a docstring and a comment edited
    assert dry() == ""  # comments, docstrings and layout are not code
    plotting = repo / "hyst" / "plotting" / "style.py"
    plotting.write_text(plotting.read_text() + "\nEDITED_PLOTTING = True\n")
    planned = dry()
    assert re.search(r"figure\s+1\b", planned), planned
    assert "collect" not in planned
    assert not re.search(r"^job(?:_long)?\s+\d+\s*$", planned, flags=re.M), planned  # no sampling
    kernel.write_text(kernel.read_text() + "\nEDITED_KERNEL = True\n")
    planned = dry()
    # every sampling job of the config (rules job and job_long, the long jobs first)
    sampling = re.findall(r"^job(?:_long)?\s+(\d+)\s*$", planned, flags=re.M)
    assert sum(map(int, sampling)) == 3, planned
    assert "collect" in planned
