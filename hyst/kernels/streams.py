"""Random streams drawn in compiled code (no I/O): the N^2 couplings of large systems.

numpy draws a bounded integer in about 3.3 ns (PCG64 through a function pointer, then
Lemire's method), and a dense N = 1024 system has 10^6 couplings: 3.3 ms a system,
more than a third of a saturated-loop sample. Here each row (one system) has a stream of
its own, SFC64 (Doty-Humphrey's small fast chaotic generator, 256-bit state, the
algorithm of ``numpy.random.SFC64``) seeded with three 64-bit words, and Lemire's exact
method maps its outputs onto the range: about 1.2 ns a value.

- ``sfc64_seed``: the state of a stream (a, b, c, counter) from three words, with the
  12 outputs numpy also discards;
- ``sfc64_step``: one step, the next state and a raw 64-bit output; ``sfc64_raw`` the
  raw outputs of a stream (equal to ``numpy.random.SFC64``'s from the same state);
- ``fill_uniform``: row k of ``out`` = uniform integers on [low, low + span − 1] from
  the stream seeded with keys[k]. Rows depend on their own key only.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.jit import jit

_M32 = np.uint64(0xFFFFFFFF)


@jit(inline=True)
def sfc64_step(a, b, c, w):
    """One SFC64 step from the state (a, b, c, counter w), all uint64: the next state and
    the raw output, (a, b, c, w, x)."""
    x = a + b + w
    return (
        b ^ (b >> np.uint64(11)),
        c + (c << np.uint64(3)),
        ((c << np.uint64(24)) | (c >> np.uint64(40))) + x,
        w + np.uint64(1),
        x,
    )


@jit
def sfc64_seed(k0, k1, k2):
    """The SFC64 state (a, b, c, w) seeded with three words (counter 1), after the 12
    outputs that ``numpy.random.SFC64`` also discards."""
    a, b, c, w = k0, k1, k2, np.uint64(1)
    for _ in range(12):
        a, b, c, w, _x = sfc64_step(a, b, c, w)
    return a, b, c, w


@jit
def sfc64_raw(k0, k1, k2, out):
    """out[:] = the first raw outputs of the stream seeded with (k0, k1, k2) (uint64)."""
    a, b, c, w = sfc64_seed(k0, k1, k2)
    for t in range(out.shape[0]):
        a, b, c, w, out[t] = sfc64_step(a, b, c, w)


@jit(inline=True)
def mulhi64(x, y):
    """High 64 bits of the 128-bit product of two uint64 (four 32-bit products)."""
    xh = x >> np.uint64(32)
    xl = x & _M32
    yh = y >> np.uint64(32)
    yl = y & _M32
    hl = xh * yl
    lh = xl * yh
    mid = ((xl * yl) >> np.uint64(32)) + (hl & _M32) + (lh & _M32)
    return xh * yh + (hl >> np.uint64(32)) + (lh >> np.uint64(32)) + (mid >> np.uint64(32))


@jit
def fill_uniform(keys, low, span, out):
    """out[k, :] = integers uniform on [low, low + span − 1], from the stream of keys[k].

    keys: (n, 3) uint64; span: the number of values, 1 <= span < 2^63; out: (n, m) int64.
    Lemire's method: v = high64(x · span), rejecting x when low64(x · span) falls below
    2^64 mod span (exactly uniform; a rejection has probability < span / 2^64).
    """
    s = np.uint64(span)
    threshold = (np.uint64(0) - s) % s
    for k in range(out.shape[0]):
        a, b, c, w = sfc64_seed(keys[k, 0], keys[k, 1], keys[k, 2])
        row = out[k]
        for t in range(row.shape[0]):
            a, b, c, w, x = sfc64_step(a, b, c, w)
            while x * s < threshold:
                a, b, c, w, x = sfc64_step(a, b, c, w)
            row[t] = low + np.int64(mulhi64(x, s))
