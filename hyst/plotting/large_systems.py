"""Figures of large strictly self-loop-free systems: main Fig. 4, the avalanche-size
distributions and the cyclic drive (points studies swept in J0). Every panel that colours
curves by N or J0 carries its legend."""

from __future__ import annotations

import math

import matplotlib as mpl
import numpy as np

from hyst.analysis.peaks import maxima
from hyst.catalogue.labels import COUPLING_TITLES, RULE_TITLES
from hyst.plotting.panels import errorbar, n_legend
from hyst.plotting.placement import keep_inside, make_room
from hyst.plotting.style import (
    decade_ticks,
    n_colors,
    new_figure,
    panel_letter,
    style,
)

#: Markers of constant columns under the other rules (Fig. 4(a)): rule -> (marker, colour).
RULE_MARKERS = {"0": ("s", "0.45"), "1p": ("^", "#08306b"), "2": ("D", "0.2"), "1": ("o", "k")}


def _large_sel(ds, couplings, rule="1"):
    sub = ds.sel(couplings=couplings)
    if "rule" in sub.dims:
        sub = sub.sel(rule=rule if rule in sub.rule.values else sub.rule.values[0])
    if "spans" in sub.dims:
        sub = sub.isel(spans=0)
    return sub


def _x(row, n):
    return (row.NJ0 if "NJ0" in row.coords and row.NJ0.ndim else row.J0 * n).values


def _mean_vs_nj0(ax, ds, var, couplings, rule="1", log_y=True, marker="o", cmap="Reds"):
    """One curve per N of a mean observable versus N J0 (J0-grid datasets)."""
    sub = _large_sel(ds, couplings, rule)
    colors = n_colors(list(sub.N.values), cmap=cmap)
    for n in sub.N.values:
        row = sub.sel(N=n)
        errorbar(
            ax,
            _x(row, n),
            row[var].values,
            row[f"{var}_stderr"].values,
            colors[n],
            label=str(int(n)),
            log_y=log_y,
            marker=marker,
            ms=2.5,
        )
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")


def _rules_of(datasets, couplings="columns"):
    """[(rule, dataset)] of the datasets holding ``couplings`` under rules other than 1."""
    out = []
    for d in datasets:
        if d is None or couplings not in [str(v) for v in d.couplings.values]:
            continue
        for r in (str(v) for v in np.atleast_1d(d.rule.values)):
            if r != "1":
                out.append((r, d))
    return out


def _max_inset(ax, curves, bounds=(0.6, 0.1, 0.36, 0.34)):
    """Inset: the maximum over J0 of <A> versus N, one series per rule (log N, linear)."""
    ins = ax.inset_axes(bounds)
    for rule, ns, tops, errs in curves:
        marker, color = RULE_MARKERS.get(rule, ("o", "k"))
        filled = rule == "1"
        ins.errorbar(
            ns,
            tops,
            yerr=errs,
            marker=marker,
            color=color,
            ms=2.5,
            lw=0.8,
            elinewidth=0.6,
            mfc=color if filled else "none",
            label=RULE_TITLES.get(rule, rule),
        )
    ins.set_xscale("log", base=2)
    ins.xaxis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _p: f"{v:g}"))
    ins.xaxis.set_minor_locator(mpl.ticker.NullLocator())
    ins.yaxis.set_major_locator(mpl.ticker.MaxNLocator(4))
    ins.set_xlabel(r"$N$", fontsize=6, labelpad=0.5)
    ins.set_title(r"$\max_{J_0}\langle A\rangle$", fontsize=6, pad=2.0)
    ins.tick_params(labelsize=5, pad=1.0)
    if len(curves) > 1:
        ins.legend(fontsize=4.5, loc="upper left", handlelength=1.0)
    keep_inside(ax, ins, bounds)  # its title and tick labels clear of the panel's frame
    return ins


def _decade(value: float) -> str:
    """$10^{-4}$ for 1e-4 (a power of ten), else the value."""
    exponent = math.log10(value)
    return (
        rf"$10^{{{round(exponent)}}}$" if abs(exponent - round(exponent)) < 1e-9 else f"{value:g}"
    )


def _headroom(ax, factor=0.9):
    """Extend a log y axis upwards by ``factor`` of its decades (room for insets, legends)."""
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * (hi / lo) ** factor)


def _mean_size_ticks(ax):
    """The y axis of <A> in (d)-(f) of the distributions labelled with plain numbers at 1, 2,
    5, 10, 20, ... when it spans less than two decades, at its decades otherwise."""
    lo, hi = ax.get_ylim()
    if hi / lo < 100:
        ax.yaxis.set_major_locator(mpl.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.yaxis.set_minor_locator(mpl.ticker.LogLocator(base=10, subs=np.arange(2, 10)))
        ax.yaxis.set_minor_formatter(mpl.ticker.NullFormatter())
    else:
        decade_ticks(ax.yaxis)


def _max_series(ds, couplings, rule):
    sel = {"couplings": couplings, "rule": rule}
    if "spans" in ds.dims:
        sel["spans"] = str(ds.spans.values[0])
    found = maxima(ds, "avalanche_size", sel)
    ns = sorted(found)
    return ns, [found[n]["y"] for n in ns], [found[n]["y_err"] for n in ns]


def fig_large_n(ds, ds_rule_a=None, ds_rule_b=None, *, size=(7.0, 5.4)):
    """Main Fig. 4: ⟨A⟩ (a, b) and ⟨τ⟩ (c, d) versus N J0 for constant columns (left) and
    symmetric couplings (right), N = 16…512 light to dark; rule 1, σ ~ U[0, 0.5].

    Constant columns under the other rules of ``ds_rule_a``/``ds_rule_b`` (rule 0: no race
    conditions, A <= 2 in the paper; rule 1': least unstable first) are drawn in (a) for the
    largest N (open markers), and the inset of (a) shows the maximum over J0 of ⟨A⟩ versus
    N for every rule."""
    others = _rules_of([ds_rule_a, ds_rule_b])
    with style():
        fig, axes = new_figure(2, 2, size)
        for col, couplings in enumerate(("columns", "symmetric")):
            ax = axes[0, col]
            _mean_vs_nj0(ax, ds, "avalanche_size", couplings)
            ax.set_ylabel(r"$\langle A \rangle$")
            ax.set_xlabel(r"$N J_0$")
            panel_letter(ax, col, f"{COUPLING_TITLES[couplings]}, rule 1")
            n_legend(ax, loc="upper right", fontsize=5, ncol=2)
            _headroom(ax)
            if couplings == "columns":
                handles = []
                for rule, d in others:
                    sub = _large_sel(d, "columns", rule)
                    n = sub.N.values[-1]
                    row = sub.sel(N=n)
                    marker, color = RULE_MARKERS.get(rule, ("s", "0.3"))
                    (line,) = ax.plot(
                        _x(row, n),
                        row.avalanche_size.values,
                        marker,
                        mfc="none",
                        color=color,
                        ms=3,
                        lw=0.6,
                        ls="-",
                        label=f"{RULE_TITLES.get(rule, rule)}, $N = {int(n)}$",
                    )
                    handles.append(line)
                if handles:
                    first = ax.get_legend()
                    ax.legend(handles=handles, loc="center right", fontsize=5)
                    ax.add_artist(first)
                series = [("1", *_max_series(ds, "columns", "1"))]
                series += [(r, *_max_series(d, "columns", r)) for r, d in others]
                inset = _max_inset(ax, series, bounds=(0.12, 0.56, 0.3, 0.3))
                make_room(ax, inset)  # the curves below the inset
            ax = axes[1, col]
            _mean_vs_nj0(ax, ds, "transient", couplings, log_y=False)
            ax.set_ylabel(r"$\langle \tau \rangle$")
            ax.set_xlabel(r"$N J_0$")
            panel_letter(ax, 2 + col, COUPLING_TITLES[couplings])
            n_legend(ax, loc="upper left", fontsize=5, ncol=2)
    return fig


def fig_avalanche_distributions(ds_1024, ds, *, size=(7.2, 4.8)):
    """Supplemental: avalanche-size distributions P(A) at the largest N for every J0 (a–c,
    the N in their titles, J0 from dark blue to yellow, one legend beside them) and ⟨A⟩
    versus N J0 for N = 16…512 (d–f, light to dark red), for symmetric, constant-columns
    and constant-rows couplings; the inset of (e) shows the maximum over J0 of the
    constant-column ⟨A⟩ versus N."""
    with style():
        fig, axes = new_figure(2, 3, size)
        for col, couplings in enumerate(("symmetric", "columns", "rows")):
            ax = axes[0, col]
            sub = _large_sel(ds_1024, couplings).isel(N=-1)
            j0s = list(sub.J0.values)
            colors = n_colors(j0s, cmap="viridis", lo=0.0, hi=0.9)  # seven tellable colours
            for j0 in j0s:
                h = sub.sel(J0=j0).avalanche_size_hist.values.astype(float)
                if h.sum() <= 0:
                    continue
                p = h / h.sum()
                a = np.arange(p.size)
                ok = p > 0
                ax.plot(a[ok], p[ok], "o-", ms=1.8, lw=0.7, color=colors[j0], label=_decade(j0))
            ax.set_xscale("log")
            ax.set_yscale("log")
            if sub.avalanche_size_hist.sum("J0").values[3:].sum() == 0:  # A <= 2 (constant rows)
                ax.set_xticks([1, 2], ["1", "2"])
                ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())
            ax.set_xlabel(r"$A$")
            ax.set_ylabel(r"$P(A)$")
            panel_letter(ax, col, rf"{COUPLING_TITLES[couplings]}, $N = {int(sub.N)}$")
            if col == 2:  # one legend for the J0 of the three panels, beside them
                ax.legend(
                    title=r"$J_0$",
                    fontsize=6,
                    title_fontsize=6.5,
                    loc="upper left",
                    bbox_to_anchor=(1.02, 1.0),
                    borderaxespad=0.0,
                    handlelength=1.2,
                )
            ax = axes[1, col]
            _mean_vs_nj0(ax, ds, "avalanche_size", couplings)
            ax.set_xlabel(r"$N J_0$")
            ax.set_ylabel(r"$\langle A \rangle$")
            panel_letter(ax, 3 + col)
            _headroom(ax, factor=0.45)
            # <A> = 1 at small N J0 and grows at large N J0: the upper left corner is free,
            # in (e) for the inset, with the legend in the lower right (the axis extended
            # where a point would reach under the legend)
            legend_at = "lower right" if couplings == "columns" else "upper left"
            n_legend(ax, loc=legend_at, fontsize=5, ncol=2)
            make_room(ax, ax.get_legend(), below=legend_at == "lower right")
            if couplings == "columns":
                inset = _max_inset(
                    ax, [("1", *_max_series(ds, "columns", "1"))], bounds=(0.12, 0.52, 0.3, 0.3)
                )
                make_room(ax, inset)  # the curves below the inset
            _mean_size_ticks(ax)
    return fig


def fig_cyclic_drive(ds, *, size=(7.2, 4.8)):
    """Supplemental: transients ⟨τ⟩ (a–c) and periods ⟨T⟩ (d–f) of the cyclic drive
    versus J0 for symmetric, constant-columns and constant-rows couplings,
    N = 16…512 light to dark (a legend in every panel)."""
    with style():
        fig, axes = new_figure(2, 3, size)
        for col, couplings in enumerate(("symmetric", "columns", "rows")):
            sub = _large_sel(ds, couplings)
            colors = n_colors(list(sub.N.values), cmap="Reds")
            for row_i, var, sym in ((0, "transient", r"\tau"), (1, "period", "T")):
                ax = axes[row_i, col]
                for n in sub.N.values:
                    row = sub.sel(N=n)
                    errorbar(
                        ax,
                        row.J0.values,
                        row[var].values,
                        row[f"{var}_stderr"].values,
                        colors[n],
                        label=str(int(n)),
                        log_y=False,
                        ms=2.5,
                    )
                ax.set_xscale("log")
                ax.set_xlabel(r"$J_0$")
                ax.set_ylabel(rf"$\langle {sym} \rangle$")
                panel_letter(ax, 3 * row_i + col, COUPLING_TITLES[couplings])
                ax.ticklabel_format(axis="y", useOffset=False)
                n_legend(ax, loc="upper left", fontsize=5)
                make_room(ax, ax.get_legend())  # the curves below the legend
    return fig
