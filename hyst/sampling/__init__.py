"""Layer 4, sampling: one sweep point drawn, run and decoded (:mod:`hyst.sampling.sampler`),
mergeable tallies and their Dataset (:mod:`hyst.sampling.tallies`), the Dask cluster that runs
chunks (:mod:`hyst.sampling.cluster`) and the heap settings of a sampling process
(:mod:`hyst.sampling.malloc`)."""
