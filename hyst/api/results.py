"""``hyst.open_results``: every dataset, analysis and table of a results folder in one tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - imports for the annotations only
    import xarray

#: The table formats a loops study's tables are written in (results/tables/<study>.<ext>).
TABLE_FORMATS = {"md": "markdown", "tex": "latex", "rst": "rst"}


def open_results(folder: str | Path = "results") -> xarray.DataTree:
    """Open every file a pipeline run left in ``folder`` (default ``results``) as one
    ``xarray.DataTree``, each read fully into memory (the files are closed again):

    - ``/datasets/<study>``: each study's dataset (``results/datasets/<study>.nc``);
    - ``/analysis/<study>``: its scaling analysis (``results/analysis/<study>.nc``);
    - ``/tables/<study>``: a loops study's tables, as text attributes ``markdown``,
      ``latex`` and ``rst`` (``results/tables/<study>.*``).

    Every node keeps its file's attributes (provenance: hyst version, code fingerprint,
    seed, samples, the study's configuration in ``study_config``). The root's attributes
    hold the run's configuration as far as the files record it (``config``: JSON of the
    seed and every study's configuration), the folder, the figures
    (``figures``: their PNG files) and the paper-comparison page (``paper_comparison``:
    its Markdown file), where present.

    Parameters
    ----------
    folder : str or Path, default "results"
        The results folder of a pipeline run.

    Examples
    --------
    >>> tree = hyst.open_results("results")                        # doctest: +SKIP
    >>> tree["datasets/my_study"].self_loop_probability    # doctest: +SKIP
    """
    import xarray as xr

    from hyst.provenance.files import read_dataset

    folder = Path(folder)
    datasets = sorted((folder / "datasets").glob("*.nc"))
    if not datasets:
        raise ValueError(f"folder: {folder} holds no datasets/*.nc (not a results folder)")
    nodes: dict[str, xr.Dataset] = {}
    studies: dict[str, dict] = {}
    seeds = set()
    for path in datasets:
        ds = read_dataset(path)
        nodes[f"datasets/{path.stem}"] = ds
        if "study_config" in ds.attrs:
            studies[path.stem] = json.loads(ds.attrs["study_config"])
        if "seed" in ds.attrs:
            seeds.add(int(ds.attrs["seed"]))
    for path in sorted((folder / "analysis").glob("*.nc")):
        nodes[f"analysis/{path.stem}"] = read_dataset(path)
    for path in sorted((folder / "tables").glob("*.md")):
        texts = {
            name: path.with_suffix(f".{ext}").read_text()
            for ext, name in TABLE_FORMATS.items()
            if path.with_suffix(f".{ext}").exists()
        }
        nodes[f"tables/{path.stem}"] = xr.Dataset(attrs=texts)
    config = {"studies": studies}
    if len(seeds) == 1:
        config = {"seed": seeds.pop(), **config}
    root = {
        "results": str(folder),
        "config": json.dumps(config, sort_keys=True),
        "figures": ",".join(p.name for p in sorted((folder / "figures").glob("*.png"))),
    }
    if (folder / "paper_comparison.md").exists():
        root["paper_comparison"] = "paper_comparison.md"
    nodes["/"] = xr.Dataset(attrs=root)
    return xr.DataTree.from_dict(nodes)
