"""What a consumer of study datasets (a figure type, a section of the paper-comparison page)
needs from each study bound to it: the kind, the swept coupling axis, the observable groups
and the stored records. Checked against the configuration before any job runs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Need:
    """What a figure needs from one study: its kind, the swept coupling axis ("NJ0", "J0"
    or None for any), the observable groups its datasets must hold, whether the figure
    can do without it (then bind it or leave it out at the end of ``studies``), the
    records (catalogue kind records) the study must store (its ``records:`` option), and
    the optional axes its dataset must have (``direction_asymmetry``)."""

    what: str
    kind: str = "points"
    sweep: str | None = None
    groups: tuple[str, ...] = ()
    optional: bool = False
    records: tuple[str, ...] = ()
    axes: tuple[str, ...] = ()

    def problem(self, study_name: str, study: dict, kind, sweep: dict) -> str | None:
        """Why ``study`` cannot serve this need (None if it can)."""
        if kind.name != self.kind:
            what = self.what if self.kind in self.what else f"{self.what} (a {self.kind} study)"
            return f"study {study_name!r} is a {kind.name} study; this figure needs {what}"
        if self.sweep is not None and sweep.get("x") != self.sweep:
            return (
                f"study {study_name!r} is swept in {sweep.get('x')}; this figure needs "
                f"{self.what} (swept in {self.sweep})"
            )
        missing = [g for g in self.groups if g not in sweep.get("groups", ())]
        if missing:
            return (
                f"study {study_name!r} does not compute {', '.join(missing)}; this figure needs "
                f"{self.what}"
            )
        lacking = [a for a in self.axes if a not in sweep.get("axes", ())]
        if lacking:
            return (
                f"study {study_name!r} has no {lacking[0]} axis; this figure needs {self.what} "
                f"(give the study {lacking[0]}: [...])"
            )
        unstored = [r for r in self.records if r not in sweep.get("records", ())]
        if unstored:
            return (
                f"study {study_name!r} stores no {', '.join(unstored)} records; this figure "
                f"needs {self.what} (add records: {{{unstored[0]}: 2000}} to the study)"
            )
        return None
