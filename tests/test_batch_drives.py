"""Drives of many systems in one call (hyst.symmetric_drives, hyst.amplitude_sweeps): system
by system the same as hyst.System's drives, on random and tie-heavy instances under every
rule, on one thread and on all; one-line errors for bad arrays."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import hyst
import hyst.api.batch


def instances(seed, n, N, ties=False):
    """n random systems of N elements; ``ties``: small-integer parameters (equal thresholds
    and tied switching fields are common)."""
    rng = np.random.default_rng(seed)
    if ties:
        mid = rng.integers(-2, 3, (n, N)) / 4
        half = rng.integers(0, 3, (n, N)) / 4
        c = rng.integers(-1, 2, (n, N, N)) / 4
    else:
        mid, half = rng.uniform(-1, 1, (n, N)), rng.uniform(0, 0.5, (n, N))
        c = rng.uniform(-0.5, 0.5, (n, N, N))
    c = c * (1 - np.eye(N))
    return mid + half, mid - half, c


def _drive_row(ds):
    a = ds.attrs
    stopped = a.get("stopped_by")
    return (
        stopped or a["outcome"],
        a.get("transient", -1) if not stopped else -1,
        a.get("period", -1) if not stopped else -1,
        a.get("self_loop_L", 0),
    )


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
@pytest.mark.parametrize("N, ties", [(2, True), (3, False), (5, True), (6, False)])
def test_symmetric_drives_are_systemwise_the_systems_drives(rule, N, ties):
    hp, hm, c = instances(N * 7 + ("0", "1", "1p", "2").index(rule), 60, N, ties)
    amplitude = np.random.default_rng(N).uniform(0, 1.2, 60).round(2)
    ds = hyst.symmetric_drives(hp, hm, c, amplitude, rule=rule)
    assert ds.sizes == {"system": 60}
    for k in range(60):
        one = hyst.System(hp[k], hm[k], c[k]).symmetric_drive(float(amplitude[k]), rule=rule)
        outcome, tau, T, L = _drive_row(one)
        got = ds.isel(system=k)
        assert str(got.outcome.values) == outcome, k
        if outcome == "orbit":
            assert (int(got.transient), int(got.period)) == (tau, T), k
        if outcome == "self_loop":
            assert int(got.L) == L and float(got.stop_field) == pytest.approx(
                one.attrs["stop_field"]
            )
        assert int(got.flips) == one.attrs["flips"] and int(got.ties) == one.attrs["ties"], k


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
@pytest.mark.parametrize("N, ties", [(3, True), (4, False), (6, True)])
def test_amplitude_sweeps_are_systemwise_the_systems_sweeps(rule, N, ties):
    hp, hm, c = instances(100 + N, 40, N, ties)
    ds = hyst.amplitude_sweeps(hp, hm, c, rule=rule)
    for k in range(40):
        one = hyst.System(hp[k], hm[k], c[k]).amplitude_sweep(rule=rule)
        got = ds.isel(system=k)
        assert int(got.amplitudes) == one.sizes["amplitude"], k
        crit = one.attrs["critical_amplitude"]
        if np.isnan(crit):
            assert np.isnan(float(got.critical_amplitude)), k
        else:
            assert float(got.critical_amplitude) == pytest.approx(crit), k
            assert int(got.critical_period) == one.attrs["critical_period"], k


def test_one_thread_and_all_threads_give_the_same_and_a_single_system_is_a_batch_of_one():
    hp, hm, c = instances(5, 300, 5)
    many = hyst.symmetric_drives(hp, hm, c, 0.6)
    assert many.identical(hyst.symmetric_drives(hp, hm, c, 0.6, threads=1))
    sweeps = hyst.amplitude_sweeps(hp, hm, c)
    assert sweeps.identical(hyst.amplitude_sweeps(hp, hm, c, threads=1))
    one = hyst.symmetric_drives(hp[7], hm[7], c[7], 0.6)
    assert one.sizes == {"system": 1}
    for name in many.data_vars:
        assert one[name].values[0] == many[name].values[7] or (
            np.isnan(one[name].values[0]) and np.isnan(many[name].values[7])
        ), name


@pytest.mark.parametrize(
    "args, message",
    [
        (([0.1, 0.2], [0.0], [[0, 1], [1, 0]], 0.5), "h_minus: shape (1, 1), expected (1, 2)"),
        (([0.1, 0.2], [0.0, 0.1], [[1, 1], [1, 0]], 0.5), "couplings[0,0,0]: 1.0 must be 0"),
        (([0.1, np.nan], [0.0, 0.1], [[0, 1], [1, 0]], 0.5), "h_plus[0,1]: nan is not a finite"),
        (([0.1, 0.2], [0.0, 0.1], [[0, 1], [1, 0]], -0.5), "amplitude: -0.5 is not allowed"),
        (([0.1, 0.2], [0.0, 0.1], [[0, 1], [1, 0]], [0.1, 0.2]), "amplitude: shape (2,)"),
        (([0.1, 0.2], [0.0, 0.1], [[0, 1, 2], [1, 0, 2]], 0.5), "couplings: must be square"),
        ((["a", 0.2], [0.0, 0.1], [[0, 1], [1, 0]], 0.5), "h_plus: not an array of real"),
    ],
)
def test_bad_arrays_are_refused_in_one_line(args, message):
    with pytest.raises(ValueError) as err:
        hyst.symmetric_drives(*args)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"rule: '3' is not allowed"):
        hyst.amplitude_sweeps([0.1, 0.2], [0.0, 0.1], [[0, 1], [1, 0]], rule="3")
    with pytest.raises(ValueError, match=r"threads: 0 is not allowed"):
        hyst.amplitude_sweeps([0.1, 0.2], [0.0, 0.1], [[0, 1], [1, 0]], threads=0)


def test_module_doctest():
    assert doctest.testmod(hyst.api.batch).failed == 0


def test_the_light_path_returns_the_datasets_values_as_arrays():
    hp, hm, c = instances(11, 50, 4)
    for fn, args in ((hyst.symmetric_drives, (0.5,)), (hyst.amplitude_sweeps, ())):
        ds = fn(hp, hm, c, *args)
        arrays = fn(hp, hm, c, *args, dataset=False)
        assert set(arrays) == set(ds.data_vars)
        for name, values in arrays.items():
            np.testing.assert_array_equal(values, ds[name].values)
