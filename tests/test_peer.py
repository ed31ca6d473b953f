"""hyst's rule-1 avalanches against the peer package ``hysteron`` (Keim) on random
instances of every ensemble: the final states must agree wherever the peer
can decide. The peer gives up after 2N flips (StabilityError) and cannot tell a
long avalanche from a self-loop: those cases are counted separately."""

import numpy as np

from hyst.model.ensembles import sample_systems
from hyst.model.relax import StateTables
from hyst.model.systems import INF
from hyst.reference import peer


def test_rule1_avalanches_agree_with_peer_on_1000_instances():
    rng = np.random.default_rng(2026)
    tally = {"agree": 0, "self_loop": 0, "long": 0, "degenerate": 0}
    instances = 0
    ensembles = ["random", "weak", "symmetric", "ferro", "columns", "rows"]
    while instances < 1000:
        N = int(rng.integers(2, 8))
        sy = sample_systems(
            str(rng.choice(ensembles)),
            str(rng.choice(["hysteron", "spin", "equal"])),
            N,
            float(10 ** rng.uniform(-1, 2)),
            1,
            rng,
        )
        tables = StateTables(sy)
        stable = [S for S in range(1 << N) if tables.hminus[S] < tables.hplus[S]]
        S = int(rng.choice(stable))
        hp, hm, c = (a[0].tolist() for a in (sy.h_plus, sy.h_minus, sy.couplings))
        for direction in (+1, -1):
            H = tables.hplus[S] if direction > 0 else tables.hminus[S]
            if abs(H) >= INF:
                continue
            ours = tables.relax(S, (int(H), direction), "1")
            theirs = peer.peer_avalanche(hp, hm, c, S, direction)
            assert theirs != peer.DEGENERACY_ERROR
            if theirs == peer.STABILITY_ERROR:
                assert ours.outcome == "self_loop" or ours.flips > 2 * N
                tally["self_loop" if ours.outcome == "self_loop" else "long"] += 1
            else:
                assert ours.outcome == "stable" and ours.final_state == theirs
                tally["agree"] += 1
        instances += 1
    assert tally["agree"] > 1000 and tally["self_loop"] > 20
    print(f"peer cross-check on {instances} instances: {tally}")
