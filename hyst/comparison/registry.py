"""Section types of the paper-comparison page and what each needs from its studies.

The configuration's ``comparison:`` binds named sections to a type and the studies that
feed it, like figure bindings (:mod:`hyst.plotting.registry`):

```yaml
comparison:
  slopes: {type: slopes, studies: [hysterons, spins]}
```

Every bound study must satisfy the type's :class:`~hyst.studies.needs.Need`; the
configuration is checked before any job runs. Building functions are imported only
when the page is built (this module imports neither xarray nor matplotlib).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from hyst.studies.needs import Need


@dataclass(frozen=True)
class SectionType:
    """A section type: its building function ("module:function", called with
    {study: dataset} and {study: analysis}), a title, what it checks, and the need every
    bound study must satisfy (at least ``min_studies`` of them)."""

    name: str
    build: str
    title: str
    description: str
    need: Need
    min_studies: int = 1

    @property
    def module(self) -> str:
        """The module of the building function (imported by name when the page is built)."""
        return self.build.split(":")[0]

    def function(self) -> Callable:
        """The function that builds the section, imported from its ``module:function`` string."""
        return pkgutil.resolve_name(self.build)


_VALUES = "hyst.comparison.values"
_CLAIMS = "hyst.comparison.claims"
_LARGE = "hyst.comparison.large"

SECTION_TYPES: dict[str, SectionType] = {
    t.name: t
    for t in (
        SectionType(
            "quoted_values",
            f"{_VALUES}:quoted_values",
            "Numbers the paper quotes",
            "every value the catalogue records from the paper (hyst.catalogue PaperValue) at "
            "the points of the bound studies, with the known disagreements explained",
            Need("a points study with the transitions group", groups=("transitions",)),
        ),
        SectionType(
            "slopes",
            f"{_VALUES}:slopes",
            "Small-coupling slopes",
            "the paper's slope of every observable and ensemble against hyst's pooled fitted "
            "exponent (the analyses of the bound studies)",
            Need("a points study swept over N and N J0 (analysed)", sweep="NJ0"),
        ),
        SectionType(
            "large_coupling",
            f"{_VALUES}:large_coupling",
            "Self-loop-free systems at large coupling",
            "the paper's statements about 1 - P_sl versus N at N J0 = 100 (it decays "
            "monotonously, for large enough N), judged on the N the bound studies sample",
            Need("a points study swept over N and N J0", sweep="NJ0"),
        ),
        SectionType(
            "claims",
            f"{_CLAIMS}:claims",
            "Statements about distributions and limits",
            "the paper's bounds, parities and limits (hyst.catalogue.paper CLAIMS: A <= 2, "
            "T = 1, even L >= 4, L = 2 under rule 2, N + 1 stable states of spins, P_s limits)",
            Need("a points study"),
        ),
        SectionType(
            "peaks",
            f"{_LARGE}:peaks",
            "Maxima of the large-N curves",
            "where <A>, <tau> and <T> peak against J0 (paper: J0 ~ 1/N or J0 ~ 1), how the "
            "constant-column maximum of <A> grows with N and the dip after it, and <A> per rule",
            Need("a points study over N and J0", sweep="J0"),
        ),
        SectionType(
            "ill_defined_table",
            f"{_CLAIMS}:ill_defined_table",
            "Ill-defined conditions per ensemble and rule",
            "the Supplemental's table (race conditions, gaps, self-loops per interaction "
            "ensemble and rule) reproduced from the data",
            Need(
                "a points study over ensembles and rules with transitions and zero_field",
                groups=("transitions", "zero_field"),
            ),
        ),
        SectionType(
            "l4_large",
            f"{_LARGE}:l4_large",
            "L = 4 self-loops in large systems",
            "where the L = 4 self-loops met at any H lie in the rescaled (c_kl, c_lk) plane",
            Need("a points study with the saturated_loop group", groups=("saturated_loop",)),
        ),
        SectionType(
            "combinatorics",
            f"{_VALUES}:combinatorics",
            "Counts of fundamental self-loops",
            "M, M_R, M_W per (n_e, L) against the paper's tables (a study of kind loops)",
            Need("a loops study", kind="loops"),
        ),
    )
}


def section_problem(section: str, binding: dict, studies: dict, kind_of) -> str | None:
    """One line saying what is wrong with a section's binding (None if nothing is)."""
    stype = SECTION_TYPES[binding["type"]]
    bound = binding["studies"]
    key = f"comparison.{section}.studies"
    if len(bound) < stype.min_studies:
        return (
            f"{key}: {bound!r} binds {len(bound)} studies; type {stype.name} needs at least "
            f"{stype.min_studies} ({stype.need.what})"
        )
    for i, name in enumerate(bound):
        if name not in studies:
            return (
                f"{key}[{i}]: {name!r} is not a study of this configuration "
                f"(studies: {', '.join(sorted(studies))})"
            )
        kind = kind_of(studies[name])
        problem = stype.need.problem(name, studies[name], kind, kind.sweep(studies[name]))
        if problem:
            return f"{key}[{i}]: {problem.replace('this figure needs', 'this section needs')}"
    return None
