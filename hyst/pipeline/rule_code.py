"""The fingerprint of the code each rule of the pipeline runs, for one configuration.

A rule's code is its task module (:data:`hyst.pipeline.jobserver.TASKS`) and the modules it
imports by name when it runs (a study kind, a figure type's drawing module, a comparison
section's module), with everything they import (:mod:`hyst.provenance.fingerprints`). The
Snakefile passes each fingerprint to its rule as the ``code`` param, so a rule whose code
changed runs again; ``hyst verify`` recomputes them to tell which results the current code
would make anew.
"""

from __future__ import annotations

from hyst.comparison.registry import SECTION_TYPES
from hyst.pipeline.jobserver import TASKS
from hyst.plotting.registry import FIGURE_TYPES
from hyst.provenance.fingerprints import code_fingerprint
from hyst.studies import KIND_MODULES, KINDS, kind_of


def task_fingerprint(task: str, *entries: str) -> str:
    """Fingerprint of the task ``task`` and the modules ``entries`` it imports by name."""
    return code_fingerprint([TASKS[task], *entries])


def rule_fingerprints(config: dict) -> dict[str, str]:
    """{key: fingerprint} of every rule's code for a validated ``config``: ``job/<kind>``
    and ``collect/<kind>`` for every study kind, ``analysis``, ``figure/<name>`` and
    ``caption/<name>`` for every figure, ``tables`` and ``comparison``."""
    studies, figures = config["studies"], config["figures"]

    def kind_modules(names):
        return sorted({KIND_MODULES[kind_of(studies[s]).name] for s in names})

    sections = sorted({SECTION_TYPES[b["type"]].module for b in config["comparison"].values()})
    return {
        **{f"job/{kind}": task_fingerprint("job", KIND_MODULES[kind]) for kind in KINDS},
        **{f"collect/{kind}": task_fingerprint("collect", KIND_MODULES[kind]) for kind in KINDS},
        "analysis": task_fingerprint("analyse"),
        **{
            f"figure/{name}": task_fingerprint("figure", FIGURE_TYPES[binding["type"]].module)
            for name, binding in figures.items()
        },
        **{
            f"caption/{name}": task_fingerprint("caption", *kind_modules(binding["studies"]))
            for name, binding in figures.items()
        },
        "tables": task_fingerprint("tables"),
        "comparison": task_fingerprint("comparison", *sections),
    }
