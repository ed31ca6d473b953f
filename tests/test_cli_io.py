"""The ``hyst point`` command, NetCDF provenance and reproducibility."""

import os
import subprocess
import sys

import numba
import numpy as np
import pytest
import xarray as xr

from hyst.cli.main import main
from hyst.provenance.files import provenance_matches, read_dataset, write_dataset
from hyst.sampling.sampler import Point, chunk_size, resolve_groups, sample_point
from hyst.sampling.tallies import tally_to_dataset
from hyst.studies.points import PointSpec

ARGS = [
    "point",
    "--couplings",
    "random",
    "--spans",
    "hysteron",
    "--rule",
    "1",
    "--N",
    "6",
    "--NJ0",
    "10",
    "--samples",
    "2500",
    "--seed",
    "3",
    "-q",
]


def test_point_writes_every_observable_with_errors_and_provenance(tmp_path):
    out = tmp_path / "point.nc"
    assert main([*ARGS, "-o", str(out)]) == 0
    ds = xr.open_dataset(out)
    for name in (
        "gap_probability_at_zero",
        "gap_fraction",
        "self_loop_probability_at_zero",
        "self_loop_probability_at_zero_random_start",
        "self_loop_probability",
        "race_condition_probability",
        "potentially_stable_fraction",
        "avalanche_size",
        "transient",
        "period",
    ):
        assert name in ds and f"{name}_stderr" in ds and f"{name}_trials" in ds
        assert np.isfinite(float(ds[name]))
    p, n = float(ds.self_loop_probability), int(ds.self_loop_probability_trials)
    assert n == 2500 and int(ds.self_loop_probability_count) == round(p * n)
    assert float(ds.self_loop_probability_stderr) == pytest.approx(np.sqrt(p * (1 - p) / n))
    assert int(ds.avalanche_size_hist.sum()) == int(ds.avalanche_size_trials)
    assert ds.attrs["couplings"] == "random" and ds.attrs["N"] == 6 and ds.attrs["seed"] == 3
    assert ds.attrs["samples"] == 2500 and ds.attrs["hyst_version"]
    # records only where asked for: none by default, the exact counts always
    assert not [v for v in ds.variables if str(v).startswith("l4_") and "l4_loop" in ds[v].dims]
    assert int(ds.l4_loops) >= int(ds.l4_loops_recorded) > 0


@pytest.mark.parametrize(
    "change,message",
    [
        (("--couplings", "bogus"), "--couplings: invalid choice: 'bogus'"),
        (("--rule", "3"), "--rule: invalid choice: '3'"),
        (("--N", "1"), "--N: 1 is not allowed"),
        (("--NJ0", "0"), "--NJ0: 0 is not allowed"),
        (("--NJ0", "x"), "--NJ0: 'x' is not a number"),
        (("--samples", "0"), "--samples: 0 is not allowed"),
        (("--observables", "nope"), "--observables: 'nope' is not one of"),
    ],
)
def test_bad_options_give_one_line_exit_2_and_no_file(tmp_path, change, message):
    args = list(ARGS)
    i = args.index(change[0]) if change[0] in args else len(args)
    if change[0] in args:
        args[i + 1] = change[1]
    else:
        args += list(change)
    out = tmp_path / "bad.nc"
    proc = subprocess.run(
        [sys.executable, "-m", "hyst", *args, "-o", str(out)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_enumeration_refused_for_large_n(tmp_path):
    out = tmp_path / "big.nc"
    args = [*ARGS, "--observables", "transitions", "-o", str(out)]
    args[args.index("--N") + 1] = "40"
    assert main(args) == 2 and not out.exists()


def test_help_documents_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["point", "--help"])
    text = capsys.readouterr().out
    for opt in (
        "--couplings",
        "--spans",
        "--rule",
        "--N",
        "--NJ0",
        "--samples",
        "--seed",
        "--observables",
        "--threads",
        "--output",
        "columns",
        "1p",
        "cyclic",
    ):
        assert opt in text


def _dataset(point, samples, seed=1, chunks=None):
    groups = resolve_groups(point)
    tally = sample_point(point, samples, seed, groups, chunks=chunks)
    attrs = PointSpec(point, samples, groups, seed).attrs()
    return tally_to_dataset(tally, groups, attrs), tally


def test_results_independent_of_threads():
    point = Point("random", "hysteron", "1", 7, 20.0)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a, _ = _dataset(point, 1500)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        b, _ = _dataset(point, 1500)
    finally:
        numba.set_num_threads(old)
    xr.testing.assert_identical(a, b)


def test_chunks_merge_to_the_whole_and_more_samples_extend_the_stream():
    point = Point("weak", "spin", "1p", 5, 3.0)
    size = chunk_size(point.N)
    samples = 3 * size
    whole, tw = _dataset(point, samples)
    _, t1 = _dataset(point, samples, chunks=[0, 2])
    _, t2 = _dataset(point, samples, chunks=[1])
    t1.merge(t2)
    assert t1.counts == tw.counts
    # the first chunks of a larger run are the same systems
    _, small = _dataset(point, size)
    _, first = _dataset(point, 2 * size, chunks=[0])
    assert small.counts == first.counts


def test_rule_does_not_change_the_sampled_systems():
    """Every rule sees the same systems: the H = 0 gap statistics agree exactly."""
    a, _ = _dataset(Point("random", "hysteron", "1", 6, 5.0), 1000)
    b, _ = _dataset(Point("random", "hysteron", "2", 6, 5.0), 1000)
    assert int(a.gap_probability_at_zero_count) == int(b.gap_probability_at_zero_count)
    assert float(a.gap_fraction_sum) == float(b.gap_fraction_sum)


def test_atomic_write_and_provenance(tmp_path):
    point = Point("columns", "equal", "0", 4, 1.0)
    ds, _ = _dataset(point, 300)
    path = write_dataset(ds, tmp_path / "sub" / "p.nc")
    assert sorted(os.listdir(path.parent)) == ["p.nc"]  # no temporary left behind
    back = read_dataset(path)
    groups = resolve_groups(point)
    assert provenance_matches(back, PointSpec(point, 300, groups, 1).provenance())
    assert not provenance_matches(back, PointSpec(point, 301, groups, 1).provenance())
    other = Point("columns", "equal", "0", 4, 1.5)
    assert not provenance_matches(back, PointSpec(other, 300, groups, 1).provenance())


@pytest.mark.parametrize("writer", ["_write_plain", "_write_with_xarray"])
def test_failed_write_leaves_nothing(tmp_path, monkeypatch, writer):
    """A write that fails halfway (a partial file, then an error) leaves no file, whichever
    way the dataset is written: netCDF4 directly (a point's dataset) or through xarray."""
    from hyst.provenance import files

    point = Point("columns", "equal", "0", 4, 1.0)
    ds, _ = _dataset(point, 100)
    if writer == "_write_with_xarray":  # a text coordinate: only xarray writes it
        ds = ds.expand_dims(couplings=["columns"])

    def boom(_ds, tmp, _encoding):
        with open(tmp, "wb") as fh:
            fh.write(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(files, writer, boom)
    with pytest.raises(OSError, match="disk full"):
        write_dataset(ds, tmp_path / "p.nc")
    assert os.listdir(tmp_path) == []


def test_point_prints_its_estimates_and_where_the_file_went(tmp_path, capsys):
    out = tmp_path / "new" / "folder" / "point.nc"
    args = [*ARGS, "--samples", "300", "-o", str(out)]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert f"created the folder {out.parent}" in captured.err  # a missing folder is said
    lines = captured.out.splitlines()
    assert lines[0].startswith("random couplings, hysteron spans, rule 1, N = 6, NJ0 = ")
    assert lines[1].split() == ["observable", "symbol", "estimate", "±", "error", "trials"]
    assert lines[-1].startswith(f"wrote {out} ")
    ds = xr.open_dataset(out)
    row = next(ln for ln in lines if ln.startswith("self_loop_probability "))
    value, error = float(row.split()[2]), float(row.split()[4])
    assert value == pytest.approx(float(ds.self_loop_probability), abs=error / 10)
    assert error == pytest.approx(float(ds.self_loop_probability_stderr), rel=0.05)
    assert row.split()[-1] == "300"
    # the table's columns line up: every row's estimate ends where the header's does
    head = lines[1].index("estimate") + len("estimate")
    assert all(ln[head - 1] != " " for ln in lines[2:-1])
