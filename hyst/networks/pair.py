"""Two bilinear elements in series: self-loop families SL1–SL6 and their conditions.

States are written (s_1 s_2); as bitmasks bit 0 is element 1, so (+−) = 1,
(−+) = 2. Mapped hysterons (``hyst.networks.mapping``, H = U):
h_i^± = 2 x_i^± ± d_i, c_12 = −d_2, c_21 = −d_1, hence
H_i^±(S) = h_i^± + d_j s_j (j ≠ i).

Families (Supplemental, "Self-loops"; L = 2 with one element, L = 4 with both):

    SL1 (−−)↔(+−)   SL2 (−+)↔(++)   element 1 flips
    SL3 (−−)↔(−+)   SL4 (+−)↔(++)   element 2 flips
    SL5 (−−)→(+−)→(++)→(−+)→(−−)    SL6 (−−)→(−+)→(++)→(+−)→(−−)

(SL1/SL2 and SL5/SL6 as the Supplemental defines them; SL3/SL4 are the
element-2 mirrors of SL1/SL2, consistent with its spin-like discussion where
SL4 has element 2 flipping while element 1 is up.)

Two sets of conditions, both exact integer functions of the quantised
parameters (strict inequalities; comparisons doubled to stay integer):

- ``paper_conditions``: the Supplemental's "Conditions for self-loops": for
  L = 2, d_i < −σ_i^0 and, where the partner state is unconditionally unstable,
  the race condition in that state; for L = 4 the three inequalities with
  W = min(x_2^− − x_1^+, x_1^− − x_2^+) plus the race condition σ_1^0 > σ_2^0
  (SL5) or σ_2^0 > σ_1^0 (SL6).
- ``exact_conditions``: a family exists at some field iff every step of its
  cycle is the rule-1 step of its state on a common open interval of H. Each
  step requires the flipped element to be unstable (a half-line in H) and more
  unstable than the other element: a half-line at the midpoint of their
  thresholds when they move in opposite directions (the race condition of an
  unconditionally unstable state), or an H-independent ordering of their
  thresholds when they move the same way. The family exists iff those
  orderings hold and the largest lower bound is below the smallest upper one.
"""

from __future__ import annotations

import numpy as np

FAMILIES = ("SL1", "SL2", "SL3", "SL4", "SL5", "SL6")
#: The cycle of each family: (state, flipped element) steps, elements 0 and 1.
CYCLES = {
    "SL1": ((0, 0), (1, 0)),
    "SL2": ((2, 0), (3, 0)),
    "SL3": ((0, 1), (2, 1)),
    "SL4": ((1, 1), (3, 1)),
    "SL5": ((0, 0), (1, 1), (3, 0), (2, 1)),
    "SL6": ((0, 1), (2, 0), (3, 1), (1, 0)),
}
#: The family of each cycle by its states from the smallest bitmask (the form of
#: ``TransitionGraph.self_loops`` and ``mechanics.drive_range_attractors``).
CYCLE_FAMILY = {tuple(state for state, _e in steps): family for family, steps in CYCLES.items()}


def _ints(*values):
    return [np.asarray(v, dtype=np.int64) if np.ndim(v) else int(v) for v in values]


def w_gap(x1_minus, x1_plus, x2_minus, x2_plus):
    """W = min(x_2^− − x_1^+, x_1^− − x_2^+) (Supplemental, Eq. for SL6)."""
    return np.minimum(np.subtract(x2_minus, x1_plus), np.subtract(x1_minus, x2_plus))


def paper_conditions(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2, race=True) -> dict:
    """The Supplemental's analytic conditions per family (bool arrays, broadcast).

    Integer (quantised) inputs give exact answers. ``race=False`` drops the L = 4
    race condition σ_1^0 ≷ σ_2^0 (the three inequalities alone).
    """
    x1m, x1p, x2m, x2p, d1, d2 = _ints(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2)
    s1 = x1p - x1m
    s2 = x2p - x2m
    dxc2 = (x2p + x2m) - (x1p + x1m)  # 2 Δx^c
    W = w_gap(x1m, x1p, x2m, x2p)
    out = {
        "SL1": (d1 < -s1) & (~(d1 + d2 < x1m - x2p) | (2 * (d2 - d1) > -dxc2 + 3 * s1 - s2)),
        "SL2": (d1 < -s1) & (~(d1 + d2 < x2m - x1p) | (2 * (d2 - d1) > dxc2 + 3 * s1 - s2)),
        "SL3": (d2 < -s2) & (~(d1 + d2 < x2m - x1p) | (2 * (d1 - d2) > dxc2 + 3 * s2 - s1)),
        "SL4": (d2 < -s2) & (~(d1 + d2 < x1m - x2p) | (2 * (d1 - d2) > -dxc2 + 3 * s2 - s1)),
    }
    sl5 = (d2 - d1 > np.maximum(np.maximum(x1p - x2p, x2m - x1m), s1)) & (d1 + d2 < -s2) & (d1 < W)
    sl6 = (d2 - d1 < -np.maximum(np.maximum(x2p - x1p, x1m - x2m), s2)) & (d1 + d2 < -s1) & (d2 < W)
    out["SL5"] = sl5 & (s1 > s2) if race else sl5
    out["SL6"] = sl6 & (s2 > s1) if race else sl6
    return {k: np.asarray(v, dtype=bool) for k, v in out.items()}


def exact_conditions(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2) -> dict:
    """Necessary and sufficient rule-1 conditions per family for two serial elements
    (bool arrays, exact for integer inputs): ``hysteron_pair_conditions`` of the mapped
    pair h_i^± = 2 x_i^± ± d_i, c_12 = −d_2, c_21 = −d_1."""
    x1m, x1p, x2m, x2p, d1, d2 = _ints(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2)
    return hysteron_pair_conditions(
        2 * x1p + d1, 2 * x1m - d1, 2 * x2p + d2, 2 * x2m - d2, -d2, -d1
    )


def hysteron_pair_conditions(h1_plus, h1_minus, h2_plus, h2_minus, c12, c21) -> dict:
    """Necessary and sufficient rule-1 conditions per family for any two hysterons
    (negative spans allowed): the family is a limit cycle on some open interval of H.

    Thresholds H_i^±(S) = h_i^± − c_ij s_j. Bounds are kept in units of 2H: element e
    (threshold T_e) is unstable for 2H > 2 T_e moving up, 2H < 2 T_e moving down; it
    beats an element j moving the other way for 2H > T_e + T_j (e up) or
    2H < T_e + T_j (e down); against an element moving the same way it must have the
    lower (up) or higher (down) threshold, or the same one and the lower index.
    """
    hp = _ints(h1_plus, h2_plus)
    hm = _ints(h1_minus, h2_minus)
    c = {(0, 1): _ints(c12)[0], (1, 0): _ints(c21)[0]}
    T = {}
    for S in range(4):
        for i in range(2):
            j = 1 - i
            sj = 1 if (S >> j) & 1 else -1
            T[(S, i)] = (hm[i] if (S >> i) & 1 else hp[i]) - c[(i, j)] * sj
    big = np.int64(2**62)
    out = {}
    for name, cycle in CYCLES.items():
        ok = np.asarray(True)
        lo = -big
        hi = big
        for S, e in cycle:
            j = 1 - e
            up_e = not (S >> e) & 1  # e is down in S, so it moves up
            up_j = not (S >> j) & 1
            te, tj = T[(S, e)], T[(S, j)]
            if up_e:
                lo = np.maximum(lo, 2 * te)
            else:
                hi = np.minimum(hi, 2 * te)
            if up_e == up_j:
                lead = (te < tj) if up_e else (te > tj)
                ok = ok & (lead | ((te == tj) & (e < j)))
            elif up_e:
                lo = np.maximum(lo, te + tj)
            else:
                hi = np.minimum(hi, te + tj)
        out[name] = np.asarray(ok & (lo < hi), dtype=bool)
    return out


def behaviour_class(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2, l4):
    """Fig. 3d class per cell, int8 1–4: 2 (ii, strongly active) if a mapped span
    2 (σ_i^0 + d_i) is negative, else 4 (iv, weakly active with an L = 4 self-loop) if one
    occurs (``l4``), else 1 (i) if both elements are passive (d_i > 0), else 3 (iii, weakly
    active, no self-loop). (L = 4 loops also occur inside (ii); the dataset keeps every
    family per cell.)"""
    x1m, x1p, x2m, x2p, d1, d2 = _ints(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2)
    negative = (d1 < -(x1p - x1m)) | (d2 < -(x2p - x2m))
    passive = (d1 > 0) & (d2 > 0)
    return np.where(negative, 2, np.where(l4, 4, np.where(passive, 1, 3))).astype(np.int8)


def l4_race_conditions(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2) -> dict:
    """The race-condition inequalities of the L = 4 loops beyond σ_1^0 > σ_2^0.

    In the unconditionally unstable states (+−) and (−+) both elements are
    unstable and rule 1 flips the one further past its threshold: (+−) moves on to
    (++) only above its midpoint mp(+−) = (H_2^+(+−) + H_1^−(+−))/2 = x_2^+ + x_1^−,
    and (−+) returns to (−−) only below mp(−+) = x_1^+ + x_2^−. SL5 needs one
    field above all of H_1^+(−−), H_2^+(+−), mp(+−) and below all of H_1^−(++),
    H_2^−(−+), mp(−+). The Supplemental keeps the four threshold pairs and
    mp(+−) < mp(−+) (⇔ σ_1^0 > σ_2^0); the four pairs of a midpoint with a
    threshold are:

        R1  mp(+−) < H_1^−(++)   ⇔  d2 − d1 > x_2^+ − x_1^−
        R2  mp(+−) < H_2^−(−+)   ⇔  d1 + d2 < 2 x_2^− − x_2^+ − x_1^−
        R3  H_1^+(−−) < mp(−+)   ⇔  d2 − d1 > x_1^+ − x_2^−
        R4  H_2^+(+−) < mp(−+)   ⇔  d1 + d2 < x_1^+ + x_2^− − 2 x_2^+

    SL6: the same with the elements exchanged. Returns {"SL5": (R1, R2, R3, R4),
    "SL6": (...)} as bool arrays (exact for integer inputs); exact = paper ∧ R1–R4.
    """
    x1m, x1p, x2m, x2p, d1, d2 = _ints(x1_minus, x1_plus, x2_minus, x2_plus, d1, d2)

    def races(am, ap, bm, bp, da, db):
        return tuple(
            np.asarray(v, dtype=bool)
            for v in (
                db - da > bp - am,
                da + db < 2 * bm - bp - am,
                db - da > ap - bm,
                da + db < ap + bm - 2 * bp,
            )
        )

    return {
        "SL5": races(x1m, x1p, x2m, x2p, d1, d2),
        "SL6": races(x2m, x2p, x1m, x1p, d2, d1),
    }
