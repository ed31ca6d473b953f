"""Sweep configuration: loading, validation against the JSON schema, defaults.

Errors are one line naming the key, the value and what is allowed, e.g.
``studies.spins.N[0]: 1 is less than the minimum of 2``.
"""

from __future__ import annotations

import copy
import math
from importlib import resources
from pathlib import Path

import jsonschema
import yaml

from hyst.observables import ENUMERATION_GROUPS, ENUMERATION_MAX_N


class ConfigError(ValueError):
    """An invalid configuration (message: one line, key first)."""


def schema() -> dict:
    """The configuration's JSON schema (with defaults and descriptions)."""
    text = resources.files("hyst").joinpath("config.schema.yaml").read_text()
    return yaml.safe_load(text)


def _path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _message(error: jsonschema.ValidationError) -> str:
    key = _path(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        where = f"{key}." if error.absolute_path else ""
        return f"{where}{extra[0]}: unknown key (allowed: {', '.join(allowed)})"
    if error.validator == "oneOf":
        last = error.absolute_path[-1] if error.absolute_path else ""
        if isinstance(error.instance, dict) and "couplings" in error.instance:
            return f"{key}: give exactly one of NJ0 or J0"
        if last == "observables":
            return (
                f"{key}: {error.instance!r} is not allowed (all, or a list of "
                "transitions, zero_field, avalanche, cyclic, saturated_loop)"
            )
        return (
            f"{key}: {error.instance!r} is not allowed (a list of numbers > 0, or "
            "{start, stop, per_decade})"
        )
    if error.validator == "enum":
        return (
            f"{key}: {error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
        )
    return f"{key}: {error.message}"


def _fill_defaults(instance: dict, sch: dict, defs: dict):
    if "$ref" in sch:
        sch = defs[sch["$ref"].split("/")[-1]]
    for key, sub in sch.get("properties", {}).items():
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        nested = (
            sub.get("properties")
            or "$ref" in sub
            or isinstance(sub.get("additionalProperties"), dict)
        )
        if isinstance(instance.get(key), dict) and nested:
            _fill_defaults(instance[key], sub, defs)
    extra = sch.get("additionalProperties")
    if isinstance(extra, dict):
        for key, value in instance.items():
            if key not in sch.get("properties", {}) and isinstance(value, dict):
                _fill_defaults(value, extra, defs)


def grid(spec) -> list[float]:
    """A list of values, or {start, stop, per_decade}: a log grid (12 significant digits)."""
    if isinstance(spec, list):
        return [float(v) for v in spec]
    lo = math.ceil(round(math.log10(spec["start"]) * spec["per_decade"], 9))
    hi = math.floor(round(math.log10(spec["stop"]) * spec["per_decade"], 9))
    return [float(f"{10 ** (k / spec['per_decade']):.12g}") for k in range(lo, hi + 1)]


def validate(config: dict) -> dict:
    """Validate a configuration and return a copy with defaults filled in."""
    if not isinstance(config, dict):
        raise ConfigError("(top level): the configuration must be a mapping")
    sch = schema()
    validator = jsonschema.Draft202012Validator(sch)
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise ConfigError(_message(best))
    config = copy.deepcopy(config)
    _fill_defaults(config, sch, sch.get("$defs", {}))
    if config["pairs"] is not None:
        _fill_defaults(config["pairs"], sch["properties"]["pairs"], {})
    if config["dask"]["scheduler_file"] and config["dask"]["address"]:
        raise ConfigError("dask: give at most one of scheduler_file or address")
    for name, study in config["studies"].items():
        axis = "NJ0" if "NJ0" in study else "J0"
        values = grid(study[axis])
        if not values:
            raise ConfigError(f"studies.{name}.{axis}: the grid {study[axis]} contains no value")
        obs = study["observables"]
        if obs != "all":
            big = [n for n in study["N"] if n > ENUMERATION_MAX_N]
            enum = [g for g in obs if g in ENUMERATION_GROUPS]
            if big and enum:
                raise ConfigError(
                    f"studies.{name}.observables: {enum[0]!r} enumerates 2^N states and needs "
                    f"N <= {ENUMERATION_MAX_N} (N = {big[0]})"
                )
    return config


def load(path) -> dict:
    """Read a YAML configuration file and validate it."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML ({str(err).splitlines()[0]})") from None
    return validate(data)
