"""The sampling cost of a preset's points studies, measured on a few systems per point,
against ``hyst config check``'s estimate: per study, and per coupling ensemble and N.

Every point of every points study of CONFIG (a point shared by studies counted once, as the
estimate does) is sampled the way a Dask task samples it (``sample_chunk`` on the calling
thread, one numba thread) on ``--systems`` systems (all of them where the point has fewer)
after a warm-up chunk of as many that loads its kernels; the CPU time per system, times
the point's samples, is its measured cost. The cost per system does not depend on how many
systems are drawn, so this measures in minutes what the preset's sampling takes in hours,
to within the noise of the few systems drawn (run with more ``--systems`` where a table
must be tighter). The estimate is :func:`hyst.sampling.cost.point_seconds` from
``benchmarks/rates.json``.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_study_costs.py [--config config/config.yaml]
        [--studies designed,multiperiodic] [--systems 200] [--by couplings|N|none]
"""

from __future__ import annotations

import argparse
import collections
import os
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent


def study_points(config: str, only: set | None) -> dict[str, list]:
    """The point specs of each points study of ``config`` (``only``: those studies), each
    point under the first study that holds it."""
    from hyst.pipeline.config import read_yaml, validate
    from hyst.studies import KINDS
    from hyst.studies.points import PointSpec

    cfg = validate(read_yaml(ROOT / config), check_paths=False)
    studies = {n: s for n, s in cfg["studies"].items() if s.get("kind", "points") == "points"}
    jobs, by_study = KINDS["points"].jobs(studies, cfg)
    seen: set[str] = set()
    out: dict[str, list] = {}
    for study, names in by_study.items():
        if only and study not in only:
            continue
        for name in names:
            for identity in jobs[name].payload["points"]:
                spec = PointSpec.from_identity(identity)
                if spec.key() not in seen:
                    seen.add(spec.key())
                    out.setdefault(study, []).append(spec)
    return out


def measured_seconds(spec, systems: int) -> float:
    """CPU seconds of one thread to sample all of ``spec``'s systems, from ``systems`` of
    them (chunk 1, after chunk 0 of as many systems: a few systems do not meet every
    kernel a point's first chunk loads from numba's cache, a second or so at N = 1024)."""
    from hyst.sampling.sampler import sample_chunk

    size = min(systems, spec.samples)
    sample_chunk(spec, 0, size, parallel=False)
    t0 = time.process_time()
    sample_chunk(spec, 1, size, parallel=False)
    return (time.process_time() - t0) / size * spec.samples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--studies", help="only these studies (comma-separated)")
    ap.add_argument("--systems", type=int, default=200, help="systems sampled per point")
    ap.add_argument(
        "--by", choices=("couplings", "N", "none"), default="none",
        help="also break each study down by coupling ensemble or by N",
    )  # fmt: skip
    args = ap.parse_args()
    from hyst.sampling.cost import load_rates, point_seconds

    rates = load_rates()
    only = set(args.studies.split(",")) if args.studies else None
    print("| study | points | measured core-h | estimated core-h | estimate / measured |")
    print("|---|---:|---:|---:|---:|")
    total = [0.0, 0.0]
    for study, specs in study_points(args.config, only).items():
        rows: dict = collections.defaultdict(lambda: [0, 0.0, 0.0])
        for spec in specs:
            m = measured_seconds(spec, args.systems)
            e = point_seconds(spec.point, spec.groups, spec.samples, rates)
            keys = [study]
            if args.by != "none":
                keys.append(f"{study}, {args.by} = {getattr(spec.point, args.by)}")
            for key in keys:
                rows[key][0] += 1
                rows[key][1] += m
                rows[key][2] += e
        total[0] += rows[study][1]
        total[1] += rows[study][2]
        for key, (n, m, e) in rows.items():
            print(f"| {key} | {n} | {m / 3600:.3g} | {e / 3600:.3g} | {e / m:.2f} |", flush=True)
    m, e = total
    print(f"| **all** | | **{m / 3600:.3g}** | **{e / 3600:.3g}** | **{e / m:.2f}** |")


if __name__ == "__main__":
    main()
