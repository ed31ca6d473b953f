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
import json
import os
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path

#: Modules (or packages) whose source determines sampled results.
SAMPLING_SOURCES = (
    "hyst.kernels.jit",
    "hyst.kernels",
    "hyst.model.batch",
    "hyst.model.systems",
    "hyst.model.ensembles",
    "hyst.model.seeds",
    "hyst.catalogue",
    "hyst.sampling.sampler",
    "hyst.sampling.passes",
    "hyst.sampling.tallies",
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


def _code(source: bytes, filename: str = "<source>") -> str:
    """The code of Python source: its syntax tree without docstrings (no comments, no layout)."""
    tree = ast.parse(source, filename=filename)
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


def cache_path() -> Path:
    """The file that maps a source file's bytes to the digest of its code.

    ``$HYST_CACHE_DIR/code-digests.json``, else ``$XDG_CACHE_HOME/hyst/…`` (default
    ``~/.cache/hyst/…``). Parsing the package's syntax trees takes most of a second, which
    every pipeline job would pay at start-up; the cache is keyed by the SHA-256 of a file's
    bytes, so an entry can never be stale, only missing (then the tree is parsed again).
    """
    root = os.environ.get("HYST_CACHE_DIR")
    if root:
        return Path(root) / "code-digests.json"
    xdg = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(xdg) / "hyst" / "code-digests.json"


class _DigestCache:
    """Content-addressed digests of code (see :func:`cache_path`); never required: an
    unreadable or unwritable cache only means parsing again."""

    def __init__(self):
        self.entries: dict[str, str] | None = None
        self.dirty = False

    def _load(self) -> dict[str, str]:
        if self.entries is None:
            try:
                entries = json.loads(cache_path().read_text())
                self.entries = entries if isinstance(entries, dict) else {}
            except (OSError, ValueError):
                self.entries = {}
        return self.entries

    def digest(self, path: Path) -> str:
        source = path.read_bytes()
        key = hashlib.sha256(source).hexdigest()
        entries = self._load()
        if key not in entries:
            entries[key] = hashlib.sha256(_code(source, str(path)).encode()).hexdigest()
            self.dirty = True
        return entries[key]

    def save(self) -> None:
        if not self.dirty:
            return
        path = cache_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:  # merge with what other processes wrote meanwhile
                on_disk = json.loads(path.read_text())
            except (OSError, ValueError):
                on_disk = {}
            merged = {**(on_disk if isinstance(on_disk, dict) else {}), **self.entries}
            # written here rather than by hyst.provenance.files.atomic_write_text, which
            # imports xarray: that would cost every job the start-up time this cache saves
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".code-digests.")
            with os.fdopen(fd, "w") as fh:
                json.dump(merged, fh)
            os.replace(tmp, path)
            self.dirty = False
        except OSError:
            pass


_DIGESTS = _DigestCache()


@cache
def _fingerprint(modules: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for module in sorted(set(modules)):
        for path in _files(module):
            h.update(path.name.encode())
            h.update(_DIGESTS.digest(path).encode())
    _DIGESTS.save()
    return h.hexdigest()[:16]


def source_fingerprint(modules: Iterable[str]) -> str:
    """Hex digest of the code of ``modules`` (packages: all their .py files), docstrings,
    comments and layout excluded."""
    return _fingerprint(tuple(modules))
