"""Every dataset the public API returns reads as CF (tests/cf_checks.py): units that
cf-xarray's registry and pint-xarray parse, a long_name on every variable and coordinate,
no coordinate named like a dimension it does not index, the field's unit stated."""

from __future__ import annotations

import numpy as np
import pytest
from cf_checks import cf_problems

import hyst


@pytest.fixture(scope="module")
def system():
    return hyst.System(
        [0.5, 0.3, 0.1], [-0.2, -0.4, -0.1], [[0, 0.3, -0.2], [-0.25, 0, 0.1], [0.2, -0.1, 0]]
    )


def _datasets(system):
    h_plus, h_minus, c = system.h_plus, system.h_minus, system.couplings
    yield "response", system.response([0.0, 0.4, -0.3])
    yield "saturated_loop", system.saturated_loop()
    yield "drive", system.drive([0.6, -0.5])
    yield "cyclic_drive", system.cyclic_drive(-0.4, 0.5)
    yield "symmetric_drive", system.symmetric_drive(0.5)
    yield "asymmetric_drive", system.asymmetric_drive(-0.3, 0.6)
    yield "amplitude_sweep", system.amplitude_sweep()
    yield "return_point_memory", system.return_point_memory([0.6, -0.4], 0.2)
    yield "symmetric_drives", hyst.symmetric_drives(h_plus, h_minus, c, 0.5)
    yield "amplitude_sweeps", hyst.amplitude_sweeps(h_plus, h_minus, c)
    yield (
        "sample_point",
        hyst.sample_point(
            couplings="random", N=3, NJ0=1.0, samples=50, observables=["transitions"]
        ),
    )
    yield "census", hyst.tgraphs.census(2, samples=200)


def test_every_dataset_of_the_api_reads_as_cf(system):
    problems = {}
    for name, ds in _datasets(system):
        found = cf_problems(ds)
        if "field_unit" not in ds.attrs:
            found.append("no field_unit attribute")
        if found:
            problems[name] = found
    assert not problems, problems


def test_a_field_protocol_with_a_nan_is_refused_in_one_line(system):
    with pytest.raises(ValueError, match=r"^fields\[1\]: nan is not allowed \(a finite number\)$"):
        system.response([0.0, np.nan, 2.0])


def test_fields_read_and_written_for_users_have_the_precision_of_the_input(tmp_path):
    """0.1 in, 0.1 out (not the quantised 0.1000000000000227), and read back bit for bit;
    a self-loop's field range reads as the decimals it is, not as 2^-41 multiples."""
    import yaml

    sy = hyst.System([0.5, 0.3], [-0.1, -0.4], [[0, 0.1], [-0.1, 0]])
    path = sy.to_file(tmp_path / "s.yaml")
    data = yaml.safe_load(path.read_text())
    assert data["h_minus"] == [-0.1, -0.4] and data["c"] == [[0.0, 0.1], [-0.1, 0.0]]
    assert hyst.System.from_file(path) == sy
    assert sy.h_minus[0] != -0.1  # the exact quantised value stays in the data
    rng = np.random.default_rng(3)
    for _ in range(50):
        c = rng.uniform(-1, 1, (4, 4))
        np.fill_diagonal(c, 0)
        h = rng.uniform(-1, 1, 4)
        a = hyst.System(h, h - rng.uniform(0, 0.5, 4), c)
        assert hyst.System.from_file(a.to_file(tmp_path / "r.json")) == a
