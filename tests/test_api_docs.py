"""Every public callable documents each of its parameters: the functions and classes of
``hyst.__all__`` and of the module ``hyst.tgraphs``, and the public methods of those
classes, in a numpydoc section ("Parameters"; "Attributes" for the fields of a class built
from its attributes, a dataclass), which the API reference renders (docs/reference/api.md,
napoleon)."""

from __future__ import annotations

import inspect
import re

import pytest

import hyst

HEADER = re.compile(r"^(?P<indent>\s*)(?P<title>[A-Z][A-Za-z ]+)\n(?P=indent)-{3,}\s*$", re.M)


def documented(doc: str | None, sections=("Parameters",)) -> set[str]:
    """The names a numpydoc docstring documents in ``sections``: the lines at the section's
    own indentation, ``name : type`` or ``name`` (``a, b : type`` names both)."""
    doc = inspect.cleandoc(doc or "")
    names: set[str] = set()
    heads = list(HEADER.finditer(doc))
    for k, head in enumerate(heads):
        if head["title"] not in sections:
            continue
        end = heads[k + 1].start() if k + 1 < len(heads) else len(doc)
        indent = head["indent"]
        for line in doc[head.end() : end].splitlines():
            if not line.strip() or not line.startswith(indent) or line[len(indent)] == " ":
                continue
            if line.lstrip().startswith(">>>"):
                break
            names.update(n.strip().lstrip("*") for n in line.split(" : ")[0].split(","))
    return names


def _parameters(func) -> list[str]:
    sig = inspect.signature(func)
    return [n for n, p in sig.parameters.items() if n not in ("self", "cls")]


def public_callables():
    """(qualified name, callable, the names it must document) of every public callable."""
    modules = [(f"hyst.{name}", getattr(hyst, name)) for name in hyst.__all__]
    modules += [
        (f"hyst.tgraphs.{name}", getattr(hyst.tgraphs, name)) for name in hyst.tgraphs.__all__
    ]
    for qualname, obj in modules:
        if inspect.isclass(obj):
            init = obj.__dict__.get("__init__")
            fields = getattr(obj, "__dataclass_fields__", None)
            if fields:  # a dataclass: its fields are its attributes
                yield qualname, obj, list(fields), ("Attributes", "Parameters")
            elif init is not None:
                yield qualname, obj, _parameters(init), ("Parameters",)
            for name, member in vars(obj).items():
                if name.startswith("_") or isinstance(member, property):
                    continue
                func = member.__func__ if isinstance(member, classmethod | staticmethod) else member
                if inspect.isfunction(func):
                    yield f"{qualname}.{name}", func, _parameters(func), ("Parameters",)
        elif inspect.isfunction(obj):
            yield qualname, obj, _parameters(obj), ("Parameters",)


CALLABLES = sorted(public_callables(), key=lambda c: c[0])


def test_the_public_callables_are_found():
    names = {name for name, *_ in CALLABLES}
    assert {"hyst.System", "hyst.System.drive", "hyst.sample_point", "hyst.SelfLoop",
            "hyst.tgraphs.exact_share", "hyst.tgraphs.SwitchingFields.from_rows",
            } <= names  # fmt: skip


@pytest.mark.parametrize(
    ("name", "func", "params", "sections"), CALLABLES, ids=[c[0] for c in CALLABLES]
)
def test_every_parameter_is_documented(name, func, params, sections):
    doc = func.__doc__
    missing = [p for p in params if p not in documented(doc, sections)]
    assert not missing, f"{name}: parameters not in its {'/'.join(sections)} section: {missing}"


def test_the_parser_finds_the_parameters_of_a_numpydoc_section():
    doc = """Summary.

    Parameters
    ----------
    a, b : int
        Two numbers.
    c
        Text
        over lines.

    Returns
    -------
    d : int
    """
    assert documented(doc) == {"a", "b", "c"}
    assert documented("Text mentioning ``a``.") == set()


def test_the_api_reference_starts_with_system_and_names_every_public_name_publicly():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
    from hyst_reference import api_page

    page = api_page()
    targets = [line.split("::")[1].strip() for line in page.splitlines() if ".. auto" in line]
    assert targets[0] == "hyst.System"
    names = [n for n in hyst.__all__ if n not in ("__version__", "tgraphs")]
    names += [f"tgraphs.{n}" for n in hyst.tgraphs.__all__]
    assert sorted(targets) == sorted(f"hyst.{n}" for n in names)
    assert "hyst.api" not in page and "hyst.cli" not in page and "hyst.model" not in page


def test_the_examples_of_the_system_docstrings_run():
    import doctest

    import hyst.systems.system

    assert doctest.testmod(hyst.systems.system).failed == 0
