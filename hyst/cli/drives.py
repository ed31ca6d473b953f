"""``hyst system``'s drive protocols: their options and the tables it prints.

The options (at most one protocol; :mod:`hyst.systems.drives` runs it and builds its
dataset in field units):

- ``--drive H1,H2,...``: from saturation through a list of turning fields;
- ``--symmetric A``: the symmetric cyclic drive ±A from saturation (Keim & Paulsen's
  ``hysteron``) until the state at H = 0 repeats: transient τ, period T;
- ``--asymmetric HMIN,HMAX``: the cyclic drive between two fields;
- ``--sweep``: the amplitude sweep, the symmetric drive at every distinct amplitude;
- ``--return-point H1,...,Hk --sub-field HS``: return-point memory at the turning point Hk.

Each starts from negative saturation, or from ``--start``: saturation up, a state placed at
H = 0 and relaxed there (bits or signs, element 0 first, or the integer of its bitmask), or
a random state drawn with ``--start-seed``.

A self-loop (or, under rule 0, an ill-defined transition) met on the way stops a drive
and is reported with L, n_e and the field where it started and where the drive would
break it up; it is never an error.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from hyst.model import protocols as mp
from hyst.model.systems import Systems
from hyst.plotting.layout import state_label
from hyst.systems.drives import (
    run_asymmetric,
    run_drive,
    run_return_point,
    run_sweep,
    run_symmetric,
)
from hyst.systems.text import plural

#: The protocols of ``hyst system`` (the option that selects each).
PROTOCOL_OPTIONS = ("drive", "symmetric", "asymmetric", "sweep", "return_point")

# ---- tables ------------------------------------------------------------------------------


def _h(value: float) -> str:
    return f"{value:+.6f}" if np.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _align(rows) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]


def stop_text(ds: xr.Dataset) -> str | None:
    """The line of a drive that a self-loop or an ill-defined transition stopped."""
    a = ds.attrs
    if "stopped_by" not in a:
        return None
    at = f"H = {_h(a['stop_field'])}{'+' if a['stop_direction'] > 0 else '-'}0"
    if a["stopped_by"] == "ill_defined":
        return f"stopped at {at}: ill-defined transition (a race condition under rule 0)"
    return (
        f"stopped at {at}: self-loop, L = {a['self_loop_L']}, n_e = {a['self_loop_n_e']}; "
        f"it persists while H goes on to {_h(a['self_loop_exit_field'])}"
    )


def drive_table(ds: xr.Dataset) -> str:
    """The text ``hyst system`` prints for a drive: what was driven, the outcome, every
    avalanche, and the states."""
    a, N = ds.attrs, ds.attrs["N"]
    n_ev = ds.sizes["event"]
    lines = [f"{a['protocol']}, rule {a['rule']}: {a['outcome']}"]
    if a["outcome"] == "orbit":
        lines.append(
            f"  transient tau = {a['transient']}, period T = {a['period']} "
            f"({a['cycles']} {plural(a['cycles'], 'cycle')} driven)"
        )
    stop = stop_text(ds)
    if stop:
        lines.append("  " + stop)
    lines.append(
        f"{n_ev} {plural(n_ev, 'avalanche')}, {a['flips']} {plural(a['flips'], 'flip')}, "
        f"{a['ties']} {plural(a['ties'], 'tie')}"
        + (" (tied thresholds: the lowest index switches first)" if a["ties"] else "")
        + ":"
    )
    rows = [("leg", "turning H", "at H_c", "dir", "element", "flips", "m", "outcome")]
    for k in range(n_ev):
        leg = int(ds.event_leg[k])
        up = int(ds.direction[k]) > 0
        el = int(ds.event_element[k])
        rows.append(
            (
                str(leg),
                _h(float(ds.turning_field[leg])),
                f"{_h(float(ds.H[k]))}{'+' if up else '-'}0",
                "up" if up else "down",
                str(el) if el >= 0 else "tie",
                str(int(ds.flips[k])),
                f"{int(ds.m[k]):+d}",
                str(ds.outcome.values[k]),
            )
        )
    lines += _align(rows)
    dim = "cycle" if "cycle" in ds.dims else "leg"
    name = "x_k (state at the end of cycle k)" if dim == "cycle" else "state after each leg"
    lines.append(f"{name}:" if ds.sizes[dim] else f"{name}: none (stopped before)")
    for k, s in enumerate(ds.state.values.tolist()):
        mark = ""
        if dim == "cycle" and a["outcome"] == "orbit":
            mark = "  orbit" if k >= a["transient"] else ""
        lines.append(f"  {k:>3d}  {state_label(s, N)}{mark}")
    if "return_point_memory" in a:
        lines.append(f"return-point memory: {a['return_point_memory']}")
    return "\n".join(lines)


def sweep_table(ds: xr.Dataset) -> str:
    """The text ``hyst system --sweep`` prints: the period at every distinct amplitude."""
    a = ds.attrs
    n = ds.sizes["amplitude"]
    crit = a["critical_amplitude"]
    head = (
        f"critical amplitude A_c = {crit:.6f} (T = {a['critical_period']})"
        if np.isfinite(crit)
        else "no amplitude with T > 1"
    )
    lines = [
        f"{a['protocol']}, rule {a['rule']}: {n} {plural(n, 'amplitude')} swept; {head}",
    ]
    if a["preamble"] != "done":
        lines.append(f"  the rise from saturation to H = 0 ended in a {a['preamble']}")
    if not n:
        return "\n".join(lines)
    rows = [("A from", "A below", "outcome", "tau", "T", "L")]
    for k in range(n):
        oc = str(ds.outcome.values[k])
        rows.append(
            (
                _h(float(ds.amplitude[k])),
                _h(float(ds.next_amplitude[k])),
                oc,
                str(int(ds.transient[k])) if oc == "orbit" else "",
                str(int(ds.period[k])) if oc == "orbit" else "",
                str(int(ds.self_loop_L[k])) if oc == "self_loop" else "",
            )
        )
    lines += _align(rows)
    if a["ties"]:
        lines.append(f"ties: {a['ties']} (tied thresholds: the lowest index switches first)")
    return "\n".join(lines)


# ---- the options of ``hyst system`` ------------------------------------------------------

FIELD_LIMIT = 2.0**22  # |H| of a field option (field units): quantised exactly in int64


def fields_list(text: str) -> list[float]:
    """An argparse type: comma-separated finite fields, e.g. "0.5,-0.2,0.3"."""
    import argparse

    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed (comma-separated numbers, e.g. 0.5,-0.2)"
        ) from None
    if not all(np.isfinite(v) and abs(v) < FIELD_LIMIT for v in values):
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed (finite, |H| < 2^22)")
    return values


def _pair(text: str) -> list[float]:
    import argparse

    values = fields_list(text)
    if len(values) != 2 or values[1] < values[0]:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed (HMIN,HMAX with HMIN <= HMAX)")
    return values


def _amplitude(text: str) -> float:
    import argparse

    values = fields_list(text)
    if len(values) != 1 or values[0] < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed (one amplitude A >= 0)")
    return values[0]


def add_protocol_options(p) -> None:
    """The drive-protocol options of ``hyst system`` (at most one protocol)."""
    from hyst.cli.arguments import positive_int, seed_type

    g = p.add_argument_group(
        "drive protocols (instead of the transition graph: a table of every avalanche; "
        "-o writes OUTPUT.nc and a picture of m(H), OUTPUT.png)"
    )
    one = g.add_mutually_exclusive_group()
    one.add_argument(
        "--drive",
        type=fields_list,
        metavar="H1,H2,...",
        help="from saturation (or --start) through these turning fields",
    )
    one.add_argument(
        "--symmetric",
        type=_amplitude,
        metavar="A",
        help="symmetric cyclic drive from saturation below (or --start): 0 -> +A -> -A -> 0 "
        "until the state at H = 0 repeats (transient tau, period T)",
    )
    one.add_argument(
        "--asymmetric",
        type=_pair,
        metavar="HMIN,HMAX",
        help="cyclic drive HMIN -> HMAX -> HMIN from saturation below (or --start) until it "
        "repeats",
    )
    one.add_argument(
        "--sweep",
        action="store_true",
        help="the symmetric drive at every distinct amplitude: the period T(A) and the "
        "critical amplitude (the smallest with T > 1)",
    )
    one.add_argument(
        "--return-point",
        type=fields_list,
        metavar="H1,...,HK",
        help="return-point memory at HK: drive through the fields, into a sub-loop to "
        "--sub-field and back to HK; is the state the one left?",
    )
    g.add_argument("--sub-field", type=float, default=None, metavar="HS", help="see --return-point")
    g.add_argument(
        "--start",
        default="down",
        metavar="START",
        help="where every protocol starts: saturated 'down' (all -1 at H = -inf, the "
        "default) or 'up' (all +1 at H = +inf); or a state placed at H = 0 and relaxed there: "
        "N bits, element 0 first, 1 for s_i = +1 (e.g. 1001), the same as N signs (+--+; "
        "--start=-++- where the first is a minus), or "
        "the integer whose bit i is set where s_i = +1 (e.g. 9); or 'random' (each s_i = +-1 "
        "with probability 1/2, drawn with --start-seed)",
    )
    g.add_argument(
        "--start-seed",
        type=seed_type,
        default=None,
        metavar="S",
        help="--start random: the seed of the state (it depends on S alone, not on --seed, "
        "the seed of a sampled system)",
    )
    g.add_argument(
        "--max-cycles",
        type=positive_int("max-cycles"),
        default=mp.MAX_CYCLES,
        help=f"cyclic drives: give up after this many cycles (default {mp.MAX_CYCLES})",
    )


def chosen_protocol(args) -> str | None:
    """The protocol option given (None: none), after the checks argparse cannot make."""
    from hyst.cli.arguments import UsageError

    given = [name for name in PROTOCOL_OPTIONS if getattr(args, name, None) not in (None, False)]
    if args.start != "down" and not given:
        raise UsageError(f"--start: {args.start!r} only with a drive protocol")
    if args.start_seed is not None and args.start != "random":
        raise UsageError("--start-seed: only with --start random")
    if args.sub_field is not None and "return_point" not in given:
        raise UsageError("--sub-field: only with --return-point")
    if "return_point" in given and args.sub_field is None:
        raise UsageError("--return-point: needs --sub-field HS (where the sub-loop turns)")
    if "return_point" in given and not np.isfinite(args.sub_field):
        raise UsageError(f"--sub-field: {args.sub_field} is not allowed (a finite field)")
    return given[0] if given else None


#: The signs of a state written as ``hyst system`` prints it (the minus also as U+2212).
_SIGNS = {"+": 1, "-": -1, "\u2212": -1}


def start_option(text: str, N: int, seed: int | None):
    """The start of a protocol as ``--start`` gives it, for a system of N elements: 'down',
    'up' or 'random' (with ``seed``, the one of ``--start-seed``; refused without it), or a
    state placed at H = 0, as N spins +-1. A state is N bits, element 0 first, 1 where s_i = +1
    (``1001``: s = (+1, -1, -1, +1)), the same as N signs (``+--+``), or the integer
    0 <= k < 2^N whose bit i is set where s_i = +1 (``9``; the dataset's ``start_state``).
    A string of N zeros and ones is read as bits (as an integer it would have N digits,
    at least 10^(N-1) >= 2^N for N >= 2 unless written with leading zeros). Refused with
    one line naming ``--start``, the value and what is allowed."""
    from hyst.cli.arguments import UsageError

    if text in ("down", "up"):
        return text
    if text == "random":
        if seed is None:
            raise UsageError(
                "--start: random needs --start-seed S (the state is drawn from it alone)"
            )
        return text
    if len(text) == N and set(text) <= set("01"):
        return [1 if b == "1" else -1 for b in text]
    if len(text) == N and set(text) <= set(_SIGNS):
        return [_SIGNS[c] for c in text]
    if text.isdigit() and int(text) < 2**N:
        k = int(text)
        return [1 if (k >> i) & 1 else -1 for i in range(N)]
    raise UsageError(
        f"--start: {text!r} is not allowed (down, up, random, {N} bits 0/1 or {N} signs +/- "
        f"with element 0 first, or an integer 0 <= k < 2^{N} whose bit i is s_i = +1)"
    )


def run_protocol(args, systems: Systems, protocol: str, start=None) -> xr.Dataset:
    """The dataset of the protocol the options of ``hyst system`` ask for, from ``start``
    (:func:`start_option`; by default the one ``--start`` gives, negative saturation
    where it is not given)."""
    from hyst.cli.arguments import UsageError

    seed = args.start_seed
    if start is None:
        start = start_option(args.start, systems.N, seed)
    rule, cycles = args.rule, args.max_cycles
    try:
        if protocol == "drive":
            return run_drive(systems, args.drive, rule, start, seed)
        if protocol == "symmetric":
            return run_symmetric(systems, args.symmetric, rule, cycles, start, seed)
        if protocol == "asymmetric":
            return run_asymmetric(systems, *args.asymmetric, rule, cycles, start, seed)
        if protocol == "sweep":
            return run_sweep(systems, rule, False, cycles, start, seed)
        return run_return_point(systems, args.return_point, args.sub_field, rule, start, seed)
    except ValueError as err:
        key = str(err).split(":")[0]
        option = {"fields": f"--{protocol.replace('_', '-')}", "sub_field": "--sub-field"}
        raise UsageError(str(err).replace(key, option.get(key, key), 1)) from None


def protocol_text(ds: xr.Dataset) -> str:
    """The table of a protocol's dataset."""
    return sweep_table(ds) if "amplitude" in ds.dims else drive_table(ds)
