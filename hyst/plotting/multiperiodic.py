"""Figure of the group ``multiperiodic``: multiperiodic orbits of the symmetric cyclic drive
±A from saturation (T > 1 at some amplitude; Keim & Paulsen, Sci. Adv. 2021) against the
self-loops that stop it first, versus N·J0, one curve per N, one column per ensemble."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from hyst.catalogue.labels import COUPLING_TITLES
from hyst.plotting.panels import loglog_panel, n_legend, select
from hyst.plotting.style import SPAN_NAMES, n_colors, new_figure, panel_letter, style

#: (couplings, spans) of the columns, in this order where the dataset has them: random
#: hysterons, random spins and the self-loop-free ensembles.
ENSEMBLES = (
    ("random", "hysteron"),
    ("random", "spin"),
    ("symmetric", "hysteron"),
    ("columns", "hysteron"),
    ("rows", "hysteron"),
)
#: The rows: P(T > 1) and P(a self-loop before any T > 1).
ROWS = ("multiperiodic_probability", "self_loop_before_multiperiodic_probability")


def _values(ds: xr.Dataset, dim: str) -> list[str]:
    return [str(v) for v in np.atleast_1d(ds[dim].values)] if dim in ds.coords else []


def fig_multiperiodic(
    ds: xr.Dataset,
    analysis=None,
    *,
    ensembles: Sequence[Sequence[str]] = ENSEMBLES,
    rule=None,
    size=(9.0, 4.4),
) -> Figure:
    """Top row: P(T > 1), the probability that the symmetric drive reaches a periodic orbit
    of period T > 1 at some amplitude, versus N·J0 per N (log-log; ensembles without any
    such orbit say so). Bottom row: the probability that a self-loop stops the drive at a
    smaller amplitude than any multiperiodic orbit (or with none at all), log x. One
    column per (couplings, spans) of ``ensembles`` present in the dataset."""
    couplings, spans = _values(ds, "couplings"), _values(ds, "spans")
    present = [(c, s) for c, s in ensembles if c in couplings and s in spans]
    present = present or [(couplings[0] if couplings else None, spans[0] if spans else None)]
    colors = n_colors(list(ds["N"].values))
    with style():
        fig, axes = new_figure(2, len(present), size)
        for i, (c, s) in enumerate(present):
            d = select(ds, couplings=c, spans=s, rule=rule)
            title = f"{COUPLING_TITLES.get(c, c)},\n{SPAN_NAMES.get(s, s)}"
            for row, obs in enumerate(ROWS):
                ax = axes[row, i]
                loglog_panel(ax, d, obs, colors, log_y=(row == 0))
                if row == 1:
                    ax.set_ylim(-0.03, 1.03)
                if row == 0 and not np.nansum(d[obs].values) > 0:
                    n = int(np.nansum(d[f"{obs}_trials"].values))
                    ax.text(
                        0.5,
                        0.5,
                        f"no T > 1\nin {n:,} systems",
                        ha="center",
                        va="center",
                        transform=ax.transAxes,
                        fontsize=6.5,  # inside a narrow panel, clear of its frame
                    )
                    ax.yaxis.set_major_locator(NullLocator())  # no data: no scale to read
                    ax.yaxis.set_minor_locator(NullLocator())
                if i > 0:
                    ax.set_ylabel("")
                panel_letter(ax, row * len(present) + i, title if row == 0 else None)
        n_legend(axes[1, 0], loc="upper left", fontsize="small")
    return fig
