"""Random serial chains for the network tests (numpy generators and a hypothesis strategy).

Kinds: ``passive`` (every d_i > 0), ``active`` (every d_i < 0), ``mixed`` (both signs when N >= 2);
spans: ``spin`` (x_i^+ = x_i^−) or ``hysteretic`` (σ_i^0 ~ U[0, 1]). On the
``coarse`` grid every parameter is a multiple of 1/8, so exact ties (equal
thresholds, margins exactly equal) occur and are exercised; otherwise the
parameters are quantised uniform floats.
"""

import numpy as np
from hypothesis import strategies as st

from hyst.networks.elements import SerialChains

KINDS = ("passive", "active", "mixed")
SPANS = ("spin", "hysteretic")


def _values(rng, low, high, size, coarse):
    if coarse:
        return rng.integers(int(low * 8), int(high * 8), size, endpoint=True) / 8.0
    return rng.uniform(low, high, size)


def draw_chain(rng, N, kind, spans, coarse=False, spring=None) -> SerialChains:
    """One chain of N elements of the given kind and spans."""
    xc = _values(rng, -1.0, 1.0, N, coarse)
    sigma0 = np.zeros(N) if spans == "spin" else _values(rng, 0.0, 1.0, N, coarse)
    size = _values(rng, 0.125, 2.0, N, coarse)
    if kind == "passive":
        sign = np.ones(N)
    elif kind == "active":
        sign = -np.ones(N)
    elif N == 1:
        sign = rng.choice([-1.0, 1.0], 1)
    else:
        sign = rng.permutation(np.r_[1.0, -1.0, rng.choice([-1.0, 1.0], N - 2)])
    return SerialChains.from_floats(xc - sigma0 / 2, xc + sigma0 / 2, sign * size, spring)


@st.composite
def chains(draw, min_N=2, max_N=8, springs=False):
    """(chain, description) with a kind, spans, grid and optional spring drawn too."""
    N = draw(st.integers(min_N, max_N))
    kind = draw(st.sampled_from(KINDS))
    spans = draw(st.sampled_from(SPANS))
    coarse = draw(st.booleans())
    spring = draw(st.sampled_from([None, 1, 2, "1/2", "3/2"])) if springs else None
    seed = draw(st.integers(0, 2**32 - 1))
    chain = draw_chain(np.random.default_rng(seed), N, kind, spans, coarse, spring)
    return chain, f"N={N} {kind} {spans} coarse={coarse} spring={spring} seed={seed}"
