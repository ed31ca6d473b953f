"""What the pipeline prints at the start of a first run and at the end of a run."""

from __future__ import annotations

from hyst.pipeline.config import validate
from hyst.pipeline.console import (
    first_run_notice,
    kernel_cache,
    kernels_cached,
    report_command,
    run_summary,
)


def test_a_cold_kernel_cache_is_seen_and_said_with_the_measured_time(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not kernels_cached()  # an empty cache folder: a first run
    kernel_cache().mkdir(parents=True)
    (kernel_cache() / "streams.f-1.py311.nbi").write_bytes(b"")
    assert kernels_cached()
    line = first_run_notice({"compile_seconds": 150.0})
    assert line.startswith("hyst: first run in this checkout: the numba kernels compile first")
    assert "2.5 minutes of CPU time" in line and str(kernel_cache()) in line
    assert "`hyst compile`" in line
    assert "\n" not in line and "measured" not in first_run_notice(None)


def test_the_end_of_a_run_says_where_everything_is_and_how_to_make_the_report(tmp_path):
    config = validate(
        {
            "studies": {"s": {"couplings": ["random"], "N": [3], "NJ0": [1.0], "samples": 5}},
            "figures": {"f": {"type": "gaps_and_self_loops", "studies": ["s"]}},
            "comparison": {"q": {"type": "quoted_values", "studies": ["s"]}},
        },
        check_paths=False,
    )
    text = run_summary("results", config, ["config/quick.yaml"], compiled=True)
    lines = text.splitlines()
    assert lines[0] == "hyst: done. The results:"
    assert "  figures     results/figures/ (1 PNG, each with a caption)" in lines
    assert "  comparison  results/paper_comparison.md (and .html)" in lines
    assert (
        "  snakemake --profile profiles/default --configfile config/quick.yaml --report "
        "results/report.html"
    ) in lines
    assert "  (or: bash scripts/run --report)" in lines
    assert "compiled in this run" in text
    other = run_summary("out", config, ["my config.yaml"])
    assert "--configfile 'my config.yaml' --report out/report.html" in other
    assert "scripts/run" not in other
    assert report_command("r", []) == "snakemake --profile profiles/default --report r/report.html"
    far = tmp_path / "elsewhere" / "c.yaml"  # outside the working folder: as given
    assert f"--configfile {far} " in report_command("r", [str(far)])


def test_the_kernel_cache_under_numba_cache_dir_is_where_numba_puts_it(tmp_path, monkeypatch):
    from numba.core.caching import _CacheLocator

    from hyst.pipeline.console import KERNELS

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    subpath = _CacheLocator.get_suitable_cache_subpath(str(KERNELS / "streams.py"))
    assert kernel_cache() == tmp_path / subpath
