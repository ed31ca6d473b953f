"""The ``hyst`` command line.

    hyst point --couplings random --spans hysteron --rule 1 --N 10 --NJ0 100 \\
               --samples 20000 --seed 1 -o point.nc

A bad option gets one line naming the option and what is allowed, exit status 2,
and no output file.
"""

from __future__ import annotations

import argparse
import sys
import time

from hyst._version import __version__
from hyst.cli.arguments import (
    Parser,
    UsageError,
    n_type,
    nj0_type,
    positive_int,
    seed_type,
)


def build_parser() -> argparse.ArgumentParser:
    from hyst.catalogue import ANY_SELF_LOOP_MAX_N, ENUMERATION_MAX_N, GROUPS, RECORDS, observables
    from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES
    from hyst.model.systems import RULE_DESCRIPTIONS, RULES

    parser = Parser(prog="hyst", description="Statistics of interacting hysterons.")
    parser.add_argument("--version", action="version", version=f"hyst {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser(
        "point",
        help="sample one sweep point and write every observable to NetCDF",
        description=(
            "Sample --samples systems of one ensemble at (N, NJ0) and compute every "
            "per-system observable under one race-condition rule. The output NetCDF holds, "
            "per observable, the count, the estimate and its standard error, histograms, "
            "L = 4 self-loop records and provenance attributes. Results depend only on the "
            "options (not on --threads)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="coupling ensembles:\n"
        + "".join(f"  {k:10s} {v}\n" for k, v in COUPLING_ENSEMBLES.items())
        + "span ensembles:\n"
        + "".join(f"  {k:10s} {v}\n" for k, v in SPAN_ENSEMBLES.items())
        + "race-condition rules:\n"
        + "".join(f"  {k:10s} {v}\n" for k, v in RULE_DESCRIPTIONS.items())
        + "observable groups:\n"
        + "".join(f"  {k:14s} {g.description}\n" for k, g in GROUPS.items()),
    )
    p.add_argument(
        "--couplings", required=True, choices=list(COUPLING_ENSEMBLES), help="interaction ensemble"
    )
    p.add_argument(
        "--spans",
        default="hysteron",
        choices=list(SPAN_ENSEMBLES),
        help="span ensemble (default: hysteron, sigma ~ U[0, 0.5])",
    )
    p.add_argument(
        "--rule",
        default="1",
        choices=list(RULES),
        help="race-condition rule (default: 1, most unstable first)",
    )
    p.add_argument("--N", required=True, type=n_type, help="number of elements (>= 2)")
    p.add_argument(
        "--NJ0",
        required=True,
        type=nj0_type,
        help="coupling strength N*J0 (> 0); couplings are drawn in [-J0, J0]",
    )
    p.add_argument(
        "--samples",
        required=True,
        type=positive_int("samples"),
        help="number of sampled systems (>= 1)",
    )
    p.add_argument("--seed", default=0, type=seed_type, help="base seed (default 0)")
    p.add_argument(
        "--observables",
        default="all",
        help=f"comma-separated groups from {', '.join(GROUPS)} or 'all' "
        f"(default: all that apply; enumeration needs N <= {ENUMERATION_MAX_N}, "
        f"any_self_loop N <= {ANY_SELF_LOOP_MAX_N})",
    )
    p.add_argument(
        "--records",
        default="",
        help=f"records to store, NAME=K with at most K per point (a seeded random sample), "
        f"comma-separated; NAME from {', '.join(o.name for o in observables(RECORDS))} "
        "(default: none)",
    )
    p.add_argument(
        "--threads",
        type=positive_int("threads"),
        default=None,
        help="numba threads (default: all cores)",
    )
    p.add_argument("-o", "--output", required=True, help="output NetCDF file")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")

    c = sub.add_parser("config", help="validate a sweep configuration")
    csub = c.add_subparsers(dest="action", required=True, parser_class=Parser)
    check = csub.add_parser("check", help="validate FILE and print its studies, jobs, figures")
    check.add_argument("file", help="YAML configuration, e.g. config/config.yaml")
    csub.add_parser(
        "schema", help="print the whole configuration schema (every study kind's part) as YAML"
    )

    pr = sub.add_parser("profile", help="install a Snakemake profile of this repository")
    psub = pr.add_subparsers(dest="action", required=True, parser_class=Parser)
    inst = psub.add_parser(
        "install",
        help="copy profiles/NAME to ~/.config/snakemake/NAME so that "
        "`snakemake --profile NAME` works from any folder",
    )
    inst.add_argument("name", choices=["slurm", "default"], help="profile to install")
    inst.add_argument(
        "--dest",
        default=None,
        help="target folder (default: $XDG_CONFIG_HOME or ~/.config, /snakemake/NAME)",
    )
    inst.add_argument("--force", action="store_true", help="overwrite an existing profile")

    from hyst.cli.loops import add_parser as add_loops_parser
    from hyst.cli.system import add_parser as add_system_parser

    add_loops_parser(sub)
    add_system_parser(sub)

    cl = sub.add_parser(
        "cluster",
        help="start a Dask cluster and write its scheduler file (runs until interrupted)",
        description="Start a Dask cluster for the pipeline and write a scheduler file; put "
        "`dask: {scheduler_file: FILE}` in the sweep config to use it. `local` starts a "
        "scheduler and worker processes on this machine; `slurm` starts workers as SLURM "
        "jobs with dask-jobqueue. Runs until interrupted (Ctrl-C).",
    )
    cl.add_argument("kind", choices=["local", "slurm"], help="where the workers run")
    cl.add_argument("--scheduler-file", required=True, help="scheduler file to write")
    cl.add_argument(
        "--workers",
        type=positive_int("workers"),
        default=2,
        help="worker processes (local) or SLURM jobs (slurm); default 2",
    )
    cl.add_argument(
        "--cores",
        type=positive_int("cores"),
        default=1,
        help="slurm: cores per SLURM job (one single-threaded worker each)",
    )
    cl.add_argument("--memory", default="4GB", help="slurm: memory per SLURM job (e.g. 4GB)")
    cl.add_argument("--walltime", default="02:00:00", help="slurm: wall time per SLURM job")
    cl.add_argument("--partition", default=None, help="slurm: partition (queue)")
    cl.add_argument("--account", default=None, help="slurm: account")
    return parser


def parse_records(text: str, groups) -> tuple:
    """``--records`` ("l4=2000,...") as a sorted tuple of (name, k); one-line errors."""
    from hyst.catalogue import RECORDS, observables

    known = {o.name: o for o in observables(RECORDS)}
    caps = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        name, _, value = item.partition("=")
        if name not in known or not value.strip().isdigit() or int(value) < 1:
            raise UsageError(
                f"--records: {item!r} is not allowed (NAME=K with NAME one of "
                f"{', '.join(known)} and an integer K >= 1)"
            )
        if not set(known[name].groups) & set(groups):
            raise UsageError(
                f"--records: {name!r} records come from {' or '.join(known[name].groups)}, "
                f"which --observables does not compute ({', '.join(groups)})"
            )
        caps[name] = int(value)
    return tuple(sorted(caps.items()))


def cmd_point(args) -> int:
    import numba

    from hyst.catalogue.variables import describe
    from hyst.provenance.files import write_dataset
    from hyst.sampling.sampler import Point, resolve_groups
    from hyst.studies.points import PointSpec

    if not args.output.endswith((".nc", ".nc4", ".netcdf")):
        raise UsageError(f"--output: {args.output!r} is not allowed (a .nc file)")
    try:
        point = Point(args.couplings, args.spans, args.rule, args.N, args.NJ0)
    except ValueError as err:
        raise UsageError(f"--{err}") from None
    groups = None if args.observables == "all" else args.observables.split(",")
    try:
        groups = resolve_groups(point, groups)
    except ValueError as err:
        raise UsageError(f"--{err}") from None
    records = parse_records(args.records, groups)
    if args.threads:
        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))

    def progress(done, total, samples_done, rate):
        if not args.quiet:
            print(
                f"hyst point: chunk {done}/{total}, {samples_done} samples, {rate:,.0f} samples/s",
                file=sys.stderr,
                flush=True,
            )

    t0 = time.perf_counter()
    spec = PointSpec(point, args.samples, groups, args.seed, records)
    write_dataset(describe(spec.sample(progress)), args.output)
    if not args.quiet:
        print(
            f"hyst point: wrote {args.output} ({args.samples} samples in "
            f"{time.perf_counter() - t0:.1f} s)",
            file=sys.stderr,
        )
    return 0


def cmd_config(args) -> int:
    import yaml

    from hyst.pipeline.config import ConfigError, load, schema
    from hyst.studies import plan

    if args.action == "schema":
        print(yaml.safe_dump(schema(), sort_keys=False, allow_unicode=True), end="")
        return 0
    try:
        config = load(args.file)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    p = plan(config)
    jobs = ", ".join(f"{len(j)} {kind}" for kind, j in p.jobs.items() if j)
    print(
        f"{args.file}: valid; {len(config['studies'])} studies, jobs: {jobs or 'none'}; "
        f"{len(config['figures'])} figures; {len(config['comparison'])} comparison sections"
    )
    for name, study in config["studies"].items():
        print(f"  study {name} ({study.get('kind', 'points')}): {len(p.needs[name])} jobs")
    for name, binding in config["figures"].items():
        print(f"  figure {name} ({binding['type']}): {', '.join(binding['studies'])}")
    for name, binding in config["comparison"].items():
        print(f"  comparison {name} ({binding['type']}): {', '.join(binding['studies'])}")
    return 0


def repository_profiles():
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / "profiles"


def cmd_profile(args) -> int:
    import os
    import shutil
    from pathlib import Path

    source = repository_profiles() / args.name
    if not (source / "config.yaml").exists():
        raise UsageError(f"profile: {source} not found (run from a clone of the repository)")
    if args.dest:
        dest = Path(args.dest)
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))
        dest = base / "snakemake" / args.name
    if dest.exists() and not args.force:
        raise UsageError(f"--dest: {dest} exists (use --force to overwrite)")
    dest.mkdir(parents=True, exist_ok=True)
    for f in source.iterdir():
        if f.is_file():
            shutil.copy2(f, dest / f.name)
    print(
        f"installed profile {args.name!r} in {dest}: `snakemake --profile {args.name}` "
        "now works from any folder"
    )
    return 0


def cmd_cluster(args) -> int:
    import time

    from hyst.sampling.cluster import standing_cluster

    with standing_cluster(
        args.kind,
        args.scheduler_file,
        workers=args.workers,
        cores=args.cores,
        memory=args.memory,
        walltime=args.walltime,
        partition=args.partition,
        account=args.account,
    ) as address:
        print(
            f"hyst cluster: scheduler {address}, scheduler file "
            f"{args.scheduler_file}; Ctrl-C to stop",
            file=sys.stderr,
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "point":
            return cmd_point(args)
        if args.command == "config":
            return cmd_config(args)
        if args.command == "profile":
            return cmd_profile(args)
        if args.command == "cluster":
            return cmd_cluster(args)
        if hasattr(args, "run"):
            return args.run(args)
    except UsageError as err:
        print(f"hyst {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hyst: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`hyst config check F | head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return 0


if __name__ == "__main__":
    sys.exit(main())
