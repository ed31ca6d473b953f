"""Study kinds: the extension seam of the pipeline (see :mod:`hyst.studies.base`).

``KINDS`` maps each kind's name to its :class:`~hyst.studies.base.StudyKind`.
A study's ``kind`` (default ``points``) selects one; :func:`plan` turns a
validated configuration into every kind's jobs and each study's needs, and
:func:`run_job` / :func:`collect` dispatch to the kind. Adding a kind means one
module here (registered below), its rule file ``workflow/rules/<kind>.smk``
and its tests; nothing else names kinds or studies.
"""

from __future__ import annotations

from dataclasses import dataclass

from hyst.studies import loops, networks, pairs, points
from hyst.studies.base import ConfigError, Job, StudyKind

#: The study kinds, by name.
KINDS: dict[str, StudyKind] = {
    k.name: k for k in (points.KIND, pairs.KIND, networks.KIND, loops.KIND)
}
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
        return self.jobs[kind][name]


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
    "ConfigError",
    "Job",
    "Plan",
    "StudyKind",
    "collect",
    "kind_of",
    "plan",
    "run_job",
]
