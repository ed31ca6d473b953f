"""Study kind ``points``: sampled sweep points (couplings × spans × rule × N × NJ0 or J0).

Every distinct (point, samples, observables, seed) is a *point spec* with its
own file ``results/points/.../*.nc``, named by the spec's content. Specs of one
(couplings, spans, rule) and size class (enumerated N ≤ 18, or larger), ordered
by N and NJ0, are grouped into jobs (*batches*) of at most ``batch.max_points``;
a job recomputes only the point files that are missing or whose provenance
(parameters, seed, format, and the fingerprint of the sampling code) does not
match, so adding NJ0 values or changing one study's samples recomputes only what
changed, and a fix to a kernel recomputes everything it affects. ``collect``
merges a study's point files into one dataset with dimensions named after the
axes; the swept coupling axis (NJ0, or J0 with NJ0 = N·J0 as a coordinate) is
declared once, by the study's config, and recorded in the dataset's ``sweep``
attribute.
"""

from __future__ import annotations

import math
import os
import socket
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.catalogue import (
    ANY_SELF_LOOP_MAX_N,
    ENUMERATION_MAX_N,
    GROUPS,
    RECORDS,
    groups_allowing,
    observables,
)
from hyst.model import seeds
from hyst.model.ensembles import (
    COUPLING_ENSEMBLES,
    DIRECTED_ENSEMBLES,
    SAMPLING_VERSION,
    SPAN_ENSEMBLES,
    coupling_quanta,
)
from hyst.model.systems import QUANTUM_BITS, RULES
from hyst.provenance.files import reusable
from hyst.sampling.cost import bytes_text, chunk_bytes, point_seconds
from hyst.sampling.passes import SOURCES
from hyst.sampling.sampler import (
    Point,
    SamplingJob,
    check_self_loop_free,
    chunk_size,
    resolve_groups,
)
from hyst.studies.base import ConfigError, Job, StudyKind, shared_by
from hyst.studies.point_jobs import index_dtype, pack, read_point, write_point

#: Version of the point-file layout; part of the provenance, bumped when the layout changes.
#: 4: records only where asked for (seeded bottom-k sample), catalogue dtypes, compressed.
#: 5: the variables packed by dtype (:mod:`hyst.studies.point_jobs`).
FORMAT_VERSION = 5
#: Dimensions of a points dataset before the swept coupling axis.
AXES = ("couplings", "spans", "rule", "N")


def grid(spec) -> list[float]:
    """A list of values, or {start, stop, per_decade}: a log grid (12 significant digits)."""
    if isinstance(spec, list):
        return [float(v) for v in spec]
    lo = math.ceil(round(math.log10(spec["start"]) * spec["per_decade"], 9))
    hi = math.floor(round(math.log10(spec["stop"]) * spec["per_decade"], 9))
    return [float(f"{10 ** (k / spec['per_decade']):.12g}") for k in range(lo, hi + 1)]


#: The optional axis of direction-dependent couplings (a study key: a list of α in [0, 1]),
#: between the ensemble axes and the swept coupling axis when a study gives it.
ASYMMETRY = "direction_asymmetry"


def axes_of(study: dict) -> tuple[str, ...]:
    """The dimensions of a points study's dataset before its swept coupling axis."""
    return (*AXES, ASYMMETRY) if ASYMMETRY in study else AXES


def sweep_axis(study: dict) -> str:
    """The coupling axis a points study is swept in: "NJ0" or "J0"."""
    return "NJ0" if "NJ0" in study else "J0"


def fingerprint() -> str:
    """Fingerprint of the code that determines a point's samples."""
    return KIND.fingerprint()


@dataclass(frozen=True)
class PointSpec(SamplingJob):
    """A point with everything that determines its result: the
    :class:`~hyst.sampling.sampler.SamplingJob` the sampler runs (its fields, checked when it
    is built: ``point``, ``samples``, ``groups``, ``seed``, ``records``), with its point
    file: identity, path and provenance."""

    def identity(self) -> dict:
        """What determines the point's file: the point (ensemble, rule, N, N J0), samples, groups,
        seed, records and the file format version."""
        return {
            **self.point.canonical(),
            "samples": self.samples,
            "observables": list(self.groups),
            "seed": self.seed,
            "records": dict(self.records),
            "format_version": FORMAT_VERSION,
        }

    def key(self) -> str:
        """A short digest of the identity, part of the point file's name."""
        return seeds.digest(self.identity(), 10)

    def path(self, results) -> Path:
        """The point's file:
        ``<results>/points/<couplings>-<spans>-rule<r>/N<N>/NJ0-<NJ0>-<key>.nc``."""
        p = self.point
        alpha = f"-alpha{p.direction_asymmetry:g}" if p.direction_asymmetry else ""
        return (
            Path(results)
            / "points"
            / f"{p.couplings}-{p.spans}-rule{p.rule}{alpha}"
            / f"N{p.N}"
            / f"NJ0-{p.NJ0:.6g}-{self.key()}.nc"
        )

    def provenance(self) -> dict:
        """Attributes a reusable point file must carry (all of them are checked)."""
        p = self.point
        return {
            "format_version": FORMAT_VERSION,
            "sampling_version": SAMPLING_VERSION,
            "code_fingerprint": fingerprint(),
            **{k: v for k, v in p.canonical().items() if k != "NJ0"},
            "NJ0": p.NJ0,
            "J0": p.J0,
            "samples": int(self.samples),
            "seed": int(self.seed),
            "observables": ",".join(self.groups),
            "records": ",".join(f"{k}={v}" for k, v in self.records) or "none",
            "chunk_size": chunk_size(p.N),
            "quantum_bits": QUANTUM_BITS,
            "point_key": p.key(),
        }

    def attrs(self) -> dict:
        """Attributes written into the point file: the provenance and the hyst version."""
        return {"hyst_version": __version__, **self.provenance()}

    def sample(self, progress=None) -> xr.Dataset:
        """Sample the point and return its point file's dataset (every observable of its
        groups tallied, its records, :meth:`attrs`): what ``hyst point`` writes.
        ``progress(chunks_done, chunks, samples_done, rate)`` is called after each chunk."""
        from hyst.sampling.sampler import sample_job
        from hyst.sampling.tallies import tally_to_dataset

        tally = sample_job(self, progress=progress)
        return tally_to_dataset(tally, self.groups, self.attrs())

    @classmethod
    def from_identity(cls, d: dict) -> PointSpec:
        """The spec of a point file's identity (:meth:`identity`), as read back from the file."""
        point = Point(
            d["couplings"],
            d["spans"],
            d["rule"],
            int(d["N"]),
            float(d["NJ0"]),
            float(d.get(ASYMMETRY, 0.0)),
        )
        return cls(
            point,
            int(d["samples"]),
            tuple(d["observables"]),
            int(d["seed"]),
            record_caps(d.get("records")),
        )


def record_caps(records, groups=None) -> tuple:
    """Records kept per point as a sorted tuple of (name, k > 0); with ``groups``, only the
    records those groups produce."""
    caps = {str(k): int(v) for k, v in (records or {}).items() if int(v) > 0}
    if groups is not None:
        produced = {o.name for o in observables(RECORDS, groups)}
        caps = {k: v for k, v in caps.items() if k in produced}
    return tuple(sorted(caps.items()))


def study_specs(study: dict, seed: int) -> list[tuple[dict, PointSpec]]:
    """[(axis labels, spec)] of a points study: the product of its axes."""
    out = []
    axis = sweep_axis(study)
    values = grid(study[axis])
    groups_cfg = None if study["observables"] == "all" else study["observables"]
    records = study.get("records", {})
    alphas = study.get(ASYMMETRY, [0.0])
    for couplings in study["couplings"]:
        for spans in study["spans"]:
            for rule in study["rule"]:
                for N in study["N"]:
                    for alpha in alphas:
                        for v in values:
                            NJ0 = v if axis == "NJ0" else float(f"{v * N:.12g}")
                            point = Point(couplings, spans, rule, N, NJ0, float(alpha))
                            groups = resolve_groups(point, groups_cfg)
                            labels = {
                                "couplings": couplings,
                                "spans": spans,
                                "rule": rule,
                                "N": N,
                                axis: v,
                            }
                            if ASYMMETRY in study:
                                labels[ASYMMETRY] = float(alpha)
                            caps = record_caps(records, groups)
                            spec = PointSpec(point, study["samples"], groups, seed, caps)
                            out.append((labels, spec))
    return out


class PointsKind(StudyKind):
    """The study kind ``points``: sampled sweep points, the product couplings × spans × rule ×
    N × (N J0 or J0), ``samples`` systems per point."""

    name = "points"
    description = (
        "sampled sweep points: the product couplings x spans x rule x N x (NJ0 or J0), "
        "`samples` systems per point"
    )

    # ---- configuration ----------------------------------------------------------------------

    def schema(self) -> dict:
        """The schema of a ``points`` study: the ensembles, rules, sizes N, the N J0 or J0 grid,
        samples per point, observable groups and records."""
        grid_schema = {
            "oneOf": [
                {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "number", "exclusiveMinimum": 0},
                },
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["start", "stop", "per_decade"],
                    "properties": {
                        "start": {"type": "number", "exclusiveMinimum": 0},
                        "stop": {"type": "number", "exclusiveMinimum": 0},
                        "per_decade": {"type": "integer", "minimum": 1},
                    },
                },
            ],
            "x-hyst-message": "a list of numbers > 0, or {start, stop, per_decade}",
        }
        names = list(GROUPS)
        return self.study_schema(
            {
                "couplings": {
                    "description": "Coupling ensembles (hyst.model.ensembles).",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"enum": list(COUPLING_ENSEMBLES)},
                },
                "spans": {
                    "description": "Span ensembles.",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"enum": list(SPAN_ENSEMBLES)},
                    "default": ["hysteron"],
                },
                "rule": {
                    "description": 'Race-condition rules (1 and "1" are the same).',
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"enum": list(RULES)},
                    "default": ["1"],
                },
                "N": {
                    "description": "System sizes (integers >= 2).",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "integer", "minimum": 2},
                },
                "NJ0": {
                    "description": "Coupling strengths N·J0 > 0: a list, or {start, stop, "
                    "per_decade} for a logarithmic grid. Give either NJ0 or J0.",
                    **grid_schema,
                },
                "J0": {
                    "description": "Coupling strengths J0 > 0 (NJ0 = J0·N per N); same forms "
                    "as NJ0.",
                    **grid_schema,
                },
                ASYMMETRY: {
                    "description": "Direction-dependent couplings: values of alpha in [0, 1], "
                    "an axis of the dataset. The couplings drawn are c+ (up thresholds); "
                    "c- = sqrt(1 - alpha^2) c+ + alpha c' with c' an independent draw of the "
                    "same ensemble (mean and variance kept: J0 keeps its meaning). 0 is the "
                    "paper's model, 1 independent c+ and c-. Random and symmetric couplings "
                    "only.",
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "samples": {
                    "description": "Systems per point.",
                    "type": "integer",
                    "minimum": 1,
                },
                "observables": {
                    "description": 'Observable groups (hyst.catalogue.GROUPS), or "all" '
                    "(every default group that applies to N). transitions and zero_field "
                    f"enumerate the 2^N states (N <= {ENUMERATION_MAX_N}; 8 2^N (N + 8) bytes "
                    "per worker thread, 55 MB at N = 18); any_self_loop computes P_sl alone, "
                    f"the same per system as transitions, for N <= {ANY_SELF_LOOP_MAX_N} in "
                    "8 (4 N^2 + 9 N + 12) bytes + 56 KiB per worker thread (76 KiB at N = 24).",
                    "oneOf": [
                        {"const": "all"},
                        {
                            "type": "array",
                            "minItems": 1,
                            "uniqueItems": True,
                            "items": {"enum": names},
                        },
                    ],
                    "x-hyst-message": f"all, or a list of {', '.join(names)}",
                    "default": "all",
                },
                "records": {
                    "description": "Records to store, by name, with the most kept per point "
                    "(e.g. {l4: 2000}); default none. The kept records are a seeded random "
                    "sample, the same whatever the chunking (hyst.sampling.tallies). Ask only "
                    "where a figure reads them: they dominate the size of datasets.",
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        o.name: {
                            "description": o.description,
                            "type": "integer",
                            "minimum": 1,
                        }
                        for o in observables(RECORDS)
                    },
                    "default": {},
                },
            },
            ["couplings", "N", "samples"],
            extra={
                "oneOf": [{"required": ["NJ0"]}, {"required": ["J0"]}],
                "x-hyst-message": "give exactly one of NJ0 or J0",
            },
        )

    def normalise(self, study: dict) -> dict:
        """Read rules given as YAML integers (``rule: [1]``) as the rule names ("1")."""
        study = dict(study)
        rules = study.get("rule")
        if isinstance(rules, list):  # rule: [1] (a YAML integer) means rule "1"
            study["rule"] = [
                str(r) if isinstance(r, int) and not isinstance(r, bool) else r for r in rules
            ]
        return study

    def check(self, name: str, study: dict, config: dict) -> None:
        """Refuse an empty grid, a group at an N it does not support and an N whose chunk needs
        more memory than a job has."""
        axis = sweep_axis(study)
        if not grid(study[axis]):
            raise ConfigError(f"studies.{name}.{axis}: the grid {study[axis]} contains no value")
        if any(a > 0 for a in study.get(ASYMMETRY, [])):
            odd = [c for c in study["couplings"] if c not in DIRECTED_ENSEMBLES]
            if odd:
                raise ConfigError(
                    f"studies.{name}.{ASYMMETRY}: values > 0 need couplings "
                    f"{' or '.join(DIRECTED_ENSEMBLES)}, not {odd[0]!r}"
                )
        obs = study["observables"]
        if obs != "all":
            for g in obs:
                group = GROUPS[g]
                big = [n for n in study["N"] if not group.allows(n)]
                if big:
                    raise ConfigError(
                        f"studies.{name}.observables: {g!r} needs N <= {group.max_N} (N = "
                        f"{big[0]}; at N = {big[0]}: {groups_allowing(big[0])})"
                    )
        mem_mb = config["resources"]["mem_mb"]
        for n in study["N"]:
            if chunk_bytes(n) > mem_mb * 2**20:
                raise ConfigError(
                    f"studies.{name}.N: {n} needs about {bytes_text(chunk_bytes(n))} per "
                    f"sampling job ({chunk_size(n)} systems of {n} x {n} couplings at a time), "
                    f"more than resources.mem_mb = {mem_mb} (raise it to run this N)"
                )
        computed = self.sweep(study)["groups"]
        for record in study.get("records", {}):
            source = observables(RECORDS)
            groups = next(o.groups for o in source if o.name == record)
            if not set(groups) & set(computed):
                raise ConfigError(
                    f"studies.{name}.records.{record}: this study computes no group that "
                    f"produces {record!r} records (they come from {' or '.join(groups)}; "
                    f"it computes {', '.join(computed)})"
                )

    def costs(self, name: str, study: dict, config: dict) -> dict:
        """Each point's samples and core-seconds (:mod:`hyst.sampling.cost`), by point key."""
        return {
            spec.key(): (spec.samples, point_seconds(spec.point, spec.groups, spec.samples))
            for _labels, spec in study_specs(study, config["seed"])
        }

    def job_seconds(self, job: Job, rates: dict | None) -> float:
        """Every point's sampling at the measured rates (:mod:`hyst.sampling.cost`)."""
        specs = [PointSpec.from_identity(d) for d in job.payload["points"]]
        science = [point_seconds(s.point, s.groups, s.samples, rates) for s in specs]
        return sum(x for x in science if x is not None)

    # ---- jobs ---------------------------------------------------------------------------------

    def jobs(self, studies: dict[str, dict], config: dict) -> tuple[dict[str, Job], dict]:
        """Point specs packed into jobs (:func:`pack`), separately for each set of studies
        that need them: a job never holds points of different sets, so adding points to
        one study (or changing them) changes the jobs of no other study, whose datasets
        then stay as they are."""
        specs_of = {name: study_specs(s, config["seed"]) for name, s in studies.items()}
        spec_of = {spec.key(): spec for specs in specs_of.values() for _l, spec in specs}
        keys_of = {name: [spec.key() for _l, spec in specs] for name, specs in specs_of.items()}
        jobs, owner = {}, {}
        for keys in shared_by(keys_of).values():
            for group in pack([spec_of[k] for k in keys], config["batch"]["max_points"]):
                members = [s for _key, specs in group for s in specs]
                Ns = sorted({s.point.N for s in members})
                label = f"N{Ns[0]}" if len(Ns) == 1 else f"N{Ns[0]}-{Ns[-1]}"
                couplings, spans, rule = group[0][0]
                classes_in = len({key for key, _specs in group})
                more = f"-and{classes_in - 1}more" if classes_in > 1 else ""
                digest = seeds.digest([s.key() for s in members], 10)
                job_name = f"{couplings}-{spans}-rule{rule}{more}-{label}-{digest}"
                payload = {"points": [s.identity() for s in members]}
                long = Ns[-1] > ENUMERATION_MAX_N  # a job never mixes the two cost classes
                jobs[job_name] = Job(self.name, job_name, payload, long=long)
                owner.update({s.key(): job_name for s in members})
        needs = {name: sorted({owner[k] for k in keys}) for name, keys in keys_of.items()}
        return jobs, needs

    def sampler_selections(self, job: Job) -> set[tuple[str, ...]]:
        """The observable groups of each of the job's points."""
        return {tuple(d["observables"]) for d in job.payload["points"]}

    def units(self, job: Job, results) -> list[tuple[Path, dict]]:
        """Every point file of the job (one per point of the sweep)."""
        specs = [PointSpec.from_identity(d) for d in job.payload["points"]]
        return [(s.path(results), s.provenance()) for s in specs]

    def run(self, job: Job, results, *, config: dict, threads: int, log=print) -> dict:
        """Ensure every point file of a job exists with matching provenance. Each point's
        file is written (atomically) as soon as its chunks are in, so a job that fails or
        is cancelled leaves its finished points for the rerun to reuse, and no other file;
        a chunk the cluster cannot compute raises
        :class:`hyst.sampling.chunks.SamplingFailed` (one line)."""
        from hyst.sampling.chunks import sample_points
        from hyst.sampling.cluster import sampling_client
        from hyst.sampling.tallies import tally_to_dataset

        specs = [PointSpec.from_identity(d) for d in job.payload["points"]]
        t0 = time.perf_counter()
        backend = config.get("backend", "cpu")  # where the kernels run: not in the identity
        todo = [
            replace(s, backend=backend)
            for s in specs
            if reusable(s.path(results), s.provenance(), log) is None
        ]
        reused = len(specs) - len(todo)
        where = f"host {socket.gethostname()}"
        if os.environ.get("SLURM_JOB_ID"):
            where += f", SLURM_JOB_ID={os.environ['SLURM_JOB_ID']}"
        log(
            f"job {job.name} on {where}: {len(specs)} points, {reused} reused, "
            f"{len(todo)} to sample"
        )
        samples = sum(s.samples for s in todo)
        if todo:

            def save(j, tally):  # each point's file as soon as its chunks are in
                spec = todo[j]
                check_self_loop_free(spec.point, tally)
                write_point(tally_to_dataset(tally, spec.groups, spec.attrs()), spec.path(results))

            with sampling_client(config, threads) as c:
                t1 = time.perf_counter()
                sample_points(c, todo, log=log, point_done=save)
                dt = time.perf_counter() - t1
            log(
                f"job {job.name}: sampled {samples} systems in {dt:.1f} s "
                f"({samples / max(dt, 1e-9):,.0f} samples/s); total "
                f"{time.perf_counter() - t0:.1f} s"
            )
        # the systems this job sampled (the console counts them: hyst.pipeline.progress)
        return {"files": [str(s.path(results)) for s in specs], "samples": samples}

    # ---- collection ---------------------------------------------------------------------

    def collect(self, name: str, study: dict, config: dict, results) -> xr.Dataset:
        """Merge a study's point files into one dataset with the axes as dimensions.

        Scalars become arrays over (couplings, spans, rule, N, NJ0 or J0);
        histograms get their own trailing dimension, zero-padded to the longest;
        records are concatenated along their dimension, each with its point as one small
        integer index per axis, ``<records>_<axis>_index`` into the coordinate ``<axis>``
        (no per-record strings; :func:`hyst.analysis.records.record_labels` turns them into labels).
        """
        specs = study_specs(study, config["seed"])
        axis = sweep_axis(study)
        names = (*axes_of(study), axis)
        coords = {a: sorted({labels[a] for labels, _spec in specs}) for a in names}
        index = {a: {v: i for i, v in enumerate(coords[a])} for a in names}
        shape = tuple(len(coords[a]) for a in names)
        points, known = [], set()  # the attributes of a variable from its first point
        for labels, spec in specs:
            values, dims, attrs = read_point(spec.path(results), known)
            known.update(values)
            points.append((labels, values, dims, attrs))
        # records (catalogue kind RECORDS): concatenated along their dimension, with labels
        record_dims = {o.dim: o.name for o in observables(RECORDS)}
        data, var_dims, var_attrs = {}, {}, {}
        lengths: dict[str, int] = {}
        for _labels, values, dims, _attrs in points:
            for v, d in dims.items():
                if len(d) == 1 and d[0] not in record_dims:
                    lengths[d[0]] = max(lengths.get(d[0], 0), values[v].shape[0])
        records: dict[str, tuple[str, list]] = {}
        for labels, values, dims, attrs in points:
            at = tuple(index[a][labels[a]] for a in names)
            for v, value in values.items():
                d = dims[v]
                if len(d) == 1 and d[0] in record_dims:
                    records.setdefault(v, (d[0], []))[1].append(value)
                    continue
                if v not in data:
                    extra = tuple(lengths[x] for x in d)
                    fill = np.nan if value.dtype.kind == "f" else 0
                    data[v] = np.full(shape + extra, fill, dtype=value.dtype)
                    var_dims[v] = (*names, *d)
                    var_attrs[v] = attrs[v]
                if d:
                    data[v][at][: value.shape[0]] = value
                else:
                    data[v][at] = value
            for rdim, prefix in record_dims.items():
                rvars = [v for v in dims if dims[v] == (rdim,)]
                if rvars:
                    n = values[rvars[0]].shape[0]
                    for a in names:
                        i = index[a][labels[a]]
                        records.setdefault(f"{prefix}_{a}_index", (rdim, []))[1].append(
                            np.full(n, i, index_dtype(len(coords[a])))
                        )
        ds = xr.Dataset(
            {v: xr.DataArray(data[v], dims=var_dims[v], attrs=var_attrs[v]) for v in data},
            coords={
                **{a: coords[a] for a in names},
                **{d: np.arange(n) for d, n in lengths.items()},
            },
        )
        if axis == "J0":
            ds = ds.assign_coords(NJ0=ds.N * ds.J0)
        for v, (rdim, parts) in records.items():
            ds[v] = (rdim, np.concatenate(parts))
            if v.endswith("_index"):
                axis_name = v[: -len("_index")].split("_")[-1]
                ds[v].attrs["long_name"] = (
                    f"index of the record's point along {axis_name} (into the coordinate "
                    f"{axis_name})"
                )
        groups = specs[0][1].groups
        ds.attrs.update(
            {
                "study": name,
                "kind": self.name,
                "hyst_version": __version__,
                "format_version": FORMAT_VERSION,
                "code_fingerprint": fingerprint(),
                "seed": config["seed"],
                "samples": study["samples"],
                "observables": ",".join(groups),
                "axes": ",".join(names),
                "sweep": axis,
            }
        )
        return ds

    # ---- what figures and the analysis may ask ------------------------------------------------

    def warnings(self, name: str, study: dict, config: dict) -> list[str]:
        """A line for each (N, coupling) of the sweep whose couplings all round to 0 on the
        field quantum (2^-40): every system of that point is uncoupled."""
        axis, lines = sweep_axis(study), []
        for N in study["N"]:
            for value in grid(study[axis]):
                NJ0 = value if axis == "NJ0" else value * N
                if coupling_quanta(N, NJ0) == 0:
                    lines.append(
                        f"studies.{name}.{axis}: {value:g} at N = {N} makes every coupling round "
                        f"to 0 (J0 = {NJ0 / N:.3g} is below half the field quantum 2^-40 = "
                        f"{2.0**-40:.3g}): the systems of this point are uncoupled"
                    )
        return lines

    def sweep(self, study: dict) -> dict:
        """A ``points`` dataset is swept in N J0 or J0, varies over the axes with several values,
        and holds the groups and records its points compute."""
        dims = [a for a in axes_of(study) if len(study.get(a, [])) > 1]
        groups = set()
        for N in study["N"]:
            point = Point(study["couplings"][0], study["spans"][0], study["rule"][0], N, 1.0)
            obs = None if study["observables"] == "all" else study["observables"]
            groups |= set(resolve_groups(point, obs))
        return {
            "x": sweep_axis(study),
            "dims": tuple(dims),
            "groups": tuple(sorted(groups)),
            "records": tuple(sorted(study.get("records", {}))),
            "axes": axes_of(study),
        }

    def kernel_passes(self) -> dict[str, tuple]:
        """Each observable group's kernel passes, first choice first (a later one runs when
        the first joins groups the point does not compute: :data:`hyst.sampling.passes.SOURCES`)."""
        return {group: tuple(s.kernel for s in SOURCES[group]) for group in GROUPS}

    def analysable(self, study: dict) -> bool:
        """The scaling analysis applies with at least two sizes N and three swept coupling
        values."""
        if ASYMMETRY in study:  # the scaling analysis knows the paper's axes only
            return False
        return len(study["N"]) >= 2 and len(grid(study[sweep_axis(study)])) >= 3

    def summary(self, ds: xr.Dataset) -> str:
        """The samples per point and the range of N and of the swept coupling."""
        axes = [d for d in ("N", "NJ0", "J0") if d in ds.dims]
        ranges = "; ".join(
            f"{d} = {ds[d].values.min():g}…{ds[d].values.max():g} ({ds.sizes[d]} values)"
            for d in axes
        )
        return f"{ds.attrs.get('samples', '?')} samples per point; {ranges}"


KIND = PointsKind()
