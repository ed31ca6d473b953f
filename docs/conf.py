"""Sphinx configuration of the hyst documentation (``bash scripts/docs`` builds it).

Sphinx with myst-nb, the convention of numpy, xarray and dask: pages in Markdown (MyST),
tutorials as MyST notebooks executed at every build (a tutorial that fails fails the build),
the API reference from the docstrings (autodoc), the command-line, configuration and dataset
references and the figure-to-kernel page generated from the parsers, the schema, the
catalogue and the registries (``_ext/hyst_reference.py``).
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

from hyst._version import RELEASE  # noqa: E402

project = "hyst"
author = "The hyst developers"
copyright = "the hyst developers (MIT licence)"
release = version = RELEASE

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "hyst_reference",
    "notebooks_apart",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

# Tutorials: executed at every build, in order, each cell at most 5 minutes; an error fails
# the build (warnings are errors in scripts/docs).
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
napoleon_numpy_docstring = True
# a class's "Attributes" section as a field list of its own (the fields of the dataclasses
# hyst.TransitionGraph, hyst.SelfLoop, ...), not as attributes described a second time
napoleon_use_ivar = True

html_theme = "pydata_sphinx_theme"
html_title = f"hyst {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = ["_static"]


# A figure that a tutorial cell returns but the kernel cannot show as an image reaches the
# page as its text, "<Figure size 630x430 with 1 Axes>", and the reader gets no picture (a
# Figure made without pyplot, returned before the inline backend is loaded). Every such
# output is a warning, so the build, warnings as errors, fails.
FIGURE_AS_TEXT = re.compile(r"<Figure size \d+(\.\d+)?x\d+(\.\d+)? with \d+ Axes>")


def figures_shown_as_text(doctree) -> list:
    """The text outputs of the executed cells of ``doctree`` that stand for a matplotlib
    figure, in a cell output (a MIME bundle) that holds no image of it."""
    from docutils import nodes

    found = []
    for block in doctree.findall(nodes.literal_block):
        if "output" not in block["classes"] or not FIGURE_AS_TEXT.search(block.astext()):
            continue
        bundle = block.parent
        while bundle is not None and bundle.get("nb_element") != "mime_bundle":
            bundle = bundle.parent
        if bundle is None or not any(True for _ in bundle.findall(nodes.image)):
            found.append(block)
    return found


def _warn_figures_shown_as_text(app, doctree, docname) -> None:
    from sphinx.util import logging

    logger = logging.getLogger("hyst.docs")
    for block in figures_shown_as_text(doctree):
        logger.warning(
            "a cell's figure is shown as the text %r, not as an image (display it with the "
            "inline backend loaded: %%matplotlib inline in the first cell)",
            FIGURE_AS_TEXT.search(block.astext()).group(0),
            location=block if block.source else docname,
        )


def setup(app):
    app.connect("doctree-resolved", _warn_figures_shown_as_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
