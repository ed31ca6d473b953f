"""Quantitative analysis: fits of single curves (:mod:`hyst.analysis.fits`) and analyses of
study datasets (:mod:`hyst.analysis.study`)."""

from hyst.analysis.fits import (
    collapse_fit,
    collapse_quality,
    exponential_fit,
    power_law_fit,
)
from hyst.analysis.study import (
    CURVE_DIMS,
    analyse_study,
    collapse_exponent,
    plateau,
    plateau_versus_n,
    small_coupling_exponents,
)

__all__ = [
    "CURVE_DIMS",
    "analyse_study",
    "collapse_exponent",
    "collapse_fit",
    "collapse_quality",
    "exponential_fit",
    "plateau",
    "plateau_versus_n",
    "power_law_fit",
    "small_coupling_exponents",
]
