"""Names of the model's ensembles and rules as figures and pages print them, and numbers
written as the paper writes them (fractions such as 2/3). Shared by the figures and the
paper-comparison page, which sit side by side one layer up."""

from __future__ import annotations

from fractions import Fraction

#: Titles of the race-condition rules and the coupling ensembles.
RULE_TITLES = {"0": "rule 0", "1": "rule 1", "1p": r"rule $1'$", "2": "rule 2"}
COUPLING_TITLES = {
    "random": "random",
    "weak": "weak asymmetry",
    "symmetric": "symmetric",
    "ferro": "ferromagnetic",
    "columns": "constant columns",
    "rows": "constant rows",
}


def fmt_number(v: float) -> str:
    """2/3 -> '2/3', 4.0 -> '4', 2.5 -> '5/2'."""
    f = Fraction(float(v)).limit_denominator(12)
    if abs(float(f) - v) > 1e-6:
        return f"{v:g}"
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
