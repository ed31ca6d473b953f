"""Declarations of the observable catalogue: observable groups, paper facts, scaling claims
and the :class:`Observable` entry (see :mod:`hyst.catalogue`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

PROBABILITY, MEAN, HISTOGRAM, RECORDS, COUNT = (
    "probability",
    "mean",
    "histogram",
    "records",
    "count",
)
KINDS = (PROBABILITY, MEAN, HISTOGRAM, RECORDS, COUNT)


@dataclass(frozen=True)
class Group:
    """A group of observables computed by one kernel pass.

    max_N: largest N the group supports (None: any N); default: part of "all".
    """

    name: str
    description: str
    max_N: int | None = None
    default: bool = True

    def allows(self, N: int) -> bool:
        """Whether the group's kernel pass supports N elements (True when it has no maximum)."""
        return self.max_N is None or N <= self.max_N


def _matches(fact, couplings=None, spans=None, rule=None) -> bool:
    """Whether a paper fact with fields couplings/spans/rule (None: any) covers an ensemble."""
    return all(
        want is None or have is None or str(have) == want
        for want, have in ((fact.couplings, couplings), (fact.spans, spans), (fact.rule, rule))
    )


@dataclass(frozen=True)
class PaperSlope:
    """A small-coupling slope d ln P / d ln(N J0) the paper draws, for the ensembles where
    every given field matches (None matches anything)."""

    slope: float
    couplings: str | None = None
    spans: str | None = None
    rule: str | None = None
    source: str = ""

    def matches(self, couplings=None, spans=None, rule=None) -> bool:
        """Whether the slope applies to the ensemble (couplings, spans, rule); a field left None on
        the slope matches anything."""
        return _matches(self, couplings, spans, rule)


@dataclass(frozen=True)
class PaperValue:
    """A value the paper quotes for one point (a fraction, not a percentage); ``approximate``
    when the paper writes "≈", ``explanation`` names a known disagreement the
    paper-comparison page explains (:mod:`hyst.comparison`)."""

    value: float
    couplings: str
    spans: str
    rule: str
    N: int
    NJ0: float
    source: str
    approximate: bool = False
    explanation: str = ""


#: Kinds of :class:`PaperClaim`.
CLAIM_KINDS = ("range", "even", "peak", "limit")


@dataclass(frozen=True)
class PaperClaim:
    """A statement of the paper about one observable, checked against the datasets by the
    paper-comparison page (:mod:`hyst.comparison`), for the ensembles where every given
    field matches (None matches anything). ``kind``:

    - "range": every sample of a histogram lies in [lower, upper] (None: unbounded); with
      ``per_N`` the bounds are offset by N ("exactly N + 1 states": lower = upper = 1);
    - "even": every sample of a histogram is even and at least ``lower``;
    - "peak": the mean versus J0 has its maximum at J0 ≈ N^power (−1: J0 ≈ 1/N, 0:
      J0 ≈ 1); with ``grows``, the maximum grows with N;
    - "limit": the observable approaches ``lower`` (= ``upper``) where N J0 ≫ 1
      (where = "large"), exceeds ``lower`` where N J0 ≪ 1 ("small"), or equals it at
      every N J0 ("all").

    ``text`` is the paper's statement, ``source`` where it is made; ``explanation`` names
    a known disagreement the page explains with its evidence (``hyst.comparison``).
    """

    kind: str
    text: str
    source: str
    couplings: str | None = None
    spans: str | None = None
    rule: str | None = None
    lower: float | None = None
    upper: float | None = None
    per_N: bool = False
    power: float | None = None
    grows: bool = False
    where: str = ""
    explanation: str = ""

    def __post_init__(self):
        if self.kind not in CLAIM_KINDS:
            raise ValueError(f"claim kind {self.kind!r} is not one of {', '.join(CLAIM_KINDS)}")

    def matches(self, couplings=None, spans=None, rule=None) -> bool:
        """Whether the claim applies to the ensemble (couplings, spans, rule); a field left None on
        the claim matches anything."""
        return _matches(self, couplings, spans, rule)

    def bounds(self, N: int) -> tuple[float, float]:
        """(lower, upper) of a "range" claim for systems of N elements (±inf if open)."""
        offset = N if self.per_N else 0
        lo = -float("inf") if self.lower is None else self.lower + offset
        hi = float("inf") if self.upper is None else self.upper + offset
        return lo, hi


@dataclass(frozen=True)
class Scaling:
    """How the scaling analysis treats an observable: whether a small-coupling power law is
    claimed, and the largest value entering the collapse (None: all values)."""

    power_law: bool = True
    collapse_max_value: float | None = 0.5


@dataclass(frozen=True)
class Observable:
    """One observable of a sampled point (see the module docstring).

    Records only: ``record_key`` names the integer columns that identify one record within
    its point (e.g. system index, branch, loop index; a column a table lacks counts as −1),
    which key the point's seeded bottom-k sample (:mod:`hyst.sampling.tallies`);
    ``record_dtypes`` the stored dtype of each column.
    """

    name: str
    kind: str
    groups: tuple[str, ...]
    description: str
    measure: Callable = field(repr=False)
    symbol: str = ""
    label: str = ""
    units: str = ""
    trials: Callable | None = field(default=None, repr=False)
    dim: str = ""
    record_key: tuple[str, ...] = ()
    record_dtypes: dict = field(default_factory=dict, hash=False)
    scaling: Scaling | None = None
    paper_slopes: tuple[PaperSlope, ...] = ()
    paper_values: tuple[PaperValue, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind in (HISTOGRAM, RECORDS) and not self.dim:
            raise ValueError(f"{self.name}: a {self.kind} needs its dimension name")
        if self.kind == RECORDS and not self.record_key:
            raise ValueError(f"{self.name}: records need the integer columns that identify one")

    def paper_slope(self, couplings=None, spans=None, rule=None) -> float:
        """The paper's slope for this ensemble (NaN where the paper states none)."""
        for p in self.paper_slopes:
            if p.matches(couplings, spans, rule):
                return float(p.slope)
        return float("nan")
