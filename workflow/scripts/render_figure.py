"""Render one paper figure (PNG, PDF) and its report caption (thin wrapper)."""

import json
from pathlib import Path

from hyst.io import read_dataset
from hyst.plotting import FIGURES, render, save
from hyst.report import figure_caption


def main(name, names, dataset_paths, analysed, analysis_paths, plot, png, caption, log_path):
    datasets = dict(zip(names, map(read_dataset, dataset_paths), strict=True))
    analyses = dict(zip(analysed, map(read_dataset, analysis_paths), strict=True))
    fig = render(name, datasets, analysis=analyses or None, **json.loads(plot))
    paths = save(fig, Path(png).with_suffix(""))
    text = figure_caption(name, FIGURES[name].description, datasets, analyses)
    Path(caption).write_text(text)
    with open(log_path, "w") as log:
        print(f"{name}: {', '.join(map(str, paths))}", file=log)
        print(text, file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(
        sm.wildcards.figure,
        sm.params.names,
        list(sm.input.datasets),
        sm.params.analysed,
        list(sm.input.analysis),
        sm.params.plot,
        sm.output.png,
        sm.output.caption,
        sm.log[0],
    )
