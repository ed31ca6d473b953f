"""`hyst config check`, `hyst profile install` and `hyst cluster local`."""

import subprocess
import sys
import time

from hyst.cli.main import main


def test_config_check_reports_and_rejects(tmp_path, capsys):
    assert main(["config", "check", "config/quick.yaml"]) == 0
    out = capsys.readouterr().out
    assert "valid; 19 studies" in out and "29 figures; 7 comparison sections" in out
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
