"""The two ways ``write_dataset`` writes NetCDF: a plain dataset (numbers, dimension
coordinates, text and number attributes: a point file) with netCDF4 directly, any other
through xarray. The direct files must read back as the xarray-written ones do: the same
variables, values, attributes, dtypes, fill values, compression and unlimited dimensions."""

from __future__ import annotations

import json

import netCDF4
import numpy as np
import pytest
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyst.provenance import files
from hyst.provenance.files import (
    _plain,
    _write_with_xarray,
    compressed_encoding,
    content_hash,
    read_dataset,
    write_dataset,
)
from hyst.sampling.sampler import Point, sample_point
from hyst.sampling.tallies import tally_to_dataset
from hyst.studies.points import PointSpec


def _both(ds, tmp_path, name="d"):
    """``ds`` written by ``write_dataset`` and by xarray alone: the two paths."""
    direct = write_dataset(ds, tmp_path / f"{name}-direct.nc")
    by_xarray = tmp_path / f"{name}-xarray.nc"
    _write_with_xarray(ds, by_xarray, compressed_encoding(ds))
    return direct, by_xarray


def _storage(path) -> dict:
    """What netCDF4 sees in a file: per variable its dtype, dimensions, attributes (fill
    value included), filters and chunking; the dimensions with their sizes and whether
    unlimited; the global attributes."""
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        out = {
            "dims": {d: (len(v), v.isunlimited()) for d, v in nc.dimensions.items()},
            "attrs": {k: _plain_value(nc.getncattr(k)) for k in nc.ncattrs()},
        }
        for name, var in nc.variables.items():
            out[name] = (
                str(var.dtype),
                var.dimensions,
                {k: _plain_value(var.getncattr(k)) for k in var.ncattrs()},
                var.filters(),
                var.chunking(),
                _plain_value(var[...]),
            )
    return out


def _plain_value(x):
    """A value comparable with ``==`` (NaN equal to NaN, arrays as lists, dtypes kept)."""
    a = np.asarray(x)
    if a.dtype.kind == "f":
        return (str(a.dtype), np.where(np.isnan(a), "nan", a.astype(str)).tolist())
    return (str(a.dtype), a.tolist())


def _same(direct, by_xarray):
    a, b = read_dataset(direct), read_dataset(by_xarray)
    xr.testing.assert_identical(a, b)
    for name in a.variables:
        ea = {k: v for k, v in a[name].encoding.items() if k != "source"}
        eb = {k: v for k, v in b[name].encoding.items() if k != "source"}
        assert str(ea) == str(eb), name
    assert a.encoding.get("unlimited_dims") == b.encoding.get("unlimited_dims")
    assert _storage(direct) == _storage(by_xarray)
    assert content_hash(a) == content_hash(b)


def test_a_point_file_is_written_directly_and_reads_as_xarray_writes_it(tmp_path):
    """A point's dataset from a real tally, probabilities, means, histograms and records:
    the direct file and xarray's agree in every variable, attribute and encoding."""
    point = Point("random", "hysteron", "1", 5, 10.0)
    spec = PointSpec(point, 600, ("transitions", "avalanche", "cyclic"), 7, (("l4", 50),))
    tally = sample_point(point, 600, 7, spec.groups, records=dict(spec.records))
    ds = tally_to_dataset(tally, spec.groups, spec.attrs())
    assert _plain(ds, compressed_encoding(ds))
    assert any(v.ndim for v in ds.data_vars.values())  # histograms or records among them
    _same(*_both(ds, tmp_path))


def _histograms_as_dataarrays(tally, groups, attrs):
    """The reference: a point's dataset with each histogram a DataArray of its own
    coordinate 0, 1, …, aligned by xarray (an outer join), as the datasets were made first."""
    from hyst.catalogue import HISTOGRAM, OBSERVABLES

    ds = tally_to_dataset(tally, groups, attrs)
    data = {}
    for name, var in ds.variables.items():
        if name in ds.dims:
            continue
        o = next((o for o in OBSERVABLES if o.name == name and o.kind == HISTOGRAM), None)
        if o is None:
            data[name] = var
        else:
            h = tally.hists[name]
            data[name] = xr.DataArray(h, dims=(o.dim,), coords={o.dim: np.arange(h.size)})
            data[name].attrs = var.attrs
    reference = xr.Dataset(data, attrs=ds.attrs)
    for dim in ds.dims:
        reference[dim].attrs = ds[dim].attrs
    return ds, reference


@pytest.mark.parametrize("longer", [0, 3, -2])
def test_a_points_histograms_share_one_coordinate_a_dimension(longer):
    """A point's histograms are plain variables with one coordinate per dimension: the
    dataset a DataArray per histogram gives, variable for variable and in the same order,
    also where two histograms of one dimension differ in length (the shorter one padded with
    NaN, as xarray aligns them)."""
    point = Point("random", "hysteron", "1", 5, 10.0)
    spec = PointSpec(point, 400, ("transitions", "avalanche", "cyclic"), 7, ())
    tally = sample_point(point, 400, 7, spec.groups)
    if longer:  # a second histogram on the dimension of the transients, of another length
        n = tally.hists["transient_hist"].size + longer
        tally.hists["largest_transient_hist"] = np.arange(1, n + 1, dtype=np.int64)
    ds, reference = _histograms_as_dataarrays(tally, spec.groups, spec.attrs())
    xr.testing.assert_identical(ds, reference)
    assert list(ds.variables) == list(reference.variables)
    assert all(ds[v].dtype == reference[v].dtype for v in ds.variables)
    if longer:
        padded = "transient_hist" if longer > 0 else "largest_transient_hist"
        assert ds[padded].dtype == np.float64 and np.isnan(ds[padded].values[-1])


def _a_point(**records):
    """A point's dataset from a real tally: probabilities, means, counts, histograms of two
    dimensions, and ``records``."""
    point = Point("random", "hysteron", "1", 5, 10.0)
    groups = ("transitions", "avalanche", "cyclic")
    spec = PointSpec(point, 600, groups, 7, tuple(records.items()))
    tally = sample_point(point, 600, 7, groups, records=records)
    return tally_to_dataset(tally, groups, spec.attrs())


def test_a_point_reads_back_with_its_attributes_unless_they_are_known(tmp_path):
    """``read_point``: every data variable's values, dtype and dimensions as written, its
    attributes as written, and none for the variables already known (a study's collection
    reads them from the first point that has them); no histogram coordinate."""
    from hyst.studies.point_jobs import read_point, write_point

    ds = _a_point(l4=40)
    path = write_point(ds, tmp_path / "p.nc")
    values, dims, attrs = read_point(path)
    assert list(values) == list(dims) == list(attrs) == list(ds.data_vars)
    for name, var in ds.data_vars.items():
        np.testing.assert_array_equal(values[name], var.values)
        assert values[name].dtype == var.dtype and values[name].shape == var.shape, name
        assert dims[name] == var.dims
        assert attrs[name] == dict(var.attrs), name
    known = set(list(ds.data_vars)[::2])
    again, dims_again, some = read_point(path, known)
    assert set(some) == set(ds.data_vars) - known
    assert set(again) == set(values) and dims_again == dims
    assert all(attrs[name] == some[name] for name in some)


def test_a_point_file_packs_its_variables_by_dtype_and_reads_back_identical(tmp_path):
    """A point file holds one NetCDF variable per dtype, not one per statistic (HDF5's cost
    is per variable), compressed where large; read back (``read_point_dataset``) it is the
    dataset written: variables and coordinates in order, values, dtypes, dimensions and
    attributes, the provenance as global attributes. The same dataset gives the same bytes,
    and another value other bytes."""
    from hyst.studies.point_jobs import LAYOUT, read_point_dataset, write_point

    ds = _a_point(l4=2000)
    dtypes = {v.dtype.name for v in ds.variables.values()}
    assert len(ds.variables) > 40 and {"float32", "float64", "int64"} <= dtypes
    path = write_point(ds, tmp_path / "p.nc")
    with netCDF4.Dataset(path) as nc:
        assert set(nc.variables) == {f"{d}_values" for d in dtypes}
        for var in nc.variables.values():
            assert var.filters()["zlib"] == (var.size * var.dtype.itemsize >= 4096), var.name
        assert {e["name"] for e in json.loads(nc.getncattr(LAYOUT))} == set(ds.variables)
        assert nc.getncattr("point_key") == ds.attrs["point_key"]
    back = read_point_dataset(path)
    xr.testing.assert_identical(back, ds)
    assert list(back.variables) == list(ds.variables)
    assert all(back[v].dtype == ds[v].dtype for v in ds.variables)
    assert content_hash(back) == content_hash(ds)
    assert write_point(ds, tmp_path / "again.nc").read_bytes() == path.read_bytes()
    changed = ds.copy(deep=True)
    changed["self_loop_probability_count"] += 1
    assert write_point(changed, tmp_path / "changed.nc").read_bytes() != path.read_bytes()


def test_a_point_of_text_is_refused(tmp_path):
    """A point file packs numbers: a variable of text is refused by name, nothing written."""
    from hyst.studies.point_jobs import write_point

    ds = xr.Dataset({"count": ((), np.int64(3)), "label": ((), "random")})
    with pytest.raises(ValueError, match="label"):
        write_point(ds, tmp_path / "p.nc")
    assert not list(tmp_path.iterdir())


def test_the_direct_writer_is_the_one_used_for_a_plain_dataset(tmp_path, monkeypatch):
    """``write_dataset`` takes the direct path for a plain dataset, xarray's for others."""
    calls = []
    monkeypatch.setattr(files, "_write_with_xarray", lambda *a: calls.append(a) or None)
    plain = xr.Dataset({"p": ((), 0.5), "h": ("bin", np.arange(3))})
    write_dataset(plain, tmp_path / "plain.nc")
    assert calls == []
    labelled = xr.Dataset({"p": ("couplings", [0.5, 0.25])}, coords={"couplings": ["a", "b"]})
    write_dataset(labelled, tmp_path / "labelled.nc")  # text coordinates: plain too
    assert calls == []
    flagged = xr.Dataset({"p": ("x", np.array([True, False]))})  # bool: xarray's int8
    write_dataset(flagged, tmp_path / "flagged.nc")
    assert len(calls) == 1


@pytest.mark.parametrize(
    "ds",
    [
        xr.Dataset({"p": ("x", [0.5, 0.25])}, coords={"x": ["a", "b"]}),  # text coordinate
        # an analysis's reasons: text variables, one long enough to be compressed, a text
        # scalar, an empty text, text beyond ASCII
        xr.Dataset(
            {
                "why": ("x", ["no window", ""]),
                "long": ("y", [f"reason {k} of σ_i" for k in range(400)]),
                "one": ((), "pooled"),
                "p": ("x", [0.5, np.nan]),
            },
            coords={"x": ["random", "spins"]},
            attrs={"title": "σ"},
        ),
    ],
)
def test_text_variables_are_written_directly_as_xarray_writes_them(ds, tmp_path):
    assert _plain(ds, compressed_encoding(ds))
    _same(*_both(ds, tmp_path))


@pytest.mark.parametrize(
    "ds",
    [
        xr.Dataset({"b": ("x", np.array([True, False]))}),  # bool (xarray stores int8)
        xr.Dataset({"p": ((), 0.5)}, coords={"n": 4}),  # a coordinate of no dimension
        xr.Dataset({"p": ((), 0.5, {"flag": True})}),  # a bool attribute
        xr.Dataset({"p": ((), 0.5, {"list": ["a", "b"]})}),  # a list of text
        xr.Dataset({"t": ("x", np.array(["2020-01-01"], "datetime64[ns]"))}),
    ],
)
def test_anything_else_goes_through_xarray(ds):
    assert not _plain(ds, compressed_encoding(ds))


def test_encodings_beyond_dtype_and_fill_value_go_through_xarray():
    ds = xr.Dataset({"p": ("x", [0.5, 0.25])})
    ds["p"].encoding = {"dtype": "float32"}
    assert not _plain(ds, compressed_encoding(ds))
    ds["p"].encoding = {"scale_factor": 0.1}
    assert not _plain(ds, compressed_encoding(ds))
    ds["p"].encoding = {"dtype": np.dtype("float64"), "_FillValue": None}
    assert _plain(ds, compressed_encoding(ds))


_DTYPES = st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "float32", "float64"])
_NUMBER_ATTR = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, width=64),
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=4),
)
_ATTRS = st.dictionaries(
    st.text("abcdefghij_", min_size=1, max_size=8),
    st.one_of(st.text(max_size=30), _NUMBER_ATTR),
    max_size=3,
)


@st.composite
def plain_datasets(draw):
    """Small plain datasets: scalars and arrays over up to three dimensions, some of length
    0 (netCDF makes them unlimited), some large enough to be compressed, NaNs in floats,
    index coordinates, a fill value of None in some encodings."""
    sizes = draw(
        st.dictionaries(
            st.sampled_from(["x", "y", "z"]),
            st.one_of(st.integers(0, 4), st.just(700)),
            max_size=3,
        )
    )
    data = {}
    for k in range(draw(st.integers(1, 5))):
        dims = tuple(d for d in sizes if draw(st.booleans()))
        shape = tuple(sizes[d] for d in dims)
        if np.prod(shape, dtype=np.int64) > 2000:
            dims, shape = dims[:1], shape[:1]
        dtype = np.dtype(draw(_DTYPES))
        rng = np.random.default_rng(draw(st.integers(0, 2**31)))
        if dtype.kind == "f":
            values = rng.normal(size=shape).astype(dtype)
            values[rng.random(shape) < 0.2] = np.nan
        else:
            info = np.iinfo(dtype)
            values = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        data[f"v{k}"] = xr.Variable(dims, values, draw(_ATTRS))
        if draw(st.booleans()) and dtype.kind == "f":
            data[f"v{k}"].encoding = {"_FillValue": None}
    coords = {d: np.arange(n) for d, n in sizes.items() if draw(st.booleans())}
    ds = xr.Dataset(data, coords=coords)
    ds.attrs.update(draw(_ATTRS))
    return ds


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plain_datasets())
def test_any_plain_dataset_reads_back_as_xarray_writes_it(tmp_path, ds):
    assert _plain(ds, compressed_encoding(ds))
    _same(*_both(ds, tmp_path))
