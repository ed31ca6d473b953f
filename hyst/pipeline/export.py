"""A run's results as a Workflow Run RO-Crate (https://w3id.org/ro/wfrun/workflow), for a
data repository (Zenodo, a university's archive) or a paper's supplement.

The crate holds what the run's manifest (:mod:`hyst.pipeline.manifest`) lists: datasets,
analyses, figures and captions, tables, the paper-comparison page; the manifest itself
(SHA-256 of every file, code fingerprints, software versions); the configuration that
determined the results; the workflow (the Snakefile and its rules, where the run's
repository has them); and the run's timings (the CPU time and peak memory of every job).
The run is a ``CreateAction`` whose instrument is the workflow, whose object is the
configuration and whose results are the files.
"""

from __future__ import annotations

import datetime
import subprocess
import tempfile
from pathlib import Path

import yaml

from hyst._version import __version__
from hyst.pipeline.manifest import MANIFEST, read_manifest

#: The RO-Crate profiles an exported crate conforms to (the rocrate library adds Workflow
#: RO-Crate where the crate holds the workflow).
PROFILES = {
    "https://w3id.org/ro/wfrun/process/0.5": "Process Run Crate",
    "https://w3id.org/ro/wfrun/workflow/0.5": "Workflow Run Crate",
}
#: What each folder of a results folder holds, for the crate's descriptions.
FOLDERS = {
    "datasets": "study dataset (NetCDF, CF conventions)",
    "analysis": "scaling analysis of a study (NetCDF)",
    "figures": "figure",
    "tables": "table",
}


def repository() -> Path | None:
    """The repository hyst runs from (its Snakefile and workflow/), None if installed."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "Snakefile").exists() and (root / "workflow").is_dir() else None


def code_version(root: Path | None) -> str:
    """hyst's version, with the repository's commit where it is a git checkout."""
    if root is None:
        return __version__
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__} (commit {commit})"


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat(timespec="seconds")


def export_ro_crate(results, destination) -> tuple[Path, int]:
    """Write the RO-Crate of the run in ``results`` to the folder ``destination`` (which must
    not exist, or be empty): (its path, the number of result files in it)."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    results, destination = Path(results), Path(destination)
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise FileExistsError(f"{destination} exists and is not an empty folder")
    recorded = read_manifest(results)
    crate = ROCrate()
    crate.name = f"hyst run: {', '.join(sorted(recorded['configuration']['studies']))}"
    crate.description = (
        "The results of a run of hyst (statistics of interacting hysterons): the datasets, "
        "analyses, figures, tables and paper-comparison page of one configuration, with "
        "the manifest of their SHA-256 and code fingerprints."
    )
    crate.root_dataset["license"] = "https://spdx.org/licenses/CC-BY-4.0"
    crate.root_dataset["conformsTo"] = [{"@id": uri} for uri in PROFILES]
    for uri, name in PROFILES.items():
        crate.add_jsonld({"@id": uri, "@type": "CreativeWork", "name": name, "version": uri[-3:]})
    root = repository()
    version = code_version(root)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "configuration.yaml"
        config.write_text(yaml.safe_dump(recorded["configuration"], sort_keys=False))
        config_entity = crate.add_file(
            config,
            "configuration.yaml",
            properties={
                "name": "The configuration that determined the results",
                "encodingFormat": "application/yaml",
            },
        )
        if root is not None:
            workflow = crate.add_workflow(
                root / "Snakefile",
                "Snakefile",
                main=True,
                lang="snakemake",
                properties={"name": "hyst pipeline", "version": version},
            )
            crate.add_tree(root / "workflow", "workflow")
        else:
            workflow = crate.add(
                ContextEntity(
                    crate,
                    "#hyst",
                    {"@type": "SoftwareApplication", "name": "hyst", "version": version},
                )
            )
        results_entities = []
        for path, entry in sorted(recorded["files"].items()):
            folder = path.split("/")[0]
            what = FOLDERS.get(folder, "paper-comparison page")
            results_entities.append(
                crate.add_file(
                    results / path,
                    path,
                    properties={
                        "name": f"{Path(path).stem}: {what}",
                        "contentSize": entry["bytes"],
                        "sha256": entry["sha256"],
                    },
                )
            )
        manifest = crate.add_file(
            results / MANIFEST,
            MANIFEST,
            properties={
                "name": "Manifest: SHA-256 and code fingerprints of every result, software "
                "versions",
                "encodingFormat": "application/json",
            },
        )
        timings = results / "benchmarks" / "job_server.tsv"
        extra = [manifest]
        if timings.exists():
            extra.append(
                crate.add_file(
                    timings,
                    "benchmarks/job_server.tsv",
                    properties={
                        "name": "The run's timings: wall and CPU seconds and peak memory of "
                        "every job",
                        "encodingFormat": "text/tab-separated-values",
                    },
                )
            )
        software = []
        for name, v in recorded["software"].items():
            software.append(
                crate.add_jsonld(
                    {
                        "@id": f"#software-{name}",
                        "@type": "SoftwareApplication",
                        "name": name,
                        "version": v,
                    }
                )  # fmt: skip
            )
        logs = sorted((results / "logs").rglob("*.log")) if (results / "logs").exists() else []
        times = [p.stat().st_mtime for p in logs] + [(results / MANIFEST).stat().st_mtime]
        action = crate.add_action(
            workflow,
            object=[config_entity],
            result=results_entities + extra,
            properties={
                "name": "Run of the hyst pipeline",
                "startTime": _iso(min(times)),
                "endTime": _iso(max(times)),
                "actionStatus": {"@id": "http://schema.org/CompletedActionStatus"},
            },
        )
        action["instrument"] = workflow
        workflow["softwareRequirements"] = software
        crate.write(destination)
    return destination, len(results_entities)
