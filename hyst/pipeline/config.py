"""Sweep configuration: loading, validation against the schemas, defaults.

The top level follows ``hyst/pipeline/config.schema.yaml``; each study follows its
kind's schema (:mod:`hyst.studies`); each figure's binding is checked against
its type's needs (:mod:`hyst.plotting.registry`), each section of the paper-comparison
page against its section type (:mod:`hyst.comparison.registry`). Errors are one line naming
the key, the value and what is allowed, e.g.
``studies.spins.N[0]: 1 is less than the minimum of 2``.
"""

from __future__ import annotations

import copy
import math
import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jsonschema
import yaml

from hyst.comparison.registry import SECTION_TYPES, section_problem
from hyst.plotting.registry import FIGURE_TYPES, binding_problem
from hyst.studies import DEFAULT_KIND, KINDS, kind_of
from hyst.studies.base import ConfigError

__all__ = [
    "ConfigError",
    "Estimate",
    "base_schema",
    "check_results",
    "estimate",
    "load",
    "read_yaml",
    "schema",
    "validate",
]


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in one mapping is an error (plain
    YAML lets the second silently win: a study written twice would run once)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise ConfigError(
                        f"{key}: duplicate key (line {line}; first on line {seen[key]}); "
                        "give each key once"
                    )
                seen[key] = line
            except TypeError:  # an unhashable key: the base class says so
                break
        return super().construct_mapping(node, deep=deep)


def read_yaml(path) -> object:
    """The YAML document of a file, with one-line errors for a missing, unreadable, binary or
    malformed file and for duplicate keys."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a YAML configuration file") from None
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{path}: not a text file (byte {err.start} is not UTF-8); give a YAML configuration"
        ) from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read ({err.strerror})") from None
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 (a SafeLoader)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML ({str(err).splitlines()[0]})") from None


def base_schema() -> dict:
    """The top-level JSON schema (studies as objects with a ``kind``; figure bindings)."""
    text = resources.files("hyst.pipeline").joinpath("config.schema.yaml").read_text()
    sch = yaml.safe_load(text)
    studies = sch["properties"]["studies"]["additionalProperties"]
    studies["properties"]["kind"]["enum"] = list(KINDS)
    figures = sch["properties"]["figures"]["additionalProperties"]
    figures["properties"]["type"]["enum"] = list(FIGURE_TYPES)
    sections = sch["properties"]["comparison"]["additionalProperties"]
    sections["properties"]["type"]["enum"] = list(SECTION_TYPES)
    return sch


def schema() -> dict:
    """The whole configuration schema: the top level with every kind's study schema."""
    sch = base_schema()
    cases = []
    for kind in KINDS.values():
        is_kind = {"properties": {"kind": {"const": kind.name}}, "required": ["kind"]}
        if kind.name == DEFAULT_KIND:  # a study without `kind:` is of the default kind
            is_kind = {"anyOf": [is_kind, {"not": {"required": ["kind"]}}]}
        cases.append({"if": is_kind, "then": kind.schema()})
    sch["properties"]["studies"]["additionalProperties"]["allOf"] = cases
    return sch


def _path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _message(error: jsonschema.ValidationError, prefix: tuple = ()) -> str:
    key = _path((*prefix, *error.absolute_path))
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        where = f"{key}." if (prefix or error.absolute_path) else ""
        return f"{where}{extra[0]}: unknown key (allowed: {', '.join(allowed)})"
    custom = error.schema.get("x-hyst-message") if isinstance(error.schema, dict) else None
    if error.validator == "oneOf" and custom:
        if isinstance(error.instance, dict):
            return f"{key}: {custom}"
        return f"{key}: {error.instance!r} is not allowed ({custom})"
    if error.validator == "enum":
        return (
            f"{key}: {error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
        )
    if error.validator == "const":
        return f"{key}: {error.instance!r} is not allowed (must be {error.validator_value!r})"
    if error.validator == "pattern" and error.absolute_path == error.relative_path:
        return f"{key}: {error.instance!r} is not allowed (letters, digits, '_' and '-' only)"
    return f"{key}: {error.message}"


def _check(instance, sch: dict, prefix: tuple = ()) -> None:
    validator = jsonschema.Draft202012Validator(sch)
    errors = sorted(validator.iter_errors(instance), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        raise ConfigError(_message(jsonschema.exceptions.best_match(errors), prefix))


def _fill_defaults(instance: dict, sch: dict, defs: dict):
    if "$ref" in sch:
        sch = defs[sch["$ref"].split("/")[-1]]
    for key, sub in sch.get("properties", {}).items():
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        nested = sub.get("properties") or "$ref" in sub
        if isinstance(instance.get(key), dict) and nested:
            _fill_defaults(instance[key], sub, defs)


def _check_finite(value, parts=()) -> None:
    """Reject NaN and infinite numbers anywhere (YAML .nan, .inf): no schema bound can."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{_path(parts)}: {value!r} is not allowed (a finite number)")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, (*parts, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_finite(v, (*parts, i))


def check_results(results, key: str = "results") -> None:
    """Raise :class:`ConfigError` (naming ``key``) unless the results folder can be created
    and written:
    an existing folder must be writable, else its nearest existing parent must be a
    writable folder. Nothing is left behind (a nameless temporary file is the probe)."""
    path = Path(results).expanduser()
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if path.resolve().parent == path.resolve():
        raise ConfigError(
            f"{key}: {str(results)!r} is not allowed (the root of the file system; give a "
            "folder of its own)"
        )
    if not probe.exists() or not probe.is_dir():
        what = "exists and is not a folder" if probe == path else f"{probe} is not a folder"
        raise ConfigError(f"{key}: {str(results)!r} is not allowed ({what})")
    try:
        if not os.access(probe, os.W_OK | os.X_OK):
            raise PermissionError(f"{probe} is not writable")
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as err:
        reason = err.strerror or str(err)
        where = "" if probe == path else f" in {probe}"
        raise ConfigError(f"{key}: {str(results)!r} cannot be written ({reason}{where})") from None


#: Top-level keys that say where and how a run runs, never what it computes: a run's
#: results do not depend on them (see :func:`result_config`).
OPERATIONAL_KEYS = ("results", "batch", "resources", "limits", "dask", "backend")


def result_config(config: dict) -> dict:
    """The part of a validated configuration that determines a run's results: all but
    :data:`OPERATIONAL_KEYS` (editing those reruns nothing)."""
    return {k: v for k, v in config.items() if k not in OPERATIONAL_KEYS}


def config_warnings(config: dict) -> list[str]:
    """Lines warning of what a valid configuration does that its author may not mean: each
    study kind's own warnings (e.g. couplings so weak that every one rounds to 0) and
    resources past this machine's cores. ``config`` is validated (defaults filled in)."""
    lines = []
    for name, study in config["studies"].items():
        lines += kind_of(study).warnings(name, study, config)
    threads, cores = config["resources"]["threads"], os.cpu_count() or 1
    if threads > cores:
        lines.append(
            f"resources.threads: {threads} is more than the {cores} cores of this machine "
            f"(a sampling job run here gets at most {cores}; a cluster node may have more)"
        )
    return lines


def validate(config: dict, *, check_paths: bool = True) -> dict:
    """Validate a configuration and return a copy with defaults filled in; with
    ``check_paths``, also that its results folder can be written."""
    if not isinstance(config, dict):
        raise ConfigError("(top level): the configuration must be a mapping")
    _check_finite(config)
    config = copy.deepcopy(config)
    studies = config.get("studies")
    if isinstance(studies, dict):
        for name, study in studies.items():
            if isinstance(study, dict) and study.get("kind", DEFAULT_KIND) in KINDS:
                studies[name] = kind_of(study).normalise(study)
    sch = base_schema()
    _check(config, sch)
    _fill_defaults(config, sch, sch.get("$defs", {}))
    for name, study in config["studies"].items():
        kind = kind_of(study)
        part = kind.schema()
        _check(study, part, ("studies", name))
        _fill_defaults(study, part, part.get("$defs", {}))
    if config["dask"]["scheduler_file"] and config["dask"]["address"]:
        raise ConfigError("dask: give at most one of scheduler_file or address")
    if config["backend"] != "cpu":
        from hyst.model.cuda_batch import check_backend

        try:
            check_backend(config["backend"])
        except ValueError as err:
            raise ConfigError(str(err)) from None
    for name, study in config["studies"].items():
        kind_of(study).check(name, study, config)
    for figure, binding in config["figures"].items():
        problem = binding_problem(figure, binding, config["studies"], kind_of)
        if problem:
            raise ConfigError(problem)
    if check_paths:
        check_results(config["results"])
    check_cost(estimate(config), config["limits"]["core_hours"])
    for section, binding in config["comparison"].items():
        problem = section_problem(section, binding, config["studies"], kind_of)
        if problem:
            raise ConfigError(problem)
    return config


@dataclass(frozen=True)
class Estimate:
    """What a configuration samples: per study, (systems, core-seconds or None where not
    estimated); in all, each system counted once where studies share points."""

    studies: dict
    systems: int
    core_seconds: float | None
    largest: str | None  # the study that costs most

    @property
    def core_hours(self) -> float | None:
        """The estimated cost in core-hours (None where not estimated)."""
        return None if self.core_seconds is None else self.core_seconds / 3600


def estimate(config: dict) -> Estimate:
    """The cost of a validated configuration (:meth:`hyst.studies.base.StudyKind.costs`)."""
    per_study, units = {}, {}
    for name, study in config["studies"].items():
        costs = kind_of(study).costs(name, study, config)
        units.update(costs)
        seconds = [s for _n, s in costs.values()]
        per_study[name] = (
            sum(n for n, _s in costs.values()),
            None if not costs or None in seconds else sum(seconds),
        )
    seconds = [s for _n, s in units.values()]
    known = {k: v for k, v in per_study.items() if v[1] is not None}
    return Estimate(
        per_study,
        sum(n for n, _s in units.values()),
        None if not units or None in seconds else sum(seconds),
        max(known, key=lambda k: known[k][1]) if known else None,
    )


def check_cost(cost: Estimate, limit_hours: float) -> None:
    """Refuse a configuration whose estimated cost exceeds ``limits.core_hours``."""
    from hyst.sampling.cost import hours_text

    if cost.core_hours is None or cost.core_hours <= limit_hours:
        return
    systems, _seconds = cost.studies[cost.largest]
    raise ConfigError(
        f"limits.core_hours: this configuration needs about {hours_text(cost.core_hours)} "
        f"core-hours to sample {cost.systems:.3g} systems ({systems:.3g} of them in "
        f"studies.{cost.largest}), more than the limit of {limit_hours:g} (raise "
        "limits.core_hours to run it)"
    )


def load(path) -> dict:
    """Read a YAML configuration file and validate it."""
    return validate(read_yaml(path))
