"""Addressability of one system: the stable states one drive cycle from saturation can
leave it in, and those any field history can reach (thin wrappers over
:mod:`hyst.kernels.addressing`, exact on the int64 grid; states as bitmasks, bit i set
where s_i = +1).

A drive cycle goes from all −1 at H = −∞ up to a turning field H1 and back down to a
second turning field H2 ≤ H1; the state is read at H2 (the protocol of designed
multistable materials: Gutierrez-Prieto, Meulblok, van Hecke & Reis, arXiv 2508.16257).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.kernels import addressing as ka
from hyst.kernels import codes
from hyst.model.systems import Systems, rule_code


@dataclass(frozen=True)
class Addressability:
    """What one drive cycle from saturation, and any field history, can do to a system.

    addressable: sorted bitmasks of the stable states at the end of one drive cycle (up to
    H1, down to H2 ≤ H1; H2 = H1 included) over all (H1, H2); reachable: sorted bitmasks of
    the stable states reachable from all −1 by any field history (the t-graph from
    saturation; None above ``hyst.kernels.addressing.REACHABLE_MAX_N``); branch_states:
    the stable states of the up branch from saturation (the distinct H1); up_stopped:
    'self_loop' or 'ill_defined' where the up branch ended at a transition that does not
    end stable (no cycle through a larger H1 ends stable), else None; down_stopped: the
    down branches that did; reachable_stopped: transitions out of reachable states that
    did not end stable; ties: ties met in the one-cycle drives; N: elements.
    """

    N: int
    addressable: np.ndarray
    reachable: np.ndarray | None
    branch_states: int
    up_stopped: str | None
    down_stopped: int
    reachable_stopped: int | None
    ties: int

    @property
    def all_addressable(self) -> bool:
        """Every one of the 2^N states is addressable in one drive cycle."""
        return self.addressable.size == 2**self.N

    @property
    def all_reachable(self) -> bool | None:
        """Every one of the 2^N states is reachable by some field history (None: not
        searched)."""
        return None if self.reachable is None else self.reachable.size == 2**self.N


def addressability(
    systems: Systems, rule="1", index: int = 0, reachable: bool = True
) -> Addressability:
    """The ``Addressability`` of system ``index`` (N ≤ 64; the reachable set for N ≤
    ``hyst.kernels.addressing.REACHABLE_MAX_N`` when ``reachable``)."""
    N = systems.N
    if N > ka.ADDRESSABLE_MAX_N:
        raise ValueError(f"N: {N} is not allowed (addressability: N <= {ka.ADDRESSABLE_MAX_N})")
    v = systems.kernel_view_of(index)
    row = np.zeros(len(ka.ADDRESS_COLUMNS), np.int64)
    code = rule_code(rule)
    states = ka.one_cycle(v, code, row)
    reach = None
    if reachable and N <= ka.REACHABLE_MAX_N:
        reach = ka.reachable(v, code, row)
    names = {0: None, codes.SELF_LOOP: "self_loop", codes.ILL_DEFINED: "ill_defined"}
    stopped = names[int(row[ka.AD_UP_STOPPED])]
    return Addressability(
        N,
        states.copy(),
        None if reach is None else reach.copy(),
        int(row[ka.AD_BRANCH_STATES]),
        stopped,
        int(row[ka.AD_DOWN_STOPPED]),
        None if reach is None else int(row[ka.AD_REACHABLE_STOPPED]),
        int(row[ka.AD_TIES]),
    )
