"""Render one configured figure (PNG and the ``figure_files`` formats)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from hyst.plotting import render, save
from hyst.plotting.registry import FIGURE_TYPES
from hyst.provenance.files import opened_datasets, read_datasets, write_log


def preload() -> None:
    """Every figure type's drawing module, then one small figure drawn and saved as PNG in
    the house style: matplotlib loads the fonts, builds its mathtext parser and imports the
    PNG writer the first time a process draws (about 0.1 s of CPU), once in the job server
    rather than in every figure's job."""
    import io

    import numpy as np

    from hyst.plotting.style import label, new_figure, panel_letter, style

    for figure_type in FIGURE_TYPES.values():
        importlib.import_module(figure_type.module)
    with style():
        fig, axes = new_figure(1, 2, (3.0, 1.5))
        x = np.geomspace(1e-2, 1e2, 5)
        for i, ax in enumerate(axes.flat):
            ax.loglog(x, x**0.5, "o-", label=r"$N = 4$")
            ax.set_xlabel(label("NJ0"))
            ax.set_ylabel(r"$P_{\mathrm{sl}}$")
            ax.legend(title="N")
            panel_letter(ax, i, "spins")
        fig.savefig(io.BytesIO(), format="png", dpi=50)


def run(sm) -> None:
    """The figure ``sm.wildcards.figure`` from its studies' datasets and analyses."""
    binding, files = json.loads(sm.params.binding), json.loads(sm.params.files)
    # the datasets read whole (a figure draws most of their variables, selection by
    # selection), the analyses opened lazily (it reads a few of their ~430 variables)
    datasets = read_datasets(binding["studies"], sm.input.datasets)
    with opened_datasets(sm.params.analysed, sm.input.analysis) as analyses:
        fig = render(
            binding["type"],
            list(datasets.values()),
            analysis=analyses or None,
            **binding.get("params", {}),
        )
    formats = ("png", *files["formats"])
    paths = save(fig, Path(sm.output.png).with_suffix(""), dpi=files["dpi"], formats=formats)
    write_log(sm.log[0], f"{sm.wildcards.figure} ({binding['type']}): {', '.join(map(str, paths))}")
