"""Render one configured figure (PNG and the `figure_files` formats) and its report caption
(thin wrapper)."""

import json
from pathlib import Path

from hyst.plotting import FIGURE_TYPES, render, save
from hyst.plotting.captions import figure_caption
from hyst.provenance.files import atomic_write_text, read_dataset


def main(name, binding, files, dataset_paths, analysed, analysis_paths, png, caption, log_path):
    binding, files = json.loads(binding), json.loads(files)
    studies = binding["studies"]
    datasets = dict(zip(studies, map(read_dataset, dataset_paths), strict=True))
    analyses = dict(zip(analysed, map(read_dataset, analysis_paths), strict=True))
    fig = render(
        binding["type"],
        [datasets[s] for s in studies],
        analysis=analyses or None,
        **binding.get("params", {}),
    )
    paths = save(
        fig, Path(png).with_suffix(""), dpi=files["dpi"], formats=("png", *files["formats"])
    )
    text = figure_caption(name, FIGURE_TYPES[binding["type"]].description, datasets, analyses)
    atomic_write_text(caption, text)
    with open(log_path, "w") as log:
        print(f"{name} ({binding['type']}): {', '.join(map(str, paths))}", file=log)
        print(text, file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(
        sm.wildcards.figure,
        sm.params.binding,
        sm.params.files,
        list(sm.input.datasets),
        sm.params.analysed,
        list(sm.input.analysis),
        sm.output.png,
        sm.output.caption,
        sm.log[0],
    )
