"""Figure captions are valid reStructuredText: the report renders them with docutils, and
free text from the configuration (descriptions) or from the datasets renders as written."""

from __future__ import annotations

import io

import docutils.core
import docutils.nodes
import xarray as xr

from hyst.plotting.captions import figure_caption, rst_text


def rst_problems(text: str) -> list[str]:
    """docutils' messages on ``text`` (warnings and errors), as the report would see them."""
    stream = io.StringIO()
    doc = docutils.core.publish_doctree(
        text, settings_overrides={"warning_stream": stream, "report_level": 2, "halt_level": 5}
    )
    messages = [m.astext() for m in doc.findall(docutils.nodes.system_message) if m["level"] >= 2]
    return messages + ([stream.getvalue()] if stream.getvalue() else [])


def test_plain_text_renders_as_written():
    raw = "|d_i| ~ U[0, 0.25], a*b, x_ y, `q`, back\\slash, P_sl, sigma_i^0, end_"
    doc = docutils.core.publish_doctree(rst_text(raw))
    assert doc.astext() == raw and not rst_problems(rst_text(raw))
    assert rst_text("P_sl and sigma_i^0") == "P_sl and sigma_i^0"  # unchanged where it can


def test_a_caption_with_markup_characters_in_its_descriptions_is_valid():
    ds = xr.Dataset(coords={"N": [2, 4], "NJ0": [0.1, 1.0]}, attrs={"samples": 10})
    text = figure_caption(
        "figX",
        "P_sl with |d_i| ~ U[0, 0.25]",
        {"s": ds},
        {},
        {"s": "chains, |d_i| ~ U[0, 0.25], *active* elements, see ref_"},
    )
    assert not rst_problems(text), text
    rendered = docutils.core.publish_doctree(text).astext()
    assert "|d_i| ~ U[0, 0.25], *active* elements, see ref_" in rendered
