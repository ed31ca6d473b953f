"""Bilinear two-state elements and serial chains of them, in exact integer form.

One element (Supplemental, "Conventions") has two linear branches of unit slope,

    f_i = x_i − d_i s_i,        s_i = ±1,

the lower branch s_i = −1 exists for x_i ≤ x_i^+ and the upper branch s_i = +1
for x_i ≥ x_i^−: the element jumps up at x_i = x_i^+ and down at x_i = x_i^−.
σ_i^0 = x_i^+ − x_i^− ≥ 0 is its physical span (σ_i^0 = 0: a *spin-like*
element) and d_i its force jump. The area of one quasistatic loop under
displacement control is the dissipated energy ΔE_i = d_i σ_i^0 (the
Supplemental's convention; the main text writes 2 d_i σ_i^0): an element is
*passive* (dissipative) when d_i > 0 and *active* (it injects energy) when
d_i < 0.

A *serial chain* puts N such elements, and optionally one linear spring of
stiffness k (in units of the elements' unit slope), in series; the imposed
total displacement is U = Σ_i x_i (+ the spring's extension).

Exactness
---------
Displacements x_i^±, force jumps d_i and the drive U are integer multiples of
``hyst.model.systems.QUANTUM`` (int64), the same quantum as the hysteron fields, so the
mapped hysteron parameters (``hyst.networks.mapping``) and every mechanical
comparison (``hyst.networks.mechanics``) are exact integer arithmetic. The
spring stiffness is a positive rational k = p/q (``fractions.Fraction``); no
spring is k = ∞ (p/q = 1/0).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hyst.model.systems import dequantize, quantize


def spring_ratio(spring) -> tuple[int, int]:
    """(p, q) with k = p/q in lowest terms; (1, 0) for no spring (k = ∞).

    ``spring`` is None (no spring), a positive int, a ``Fraction`` or a string
    such as ``"3/2"``; floats are refused because k enters the exact mapping.
    """
    if spring is None:
        return 1, 0
    if isinstance(spring, float):
        raise ValueError(
            f"spring: {spring!r} is a float; give the stiffness as an int, a Fraction or 'p/q'"
        )
    try:
        k = Fraction(spring)
    except (TypeError, ValueError):
        raise ValueError(f"spring: {spring!r} is not a rational stiffness (int or 'p/q')") from None
    if k <= 0:
        raise ValueError(f"spring: {spring!r} is not allowed (stiffness k > 0)")
    return k.numerator, k.denominator


@dataclass(frozen=True)
class SerialChains:
    """A batch of serial chains of N bilinear elements (and an optional spring).

    Attributes
    ----------
    x_minus, x_plus, d : int64 (samples, N)
        Down / up switching displacements x_i^∓ and force jumps d_i, in units of
        ``QUANTUM`` (x_i^+ ≥ x_i^−).
    spring : Fraction or None
        Stiffness k of a linear spring in series with the elements (None: none).
    """

    x_minus: np.ndarray
    x_plus: np.ndarray
    d: np.ndarray
    spring: Fraction | None = None

    def __post_init__(self):
        arrays = (self.x_minus, self.x_plus, self.d)
        for name, a in zip(("x_minus", "x_plus", "d"), arrays, strict=True):
            if not isinstance(a, np.ndarray) or a.dtype != np.int64 or a.ndim != 2:
                raise TypeError(f"SerialChains: {name} must be an int64 array (samples, N)")
        if not (self.x_plus.shape == self.x_minus.shape == self.d.shape):
            raise ValueError("SerialChains: x_minus, x_plus and d must have the same shape")
        if self.N < 1:
            raise ValueError("SerialChains: a chain needs at least one element")
        if np.any(self.x_plus < self.x_minus):
            bad = np.argwhere(self.x_plus < self.x_minus)[0]
            raise ValueError(
                f"x_plus: element {tuple(bad)} has x_plus < x_minus (spans sigma0 >= 0 only)"
            )
        p, q = spring_ratio(self.spring)
        if self.spring is not None:
            object.__setattr__(self, "spring", Fraction(p, q))

    @classmethod
    def from_floats(cls, x_minus, x_plus, d, spring=None) -> SerialChains:
        """Quantise float parameters (one chain (N,) or a batch (samples, N))."""
        xm, xp, dd = (np.atleast_2d(quantize(a)) for a in (x_minus, x_plus, d))
        return cls(xm, xp, dd, spring)

    @property
    def samples(self) -> int:
        """The number of sampled chains (the leading axis of the arrays)."""
        return self.x_minus.shape[0]

    @property
    def N(self) -> int:
        """The number of elements N of each chain."""
        return self.x_minus.shape[1]

    @property
    def ratio(self) -> tuple[int, int]:
        """(p, q) with k = p/q; (1, 0) without a spring."""
        return spring_ratio(self.spring)

    @property
    def sigma0(self) -> np.ndarray:
        """Physical spans σ_i^0 = x_i^+ − x_i^− (int64 quanta)."""
        return self.x_plus - self.x_minus

    @property
    def dissipated_energy(self) -> np.ndarray:
        """ΔE_i = d_i σ_i^0 per quasistatic loop (float; > 0 passive, < 0 active)."""
        return dequantize(self.d) * dequantize(self.sigma0)

    @property
    def passive(self) -> np.ndarray:
        """Passive elements (d_i > 0: a loop dissipates energy), per sample and element."""
        return self.d > 0

    @property
    def active(self) -> np.ndarray:
        """Active elements (d_i < 0: a loop releases energy), per sample and element."""
        return self.d < 0

    def __getitem__(self, index) -> SerialChains:
        index = np.atleast_1d(np.arange(self.samples)[index])
        return SerialChains(self.x_minus[index], self.x_plus[index], self.d[index], self.spring)

    def to_floats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x_minus, x_plus, d) as float64 displacement units."""
        return dequantize(self.x_minus), dequantize(self.x_plus), dequantize(self.d)


def branch_force_ranges(x_minus, x_plus, d):
    """Forces at which each branch of one element exists under force control (floats).

    The lower branch (s = −1) holds for f ≤ x^+ + d, the upper one (s = +1) for
    f ≥ x^− − d. Returns (f_up_jump, f_down_jump) = (x^+ + d, x^− − d): the
    forces at which the element jumps up and down.
    """
    return x_plus + d, x_minus - d


def force_control_gap(x_minus, x_plus, d):
    """The force range with no stable branch under force control, or None.

    Non-empty iff x^− − d > x^+ + d, i.e. d < −σ^0/2 (Supplemental,
    "Conventions": such an element oscillates between its branches there).
    """
    f_up, f_down = branch_force_ranges(x_minus, x_plus, d)
    return (f_up, f_down) if f_down > f_up else None
