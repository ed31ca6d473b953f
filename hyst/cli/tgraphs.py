"""``hyst tgraphs --n K``: the census table of the general model's t-graphs for n = K: the
options and the table printed (:mod:`hyst.systems.census` computes the census, through the
same files as the pipeline's ``tgraphs`` study, ``<results>/tgraphs/``)."""

from __future__ import annotations

import argparse
import json
import time

from hyst.cli.arguments import (
    UsageError,
    count_option,
    number_type,
    progress,
    results_cache,
    seed_type,
    subcommand,
)

#: The one line of ``hyst --help`` for this subcommand.
SUMMARY = "census of the general model's t-graphs for n hysterons (exact or sampled)"
#: Largest n of the command (sampling 10 hysterons: 10,240 fields a sample).
MAX_N = 10

HELP = """\
Print the census of transition graphs (t-graphs) of the general hysteron model
(Teunisse & van Hecke, R. Soc. Open Sci. 2025: every state has its own switching
fields) for n = K, next to the numbers of their code, hysteron-tgraphs, for n = 2:

  exact (n <= 3)   scaffolds, candidate and realizable t-graphs, their
                   Garden-of-Eden-reduced forms, total orders of the switching fields
                   that give a well-defined t-graph (rules 0 and 2), with simple
                   self-loops allowed and forbidden, pairwise realizability (n = 2;
                   with --directed-pairwise also by pairwise hysterons whose
                   couplings depend on the switching direction)
  sampled (any n)  the share of random switching fields (uniform total orders) with a
                   well-defined t-graph, under rules 0, 1, 1p and 2, with errors (or
                   a 95 % upper bound when none was found)

Results are cached in RESULTS/tgraphs/ (the pipeline's files): only what is missing
is computed.

cost on one core (measured): n = 2 in a second; n = 3 about 5 minutes the first time
(the search 6 s, the weights of the 125,453 reduced graphs 3 minutes, the exact counts
of orders 1 minute), plus about 2 minutes with --pairwise-sample (every reduced graph's
LP); sampling 100,000 fields of n = 8 under the four rules about a minute.
"""

_n = number_type("n", int, f"2 <= K <= {MAX_N}", lambda v: 2 <= v <= MAX_N)
_nonnegative = number_type("pairwise_sample", int, ">= 0", lambda v: v >= 0)


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``tgraphs`` subcommand of ``hyst``."""
    p = subcommand(sub, "tgraphs", SUMMARY, HELP)
    p.add_argument("--n", required=True, type=_n, help=f"number of hysterons K (2..{MAX_N})")
    count_option(p, "--samples", "random sets of switching fields (default 20000)", default=20_000)
    p.add_argument("--seed", default=0, type=seed_type, help="base seed (default 0)")
    p.add_argument(
        "--pairwise-sample",
        type=_nonnegative,
        default=0,
        help="n = 3: test every reduced t-graph and this many full ones, drawn uniformly, "
        "for pairwise realizability by LP (default 0: none)",
    )
    p.add_argument(
        "--directed-pairwise",
        action="store_true",
        help="ask pairwise hysterons with direction-dependent couplings (c+ != c-) about "
        "the same t-graphs as the paper's pairwise model (n <= 3)",
    )
    p.add_argument(
        "--results", default="results", help="results folder of the cache (default: results)"
    )
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=run)
    return p


def run(args) -> int:
    """``hyst tgraphs``: compute (or read from the cache) the t-graph census for n = ``--n`` and
    print its table, or JSON; exit status 0."""
    from hyst.studies.tgraphs import census_rows, census_tables
    from hyst.systems.census import cached_census

    if args.pairwise_sample and args.n != 3:
        raise UsageError(
            f"--pairwise-sample: {args.pairwise_sample} is not allowed with --n {args.n} (it "
            "samples the full t-graphs of n = 3; n = 2 tests every one)"
        )
    if args.directed_pairwise and args.n > 3:
        raise UsageError(
            f"--directed-pairwise: not allowed with --n {args.n} (the pairwise census is "
            "exact, n <= 3)"
        )
    results_cache(args.results, "tgraphs")
    log = progress(args.quiet)
    t0 = time.perf_counter()
    ds = cached_census(
        args.n,
        samples=args.samples,
        seed=args.seed,
        pairwise_sample=args.pairwise_sample,
        results=args.results,
        directed_pairwise=args.directed_pairwise,
        log=log,
    )
    seconds = time.perf_counter() - t0
    if args.json:
        cols, rows = census_rows(ds)
        print(json.dumps({"n": args.n, "rows": {q: cells[args.n] for q, cells in rows}}, indent=1))
        return 0
    print(census_tables(ds)["md"], end="")
    exact = "exact where a count is given, " if args.n <= 3 else ""
    print(
        f"n = {args.n}: {exact}sampled from {args.samples:,} random sets of switching fields "
        f"(seed {args.seed}) where marked; {seconds:.1f} s"
    )
    return 0
