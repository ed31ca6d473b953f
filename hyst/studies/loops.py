"""Study kind ``loops``: fundamental self-loop structures and their realizability.

For the cells (n_e, L) of a study it counts the fundamental loops M(n_e, L)
(:mod:`hyst.combinatorics.structures`), optionally again by Burnside's lemma, and decides
the realizability of each representative by linear programming
(:mod:`hyst.combinatorics.realize`): M_R (variant ``R``) and M_W (variant ``W+``, weak
asymmetry with positive spans, as the paper's table), optionally the other two
variants. Each (cell, count or realize) has its own result file, keyed by what it
computes, so a cell shared by two studies is computed once and adding a cell computes
only that cell; large cells are a job each, the small ones share a job per task.
Enumeration chunks and blocks of LPs run on a Dask client for large cells
(``dask:`` of the configuration, else a LocalCluster per job). The dataset holds
M, M_R, M_W per (n_e, L), failures and LP counts, the paper's numbers for
comparison, and the representatives with their per-variant status, LPs and
certificate size for cells with at most ``store_max`` loops; the wall time of
every cell is in the attribute ``seconds`` (attributes do not enter the content
hash, so the data are the same on every run).
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.combinatorics import design, realize, store
from hyst.combinatorics import structures as S
from hyst.combinatorics.counts import count_file
from hyst.combinatorics.realizations import realize_file
from hyst.combinatorics.tables import PAPER_M, PAPER_MR, PAPER_MW, report_tables
from hyst.kernels import loop_enumeration, state_table
from hyst.model import seeds
from hyst.provenance.files import read_dataset
from hyst.sampling.cluster import client_if_parallel
from hyst.studies.base import ConfigError, Job, JobPass, StudyKind, shared_by

#: Dataset names of the realizability variants (M_R and M_W are the paper's columns).
VARIANT_NAMES = {
    "R": "M_R",
    "W+": "M_W",
    "R+": "M_R_positive_spans",
    "W": "M_W_any_spans",
}
#: Cells at least this long run their chunks on a Dask client (else in the job's thread):
#: counting from these lengths, realizability from ``DASK_MIN_REALIZE`` (n_e = 5 and more).
DASK_MIN_COUNT_LENGTH = {5: 18, 6: 12}
DASK_MIN_REALIZE = {5: 12, 6: 12}
#: Per-loop status of a stored loop whose cell was not checked by LP.
NOT_CHECKED = -9

_CELLS = {
    "description": "Cells (n_e, L): n_e one count or a list; L a list of lengths (default: "
    "every length 2 n_e ... 2^n_e).",
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["n_e"],
        "properties": {
            "n_e": {
                "description": "Elements that flip in the loop.",
                "oneOf": [
                    {"type": "integer", "minimum": 2, "maximum": S.MAX_ELEMENTS},
                    {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "integer", "minimum": 2, "maximum": S.MAX_ELEMENTS},
                    },
                ],
                "x-hyst-message": f"an integer 2..{S.MAX_ELEMENTS} or a list of them",
            },
            "L": {
                "description": "Loop lengths (even, 2 n_e <= L <= 2^n_e).",
                "type": "array",
                "minItems": 1,
                "items": {"type": "integer", "minimum": 4, "multipleOf": 2},
            },
        },
    },
    "default": [],
}


def expand_cells(specs) -> list[tuple[int, int]]:
    """The (n_e, L) cells of a list of cell specs, sorted, without repeats."""
    cells = set()
    for spec in specs:
        ns = spec["n_e"] if isinstance(spec["n_e"], list) else [spec["n_e"]]
        for n in ns:
            for L in spec.get("L") or S.cell_lengths(n):
                cells.add((int(n), int(L)))
    return sorted(cells)


class LoopsKind(StudyKind):
    """The study kind ``loops``: fundamental self-loops of n_e elements and length L, their
    number M(n_e, L) by enumeration (and Burnside's lemma) and realizability M_R, M_W by LP."""

    name = "loops"
    description = "fundamental self-loops: M(n_e, L), realizability M_R and M_W by LP"

    def schema(self) -> dict:
        """The schema of a ``loops`` study: the cells (n_e, L) to count, to check by LP and to
        count by Burnside's lemma, and the enumeration and LP options."""
        d = store.DEFAULTS
        return self.study_schema(
            {
                "count": {**_CELLS, "description": "Cells whose M(n_e, L) is counted."},
                "realize": {
                    **_CELLS,
                    "description": "Cells whose loops are checked by LP (M_R, M_W; also counted).",
                },
                "burnside": {
                    **_CELLS,
                    "description": "Cells counted again by Burnside's lemma (also counted).",
                },
                "variants": {
                    "description": "Realizability variants: R (M_R), W+ (M_W: weak asymmetry, "
                    "positive spans), R+ (positive spans), W (weak asymmetry, any spans).",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"enum": list(realize.VARIANTS)},
                    "default": d["variants"],
                },
                "mode": {
                    "description": "conservative (the Supplemental) or rule1 (exact up/down "
                    "competition).",
                    "enum": list(design.MODES),
                    "default": d["mode"],
                },
                "lp_form": {
                    "description": "eliminated (H eliminated, the Supplemental's form) or compact "
                    "(2H an LP variable; same answers, faster).",
                    "enum": list(store.LP_FORMS),
                    "default": d["lp_form"],
                },
                "store_max": {
                    "description": "Cells with at most this many loops keep their "
                    "representatives in the dataset.",
                    "type": "integer",
                    "minimum": 0,
                    "default": d["store_max"],
                },
                "chunk_depth": {
                    "description": "Flips fixed per enumeration chunk (more: smaller chunks).",
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 16,
                    "default": d["chunk_depth"],
                },
                "block": {
                    "description": "Representatives per realizability task.",
                    "type": "integer",
                    "minimum": 1,
                    "default": d["block"],
                },
            },
            ["kind"],
        )

    def check(self, name: str, study: dict, config: dict) -> None:
        """Refuse a cell (n_e, L) out of the enumerator's reach, and a study with no cell."""
        for key in ("count", "realize", "burnside"):
            for i, spec in enumerate(study[key]):
                ns = spec["n_e"] if isinstance(spec["n_e"], list) else [spec["n_e"]]
                for n in ns:
                    for L in spec.get("L") or []:
                        try:
                            S.check_cell(n, L)
                        except ValueError as err:
                            raise ConfigError(f"studies.{name}.{key}[{i}].{err}") from None
        if not (study["count"] or study["realize"] or study["burnside"]):
            raise ConfigError(f"studies.{name}: give at least one cell (count, realize, burnside)")

    # ---- jobs ---------------------------------------------------------------------------------

    def payloads(self, study: dict) -> tuple[list[dict], list[dict]]:
        """(count payloads, realize payloads) of a study."""
        burn = set(expand_cells(study["burnside"]))
        counted = sorted(
            set(expand_cells(study["count"])) | set(expand_cells(study["realize"])) | burn
        )
        counts = [
            store.count_payload(n, L, study["chunk_depth"], study["store_max"], (n, L) in burn)
            for n, L in counted
        ]
        realizes = [
            store.realize_payload(
                n, L, study["variants"], study["mode"], study["lp_form"], study["block"]
            )
            for n, L in expand_cells(study["realize"])
        ]
        return counts, realizes

    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """A cell whose chunks run on Dask (see :meth:`uses_dask`) is a job of its own; the
        other cells needed by the same loops studies share one job per task (count,
        realize), since each takes seconds and a job's start-up costs as much; cells of
        different sets of studies never share a job, so a change to one study changes no
        other study's jobs. Every cell keeps its own result file, reused when its
        provenance matches, so adding a cell computes only that cell, and a cell shared by
        two studies is computed once."""
        payloads_of = {name: sum(self.payloads(study), []) for name, study in studies.items()}
        unique = {store.job_name(p): p for ps in payloads_of.values() for p in ps}
        keys_of = {name: [store.job_name(p) for p in ps] for name, ps in payloads_of.items()}
        jobs, owner = {}, {}
        for keys in shared_by(keys_of).values():
            small: dict[str, list[dict]] = {}
            for key in sorted(keys):
                payload = unique[key]
                if self.uses_dask(payload):
                    jobs[key] = Job(self.name, key, {"cells": [payload]})
                    owner[key] = key
                else:
                    small.setdefault(payload["what"], []).append(payload)
            for what, cells in small.items():
                cells.sort(key=lambda p: (p["n_e"], p["L"], store.job_name(p)))
                if len(cells) == 1:
                    name = store.job_name(cells[0])
                else:
                    ns = sorted({p["n_e"] for p in cells})
                    label = f"n{ns[0]}" if len(ns) == 1 else f"n{ns[0]}-{ns[-1]}"
                    name = f"{what}-{label}-{len(cells)}cells-{seeds.digest(cells, 10)}"
                jobs[name] = Job(self.name, name, {"cells": cells})
                owner.update({store.job_name(p): name for p in cells})
        needs = {name: sorted({owner[k] for k in keys}) for name, keys in keys_of.items()}
        return jobs, needs

    @staticmethod
    def uses_dask(payload: dict) -> bool:
        """Whether a cell is large enough to run its chunks on a Dask client."""
        n, L = payload["n_e"], payload["L"]
        first = DASK_MIN_COUNT_LENGTH if payload["what"] == "count" else DASK_MIN_REALIZE
        return L >= first.get(n, 10**9)

    def units(self, job: Job, results) -> list[tuple]:
        """One file per cell (n_e, L): its count, or its realizability."""
        return [
            (
                store.cell_path(results, p),
                store.provenance(
                    p, (count_file if p["what"] == "count" else realize_file).__module__
                ),
            )
            for p in job.payload["cells"]
        ]

    def run(self, job: Job, results, *, config: dict, threads: int, log=print) -> dict:
        """Compute the job's cells (counts, then realizability), each reused when its file's
        provenance matches; the manifest lists the cell files."""
        files = []
        for payload in job.payload["cells"]:
            compute = count_file if payload["what"] == "count" else realize_file
            with client_if_parallel(threads if self.uses_dask(payload) else 1, config) as c:
                compute(payload, results, client=c, log=log)
            files.append(str(store.cell_path(results, payload)))
        return {"files": files}

    # ---- collection ---------------------------------------------------------------------

    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """The study's dataset: M, M_R, M_W (and Burnside's count) on the grid (n_e, L), and the
        stored representatives with their realizability per variant."""
        counts, realizes = self.payloads(study)
        ns = sorted({p["n_e"] for p in counts})
        Ls = sorted({p["L"] for p in counts})
        shape = (len(ns), len(Ls))
        at = {(n, L): (ns.index(n), Ls.index(L)) for n in ns for L in Ls}

        def grid(fill, dtype):
            return np.full(shape, fill, dtype)

        M, M_b = grid(-1, np.int64), grid(-1, np.int64)
        per_variant = {
            v: {"M": grid(-1, np.int64), "failed": grid(-1, np.int64), "lps": grid(-1, np.int64)}
            for v in study["variants"]
        }
        stored: dict[tuple, xr.Dataset] = {}
        for p in counts:
            ds = read_dataset(store.cell_path(results, p))
            ij = at[(p["n_e"], p["L"])]
            M[ij] = ds.attrs["M"]
            if "M_burnside" in ds.attrs:
                M_b[ij] = ds.attrs["M_burnside"]
            if "start" in ds:
                stored[(p["n_e"], p["L"])] = ds
        realized: dict[tuple, xr.Dataset] = {}
        for p in realizes:
            ds = read_dataset(store.cell_path(results, p))
            cell = (p["n_e"], p["L"])
            ij = at[cell]
            summary = json.loads(ds.attrs["summary"])
            for v in study["variants"]:
                per_variant[v]["M"][ij] = summary[v]["feasible"]
                per_variant[v]["failed"][ij] = summary[v]["failed"]
                per_variant[v]["lps"][ij] = summary[v]["lps"]
            if cell in stored:
                realized[cell] = ds
        data = {"M": (("n_e", "L"), M), "M_burnside": (("n_e", "L"), M_b)}
        for v, arrays in per_variant.items():
            base = VARIANT_NAMES[v]
            data[base] = (("n_e", "L"), arrays["M"])
            data[f"{base}_failed"] = (("n_e", "L"), arrays["failed"])
            data[f"{base}_lps"] = (("n_e", "L"), arrays["lps"])
        for var, paper in (("M_paper", PAPER_M), ("M_R_paper", PAPER_MR), ("M_W_paper", PAPER_MW)):
            values = grid(-1, np.int64)
            for cell, value in paper.items():
                if cell in at:
                    values[at[cell]] = value
            data[var] = (("n_e", "L"), values)
        data.update(self._representatives(stored, realized, study["variants"]))
        ds = xr.Dataset(data, coords={"n_e": ns, "L": Ls})
        for var in ds.data_vars:
            if var.startswith("M") and ds[var].dtype.kind == "i":
                ds[var].attrs["missing_value_meaning"] = "-1: not computed (or not in the paper)"
        ds.attrs.update(
            {
                "study": name,
                "kind": self.name,
                "variants": json.dumps(study["variants"]),
                "variant_names": json.dumps({v: VARIANT_NAMES[v] for v in study["variants"]}),
                "mode": study["mode"],
                "lp_form": study["lp_form"],
                "status_codes": json.dumps({**realize.STATUS, "not_checked": NOT_CHECKED}),
                "hyst_version": __version__,
                "code_fingerprint": self.fingerprint(),
            }
        )
        return ds

    @staticmethod
    def _representatives(stored: dict, realized: dict, variants) -> dict:
        """Per-loop variables of the stored cells (along ``loop``; flips padded with −1)."""
        if not stored:
            return {}
        cells = sorted(stored)
        width = max(L for _n, L in cells)
        n_e, L, start, flips = [], [], [], []
        per = {
            f"{k}_{VARIANT_NAMES[v]}": [] for k in ("status", "lps", "support") for v in variants
        }
        for cell in cells:
            ds = stored[cell]
            k = ds.sizes["loop"]
            n_e.append(np.full(k, cell[0], np.int8))
            L.append(np.full(k, cell[1], np.int16))
            start.append(ds.start.values.astype(np.int64))
            pad = np.full((k, width), -1, np.int8)
            pad[:, : cell[1]] = ds.flips.values
            flips.append(pad)
            for key in per:
                what, vname = key.split("_", 1)
                v = next(x for x in variants if VARIANT_NAMES[x] == vname)
                if cell in realized:
                    per[key].append(realized[cell][f"{what}_{v}"].values.astype(np.int32))
                else:
                    per[key].append(np.full(k, NOT_CHECKED, np.int32))
        out = {
            "loop_n_e": ("loop", np.concatenate(n_e)),
            "loop_L": ("loop", np.concatenate(L)),
            "loop_start": ("loop", np.concatenate(start)),
            "loop_flips": (("loop", "step"), np.concatenate(flips)),
        }
        for key, parts in per.items():
            out[f"loop_{key}"] = ("loop", np.concatenate(parts))
        return out

    def sweep(self, study: dict) -> dict:
        """A ``loops`` dataset varies over (n_e, L); it has no coupling sweep and no groups."""
        return {"x": None, "dims": ("n_e", "L"), "groups": ()}

    def kernel_passes(self) -> dict[str, tuple]:
        """The kernel passes of a ``loops`` job: the enumeration and count of a cell's loops and
        the LP realizability check of its representatives."""
        return {
            "": (
                JobPass(
                    "count",
                    "the fundamental self-loops of a cell (n_e, L) enumerated in chunks of "
                    "prefixes, in canonical form, and counted again by Burnside's lemma "
                    "(hyst.combinatorics.counts)",
                    (
                        loop_enumeration.walk_prefixes,
                        loop_enumeration.walk_loops,
                        loop_enumeration.rank_key,
                        loop_enumeration.symmetric_walks,
                    ),
                ),
                JobPass(
                    "realize",
                    "each representative's design inequalities, solved by linear programming "
                    "(scipy), and the system found re-simulated with the core relaxation "
                    "(hyst.combinatorics.realizations)",
                    (loop_enumeration.design_rows, state_table.build_state_table, state_table.walk),
                ),
            )
        }

    def tables(self, ds: xr.Dataset) -> dict:
        """Table I and the Supplemental's tables (``combinatorics.tables.report_tables``)."""
        return report_tables(ds)

    def summary(self, ds: xr.Dataset) -> str:
        """How many cells are counted and how many checked for realizability (mode, LP form)."""
        counted = int((ds.M >= 0).sum())
        realized = int((ds.M_R >= 0).sum()) if "M_R" in ds else 0
        return (
            f"M(n_e, L) for {counted} cells, realizability of every representative for "
            f"{realized} cells ({ds.attrs.get('mode')} rule 1, LP form {ds.attrs.get('lp_form')})"
        )


KIND = LoopsKind()
