"""The house style of every hyst figure: rcParams, colours, panel letters, labels, titles.

Figures are built on bare ``Figure`` objects (no pyplot state, any backend)
inside :func:`style`: serif (STIX) text, ticks in on all sides, small
frameless legends, curves from light to dark as N (or J0) increases, dashed
black reference slopes and panel letters (a), (b), ... Axis labels of
observables come from the catalogue (:func:`hyst.catalogue.label`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hyst import catalogue

#: rcParams of the project style (applied with :func:`style`).
STYLE: dict = {
    "font.family": "serif",
    "font.serif": ["STIXGeneral", "STIX Two Text", "Times New Roman", "DejaVu Serif"],
    "mathtext.fontset": "stix",
    "font.size": 9,
    "axes.labelsize": 10,
    "axes.titlesize": 9,
    "axes.linewidth": 0.7,
    "axes.titlepad": 3.0,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "legend.frameon": False,
    "legend.handlelength": 1.2,
    "legend.handletextpad": 0.4,
    "legend.borderaxespad": 0.3,
    "legend.labelspacing": 0.25,
    "legend.columnspacing": 0.8,
    "xtick.direction": "in",
    "ytick.direction": "in",
    "xtick.top": True,
    "ytick.right": True,
    "xtick.minor.visible": True,
    "ytick.minor.visible": True,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "xtick.major.size": 3.5,
    "ytick.major.size": 3.5,
    "xtick.minor.size": 1.8,
    "ytick.minor.size": 1.8,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.minor.width": 0.5,
    "ytick.minor.width": 0.5,
    "lines.linewidth": 1.1,
    "lines.markersize": 3.5,
    "errorbar.capsize": 0,
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.03,
    "pdf.fonttype": 42,
    "axes.formatter.use_mathtext": True,
}

#: Sequential colormap of the curves (light = smallest N).
CMAP = "Reds"
#: Colour of scatter markers (self-loop samples).
SCATTER_COLOR = "#d62728"

#: Axis labels of the coordinates (observables: :func:`label`).
AXIS_LABELS: dict[str, str] = {
    "NJ0": r"$N J_0$",
    "J0": r"$J_0$",
    "N": r"$N$",
}

#: Titles of the span ensembles (rules and coupling ensembles: hyst.catalogue.labels).
SPAN_TITLES = {
    "spin": r"spins ($\sigma_i = 0$)",
    "hysteron": r"hysterons ($\sigma_i \in [0, 0.5]$)",
    "equal": r"equal spans ($\sigma_i = 0.5$)",
}
#: Short names and colours of the span ensembles when several share one panel.
SPAN_NAMES = {"hysteron": "hysterons", "spin": "spins", "equal": "equal spans"}
SPAN_COLORS = {"hysteron": "#a50f15", "spin": "#252525", "equal": "#2171b5"}


def label(name: str) -> str:
    """Axis label of a coordinate or an observable (catalogue label)."""
    return AXIS_LABELS.get(name) or catalogue.label(name)


@contextlib.contextmanager
def style(**overrides):
    """Context manager applying the project style (:data:`STYLE` + overrides)."""
    with mpl.rc_context({**STYLE, **overrides}):
        yield


def n_colors(ns: Sequence, cmap: str = CMAP, lo: float = 0.3, hi: float = 0.95) -> dict:
    """{N: colour} from light (smallest N) to dark (largest N) on ``cmap``."""
    ns = [v for v in ns]
    cm = mpl.colormaps[cmap]
    if len(ns) == 1:
        return {ns[0]: cm(hi)}
    order = np.argsort(np.asarray(ns, float))
    out = {}
    for rank, i in enumerate(order):
        out[ns[i]] = cm(lo + (hi - lo) * rank / (len(ns) - 1))
    return out


def panel_letter(ax, i: int, text: str | None = None) -> None:
    """Panel letter (a), (b), ... (and an optional description) above the axes."""
    label = f"({chr(ord('a') + i)})"
    ax.set_title(f"{label} {text}" if text else label, loc="left")


def new_figure(nrows: int, ncols: int, size: tuple[float, float]) -> tuple[Figure, np.ndarray]:
    """A new figure of ``size`` inches with an nrows × ncols grid of axes (constrained layout,
    tight padding) and an Agg canvas; returns (figure, 2-d array of axes)."""
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)  # a renderer for text extents (inset placement); any format saves
    axes = fig.subplots(nrows, ncols, squeeze=False)
    fig.get_layout_engine().set(w_pad=0.03, h_pad=0.03, wspace=0.03, hspace=0.04)
    return fig, axes


def decade_ticks(axis) -> None:
    """A log axis labelled at its decades alone (10^-1, 10^0, 10^1): matplotlib otherwise
    labels the minor ticks (2×10^-1, 3×10^-1, ...) of a narrow panel, and they run into
    each other. An axis that shows fewer than two decades is labelled at 1, 2 and 5 times
    them instead, as plain numbers (2, 5, 10, 20, 50). Call it once the limits are set."""
    lo, hi = sorted(axis.get_view_interval())
    decades = int(np.floor(np.log10(hi)) - np.ceil(np.log10(lo))) + 1 if lo > 0 and hi > lo else 0
    if decades >= 2:
        axis.set_major_locator(mpl.ticker.LogLocator(base=10, numticks=12))
    else:
        axis.set_major_locator(mpl.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=12))
        axis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_locator(mpl.ticker.LogLocator(base=10, subs=np.arange(2, 10), numticks=12))
    axis.set_minor_formatter(mpl.ticker.NullFormatter())


#: The attribute of a Figure that holds the categories its drawing function declared.
CATEGORIES = "drawn_categories"


def declare(ax, meaning: str, *artists) -> None:
    """Declare that ``artists``, drawn in ``ax``, show one category of the figure (a filled
    or hatched region, a kind of line) and that a legend of the figure names it ``meaning``,
    its entry drawn as the artists are (fill, hatch, line colour and style, marker). A
    region drawn as several artists (a fill under a hatch) is declared once, with all of
    them. The tests check every declared category against the figure's legends."""
    fig = ax.get_figure(root=True)
    declared = getattr(fig, CATEGORIES, None)
    if declared is None:
        declared = []
        setattr(fig, CATEGORIES, declared)
    declared.append((meaning, tuple(artists)))


def drawn_categories(fig) -> list:
    """[(meaning, artists)] that the drawing functions declared on ``fig`` (:func:`declare`)."""
    return list(getattr(fig, CATEGORIES, []))
