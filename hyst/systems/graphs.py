"""The transition graph of one system as text, as a networkx graph and as GraphML and DOT
files: what ``hyst system`` prints and ``-o`` writes, and what :meth:`hyst.System.report`
and :meth:`hyst.System.to_networkx` return."""

from __future__ import annotations

from pathlib import Path

from hyst.model.flip_times import RACE_RULE_DESCRIPTIONS
from hyst.model.systems import INF, QUANTUM, Systems
from hyst.model.transition_graph import TransitionGraph
from hyst.plotting.layout import magnetisation, state_label
from hyst.systems.self_loops import SelfLoop
from hyst.systems.text import plural


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
            f"{RACE_RULE_DESCRIPTIONS[graph.rule]}"
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
