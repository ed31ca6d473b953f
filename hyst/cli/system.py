"""``hyst system``: one system looked at closely (its exact transition graph).

The system comes from a file (:mod:`hyst.cli.system_input`: YAML, JSON or NPZ with
h_plus, h_minus, c) or from an ensemble spec, seed and sample index (the very
system the sampler drew). :func:`hyst.model.transition_graph.transition_graph` gives its
potentially stable states and every up and down transition under a rule; this
module adds, for every self-loop met, the range of the drive H where that cycle
is a cycle of the dynamics (exact: rule 1 by the design inequalities of
:func:`hyst.combinatorics.design.field_range`, rule 0 by the stability bounds of its
states; not computed for rules 1' and 2), prints all of it, and writes the graph
as GraphML and DOT (networkx) and as a picture (states by magnetisation, up
transitions blue, down red, self-loops highlighted).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from hyst.cli.arguments import (
    count_option,
    n_type,
    nj0_type,
    number_type,
    output_file,
    plural,
    seed_type,
    subcommand,
)
from hyst.cli.drives import (
    add_protocol_options,
    chosen_protocol,
    protocol_text,
    run_protocol,
    write_protocol,
)
from hyst.combinatorics import design
from hyst.combinatorics.layout import magnetisation, state_label
from hyst.model.relax import StateTables
from hyst.model.systems import INF, QUANTUM, RULE_DESCRIPTIONS, RULES, Systems
from hyst.model.transition_graph import TransitionGraph, transition_graph


@dataclass(frozen=True)
class SelfLoop:
    """A self-loop of the graph: its states (dynamical order from the smallest), L, n_e,
    the open range of 2H (quanta) where it is a cycle of the dynamics (None: not
    computed for this rule), the transitions that end in it and where they enter it."""

    cycle: tuple[int, ...]
    L: int
    n_e: int
    range2: tuple[int, int] | None
    entries: tuple[tuple[int, int, int], ...]  # (source, direction, entry state)

    def field_range(self) -> tuple[float, float] | None:
        """(H_low, H_high) in field units."""
        if self.range2 is None:
            return None
        return (self.range2[0] * QUANTUM / 2, self.range2[1] * QUANTUM / 2)


def rule0_range(systems: Systems, cycle) -> tuple[int, int] | None:
    """Open range of 2H where every state of the cycle has exactly its own element
    unstable (rule 0: a second unstable element makes the step ill-defined)."""
    tables = StateTables(systems)
    lo, hi = -(2**62), 2**62
    N = systems.N
    for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        e = (a ^ b).bit_length() - 1
        fields = tables.F[a]
        for i in range(N):
            up = 2 * int(systems.h_plus[0, i] - fields[i])
            down = 2 * int(systems.h_minus[0, i] - fields[i])
            if (a >> i) & 1:  # up element: stable iff H >= H_i^-, unstable iff H < H_i^-
                hi, lo = (min(hi, down), lo) if i == e else (hi, max(lo, down))
            else:  # down element: unstable iff H > H_i^+
                lo, hi = (max(lo, up), hi) if i == e else (lo, min(hi, up))
    return (lo, hi) if lo < hi else None


def self_loops(graph: TransitionGraph, systems: Systems) -> list[SelfLoop]:
    """Every distinct self-loop of the graph with its field range and entries."""
    tables = StateTables(systems)
    out = []
    for cycle, L, n_e in graph.self_loops:
        if graph.rule == "1":
            rng = design.field_range(
                systems.h_plus[0], systems.h_minus[0], systems.couplings[0], cycle
            )
        elif graph.rule == "0":
            rng = rule0_range(systems, list(cycle))
        else:
            rng = None
        entries = []
        for t in graph.transitions:
            if t.outcome == "self_loop" and t.cycle == cycle:
                state = t.source
                while state not in cycle:
                    state, _code = tables.step(state, t.field, graph.rule)
                entries.append((t.source, t.direction, state))
        out.append(SelfLoop(tuple(cycle), L, n_e, rng, tuple(entries)))
    return out


def _h(value: int) -> str:
    if value >= INF:
        return "+inf"
    if value <= -INF:
        return "-inf"
    return f"{value * QUANTUM:+.6f}"


def report(graph: TransitionGraph, systems: Systems, loops: list[SelfLoop]) -> str:
    """The text ``hyst system`` prints: the states as an aligned table, every transition
    (marked "race" where several elements were unstable at once during its avalanche,
    which the rule resolved; "TIE" where two were equally unstable), the self-loops."""
    N = graph.N
    n_states = len(graph.states)
    lines = [
        f"N = {N}, rule {graph.rule}: {n_states} potentially stable "
        f"{plural(n_states, 'state')} (H^-(S) < H^+(S))"
    ]
    rows = [("state", "m", "H^-(S)", "H^+(S)")]
    for s, lo, hi in zip(graph.states, graph.h_minus, graph.h_plus, strict=True):
        rows.append((state_label(s, N), f"{magnetisation(s, N):+d}", _h(lo), _h(hi)))
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    for r in rows:
        lines.append(
            "  "
            + "  ".join(
                [r[0].ljust(widths[0])]
                + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
            )
        )
    if graph.degenerate_states:
        names = ", ".join(state_label(s, N) for s in graph.degenerate_states)
        lines.append(f"  degenerate (H^- = H^+, not used): {names}")
    n_t = len(graph.transitions)
    lines.append(
        f"{n_t} {plural(n_t, 'transition')} (at the field where the state stops being stable):"
    )
    index = {loop.cycle: k for k, loop in enumerate(loops, 1)}
    races = ties = 0
    for t in graph.transitions:
        arrow = "up  " if t.direction > 0 else "down"
        at = f"H = {t.field_value:+.6f}{'+' if t.direction > 0 else '-'}0"
        if t.outcome == "stable":
            end = f"{state_label(t.target, N)} ({t.flips} {plural(t.flips, 'flip')})"
        elif t.outcome == "self_loop":
            end = f"self-loop #{index[t.cycle]} (L = {t.L}, n_e = {t.n_e})"
        else:
            end = "ill-defined (race condition under rule 0)"
        races += bool(t.race_condition)
        ties += bool(t.tie)
        extra = ("  race" if t.race_condition else "") + ("  TIE" if t.tie else "")
        lines.append(f"  {state_label(t.source, N)} {arrow} at {at}: {end}{extra}")
    if races:
        lines.append(
            f"  race: several elements were unstable at once during the avalanche ({races} of "
            f"{n_t} {plural(n_t, 'transition')}); rule {graph.rule} chose which flips: "
            f"{RULE_DESCRIPTIONS[graph.rule]}"
        )
    if ties:
        lines.append(
            "  TIE: two unstable elements were equally unstable (resolved by the lowest index)"
        )
    if not loops:
        lines.append("self-loops: none")
    for k, loop in enumerate(loops, 1):
        states = " -> ".join(state_label(s, N) for s in loop.cycle)
        rng = loop.field_range()
        where = (
            f"H in ({rng[0]:+.6f}, {rng[1]:+.6f})"
            if rng is not None
            else f"field range not computed for rule {graph.rule}"
        )
        lines.append(f"self-loop #{k}: L = {loop.L}, n_e = {loop.n_e}, {where}")
        lines.append(f"  {states}")
    if graph.ties:
        lines.append(
            f"ties: {graph.ties} (resolved by the lowest index; see hyst.model.transition_graph)"
        )
    return "\n".join(lines)


def to_networkx(graph: TransitionGraph, loops: list[SelfLoop]):
    """A networkx MultiDiGraph: potentially stable states and the unstable states of the
    self-loops as nodes (label, magnetisation, kind, stability range in field units),
    transitions as edges (kind 'up'/'down', field), each self-loop's cycle as edges of
    kind 'self_loop' (loop number)."""
    import networkx as nx

    N = graph.N
    g = nx.MultiDiGraph(N=N, rule=graph.rule)
    ranges = graph.stability_ranges
    for s, (lo, hi) in zip(graph.states, ranges, strict=True):
        g.add_node(
            s,
            label=state_label(s, N),
            m=magnetisation(s, N),
            kind="stable",
            H_minus=float(lo),
            H_plus=float(hi),
        )
    for k, loop in enumerate(loops, 1):
        for s in loop.cycle:
            if s not in g:
                g.add_node(s, label=state_label(s, N), m=magnetisation(s, N), kind="unstable")
        for a, b in zip(loop.cycle, loop.cycle[1:] + loop.cycle[:1], strict=True):
            g.add_edge(a, b, kind="self_loop", loop=k, L=loop.L, n_e=loop.n_e)
    entry = {(src, d): e for loop in loops for src, d, e in loop.entries}
    for t in graph.transitions:
        kind = "up" if t.direction > 0 else "down"
        if t.outcome == "stable":
            g.add_edge(t.source, t.target, kind=kind, H=t.field_value, flips=t.flips)
        elif t.outcome == "self_loop":
            g.add_edge(
                t.source, entry[(t.source, t.direction)], kind=kind, H=t.field_value, into_loop=True
            )
    return g


def write_graph(g, stem: Path) -> list[Path]:
    """GraphML and DOT files of a networkx graph (``stem``.graphml, ``stem``.dot)."""
    import networkx as nx
    from networkx.drawing.nx_pydot import write_dot

    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".graphml"), stem.with_suffix(".dot")]
    nx.write_graphml(g, paths[0])
    dot = nx.MultiDiGraph(g)
    for _s, attrs in dot.nodes(data=True):
        attrs.update({k: str(v) for k, v in attrs.items()})
    for *_e, attrs in dot.edges(data=True, keys=True):
        attrs.update({k: str(v) for k, v in attrs.items()})
        attrs["color"] = {"up": "blue", "down": "red", "self_loop": "orange"}[attrs["kind"]]
    write_dot(dot, paths[1])
    return paths


def parse_args_system(args) -> tuple[Systems, str]:
    """The system of ``hyst system``'s arguments, and a line saying where it came from."""
    from hyst.cli.system_input import load_system, sampled_system

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
    sy = sampled_system(
        args.couplings, args.spans, args.N, args.NJ0, args.seed, args.samples, args.index
    )
    where = (
        f"sample {args.index} of ({args.couplings}, {args.spans}, N = {args.N}, "
        f"NJ0 = {args.NJ0:g}), seed {args.seed}, {args.samples} samples"
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
        + "examples:\n"
        "  hyst system --couplings random --N 4 --NJ0 16 --samples 100 --index 3 "
        "--export s.yaml\n"
        "  hyst system --file s.yaml --rule 0 -o graph\n"
        "  hyst system --file s.yaml --symmetric 0.5 -o drive\n"
        "  hyst system --file s.yaml --sweep",
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
        choices=list(RULES),
        default="1",
        help="race-condition rule (default 1; see below)",
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
    from hyst.cli.system_input import SystemInputError

    if args.file is not None:
        from hyst.cli.general_system import is_general, run_general
        from hyst.cli.system_input import read_mapping

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
    if protocol is not None:
        return run_drive_protocol(args, systems, where, protocol)
    graph = transition_graph(systems, 0, args.rule)
    loops = self_loops(graph, systems)
    print(f"system: {where}")
    print(report(graph, systems, loops))
    if args.output:
        from hyst.plotting import save
        from hyst.plotting.loops import fig_transition_graph

        stem = Path(args.output)
        if not stem.parent.exists():
            print(f"hyst system: created the folder {stem.parent}", file=sys.stderr)
        paths = write_graph(to_networkx(graph, loops), stem)
        paths += save(fig_transition_graph(graph, loops), stem, formats=("png",))
        print("wrote " + ", ".join(str(p) for p in paths))
    if args.export:
        from hyst.cli.system_input import save_system

        save_system(systems, args.export)
        print(f"wrote {args.export} (h_plus, h_minus and c: read it back with --file)")
    return 0


def run_drive_protocol(args, systems: Systems, where: str, protocol: str) -> int:
    """``hyst system`` with a drive protocol: its table, and with -o its dataset and m(H)."""
    if args.output and not Path(args.output).parent.exists():
        print(f"hyst system: created the folder {Path(args.output).parent}", file=sys.stderr)
    ds = run_protocol(args, systems, protocol)
    print(f"system: {where}")
    print(protocol_text(ds))
    paths = write_protocol(ds, args.output) if args.output else []
    if args.export:
        from hyst.cli.system_input import save_system

        paths.append(save_system(systems, args.export))
    if paths:
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


#: Largest N of a transition graph (every one of the 2^N states is enumerated).
MAX_N = 18


def check_export(path: str) -> None:
    """One line, before anything is computed, where ``--export`` cannot be written."""
    from hyst.cli.arguments import UsageError
    from hyst.cli.system_input import FORMATS

    if Path(path).suffix.lower() not in FORMATS:
        raise UsageError(
            f"--export: {path!r} is not allowed (a file ending in {', '.join(FORMATS)})"
        )
    output_file(path, "--export")


__all__ = ["SelfLoop", "report", "rule0_range", "self_loops", "to_networkx", "write_graph"]
