"""Fundamental self-loop structures M(n_e, L): enumeration, canonical form, chunks,
and an independent count by Burnside's lemma.

A self-loop of length L involving n_e elements is a directed simple cycle of
length L on the n_e-cube of states that flips every element (an even number of
times each). Fundamental loops are these cycles up to relabeling of the
elements and time shift (the choice of start state); a global flip of all
spins is *not* an equivalence (it exchanges up and down transitions), nor is
reversal of time. Hence 4 ≤ L ≤ 2^n_e and log2 L ≤ n_e ≤ L/2.

Representation: ``Loop(start, flips)``, ``start`` a bitmask (bit i set ⇔
s_i = +1), ``flips`` the element flipped at each step. The representative of
a fundamental loop is the one the Supplemental picks (see
:mod:`hyst.kernels.loop_enumeration`): start at the smallest magnetisation, elements
labeled in order of first flip descending, smallest ranking (start digits
s_0…s_{n−1}, then flips).

Chunks: the work of a cell (n_e, L) splits by start state and by a prefix of
the flip sequence (``cell_chunks``); ``enumerate_chunk`` walks one chunk and
``merge_chunks`` concatenates them in chunk order, so a cell's result does not
depend on how its chunks are scheduled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

import numpy as np

from hyst.kernels import loop_enumeration as kernel

#: Largest number of elements the kernels take (states are bitmasks with 2^n_e table entries).
MAX_ELEMENTS = 6
#: Prefix length of the enumeration chunks (flips after the start state).
DEFAULT_CHUNK_DEPTH = 4


@dataclass(frozen=True)
class Loop:
    """A rooted self-loop: start state (bitmask) and the element flipped at each step."""

    start: int
    flips: tuple

    @property
    def L(self) -> int:
        """The loop length L: the number of flips (steps) around the loop."""
        return len(self.flips)

    @property
    def n_e(self) -> int:
        """The number of elements n_e the loop flips (each at least once)."""
        return len(set(self.flips))

    def states(self) -> tuple:
        """The L states S^0 … S^{L−1} of the cycle."""
        out, s = [], self.start
        for e in self.flips:
            out.append(s)
            s ^= 1 << e
        return tuple(out)


def check_cell(n_e: int, L: int) -> None:
    """Reject an (n_e, L) with no fundamental loops or out of the kernels' range (one line)."""
    if not (isinstance(n_e, int | np.integer) and 2 <= n_e <= MAX_ELEMENTS):
        raise ValueError(f"n_e: {n_e!r} is not allowed (an integer 2..{MAX_ELEMENTS})")
    if not (isinstance(L, int | np.integer) and L >= 4 and L % 2 == 0):
        raise ValueError(f"L: {L!r} is not allowed (an even integer >= 4)")
    if not (2 * n_e <= L <= 2**n_e):
        raise ValueError(f"L: {L} is not allowed for n_e = {n_e} (2 n_e <= L <= 2^n_e)")


def cell_lengths(n_e: int) -> list[int]:
    """Every loop length L of n_e elements: 2 n_e, 2 n_e + 2, …, 2^n_e."""
    return list(range(2 * n_e, 2**n_e + 1, 2))


def is_valid_loop(loop: Loop) -> bool:
    """A directed simple cycle that flips every element 0 … n_e − 1."""
    flips = loop.flips
    if len(flips) < 4 or sorted(set(flips)) != list(range(len(set(flips)))):
        return False
    states = loop.states()
    end = loop.start
    for e in flips:
        end ^= 1 << e
    return end == loop.start and len(set(states)) == len(states)


def _rank(loop: Loop, n: int) -> tuple:
    return (bin(loop.start).count("1"), int(kernel.rank_key(loop.start, n)), loop.flips)


def first_flip_relabeling(flips) -> dict:
    """Old label -> new label, in order of first flip, descending from n_e − 1."""
    mapping: dict = {}
    n = len(set(flips))
    for e in flips:
        if e not in mapping:
            mapping[e] = n - 1 - len(mapping)
    return mapping


def relabel(loop: Loop, mapping: dict) -> Loop:
    """Apply a relabeling (old -> new) to the start state and the flips."""
    start = 0
    for old, new in mapping.items():
        if (loop.start >> old) & 1:
            start |= 1 << new
    return Loop(start, tuple(mapping[e] for e in loop.flips))


def shift(loop: Loop, t: int) -> Loop:
    """The same cycle started t steps later."""
    t %= loop.L
    return Loop(loop.states()[t], loop.flips[t:] + loop.flips[:t])


def canonical(loop: Loop) -> Loop:
    """The representative of the loop's fundamental class (any labels; elements that
    never flip are dropped first, and the others are compressed to 0 … n_e − 1).

    Slow and obviously correct: every shift, relabeled by first flip, ranked.
    """
    active = sorted(set(loop.flips))
    compress = {old: new for new, old in enumerate(active)}
    start = sum(1 << compress[i] for i in active if (loop.start >> i) & 1)
    base = Loop(start, tuple(compress[e] for e in loop.flips))
    n = len(active)
    best = None
    for t in range(base.L):
        s = shift(base, t)
        cand = relabel(s, first_flip_relabeling(s.flips))
        if best is None or _rank(cand, n) < _rank(best, n):
            best = cand
    return best


def loop_from_states(states) -> Loop:
    """A rooted loop from its cyclic sequence of states (bitmasks; consecutive states,
    and the last and the first, differ in exactly one element)."""
    states = [int(s) for s in states]
    flips = []
    for a, b in zip(states, states[1:] + states[:1], strict=True):
        d = a ^ b
        if d == 0 or d & (d - 1):
            raise ValueError("states: consecutive states must differ in exactly one element")
        flips.append(d.bit_length() - 1)
    return Loop(states[0], tuple(flips))


# --- chunks ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """One independent piece of a cell: a start state and a prefix of the flips."""

    n_e: int
    L: int
    start: int
    prefix: tuple

    def key(self) -> str:
        """A name of the chunk unique within a cell: ``n_e-L-start-prefix``."""
        return f"{self.n_e}-{self.L}-{self.start}-" + ".".join(map(str, self.prefix))


def _prefixes(n_e, L, start, depth):
    cap = 64
    while True:
        out = np.zeros((cap, max(depth, 1)), np.int64)
        count = kernel.walk_prefixes(n_e, L, start, depth, True, out)
        if count <= cap:
            return [tuple(int(v) for v in row[:depth]) for row in out[:count]]
        cap = count


def start_states(n_e: int) -> list[int]:
    """Start states of representatives: every state except all-up, by popcount then
    by ranking (the enumeration order)."""
    states = [s for s in range(2**n_e - 1)]
    return sorted(states, key=lambda s: (bin(s).count("1"), int(kernel.rank_key(s, n_e))))


def cell_chunks(n_e: int, L: int, depth: int = DEFAULT_CHUNK_DEPTH) -> list[Chunk]:
    """The chunks of a cell in enumeration order: start states, then flip prefixes of
    length ``depth`` (shorter if L is small)."""
    check_cell(n_e, L)
    depth = max(0, min(depth, L - 1))
    return [
        Chunk(n_e, L, s, prefix)
        for s in start_states(n_e)
        for prefix in _prefixes(n_e, L, s, depth)
    ]


@dataclass
class ChunkResult:
    """Representatives found in one chunk (or a merged cell): their count, start states
    (int64) and flip sequences (int8, one row per loop) when stored."""

    count: int
    starts: np.ndarray
    flips: np.ndarray


def enumerate_chunk(chunk: Chunk, store: bool = True) -> ChunkResult:
    """Walk one chunk; ``store`` keeps the representatives (else only the count)."""
    n, L = chunk.n_e, chunk.L
    prefix = np.asarray(chunk.prefix + (0,), np.int64)
    cap = 1024 if store else 0
    while True:
        starts = np.zeros(cap, np.int64)
        flips = np.zeros((cap, L), np.int8)
        count = kernel.walk_loops(n, L, chunk.start, prefix, len(chunk.prefix), True, starts, flips)
        if not store:
            return ChunkResult(int(count), np.zeros(0, np.int64), np.zeros((0, L), np.int8))
        if count <= cap:
            return ChunkResult(int(count), starts[:count].copy(), flips[:count].copy())
        cap = int(count)


def merge_chunks(results: list[ChunkResult], L: int) -> ChunkResult:
    """Concatenate chunk results in chunk order (counts add)."""
    count = sum(r.count for r in results)
    starts = [r.starts for r in results if r.starts.size]
    flips = [r.flips for r in results if r.flips.size]
    return ChunkResult(
        count,
        np.concatenate(starts) if starts else np.zeros(0, np.int64),
        np.concatenate(flips) if flips else np.zeros((0, L), np.int8),
    )


def enumerate_cell(n_e: int, L: int, store: bool = True, depth: int = 0) -> ChunkResult:
    """All representatives of a cell, in one piece (``depth`` 0) or chunk by chunk."""
    return merge_chunks([enumerate_chunk(c, store) for c in cell_chunks(n_e, L, depth)], L)


def count_loops(n_e: int, L: int) -> int:
    """M(n_e, L) by the enumerator."""
    return enumerate_cell(n_e, L, store=False).count


def representatives(n_e: int, L: int) -> list[Loop]:
    """The fundamental loops of a cell as ``Loop`` objects (enumeration order)."""
    res = enumerate_cell(n_e, L, store=True)
    return [
        Loop(int(s), tuple(int(e) for e in row))
        for s, row in zip(res.starts, res.flips, strict=True)
    ]


# --- Burnside ---------------------------------------------------------------------------


def cycle_types(n: int):
    """(cycle lengths, class size, a representative permutation) for each conjugacy class
    of the symmetric group S_n."""

    def partitions(m, largest):
        if m == 0:
            yield ()
            return
        for k in range(min(m, largest), 0, -1):
            for rest in partitions(m - k, k):
                yield (k, *rest)

    for part in partitions(n, n):
        perm, pos = [], 0
        for k in part:
            perm += [pos + (i + 1) % k for i in range(k)]
            pos += k
        size = math.factorial(n)
        for k in set(part):
            m = part.count(k)
            size //= k**m * math.factorial(m)
        yield part, size, np.asarray(perm, np.int64)


def _power(perm, a):
    out = np.arange(perm.size, dtype=np.int64)
    for _ in range(a):
        out = perm[out]
    return out


def fixed_rooted_loops(n: int, L: int, perm, r: int) -> int:
    """F(π, r): rooted loops with π(S^k) = S^{k+r} for all k (r in 1 … L−1)."""
    g = math.gcd(r, L)
    j = L // g
    a = pow((r // g) % j, -1, j) if j > 1 else 1
    sigma = _power(np.asarray(perm, np.int64), a)
    return int(kernel.symmetric_walks(n, L, np.asarray(perm, np.int64), r, sigma, g, False))


def burnside_count(n: int, L: int, details: bool = False):
    """M(n, L) counted independently of the enumerator, by Burnside's lemma.

    The relabelings S_n act on directed cycles; a cycle fixed by π ≠ id is
    rotated by π by some r ≠ 0, so with F(π, r) rooted loops fixed by (π, r),

        M = [2^n n! R + Σ_{π ≠ id} Σ_{r=1}^{L−1} F(π, r)] / (n! L),

    where R counts closed walks from the state 0 labeled by first flip (descending):
    every rooted loop from 0 is one of n! relabelings of one of them, and the
    cube's translations make every start state alike. F depends on π only through
    its conjugacy class. The division must be exact (checked).
    """
    check_cell(n, L)
    ident = np.arange(n, dtype=np.int64)
    R = int(kernel.symmetric_walks(n, L, ident, 0, ident, L, True))
    numerator = 2**n * math.factorial(n) * R
    per_class = {}
    for part, size, perm in cycle_types(n):
        if part == (1,) * n:
            continue
        fixed = sum(fixed_rooted_loops(n, L, perm, r) for r in range(1, L))
        per_class[part] = (size, fixed)
        numerator += size * fixed
    value = Fraction(numerator, math.factorial(n) * L)
    if value.denominator != 1:
        raise ArithmeticError(f"Burnside count of (n_e={n}, L={L}) is not an integer: {value}")
    if details:
        return int(value), {"rooted_from_zero_rgs": R, "fixed_by_class": per_class}
    return int(value)


def brute_force_classes(n: int, L: int) -> list[frozenset]:
    """Every rooted loop of the cell, grouped into classes by applying relabelings and
    shifts explicitly (tiny cells only: a slow reference for the tests)."""
    loops = []

    def extend(states, flips):
        s = states[-1]
        if len(flips) == L:
            return
        for e in range(n):
            s2 = s ^ (1 << e)
            if len(flips) + 1 == L:
                if s2 == states[0] and len(set(flips + [e])) == n:
                    loops.append(Loop(states[0], tuple(flips + [e])))
            elif s2 not in states:
                extend(states + [s2], flips + [e])

    for start in range(2**n):
        extend([start], [])
    seen: dict = {}
    classes = []
    for loop in loops:
        if loop in seen:
            continue
        cls = set()
        for perm in permutations(range(n)):
            mapping = dict(enumerate(perm))
            for t in range(L):
                cls.add(relabel(shift(loop, t), mapping))
        cls = frozenset(cls)
        for member in cls:
            seen[member] = cls
        classes.append(cls)
    return classes
