"""Drive protocols of one system in field units: self-describing ``xarray`` datasets.

:mod:`hyst.model.protocols` drives a system exactly on the integer grid (fields in quanta
of ``2**-40``). This module checks the fields of a protocol, runs it and turns its result
into a dataset in field units (what :class:`hyst.System`'s protocol methods return and
``hyst system -o`` writes, :func:`write_protocol`):

- :func:`run_drive`: from saturation through a list of turning fields;
- :func:`run_cyclic`: a cycle of turning fields again and again, after a preamble;
- :func:`run_symmetric`: the symmetric cyclic drive ±A from saturation (Keim & Paulsen's
  ``hysteron``) until the state at H = 0 repeats: transient τ, period T;
- :func:`run_asymmetric`: the cyclic drive between two fields;
- :func:`run_sweep`: the amplitude sweep, the symmetric drive at every distinct amplitude;
- :func:`run_return_point`: return-point memory at the last turning field.

A self-loop (or, under rule 0, an ill-defined transition) met on the way stops a drive
and is reported with L, n_e and the field where it started and where the drive would
break it up; it is never an error. A bad argument raises ``ValueError`` with one line that
starts with the argument's name.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from hyst.catalogue.variables import DIMENSIONLESS, describe_single
from hyst.kernels import codes
from hyst.kernels import protocols as kp
from hyst.model import protocols as mp
from hyst.model.systems import INF, QUANTUM, Systems, quantize

FIELD = DIMENSIONLESS  # the field's unit: every dataset's field_unit attribute

#: Outcomes of one avalanche (the events' ``outcome`` codes).
EVENT_OUTCOMES = {
    codes.STABLE: "stable",
    codes.SELF_LOOP: "self_loop",
    codes.ILL_DEFINED: "ill_defined",
}


def field_value(q: int) -> float:
    """Quanta → field units (±inf for the kernels' ±INF)."""
    q = int(q)
    if q >= INF:
        return float("inf")
    if q <= -INF:
        return float("-inf")
    return q * QUANTUM


def _var(dims, values, long_name: str, description: str, units: str = "") -> xr.Variable:
    attrs = {"long_name": long_name, "description": description}
    if units:
        attrs["units"] = units
    return xr.Variable(dims, values, attrs)


def bitmasks(states: np.ndarray) -> np.ndarray:
    """States as rows of spins ±1 → bitmasks (bit i ⇔ s_i = +1)."""
    states = np.asarray(states)
    weights = np.int64(1) << np.arange(states.shape[1], dtype=np.int64)
    return ((states > 0) * weights).sum(axis=1).astype(np.int64)


def _loop_attrs(loop: mp.SelfLoop | None, N: int) -> dict:
    if loop is None:
        return {}
    out = {
        "stopped_by": loop.outcome,
        "stop_field": field_value(loop.field),
        "stop_direction": int(loop.direction),
    }
    if loop.outcome == "self_loop":
        out.update(
            {
                "self_loop_L": int(loop.L),
                "self_loop_n_e": int(loop.n_e),
                "self_loop_exit_field": field_value(loop.exit),
            }
        )
    return out


def drive_dataset(d: mp.Drive, N: int, protocol: str, rule: str) -> xr.Dataset:
    """A drive as a dataset in field units: the legs (turning field, direction), every
    switching event (dimension ``event``) and the states (after each leg of a path; x_k at
    the end of each cycle of a cyclic drive), with the outcome, τ, T and the self-loop
    that stopped it (if one did) as attributes."""
    ev = d.events
    col = {name: ev[:, k] for k, name in enumerate(kp.EVENT_COLUMNS)}
    cyclic = d.cycle_legs > 0
    state_dim = "cycle" if cyclic else "leg"
    n_states = d.states.shape[0]
    outcomes = np.array([EVENT_OUTCOMES[int(c)] for c in col["outcome"]], dtype=str)
    data = {
        "turning_field": _var(
            "leg",
            [field_value(q) for q in d.legs[:, 0]],
            "turning field",
            "the field each leg of the drive goes to (legs numbered from the start, "
            "cycle after cycle)",
            FIELD,
        ),
        "leg_direction": _var(
            "leg", d.legs[:, 1].astype(np.int8), "leg direction", "+1 up, -1 down"
        ),
        "event_leg": _var("event", col["leg"], "leg of the event", "the leg it happened on"),
        "H": _var(
            "event",
            [field_value(q) for q in col["field"]],
            "switching field H_c",
            "the field where a state stops being stable (the avalanche starts at "
            "H_c + 0+ going up, H_c - 0+ going down)",
            FIELD,
        ),
        "direction": _var("event", col["direction"].astype(np.int8), "direction", "+1 up, -1 down"),
        "event_element": _var(
            "event",
            col["element"],
            "element at its threshold",
            "the element whose threshold H_c is (-1: two elements tied there)",
        ),
        "flips": _var("event", col["flips"], "avalanche size", "element flips of the avalanche"),
        "outcome": _var(
            "event",
            outcomes,
            "outcome of the avalanche",
            "stable, self_loop (a cycle of unstable states) or ill_defined (rule 0)",
        ),
        "m": _var(
            "event", col["magnetisation"], "magnetisation m", "m = sum_i s_i after the avalanche"
        ),
        "state": _var(
            state_dim,
            bitmasks(d.states) if n_states else np.zeros(0, np.int64),
            "state",
            "bitmask, bit i set where s_i = +1: "
            + (
                "x_k, the state at the end of cycle k (x_0: after the preamble)"
                if cyclic
                else "after each leg"
            ),
        ),
        "s": _var(
            (state_dim, "element"),
            d.states.astype(np.int8).reshape(n_states, N),
            "spins s_i",
            "+1 up, -1 down",
        ),
    }
    attrs = {
        "protocol": protocol,
        "rule": str(rule),
        "N": int(N),
        "outcome": d.outcome,
        "flips": int(d.flips),
        "ties": int(d.ties),
        "preamble_legs": int(d.preamble_legs),
    }
    if cyclic:
        attrs.update(
            {
                "transient": int(d.transient),
                "period": int(d.period),
                "cycles": int(d.cycles),
                "cycle_legs": int(d.cycle_legs),
            }
        )
    attrs.update(_loop_attrs(d.loop, N))
    return describe_single(xr.Dataset(data, attrs=attrs))


def sweep_dataset(sw: mp.Sweep, N: int, rule: str) -> xr.Dataset:
    """An amplitude sweep as a dataset in field units: per distinct amplitude A
    (dimension ``amplitude``) the outcome of the symmetric drive ±A, τ, T and the self-loop
    that stopped it; the critical amplitude (smallest A with T > 1) as an attribute."""
    n = sw.amplitudes.shape[0]
    A = np.array([field_value(q) for q in sw.amplitudes])
    data = {
        "next_amplitude": _var(
            "amplitude",
            [field_value(q) for q in sw.next_amplitudes],
            "next distinct amplitude",
            "the response at A is that of every amplitude up to this one (inf: all larger)",
            FIELD,
        ),
        "outcome": _var(
            "amplitude",
            np.array(sw.outcomes, dtype=str).reshape(n),
            "outcome",
            "orbit, self_loop, ill_defined (rule 0) or not_converged",
        ),
        "transient": _var("amplitude", sw.transients, "transient tau", "cycles before the orbit"),
        "period": _var("amplitude", sw.periods, "period T", "cycles of the orbit (-1: no orbit)"),
        "self_loop_L": _var(
            "amplitude",
            sw.loops,
            "self-loop length L",
            "of the self-loop that stopped it (0: none)",
        ),
    }
    coords = {
        "amplitude": _var(
            "amplitude", A, "amplitude A", "the symmetric drive 0 -> +A -> -A -> 0", FIELD
        )
    }
    crit = sw.critical_amplitude
    attrs = {
        "protocol": "amplitude sweep of the symmetric drive from saturation",
        "rule": str(rule),
        "N": int(N),
        "critical_amplitude": float("nan") if crit is None else field_value(crit),
        "critical_period": int(sw.critical_period) if crit is not None else 0,
        "preamble": sw.preamble,
        "ties": int(sw.ties),
    }
    return describe_single(xr.Dataset(data, coords=coords, attrs=attrs))


def return_point_dataset(rp: mp.ReturnPoint, N: int, protocol: str, rule: str) -> xr.Dataset:
    """Return-point memory: the drive's dataset, with ``return_point_memory`` ('holds',
    'fails' or 'undetermined' where the drive stopped first) and the two states."""
    ds = drive_dataset(rp.drive, N, protocol, rule)
    verdict = {True: "holds", False: "fails", None: "undetermined"}[rp.holds]
    ds.attrs["return_point_memory"] = verdict
    for key, state in (("state_left", rp.left), ("state_returned", rp.returned)):
        if state.size:
            ds.attrs[key] = int(bitmasks(state.reshape(1, N))[0])
    return ds


# ---- running a protocol ------------------------------------------------------------------


def _fields(values, key: str) -> np.ndarray:
    """Field values (field units) → quanta; one line naming ``key`` where not allowed."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{key}: {values.tolist()} is not allowed (finite fields)")
    try:
        return quantize(values)
    except ValueError:
        raise ValueError(
            f"{key}: {values.tolist()} is not allowed (|H| below 2^22 field units)"
        ) from None


def _fmt(values) -> str:
    return ", ".join(f"{v:g}" for v in np.atleast_1d(values))


def run_drive(
    systems: Systems, fields, rule: str = "1", start="down", seed: int | None = None
) -> xr.Dataset:
    """From saturation (``start``: 'down', all s_i = -1 at H = -inf; 'up', +inf), or from a
    state at H = 0 (``start``: N spins +-1, or 'random' with ``seed``), through the turning
    ``fields`` (field units)."""
    begin = _start(start, systems.N, seed)
    d = mp.drive(systems, _fields(fields, "fields"), rule, begin)
    text = f"path from {_start_text(start, begin)} to {_fmt(fields)}"
    return _started(drive_dataset(d, systems.N, text, rule), begin)


def run_cyclic(
    systems: Systems,
    cycle,
    preamble=(),
    rule: str = "1",
    start="down",
    max_cycles: int = mp.MAX_CYCLES,
    seed: int | None = None,
) -> xr.Dataset:
    """From saturation (or a state at H = 0: ``start``) through ``preamble``, then the
    turning fields of ``cycle`` again and again until the state at the end of a cycle
    repeats."""
    begin = _start(start, systems.N, seed)
    d = mp.cyclic_drive(
        systems,
        _fields(cycle, "cycle"),
        _fields(preamble, "preamble"),
        rule,
        begin,
        max_cycles,
    )
    text = f"cyclic drive through {_fmt(cycle)}" + (f" after {_fmt(preamble)}" if preamble else "")
    return _started(drive_dataset(d, systems.N, text, rule), begin)


def run_symmetric(
    systems: Systems,
    amplitude: float,
    rule: str = "1",
    max_cycles: int = mp.MAX_CYCLES,
    start="down",
    seed: int | None = None,
) -> xr.Dataset:
    """The symmetric cyclic drive of amplitude A from saturation (or a state at H = 0:
    ``start``): 0 -> +A -> -A -> 0."""
    A = float(amplitude)
    if not A >= 0:
        raise ValueError(f"amplitude: {A:g} is not allowed (A >= 0)")
    begin = _start(start, systems.N, seed)
    q = int(_fields(A, "amplitude")[0])
    d = mp.symmetric_drive(systems, q, rule, max_cycles, start=begin)
    text = f"symmetric drive, amplitude {A:g}" + _from_text(start, begin)
    return _started(drive_dataset(d, systems.N, text, rule), begin)


def run_asymmetric(
    systems: Systems,
    h_min: float,
    h_max: float,
    rule: str = "1",
    max_cycles=mp.MAX_CYCLES,
    start="down",
    seed: int | None = None,
) -> xr.Dataset:
    """The cyclic drive between H_min and H_max >= H_min, from saturation below (or from
    ``start``)."""
    lo, hi = _fields([h_min, h_max], "fields")
    if hi < lo:
        raise ValueError(f"h_max: {h_max:g} is not allowed (h_max >= h_min = {h_min:g})")
    begin = _start(start, systems.N, seed)
    d = mp.asymmetric_drive(systems, int(lo), int(hi), rule, max_cycles, start=begin)
    text = f"asymmetric drive between {h_min:g} and {h_max:g}" + _from_text(start, begin)
    return _started(drive_dataset(d, systems.N, text, rule), begin)


def run_sweep(
    systems: Systems,
    rule: str = "1",
    first_only: bool = False,
    max_cycles=mp.MAX_CYCLES,
    start="down",
    seed: int | None = None,
) -> xr.Dataset:
    """The symmetric drive at every distinct amplitude, from A = 0 up (until the first
    T > 1 with ``first_only``), from saturation or from ``start``."""
    begin = _start(start, systems.N, seed)
    sw = mp.amplitude_sweep(systems, rule, first_only, max_cycles, start=begin)
    ds = sweep_dataset(sw, systems.N, rule)
    if mp.is_state(begin) or begin != -1:
        ds.attrs["protocol"] = "amplitude sweep of the symmetric drive" + _from_text(start, begin)
    return _started(ds, begin)


def run_return_point(
    systems: Systems,
    fields,
    sub_field: float,
    rule: str = "1",
    start="down",
    seed: int | None = None,
) -> xr.Dataset:
    """Drive through ``fields`` to their last one H_k, into the sub-loop to ``sub_field``
    and back to H_k: does the state come back?"""
    q = _fields(fields, "fields")
    if q.size == 0:
        raise ValueError("fields: no turning field")
    sub = int(_fields(sub_field, "sub_field")[0])
    sign = _start(start, systems.N, seed)
    last_dir = int(mp.turning_directions(q, sign)[-1])
    if (sub - int(q[-1])) * last_dir > 0:
        raise ValueError(
            f"sub_field: {sub_field:g} is not allowed (a sub-loop turns back from the last "
            f"turning field {float(np.atleast_1d(fields)[-1]):g})"
        )
    rp = mp.return_point_memory(systems, q, sub, rule, sign)
    last = _fmt(np.atleast_1d(fields)[-1])
    text = f"return-point memory at {last} (path {_fmt(fields)}, sub-loop to {sub_field:g})"
    return _started(return_point_dataset(rp, systems.N, text + _from_text(start, sign), rule), sign)


def _start(start, N: int, seed: int | None = None):
    """A drive's start: −1 ('down': all −1 at H = −inf), +1 ('up': all +1 at H = +inf), or
    a state placed at H = 0 (int8 spins ±1): N spins ±1 given, or 'random', drawn with
    ``seed`` (each spin ±1 with probability 1/2)."""
    if isinstance(start, str):
        if start == "down":
            return -1
        if start == "up":
            return 1
        if start == "random":
            if seed is None or isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise ValueError(
                    f"seed: {seed!r} is not allowed with start='random' (an int: the state "
                    "depends only on it)"
                )
            rng = np.random.default_rng(seed)
            return rng.choice(np.array([-1, 1], np.int8), N)
        raise ValueError(
            f"start: {start!r} is not allowed ('down', 'up', 'random' or {N} spins +-1)"
        )
    return mp.start_state(start, N)


def _start_text(start, begin) -> str:
    if not mp.is_state(begin):
        return f"saturation ({start})"
    mask = int(bitmasks(np.asarray(begin).reshape(1, -1))[0])
    return f"the state {mask} at H = 0" + (" (random)" if isinstance(start, str) else "")


def _from_text(start, begin) -> str:
    """'' from negative saturation (the protocol's default), else ', from ...'."""
    if not mp.is_state(begin) and begin == -1:
        return ""
    return ", from " + _start_text(start, begin)


def _started(ds: xr.Dataset, begin) -> xr.Dataset:
    """A drive from a state: attribute ``start_state``, its bitmask (bit i set where
    s_i = +1; relaxed at H = 0 before the first leg). Saturated starts add nothing."""
    if mp.is_state(begin):
        ds.attrs["start_state"] = int(bitmasks(np.asarray(begin).reshape(1, -1))[0])
    return ds


def write_protocol(ds: xr.Dataset, stem) -> list:
    """OUTPUT.nc (the dataset) and OUTPUT.png (m(H), or T(A) for a sweep)."""
    from pathlib import Path

    from hyst.plotting import save
    from hyst.plotting.drives import fig_response, fig_sweep
    from hyst.provenance.files import write_dataset

    stem = Path(stem)
    nc = write_dataset(ds, stem.with_name(stem.name + ".nc"))
    fig = fig_sweep(ds) if "amplitude" in ds.dims else fig_response(ds)
    return [nc, *save(fig, stem, formats=("png",))]
