"""The plotting parameters a figure type accepts, read from its drawing function.

A figure binding's ``params`` are passed to the type's drawing function as keyword
arguments, so the function's keyword-only parameters *are* the accepted parameters, and
their defaults say what kind of value each takes. They are read from the module's source
(its syntax tree), so checking a configuration does not import matplotlib or the drawing
code; a drawing function that takes ``**kwargs`` accepts any name.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from functools import cache

#: The kinds of value a default can say a parameter takes: (Python types, name for users).
_KINDS = (
    ((bool,), "true or false"),
    ((int, float), "a number"),
    ((str,), "a string"),
    ((list, tuple), "a list"),
)


@dataclass(frozen=True)
class Parameter:
    """One keyword-only parameter of a drawing function: its name and the kind of value its
    default says it takes (None where the default is None or not a literal)."""

    name: str
    kind: str | None

    def problem(self, value) -> str | None:
        """Why ``value`` is not of this parameter's kind (None if it is, or any is allowed)."""
        if self.kind is None:
            return None
        types = next(t for t, name in _KINDS if name == self.kind)
        if isinstance(value, bool) and bool not in types:
            return f"{value!r} is not allowed ({self.kind})"
        if isinstance(value, types) or value is None:
            return None
        return f"{value!r} is not allowed ({self.kind})"


def _kind(default: ast.expr | None) -> str | None:
    if default is None:
        return None
    try:
        value = ast.literal_eval(default)
    except ValueError:
        return None
    for types, name in _KINDS:
        if isinstance(value, types):
            return name
    return None


@cache
def _module_tree(module: str) -> ast.Module | None:
    """The syntax tree of a drawing module, parsed once per process (it defines several
    drawing functions); None if there is no such module."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    with open(spec.origin, encoding="utf-8") as f:
        return ast.parse(f.read(), spec.origin)


@cache
def accepted(draw: str) -> dict[str, Parameter] | None:
    """The keyword-only parameters of the drawing function ``draw`` ("module:function"),
    by name, without importing its module; None if it takes ``**kwargs`` (any name)."""
    module, function = draw.split(":")
    tree = _module_tree(module)
    if tree is None:
        raise LookupError(f"the drawing module {module} of {draw} is not found")
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            args = node.args
            if args.kwarg is not None:
                return None
            return {
                a.arg: Parameter(a.arg, _kind(d))
                for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            }
    raise LookupError(f"the drawing function {draw} is not defined at its module's top level")


def params_problem(figure: str, type_name: str, draw: str, params: dict) -> str | None:
    """One line saying which of a figure's ``params`` its type does not accept, or which
    value is of the wrong kind (None if all are accepted). Without params nothing is read:
    checking a configuration parses a drawing module only for the figures that set some."""
    if not params:
        return None
    allowed = accepted(draw)
    if allowed is None:
        return None
    for name, value in params.items():
        key = f"figures.{figure}.params.{name}"
        if name not in allowed:
            names = ", ".join(sorted(allowed)) or "none"
            return f"{key}: unknown parameter of figure type {type_name} (allowed: {names})"
        problem = allowed[name].problem(value)
        if problem:
            return f"{key}: {problem}"
    return None
