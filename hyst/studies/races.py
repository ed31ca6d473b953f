"""Study kind ``races``: race conditions settled by each element's speed or at random.

For each point (couplings, spans, N, N J0) of the study, ``samples`` systems are drawn as a
points study draws them (:func:`hyst.model.ensembles.sample_systems`, from a stream keyed by
the point) and, for each flip-time spread D of ``flip_time_decades``, every element gets a
flip time τ_i = 10^(D·u_i), u_i uniform in [0, 1) (one u_i per element, drawn once per
system: every spread sees the same systems and the same u_i, so the curves against D are
smooth). The enumeration of all 2^N states (:func:`hyst.model.batch.enumerate_batch`) runs
under the flip-time rule (the unstable element with the largest margin / τ_i flips first;
D = 0 is rule 1) and measures the observables of the groups transitions, zero_field and
avalanche of the catalogue (P_sl, P_g^0, f_G, P_sl^0, P_RC, ⟨A⟩, ...).

The first ``random_order_samples`` systems of each point are also relaxed under random
order (each unstable element equally likely to flip next,
:func:`hyst.model.random_order.random_order_analysis`): whether a transition can end in a
trap (a closed set of unstable states), the trap probabilities, and how this relates to the
same systems' rule-1 self-loops.

One job per (couplings, spans) of a study, over its N and N J0; one result file per point,
keyed by the point, its spreads, its sample counts and the seed.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.catalogue import ENUMERATION_MAX_N, MEAN, OBSERVABLES, PROBABILITY
from hyst.kernels import codes
from hyst.model import batch, seeds
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.flip_times import MAX_FLIP_TIME_DECADES, log_uniform_flip_times
from hyst.model.random_order import random_order_analysis
from hyst.provenance.files import read_dataset, reusable, write_dataset
from hyst.sampling.cost import load_rates, point_seconds, table_seconds
from hyst.sampling.sampler import Point
from hyst.studies.base import ConfigError, Job, JobPass, StudyKind

#: The catalogue groups the flip-time rule's enumeration measures.
GROUPS = ("transitions", "zero_field", "avalanche")
#: Largest N of the random-order analysis (every reachable state of every transition is
#: listed in Python: seconds per system at N = 10).
RANDOM_ORDER_MAX_N = 10
#: The flip-time rule's enumeration against rule 1's, per system and spread (measured: 0.7 at
#: N = 4, 1.5 at N = 8, 2.0 at N = 12; ``benchmarks/bench_rates.py --races``).
FLIP_TIME_FACTOR = 2.0


def point_cost(payload: dict, rates: dict | None) -> float:
    """CPU seconds of one thread for one point: the enumeration under the flip-time rule
    once per spread (rule 1's measured rate of the groups, times :data:`FLIP_TIME_FACTOR`)
    and the random-order analysis of ``random_order_samples`` systems (its own measured
    table in ``rates``, ``races_seconds``); 0 without rates."""
    rates = load_rates() if rates is None else rates
    if rates is None:
        return 0.0
    N = int(payload["N"])
    point = Point(payload["couplings"], payload["spans"], "1", N, float(payload["NJ0"]))
    per_spread = point_seconds(point, GROUPS, int(payload["samples"]), rates) or 0.0
    seconds = FLIP_TIME_FACTOR * per_spread * len(payload["flip_time_decades"])
    table = (rates.get("races_seconds") or {}).get("random_order")
    if table and payload["random_order_samples"]:
        per_system = table_seconds(table, N, exponential=True)
        seconds += per_system * int(payload["random_order_samples"])
    return seconds


def measured_observables() -> tuple:
    """The catalogue's probabilities and means of :data:`GROUPS` (what a races dataset holds
    per flip-time spread)."""
    return tuple(
        o
        for o in OBSERVABLES
        if o.kind in (PROBABILITY, MEAN) and set(o.groups) & set(GROUPS) and o.groups[0] in GROUPS
    )


def _identity(couplings: str, spans: str, N: int, NJ0: float) -> dict:
    """What a point's systems depend on (the key of its random streams)."""
    return {
        "races": "points",
        "couplings": couplings,
        "spans": spans,
        "N": int(N),
        "NJ0": float(NJ0),
    }


def _decoded(out: batch.EnumerationOutput, N: int) -> dict:
    """The named fields the catalogue measures from one enumeration call."""
    cols = out.columns
    d = {name: cols[name] for name in cols.names}
    d.update(
        N=N,
        gap_fraction=out.gap_fraction,
        loop_length_hist=out.loop_length_hist,
        loop_elements_hist=out.loop_elements_hist,
        avalanche_prepared=cols["start_prepared"] == 1,
        avalanche_outcome=cols["avalanche_outcome"],
        avalanche_size=cols["avalanche_size"],
    )
    return d


def sample_point(payload: dict) -> xr.Dataset:
    """The races dataset of one point: the catalogue's observables per flip-time spread and
    the random-order variables."""
    p = payload
    N = int(p["N"])
    identity = _identity(p["couplings"], p["spans"], N, p["NJ0"])
    rng = seeds.generator(p["seed"], identity)
    systems = sample_systems(p["couplings"], p["spans"], N, float(p["NJ0"]), p["samples"], rng)
    starts = rng.integers(0, 1 << N, p["samples"])
    u = seeds.generator(p["seed"], {**identity, "flip_times": "log_uniform"}).random(
        (p["samples"], N)
    )
    observables = measured_observables()
    data = {o.name: [] for o in observables}
    counts = {o.name: [] for o in observables if o.kind == PROBABILITY}
    trials = {o.name: [] for o in observables if o.kind == PROBABILITY}
    for decades in p["flip_time_decades"]:
        tau = log_uniform_flip_times(u, decades)
        out = batch.enumerate_batch(
            systems, starts, "tau", codes.WHAT_ALL, parallel=False, flip_times=tau
        )
        d = _decoded(out, N)
        for o in observables:
            value = np.asarray(o.measure(d))
            if o.kind == PROBABILITY:
                mask = o.trials(d) if o.trials else np.ones(value.shape, bool)
                hits = int(np.sum(value[mask]))
                n = int(np.sum(mask))
                counts[o.name].append(hits)
                trials[o.name].append(n)
                data[o.name].append(hits / n if n else np.nan)
            else:
                data[o.name].append(float(np.mean(value)) if value.size else np.nan)
    variables = {name: ("flip_time_decades", np.asarray(v, float)) for name, v in data.items()}
    variables.update(
        {f"{k}_count": ("flip_time_decades", np.asarray(v, np.int64)) for k, v in counts.items()}
    )
    variables.update(
        {f"{k}_trials": ("flip_time_decades", np.asarray(v, np.int64)) for k, v in trials.items()}
    )
    variables.update(random_order_variables(systems, int(p["random_order_samples"])))
    return xr.Dataset(
        variables, coords={"flip_time_decades": np.asarray(p["flip_time_decades"], float)}
    )


def random_order_variables(systems, samples: int) -> dict:
    """The random-order variables (scalars) of the first ``samples`` systems, with their
    rule-1 self-loops (P_sl's transitions)."""
    n = min(samples, systems.samples)
    trappable = np.zeros(n, bool)
    mean_trap = np.zeros(n)
    max_trap = np.zeros(n)
    for k in range(n):
        a = random_order_analysis(systems, k)
        trappable[k] = a.trappable
        mean_trap[k] = a.mean_trap_probability
        max_trap[k] = a.max_trap_probability
    loop = np.zeros(n, bool)
    if n:
        sub = systems[np.arange(n)] if n < systems.samples else systems
        out = batch.enumerate_batch(
            sub, np.zeros(n, np.int64), "1", codes.WHAT_TRANSITIONS, parallel=False
        )
        loop = out.columns["n_self_loop_transitions"] > 0
    return {
        "random_order_systems": ((), n),
        "random_order_trappable": ((), int(trappable.sum())),
        "random_order_trap_probability": ((), float(mean_trap.mean()) if n else np.nan),
        "random_order_max_trap_probability": ((), float(max_trap.mean()) if n else np.nan),
        "random_order_rule1_self_loop": ((), int(loop.sum())),
        "random_order_trappable_and_self_loop": ((), int((trappable & loop).sum())),
    }


class RacesKind(StudyKind):
    """The study kind ``races``: the catalogue's observables under the flip-time rule against
    the flip-time spread, and the random-order traps against rule 1's self-loops."""

    name = "races"
    description = (
        "race conditions settled by speed (flip-time rule, swept over the flip-time spread) "
        "and at random (random-order traps), per couplings x spans x N x NJ0"
    )

    def schema(self) -> dict:
        """The schema of a ``races`` study: ensembles, N, N J0, flip-time spreads, samples."""
        numbers = {"type": "array", "minItems": 1, "uniqueItems": True}
        return self.study_schema(
            {
                "couplings": {
                    "description": "Coupling ensembles (hyst.model.ensembles).",
                    **numbers,
                    "items": {"enum": list(COUPLING_ENSEMBLES)},
                },
                "spans": {
                    "description": "Span ensembles.",
                    **numbers,
                    "items": {"enum": list(SPAN_ENSEMBLES)},
                    "default": ["hysteron"],
                },
                "N": {
                    "description": f"System sizes (2 <= N <= {ENUMERATION_MAX_N}).",
                    **numbers,
                    "items": {"type": "integer", "minimum": 2, "maximum": ENUMERATION_MAX_N},
                },
                "NJ0": {
                    "description": "Coupling strengths N·J0 > 0.",
                    **numbers,
                    "items": {"type": "number", "exclusiveMinimum": 0},
                },
                "flip_time_decades": {
                    "description": "Flip-time spreads D in decades: tau_i = 10^(D u_i), u_i "
                    f"uniform in [0, 1) (0 <= D <= {MAX_FLIP_TIME_DECADES:g}; D = 0 is rule 1).",
                    **numbers,
                    "items": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": MAX_FLIP_TIME_DECADES,
                    },
                    "x-hyst-message": f"a list of numbers in [0, {MAX_FLIP_TIME_DECADES:g}]",
                },
                "samples": {
                    "description": "Systems per point.",
                    "type": "integer",
                    "minimum": 1,
                },
                "random_order_samples": {
                    "description": "Systems per point (the first ones) also relaxed under "
                    f"random order (0: none; N <= {RANDOM_ORDER_MAX_N}).",
                    "type": "integer",
                    "minimum": 0,
                    "default": 0,
                },
            },
            ["kind", "couplings", "N", "NJ0", "flip_time_decades", "samples"],
        )

    def check(self, name: str, study: dict, config: dict) -> None:
        """Refuse random order at an N beyond :data:`RANDOM_ORDER_MAX_N`."""
        big = [n for n in study["N"] if n > RANDOM_ORDER_MAX_N]
        if study["random_order_samples"] > 0 and big:
            raise ConfigError(
                f"studies.{name}.random_order_samples: random order needs N <= "
                f"{RANDOM_ORDER_MAX_N} (N = {big[0]}); set it to 0 or drop that N"
            )

    def _points(self, study: dict):
        return itertools.product(study["couplings"], study["spans"], study["N"], study["NJ0"])

    def _payload(self, point, study: dict, seed: int) -> dict:
        """What one point's result depends on: its identity, spreads, samples and seed."""
        couplings, spans, N, NJ0 = point
        return {
            **_identity(couplings, spans, N, NJ0),
            "flip_time_decades": [float(d) for d in study["flip_time_decades"]],
            "samples": int(study["samples"]),
            "random_order_samples": int(study["random_order_samples"]),
            "seed": int(seed),
        }

    def job_seconds(self, job: Job, rates: dict | None) -> float:
        """Every point's enumerations and random-order analyses (:func:`point_cost`)."""
        return sum(point_cost(p, rates) for p in job.payload["points"])

    def costs(self, name: str, study: dict, config: dict) -> dict:
        """Each point's systems (one per system and spread, plus the random-order ones) and
        core-seconds (:func:`point_cost`), by point."""
        out = {}
        for point in self._points(study):
            payload = self._payload(point, study, config["seed"])
            systems = payload["samples"] * len(payload["flip_time_decades"])
            out[self._point_name(payload)] = (
                systems + payload["random_order_samples"],
                point_cost(payload, None),
            )
        return out

    @staticmethod
    def _point_name(payload: dict) -> str:
        return (
            f"{payload['couplings']}-{payload['spans']}-N{int(payload['N'])}"
            f"-NJ0-{float(payload['NJ0']):g}-{seeds.digest(payload, 10)}"
        )

    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """One job per (couplings, spans) of each study, over its N and N J0: a point takes
        seconds and a job's start-up as much. Every point keeps its own result file, reused
        when its provenance matches, so a point added to a study computes only that point."""
        jobs, needs = {}, {}
        for name, study in studies.items():
            by_ensemble: dict[tuple, list[dict]] = {}
            for point in self._points(study):
                payload = self._payload(point, study, config["seed"])
                by_ensemble.setdefault(point[:2], []).append(payload)
            needs[name] = []
            for (couplings, spans), payloads in by_ensemble.items():
                job_name = (
                    f"{couplings}-{spans}-{len(payloads)}points-{seeds.digest(payloads, 10)}"
                )
                jobs[job_name] = Job(self.name, job_name, {"points": payloads})
                needs[name].append(job_name)
        return jobs, needs

    def _path(self, payload: dict, results) -> Path:
        return Path(results) / "races" / f"{self._point_name(payload)}.nc"

    def _provenance(self, payload: dict) -> dict:
        p = dict(payload)
        p["flip_time_decades"] = ",".join(f"{d:g}" for d in p["flip_time_decades"])
        return {**p, "code_fingerprint": self.fingerprint()}

    def units(self, job: Job, results) -> list[tuple[Path, dict]]:
        """The job's files: the races dataset of each of its points."""
        return [(self._path(p, results), self._provenance(p)) for p in job.payload["points"]]

    def run(self, job: Job, results, *, config: dict, threads: int, log=print) -> dict:
        """Sample each point of the job (reused when its file's provenance matches); return
        the manifest."""
        files = []
        for payload in job.payload["points"]:
            path = self._path(payload, results)
            files.append(str(path))
            if reusable(path, self._provenance(payload), log) is not None:
                continue
            ds = sample_point(payload)
            ds.attrs.update({"hyst_version": __version__, **self._provenance(payload)})
            write_dataset(ds, path)
            log(
                f"races {self._point_name(payload)}: P_sl = "
                f"{np.round(ds.self_loop_probability.values, 3).tolist()}"
            )
        return {"files": files}

    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """The study's dataset over (couplings, spans, N, NJ0[, flip_time_decades])."""
        dims = ("couplings", "spans", "N", "NJ0")
        coords = {
            "couplings": list(study["couplings"]),
            "spans": list(study["spans"]),
            "N": np.asarray(study["N"], np.int64),
            "NJ0": np.asarray(study["NJ0"], float),
        }
        parts = [
            read_dataset(self._path(self._payload(p, study, config["seed"]), results))
            for p in self._points(study)
        ]
        shape = tuple(len(v) for v in coords.values())
        variables = {}
        for var in parts[0].data_vars:
            stack = np.stack([part[var].values for part in parts])
            extra = parts[0][var].dims
            variables[var] = (dims + extra, stack.reshape(shape + stack.shape[1:]))
        ds = xr.Dataset(
            variables,
            coords={**coords, "flip_time_decades": parts[0].flip_time_decades.values},
        )
        ds.attrs.update(
            {
                "study": name,
                "kind": self.name,
                "rule": "tau",
                "samples": int(study["samples"]),
                "random_order_samples": int(study["random_order_samples"]),
                "seed": int(config["seed"]),
                "hyst_version": __version__,
                "code_fingerprint": self.fingerprint(),
            }
        )
        return ds

    def sweep(self, study: dict) -> dict:
        """A races dataset varies over the flip-time spread, N and N J0; it holds the groups
        transitions, zero_field and avalanche, and random_order when random_order_samples >
        0."""
        groups = GROUPS + (("random_order",) if study.get("random_order_samples", 0) else ())
        return {"x": None, "dims": ("flip_time_decades", "N", "NJ0"), "groups": groups}

    def kernel_passes(self) -> dict[str, tuple]:
        """The passes of a races job: the enumeration under the flip-time rule per spread; the
        random-order analysis with the rule-1 enumeration of the same systems."""
        enumeration = JobPass(
            "flip-time enumeration",
            "every transition, the H = 0 map and the avalanche of all 2^N states under the "
            "flip-time rule, per flip-time spread",
            (batch.enumerate_batch,),
        )
        random_order = JobPass(
            "random order",
            "every transition relaxed under random order (absorbing Markov chain) and under rule 1",
            (batch.enumerate_batch,),
        )
        return {**dict.fromkeys(GROUPS, (enumeration,)), "random_order": (random_order,)}

    def summary(self, ds: xr.Dataset) -> str:
        """Samples, the flip-time spreads and how many systems random order relaxed."""
        spreads = ", ".join(f"{d:g}" for d in ds.flip_time_decades.values)
        return (
            f"{ds.attrs.get('samples')} systems per point under the flip-time rule, spreads "
            f"{spreads} decades; {ds.attrs.get('random_order_samples')} per point under random "
            "order"
        )


KIND = RacesKind()
