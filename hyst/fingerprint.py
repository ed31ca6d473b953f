"""Fingerprints of the source code that determines a result.

A result file records the fingerprint of the modules that produced it (for a
sampled point: the model, the ensembles, the kernels, the sampler and the
catalogue). A change to those files' code changes the fingerprint, so the
pipeline recomputes the affected results instead of silently reusing numbers
computed by older code; a change elsewhere (analysis, plotting) leaves them alone.
The fingerprint is taken of each file's syntax tree without docstrings, so editing
comments, docstrings or layout recomputes nothing.
"""

from __future__ import annotations

import ast
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


def _code(path: Path) -> str:
    """The code of a Python file: its syntax tree without docstrings (no comments, no layout)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


@cache
def _fingerprint(modules: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for module in sorted(set(modules)):
        for path in _files(module):
            h.update(path.name.encode())
            h.update(_code(path).encode())
    return h.hexdigest()[:16]


def source_fingerprint(modules: Iterable[str]) -> str:
    """Hex digest of the code of ``modules`` (packages: all their .py files), docstrings,
    comments and layout excluded."""
    return _fingerprint(tuple(modules))
