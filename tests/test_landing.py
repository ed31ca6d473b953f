"""The report's landing page (workflow/report/workflow.rst with hyst.pipeline.landing): what
was run, the comparison's verdicts and the figures, rendered as Snakemake renders it."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from types import SimpleNamespace

import yaml
from docutils.core import publish_parts
from jinja2 import Environment

from hyst.pipeline.config import validate
from hyst.pipeline.landing import RunSummary, verdict_line

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = (
    "**Verdicts of 108 comparisons: 82 agree, 9 disagree (3 explained below), "
    "3 undetermined, 13 not determined, 1 not checked.**"
)


def _quick():
    return validate(yaml.safe_load((ROOT / "config" / "quick.yaml").read_text()))


def _landing(files) -> str:
    """workflow.rst rendered as Snakemake's report renders it (Jinja, then docutils)."""
    env = Environment(trim_blocks=True, lstrip_blocks=True)  # as snakemake.report
    text = (ROOT / "workflow" / "report" / "workflow.rst").read_text()
    rst = env.from_string(text).render(snakemake=None, categories={}, files=files)
    settings = {"halt_level": 2, "report_level": 2}  # a warning fails
    html = publish_parts(rst, writer="html", settings_overrides=settings)["html_body"]
    return rst, re.sub(r"<[^>]+>", "", html)  # the text a reader sees


def _record(name, params):
    """A report file record as the template sees one (a path, the job's parameters)."""
    return SimpleNamespace(target=name, path=Path(name), job=SimpleNamespace(params=params))


def test_the_landing_page_says_what_was_run_the_verdicts_and_the_figures(tmp_path):
    config = _quick()
    (tmp_path / "paper_comparison.md").write_text(f"# hyst against the paper\n\n{VERDICTS}\n")
    summary = RunSummary(tmp_path, config, [str(ROOT / "config" / "quick.yaml")])
    files = [
        _record("report_table.rst", SimpleNamespace()),  # a file of another rule: no summary
        *(_record(f"{f}.png", SimpleNamespace(run=summary)) for f in config["figures"]),
    ]
    rst, html = _landing(files)
    assert rst.count("This run") == 1  # once, however many figures carry it
    assert "config/quick.yaml" in html and "seed 1" in html
    assert f"Studies ({len(config['studies'])})" in html
    assert "random_hysterons (points, 4,000 samples per point)" in html
    assert "networks_two_elements (networks)" in html
    assert "Verdicts of 108 comparisons: 82 agree" in html and "not checked.\n" in html
    assert "explained on the comparison page" in html and "below" not in html
    assert f"Figures ({len(config['figures'])})" in html
    assert "fig3_active_networks (networks_fig3)" in html


def test_the_landing_page_without_a_summary_or_a_comparison_page(tmp_path):
    rst, html = _landing([])
    assert "This run" not in rst and "statistics of interacting hysterons" in html
    summary = RunSummary(tmp_path, _quick())  # no --configfile, no page yet
    assert verdict_line(tmp_path) is None
    assert "the paper preset" in summary.rst and "the page is not made yet" in summary.rst
    _rst, html = _landing([_record("f.png", SimpleNamespace(run=summary))])
    assert "not made yet" in html


def test_the_summary_never_reruns_a_figure_and_travels_to_the_job_server(tmp_path):
    """Snakemake's params trigger compares what it can represent, the report lists str():
    neither changes with the configuration or the results; a job's parameters are pickled
    to the run's job server."""
    config = _quick()
    one = RunSummary(tmp_path, config, ["config/quick.yaml"])
    other = RunSummary(tmp_path, {**config, "seed": 2}, ["config/medium.yaml"])
    assert repr(one) == repr(other) and str(one) == str(other)
    assert "This run" not in str(one)
    assert pickle.loads(pickle.dumps(one)).rst == one.rst
