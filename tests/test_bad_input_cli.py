"""Every bad command-line input is caught: each of ``hyst``'s commands answers a malformed
option, file or value with one line naming the option (or file), the value and what is
allowed, exit status 2, no traceback, and writes nothing (the folder it runs in is
unchanged, and so are the files given to it)."""

from __future__ import annotations

import pytest

from hyst.cli.main import main

POINT = ["point", "--couplings", "random", "--N", "3", "--NJ0", "1", "--samples", "10", "-q"]
SYSTEM = ["system", "--couplings", "random", "--N", "4", "--NJ0", "4", "--samples", "10"]
SYSTEM += ["--index", "0"]


def _with(base, options):
    """``base`` with ``options`` (flag, value pairs) replacing or extending it."""
    args = list(base)
    for flag, value in zip(options[::2], options[1::2], strict=True):
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    return args


def point(*options):
    """POINT with ``options``, and -o out.nc unless they give -o."""
    args = _with(POINT, options)
    return args if "-o" in args else [*args, "-o", "out.nc"]


def system(*options):
    return _with(SYSTEM, options)


#: (id, arguments, a fragment of the one-line message). The files named exist in the
#: folder the command runs in (see ``_files``).
CLI_CASES = [
    # hyst point: sizes and costs past a limit, output folders, values
    ("point-N-huge", point("--N", "100000"), "--N: 100000 needs about 4.7 TiB of memory"),
    (
        "point-samples-huge",
        point("--samples", str(10**14)),
        "--samples: 100000000000000 at N = 3 needs about",
    ),
    (
        "point-enumeration-limit",
        point("--N", "20", "--observables", "transitions"),
        "--observables: 'transitions' needs N <= 18 (N = 20; at N = 20: any_self_loop "
        "(N <= 32), addressability (N <= 64), avalanche, cyclic, saturated_loop, multiperiodic, "
        "periods (any N))",
    ),
    (
        "point-any-self-loop-limit",
        point("--N", "40", "--observables", "any_self_loop"),
        "--observables: 'any_self_loop' needs N <= 32 (N = 40; at N = 40: addressability",
    ),
    (
        "point-output-unwritable",
        point("-o", "/proc/hyst/p.nc"),
        "--output: '/proc/hyst/p.nc' cannot be written",
    ),
    (
        "point-output-below-a-file",
        point("-o", "afile/p.nc"),
        "--output: 'afile/p.nc' is not allowed (exists and is not a folder)",
    ),
    ("point-output-a-folder", point("-o", "adir.nc"), "--output: 'adir.nc' is not allowed (a"),
    ("point-NJ0-word", point("--NJ0", "x"), "--NJ0: 'x' is not a number"),
    ("point-seed-word", point("--seed", "x"), "--seed: 'x' is not an integer"),
    ("point-threads-word", point("--threads", "x"), "--threads: 'x' is not an integer"),
    ("point-max-hours-zero", point("--max-core-hours", "0"), "--max-core-hours: 0 is not"),
    ("point-observables-empty", point("--observables", ""), "--observables: '' is not one of"),
    (
        "point-observables-one-bad",
        point("--observables", "avalanche,nope"),
        "--observables: 'nope' is not one of",
    ),
    ("point-records-no-count", point("--records", "l4"), "--records: 'l4' is not allowed"),
    ("point-spans", point("--spans", "wide"), "--spans: invalid choice: 'wide'"),
    ("point-samples-fraction", point("--samples", "1.5"), "--samples: '1.5' is not an integer"),
    (
        "point-N-missing",
        [a for a in point() if a not in ("--N", "3")],
        "the following arguments are required: --N",
    ),
    ("point-unknown-option", [*point(), "--foo", "1"], "unrecognized arguments: --foo 1"),
    # hyst system
    ("system-N-large", system("--N", "30"), "--N: N = 30 is not allowed (a transition graph"),
    ("system-N-one", system("--N", "1"), "--N: 1 is not allowed (N >= 2)"),
    ("system-NJ0-nan", system("--NJ0", "nan"), "--NJ0: nan is not allowed (a finite number > 0)"),
    ("system-samples-zero", system("--samples", "0"), "--samples: 0 is not allowed"),
    ("system-index-negative", system("--index", "-1"), "--index: -1 is not allowed (index >= 0)"),
    (
        "system-index-past-samples",
        system("--index", "10"),
        "index: 10 is not allowed (0 <= index < samples = 10)",
    ),
    (
        "system-seed-negative",
        system("--seed", "-3"),
        "--seed: -3 is not allowed (0 <= seed < 2^64)",
    ),
    ("system-rule", system("--rule", "9"), "--rule: invalid choice: '9'"),
    ("system-couplings", system("--couplings", "x"), "--couplings: invalid choice: 'x'"),
    ("system-no-index", SYSTEM[:-2], "--index: required without --file (an ensemble spec)"),
    (
        "system-file-and-ensemble",
        ["system", "--file", "good.yaml", "--couplings", "random"],
        "give either --file or an ensemble",
    ),
    ("system-file-missing", ["system", "--file", "nope.yaml"], "nope.yaml: no such file"),
    (
        "system-file-binary",
        ["system", "--file", "binary.yaml"],
        "binary.yaml: not a text file (byte 128 is not UTF-8)",
    ),
    (
        "system-file-duplicate-key",
        ["system", "--file", "twice.yaml"],
        "twice.yaml: not valid YAML: h_plus: duplicate key (line 2; first on line 1)",
    ),
    ("system-file-format", ["system", "--file", "afile"], "afile: unknown format ''"),
    (
        "system-export-format",
        ["system", "--file", "good.yaml", "--export", "s.txt"],
        "--export: 's.txt' is not allowed (a file ending in .yaml, .yml, .json, .npz)",
    ),
    (
        "system-export-unwritable",
        ["system", "--file", "good.yaml", "--export", "/proc/hyst/s.yaml"],
        "--export: '/proc/hyst/s.yaml' cannot be written",
    ),
    # hyst system: drive protocols
    ("system-drive-word", system("--drive", "a,b"), "--drive: 'a,b' is not allowed (comma-sep"),
    ("system-drive-empty-item", system("--drive", "1,,2"), "--drive: '1,,2' is not allowed"),
    ("system-drive-inf", system("--drive", "1,inf"), "--drive: '1,inf' is not allowed (finite"),
    ("system-drive-huge", system("--drive", "1e30"), "--drive: '1e30' is not allowed (finite"),
    (
        "system-symmetric-negative",
        system("--symmetric", "-1"),
        "--symmetric: '-1' is not allowed (one amplitude A >= 0)",
    ),
    (
        "system-asymmetric-order",
        system("--asymmetric", "1,0"),
        "--asymmetric: '1,0' is not allowed (HMIN,HMAX with HMIN <= HMAX)",
    ),
    (
        "system-two-protocols",
        [*SYSTEM, "--sweep", "--symmetric", "1"],
        "--symmetric: not allowed with argument --sweep",
    ),
    (
        "system-return-point-alone",
        [*SYSTEM, "--return-point", "1,-1"],
        "--return-point: needs --sub-field HS",
    ),
    ("system-sub-field-alone", [*SYSTEM, "--sub-field", "0"], "--sub-field: only with --return"),
    (
        "system-sub-field-beyond",
        [*SYSTEM, "--return-point", "1,-1", "--sub-field", "-2"],
        "--sub-field: -2 is not allowed (a sub-loop turns back from the last turning field -1)",
    ),
    (
        "system-sub-field-nan",
        [*SYSTEM, "--return-point", "1", "--sub-field", "nan"],
        "--sub-field: nan is not allowed (a finite field)",
    ),
    (
        "system-start-word",
        [*SYSTEM, "--sweep", "--start", "left", "-o", "out/d"],
        "--start: 'left' is not allowed (down, up, random, 4 bits 0/1 or 4 signs +/- with "
        "element 0 first, or an integer 0 <= k < 2^4 whose bit i is s_i = +1)",
    ),
    (
        "system-start-bits-length",
        [*SYSTEM, "--drive", "1", "--start", "101"],
        "--start: '101' is not allowed (down, up, random, 4 bits",
    ),
    (
        "system-start-integer-beyond",
        [*SYSTEM, "--symmetric", "1", "--start", "16"],
        "--start: '16' is not allowed",
    ),
    (
        "system-start-random-unseeded",
        [*SYSTEM, "--asymmetric=-1,1", "--start", "random", "-o", "out/d"],
        "--start: random needs --start-seed S",
    ),
    (
        "system-start-seed-alone",
        [*SYSTEM, "--sweep", "--start-seed", "3"],
        "--start-seed: only with --start random",
    ),
    (
        "system-start-without-protocol",
        [*SYSTEM, "--start", "up"],
        "--start: 'up' only with a drive protocol",
    ),
    (
        "system-max-cycles-zero",
        [*SYSTEM, "--sweep", "--max-cycles", "0"],
        "--max-cycles: 0 is not allowed",
    ),
    # hyst loops
    (
        "loops-results-unwritable",
        ["loops", "--n-e", "3", "--results", "/proc/hyst"],
        "--results: '/proc/hyst' cannot be written",
    ),
    (
        "loops-results-a-file",
        ["loops", "--n-e", "3", "--results", "afile"],
        "--results: 'afile' is not allowed (exists and is not a folder)",
    ),
    ("loops-n_e-one", ["loops", "--n-e", "1"], "--n-e: 1 is not allowed (2 <= K <= 6)"),
    ("loops-n_e-nine", ["loops", "--n-e", "9"], "--n-e: 9 is not allowed (2 <= K <= 6)"),
    ("loops-n_e-word", ["loops", "--n-e", "x"], "--n-e: 'x' is not an integer"),
    ("loops-L-odd", ["loops", "--n-e", "3", "--L", "5"], "--L: 5 is not allowed (an even"),
    (
        "loops-L-long",
        ["loops", "--n-e", "3", "--L", "10"],
        "--L: 10 is not allowed for n_e = 3 (2 n_e <= L <= 2^n_e)",
    ),
    ("loops-n_e-6-no-L", ["loops", "--n-e", "6"], "--L: give the lengths for --n-e 6"),
    ("loops-variants", ["loops", "--n-e", "3", "--variants", "Q"], "--variants: 'Q' is not"),
    ("loops-realize-max", ["loops", "--n-e", "3", "--realize-max", "-1"], "--realize-max: -1"),
    ("loops-mode", ["loops", "--n-e", "3", "--mode", "x"], "--mode: invalid choice: 'x'"),
    ("loops-lp-form", ["loops", "--n-e", "3", "--lp-form", "x"], "--lp-form: invalid choice"),
    ("loops-threads-zero", ["loops", "--n-e", "3", "--threads", "0"], "--threads: 0 is not"),
    # hyst config
    ("config-missing", ["config", "check", "nope.yaml"], "nope.yaml: no such configuration"),
    (
        "config-binary",
        ["config", "check", "binary.yaml"],
        "binary.yaml: not a text file (byte 128 is not UTF-8); give a YAML configuration",
    ),
    ("config-folder", ["config", "check", "adir"], "adir: is a folder, not a YAML configuration"),
    (
        "config-duplicate-study",
        ["config", "check", "twice-study.yaml"],
        "twice-study.yaml: s: duplicate key (line 3; first on line 2); give each key once",
    ),
    (
        "config-warn-zero",
        ["config", "check", "good.yaml", "--warn-core-hours", "0"],
        "--warn-core-hours: 0 is not allowed (a finite number > 0)",
    ),
    ("config-action", ["config", "nope"], "action: invalid choice: 'nope'"),
    # hyst profile, hyst cluster, hyst itself
    ("profile-name", ["profile", "install", "nope"], "name: invalid choice: 'nope'"),
    (
        "profile-dest-exists",
        ["profile", "install", "default", "--dest", "adir"],
        "--dest: adir exists (use --force to overwrite)",
    ),
    ("cluster-kind", ["cluster", "nope", "--scheduler-file", "s.json"], "kind: invalid choice"),
    (
        "cluster-workers",
        ["cluster", "local", "--scheduler-file", "s.json", "--workers", "0"],
        "--workers: 0 is not allowed (must be >= 1)",
    ),
    (
        "cluster-cores",
        ["cluster", "slurm", "--scheduler-file", "s.json", "--cores", "x"],
        "--cores: 'x' is not an integer",
    ),
    (
        "profile-dest-unwritable",
        ["profile", "install", "default", "--dest", "/proc/hyst-x/y"],
        "--dest: '/proc/hyst-x/y' cannot be written",
    ),
    (
        "system-output-unwritable",
        ["system", "--file", "good.yaml", "-o", "/proc/hyst-x/graph"],
        "--output: '/proc/hyst-x/graph' cannot be written",
    ),
    ("system-file-true", ["system", "--file", "true.yaml"], "h_plus[0]: True is not allowed"),
    (
        "system-file-string",
        ["system", "--file", "string.yaml"],
        "c[0,1]: '0.75' is not allowed (a real number)",
    ),
    (
        "system-file-complex",
        ["system", "--file", "complex.yaml"],
        "h_minus[1]: '1+2j' is not allowed (a real number)",
    ),
    (
        "tgraphs-pairwise-n4",
        ["tgraphs", "--n", "4", "--pairwise-sample", "5"],
        "--pairwise-sample: 5 is not allowed with --n 4",
    ),
    ("seed-2-to-the-64", system("--seed", str(2**64)), "--seed: 18446744073709551616 is not"),
    ("no-command", [], "the following arguments are required: command"),
    ("unknown-command", ["nope"], "command: invalid choice: 'nope'"),
]


def _files(folder):
    """The files and folders the cases name."""
    (folder / "afile").write_text("not a folder\n")
    (folder / "adir").mkdir()
    (folder / "adir.nc").mkdir()
    (folder / "binary.yaml").write_bytes(bytes(range(256)))
    (folder / "good.yaml").write_text(
        "h_plus: [0.5, 0.25]\nh_minus: [-0.5, -0.25]\nc: [[0, 0.75], [-0.75, 0]]\n"
    )
    (folder / "twice.yaml").write_text(
        "h_plus: [0.5, 0.25]\nh_plus: [0.5, 0.25]\nh_minus: [0, 0]\nc: [[0, 1], [1, 0]]\n"
    )
    for name, text in (
        ("true", "h_plus: [true, 0.25]\nh_minus: [-0.5, -0.25]\nc: [[0, 0.75], [-0.75, 0]]\n"),
        ("string", 'h_plus: [0.5, 0.25]\nh_minus: [-0.5, -0.25]\nc: [[0, "0.75"], [-0.75, 0]]\n'),
        ("complex", "h_plus: [0.5, 0.25]\nh_minus: [-0.5, 1+2j]\nc: [[0, 0.75], [-0.75, 0]]\n"),
    ):
        (folder / f"{name}.yaml").write_text(text)
    (folder / "twice-study.yaml").write_text(
        "studies:\n  s: {kind: pairs, samples: 1}\n  s: {kind: pairs, samples: 2}\n"
    )


def _snapshot(folder):
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_mtime_ns if p.is_file() else 0)
        for p in folder.rglob("*")
    )


@pytest.mark.parametrize("args, message", [pytest.param(a, m, id=i) for i, a, m in CLI_CASES])
def test_a_bad_command_line_gets_one_line_exit_2_and_writes_nothing(
    tmp_path, monkeypatch, capsys, args, message
):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    before = _snapshot(tmp_path)
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse's errors
        code = exit_.code
    captured = capsys.readouterr()
    assert code == 2, captured
    err = captured.err
    assert err.count("\n") == 1 and err.startswith("hyst"), err
    assert ": error: " in err and message in err, err
    assert "Traceback" not in err and captured.out == ""
    assert _snapshot(tmp_path) == before  # nothing written


def test_case_ids_are_unique():
    ids = [i for i, _a, _m in CLI_CASES]
    assert len(ids) == len(set(ids))
