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

:func:`fields_from_mapping` validates such a file's mapping; :func:`analyse` computes
what ``hyst system`` prints of it: the t-graph under the rule (every state's up and down
transition with its avalanche, self-loops and rule-0 races), whether it is well
defined, its design inequalities and statistical weight (rule 0), its realizability by
linear programming, and the pairwise parameters where the fields are exactly pairwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

from hyst.combinatorics import tgraph_pairwise, tgraphs
from hyst.model import design_order
from hyst.model.general import SwitchingFields, TGraph, field_label, resolve
from hyst.systems.text import plural

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


@dataclass(frozen=True)
class GeneralAnalysis:
    """What ``hyst system`` reports of a system of the general model under one rule."""

    fields: SwitchingFields
    rule: str
    #: the t-graph: {(state, direction): transition}
    graph: TGraph
    #: the design inequalities of the transitive reduction, as sorted text (rule 0, a
    #: well-defined t-graph whose states are all stable; None otherwise)
    design_inequalities: tuple[str, ...] | None
    #: its statistical weight: the linear extensions of the design order (None: as above)
    weight: int | None
    #: the number (n 2^n)! of total orders of the switching fields
    orders: int
    #: realizable by LP with integer fields checked (None: as above)
    realizable: bool | None
    #: (h_plus, h_minus, c) where the fields are exactly h_i^± − Σ_j c_ij s_j, else None
    pairwise: tuple[np.ndarray, np.ndarray, np.ndarray] | None


def analyse(fields: SwitchingFields, rule: str) -> GeneralAnalysis:
    """The t-graph of ``fields`` under ``rule``, its design inequalities, statistical weight
    and realizability (rule 0, where they apply) and its pairwise form."""
    graph = resolve(fields, rule)
    inequalities = weight = realizable = None
    if rule == "0" and graph.well_defined and fields.all_states_stable():
        order = design_order.design_order(graph)
        fewest = design_order.reduction(order)
        weight = design_order.count_linear_extensions(order)
        n = fields.n
        inequalities = tuple(
            sorted(f"{field_label(a, n)} > {field_label(b, n)}" for a, b in fewest.edges)
        )
        real = tgraphs.realize(graph)
        realizable = bool(real.feasible and real.reproduces)
    return GeneralAnalysis(
        fields=fields,
        rule=rule,
        graph=graph,
        design_inequalities=inequalities,
        weight=weight,
        orders=factorial(fields.n << fields.n),
        realizable=realizable,
        pairwise=tgraph_pairwise.to_pairwise(fields),
    )


__all__ = ["KEY", "GeneralAnalysis", "analyse", "fields_from_mapping", "is_general"]
