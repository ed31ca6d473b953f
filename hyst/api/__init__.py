"""The public Python API, re-exported by :mod:`hyst` (the top layer: it re-exports and thinly
wraps :mod:`hyst.systems`, one system, and the layers below; it never imports the command
line, :mod:`hyst.cli`).

- :class:`System`: one system, its transition graph, self-loops, drives and file, and its
  parameters in the conventions of N. Keim's ``hysteron`` package and of states 0/1;
- :class:`TransitionGraph`, :class:`Transition`, :class:`SelfLoop`: what
  :meth:`System.transition_graph` and :meth:`System.self_loops` return;
- :func:`sample_point`: one sweep point, the dataset ``hyst point`` writes;
- :func:`open_results`: every dataset, analysis and table of a results folder;
- :func:`symmetric_drives`, :func:`amplitude_sweeps`: the drives of many systems, given
  as parameter arrays, in one call.
"""

from __future__ import annotations

from hyst.api.batch import amplitude_sweeps, symmetric_drives
from hyst.api.points import sample_point
from hyst.api.results import open_results
from hyst.api.system import SelfLoop, System, Transition, TransitionGraph

__all__ = [
    "SelfLoop",
    "System",
    "Transition",
    "TransitionGraph",
    "amplitude_sweeps",
    "open_results",
    "sample_point",
    "symmetric_drives",
]
