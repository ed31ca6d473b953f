"""The drive protocols of :class:`hyst.System` (exact, any N: :mod:`hyst.model.protocols`),
defined here and bound in the class: methods of ``System`` in every other respect."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from hyst.model.addressing import Addressability, addressability
from hyst.model.protocols import MAX_CYCLES
from hyst.model.systems import dequantize
from hyst.systems import drives

if TYPE_CHECKING:  # pragma: no cover - imports for the annotations only
    import xarray


def drive(
    self,
    fields: Sequence[float],
    start: str | Sequence[int] = "down",
    rule: str = "1",
    seed: int | None = None,
) -> xarray.Dataset:
    """Drive from saturation through turning fields, each leg reaching its turning
    field t on the far side (a threshold exactly at t switches). Every avalanche
    (dimension ``event``: switching field ``H``, direction, element, flips,
    magnetisation ``m`` after it, outcome), the turning field of each leg and the state
    after it. A self-loop met on the way stops the drive: attributes ``stopped_by``,
    ``stop_field``, ``self_loop_L``, ``self_loop_n_e`` and ``self_loop_exit_field``
    (where the drive would break it up), never an error.

    Parameters
    ----------
    fields : sequence of float
        The turning fields, in turn (field units).
    start : {"down", "up", "random"} or sequence of int, default "down"
        Saturated down (all s_i = −1 at H = −∞) or up (all +1 at H = +∞); or a state
        placed at H = 0 and relaxed there under the rule: N spins ±1, or "random"
        (each spin ±1 with probability 1/2, drawn with the int ``seed``).
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule.
    seed : int, optional
        The seed of a ``start="random"`` state (required with it: the state depends only
        on it; unused otherwise).

    Examples
    --------
    >>> import hyst
    >>> sy = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
    >>> d = sy.drive([1.0, -1.0])
    >>> d.attrs["outcome"], d.attrs["self_loop_L"], round(d.attrs["stop_field"], 9)
    ('self_loop', 4, -0.2)
    """
    return drives.run_drive(self._systems, fields, rule, start, seed)

def cyclic_drive(
    self,
    cycle: Sequence[float],
    preamble: Sequence[float] = (),
    rule: str = "1",
    start: str | Sequence[int] = "down",
    max_cycles: int = MAX_CYCLES,
    seed: int | None = None,
) -> xarray.Dataset:
    """From saturation through the turning fields of ``preamble``, then those of
    ``cycle`` again and again until the state x_k at the end of a cycle equals an
    earlier one: attributes ``transient`` τ and ``period`` T (outcome 'orbit'), the
    states x_k (dimension ``cycle``) and every avalanche, as in :meth:`drive`.

    Parameters
    ----------
    cycle : sequence of float
        The turning fields of one cycle (field units).
    preamble : sequence of float, default ()
        Turning fields driven once, before the first cycle.
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule.
    max_cycles : int
        Give up (outcome 'not_converged') after this many cycles.
    start, seed
        The start: saturation, a state or a seeded random one, as in :meth:`drive`.
    """
    return drives.run_cyclic(self._systems, cycle, preamble, rule, start, max_cycles, seed)

def symmetric_drive(
    self,
    amplitude: float,
    rule: str = "1",
    max_cycles: int = MAX_CYCLES,
    start: str | Sequence[int] = "down",
    seed: int | None = None,
) -> xarray.Dataset:
    """The symmetric cyclic drive (the protocol of Keim & Paulsen's ``hysteron``): from
    all −1 at H = −∞ up to 0 (x_0), then 0 → +A → −A → 0 until the state at H = 0
    repeats: transient τ, period T (T > 1: a multiperiodic orbit).

    Parameters
    ----------
    amplitude : float
        The amplitude A ≥ 0 (field units).
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule.
    max_cycles : int
        Give up (outcome 'not_converged') after this many cycles.
    start, seed
        The start: saturation, a state or a seeded random one, as in :meth:`drive`.
    """
    return drives.run_symmetric(self._systems, amplitude, rule, max_cycles, start, seed)

def asymmetric_drive(
    self,
    h_min: float,
    h_max: float,
    rule: str = "1",
    max_cycles: int = MAX_CYCLES,
    start: str | Sequence[int] = "down",
    seed: int | None = None,
) -> xarray.Dataset:
    """The cyclic drive H_min → H_max → H_min from all −1 at H = −∞ until the state
    at H_min repeats (its memory is the hysteron latch of Lindeman, Jalowiec & Keim
    2024).

    Parameters
    ----------
    h_min : float
        The lower turning field H_min (field units).
    h_max : float
        The upper turning field H_max ≥ H_min (field units).
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule.
    max_cycles : int
        Give up (outcome 'not_converged') after this many cycles.
    start, seed
        The start: saturation, a state or a seeded random one, as in :meth:`drive`.
    """
    return drives.run_asymmetric(self._systems, h_min, h_max, rule, max_cycles, start, seed)

def distinct_amplitudes(self) -> np.ndarray:
    """The distinct absolute values of the thresholds H_i^±(S) over all 2^N states S
    (field units, increasing, N ≤ 24): the symmetric drive's response is the same
    for every amplitude A from one of them up to the next."""
    from hyst.model.protocols import distinct_amplitudes

    return dequantize(distinct_amplitudes(self._systems))

def amplitude_sweep(
    self,
    rule: str = "1",
    first_only: bool = False,
    max_cycles: int = MAX_CYCLES,
    start: str | Sequence[int] = "down",
    seed: int | None = None,
) -> xarray.Dataset:
    """The symmetric drive at every amplitude where its response can change, from
    A = 0 up: per amplitude (dimension ``amplitude``) the outcome, τ, T and the L of a
    self-loop that stopped it; the critical amplitude A_c (smallest with T > 1; NaN:
    none) and its period as attributes. N. Keim's ``hysteron`` package's
    ``amplitude_sweep`` gives the same A_c where it applies (rule 1, no self-loop;
    ``tests/test_peer_protocols.py``).

    Building the dataset costs more than the sweep of a small system (about 0.3 ms against
    a few µs at N = 3): for a loop over many single systems, :func:`hyst.amplitude_sweeps`
    with ``dataset=False`` returns the sweep's summary (A_c, its period, the first
    self-loop, …) as NumPy arrays at a tenth of the cost or less, and a batch of systems in
    one call costs less again.

    Parameters
    ----------
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule.
    first_only : bool, default False
        Stop at the first amplitude with T > 1.
    max_cycles : int
        Give up a drive (outcome 'not_converged') after this many cycles.
    start, seed
        The start: saturation, a state or a seeded random one, as in :meth:`drive`.
    """
    return drives.run_sweep(self._systems, rule, first_only, max_cycles, start, seed)

def return_point_memory(
    self,
    fields: Sequence[float],
    sub_field: float,
    rule: str = "1",
    start: str | Sequence[int] = "down",
    seed: int | None = None,
) -> xarray.Dataset:
    """Drive through ``fields`` to their last one H_k (state S_k), into a sub-loop to
    ``sub_field`` and back to H_k. Attribute ``return_point_memory``: 'holds' (the
    state is S_k again), 'fails', or 'undetermined' (a self-loop stopped the drive
    first); the drive as in :meth:`drive`.

    Parameters
    ----------
    fields : sequence of float
        The turning fields of the path, in turn (field units), the last one H_k.
    sub_field : float
        Where the sub-loop turns back (field units), on the side H_k was reached from.
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule.
    start, seed
        The start: saturation, a state or a seeded random one, as in :meth:`drive`.
    """
    return drives.run_return_point(self._systems, fields, sub_field, rule, start, seed)

def addressable_states(self, rule: str = "1", reachable: bool = True) -> Addressability:
    """The stable states one drive cycle from saturation (up to H1, back down to H2 ≤ H1,
    read there) leaves the system in under ``rule`` and, with ``reachable`` (N ≤ 24), those
    any field history reaches: exact, N ≤ 64, states as bitmasks (bit i set: s_i = +1).

    Parameters
    ----------
    rule : {"0", "1", "1p", "2"}, default "1"
        The race-condition rule of every relaxation.
    reachable : bool, default True
        Also list the states reachable by any field history (the transition graph
        from saturation; N ≤ 24).

    Examples
    --------
    >>> import hyst
    >>> a = hyst.System([1.0, 2.0], [-1.0, -2.0], [[0, 0], [0, 0]]).addressable_states()
    >>> a.addressable.tolist(), a.reachable.tolist(), a.all_addressable
    ([0, 1, 2, 3], [0, 1, 2, 3], True)
    """
    return addressability(self._systems, rule, reachable=reachable)


#: The methods bound in :class:`hyst.System`.
METHODS = (
    "drive",
    "cyclic_drive",
    "symmetric_drive",
    "asymmetric_drive",
    "distinct_amplitudes",
    "amplitude_sweep",
    "return_point_memory",
    "addressable_states",
)
