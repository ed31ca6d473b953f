"""Transients τ and periods T of the symmetric cyclic drive at every amplitude (the
amplitude sweep behind groups multiperiodic and periods) against the peer package
``hysteron`` (Keim & Paulsen), driven cycle by cycle with its own event primitives, on
random instances of every ensemble where the peer applies (rule 1, no tie), and on systems
selected for periods T > 1, odd ones among them."""

from collections import Counter

import numpy as np

from hyst.kernels import codes, protocol_batches
from hyst.kernels import protocols as kp
from hyst.model import protocols
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.reference import peer


def _summary(sy) -> dict:
    out = np.zeros((1, len(kp.SWEEP_SUMMARY_COLUMNS)), np.int64)
    protocol_batches.sweep_batch.serial(sy.kernel_batch(), codes.RULE_1, 100_000, False, 1, out)
    return dict(zip(kp.SWEEP_SUMMARY_COLUMNS, out[0].tolist(), strict=True))


def cross_check(sy, tally: Counter) -> None:
    """τ and T at every distinct amplitude where the peer applies equal the peer's; the
    sweep's summary (period mask, largest transient, self-loop count) says what its rows
    say, a self-loop never counted as a period."""
    hp, hm, c = (np.asarray(a[0], np.int64) for a in (sy.h_plus, sy.h_minus, sy.couplings))
    sweep = protocols.amplitude_sweep(sy, "1", first_only=False)
    row = _summary(sy)
    orbit = np.array([o == "orbit" for o in sweep.outcomes], bool)
    mask = 0
    for T in sweep.periods[orbit]:
        mask |= 1 << min(int(T), kp.PERIOD_MASK_OVERFLOW)
    assert row["period_mask"] == mask
    assert row["largest_transient"] == (int(sweep.transients[orbit].max()) if orbit.any() else -1)
    assert row["loops"] == sum(o == "self_loop" for o in sweep.outcomes)
    amps = protocols.distinct_amplitudes(sy)
    theirs = peer.peer_amplitudes(hp, hm, c)
    if isinstance(theirs, str) or sweep.ties:
        tally["excluded: ties"] += 1
        return
    for j in range(len(amps) - 1):
        A, mid = int(amps[j]), (int(amps[j]) + int(amps[j + 1])) / 2
        result = peer.peer_transient(hp, hm, c, mid)
        q = int(np.searchsorted(sweep.amplitudes, A, side="right")) - 1
        if result == peer.STABILITY_ERROR:
            tally["peer StabilityError"] += 1
            continue
        assert result not in (peer.DEGENERACY_ERROR, None)
        assert sweep.outcomes[q] == "orbit"
        tau, T = result
        assert (int(sweep.transients[q]), int(sweep.periods[q])) == (tau, T), (A, tau, T)
        tally["amplitudes: same tau and T"] += 1
        tally[f"amplitudes: T = {T}"] += 1
        tally["amplitudes: tau > 0"] += tau > 0
        tally["amplitudes: odd T >= 3"] += T >= 3 and T % 2 == 1


def selected(count: int, rng, odd: bool) -> list:
    """``count`` systems (weak asymmetry, N = 6, 7, N J0 = 10) whose sweep has an orbit of
    period T > 1 (``odd``: an odd T >= 3) at some amplitude, selected by hyst's sweep: the
    peer checks them independently."""
    found = []
    bits = sum(1 << T for T in range(3, 63, 2)) if odd else ~3
    while len(found) < count:
        sy = sample_systems("weak", "hysteron", int(rng.integers(6, 8)), 10.0, 4000, rng)
        out = np.zeros((sy.samples, len(kp.SWEEP_SUMMARY_COLUMNS)), np.int64)
        protocol_batches.sweep_batch(sy.kernel_batch(), codes.RULE_1, 100_000, False, 64, out)
        found += [sy[k] for k in np.nonzero(out[:, kp.SS_PERIOD_MASK] & bits)[0]]
    return found[:count]


def run(instances: int, seed: int, multi: int, odd: int) -> Counter:
    rng = np.random.default_rng(seed)
    tally = Counter()
    for sy in selected(multi, rng, odd=False) + selected(odd, rng, odd=True):
        cross_check(sy, tally)
        tally["instances selected"] += 1
    for _ in range(instances):
        sy = sample_systems(
            str(rng.choice(list(COUPLING_ENSEMBLES))),
            str(rng.choice(list(SPAN_ENSEMBLES))),
            int(rng.integers(2, 7)),
            float(10 ** rng.uniform(-1, 2)),
            1,
            rng,
        )
        cross_check(sy, tally)
        tally["instances"] += 1
    return tally


def test_transients_and_periods_agree_with_the_peer():
    tally = run(400, 45, multi=20, odd=5)
    print(dict(sorted(tally.items())))
    assert tally["amplitudes: same tau and T"] > 1000
    assert tally["amplitudes: tau > 0"] > 50
    assert tally["amplitudes: odd T >= 3"] > 0
    assert tally["amplitudes: T = 2"] > 0
