"""Layer 2, the catalogue of observables: every observable of a sampled point is declared
once, in the table of :mod:`hyst.catalogue.observables` (the entry and paper-fact types are
in :mod:`hyst.catalogue.declarations`, the observable groups in :mod:`hyst.catalogue.groups`,
display names in :mod:`hyst.catalogue.labels`); this package joins them into ``CATALOGUE``
and answers questions about it.

An :class:`Observable` names its dataset variable and symbol, its kind
(probability, mean, histogram, records, or a diagnostic count), the kernel
group(s) that produce it, a description with units, a plot label, how it is
measured from a decoded kernel call, the paper's small-coupling slopes and
quoted values where the paper gives them, and how the scaling analysis treats
it. Everything else is derived from this table: the sampler's tallies
(:mod:`hyst.sampling.tallies`), the dataset variables, the observable groups of the
configuration and the command line, the analysis's list, the plot labels and
the values the report and the paper comparison quote. The paper's other statements
(bounds, parities, peak positions, limits; the table of ill-defined conditions) are in
:mod:`hyst.catalogue.paper`, which this package does not import: they are read by the
paper-comparison page alone, so editing them changes the fingerprint of no sampled result.

Adding an observable means: the kernel (and its column name in
:mod:`hyst.kernels.codes`), one entry in :mod:`hyst.catalogue.observables`, and its tests.

Decoded kernel calls
--------------------
The sampler runs the kernel passes of a chunk's groups and decodes each into a dict
``d`` that every ``measure`` reads by name (the table of passes and their decoders:
:mod:`hyst.sampling.passes`):

- enumeration (groups transitions, zero_field, and avalanche for N ≤ 18): every
  column of ``codes.ENUMERATION_COLUMNS`` (per sample), ``N``, ``gap_fraction``,
  ``loop_length_hist``, ``loop_elements_hist``, ``l4_count``, ``l4_recorded``,
  ``l4_records``, and the avalanche fields below when it computed the avalanche;
- the event-driven drives (groups avalanche and cyclic, one pass for both); avalanche
  (also from the enumeration): ``avalanche_prepared`` (bool), ``race_first_flip``,
  ``avalanche_outcome``, ``avalanche_size`` (−1 where undefined), ``ties``; cyclic:
  ``drive_prepared`` (bool), ``drive_outcome``, ``transient``, ``period``,
  ``drive_ties``, ``drive_amplitude`` (field units);
- saturated_loop: ``saturated_<column>`` of ``codes.SATURATED_COLUMNS`` (per sample),
  ``saturated_records`` (source, L, n_e of the recorded self-loops),
  ``saturated_records_total``, ``l4_count``, ``l4_recorded``, ``l4_records``;
- multiperiodic (the amplitude sweep, :mod:`hyst.catalogue.multiperiodic`):
  ``mp_<column>`` of ``hyst.kernels.protocols.SWEEP_SUMMARY_COLUMNS`` (per sample);
- addressability, reachability (:mod:`hyst.catalogue.designed`): ``ad_<column>`` of
  ``hyst.kernels.addressing.ADDRESS_COLUMNS`` (per sample) and ``N``; periods: the
  multiperiodic fields above (one amplitude sweep serves both groups);
- any_self_loop (the self-loop search, when the enumeration does not compute the
  transitions anyway): ``search_self_loop``, ``search_found_by``, ``search_walks``,
  ``search_nodes``, ``search_ties`` (``codes.SEARCH_COLUMNS``).

``measure(d)`` returns, by kind: probability -> per-sample events (bool); mean ->
the per-sample values entering the mean; histogram -> counts per bin; count ->
an integer; records -> a dict of equal-length arrays. ``trials(d)`` of a
probability is the mask of samples that count as trials (None: all samples).
A measure returns None where the decoded call does not provide what it needs.
"""

from __future__ import annotations

from hyst.catalogue.declarations import (
    COUNT,
    HISTOGRAM,
    KINDS,
    MEAN,
    PROBABILITY,
    RECORDS,
    Group,
    Observable,
    PaperClaim,
    PaperSlope,
    PaperValue,
    Scaling,
)
from hyst.catalogue.designed import DESIGNED
from hyst.catalogue.groups import ANY_SELF_LOOP_MAX_N, ENUMERATION_MAX_N, GROUPS, groups_allowing
from hyst.catalogue.multiperiodic import MULTIPERIODIC
from hyst.catalogue.observables import OBSERVABLES as _OBSERVABLES

#: Every observable: the table of :mod:`hyst.catalogue.observables`, then the group
#: multiperiodic (:mod:`hyst.catalogue.multiperiodic`).
OBSERVABLES = _OBSERVABLES + MULTIPERIODIC + DESIGNED

__all__ = [
    "groups_allowing",
    "ANY_SELF_LOOP_MAX_N",
    "CATALOGUE",
    "PaperClaim",
    "COUNT",
    "ENUMERATION_MAX_N",
    "GROUPS",
    "HISTOGRAM",
    "KINDS",
    "MEAN",
    "OBSERVABLES",
    "PROBABILITY",
    "RECORDS",
    "Group",
    "Observable",
    "PaperSlope",
    "PaperValue",
    "Scaling",
    "analysed",
    "label",
    "observables",
    "paper_slope",
    "symbol",
]

CATALOGUE: dict[str, Observable] = {o.name: o for o in OBSERVABLES}
if len(CATALOGUE) != len(OBSERVABLES):  # pragma: no cover - a declaration error
    raise RuntimeError("the catalogue declares an observable twice")
for _o in OBSERVABLES:  # pragma: no cover - a declaration error
    if set(_o.groups) - set(GROUPS):
        raise RuntimeError(f"{_o.name}: unknown group {sorted(set(_o.groups) - set(GROUPS))[0]!r}")


def observables(kind: str | None = None, groups=None) -> list[Observable]:
    """Catalogue entries of a kind (all kinds when None) produced by any of ``groups``."""
    return [
        o
        for o in OBSERVABLES
        if (kind is None or o.kind == kind) and (groups is None or set(o.groups) & set(groups))
    ]


def label(name: str) -> str:
    """Plot label of an observable (its name when it has none)."""
    o = CATALOGUE.get(name)
    return o.label if o is not None and o.label else name


def symbol(name: str) -> str:
    """Plain-text symbol of an observable (its name when it has none)."""
    o = CATALOGUE.get(name)
    return o.symbol if o is not None and o.symbol else name


def analysed() -> list[Observable]:
    """Observables with a scaling analysis (small-coupling power law, plateau, collapse)."""
    return [o for o in OBSERVABLES if o.scaling is not None]


def paper_slope(name: str, couplings=None, spans=None, rule=None) -> float:
    """The paper's small-coupling slope of an observable for an ensemble (NaN if none)."""
    o = CATALOGUE.get(name)
    return o.paper_slope(couplings, spans, rule) if o is not None else float("nan")
