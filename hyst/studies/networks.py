"""Study kind ``networks``: serial chains of passive and active bilinear elements.

A study of this kind computes one ``part``:

- ``planes`` (Fig. 3 and the Supplemental section "Serially-coupled two-state
  elements"): the (d1, d2) plane of two serial elements for each panel
  (x_1^±, x_2^±) on a square grid of cell centres in [low, high]² (panels with the
  same elements share one job). Per cell: the
  self-loop families SL1–SL6 found by the direct mechanical simulation scanning
  the whole drive range, those reached by the transition graph, the
  Supplemental's and the exact analytic conditions, the Fig. 3d class and the
  mapped hysteron parameters (:func:`hyst.networks.scan.scan_plane`). One job
  per panel; its blocks of d1 rows are Dask tasks (cells are independent, so the
  result does not depend on the blocks or their scheduling).
- ``chains`` (beyond the paper): random chains of N elements, each active with
  probability φ (:mod:`hyst.networks.chains`): P_sl, P_g^0, self-loop sizes, the
  saturated loop, with a mechanical cross-check of a subsample. One job per N;
  every chunk of every (φ, N) point is a Dask task, seeded by (seed, φ, N, d_max,
  sigma0_max, chunk) and merged in chunk order; each point has its own file.

Result files carry their payload and the code fingerprint as provenance and are
reused only when both match, so adding a panel, a φ or an N computes only that.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.kernels import mechanics, state_table
from hyst.model import batch, network_batch, seeds
from hyst.networks import chains as chain_study
from hyst.networks.pair import FAMILIES
from hyst.networks.scan import PAPER_PANELS, cell_centres, mapped_parameters, scan_cells
from hyst.provenance.files import read_dataset, reusable, write_dataset
from hyst.studies.base import ConfigError, Job, JobPass, StudyKind

#: The race-condition rule of the networks studies (the Supplemental's, rule 1).
RULE = "1"
PARTS = ("planes", "chains")
_PLANE_KEYS = ("grid", "panels", "block")
_CHAIN_KEYS = ("phi", "N", "samples", "d_max", "sigma0_max", "cross_check")
_FAMILY_VARS = ("attractor", "in_graph", "paper", "exact")
_CELL_VARS = ("other_cycle", "behaviour", "intervals", "ties")

#: The kernel passes of each part (the group a figure asks for).
PASSES = {
    "planes": (
        JobPass(
            "pair_scan",
            "per (d1, d2) cell, two serial elements relaxed mechanically at one drive inside "
            "every interval of the drive range (hyst.networks.scan.scan_cells): their limit "
            "cycles and transition graph",
            (network_batch.pair_scan_batch,),
        ),
    ),
    "chains": (
        JobPass(
            "first_loops",
            "the mapped hysterons' saturated loop, each main branch up to its first self-loop",
            (batch.first_loops_batch,),
        ),
        JobPass(
            "enumeration",
            "P_sl, P_g^0 and the self-loop sizes of the mapped hysterons (N <= 18)",
            (batch.enumerate_batch,),
        ),
        JobPass(
            "cross_check",
            "the first chains of a chunk re-simulated by force balance alone: their saturated "
            "loop and transition graph, against the mapped model's "
            "(hyst.networks.chains.cross_check)",
            (
                network_batch.chain_loops_batch,
                mechanics.all_switching_drives,
                mechanics.relax_mask,
                state_table.build_state_table,
                state_table.walk,
            ),
        ),
    ),
}


def _plane_rows(x1, x2, low, high, cells, start, stop) -> dict:
    """Cells of d1 rows [start, stop) of one panel (a Dask task)."""
    g = cell_centres(low, high, cells)
    D1, D2 = np.meshgrid(g[start:stop], g, indexing="ij")
    return scan_cells(x1, x2, D1.ravel(), D2.ravel(), RULE)


def _chain_chunk(payload: dict, chunk: int, size: int) -> dict:
    """Tallies of one chunk of one (φ, N) point (a Dask task)."""
    p = payload
    return chain_study.sample_chunk(
        p["phi"], p["N"], p["seed"], chunk, size, p["d_max"], p["sigma0_max"], p["cross_check"]
    )


def _panels(study: dict) -> dict:
    """{panel name: ((x1^-, x1^+), (x2^-, x2^+))} of a planes study."""
    panels = study.get("panels", "paper")
    if panels == "paper":
        return dict(PAPER_PANELS)
    return {k: (tuple(v["x1"]), tuple(v["x2"])) for k, v in panels.items()}


def _map(tasks, config, threads, log):
    """Run (function, args) tasks on a Dask client, or in this thread where the job has no
    cluster (one thread: :func:`hyst.sampling.cluster.sampling_client`); results in task
    order."""
    from hyst.sampling.cluster import sampling_client

    with sampling_client(config, threads) as c:
        if c is None:
            results = (f(*args) for f, args in tasks)
        else:
            results = (fut.result() for fut in [c.submit(f, *a, pure=False) for f, a in tasks])
        out = []
        for k, result in enumerate(results):
            out.append(result)
            log(f"task {k + 1}/{len(tasks)} done")
        return out


class NetworksKind(StudyKind):
    """The study kind ``networks``: serial chains of passive and active bilinear elements, as
    (d1, d2) planes of two elements (Fig. 3) or random chains with a fraction phi active."""

    name = "networks"
    description = (
        "serial chains of passive and active bilinear elements: (d1, d2) planes of two "
        "elements (Fig. 3, Supplemental) or random chains with a fraction phi active"
    )

    def schema(self) -> dict:
        """The schema of a ``networks`` study: the part (planes or chains), and the panels and grid
        of a planes study or the fractions phi, sizes N and samples of a chains study."""
        pair = {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number"}}
        return self.study_schema(
            {
                "part": {
                    "description": "planes: (d1, d2) scans of two serial elements; chains: "
                    "random serial chains.",
                    "enum": list(PARTS),
                },
                "grid": {
                    "description": "planes: the square grid of force jumps, cells per axis "
                    "(cell centres in [low, high]).",
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["low", "high", "cells"],
                    "properties": {
                        "low": {"type": "number"},
                        "high": {"type": "number"},
                        "cells": {"type": "integer", "minimum": 1, "maximum": 4000},
                    },
                },
                "panels": {
                    "description": "planes: 'paper' (Fig. 3d and every Supplemental panel) "
                    "or {name: {x1: [x1-, x1+], x2: [x2-, x2+]}}.",
                    "anyOf": [
                        {"const": "paper"},
                        {
                            "type": "object",
                            "minProperties": 1,
                            "propertyNames": {"pattern": "^[A-Za-z0-9_.-]+$"},
                            "additionalProperties": {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["x1", "x2"],
                                "properties": {"x1": pair, "x2": pair},
                            },
                        },
                    ],
                },
                "block": {
                    "description": "planes: d1 rows per Dask task.",
                    "type": "integer",
                    "minimum": 1,
                },
                "phi": {
                    "description": "chains: probabilities that an element is active.",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "N": {
                    "description": "chains: numbers of elements (P_sl and P_g^0 enumerated for "
                    "N <= 18, the saturated loop for every N).",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 2, "maximum": chain_study.CHAIN_MAX_N},
                },
                "samples": {
                    "description": "chains: chains per (phi, N) point.",
                    "type": "integer",
                    "minimum": 1,
                },
                "d_max": {
                    "description": "chains: force-jump sizes |d_i| ~ U[0, d_max].",
                    "type": "number",
                    "exclusiveMinimum": 0,
                },
                "sigma0_max": {
                    "description": "chains: physical spans sigma_i^0 ~ U[0, sigma0_max].",
                    "type": "number",
                    "exclusiveMinimum": 0,
                },
                "cross_check": {
                    "description": "chains: chains per chunk re-simulated mechanically.",
                    "type": "integer",
                    "minimum": 0,
                },
            },
            ["kind", "part"],
        )

    def normalise(self, study: dict) -> dict:
        """Fill the defaults of the study's part (panels and block of planes; d_max, sigma0_max,
        cross_check of chains)."""
        out = dict(study)
        if out.get("part") == "planes":
            out.setdefault("panels", "paper")
            out.setdefault("block", 16)
        elif out.get("part") == "chains":
            out.setdefault("d_max", 1.0)
            out.setdefault("sigma0_max", 0.5)
            out.setdefault("cross_check", 4)
        return out

    def check(self, name: str, study: dict, config: dict) -> None:
        """Refuse keys of the other part, a missing required key, an empty grid and a panel with
        x+ < x− (spans sigma0 >= 0 only)."""
        part = study["part"]
        own, other = (_PLANE_KEYS, _CHAIN_KEYS) if part == "planes" else (_CHAIN_KEYS, _PLANE_KEYS)
        for key in other:
            if key in study:
                raise ConfigError(
                    f"studies.{name}.{key}: not allowed with part: {part} "
                    f"(allowed: {', '.join(own)})"
                )
        required = ("grid",) if part == "planes" else ("phi", "N", "samples")
        for key in required:
            if key not in study:
                raise ConfigError(f"studies.{name}: part {part} needs '{key}'")
        if part == "planes":
            grid = study["grid"]
            if not grid["high"] > grid["low"]:
                raise ConfigError(
                    f"studies.{name}.grid: high {grid['high']} must exceed low {grid['low']}"
                )
            for panel, (x1, x2) in _panels(study).items():
                for label, (lo, hi) in (("x1", x1), ("x2", x2)):
                    if hi < lo:
                        raise ConfigError(
                            f"studies.{name}.panels.{panel}.{label}: {[lo, hi]} has x+ < x- "
                            "(spans sigma0 >= 0 only)"
                        )

    # ---- jobs -----------------------------------------------------------------------------

    @staticmethod
    def _plane(x1, x2, study: dict) -> dict:
        """One panel's scan (what its file holds); panels with the same elements and grid
        share it."""
        g = study["grid"]
        return {
            "part": "planes",
            "x1": [float(v) for v in x1],
            "x2": [float(v) for v in x2],
            "low": float(g["low"]),
            "high": float(g["high"]),
            "cells": int(g["cells"]),
            "block": int(study["block"]),
            "rule": RULE,
        }

    def _planes(self, study: dict) -> list[dict]:
        """The distinct scans of a planes study, in panel order."""
        unique = {}
        for x1, x2 in _panels(study).values():
            plane = self._plane(x1, x2, study)
            unique.setdefault(seeds.digest(plane, 12), plane)
        return list(unique.values())

    def _planes_job(self, study: dict) -> Job:
        """All scans of a planes study in one job (each takes about a second at the
        paper's grid, less than a job's start-up); each keeps its own file."""
        payload = {"part": "planes", "planes": self._planes(study)}
        name = f"planes-{len(payload['planes'])}panels-{seeds.digest(payload, 10)}"
        return Job(self.name, name, payload)

    def _chain_points(self, study: dict, N: int, seed: int) -> list[dict]:
        return [
            {
                "phi": float(phi),
                "N": int(N),
                "samples": int(study["samples"]),
                "d_max": float(study["d_max"]),
                "sigma0_max": float(study["sigma0_max"]),
                "cross_check": int(study["cross_check"]),
                "seed": int(seed),
            }
            for phi in study["phi"]
        ]

    def _chain_job(self, study: dict, N: int, seed: int) -> Job:
        payload = {"part": "chains", "points": self._chain_points(study, N, seed)}
        return Job(self.name, f"chains-N{N}-{seeds.digest(payload, 10)}", payload)

    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """One job for all scans of a planes study; one job per size N of a chains study (its
        fractions phi)."""
        jobs, needs = {}, {}
        for name, study in studies.items():
            if study["part"] == "planes":
                mine = [self._planes_job(study)]
            else:
                mine = [self._chain_job(study, N, config["seed"]) for N in study["N"]]
            jobs.update({j.name: j for j in mine})
            needs[name] = sorted({j.name for j in mine})
        return jobs, needs

    # ---- running --------------------------------------------------------------------------

    @staticmethod
    def _plane_path(plane: dict, results) -> Path:
        return Path(results) / "networks" / "planes" / f"plane-{seeds.digest(plane, 12)}.nc"

    @staticmethod
    def _point_path(point: dict, results) -> Path:
        label = f"phi{point['phi']:g}-N{point['N']}"
        return Path(results) / "networks" / "chains" / f"{label}-{seeds.digest(point, 12)}.nc"

    def _provenance(self, payload: dict) -> dict:
        return {"payload": seeds.digest(payload), "code_fingerprint": self.fingerprint()}

    def _stale(self, items, paths, log) -> list:
        """(item, path) of the items whose result file is missing or out of date."""
        return [
            (item, path)
            for item, path in zip(items, paths, strict=True)
            if reusable(path, self._provenance(item), log) is None
        ]

    def units(self, job: Job, results) -> list[tuple[Path, dict]]:
        """One file per plane (planes) or per (phi, N) point (chains)."""
        if job.payload["part"] == "planes":
            items = job.payload["planes"]
            paths = [self._plane_path(p, results) for p in items]
        else:
            items = job.payload["points"]
            paths = [self._point_path(pt, results) for pt in items]
        return [(path, self._provenance(item)) for item, path in zip(items, paths, strict=True)]

    def run(self, job: Job, results, *, config: dict, threads: int, log=print) -> dict:
        """Run a planes job (each distinct scan into its file) or a chains job (each phi at the
        job's N into its file); return the manifest."""
        if job.payload["part"] == "planes":
            return self._run_plane(job, results, config, threads, log)
        return self._run_chains(job, results, config, threads, log)

    def _run_plane(self, job, results, config, threads, log) -> dict:
        planes = job.payload["planes"]
        paths = [self._plane_path(p, results) for p in planes]
        todo = self._stale(planes, paths, log)
        if not todo:
            return {"files": [str(path) for path in paths]}
        tasks, owner = [], []
        for j, (p, _path) in enumerate(todo):
            for a in range(0, p["cells"], p["block"]):
                stop = min(a + p["block"], p["cells"])
                tasks.append(
                    (_plane_rows, (p["x1"], p["x2"], p["low"], p["high"], p["cells"], a, stop))
                )
                owner.append(j)
        t0 = time.perf_counter()
        parts = _map(tasks, config, threads, log)
        seconds = (time.perf_counter() - t0) / len(todo)
        for j, (p, path) in enumerate(todo):
            mine = [part for part, o in zip(parts, owner, strict=True) if o == j]
            cells = {k: np.concatenate([part[k] for part in mine]) for k in mine[0]}
            n = p["cells"]
            g = cell_centres(p["low"], p["high"], n)
            data = {
                v: (("d1", "d2", "family"), cells[v].reshape(n, n, len(FAMILIES)))
                for v in _FAMILY_VARS
            }
            data.update({v: (("d1", "d2"), cells[v].reshape(n, n)) for v in _CELL_VARS})
            ds = xr.Dataset(
                data,
                coords={"d1": g, "d2": g, "family": list(FAMILIES)},
                attrs={"hyst_version": __version__, **self._provenance(p)},
            )
            write_dataset(ds, path)
        cells_done = sum(p["cells"] ** 2 for p, _ in todo)
        total = seconds * len(todo)
        log(
            f"{job.name}: {len(todo)} scans, {cells_done} cells in {total:.1f} s "
            f"({cells_done / total:,.0f} cells/s)"
        )
        return {"files": [str(path) for path in paths]}

    def _run_chains(self, job, results, config, threads, log) -> dict:
        points = job.payload["points"]
        paths = [self._point_path(pt, results) for pt in points]
        todo = self._stale(points, paths, log)
        if todo:
            tasks, owner = [], []
            for j, (pt, _path) in enumerate(todo):
                for k, size in chain_study.chunks(pt["samples"]):
                    tasks.append((_chain_chunk, (pt, k, size)))
                    owner.append(j)
            t0 = time.perf_counter()
            tallies = _map(tasks, config, threads, log)
            seconds = time.perf_counter() - t0
            for j, (pt, path) in enumerate(todo):
                merged = chain_study.merge(t for t, o in zip(tallies, owner, strict=True) if o == j)
                ds = chain_study.tally_dataset(merged)
                ds.attrs.update({"hyst_version": __version__, **self._provenance(pt)})
                write_dataset(ds, path)
            total = sum(pt["samples"] for pt, _ in todo)
            log(f"{job.name}: {total} chains in {seconds:.1f} s ({total / seconds:,.0f}/s)")
        return {"files": [str(p) for p in paths]}

    # ---- collection -----------------------------------------------------------------------

    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """The study's dataset: the panels' (d1, d2) scans with the paper's and the exact
        conditions, or the chains' tallies over (phi, N)."""
        common = {
            "study": name,
            "kind": self.name,
            "part": study["part"],
            "rule": RULE,
            "hyst_version": __version__,
            "code_fingerprint": self.fingerprint(),
        }
        if study["part"] == "planes":
            return self._collect_planes(study, results, common)
        tallies = {}
        for N in study["N"]:
            for pt in self._chain_points(study, N, config["seed"]):
                ds = read_dataset(self._point_path(pt, results))
                tallies[pt["phi"], pt["N"]] = chain_study.tally_from_dataset(ds)
        attrs = {
            "samples": int(study["samples"]),
            "seed": int(config["seed"]),
            "d_max": float(study["d_max"]),
            "sigma0_max": float(study["sigma0_max"]),
        }
        out = chain_study.assemble(tallies, study["phi"], study["N"], attrs)
        out.attrs.update(common)
        return out

    def _collect_planes(self, study, results, common) -> xr.Dataset:
        parts, scans = [], set()
        panels = _panels(study)
        for panel, (x1, x2) in panels.items():
            plane = self._plane(x1, x2, study)
            ds = read_dataset(self._plane_path(plane, results))
            scans.add(seeds.digest(plane, 12))
            ds = ds.drop_attrs().assign(mapped_parameters(x1, x2, ds.d1.values, ds.d2.values))
            parts.append(ds.expand_dims(panel=[panel]))
        out = xr.concat(parts, dim="panel").assign_coords(element=[1, 2])
        names = list(out.panel.values)
        for key, i, j in (
            ("x1_minus", 0, 0),
            ("x1_plus", 0, 1),
            ("x2_minus", 1, 0),
            ("x2_plus", 1, 1),
        ):
            out = out.assign_coords({key: ("panel", [float(panels[p][i][j]) for p in names])})
        diff = (out.paper != out.attractor).any("family")
        grid = study["grid"]
        out.attrs.update(
            {
                **common,
                "grid_low": float(grid["low"]),
                "grid_high": float(grid["high"]),
                "grid_cells": int(grid["cells"]),
                "field": "H = U (two elements in series, no spring)",
                "disagreeing_cells": int(diff.sum()),
                "cells": int(diff.size),
                "distinct_scans": len(scans),
            }
        )
        return out

    def sweep(self, study: dict) -> dict:
        """A ``networks`` dataset varies over (panel, d1, d2) or (phi, N); its one group is
        the part."""
        dims = ("panel", "d1", "d2") if study["part"] == "planes" else ("phi", "N")
        return {"x": None, "dims": dims, "groups": (study["part"],)}

    def kernel_passes(self) -> dict[str, tuple]:
        """The kernel passes of each part: the pair scan of planes, the chains' passes."""
        return dict(PASSES)

    def summary(self, ds: xr.Dataset) -> str:
        """What the planes (panels, cells, disagreements with the mechanical scan) or the chains
        (fractions, sizes, samples) hold."""
        if ds.attrs.get("part") == "planes":
            cells, bad = int(ds.attrs["cells"]), int(ds.attrs["disagreeing_cells"])
            return (
                f"{ds.sizes['panel']} panels of {ds.sizes['d1']}² cells "
                f"(d in [{ds.attrs['grid_low']:g}, {ds.attrs['grid_high']:g}]), rule 1; the "
                f"Supplemental's conditions disagree with the mechanical scan in {bad} of "
                f"{cells} cells ({100 * bad / cells:.2f} %), every one an L = 4 cell failing "
                f"a race inequality R1–R4; the exact conditions agree everywhere "
                f"({ds.attrs.get('distinct_scans')} distinct scans)"
            )
        return (
            f"{ds.attrs.get('samples')} chains per (phi, N) point, "
            f"|d_i| ~ U[0, {ds.attrs.get('d_max'):g}], sigma_i^0 ~ U[0, "
            f"{ds.attrs.get('sigma0_max'):g}], x_i^c ~ U[-1, 1], rule 1; "
            f"{int(ds.cross_checked.sum())} chains re-simulated mechanically, all equal"
        )


KIND = NetworksKind()
