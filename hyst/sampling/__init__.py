"""Layer 4, sampling: one sweep point drawn and run (:mod:`hyst.sampling.sampler`, whose
:class:`~hyst.sampling.sampler.SamplingJob` is what a study kind hands the sampler), the table
of the kernel passes that compute each observable group and their decoders
(:mod:`hyst.sampling.passes`), mergeable tallies and their Dataset
(:mod:`hyst.sampling.tallies`), points sampled chunk by chunk on a Dask client
(:mod:`hyst.sampling.chunks`), the Dask clusters and clients of every job
(:mod:`hyst.sampling.cluster`) and the heap settings of a sampling process
(:mod:`hyst.sampling.malloc`)."""
