"""The records a sampled point keeps (``hyst point --records``, :func:`hyst.sample_point`'s
``records``): which observables' records, and at most how many per point."""

from __future__ import annotations

from collections.abc import Iterable


def record_caps(
    text: str, groups: Iterable[str], names: tuple[str, str] = ("--records", "--observables")
) -> tuple[tuple[str, int], ...]:
    """``text`` ("l4=2000,...": NAME=K, at most K records of the observable NAME per point) as
    a sorted tuple of (name, k), checked against the observable ``groups`` the point
    computes. A bad item raises ``ValueError`` with one line that starts with
    ``names[0]`` (the records' argument) and names ``names[1]`` (the groups' argument)."""
    from hyst.catalogue import RECORDS, observables

    records, groups_name = names
    groups = list(groups)
    known = {o.name: o for o in observables(RECORDS)}
    caps = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        name, _, value = item.partition("=")
        if name not in known or not value.strip().isdigit() or int(value) < 1:
            raise ValueError(
                f"{records}: {item!r} is not allowed (NAME=K with NAME one of "
                f"{', '.join(known)} and an integer K >= 1)"
            )
        if not set(known[name].groups) & set(groups):
            raise ValueError(
                f"{records}: {name!r} records come from {' or '.join(known[name].groups)}, "
                f"which {groups_name} does not compute ({', '.join(groups)})"
            )
        caps[name] = int(value)
    return tuple(sorted(caps.items()))
