"""The old home of ``hyst system``'s input files: they live in :mod:`hyst.systems.files`,
importable from here as before."""

from __future__ import annotations

from hyst.systems.files import (
    FORMATS,
    KEYS,
    SystemInputError,
    load_system,
    read_mapping,
    sampled_system,
    save_system,
    system_from_mapping,
)

__all__ = [
    "FORMATS",
    "KEYS",
    "SystemInputError",
    "load_system",
    "read_mapping",
    "sampled_system",
    "save_system",
    "system_from_mapping",
]
