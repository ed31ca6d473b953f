"""Adapter around the independent PyPI package ``hysteron`` (0.1.0, Keim &
Paulsen) used as a *peer* implementation of rule 1 ("most unstable flips
first") avalanches.

Peer conventions (read from hysteron/hysteron.py)
-------------------------------------------------
* state: float vector of +-1; local field = H + state @ interactions, i.e.
  local_i = H + sum_j s_j * interactions[j, i].  Element i (down) flips up
  when local_i >= Hon[i], (up) flips down when local_i <= Hoff[i].  Hence
  interactions[j, i] = c_ij, Hon = h^+, Hoff = h^- and
  Hon[i] - (state @ interactions)[i] = Hp_i(S) of our model.
* ``evolve_event(state, H_target, rising, ...)`` ramps the field to H_target:
  it repeatedly picks the flippable element with the smallest |field needed|
  (raises DegeneracyError on an exact tie), stops if that field lies beyond
  H_target, else flips it at H_flip = its threshold and calls
  ``stabilize_event(state, H_flip, ...)``.  It raises StabilityError('stuck')
  when the avalanche brings the state back to the pre-event state.
* ``stabilize_event`` at FIXED H = H_flip: instability of a down element is
  local - Hon (if >= 0), of an up element Hoff - local (if >= 0), stable
  elements get -1.0.  It flips the element with the LARGEST instability
  (strict ">" in the scan: lowest index wins on a tie) provided that
  instability is > 0; an instability of exactly 0 (element exactly at its
  threshold) is treated as stable.  It raises DegeneracyError only when the
  tied maximum instability is > 1 (absolute units!), and StabilityError after
  2N flips inside one stabilisation (so avalanches with more than 2N flips,
  counting the triggering flip, are reported as StabilityError even when
  they do terminate).

Driving exactly one event
-------------------------
From a state S (assumed stable before the event), the critical field is found
with the peer's own ``evolve_event(..., find_next_flip=True)`` (H^+(S) when
rising, H^-(S) when falling).  The field is then ramped to just beyond it
(``np.nextafter``), which triggers exactly one avalanche, relaxed by the
peer's ``stabilize_event`` at H = H^+(S) exactly.  If the avalanche ends with
an element exactly at H^+(S) (a tie), the peer's ramp flips it as a further
event at the same field; this is how the peer's stabilisation at exactly H^c
approximates our H^c + 0+.

Two modes:
* ``mode='evolve'``: a single call of the peer's ``evolve_event`` ramp.  In
  pathological exact-tie situations its ``while 1`` loop could in principle
  run forever (numba code, cannot be interrupted), so it is not the default.
* ``mode='stepwise'`` (default): the same ramp loop written out in Python,
  calling the peer's ``evolve_event(find_next_flip=True)`` for the choice of
  the next event and the peer's ``stabilize_event`` for each avalanche, with
  a revisited-state guard (returns STABILITY_ERROR if the ramp would cycle
  forever).  It is a line-by-line mirror of ``evolve_event``'s loop; for
  tie-free inputs both modes give identical answers (tested).

Return value of :func:`peer_avalanche`: the final stable state as an int
bitmask (our convention), or the marker STABILITY_ERROR / DEGENERACY_ERROR.
"""

import functools

import numpy as np
from hysteron import hysteron as _hy

STABILITY_ERROR = "StabilityError"
DEGENERACY_ERROR = "DegeneracyError"

_MAX_EXACT = 2.0**53


def _cache_compiled_peer() -> None:
    """Keep the peer's amplitude search, sweep and symmetric drive in numba's on-disk cache,
    as hyst keeps its own kernels: the package compiles them in every process that calls
    them (7-9 s each), since its decorators do not ask for the cache. The drive
    (``run_event_extended_fast``) is called without a recorder, so that it makes its own
    inside: numba cannot cache a function that takes a jitclass argument (the type's name
    holds the class's address, which differs in every process). The event primitives,
    called with a recorder, still compile once per process. Without a writable cache
    folder, they compile as before."""
    for dispatcher in (_hy.possible_amplitudes, _hy.amplitude_sweep, _hy.run_event_extended_fast):
        try:
            dispatcher.enable_caching()
        except RuntimeError:  # numba found no folder to cache in
            pass


_cache_compiled_peer()


def _state_vector(S, n):
    return np.array([1.0 if (S >> i) & 1 else -1.0 for i in range(n)], dtype=np.float64)


def _state_mask(vec):
    S = 0
    for i, v in enumerate(vec):
        if v > 0:
            S |= 1 << i
    return S


def peer_arrays(hp, hm, c, scale=1.0):
    """(interactions, Hon, Hoff) float64 arrays in the peer's convention.

    interactions[j, i] = c[i][j] * scale, Hon = hp * scale, Hoff = hm * scale.
    Raises ValueError if the float conversion could be inexact (all local
    fields must be exactly representable so that peer and naive agree)."""
    # the integers as they are (object arrays keep any size) for the bound, exactly
    hp, hm, c = (np.asarray(a, dtype=object) for a in (hp, hm, c))
    n = len(hp)
    biggest = max((np.abs(a).max() for a in (hp, hm, c) if a.size), default=0)
    if biggest * abs(scale) * (n + 2) >= _MAX_EXACT:
        raise ValueError("parameters too large for exact float64 arithmetic in the peer")
    # below 2^53 every integer is a float64 exactly; each product is float(x) * scale
    interactions = np.ascontiguousarray(c.reshape(n, n).astype(np.float64).T) * scale
    Hon = hp.astype(np.float64) * scale
    Hoff = hm.astype(np.float64) * scale
    return interactions, Hon, Hoff


def _next_flip(state, rising, interactions, Hon, Hoff, recorder):
    """Peer's field of the next event (H_flip) from `state`, without
    modifying it; +-inf if nothing can flip.  May raise DegeneracyError."""
    target = np.inf if rising else -np.inf
    return _hy.evolve_event(
        state.copy(), target, 1 if rising else 0, interactions, Hon, Hoff, recorder, False, True
    )


def _ramp_stepwise(state, H_target, rising, interactions, Hon, Hoff, recorder):
    """Mirror of the loop of hysteron.evolve_event (find_next_flip=False)
    using the peer's own selection and stabilisation, with a cycle guard."""
    n = len(state)
    seen = set()
    while True:
        key = _state_mask(state)
        if key in seen:
            # evolve_event would loop forever here
            raise _hy.StabilityError("ramp cycles at fixed field (guard)")
        seen.add(key)
        prev_state = state.copy()
        H_flip = _next_flip(state, rising, interactions, Hon, Hoff, recorder)
        if not np.isfinite(H_flip):
            return  # nobody flippable
        if rising and H_flip > H_target:
            return
        if (not rising) and H_flip < H_target:
            return
        # identify the element evolve_event would flip (unique: no degeneracy)
        inter_field = state @ interactions
        to_flip = -1
        for i in range(n):
            if rising and state[i] < 0 and Hon[i] - inter_field[i] == H_flip:
                to_flip = i
                break
            if (not rising) and state[i] > 0 and Hoff[i] - inter_field[i] == H_flip:
                to_flip = i
                break
        if to_flip < 0:  # pragma: no cover - cannot happen
            raise RuntimeError("could not identify the peer's critical element")
        state[to_flip] = 1.0 if rising else -1.0
        _hy.stabilize_event(state, H_flip, interactions, Hon, Hoff, recorder)
        if np.all(state == prev_state):
            raise _hy.StabilityError("Simulation got stuck")


def peer_avalanche(hp, hm, c, S, direction, *, scale=1.0, mode="stepwise"):
    """Run ONE rule-1 avalanche of the peer package.

    hp, hm, c: system in naive.py conventions (ints; floats accepted).
    S: start state (int bitmask), assumed stable just before the event.
    direction: +1 (raise H just above H^+(S)) or -1 (lower H just below
    H^-(S)).
    scale: multiply every parameter by this (use a power of two to stay
    exact).  With scale >= 2 and integer inputs, every nonzero instability is
    >= 2 so the peer's "> 1" degeneracy test catches every exact tie among
    unstable elements; with scale = 1 ties of instability exactly 1 are
    resolved silently by lowest index (which is also naive's tie-break).
    mode: 'stepwise' (default, guarded) or 'evolve' (one raw evolve_event).

    Returns the final state (int) or STABILITY_ERROR / DEGENERACY_ERROR.
    Raises ValueError if there is no element that can flip in `direction`.
    """
    n = len(hp)
    if direction not in (1, -1):
        raise ValueError("direction must be +1 or -1")
    interactions, Hon, Hoff = peer_arrays(hp, hm, c, scale)
    rising = direction > 0
    recorder = _no_recorder()
    state = _state_vector(S, n)
    try:
        H_c = _next_flip(state, rising, interactions, Hon, Hoff, recorder)
        if not np.isfinite(H_c):
            raise ValueError("no element can flip in this direction (infinite threshold)")
        H_target = np.nextafter(H_c, np.inf if rising else -np.inf)
        if mode == "evolve":
            _hy.evolve_event(
                state, H_target, 1 if rising else 0, interactions, Hon, Hoff, recorder, False, False
            )
        elif mode == "stepwise":
            _ramp_stepwise(state, H_target, rising, interactions, Hon, Hoff, recorder)
        else:
            raise ValueError(f"unknown mode {mode!r}")
    except _hy.StabilityError:
        return STABILITY_ERROR
    except _hy.DegeneracyError:
        return DEGENERACY_ERROR
    return _state_mask(state)


def critical_field(hp, hm, c, S, direction, *, scale=1.0):
    """The peer's critical field H^+(S) (direction +1) or H^-(S) (-1), in
    units of the inputs (divided back by `scale`); +-inf if none.  May
    return DEGENERACY_ERROR on an exactly tied critical element."""
    n = len(hp)
    interactions, Hon, Hoff = peer_arrays(hp, hm, c, scale)
    try:
        H = _next_flip(_state_vector(S, n), direction > 0, interactions, Hon, Hoff, _no_recorder())
    except _hy.DegeneracyError:
        return DEGENERACY_ERROR
    return H / scale


# ---- the peer's cyclic drive: symmetric ±A from saturation, amplitudes, amplitude sweep ----
#
# ``run_event_extended_fast`` starts from all −1 at H = −∞, ramps up to 0 (x_0), then
# +A, −A, 0 per cycle, and returns the period of the first repeat of the state at 0 (ramps
# include a threshold exactly at their target). ``possible_amplitudes`` takes the finite
# |H^±(S)| of all 2^N states, sorted and distinct, and returns the midpoints between
# neighbours; ``amplitude_sweep`` drives at each midpoint but the first and returns the
# first period > 1 with its amplitude (or the last period and amplitude).


def peer_amplitudes(hp, hm, c):
    """The peer's distinct amplitudes (midpoints, float) or DEGENERACY_ERROR."""
    interactions, Hon, Hoff = peer_arrays(hp, hm, c)
    states = _hy.compute_possible_states(len(hp))
    try:
        return _hy.possible_amplitudes(interactions, Hon, Hoff, states)
    except _hy.DegeneracyError:
        return DEGENERACY_ERROR


def peer_cycles_at(hp, hm, c, amplitudes) -> list:
    """The peer's symmetric drive of one system at each of ``amplitudes``: for each, (period,
    the state at H = 0 where the orbit closed, as an int bitmask), or STABILITY_ERROR /
    DEGENERACY_ERROR. The parameters are converted to the peer's arrays once: at N ≤ 6 the
    conversion costs twice its drive. No recorder is passed: the drive makes its own, which
    records nothing, and so it loads from numba's cache."""
    interactions, Hon, Hoff = peer_arrays(hp, hm, c)
    found = []
    for amplitude in amplitudes:
        state = -np.ones(len(hp))
        try:
            T = _hy.run_event_extended_fast(
                state, interactions, Hon, Hoff, float(amplitude), None, -np.inf, False, True
            )
        except _hy.StabilityError:
            found.append(STABILITY_ERROR)
            continue
        except _hy.DegeneracyError:
            found.append(DEGENERACY_ERROR)
            continue
        found.append((int(T), _state_mask(state)))
    return found


@functools.cache
def _no_recorder():
    """The peer's ``Recorder(0)``, which records nothing and keeps no state (a jitclass:
    made once, 20 µs each)."""
    return _hy.Recorder(0)


def peer_sweep(hp, hm, c):
    """The peer's ``amplitude_sweep``: (period, amplitude) or STABILITY_ERROR /
    DEGENERACY_ERROR."""
    interactions, Hon, Hoff = peer_arrays(hp, hm, c)
    states = _hy.compute_possible_states(len(hp))
    try:
        T, A = _hy.amplitude_sweep(interactions, Hon, Hoff, states)
    except _hy.StabilityError:
        return STABILITY_ERROR
    except _hy.DegeneracyError:
        return DEGENERACY_ERROR
    return int(T), float(A)


def peer_transient(hp, hm, c, amplitude):
    """The peer's symmetric drive at ``amplitude`` cycle by cycle, with its own event
    primitives in the order of ``run_event_extended_fast`` (from all −1 at H = −∞ up to 0:
    x_0; then +A, −A, 0 per cycle: x_k), keeping every x_k: (transient τ, period T), the
    first repeat x_{τ+T} = x_τ; or STABILITY_ERROR / DEGENERACY_ERROR, or None where no
    state repeats within the peer's 2^N + 1 cycles."""
    interactions, Hon, Hoff = peer_arrays(hp, hm, c)
    state = -np.ones(len(hp))
    recorder = _no_recorder()
    A = float(amplitude)
    history = []
    try:
        _hy.stabilize_event(state, -np.inf, interactions, Hon, Hoff, recorder)
        _hy.evolve_event(state, 0.0, 1, interactions, Hon, Hoff, recorder, False, False)
        history.append(state.copy())
        for _ in range(2 ** len(hp) + 1):
            _hy.evolve_event(state, A, 1, interactions, Hon, Hoff, recorder, False, False)
            _hy.evolve_event(state, -A, 0, interactions, Hon, Hoff, recorder, False, False)
            _hy.evolve_event(state, 0.0, 1, interactions, Hon, Hoff, recorder, False, False)
            for t, x in enumerate(history):
                if np.array_equal(x, state):
                    return t, len(history) - t
            history.append(state.copy())
    except _hy.StabilityError:
        return STABILITY_ERROR
    except _hy.DegeneracyError:
        return DEGENERACY_ERROR
    return None
