"""From a figure to its kernels: the registries followed link by link, as rows and as a page.

A figure type (:data:`hyst.plotting.registry.FIGURE_TYPES`) needs one study per
:class:`~hyst.studies.needs.Need`: a study kind (:data:`hyst.studies.KINDS`) and the groups
its dataset must hold. Each kind names the kernel passes of its jobs per group
(:meth:`hyst.studies.base.StudyKind.kernel_passes`; the points kind's are the sampler's table,
:data:`hyst.sampling.passes.SOURCES`), each pass the functions it calls (``pass.kernels``):
wrappers of the gateways :mod:`hyst.model.batch` and :mod:`hyst.model.network_batch`,
each naming its numba kernel
(``wrapper.kernels``), or kernels of :mod:`hyst.kernels` called directly. Every link is a
reference to the object itself, so the rows below are built by following them, and
:func:`missing_paths` says which entry has no way to a kernel.

:func:`figure_rows` and :func:`kind_rows` return the rows; :func:`page` is the
documentation's page ``reference/figures_to_kernels.md`` (written at docs-build time by
``docs/_ext/hyst_reference.py``). Nothing in a pipeline job imports this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hyst.kernels.jit import Kernel


@dataclass(frozen=True)
class KernelRow:
    """One way from a study kind's group to a kernel: ``figure`` (figure type, "" in the rows
    of :func:`kind_rows`), ``need`` (its need's index and what it asks, one line), ``kind``,
    ``group`` ("" for a kind whose studies have no groups), ``kernel_pass`` (the pass's
    name), ``gateway`` (the wrapper of :mod:`hyst.model.batch` the pass calls, as
    ``module:function``; "" when the pass calls the kernel itself) and ``kernel`` (the
    numba kernel, ``module:function``). An entry with no way to a kernel has the fields
    past it empty."""

    figure: str
    need: str
    kind: str
    group: str
    kernel_pass: str
    gateway: str
    kernel: str


def name_of(function: Callable) -> str:
    """``module:function`` of a function or a numba kernel (its Python function's name)."""
    f = getattr(function, "py_func", function)
    return f"{f.__module__}:{f.__qualname__}"


def kernels_of(function: Callable) -> tuple[Callable, ...]:
    """The numba kernels behind a function a pass calls: itself if it is a kernel, the kernels
    it names (``function.kernels``) if it is a gateway wrapper; () if neither."""
    if isinstance(function, Kernel):
        return (function,)
    named = getattr(function, "kernels", ())
    return tuple(k for k in named if isinstance(k, Kernel))


def _kinds(kinds: Mapping | None) -> Mapping:
    if kinds is None:
        from hyst.studies import KINDS

        return KINDS
    return kinds


def _group_rows(figure: str, need: str, kind, group: str) -> list[KernelRow]:
    """The rows of one group of one kind: one per (pass, function, kernel); a row with the
    fields left empty where the way stops."""
    passes = kind.kernel_passes().get(group, ())
    if not passes:
        return [KernelRow(figure, need, kind.name, group, "", "", "")]
    rows = []
    for p in passes:
        if not p.kernels:
            rows.append(KernelRow(figure, need, kind.name, group, p.name, "", ""))
        for function in p.kernels:
            kernels = kernels_of(function)
            gateway = "" if isinstance(function, Kernel) else name_of(function)
            if not kernels:
                rows.append(KernelRow(figure, need, kind.name, group, p.name, gateway, ""))
            for k in kernels:
                rows.append(KernelRow(figure, need, kind.name, group, p.name, gateway, name_of(k)))
    return rows


def figure_rows(figure_types: Mapping | None = None, kinds: Mapping | None = None) -> list:
    """Every figure type's ways to its kernels: per need (in order), per group it asks for
    (every group of the kind when it asks for none: the figure reads whatever the study
    computes), per pass, per kernel (:class:`KernelRow`). ``figure_types`` and ``kinds``
    default to the registries."""
    if figure_types is None:
        from hyst.plotting.registry import FIGURE_TYPES as figure_types
    kinds = _kinds(kinds)
    rows = []
    for name, ftype in figure_types.items():
        for i, need in enumerate(ftype.needs):
            what = f"{i + 1}. {need.what}" + (" (optional)" if need.optional else "")
            if need.kind not in kinds:
                rows.append(KernelRow(name, what, need.kind, "", "", "", ""))
                continue
            kind = kinds[need.kind]
            for group in need.groups or tuple(kind.kernel_passes()) or ("",):
                rows += _group_rows(name, what, kind, group)
    return rows


def kind_rows(kinds: Mapping | None = None) -> list:
    """Every study kind's ways to its kernels, group by group, whether a figure reads the group
    or not (:class:`KernelRow` with ``figure`` and ``need`` empty)."""
    rows = []
    for kind in _kinds(kinds).values():
        for group in tuple(kind.kernel_passes()) or ("",):
            rows += _group_rows("", "", kind, group)
    return rows


def missing_paths(figure_types: Mapping | None = None, kinds: Mapping | None = None) -> list:
    """One line per registry entry with no way to a kernel: a figure type's need of an unknown
    kind or of a group the kind does not name, a kind or group with no pass, a pass that
    calls nothing, a function of a pass that is neither a kernel nor a gateway naming one.
    Empty when every figure type, study kind, group and pass reaches a kernel."""
    problems = []
    for row in [*kind_rows(kinds), *figure_rows(figure_types, kinds)]:
        if row.kernel:
            continue
        where = f"figure type {row.figure!r}, need {row.need!r}: " if row.figure else ""
        at = f"study kind {row.kind!r}" + (f", group {row.group!r}" if row.group else "")
        if not row.kernel_pass:
            problems.append(f"{where}{at}: no kernel pass")
        elif not row.gateway:
            problems.append(f"{where}{at}, pass {row.kernel_pass!r}: calls no kernel")
        else:
            problems.append(f"{where}{at}, pass {row.kernel_pass!r}: {row.gateway} names no kernel")
    return list(dict.fromkeys(problems))


def _cell(text: str) -> str:
    """Text for a Markdown table cell (reST roles of docstrings as plain code)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if text else "—"


def page() -> str:
    """The documentation page: every figure type to its kernels, then every study kind's groups
    to theirs (Markdown)."""
    from hyst.catalogue import GROUPS
    from hyst.model.batch import GATEWAYS
    from hyst.plotting.registry import FIGURE_TYPES

    kinds = _kinds(None)
    lines = [
        "# From a figure to its kernels",
        "",
        "Generated from the registries at each build of this site (`hyst.pipeline.kernel_map`,",
        "whose `figure_rows()` and `kind_rows()` return these rows in Python). A figure type",
        "(`hyst/plotting/registry.py`) needs one study per dataset, of a study kind",
        "(`hyst/studies/`) holding some observable groups; each kind names the kernel passes",
        "that compute each group (`StudyKind.kernel_passes`; for the points kind the sampler's",
        "table `SOURCES` in `hyst/sampling/passes.py`); each pass names the functions it calls:",
        "a wrapper of `hyst/model/batch.py`, the one gateway to the threaded batch kernels,",
        "which names its numba kernel (`@runs(...)`), or a kernel of `hyst/kernels/` called",
        "directly. Every link is a reference to the function itself, so an editor's *go to",
        "definition* follows it too. A need that asks for no particular group reads whatever",
        "its study computes: every group of the kind is listed. A group with several passes",
        "is computed by the first that applies to the study's groups (the enumeration computes",
        "the avalanche and P_sl beside the transitions at no extra pass).",
        "`tests/test_kernel_map.py` fails when a figure type, study kind, group or pass has no",
        "way to a kernel.",
        "",
    ]
    for name, ftype in FIGURE_TYPES.items():
        rows = figure_rows({name: ftype}, kinds)
        lines += [
            f"## `{name}`",
            "",
            f"{ftype.description}. Drawn by `{ftype.draw}`.",
            "",
            "| dataset (need) | study kind | group | pass | gateway | kernel |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {_cell(r.need)} | `{r.kind}` | {_code(r.group)} | {_code(r.kernel_pass)} "
            f"| {_code(r.gateway)} | {_code(r.kernel)} |"
            for r in rows
        ]
        lines.append("")
    lines += [
        "## Every study kind's groups",
        "",
        "Every group of every kind, read by a figure or not (the points kind's `float64`",
        "and the others that no figure draws included), with what each pass computes (for",
        "the points kind, what the group computes: `hyst/catalogue/groups.py`).",
        "",
        "| study kind | group | pass | what the pass computes | gateway | kernel |",
        "|---|---|---|---|---|---|",
    ]
    for kind in kinds.values():
        described = {  # a sampler pass says nothing itself: its group's description
            (g, p.name): getattr(p, "description", "") or getattr(GROUPS.get(g), "description", "")
            for g, passes in kind.kernel_passes().items()
            for p in passes
        }
        shown = set()
        for r in kind_rows({kind.name: kind}):
            what = (
                ""
                if (r.group, r.kernel_pass) in shown
                else described.get((r.group, r.kernel_pass), "")
            )
            shown.add((r.group, r.kernel_pass))
            lines.append(
                f"| `{r.kind}` | {_code(r.group)} | {_code(r.kernel_pass)} | {_cell(what)} "
                f"| {_code(r.gateway)} | {_code(r.kernel)} |"
            )
    lines += [
        "",
        "## The gateway's wrappers",
        "",
        "| wrapper (`hyst/model/batch.py`) | kernel | what it computes |",
        "|---|---|---|",
    ]
    for wrapper in GATEWAYS.values():
        first = (wrapper.__doc__ or "").strip().split("\n\n")[0]
        kernels = ", ".join(f"`{name_of(k)}`" for k in wrapper.kernels)
        lines.append(f"| `{name_of(wrapper)}` | {kernels} | {_cell(' '.join(first.split()))} |")
    return "\n".join(lines) + "\n"
