"""``hyst system --file`` with switching fields: one system of the general model.

In the general model (Teunisse & van Hecke, R. Soc. Open Sci. 2025) every state S of n
hysterons has its own switching fields U_i^±(S); the pairwise model is the special case
U_i^±(S) = h_i^± − Σ_j c_ij s_j. A YAML or JSON file with the key ``switching_fields``
gives them, one row per state label s_1 … s_n (0 down, 1 up), integers in any units::

    switching_fields:
      "00": [7, 6]     # U_1^+(00), U_2^+(00)
      "01": [4, 2]     # U_1^+(01), U_2^-(01)
      "10": [3, 8]
      "11": [1, 5]

``hyst system`` then prints the t-graph under the rule (every state's up and down
transition with its avalanche, self-loops and rule-0 races), whether it is well
defined, its design inequalities and statistical weight (rule 0), its realizability by
linear programming, and the pairwise parameters where the fields are exactly pairwise.
"""

from __future__ import annotations

from math import factorial

from hyst.cli.arguments import plural
from hyst.combinatorics import tgraph_pairwise, tgraphs
from hyst.model import design_order
from hyst.model.general import SwitchingFields, field_label, label, resolve

#: The key of a switching-field file.
KEY = "switching_fields"


def is_general(data) -> bool:
    """Whether a system file's mapping gives switching fields."""
    return isinstance(data, dict) and KEY in data


def fields_from_mapping(data: dict, source: str) -> SwitchingFields:
    """The switching fields of a file's mapping; ``ValueError`` with one line naming the
    file, the key and what is allowed."""
    extra = sorted(set(data) - {KEY})
    if extra:
        raise ValueError(
            f"{source}: {extra[0]}: unknown key (a switching-field file has only {KEY})"
        )
    rows = data[KEY]
    if not isinstance(rows, dict) or not rows:
        raise ValueError(f"{source}: {KEY}: not allowed (a mapping of state labels to rows)")
    labels = [str(k) for k in rows]
    n = len(labels[0])
    if not 1 <= n <= 6 or any(len(s) != n or set(s) - {"0", "1"} for s in labels):
        raise ValueError(
            f"{source}: {KEY}: labels {labels[:3]} are not allowed (strings of n 0s and 1s, "
            "1 <= n <= 6)"
        )
    parsed = {}
    for text, row in rows.items():
        ok = isinstance(row, list) and len(row) == n
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) for v in row)
        if not ok or any(abs(v) >= 2**62 for v in row):
            raise ValueError(
                f"{source}: {KEY}: {text}: {row!r} is not allowed ({n} integers, |U| < 2^62)"
            )
        parsed[str(text)] = row
    if len(parsed) != 1 << n:
        raise ValueError(
            f"{source}: {KEY}: {len(parsed)} {plural(len(parsed), 'state')} given, "
            f"{1 << n} needed (every state of n = {n})"
        )
    return SwitchingFields.from_rows(n, parsed)


def _flips(path, n) -> str:
    names = []
    for a, b in zip(path, path[1:], strict=False):
        x = a ^ b
        names.append("+".join(str(i + 1) for i in range(n) if (x >> i) & 1))
    return ",".join(names)


def general_report(fields: SwitchingFields, rule: str) -> str:
    """What ``hyst system`` prints for a system of the general model."""
    n, U = fields.n, fields.values
    graph = resolve(fields, rule)
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
    if rule == "0" and graph.well_defined and fields.all_states_stable():
        order = design_order.design_order(graph)
        fewest = design_order.reduction(order)
        weight = design_order.count_linear_extensions(order)
        lines.append(
            f"design inequalities ({fewest.number_of_edges()}, the transitive reduction): "
            + ", ".join(
                sorted(f"{field_label(a, n)} > {field_label(b, n)}" for a, b in fewest.edges)
            )
        )
        orders = factorial(n << n)
        lines.append(
            f"statistical weight: {weight:,} linear extensions of the {orders:,} total orders "
            f"of the n 2^n switching fields (probability {weight / orders:.3g})"
        )
        real = tgraphs.realize(graph)
        lines.append(
            "realizable (LP): "
            + ("yes, integer fields checked" if real.feasible and real.reproduces else "no")
        )
    pair = tgraph_pairwise.to_pairwise(fields)
    if pair is None:
        lines.append("pairwise form: none (the fields are not h_i - sum_j c_ij s_j)")
    else:
        hp, hm, c = pair
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
