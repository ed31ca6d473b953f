"""``hyst verify`` and ``hyst export``: a run's results folder checked against its manifest,
and packaged as an RO-Crate (:mod:`hyst.pipeline.manifest`, :mod:`hyst.pipeline.export`)."""

from __future__ import annotations

import sys
from pathlib import Path

from hyst.cli.arguments import UsageError, plural, subcommand


def _results_argument(parser) -> None:
    parser.add_argument(
        "results",
        nargs="?",
        default="results",
        help="the results folder of a run (default: results)",
    )


def _manifest_of(results: str) -> Path:
    from hyst.pipeline.manifest import MANIFEST

    folder = Path(results)
    if not folder.is_dir():
        raise UsageError(f"results: {results!r} is not a folder")
    if not (folder / MANIFEST).exists():
        raise UsageError(
            f"results: {results!r} has no {MANIFEST} (a run writes it at its end: run the "
            "pipeline to completion first)"
        )
    return folder / MANIFEST


def cmd_verify(args) -> int:
    """Print one line per problem (exit 1), or one line saying all is well (exit 0)."""
    from hyst.pipeline.manifest import verify

    manifest = _manifest_of(args.results)
    problems, checked = verify(args.results)
    for line in problems:
        print(line)
    if problems:
        print(
            f"hyst verify: {len(problems)} {plural(len(problems), 'problem')} in {checked} "
            f"files of {manifest}",
            file=sys.stderr,
        )
        return 1
    print(f"{args.results}: {checked} files match {manifest}, made by the current code")
    return 0


def cmd_export(args) -> int:
    """Write the RO-Crate of a run (one line: where, how many files)."""
    from hyst.pipeline.export import export_ro_crate

    _manifest_of(args.results)
    try:
        path, count = export_ro_crate(args.results, args.ro_crate)
    except FileExistsError as err:
        raise UsageError(f"--ro-crate: {err}") from None
    except OSError as err:
        raise UsageError(
            f"--ro-crate: {args.ro_crate!r} cannot be written ({err.strerror})"
        ) from None
    print(f"{path}: RO-Crate of {count} result files of {args.results} (ro-crate-metadata.json)")
    return 0


def add_results_parsers(sub) -> None:
    """The ``verify`` and ``export`` subcommands."""
    verify = subcommand(
        sub,
        "verify",
        "check a run's results against its manifest and the current code",
        "Rehash every result file (datasets, analyses, figures, captions, tables, the "
        "comparison page) of a run's results folder against the manifest the run wrote "
        "(manifest.json), and compare the fingerprints of the code that made each with the "
        "current code. Prints one line for each file missing, changed since the run, or "
        "made by code that has changed since; exits with 1 if there is any.",
    )
    _results_argument(verify)
    verify.set_defaults(run=cmd_verify)
    export = subcommand(
        sub,
        "export",
        "package a run's results for a data repository (RO-Crate)",
        "Write a Workflow Run RO-Crate (https://w3id.org/ro/wfrun/workflow) of a run: its "
        "result files, manifest, configuration, workflow, software versions and timings, "
        "described in ro-crate-metadata.json. Zip the folder to deposit it.",
    )
    _results_argument(export)
    export.add_argument(
        "--ro-crate",
        required=True,
        metavar="DIR",
        help="the folder to write the crate to (new, or empty)",
    )
    export.set_defaults(run=cmd_export)
