"""Layer 8, the pipeline: the configuration and its schema (:mod:`hyst.pipeline.config`) and
what the Snakemake workflow calls."""
