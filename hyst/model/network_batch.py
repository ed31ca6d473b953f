"""Batch kernel calls of the networks of bilinear elements (:mod:`hyst.networks`): the
gateway to the threaded kernels of :mod:`hyst.kernels.mechanics`, beside
:mod:`hyst.model.batch` and in the same way (each wrapper names its kernel with
:func:`hyst.model.batch.runs` and joins :data:`hyst.model.batch.GATEWAYS`). A module of its
own: the networks' kind imports it, the sampler does not, so a change to the mechanics
recomputes no sampled point."""

from __future__ import annotations

import numpy as np

from hyst.kernels import codes, mechanics
from hyst.kernels.jit import on_threads
from hyst.model.batch import Columns, runs
from hyst.model.systems import rule_code


@runs(mechanics.pair_scan)
def pair_scan_batch(x_minus, x_plus, d, rule, *, parallel: bool = True) -> Columns:
    """The drive-range scan of a batch of two-element chains without a series spring
    (``hyst.kernels.mechanics.pair_cell`` per cell): ``x_minus``, ``x_plus``, ``d``: (cells,
    2) int64 quanta (switching displacements x_i^∓ and force jumps d_i);
    ``codes.PAIR_CELL_COLUMNS`` per cell."""
    out = np.zeros((len(d), len(codes.PAIR_CELL_COLUMNS)), np.int64)
    kernel = on_threads(mechanics.pair_scan, parallel)
    kernel(x_minus, x_plus, d, 1, 2, rule_code(rule), out)
    return Columns(out, codes.PAIR_CELL_COLUMNS)


@runs(mechanics.saturated_loop_batch)
def chain_loops_batch(
    x_minus, x_plus, d, p: int, D: int, rule, *, parallel: bool = True
) -> Columns:
    """The saturated loop of a batch of serial chains driven event by event, each main branch
    up to its first limit cycle (``hyst.kernels.mechanics.saturated_loop_batch``; N ≤ 64):
    ``x_minus``, ``x_plus``, ``d``: (chains, N) int64 quanta; drives in W = p U with
    ``D = p N + q`` (k = p/q the series spring); ``codes.MECH_LOOP_COLUMNS`` per chain and
    branch (0: up from all −1, 1: down from all +1). The mapped counterpart is
    :func:`first_loops_batch`."""
    out = np.zeros((len(d), 2, len(codes.MECH_LOOP_COLUMNS)), np.int64)
    kernel = on_threads(mechanics.saturated_loop_batch, parallel)
    kernel(x_minus, x_plus, d, p, D, rule_code(rule), out)
    return Columns(out, codes.MECH_LOOP_COLUMNS)
