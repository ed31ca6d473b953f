"""The paper's counts of fundamental self-loops and the tables that compare with them.

Appendix E, Table I, gives M / M_R / M_W per (n_e, L); the Supplemental's
tables give M alone (with M(5, 32)) and M_R, M_W separately, with 'x' for the
cells left empty. ``PAPER_M``, ``PAPER_MR`` and ``PAPER_MW`` hold every number
the paper gives; a cell absent from them is new.

Which realizability variant the paper's columns are (``PAPER_VARIANTS``): the
paper's M_R is reproduced by the conservative rule-1 inequalities with spans of
either sign, and its M_W by the same with weak asymmetry *and* positive spans
h_i^+ ≥ h_i^− (see :mod:`hyst.combinatorics.realize` for the variants). With positive
spans M_R(4, 10) and M_R(4, 12) would be 104 and 126; with spans of either sign
M_W would be 1, 5, 0, 43, 40, 28, 2, 1, 583 — both reported as extra columns.
"""

from __future__ import annotations

PAPER_M = {
    (2, 4): 1,
    (3, 6): 6,
    (3, 8): 2,
    (4, 8): 56,
    (4, 10): 176,
    (4, 12): 420,
    (4, 14): 448,
    (4, 16): 112,
    (5, 10): 796,
    (5, 12): 9028,
    (5, 14): 76640,
    (5, 16): 535584,
    (5, 32): 15109096,
}
PAPER_MR = {
    (2, 4): 1,
    (3, 6): 6,
    (3, 8): 0,
    (4, 8): 56,
    (4, 10): 114,
    (4, 12): 145,
    (4, 14): 48,
    (4, 16): 4,
    (5, 10): 796,
}
PAPER_MW = {
    (2, 4): 0,
    (3, 6): 2,
    (3, 8): 0,
    (4, 8): 24,
    (4, 10): 4,
    (4, 12): 1,
    (4, 14): 0,
    (4, 16): 0,
    (5, 10): 376,
}
#: Quantity -> (paper's numbers, realizability variant that reproduces them).
PAPER_VARIANTS = {"M": (PAPER_M, None), "M_R": (PAPER_MR, "R"), "M_W": (PAPER_MW, "W+")}
#: Marker of a number the paper does not give.
NEW = "*"


def _cell_text(cell: dict, keys, paper_cell) -> str:
    parts = []
    for key in keys:
        value = cell.get(key)
        if value is None:
            parts.append("x")
            continue
        paper = PAPER_VARIANTS[key][0] if key in PAPER_VARIANTS else {}
        mark = "" if paper_cell in paper else NEW
        parts.append(f"{value:,}{mark}")
    return "/".join(parts)


def table_rows(results: dict, keys=("M", "M_R", "M_W"), n_values=None) -> list[list[str]]:
    """Rows of a paper-style table: a header, then one row per L, one column per n_e.

    ``results``: (n_e, L) -> {"M": .., "M_R": .., "M_W": ..} (missing quantities
    print as 'x', impossible cells as '--'); numbers the paper does not give are
    marked with ``NEW``."""
    n_values = sorted(n_values or {n for n, _ in results} | {n for n, _ in PAPER_M})
    lengths = sorted({L for n in n_values for L in range(2 * n, 2**n + 1, 2)})
    rows = [["L / n_e", *[str(n) for n in n_values]]]
    for L in lengths:
        row = [str(L)]
        for n in n_values:
            if not 2 * n <= L <= 2**n:
                row.append("--")
            else:
                row.append(_cell_text(results.get((n, L), {}), keys, (n, L)))
        rows.append(row)
    return rows


def markdown_table(results: dict, keys=("M", "M_R", "M_W"), n_values=None) -> str:
    """The counts M, M_R, M_W (``keys``) per L and n_e as a Markdown table; counts the paper
    does not give are marked."""
    rows = table_rows(results, keys, n_values)
    head = "| " + " | ".join(rows[0]) + " |"
    rule = "|" + "---|" * len(rows[0])
    body = ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join([head, rule, *body])


def latex_table(results: dict, keys=("M", "M_R", "M_W"), n_values=None) -> str:
    """The counts M, M_R, M_W (``keys``) per L and n_e as a LaTeX tabular; counts the paper does
    not give are starred."""
    rows = table_rows(results, keys, n_values)

    def tex(text):
        return text.replace(",", "{,}").replace(NEW, "$^{*}$").replace("--", "--")

    cols = "|" + "c|" * len(rows[0])
    lines = [f"\\begin{{tabular}}{{{cols}}}", "\\hline"]
    head = ["$L$/$n_e$", *[f"${n}$" for n in rows[0][1:]]]
    lines.append(" & ".join(head) + " \\\\ \\hline")
    for r in rows[1:]:
        lines.append(" & ".join([f"${r[0]}$", *[tex(c) for c in r[1:]]]) + " \\\\ \\hline")
    lines.append("\\end{tabular}")
    return "\n".join(lines)


def disagreements(results: dict) -> list[str]:
    """One line per number that differs from the paper's."""
    out = []
    for key, (paper, _variant) in PAPER_VARIANTS.items():
        for cell, value in sorted(paper.items()):
            got = results.get(cell, {}).get(key)
            if got is not None and got != value:
                out.append(f"{key}{cell}: paper {value}, here {got}")
    return out


def results_from_dataset(ds) -> dict:
    """(n_e, L) -> {"M", "M_R", "M_W", ...} from a ``loops`` study dataset (computed only)."""
    out: dict = {}
    names = [v for v in ("M", "M_R", "M_W", "M_R_positive_spans", "M_W_any_spans") if v in ds]
    for n in ds.n_e.values:
        for L in ds.L.values:
            cell = {}
            for v in names:
                value = int(ds[v].sel(n_e=n, L=L))
                if value >= 0:
                    cell[v] = value
            if cell:
                out[(int(n), int(L))] = cell
    return out


def rst_table(results: dict, keys=("M", "M_R", "M_W"), n_values=None) -> str:
    """The same table as reStructuredText (a grid table, for the report's captions)."""
    rows = [[c.replace(NEW, "\\" + NEW) for c in r] for r in table_rows(results, keys, n_values)]
    widths = [max(len(r[c]) for r in rows) + 2 for c in range(len(rows[0]))]
    line = "+" + "+".join("-" * w for w in widths) + "+"
    head = "+" + "+".join("=" * w for w in widths) + "+"

    def fmt(r):
        return "|" + "|".join(f" {c:<{w - 1}}" for c, w in zip(r, widths, strict=True)) + "|"

    out = [line, fmt(rows[0]), head]
    for r in rows[1:]:
        out += [fmt(r), line]
    return "\n".join(out)


def report_tables(ds) -> dict[str, str]:
    """Table I (M/M_R/M_W) and the Supplemental's tables (M; M_R; M_W) of a ``loops``
    dataset as Markdown, LaTeX and reStructuredText; numbers the paper does not give
    are marked with ``NEW``; disagreements with the paper are listed."""
    results = results_from_dataset(ds)
    ns = sorted(int(n) for n in ds.n_e.values)
    parts = {
        "Table I: M / M_R / M_W": ("M", "M_R", "M_W"),
        "Supplemental: M": ("M",),
        "Supplemental: M_R": ("M_R",),
        "Supplemental: M_W": ("M_W",),
    }
    extra = [v for v in ("M_R_positive_spans", "M_W_any_spans") if v in ds]
    if extra:
        parts["Other variants: " + " / ".join(extra)] = tuple(extra)
    note = (
        f"Numbers marked {NEW} are not in the paper; 'x' = not computed; '--' = no loop. "
        f"M_R: conservative rule-1 inequalities, spans of any sign; M_W: weak asymmetry and "
        f"positive spans (the variants that reproduce the paper's numbers)."
    )
    wrong = disagreements(results)
    md, tex, rst = [], [], []
    for title, keys in parts.items():
        md += [f"### {title}", "", markdown_table(results, keys, ns), ""]
        tex += [f"% {title}", latex_table(results, keys, ns), ""]
        rst += [title, "~" * len(title), "", rst_table(results, keys, ns), ""]
    tail = ["Disagreements with the paper: " + ("; ".join(wrong) if wrong else "none."), note]
    return {
        "md": "\n".join(md + tail) + "\n",
        "tex": "\n".join(tex + ["% " + t for t in tail]) + "\n",
        "rst": "\n".join(rst + tail) + "\n",
    }
