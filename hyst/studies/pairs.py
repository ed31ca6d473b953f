"""Study kind ``pairs``: two coupled elements sampled in the (c12, c21) plane.

For each span σ of the study, ``samples`` two-element systems
(:func:`hyst.model.two_elements.pair_systems`: midpoints ∓Δh^c/2, equal spans σ,
c12, c21 ~ U[−c_max, c_max]) are relaxed through every transition out of
every potentially stable state under rule 1; the dataset records (c12, c21)
and whether an L = 4 self-loop occurred, to be compared with the
Supplemental's analytic region. One job per span value; each is keyed by
(σ, Δh^c, c_max), so adding a span samples only that span.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.kernels import codes
from hyst.model import batch, seeds
from hyst.model.two_elements import pair_systems
from hyst.provenance.files import read_dataset, reusable, write_dataset
from hyst.studies.base import Job, JobPass, StudyKind

#: The rule of the pairs study (the Supplemental's figure uses rule 1).
RULE = "1"
#: Variables of a pairs dataset, along (sigma, pair).
VARIABLES = ("c12", "c21", "self_loop")


def _identity(sigma: float, delta_h: float, c_max: float) -> dict:
    """What one span's systems depend on (the key of its random stream)."""
    return {"pairs": float(sigma), "delta_h": float(delta_h), "c_max": float(c_max)}


def sample_span(sigma: float, delta_h: float, c_max: float, samples: int, seed: int) -> xr.Dataset:
    """(c12, c21, self_loop) of ``samples`` pairs with span ``sigma``."""
    rng = seeds.generator(seed, _identity(sigma, delta_h, c_max))
    systems = pair_systems(float(sigma), delta_h, c_max, samples, rng)
    out = batch.enumerate_batch(
        systems, np.zeros(samples, np.int64), RULE, codes.WHAT_TRANSITIONS, l4_per_system=1
    )
    _hp, _hm, c = systems.to_floats()
    loop = (out.columns["n_self_loop_transitions"] > 0).astype(np.int8)
    return xr.Dataset(
        {
            "c12": ("pair", c[:, 0, 1]),
            "c21": ("pair", c[:, 1, 0]),
            "self_loop": ("pair", loop),
        },
        coords={"pair": np.arange(samples)},
    )


class PairsKind(StudyKind):
    """The study kind ``pairs``: two coupled elements sampled in the (c12, c21) plane, whether
    each has an L = 4 self-loop, per span sigma."""

    name = "pairs"
    description = "two coupled elements in the (c12, c21) plane: L = 4 self-loops per span sigma"
    #: A span's pairs take seconds on one core: no Dask cluster.
    own_resources = {"threads": 1, "mem_mb": 2000, "runtime": 30}

    def schema(self) -> dict:
        """The schema of a ``pairs`` study: pairs per span, the spans sigma, the midpoint difference
        Δh^c and the largest coupling |c|."""
        return self.study_schema(
            {
                "samples": {
                    "description": "Pairs per span value.",
                    "type": "integer",
                    "minimum": 1,
                },
                "sigma": {
                    "description": "Spans sigma (equal for both elements).",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "number", "minimum": 0},
                    "default": [0.0, 0.5, 2.0],
                },
                "delta_h": {
                    "description": "Midpoint difference h2^c - h1^c.",
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "default": 1.0,
                },
                "c_max": {
                    "description": "Couplings are drawn in [-c_max, c_max].",
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "default": 2.0,
                },
            },
            ["kind", "samples"],
        )

    def _job(self, sigma: float, study: dict, seed: int) -> Job:
        identity = _identity(sigma, study["delta_h"], study["c_max"])
        payload = {**identity, "samples": int(study["samples"]), "seed": int(seed)}
        return Job(self.name, f"sigma{float(sigma):g}-{seeds.digest(payload, 10)}", payload)

    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """One job per span sigma of each study."""
        jobs, needs = {}, {}
        for name, study in studies.items():
            mine = [self._job(s, study, config["seed"]) for s in study["sigma"]]
            jobs.update({j.name: j for j in mine})
            needs[name] = [j.name for j in mine]
        return jobs, needs

    @staticmethod
    def _path(job: Job, results) -> Path:
        return Path(results) / "pairs" / f"{job.name}.nc"

    def _provenance(self, job: Job) -> dict:
        return {**job.payload, "rule": RULE, "code_fingerprint": self.fingerprint()}

    def units(self, job: Job, results) -> list[tuple[Path, dict]]:
        """The job's one file: the pairs of one span ensemble."""
        return [(self._path(job, results), self._provenance(job))]

    def run(self, job: Job, results, *, config: dict, threads: int, log=print) -> dict:
        """Sample the job's pairs at its span (reused when the file's provenance matches) and write
        (c12, c21, self_loop) per pair; return the manifest."""
        path = self._path(job, results)
        if reusable(path, self._provenance(job), log) is not None:
            return {"files": [str(path)]}
        p = job.payload
        ds = sample_span(p["pairs"], p["delta_h"], p["c_max"], p["samples"], p["seed"])
        ds.attrs.update({"hyst_version": __version__, **self._provenance(job)})
        write_dataset(ds, path)
        loops = int(ds.self_loop.sum())
        log(f"pairs sigma = {p['pairs']:g}: {loops} of {p['samples']} with an L = 4 self-loop")
        return {"files": [str(path)]}

    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """The study's dataset: c12, c21 and self_loop over (sigma, pair)."""
        parts = [
            read_dataset(self._path(self._job(s, study, config["seed"]), results))
            for s in study["sigma"]
        ]
        ds = xr.Dataset(
            {v: (("sigma", "pair"), np.stack([p[v].values for p in parts])) for v in VARIABLES},
            coords={"sigma": np.asarray(study["sigma"], float), "pair": parts[0].pair.values},
        )
        ds.attrs.update(
            {
                "study": name,
                "kind": self.name,
                "delta_h": float(study["delta_h"]),
                "c_max": float(study["c_max"]),
                "samples": int(study["samples"]),
                "seed": int(config["seed"]),
                "rule": RULE,
                "hyst_version": __version__,
                "code_fingerprint": self.fingerprint(),
            }
        )
        return ds

    def sweep(self, study: dict) -> dict:
        """A ``pairs`` dataset varies over the span sigma; it has no coupling sweep and no
        groups."""
        return {"x": None, "dims": ("sigma",), "groups": ()}

    def kernel_passes(self) -> dict[str, tuple]:
        """The one kernel pass of a ``pairs`` job: the enumeration of each pair's transitions under
        rule 1."""
        return {
            "": (
                JobPass(
                    "enumeration",
                    "every transition out of every potentially stable state of each pair "
                    "(rule 1): whether one ends in a self-loop",
                    (batch.enumerate_batch,),
                ),
            )
        }

    def summary(self, ds: xr.Dataset) -> str:
        """The pairs per span, the spans and Δh^c."""
        return (
            f"{ds.sizes['pair']} pairs per span, spans "
            f"{', '.join(f'{s:g}' for s in ds.sigma.values)}, Δh^c = {ds.attrs.get('delta_h')}"
        )


KIND = PairsKind()
