# Configuration validation and the sweep plan shared by every rule file.
import json
import sys
from pathlib import Path

import yaml
from snakemake.utils import update_config

from hyst.config import ConfigError, validate
from hyst.pipeline import plan, study_batches
from hyst.plotting import FIGURES, OPTIONAL
from hyst.report import CaptionFile

if "studies" not in config:
    # no --configfile: the paper preset, with any --config overrides on top
    _overrides = dict(config)
    with open(Path(workflow.basedir) / "config" / "config.yaml") as fh:
        config.update(yaml.safe_load(fh))
    update_config(config, _overrides)

try:
    CONFIG = validate(config)
except ConfigError as err:
    sys.stderr.write(f"hyst: invalid configuration: {err}\n")
    sys.exit(2)

RESULTS = CONFIG["results"]
#: The hyst package: its analysis and plotting modules are inputs of their rules.
PACKAGE = Path(workflow.basedir) / "hyst"

if 1 < (workflow.cores or 0) < CONFIG["resources"]["threads"]:
    sys.stderr.write(
        f"hyst: warning: resources.threads = {CONFIG['resources']['threads']} exceeds the "
        f"{workflow.cores} cores Snakemake was given, so sampling jobs get {workflow.cores}. "
        "Under --profile profiles/slurm add --workflow-profile none (Snakemake also loads "
        "profiles/default, whose `cores: all` counts this machine's cores).\n"
    )
BATCHES, STUDIES = plan(CONFIG)


wildcard_constraints:
    batch="[A-Za-z0-9_.-]+",
    study="[A-Za-z0-9_-]+",


def swept(study):
    """Studies with a scaling analysis: several N and NJ0 (or J0) values."""
    axis = study.get("NJ0", study.get("J0"))
    values = axis if isinstance(axis, list) else [0, 0, 0]
    return len(study["N"]) >= 2 and len(values) >= 3


ANALYSED = sorted(name for name, study in CONFIG["studies"].items() if swept(study))


def canonical(value):
    """Params as canonical JSON, so that reordering YAML keys reruns nothing."""
    return json.dumps(value, sort_keys=True)


def batch_manifests(wildcards):
    """Manifests of the sampling batches holding a study's points."""
    names = study_batches(BATCHES, STUDIES[wildcards.study])
    return [f"{RESULTS}/batches/{name}.json" for name in names]


def figure_datasets(name):
    """Datasets a figure needs that this configuration provides."""
    return [d for d in FIGURES[name].datasets if d in STUDIES or (d == "pairs" and CONFIG["pairs"])]


def renderable(name):
    """A figure is rendered when the config provides every study it needs."""
    needed = [d for d in FIGURES[name].datasets if (name, d) not in OPTIONAL]
    return all(d in STUDIES or (d == "pairs" and CONFIG["pairs"]) for d in needed)


RENDERED = sorted(name for name in FIGURES if renderable(name))
