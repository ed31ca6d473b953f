"""The census of ``hyst tgraphs``: the general model's t-graphs of n hysterons, computed
through the pipeline's files.

The same files as the pipeline's ``tgraphs`` study (``<results>/tgraphs/``,
:mod:`hyst.studies.tgraphs`): a part already there with matching provenance is read,
anything else is computed and written, so a second call computes nothing again.
"""

from __future__ import annotations

from collections.abc import Callable

import xarray as xr


def cached_census(
    n: int,
    *,
    samples: int,
    seed: int,
    pairwise_sample: int,
    results,
    directed_pairwise: bool = False,
    log: Callable[[str], None],
) -> xr.Dataset:
    """The census dataset of ``n`` hysterons (exact for n ≤ 3, shares sampled from
    ``samples`` random sets of switching fields for any n; ``pairwise_sample`` full
    t-graphs of n = 3 tested for pairwise realizability; with ``directed_pairwise`` by
    pairwise hysterons with direction-dependent couplings too), read from or written to the
    ``results`` folder's files of the ``tgraphs`` study."""
    from hyst.studies.tgraphs import KIND

    study = {
        "census": [n] if n <= 3 else [],
        "sample": [n],
        "samples": samples,
        "pairwise_sample": pairwise_sample,
        "weights": False,
        "directed_pairwise": directed_pairwise,
    }
    config = {"seed": seed, "dask": {}, "resources": {"threads": 1}}
    jobs, _needs = KIND.jobs({"cli": study}, config)
    for job in jobs.values():
        log(f"{job.name} ...")
        KIND.run(job, results, config=config, threads=1, log=log)
    return KIND.collect("cli", study, config, results)
