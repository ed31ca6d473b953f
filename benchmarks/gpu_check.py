"""The CUDA backend and the Dask scaling on one machine, in one prepared run.

On a machine with an NVIDIA GPU (and 16 cores), ``bash benchmarks/gpu_check.sh`` installs
hyst with the gpu extra and runs this script, which prints, in about five minutes:

1. the bit-identity check on the hardware: the CUDA kernels against the CPU kernels, system
   by system, thousands of systems per ensemble (tie-heavy included) and rule (0, 1, 1', 2);
2. systems/s on the GPU and on all CPU cores: the self-loop search (``any_self_loop``) at
   N = 16, 20, 24 with N·J0 = 10 and 100, the enumeration's P_sl transitions at N = 10 and
   14, and their ratio;
3. the per-task costs of the scaling model (a Dask scheduler's round trip, a chunk's time,
   a point file's write);
4. strong scaling of one sampling batch of the paper preset (``config/config.yaml``) over
   1, 2, 4, 8, 16 Dask worker processes of one thread (a real ``dask scheduler`` and
   ``dask worker`` processes): wall time, speed-up, efficiency, and whether the point
   tallies are identical at every worker count.

Without a GPU the GPU parts print why they are skipped; ``--quick`` runs everything with
small sizes and at most 2 workers (a minute or two on a laptop):

    python benchmarks/gpu_check.py [--quick] [--workers 1 2 4 8 16] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# the search's Fibonacci hash wraps uint64 on purpose (numpy warns of it in the simulator)
warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)

from hyst.kernels import codes  # noqa: E402
from hyst.kernels.cuda_device import cuda_problem, simulated  # noqa: E402
from hyst.model import batch, cuda_batch  # noqa: E402
from hyst.model.ensembles import sample_systems  # noqa: E402
from hyst.model.systems import Systems  # noqa: E402

RULES = ("0", "1", "1p", "2")


def say(text: str = "") -> None:
    print(text, flush=True)


def tie_heavy(N: int, n: int, rng) -> Systems:
    """Systems with small-integer thresholds and couplings (in quanta): many ties."""
    mid = rng.integers(-2, 3, (n, N))
    span = rng.integers(0, 2, (n, N))
    c = rng.integers(-1, 2, (n, N, N))
    c[:, np.arange(N), np.arange(N)] = 0
    return Systems((mid + span).astype(np.int64), (mid - span).astype(np.int64), c)


ENSEMBLES = {
    "random-hysteron": lambda N, n, rng: sample_systems("random", "hysteron", N, 10.0, n, rng),
    "random-spin": lambda N, n, rng: sample_systems("random", "spin", N, 100.0, n, rng),
    "weak-equal": lambda N, n, rng: sample_systems("weak", "equal", N, 10.0, n, rng),
    "ties": tie_heavy,
}


def differing_enumerations(cpu, gpu) -> int:
    """Systems whose enumeration outputs differ (all, if the batch's histograms differ)."""
    ok = (cpu.columns.array == gpu.columns.array).all(axis=1)
    ok &= (cpu.l4_state == gpu.l4_state).all(axis=1) & (cpu.l4_mask == gpu.l4_mask).all(axis=1)
    ok &= cpu.l4_count == gpu.l4_count
    if not (
        np.array_equal(cpu.loop_length_hist, gpu.loop_length_hist)
        and np.array_equal(cpu.loop_elements_hist, gpu.loop_elements_hist)
    ):
        return len(ok)
    return int((~ok).sum())


# ---- 1. bit identity -----------------------------------------------------------------------


def identity_check(quick: bool) -> dict:
    """The enumeration's transitions and the search on the GPU against the CPU, per ensemble
    and rule: {name: (systems, differing)}."""
    rng = np.random.default_rng(46)
    if quick:
        enum_plan = ((3, 4), (5, 2))
        search_plan = ((3, 8), (6, 4))
    else:
        enum_plan = ((2, 400), (3, 400), (4, 300), (5, 300), (6, 200), (8, 200), (10, 200))
        search_plan = ((2, 500), (4, 500), (6, 500), (8, 500), (12, 500), (16, 500))
    threads = 4 if simulated() else cuda_batch.ENUMERATION_THREADS
    block = 4 if simulated() else cuda_batch.SEARCH_BLOCK
    out = {}
    say(f"{'ensemble/rule':22s} {'enumeration':>22s} {'self-loop search':>22s}")
    for name, draw in ENSEMBLES.items():
        for rule in RULES:
            ne = de = ns = ds = 0
            for N, n in enum_plan:
                systems = draw(N, n, rng)
                starts = rng.integers(0, 1 << N, n)
                cpu = batch.enumerate_batch(systems, starts, rule, codes.WHAT_TRANSITIONS)
                gpu = cuda_batch.enumerate_batch(
                    systems, starts, rule, codes.WHAT_TRANSITIONS, threads=threads
                )
                ne, de = ne + n, de + differing_enumerations(cpu, gpu)
            for N, n in search_plan:
                systems = draw(N, n, rng)
                cpu = batch.any_self_loop_batch(systems, rule)
                gpu = cuda_batch.any_self_loop_batch(systems, rule, block=block)
                ns, ds = ns + n, ds + int((cpu.array != gpu.array).any(axis=1).sum())
            out[f"{name}/{rule}"] = {"enumeration": [ne, de], "search": [ns, ds]}
            say(
                f"{name + '/' + rule:22s} {f'{de} of {ne} differ':>22s} "
                f"{f'{ds} of {ns} differ':>22s}"
            )
    bad = sum(v["enumeration"][1] + v["search"][1] for v in out.values())
    say(f"bit identity: {'PASSED' if bad == 0 else f'FAILED ({bad} systems differ)'}")
    return out


# ---- 2. throughput -------------------------------------------------------------------------


def timed_rate(run, draw, start: int, seconds: float, most: int) -> tuple[float, int]:
    """(systems/s, systems) of ``run(systems)`` on batches grown from ``start`` (at most 16
    times at a step) until one takes ``seconds`` (or has ``most`` systems)."""
    n = start
    while True:
        systems = draw(n)
        t0 = time.perf_counter()
        run(systems)
        dt = time.perf_counter() - t0
        if dt >= seconds or n >= most:
            return n / dt, n
        n = min(most, n * min(16, max(2, int(seconds / max(dt, 1e-3)))))


def throughput(gpu: bool, quick: bool) -> list[dict]:
    """systems/s on the GPU (when there is one) and on all CPU cores."""
    import numba

    rng = np.random.default_rng(7)
    seconds = 0.5 if quick else 3.0
    cases = [("any_self_loop", N, NJ0) for N in (16, 20, 24) for NJ0 in (10.0, 100.0)]
    cases += [("transitions", 10, 10.0), ("transitions", 14, 10.0)]
    if quick:
        cases = [("any_self_loop", 12, 10.0), ("transitions", 8, 10.0)]
    rows = []
    cores = numba.get_num_threads()
    say(
        f"{'kernel':14s} {'N':>3s} {'NJ0':>5s} {'CPU systems/s':>14s} {'GPU systems/s':>14s} "
        f"{'GPU/CPU':>8s}   ({cores} CPU threads)"
    )
    for what, N, NJ0 in cases:

        def draw(n, N=N, NJ0=NJ0):
            return sample_systems("random", "hysteron", N, NJ0, n, rng)

        if what == "any_self_loop":

            def cpu_run(s):
                return batch.any_self_loop_batch(s, "1")

            def gpu_run(s):
                return cuda_batch.any_self_loop_batch(s, "1")

        else:

            def cpu_run(s):
                return batch.enumerate_batch(s, np.zeros(s.samples, np.int64), "1", 1)

            def gpu_run(s):
                return cuda_batch.enumerate_batch(s, np.zeros(s.samples, np.int64), "1", 1)

        most = 2000 if quick else 200_000
        cpu_run(draw(4))  # compile / load
        cpu_rate, _ = timed_rate(cpu_run, draw, 16, seconds, most)
        gpu_rate = None
        if gpu:
            gpu_run(draw(4))  # compile for the device
            gpu_rate, _ = timed_rate(gpu_run, draw, 32, seconds, most)
        ratio = f"{gpu_rate / cpu_rate:8.1f}" if gpu_rate else f"{'-':>8s}"
        gpu_text = f"{gpu_rate:14,.0f}" if gpu_rate else f"{'skipped':>14s}"
        say(f"{what:14s} {N:3d} {NJ0:5g} {cpu_rate:14,.0f} {gpu_text} {ratio}")
        rows.append(
            {"kernel": what, "N": N, "NJ0": NJ0, "cpu": cpu_rate, "gpu": gpu_rate, "cores": cores}
        )
    return rows


# ---- 3, 4. Dask: per-task costs and strong scaling ------------------------------------------


def paper_batch(target_seconds: float, least_chunks: int, config: str):
    """(job name, point specs, estimated core-seconds, chunks) of the sampling batch of the
    preset whose estimated cost is closest to ``target_seconds`` among those with at least
    ``least_chunks`` chunks."""
    from hyst.pipeline.config import read_yaml, validate
    from hyst.sampling.cost import point_seconds
    from hyst.sampling.sampler import chunk_bounds, chunk_size
    from hyst.studies import KINDS
    from hyst.studies.points import PointSpec

    cfg = validate(read_yaml(ROOT / config), check_paths=False)
    studies = {n: s for n, s in cfg["studies"].items() if s.get("kind", "points") == "points"}
    jobs, _ = KINDS["points"].jobs(studies, cfg)
    best = None
    for name, job in jobs.items():
        specs = [PointSpec.from_identity(d) for d in job.payload["points"]]
        cost = sum(point_seconds(s.point, s.groups, s.samples) for s in specs)
        chunks = sum(len(chunk_bounds(s.samples, chunk_size(s.point.N))) for s in specs)
        if chunks < least_chunks:
            continue
        if best is None or abs(cost - target_seconds) < abs(best[2] - target_seconds):
            best = (name, specs, cost, chunks)
    return best


@contextlib.contextmanager
def dask_cluster(workers: int, folder: Path):
    """A ``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes (started as
    subprocesses); yields a connected Client."""
    from distributed import Client

    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "NUMBA_NUM_THREADS": "1"}
    cli = [sys.executable, "-m"]
    file = folder / f"scheduler-{workers}.json"
    procs = [
        subprocess.Popen(
            [
                *cli,
                "distributed.cli.dask_scheduler",
                "--scheduler-file",
                str(file),
                "--port",
                "0",
                "--dashboard-address",
                ":0",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(300):
            if file.exists():
                break
            time.sleep(0.1)
        procs.append(
            subprocess.Popen(
                [
                    *cli,
                    "distributed.cli.dask_worker",
                    "--scheduler-file",
                    str(file),
                    "--nworkers",
                    str(workers),
                    "--nthreads",
                    "1",
                    "--memory-limit",
                    "0",
                    "--no-dashboard",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        with Client(scheduler_file=str(file), timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)
            yield client
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def noop(x):
    return x


def warm_worker(specs) -> float:
    """Load the batch's kernels in this worker (numba's cache): one small chunk per kind of
    point, untimed by the scaling."""
    from hyst.sampling.sampler import SamplingJob, sample_chunk

    t0 = time.perf_counter()
    seen = set()
    for s in specs:
        key = (s.groups, s.point.N <= 18, s.point.couplings, s.point.rule)
        if key not in seen:
            seen.add(key)
            sample_chunk(SamplingJob(s.point, 2, s.groups, s.seed), 0, 2, parallel=False)
    return time.perf_counter() - t0


def task_costs(client, specs, folder: Path) -> dict:
    """The scaling model's per-task costs: the scheduler's round trip (a no-op task submitted
    and gathered), the mean chunk time of the batch on one worker, a point file's write."""
    from hyst.sampling.sampler import chunk_bounds, chunk_size, sample_chunk
    from hyst.sampling.tallies import tally_to_dataset
    from hyst.studies.point_jobs import write_point

    client.submit(noop, 0, pure=False).result()
    n = 200
    t0 = time.perf_counter()
    for i in range(n):
        client.submit(noop, i, pure=False).result()
    round_trip = (time.perf_counter() - t0) / n
    spec = max(specs, key=lambda s: s.samples)
    k, size = chunk_bounds(spec.samples, chunk_size(spec.point.N))[0]
    t0 = time.perf_counter()
    tally = sample_chunk(spec.sampling_job(), k, size, parallel=False)
    chunk = time.perf_counter() - t0
    write_point(tally_to_dataset(tally, spec.groups, spec.attrs()), folder / "first.nc")
    t0 = time.perf_counter()  # the second write: the first one imports the writers
    write_point(tally_to_dataset(tally, spec.groups, spec.attrs()), folder / "point.nc")
    write = time.perf_counter() - t0
    return {"round_trip_s": round_trip, "chunk_s": chunk, "chunk_N": spec.point.N, "write_s": write}


def scaling(workers_list, quick: bool) -> dict:
    """Strong scaling of one paper-preset batch: {workers: seconds}, the efficiency table,
    and whether every worker count gave the same tallies."""
    from hyst.sampling.chunks import sample_points

    target, least = (8.0, 8) if quick else (60.0, 16 * 8)
    name, specs, cost, chunks = paper_batch(target, least, "config/config.yaml")
    say(
        f"batch {name}: {len(specs)} points, {chunks} chunks, about {cost:.0f} core-s "
        "(benchmarks/rates.json)"
    )
    warm_worker(specs)  # this process compiles what the workers will load from the cache
    times, reference, same, costs = {}, None, True, None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for w in workers_list:
            with dask_cluster(w, folder) as client:
                client.run(warm_worker, specs)
                if costs is None:
                    costs = task_costs(client, specs, folder)
                t0 = time.perf_counter()
                tallies = sample_points(client, specs, log=lambda _line: None)
                times[w] = time.perf_counter() - t0
            flat = [(t.counts, sorted(t.sums.items())) for t in tallies]
            if reference is None:
                reference = flat
            same = same and flat == reference
            say(f"  {w:3d} workers: {times[w]:7.1f} s")
    t1 = times[workers_list[0]] * workers_list[0]
    say(f"{'workers':>8s} {'seconds':>8s} {'speed-up':>9s} {'efficiency':>11s}")
    for w in workers_list:
        speedup = t1 / times[w]
        say(f"{w:8d} {times[w]:8.1f} {speedup:9.2f} {speedup / w:10.0%}")
    say(f"tallies identical at every worker count: {same}")
    say(
        f"per-task costs: scheduler round trip {costs['round_trip_s'] * 1e3:.2f} ms, "
        f"one chunk (N = {costs['chunk_N']}) {costs['chunk_s']:.3f} s, "
        f"one point file written {costs['write_s'] * 1e3:.0f} ms"
    )
    return {
        "batch": name,
        "points": len(specs),
        "chunks": chunks,
        "estimated_core_s": cost,
        "seconds": times,
        "identical": same,
        "costs": costs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, at most 2 workers")
    parser.add_argument("--workers", type=int, nargs="+", default=None)
    parser.add_argument("--json", default=None, help="also write the numbers to this file")
    args = parser.parse_args()
    workers = args.workers or ([1, 2] if args.quick else [1, 2, 4, 8, 16])
    t0 = time.perf_counter()
    report = {"cpu_count": os.cpu_count(), "quick": args.quick}
    problem = cuda_problem()
    gpu = problem is None and not simulated()
    if gpu:
        from numba import cuda

        device = cuda.get_current_device()
        report["gpu"] = device.name.decode() if isinstance(device.name, bytes) else device.name
        say(f"GPU: {report['gpu']}; {os.cpu_count()} CPU cores")
    else:
        why = "numba's CUDA simulator, not a GPU" if problem is None else problem
        say(f"GPU parts skipped: {why}; {os.cpu_count()} CPU cores")
    say("\n== 1. bit identity of the CUDA kernels with the CPU kernels ==")
    if gpu or (simulated() and args.quick):
        report["identity"] = identity_check(args.quick)
    else:
        say(f"skipped ({problem or 'the simulator is checked by tests/test_cuda_backend.py'})")
    say("\n== 2. systems/s: GPU against all CPU cores ==")
    report["throughput"] = throughput(gpu, args.quick)
    say("\n== 3, 4. Dask: per-task costs and strong scaling of one paper-preset batch ==")
    report["scaling"] = scaling(workers, args.quick)
    say(f"\ndone in {time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
