"""The documentation build fails on a figure a tutorial shows as text instead of an image.

An executed tutorial cell whose value is a matplotlib figure reaches the page as an image
only if the kernel can render it; otherwise the page shows "<Figure size 630x430 with 1
Axes>" and no picture. ``docs/conf.py`` warns on every such output (warnings are errors in
``scripts/docs``, which the test command runs). Here the check runs on a small site of one
executed notebook, built with the site's own hook, once broken and once fixed.
"""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("myst_nb")
from sphinx.application import Sphinx  # noqa: E402


def _docs_conf():
    spec = importlib.util.spec_from_file_location("hyst_docs_conf", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


NOTEBOOK = """\
---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---

# A figure

```{{code-cell}} ipython3
{magic}from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

fig = Figure(figsize=(2, 1.5))
FigureCanvasAgg(fig)
fig.subplots().plot([0, 1], [1, 0])
fig
```
"""


def _build(tmp_path: Path, magic: str) -> tuple[str, str]:
    """Build a site of one notebook whose cell returns a Figure made without pyplot, with
    the hook of docs/conf.py; the page's HTML and the build's warnings."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(
        "import importlib.util\n"
        f"_spec = importlib.util.spec_from_file_location('c', {str(ROOT / 'docs' / 'conf.py')!r})\n"
        "_conf = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_conf)\n"
        "setup = _conf.setup\n"
        "extensions = ['myst_nb']\n"
        "nb_execution_mode = 'force'\n"
        "nb_execution_raise_on_error = True\n"
    )
    (src / "index.md").write_text(NOTEBOOK.format(magic=magic))
    warnings = tmp_path / "warnings.txt"
    with warnings.open("w") as stream:
        app = Sphinx(src, src, out, out / ".doctrees", "html", status=None, warning=stream)
        app.build(force_all=True)
    return (out / "index.html").read_text(), warnings.read_text()


def test_a_figure_shown_as_text_is_a_warning_and_an_image_is_not(tmp_path):
    html, warnings = _build(tmp_path / "broken", magic="")
    assert "&lt;Figure size 200x150 with 1 Axes&gt;" in html  # the failure the hook guards
    assert "shown as the text '<Figure size 200x150 with 1 Axes>'" in warnings

    html, warnings = _build(tmp_path / "fixed", magic="%matplotlib inline\n")
    assert "&lt;Figure size" not in html and "<img" in html
    assert "Figure size" not in warnings


def test_the_check_reads_cell_outputs_alone():
    """A figure's text in a page's prose or code is no cell output; an image beside the
    text in the same output is the figure shown."""
    from docutils import nodes

    conf = _docs_conf()
    text = "<Figure size 630x430 with 1 Axes>"

    def page(*outputs):
        doctree = nodes.document("", None)
        doctree += nodes.literal_block(text, text)  # prose: a code block quoting the text
        for output in outputs:
            bundle = nodes.container(nb_element="mime_bundle")
            bundle += output
            doctree += bundle
        return doctree

    shown_as_text = nodes.literal_block(text, text, classes=["output", "text_plain"])
    assert conf.figures_shown_as_text(page(shown_as_text)) == [shown_as_text]
    assert conf.figures_shown_as_text(page()) == []
    with_image = nodes.container()
    with_image += nodes.literal_block(text, text, classes=["output", "text_plain"])
    with_image += nodes.image(uri="figure.png")
    assert conf.figures_shown_as_text(page(with_image)) == []


def _notebooks_apart():
    spec = importlib.util.spec_from_file_location(
        "notebooks_apart", ROOT / "docs" / "_ext" / "notebooks_apart.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tutorials_go_in_turn_to_the_chunks_of_pages_read_at_once():
    """Sphinx reads the pages in chunks of consecutive names, ``-j`` chunks at a time; the
    tutorials, whose names sort together, go in turn to the chunks read first (each keeps
    its size), the other pages around them in their order: no page lost or repeated."""
    from sphinx.util.parallel import make_chunks

    apart = _notebooks_apart()
    pages = [f"page{k:02d}" for k in range(26)]
    notebooks = [f"tutorials/0{k}" for k in range(1, 7)]
    docnames = sorted(pages + notebooks + ["tutorials/index"])
    sizes = [len(c) for c in make_chunks(docnames, 2)]
    assert len(sizes) == 3 and sizes[0] == sizes[1] == 12
    order = apart.spread(docnames, set(notebooks), sizes, 2)
    assert sorted(order) == docnames
    chunks = [order[:12], order[12:24], order[24:]]
    assert [c for c in chunks[0] if c in notebooks] == notebooks[0::2]
    assert [c for c in chunks[1] if c in notebooks] == notebooks[1::2]
    assert not set(chunks[2]) & set(notebooks)
    others = [d for d in order if d not in notebooks]
    assert others == [d for d in docnames if d not in notebooks]
    # more notebooks than places in the first chunks: the rest go to the later ones
    many = [f"nb{k:02d}" for k in range(30)]
    order = apart.spread(many + ["x"], set(many), [12, 12, 7], 2)
    assert sorted(order) == sorted(many + ["x"]) and order[-1] == "x"


def test_the_tutorials_are_the_pages_with_a_notebooks_front_matter():
    """Which pages the build executes: those whose front matter names myst-nb's format."""
    apart = _notebooks_apart()

    env = SimpleNamespace(doc2path=lambda docname: ROOT / "docs" / f"{docname}.md")
    tutorials = sorted(p.stem for p in (ROOT / "docs" / "tutorials").glob("0*.md"))
    assert len(tutorials) >= 6
    for name in tutorials:
        assert apart.executed(None, env, f"tutorials/{name}")
    for page in ("index", "tutorials/index", "pipeline", "quickstart"):
        assert not apart.executed(None, env, page)
