"""The observables of group ``multiperiodic``: the symmetric cyclic drive ±A from saturation
at every amplitude where its response can change (``hyst.kernels.protocols.sweep``, the
protocol of Keim & Paulsen, Sci. Adv. 2021), one amplitude sweep per sampled system.

Decoded fields (``hyst.sampling.passes``): ``mp_<column>`` of
``hyst.kernels.protocols.SWEEP_SUMMARY_COLUMNS`` per system. Amplitudes and fields are in
quanta; the critical amplitude A_c is the smallest amplitude with period T > 1, the
saturation field A_s the smallest amplitude from which on both turning points saturate the
system (undefined where a self-loop stops the sweep before it).
"""

from __future__ import annotations

import numpy as np

from hyst.catalogue.declarations import COUNT, HISTOGRAM, MEAN, PROBABILITY, Observable
from hyst.kernels.codes import INF, SELF_LOOP

_GROUP = ("multiperiodic",)
#: Bins of the histogram of A_c / A_s over [0, 1].
RELATIVE_BINS = 20


def _bincount(values) -> np.ndarray:
    return np.bincount(np.asarray(values, np.int64), minlength=1)


def _multiperiodic(d):
    return d["mp_critical_amplitude"] >= 0


def _relative(d):
    """A_c / A_s of the systems with both."""
    both = _multiperiodic(d) & (d["mp_saturation_field"] < INF)
    return d["mp_critical_amplitude"][both] / d["mp_saturation_field"][both]


def _loop_first(d):
    """A self-loop stops the drive from saturation to H = 0, or the drive at an amplitude
    below every amplitude with T > 1."""
    loop = d["mp_loop_amplitude"]
    crit = d["mp_critical_amplitude"]
    return (d["mp_preamble"] == SELF_LOOP) | ((loop >= 0) & ((crit < 0) | (loop < crit)))


MULTIPERIODIC: tuple[Observable, ...] = (
    Observable(
        "multiperiodic_probability",
        PROBABILITY,
        _GROUP,
        "P(T > 1): the symmetric cyclic drive ±A from negative saturation has a periodic orbit "
        "of period T > 1 (a multiperiodic orbit) at some amplitude A",
        lambda d: _multiperiodic(d),
        symbol="P(T>1)",
        label=r"$P(T > 1)$",
        units="probability",
    ),
    Observable(
        "self_loop_before_multiperiodic_probability",
        PROBABILITY,
        _GROUP,
        "a self-loop stops the symmetric drive at a smaller amplitude than any multiperiodic "
        "orbit (or on the way from saturation to H = 0, or with no multiperiodic orbit at all)",
        _loop_first,
        symbol="P(self-loop first)",
        label=r"$P(\mathrm{self\text{-}loop\ before}\ T > 1)$",
        units="probability",
    ),
    Observable(
        "return_point_memory_probability",
        PROBABILITY,
        _GROUP,
        "return-point memory on the standard nested protocol: from negative saturation up to "
        "A_s/2, down to -A_s/2, up to 0 and back down to -A_s/2, up to A_s/2 again; both "
        "returns find the state they left (trials: systems with a saturation field A_s whose "
        "protocol met no self-loop)",
        lambda d: d["mp_rpm"] == 1,
        trials=lambda d: d["mp_rpm"] >= 0,
        symbol="P_RPM",
        label=r"$P_{\mathrm{RPM}}$",
        units="probability",
    ),
    Observable(
        "critical_amplitude_relative",
        MEAN,
        _GROUP,
        "A_c / A_s: the smallest amplitude with T > 1 relative to the saturation field",
        _relative,
        symbol="<A_c/A_s>",
        label=r"$\langle A_c / A_s \rangle$",
        units="fraction of the saturation field",
    ),
    Observable(
        "critical_amplitude_relative_hist",
        HISTOGRAM,
        _GROUP,
        f"distribution of A_c / A_s: bin b counts the systems with b/{RELATIVE_BINS} <= "
        f"A_c/A_s < (b+1)/{RELATIVE_BINS}",
        lambda d: _bincount(np.minimum(_relative(d) * RELATIVE_BINS, RELATIVE_BINS - 1)),
        dim="relative_amplitude_bin",
        units="systems",
    ),
    Observable(
        "multiperiodic_period_hist",
        HISTOGRAM,
        _GROUP,
        "distribution of the period T at the critical amplitude A_c (systems with T > 1)",
        lambda d: _bincount(d["mp_critical_period"][_multiperiodic(d)]),
        dim="T",
        units="systems",
    ),
    Observable(
        "largest_period_hist",
        HISTOGRAM,
        _GROUP,
        "distribution of the largest period T at any amplitude (systems with an orbit)",
        lambda d: _bincount(d["mp_largest_period"][d["mp_largest_period"] > 0]),
        dim="T_max",
        units="systems",
    ),
    Observable(
        "multiperiodic_amplitudes",
        MEAN,
        _GROUP,
        "amplitudes driven per system: those where the response can change",
        lambda d: d["mp_amplitudes"],
        symbol="<n_A>",
        label=r"$\langle n_A \rangle$",
        units="amplitudes",
    ),
    Observable(
        "multiperiodic_ill_defined",
        COUNT,
        _GROUP,
        "systems whose amplitude sweep met a race condition under rule 0",
        lambda d: int((d["mp_ill_amplitude"] >= 0).sum()),
    ),
    Observable(
        "multiperiodic_not_converged",
        COUNT,
        _GROUP,
        "amplitudes whose drive found no periodic orbit within the cycle limit",
        lambda d: int(d["mp_unconverged"].sum()),
    ),
    Observable(
        "multiperiodic_ties",
        COUNT,
        _GROUP,
        "systems whose amplitude sweep met a tie (equal switching fields or margins)",
        lambda d: int((d["mp_ties"] > 0).sum()),
    ),
)
