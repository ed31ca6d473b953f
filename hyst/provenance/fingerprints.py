"""Fingerprints of the code that determines a result, derived from the import graph.

A result is produced by an *entry point*: a module whose code computes it (a study kind's
module for its jobs and datasets, a figure type's drawing module, ...). The code that
determines the result is every module of the package that the entry point imports,
transitively, function-level imports included, together with the packages that contain
them (importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py``). The import
graph is read by grimp (the library under import-linter), so no list of module names is
kept by hand: a new module, or a helper moved between packages, is in the fingerprint of
exactly the results whose code imports it.

A result file records the fingerprint of its entry point's code; a change to that code
changes the fingerprint, so the pipeline recomputes the affected results instead of
silently reusing numbers computed by older code, and a change elsewhere leaves them
alone. A module's code is its syntax tree without docstrings, so editing comments,
docstrings or layout changes no fingerprint.

Both steps are cached on disk, keyed by content (see :func:`cache_path`): the digest of
each file's code by the SHA-256 of its bytes, and the import graph by the SHA-256 of every
file of the package. A cached entry can never be stale, only missing; a process whose
sources are all cached neither parses a syntax tree nor imports grimp.
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

#: The package whose modules are fingerprinted (imports of other packages are not code of
#: this project; their versions are the software environment's business).
PACKAGE = __name__.split(".")[0]
#: Import graphs kept in the cache (one per state of the source tree; the oldest go first).
GRAPHS_KEPT = 8
#: Suffix of the temporary files of this module's atomic writes (as
#: :func:`hyst.provenance.files.atomic_write`'s).
TMP_SUFFIX = ".tmp"


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


def cache_path(name: str = "code-digests.json") -> Path:
    """A cache file of the fingerprints: ``code-digests.json`` (a source file's bytes -> the
    digest of its code) or ``import-graphs.json`` (the package's files -> its import graph).

    In ``$HYST_CACHE_DIR``, else ``$XDG_CACHE_HOME/hyst/`` (default ``~/.cache/hyst/``).
    Parsing the package's syntax trees takes most of a second and building its import
    graph imports grimp, which every pipeline job would pay at start-up; both caches are
    keyed by content, so an entry can never be stale, only missing (then it is computed).
    """
    root = os.environ.get("HYST_CACHE_DIR")
    if root:
        return Path(root) / name
    xdg = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(xdg) / "hyst" / name


class _JsonCache:
    """A content-addressed JSON cache file (see :func:`cache_path`); never required: an
    unreadable or unwritable cache only means computing again."""

    def __init__(self, name: str, keep: int | None = None):
        self.name = name
        self.keep = keep  # most entries kept (the latest), None: all
        self.entries: dict | None = None
        self.dirty = False

    def _load(self) -> dict:
        if self.entries is None:
            try:
                entries = json.loads(cache_path(self.name).read_text())
                self.entries = entries if isinstance(entries, dict) else {}
            except (OSError, ValueError):
                self.entries = {}
        return self.entries

    def get(self, key: str):
        return self._load().get(key)

    def put(self, key: str, value) -> None:
        self._load()[key] = value
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        path = cache_path(self.name)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:  # merge with what other processes wrote meanwhile
                on_disk = json.loads(path.read_text())
            except (OSError, ValueError):
                on_disk = {}
            merged = {**(on_disk if isinstance(on_disk, dict) else {}), **self.entries}
            if self.keep is not None:
                merged = dict(list(merged.items())[-self.keep :])
            # written here rather than by hyst.provenance.files.atomic_write_text, which
            # imports xarray: that would cost every job the start-up time this cache saves
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
            with os.fdopen(fd, "w") as fh:
                json.dump(merged, fh)
            os.replace(tmp, path)
            self.dirty = False
        except OSError:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)


_DIGESTS = _JsonCache("code-digests.json")
_GRAPHS = _JsonCache("import-graphs.json", keep=GRAPHS_KEPT)


@cache
def _tree() -> dict[str, tuple[Path, str]]:
    """{module: (file, SHA-256 of its bytes)} of every module of the package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"fingerprint: no package {PACKAGE!r}")
    root = Path(next(iter(spec.submodule_search_locations)))
    tree = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        tree[".".join((PACKAGE, *parts))] = (path, hashlib.sha256(path.read_bytes()).hexdigest())
    return tree


@cache
def _graph() -> dict[str, tuple[str, ...]]:
    """{module: the modules of the package it imports directly} (grimp, or the cache)."""
    tree = _tree()
    key = hashlib.sha256(
        json.dumps(sorted((m, d) for m, (_p, d) in tree.items())).encode()
    ).hexdigest()
    graph = _GRAPHS.get(key)
    if not isinstance(graph, dict) or set(graph) != set(tree):
        import grimp

        built = grimp.build_graph(PACKAGE, cache_dir=None)
        graph = {
            m: sorted(built.find_modules_directly_imported_by(m)) if m in built.modules else []
            for m in sorted(tree)
        }
        _GRAPHS.put(key, graph)
        _GRAPHS.save()
    return {m: tuple(imports) for m, imports in graph.items()}


def imported_modules(entries: Iterable[str]) -> list[str]:
    """The modules whose code runs when ``entries`` are imported: the entries, every module
    of the package they import transitively (function-level imports included), and the
    packages containing each of them; sorted."""
    graph = _graph()
    todo = list(entries)
    unknown = sorted(set(todo) - set(graph))
    if unknown:
        raise ValueError(f"fingerprint: {unknown[0]!r} is not a module of {PACKAGE}")
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        parents = [".".join(parts[:i]) for i in range(1, len(parts))]
        todo.extend(m for m in (*graph[module], *parents) if m not in seen)
    return sorted(seen)


def _digest(path: Path, key: str) -> str:
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = hashlib.sha256(_code(path.read_bytes(), str(path)).encode()).hexdigest()
        _DIGESTS.put(key, digest)
    return digest


def _fingerprint(modules: Iterable[str]) -> str:
    tree = _tree()
    h = hashlib.sha256()
    for module in sorted(modules):
        path, key = tree[module]
        h.update(module.encode())
        h.update(_digest(path, key).encode())
    _DIGESTS.save()
    return h.hexdigest()[:16]


@cache
def _code_fingerprint(entries: frozenset[str]) -> str:
    return _fingerprint(imported_modules(entries))


def code_fingerprint(entries: Iterable[str]) -> str:
    """Hex digest of the code that runs when the modules ``entries`` are imported (see
    :func:`imported_modules`), docstrings, comments and layout excluded."""
    return _code_fingerprint(frozenset(entries))


@cache
def package_fingerprint() -> str:
    """Hex digest of the code of every module of the package (part of ``__version__``)."""
    return _fingerprint(_tree())
