"""Numba kernels over plain arrays: ``enumeration`` (all 2^N states, bitmasks),
``relaxation`` (event-driven relaxation, any N), ``drive`` (avalanches, cyclic drive and
saturated loop built on it), ``columns`` (those drives for constant columns under rules 0
and 1 in O(N/64) a flip), ``first_loops`` (the first self-loop of each saturated branch),
``self_loop_search`` (P_sl alone without the state table, N ≤ 62), ``structure`` (dense
couplings from compact forms) and ``streams`` (the couplings' random streams); their
shared codes are in ``codes``."""

from hyst.kernels import (
    codes,
    columns,
    drive,
    enumeration,
    first_loops,
    relaxation,
    self_loop_search,
    streams,
    structure,
)

__all__ = [
    "codes",
    "columns",
    "drive",
    "enumeration",
    "first_loops",
    "relaxation",
    "self_loop_search",
    "streams",
    "structure",
]
