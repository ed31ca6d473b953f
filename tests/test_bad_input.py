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
        "studies.big.observables: 'transitions' needs N <= 18 (N = 64; at N = 64: addressability "
        "(N <= 64), avalanche, cyclic, saturated_loop, multiperiodic, periods (any N))",
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
    ("empty-file", "", "(top level): the configuration must be a mapping"),
    (
        "duplicate-study",
        "studies:\n  s: {kind: pairs, samples: 1}\n  s: {kind: pairs, samples: 2}\n",
        "c.yaml: s: duplicate key (line 3; first on line 2); give each key once",
    ),
    (
        "duplicate-top-key",
        "seed: 1\nstudies: {s: {kind: pairs, samples: 1}}\nseed: 2\n",
        "c.yaml: seed: duplicate key (line 3; first on line 1)",
    ),
    (
        "duplicate-nested-key",
        "studies:\n  s: {kind: pairs, samples: 1, samples: 2}\n",
        "c.yaml: samples: duplicate key",
    ),
    # sizes and costs past a limit: refused with the memory or time in the message
    (
        "samples-huge",
        _set("studies.s.samples", 10**14),
        "limits.core_hours: this configuration needs about",
    ),
    (
        "N-huge",
        _set("studies.s.N", [100000]),
        "studies.s.N: 100000 needs about 4.7 TiB per sampling job (16 systems of 100000 x "
        "100000 couplings at a time), more than resources.mem_mb = 4000 (raise it",
    ),
    ("N-past-memory", _set("studies.big.N", [5000]), "studies.big.N: 5000 needs about 12.3 GiB"),
    (
        "enumeration-limit",
        _set("studies.big.observables", ["zero_field"]),
        "studies.big.observables: 'zero_field' needs N <= 18 (N = 64; at N = 64: addressability "
        "(N <= 64), avalanche, cyclic, saturated_loop, multiperiodic, periods (any N))",
    ),
    (
        "any-self-loop-limit",
        _set("studies.big.observables", ["any_self_loop"]),
        "'any_self_loop' needs N <= 32 (N = 64; at N = 64:",
    ),
    ("limits-zero", _set("limits", {"core_hours": 0}), "limits.core_hours: 0 is less than"),
    ("limits-key", _set("limits", {"hours": 3}), "limits.hours: unknown key (allowed: core_hours)"),
    ("limits-word", _set("limits", {"core_hours": "many"}), "limits.core_hours: 'many' is not of"),
    ("mem-small", _set("resources", {"mem_mb": 100}), "resources.mem_mb: 100 is less than"),
    ("runtime-zero", _set("resources", {"runtime": 0}), "resources.runtime: 0 is less than"),
    ("resources-key", _set("resources", {"cores": 2}), "resources.cores: unknown key"),
    ("dpi-low", _set("figure_files", {"dpi": 10}), "figure_files.dpi: 10 is less than"),
    ("dpi-high", _set("figure_files", {"dpi": 5000}), "figure_files.dpi: 5000 is greater than"),
    (
        "formats-jpg",
        _set("figure_files", {"formats": ["jpg"]}),
        "figure_files.formats[0]: 'jpg' is not one of pdf, svg",
    ),
    (
        "formats-twice",
        _set("figure_files", {"formats": ["pdf", "pdf"]}),
        "figure_files.formats: ['pdf', 'pdf'] has non-unique elements",
    ),
    (
        "comparison-type",
        _set("comparison", {"c": {"type": "nope", "studies": ["s"]}}),
        "comparison.c.type: 'nope' is not one of",
    ),
    (
        "comparison-study",
        _set("comparison", {"c": {"type": "slopes", "studies": ["nope"]}}),
        "comparison.c.studies[0]: 'nope' is not a study of this configuration",
    ),
    (
        "comparison-no-studies",
        _set("comparison", {"c": {"type": "slopes"}}),
        "comparison.c: 'studies' is a required property",
    ),
    ("batch-word", _set("batch", {"max_points": "x"}), "batch.max_points: 'x' is not of type"),
    ("seed-word", _set("seed", "abc"), "seed: 'abc' is not of type 'integer'"),
    (
        "seed-2-to-the-64",
        _set("seed", 2**64),
        "seed: 18446744073709551616 is greater than the maximum of 18446744073709551615",
    ),
    (
        "figure-param-unknown",
        _set("figures.fig.params", {"colour": "red"}),
        "figures.fig.params.colour: unknown parameter of figure type gaps_and_self_loops "
        "(allowed: couplings, inset_at, rule, size, slopes, spans, title)",
    ),
    (
        "figure-param-kind",
        _set("figures.fig.params", {"inset_at": "red"}),
        "figures.fig.params.inset_at: 'red' is not allowed (a number)",
    ),
    (
        "figure-param-bool-for-number",
        _set("figures.fig.params", {"inset_at": True}),
        "figures.fig.params.inset_at: True is not allowed (a number)",
    ),
    (
        "figure-param-size-scalar",
        _set("figures.fig.params", {"size": 3}),
        "figures.fig.params.size: 3 is not allowed (a list)",
    ),
    ("results-root", _set("results", "/"), "results: '/' is not allowed (the root of the file"),
    ("seed-float", _set("seed", 1.5), "seed: 1.5 is not of type 'integer'"),
    ("results-empty", _set("results", ""), "results: '' should be non-empty"),
    ("results-number", _set("results", 3), "results: 3 is not of type 'string'"),
    ("dask-number", _set("dask", {"scheduler_file": 3}), "dask.scheduler_file: 3 is not of type"),
    ("dask-key", _set("dask", {"host": "x"}), "dask.host: unknown key"),
    (
        "per-decade-zero",
        _set("studies.s.NJ0", {"start": 0.1, "stop": 10, "per_decade": 0}),
        "studies.s.NJ0.per_decade: 0 is less than the minimum of 1",
    ),
    (
        "grid-key",
        _set("studies.s.NJ0", {"start": 0.1, "stop": 10, "per_decade": 2, "step": 1}),
        "studies.s.NJ0.step: unknown key (allowed: per_decade, start, stop)",
    ),
    ("description-number", _set("studies.s.description", 123), "studies.s.description: 123"),
    (
        "figure-too-many-studies",
        _set("figures.fig.studies", ["s", "s"]),
        "figures.fig.studies: ['s', 's'] binds 2 studies; type gaps_and_self_loops needs 1",
    ),
    (
        "figure-needs-groups",
        _set("studies.s.observables", ["avalanche"]),
        "figures.fig.studies[0]: study 's' does not compute zero_field, transitions",
    ),
    ("figure-no-type", _set("figures.fig", {"studies": ["s"]}), "figures.fig: 'type' is a"),
    ("figure-key", _set("figures.fig.extra", 1), "figures.fig.extra: unknown key"),
    ("figure-params-word", _set("figures.fig.params", "x"), "figures.fig.params: 'x' is not of"),
    ("pairs-samples-zero", _set("studies.pairs.samples", 0), "studies.pairs.samples: 0 is less"),
    ("pairs-sigma-negative", _set("studies.pairs.sigma", [-1.0]), "studies.pairs.sigma[0]: -1.0"),
    ("pairs-delta-negative", _set("studies.pairs.delta_h", -1), "studies.pairs.delta_h: -1 is"),
    ("pairs-key", _set("studies.pairs.N", [3]), "studies.pairs.N: unknown key"),
    (
        "networks-part",
        _set("studies.net", {"kind": "networks", "part": "rings"}),
        "studies.net.part: 'rings' is not one of planes, chains",
    ),
    (
        "networks-phi",
        _set(
            "studies.net",
            {"kind": "networks", "part": "chains", "phi": [2.0], "N": [4], "samples": 10},
        ),
        "studies.net.phi[0]: 2.0 is greater than the maximum of 1",
    ),
    (
        "networks-N",
        _set(
            "studies.net",
            {"kind": "networks", "part": "chains", "phi": [0.5], "N": [1], "samples": 10},
        ),
        "studies.net.N[0]: 1 is less than the minimum of 2",
    ),
    (
        "networks-missing-N",
        _set("studies.net", {"kind": "networks", "part": "chains", "phi": [0.5]}),
        "studies.net: part chains needs 'N'",
    ),
    (
        "networks-cells",
        _set(
            "studies.net",
            {"kind": "networks", "part": "planes", "grid": {"low": -1, "high": 1, "cells": 0}},
        ),
        "studies.net.grid.cells: 0 is less than the minimum of 1",
    ),
    (
        "loops-n_e",
        _set("studies.lo", {"kind": "loops", "count": [{"n_e": 9}]}),
        "studies.lo.count[0].n_e: 9 is greater than the maximum of 6",
    ),
    (
        "loops-L-odd",
        _set("studies.lo", {"kind": "loops", "count": [{"n_e": 3, "L": [7]}]}),
        "studies.lo.count[0].L[0]: 7 is not a multiple of 2",
    ),
    (
        "loops-L-long",
        _set("studies.lo", {"kind": "loops", "count": [{"n_e": 3, "L": [10]}]}),
        "studies.lo.count[0].L: 10 is not allowed for n_e = 3 (2 n_e <= L <= 2^n_e)",
    ),
    (
        "loops-variant",
        _set("studies.lo", {"kind": "loops", "count": [{"n_e": 3}], "variants": ["Q"]}),
        "studies.lo.variants[0]: 'Q' is not one of R, R+, W, W+",
    ),
    (
        "loops-no-n_e",
        _set("studies.lo", {"kind": "loops", "count": [{"L": [6]}]}),
        "studies.lo.count[0]: 'n_e' is a required property",
    ),
    ("rule-empty", _set("studies.s.rule", []), "studies.s.rule: [] should be non-empty"),
    ("spans-twice", _set("studies.s.spans", ["spin", "spin"]), "has non-unique elements"),
    ("N-twice", _set("studies.s.N", [4, 4]), "studies.s.N: [4, 4] has non-unique elements"),
    ("J0-and-NJ0", _set("studies.s.J0", [0.1]), "studies.s: give exactly one of NJ0 or J0"),
    ("records-word", _set("studies.big.records", {"l4": "x"}), "studies.big.records.l4: 'x'"),
    (
        "observables-scalar",
        _set("studies.s.observables", "avalanche"),
        "studies.s.observables: 'avalanche' is not allowed (all, or a list of",
    ),
    ("study-string", _set("studies.s", "x"), "studies.s: 'x' is not of type 'object'"),
    ("study-list", _set("studies.s", [1]), "studies.s: [1] is not of type 'object'"),
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


def test_the_suite_has_at_least_a_hundred_and_fifty_malformed_inputs():
    from test_bad_input_cli import CLI_CASES

    assert len(CONFIGS) >= 100 and len(POINT_OPTIONS) + len(CLI_CASES) >= 60
    assert len(CONFIGS) + len(POINT_OPTIONS) + len(CLI_CASES) >= 150


def test_figure_params_are_the_drawing_functions_keyword_parameters():
    """Every parameter name accepted for a figure type is a keyword-only parameter of its
    drawing function (read from the source without importing it), and none is missing."""
    import inspect

    from hyst.plotting.figure_params import accepted
    from hyst.plotting.registry import FIGURE_TYPES

    for ftype in FIGURE_TYPES.values():
        signature = inspect.signature(ftype.function())
        keyword = {
            n for n, p in signature.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY
        }
        assert set(accepted(ftype.draw) or ()) == keyword, ftype.name


def test_a_valid_config_that_does_what_its_author_may_not_mean_gets_a_warning(
    tmp_path, monkeypatch, capsys
):
    """Couplings that all round to 0, and more threads than the machine has, are not refused
    but named in a warning line of `hyst config check` (exit 0)."""
    import os

    monkeypatch.chdir(tmp_path)
    cfg = copy.deepcopy(BASE)
    cfg["studies"]["s"]["NJ0"] = [1e-300, 1.0]
    cfg["resources"] = {"threads": (os.cpu_count() or 1) + 1}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["config", "check", "c.yaml"]) == 0
    out = capsys.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 3, out  # N = 3 and N = 4 at NJ0 = 1e-300, and the threads
    assert warnings[0].startswith("warning: studies.s.NJ0: 1e-300 at N = 3 makes every coupling")
    assert "resources.threads" in warnings[2]
    cfg["studies"]["s"]["NJ0"] = [2.0**-40 * 3 * 0.6]  # one quantum at N = 3, none at N = 4
    cfg["resources"] = {}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["config", "check", "c.yaml"]) == 0
    warnings = [w for w in capsys.readouterr().out.splitlines() if w.startswith("warning: ")]
    assert len(warnings) == 1 and "at N = 4" in warnings[0], warnings


def test_natural_spellings_are_accepted(tmp_path):
    cfg = copy.deepcopy(BASE)
    cfg["studies"]["s"]["rule"] = [1, "1p", 0]  # YAML integers are rules
    cfg["results"] = str(tmp_path / "not" / "yet" / "there")
    out = validate(cfg)
    assert out["studies"]["s"]["rule"] == ["1", "1p", "0"]
    assert not (tmp_path / "not").exists()  # checking the results folder creates nothing


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
    ("seed-2-to-the-64", ["--seed", str(2**64)], "--seed: 18446744073709551616 is not allowed"),
    ("threads", ["--threads", "0"], "--threads: 0 is not allowed"),
    ("output-suffix", ["-o", "out.txt"], "--output: 'out.txt' is not allowed (a .nc file)"),
]


@pytest.mark.parametrize(
    "options, message", [pytest.param(o, m, id=i) for i, o, m in POINT_OPTIONS]
)
def test_a_bad_point_option_is_rejected_with_one_line_and_no_file(
    tmp_path, monkeypatch, capsys, options, message
):
    from test_bad_input_cli import point

    monkeypatch.chdir(tmp_path)
    args = point(*options)
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


# ---- a property: any one field of a valid configuration corrupted -----------------------

from hypothesis import given  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _leaves(node, path=()):
    """Every (path, value) of a configuration: its mappings' entries and lists' items, the
    containers themselves included."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, (*path, i))


#: A valid configuration with every default filled in (so every key of the schema that BASE
#: reaches is there to corrupt).
FILLED = validate(copy.deepcopy(BASE), check_paths=False)
#: The paths to corrupt: every key and list item below the top level, names of studies,
#: figures and the like excepted (they are keys, not values).
PATHS = [path for path, _ in _leaves(FILLED) if path]


def _wrong(value):
    """Values of the wrong kind for ``value``'s place (the schema allows none of them)."""
    if isinstance(value, bool):
        return ["maybe", 3]
    if isinstance(value, int | float):
        return ["seven", [value], float("nan")]
    if isinstance(value, str):
        return [[value], {"a": value}, 7]
    if isinstance(value, list):
        return [{"a": 1}, "text", 5]
    if isinstance(value, dict):
        return [5, ["x"]]
    return [5, ["x"]]  # None: a file or address not given


def _key(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


#: Places where a value of any type is allowed (free text and the like): none is corrupted.
FREE = {("studies", name, "description") for name in FILLED["studies"]}


@hypothesis_settings(max_examples=60)
@given(
    path=st.sampled_from([p for p in PATHS if p not in FREE]),
    choice=st.integers(0, 2),
    extra=st.booleans(),
)
def test_any_one_corrupted_field_is_refused_in_one_line_naming_it(path, choice, extra):
    """One field of a valid configuration corrupted (a value of the wrong kind, or an unknown
    key beside it): `hyst config check` exits 2 with one line that names the field (or the
    mapping that holds it), and nothing is written."""
    import os
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp()
    cfg = copy.deepcopy(FILLED)
    cfg["results"] = os.path.join(tmp, "results")
    *parents, last = path
    node = cfg
    for p in parents:
        node = node[p]
    if extra and isinstance(node, dict) and parents and parents[0] not in ("studies",):
        node["bogus_key"] = 1
        named = _key((*parents, "bogus_key"))
    else:
        options = _wrong(node[last])
        node[last] = options[choice % len(options)]
        named = _key(path)
    config = os.path.join(tmp, "c.yaml")
    with open(config, "w") as fh:
        fh.write(yaml.safe_dump(cfg))
    code, err = _config_check(config)
    assert sorted(os.listdir(tmp)) == ["c.yaml"]  # nothing written
    shutil.rmtree(tmp)
    assert code == 2, (named, err)
    assert err.count("\n") == 1 and err.startswith("hyst config: error: "), err
    reported = err.removeprefix("hyst config: error: ").split(": ")[0]
    # the line names the field itself, or the mapping or list that holds it
    assert named.startswith(reported.split(" ")[0]) or reported.startswith(named), (named, err)


def _config_check(path) -> tuple[int, str]:
    """`hyst config check path` in this process: (exit status, standard error)."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["config", "check", path])
    return code, err.getvalue()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"spans": ["spin"]}, "spans: ['spin'] is not one of hysteron, spin, equal"),
        ({"couplings": {"random": 1}}, "couplings: {'random': 1} is not one of random"),
        ({"seed": 2**64}, "seed: 18446744073709551616 is not allowed (an integer, 0 <= seed"),
        ({"rule": [1]}, "rule: [1] is not one of 0, 1, 1p, 2"),
    ],
    ids=["spans-list", "couplings-dict", "seed-2-to-the-64", "rule-list"],
)
def test_the_api_refuses_what_the_command_line_refuses_in_one_line(kwargs, message):
    import hyst

    args = {"couplings": "random", "N": 3, "NJ0": 1.0, "samples": 10, **kwargs}
    with pytest.raises(ValueError) as err:
        hyst.sample_point(**args)
    assert str(err.value).startswith(message) and "\n" not in str(err.value), err.value
