"""The paper's statements that are not slopes or quoted values: claims about observables
(bounds, parities, peak positions, limits) and the Supplemental's table of ill-defined
conditions per interaction ensemble and race-condition rule. The paper-comparison page
(:mod:`hyst.comparison`) checks each against the datasets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from hyst.catalogue.declarations import PaperClaim
from hyst.catalogue.observables import OBSERVABLES

_MAIN = "main text"
_STABLE = "Supplemental, number of stable states"
_RULES = "Supplemental, arbitrarily coupled hysterons and race-condition rules"
_RULE2 = "Supplemental, well-behaved ensembles under rule 2"
_AVALANCHES = "Supplemental, avalanche sizes"
_CYCLIC = "Supplemental, response to cyclic drive"

#: Claims of the paper, by observable (the catalogue's names).
CLAIMS: dict[str, tuple[PaperClaim, ...]] = {
    "avalanche_size_hist": (
        PaperClaim(
            "range",
            "constant rows: transitions are Preisach-like (A = 1) or avalanches of size 2",
            _AVALANCHES,
            couplings="rows",
            rule="1",
            lower=1,
            upper=2,
        ),
        PaperClaim(
            "range",
            "when race conditions are not allowed, constant-columns interactions restrict the "
            "avalanche size A <= 2",
            _MAIN,
            couplings="columns",
            rule="0",
            lower=1,
            upper=2,
            explanation="rule0_columns",
        ),
    ),
    "period_hist": (
        PaperClaim(
            "range",
            "constant columns: we systematically find T = 1 (no scrambling)",
            _CYCLIC,
            couplings="columns",
            rule="1",
            lower=1,
            upper=1,
        ),
        PaperClaim(
            "range",
            "constant rows: we systematically find T = 1",
            _CYCLIC,
            couplings="rows",
            rule="1",
            lower=1,
            upper=1,
            explanation="rows_period_two",
        ),
    ),
    "self_loop_length_hist": (
        *(
            PaperClaim(
                "range",
                "all self-loops have size L = 2, independently of the model",
                _RULE2,
                couplings=c,
                rule="2",
                lower=2,
                upper=2,
            )
            for c in ("symmetric", "columns", "rows")
        ),
        *(
            PaperClaim(
                "even",
                "rules that flip elements one by one lead to self-loops whose sizes are always "
                "even, starting from L = 4",
                _RULES,
                rule=r,
                lower=4,
            )
            for r in ("0", "1", "1p")
        ),
    ),
    "potentially_stable_count_hist": (
        PaperClaim(
            "range",
            "for spins there always exist only N + 1 potentially stable states",
            _STABLE,
            couplings="random",
            spans="spin",
            rule="1",
            lower=1,
            upper=1,
            per_N=True,
            explanation="potentially_stable_count",
        ),
    ),
    "potentially_stable_over_spins": (
        PaperClaim(
            "limit",
            "for spins P_s = P_spins = (N + 1)/2^N",
            _STABLE,
            couplings="random",
            spans="spin",
            rule="1",
            lower=1,
            upper=1,
            where="all",
        ),
        *(
            PaperClaim(
                "limit",
                "P_s asymptotes toward P_spins in the large coupling limit",
                _STABLE,
                couplings="random",
                spans=s,
                rule="1",
                lower=1,
                upper=1,
                where="large",
            )
            for s in ("hysteron", "equal")
        ),
        *(
            PaperClaim(
                "limit",
                "in the small coupling limit P_s is larger than P_spins",
                _STABLE,
                couplings="random",
                spans=s,
                rule="1",
                lower=1,
                where="small",
            )
            for s in ("hysteron", "equal")
        ),
    ),
    "avalanche_size": (
        PaperClaim(
            "peak",
            "constant columns: for J0 ~ 1 the mean avalanche size reaches a maximum, which "
            "increases with system size, then decreases abruptly and increases again",
            _AVALANCHES,
            couplings="columns",
            rule="1",
            power=0,
            grows=True,
        ),
    ),
    "transient": (
        PaperClaim(
            "peak",
            "symmetric: <tau> reaches a maximum for intermediate J0 ~ 1/N",
            _CYCLIC,
            couplings="symmetric",
            rule="1",
            power=-1,
        ),
        PaperClaim(
            "peak",
            "constant columns: <tau> reaches a maximum at the J0 of the maximum of <A>, J0 ~ 1",
            _CYCLIC,
            couplings="columns",
            rule="1",
            power=0,
        ),
        PaperClaim(
            "peak",
            "constant rows: the maximum of <tau> is reached for J0 ~ 1/N",
            _CYCLIC,
            couplings="rows",
            rule="1",
            power=-1,
        ),
    ),
    "period": (
        PaperClaim(
            "peak",
            "symmetric: <T> reaches a maximum for intermediate J0 ~ 1/N",
            _CYCLIC,
            couplings="symmetric",
            rule="1",
            power=-1,
        ),
    ),
}


@dataclass(frozen=True)
class PaperCell:
    """One cell of the Supplemental's table of ill-defined conditions: whether race
    conditions (RC: rule 0 makes them ill-defined), gaps (G) and self-loops (SL) occur, and
    which self-loop lengths the footnotes allow ("" when no statement)."""

    race_conditions: bool
    gaps: bool
    self_loops: bool
    lengths: str = ""

    def text(self) -> str:
        """The cell as the table prints it: "RC", "G", "SL (lengths)" joined by "/", or "—" when
        nothing occurs."""
        parts = [n for n, on in (("RC", self.race_conditions), ("G", self.gaps)) if on]
        if self.self_loops:
            parts.append("SL" + (f" ({self.lengths})" if self.lengths else ""))
        return "/".join(parts) or "—"


#: The Supplemental's table: (couplings, rule) -> cell; "random" is its "Arbitrary" row.
ILL_DEFINED_TABLE: dict[tuple[str, str], PaperCell] = {
    ("random", "0"): PaperCell(True, True, True),
    ("random", "1"): PaperCell(False, True, True),
    ("random", "1p"): PaperCell(False, True, True),
    ("random", "2"): PaperCell(False, True, True, "all L >= 2"),
    **{(c, "0"): PaperCell(True, False, False) for c in ("symmetric", "columns", "rows")},
    **{
        (c, r): PaperCell(False, False, False)
        for c in ("symmetric", "columns", "rows")
        for r in ("1", "1p")
    },
    **{
        (c, "2"): PaperCell(False, False, True, "L = 2 only")
        for c in ("symmetric", "columns", "rows")
    },
    ("ferro", "0"): PaperCell(True, False, False),
    **{("ferro", r): PaperCell(False, False, False) for r in ("1", "1p", "2")},
}
ILL_DEFINED_TABLE_SOURCE = (
    "Supplemental, table: summary of the occurrence of ill-defined conditions for various "
    "interaction ensembles and race condition rules"
)


@dataclass(frozen=True)
class PaperStatement:
    """A statement of the paper checked by a section of the comparison page as a whole."""

    key: str
    text: str
    source: str


_L4 = "Supplemental, self-loops of size 4 in large systems (N = 1024, N J0 = 10)"
#: The Supplemental's statements about L = 4 self-loops met at any H in large systems.
L4_LARGE_STATEMENTS = (
    PaperStatement(
        "spins_in_region",
        "spins: when self-loops occur, they are necessarily included in the region of the "
        "rescaled (c12, c21)-plane where L = 4 self-loops occur for N = 2 spins",
        _L4,
    ),
    PaperStatement(
        "hysterons_in_region",
        "hysterons: we find self-loops in the same region as for spins",
        _L4,
    ),
    PaperStatement(
        "hysterons_fewer",
        "hysterons: there are fewer self-loops (than for spins)",
        _L4,
    ),
    PaperStatement(
        "hysterons_boundaries",
        "hysterons: fewer self-loops especially close to the boundaries",
        _L4,
    ),
    PaperStatement(
        "pairs_never_looping",
        "for some systems there exist pairs of spins in the region (for a given "
        "configuration of the rest of the system) which are never involved in an L = 4 "
        "self-loop",
        _L4,
    ),
)
#: Fig. 4(a) and the main text on avalanches of constant columns under the rules.
RULES_AVALANCHE_STATEMENT = PaperStatement(
    "columns_rules",
    "when race conditions are not allowed, constant-columns interactions restrict the "
    "avalanche size A <= 2, whereas flipping the most (or least) unstable elements leads to "
    "much larger A",
    "main text, Fig. 4(a)",
)

#: The largest N of the paper's small-coupling studies (Fig. 2 and its replicas: N = 2 … 10).
LARGEST_N_SMALL_COUPLING = 10

#: The largest N of the paper's mean avalanche size and cyclic drive against J0 (N = 16 … 512).
LARGEST_N_LARGE = 512
LARGE_N_SOURCE = "Supplemental, large avalanches for well-behaved models: N = 16 … 512"

#: Where the paper's small-coupling figures draw their guide lines (the dashed lines of
#: slope 4, 3, 2, 2/3, 5 of Fig. 2, the Supplemental's replicas for spins, equal spans and
#: weak asymmetry, race conditions, the race-condition rules and rule 2): every one plots
#: N J0 = 10^-1 … 10^2 (the Supplemental states the range for the gap-versus-self-loop
#: figure, drawn from the same runs) and lays its guide along the data at the low end, the
#: first decade. A stated slope is compared with the local slope of the curves there as
#: well as with the asymptotic small-coupling exponent (hyst.analysis.crossover).
DRAWN_RANGE: tuple[float, float] = (0.1, 1.0)
DRAWN_RANGE_SOURCE = (
    "the figures' N J0 axis, 10^-1 … 10^2 (Supplemental, probability of self-loops as a "
    "function of the probability of gaps), guide lines at its low end"
)


class PlateauStatement(NamedTuple):
    """A large-coupling statement about 1 − P_sl versus N: its text, whether 1 − P_sl decays
    monotonically with N (else: rises somewhere), where it is made, and whether it holds
    only "for large enough N" (the decay from some N on, up to the largest)."""

    text: str
    monotone: bool
    source: str
    from_large_n: bool = False


#: The large-coupling statements about P_sl versus N (N J0 = 10^2; Fig. 2(d) and the
#: replicas' insets, the rules figure): (couplings, spans, rule or None) -> statement.
PLATEAU_STATEMENTS: dict[tuple, PlateauStatement] = {
    ("random", "hysteron", None): PlateauStatement(
        "the probability to be self-loop free, 1 - P_sl, decays to zero exponentially with N "
        "(N J0 = 10^2)",
        True,
        "Fig. 2(d), inset",
    ),
    ("random", "spin", None): PlateauStatement(
        "1 - P_sl decays to zero exponentially with N (N J0 = 10^2)",
        True,
        "Supplemental, spins, inset",
    ),
    ("random", "equal", None): PlateauStatement(
        "1 - P_sl decays to zero exponentially with N (N J0 = 10^2)",
        True,
        "Supplemental, equal spans, inset",
    ),
    ("weak", "hysteron", None): PlateauStatement(
        "1 - P_sl decays monotonously with N for large enough N (N J0 = 10^2)",
        True,
        "Supplemental, weak asymmetry, inset",
        from_large_n=True,
    ),
    ("random", "hysteron", "0"): PlateauStatement(
        "except for rule 0, the large-J0 plateau value increases monotonically with N",
        False,
        _RULES,
    ),
    **{
        (c, "hysteron", "2"): PlateauStatement(
            "1 - P_sl decays to zero with N for large couplings (N J0 = 10^2)",
            True,
            _RULE2,
        )
        for c in ("symmetric", "columns", "rows")
    },
}

_UNKNOWN = set(CLAIMS) - {o.name for o in OBSERVABLES}
if _UNKNOWN:  # pragma: no cover - a declaration error
    raise RuntimeError(f"paper claims about unknown observables: {sorted(_UNKNOWN)}")
