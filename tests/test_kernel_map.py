"""From every figure type to its kernels: every registry entry (figure type, study kind, group,
kernel pass) has a way to a numba kernel (:mod:`hyst.pipeline.kernel_map`), the references the
passes and the gateway declare are those their code calls, and ``hyst.model.batch`` is the one
gateway to the threaded batch kernels."""

from __future__ import annotations

import ast
from pathlib import Path

import hyst
from hyst.model import batch, network_batch
from hyst.pipeline import kernel_map
from hyst.plotting.registry import FIGURE_TYPES, FigureType
from hyst.sampling.passes import PASSES, KernelPass
from hyst.studies import KINDS
from hyst.studies.base import JobPass
from hyst.studies.needs import Need

PACKAGE = Path(hyst.__file__).parent


def test_every_figure_type_study_kind_group_and_pass_reaches_a_kernel():
    assert kernel_map.missing_paths() == []
    figures = {r.figure for r in kernel_map.figure_rows()}
    assert figures == set(FIGURE_TYPES)
    kinds = {r.kind for r in kernel_map.kind_rows()}
    assert kinds == set(KINDS) == {"points", "pairs", "networks", "loops", "tgraphs", "races"}
    # every observable group of the catalogue, and both parts of the networks kind
    groups = {(r.kind, r.group) for r in kernel_map.kind_rows()}
    from hyst.catalogue import GROUPS

    assert {("points", g) for g in GROUPS} | {("networks", "planes"), ("networks", "chains")} <= (
        groups
    )


def test_a_figure_rows_names_each_link_by_module_and_function():
    rows = [r for r in kernel_map.figure_rows() if r.figure == "gaps_and_self_loops"]
    assert {(r.group, r.kernel_pass, r.gateway, r.kernel) for r in rows} == {
        (
            group,
            "enumeration",
            "hyst.model.batch:enumerate_batch",
            "hyst.kernels.state_table:enumerate_observables",
        )
        for group in ("zero_field", "transitions")
    }
    networks = {r.kernel for r in kernel_map.figure_rows() if r.figure == "networks_fig3"}
    assert networks == {"hyst.kernels.mechanics:pair_scan"}


class _KindWithoutPasses:
    """A study kind registered without naming the kernels of its jobs."""

    name = "dummy"

    def kernel_passes(self):
        return {}


def test_an_entry_without_a_way_to_a_kernel_is_reported(monkeypatch):
    """Each kind of broken link makes :func:`missing_paths` name it: a figure type asking a
    group no pass computes, a kind without passes, a pass that calls nothing, a pass whose
    function is neither a kernel nor a gateway."""
    lost = FigureType(
        "lost", "m:f", "a figure", (Need("a points study with nope", groups=("nope",)),)
    )
    problems = kernel_map.missing_paths({**FIGURE_TYPES, "lost": lost})
    assert problems == [
        "figure type 'lost', need '1. a points study with nope': study kind "
        "'points', group 'nope': no kernel pass"
    ]

    kinds = {**KINDS, "dummy": _KindWithoutPasses()}
    assert kernel_map.missing_paths({}, kinds) == ["study kind 'dummy': no kernel pass"]

    points = KINDS["points"]
    real = points.kernel_passes()
    idle = KernelPass("idle", lambda chunk, served: None, lambda out, chunk, served: {}, ())

    def plain_python(systems):
        return systems

    python = JobPass("python", "a pass calling plain Python", (plain_python,))
    monkeypatch.setattr(
        type(points), "kernel_passes", lambda self: {**real, "dummy": (idle, python)}
    )
    idle_problem, python_problem = kernel_map.missing_paths({})
    assert idle_problem == "study kind 'points', group 'dummy', pass 'idle': calls no kernel"
    assert python_problem.startswith("study kind 'points', group 'dummy', pass 'python': ")
    assert python_problem.endswith(".plain_python names no kernel")


def _names(function) -> set[str]:
    """Every name the code of ``function`` loads, nested functions included."""
    code, names = function.__code__, set()
    stack = [code]
    while stack:
        c = stack.pop()
        names |= set(c.co_names)
        stack += [k for k in c.co_consts if hasattr(k, "co_names")]
    return names


def test_each_gateway_wrapper_runs_the_kernels_it_names():
    assert batch.GATEWAYS  # every wrapper of the gateway modules is a gateway
    assert all(
        name in batch.GATEWAYS
        for module in (batch, network_batch)
        for name, f in vars(module).items()
        if callable(f)
        and getattr(f, "__module__", "") == module.__name__
        and name.endswith("_batch")
    )
    assert {"pair_scan_batch", "chain_loops_batch"} <= set(batch.GATEWAYS)
    for name, wrapper in batch.GATEWAYS.items():
        assert wrapper.kernels, name
        for kernel in wrapper.kernels:
            assert kernel.py_func.__name__ in _names(wrapper), (name, kernel)


def test_each_sampler_pass_names_the_gateway_wrappers_its_call_runs():
    for p in PASSES:
        called = {n for n in _names(p.call) if n in batch.GATEWAYS}
        assert called == {f.__name__ for f in p.kernels}, p.name
        assert all(f is batch.GATEWAYS[f.__name__] for f in p.kernels), p.name


def _threads_chosen_outside_the_gateway() -> list[str]:
    """``module:line`` of every call of ``on_threads`` or use of a kernel's ``.serial`` twin
    in the package outside hyst/kernels and the gateways hyst/model/batch.py and
    hyst/model/network_batch.py (hyst/model/systems.py lays out couplings with
    ``dense_couplings.serial``, documented in hyst.model.batch)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        gateways = ("model/batch.py", "model/network_batch.py", "model/systems.py")
        if rel.startswith("kernels/") or rel in gateways:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            called = isinstance(node, ast.Call) and (
                getattr(node.func, "id", None) == "on_threads"
                or getattr(node.func, "attr", None) == "on_threads"
            )
            if called or (isinstance(node, ast.Attribute) and node.attr == "serial"):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_the_batch_kernels_threads_are_chosen_in_the_gateway_alone():
    assert _threads_chosen_outside_the_gateway() == []
