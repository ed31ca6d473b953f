"""hyst's symmetric cyclic drive, distinct amplitudes and amplitude sweep against the peer
package ``hysteron`` (Keim & Paulsen) on random instances of every ensemble, where the peer
applies: rule 1, no tie, no self-loop along the drive. Where the peer raises an error, what
hyst found there is counted (a self-loop and its L, or an avalanche longer than the 2N flips
the peer's stabilisation allows).

``pytest -m slow tests/test_peer_protocols.py -s`` runs 10,000 instances and prints the
counts."""

from collections import Counter

import numpy as np
import pytest

from hyst.kernels import codes, protocol_batches
from hyst.kernels import protocols as kp
from hyst.model import protocols
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.reference import peer


def _mask(spins) -> int:
    return sum(1 << i for i, x in enumerate(spins) if x > 0)


def cross_check(sy, tally: Counter, states: bool):
    """Compare one system with the peer and count what was compared (``tally``); an
    assertion fails on any disagreement where the peer applies. ``states``: also compare
    the state where each orbit closed (a drive per amplitude)."""
    hp, hm, c = (np.asarray(a[0], np.int64) for a in (sy.h_plus, sy.h_minus, sy.couplings))
    N = len(hp)
    ours = protocols.distinct_amplitudes(sy)
    theirs = peer.peer_amplitudes(hp, hm, c)
    sweep = protocols.amplitude_sweep(sy, "1", first_only=False)
    if isinstance(theirs, str) or sweep.ties:
        assert isinstance(theirs, str) and sweep.ties > 0 or not isinstance(theirs, str)
        tally["excluded: ties"] += 1
        return
    mids = [(int(a) + int(b)) / 2 for a, b in zip(ours[:-1], ours[1:], strict=True)]
    assert mids == theirs.tolist()
    tally["same distinct amplitudes"] += 1
    periods = []  # the peer's period at each midpoint, None where it raised
    for j, t in enumerate(peer.peer_cycles_at(hp, hm, c, mids)):
        A = int(ours[j])
        if t == peer.STABILITY_ERROR:
            d = protocols.symmetric_drive(sy, A, "1")
            if d.outcome == "self_loop":
                tally[f"peer StabilityError: hyst self-loop L={d.loop.L}"] += 1
            else:
                assert d.outcome == "orbit" and d.events[:, 4].max() > 2 * N
                tally["peer StabilityError: hyst avalanche > 2N flips"] += 1
            periods.append(None)
            continue
        assert t != peer.DEGENERACY_ERROR
        T, closed = t
        assert sweep.period_at(A) == T
        tally["amplitudes: same period"] += 1
        if states:
            d = protocols.symmetric_drive(sy, A, "1")
            assert d.period == T and _mask(d.states[d.transient]) == closed
            tally["amplitudes: same state where the orbit closed"] += 1
        periods.append(T)
    if len(mids) < 2:
        tally["no peer sweep (fewer than two amplitudes)"] += 1
        return
    result = peer.peer_sweep(hp, hm, c)
    # the peer drives the midpoints but the first, in order, and stops at an error or T > 1
    first = next((j for j in range(1, len(mids)) if periods[j] is None or periods[j] > 1), None)
    if result == peer.STABILITY_ERROR:
        assert first is not None and periods[first] is None
        tally["sweep: peer StabilityError before T > 1"] += 1
        return
    T, A = result
    j = first if first is not None else len(mids) - 1
    assert (T, A) == (periods[j], mids[j])
    critical = sweep.critical_amplitude
    if T > 1:
        assert critical is not None and critical <= int(ours[j])
        if critical == int(ours[j]):
            tally["sweep: same smallest amplitude with T > 1"] += 1
        else:  # the peer never drives the first interval, nor past a self-loop
            tally["sweep: hyst's T > 1 below the peer's (an interval the peer skips)"] += 1
    else:
        assert critical is None or critical < int(ours[1]) or periods.count(None)
        tally[
            "sweep: same, no T > 1" if critical is None else "sweep: hyst T > 1 the peer skips"
        ] += 1
    tally["instances where the peer applies throughout"] += periods.count(None) == 0


def multiperiodic(count: int, rng) -> list:
    """``count`` systems with T > 1 at some amplitude (weak asymmetry, N = 6, 7, NJ0 = 10,
    where about 1 % are), selected by hyst's sweep: the peer checks them independently."""
    found = []
    while len(found) < count:
        sy = sample_systems("weak", "hysteron", int(rng.integers(6, 8)), 10.0, 2000, rng)
        out = np.zeros((sy.samples, len(kp.SWEEP_SUMMARY_COLUMNS)), np.int64)
        protocol_batches.sweep_batch.serial(sy.kernel_batch(), codes.RULE_1, 100_000, True, 1, out)
        found += [sy[k] for k in np.nonzero(out[:, kp.SS_CRITICAL] >= 0)[0]]
    return found[:count]


def run(instances: int, seed: int, states: bool, selected: int = 0) -> Counter:
    """``instances`` random systems of every ensemble, N = 2 … 6, and ``selected``
    multiperiodic ones."""
    rng = np.random.default_rng(seed)
    tally = Counter()
    for sy in multiperiodic(selected, rng):
        cross_check(sy, tally, states)
        tally["instances selected with T > 1"] += 1
    for _ in range(instances):
        N = int(rng.integers(2, 7))
        sy = sample_systems(
            str(rng.choice(list(COUPLING_ENSEMBLES))),
            str(rng.choice(list(SPAN_ENSEMBLES))),
            N,
            float(10 ** rng.uniform(-1, 2)),
            1,
            rng,
        )
        cross_check(sy, tally, states)
        tally["instances"] += 1
    return tally


def test_symmetric_drive_agrees_with_the_peer_on_300_instances():
    tally = run(300, 2029, states=True, selected=20)
    print(dict(tally))
    assert tally["same distinct amplitudes"] > 250
    assert tally["instances where the peer applies throughout"] > 200
    assert tally["sweep: same smallest amplitude with T > 1"] > 10


@pytest.mark.slow
def test_symmetric_drive_agrees_with_the_peer_on_10000_instances():
    tally = run(10_000, 29, states=True, selected=500)
    print(dict(sorted(tally.items())))
    assert tally["instances"] == 10_000


_PEER_CACHE_PROBE = """
import json
import numpy as np
from hyst.reference import peer
drive = peer._hy.run_event_extended_fast
hp, hm = np.array([3, 5, 7]), np.array([-3, -2, -1])
cycles = peer.peer_cycles_at(hp, hm, np.zeros((3, 3), np.int64), [4.0])
print(json.dumps({
    "cycles": cycles,
    "signatures": [str(sig) for sig in drive.signatures],
    "hits": sum(drive.stats.cache_hits.values()),
    "misses": sum(drive.stats.cache_misses.values()),
}))
"""


def test_the_peers_compiled_search_sweep_and_drive_load_from_numbas_cache():
    """The peer's amplitude search, sweep and symmetric drive are kept in numba's on-disk
    cache (its package does not ask for it), so that each test process loads them instead of
    compiling them; the drive is called with no jitclass argument, whose type numba cannot
    find again in another process's cache. Checked in two fresh processes, whatever ran
    before in this one: the first loads or compiles and saves the drive, the second loads it
    and compiles nothing."""
    import json
    import subprocess
    import sys

    from numba.core.caching import FunctionCache

    for dispatcher in (peer._hy.possible_amplitudes, peer._hy.amplitude_sweep):
        assert isinstance(dispatcher._cache, FunctionCache)
    runs = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", _PEER_CACHE_PROBE],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    first, second = runs
    for probe in runs:
        assert probe["cycles"] == [[1, 0]]
        assert probe["signatures"] and not any("jitclass" in s for s in probe["signatures"])
    assert first["hits"] + first["misses"] >= 1
    assert second["hits"] >= 1 and second["misses"] == 0
