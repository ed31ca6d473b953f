"""The CPU of a run's figure, caption, collect and analyse jobs, each run as the run's job
server runs it: the server's preload once, then every job in a forked child of it, its CPU
(user + system) from the child's resource usage. As the server does, the datasets and
analyses a job reads are loaded before its child is forked, each once
(``hyst.provenance.files.keep_loaded``, where the source tree has it; ``--no-kept``: not);
the CPU of those loads is printed too, and counted in the total.

    python benchmarks/bench_bookkeeping.py RESULTS [--config config/quick.yaml]
        [--tasks figure,caption,collect,analyse] [--only NAME,...] [--out DIR] [--jobs]

RESULTS is a finished run's results folder (its point files, datasets and analyses are
read; nothing in it is written): the jobs write their outputs to ``--out`` (a temporary
folder by default). The sampler's kernels are not loaded (these jobs do not run them). Run
it with ``PYTHONPATH`` set to each source tree in turn to compare two trees on the same
results, one after the other on the same machine. ``--jobs`` prints each job's CPU.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace as NS

import yaml

from hyst.pipeline import jobserver
from hyst.pipeline.config import validate
from hyst.plotting.registry import FIGURE_TYPES
from hyst.studies import kind_of

TASKS = ("figure", "caption", "collect", "analyse")


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True)


def jobs(config: dict, results: str, out: Path, tasks, only=None):
    """(task, name, snakemake-like object) of every job of ``tasks``, with the parameters,
    inputs and outputs the workflow's rules give them (workflow/rules/*.smk)."""
    studies, figures = config["studies"], config["figures"]
    analysed = sorted(n for n, s in studies.items() if kind_of(s).analysable(s))
    if "collect" in tasks:
        for s, study in studies.items():
            if only and s not in only:
                continue
            params = NS(
                study=_canonical({k: v for k, v in study.items() if k != "description"}),
                seed=config["seed"],
                results=results,
                code="",
            )
            yield (
                "collect",
                s,
                NS(
                    wildcards=NS(study=s),
                    params=params,
                    input=[],
                    output=[str(out / f"datasets/{s}.nc")],
                    log=[str(out / f"logs/{s}.collect.log")],
                ),
            )
    if "analyse" in tasks:
        for s in analysed:
            if only and s not in only:
                continue
            yield (
                "analyse",
                s,
                NS(
                    wildcards=NS(study=s),
                    params=NS(code=""),
                    input=NS(dataset=f"{results}/datasets/{s}.nc"),
                    output=[str(out / f"analysis/{s}.nc")],
                    log=[str(out / f"logs/{s}.analyse.log")],
                ),
            )
    for f, binding in figures.items():
        if only and f not in only:
            continue
        bound = list(binding["studies"])
        inputs = NS(
            datasets=[f"{results}/datasets/{s}.nc" for s in bound],
            analysis=[f"{results}/analysis/{s}.nc" for s in bound if s in analysed],
        )
        with_analysis = [s for s in bound if s in analysed]
        if "figure" in tasks:
            params = NS(
                binding=_canonical(binding),
                files=_canonical(config["figure_files"]),
                analysed=with_analysis,
            )
            yield (
                "figure",
                f,
                NS(
                    wildcards=NS(figure=f),
                    params=params,
                    input=inputs,
                    output=NS(png=str(out / f"figures/{f}.png")),
                    log=[str(out / f"logs/{f}.figure.log")],
                ),
            )
        if "caption" in tasks:
            params = NS(
                description=FIGURE_TYPES[binding["type"]].description,
                studies=bound,
                descriptions=_canonical({s: studies[s].get("description", "") for s in bound}),
                analysed=with_analysis,
            )
            yield (
                "caption",
                f,
                NS(
                    wildcards=NS(figure=f),
                    params=params,
                    input=inputs,
                    output=[str(out / f"figures/{f}.caption.rst")],
                    log=[str(out / f"logs/{f}.caption.log")],
                ),
            )


def preload() -> float:
    """What the job server loads before forking, less the kernels; its CPU seconds."""
    start = time.process_time()
    if hasattr(jobserver, "preload_tasks"):
        jobserver.preload_tasks()
    else:  # a source tree from before preload_tasks: its tasks' own preloads
        for task in jobserver.TASKS:
            module = jobserver.task_module(task)
            if hasattr(module, "preload"):
                module.preload()
        importlib.import_module("snakemake.script")
    gc.collect()
    gc.freeze()
    return time.process_time() - start


def netcdf_inputs(sm) -> list[str]:
    """The NetCDF files among a job's inputs."""
    found = []
    for value in vars(sm.input).values() if hasattr(sm.input, "__dict__") else sm.input:
        for path in value if isinstance(value, list) else [value]:
            if str(path).endswith(".nc"):
                found.append(str(path))
    return found


def run_forked(task: str, sm) -> tuple[float, int]:
    """(CPU seconds, exit status) of one job run in a forked child."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            jobserver.run_here(task, sm)
            status = 0
        except BaseException:  # noqa: BLE001 (reported, then the child exits)
            import traceback

            traceback.print_exc()
        finally:
            os._exit(status)
    _pid, status, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime, status


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results")
    parser.add_argument("--config", default="config/quick.yaml")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--only", default="", help="studies or figures, comma-separated")
    parser.add_argument("--out", default=None)
    parser.add_argument("--jobs", action="store_true", help="print each job's CPU")
    parser.add_argument(
        "--no-kept", action="store_true", help="no dataset loaded before the jobs are forked"
    )
    args = parser.parse_args(argv)
    with open(args.config) as fh:
        config = validate(yaml.safe_load(fh))
    tasks = args.tasks.split(",")
    only = set(args.only.split(",")) if args.only else None
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(args.out or scratch)
        for folder in ("datasets", "analysis", "figures", "logs"):
            (out / folder).mkdir(parents=True, exist_ok=True)
        todo = list(jobs(config, args.results, out, tasks, only))
        print(f"preload (once): {preload():.2f} CPU-s", file=sys.stderr)
        totals: dict[str, list[float]] = {}
        from hyst.provenance import files

        keep = None if args.no_kept else getattr(files, "keep_loaded", None)
        for task, name, sm in todo:
            if keep is not None:
                start = time.process_time()
                keep(netcdf_inputs(sm))
                totals.setdefault("loads", []).append(time.process_time() - start)
            cpu, status = run_forked(task, sm)
            if status:
                sys.exit(f"{task} {name} failed (exit status {status})")
            totals.setdefault(task, []).append(cpu)
            if args.jobs:
                print(f"{task:<8} {name:<45} {cpu:7.2f}")
    print(f"{'task':<8} {'jobs':>5} {'CPU s':>8} {'CPU s/job':>10}")
    for task, cpus in totals.items():
        print(f"{task:<8} {len(cpus):>5} {sum(cpus):>8.1f} {sum(cpus) / len(cpus):>10.2f}")
    every = [c for cpus in totals.values() for c in cpus]
    print(f"{'all':<8} {len(every):>5} {sum(every):>8.1f}")


if __name__ == "__main__":
    main()
