"""``hyst system``: one system looked at closely (its exact transition graph): the options,
what it prints and the files ``-o`` and ``--export`` write.

The system comes from a file (:mod:`hyst.systems.files`: YAML, JSON or NPZ with
h_plus, h_minus, c) or from an ensemble spec, seed and sample index (the very
system the sampler drew). :func:`hyst.model.transition_graph.transition_graph` gives its
potentially stable states and every up and down transition under a rule,
:mod:`hyst.systems.self_loops` the range of the drive H where each self-loop met is a
cycle of the dynamics, :mod:`hyst.systems.graphs` the text printed and the graph as
GraphML and DOT (networkx); ``-o`` also draws it (states by magnetisation, up
transitions blue, down red, self-loops highlighted).

``SelfLoop``, ``report``, ``rule0_range``, ``self_loops``, ``to_networkx`` and
``write_graph`` are importable from here as before; they live in :mod:`hyst.systems`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hyst.cli.arguments import (
    count_option,
    n_type,
    nj0_type,
    number_type,
    output_file,
    seed_type,
    subcommand,
)
from hyst.cli.drives import (
    add_protocol_options,
    chosen_protocol,
    protocol_text,
    run_protocol,
    start_option,
)
from hyst.model.flip_times import RACE_RULES
from hyst.model.systems import Systems
from hyst.model.transition_graph import transition_graph
from hyst.systems.drives import write_protocol
from hyst.systems.graphs import report, to_networkx, write_graph
from hyst.systems.self_loops import SelfLoop, rule0_range, self_loops


def parse_args_system(args) -> tuple[Systems, str]:
    """The system of ``hyst system``'s arguments, and a line saying where it came from."""
    from hyst.systems.files import load_system, sampled_system

    ensemble = [args.couplings, args.N, args.NJ0, args.samples, args.index]
    if args.file is not None:
        if any(v is not None for v in ensemble):
            raise ValueError("give either --file or an ensemble (--couplings ... --index)")
        return load_system(args.file), f"file {args.file}"
    missing = [
        n
        for n, v in zip(
            ("--couplings", "--N", "--NJ0", "--samples", "--index"), ensemble, strict=True
        )
        if v is None
    ]
    if missing:
        raise ValueError(f"{missing[0]}: required without --file (an ensemble spec)")
    alpha = args.direction_asymmetry
    sy = sampled_system(
        args.couplings, args.spans, args.N, args.NJ0, args.seed, args.samples, args.index, alpha
    )
    where = (
        f"sample {args.index} of ({args.couplings}, {args.spans}, N = {args.N}, "
        f"NJ0 = {args.NJ0:g}{f', direction asymmetry {alpha:g}' if alpha else ''}), "
        f"seed {args.seed}, {args.samples} samples"
    )
    return sy, where


DESCRIPTION = """\
Look at one system closely: its potentially stable states, every up and down transition
under a race-condition rule, and every self-loop with the range of the drive H where it
is a cycle of the dynamics (exact for rules 1 and 0; not computed for rules 1' and 2).

The system comes from a file (--file: YAML, JSON or NPZ with h_plus, h_minus and c, in
field units; --export writes one) or is the very system the sampler drew: sample --index
of the point (--couplings, --spans, --N, --NJ0) with --seed and --samples. A YAML or JSON
file with switching_fields (one row U_1(S) ... U_n(S) of integers per state label
s_1 ... s_n) is a system of the general model: its t-graph, design inequalities,
statistical weight, realizability and pairwise form are printed.

With -o, the graph is also written as GraphML and DOT (networkx) and drawn as a PNG:
states by magnetisation, up transitions blue, down red, self-loops orange.

With a drive protocol (--drive, --symmetric, --asymmetric, --sweep or --return-point) it
drives the system instead, exactly, and prints every avalanche, the states and the outcome
(the period T of a cyclic drive; a self-loop that stops a drive, with L, n_e and where it
started); -o then writes the drive as a dataset (OUTPUT.nc) and draws m(H) (OUTPUT.png).
"""


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``system`` subcommand of ``hyst``."""
    from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES
    from hyst.model.systems import RULE_DESCRIPTIONS

    p = subcommand(
        sub,
        "system",
        "the transition graph of one system: states, transitions, self-loops",
        DESCRIPTION,
        epilog="race-condition rules:\n"
        + "".join(f"  {k:4s} {v}\n" for k, v in RULE_DESCRIPTIONS.items())
        + "  tau  flip the unstable element with the largest margin / flip time tau_i first "
        "(--flip-times or --flip-time-decades; transition graph only)\n" + "examples:\n"
        "  hyst system --couplings random --N 4 --NJ0 16 --samples 100 --index 3 "
        "--export s.yaml\n"
        "  hyst system --file s.yaml --rule 0 -o graph\n"
        "  hyst system --file s.yaml --symmetric 0.5 -o drive\n"
        "  hyst system --file s.yaml --sweep\n"
        "  hyst system --file s.yaml --rule tau --flip-times 1,10,100\n"
        "  hyst system --file s.yaml --random-order",
    )
    p.add_argument(
        "--file",
        default=None,
        help="YAML, JSON or NPZ file with h_plus, h_minus (N numbers) and c (N x N, zero "
        "diagonal), in field units",
    )
    p.add_argument(
        "--couplings",
        choices=list(COUPLING_ENSEMBLES),
        default=None,
        help="interaction ensemble of the sampled system (instead of --file)",
    )
    p.add_argument(
        "--spans",
        choices=list(SPAN_ENSEMBLES),
        default="hysteron",
        help="span ensemble of the sampled system (default: hysteron)",
    )
    p.add_argument("--N", type=n_type, default=None, help="elements (2 <= N <= 18)")
    p.add_argument("--NJ0", type=nj0_type, default=None, help="coupling strength N J0 (> 0)")
    p.add_argument("--seed", type=seed_type, default=0, help="base seed of the point (default 0)")
    p.add_argument(
        "--direction-asymmetry",
        type=float,
        default=0.0,
        help="direction asymmetry alpha of the point's couplings, in [0, 1] (default 0)",
    )
    count_option(
        p,
        "--samples",
        "samples of the point (the chunk sizes, hence the draw, depend on it)",
        default=None,
    )
    p.add_argument(
        "--index", type=index_type, default=None, help="sample index (0-based, < --samples)"
    )
    p.add_argument(
        "--rule",
        choices=list(RACE_RULES),
        default="1",
        help="race-condition rule (default 1; see below)",
    )
    p.add_argument(
        "--flip-times",
        default=None,
        metavar="T1,T2,...",
        help="flip times tau_i > 0 of the elements, comma separated (only ratios matter), "
        "for --rule tau",
    )
    p.add_argument(
        "--flip-time-decades",
        type=float,
        default=None,
        metavar="D",
        help="draw the flip times log-uniformly over D decades (0 <= D <= 6, keyed by N, D "
        "and --seed), for --rule tau",
    )
    p.add_argument(
        "--random-order",
        action="store_true",
        help="also relax every transition with each unstable element equally likely to flip "
        "next: end states, their probabilities and the trap probability",
    )
    p.add_argument(
        "-o", "--output", default=None, help="write OUTPUT.graphml, OUTPUT.dot and OUTPUT.png"
    )
    p.add_argument(
        "--export",
        default=None,
        metavar="FILE",
        help="write the system's h_plus, h_minus and c to FILE (.yaml, .json or .npz), the "
        "format --file reads",
    )
    add_protocol_options(p)
    p.set_defaults(run=run)
    return p


index_type = number_type("index", int, "index >= 0", lambda v: v >= 0)


def run(args) -> int:
    from hyst.cli.arguments import UsageError
    from hyst.systems.files import SystemInputError

    if args.file is not None:
        from hyst.cli.general_system import run_general
        from hyst.systems.files import read_mapping
        from hyst.systems.general import is_general

        try:
            data = read_mapping(args.file)
        except SystemInputError as err:
            raise UsageError(str(err)) from None
        if is_general(data):
            return run_general(args, data)
    try:
        systems, where = parse_args_system(args)
    except (SystemInputError, ValueError) as err:
        raise UsageError(str(err)) from None
    protocol = chosen_protocol(args)
    if protocol is None and systems.N > MAX_N:
        key = "--N" if args.file is None else f"{args.file}: c"
        raise UsageError(
            f"{key}: N = {systems.N} is not allowed (a transition graph enumerates the 2^N "
            f"states: N <= {MAX_N})"
        )
    if args.export:
        check_export(args.export)
    if args.output:
        output_file(args.output, "--output")  # its folder can be made and written: one line
    if protocol is not None:
        if args.rule == "tau" or args.random_order:
            option = "--rule: tau" if args.rule == "tau" else "--random-order"
            raise UsageError(
                f"{option} is computed for the transition graph only (the drive protocols "
                "take --rule 0, 1, 1p or 2)"
            )
        return run_drive_protocol(args, systems, where, protocol)
    flip_times = parse_flip_times(args, systems.N)
    graph = transition_graph(systems, 0, args.rule, flip_times)
    loops = self_loops(graph, systems, flip_times)
    print(f"system: {where}")
    print(report(graph, systems, loops))
    if args.random_order:
        print(random_order_text(systems))
    if args.output:
        from hyst.plotting import save
        from hyst.plotting.loops import fig_transition_graph

        stem = Path(args.output)
        _make_folder(stem.parent)
        paths = write_graph(to_networkx(graph, loops), stem)
        paths += save(fig_transition_graph(graph, loops), stem, formats=("png",))
        print("wrote " + ", ".join(str(p) for p in paths))
    if args.export:
        from hyst.systems.files import save_system

        save_system(systems, args.export, _created)
        print(f"wrote {args.export} (h_plus, h_minus and c: read it back with --file)")
    return 0


def run_drive_protocol(args, systems: Systems, where: str, protocol: str) -> int:
    """``hyst system`` with a drive protocol: its table, and with -o its dataset and m(H)."""
    start = start_option(args.start, systems.N, args.start_seed)  # refused before any folder
    if args.output:
        _make_folder(Path(args.output).parent)
    ds = run_protocol(args, systems, protocol, start)
    print(f"system: {where}")
    print(protocol_text(ds))
    paths = write_protocol(ds, args.output) if args.output else []
    if args.export:
        from hyst.systems.files import save_system

        paths.append(save_system(systems, args.export, _created))
    if paths:
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _created(folder: Path) -> None:
    print(f"hyst system: created the folder {folder}", file=sys.stderr)


def _make_folder(folder: Path) -> None:
    """Create ``folder`` (checked writable before any work) and say so, if it is missing."""
    if not folder.exists():
        folder.mkdir(parents=True)
        _created(folder)


def parse_flip_times(args, N: int):
    """The quantised flip times of ``--flip-times`` or ``--flip-time-decades`` (None if
    neither), refused with one line naming the option."""
    from hyst.cli.arguments import UsageError
    from hyst.model.flip_times import flip_times_for, quantize_flip_times

    given, decades = args.flip_times, args.flip_time_decades
    if given is not None and decades is not None:
        raise UsageError("--flip-times: give either --flip-times or --flip-time-decades")
    try:
        if given is not None:
            try:
                values = [float(v) for v in given.split(",")]
            except ValueError:
                raise UsageError(f"--flip-times: {given!r} is not a list of numbers") from None
            return quantize_flip_times(values, N)
        if decades is not None:
            return flip_times_for(N, decades, args.seed)
    except ValueError as err:
        option = "--flip-times" if given is not None else "--flip-time-decades"
        raise UsageError(f"{option}: {str(err).split(': ', 1)[1]}") from None
    if args.rule == "tau":
        raise UsageError("--rule: tau needs --flip-times or --flip-time-decades")
    return None


def random_order_text(systems: Systems) -> str:
    """The random-order relaxation of every transition, as text: each transition's end states
    with their probabilities and its trap probability, and the system's summary."""
    from hyst.model.random_order import random_order_analysis
    from hyst.plotting.layout import state_label

    N = systems.N
    a = random_order_analysis(systems)
    lines = ["random order (each unstable element equally likely to flip next):"]
    for t in a.transitions:
        arrow = "up" if t.direction > 0 else "down"
        ends = ", ".join(f"{state_label(X, N)} {p:.4g}" for X, p in sorted(t.ends.items()))
        lines.append(
            f"  {state_label(t.source, N)} {arrow:4s} -> {ends or 'no stable state'}; trap "
            f"probability {t.trap_probability:.4g}"
        )
    lines.append(
        f"  trappable transitions: {a.trappable_transitions} of {len(a.transitions)}; mean trap "
        f"probability {a.mean_trap_probability:.4g}"
    )
    return "\n".join(lines)


#: Largest N of a transition graph (every one of the 2^N states is enumerated).
MAX_N = 18


def check_export(path: str) -> None:
    """One line, before anything is computed, where ``--export`` cannot be written."""
    from hyst.cli.arguments import UsageError
    from hyst.systems.files import FORMATS

    if Path(path).suffix.lower() not in FORMATS:
        raise UsageError(
            f"--export: {path!r} is not allowed (a file ending in {', '.join(FORMATS)})"
        )
    output_file(path, "--export")


__all__ = ["SelfLoop", "report", "rule0_range", "self_loops", "to_networkx", "write_graph"]
