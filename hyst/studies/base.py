"""What a kind of study provides: the seam every study kind plugs into.

A *study* is one named entry of the configuration's ``studies:``; its ``kind``
(default ``points``) says what it computes. A kind is one module of
:mod:`hyst.studies` holding one :class:`StudyKind`, which provides

- its part of the configuration schema (:meth:`StudyKind.schema`) and the checks
  a schema cannot express (:meth:`StudyKind.check`);
- its job list (:meth:`StudyKind.jobs`): JSON-serialisable payloads that say
  everything a job's result depends on; jobs may be shared between studies;
- the computation of one job (:meth:`StudyKind.run`), which writes result files
  under ``results/`` and returns a manifest;
- the collection of one study's dataset from its jobs' files (:meth:`StudyKind.collect`);
- what figures can ask of its datasets (:meth:`StudyKind.sweep`) and a caption line;
- the kernels its jobs run, per group a figure may ask for (:meth:`StudyKind.kernel_passes`),
  from which the documentation's figure-to-kernel page is built
  (:mod:`hyst.pipeline.kernel_map`).

The Snakemake workflow runs every job of every kind with one rule (``workflow/rules/jobs.smk``,
the kind a wildcard; its resources from :meth:`StudyKind.job_resources`); collection,
analysis and figures are generic.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import xarray as xr

from hyst.provenance.fingerprints import code_fingerprint


class ConfigError(ValueError):
    """An invalid configuration (message: one line, key first)."""


@dataclass(frozen=True)
class Job:
    """One job of a kind: a name (file-system safe) and the payload it computes.

    ``long``: a scheduling hint, never part of the result. Long jobs are started before
    the others (the workflow gives them a higher Snakemake priority), so that on a few
    cores the short jobs fill the end of a run instead of one long job running alone.
    """

    kind: str
    name: str
    payload: dict
    long: bool = False


@dataclass(frozen=True)
class JobPass:
    """A pass of a study kind's jobs that runs kernels: its ``name``, what it computes (one
    line, ``description``) and the ``kernels`` it calls, as the function objects themselves:
    wrappers of :mod:`hyst.model.batch` (each names its numba kernel, ``wrapper.kernels``)
    or numba kernels of :mod:`hyst.kernels` called directly (the single-system and
    combinatorial kernels). The points kind's passes are the sampler's
    (:class:`hyst.sampling.passes.KernelPass`), which carry ``name`` and ``kernels`` too."""

    name: str
    description: str
    kernels: tuple[Callable, ...]


def shared_by(keys_of: dict[str, Iterable[str]]) -> dict[tuple[str, ...], list[str]]:
    """The keys of what studies need (``keys_of``: study -> keys), grouped by the set of
    studies that need them: {(study, ...): [key, ...]}, studies sorted, keys in the order
    first met. A kind that packs shared work into jobs packs each group on its own: a
    job's name then changes only with what its own studies need, and a change to one
    study re-plans no other study's dataset."""
    studies_of: dict[str, set] = {}
    for study, keys in keys_of.items():
        for key in keys:
            studies_of.setdefault(key, set()).add(study)
    groups: dict[tuple[str, ...], list[str]] = {}
    for key, studies in studies_of.items():
        groups.setdefault(tuple(sorted(studies)), []).append(key)
    return dict(sorted(groups.items()))


class StudyKind(ABC):
    """Base class of the study kinds (see the module docstring)."""

    #: The kind's name, as written in ``kind:`` of a study.
    name: str = ""
    #: One line for ``hyst config check`` and the docs.
    description: str = ""
    #: The resources of each job ({threads, mem_mb, runtime}) when they are the kind's own;
    #: None: the configuration's ``resources:``, its jobs running on the ``dask:`` cluster
    #: (by default a LocalCluster of ``resources.threads`` threads per job).
    own_resources: dict | None = None

    def fingerprint(self) -> str:
        """Fingerprint of the code that determines this kind's results: the kind's module
        and everything it imports (:func:`hyst.provenance.fingerprints.code_fingerprint`)."""
        return code_fingerprint([type(self).__module__])

    @abstractmethod
    def schema(self) -> dict:
        """JSON schema of one study of this kind (``kind`` and ``description`` included, see
        :meth:`study_schema`)."""

    def study_schema(self, properties: dict, required=(), extra: dict | None = None) -> dict:
        """The schema of a study of this kind: an object of ``properties`` (no other keys)
        and the two every study has, ``kind`` and ``description``; ``extra``: more keywords
        of the object's schema."""
        return {
            "type": "object",
            "additionalProperties": False,
            "required": list(required),
            "properties": {
                "kind": {"description": "The study kind.", "const": self.name},
                "description": {
                    "description": "Free text shown in reports.",
                    "type": "string",
                    "default": "",
                },
                **properties,
            },
            **(extra or {}),
        }

    def job_resources(self, config: dict) -> dict:
        """Threads, memory (MB) and run time (minutes) of one job of this kind."""
        own = self.own_resources or config["resources"]
        return {k: own[k] for k in ("threads", "mem_mb", "runtime")}

    def job_config(self, config: dict) -> dict:
        """Where a job of this kind runs its work, read from the (raw or validated)
        configuration when the job runs: ``{"dask": {...}, "backend": ...}`` for the kinds
        that run on the configuration's cluster (the backend: where the sampler's kernels
        run), {} for the others. Never part of a job's params: it does
        not change the job's result, so editing it reruns nothing."""
        if self.own_resources:
            return {}
        return {"dask": dict(config.get("dask") or {}), "backend": config.get("backend", "cpu")}

    def normalise(self, study: dict) -> dict:
        """A copy of a raw study with natural spellings made canonical before validation."""
        return dict(study)

    def check(self, name: str, study: dict, config: dict) -> None:
        """Checks beyond the schema; raise :class:`ConfigError` naming ``studies.<name>.…``."""
        return None

    def warnings(self, name: str, study: dict, config: dict) -> list[str]:
        """Lines naming ``studies.<name>.…`` that warn of what a valid study does that its
        author may not mean (nothing is refused); [] by default."""
        return []

    def costs(self, name: str, study: dict, config: dict) -> dict:
        """What a study samples, by unit (a key that studies sharing the unit have in common):
        {key: (systems, core-seconds or None where not estimated)}; {}: nothing estimated."""
        return {}

    def job_seconds(self, job: Job, rates: dict | None) -> float:
        """CPU seconds of one thread that a job's own computation takes at the measured
        ``rates`` (``benchmarks/rates.json``), beside the pipeline's cost of a job; 0 where
        the kind does not estimate it."""
        return 0.0

    @abstractmethod
    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """(jobs by name, study name -> names of the jobs it needs) for this kind's studies."""

    @abstractmethod
    def run(self, job: Job, results, *, config: dict, threads: int, log: Callable) -> dict:
        """Compute one job: write its result files under ``results`` (atomically, reusing
        files whose provenance matches) and return its manifest (JSON-serialisable)."""

    @abstractmethod
    def units(self, job: Job, results) -> list[tuple[Path, dict]]:
        """The result files a job writes, each with the provenance attributes it must carry
        to be reused (:func:`hyst.provenance.files.reusable`): what ``hyst status`` counts
        as done, stale or missing. A job's files are written one by one, so a job that
        stopped leaves those it finished."""

    @abstractmethod
    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """The study's dataset, assembled from its jobs' result files."""

    def sweep(self, study: dict) -> dict:
        """What a figure can require of this study's dataset: {"x": the swept coupling
        axis or None, "dims": dimensions that vary, "groups": computed groups, "records":
        the records it stores}."""
        return {"x": None, "dims": (), "groups": (), "records": ()}

    def kernel_passes(self) -> dict[str, tuple]:
        """The kernel passes of this kind's jobs, by the group a figure may ask of its studies
        (the ``groups`` of :meth:`sweep`; ``""`` for a kind whose studies have none): {group:
        passes}, each pass with ``name`` and ``kernels`` (:class:`JobPass`). Every group of
        every kind has a path to a kernel (``tests/test_kernel_map.py``)."""
        return {}

    def sampler_selections(self, job: Job) -> set[tuple[str, ...]]:
        """The selections of observable groups (tuples of group names) with which ``job``
        runs the sampler's kernels: a first run compiles them ahead, in parallel
        (:func:`hyst.sampling.warm.compile_sampler`), and the run's job server loads them
        once. None for a kind whose kernels are its own (its first job compiles them)."""
        return set()

    def analysable(self, study: dict) -> bool:
        """Whether the scaling analysis (:mod:`hyst.analysis`) applies to this study."""
        return False

    def caption(self, name: str, ds: xr.Dataset, description: str = "") -> str:
        """One line on a study for figure captions: its name, its ``description`` (from the
        configuration, never stored in the dataset: editing it rewrites captions alone) and
        what its collected dataset holds (:meth:`summary`)."""
        about = f" ({description})" if description else ""
        summary = self.summary(ds)
        return f"study `{name}`{about}" + (f": {summary}." if summary else ".")

    def summary(self, ds: xr.Dataset) -> str:
        """What a collected dataset holds, in a few words, for captions ("": nothing)."""
        return ""

    def tables(self, ds: xr.Dataset) -> dict | None:
        """The study's tables from its collected dataset, {"md", "tex", "rst"} (texts), which
        the workflow writes as ``results/tables/<study>.<format>``; None: the kind has none."""
        return None
