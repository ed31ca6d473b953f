"""`hyst config check`, `hyst profile install` and `hyst cluster local`."""

import subprocess
import sys
import time

import pytest

from hyst.cli.main import main


def test_config_check_reports_and_rejects(tmp_path, capsys):
    assert main(["config", "check", "config/quick.yaml"]) == 0
    out = capsys.readouterr().out
    assert "valid; 27 studies" in out and "37 figures; 8 comparison sections" in out
    assert "study n2_pairs (pairs): 3 jobs" in out and "study loops (loops): 3 jobs" in out
    assert "8 networks" in out  # one job for the 13 distinct (d1, d2) panels, 7 N of chains
    assert "comparison ill_defined_table (ill_defined_table): ensembles_by_rule" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "studies:\n  s:\n    couplings: [nope]\n    N: [2]\n    NJ0: [1]\n    samples: 10\n"
    )
    assert main(["config", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "hyst config: error: studies.s.couplings[0]: 'nope' is not one of random, weak, "
        "symmetric, ferro, columns, rows"
    )


def test_profile_install(tmp_path, capsys):
    dest = tmp_path / "snakemake" / "slurm"
    assert main(["profile", "install", "slurm", "--dest", str(dest)]) == 0
    text = (dest / "config.yaml").read_text()
    assert "executor: slurm" in text and "slurm-status-command" in text
    assert main(["profile", "install", "slurm", "--dest", str(dest)]) == 2  # no overwrite
    assert main(["profile", "install", "slurm", "--dest", str(dest), "--force"]) == 0


def test_cluster_local_writes_a_usable_scheduler_file(tmp_path):
    from distributed import Client

    sched = tmp_path / "scheduler.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hyst",
            "cluster",
            "local",
            "--workers",
            "2",
            "--scheduler-file",
            str(sched),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while not sched.exists() and time.time() < deadline:
            time.sleep(0.2)
        with Client(scheduler_file=str(sched), timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
            assert client.submit(sum, [1, 2, 3]).result() == 6
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_config_check_counts_jobs_consistently_and_estimates_the_cost(capsys):
    import re

    assert main(["config", "check", "config/quick.yaml"]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0]
    total = int(re.search(r"(\d+) points jobs", head).group(1))
    own = shared = 0
    for line in out.splitlines():
        m = re.match(r"  study \S+ \(points\): (\d+) jobs?(?: \+ (\d+) shared)?", line)
        if m:
            own += int(m.group(1))
        m = re.match(r"  shared by .*: (\d+) jobs? \(each runs once\)", line)
        if m:
            shared += int(m.group(1))
    assert own + shared == total  # a job several studies share counted once
    assert not re.search(r"\b1 (jobs|studies|figures|systems)\b", out)  # plurals
    assert re.search(r"\n  study rules_sizes \(points\): 1 job; 16,000 systems, about ", out)
    cost = next(ln for ln in out.splitlines() if ln.startswith("cost: "))
    assert "core-hours at the rates measured on" in cost and "benchmarks/rates.json" in cost
    expected = next(ln for ln in out.splitlines() if ln.startswith("expected: "))
    assert re.match(
        r"expected: about (\d+ min )?\d+ s of wall time on \d+ cores?; 170 jobs, ", expected
    )
    assert "warning" not in out
    assert main(["config", "check", "config/quick.yaml", "--warn-core-hours", "1e-6"]) == 0
    warning = capsys.readouterr().out.splitlines()[-1]
    assert warning.startswith("warning: about ") and "--warn-core-hours 1e-06" in warning


def test_the_cost_estimate_follows_the_measured_rates():
    from hyst.sampling.cost import load_rates, point_seconds, seconds_per_system
    from hyst.sampling.sampler import Point

    rates = load_rates()
    for group, by_couplings in rates["seconds_per_system"].items():
        for couplings, table in by_couplings.items():
            for N, sec in zip(table["N"], table["seconds"], strict=True):
                assert seconds_per_system(group, couplings, N, rates) == pytest.approx(sec)
    # between measured N: between the neighbours; columns use the symmetric stand-in
    sym = rates["seconds_per_system"]["avalanche"]["symmetric"]
    mid = seconds_per_system("avalanche", "columns", 128, rates)
    assert sym["seconds"][2] < mid < sym["seconds"][3]
    point = Point("random", "hysteron", "1", 8, 10.0)
    both = point_seconds(point, ["transitions", "zero_field"], 1000, rates)
    assert both == pytest.approx(
        1000 * sum(seconds_per_system(g, "random", 8, rates) for g in ("transitions", "zero_field"))
    )
