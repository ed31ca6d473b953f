"""Two coupled hysterons (Supplemental, "N = 2 coupled hysterons"): systems and the analytic
region of L = 4 self-loops.

Midpoints h_1^c = −Δh^c/2, h_2^c = +Δh^c/2, equal spans σ, couplings c12, c21.
An L = 4 self-loop of the two elements occurs at some H iff (Supplemental)

    c12 c21 < 0,   |c12| > σ/2,   |c21| > σ/2,   |c12 − c21| > |Δh^c + σ|

(σ = 0: binary spins, c12 c21 < 0 and |c12 − c21| > |Δh^c|).
"""

from __future__ import annotations

import numpy as np

from hyst.model.systems import Systems, quantize


def pair_systems(
    sigma: float, delta_h: float, c_max: float, samples: int, rng: np.random.Generator
) -> Systems:
    """``samples`` two-element systems with equal spans ``sigma``, midpoints ∓Δh^c/2 and
    c12, c21 ~ U[−c_max, c_max] (drawn in that order from ``rng``)."""
    c = np.zeros((samples, 2, 2), np.int64)
    c[:, 0, 1] = quantize(rng.uniform(-c_max, c_max, samples))
    c[:, 1, 0] = quantize(rng.uniform(-c_max, c_max, samples))
    mid = quantize(np.array([-delta_h / 2, delta_h / 2]))
    half = quantize(sigma / 2)
    hp = np.broadcast_to(mid + half, (samples, 2)).copy()
    hm = np.broadcast_to(mid - half, (samples, 2)).copy()
    return Systems(hp, hm, c)


def l4_condition(c12, c21, sigma: float, delta_h: float) -> np.ndarray:
    """The Supplemental's condition for an L = 4 self-loop of two elements (elementwise)."""
    c12, c21 = np.asarray(c12, float), np.asarray(c21, float)
    return (
        (c12 * c21 < 0)
        & (np.abs(c12 - c21) > abs(delta_h + sigma))
        & (np.abs(c12) > sigma / 2)
        & (np.abs(c21) > sigma / 2)
    )


def _clip(poly: list, a: float, b: float, c: float) -> list:
    """Sutherland–Hodgman: the part of a convex polygon with a·x + b·y ≤ c."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if fp * fq < 0:
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def l4_region_polygons(sigma: float, delta_h: float, lim: float) -> list[np.ndarray]:
    """Polygons (within the box |c12|, |c21| ≤ lim) where :func:`l4_condition` holds: one for
    c12 > 0 > c21 and its mirror for c12 < 0 < c21."""
    d = abs(delta_h + sigma)
    s = sigma / 2.0
    box = [(-lim, -lim), (lim, -lim), (lim, lim), (-lim, lim)]
    out = []
    # c12 >= s, c21 <= -s, c12 - c21 >= d
    p = _clip(_clip(_clip(box, -1, 0, -s), 0, 1, -s), -1, 1, -d)
    if len(p) >= 3:
        out.append(np.asarray(p))
    # c12 <= -s, c21 >= s, c21 - c12 >= d
    p = _clip(_clip(_clip(box, 1, 0, -s), 0, -1, -s), 1, -1, -d)
    if len(p) >= 3:
        out.append(np.asarray(p))
    return out
