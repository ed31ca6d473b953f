"""Drive protocols from ``hyst.System`` and ``hyst system``: the datasets in field units
agree with the exact model results (``hyst.model.protocols``), the command line prints and
writes them, and the pictures are clean."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import hyst
from hyst.cli.main import main
from hyst.model import protocols as mp
from hyst.model.systems import quantize

#: A symmetric-coupling system with a period-3 orbit (critical amplitude 8.098...).
PERIOD3 = dict(couplings="symmetric", N=10, NJ0=100.0, samples=400, index=34)
PERIOD3_ARGS = ["--couplings", "symmetric", "--N", "10", "--NJ0", "100", "--samples", "400"]
PERIOD3_ARGS += ["--index", "34"]


@pytest.fixture(scope="module")
def period3():
    return hyst.System.from_ensemble(**PERIOD3)


def test_drive_stops_at_a_self_loop_with_its_range():
    sy = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
    ds = sy.drive([1.0, -1.0])
    a = ds.attrs
    assert (a["outcome"], a["stopped_by"], a["self_loop_L"], a["self_loop_n_e"]) == (
        "self_loop",
        "self_loop",
        4,
        2,
    )
    assert a["stop_field"] == pytest.approx(-0.2, abs=1e-9)
    assert a["self_loop_exit_field"] == pytest.approx(0.4, abs=1e-9)
    assert list(ds.outcome.values) == ["self_loop"]
    for name in ("H", "m", "turning_field", "state"):
        assert ds[name].attrs["long_name"] and ds[name].attrs["description"]
    assert ds.H.attrs["units"] == "1" and "field_unit" in ds.attrs


def test_sweep_agrees_with_the_model_and_the_symmetric_drive(period3):
    sw = period3.amplitude_sweep()
    exact = mp.amplitude_sweep(period3.systems, first_only=False)
    np.testing.assert_array_equal(quantize(sw.amplitude.values), exact.amplitudes)
    np.testing.assert_array_equal(sw.period.values, exact.periods)
    assert sw.attrs["critical_period"] == 3
    assert quantize(sw.attrs["critical_amplitude"]) == exact.critical_amplitude
    np.testing.assert_array_equal(
        quantize(period3.distinct_amplitudes()), mp.distinct_amplitudes(period3.systems)
    )
    # the symmetric drive at every swept amplitude (and just below the next one) has the
    # sweep's period: the response is constant on [A_q, A_q+1)
    for q in range(sw.sizes["amplitude"]):
        A, nxt = float(sw.amplitude[q]), float(sw.next_amplitude[q])
        for amp in (A, (A + nxt) / 2 if np.isfinite(nxt) else A + 1.0):
            d = period3.symmetric_drive(amp)
            assert d.attrs["outcome"] == "orbit"
            assert d.attrs["period"] == int(sw.period[q])
            assert d.attrs["transient"] == int(sw.transient[q])


def test_orbit_states_repeat(period3):
    A = period3.amplitude_sweep().attrs["critical_amplitude"]
    d = period3.symmetric_drive(A)
    tau, T = d.attrs["transient"], d.attrs["period"]
    states = d.state.values
    assert states.shape[0] == tau + T
    assert len(set(states[tau:].tolist())) == T
    # replaying the drive's cycles by hand through turning fields gives the same x_k
    path = period3.drive([0.0] + [A, -A, 0.0] * (tau + T))
    np.testing.assert_array_equal(path.state.values[0::3][: tau + T], states)


def test_asymmetric_and_cyclic_drive_agree(period3):
    a = period3.asymmetric_drive(-3.0, 9.0)
    c = period3.cyclic_drive([9.0, -3.0], preamble=[-3.0])
    for name in ("outcome", "transient", "period"):
        assert a.attrs[name] == c.attrs[name]
    np.testing.assert_array_equal(a.state.values, c.state.values)


def test_return_point_memory_matches_the_model(period3):
    ds = period3.return_point_memory([20.0, -6.0], 4.0)
    rp = mp.return_point_memory(period3.systems, quantize([20.0, -6.0]), int(quantize(4.0)))
    assert ds.attrs["return_point_memory"] == {True: "holds", False: "fails"}[rp.holds]
    with pytest.raises(ValueError, match="sub_field: -7 is not allowed"):
        period3.return_point_memory([20.0, -6.0], -7.0)


def test_drives_take_any_N():
    sy = hyst.System.from_ensemble("random", 64, 10.0, samples=10, index=1)
    ds = sy.drive([5.0, -5.0])
    assert ds.attrs["N"] == 64 and ds.sizes["element"] == 64
    assert ds.attrs["outcome"] in ("done", "self_loop")


def test_cli_symmetric_prints_and_writes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    A = "8.098095775224465"
    assert main(["system", *PERIOD3_ARGS, "--symmetric", A, "-o", "out/sym"]) == 0
    out = capsys.readouterr().out
    assert "symmetric drive, amplitude 8.0981, rule 1: orbit" in out
    assert "transient tau = 0, period T = 3" in out
    assert "wrote out/sym.nc, out/sym.png" in out
    ds = xr.open_dataset(tmp_path / "out" / "sym.nc")
    assert ds.attrs["period"] == 3 and ds.sizes["cycle"] == 3


def test_cli_sweep_table(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["system", *PERIOD3_ARGS, "--sweep"]) == 0
    out = capsys.readouterr().out
    assert "12 amplitudes swept; critical amplitude A_c = 8.098096 (T = 3)" in out
    rows = [line for line in out.splitlines() if "orbit" in line]
    assert len(rows) == 12
    assert list(tmp_path.iterdir()) == []  # nothing written without -o


def test_pictures_are_clean(period3):
    from figure_layout import layout_problems

    A = period3.amplitude_sweep().attrs["critical_amplitude"]
    loop = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]]).drive([1.0])
    for ds in (period3.symmetric_drive(A), period3.amplitude_sweep(), loop):
        assert layout_problems(hyst.System.draw_drive(ds)) == []
