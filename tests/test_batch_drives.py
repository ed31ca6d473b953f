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


def _same_values(got, expected, where):
    """Arrays equal value for value (NaN where NaN), with the same dtype."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, where
    np.testing.assert_array_equal(got, expected, err_msg=str(where))


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
@pytest.mark.parametrize("first_only", [False, True])
def test_a_single_systems_sweep_runs_its_own_kernel_and_gives_the_batchs_values(
    rule, first_only, monkeypatch
):
    """The single-system path (plain arrays to a kernel that checks and quantises them)
    returns what a batch of one returns (the batch kernel on ``Systems``), identically, and
    the values of the same system in a larger batch."""

    def sweeps(*args, **kwargs):
        return hyst.amplitude_sweeps(*args, rule=rule, first_only=first_only, **kwargs)

    for N, ties, seed in ((1, True, 1), (2, True, 2), (3, False, 3), (3, True, 4), (5, False, 5)):
        hp, hm, c = instances(seed * 13 + len(rule), 25, N, ties)
        many = sweeps(hp, hm, c)
        with monkeypatch.context() as m:  # a batch of one, as before the single path
            m.setattr(hyst.api.batch, "_one_system", lambda *args: None)
            batches_of_one = [sweeps(hp[k], hm[k], c[k]) for k in range(25)]
            lights_of_one = [sweeps(hp[k], hm[k], c[k], dataset=False) for k in range(25)]
        with monkeypatch.context() as m:  # the single path never reaches the batch kernel

            def refused(*args, **kwargs):
                raise AssertionError("a single system ran the batch kernel")

            m.setattr(hyst.api.batch, "sweep_batch", refused)
            for k in range(25):
                one = sweeps(hp[k], hm[k], c[k])
                light = sweeps(hp[k], hm[k], c[k], dataset=False)
                assert one.identical(batches_of_one[k]), (N, k)
                assert list(light) == list(lights_of_one[k]) == list(many.data_vars)
                for name, values in light.items():
                    _same_values(values, lights_of_one[k][name], (N, k, name))
                    assert values.tolist() == one[name].values.tolist() or (
                        np.isnan(values).all() and np.isnan(one[name].values).all()
                    )
                    np.testing.assert_array_equal(values, many[name].values[k : k + 1])


def test_a_single_system_given_as_lists_views_or_other_types_gives_the_same():
    hp, hm, c = instances(8, 1, 4, ties=True)
    hp, hm, c = hp[0], hm[0], c[0]
    expected = hyst.amplitude_sweeps(hp, hm, c, dataset=False)
    frozen = c.copy()
    frozen.flags.writeable = False
    for args in (
        (hp.tolist(), hm.tolist(), c.tolist()),
        (hp, hm, np.asfortranarray(c)),
        (np.stack([hp, hm], axis=1)[:, 0], np.stack([hp, hm], axis=1)[:, 1], frozen),
        (hp.astype(np.float32), hm.astype(np.float32), c.astype(np.float32)),
        (hp.astype(int) if (hp == hp.astype(int)).all() else hp, hm, c[::-1][::-1]),
    ):
        got = hyst.amplitude_sweeps(*args, dataset=False)
        for name, values in expected.items():
            _same_values(got[name], values, name)


@pytest.mark.parametrize(
    "args, message",
    [
        (([0.1, 0.2], [0.0], [[0, 1], [1, 0]]), "h_minus: shape (1, 1), expected (1, 2)"),
        (([0.1, 0.2], [0.0, 0.1], [[1, 1], [1, 0]]), "couplings[0,0,0]: 1.0 must be 0"),
        (([0.1, np.nan], [0.0, 0.1], [[0, 1], [1, 0]]), "h_plus[0,1]: nan is not a finite"),
        (([0.1, 0.2], [0.0, np.inf], [[0, 1], [1, 0]]), "h_minus[0,1]: inf is not a finite"),
        (([0.1, 0.2], [0.0, 0.1], [[0, 1e6], [1, 0]]), "couplings: |value| 1e+06 is too large"),
        (([0.1, 0.2], [0.0, 0.1], [[0, 1, 2], [1, 0, 2]]), "couplings: must be square"),
    ],
)
def test_a_single_systems_bad_arrays_are_refused_as_a_batchs(args, message):
    with pytest.raises(ValueError) as err:
        hyst.amplitude_sweeps(*args, dataset=False)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_the_single_system_kernel_refuses_what_the_checks_refuse():
    from hyst.kernels.protocol_batches import sweep_fields
    from hyst.kernels.protocols import SWEEP_SUMMARY_COLUMNS
    from hyst.model.systems import MAX_THRESHOLD, QUANTUM

    hp, hm = np.array([0.5, 0.25]), np.array([-0.5, -0.25])
    c = np.array([[0.0, 0.125], [-0.125, 0.0]])
    limit = MAX_THRESHOLD * QUANTUM / 2

    def run(hp=hp, hm=hm, c=c, limit=limit, max_threshold=MAX_THRESHOLD):
        out = np.full(len(SWEEP_SUMMARY_COLUMNS), -7, np.int64)
        ok = sweep_fields(hp, hm, c, limit, 2.0**40, max_threshold, 1, 1000, False, out)
        assert ok or (out == -7).all()  # refused: out untouched
        return ok

    assert run()
    assert not run(hp=np.array([0.5, np.nan]))
    assert not run(hm=np.array([-np.inf, 0.0]))
    assert not run(c=np.array([[0.0, np.nan], [0.0, 0.0]]))
    assert not run(c=np.array([[0.0, 0.125], [-0.125, 1e-9]]))  # a self-coupling
    assert not run(limit=0.5)  # |h| = 0.5 is not below it
    assert run(limit=0.5000001)
    # the bound of exact thresholds, max|h| + (N - 1) max|c| < max_threshold (quanta)
    assert not run(max_threshold=int((0.5 + 0.125) * 2**40))
    assert run(max_threshold=int((0.5 + 0.125) * 2**40) + 1)


@pytest.mark.parametrize("rule", ["0", "1", "2"])
def test_the_systems_sweep_from_saturation_takes_the_plain_array_kernel_with_the_same_rows(rule):
    from hyst.kernels import protocols as kp
    from hyst.model import protocols as mp
    from hyst.model.systems import Systems, rule_code

    hp, hm, c = instances(21, 30, 4, ties=True)
    systems = Systems.from_floats(hp, hm, c)
    for k in range(30):
        for first_only in (False, True):
            sw = mp.amplitude_sweep(systems, rule, first_only, index=k)
            one = mp._One(systems, k)  # the view and work arrays of the drives
            rows, pre, ties = kp.sweep(
                one.v, rule_code(rule), mp.MAX_CYCLES, first_only, one.summary
            )
            np.testing.assert_array_equal(sw.amplitudes, rows[:, kp.SW_AMPLITUDE])
            np.testing.assert_array_equal(sw.next_amplitudes, rows[:, kp.SW_NEXT])
            np.testing.assert_array_equal(sw.periods, rows[:, kp.SW_PERIOD])
            np.testing.assert_array_equal(sw.transients, rows[:, kp.SW_TRANSIENT])
            np.testing.assert_array_equal(sw.loops, rows[:, kp.SW_L])
            assert sw.outcomes == tuple(
                mp.outcome_name(int(x), cyclic=True) for x in rows[:, kp.SW_OUTCOME]
            )
            assert (sw.preamble, sw.ties) == (mp.outcome_name(int(pre), cyclic=False), ties)
