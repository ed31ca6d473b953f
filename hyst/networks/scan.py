"""Scans of the (d1, d2) plane of two serial elements (pure: parameters in, Dataset out).

Each cell is one chain of two elements with fixed (x_1^−, x_1^+), (x_2^−, x_2^+)
and force jumps (d1, d2). Per cell the direct mechanical simulation
(``hyst.kernels.mechanics.pair_cell``) scans the whole drive range: the
fixed-drive dynamics is relaxed from all four phase states at one drive inside
every open interval between consecutive critical drives (switching
displacements and margin crossings), so every limit cycle that exists on an
open range of U is found; it also builds the transition graph. Cells are
independent: any subset of cells (a chunk) gives the same values as the full
scan.

Dataset (dims d1, d2, family = SL1…SL6, element = 1, 2):

    attractor      family is a limit cycle at some U (scan of the drive range)
    in_graph       family is reached by a transition out of a stable state
    other_cycle    a cycle of no family (rule 2 only: both elements flip at once)
    paper          the Supplemental's analytic conditions (``pair.paper_conditions``)
    exact          necessary and sufficient conditions (``pair.exact_conditions``)
    behaviour      Fig. 3d class 1–4 (``pair.behaviour_class``)
    h_plus, h_minus, sigma, c12, c21
                   mapped hysteron parameters (field units, H = U)
    intervals, ties
                   drive intervals scanned and ties met per cell
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.kernels import codes
from hyst.model.network_batch import pair_scan_batch
from hyst.model.systems import dequantize, quantize
from hyst.networks.pair import FAMILIES, behaviour_class, exact_conditions, paper_conditions


def cell_centres(low: float, high: float, n: int) -> np.ndarray:
    """n cell centres covering [low, high] (quantised, then as floats)."""
    if not (n >= 1 and high > low):
        raise ValueError(f"grid: need n >= 1 and high > low, got n={n}, [{low}, {high}]")
    edges = np.linspace(low, high, n + 1)
    return dequantize(quantize(0.5 * (edges[1:] + edges[:-1])))


def scan_cells(x1, x2, d1, d2, rule="1", parallel: bool = False) -> dict:
    """Per cell (d1[k], d2[k]) with elements x1 = (x_1^−, x_1^+), x2 = (x_2^−, x_2^+):
    the families as bool arrays (cells, 6) for ``attractor``, ``in_graph``, ``paper``,
    ``exact``; ``other_cycle``, ``behaviour``, ``intervals``, ``ties`` (cells,)."""
    (x1m, x1p), (x2m, x2p) = (quantize(np.asarray(x, float)) for x in (x1, x2))
    if x1p < x1m or x2p < x2m:
        raise ValueError(f"elements: need x^- <= x^+, got x1 = {tuple(x1)}, x2 = {tuple(x2)}")
    q1, q2 = quantize(np.ravel(d1)), quantize(np.ravel(d2))
    if q1.shape != q2.shape:
        raise ValueError("scan_cells: d1 and d2 must have the same number of cells")
    n = q1.size
    xm = np.empty((n, 2), np.int64)
    xp = np.empty((n, 2), np.int64)
    xm[:] = (x1m, x2m)
    xp[:] = (x1p, x2p)
    d = np.ascontiguousarray(np.stack([q1, q2], axis=1))
    cells = pair_scan_batch(xm, xp, d, rule, parallel=parallel)
    bits = 1 << np.array([codes.PAIR_FAMILIES.index(f) for f in FAMILIES])
    attractor = (cells["attractor_families"][:, None] & bits) != 0
    in_graph = (cells["graph_families"][:, None] & bits) != 0
    args = (x1m, x1p, x2m, x2p, q1, q2)
    paper = paper_conditions(*args)
    exact = exact_conditions(*args)
    l4 = attractor[:, 4] | attractor[:, 5]
    return {
        "attractor": attractor,
        "in_graph": in_graph,
        "other_cycle": (cells["attractor_families"] >> codes.SL_OTHER) & 1 == 1,
        "paper": np.stack([np.broadcast_to(paper[f], (n,)) for f in FAMILIES], axis=1),
        "exact": np.stack([np.broadcast_to(exact[f], (n,)) for f in FAMILIES], axis=1),
        "behaviour": behaviour_class(*args, l4),
        "intervals": cells["intervals"],
        "ties": cells["ties"],
    }


def mapped_parameters(x1, x2, d1, d2) -> dict:
    """Mapped hysteron parameters (H = U) on the grid d1 × d2: h_plus, h_minus, sigma
    (d1, d2, element) and c12, c21 (d1, d2), float field units, computed exactly in
    quanta (h_i^± = 2 x_i^± ± d_i, c_12 = −d_2, c_21 = −d_1) and then converted."""
    (x1m, x1p), (x2m, x2p) = (quantize(np.asarray(x, float)) for x in (x1, x2))
    D1, D2 = np.meshgrid(quantize(d1), quantize(d2), indexing="ij")
    hp = np.stack([2 * x1p + D1, 2 * x2p + D2], axis=-1)
    hm = np.stack([2 * x1m - D1, 2 * x2m - D2], axis=-1)
    return {
        "h_plus": (("d1", "d2", "element"), dequantize(hp)),
        "h_minus": (("d1", "d2", "element"), dequantize(hm)),
        "sigma": (("d1", "d2", "element"), dequantize(hp - hm)),
        "c12": (("d1", "d2"), dequantize(-D2)),
        "c21": (("d1", "d2"), dequantize(-D1)),
    }


def scan_plane(x1, x2, d1_values, d2_values, rule="1", parallel: bool = False) -> xr.Dataset:
    """The (d1, d2) plane on the grid d1_values × d2_values (see the module docstring)."""
    d1 = np.asarray(d1_values, float)
    d2 = np.asarray(d2_values, float)
    D1, D2 = np.meshgrid(d1, d2, indexing="ij")
    cells = scan_cells(x1, x2, D1.ravel(), D2.ravel(), rule, parallel)
    shape = D1.shape
    fam = ("d1", "d2", "family")
    data = {
        name: (fam, cells[name].reshape(*shape, len(FAMILIES)))
        for name in ("attractor", "in_graph", "paper", "exact")
    }
    for name in ("other_cycle", "behaviour", "intervals", "ties"):
        data[name] = (("d1", "d2"), cells[name].reshape(shape))
    x1q, x2q = (dequantize(quantize(np.asarray(x, float))) for x in (x1, x2))
    data.update(mapped_parameters(x1, x2, d1, d2))
    return xr.Dataset(
        data,
        coords={"d1": d1, "d2": d2, "family": list(FAMILIES), "element": [1, 2]},
        attrs={
            "x1_minus": float(x1q[0]),
            "x1_plus": float(x1q[1]),
            "x2_minus": float(x2q[0]),
            "x2_plus": float(x2q[1]),
            "rule": str(rule),
            "field": "H = U (two elements in series, no spring)",
            "hyst_version": __version__,
        },
    )


def symmetric_line(x1, x2, d_values, rule="1") -> xr.Dataset:
    """Equal force jumps d1 = d2 = d (Supplemental, "symmetric elements"): dims (d, family)."""
    d = np.asarray(d_values, float)
    cells = scan_cells(x1, x2, d, d, rule)
    return xr.Dataset(
        {
            "attractor": (("d", "family"), cells["attractor"]),
            "in_graph": (("d", "family"), cells["in_graph"]),
            "behaviour": ("d", cells["behaviour"]),
        },
        coords={"d": d, "family": list(FAMILIES)},
        attrs={"rule": str(rule), "hyst_version": __version__},
    )


def disagreement(ds: xr.Dataset, conditions: str = "paper", observed: str = "attractor"):
    """(fraction of cells where some family differs, count, cells) between two variables."""
    diff = (ds[conditions] != ds[observed]).any("family")
    return float(diff.mean()), int(diff.sum()), int(diff.size)


#: The parameter sets of Fig. 3d and the Supplemental's (d1, d2) panels: name ->
#: ((x_1^−, x_1^+), (x_2^−, x_2^+)). Spin-like panels have x_1^c = 0; (b)–(d) are given
#: by midpoints and spans in the captions and converted here.
PAPER_PANELS = {
    "fig3d": ((-1.0, 1.0), (0.2, 0.4)),
    "spin_0.5": ((0.0, 0.0), (0.5, 0.5)),
    "spin_1": ((0.0, 0.0), (1.0, 1.0)),
    "spin_2": ((0.0, 0.0), (2.0, 2.0)),
    "a_0.75": ((-1.0, 1.0), (0.5, 0.75)),
    "a_1.5": ((-1.0, 1.0), (0.5, 1.5)),
    "a_2": ((-1.0, 1.0), (0.5, 2.0)),
    "b_0": ((-1.0, 1.0), (-0.125, 0.125)),
    "b_0.625": ((-1.0, 1.0), (0.5, 0.75)),
    "b_1.2": ((-1.0, 1.0), (1.075, 1.325)),
    "c_0.1": ((-1.0, 1.0), (0.575, 0.675)),
    "c_0.25": ((-1.0, 1.0), (0.5, 0.75)),
    "c_0.85": ((-1.0, 1.0), (0.2, 1.05)),
    "d_1.2": ((-0.6, 0.6), (0.5, 0.75)),
    "d_1.6": ((-0.8, 0.8), (0.5, 0.75)),
    "d_2": ((-1.0, 1.0), (0.5, 0.75)),
    "summary": ((-1.0, 1.0), (0.5, 0.75)),
}


def scan_panels(panels: dict, d_values, rule="1", parallel: bool = False) -> xr.Dataset:
    """``scan_plane`` of every panel on the square grid d_values², stacked along ``panel``
    (coordinates x1_minus, x1_plus, x2_minus, x2_plus per panel)."""
    parts = []
    for name, (x1, x2) in panels.items():
        ds = scan_plane(x1, x2, d_values, d_values, rule, parallel)
        parts.append(ds.drop_attrs().expand_dims(panel=[name]))
    out = xr.concat(parts, dim="panel")
    for key in ("x1_minus", "x1_plus", "x2_minus", "x2_plus"):
        out = out.assign_coords(
            {
                key: (
                    "panel",
                    [
                        float(panels[p][0 if key[1] == "1" else 1][key.endswith("plus")])
                        for p in out.panel.values
                    ],
                )
            }
        )
    return out.assign_attrs(rule=str(rule), field="H = U", hyst_version=__version__)
