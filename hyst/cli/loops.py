"""``hyst loops --n-e K``: M, M_R and M_W for every loop length of K elements: the options
and the table printed (:mod:`hyst.systems.loop_counts` computes the rows, through the
pipeline's cell files)."""

from __future__ import annotations

import argparse
import json

from hyst.cli.arguments import count_option, number_type, progress, results_cache, subcommand
from hyst.combinatorics import design, realize, store
from hyst.combinatorics import structures as S
from hyst.combinatorics.tables import NEW, PAPER_M, PAPER_MR, PAPER_MW
from hyst.systems.loop_counts import loop_count_rows

#: Dataset and column names of the variants.
COLUMNS = {"R": "M_R", "W+": "M_W", "R+": "M_R(spans>=0)", "W": "M_W(any spans)"}
#: Realizability is computed by default for cells with at most this many loops.
REALIZE_MAX = 600_000

HELP = """\
Count the fundamental self-loops of K elements for every length L = 2K ... 2^K and
decide their realizability in the pairwise model by linear programming:

  M     fundamental loop structures (directed cycles of the K-cube flipping every
        element, up to relabeling and time shift)
  M_R   realizable with some h+, h-, c (conservative rule-1 inequalities, spans of
        any sign: the paper's column)
  M_W   realizable with weak asymmetry c_ij c_ji >= 0 and positive spans (the
        paper's column)

Results are cached in RESULTS/loops/ (the pipeline's files): only what is missing
is computed. A number the paper does not give is marked with '*'; 'x' is a cell not
computed (realizability above --realize-max loops).

cost on one core (measured): M(5, L) up to L = 22 in seconds, L = 24 ... 32 in
minutes; M_R and M_W of n_e = 5 at about 100 to 700 loops/s (L = 16: 535,584 loops).
"""


_elements = number_type(
    "n_e", int, f"2 <= K <= {S.MAX_ELEMENTS}", lambda v: 2 <= v <= S.MAX_ELEMENTS
)
_nonnegative = number_type("realize_max", int, ">= 0", lambda v: v >= 0)


def _variants(text):
    names = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in names if v not in realize.VARIANTS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed (comma-separated from {', '.join(realize.VARIANTS)})"
        )
    return names


#: The one line of ``hyst --help`` for this subcommand.
SUMMARY = "count fundamental self-loops M(n_e, L) and their realizability M_R, M_W"


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``loops`` subcommand of ``hyst``."""
    p = subcommand(sub, "loops", SUMMARY, HELP)
    p.add_argument("--n-e", required=True, type=_elements, help="number of elements K (2..6)")
    p.add_argument(
        "--L",
        type=int,
        nargs="+",
        default=None,
        help="loop lengths (default: every even L from 2K to 2^K; give them for K = 6)",
    )
    p.add_argument(
        "--results", default="results", help="results folder of the cache (default: results)"
    )
    p.add_argument(
        "--variants",
        type=_variants,
        default=store.DEFAULTS["variants"],
        help="realizability variants, comma-separated: R (M_R), W+ (M_W), R+ (positive "
        "spans), W (weak asymmetry, any spans); default R,W+",
    )
    p.add_argument(
        "--mode",
        choices=list(design.MODES),
        default=store.DEFAULTS["mode"],
        help="conservative (the Supplemental, default) or rule1 (exact up/down competition)",
    )
    p.add_argument(
        "--lp-form",
        choices=list(store.LP_FORMS),
        default=store.DEFAULTS["lp_form"],
        help="eliminated (H eliminated, the Supplemental's form; default) or compact "
        "(2H an LP variable: the same answers, about five times faster)",
    )
    p.add_argument(
        "--realize-max",
        type=_nonnegative,
        default=REALIZE_MAX,
        help=f"check realizability of cells with at most this many loops (default {REALIZE_MAX})",
    )
    p.add_argument("--burnside", action="store_true", help="count every cell again by Burnside")
    count_option(p, "--threads", "threads of a local Dask cluster (default 1: none)", default=1)
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=run)
    return p


def _lengths(args) -> list[int]:
    from hyst.cli.arguments import UsageError

    n = args.n_e
    if args.L is None:
        if n > 5:
            raise UsageError(
                f"--L: give the lengths for --n-e {n} (M({n}, L) is out of reach for long L)"
            )
        return S.cell_lengths(n)
    for L in args.L:
        try:
            S.check_cell(n, L)
        except ValueError as err:
            raise UsageError(f"--{err}") from None
    return sorted(set(args.L))


def run(args) -> int:
    """``hyst loops``: count M, M_R and M_W for each loop length L of K = ``--n-e`` elements
    (through the cached cell files) and print the table, or JSON; exit status 0."""
    n = args.n_e
    lengths = _lengths(args)
    results_cache(args.results, "loops", "the cache of cells")
    log = progress(args.quiet)

    rows = loop_count_rows(
        n,
        lengths,
        variants=args.variants,
        mode=args.mode,
        lp_form=args.lp_form,
        realize_max=args.realize_max,
        burnside=args.burnside,
        results=args.results,
        threads=args.threads,
        log=log,
    )
    if args.json:
        print(json.dumps({"n_e": n, "rows": rows}, indent=1))
        return 0
    print(_table(n, rows, args.variants))
    return 0


def _mark(value, paper, cell) -> str:
    if value is None:
        return "x"
    return f"{value:,}" + ("" if cell in paper else NEW)


def _table(n: int, rows: list[dict], variants) -> str:
    papers = {"R": PAPER_MR, "W+": PAPER_MW}
    head = ["L", "M", *[COLUMNS[v] for v in variants], "seconds"]
    lines = []
    for row in rows:
        cell = (n, row["L"])
        line = [str(row["L"]), _mark(row["M"], PAPER_M, cell)]
        for v in variants:
            line.append(_mark(row.get(v), papers.get(v, {}), cell))
        line.append(f"{row['seconds']:.1f}")
        lines.append(line)
    widths = [max(len(r[k]) for r in [head, *lines]) for k in range(len(head))]
    out = [f"n_e = {n} (conservative rule 1 unless --mode rule1; * = not in the paper)"]
    for r in [head, *lines]:
        out.append("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    failed = [f"L={r['L']} {k}: {v}" for r in rows for k, v in r.items() if k.endswith("failed")]
    if failed:
        out.append("FAILED CHECKS: " + "; ".join(failed))
    return "\n".join(out)
