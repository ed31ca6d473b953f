"""The rule graph of the Snakemake report: each rule once.

Snakemake's HTML report draws its rule graph from the jobs' graph, keeping one job of each
rule per topological level of the jobs (``snakemake.report.rulegraph_spec``). A rule whose
jobs sit at several depths is then drawn several times: the figure of a study with an
analysis is one level deeper (points → dataset → analysis → figure) than the figure of a
study without one (points → dataset → figure), so ``figure`` and ``caption`` each appeared
twice. ``snakemake --rulegraph`` shows every rule once; this gives the report the same graph.

:func:`rule_graph_spec` builds the report's graph from the rules themselves: one node per
rule, placed at its longest path from the rules that depend on nothing, an edge wherever a job
of one rule feeds a job of another. :func:`use_in_report` installs it in Snakemake's HTML
reporter; the Snakefile calls it, so ``snakemake --report`` and ``bash scripts/run --report``
both draw it.
"""

from __future__ import annotations

from collections.abc import Iterable
from graphlib import TopologicalSorter

#: Vertical distance between two nodes of the drawn graph (Snakemake's own spacing).
NODE_SPACING = 50


def rule_edges(dependencies: dict) -> tuple[list[str], set[tuple[str, str]]]:
    """The rules of a jobs' graph and the edges between them.

    ``dependencies`` maps each job (anything with ``.rule.name``) to the jobs it reads from.
    Returns the rule names and the set of ``(upstream rule, downstream rule)`` pairs; a
    rule's jobs feeding each other (no such rule here, but Snakemake allows it) add no edge.
    """
    rules = {job.rule.name for job in dependencies}
    edges = set()
    for job, upstream in dependencies.items():
        for dep in upstream:
            rules.add(dep.rule.name)
            if dep.rule.name != job.rule.name:
                edges.add((dep.rule.name, job.rule.name))
    return sorted(rules), edges


def rule_levels(rules: Iterable[str], edges: set[tuple[str, str]]) -> dict[str, int]:
    """Each rule's level: the longest chain of rules that feeds it (0 for a rule fed by none)."""
    graph: dict[str, set[str]] = {rule: set() for rule in rules}
    for source, target in edges:
        graph[target].add(source)
    level = {}
    for rule in TopologicalSorter(graph).static_order():
        level[rule] = 1 + max((level[s] for s in graph[rule]), default=-1)
    return level


def rule_graph_spec(dag) -> tuple[dict, int, int]:
    """The report's rule graph with each rule once, in the form of Snakemake's own
    ``rulegraph_spec(dag)``: ``({"nodes", "links", "links_direct"}, xmax, ymax)``.

    Nodes are ordered by level, then by name, one below the other; a link between
    neighbouring nodes is "direct" (drawn straight), any other is drawn as an arc.
    """
    rules, edges = rule_edges({job: dag.dependencies[job] for job in dag.jobs})
    level = rule_levels(rules, edges)
    order = sorted(rules, key=lambda rule: (level[rule], rule))
    nodes = [{"rule": rule, "fx": 10, "fy": i * NODE_SPACING} for i, rule in enumerate(order)]
    index = {rule: i for i, rule in enumerate(order)}
    links, links_direct = [], []
    for source, target in sorted(edges, key=lambda e: (index[e[1]], index[e[0]])):
        link = {
            "target": index[target],
            "source": index[source],
            "sourcerule": source,
            "targetrule": target,
            "value": 1,
        }
        (links_direct if index[target] - index[source] == 1 else links).append(link)
    ymax = max((node["fy"] for node in nodes), default=0)
    return {"nodes": nodes, "links": links, "links_direct": links_direct}, 100, ymax


def use_in_report() -> None:
    """Make Snakemake's HTML report draw :func:`rule_graph_spec`.

    The reporter looks up ``rulegraph_spec`` in its module when it writes a report; this
    replaces that name. Raises ``RuntimeError`` if this Snakemake has no such name (its
    reporter changed), rather than leave a report with the old graph unnoticed.
    """
    from snakemake.report import html_reporter

    if not callable(getattr(html_reporter, "rulegraph_spec", None)):
        raise RuntimeError(
            "hyst: this Snakemake's HTML reporter has no rulegraph_spec to replace "
            "(hyst.pipeline.report_graph); its report would draw rules more than once"
        )
    html_reporter.rulegraph_spec = rule_graph_spec
