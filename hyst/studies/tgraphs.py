"""Study kind ``tgraphs``: the census of the general model's transition graphs (Teunisse & van
Hecke 2025) and the share of its well-defined parameter space.

Two jobs per n, each one NetCDF file under ``results/tgraphs/``, reused when its provenance
(payload and code fingerprint) matches:

- ``census`` (n ≤ 3, exact): scaffolds, candidate and realizable t-graphs (the search of
  :mod:`hyst.combinatorics.tgraph_search`, scaffolds in chunks on the Dask client of the
  job), the Garden-of-Eden-reduced ones and their statistical weights (linear extensions),
  the exact counts of total orders (:func:`hyst.combinatorics.tgraphs.exact_orders`, rules
  0 and 2), pairwise realizability by LP (all graphs for n = 2; for n = 3 every reduced
  graph and a uniform sample of ``pairwise_sample`` full ones), and with ``weights`` the
  linear extensions of every full t-graph (n = 3: 16 million graphs, about an hour of one
  core: a cluster's job; its sum must equal the exact count of orders);
- ``sample`` (any n): ``samples`` random sets of switching fields, with simple self-loops
  allowed and forbidden, under every rule (:mod:`hyst.combinatorics.tgraph_orders`).

The collected dataset holds the census along ``n``, the exact order counts (as decimal
strings: they pass 2^63) and shares along (n, rule, definition, simple_self_loops), and the
sampled counts along (n_sampled, rule, definition, simple_self_loops); ``census_tables``
renders the issue's table from it (Markdown and LaTeX). Wall times are attributes.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.combinatorics import tgraph_search, tgraphs
from hyst.combinatorics.tgraph_orders import DEFINITIONS, RULES, sample_shares
from hyst.combinatorics.tgraph_pairwise import pairwise_realize_many
from hyst.kernels import tgraph_census, tgraph_orders
from hyst.kernels import tgraphs as general_kernels
from hyst.model import design_order, seeds
from hyst.model.general import TGraph, Transition
from hyst.provenance.files import read_dataset, reusable, write_dataset
from hyst.sampling.cluster import client_if_parallel
from hyst.studies.base import ConfigError, Job, JobPass, StudyKind

SIMPLE = ("allowed", "forbidden")
#: What the sampled counts hold beyond the definitions.
SAMPLED = (*DEFINITIONS, "self_loop", "race", "ties")
#: The example graph of Teunisse & van Hecke's tutorial notebook (its sections 2a and 4a):
#: (state, flips) in bitmasks.
EXAMPLE = {(0, 1): (0, 2, 3), (2, 1): (2, 3, 1), (2, -1): (2, 0), (1, -1): (1, 0),
           (1, 1): (1, 3), (3, -1): (3, 1)}  # fmt: skip
#: Scaffolds per task of the census on a Dask client.
SCAFFOLD_CHUNK = 8


def _scaffold_chunk(n: int, indices: list, weights: bool) -> dict:
    """The summed census of some scaffolds (a Dask task)."""
    every = tgraphs.scaffolds(n)
    out = dict.fromkeys(("candidates", "realizable", "branches", "pruned", "weight"), 0)
    for j in indices:
        c = tgraph_search.scaffold_census(every[j], keep=None if weights else 0)
        out["candidates"] += c.candidates
        out["realizable"] += c.graphs
        out["branches"] += c.branches
        out["pruned"] += c.pruned
        if weights:
            out["weight"] += sum(tgraph_search.linear_extensions(c.orders))
    return out


def _uniform_graphs(n: int, counts: list, k: int, seed: int) -> list:
    """k distinct realizable t-graphs drawn uniformly (scaffold by scaffold)."""
    rng = seeds.generator(seed, {"tgraphs_pairwise_sample": n})
    total = sum(counts)
    picks = np.sort(rng.choice(total, min(k, total), replace=False))
    offsets = np.cumsum([0, *counts])
    graphs = []
    for j, scaffold in enumerate(tgraphs.scaffolds(n)):
        mine = picks[(picks >= offsets[j]) & (picks < offsets[j + 1])] - offsets[j]
        if len(mine):
            keep = int(mine.max()) + 1
            graphs += tgraph_search.scaffold_census(scaffold, keep=keep, pick=mine).kept
    return graphs


def census_record(
    n: int,
    pairwise_sample: int,
    weights: bool,
    seed: int,
    client=None,
    log=print,
    directed_pairwise: bool = False,
):
    """Every exact number of n ≤ 3 hysterons (a dict; big counts as ints). With
    ``directed_pairwise`` the direction-dependent pairwise model (c^+ ≠ c^−) is asked
    about the same t-graphs as the paper's (``directed_pairwise_full``, ``_goe``)."""
    seconds, rec = {}, {"n": n}
    t = time.perf_counter()
    count = len(tgraphs.scaffolds(n))
    chunks = [
        list(range(j, min(j + SCAFFOLD_CHUNK, count))) for j in range(0, count, SCAFFOLD_CHUNK)
    ]
    if client is None:
        parts = [_scaffold_chunk(n, c, weights) for c in chunks]
    else:
        parts = client.gather(
            client.map(_scaffold_chunk, [n] * len(chunks), chunks, [weights] * len(chunks))
        )
    rec["scaffolds"] = count
    for key in ("candidates", "realizable", "branches", "pruned"):
        rec[key] = sum(p[key] for p in parts)
    rec["weight_full"] = sum(p["weight"] for p in parts) if weights else -1
    rec["candidates_per_scaffold"] = [
        tgraphs.count_candidates(s) for s in tgraphs.scaffolds(n)[: 2 if n == 2 else 0]
    ]
    seconds["search"] = time.perf_counter() - t
    log(f"tgraphs n = {n}: {rec['realizable']:,} realizable of {rec['candidates']:,} candidates")
    t = time.perf_counter()
    reduced = tgraph_search.graph_census(n, keep=None)
    rec["goe_realizable"] = reduced.graphs
    rec["goe_weight"] = sum(tgraph_search.linear_extensions(reduced.orders))
    rec["goe_weight_no_simple"] = sum(tgraph_search.linear_extensions(reduced.orders, True))
    seconds["reduced"] = time.perf_counter() - t
    t = time.perf_counter()
    rec["orders"] = {}
    for rule in ("0", "2"):
        for definition in tgraphs.EXACT_DEFINITIONS:
            for simple, no_simple in zip(SIMPLE, (False, True), strict=True):
                c = tgraphs.exact_orders(n, rule, definition, no_simple)
                rec["orders"][f"{rule}/{definition}/{simple}"] = c.good
                rec[f"total/{simple}"] = c.total
    for simple, w in zip(SIMPLE, ("goe_weight", "goe_weight_no_simple"), strict=True):
        rec["orders"][f"0/reachable/{simple}"] = rec[w]
    seconds["orders"] = time.perf_counter() - t
    t = time.perf_counter()
    if n == 2:  # every one
        full = [
            g for s in tgraphs.scaffolds(n) for g in tgraph_search.scaffold_census(s, None).kept
        ]
    elif pairwise_sample:
        counts = [tgraph_search.scaffold_census(s).graphs for s in tgraphs.scaffolds(n)]
        full = _uniform_graphs(n, counts, pairwise_sample, seed)
    else:
        full = []
    rec["pairwise_full"] = _pairwise(full)
    rec["pairwise_full_of"] = len(full)
    rec["pairwise_goe"] = _pairwise(reduced.kept) if (n == 2 or pairwise_sample) else -1
    if directed_pairwise:
        rec["directed_pairwise_full"] = _pairwise(full, directed=True)
        asked = n == 2 or pairwise_sample
        rec["directed_pairwise_goe"] = _pairwise(reduced.kept, directed=True) if asked else -1
    seconds["pairwise"] = time.perf_counter() - t
    if n == 2:
        rec["example_weight"] = design_order.count_linear_extensions(_example_order())
    log(f"census n={n}: " + ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items()))
    return rec


def _example_order():
    g = TGraph(2, {key: Transition(path, "stable") for key, path in EXAMPLE.items()})
    return design_order.design_order(g)


def _pairwise(graphs, directed: bool = False) -> int:
    """How many of ``graphs`` pairwise hysterons realize (every answer checked); with
    ``directed``, pairwise hysterons with direction-dependent couplings."""
    answers = pairwise_realize_many(graphs, directed=directed)
    bad = [a for a in answers if a.feasible and not (a.rows_hold and a.reproduces)]
    if bad:
        raise RuntimeError(f"pairwise LP: {len(bad)} realizations failed their checks")
    return sum(a.feasible for a in answers)


def sample_record(n: int, samples: int, seed: int, log=print) -> dict:
    """The sampled counts of n hysterons: {simple: {rule: {what: k}}} of ``samples`` each
    (the time each took goes to ``log``, not into the record)."""
    out = {}
    for simple, no_simple in zip(SIMPLE, (False, True), strict=True):
        t = time.perf_counter()
        shares = sample_shares(n, samples, seed, no_simple)
        out[simple] = {r: {w: s.k for w, s in shares[r].items()} for r in RULES}
        log(f"sample n={n} ({simple}): {time.perf_counter() - t:.2f} s")
    return out


_N_LIST = {
    "type": "array",
    "uniqueItems": True,
    "items": {"type": "integer", "minimum": 2},
}


class TGraphsKind(StudyKind):
    """The study kind ``tgraphs``: the general model's t-graphs, an exact census for n <= 3 and
    the sampled share of well-defined parameter space for larger n."""

    name = "tgraphs"
    description = (
        "general-model t-graphs: exact census (n <= 3), sampled share of well-defined space"
    )
    own_resources = None

    def schema(self) -> dict:
        """The schema of a ``tgraphs`` study: the n of the exact census and of the sampled shares,
        the samples, the pairwise LP sample and the weights."""
        return self.study_schema(
            {
                "census": {
                    **_N_LIST,
                    "items": {"type": "integer", "minimum": 2, "maximum": tgraphs.EXACT_MAX_N},
                    "description": "n of the exact census (2 and 3).",
                    "default": [2, 3],
                },
                "sample": {
                    **_N_LIST,
                    "items": {"type": "integer", "minimum": 2, "maximum": 10},
                    "description": "n of the sampled shares of well-defined parameter space.",
                    "default": [2, 3, 4, 5, 6, 7, 8],
                },
                "samples": {
                    "description": "Random sets of switching fields per n (each with simple "
                    "self-loops allowed and forbidden).",
                    "type": "integer",
                    "minimum": 1,
                    "default": 100_000,
                },
                "pairwise_sample": {
                    "description": "n = 3: the full t-graphs drawn uniformly for the pairwise "
                    "LP (0: none; n = 3's reduced graphs are then not tested either).",
                    "type": "integer",
                    "minimum": 0,
                    "default": 0,
                },
                "directed_pairwise": {
                    "description": "Also ask the pairwise model with direction-dependent "
                    "couplings (c+ != c-) about the same t-graphs as the paper's pairwise "
                    "model (n = 3: about as long again as pairwise_sample's LPs).",
                    "type": "boolean",
                    "default": False,
                },
                "weights": {
                    "description": "Linear extensions of every full t-graph (n = 3: about an "
                    "hour of one core): their sum must be the exact count of orders.",
                    "type": "boolean",
                    "default": False,
                },
            },
            ["kind"],
        )

    def check(self, name: str, study: dict, config: dict) -> None:
        """Refuse a study with no n (neither census nor sample)."""
        if not (study["census"] or study["sample"]):
            raise ConfigError(f"studies.{name}: give some n (census or sample)")

    def _jobs(self, study: dict, seed: int) -> list[Job]:
        out = []
        for n in study["census"]:
            p = {"what": "census", "n": n, "pairwise_sample": study["pairwise_sample"],
                 "weights": study["weights"], "seed": int(seed)}  # fmt: skip
            if study.get("directed_pairwise"):  # absent when off: the same jobs as before
                p["directed_pairwise"] = True
            out.append(Job(self.name, f"tgraphs-census-n{n}-{seeds.digest(p, 10)}", p, long=n > 2))
        for n in study["sample"]:
            p = {"what": "sample", "n": n, "samples": study["samples"], "seed": int(seed)}
            out.append(Job(self.name, f"tgraphs-sample-n{n}-{seeds.digest(p, 10)}", p))
        return out

    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """One job per n of the census and per n of the sampled shares of each study."""
        jobs, needs = {}, {}
        for name, study in studies.items():
            mine = self._jobs(study, config["seed"])
            jobs.update({j.name: j for j in mine})
            needs[name] = [j.name for j in mine]
        return jobs, needs

    @staticmethod
    def _path(results, job: Job):
        from pathlib import Path

        return Path(results) / "tgraphs" / f"{job.name}.nc"

    def _provenance(self, job: Job) -> dict:
        return {
            "payload": json.dumps(job.payload, sort_keys=True),
            "code_fingerprint": self.fingerprint(),
        }

    def units(self, job: Job, results) -> list[tuple]:
        """The job's one file: a census or a sample of one n."""
        return [(self._path(results, job), self._provenance(job))]

    def run(self, job: Job, results, *, config: dict, threads: int, log=print) -> dict:
        """Compute the job's census or sampled shares for its n (reused when the file's provenance
        matches) and store the record in the file's attributes; return the manifest."""
        path = self._path(results, job)
        if reusable(path, self._provenance(job), log) is None:
            p = job.payload
            if p["what"] == "census":
                with client_if_parallel(threads if p["n"] > 2 else 1, config) as client:
                    record = census_record(
                        p["n"],
                        p["pairwise_sample"],
                        p["weights"],
                        p["seed"],
                        client,
                        log,
                        directed_pairwise=p.get("directed_pairwise", False),
                    )
            else:
                record = sample_record(p["n"], p["samples"], p["seed"], log)
            ds = xr.Dataset(
                attrs={"record": json.dumps(record, default=int), **self._provenance(job)}
            )
            ds.attrs["hyst_version"] = __version__
            write_dataset(ds, path)
        return {"files": [str(path)]}

    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """The study's dataset: the census per n and the sampled shares of well-defined space per
        n, from the jobs' records."""
        records = {}
        for job in self._jobs(study, config["seed"]):
            ds = read_dataset(self._path(results, job))
            records[(job.payload["what"], job.payload["n"])] = json.loads(ds.attrs["record"])
        ds = census_dataset(
            [records[("census", n)] for n in sorted(study["census"])],
            {n: records[("sample", n)] for n in sorted(study["sample"])},
            study["samples"],
        )
        ds.attrs.update(
            {"study": name, "kind": self.name, "seed": int(config["seed"]),
             "hyst_version": __version__, "code_fingerprint": self.fingerprint()}
        )  # fmt: skip
        return ds

    def kernel_passes(self) -> dict[str, tuple]:
        """The kernel passes of a ``tgraphs`` job: the census search, the pairwise LP
        realizability and the sampled orders of switching fields."""
        return {
            "": (
                JobPass(
                    "census",
                    "the pruned search of every scaffold's candidate t-graphs and their "
                    "realizability (hyst.combinatorics.tgraph_search), the linear extensions of "
                    "their design orders, and the exact counts of total orders "
                    "(hyst.combinatorics.tgraphs.exact_orders)",
                    (
                        tgraph_census.census,
                        tgraph_census.reduced_census,
                        tgraph_census.add_edge,
                        tgraph_orders.count_layers,  # tgraph_census.linear_extensions
                    ),
                ),
                JobPass(
                    "pairwise",
                    "pairwise realizability of t-graphs by linear programming (scipy), each "
                    "solution resolved again as a t-graph (hyst.combinatorics.tgraph_pairwise)",
                    (general_kernels.tgraph,),
                ),
                JobPass(
                    "sample",
                    "random switching fields: which orders give a well-defined t-graph, per "
                    "rule (hyst.combinatorics.tgraph_orders)",
                    (general_kernels.order_batch,),
                ),
            )
        }

    def tables(self, ds: xr.Dataset) -> dict:
        """The study's table: {"md", "tex", "rst"} (``census_tables``)."""
        return census_tables(ds)

    def summary(self, ds: xr.Dataset) -> str:
        """The n of the exact census and of the sampled shares."""
        return (
            f"t-graphs of the general model: exact census for n = "
            f"{', '.join(map(str, ds.n.values))}, sampled shares for n = "
            f"{', '.join(map(str, ds.n_sampled.values))}"
        )


KIND = TGraphsKind()


def census_dataset(census: list, sampled: dict, samples: int) -> xr.Dataset:
    """The dataset of census records (n ≤ 3) and sampled records ({n: record})."""
    ns = [r["n"] for r in census]
    defs = list(DEFINITIONS)
    shape = (len(ns), len(RULES), len(defs), len(SIMPLE))
    good = np.full(shape, "", object)
    share = np.full(shape, np.nan)
    total = np.full((len(ns), len(SIMPLE)), "", object)
    for a, r in enumerate(census):
        for c, simple in enumerate(SIMPLE):
            total[a, c] = str(r[f"total/{simple}"])
        for key, value in r["orders"].items():
            rule, definition, simple = key.split("/")
            at = (a, RULES.index(rule), defs.index(definition), SIMPLE.index(simple))
            good[at] = str(value)
            share[at] = value / r[f"total/{simple}"]
    dims = ("n", "rule", "definition", "simple_self_loops")
    data = {
        "orders_good": (dims, good.astype(str)),
        "share_exact": (dims, share),
        "orders_total": (("n", "simple_self_loops"), total.astype(str)),
    }
    for key in ("scaffolds", "candidates", "realizable", "goe_realizable", "branches", "pruned",
                "pairwise_full", "pairwise_full_of", "pairwise_goe"):  # fmt: skip
        data[key] = ("n", np.array([r[key] for r in census], np.int64))
    data["weight_full"] = ("n", np.array([str(r["weight_full"]) for r in census], str))
    if census and all("directed_pairwise_full" in r for r in census):
        for key in ("directed_pairwise_full", "directed_pairwise_goe"):
            data[key] = ("n", np.array([r[key] for r in census], np.int64))
    sn = sorted(sampled)
    counts = np.zeros((len(sn), len(RULES), len(SAMPLED), len(SIMPLE)), np.int64)
    for a, n in enumerate(sn):
        for c, simple in enumerate(SIMPLE):
            for b, rule in enumerate(RULES):
                counts[a, b, :, c] = [sampled[n][simple][rule][w] for w in SAMPLED]
    data["sampled"] = (("n_sampled", "rule", "sampled_what", "simple_self_loops"), counts)
    ds = xr.Dataset(
        data,
        coords={"n": ns, "n_sampled": sn, "rule": list(RULES), "definition": defs,
                "simple_self_loops": list(SIMPLE), "sampled_what": list(SAMPLED)},
    )  # fmt: skip
    ds.attrs["samples"] = int(samples)
    extra = {r["n"]: r.get("example_weight") for r in census if "example_weight" in r}
    ds.attrs["example_weight"] = json.dumps(extra)
    ds.attrs["candidates_per_scaffold"] = json.dumps(
        {r["n"]: r["candidates_per_scaffold"] for r in census}
    )
    return ds


def _count_share(good: str, total: str, of: bool = False) -> str:
    g, t = int(good), int(total)
    pct = f"{100 * g / t:.2f} %" if g * 10_000 >= t else f"{g / t:.4g}"
    return f"{g:,} of {t:,} ({pct})" if of else f"{g:,} ({pct})"


def census_rows(ds: xr.Dataset) -> tuple[list, list]:
    """(columns n, rows [(quantity, {n: cell text})]) of the issue's table."""
    from hyst.combinatorics.tgraph_orders import Share

    exact_n = [int(n) for n in ds.n.values]
    cols = sorted(set(exact_n) | {int(n) for n in ds.n_sampled.values})
    m = int(ds.attrs["samples"])
    rows = []

    def row(name, cell):
        rows.append((name, {n: cell(n) for n in cols}))

    def exact(n, key):
        return ds[key].sel(n=n).item() if n in exact_n else None

    def sampled(n, rule, what, simple="allowed"):
        if n not in ds.n_sampled.values:
            return "–"
        k = int(ds.sampled.sel(n_sampled=n, rule=rule, sampled_what=what, simple_self_loops=simple))
        return Share(k, m).text() + " (sampled)"

    def orders(n, rule, definition, simple="allowed", of=False):
        if n in exact_n:
            good = ds.orders_good.sel(
                n=n, rule=rule, definition=definition, simple_self_loops=simple
            ).item()
            total = ds.orders_total.sel(n=n, simple_self_loops=simple).item()
            if good:
                return _count_share(good, total, of)
        return sampled(n, rule, definition, simple)

    per = json.loads(ds.attrs["candidates_per_scaffold"])
    row(
        "scaffolds",
        lambda n: _big(tgraphs.count_scaffolds(n)) + ("" if n in exact_n else " (analytic)"),
    )
    row(
        "candidate t-graphs",
        lambda n: (
            " and ".join(f"{c:,}" for c in per[str(n)])
            if per.get(str(n))
            else (f"{exact(n, 'candidates'):,}" if n in exact_n else "–")
        ),
    )  # noqa: E501
    row("realizable t-graphs", lambda n: f"{exact(n, 'realizable'):,}" if n in exact_n else "–")
    row(
        "realizable t-graphs after removing Garden-of-Eden states",
        lambda n: f"{exact(n, 'goe_realizable'):,}" if n in exact_n else "–",
    )  # noqa: E501
    row(
        "total orders of the switching fields, up to relabelling",
        lambda n: (
            f"{math.factorial(n << n) // math.factorial(n):,}"
            if n <= 3
            else f"({n << n})!/{n}! ≈ 10^{_log10_orders(n):.0f}"
        ),
    )  # noqa: E501
    row(
        "total orders with a well-defined t-graph (rule 0, every state stable)",
        lambda n: orders(n, "0", "all_states_stable"),
    )  # noqa: E501
    row("... counted on the Garden-of-Eden-reduced graphs", lambda n: orders(n, "0", "reachable"))
    row(
        "... every transition well defined, stability not asked (make_graph of hysteron-tgraphs)",
        lambda n: orders(n, "0", "all_transitions"),
    )  # noqa: E501
    row(
        "with simple self-loops forbidden",
        lambda n: orders(n, "0", "all_states_stable", "forbidden", of=True),
    )  # noqa: E501
    row(
        "... counted on the Garden-of-Eden-reduced graphs, simple self-loops forbidden",
        lambda n: orders(n, "0", "reachable", "forbidden", of=True),
    )  # noqa: E501
    row("pairwise-realizable t-graphs", lambda n: _pairwise_cell(ds, n, exact_n, "full"))
    row(
        "pairwise-realizable Garden-of-Eden-reduced t-graphs",
        lambda n: _pairwise_cell(ds, n, exact_n, "goe"),
    )  # noqa: E501
    if "directed_pairwise_full" in ds:
        row(
            "realizable by pairwise hysterons with direction-dependent couplings",
            lambda n: _pairwise_cell(ds, n, exact_n, "full", "directed_"),
        )
        row(
            "... Garden-of-Eden-reduced t-graphs",
            lambda n: _pairwise_cell(ds, n, exact_n, "goe", "directed_"),
        )
    weights = json.loads(ds.attrs["example_weight"])
    row(
        "linear extensions of the example graph of Teunisse & van Hecke's notebook",
        lambda n: (
            f"{weights[str(n)]} (probability {weights[str(n)] / math.factorial(8):.3g})"
            if str(n) in weights
            else "–"
        ),
    )  # noqa: E501
    for rule in RULES:
        for definition, what in (
            ("all_states_stable", "every state stable"),
            ("reachable", "Garden-of-Eden-reduced"),
        ):
            row(
                f"share well defined, rule {rule}, {what}",
                lambda n, r=rule, d=definition: orders(n, r, d),
            )  # noqa: E501
    return cols, rows


def _big(x: int) -> str:
    """An exact integer with thousands separators, or m × 10^k beyond 10^24."""
    if x < 10**24:
        return f"{x:,}"
    k = len(str(x)) - 1
    return f"{x / 10**k:.3f} × 10^{k}" if k < 300 else f"≈ 10^{k}"


def _log10_orders(n: int) -> float:
    return (math.lgamma((n << n) + 1) - math.lgamma(n + 1)) / math.log(10)


def _pairwise_cell(ds, n, exact_n, which, model: str = "") -> str:
    """The cell of the pairwise census of ``which`` ("full", "goe") t-graphs; ``model``
    "directed_" for the direction-dependent pairwise model."""
    if n not in exact_n:
        return "–"
    if which == "goe":
        k, of = int(ds[f"{model}pairwise_goe"].sel(n=n)), int(ds.goe_realizable.sel(n=n))
        return "–" if k < 0 else f"{k:,} of {of:,}"
    k, of, total = (
        int(ds[v].sel(n=n)) for v in (f"{model}pairwise_full", "pairwise_full_of", "realizable")
    )
    if of == 0:
        return "–"
    if of == total:
        return f"{k:,} of {of:,}"
    from hyst.combinatorics.tgraph_orders import Share

    return f"{k:,} of {of:,} drawn: {Share(k, of).text()} of {total:,} (sampled)"


def census_tables(ds: xr.Dataset) -> dict:
    """{"md": Markdown, "tex": LaTeX, "rst": reStructuredText} of the issue's table."""
    cols, rows = census_rows(ds)
    head = ["quantity", *[f"n = {n}" for n in cols]]
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join([q, *[cells[n] for n in cols]]) + " |" for q, cells in rows]
    esc = {
        "%": r"\%",
        "_": r"\_",
        "&": r"\&",
        "#": r"\#",
        "–": "--",
        "±": r"$\pm$",
        "≈": r"$\approx$",
    }  # noqa: E501

    def tex(text):
        for a, b in esc.items():
            text = text.replace(a, b)
        return text

    tx = [
        r"\begin{tabular}{l" + "r" * len(cols) + "}",
        r"\hline",
        " & ".join(map(tex, head)) + r" \\",
        r"\hline",
    ]  # noqa: E501
    tx += [" & ".join([tex(q), *[tex(cells[n]) for n in cols]]) + r" \\" for q, cells in rows]
    tx += [r"\hline", r"\end{tabular}"]
    rst = [".. list-table::", "   :header-rows: 1", ""]
    for line in [head, *[[q, *[cells[n] for n in cols]] for q, cells in rows]]:
        rst += [f"   * - {line[0]}", *[f"     - {c}" for c in line[1:]]]
    return {"md": "\n".join(md) + "\n", "tex": "\n".join(tx) + "\n", "rst": "\n".join(rst) + "\n"}
