# Configuration validation, the plan of every study kind's jobs, and the helpers shared by
# the other files of workflow/rules. Nothing here names a study or a kind (they come from
# the configuration and from hyst.studies.KINDS).
import json
import os
import sys
from pathlib import Path

import yaml
from snakemake.utils import update_config

from hyst.pipeline.config import ConfigError, config_warnings, result_config, validate
from hyst.pipeline.landing import CaptionFile, RunSummary
from hyst.pipeline.manifest import result_files
from hyst.pipeline.rule_code import rule_fingerprints
from hyst.pipeline.scheduler import coalesce_reevaluations
from hyst.plotting.registry import FIGURE_TYPES
from hyst.studies import KINDS, kind_of, plan
from hyst.studies.base import StudyKind

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

for _line in config_warnings(CONFIG):
    sys.stderr.write(f"hyst: warning: {_line}\n")

# Snakemake's scheduler evaluates its waiting jobs once a second per job that has ended;
# one pending evaluation at a time does the same work (hyst/pipeline/scheduler.py)
coalesce_reevaluations()

RESULTS = CONFIG["results"]
STUDIES = CONFIG["studies"]
FIGURES = CONFIG["figures"]
FIGURE_FILES = CONFIG["figure_files"]
PLAN = plan(CONFIG)


#: The fingerprint of each rule's code, computed once per run: its `code` param (a change
#: re-runs its jobs; hyst/pipeline/rule_code.py).
CODE = rule_fingerprints(CONFIG)
#: Every result file of the run, relative to RESULTS (the manifest lists them).
RESULT_FILES = result_files(CONFIG)


if 1 < (workflow.cores or 0) < CONFIG["resources"]["threads"] <= (os.cpu_count() or 1):
    sys.stderr.write(
        f"hyst: warning: resources.threads = {CONFIG['resources']['threads']} exceeds the "
        f"{workflow.cores} cores Snakemake was given, so sampling jobs get {workflow.cores}. "
        "Under --profile profiles/slurm add --workflow-profile none (Snakemake also loads "
        "profiles/default, whose `cores: all` counts this machine's cores).\n"
    )


wildcard_constraints:
    job="[A-Za-z0-9_.-]+",
    study="[A-Za-z0-9_-]+",


def canonical(value):
    """Params as canonical JSON, so that reordering YAML keys reruns nothing."""
    return json.dumps(value, sort_keys=True)


def job_payload(kind, name):
    """The payload of one job, as canonical JSON (the job's result depends on it alone)."""
    return canonical(PLAN.job(kind, name).payload)


def job_manifests(wildcards):
    """Manifests of the jobs a study needs."""
    return [f"{RESULTS}/jobs/{kind}/{name}.json" for kind, name in PLAN.needs[wildcards.study]]


def without_description(study):
    """A study without its description (free text for captions: no dataset depends on it)."""
    return {k: v for k, v in study.items() if k != "description"}


def study_code(wildcards):
    """Fingerprint of the code collecting a study's dataset (its kind's)."""
    return CODE[f"collect/{kind_of(STUDIES[wildcards.study]).name}"]


ANALYSED = sorted(name for name, study in STUDIES.items() if kind_of(study).analysable(study))


def figure_studies(name):
    """The studies bound to a figure."""
    return list(FIGURES[name]["studies"])


def figure_inputs(wildcards):
    """The datasets and analyses of the studies bound to a figure."""
    studies = figure_studies(wildcards.figure)
    return {
        "datasets": [f"{RESULTS}/datasets/{s}.nc" for s in studies],
        "analysis": [f"{RESULTS}/analysis/{s}.nc" for s in studies if s in ANALYSED],
    }
