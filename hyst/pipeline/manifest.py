"""The manifest of a run's results, and their verification against it.

The last rule of a run writes ``<results>/manifest.json``: every result file (datasets,
analyses, figures and their captions, tables, the comparison page) with its size and
SHA-256, the rules' code fingerprints that made it (:mod:`hyst.pipeline.rule_code`), the
validated configuration and the versions of the software that ran. Nothing in it depends
on when or where the run ran, so two runs of one configuration write the same manifest.

:func:`verify` reads a results folder against its manifest: a file missing or changed
since the run, and a file whose code has changed since (the current code would make it
anew), each get one line.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
from pathlib import Path

from hyst.pipeline.config import result_config
from hyst.pipeline.rule_code import rule_fingerprints
from hyst.provenance.files import atomic_write_text
from hyst.studies import kind_of
from hyst.studies.base import StudyKind

#: The manifest's file name in a results folder.
MANIFEST = "manifest.json"
#: The distributions whose versions a manifest records (those a result depends on).
SOFTWARE = (
    "hyst", "numpy", "numba", "scipy", "xarray", "netCDF4", "matplotlib", "dask",
    "distributed", "snakemake", "networkx",
)  # fmt: skip


def result_files(config: dict) -> dict[str, list[str]]:
    """{path relative to the results folder: the code keys of the rules that made it and
    everything it was made from}, for every result file a run of ``config`` writes."""
    studies, figures = config["studies"], config["figures"]

    def data(name: str) -> list[str]:
        kind = kind_of(studies[name]).name
        return [f"job/{kind}", f"collect/{kind}"]

    def analysed(name: str) -> bool:
        return kind_of(studies[name]).analysable(studies[name])

    def upstream(names) -> list[str]:
        keys = [k for s in names for k in data(s)]
        if any(analysed(s) for s in names):
            keys.append("analysis")
        return keys

    files: dict[str, list[str]] = {}
    for name in sorted(studies):
        files[f"datasets/{name}.nc"] = data(name)
        if analysed(name):
            files[f"analysis/{name}.nc"] = [*data(name), "analysis"]
        if type(kind_of(studies[name])).tables is not StudyKind.tables:
            for ext in ("md", "tex", "rst"):
                files[f"tables/{name}.{ext}"] = [*data(name), "tables"]
    formats = ["png", *config["figure_files"]["formats"]]
    for name in sorted(figures):
        bound = upstream(figures[name]["studies"])
        for ext in formats:
            files[f"figures/{name}.{ext}"] = [*bound, f"figure/{name}"]
        files[f"figures/{name}.caption.rst"] = [*bound, f"caption/{name}"]
    if config["comparison"]:
        compared = sorted({s for b in config["comparison"].values() for s in b["studies"]})
        for ext in ("md", "html"):
            files[f"paper_comparison.{ext}"] = [*upstream(compared), "comparison"]
    return {path: sorted(set(keys)) for path, keys in files.items()}


def sha256(path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def software_versions() -> dict[str, str]:
    """The versions of Python and of the distributions in :data:`SOFTWARE`."""
    versions = {"python": platform.python_version()}
    for name in SOFTWARE:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def manifest(results, config: dict, code: dict[str, str]) -> dict:
    """The manifest of the results folder ``results`` of a run of the validated
    ``config`` whose rules ran the code ``code`` (:func:`rule_fingerprints`); it records
    the part of the configuration that determines results (:func:`result_config`)."""
    results = Path(results)
    files = {}
    for path, keys in result_files(config).items():
        file = results / path
        files[path] = {
            "bytes": file.stat().st_size,
            "sha256": sha256(file),
            "code": {k: code[k] for k in keys},
        }
    return {
        "configuration": result_config(config),
        "code": code,
        "software": software_versions(),
        "files": files,
    }


def write_manifest(results, config: dict, code: dict[str, str]) -> Path:
    """Write ``<results>/manifest.json`` (atomically) and return its path."""
    text = json.dumps(manifest(results, config, code), indent=1, sort_keys=True) + "\n"
    return atomic_write_text(Path(results) / MANIFEST, text)


def read_manifest(results) -> dict:
    """The manifest of a results folder (``FileNotFoundError`` if it has none)."""
    return json.loads((Path(results) / MANIFEST).read_text())


def verify(results) -> tuple[list[str], int]:
    """Check every file of a results folder's manifest: (one line per problem, the number
    of files checked). A problem is a file missing, a file whose bytes changed since the
    run, or a file made by code that has changed since (its rule would run again)."""
    results = Path(results)
    recorded = read_manifest(results)
    current = rule_fingerprints(recorded["configuration"])
    problems = []
    for path, entry in recorded["files"].items():
        file = results / path
        if not file.exists():
            problems.append(f"{file}: missing (the manifest lists it)")
            continue
        digest = sha256(file)
        if digest != entry["sha256"]:
            problems.append(
                f"{file}: changed since the run (SHA-256 {digest[:12]}…, the manifest "
                f"says {entry['sha256'][:12]}…)"
            )
        stale = sorted(k for k, v in entry["code"].items() if current.get(k) != v)
        if stale:
            problems.append(
                f"{file}: made by code that has changed since ({', '.join(stale)}); "
                "running the pipeline again makes it anew"
            )
    return problems, len(recorded["files"])
