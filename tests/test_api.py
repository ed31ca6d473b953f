"""The public API (``hyst.System``, ``hyst.sample_point``, ``hyst.open_results``): the same
systems and datasets as the command line, files that round-trip, one-line errors, and an
``import hyst`` that stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr

import hyst
from hyst.catalogue.variables import CONVENTIONS, undescribed
from hyst.cli.main import main
from hyst.provenance.files import read_dataset, write_dataset
from hyst.systems.files import sampled_system

L4_PAIR = ([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])


def test_public_names_are_few_and_import_hyst_is_cheap():
    assert set(hyst.__all__) == {
        "RELEASE", "SelfLoop", "System", "Transition", "TransitionGraph", "__version__",
        "amplitude_sweeps", "open_results", "sample_point", "symmetric_drives",
        "tgraphs"}  # fmt: skip
    code = (
        "import sys, hyst; "
        "print(sorted(m for m in sys.modules if m.startswith(('hyst', 'numba', 'xarray'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == ["hyst", "hyst._version"]
    assert hyst.System.__module__ == "hyst.systems.system"
    assert type(hyst.System(*L4_PAIR).self_loops()[0]) is hyst.SelfLoop
    assert type(hyst.System(*L4_PAIR).transition_graph()) is hyst.TransitionGraph
    # every code fingerprint includes the root package's imports: the API is not among them
    from hyst.provenance.fingerprints import imported_modules

    closure = imported_modules(["hyst"])
    assert not [m for m in closure if m.startswith(("hyst.api", "hyst.cli"))], closure
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = hyst.nothing


def test_system_by_hand_has_the_l4_self_loop_and_its_field_range():
    sy = hyst.System(*L4_PAIR)
    (loop,) = sy.self_loops()
    assert (loop.L, loop.n_e, loop.cycle) == (4, 2, (0, 2, 3, 1))
    assert loop.field_range() == pytest.approx((-0.2, 0.4))
    assert "self-loop #1: L = 4, n_e = 2" in sy.report()
    g = sy.to_networkx()
    assert {d["kind"] for *_e, d in g.edges(data=True)} == {"up", "down", "self_loop"}
    loop_ds = sy.saturated_loop()
    assert list(loop_ds.outcome.values) == ["self_loop", "stable", "self_loop"]
    assert list(loop_ds.H.values) == pytest.approx([-0.2, 0.6, 0.4])


def test_system_from_ensemble_is_the_system_hyst_system_shows(capsys):
    sy = hyst.System.from_ensemble("random", 6, 10.0, samples=100, index=3, seed=1)
    same = sampled_system("random", "hysteron", 6, 10.0, 1, 100, 3)
    assert np.array_equal(sy.systems.couplings, same.couplings)
    assert np.array_equal(sy.systems.h_plus, same.h_plus)
    args = ["system", "--couplings", "random", "--N", "6", "--NJ0", "10", "--seed", "1"]
    assert main([*args, "--samples", "100", "--index", "3"]) == 0
    assert sy.report() in capsys.readouterr().out


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".npz"])
def test_to_file_round_trips_bit_for_bit_and_hyst_system_reads_it(tmp_path, suffix, capsys):
    sy = hyst.System.from_ensemble("random", 5, 3.0, samples=50, index=7, seed=2)
    path = sy.to_file(tmp_path / f"system{suffix}")
    assert hyst.System.from_file(path) == sy
    assert main(["system", "--file", str(path)]) == 0
    assert sy.report() in capsys.readouterr().out


def test_response_follows_the_saturated_loop_and_the_exact_thresholds():
    sy = hyst.System([0.5, 1.0], [-0.5, 0.0], [[0, 0.2], [0.2, 0]])
    r = sy.response([0.0, 0.8, 2.0, 0.4, -2.0])
    assert list(r.m.values) == [-2, 0, 2, 2, -2]
    assert list(r.outcome.values) == ["stable"] * 5
    # a threshold met exactly is a tie and does not switch: H_1^+(--) = 0.5 + 0.2 = 0.7
    assert int(sy.response([0.7]).m[0]) == -2 and int(sy.response([0.7 + 2**-40]).m[0]) == 0
    loop = sy.saturated_loop()
    assert list(loop.branch.values) == [1, 1, -1, -1]
    assert list(loop.m.values) == [0, 2, 0, -2]


def test_bad_input_is_one_line_naming_the_argument(tmp_path):
    with pytest.raises(ValueError, match=r"^h_plus: must have N = 2 entries"):
        hyst.System([0.1], [0.0, 0.1], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"^couplings: 'nope' is not one of"):
        hyst.sample_point(couplings="nope", N=4, NJ0=1.0, samples=10)
    with pytest.raises(ValueError, match=r"^samples: 0 is not allowed"):
        hyst.sample_point(couplings="random", N=4, NJ0=1.0, samples=0)
    with pytest.raises(ValueError, match=r"^records: 'nope=3' is not allowed"):
        hyst.sample_point(couplings="random", N=4, NJ0=1.0, samples=10, records={"nope": 3})
    with pytest.raises(ValueError, match=r"^path: unknown format '.txt'"):
        hyst.System(*L4_PAIR).to_file(tmp_path / "s.txt")
    with pytest.raises(ValueError, match=r"^folder: .* holds no datasets"):
        hyst.open_results(tmp_path)


def test_sample_point_is_what_hyst_point_writes_bit_for_bit(tmp_path):
    options = {"couplings": "random", "spans": "spin", "rule": "1p", "N": 5, "NJ0": 3.0}
    cli = tmp_path / "cli.nc"
    argv = [f"--{k}={v}" for k, v in options.items()]
    argv += ["--samples", "300", "--seed", "4", "--records", "l4=5", "-q", "-o", str(cli)]
    assert main(["point", *argv]) == 0
    ds = hyst.sample_point(**options, samples=300, seed=4, records={"l4": 5}, threads=1)
    xr.testing.assert_identical(ds, read_dataset(cli))
    api = write_dataset(ds, tmp_path / "api.nc")
    assert api.read_bytes() == cli.read_bytes()
    assert undescribed(ds) == [] and ds.attrs["Conventions"] == CONVENTIONS


def test_open_results_holds_every_dataset_analysis_and_table(tmp_path):
    ds = hyst.sample_point(couplings="random", N=4, NJ0=1.0, samples=20, seed=0)
    ds.attrs.update(study_config=json.dumps({"N": [4]}), seed=0)
    write_dataset(ds, tmp_path / "datasets" / "one.nc")
    write_dataset(xr.Dataset({"a": ("x", [1.0])}), tmp_path / "analysis" / "one.nc")
    (tmp_path / "tables").mkdir()
    for ext in ("md", "tex", "rst"):
        (tmp_path / "tables" / f"one.{ext}").write_text(f"table {ext}")
    tree = hyst.open_results(tmp_path)
    assert isinstance(tree, xr.DataTree)
    xr.testing.assert_identical(tree["datasets/one"].to_dataset(), ds)
    texts = {"markdown": "table md", "latex": "table tex", "rst": "table rst"}
    assert tree["tables/one"].attrs == texts
    assert json.loads(tree.attrs["config"]) == {"seed": 0, "studies": {"one": {"N": [4]}}}


def test_nothing_in_hyst_may_import_the_command_line_but_main():
    """The import-linter contract names every package and module of hyst but ``hyst.cli``
    and ``hyst/__main__.py`` (a package added later must be added to it)."""
    import pkgutil
    import tomllib
    from pathlib import Path

    root = Path(hyst.__file__).parent
    config = tomllib.loads((root.parent / "pyproject.toml").read_text())
    (contract,) = [
        c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "forbidden"
    ]
    assert contract["forbidden_modules"] == ["hyst.cli"]
    everything = {f"hyst.{m.name}" for m in pkgutil.iter_modules([str(root)])}
    assert set(contract["source_modules"]) == everything - {"hyst.cli", "hyst.__main__"}
