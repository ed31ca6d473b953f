"""The observables of what designed materials do, as ensemble statistics: groups
``addressability`` and ``reachability`` (:mod:`hyst.kernels.addressing`) and ``periods``
(the amplitude sweep of :mod:`hyst.kernels.protocols`, the pass of group multiperiodic).

- *Addressable* states: the stable states at the end of one drive cycle from negative
  saturation, up to a turning field H1 and back down to H2 ≤ H1 (the state at H1 itself
  included), over all (H1, H2): what Gutierrez-Prieto, Meulblok, van Hecke & Reis (arXiv
  2508.16257) count when they write 32 states of five elements in one cycle each.
- *Reachable* states: those any field history reaches from negative saturation (the
  transition graph of the stable states from all −1); N ≤
  ``hyst.catalogue.groups.REACHABLE_GROUP_MAX_N``.
- *Periods and transients*: the symmetric cyclic drive ±A from saturation at every
  amplitude where its response changes (``hyst.catalogue.multiperiodic``); a system has
  period T where the drive at some amplitude reaches an orbit of T cycles, and its
  transient is the largest τ (cycles before the orbit) over the amplitudes. An amplitude
  whose drive stops at a self-loop has no period: it is counted as a self-loop, never as T.

Decoded fields (``hyst.sampling.passes``): ``ad_<column>`` of
``hyst.kernels.addressing.ADDRESS_COLUMNS`` and ``N``; ``mp_<column>`` of
``hyst.kernels.protocols.SWEEP_SUMMARY_COLUMNS``.
"""

from __future__ import annotations

import numpy as np

from hyst.catalogue.declarations import COUNT, HISTOGRAM, MEAN, PROBABILITY, Observable

_ADDRESS = ("addressability",)
_REACH = ("reachability",)
_PERIODS = ("periods",)
#: Periods k with a probability of their own, P(T = k).
PERIODS_LISTED = tuple(range(1, 9))
#: Bits of the period mask of odd periods T >= 3 (T <= 62).
ODD_PERIOD_BITS = int(sum(1 << T for T in range(3, 63, 2)))


def _share(count, N) -> np.ndarray:
    return np.asarray(count, np.float64) / 2.0 ** int(N)


def _all(count, N) -> np.ndarray:
    """count == 2^N per system (never above N = 62: a count is an int64)."""
    count = np.asarray(count, np.int64)
    if int(N) > 62:
        return np.zeros(count.shape, bool)
    return count == np.int64(1) << np.int64(N)


def _has_period(d, T: int) -> np.ndarray:
    return (d["mp_period_mask"] >> T) & 1 == 1


def _swept(d) -> np.ndarray:
    """Systems whose rise from saturation to H = 0 ended stable (their sweep ran)."""
    return d["mp_amplitudes"] > 0


def _period_probability(T: int) -> Observable:
    return Observable(
        f"period_{T}_probability",
        PROBABILITY,
        _PERIODS,
        f"P(T = {T}): the symmetric cyclic drive ±A from negative saturation reaches an orbit "
        f"of period T = {T} (cycles) at some amplitude A (trials: systems whose rise from "
        "saturation to H = 0 ended stable)",
        lambda d, T=T: _has_period(d, T),
        trials=_swept,
        symbol=f"P(T={T})",
        label=rf"$P(T = {T})$",
        units="probability",
    )


ADDRESSABILITY: tuple[Observable, ...] = (
    Observable(
        "addressable_count",
        MEAN,
        _ADDRESS,
        "stable states addressable in one drive cycle from negative saturation: up to a "
        "turning field H1, back down to H2 <= H1, the state read at H2, over all (H1, H2)",
        lambda d: d["ad_addressable"],
        symbol="<n_addr>",
        label=r"$\langle n_{\mathrm{addr}} \rangle$",
        units="states",
    ),
    Observable(
        "addressable_share",
        MEAN,
        _ADDRESS,
        "the share of the 2^N states addressable in one drive cycle from negative saturation",
        lambda d: _share(d["ad_addressable"], d["N"]),
        symbol="<n_addr/2^N>",
        label=r"$\langle n_{\mathrm{addr}} / 2^N \rangle$",
        units="fraction of the 2^N states",
    ),
    Observable(
        "all_addressable_probability",
        PROBABILITY,
        _ADDRESS,
        "P(all addressable): every one of the 2^N states is addressable in one drive cycle "
        "from negative saturation",
        lambda d: _all(d["ad_addressable"], d["N"]),
        symbol="P(all addr)",
        label=r"$P(\mathrm{all\ addressable})$",
        units="probability",
    ),
    Observable(
        "addressable_count_hist",
        HISTOGRAM,
        _ADDRESS,
        "distribution of the number of states addressable in one drive cycle: bin n counts "
        "the systems with n addressable states",
        lambda d: np.bincount(np.asarray(d["ad_addressable"], np.int64), minlength=1),
        dim="addressable_states",
        units="systems",
    ),
    Observable(
        "branch_state_count",
        MEAN,
        _ADDRESS,
        "stable states on the up branch from negative saturation (the distinct first turning "
        "fields H1 of a drive cycle)",
        lambda d: d["ad_branch_states"],
        symbol="<n_branch>",
        label=r"$\langle n_{\mathrm{branch}} \rangle$",
        units="states",
    ),
    Observable(
        "addressing_stopped_probability",
        PROBABILITY,
        _ADDRESS,
        "some drive cycle from negative saturation meets a transition that does not end "
        "stable (a self-loop; a race condition under rule 0), so no cycle through it "
        "addresses a state",
        lambda d: (d["ad_up_stopped"] > 0) | (d["ad_down_stopped"] > 0),
        symbol="P(cycle stopped)",
        label=r"$P(\mathrm{cycle\ stopped})$",
        units="probability",
    ),
    Observable(
        "addressability_ties",
        COUNT,
        _ADDRESS,
        "systems whose drive cycles met a tie (equal switching fields or margins)",
        lambda d: int((d["ad_ties"] > 0).sum()),
    ),
)

REACHABILITY: tuple[Observable, ...] = (
    Observable(
        "reachable_count",
        MEAN,
        _REACH,
        "stable states reachable from negative saturation by any field history (the "
        "transition graph of the stable states from all -1)",
        lambda d: d["ad_reachable"],
        symbol="<n_reach>",
        label=r"$\langle n_{\mathrm{reach}} \rangle$",
        units="states",
    ),
    Observable(
        "reachable_share",
        MEAN,
        _REACH,
        "the share of the 2^N states reachable from negative saturation by any field history",
        lambda d: _share(d["ad_reachable"], d["N"]),
        symbol="<n_reach/2^N>",
        label=r"$\langle n_{\mathrm{reach}} / 2^N \rangle$",
        units="fraction of the 2^N states",
    ),
    Observable(
        "all_reachable_probability",
        PROBABILITY,
        _REACH,
        "P(all reachable): every one of the 2^N states is reachable from negative saturation "
        "by some field history",
        lambda d: _all(d["ad_reachable"], d["N"]),
        symbol="P(all reach)",
        label=r"$P(\mathrm{all\ reachable})$",
        units="probability",
    ),
    Observable(
        "addressable_of_reachable",
        MEAN,
        _REACH,
        "the share of the reachable states that one drive cycle addresses",
        lambda d: d["ad_addressable"] / np.maximum(d["ad_reachable"], 1),
        symbol="<n_addr/n_reach>",
        label=r"$\langle n_{\mathrm{addr}} / n_{\mathrm{reach}} \rangle$",
        units="fraction of the reachable states",
    ),
    Observable(
        "reachable_count_hist",
        HISTOGRAM,
        _REACH,
        "distribution of the number of reachable states: bin n counts the systems with n",
        lambda d: np.bincount(np.asarray(d["ad_reachable"], np.int64), minlength=1),
        dim="reachable_states",
        units="systems",
    ),
)

PERIODS: tuple[Observable, ...] = (
    *(_period_probability(T) for T in PERIODS_LISTED),
    Observable(
        "odd_period_probability",
        PROBABILITY,
        _PERIODS,
        "P(odd T >= 3): the symmetric cyclic drive ±A from negative saturation reaches an "
        "orbit of odd period T >= 3 at some amplitude A (trials: systems whose rise from "
        "saturation to H = 0 ended stable)",
        lambda d: (d["mp_period_mask"] & ODD_PERIOD_BITS) != 0,
        trials=_swept,
        symbol="P(odd T>=3)",
        label=r"$P(\mathrm{odd}\ T \geq 3)$",
        units="probability",
    ),
    Observable(
        "sweep_self_loop_probability",
        PROBABILITY,
        _PERIODS,
        "the drive at some amplitude stops at a self-loop (that amplitude has no period T); "
        "trials: systems whose rise from saturation to H = 0 ended stable",
        lambda d: d["mp_loops"] > 0,
        trials=_swept,
        symbol="P(sl in sweep)",
        label=r"$P(\mathrm{self\text{-}loop\ at\ some}\ A)$",
        units="probability",
    ),
    Observable(
        "largest_transient",
        MEAN,
        _PERIODS,
        "the largest transient τ (cycles before the orbit) over the amplitudes of the sweep "
        "(systems with an orbit)",
        lambda d: d["mp_largest_transient"][d["mp_largest_transient"] >= 0],
        symbol="<tau_max>",
        label=r"$\langle \tau_{\max} \rangle$",
        units="cycles",
    ),
    Observable(
        "largest_transient_hist",
        HISTOGRAM,
        _PERIODS,
        "distribution of the largest transient τ over the amplitudes of the sweep: bin τ "
        "counts the systems (with an orbit) whose longest transient is τ cycles",
        lambda d: np.bincount(
            d["mp_largest_transient"][d["mp_largest_transient"] >= 0], minlength=1
        ),
        dim="tau",
        units="systems",
    ),
    Observable(
        "periods_met_hist",
        HISTOGRAM,
        _PERIODS,
        "systems with an orbit of period T at some amplitude, per T (T = 1 … 62; a system "
        "counts once per period it shows)",
        lambda d: np.array([0] + [int(_has_period(d, T).sum()) for T in range(1, 63)], np.int64),
        dim="T_met",
        units="systems",
    ),
)

DESIGNED: tuple[Observable, ...] = ADDRESSABILITY + REACHABILITY + PERIODS
