"""Words of the text the command line prints and the API returns (``hyst system``'s report,
the drive tables)."""

from __future__ import annotations


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``noun`` or its plural as ``count`` needs: plural(1, "job") is "job", else "jobs"."""
    return noun if count == 1 else (plural_form or noun + "s")
