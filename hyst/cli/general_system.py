"""``hyst system --file`` with switching fields: what it prints of one system of the general
model (:mod:`hyst.systems.general` reads the file and computes it)."""

from __future__ import annotations

from hyst.model.general import SwitchingFields, label
from hyst.systems.general import KEY, analyse, fields_from_mapping, is_general
from hyst.systems.text import plural


def _flips(path, n) -> str:
    names = []
    for a, b in zip(path, path[1:], strict=False):
        x = a ^ b
        names.append("+".join(str(i + 1) for i in range(n) if (x >> i) & 1))
    return ",".join(names)


def general_report(fields: SwitchingFields, rule: str) -> str:
    """What ``hyst system`` prints for a system of the general model."""
    n, U = fields.n, fields.values
    result = analyse(fields, rule)
    graph = result.graph
    lines = [f"general model, n = {n}, rule {rule}: {1 << n} states"]
    rows = [("state", *(f"U_{i + 1}" for i in range(n)), "stable for")]
    for S in range(1 << n):
        up = [U[S, i] for i in range(n) if not (S >> i) & 1]
        down = [U[S, i] for i in range(n) if (S >> i) & 1]
        lo = max(down) if down else None
        hi = min(up) if up else None
        if lo is not None and hi is not None and lo >= hi:
            where = "nowhere"
        else:
            where = f"{'-inf' if lo is None else lo} < H < {'+inf' if hi is None else hi}"
        rows.append((label(S, n), *(f"{int(v)}{'-' if (S >> i) & 1 else '+'}"
                                    for i, v in enumerate(U[S])), where))  # fmt: skip
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines += ["  " + "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.append(
        "  (U+: the field where a hysteron down in S flips up; U-: where one up flips down)"
    )
    lines.append(f"{len(graph)} {plural(len(graph), 'transition')}:")
    for (S, d), t in sorted(graph.items()):
        what = {
            "stable": f"{label(t.final, n)} (flips {_flips(t.path, n)})",
            "self_loop": f"self-loop through {' -> '.join(label(s, n) for s in t.path)}",
            "race": "ill-defined (a race condition under rule 0)",
        }[t.outcome]
        lines.append(f"  {label(S, n)} {'up  ' if d > 0 else 'down'}: {what}")
    verdict = "well defined" if graph.well_defined else "not well defined"
    lines.append(f"t-graph: {verdict}")
    if result.design_inequalities is not None:
        inequalities, weight, orders = result.design_inequalities, result.weight, result.orders
        lines.append(
            f"design inequalities ({len(inequalities)}, the transitive reduction): "
            + ", ".join(inequalities)
        )
        lines.append(
            f"statistical weight: {weight:,} linear extensions of the {orders:,} total orders "
            f"of the n 2^n switching fields (probability {weight / orders:.3g})"
        )
        lines.append(
            "realizable (LP): " + ("yes, integer fields checked" if result.realizable else "no")
        )
    if result.pairwise is None:
        lines.append("pairwise form: none (the fields are not h_i - sum_j c_ij s_j)")
    else:
        hp, hm, c = result.pairwise
        lines.append(
            f"pairwise form: h_plus = {hp.tolist()}, h_minus = {hm.tolist()}, c = {c.tolist()} "
            "(a system file of the pairwise model)"
        )
    return "\n".join(lines)


def run_general(args, data: dict) -> int:
    """``hyst system --file`` with switching fields."""
    from hyst.cli.arguments import UsageError
    from hyst.cli.drives import chosen_protocol

    try:
        fields = fields_from_mapping(data, args.file)
    except ValueError as err:
        raise UsageError(str(err)) from None
    for option, value in (("--export", args.export), ("-o", args.output)):
        if value:
            raise UsageError(f"{option}: not allowed with switching fields (the pairwise model's)")
    if chosen_protocol(args) is not None:
        raise UsageError("--file: drive protocols need a pairwise system (h_plus, h_minus, c)")
    print(f"system: switching fields from file {args.file}")
    print(general_report(fields, args.rule))
    return 0


__all__ = ["KEY", "fields_from_mapping", "general_report", "is_general", "run_general"]
