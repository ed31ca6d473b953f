"""Kernels that enumerate the fundamental self-loop structures on the n_e-cube.

Only ``@jit`` functions over plain int64/int8 arrays live here (no I/O).

A *rooted loop* of n elements and length L is a start state S^0 (bitmask, bit i
set ⇔ s_i = +1) and a flip sequence e_0 … e_{L−1} such that the states
S^{k+1} = S^k xor 2^{e_k} are L distinct states, S^L = S^0 (a directed simple
cycle of the labeled n-cube), and every element flips at least once (n_e = n).
Two rooted loops are equivalent if they differ by a relabeling of the elements
(a permutation π acting on labels and state bits) and a time shift (another
start state of the same cycle).

The representative (the Supplemental's convention): among the shifts t whose
start state has the smallest magnetisation, relabel the elements in order of
first flip *descending* (the first element flipped gets label n − 1, the next
new one n − 2, …) and take the smallest ranking (state digits s_0 s_1 … s_{n−1},
then the flip sequence), lexicographically. ``rank_key`` of a state is its
bit-reversed bitmask, so that integer order is the digit order.

The enumerator walks only flip sequences that are already labeled this way
(a "restricted growth" sequence with descending labels), from start states of
a given popcount p, never stepping below popcount p, and accepts a closed walk
only if no other shift of it ranks lower. Each fundamental loop is then met
exactly once. Pruning: a state may be revisited only at the last step, and the
remaining steps must cover the Hamming distance back to S^0 plus two flips of
every element not yet used.

The independent count (Burnside's lemma over the relabelings) walks rooted
loops with a prescribed symmetry: see ``symmetric_walks``.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.jit import jit


@jit
def popcount(x):
    """Number of set bits of x ≥ 0."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@jit
def rank_key(state, n):
    """Bit-reversed state: s_0 is the most significant digit (the paper's ranking)."""
    r = 0
    for i in range(n):
        if (state >> i) & 1:
            r |= 1 << (n - 1 - i)
    return r


@jit
def is_canonical(n, L, p, states, seq, mp):
    """True iff no time shift of the closed walk (states[0..L−1], seq) ranks below it.

    ``states[0]`` has the smallest popcount ``p`` and ``seq`` is labeled in order
    of first flip, descending. ``mp`` is a work array of length n.
    """
    key0 = rank_key(states[0], n)
    for t in range(1, L):
        if popcount(states[t]) != p:
            continue
        for i in range(n):
            mp[i] = -1
        nl = n - 1
        for j in range(L):
            e = seq[(t + j) % L]
            if mp[e] < 0:
                mp[e] = nl
                nl -= 1
                if nl < 0:
                    break
        key = 0
        x = states[t]
        for i in range(n):
            if (x >> i) & 1:
                key |= 1 << (n - 1 - mp[i])
        if key < key0:
            return False
        if key > key0:
            continue
        for j in range(L):
            a = mp[seq[(t + j) % L]]
            b = seq[j]
            if a < b:
                return False
            if a > b:
                break
    return True


@jit
def _step_allowed(n, L, k, S0, p, S2, u2, visited, restrict):
    """May the walk step to S2 as state k+1 (k+1 < L) with u2 labels used?"""
    if visited[S2]:
        return False
    if restrict and popcount(S2) < p:
        return False
    return popcount(S2 ^ S0) + 2 * (n - u2) <= L - k - 1


@jit
def walk_loops(n, L, S0, prefix, plen, restrict, out_starts, out_seqs):
    """Closed walks of length L from S0 that extend ``prefix[:plen]``.

    Walks use all n labels, in order of first flip descending (restricted growth).
    With ``restrict`` the walk never steps below popcount(S0) and only canonical
    closed walks are kept (the fundamental-loop representatives); without it every
    such closed walk counts (used for Burnside's lemma from S0 = 0).
    Stores the first ``out_starts.shape[0]`` results (start state and flips) and
    returns the total count (a prefix that is not a valid walk gives 0).
    """
    return _walk(n, L, S0, prefix, plen, L, restrict, out_starts, out_seqs)


@jit
def walk_prefixes(n, L, S0, depth, restrict, out):
    """Valid walk prefixes of length ``depth`` (< L) from S0 (same rules and pruning as
    ``walk_loops``): the chunks of one start state. Stores the first ``out.shape[0]``
    rows of ``out`` (prefixes, in the enumeration order) and returns the count."""
    none = np.zeros(0, np.int64)
    return _walk(n, L, S0, none, 0, depth, restrict, none, out)


@jit
def _walk(n, L, S0, prefix, plen, depth, restrict, out_starts, out_seqs):
    """The depth-first walk of ``walk_loops`` (depth = L: the closed walks that extend
    ``prefix[:plen]``, stored with their start state) and of ``walk_prefixes`` (depth < L,
    no prefix: the valid walks of ``depth`` steps). Stores the first ``out_seqs.shape[0]``
    results and returns the count."""
    cap = out_seqs.shape[0]
    visited = np.zeros(1 << n, np.uint8)
    states = np.zeros(L + 1, np.int64)
    seq = np.zeros(L, np.int64)
    used = np.zeros(L + 1, np.int64)
    nxt = np.zeros(L + 1, np.int64)
    mp = np.zeros(n, np.int64)
    p = popcount(S0)
    # a closed walk through every state (L = 2^n): prune walks that strand a state
    hamiltonian = depth == L and L == 1 << n
    states[0] = S0
    visited[S0] = 1
    if plen >= L:
        return 0
    for k in range(plen):
        e = prefix[k]
        u = used[k]
        low = n - u - 1 if u < n else 0
        if e < low or e > n - 1:
            return 0
        u2 = u + 1 if e == n - u - 1 else u
        S2 = states[k] ^ (1 << e)
        if not _step_allowed(n, L, k, S0, p, S2, u2, visited, restrict):
            return 0
        seq[k] = e
        states[k + 1] = S2
        visited[S2] = 1
        used[k + 1] = u2
    if depth == plen:
        return 1
    count = 0
    k = plen
    nxt[k] = n - 1
    while k >= plen:
        lab = nxt[k]
        u = used[k]
        low = n - u - 1 if u < n else 0
        if lab < low:
            if k == plen:
                break
            visited[states[k]] = 0
            k -= 1
            continue
        nxt[k] = lab - 1
        S2 = states[k] ^ (1 << lab)
        u2 = u + 1 if lab == n - u - 1 else u
        if k + 1 == L:  # the closing step (depth = L)
            if S2 == S0 and u2 == n:
                seq[k] = lab
                if (not restrict) or is_canonical(n, L, p, states, seq, mp):
                    if count < cap:
                        out_starts[count] = S0
                        for j in range(L):
                            out_seqs[count, j] = seq[j]
                    count += 1
            continue
        if not _step_allowed(n, L, k, S0, p, S2, u2, visited, restrict):
            continue
        seq[k] = lab
        if k + 1 == depth:  # a prefix of ``depth`` steps (depth < L)
            if count < cap:
                for j in range(depth):
                    out_seqs[count, j] = seq[j]
            count += 1
            continue
        states[k + 1] = S2
        visited[S2] = 1
        if hamiltonian and not _strands_free(n, S0, states[k], visited):
            visited[S2] = 0
            continue
        used[k + 1] = u2
        k += 1
        nxt[k] = n - 1
    return count


@jit
def _strands_free(n, S0, left, visited):
    """Can a walk that visits every state still close, after it left ``left``?

    Every state not yet visited must still be entered and left: it needs two neighbours
    that are unvisited or S0 (the closing step); the walk's new head is two flips away from
    each of them. Leaving ``left`` took one such neighbour from each unvisited neighbour of
    ``left``; if one of them has fewer than two left, no completion visits it and closes
    (a necessary condition only: the count is unchanged, only dead ends are cut)."""
    for d in range(n):
        y = left ^ (1 << d)
        if visited[y]:
            continue
        free = 0
        for d2 in range(n):
            z = y ^ (1 << d2)
            if z == S0 or not visited[z]:
                free += 1
        if free < 2:
            return False
    return True


@jit
def permute_state(state, perm):
    """Relabel a state: bit i moves to bit perm[i]."""
    r = 0
    for i in range(perm.shape[0]):
        if (state >> i) & 1:
            r |= 1 << perm[i]
    return r


@jit
def _mark_orbit(visited, sig_pow, j, x):
    """Mark the j states σ^i(x) (i < j) visited if they are new and distinct among
    themselves, and return True; otherwise leave ``visited`` as it was and return False."""
    for i in range(j):
        if visited[sig_pow[i, x]]:
            return False
    distinct = True
    for i in range(j):
        y = sig_pow[i, x]
        if visited[y]:
            distinct = False
        visited[y] = 1
    if not distinct:
        for i in range(j):
            visited[sig_pow[i, x]] = 0
    return distinct


@jit
def symmetric_walks(n, L, pi, r, sigma, g, rgs):
    """Rooted loops (S^0, e) of n elements and length L fixed by (π, rotation r):
    π(S^k) = S^{k+r} for all k, i.e. π(S^0) = S^r and e_{k+r} = π(e_k).

    Walked through the weaker condition e_{k+g} = σ(e_k), S^g = σ(S^0) with
    g = gcd(r, L) and σ = π^a (a r/g ≡ 1 mod L/g), which the caller supplies
    (it follows from the condition above); then S^{k+ig} = σ^i(S^k), so each
    step fixes L/g states at once and all of them must be new. The first g flips
    are free; every completed walk is checked against the original condition.
    With ``pi`` the identity (r = 0, g = L, σ = id) every rooted loop from S^0 = 0
    is counted, and ``rgs`` restricts it to first-flip-descending labels.
    Returns the count over all start states (only S^0 = 0 when ``rgs``).
    """
    j = L // g
    nstates = 1 << n
    # sig_pow[i, x] = σ^i(x) on states; lab_pow[i, e] = σ^i(e) on labels
    sig_pow = np.zeros((j, nstates), np.int64)
    lab_pow = np.zeros((j, n), np.int64)
    for e in range(n):
        lab_pow[0, e] = e
    for i in range(1, j):
        for e in range(n):
            lab_pow[i, e] = sigma[lab_pow[i - 1, e]]
    for i in range(j):
        for x in range(nstates):
            sig_pow[i, x] = permute_state(x, lab_pow[i])
    # σ^j must be the identity on labels (closure with all labels used)
    for e in range(n):
        if sigma[lab_pow[j - 1, e]] != e:
            return 0
    visited = np.zeros(nstates, np.uint8)
    states = np.zeros(L + 1, np.int64)
    seq = np.zeros(L, np.int64)
    nxt = np.zeros(g + 1, np.int64)
    umask = np.zeros(g + 1, np.int64)
    full = (1 << n) - 1
    total = 0
    last_start = 0 if rgs else nstates - 1
    for S0 in range(last_start + 1):
        if not _mark_orbit(visited, sig_pow, j, S0):
            continue
        target = sig_pow[1 % j, S0] if j > 1 else S0
        states[0] = S0
        k = 0
        nxt[0] = n - 1
        umask[0] = 0
        while k >= 0:
            lab = nxt[k]
            if rgs:
                u = popcount(umask[k])
                low = n - u - 1 if u < n else 0
            else:
                low = 0
            if lab < low:
                if k == 0:
                    break
                for i in range(j):
                    visited[sig_pow[i, states[k]]] = 0
                k -= 1
                continue
            nxt[k] = lab - 1
            X = states[k] ^ (1 << lab)
            um = umask[k] | (1 << lab)
            if k + 1 == g:
                if X != target:
                    continue
                seq[k] = lab
                # labels used: the union of σ-orbits of the first g flips
                allm = 0
                for i in range(j):
                    for q in range(g):
                        allm |= 1 << lab_pow[i, seq[q]]
                if allm != full:
                    continue
                # full walk and the original condition
                for i in range(j):
                    for q in range(g):
                        seq_full = lab_pow[i, seq[q]]
                        states[i * g + q + 1] = states[i * g + q] ^ (1 << seq_full)
                if states[L] != S0:
                    continue
                good = permute_state(S0, pi) == states[r % L]
                if good:
                    for q in range(L):
                        eq = lab_pow[q // g, seq[q % g]]
                        q2 = (q + r) % L
                        eq2 = lab_pow[q2 // g, seq[q2 % g]]
                        if eq2 != pi[eq]:
                            good = False
                            break
                if good:
                    total += 1
                continue
            if popcount(X ^ target) > g - k - 1:
                continue
            if rgs and popcount(um ^ full) * 2 + popcount(X ^ target) > g - k - 1:
                continue
            if not _mark_orbit(visited, sig_pow, j, X):
                continue
            seq[k] = lab
            states[k + 1] = X
            umask[k + 1] = um
            k += 1
            nxt[k] = n - 1
        for i in range(j):
            visited[sig_pow[i, S0]] = 0
    return total


@jit
def _bound_row(up, lower, upper, nl, nu):
    """The next free row of ``lower`` (a flip up) or of ``upper`` (down): (row, nl, nu)."""
    if up:
        return lower[nl], nl + 1, nu
    return upper[nu], nl, nu + 1


@jit
def _add_threshold(row, n, i, up, state, factor):
    """row += factor · H_i^±(S), with H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j
    (columns: h^+, h^−, then c_ij row by row without the diagonal)."""
    row[i if up else n + i] += factor
    for j in range(n):
        if j != i:
            col = 2 * n + i * (n - 1) + (j if j < i else j - 1)
            row[col] += -factor if (state >> j) & 1 else factor


@jit
def design_rows(n, start, flips, rule1, lower, upper, selection):
    """Raw design rows of the loop (start, flips): bounds on 2H and selection rows.

    Up step at S (e flips up): lower bounds 2 H_e^+(S) and, for every up element j,
    2 H_j^−(S) (conservative) or H_e^+(S) + H_j^−(S) (``rule1``); selection rows
    H_j^+(S) − H_e^+(S) for every other down j. Down steps mirror this into
    ``upper``. Returns (rows in lower, rows in upper, rows in selection); the
    arrays must have L·n, L·n and L·(n−1) rows (zeroed).
    """
    nl = 0
    nu = 0
    ns = 0
    state = start
    for k in range(flips.shape[0]):
        e = flips[k]
        be = (state >> e) & 1
        up = 1 - be  # 1: e flips up
        sgn = 1 if up else -1
        for j in range(n):
            if j != e and ((state >> j) & 1) == be:  # same kind as e: a rival
                row = selection[ns]
                _add_threshold(row, n, j, up, state, sgn)
                _add_threshold(row, n, e, up, state, -sgn)
                ns += 1
        bound, nl, nu = _bound_row(up, lower, upper, nl, nu)
        _add_threshold(bound, n, e, up, state, 2)
        for j in range(n):
            if ((state >> j) & 1) == be:  # e itself and its rivals
                continue
            bound, nl, nu = _bound_row(up, lower, upper, nl, nu)
            if rule1:
                _add_threshold(bound, n, e, up, state, 1)
                _add_threshold(bound, n, j, 1 - up, state, 1)
            else:
                _add_threshold(bound, n, j, 1 - up, state, 2)
        state ^= 1 << e
    return nl, nu, ns
