"""Render one configured figure (PNG and the ``figure_files`` formats)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from hyst.plotting import render, save
from hyst.plotting.registry import FIGURE_TYPES
from hyst.provenance.files import read_datasets, write_log


def preload() -> None:
    """Every figure type's drawing module."""
    for figure_type in FIGURE_TYPES.values():
        importlib.import_module(figure_type.module)


def run(sm) -> None:
    """The figure ``sm.wildcards.figure`` from its studies' datasets and analyses."""
    binding, files = json.loads(sm.params.binding), json.loads(sm.params.files)
    datasets = read_datasets(binding["studies"], sm.input.datasets)
    analyses = read_datasets(sm.params.analysed, sm.input.analysis)
    fig = render(
        binding["type"],
        list(datasets.values()),
        analysis=analyses or None,
        **binding.get("params", {}),
    )
    formats = ("png", *files["formats"])
    paths = save(fig, Path(sm.output.png).with_suffix(""), dpi=files["dpi"], formats=formats)
    write_log(sm.log[0], f"{sm.wildcards.figure} ({binding['type']}): {', '.join(map(str, paths))}")
