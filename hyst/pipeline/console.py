"""What the pipeline says on the console at the start and at the end of a run.

At the start of a first run in a checkout (the numba kernels not yet in their on-disk
cache), that the first jobs compile them, with the CPU time it took on this machine
(``benchmarks/rates.json``). At the end, where the figures, the comparison page, the tables
and the datasets are, and the one command that makes the report of the same configuration.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path

#: The package folder whose numba kernels are cached on disk (``cache=True``).
KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def kernel_cache() -> Path:
    """Where numba caches the kernels: ``__pycache__`` beside them, or under
    ``NUMBA_CACHE_DIR`` the folder numba names after theirs, ``kernels_<SHA-1 of its path>``
    (``numba.core.caching._CacheLocator.get_suitable_cache_subpath``; written out here, as
    the Snakefile imports this module and numba takes a while to import)."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        folder = str(KERNELS.resolve())
        return Path(base) / f"{KERNELS.name}_{hashlib.sha1(folder.encode()).hexdigest()}"
    return KERNELS / "__pycache__"


def kernels_cached() -> bool:
    """Whether compiled kernels are in the cache (an index file of numba's per function)."""
    return any(kernel_cache().glob("*.nbi"))


def first_run_notice(rates: dict | None) -> str:
    """The line a run prints when the kernels are not compiled yet."""
    took = ""
    if rates and rates.get("compile_seconds"):
        minutes = rates["compile_seconds"] / 60
        took = (
            f" ({minutes:.1f} minutes of CPU time for all of them, measured on this machine, "
            "benchmarks/rates.json)"
        )
    return (
        "hyst: first run in this checkout: the numba kernels compile first, the sampler's in "
        f"the run's job server on two cores at once{took}; they are cached in "
        f"{kernel_cache()} and later runs start at once (`hyst compile` compiles them once, "
        "before a run)"
    )


def report_command(results: str, configfiles, profile: str = "profiles/default") -> str:
    """The command that makes the report of this run's configuration."""
    words = ["snakemake", "--profile", profile]
    for f in configfiles or []:
        near = os.path.relpath(f) if os.path.isabs(f) else str(f)
        words += ["--configfile", str(f) if near.startswith("..") else near]
    words += ["--report", f"{results}/report.html"]
    return shlex.join(words)


def run_summary(results: str, config: dict, configfiles, compiled: bool = False) -> str:
    """What a successful run prints at its end: where everything is, and the report."""
    res = Path(results)
    rows = [
        ("figures", f"{res / 'figures'}/ ({len(config['figures'])} PNG, each with a caption)"),
    ]
    if config["comparison"]:
        rows.append(("comparison", f"{res / 'paper_comparison.md'} (and .html)"))
    if (res / "tables").exists():
        rows.append(("tables", f"{res / 'tables'}/"))
    rows += [
        ("datasets", f"{res / 'datasets'}/ ({len(config['studies'])} NetCDF, one per study)"),
        ("logs", f"{res / 'logs'}/ (one per job)"),
    ]
    width = max(len(k) for k, _v in rows)
    lines = ["hyst: done. The results:"]
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    quick = [os.path.basename(str(f)) for f in configfiles or []] == ["quick.yaml"]
    lines.append(
        f"The report (every figure with its caption, and the comparison page) in "
        f"{res / 'report.html'}:"
    )
    lines.append("  " + report_command(results, configfiles))
    if quick:
        lines.append("  (or: bash scripts/run --report)")
    if compiled:
        lines.append("The numba kernels were compiled in this run; later runs start at once.")
    return "\n".join(lines) + "\n"
