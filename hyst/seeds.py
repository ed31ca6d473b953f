"""Random streams keyed by what a computation *is*, never by where it sits in a list.

Every random generator of hyst comes from ``numpy.random.SeedSequence`` keyed by
the base seed and an *identity*: a JSON-serialisable dict naming the thing
sampled (for a sweep point: couplings, spans, N and NJ0; for a pair study: the
span and the box). Chunks of one identity are independent children
(``spawn_key=(chunk,)``). Results therefore depend only on configuration and
seed: the same on any number of workers, chunks or machines.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def digest(identity, length: int | None = None) -> str:
    """Hex SHA-256 of the canonical JSON of ``identity`` (first ``length`` characters)."""
    text = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    return text if length is None else text[:length]


def seed_sequence(seed: int, identity: dict) -> np.random.SeedSequence:
    """Root SeedSequence of ``identity`` under the base ``seed``."""
    blob = json.dumps(identity, sort_keys=True).encode()
    words = np.frombuffer(hashlib.sha256(blob).digest(), dtype=np.uint32)
    return np.random.SeedSequence([int(seed), *map(int, words)])


def generator(seed: int, identity: dict, chunk: int | None = None) -> np.random.Generator:
    """PCG64 generator of ``identity`` (the root stream, or chunk ``chunk`` of it)."""
    root = seed_sequence(seed, identity)
    if chunk is not None:
        root = np.random.SeedSequence(root.entropy, spawn_key=(int(chunk),))
    return np.random.Generator(np.random.PCG64(root))
