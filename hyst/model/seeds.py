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


# ---- hash keys of records (the bottom-k samples of hyst.sampling.tallies) ----------------

_MASK64 = (1 << 64) - 1


def _mix64(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: a bijection of uint64 that scrambles every bit."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def record_salt(seed: int, identity: dict) -> int:
    """A 64-bit salt of ``identity`` under the base ``seed`` (from its SeedSequence)."""
    return int(seed_sequence(seed, identity).generate_state(1, np.uint64)[0])


def record_keys(salt: int, *columns) -> np.ndarray:
    """Pseudo-random uint64 keys of records identified by integer ``columns`` (e.g. the
    system index, the branch and the loop's index within its system), under ``salt``.

    The key is a fixed function of (salt, column values): the same record gets the same key
    whatever chunk it was found in, so the records with the k smallest keys are a uniform
    random sample of k records that can be merged chunk by chunk in any order (a bottom-k
    sample). Column values are taken modulo 2^64 (−1 is a valid value)."""
    with np.errstate(over="ignore"):
        key = np.full(np.shape(columns[0]) if columns else (), np.uint64(salt & _MASK64))
        for col in columns:
            value = np.asarray(col).astype(np.int64).view(np.uint64)
            key = _mix64(key ^ _mix64(value + np.uint64(0x9E3779B97F4A7C15)))
    return key
