"""Layer 6, quantitative analysis: small-coupling power laws fitted to counts
(:mod:`hyst.analysis.power_laws`, laid out over datasets by :mod:`hyst.analysis.exponents`
on the curves of :mod:`hyst.analysis.curves`), exponential decays and collapses
(:mod:`hyst.analysis.fits`), the analyses of study datasets (:mod:`hyst.analysis.study`),
maxima of the large-N curves (:mod:`hyst.analysis.peaks`) and the records of a points
dataset (:mod:`hyst.analysis.records`)."""

from hyst.analysis.curves import CURVE_DIMS
from hyst.analysis.exponents import small_coupling_exponents
from hyst.analysis.fits import collapse_fit, collapse_quality, exponential_fit
from hyst.analysis.power_laws import local_slopes, power_law_fit
from hyst.analysis.study import (
    analyse_study,
    collapse_exponent,
    plateau,
    plateau_versus_n,
)

__all__ = [
    "CURVE_DIMS",
    "analyse_study",
    "collapse_exponent",
    "collapse_fit",
    "collapse_quality",
    "exponential_fit",
    "local_slopes",
    "plateau",
    "plateau_versus_n",
    "power_law_fit",
    "small_coupling_exponents",
]
