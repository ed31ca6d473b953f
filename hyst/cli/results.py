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


def cmd_status(args) -> int:
    """Each study's result files and failed jobs, then Snakemake's files by stage."""
    import json

    from hyst.pipeline.config import ConfigError, load
    from hyst.pipeline.status import file_statuses, snakemake_summary, study_statuses, to_make

    try:
        config = load(args.file)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    studies = study_statuses(config)
    try:
        rows = snakemake_summary(args.file)
    except (FileNotFoundError, RuntimeError) as err:
        raise UsageError(str(err)) from None
    stages = file_statuses(rows, config["results"])
    pending = to_make(rows, config["results"])
    if args.json:
        print(
            json.dumps(
                {
                    "configuration": str(args.file),
                    "results": config["results"],
                    "studies": {
                        s.name: {
                            "kind": s.kind,
                            "result_files": dict(s.units),
                            "jobs": s.jobs,
                            "failed_jobs": s.failed,
                        }
                        for s in studies
                    },
                    "files": {stage: dict(c) for stage, c in stages.items()},
                    "to_make": [{"file": f, "why": why} for f, why in pending],
                },
                indent=1,
            )
        )
        return 0
    print(f"{args.file}: results in {config['results']}/")
    for study in studies:
        print(f"  {study.line()}")
    for stage, counts in sorted(stages.items()):
        parts = ", ".join(f"{n} {state}" for state, n in sorted(counts.items(), reverse=True))
        print(f"  {stage}: {parts}")
    for path, why in pending[: args.show]:
        print(f"    {path}: {why}")
    if len(pending) > args.show:
        print(f"    … and {len(pending) - args.show} more (--show N lists more)")
    done = not pending and all(not s.failed for s in studies)
    print("up to date: nothing to run" if done else "to finish: run the same command again")
    return 0


def add_results_parsers(sub) -> None:
    """The ``status``, ``verify`` and ``export`` subcommands."""
    status = subcommand(
        sub,
        "status",
        "where a run of a configuration stands",
        "For a configuration (run in this folder, as the pipeline runs it): each study's "
        "result files done (reused by a rerun), stale (their code or what determines them "
        "changed) or missing, and its jobs that failed or were stopped; then the datasets, "
        "analyses, figures, tables and pages up to date or to make, with why (Snakemake's "
        "own view, from a dry run).",
    )
    status.add_argument("file", help="the configuration file (e.g. config/quick.yaml)")
    status.add_argument("--json", action="store_true", help="print JSON instead of lines")
    status.add_argument(
        "--show", type=int, default=10, metavar="N", help="list at most N files to make"
    )
    status.set_defaults(run=cmd_status)
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
