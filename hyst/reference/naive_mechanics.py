"""Slow, obviously-correct reference of the mechanics of a serial chain (pure Python).

Exact rational arithmetic (``fractions.Fraction``), no numpy, no numba, no
mapping to hysterons. A chain is ``(xm, xp, d, k)``: lists of the elements'
switching displacements x_i^∓ and force jumps d_i, and the stiffness k of a
spring in series (None: no spring). A phase state is a bitmask (bit i ⇔
s_i = +1). The drive is U = Uc + eps·0⁺ with Uc a Fraction and eps in
{+1, 0, −1}.

Force balance: every element carries the force f = x_i − d_i s_i, the spring
f/k, and U = Σ x_i + f/k, so f = (U − Σ_j d_j s_j) / (N + 1/k) and x_i = f + d_i s_i.
An element is unstable when it has left its branch (s_i = −1: x_i > x_i^+;
s_i = +1: x_i < x_i^−); its distance past the threshold is compared as the pair
(value at Uc, coefficient of 0⁺), lexicographically.
"""

from fractions import Fraction

INF = float("inf")


def _compliance(N, k):
    """dU/df of the chain: N elements of unit stiffness plus a spring."""
    return Fraction(N) + (0 if k is None else 1 / Fraction(k))


def spins(S, N):
    """The phases s_i = ±1 of the N elements of state bitmask S (bit i set: s_i = +1)."""
    return [1 if (S >> i) & 1 else -1 for i in range(N)]


def positions(chain, S, U):
    """Element positions x_i (Fractions) in phase state S at displacement U."""
    xm, xp, d, k = chain
    N = len(xm)
    s = spins(S, N)
    f = (Fraction(U) - sum(Fraction(d[j]) * s[j] for j in range(N))) / _compliance(N, k)
    return [f + Fraction(d[i]) * s[i] for i in range(N)]


def distances(chain, S, drive):
    """Per element: (distance past its threshold at Uc, coefficient of 0⁺)."""
    xm, xp, d, k = chain
    Uc, eps = drive
    N = len(xm)
    slope = 1 / _compliance(N, k)  # dx_i/dU, the same for every element
    x = positions(chain, S, Uc)
    out = []
    for i, si in enumerate(spins(S, N)):
        if si < 0:
            out.append((x[i] - xp[i], eps * slope))
        else:
            out.append((xm[i] - x[i], -eps * slope))
    return out


def switching_displacements(chain, S):
    """(U^−(S), U^+(S)): where the first element leaves its branch (±inf if none)."""
    xm, xp, d, k = chain
    N = len(xm)
    s = spins(S, N)
    total = sum(Fraction(d[j]) * s[j] for j in range(N))
    up, down = INF, -INF
    for i in range(N):
        # x_i(U) = (U − total)/compliance + d_i s_i reaches its threshold
        if s[i] < 0:
            up = min(up, (xp[i] - Fraction(d[i]) * s[i]) * _compliance(N, k) + total)
        else:
            down = max(down, (xm[i] - Fraction(d[i]) * s[i]) * _compliance(N, k) + total)
    return down, up


def step(chain, S, drive, rule):
    """(kind, next state, n_unstable, tie) with kind 'stable', 'ill_defined' or 'step'."""
    dist = distances(chain, S, drive)
    zero = any(m == (0, 0) for m in dist)
    unstable = [i for i, m in enumerate(dist) if m > (0, 0)]
    if not unstable:
        return "stable", S, 0, zero
    if rule == "0" and len(unstable) > 1:
        return "ill_defined", S, len(unstable), zero
    if rule in ("0", "2"):
        nxt = S
        for i in unstable:
            nxt ^= 1 << i
        return "step", nxt, len(unstable), zero
    pick = max if rule == "1" else min
    target = pick(dist[i] for i in unstable)
    winners = [i for i in unstable if dist[i] == target]
    return "step", S ^ (1 << winners[0]), len(unstable), zero or len(winners) > 1


def relax(chain, S, drive, rule):
    """Relax at fixed drive. Returns dict outcome, final_state, flips, race, tie, L, n_e,
    cycle (states from the smallest, in dynamical order)."""
    seen = {S: 0}
    path = [S]
    race = False
    tie = False
    flips = 0
    while True:
        kind, nxt, n_u, t = step(chain, S, drive, rule)
        tie = tie or t
        if len(path) > 1 and n_u > 1:
            race = True
        if kind != "step":
            return {
                "outcome": "stable" if kind == "stable" else "ill_defined",
                "final_state": S,
                "flips": flips,
                "race": race,
                "tie": tie,
                "L": 0,
                "n_e": 0,
                "cycle": (),
            }
        flips += bin(nxt ^ S).count("1")
        S = nxt
        if S in seen:
            cycle = path[seen[S] :]
            changed = 0
            for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
                changed |= a ^ b
            k = cycle.index(min(cycle))
            return {
                "outcome": "self_loop",
                "final_state": S,
                "flips": flips,
                "race": race,
                "tie": tie,
                "L": len(cycle),
                "n_e": bin(changed).count("1"),
                "cycle": tuple(cycle[k:] + cycle[:k]),
            }
        seen[S] = len(path)
        path.append(S)


def transition_graph(chain, rule):
    """[(S, direction, U_c, outcome, target, L, n_e, cycle, race, tie)] for every
    potentially stable S (U^−(S) < U^+(S)), up and down."""
    N = len(chain[0])
    rows = []
    for S in range(1 << N):
        down, up = switching_displacements(chain, S)
        if not down < up:
            continue
        for direction, Uc in ((1, up), (-1, down)):
            if Uc in (INF, -INF):
                continue
            r = relax(chain, S, (Uc, direction), rule)
            target = r["final_state"] if r["outcome"] == "stable" else -1
            rows.append(
                (
                    S,
                    direction,
                    Uc,
                    r["outcome"],
                    target,
                    r["L"],
                    r["n_e"],
                    r["cycle"],
                    r["race"],
                    r["tie"],
                )
            )
    return rows
