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
    count_option,
    n_type,
    nj0_type,
    output_file,
    positive_int,
    seed_type,
)
from hyst.systems.text import plural

#: ``hyst config check --warn-core-hours`` by default.
DEFAULT_WARN_CORE_HOURS = 4.0
#: ``hyst point --max-core-hours`` by default (the configuration's ``limits.core_hours``).
DEFAULT_MAX_CORE_HOURS = 100.0


def build_parser() -> argparse.ArgumentParser:
    """The ``hyst`` argument parser: the subcommands point, config, profile, compile, cluster and
    those of :mod:`hyst.cli` (loops, system, tgraphs, ...)."""
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
        "--direction-asymmetry",
        default=0.0,
        type=float,
        help="direction-dependent couplings: alpha in [0, 1], c- = sqrt(1 - alpha^2) c+ + "
        "alpha c' (default 0: the paper's model; random and symmetric couplings)",
    )
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
    count_option(p, "--threads", "numba threads (default: all cores)", default=None)
    p.add_argument(
        "--backend",
        default="cpu",
        choices=["cpu", "cuda"],
        help="where the enumeration and the self-loop search run: cpu (default) or cuda (an "
        "NVIDIA GPU with numba-cuda, or NUMBA_ENABLE_CUDASIM=1); the results are the same",
    )
    p.add_argument(
        "--max-core-hours",
        type=nj0_type,
        default=DEFAULT_MAX_CORE_HOURS,
        help="refuse a point whose estimated cost (benchmarks/rates.json) is larger "
        f"(default {DEFAULT_MAX_CORE_HOURS:g})",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        help="output NetCDF file (a missing folder is created, and said)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")

    c = sub.add_parser("config", help="validate a sweep configuration")
    csub = c.add_subparsers(dest="action", required=True, parser_class=Parser)
    check = csub.add_parser(
        "check",
        help="validate FILE and print its studies, jobs, cost estimate, figures",
        description="Validate a sweep configuration and print its studies with their jobs "
        "and cost (systems, core-hours at the rates of benchmarks/rates.json), its figures "
        "and comparison sections. Warns when the cost is above --warn-core-hours; the "
        "pipeline refuses a configuration above its limits.core_hours.",
    )
    check.add_argument("file", help="YAML configuration, e.g. config/config.yaml")
    check.add_argument(
        "--warn-core-hours",
        type=nj0_type,
        default=DEFAULT_WARN_CORE_HOURS,
        help="warn when the estimated cost is larger (core-hours; default "
        f"{DEFAULT_WARN_CORE_HOURS:g})",
    )
    check.add_argument(
        "--cores",
        type=positive_int("cores"),
        default=None,
        help="the cores the run gets, for its expected wall time (default: this machine's)",
    )
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
    from hyst.cli.results import add_results_parsers
    from hyst.cli.system import add_parser as add_system_parser
    from hyst.cli.tgraphs import add_parser as add_tgraphs_parser

    add_loops_parser(sub)
    add_system_parser(sub)
    add_tgraphs_parser(sub)
    add_results_parsers(sub)

    co = sub.add_parser(
        "compile",
        help="compile the sampler's kernels into numba's cache now (once per checkout)",
        description="Compile every kernel a sampling job runs into numba's on-disk cache "
        "(__pycache__ beside the package's modules), which a first run would otherwise do "
        "in each of its parallel jobs or cluster workers. Run it once after installing or "
        "updating hyst, e.g. on a cluster's login node when the nodes share its file "
        "system. Takes about two minutes on two cores; a second when the cache is "
        "current.",
    )
    co.add_argument(
        "config",
        nargs="?",
        metavar="FILE",
        help="compile only the kernels the run of this configuration samples with: its "
        "observable groups, on one thread per chunk as the pipeline's jobs run them "
        "(default: every observable group, on one thread and on all of numba's threads, "
        "as hyst point and the Python API run them)",
    )

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
    count_option(
        cl, "--workers", "worker processes (local) or SLURM jobs (slurm); default 2", default=2
    )
    count_option(
        cl, "--cores", "slurm: cores per SLURM job (one single-threaded worker each)", default=1
    )
    cl.add_argument("--memory", default="4GB", help="slurm: memory per SLURM job (e.g. 4GB)")
    cl.add_argument("--walltime", default="02:00:00", help="slurm: wall time per SLURM job")
    cl.add_argument("--partition", default=None, help="slurm: partition (queue)")
    cl.add_argument("--account", default=None, help="slurm: account")
    return parser


def parse_records(text: str, groups) -> tuple:
    """``--records`` ("l4=2000,...") as a sorted tuple of (name, k); one-line errors."""
    from hyst.systems.point_records import record_caps

    try:
        return record_caps(text, groups)
    except ValueError as err:
        raise UsageError(str(err)) from None


def cmd_point(args) -> int:
    """``hyst point``: sample one sweep point (couplings, spans, rule, N, N J0) and write every
    observable of the chosen groups to a NetCDF file; exit status 0, 2 on a usage error."""
    import numba

    from hyst.model.cuda_batch import check_backend
    from hyst.provenance.files import write_dataset
    from hyst.sampling.sampler import Point, resolve_groups
    from hyst.studies.points import PointSpec

    if not args.output.endswith((".nc", ".nc4", ".netcdf")):
        raise UsageError(f"--output: {args.output!r} is not allowed (a .nc file)")
    try:
        check_backend(args.backend)
    except ValueError as err:
        raise UsageError(f"--{err}") from None
    try:
        point = Point(
            args.couplings, args.spans, args.rule, args.N, args.NJ0, args.direction_asymmetry
        )
    except ValueError as err:
        raise UsageError(f"--{err}") from None
    groups = None if args.observables == "all" else args.observables.split(",")
    try:
        groups = resolve_groups(point, groups)
    except ValueError as err:
        raise UsageError(f"--{err}") from None
    records = parse_records(args.records, groups)
    check_point_cost(point, groups, args.samples, args.max_core_hours)
    created = output_file(args.output, "--output")
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
    spec = PointSpec(point, args.samples, groups, args.seed, records, args.backend)
    ds = spec.sample(progress)
    if created is not None:
        created.mkdir(parents=True, exist_ok=True)
        print(f"hyst point: created the folder {created}", file=sys.stderr)
    write_dataset(ds, args.output)
    print(
        f"{point.couplings} couplings, {point.spans} spans, rule {point.rule}, N = {point.N}, "
        f"NJ0 = {point.NJ0:g}: {args.samples:,} {plural(args.samples, 'sample')}, seed {args.seed}"
    )
    print(point_table(ds, groups))
    print(
        f"wrote {args.output} (every observable with its histograms and records; "
        f"{time.perf_counter() - t0:.1f} s)"
    )
    return 0


def check_point_cost(point, groups, samples: int, max_core_hours: float) -> None:
    """Refuse a point that needs more memory than this machine has, or more estimated
    core-hours than ``--max-core-hours``; the message says how much."""
    from hyst.sampling.cost import bytes_text, chunk_bytes, hours_text, machine_bytes, point_seconds
    from hyst.sampling.sampler import chunk_size

    need, have = chunk_bytes(point.N), machine_bytes()
    if need > have:
        raise UsageError(
            f"--N: {point.N} needs about {bytes_text(need)} of memory ({chunk_size(point.N)} "
            f"systems of {point.N} x {point.N} couplings at a time), more than this machine's "
            f"{bytes_text(have)}"
        )
    seconds = point_seconds(point, groups, samples)
    if seconds is not None and seconds / 3600 > max_core_hours:
        raise UsageError(
            f"--samples: {samples} at N = {point.N} needs about {hours_text(seconds / 3600)} "
            f"core-hours, more than --max-core-hours {max_core_hours:g} (raise it to run this)"
        )


def estimate_text(value: float, error: float) -> tuple[str, str]:
    """(value, "± error") rounded to the error's second significant digit."""
    import math

    if not (math.isfinite(error) and error > 0):
        return f"{value:.5g}", f"± {error:g}"
    digits = max(0, 1 - math.floor(math.log10(error)))
    return f"{value:.{digits}f}", f"± {error:.{digits}f}"


def point_table(ds, groups) -> str:
    """A point file's estimates as a short table: observable (symbol), estimate ± standard
    error, and the trials each is an average over."""
    from hyst.catalogue import observables

    rows = [("observable", "symbol", "estimate", "± error", "trials")]
    for obs in observables(groups=groups):
        if obs.name not in ds or f"{obs.name}_stderr" not in ds or ds[obs.name].ndim:
            continue  # histograms and records: in the file
        rows.append(
            (
                obs.name,
                obs.symbol or "",
                *estimate_text(float(ds[obs.name]), float(ds[f"{obs.name}_stderr"])),
                f"{int(ds[f'{obs.name}_trials']):,}",
            )
        )
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
            + [c.rjust(w) for c, w in zip(r[2:], widths[2:], strict=True)]
        ).rstrip()
        for r in rows
    )


def cmd_config(args) -> int:
    """``hyst config``: print the configuration schema, or validate a file and print its
    studies, jobs, cost estimate (core-hours) and figures."""
    import yaml

    from hyst.pipeline.config import ConfigError, config_warnings, estimate, load, schema

    if args.action == "schema":
        print(yaml.safe_dump(schema(), sort_keys=False, allow_unicode=True), end="")
        return 0
    try:
        config = load(args.file)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    print(
        config_summary(args.file, config, estimate(config), args.warn_core_hours, cores=args.cores)
    )
    for line in config_warnings(config):
        print(f"warning: {line}")
    return 0


def config_summary(
    path, config: dict, cost, warn_core_hours: float, cores: int | None = None
) -> str:
    """What ``hyst config check`` prints: the jobs of each study (a job that several studies
    share counted once, under "shared"), the cost estimate, the figures and the page."""
    import os

    from hyst.sampling.cost import hours_text, load_rates
    from hyst.studies import kind_of, plan

    p = plan(config)
    n = len
    count = [f"{n(j)} {kind} {plural(n(j), 'job')}" for kind, j in p.jobs.items() if j]
    studies, figures, sections = config["studies"], config["figures"], config["comparison"]
    lines = [
        f"{path}: valid; {n(studies)} {plural(n(studies), 'study', 'studies')}, "
        f"{', '.join(count) or 'no jobs'}; {n(figures)} {plural(n(figures), 'figure')}; "
        f"{n(sections)} comparison {plural(n(sections), 'section')}"
    ]
    users = {}
    for name, needed in p.needs.items():
        for job in needed:
            users.setdefault(job, []).append(name)
    shared = {}
    for job, names in users.items():
        if n(names) > 1:
            shared.setdefault(tuple(names), []).append(job)
    for name, study in studies.items():
        own = [j for j in p.needs[name] if n(users[j]) == 1]
        systems, seconds = cost.studies[name]
        what = f"{n(own)} {plural(n(own), 'job')}"
        if n(own) < n(p.needs[name]):
            what += f" + {n(p.needs[name]) - n(own)} shared"
        if systems:
            what += f"; {systems:,} {plural(systems, 'system')}"
        if seconds is not None:
            what += f", about {hours_text(seconds / 3600)} core-hours"
        lines.append(f"  study {name} ({kind_of(study).name}): {what}")
    for names, jobs in shared.items():
        lines.append(
            f"  shared by {', '.join(names)}: {n(jobs)} {plural(n(jobs), 'job')} (each runs once)"
        )
    for name, binding in figures.items():
        lines.append(f"  figure {name} ({binding['type']}): {', '.join(binding['studies'])}")
    for name, binding in sections.items():
        lines.append(f"  comparison {name} ({binding['type']}): {', '.join(binding['studies'])}")
    if cost.core_hours is None:
        lines.append(
            "cost: not estimated (benchmarks/rates.json is missing: run benchmarks/bench_rates.py)"
            if load_rates() is None
            else "cost: not estimated for these study kinds"
        )
        return "\n".join(lines)
    from hyst.pipeline.console import kernels_cached
    from hyst.pipeline.estimate import run_estimate
    from hyst.sampling.cost import duration_text

    rates = load_rates()
    hours, cores = cost.core_hours, cores or os.cpu_count() or 1
    lines.append(
        f"cost: {cost.systems:,} {plural(cost.systems, 'system')} sampled (a point shared by "
        f"studies once), about {hours_text(hours)} core-hours at the rates measured on "
        f"{rates['machine']['cpu']} ({rates['date']}, benchmarks/rates.json) to sample them"
    )
    compiled = kernels_cached()
    run = run_estimate(config, cores, compiled=compiled, rates=rates)
    sampling = run.stages.get("points", [0, 0.0])[1]
    lines.append(
        f"expected: about {duration_text(run.wall_seconds)} of wall time on {cores} "
        f"{plural(cores, 'core')}; {len(run.jobs)} jobs, {duration_text(run.cpu_seconds)} of "
        f"CPU time ({duration_text(sampling)} of it sampling)"
        + (
            ""
            if compiled
            else f"; this checkout's first run also compiles the kernels (about "
            f"{duration_text(run.compile_seconds)}, included)"
        )
    )
    if hours > warn_core_hours:
        lines.append(
            f"warning: about {hours_text(hours)} core-hours is more than --warn-core-hours "
            f"{warn_core_hours:g}: on this machine's {cores} {plural(cores, 'core')} about "
            f"{hours_text(hours / cores)} hours of wall time "
            f"(the run is refused above limits.core_hours = "
            f"{config['limits']['core_hours']:g})"
        )
    return "\n".join(lines)


def repository_profiles():
    """The ``profiles/`` folder of the repository this package runs from (Snakemake profiles)."""
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / "profiles"


def cmd_profile(args) -> int:
    """``hyst profile install``: copy a Snakemake profile of the repository to the user's
    Snakemake configuration folder."""
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
    from hyst.pipeline.config import ConfigError, check_results

    try:
        check_results(dest, key="--dest")  # the folder can be made and written
    except ConfigError as err:
        raise UsageError(str(err)) from None
    dest.mkdir(parents=True, exist_ok=True)
    for f in source.iterdir():
        if f.is_file():
            shutil.copy2(f, dest / f.name)
    print(
        f"installed profile {args.name!r} in {dest}: `snakemake --profile {args.name}` "
        "now works from any folder"
    )
    return 0


def cmd_compile(args) -> int:
    """``hyst compile``: compile the sampler's numba kernels into the on-disk cache now, so that
    the first sweep point does not pay for it."""
    import os

    from hyst.sampling.warm import compile_sampler

    selections = None
    if args.config:
        from hyst.pipeline.config import ConfigError, load
        from hyst.studies import plan, sampler_selections

        try:
            selections = sampler_selections(plan(load(args.config)))
        except ConfigError as err:
            raise UsageError(str(err)) from None
    processes = min(2, os.cpu_count() or 1)
    what = (
        f"the kernels {args.config}'s run samples with" if args.config else "the sampler's kernels"
    )
    print(
        f"hyst compile: compiling {what} into numba's cache "
        f"({processes} {plural(processes, 'process', 'processes')}) ...",
        flush=True,
    )
    t0 = time.perf_counter()
    # a run samples on its workers' threads, each chunk on one: the serial twins alone
    parallel = (False,) if args.config else (False, True)
    seconds = compile_sampler(parallel, processes=processes, selections=selections)
    print(
        f"hyst compile: done in {time.perf_counter() - t0:.0f} s ({seconds:.0f} s of CPU "
        "time; a current cache takes about a second)"
    )
    return 0


def cmd_cluster(args) -> int:
    """``hyst cluster``: start a local or SLURM Dask cluster, write its scheduler file and hold
    it until interrupted."""
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
    """Run the ``hyst`` command line on ``argv`` (default: ``sys.argv``); return the exit status
    (2: usage error, 130: interrupted, 141: closed pipe)."""
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
        if args.command == "compile":
            return cmd_compile(args)
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
