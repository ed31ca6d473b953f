"""Observable groups: what one kernel pass computes, with the largest N it supports."""

from __future__ import annotations

from hyst.catalogue.declarations import Group

#: Largest N for which the 2^N states are enumerated.
ENUMERATION_MAX_N = 18
#: Largest N of the self-loop search (group any_self_loop). Its memory is O(N^2) per worker
#: thread (8 (4 N^2 + 9 N + 12) bytes + 56 KiB: 76 KiB at N = 24, 91 KiB at N = 32); its time
#: grows with the number of potentially stable states (see ``benchmarks/README.md``).
ANY_SELF_LOOP_MAX_N = 32
#: Largest N of group addressability (a state is a 64-bit mask).
ADDRESSABLE_MAX_N = 64
#: Largest N of group reachability: a search over up to 2^N states per system.
REACHABLE_GROUP_MAX_N = 16

GROUPS: dict[str, Group] = {
    g.name: g
    for g in (
        Group(
            "transitions",
            "P_sl and self-loop sizes: every transition out of every potentially stable state "
            "(enumerates 2^N states)",
            ENUMERATION_MAX_N,
        ),
        Group(
            "zero_field",
            "P_s, P_g^0, f_G, P_sl^0: the dynamics at H = 0 (enumerates 2^N states)",
            ENUMERATION_MAX_N,
        ),
        Group(
            "any_self_loop",
            "P_sl alone, the same per system as transitions, without the 2^N state table: a "
            "search from the saturated states, then a pruned search of the potentially stable "
            f"states (N <= {ANY_SELF_LOOP_MAX_N}; 76 KiB per worker thread at N = 24); not part "
            "of 'all'",
            ANY_SELF_LOOP_MAX_N,
            default=False,
        ),
        Group("avalanche", "P_RC and avalanche sizes A from a prepared stable state at H = 0"),
        Group("cyclic", "cyclic drive between 0 and U_max: transient tau and period T"),
        Group(
            "saturated_loop",
            "self-loops met driving the saturated hysteresis loop event by event (any N; L = 4 "
            "records for the scatter figures); not part of 'all'",
            default=False,
        ),
        Group(
            "multiperiodic",
            "the symmetric cyclic drive +-A from saturation at every amplitude where its "
            "response changes (the amplitude sweep): P(T > 1), the periods, the critical "
            "amplitude, self-loops before multiperiodic orbits, return-point memory (any N); "
            "not part of 'all'",
            default=False,
        ),
        Group(
            "float64",
            "the P_sl transitions recomputed in float64 from generic (non-quantised) parameters, "
            "to show what round-off does; not part of 'all'",
            ENUMERATION_MAX_N,
            default=False,
        ),
        Group(
            "addressability",
            "states addressable in one drive cycle from saturation (up to H1, back down to "
            "H2): their number, its share of the 2^N states, P(all addressable) (N <= 64); "
            "not part of 'all'",
            ADDRESSABLE_MAX_N,
            default=False,
        ),
        Group(
            "reachability",
            "states reachable from saturation by any field history (the transition graph "
            "from all -1), beside the addressable ones (N <= 16); not part of 'all'",
            REACHABLE_GROUP_MAX_N,
            default=False,
        ),
        Group(
            "periods",
            "periods and transients of the symmetric cyclic drive at every amplitude (the "
            "amplitude sweep of multiperiodic): P(T = k), P(odd T >= 3), the largest "
            "transient (any N); not part of 'all'",
            default=False,
        ),
    )
}


def groups_allowing(N: int) -> str:
    """The groups that support ``N`` elements, for a message refusing a group above its
    limit: "any_self_loop (N <= 32), addressability (N <= 64), avalanche, cyclic, ... (any N)"."""
    bounded = [f"{g.name} (N <= {g.max_N})" for g in GROUPS.values() if g.max_N and g.allows(N)]
    free = [g.name for g in GROUPS.values() if g.max_N is None]
    return ", ".join([*bounded, f"{', '.join(free)} (any N)"])
