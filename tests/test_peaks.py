"""Maxima of the large-N curves (hyst.analysis.peaks) on curves with known maxima."""

import math

import numpy as np
import pytest
import xarray as xr

from hyst.analysis.peaks import curve_maximum, maxima, power_of_n

J0 = 10 ** np.arange(-4, 2.01, 0.25)


def bump(x, at, height=3.0, width=0.6):
    """1 + height exp(-(log10 x - log10 at)^2 / (2 width^2)): a maximum at x = at."""
    return 1 + height * np.exp(-((np.log10(x) - math.log10(at)) ** 2) / (2 * width**2))


@pytest.mark.parametrize("at", [3e-3, 0.02, 1.0, 7.0])
def test_the_maximum_is_found_and_refined_between_grid_points(at):
    m = curve_maximum(J0, bump(J0, at), np.full(J0.size, 0.01))
    assert abs(math.log10(m["x_grid"] / at)) <= 0.125 + 1e-9  # the nearest grid point
    assert abs(math.log10(m["x_refined"] / at)) < 0.03  # the parabola's vertex
    assert m["y"] == pytest.approx(bump(m["x_grid"], at))
    assert not np.isfinite(m["dip_x"])  # a single bump: no dip after it


def test_a_dip_after_the_maximum_and_the_rise_after_it():
    y = bump(J0, 1.0) - 2.5 * np.exp(-((np.log10(J0) - 1.0) ** 2) / 0.02) + 2 * (J0 > 20)
    m = curve_maximum(J0, y, np.full(J0.size, 0.01))
    assert m["x_grid"] == pytest.approx(1.0)
    assert m["dip_x"] == pytest.approx(10.0) and m["dip_y"] < m["y"] - 1
    assert m["recovery_y"] > m["dip_y"] + 1
    flat = curve_maximum(J0, bump(J0, 1.0), np.full(J0.size, 0.01))
    assert not np.isfinite(flat["dip_x"])


def test_maxima_per_N_follow_one_over_N():
    Ns = [16, 32, 64, 128, 256, 512]
    y = np.array([bump(J0, 1.0 / n, height=n / 8) for n in Ns])[None, None, None]
    ds = xr.Dataset(
        {"transient": (("couplings", "spans", "rule", "N", "J0"), y)},
        coords={
            "couplings": ["symmetric"],
            "spans": ["hysteron"],
            "rule": ["1"],
            "N": Ns,
            "J0": J0,
        },
    )
    found = maxima(ds, "transient", {"couplings": "symmetric", "spans": "hysteron", "rule": "1"})
    p, dp = power_of_n(Ns, [found[n]["x_refined"] for n in Ns])
    assert p == pytest.approx(-1.0, abs=0.05) and dp < 0.05
    assert [found[n]["y"] for n in Ns] == sorted(found[n]["y"] for n in Ns)  # grows with N
