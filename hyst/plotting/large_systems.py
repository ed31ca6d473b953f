"""Figures of large strictly self-loop-free systems: main Fig. 4, the avalanche-size
distributions and the cyclic drive (points studies swept in J0)."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np

from hyst.plotting.panels import errorbar, n_legend
from hyst.plotting.style import COUPLING_TITLES, n_colors, new_figure, panel_letter, style


def _large_sel(ds, couplings, rule="1"):
    sub = ds.sel(couplings=couplings)
    if "rule" in sub.dims:
        sub = sub.sel(rule=rule if rule in sub.rule.values else sub.rule.values[0])
    if "spans" in sub.dims:
        sub = sub.isel(spans=0)
    return sub


def _mean_vs_nj0(ax, ds, var, couplings, rule="1", log_y=True, marker="o", label_n=True):
    """One curve per N of a mean observable versus N J0 (J0-grid datasets)."""
    sub = _large_sel(ds, couplings, rule)
    colors = n_colors(list(sub.N.values), cmap="Blues" if var != "transient" else "Reds")
    for n in sub.N.values:
        row = sub.sel(N=n)
        x = (row.NJ0 if "NJ0" in row.coords and row.NJ0.ndim else row.J0 * n).values
        errorbar(
            ax,
            x,
            row[var].values,
            row[f"{var}_stderr"].values,
            colors[n],
            label=str(int(n)) if label_n else None,
            log_y=log_y,
            marker=marker,
            ms=3,
        )
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")


def fig_large_n(ds, ds_rule0=None, *, size=(7.0, 5.2)):
    """Main Fig. 4: ⟨A⟩ (a, b) and ⟨τ⟩ (c, d) versus N J0 for constant columns (left) and
    symmetric couplings (right), N = 16…512 light to dark; rule 1, σ ~ U[0, 0.5].
    With ``ds_rule0``, (a) also shows constant columns under rule 0 (open markers, A ≤ 2)."""
    with style():
        fig, axes = new_figure(2, 2, size)
        for col, couplings in enumerate(("columns", "symmetric")):
            ax = axes[0, col]
            _mean_vs_nj0(ax, ds, "avalanche_size", couplings)
            if couplings == "columns" and ds_rule0 is not None:
                sub = _large_sel(ds_rule0, "columns", "0")
                for n in sub.N.values[-1:]:
                    row = sub.sel(N=n)
                    ax.plot(
                        (row.J0 * n).values,
                        row.avalanche_size.values,
                        "s",
                        mfc="none",
                        color="0.3",
                        ms=3,
                        label=f"rule 0, N={int(n)}",
                    )
            ax.set_ylabel(r"$\langle A \rangle$")
            panel_letter(ax, col, COUPLING_TITLES[couplings])
            n_legend(ax, loc="upper left", fontsize=6)
            ax = axes[1, col]
            _mean_vs_nj0(ax, ds, "transient", couplings, log_y=False)
            ax.set_ylabel(r"$\langle \tau \rangle$")
            ax.set_xlabel(r"$N J_0$")
            panel_letter(ax, 2 + col, COUPLING_TITLES[couplings])
    return fig


def fig_avalanche_distributions(ds_1024, ds, *, size=(7.2, 4.6)):
    """Supplemental: avalanche-size distributions P(A) at the largest N for J0 = 10^-2…10^2
    (a–c, light to dark as J0 grows) and ⟨A⟩ versus N J0 for N = 16…512 (d–f),
    for symmetric, constant-columns and constant-rows couplings."""
    with style():
        fig, axes = new_figure(2, 3, size)
        for col, couplings in enumerate(("symmetric", "columns", "rows")):
            ax = axes[0, col]
            sub = _large_sel(ds_1024, couplings).isel(N=-1)
            j0s = list(sub.J0.values)
            colors = n_colors(j0s, cmap="Blues")
            for j0 in j0s:
                h = sub.sel(J0=j0).avalanche_size_hist.values.astype(float)
                if h.sum() <= 0:
                    continue
                p = h / h.sum()
                a = np.arange(p.size)
                ok = p > 0
                ax.plot(a[ok], p[ok], "o-", ms=2, lw=0.8, color=colors[j0], label=f"{j0:.3g}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            if sub.avalanche_size_hist.sum("J0").values[3:].sum() == 0:  # A <= 2 (constant rows)
                ax.set_xticks([1, 2], ["1", "2"])
                ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())
            ax.set_xlabel(r"$A$")
            ax.set_ylabel(r"$P(A)$")
            panel_letter(ax, col, COUPLING_TITLES[couplings])
            ax.text(
                0.96, 0.92, rf"$N = {int(sub.N)}$", transform=ax.transAxes, fontsize=7, ha="right"
            )
            if col == 0:  # the same J0 in every panel: one legend, where P(A) has no points
                ax.legend(title=r"$J_0$", fontsize=5, title_fontsize=6, loc="lower left", ncol=2)
            ax = axes[1, col]
            _mean_vs_nj0(ax, ds, "avalanche_size", couplings)
            ax.set_xlabel(r"$N J_0$")
            ax.set_ylabel(r"$\langle A \rangle$")
            panel_letter(ax, 3 + col)
            n_legend(ax, loc="upper left", fontsize=6)
    return fig


def fig_cyclic_drive(ds, *, size=(7.2, 4.6)):
    """Supplemental: transients ⟨τ⟩ (a–c) and periods ⟨T⟩ (d–f) of the cyclic drive
    versus J0 for symmetric, constant-columns and constant-rows couplings,
    N = 16…512 light to dark."""
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
                        ms=3,
                    )
                ax.set_xscale("log")
                ax.set_xlabel(r"$J_0$")
                ax.set_ylabel(rf"$\langle {sym} \rangle$")
                panel_letter(ax, 3 * row_i + col, COUPLING_TITLES[couplings])
                ax.ticklabel_format(axis="y", useOffset=False)
                if row_i == 0 and col == 0:
                    n_legend(ax, loc="upper right", fontsize=6)
    return fig
