"""System files and their validation, and the very system the sampler drew: where one system
of the pairwise model comes from (:class:`hyst.System`, ``hyst system``).

Files (field units, floats or integers):

- YAML or JSON: a mapping with ``h_plus`` and ``h_minus`` (lists of N numbers)
  and ``c`` (or ``couplings``: N lists of N numbers, zero diagonal), or, for
  direction-dependent couplings (H_i^± = h_i^± − Σ_j c^±_ij s_j), ``c_plus`` and
  ``c_minus`` (both N × N, zero diagonals) instead of ``c``;
- NPZ: arrays of the same names.

``hyst system --export FILE`` writes these files (:func:`save_system`), exactly;
:meth:`hyst.System.to_file` writes them too.

Parameters are quantised to multiples of ``hyst.model.systems.QUANTUM``. A bad file
gives one ``SystemInputError`` line naming what is wrong: a missing or unknown
key, a non-square c, a non-zero diagonal, a wrong length of h, a value that is
not a finite number, a file that does not parse.

Ensemble: (couplings, spans, N, NJ0, seed, samples, index) re-draws sample
``index`` of the point with the sampler's own ``hyst.sampling.sampler.draw_chunk``: chunk
k = index // chunk_size(N) with that chunk's size (the last chunk of a point may be
shorter, and the size changes the draw, hence ``samples``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from hyst.model.systems import MAX_THRESHOLD, QUANTUM, Systems, dequantize

KEYS = {"h_plus", "h_minus", "c", "couplings", "c_plus", "c_minus"}
#: The file formats, by suffix.
FORMATS = (".yaml", ".yml", ".json", ".npz")


class SystemInputError(ValueError):
    """A bad system file or ensemble specification (one line, naming the problem)."""


def _real(x) -> bool:
    """Whether ``x`` is a real number as a file means one: an integer or a float, not a
    boolean (YAML ``true``), a string ("0.1") or a complex number."""
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_
    )


def _numbers(name, value, shape_text):
    """``value`` as a float64 array; one line naming the first entry that is not a real
    number (nothing is converted silently: not ``true`` to 1, not "0.1" to 0.1)."""
    try:  # a file's lists entry by entry (numpy would cast [true, 0.5] to [1.0, 0.5])
        arr = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    except (TypeError, ValueError):
        raise SystemInputError(f"{name}: not {shape_text} of numbers") from None
    if arr.dtype.kind == "O" and any(isinstance(x, list | tuple | dict) for x in arr.ravel()):
        raise SystemInputError(f"{name}: not {shape_text} of numbers")
    if arr.dtype.kind in "iuf":
        return arr.astype(np.float64)
    if arr.dtype.kind == "O" and arr.size and all(_real(x) for x in arr.ravel()):
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            raise SystemInputError(f"{name}: not {shape_text} of numbers") from None
    for index in np.ndindex(arr.shape):
        if not _real(arr[index]):
            where = ",".join(map(str, index))
            item = arr[index].item() if isinstance(arr[index], np.generic) else arr[index]
            raise SystemInputError(
                f"{name}[{where}]: {item!r} is not allowed (a real number)"
                if where
                else f"{name}: {item!r} is not allowed ({shape_text} of real numbers)"
            )
    raise SystemInputError(f"{name}: not {shape_text} of numbers")


def system_from_mapping(data, source: str = "system") -> Systems:
    """Validate a mapping of h_plus, h_minus and c (or couplings) and quantise it."""
    if not isinstance(data, dict):
        raise SystemInputError(f"{source}: expected a mapping with h_plus, h_minus and c")
    unknown = sorted(set(map(str, data)) - KEYS)
    if unknown:
        raise SystemInputError(
            f"{source}: unknown key {unknown[0]!r} (allowed: h_plus, h_minus, c or couplings, "
            "or c_plus and c_minus)"
        )
    given = [k for k in ("c", "couplings", "c_plus") if k in data]
    if len(given) > 1:
        raise SystemInputError(
            f"{source}: give the couplings once, as c, as couplings or as c_plus and c_minus"
        )
    if "c_minus" in data and "c_plus" not in data:
        raise SystemInputError(f"{source}: c_minus needs c_plus (direction-dependent couplings)")
    if "c_plus" in data and "c_minus" not in data:
        raise SystemInputError(f"{source}: c_plus needs c_minus (direction-dependent couplings)")
    for key in ("h_plus", "h_minus"):
        if key not in data:
            raise SystemInputError(f"{source}: missing key {key!r}")
    if not given:
        raise SystemInputError(f"{source}: missing key 'c' (the couplings c_ij)")
    ckey = given[0]
    c = _square(ckey, data[ckey])
    c_minus = None
    if ckey == "c_plus":
        c_minus = _square("c_minus", data["c_minus"])
        if c_minus.shape != c.shape:
            raise SystemInputError(
                f"c_minus: must have the shape of c_plus {c.shape}, got shape {c_minus.shape}"
            )
    N = c.shape[0]
    if N < 2:
        raise SystemInputError(f"{ckey}: N = {N} is not allowed (N >= 2)")
    if N > 24:
        raise SystemInputError(f"{ckey}: N = {N} is too large (N <= 24: all 2^N states)")
    h = {}
    for key in ("h_plus", "h_minus"):
        arr = _numbers(key, data[key], "a list")
        if arr.ndim != 1 or arr.shape[0] != N:
            raise SystemInputError(
                f"{key}: must have N = {N} entries (the size of {ckey}), got shape {arr.shape}"
            )
        h[key] = arr
    checked = [(ckey, c), ("h_plus", h["h_plus"]), ("h_minus", h["h_minus"])]
    if c_minus is not None:
        checked.append(("c_minus", c_minus))
    for key, arr in checked:
        bad = np.argwhere(~np.isfinite(arr))
        if bad.size:
            where = ",".join(map(str, bad[0]))
            raise SystemInputError(f"{key}[{where}]: {arr[tuple(bad[0])]} is not a finite number")
        big = np.abs(arr).max()
        if big * N >= MAX_THRESHOLD * QUANTUM:
            raise SystemInputError(f"{key}: |value| {big:g} is too large for exact thresholds")
    for key, matrix in checked[:1] + checked[3:]:
        diag = np.flatnonzero(np.diag(matrix))
        if diag.size:
            i = int(diag[0])
            raise SystemInputError(f"{key}[{i},{i}]: {matrix[i, i]} must be 0 (no self-coupling)")
    systems = Systems.from_floats(h["h_plus"], h["h_minus"], c, c_minus)
    if systems.directed and np.array_equal(systems.couplings, systems.couplings_minus):
        return Systems(systems.h_plus, systems.h_minus, systems.couplings)  # the paper's model
    return systems


def _square(key, value) -> np.ndarray:
    """A square matrix of numbers (float64), refused with one line naming ``key``."""
    c = _numbers(key, value, "a square matrix")
    if c.ndim != 2 or c.shape[0] != c.shape[1]:
        raise SystemInputError(f"{key}: must be a square N x N matrix, got shape {c.shape}")
    return c


def load_system(path) -> Systems:
    """Read one system from a YAML, JSON or NPZ file (see the module docstring)."""
    return system_from_mapping(read_mapping(path), str(path))


def read_mapping(path) -> dict:
    """The mapping of a YAML, JSON or NPZ system file (keys to values or arrays); one
    ``SystemInputError`` line where the file is missing or does not parse."""
    path = Path(path)
    if not path.is_file():
        raise SystemInputError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError) as err:
            raise SystemInputError(f"{path}: not a readable NPZ file ({err})") from None
    elif suffix in (".yaml", ".yml", ".json"):
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as err:
            raise SystemInputError(
                f"{path}: not a text file (byte {err.start} is not UTF-8)"
            ) from None
        try:
            if suffix == ".json":
                data = json.loads(text)
            else:
                import yaml

                from hyst.pipeline.config import UniqueKeyLoader

                data = yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 (a SafeLoader)
        except (json.JSONDecodeError, ValueError) as err:
            raise SystemInputError(f"{path}: not valid {suffix[1:].upper()}: {err}") from None
        except Exception as err:  # yaml.YAMLError and its subclasses
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise SystemInputError(f"{path}: not valid YAML: {first}") from None
    else:
        raise SystemInputError(f"{path}: unknown format {suffix!r} (use .yaml, .json or .npz)")
    return data


def save_system(systems: Systems, path, created=None) -> Path:
    """Write one system (``systems[0]``) in the format :func:`load_system` reads, chosen by
    the suffix: h_plus, h_minus and c in field units. The values are exact multiples of
    the quantum, written exactly (float repr, or float64 in NPZ), so reading the file back
    gives the very same system. A missing folder is created (``created(folder)`` is then
    called, e.g. to say so); the write is atomic (a temporary file renamed)."""
    import os
    import tempfile

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise SystemInputError(f"{path}: unknown format {suffix!r} (use .yaml, .json or .npz)")
    hp, hm, c = (np.asarray(a)[0] for a in systems.to_floats())
    couplings = {"c": c}
    if systems.directed:  # direction-dependent couplings: c_plus and c_minus
        couplings = {"c_plus": c, "c_minus": dequantize(systems.couplings_minus[0])}
    if not path.parent.exists():
        path.parent.mkdir(parents=True)
        if created is not None:
            created(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            if suffix == ".npz":
                np.savez(fh, h_plus=hp, h_minus=hm, **couplings)
            else:
                data = {"h_plus": hp.tolist(), "h_minus": hm.tolist()}
                data.update({k: v.tolist() for k, v in couplings.items()})
                if suffix == ".json":
                    text = json.dumps(data, indent=1)
                else:
                    import yaml

                    text = yaml.safe_dump(data, default_flow_style=None, sort_keys=False)
                fh.write(text.encode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def sampled_system(
    couplings: str,
    spans: str,
    N: int,
    NJ0: float,
    seed: int,
    samples: int,
    index: int,
    direction_asymmetry: float = 0.0,
) -> Systems:
    """Sample ``index`` (0-based, < ``samples``) of the point (couplings, spans, N, NJ0,
    direction asymmetry) with base ``seed``: the very system ``hyst point``/the sweep drew."""
    from hyst.sampling.sampler import Point, chunk_bounds, chunk_size, draw_chunk

    try:
        point = Point(couplings, spans, "1", N, NJ0, direction_asymmetry)
    except ValueError as err:
        raise SystemInputError(str(err)) from None
    if not (isinstance(samples, int) and samples >= 1):
        raise SystemInputError(f"samples: {samples!r} is not allowed (an integer >= 1)")
    if not (isinstance(index, int) and 0 <= index < samples):
        raise SystemInputError(
            f"index: {index!r} is not allowed (0 <= index < samples = {samples})"
        )
    size = chunk_size(N)
    chunk, position = divmod(index, size)
    _, this_size = chunk_bounds(samples, size)[chunk]
    systems, _starts = draw_chunk(point, seed, chunk, this_size)
    return systems[position]
