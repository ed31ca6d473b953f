"""Study kinds: the extension seam of the pipeline (see :mod:`hyst.studies.base`).

``KINDS`` maps each kind's name to its :class:`~hyst.studies.base.StudyKind`.
A study's ``kind`` (default ``points``) selects one; :func:`plan` turns a
validated configuration into every kind's jobs and each study's needs, and
:func:`run_job` / :func:`collect` dispatch to the kind. Adding a kind means one
module here (registered below) and its tests: the workflow runs the jobs of every
kind with one rule; nothing else names kinds or studies.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from hyst.studies.base import ConfigError, Job, StudyKind

#: The module of each study kind (registered here; each defines ``KIND``).
KIND_MODULES = {
    "points": "hyst.studies.points",
    "pairs": "hyst.studies.pairs",
    "networks": "hyst.studies.networks",
    "loops": "hyst.studies.loops",
    "tgraphs": "hyst.studies.tgraphs",
    "races": "hyst.studies.races",
}


class _Kinds(Mapping):
    """The kinds by name, each module imported when first asked for: a pipeline job
    imports the code of its own kind only (start-up time is paid by every job)."""

    def __getitem__(self, name: str) -> StudyKind:
        kind = importlib.import_module(KIND_MODULES[name]).KIND
        if kind.name != name:
            raise RuntimeError(f"{KIND_MODULES[name]}.KIND is named {kind.name!r}, not {name!r}")
        return kind

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` names a kind (without importing it; False for a value that is
        not a string, as a configuration may hold)."""
        return isinstance(name, str) and name in KIND_MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(KIND_MODULES)

    def __len__(self) -> int:
        return len(KIND_MODULES)


#: The study kinds, by name.
KINDS: Mapping[str, StudyKind] = _Kinds()
#: The kind of a study that does not say.
DEFAULT_KIND = "points"


def kind_of(study: dict) -> StudyKind:
    """The :class:`StudyKind` of a (validated) study."""
    return KINDS[study.get("kind", DEFAULT_KIND)]


@dataclass(frozen=True)
class Plan:
    """Every job of a configuration, and which jobs each study needs."""

    jobs: dict  # kind -> {job name: Job}
    needs: dict  # study -> [(kind, job name)]

    def job(self, kind: str, name: str) -> Job:
        """The job of kind ``kind`` named ``name``."""
        return self.jobs[kind][name]

    def long_jobs_pattern(self, kind: str | None = None) -> str:
        """A regular expression matching exactly the names of ``kind``'s long jobs
        (:attr:`Job.long`; of every kind when None; nothing when there are none): a workflow
        wildcard constraint. Job names of different kinds never coincide (each kind
        starts them with words of its own)."""
        kinds = [kind] if kind is not None else list(self.jobs)
        names = sorted(re.escape(n) for k in kinds for n, j in self.jobs[k].items() if j.long)
        return _alternatives(names)

    def long_kinds_pattern(self) -> str:
        """A regular expression matching exactly the kinds that have long jobs."""
        kinds = [k for k, jobs in self.jobs.items() if any(j.long for j in jobs.values())]
        return _alternatives(sorted(map(re.escape, kinds)))


def _alternatives(words: list[str]) -> str:
    """A regular expression matching exactly one of ``words`` (nothing when there are none)."""
    return "(?:" + ("|".join(words) if words else "(?!)") + ")"  # (?!) matches nothing


def plan(config: dict) -> Plan:
    """Jobs of every kind for a validated configuration (shared jobs listed once)."""
    jobs, needs = {}, {}
    for kind in KINDS.values():
        studies = {n: s for n, s in config["studies"].items() if kind_of(s) is kind}
        if not studies:
            jobs[kind.name] = {}
            continue
        kind_jobs, kind_needs = kind.jobs(studies, config)
        jobs[kind.name] = kind_jobs
        for name, job_names in kind_needs.items():
            needs[name] = [(kind.name, j) for j in job_names]
    return Plan(jobs, needs)


def sampler_selections(plan: Plan) -> list[tuple[str, ...]]:
    """Every selection of observable groups with which the jobs of ``plan`` run the sampler's
    kernels (:meth:`StudyKind.sampler_selections`), sorted: what a first run compiles ahead."""
    found = set()
    for kind, jobs in plan.jobs.items():
        for job in jobs.values():
            found |= KINDS[kind].sampler_selections(job)
    return sorted(found)


def run_job(kind: str, payload: dict, job_name: str, results, *, config, threads, log=print):
    """Run one job of ``kind`` (the payload as planned) and return its manifest."""
    return KINDS[kind].run(
        Job(kind, job_name, payload), results, config=config, threads=threads, log=log
    )


def collect(name: str, study: dict, config: dict, results):
    """The dataset of one study, collected by its kind."""
    return kind_of(study).collect(name, study, config, results)


__all__ = [
    "DEFAULT_KIND",
    "KINDS",
    "KIND_MODULES",
    "ConfigError",
    "Job",
    "Plan",
    "StudyKind",
    "collect",
    "kind_of",
    "plan",
    "run_job",
    "sampler_selections",
]
