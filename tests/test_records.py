"""Datasets a user can keep: records only where asked for, as a seeded bottom-k sample that
does not depend on the chunking; compact record storage; lossless compression; the
permissions a plain write would give."""

from __future__ import annotations

import os
import stat

import netCDF4
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

from hyst.analysis.records import record_labels
from hyst.catalogue import CATALOGUE
from hyst.cli.main import main
from hyst.model.seeds import record_keys
from hyst.provenance.files import atomic_write_text, content_hash, read_dataset, write_dataset
from hyst.sampling.sampler import Point, chunk_size, record_salt, resolve_groups, sample_point
from hyst.sampling.tallies import KEY, Tally, tally_to_dataset
from hyst.studies.point_jobs import read_point_dataset, write_point
from hyst.studies.points import KIND, PointSpec, study_specs

#: Enumerated point with many L = 4 loops, three chunks of systems.
POINT = Point("random", "hysteron", "1", 4, 30.0)
SAMPLES = 3 * chunk_size(POINT.N)
GROUPS = ("transitions",)


def _records(tally) -> dict:
    return {k: v for k, v in tally.records["l4"].items() if k != KEY}


@pytest.fixture(scope="module")
def every_record():
    """All L = 4 records of POINT (a cap larger than their number)."""
    tally = sample_point(POINT, SAMPLES, 5, GROUPS, records={"l4": 10**9})
    assert tally.counts["l4_loops_recorded"] == tally.records["l4"]["system"].size > 3000
    return tally


def test_the_sample_is_the_k_records_of_smallest_key_of_all_records(every_record):
    """Reference: key every record of the point from scratch, take the k smallest."""
    k = 500
    capped = sample_point(POINT, SAMPLES, 5, GROUPS, records={"l4": k})
    everything = _records(every_record)
    n = everything["system"].size
    keys = record_keys(
        record_salt(POINT, 5), everything["system"], np.full(n, -1), everything["loop_number"]
    )
    chosen = np.sort(np.argsort(keys, kind="stable")[:k])  # records are sorted by identity
    got = _records(capped)
    assert got["system"].size == k
    for name, column in everything.items():
        np.testing.assert_array_equal(got[name], column[chosen])
    # every field keeps its catalogue dtype; stored in identity order
    for name, dtype in CATALOGUE["l4"].record_dtypes.items():
        if name in got:
            assert got[name].dtype == np.dtype(dtype), name
    order = np.lexsort((got["loop_number"], got["system"]))
    np.testing.assert_array_equal(order, np.arange(k))
    # all counts are those of the uncapped run
    assert capped.counts == every_record.counts


def test_the_sample_does_not_depend_on_chunks_or_their_order(every_record):
    k = 300
    whole = sample_point(POINT, SAMPLES, 5, GROUPS, records={"l4": k})
    for order in ([2, 0, 1], [1, 2, 0]):
        merged = Tally()
        for chunk in order:
            merged.merge(sample_point(POINT, SAMPLES, 5, GROUPS, chunks=[chunk], records={"l4": k}))
        for name, column in _records(whole).items():
            np.testing.assert_array_equal(_records(merged)[name], column)
    # another seed or another rule draws another sample
    other = sample_point(POINT, SAMPLES, 6, GROUPS, records={"l4": k})
    assert not np.array_equal(_records(other)["system"], _records(whole)["system"])


def test_the_sample_is_uniform_over_the_records(every_record):
    """Each record is kept with probability k/M: the kept records' share of the first half
    of the systems is hypergeometric (within 5 standard deviations)."""
    k = 1000
    everything = _records(every_record)["system"]
    M = everything.size
    first = everything < SAMPLES // 2
    capped = _records(sample_point(POINT, SAMPLES, 5, GROUPS, records={"l4": k}))["system"]
    p = first.mean()
    sd = np.sqrt(k * p * (1 - p) * (M - k) / (M - 1))
    assert abs((capped < SAMPLES // 2).sum() - k * p) < 5 * sd


@settings(max_examples=60, deadline=None)
@given(
    systems=st.lists(st.integers(0, 10**6), min_size=0, max_size=80, unique=True),
    cap=st.integers(1, 30),
    cuts=st.lists(st.integers(0, 80), max_size=4),
    order=st.randoms(use_true_random=False),
    salt=st.integers(0, 2**64 - 1),
)
def test_bottom_k_merges_exactly_in_any_partition_and_order(systems, cap, cuts, order, salt):
    """Property: capping parts and merging them in any order is capping the whole."""
    systems = np.asarray(systems, np.int64)
    n = systems.size
    table = {
        "system": systems,
        "loop_number": systems % 3,
        "c_kl": np.linspace(-1, 1, n),
        "h_tilde_k": np.arange(n, dtype=float),
    }
    whole = Tally(record_caps={"l4": cap}, record_salt=salt)
    whole.add_records("l4", table)
    bounds = sorted({0, n, *[min(c, n) for c in cuts]})
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        t = Tally(record_caps={"l4": cap}, record_salt=salt)
        t.add_records("l4", {k: v[lo:hi] for k, v in table.items()})
        parts.append(t)
    order.shuffle(parts)
    merged = Tally()
    for t in parts:
        merged.merge(t)
    if n == 0:
        return
    assert whole.records["l4"]["system"].size == min(cap, n)
    for name, column in whole.records["l4"].items():
        np.testing.assert_array_equal(merged.records["l4"][name], column)
    keys = record_keys(salt, systems, np.full(n, -1), systems % 3)
    kept = set(systems[np.argsort(keys, kind="stable")[:cap]].tolist())
    assert set(whole.records["l4"]["system"].tolist()) == kept


def test_merging_samples_of_different_sizes_is_refused():
    a = Tally(record_caps={"l4": 3})
    with pytest.raises(ValueError, match="cannot merge samples of 4 and 3 records"):
        a.merge(Tally(record_caps={"l4": 4}))


def test_records_only_where_asked_for():
    tally = sample_point(POINT, 2000, 5, GROUPS)
    assert tally.records == {} and tally.counts["l4_loops"] > 0
    ds = tally_to_dataset(tally, GROUPS)
    assert "l4_loop" not in ds.dims and "l4_loops" in ds


def _collect(tmp_path, study):
    """Collect a points study from point files sampled directly (no pipeline)."""
    results = tmp_path / "results"
    for _labels, spec in study_specs(study, 3):
        tally = sample_point(
            spec.point, spec.samples, spec.seed, spec.groups, records=dict(spec.records)
        )
        write_point(tally_to_dataset(tally, spec.groups, spec.attrs()), spec.path(results))
    return KIND.collect("s", study, {"seed": 3}, results), results


def test_collected_records_carry_their_point_as_small_indices(tmp_path):
    study = {
        "couplings": ["random"],
        "spans": ["spin", "hysteron"],
        "rule": ["1"],
        "N": [3, 4],
        "NJ0": [5.0, 50.0],
        "samples": 300,
        "observables": ["transitions"],
        "records": {"l4": 25},
    }
    ds, results = _collect(tmp_path, study)
    record_vars = [v for v in ds.data_vars if ds[v].dims == ("l4_loop",)]
    assert all(ds[v].dtype.kind in "if" for v in record_vars)  # no per-record strings
    for axis in ("couplings", "spans", "rule", "N", "NJ0"):
        assert ds[f"l4_{axis}_index"].dtype == np.int8
    spans = record_labels(ds, "l4", "spans")
    N = record_labels(ds, "l4", "N")
    NJ0 = record_labels(ds, "l4", "NJ0")
    for labels, spec in study_specs(study, 3):
        point_file = read_point_dataset(spec.path(results))
        mine = (spans == labels["spans"]) & (N == labels["N"]) & (NJ0 == labels["NJ0"])
        assert 0 < mine.sum() <= 25
        np.testing.assert_array_equal(ds.l4_c_kl.values[mine], point_file.l4_c_kl.values)
        np.testing.assert_array_equal(ds.l4_system.values[mine], point_file.l4_system.values)
    assert ds.l4_c_kl.dtype == np.float32 and ds.l4_h_tilde_k.dtype == np.float64


def test_a_study_without_records_stores_none(tmp_path):
    study = {
        "couplings": ["random"],
        "spans": ["hysteron"],
        "rule": ["1"],
        "N": [3],
        "NJ0": [5.0],
        "samples": 200,
        "observables": ["transitions"],
    }
    ds, _ = _collect(tmp_path, study)
    assert "l4_loop" not in ds.dims and not [v for v in ds.variables if "_index" in str(v)]


def test_every_large_variable_is_compressed_and_no_value_changes(tmp_path):
    groups = resolve_groups(POINT)
    samples = chunk_size(POINT.N)
    tally = sample_point(POINT, samples, 5, groups, records={"l4": 5000})
    ds = tally_to_dataset(tally, groups, PointSpec(POINT, samples, groups, 5).attrs())
    path = write_dataset(ds, tmp_path / "p.nc")
    with netCDF4.Dataset(path) as nc:
        large = [v for v in nc.variables.values() if v.size * v.dtype.itemsize >= 4096]
        assert len(large) >= 3  # the records' columns
        for v in nc.variables.values():
            compressed = v.filters()["zlib"] and v.filters()["shuffle"]
            assert compressed == (v in large), v.name
    back = read_dataset(path)
    assert content_hash(back) == content_hash(ds)
    xr.testing.assert_identical(back, ds)
    # rewriting a dataset read from disk (with its on-disk encoding) works and keeps values
    again = write_dataset(back, tmp_path / "again.nc")
    assert content_hash(read_dataset(again)) == content_hash(ds)
    plain = tmp_path / "plain.nc"
    ds.to_netcdf(plain, engine="netcdf4")
    assert path.stat().st_size < plain.stat().st_size


def test_a_write_under_a_dask_client_takes_no_lock_of_the_scheduler(tmp_path, monkeypatch):
    """A points job saves each point while its Dask client is active. Left to itself,
    xarray would then guard each variable's write with a ``distributed.Lock``, a round
    trip to the scheduler each time; the file is the job's own, so write_dataset takes a
    local lock. The file is the same, byte for byte, as one written with no client."""
    import dask.distributed
    import distributed

    from hyst.sampling.cluster import client

    ds = xr.Dataset({"count": ("NJ0", np.arange(3, dtype=np.int64))}, coords={"NJ0": [1.0, 2, 3]})
    plain = write_dataset(ds, tmp_path / "plain.nc")

    def no_scheduler_lock(*args, **kwargs):
        raise AssertionError("a write took a lock of the Dask scheduler")

    with client(threads=1):
        for module in (distributed, dask.distributed):
            monkeypatch.setattr(module, "Lock", no_scheduler_lock)
        under_client = write_dataset(ds, tmp_path / "under_client.nc")
    assert under_client.read_bytes() == plain.read_bytes()


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o002, 0o664)])
def test_written_files_get_the_permissions_of_a_plain_write(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        point_file = tmp_path / "point.nc"
        args = ["point", "--couplings", "random", "--N", "3", "--NJ0", "1", "--samples", "50"]
        assert main([*args, "-q", "-o", str(point_file)]) == 0
        dataset = write_dataset(read_dataset(point_file), tmp_path / "datasets" / "s.nc")
        manifest = atomic_write_text(tmp_path / "jobs" / "job.json", "{}")
    finally:
        os.umask(old)
    for path in (point_file, dataset, manifest):
        assert stat.S_IMODE(path.stat().st_mode) == mode, path
