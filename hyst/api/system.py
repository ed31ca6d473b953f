"""``hyst.System`` and the types its methods return, re-exported from :mod:`hyst.systems`
(one system of N coupled hysterons) and :mod:`hyst.model.transition_graph`."""

from __future__ import annotations

from hyst.model.transition_graph import Transition, TransitionGraph
from hyst.systems.self_loops import SelfLoop
from hyst.systems.system import System

__all__ = ["SelfLoop", "System", "Transition", "TransitionGraph"]
