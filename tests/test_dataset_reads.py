"""Datasets read whole (read_datasets) and opened lazily (opened_datasets, what a figure's
analyses and a caption's files use) are the same datasets: names, values, fill values,
dtypes, coordinates and attributes."""

from __future__ import annotations

import numpy as np
import xarray as xr

from hyst.provenance.files import opened_datasets, read_datasets, write_dataset


def _dataset(shift: float) -> xr.Dataset:
    return xr.Dataset(
        {
            "p": (("N", "NJ0"), np.array([[0.1, np.nan, 0.3], [0.2, 0.25, 1.0]]) + shift),
            "count": (("N", "NJ0"), np.arange(6, dtype=np.int64).reshape(2, 3)),
            "ok": ("N", np.array([True, False])),
            "big": ("k", np.linspace(0.0, 1.0, 1000) * (1 + shift)),
        },
        coords={"N": [4, 8], "NJ0": [0.1, 1.0, 10.0], "rule": "1"},
        attrs={"kind": "points", "shift": shift},
    )


def test_lazily_opened_datasets_equal_the_datasets_read_whole(tmp_path):
    names = ["a", "b"]
    shifts = dict(zip(names, (0.0, 2.0), strict=True))
    paths = [write_dataset(_dataset(shifts[n]), tmp_path / f"{n}.nc") for n in names]
    whole = read_datasets(names, paths)
    with opened_datasets(names, paths) as opened:
        assert list(opened) == names
        for name in names:
            xr.testing.assert_identical(opened[name], whole[name])
            assert float(opened[name]["p"].sel(N=8, NJ0=1.0)) == float(
                whole[name]["p"].sel(N=8, NJ0=1.0)
            )
    assert float(whole["b"]["p"].sel(N=4, NJ0=0.1)) == 2.1


def test_datasets_kept_loaded_are_read_from_memory_until_their_file_changes(tmp_path, monkeypatch):
    """After ``keep_loaded`` (what the job server does before forking a job), reading a
    dataset whole or opening it lazily gives the dataset the file holds, opening no file;
    a copy each time, so a reader that changes it changes nothing for the next one. Once
    the file is written again (an atomic write: another file at the path), it is read from
    the file, and loaded again by the next ``keep_loaded``."""
    from hyst.provenance import files

    monkeypatch.setattr(files, "_KEPT", {})
    names = ["a", "b"]
    paths = [
        write_dataset(_dataset(s), tmp_path / f"{n}.nc") for n, s in zip(names, (0, 2), strict=True)
    ]
    on_disk = read_datasets(names, paths)
    assert files.keep_loaded(paths) == [str(p) for p in paths]
    assert files.keep_loaded(paths) == []  # loaded already: nothing read again

    def no_file(*args, **kwargs):
        raise AssertionError("a file was opened")

    with monkeypatch.context() as m:
        m.setattr(xr, "open_dataset", no_file)
        kept = read_datasets(names, paths)
        with opened_datasets(names, paths) as opened:
            for name in names:
                xr.testing.assert_identical(kept[name], on_disk[name])
                xr.testing.assert_identical(opened[name], on_disk[name])
                assert str(kept[name]["p"].encoding) == str(on_disk[name]["p"].encoding)
        kept["a"]["p"][:] = -1.0  # the reader's own copy
        xr.testing.assert_identical(files.read_dataset(paths[0]), on_disk["a"])
    write_dataset(_dataset(5.0), paths[0])
    xr.testing.assert_identical(files.read_dataset(paths[0]), _dataset(5.0).load())
    assert files.keep_loaded(paths) == [str(paths[0])]
