"""``hyst.System``: one system of N coupled hysterons, looked at closely.

A system has bare thresholds h_i^± and couplings c_ij (field units; quantised to
multiples of ``2**-40``, so every threshold sum is exact). In state S the element
thresholds are H_i^±(S) = h_i^± − Σ_j c_ij s_j. The methods wrap what ``hyst system``
prints and draws: the transition graph under a race-condition rule, its self-loops with
the field range where each is a cycle of the dynamics, the picture, the saturated
hysteresis loop m(H), the response to any field protocol, the drive protocols of N. Keim's
``hysteron`` package and more (a path of turning fields, the symmetric and asymmetric cyclic
drives, the amplitude sweep, return-point memory: exact, any N, self-loops reported), the
file ``hyst system --file`` reads, and the parameters in the conventions of the
``hysteron`` package and of states 0/1 (:mod:`hyst.systems.conventions`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hyst.catalogue.variables import describe_single
from hyst.model.flip_times import flip_times_for, quantize_flip_times
from hyst.model.random_order import RandomOrderAnalysis, random_order_analysis
from hyst.model.systems import Systems, dequantize, quantize, rule_code, shortest_fields
from hyst.model.transition_graph import TransitionGraph, transition_graph
from hyst.systems import conventions, system_drives
from hyst.systems.files import load_system, sampled_system, system_from_mapping
from hyst.systems.graphs import report, to_networkx
from hyst.systems.self_loops import SelfLoop, self_loops

if TYPE_CHECKING:  # pragma: no cover - imports for the annotations only
    import networkx
    import xarray
    from matplotlib.figure import Figure


#: Suffixes :meth:`System.to_file` writes and :meth:`System.from_file` reads.
FILE_FORMATS = (".yaml", ".yml", ".json", ".npz")


class System:
    """One system of N hysterons with bare thresholds h_i^±, couplings c_ij (c_ii = 0).

    In state S (s_i = ±1) element i has the thresholds H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j
    (field units): an element down flips up where the field H rises above H_i^+(S), one
    up flips down where H falls below H_i^−(S). Build one from parameters, from a file
    (:meth:`from_file`, the YAML/JSON/NPZ that ``hyst system --file`` reads), re-draw the
    very system the sampler drew (:meth:`from_ensemble`, as ``hyst system --couplings ...
    --index`` does), or convert from another convention (:meth:`from_hysteron`,
    :meth:`from_zero_one`). Parameters are quantised to multiples of 2**-40. Bad parameters
    raise ``ValueError`` with one line naming the key and what is allowed.

    Parameters
    ----------
    h_plus : sequence of float
        Bare up thresholds h_i^+ (field units), N ≥ 2 numbers.
    h_minus : sequence of float
        Bare down thresholds h_i^− (field units), N numbers (h_i^− > h_i^+ is allowed: a
        negative span).
    couplings : sequence of sequences of float, or a pair of them
        Couplings c_ij (field units), N × N with a zero diagonal; c_ij is the effect of
        element j on element i. A pair ``(c_plus, c_minus)`` gives direction-dependent
        couplings (Paulsen, arXiv 2409.07726): H_i^+(S) = h_i^+ − Σ_j c^+_ij s_j and
        H_i^−(S) = h_i^− − Σ_j c^−_ij s_j; c_plus = c_minus is the paper's model.
    flip_times : sequence of float, optional
        Flip times τ_i > 0 of the elements (any unit: only ratios matter), read by the
        flip-time rule ``rule="tau"``: of the unstable elements, the one with the largest
        margin / τ_i flips first (:mod:`hyst.model.flip_times`). Quantised to multiples of
        2**-40; :meth:`with_flip_time_spread` draws them log-uniformly.

    Examples
    --------
    >>> import hyst
    >>> sy = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
    >>> [(loop.L, loop.n_e) for loop in sy.self_loops()]
    [(4, 2)]
    """

    def __init__(
        self,
        h_plus: Sequence[float],
        h_minus: Sequence[float],
        couplings: Sequence[Sequence[float]],
        *,
        flip_times: Sequence[float] | None = None,
    ) -> None:
        data = {"h_plus": h_plus, "h_minus": h_minus}
        if _is_pair(couplings):
            data["c_plus"], data["c_minus"] = couplings
        else:
            data["c"] = couplings
        self._systems = system_from_mapping(data, "System")
        self._flip_times = None
        if flip_times is not None:
            self._flip_times = quantize_flip_times(flip_times, self._systems.N)

    @classmethod
    def _wrap(cls, systems: Systems, flip_times=None) -> System:
        self = cls.__new__(cls)
        self._systems = systems
        self._flip_times = flip_times
        return self

    # ---- flip times: the race settled by each element's speed --------------------------------

    @property
    def flip_times(self) -> np.ndarray | None:
        """The flip times τ_i (quantised, as floats), or None when none were given."""
        ft = getattr(self, "_flip_times", None)
        return None if ft is None else dequantize(ft)

    def with_flip_times(self, flip_times: Sequence[float]) -> System:
        """This system with flip times that the flip-time rule ``rule="tau"`` reads.

        Parameters
        ----------
        flip_times : sequence of float
            Flip times τ_i > 0, one per element (any unit: only ratios matter); quantised to
            multiples of 2**-40.
        """
        return System._wrap(self._systems, quantize_flip_times(flip_times, self.N))

    def with_flip_time_spread(self, decades: float, seed: int = 0) -> System:
        """This system with flip times drawn log-uniformly, τ_i = 10^(decades·u_i) with u_i
        uniform in [0, 1), from a stream keyed by (N, decades) under ``seed`` (the same
        numbers on every machine).

        Parameters
        ----------
        decades : float
            The spread D of the flip times in decades, 0 ≤ D ≤ 6; D = 0 gives equal flip
            times, and the flip-time rule is then rule 1.
        seed : int, default 0
            Base seed of the draw.
        """
        return System._wrap(self._systems, flip_times_for(self.N, decades, seed))

    def random_order(self) -> RandomOrderAnalysis:
        """Every transition out of every potentially stable state relaxed under random order
        (each unstable element equally likely to flip next; N ≤ 18): the stable states each
        can end in with their probabilities and the probability of never settling (a trap:
        a closed set of unstable states), :mod:`hyst.model.random_order`.

        Examples
        --------
        >>> import hyst
        >>> a = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]]).random_order()
        >>> a.trappable, a.mean_trap_probability
        (True, 0.5)
        """
        return random_order_analysis(self._systems)

    @classmethod
    def from_file(cls, path: str | Path) -> System:
        """Read a system file: the format of ``hyst system --file``.

        Parameters
        ----------
        path : str or Path
            A YAML, JSON or NPZ file with ``h_plus``, ``h_minus`` (N numbers each) and ``c``
            (N × N, zero diagonal), field units.
        """
        return cls._wrap(load_system(path))

    @classmethod
    def from_ensemble(
        cls,
        couplings: str,
        N: int,
        NJ0: float,
        *,
        samples: int,
        index: int,
        seed: int = 0,
        spans: str = "hysteron",
        direction_asymmetry: float = 0.0,
    ) -> System:
        """The system ``hyst point`` and the pipeline's sampler drew at one sweep point.

        Parameters
        ----------
        couplings : str
            The interaction ensemble (``hyst point --help`` lists them).
        N : int
            Number of elements.
        NJ0 : float
            Coupling strength N·J0 (couplings drawn in [−J0, J0]).
        samples : int
            Samples of the point: it sets the size of the last chunk, which changes that
            chunk's draw.
        index : int
            The sample (0-based, < ``samples``).
        seed : int, default 0
            Base seed of the point.
        spans : str, default "hysteron"
            The span ensemble.
        direction_asymmetry : float, default 0
            α in [0, 1] of direction-dependent couplings (random and symmetric couplings):
            c^− = √(1 − α²) c^+ + α c′ (``hyst.model.ensembles``); 0 is the paper's model.
        """
        return cls._wrap(
            sampled_system(couplings, spans, N, NJ0, seed, samples, index, direction_asymmetry)
        )

    # ---- other conventions -----------------------------------------------------------------

    @classmethod
    def from_hysteron(cls, interactions, Hon, Hoff) -> System:
        """The system N. Keim and J. Paulsen's ``hysteron`` package simulates.

        Its spins are s_i = ±1, the local field f_i = H + Σ_j s_j J_ji
        (``state @ interactions``), a down element flips up where f_i ≥ Hon_i and an up
        one down where f_i ≤ Hoff_i. A self-coupling J_ii is folded into the thresholds:

            h_i^+ = Hon_i + J_ii,   h_i^− = Hoff_i − J_ii,   c_ij = J_ji  (i ≠ j),

        so every state has the same thresholds, and every drive the same response, in both.

        Parameters
        ----------
        interactions : array_like
            Its ``interactions``, N × N: ``interactions[j, i]`` = J_ji, the effect of
            element j on element i (field units); its diagonal is allowed.
        Hon : array_like
            The local field where each element flips up (field units), N numbers.
        Hoff : array_like
            The local field where each element flips down (field units), N numbers.

        Examples
        --------
        >>> import hyst
        >>> sy = hyst.System.from_hysteron([[0.5, 0], [0.25, 0]], [0.125, 0.375], [-0.125, 0])
        >>> sy.h_plus.tolist(), sy.h_minus.tolist(), sy.couplings.tolist()
        ([0.625, 0.375], [-0.625, 0.0], [[0.0, 0.25], [0.0, 0.0]])
        """
        return cls(*conventions.from_hysteron(interactions, Hon, Hoff))

    def to_hysteron(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(interactions, Hon, Hoff): the arguments of the ``hysteron`` package for
        this system (``interactions`` = cᵀ with a zero diagonal, Hon = h^+, Hoff = h^−),
        e.g. ``hysteron.run_event_extended(state, *sy.to_hysteron(), amplitude)``.
        :meth:`from_hysteron` reads them back to the same system, bit for bit."""
        if self.direction_dependent:
            raise ValueError(
                "to_hysteron: direction-dependent couplings (c_plus != c_minus) have no form in "
                "this convention"
            )
        return conventions.to_hysteron(self.h_plus, self.h_minus, self.couplings)

    @classmethod
    def from_zero_one(cls, u_plus, u_minus, J) -> System:
        """The system written with states 0/1 (n_i = (1 + s_i)/2).

        Its switching fields are U_i^±(S) = u_i^± − Σ_j J_ij n_j, a self-coupling J_ii
        acting on an element that is up. With n_j = (1 + s_j)/2:

            c_ij = J_ij / 2  (i ≠ j),
            h_i^+ = u_i^+ − ½ Σ_{j≠i} J_ij,
            h_i^− = u_i^− − J_ii − ½ Σ_{j≠i} J_ij.

        Exact when the J_ij are multiples of 2**-39 field units.

        Parameters
        ----------
        u_plus : array_like
            Thresholds u_i^+ of the up flips (field units), N numbers.
        u_minus : array_like
            Thresholds u_i^− of the down flips (field units), N numbers.
        J : array_like
            Couplings J_ij, N × N, the effect of element j on element i (field units); its
            diagonal is allowed.

        Examples
        --------
        >>> import hyst
        >>> sy = hyst.System.from_zero_one([0.625, 0.25], [0.375, 0], [[0, 1], [-1, 0]])
        >>> sy.h_plus.tolist(), sy.h_minus.tolist(), sy.couplings.tolist()
        ([0.125, 0.75], [-0.125, 0.5], [[0.0, 0.5], [-0.5, 0.0]])
        """
        return cls(*conventions.from_zero_one(u_plus, u_minus, J))

    def to_zero_one(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(u_plus, u_minus, J) of this system with states 0/1: J_ij = 2 c_ij (zero
        diagonal), u_i^± = h_i^± + Σ_{j≠i} c_ij. :meth:`from_zero_one` reads them back to the
        same system, bit for bit."""
        if self.direction_dependent:
            raise ValueError(
                "to_zero_one: direction-dependent couplings (c_plus != c_minus) have no form in "
                "this convention"
            )
        return conventions.to_zero_one(self.h_plus, self.h_minus, self.couplings)

    # ---- parameters ------------------------------------------------------------------------

    @property
    def N(self) -> int:
        """Number of elements."""
        return self._systems.N

    @property
    def h_plus(self) -> np.ndarray:
        """Bare up thresholds h_i^+ (field units), shape (N,)."""
        return dequantize(self._systems.h_plus[0])

    @property
    def h_minus(self) -> np.ndarray:
        """Bare down thresholds h_i^− (field units), shape (N,)."""
        return dequantize(self._systems.h_minus[0])

    @property
    def couplings(self) -> np.ndarray:
        """Couplings c_ij (field units), shape (N, N), zero diagonal (c^+_ij, those of the
        up thresholds, where they depend on the direction)."""
        return dequantize(self._systems.couplings[0])

    @property
    def couplings_minus(self) -> np.ndarray:
        """c^−_ij (field units), the couplings of the down thresholds H_i^−: equal to
        :attr:`couplings` unless :attr:`direction_dependent`."""
        return dequantize(self._systems.couplings_minus[0])

    @property
    def direction_dependent(self) -> bool:
        """Whether the couplings depend on the switching direction (c^+ ≠ c^−)."""
        return self._systems.directed

    @property
    def systems(self) -> Systems:
        """The exact integer form (a batch of one) the kernels take."""
        return self._systems

    def __repr__(self) -> str:
        return f"<hyst.System N={self.N}>"

    def __eq__(self, other) -> bool:
        if not isinstance(other, System):
            return NotImplemented
        a, b = self._systems, other._systems
        return (
            a.N == b.N
            and np.array_equal(a.h_plus, b.h_plus)
            and np.array_equal(a.h_minus, b.h_minus)
            and np.array_equal(a.couplings, b.couplings)
            and np.array_equal(a.couplings_minus, b.couplings_minus)
        )

    __hash__ = None  # mutable arrays inside: not hashable

    def to_file(self, path: str | Path) -> Path:
        """Write the parameters, in the format :meth:`from_file` and ``hyst system --file``
        read. Each value is written as the shortest decimal that quantises to the same
        parameter (0.1 for an input of 0.1), so reading the file back gives the same system
        bit for bit. Returns the path.

        Parameters
        ----------
        path : str or Path
            The file; its suffix (.yaml, .yml, .json or .npz) chooses the format.
        """
        from hyst.provenance.files import atomic_write, atomic_write_text

        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in FILE_FORMATS:
            raise ValueError(f"path: unknown format {suffix!r} (use .yaml, .json or .npz)")
        exact = self._systems
        arrays = {
            "h_plus": shortest_fields(exact.h_plus[0]),
            "h_minus": shortest_fields(exact.h_minus[0]),
            "c": shortest_fields(exact.couplings[0]),
        }
        if exact.directed:  # direction-dependent couplings: c_plus and c_minus
            arrays["c_plus"] = arrays.pop("c")
            arrays["c_minus"] = shortest_fields(exact.couplings_minus[0])
        if suffix == ".npz":
            return atomic_write(path, lambda tmp: _save_npz(tmp, arrays))
        data = {k: v.tolist() for k, v in arrays.items()}
        if suffix == ".json":
            return atomic_write_text(path, json.dumps(data, indent=1) + "\n")
        import yaml

        text = "# hyst.System: bare thresholds h_plus, h_minus and couplings c (field units)\n"
        return atomic_write_text(path, text + yaml.safe_dump(data, default_flow_style=None))

    # ---- the transition graph -----------------------------------------------------------------

    def transition_graph(self, rule: str = "1") -> TransitionGraph:
        """Potentially stable states (H^−(S) < H^+(S)) and their up and down transitions,
        exactly (N ≤ 18).

        Parameters
        ----------
        rule : {"0", "1", "1p", "2", "tau"}, default "1"
            The race-condition rule: which unstable element flips first (``hyst system
            --help`` describes them); "tau", the flip-time rule, needs the system's flip
            times (``flip_times=`` or :meth:`with_flip_times`).
        """
        return transition_graph(self._systems, 0, rule, getattr(self, "_flip_times", None))

    def self_loops(self, rule: str = "1") -> list[SelfLoop]:
        """Every distinct self-loop the transition graph meets: its states, length L,
        number n_e of elements flipping in it, the open range of H where it is a cycle of
        the dynamics (:meth:`SelfLoop.field_range`, field units; rules 0 and 1) and the
        transitions that end in it.

        Parameters
        ----------
        rule : {"0", "1", "1p", "2"}, default "1"
            The race-condition rule.
        """
        flip_times = getattr(self, "_flip_times", None)
        return self_loops(self.transition_graph(rule), self._systems, flip_times)

    def report(self, rule: str = "1") -> str:
        """The text ``hyst system`` prints: states with their stability ranges, every
        transition, every self-loop with its field range.

        Parameters
        ----------
        rule : {"0", "1", "1p", "2"}, default "1"
            The race-condition rule.
        """
        graph = self.transition_graph(rule)
        return report(graph, self._systems, self_loops(graph, self._systems))

    def to_networkx(self, rule: str = "1") -> networkx.MultiDiGraph:
        """The transition graph as a networkx MultiDiGraph (what ``hyst system -o`` writes
        as GraphML and DOT): states as nodes (label, magnetisation m = Σ s_i, stability
        range), transitions and the self-loops' own steps as edges.

        Parameters
        ----------
        rule : {"0", "1", "1p", "2"}, default "1"
            The race-condition rule.
        """
        graph = self.transition_graph(rule)
        return to_networkx(graph, self_loops(graph, self._systems))

    def draw(self, rule: str = "1") -> Figure:
        """The picture of the transition graph ``hyst system -o`` draws: states by
        magnetisation, up transitions blue, down red, self-loops orange.

        Parameters
        ----------
        rule : {"0", "1", "1p", "2"}, default "1"
            The race-condition rule.
        """
        from hyst.plotting.loops import fig_transition_graph

        graph = self.transition_graph(rule)
        return fig_transition_graph(graph, self_loops(graph, self._systems))

    # ---- driving it ------------------------------------------------------------------------------

    def saturated_loop(self, rule: str = "1") -> xarray.Dataset:
        """The saturated hysteresis loop, exactly: from all elements down (s_i = −1), raise
        H through every switching field H^+(S) + 0⁺ until all are up, then lower it
        through H^−(S) − 0⁺ back down. One entry per avalanche (dimension ``event``):
        ``branch`` (+1 up, −1 down), the switching field ``H`` (field units), the states
        before and after (bitmasks, bit i ⇔ s_i = +1; −1 after a self-loop), the
        magnetisation m = Σ s_i after (NaN after a self-loop), the element flips, and the
        outcome; a branch stops early in a self-loop or, under
        rule 0, at an ill-defined transition (``outcome``).

        Parameters
        ----------
        rule : {"0", "1", "1p", "2"}, default "1"
            The race-condition rule.
        """
        import xarray as xr

        graph = self.transition_graph(rule)
        out = {(t.source, t.direction): t for t in graph.transitions}
        N, full = self.N, (1 << self.N) - 1
        rows = []
        for direction, start, end in ((1, 0, full), (-1, full, 0)):
            state = start
            while state != end:
                t = out[(state, direction)]
                after = t.target if t.outcome == "stable" else -1
                rows.append((direction, t.field_value, state, after, t.flips, t.outcome))
                if after < 0:
                    break
                state = after
        branch, H, before, after, flips, outcome = (list(c) for c in zip(*rows, strict=True))
        m = [2 * bin(s).count("1") - N if s >= 0 else np.nan for s in after]
        ds = xr.Dataset(
            {
                "branch": ("event", np.array(branch, np.int8)),
                "H": ("event", np.array(H)),
                "state_before": ("event", np.array(before, np.int64)),
                "state_after": ("event", np.array(after, np.int64)),
                "m": ("event", np.array(m, np.float64)),
                "flips": ("event", np.array(flips, np.int64)),
                "outcome": ("event", np.array(outcome, dtype=object).astype(str)),
            },
            attrs={"N": N, "rule": str(rule)},
        )
        return describe_single(
            ds,
            {
                "branch": "branch of the saturated loop (+1 up, -1 down)",
                "H": "switching field H_c",
                "state_before": "state before the avalanche (bitmask)",
                "state_after": "state after the avalanche (bitmask; -1: a self-loop)",
                "m": "magnetisation m after the avalanche",
                "flips": "avalanche size (element flips)",
                "outcome": "outcome of the avalanche",
            },
        )

    def response(
        self, fields: Sequence[float], start: int | str = "down", rule: str = "1"
    ) -> xarray.Dataset:
        """The response to a field protocol: set the field to each value in turn (exact: a
        threshold met exactly counts as a tie and does not switch) and relax. Per step
        (dimension ``step``): ``H``, the state reached (bitmask; in a self-loop the state
        where the cycle closed, and the next step starts there), the magnetisation
        m = Σ s_i, the spins s (step, element), the flips, and the outcome ('stable',
        'self_loop' or 'ill_defined').

        Parameters
        ----------
        fields : sequence of float
            The fields H, in turn (field units).
        start : "down", "up" or int, default "down"
            The state before the first step: all s_i = −1, all +1, or a bitmask (bit i set
            ⇔ s_i = +1).
        rule : {"0", "1", "1p", "2"}, default "1"
            The race-condition rule.
        """
        import xarray as xr

        from hyst.model.relax import relax_spins

        code = rule_code(rule)
        N = self.N
        if start in ("down", "up"):
            spins = np.full(N, -1 if start == "down" else 1, np.int8)
        elif isinstance(start, int | np.integer) and 0 <= int(start) < 1 << N:
            spins = np.where((int(start) >> np.arange(N)) & 1, 1, -1).astype(np.int8)
        else:
            raise ValueError(f"start: {start!r} is not allowed ('down', 'up' or a bitmask)")
        try:
            values = np.asarray(fields, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"fields: {fields!r} is not allowed (a sequence of numbers)") from None
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"fields[{k}]: {values[k]} is not allowed (a finite number)")
        quanta = quantize(values)
        states, spin_rows, flips, outcome = [], [], [], []
        for q in quanta.tolist():
            r, spins = relax_spins(self._systems, spins, (q, 0), code)
            states.append(r.final_state)
            spin_rows.append(spins.copy())
            flips.append(r.flips)
            outcome.append(r.outcome)
        s = np.array(spin_rows, np.int8).reshape(len(values), N)
        ds = xr.Dataset(
            {
                "H": ("step", values),
                "state": ("step", np.array(states, np.int64)),
                "m": ("step", s.sum(axis=1, dtype=np.int64)),
                "s": (("step", "element"), s),
                "flips": ("step", np.array(flips, np.int64)),
                "outcome": ("step", np.array(outcome, dtype=str)),
            },
            attrs={"N": N, "rule": str(rule)},
        )
        return describe_single(
            ds,
            {
                "H": "field H",
                "state": "state reached (bitmask, bit i set where s_i = +1)",
                "m": "magnetisation m = sum_i s_i",
                "s": "spins s_i",
                "flips": "element flips of the relaxation",
                "outcome": "outcome of the relaxation (stable, self_loop or ill_defined)",
            },
        )

    # ---- drive protocols (exact, any N: hyst.model.protocols) ----------------------------------

    drive = system_drives.drive
    cyclic_drive = system_drives.cyclic_drive
    symmetric_drive = system_drives.symmetric_drive
    asymmetric_drive = system_drives.asymmetric_drive
    distinct_amplitudes = system_drives.distinct_amplitudes
    amplitude_sweep = system_drives.amplitude_sweep
    return_point_memory = system_drives.return_point_memory
    addressable_states = system_drives.addressable_states

    @staticmethod
    def draw_drive(ds: xarray.Dataset) -> Figure:
        """The picture of a drive's dataset: m(H) along the drive (up legs blue, down red,
        a cyclic drive's transient grey, a self-loop that stopped it marked), or T(A) for
        an amplitude sweep; what ``hyst system --symmetric A -o OUTPUT`` draws.

        Parameters
        ----------
        ds : xarray.Dataset
            What a drive method (:meth:`drive`, :meth:`symmetric_drive`,
            :meth:`amplitude_sweep`, …) returned.
        """
        from hyst.plotting.drives import fig_response, fig_sweep

        return fig_sweep(ds) if "amplitude" in ds.dims else fig_response(ds)


for _name in system_drives.METHODS:
    _method = getattr(System, _name)
    _method.__qualname__ = f"System.{_name}"
    _method.__module__ = __name__


def _is_pair(couplings) -> bool:
    """Whether ``couplings`` is a pair (c_plus, c_minus) of matrices rather than one."""
    if isinstance(couplings, np.ndarray):
        return couplings.ndim == 3 and couplings.shape[0] == 2
    return (
        isinstance(couplings, tuple | list)
        and len(couplings) == 2
        and all(np.ndim(np.asarray(m, dtype=object)) == 2 for m in couplings)
    )


def _save_npz(path: str, arrays: dict) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
