"""The public Python API, re-exported by :mod:`hyst` (the top layer: it builds on the
command line's one-system tools, :mod:`hyst.cli.system`, and on every layer below).

- :class:`System`: one system, its transition graph, self-loops, drives and file;
- :func:`sample_point`: one sweep point, the dataset ``hyst point`` writes;
- :func:`open_results`: every dataset, analysis and table of a results folder;
- :func:`symmetric_drives`, :func:`amplitude_sweeps`: the drives of many systems, given
  as parameter arrays, in one call.
"""

from __future__ import annotations

from hyst.api.batch import amplitude_sweeps, symmetric_drives
from hyst.api.points import sample_point
from hyst.api.results import open_results
from hyst.api.system import System

__all__ = ["System", "amplitude_sweeps", "open_results", "sample_point", "symmetric_drives"]
