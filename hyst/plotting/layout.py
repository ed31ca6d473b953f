"""Where to draw the states of n elements: by magnetisation, in a fixed order per level.

Every state S of n elements gets a point (x, m): m = Σ_i s_i its magnetisation
(vertical), and x its rank among the states of the same magnetisation ordered by
the projection Σ_i s_i w_i, w_i = i − (n − 1)/2 (ties broken by tiny generic
weights), centred on 0 (horizontal, unit spacing). For n = 3 this is the
Supplemental's hexagon (+−− left, −+− centre, −−+ right). The positions depend
only on (S, n), so a state sits at the same place in every panel.
"""

from __future__ import annotations

import math


def _projection(state: int, n: int) -> float:
    # linear weights, ties broken by square roots of distinct primes (generic)
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37][:n]
    return sum(
        (i - (n - 1) / 2 + 1e-3 * math.sqrt(p)) * (1 if (state >> i) & 1 else -1)
        for i, p in enumerate(primes)
    )


def magnetisation(state: int, n: int) -> int:
    """m = Σ_i s_i of a bitmask state (bit i set ⇔ s_i = +1)."""
    return 2 * bin(state).count("1") - n


def cube_positions(n: int) -> dict[int, tuple[float, int]]:
    """{state: (x, m)} for all 2^n states of n ≤ 12 elements."""
    if not 1 <= n <= 12:
        raise ValueError(f"n: {n} is not allowed (1..12 elements to draw)")
    levels: dict[int, list[int]] = {}
    for s in range(2**n):
        levels.setdefault(magnetisation(s, n), []).append(s)
    out = {}
    for m, states in levels.items():
        states.sort(key=lambda s: _projection(s, n))
        width = len(states) - 1
        for rank, s in enumerate(states):
            out[s] = (rank - width / 2, m)
    return out


def state_label(state: int, n: int) -> str:
    """The state as signs, element 0 first: '+−−' for s = (+1, −1, −1)."""
    return "".join("+" if (state >> i) & 1 else "\u2212" for i in range(n))


def subset_positions(states, n: int, spacing: float = 1.0) -> dict[int, tuple[float, int]]:
    """{state: (x, m)} for a subset of the states (e.g. one loop's): the same order per
    magnetisation level as ``cube_positions``, but only these states, evenly spaced and
    centred, so a drawing of a few states stays compact."""
    order = cube_positions(n)
    levels: dict[int, list[int]] = {}
    for s in {int(s) for s in states}:
        levels.setdefault(magnetisation(s, n), []).append(s)
    out = {}
    for m, members in levels.items():
        members.sort(key=lambda s: order[s][0])
        width = len(members) - 1
        for rank, s in enumerate(members):
            out[s] = (spacing * (rank - width / 2), m)
    return out
