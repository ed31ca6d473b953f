"""Layer 7, figures: one module per figure family, the shared house style, the figure-type
registry and the captions.

- :mod:`hyst.plotting.style`: rcParams, colours, panel letters, labels and titles;
- :mod:`hyst.plotting.panels`: data access and drawing helpers shared by the families;
- :mod:`hyst.plotting.sweeps`: points studies swept over N and N·J0 (Fig. 2 and replicas,
  race conditions, stable states, gaps versus self-loops, rules, rule 2);
- :mod:`hyst.plotting.l4`: L = 4 self-loops (two elements, large systems);
- :mod:`hyst.plotting.large_systems`: large strictly self-loop-free systems (Fig. 4 and more);
- :mod:`hyst.plotting.networks`: networks of bilinear elements (Fig. 3, the Supplemental's
  serially-coupled elements, random chains);
- :mod:`hyst.plotting.slopes`: local slopes d ln P / d ln(N J0) of the small-coupling fits;
- :mod:`hyst.plotting.loops`: fundamental self-loop structures (a ``loops`` study);
- :mod:`hyst.plotting.layout`: where to draw the states of n elements (by magnetisation)
  and their labels;
- :mod:`hyst.plotting.registry`: the figure types and what each needs from its studies;
- :mod:`hyst.plotting.captions`: the figure captions of the Snakemake report.

:func:`render` draws a figure type from its bound datasets; :func:`save` writes
PNG and PDF. Importing this package does not import matplotlib.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path

from hyst.plotting.registry import FIGURE_TYPES, FigureType, Need

__all__ = ["FIGURE_TYPES", "FigureType", "Need", "render", "save"]


def render(type_name: str, datasets: Sequence, analysis=None, **params):
    """Draw the figure type ``type_name`` from its datasets (one per need, in order; an
    optional need may be missing or None). ``analysis``: None, one analysis Dataset or
    {study: analysis Dataset}, passed to drawing functions that use it; ``params``
    override the type's defaults."""
    if type_name not in FIGURE_TYPES:
        raise KeyError(f"unknown figure type {type_name!r}; known: {', '.join(FIGURE_TYPES)}")
    ftype = FIGURE_TYPES[type_name]
    datasets = list(datasets) + [None] * (len(ftype.needs) - len(datasets))
    missing = [
        n.what for n, d in zip(ftype.needs, datasets, strict=True) if d is None and not n.optional
    ]
    if missing:
        raise KeyError(f"{type_name} needs {'; '.join(missing)}")
    function = ftype.function()
    kwargs = {**ftype.params, **params}
    if "analysis" in inspect.signature(function).parameters:
        kwargs["analysis"] = analysis
    fig = function(*datasets, **kwargs)
    from hyst.plotting.placement import settle
    from hyst.plotting.style import style

    with style():  # the insets kept inside their panels, on the finished figure's layout
        settle(fig)
    return fig


def save(fig, stem, *, dpi: int = 200, formats: Sequence[str] = ("png", "pdf")) -> list:
    """Write ``stem.<format>`` for every format (the raster ones at ``dpi``) in the house
    style, each atomically (see :func:`hyst.provenance.files.atomic_write`); returns the paths.

    The figure is laid out once without drawing (:func:`hyst.plotting.placement.lay_out`:
    its layout engine, e.g. constrained layout) and its tight bounding box found; the layout
    is then frozen and the box shared by every format, so each format costs one rendering
    (``bbox_inches="tight"`` with a layout engine would lay the figure out and draw it
    twice per format). The figure keeps the frozen layout and no layout engine.
    """
    import matplotlib as mpl

    from hyst.plotting.placement import lay_out, ticks_once
    from hyst.plotting.style import style
    from hyst.provenance.files import atomic_write

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    with style(), ticks_once():  # each axis's ticks found once per layout pass
        lay_out(fig)  # the layout, no drawing
        bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(
            mpl.rcParams["savefig.pad_inches"]
        )
        # no layout engine from here on: with one (even "none", a placeholder) savefig would
        # draw the figure once more before rendering it
        with mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            fig.set_layout_engine(None)
        for ext in formats:
            path = stem.with_name(f"{stem.name}.{ext}")

            def write(tmp, ext=ext):
                fig.savefig(tmp, format=ext, dpi=dpi, bbox_inches=bbox)

            atomic_write(path, write)
            paths.append(path)
    return paths
