"""The compiled coupling streams (hyst.kernels.streams): SFC64 against numpy's, Lemire's
bounded draw against an exact big-integer reference, uniformity, and independence of
the systems' streams."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from hyst.kernels.streams import fill_uniform, sfc64_raw
from hyst.model.ensembles import uniform_quanta_per_system
from hyst.model.systems import quantize

words = st.integers(0, 2**64 - 1)
MASK = 2**64 - 1


def reference_stream(k0, k1, k2):
    """SFC64 in Python integers, written from the algorithm (12 outputs discarded)."""
    a, b, c, w = k0, k1, k2, 1
    n = 0
    while True:
        x = (a + b + w) & MASK
        w = (w + 1) & MASK
        a = b ^ (b >> 11)
        b = (c + (c << 3)) & MASK
        c = ((((c << 24) | (c >> 40)) & MASK) + x) & MASK
        n += 1
        if n > 12:
            yield x


def reference_fill(keys, low, span, m):
    """Lemire's method in exact integers: v = (x span) >> 64, x rejected while
    (x span) mod 2^64 < 2^64 mod span."""
    out = np.empty((len(keys), m), np.int64)
    for k, key in enumerate(keys):
        stream = reference_stream(*(int(v) for v in key))
        for t in range(m):
            x = next(stream)
            while (x * span) & MASK < (2**64) % span:
                x = next(stream)
            out[k, t] = low + ((x * span) >> 64)
    return out


@given(k0=words, k1=words, k2=words)
def test_sfc64_equals_numpy_sfc64_from_the_same_state(k0, k1, k2):
    ours = np.empty(200, np.uint64)
    sfc64_raw(np.uint64(k0), np.uint64(k1), np.uint64(k2), ours)
    numpy_bg = np.random.SFC64(0)
    state = np.array([k0, k1, k2, 1], dtype=np.uint64)
    numpy_bg.state = {
        "bit_generator": "SFC64",
        "state": {"state": state},
        "has_uint32": 0,
        "uinteger": 0,
    }
    numpy_bg.random_raw(12)
    assert np.array_equal(ours, numpy_bg.random_raw(200))
    stream = reference_stream(k0, k1, k2)
    assert [int(v) for v in ours[:20]] == [next(stream) for _ in range(20)]


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.tuples(words, words, words), min_size=1, max_size=4),
    span=st.one_of(
        st.integers(1, 10),
        st.integers(1, 2**63 - 1),
        st.just(3 * 2**61),  # 2^64 mod span = 2^62: a quarter of the draws is rejected
        st.just(2**63 - 1),
    ),
    low=st.integers(-(2**62), 0),
    m=st.integers(1, 40),
)
def test_fill_uniform_equals_the_exact_reference(keys, span, low, m):
    k = np.array(keys, dtype=np.uint64)
    out = np.empty((len(keys), m), np.int64)
    fill_uniform(k, low, span, out)
    assert np.array_equal(out, reference_fill(keys, low, span, m))
    assert np.all((out >= low) & (out <= low + span - 1))


def test_fill_uniform_is_uniform_and_a_rows_values_depend_on_its_key_only():
    keys = np.random.default_rng(7).integers(0, 2**64, size=(5, 3), dtype=np.uint64)
    out = np.empty((5, 200_000), np.int64)
    fill_uniform(keys, -3, 7, out)
    counts = np.bincount((out + 3).ravel(), minlength=7)
    assert counts.shape == (7,)  # every value in [-3, 3], both ends reached
    assert stats.chisquare(counts).pvalue > 1e-4
    alone = np.empty((1, 200_000), np.int64)
    fill_uniform(keys[3:4], -3, 7, alone)
    assert np.array_equal(alone[0], out[3])
    # distinct keys, independent streams: rows do not agree beyond chance (1/7)
    assert np.mean(out[0] == out[1]) < 0.16


def test_uniform_quanta_per_system_is_the_quantum_grid_and_seeded():
    a = uniform_quanta_per_system(np.random.default_rng(3), -0.5, 0.5, (4, 6, 6))
    b = uniform_quanta_per_system(np.random.default_rng(3), -0.5, 0.5, (4, 6, 6))
    lo, hi = (int(v) for v in quantize([-0.5, 0.5]))
    assert a.dtype == np.int64 and a.shape == (4, 6, 6) and np.array_equal(a, b)
    assert lo <= a.min() and a.max() <= hi and a.min() < 0 < a.max()
    tiny = uniform_quanta_per_system(np.random.default_rng(3), 0.0, 2 * 2.0**-40, (3, 1000))
    assert set(np.unique(tiny)) == {0, 1, 2}
