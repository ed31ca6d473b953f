"""Every bad input is caught: malformed configurations and command-line options are each
rejected with one line naming the key or option (no traceback), before anything runs,
and nothing is written."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hyst.cli.main import main
from hyst.pipeline.config import validate

REPO = Path(__file__).resolve().parents[1]

#: A small valid configuration (each case below breaks one thing).
BASE = {
    "studies": {
        "s": {"couplings": ["random"], "N": [3, 4], "NJ0": [0.5, 5.0], "samples": 10},
        "big": {
            "couplings": ["random"],
            "N": [64],
            "NJ0": [10.0],
            "samples": 10,
            "observables": ["saturated_loop"],
            "records": {"l4": 100},
        },
        "pairs": {"kind": "pairs", "samples": 10},
    },
    "figures": {"fig": {"type": "gaps_and_self_loops", "studies": ["s"]}},
}


def _set(path: str, value):
    """A case: set the dotted key ``path`` (None: delete it) of a copy of BASE."""

    def change(cfg):
        *parents, last = path.split(".")
        node = cfg
        for p in parents:
            node = node[p]
        if value is None:
            del node[last]
        else:
            node[last] = value

    return change


#: (id, change of BASE or raw YAML text, a fragment of the one-line message)
CONFIGS = [
    ("NJ0-nan", _set("studies.s.NJ0", [float("nan")]), "studies.s.NJ0[0]: nan is not allowed"),
    ("NJ0-inf", _set("studies.s.NJ0", [float("inf")]), "studies.s.NJ0[0]: inf is not allowed"),
    (
        "NJ0-grid-nan",
        _set("studies.s.NJ0", {"start": float("nan"), "stop": 10, "per_decade": 2}),
        "studies.s.NJ0.start: nan is not allowed (a finite number)",
    ),
    ("J0-inf", _set("studies.s.NJ0", None), None),  # replaced below (needs two edits)
    ("NJ0-negative", _set("studies.s.NJ0", [-1.0]), "studies.s.NJ0[0]: -1.0 is less than or equal"),
    ("NJ0-zero", _set("studies.s.NJ0", [0]), "studies.s.NJ0[0]: 0 is less than or equal"),
    (
        "NJ0-empty-grid",
        _set("studies.s.NJ0", {"start": 10, "stop": 1, "per_decade": 2}),
        "studies.s.NJ0: the grid",
    ),
    (
        "NJ0-grid-incomplete",
        _set("studies.s.NJ0", {"start": 0.1, "stop": 10}),
        "studies.s.NJ0: 'per_decade' is a required property",
    ),
    ("no-coupling-axis", _set("studies.s.NJ0", None), "studies.s: give exactly one of NJ0"),
    ("N-one", _set("studies.s.N", [1]), "studies.s.N[0]: 1 is less than the minimum of 2"),
    ("N-fraction", _set("studies.s.N", [2.5]), "studies.s.N[0]: 2.5 is not of type 'integer'"),
    ("N-empty", _set("studies.s.N", []), "studies.s.N: [] should be non-empty"),
    ("N-string", _set("studies.s.N", "4"), "studies.s.N: '4' is not of type 'array'"),
    ("samples-zero", _set("studies.s.samples", 0), "studies.s.samples: 0 is less than"),
    ("samples-float", _set("studies.s.samples", 1.5), "studies.s.samples: 1.5 is not of type"),
    ("couplings", _set("studies.s.couplings", ["nope"]), "studies.s.couplings[0]: 'nope'"),
    (
        "couplings-scalar",
        _set("studies.s.couplings", "random"),
        "studies.s.couplings: 'random' is not of type 'array'",
    ),
    ("spans", _set("studies.s.spans", ["wide"]), "studies.s.spans[0]: 'wide' is not one of"),
    ("rule-3", _set("studies.s.rule", [3]), "studies.s.rule[0]: '3' is not one of 0, 1, 1p, 2"),
    ("rule-bool", _set("studies.s.rule", [True]), "studies.s.rule[0]: True is not one of"),
    ("observables", _set("studies.s.observables", ["nope"]), "studies.s.observables"),
    (
        "observables-too-large",
        _set("studies.big.observables", ["transitions"]),
        "studies.big.observables: 'transitions' needs N <= 18 (N = 64)",
    ),
    (
        "records-unknown",
        _set("studies.s.records", {"l5": 10}),
        "studies.s.records.l5: unknown key (allowed: l4)",
    ),
    (
        "records-zero",
        _set("studies.big.records", {"l4": 0}),
        "studies.big.records.l4: 0 is less than the minimum of 1",
    ),
    (
        "records-not-produced",
        _set("studies.s.observables", ["avalanche"]),
        None,  # replaced below (needs two edits)
    ),
    ("study-key", _set("studies.s.samplez", 3), "studies.s.samplez: unknown key"),
    ("top-key", _set("sweeps", {}), "sweeps: unknown key"),
    ("seed-negative", _set("seed", -1), "seed: -1 is less than the minimum of 0"),
    ("seed-nan", _set("seed", float("nan")), "seed: nan is not allowed (a finite number)"),
    ("batch", _set("batch", {"max_points": 0}), "batch.max_points: 0 is less than"),
    ("threads", _set("resources", {"threads": 0}), "resources.threads: 0 is less than"),
    (
        "dask-both",
        _set("dask", {"scheduler_file": "s.json", "address": "tcp://h:1"}),
        "dask: give at most one of scheduler_file or address",
    ),
    (
        "figure-unknown-study",
        _set("figures.fig.studies", ["nope"]),
        "figures.fig.studies[0]: 'nope' is not a study of this configuration",
    ),
    (
        "figure-unknown-type",
        _set("figures.fig.type", "nope"),
        "figures.fig.type: 'nope' is not one of",
    ),
    (
        "figure-needs-records",
        _set("figures.large", {"type": "l4_large", "studies": ["big"]}),
        None,  # replaced below (needs two edits)
    ),
    ("study-name", _set("studies.my study", {"kind": "pairs", "samples": 1}), "my study"),
    ("kind", _set("studies.s.kind", "nope"), "studies.s.kind: 'nope' is not one of"),
    ("pairs-sigma-nan", _set("studies.pairs.sigma", [float("nan")]), "studies.pairs.sigma[0]"),
    ("pairs-cmax", _set("studies.pairs.c_max", -1), "studies.pairs.c_max: -1 is less than"),
    ("no-studies", _set("studies", {}), "studies: {} should be non-empty"),
    ("results-file", _set("results", "afile"), "results: 'afile' is not allowed (exists"),
    (
        "results-below-file",
        _set("results", "afile/results"),
        "results: 'afile/results' is not allowed (afile is not a folder)",
    ),
    (
        "results-unwritable",
        _set("results", "/proc/hyst-results"),
        "results: '/proc/hyst-results' cannot be written",
    ),
    ("not-a-mapping", "- a\n- list\n", "(top level): the configuration must be a mapping"),
    ("bad-yaml", "studies: {s: [1,\n", "not valid YAML"),
]


def _fix_cases():
    """Cases that need two edits of BASE."""
    fixed = []
    for name, change, message in CONFIGS:
        if name == "J0-inf":

            def change(cfg):
                del cfg["studies"]["s"]["NJ0"]
                cfg["studies"]["s"]["J0"] = [0.1, float("inf")]

            message = "studies.s.J0[1]: inf is not allowed (a finite number)"
        elif name == "records-not-produced":

            def change(cfg):
                cfg["studies"]["s"]["observables"] = ["avalanche"]
                cfg["studies"]["s"]["records"] = {"l4": 5}
                cfg["figures"] = {}

            message = "studies.s.records.l4: this study computes no group that produces 'l4'"
        elif name == "figure-needs-records":

            def change(cfg):
                del cfg["studies"]["big"]["records"]
                cfg["figures"]["large"] = {"type": "l4_large", "studies": ["big"]}

            message = "figures.large.studies[0]: study 'big' stores no l4 records"
        fixed.append(pytest.param(change, message, id=name))
    return fixed


@pytest.mark.parametrize("change, message", _fix_cases())
def test_a_malformed_config_is_rejected_with_one_line_and_nothing_written(
    tmp_path, monkeypatch, capsys, change, message
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder")
    if isinstance(change, str):
        text = change
    else:
        cfg = copy.deepcopy(BASE)
        change(cfg)
        text = yaml.safe_dump(cfg)
    (tmp_path / "c.yaml").write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["config", "check", "c.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hyst config: error: "), err
    assert message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_the_suite_has_at_least_thirty_malformed_configs_and_cli_inputs():
    assert len(CONFIGS) + len(POINT_OPTIONS) >= 30 and len(CONFIGS) >= 30


def test_natural_spellings_are_accepted(tmp_path):
    cfg = copy.deepcopy(BASE)
    cfg["studies"]["s"]["rule"] = [1, "1p", 0]  # YAML integers are rules
    cfg["results"] = str(tmp_path / "not" / "yet" / "there")
    out = validate(cfg)
    assert out["studies"]["s"]["rule"] == ["1", "1p", "0"]
    assert not (tmp_path / "not").exists()  # checking the results folder creates nothing


POINT = ["point", "--couplings", "random", "--N", "3", "--NJ0", "1", "--samples", "10", "-q"]

#: (id, options replacing or extending POINT, a fragment of the one-line message)
POINT_OPTIONS = [
    ("NJ0-nan", ["--NJ0", "nan"], "--NJ0: nan is not allowed"),
    ("NJ0-inf", ["--NJ0", "inf"], "--NJ0: inf is not allowed"),
    ("NJ0-negative", ["--NJ0", "-1"], "--NJ0: -1"),
    ("N-one", ["--N", "1"], "--N: 1 is not allowed"),
    ("N-word", ["--N", "x"], "--N: 'x' is not an integer"),
    ("samples-zero", ["--samples", "0"], "--samples: 0 is not allowed"),
    ("rule", ["--rule", "3"], "--rule: invalid choice: '3'"),
    ("couplings", ["--couplings", "bogus"], "--couplings: invalid choice: 'bogus'"),
    ("observables", ["--observables", "nope"], "--observables: 'nope' is not one of"),
    ("records-unknown", ["--records", "l5=3"], "--records: 'l5=3' is not allowed"),
    ("records-zero", ["--records", "l4=0"], "--records: 'l4=0' is not allowed"),
    ("records-word", ["--records", "l4=x"], "--records: 'l4=x' is not allowed"),
    (
        "records-not-produced",
        ["--observables", "avalanche", "--records", "l4=5"],
        "--records: 'l4' records come from transitions or saturated_loop",
    ),
    ("seed", ["--seed", "-1"], "--seed: -1 is not allowed"),
    ("threads", ["--threads", "0"], "--threads: 0 is not allowed"),
    ("output-suffix", ["-o", "out.txt"], "--output: 'out.txt' is not allowed (a .nc file)"),
]


@pytest.mark.parametrize(
    "options, message", [pytest.param(o, m, id=i) for i, o, m in POINT_OPTIONS]
)
def test_a_bad_point_option_is_rejected_with_one_line_and_no_file(
    tmp_path, monkeypatch, capsys, options, message
):
    monkeypatch.chdir(tmp_path)
    args = list(POINT)
    for flag, value in zip(options[::2], options[1::2], strict=True):
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    if "-o" not in args:
        args += ["-o", "out.nc"]
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse errors
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "edit, message",
    [
        (("NJ0", [float("nan")]), "studies.tiny.NJ0[0]: nan is not allowed (a finite number)"),
        (("NJ0", [float("inf")]), "studies.tiny.NJ0[0]: inf is not allowed (a finite number)"),
        (("results", "/proc/hyst-results"), "results: '/proc/hyst-results' cannot be written"),
    ],
    ids=["nan", "inf", "unwritable-results"],
)
def test_the_pipeline_rejects_them_before_any_job(tmp_path, edit, message):
    cfg = {
        "studies": {
            "tiny": {"couplings": ["random"], "N": [3], "NJ0": [1.0], "samples": 10},
        },
    }
    key, value = edit
    if key == "results":
        cfg["results"] = value
    else:
        cfg["studies"]["tiny"][key] = value
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile")]
    cmd += ["--directory", str(tmp_path), "--configfile", str(tmp_path / "c.yaml")]
    cmd += ["--profile", str(REPO / "profiles" / "default")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    # what hyst says: its messages are the lines that begin with "hyst:" (Snakemake's own
    # lines, e.g. "Using profiles <checkout>/profiles/default", may hold any path)
    said = [ln for ln in proc.stderr.splitlines() if ln.startswith("hyst:")]
    assert len(said) == 1, proc.stderr
    assert said[0].startswith(f"hyst: invalid configuration: {message}"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()
