"""The report's rule graph shows each rule once (hyst.pipeline.report_graph)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

from hyst.pipeline.report_graph import rule_graph_spec, rule_levels

ROOT = Path(__file__).resolve().parents[1]


class Job:
    """A job of a rule, as the report's graph sees one (hashed by identity, like Snakemake's)."""

    def __init__(self, rule):
        self.rule = SimpleNamespace(name=rule)


def test_rules_of_jobs_at_two_depths_are_one_node_each_at_their_longest_path():
    # the pipeline's shape: a figure of an analysed study sits one job deeper than one without
    points, dataset_a, dataset_b = Job("points"), Job("collect"), Job("collect")
    analysis = Job("analyse")
    figure_a, figure_b = Job("figure"), Job("figure")
    caption_a, caption_b = Job("caption"), Job("caption")
    everything = Job("all")
    deps = {
        points: set(),
        dataset_a: {points},
        dataset_b: {points},
        analysis: {dataset_a},
        figure_a: {dataset_a, analysis},
        figure_b: {dataset_b},
        caption_a: {dataset_a, analysis},
        caption_b: {dataset_b},
        everything: {figure_a, figure_b, caption_a, caption_b, analysis},
    }
    dag = SimpleNamespace(jobs=list(deps), dependencies=deps)
    spec, xmax, ymax = rule_graph_spec(dag)
    order = [node["rule"] for node in spec["nodes"]]
    assert order == ["points", "collect", "analyse", "caption", "figure", "all"]
    assert ymax == 50 * (len(order) - 1) and xmax == 100
    links = {(link["sourcerule"], link["targetrule"]) for link in spec["links"]}
    direct = {(link["sourcerule"], link["targetrule"]) for link in spec["links_direct"]}
    neighbours = {("points", "collect"), ("collect", "analyse"), ("analyse", "caption")}
    assert direct == neighbours | {("figure", "all")}
    assert links == {
        ("collect", "figure"),
        ("collect", "caption"),
        ("analyse", "figure"),
        ("caption", "all"),
        ("analyse", "all"),
    }
    for link in spec["links"] + spec["links_direct"]:
        assert order[link["source"]] == link["sourcerule"]
        assert order[link["target"]] == link["targetrule"]


def test_levels_are_longest_paths():
    edges = {("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")}
    assert rule_levels("abcd", edges) == {"a": 0, "b": 1, "c": 2, "d": 3}


SNAKEFILE = """
from hyst.pipeline.report_graph import use_in_report
if {patched}:
    use_in_report()
FIGURES = {{"plain": "data.txt", "analysed": "analysis.txt"}}
rule all:
    input: expand("figure_{{name}}.txt", name=FIGURES)
rule points:
    output: "points.txt"
    shell: "echo 1 > {{output}}"
rule collect:
    input: "points.txt"
    output: "data.txt"
    shell: "cat {{input}} > {{output}}"
rule analyse:
    input: "data.txt"
    output: "analysis.txt"
    shell: "cat {{input}} > {{output}}"
rule figure:
    input: lambda wc: FIGURES[wc.name]
    output: report("figure_{{name}}.txt", category="Figures")
    shell: "cat {{input}} > {{output}}"
"""


def report_rules(tmp_path, patched: bool) -> Counter:
    """The rules of the rule graph in the report of a small workflow whose ``figure`` jobs
    sit at two depths, as the pipeline's do."""
    work = tmp_path / ("patched" if patched else "plain")
    work.mkdir()
    (work / "Snakefile").write_text(SNAKEFILE.format(patched=patched))
    env = {"PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
    for extra in ([], ["--report", "report.html"]):
        made = subprocess.run(
            [sys.executable, "-m", "snakemake", "-c1", "--quiet", *extra],
            cwd=work, env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
    return graph_rules((work / "report.html").read_text())


def graph_rules(html: str) -> Counter:
    """How often each rule is drawn in the rule graph of a Snakemake HTML report."""
    spec = json.loads(re.search(r"var rulegraph_spec = (\{.*?\});\n", html).group(1))
    nodes = next(d["values"] for d in spec["data"] if d["name"] == "node-data")
    return Counter(node["rule"] for node in nodes)


def test_the_report_of_a_workflow_draws_each_rule_once(tmp_path):
    # Snakemake's own graph draws `figure` twice (once per depth of its jobs): the test can fail
    assert report_rules(tmp_path, patched=False)["figure"] == 2
    rules = report_rules(tmp_path, patched=True)
    assert rules == Counter({r: 1 for r in ("points", "collect", "analyse", "figure", "all")})
