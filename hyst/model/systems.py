"""The hysteron model in exact integer arithmetic.

A system of N elements s_i = ±1 has bare thresholds h_i^± and couplings c_ij
(c_ii = 0). In state S the element thresholds are

    H_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j,

or, with direction-dependent couplings (Paulsen, arXiv 2409.07726), one matrix for
the up thresholds and one for the down thresholds,

    H_i^+(S) = h_i^+ − Σ_{j≠i} c^+_ij s_j,   H_i^−(S) = h_i^− − Σ_{j≠i} c^−_ij s_j;

c^+ = c^− is the paper's model (``Systems.directed`` is False and the kernels take
their usual path).

and the state thresholds are H^+(S) = min_{i: s_i=−1} H_i^+(S) and
H^−(S) = max_{i: s_i=+1} H_i^−(S) (±∞ when empty). Negative spans
h_i^+ < h_i^− are allowed.

Exactness
---------
Every parameter is quantised to an integer multiple of ``QUANTUM = 2**-40``
(field units) and all threshold sums are taken in int64. A state that differs
from S only in element k then has *exactly* the same local field on k, so the
structural equalities of the model (e.g. H_k^−(S') = H_k^+(S) for spins after
k flips) hold bit for bit, whatever the order of summation.

Fields and the symbolic 0⁺
--------------------------
A field is a pair ``(Hc, eps)`` with ``Hc`` an integer and ``eps`` in
{+1, 0, −1}: H = Hc + eps·0⁺. An element's instability margin (times two) is

    s_i = −1:  m_i = 2 (Hc − H_i^+(S)) + eps
    s_i = +1:  m_i = 2 (H_i^−(S) − Hc) − eps

and the element is unstable iff m_i > 0. With eps = 0 a margin of exactly 0 is
a *tie* (a threshold exactly at the field): it is counted and the element is
treated as stable.

States are integer bitmasks for enumeration (bit i set ⇔ s_i = +1) and int8
arrays of ±1 for large N.
"""

from __future__ import annotations

import numpy as np

# Codes shared with the kernels; INF, the outcome codes and their names are re-exported.
from hyst.kernels.codes import (  # noqa: F401
    FORM_CODES,
    FORM_DENSE,
    FORM_DENSE_T,
    FORM_DIRECTED,
    ILL_DEFINED,
    INF,
    OUTCOME_NAMES,
    RULE_CODES,
    SELF_LOOP,
    STABLE,
)
from hyst.kernels.dense_couplings import dense_couplings
from hyst.kernels.operands import SystemBatch
from hyst.kernels.relaxation import SystemView, transpose_buffer, view_of

#: Coupling entries from which the dense fill runs on all numba threads: below, the calling
#: thread fills them (a few milliseconds at most, less than waking the threads costs), and a
#: process that only samples small systems never starts numba's thread pool (the run's job
#: server forks only from such a process, hyst.pipeline.jobserver).
DENSE_PARALLEL_ENTRIES = 1 << 20


def fill_dense_couplings(form: str, packed: np.ndarray, c: np.ndarray) -> None:
    """Fill ``c`` (samples, N, N) with the dense couplings of the compact ``form``."""
    kernel = dense_couplings if c.size >= DENSE_PARALLEL_ENTRIES else dense_couplings.serial
    kernel(FORM_CODES[form], packed, c)


#: Parameters are integer multiples of this quantum (field units).
QUANTUM_BITS = 40
QUANTUM = 2.0**-QUANTUM_BITS
#: Largest |threshold| allowed, so that margins 2(H − H_i) never overflow int64.
MAX_THRESHOLD = 2**59

#: Race-condition rules: name -> kernel code.
RULES: dict[str, int] = RULE_CODES
RULE_NAMES: dict[int, str] = {v: k for k, v in RULES.items()}
RULE_DESCRIPTIONS = {
    "0": "a race condition (more than one unstable element) makes the transition ill-defined",
    "1": "flip the most unstable element (largest distance beyond its threshold)",
    "1p": "flip the least unstable element",
    "2": "flip all unstable elements simultaneously",
}


def rule_code(rule: str | int) -> int:
    """Kernel code of a race-condition rule given by name ('0', '1', '1p', '2')."""
    if isinstance(rule, int | np.integer) and int(rule) in RULE_NAMES:
        return int(rule)
    key = str(rule)
    if key not in RULES:
        raise ValueError(f"rule: {rule!r} is not one of {', '.join(RULES)}")
    return RULES[key]


def quantize(x) -> np.ndarray:
    """Float field values -> int64 multiples of ``QUANTUM`` (round to nearest)."""
    q = np.rint(np.asarray(x, dtype=np.float64) * 2.0**QUANTUM_BITS)
    if np.any(np.abs(q) > MAX_THRESHOLD):
        raise ValueError("parameter magnitude too large for exact int64 thresholds")
    return q.astype(np.int64)


def dequantize(q) -> np.ndarray:
    """int64 multiples of ``QUANTUM`` -> float64 field values."""
    return np.asarray(q, dtype=np.float64) * QUANTUM


def shortest_field(q: int, bits: int = QUANTUM_BITS) -> float:
    """The field of ``q`` quanta of 2^-``bits`` as users read and write it: the float of
    the shortest decimal that quantises back to ``q`` (0.1, not the exact quantised value
    0.1000000000000227). Writing it and reading it back gives ``q`` again; the exact
    value stays in the integer data."""
    exact = float(q) * 2.0**-bits
    for digits in range(1, 18):
        value = float(f"{exact:.{digits}g}")
        if round(value * 2.0**bits) == q:
            return value
    return exact


def shortest_fields(q) -> np.ndarray:
    """:func:`shortest_field` of every entry of an int64 array of quanta (same shape)."""
    q = np.asarray(q, dtype=np.int64)
    return np.array([shortest_field(int(v)) for v in q.ravel()], np.float64).reshape(q.shape)


#: How a batch stores its couplings. The event-driven kernels read each form
#: directly, so the structured ensembles never hold N x N matrices per chunk.
COUPLING_FORMS = {
    "dense": "couplings (samples, N, N): c_ij, in any memory layout (a transposed view is "
    "read in place by the kernels)",
    "symmetric": "packed (samples, N(N-1)/2): c_ij = c_ji for i < j, upper triangle row by row",
    "columns": "packed (samples, N): d_j with c_ij = -d_j for i != j (constant columns)",
    "rows": "packed (samples, N): d_i with c_ij = -d_i for i != j (constant rows)",
}
#: Kernel codes of the coupling forms: ``hyst.kernels.codes.FORM_CODES``.


class Systems:
    """A batch of systems in exact integer form.

    Attributes
    ----------
    h_plus, h_minus : int64 (samples, N)
        Bare up / down thresholds h_i^±, in units of ``QUANTUM``.
    couplings : int64 (samples, N, N)
        c_ij with zero diagonal, in units of ``QUANTUM`` (built on first access
        for the compact forms); with direction-dependent couplings c^+_ij, those of the
        up thresholds H_i^+.
    couplings_minus : int64 (samples, N, N)
        c^−_ij, the couplings of the down thresholds H_i^−: ``couplings`` itself unless
        the systems are ``directed`` (dense form only).
    form, packed :
        How the couplings are stored (``COUPLING_FORMS``): ``dense`` keeps the
        matrices; ``symmetric``, ``columns`` and ``rows`` keep only ``packed``.
    """

    def __init__(
        self, h_plus, h_minus, couplings=None, *, form="dense", packed=None, couplings_minus=None
    ):
        if form not in COUPLING_FORMS:
            raise ValueError(f"form: {form!r} is not one of {', '.join(COUPLING_FORMS)}")
        hp, hm = h_plus, h_minus
        self.h_plus, self.h_minus, self.form, self.packed = hp, hm, form, packed
        self._couplings = couplings
        self._couplings_minus = None
        self._stacked = None
        self._view: tuple[int, SystemView] | None = None  # the last kernel_view_of
        if couplings_minus is not None:
            self._couplings_minus = _checked_minus(couplings_minus, couplings, form)
        if hp.ndim != 2 or hm.shape != hp.shape:
            raise ValueError("Systems: h_plus and h_minus must both be (samples, N)")
        n, N = hp.shape
        if form == "dense":
            if couplings is None or packed is not None or couplings.shape != (n, N, N):
                raise ValueError("Systems: the dense form takes couplings (samples, N, N)")
            data = couplings
        else:
            width = N * (N - 1) // 2 if form == "symmetric" else N
            if couplings is not None or packed is None or packed.shape != (n, width):
                raise ValueError(f"Systems: the {form} form takes packed ({n}, {width}) only")
            data = packed
        for a in (hp, hm, data):
            if a.dtype != np.int64:
                raise TypeError("Systems: arrays must be int64 (use quantize)")
        # |Σ_j c_ij s_j| <= (N − 1) max |c|: a bound that never allocates an N x N temporary
        largest = max(abs(int(data.max())), abs(int(data.min()))) if data.size else 0
        if self._couplings_minus is not None and data.size:
            cm = self._couplings_minus
            largest = max(largest, abs(int(cm.max())), abs(int(cm.min())))
        bound = max(abs(int(hp.max())), abs(int(hp.min())), abs(int(hm.max())), abs(int(hm.min())))
        if hp.size and bound + (N - 1) * largest >= MAX_THRESHOLD:
            raise ValueError("Systems: thresholds could overflow int64; couplings too large")

    @property
    def couplings(self) -> np.ndarray:
        """Dense c_ij (samples, N, N), zero diagonal, C-contiguous (built and kept on first
        access for the compact forms and for dense couplings held in another layout)."""
        if self._couplings is None:
            c = np.empty((self.samples, self.N, self.N), np.int64)
            fill_dense_couplings(self.form, self.packed, c)
            self._couplings = c
        elif not self._couplings.flags.c_contiguous:
            self._couplings = np.ascontiguousarray(self._couplings)
        return self._couplings

    @property
    def directed(self) -> bool:
        """Whether the couplings depend on the switching direction (c^+ ≠ c^− held)."""
        return self._couplings_minus is not None

    @property
    def couplings_minus(self) -> np.ndarray:
        """c^−_ij (samples, N, N), the couplings of the down thresholds H_i^−: the same
        array as ``couplings`` unless ``directed``."""
        if self._couplings_minus is None:
            return self.couplings
        return self._couplings_minus

    def stacked_couplings(self) -> np.ndarray:
        """c^+ over c^− (samples, 2N, N), C-contiguous, as the kernels take direction-
        dependent couplings (``FORM_DIRECTED``); built and kept on first use."""
        if self._stacked is None:
            self._stacked = np.ascontiguousarray(
                np.concatenate((self.couplings, self.couplings_minus), axis=1)
            )
        return self._stacked

    @property
    def samples(self) -> int:
        """The number of sampled systems (the leading axis of the arrays)."""
        return self.h_plus.shape[0]

    @property
    def N(self) -> int:
        """The number of elements N of each system."""
        return self.h_plus.shape[1]

    def kernel_batch(self, dense: bool = False) -> SystemBatch:
        """The batch as the kernels take it (``hyst.kernels.operands.SystemBatch``): the
        couplings in their own form, the array the form does not use an empty placeholder of
        the right rank. Dense couplings drawn in the kernels' layout (a transposed view, the
        iid ensembles) are handed over in place (``FORM_DENSE_T``). ``dense``: coupling
        matrices whatever the form (the kernels over all 2^N states and the self-loop
        search; built and kept on first use for the compact forms). Direction-dependent
        couplings go as ``FORM_DIRECTED``, c^+ stacked over c^− (``stacked_couplings``)."""
        n = self.samples
        no_packed = np.zeros((n, 0), np.int64)
        if self.directed:
            stacked = self.stacked_couplings()
            return SystemBatch(self.h_plus, self.h_minus, FORM_DIRECTED, stacked, no_packed)
        if self.form == "dense":
            ct = self._couplings.transpose(0, 2, 1)
            if not self._couplings.flags.c_contiguous and ct.flags.c_contiguous:
                return SystemBatch(self.h_plus, self.h_minus, FORM_DENSE_T, ct, no_packed)
        if self.form == "dense" or dense:
            return SystemBatch(self.h_plus, self.h_minus, FORM_DENSE, self.couplings, no_packed)
        no_matrix = np.zeros((n, 0, 0), np.int64)
        return SystemBatch(self.h_plus, self.h_minus, FORM_CODES[self.form], no_matrix, self.packed)

    def kernel_batch_of(self, index: int) -> SystemBatch:
        """The kernel batch (:meth:`kernel_batch`) of system ``index`` alone: a one-row view
        of each of the batch's arrays, no check (the batch was checked when it
        was built), for the routines that take one system (a drive, a relaxation). Cheaper
        than ``self[index].kernel_batch()``, which builds and checks a new batch; the same
        values in the same layout. ``index`` counts from the end when negative."""
        k = range(self.samples)[index]  # IndexError beyond the batch, as for a list
        whole = self.kernel_batch()
        return SystemBatch(  # contiguous, as the kernels are compiled for (a copy only if not)
            *(np.ascontiguousarray(a[k : k + 1]) if isinstance(a, np.ndarray) else a for a in whole)
        )

    def kernel_view_of(self, index: int) -> SystemView:
        """System ``index`` as the kernels of one system take it
        (``hyst.kernels.relaxation.SystemView``: its thresholds and couplings in the
        kernels' layout, which they only read). The last one asked is kept: a drive per
        amplitude of one system, or a sweep, lays it out once (a dense system's transposed
        couplings, N² integers, are the one copy kept)."""
        k = range(self.samples)[index]  # IndexError beyond the batch, as for a list
        last = self._view
        if last is not None and last[0] == k:
            return last[1]
        one = self.kernel_batch_of(k)
        view = view_of(0, one, transpose_buffer(one.form, self.N))
        self._view = (k, view)  # one assignment: a thread reading it sees either
        return view

    def __getitem__(self, index) -> Systems:
        index = np.atleast_1d(np.arange(self.samples)[index])
        hp, hm = self.h_plus[index], self.h_minus[index]
        if self.form == "dense":
            minus = None if self._couplings_minus is None else self._couplings_minus[index]
            return Systems(hp, hm, self._couplings[index], couplings_minus=minus)
        return Systems(hp, hm, form=self.form, packed=self.packed[index])

    @classmethod
    def from_floats(cls, h_plus, h_minus, couplings, couplings_minus=None) -> Systems:
        """Quantise float parameters (one system or a batch); ``couplings_minus``: c^−
        of direction-dependent couplings (``couplings`` are then c^+)."""
        hp, hm = (np.atleast_2d(np.asarray(a, dtype=np.float64)) for a in (h_plus, h_minus))

        def matrices(c):
            c = np.asarray(c, dtype=np.float64)
            c = c[None] if c.ndim == 2 else c.copy()
            idx = np.arange(c.shape[1])
            c[:, idx, idx] = 0.0
            return quantize(c)

        minus = None if couplings_minus is None else matrices(couplings_minus)
        return cls(quantize(hp), quantize(hm), matrices(couplings), couplings_minus=minus)

    def to_floats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(h_plus, h_minus, couplings) as float64 field values."""
        return dequantize(self.h_plus), dequantize(self.h_minus), dequantize(self.couplings)


def _checked_minus(couplings_minus, couplings, form: str):
    """c^− of direction-dependent couplings, checked against c^+ (``Systems``). Kept even
    where it equals c^+ (the kernels then take the direction-dependent path, which must
    give the same results: the tests compare the two); ``hyst.System`` and the ensembles
    hand over c^− only where it differs."""
    if form != "dense" or couplings is None:
        raise ValueError("couplings_minus: direction-dependent couplings take the dense form")
    if couplings_minus.shape != couplings.shape:
        raise ValueError(
            f"couplings_minus: shape {couplings_minus.shape} differs from the couplings' "
            f"{couplings.shape}"
        )
    if couplings_minus.dtype != np.int64:
        raise TypeError("Systems: arrays must be int64 (use quantize)")
    N = couplings.shape[-1]
    if N and np.any(couplings_minus[:, np.arange(N), np.arange(N)]):
        raise ValueError("couplings_minus: the diagonal c^-_ii must be zero")
    return couplings_minus


def state_to_spins(state: int, N: int) -> np.ndarray:
    """Bitmask -> int8 array of ±1 (bit i set ⇔ s_i = +1)."""
    return np.where((int(state) >> np.arange(N)) & 1, 1, -1).astype(np.int8)
