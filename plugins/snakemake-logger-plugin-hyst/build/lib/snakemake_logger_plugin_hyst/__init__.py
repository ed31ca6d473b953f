"""Snakemake's logger plugin ``hyst`` (``--logger hyst``, set by hyst's default profile): one
progress line, hyst's lines, warnings and errors (:mod:`hyst.pipeline.progress`)."""

from hyst.pipeline.progress import LogHandler

__all__ = ["LogHandler"]
