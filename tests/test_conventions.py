"""The converters of ``hyst.System`` to and from the field's other conventions: the peer package
``hysteron`` (Keim & Paulsen: spins ±1, ``state @ interactions``, self-couplings on the
diagonal) and states 0/1 (U_i^±(S) = u_i^± − Σ_j J_ij n_j). Round trips are exact; state
by state the thresholds are those of the other convention; driven with the symmetric drive
and the amplitude sweep, hyst and the peer give the same periods and states on random
instances whose self-couplings the converters fold into the thresholds."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import hyst
from hyst.model.relax import StateTables
from hyst.model.systems import quantize

hy = pytest.importorskip("hysteron").hysteron


def _dyadic_system(rng, N: int) -> hyst.System:
    """A random system on the grid of 2**-10 field units (every conversion exact)."""
    grid = 2.0**-10
    hp = rng.integers(-1000, 1000, N) * grid
    hm = hp - rng.integers(-300, 1000, N) * grid
    c = rng.integers(-800, 800, (N, N)) * grid
    np.fill_diagonal(c, 0)
    return hyst.System(hp, hm, c)


@pytest.mark.parametrize("N", [2, 3, 5, 8])
def test_round_trips_are_exact(N):
    rng = np.random.default_rng(N)
    for _ in range(20):
        sy = _dyadic_system(rng, N)
        assert hyst.System.from_hysteron(*sy.to_hysteron()) == sy
        assert hyst.System.from_zero_one(*sy.to_zero_one()) == sy
        interactions, Hon, Hoff = sy.to_hysteron()
        assert np.array_equal(interactions, sy.couplings.T) and not np.diag(interactions).any()
        assert np.array_equal(Hon, sy.h_plus) and np.array_equal(Hoff, sy.h_minus)


def _bits(S: int, N: int) -> np.ndarray:
    return (S >> np.arange(N)) & 1


def _peer_system(rng, N: int):
    """Random integer parameters of the peer with self-couplings on the diagonal, spans that
    stay positive once they are folded in (the peer assumes Hon > Hoff)."""
    Hon = rng.integers(-1000, 1000, N).astype(float)
    Hoff = Hon - rng.integers(200, 1000, N)
    J = rng.integers(-400, 400, (N, N)).astype(float)
    J[np.diag_indices(N)] = rng.integers(-90, 90, N)
    return J, Hon, Hoff


def test_thresholds_are_the_peers_and_the_zero_one_conventions_state_by_state():
    rng = np.random.default_rng(7)
    for _ in range(40):
        N = int(rng.integers(2, 6))
        J, Hon, Hoff = _peer_system(rng, N)
        sy = hyst.System.from_hysteron(J, Hon, Hoff)
        tables = StateTables(sy.systems)
        for S in range(1 << N):
            s = 2.0 * _bits(S, N) - 1
            # the peer's own next flip from S: the state thresholds H^+(S) and H^-(S)
            for rising, ours in ((1, tables.hplus[S]), (0, tables.hminus[S])):
                try:
                    theirs = hy.evolve_event(
                        s.copy(), np.inf if rising else -np.inf, rising, J, Hon, Hoff,
                        hy.Recorder(0), False, True,
                    )  # fmt: skip
                except hy.DegeneracyError:
                    continue
                if np.isfinite(theirs):
                    assert quantize(theirs) == ours
        # states 0/1 with self-couplings: U_i^±(S) = u_i^± − Σ_j J_ij n_j, element by element
        u_plus = rng.integers(-1000, 1000, N).astype(float)
        u_minus = u_plus - rng.integers(-300, 1000, N)
        J01 = 2.0 * rng.integers(-400, 400, (N, N))
        sy01 = hyst.System.from_zero_one(u_plus, u_minus, J01)
        tables = StateTables(sy01.systems)
        for S in range(1 << N):
            n = _bits(S, N)
            U_plus, U_minus = u_plus - J01 @ n, u_minus - J01 @ n
            H_plus = sy01.systems.h_plus[0] - tables.F[S]
            H_minus = sy01.systems.h_minus[0] - tables.F[S]
            down, up = n == 0, n == 1  # the thresholds that apply in S
            assert np.array_equal(H_plus[down], quantize(U_plus[down]))
            assert np.array_equal(H_minus[up], quantize(U_minus[up]))


def _compare_drives(sy: hyst.System, J, Hon, Hoff, tally: Counter) -> None:
    """The symmetric drive at the peer's amplitudes and its amplitude sweep, hyst against
    the peer, where the peer decides (no tie, no error)."""
    N = sy.N
    try:
        mids = hy.possible_amplitudes(J, Hon, Hoff, hy.compute_possible_states(N))
    except hy.DegeneracyError:
        tally["peer: tied thresholds"] += 1
        return
    for A in mids[:: max(1, len(mids) // 4)]:
        state = -np.ones(N)
        try:
            T = hy.run_event_extended_fast(
                state, J, Hon, Hoff, float(A), hy.Recorder(0), -np.inf, False, True
            )
        except (hy.StabilityError, hy.DegeneracyError) as err:
            tally[f"peer: {type(err).__name__}"] += 1
            continue
        d = sy.symmetric_drive(float(A))
        if d.attrs["ties"]:
            tally["hyst: tie"] += 1
            continue
        assert d.attrs["outcome"] == "orbit" and d.attrs["period"] == T
        closed = int(d.state.values[d.attrs["transient"]])
        assert closed == sum(1 << i for i in range(N) if state[i] > 0)
        tally["same period and state"] += 1
    try:
        T, A = hy.amplitude_sweep(J, Hon, Hoff, hy.compute_possible_states(N))
    except (hy.StabilityError, hy.DegeneracyError):
        return
    if T > 1:  # the peer's first amplitude with T > 1: hyst's T there is the same
        assert sy.symmetric_drive(float(A)).attrs["period"] == T
        A_c = sy.amplitude_sweep().attrs["critical_amplitude"]
        assert A_c <= A  # hyst also drives the first interval, which the peer skips
        tally["sweep: same period at the peer's critical amplitude"] += 1


def test_driven_responses_agree_with_the_peer_with_self_couplings_folded():
    rng = np.random.default_rng(2027)
    tally = Counter()
    for _ in range(300):
        N = int(rng.integers(2, 7))
        J, Hon, Hoff = _peer_system(rng, N)
        _compare_drives(hyst.System.from_hysteron(J, Hon, Hoff), J, Hon, Hoff, tally)
    print(dict(tally))
    assert tally["same period and state"] > 1000


def test_driven_responses_agree_with_the_peer_from_states_zero_one():
    """A system written with states 0/1 (self-couplings J_ii included) is given to the peer
    by n_j = (1 + s_j)/2, the self-couplings staying on its diagonal: interactions[j, i] =
    J_ij / 2, Hon_i = u_i^+ − ½ Σ_j J_ij, Hoff_i = u_i^− − ½ Σ_j J_ij."""
    rng = np.random.default_rng(11)
    tally = Counter()
    for _ in range(200):
        N = int(rng.integers(2, 7))
        u_plus = rng.integers(-1000, 1000, N).astype(float)
        J = 2.0 * rng.integers(-300, 300, (N, N))
        J[np.diag_indices(N)] = 2 * rng.integers(-45, 45, N)
        u_minus = u_plus - rng.integers(200, 1000, N)
        half = J.sum(axis=1) / 2
        peer = (np.ascontiguousarray(J.T / 2), u_plus - half, u_minus - half)
        _compare_drives(hyst.System.from_zero_one(u_plus, u_minus, J), *peer, tally)
    print(dict(tally))
    assert tally["same period and state"] > 600


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: hyst.System.from_hysteron([[0, 1]], [0], [0]), r"^interactions: must be a square"),
        (lambda: hyst.System.from_hysteron(np.zeros((2, 2)), [0], [0, 0]), r"^Hon: must have"),
        (lambda: hyst.System.from_hysteron(np.zeros((2, 2)), [0, 0], [0, np.nan]), r"^Hoff\[1\]"),
        (lambda: hyst.System.from_zero_one([0, 0], [0, 0], [[0, "x"], [0, 0]]), r"^J: not a"),
        (lambda: hyst.System.from_zero_one([0], [0, 0], np.zeros((2, 2))), r"^u_plus: must have"),
    ],
)
def test_bad_parameters_of_another_convention_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()
