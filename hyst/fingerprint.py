"""Fingerprints of the source code that determines a result.

A result file records the fingerprint of the modules that produced it (for a
sampled point: the model, the ensembles, the kernels, the sampler and the
catalogue). A change to those files' content changes the fingerprint, so the
pipeline recomputes the affected results instead of silently reusing numbers
computed by older code; a change elsewhere (analysis, plotting) leaves them alone.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable
from functools import cache
from pathlib import Path

#: Modules (or packages) whose source determines sampled results.
SAMPLING_SOURCES = (
    "hyst._numba",
    "hyst.kernels",
    "hyst.kernel_calls",
    "hyst.model",
    "hyst.ensembles",
    "hyst.seeds",
    "hyst.catalogue",
    "hyst.sampler",
    "hyst.statistics",
)
#: Modules inside those packages that do not determine any result: the paper's statements
#: (read by the paper-comparison page only), so editing them never resamples a point.
NOT_SOURCES = ("hyst.catalogue.paper",)


def _files(module: str) -> list[Path]:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"fingerprint: no module {module!r}")
    origin = Path(spec.origin)
    if spec.submodule_search_locations:  # a package: every .py file in it
        skip = {Path(importlib.util.find_spec(m).origin) for m in NOT_SOURCES}
        return sorted(p for p in origin.parent.rglob("*.py") if p not in skip)
    return [origin]


@cache
def _fingerprint(modules: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for module in sorted(set(modules)):
        for path in _files(module):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def source_fingerprint(modules: Iterable[str]) -> str:
    """Hex digest of the source text of ``modules`` (packages: all their .py files)."""
    return _fingerprint(tuple(modules))
