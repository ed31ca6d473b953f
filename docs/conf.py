"""Sphinx configuration of the hyst documentation (``bash scripts/docs`` builds it).

Sphinx with myst-nb, the convention of numpy, xarray and dask: pages in Markdown (MyST),
tutorials as MyST notebooks executed at every build (a tutorial that fails fails the build),
the API reference from the docstrings (autodoc), the command-line, configuration and dataset
references and the figure-to-kernel page generated from the parsers, the schema, the
catalogue and the registries (``_ext/hyst_reference.py``).
"""

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

html_theme = "pydata_sphinx_theme"
html_title = f"hyst {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = ["_static"]
