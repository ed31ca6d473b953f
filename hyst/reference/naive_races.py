"""Slow, obviously correct references for the race conditions settled by speed or at random.

Plain Python ints, ``Fraction`` and dicts on top of :mod:`hyst.reference.naive` (its
systems, states, fields and margins): the oracle of the flip-time rule's kernels and of the
random-order analysis. Meant for N ≤ 8 (every reachable state is listed).

* **Flip-time rule.** Element i has a flip time ``tau[i]`` (a positive int); of the unstable
  elements (margin m_i > 0) the one with the largest ``Fraction(m_i, tau[i])`` flips; when
  several share it, the lowest index flips and one tie is counted. Ties, race conditions and
  self-loops are counted as :func:`hyst.reference.naive.relax` counts them.
* **Random order.** Each unstable element flips next with probability 1 / n_u: a Markov
  chain over the states at a fixed field whose absorbing states are the stable ones. From a
  start state, the probability of ending in each stable state solves the absorbing chain
  exactly (Gauss–Jordan elimination over ``Fraction``); what is missing to 1 is the
  probability of never settling (of ending in a closed set of unstable states, a trap).
"""

from fractions import Fraction

from hyst.reference.naive import is_finite, margins, state_thresholds

# ---- the flip-time rule ---------------------------------------------------------------------


def tau_step(hp, hm, c, tau, S, field):
    """One step of the flip-time rule from S at ``field``: (next state or None when S is
    stable, n_u, ties of this scan)."""
    m = margins(hp, hm, c, S, field)
    unstable = [i for i in range(len(m)) if m[i] > 0]
    ties = sum(1 for mi in m if mi == 0)
    if not unstable:
        return None, 0, ties
    best = max(Fraction(m[i], tau[i]) for i in unstable)
    winners = [i for i in unstable if Fraction(m[i], tau[i]) == best]
    if len(winners) > 1:
        ties += 1
    return S ^ (1 << winners[0]), len(unstable), ties


def tau_relax(system, tau, S, field):
    """Relax S at ``field`` under the flip-time rule: a dict with outcome ('stable' or
    'self_loop'), final_state, flips, race_condition, ties, L, n_e and cycle_states (as
    :func:`hyst.reference.naive.relax`)."""
    hp, hm, c = system
    visited = {S: 0}
    path = [S]
    flips = 0
    ties = 0
    race = False
    cur = S
    while True:
        nxt, n_u, t = tau_step(hp, hm, c, tau, cur, field)
        ties += t
        if flips >= 1 and n_u > 1:
            race = True
        if nxt is None:
            return {
                "outcome": "stable",
                "final_state": cur,
                "flips": flips,
                "race_condition": race,
                "ties": ties,
                "L": 0,
                "n_e": 0,
                "cycle_states": [],
            }
        flips += 1
        if nxt in visited:
            cycle = path[visited[nxt] :]
            k = cycle.index(min(cycle))
            cycle = cycle[k:] + cycle[:k]
            flipped = 0
            for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
                flipped |= a ^ b
            return {
                "outcome": "self_loop",
                "final_state": nxt,
                "flips": flips,
                "race_condition": race,
                "ties": ties,
                "L": len(cycle),
                "n_e": bin(flipped).count("1"),
                "cycle_states": cycle,
            }
        visited[nxt] = len(path)
        path.append(nxt)
        cur = nxt


def switching_fields(system):
    """[(S, field)] of every transition out of every potentially stable state
    (H^−(S) < H^+(S)), S increasing, the up transition (H^+(S), +1) before the down one
    (H^−(S), −1); saturated thresholds have none."""
    hp, hm, c = system
    out = []
    for S in range(1 << len(hp)):
        hplus, hminus = state_thresholds(hp, hm, c, S)
        if not hminus < hplus:
            continue
        if is_finite(hplus):
            out.append((S, (hplus, 1)))
        if is_finite(hminus):
            out.append((S, (hminus, -1)))
    return out


def tau_transitions(system, tau):
    """The flip-time rule's relaxation of every transition of :func:`switching_fields`:
    [(S, field, relax dict)]."""
    return [(S, f, tau_relax(system, tau, S, f)) for S, f in switching_fields(system)]


# ---- random order ---------------------------------------------------------------------------


def reachable(system, S, field):
    """{state: [its unstable elements]} of every state reachable from S at ``field`` by
    flipping unstable elements one at a time ([] for a stable state)."""
    hp, hm, c = system
    out = {}
    todo = [S]
    while todo:
        X = todo.pop()
        if X in out:
            continue
        m = margins(hp, hm, c, X, field)
        out[X] = [i for i in range(len(m)) if m[i] > 0]
        todo.extend(X ^ (1 << i) for i in out[X])
    return out


def solve(matrix, rhs):
    """x with matrix · x = rhs (lists of lists of Fraction, matrix square and invertible),
    by Gauss–Jordan elimination with exact arithmetic."""
    n = len(matrix)
    k = len(rhs[0]) if rhs else 0
    a = [list(matrix[r]) + list(rhs[r]) for r in range(n)]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        p = a[col][col]
        a[col] = [v / p for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col], strict=True)]
    return [row[n : n + k] for row in a]


def random_order_transition(system, S, field):
    """The random-order relaxation from S at ``field``: ({stable state: probability}, trap
    probability), exact Fractions. A state that can reach no stable state has absorption
    probability 0; the others solve (I − Q) B = R, Q the moves between them, R the moves
    into the stable states."""
    states = reachable(system, S, field)
    stable = sorted(X for X, u in states.items() if not u)
    if not states[S]:
        return {S: Fraction(1)}, Fraction(0)
    # the states that can reach a stable state (backward search over the moves)
    preds = {X: [] for X in states}
    for X, u in states.items():
        for i in u:
            preds[X ^ (1 << i)].append(X)
    settles = set(stable)
    todo = list(stable)
    while todo:
        Y = todo.pop()
        for X in preds[Y]:
            if X not in settles:
                settles.add(X)
                todo.append(X)
    if S not in settles:
        return {}, Fraction(1)
    transient = sorted(X for X in settles if states[X])
    index = {X: k for k, X in enumerate(transient)}
    col = {X: k for k, X in enumerate(stable)}
    n = len(transient)
    matrix = [[Fraction(int(r == q)) for q in range(n)] for r in range(n)]
    rhs = [[Fraction(0)] * len(stable) for _ in range(n)]
    for X in transient:
        p = Fraction(1, len(states[X]))
        for i in states[X]:
            Y = X ^ (1 << i)
            if Y in index:
                matrix[index[X]][index[Y]] -= p
            elif Y in col:
                rhs[index[X]][col[Y]] += p
    row = solve(matrix, rhs)[index[S]]
    ends = {X: row[col[X]] for X in stable if row[col[X]] != 0}
    return ends, 1 - sum(ends.values(), Fraction(0))


def random_order_system(system):
    """[(S, field, {stable state: probability}, trap probability)] of every transition of
    :func:`switching_fields` under random order."""
    return [(S, f, *random_order_transition(system, S, f)) for S, f in switching_fields(system)]
