"""Sphinx extension: the reference pages generated from the package at build time.

- ``reference/config.md``: the configuration schema (``hyst.pipeline.config.schema()``, every
  study kind's part), key by key, with types, defaults, allowed values and descriptions;
- ``reference/cli.md``: every command's help, as ``hyst <command> --help`` prints it (the
  argparse parsers of ``hyst.cli``);
- ``reference/datasets.md``: every dataset variable and coordinate (``hyst.catalogue``: the
  observables with symbol, definition, units and the paper's slopes and quoted values; the
  variables derived from them; the other kinds' variables, ``hyst.catalogue.variables``);
- ``reference/api.md``: the public Python API, every name of ``hyst.__all__`` under its
  public name (``hyst.System`` first, then the functions, the types they return, the
  module ``hyst.tgraphs`` and its members), from the docstrings (autodoc).
- ``reference/figures_to_kernels.md``: every figure type to its study kinds, observable groups,
  kernel passes and kernels, and every study kind's groups to theirs
  (``hyst.pipeline.kernel_map.page()``, built by following the registries' references).

They are written when the builder starts, before the sources are read, so a change to the
schema, the catalogue, the public names or the registries shows in the next build.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _type(node: dict) -> str:
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    if "const" in node:
        return f"`{node['const']}`"
    kind = node.get("type", "")
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"list of {_type(node['items'])}"
    if isinstance(kind, list):
        return " or ".join(kind)
    if "anyOf" in node or "oneOf" in node:
        return " or ".join(_type(n) for n in node.get("anyOf", node.get("oneOf")))
    return kind or "see below"


def _limits(node: dict) -> str:
    parts = []
    for key, word in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<=")):
        if key in node:
            parts.append(f"{word} {node[key]}")
    if "default" in node:
        parts.append(f"default `{json.dumps(node['default'])}`")
    return "; ".join(parts)


def _rows(node: dict, prefix: str, rows: list) -> None:
    for key, sub in node.get("properties", {}).items():
        path = f"{prefix}{key}"
        rows.append((path, _type(sub), _limits(sub), sub.get("description", "")))
        if sub.get("type") == "object" and "properties" in sub:
            _rows(sub, f"{path}.", rows)


def _table(rows) -> list[str]:
    out = ["| key | type | limits, default | description |", "|---|---|---|---|"]
    out += [f"| `{k}` | {_cell(t)} | {_cell(lim)} | {_cell(d)} |" for k, t, lim, d in rows]
    return out


def config_page() -> str:
    from hyst.pipeline.config import schema

    s = schema()
    lines = [
        "# Configuration reference",
        "",
        "Generated from the configuration schema (`hyst/pipeline/config.schema.yaml` and each",
        "study kind's part, `hyst config schema` prints all of it as YAML). A configuration",
        "that breaks it is rejected before any job runs, with one line naming the key.",
        "",
        s.get("description", ""),
        "",
        "## Top level",
        "",
    ]
    top = [(k, _type(v), _limits(v), v.get("description", "")) for k, v in s["properties"].items()]
    lines += _table(top)
    for key, node in s["properties"].items():
        if node.get("type") == "object" and "properties" in node:
            rows: list = []
            _rows(node, f"{key}.", rows)
            lines += ["", f"## `{key}`", "", *_table(rows)]
    studies = s["properties"]["studies"]["additionalProperties"]
    for branch in studies.get("allOf", []):
        then = branch.get("then", {})
        kind = then.get("properties", {}).get("kind", {}).get("const")
        if kind is None:
            continue
        rows = []
        _rows(then, "", rows)
        required = ", ".join(f"`{r}`" for r in then.get("required", [])) or "none"
        lines += [
            "",
            f"## Studies of kind `{kind}`",
            "",
            f"Required keys: {required}.",
            "",
            *_table(rows),
        ]
    return "\n".join(lines) + "\n"


def datasets_page() -> str:
    from hyst.catalogue import GROUPS, OBSERVABLES
    from hyst.catalogue.variables import ALL, RECORD_COLUMNS, VARIABLES

    lines = [
        "# Dataset reference",
        "",
        "Generated from the observable catalogue (`hyst/catalogue/observables.py`) and the",
        "declarations of the other variables (`hyst/catalogue/variables.py`). Every variable",
        "and coordinate of a dataset in `results/datasets/` and `results/analysis/` carries",
        "these as its attributes `long_name`, `description` and `units` (CF conventions,",
        "`Conventions = CF-1.10`), so a dataset opened in xarray describes itself:",
        "",
        "```python",
        "import hyst",
        'tree = hyst.open_results("results")',
        'tree["datasets/random_hysterons"].self_loop_probability.attrs',
        "```",
        "",
        "## Observables of a sampled point (study kind `points`, `hyst point`)",
        "",
        "Each observable is computed by the kernel pass of its group(s). Per observable",
        "`NAME` a points dataset holds, by kind: a **probability** `NAME` (estimate),",
        "`NAME_count`, `NAME_trials` and `NAME_stderr` (binomial standard error); a **mean**",
        "`NAME`, `NAME_trials`, `NAME_stderr` (standard error of the mean), `NAME_sum` and",
        "`NAME_sumsq`; a **histogram** `NAME` along its bin dimension; **records**",
        "`NAME_<column>` along the records' dimension (only where asked for); a **count**",
        "one integer. Units: `1` is a dimensionless number; field units are those of the",
        "thresholds h_i^±.",
        "",
    ]
    for o in OBSERVABLES:
        slopes = "; ".join(
            f"small-coupling slope {p.slope:g} ({p.couplings or 'any'} couplings, "
            f"{p.spans or 'any'} spans; {p.source})"
            for p in o.paper_slopes
        )
        values = "; ".join(
            f"{v.value:g} at N = {v.N}, N J0 = {v.NJ0:g} ({v.couplings}, {v.spans}; {v.source})"
            for v in o.paper_values
        )
        units = ALL[o.name].units if o.name in ALL else o.units
        head = f"`{o.name}`" + (f" — **{o.symbol}**" if o.symbol else "")
        lines += [
            head,
            f": {o.description}. *{o.kind}*, group {', '.join(o.groups)}"
            + (f", units {units}" if units else "")
            + (f", dimension `{o.dim}`" if o.dim else "")
            + ".",
        ]
        if slopes or values:
            lines.append(f"  *Paper:* {'; '.join(x for x in (slopes, values) if x)}.")
        lines.append("")
    lines += [
        "",
        "## Observable groups",
        "",
        "| group | computes | largest N |",
        "|---|---|---|",
    ]
    for name, g in GROUPS.items():
        lines.append(f"| `{name}` | {_cell(g.description)} | {g.max_N or 'any'} |")
    lines += ["", "## Record columns", "", "| column | meaning | units |", "|---|---|---|"]
    for name, v in RECORD_COLUMNS.items():
        lines.append(f"| `<records>_{name}` | {_cell(v.description)} | {_cell(v.units)} |")
    lines += [
        "",
        "## Coordinates and the variables of the other study kinds",
        "",
        "| name | long name | description | units |",
        "|---|---|---|---|",
    ]
    for name, v in VARIABLES.items():
        lines.append(
            f"| `{name}` | {_cell(v.long_name)} | {_cell(v.description)} | {_cell(v.units)} |"
        )
    return "\n".join(lines) + "\n"


def _subparsers(parser):
    """(name, parser) of every subcommand of an argparse parser, depth first."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                for child, subsub in _subparsers(sub):
                    yield f"{name} {child}", subsub


def cli_page() -> str:
    import os

    from hyst.cli.main import build_parser

    os.environ["COLUMNS"] = "92"  # argparse wraps the help to the terminal's width
    parser = build_parser()
    lines = [
        "# Command-line reference",
        "",
        "Generated from the parsers of `hyst/cli/`: what `hyst <command> --help` prints.",
        "A wrong option gets one line naming the option, the value and what is allowed, exit",
        "status 2, and nothing is written.",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
    ]
    for name, sub in _subparsers(parser):
        lines += ["", f"## `hyst {name}`", "", "```text", sub.format_help().rstrip(), "```"]
    return "\n".join(lines) + "\n"


#: The functions of the API reference in this order (any other public one follows).
API_FUNCTIONS = ("sample_point", "open_results", "symmetric_drives", "amplitude_sweeps")
#: The types in this order (any other public one follows).
API_TYPES = ("TransitionGraph", "Transition", "SelfLoop")
#: Public members of a public class that its reference leaves out (internal constructors).
API_EXCLUDE = {"Transition": ("after",)}


def _autodoc(kind: str, name: str, exclude=()) -> list[str]:
    lines = [f".. auto{kind}:: {name}"]
    if kind == "class":
        lines.append("   :members:")
        if exclude:
            lines.append(f"   :exclude-members: {', '.join(exclude)}")
    return [*lines, ""]


def _ordered(names, first) -> list[str]:
    return [n for n in first if n in names] + sorted(n for n in names if n not in first)


def api_page() -> str:
    """The API reference: every name of ``hyst.__all__`` under its public name."""
    import inspect

    import hyst

    public = {n: getattr(hyst, n) for n in hyst.__all__ if n not in ("__version__", "RELEASE")}
    classes = [n for n, o in public.items() if inspect.isclass(o) and n != "System"]
    functions = [n for n, o in public.items() if inspect.isfunction(o)]
    modules = [n for n, o in public.items() if inspect.ismodule(o)]
    lines = [
        "# Python API reference",
        "",
        "The public API is what `hyst/__init__.py` exports (`hyst.__all__`); everything else is",
        "internal and may change. `import hyst` is cheap: the API is imported on first use.",
        "This page is generated from the public names and their docstrings",
        "(`docs/_ext/hyst_reference.py`).",
        "",
        "```python",
        "import hyst",
        "",
        'sy = hyst.System.from_ensemble("random", N=6, NJ0=10.0, samples=100, index=3, seed=1)',
        'ds = hyst.sample_point(couplings="random", N=8, NJ0=10.0, samples=4000, seed=1)',
        'tree = hyst.open_results("results")',
        "sweeps = hyst.amplitude_sweeps(h_plus, h_minus, couplings)   "
        "# (n, N), (n, N), (n, N, N) arrays",
        "interactions, Hon, Hoff = sy.to_hysteron()   # N. Keim's hysteron package's convention",
        "```",
        "",
        "## `hyst.System`",
        "",
        "```{eval-rst}",
        *_autodoc("class", "hyst.System"),
        "```",
        "",
        "## Functions",
        "",
        "```{eval-rst}",
    ]
    for name in _ordered(functions, API_FUNCTIONS):
        lines += _autodoc("function", f"hyst.{name}")
    lines += [
        "```",
        "",
        "## Types the API returns",
        "",
        "What :meth:`hyst.System.transition_graph` and :meth:`hyst.System.self_loops` return.",
        "",
        "```{eval-rst}",
    ]
    for name in _ordered(classes, API_TYPES):
        lines += _autodoc("class", f"hyst.{name}", API_EXCLUDE.get(name, ()))
    lines.append("```")
    for name in modules:
        module = public[name]
        members = [getattr(module, m) for m in module.__all__]
        kinds = {m: "class" if inspect.isclass(o) else "function" for m, o in
                 zip(module.__all__, members, strict=True)}  # fmt: skip
        lines += [
            "",
            f"## `hyst.{name}`",
            "",
            "```{eval-rst}",
            inspect.cleandoc(module.__doc__ or ""),
            "",
        ]
        for m in sorted(module.__all__, key=lambda m: _place(module, m, kinds[m])):
            lines += _autodoc(kinds[m], f"hyst.{name}.{m}", API_EXCLUDE.get(m, ()))
        lines.append("```")
    lines += [
        "",
        "## Version",
        "",
        "```{eval-rst}",
        ".. autodata:: hyst.RELEASE",
        "   :annotation:",
        "```",
    ]
    return "\n".join(lines) + "\n"


def _place(module, name: str, kind: str) -> tuple:
    """Where ``name`` goes on the page: the classes, then the functions the module defines
    (in its order), then those it re-exports (by name)."""
    import inspect

    obj = getattr(module, name)
    own = getattr(obj, "__module__", None) == module.__name__
    line = inspect.getsourcelines(obj)[1] if own else 0
    return (kind != "class", not own, line, name)


def generate(_app=None) -> None:
    """Write the generated reference pages (called when the builder starts)."""
    out = HERE / "reference"
    out.mkdir(exist_ok=True)
    from hyst.pipeline.kernel_map import page as figures_to_kernels_page

    pages = {
        "config.md": config_page(),
        "datasets.md": datasets_page(),
        "cli.md": cli_page(),
        "api.md": api_page(),
        "figures_to_kernels.md": figures_to_kernels_page(),
    }
    for name, text in pages.items():
        path = out / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def setup(app):
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True}
