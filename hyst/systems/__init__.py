"""Layer 9, one system at a time: the library below both the public API (:mod:`hyst.api`)
and the command line (:mod:`hyst.cli`), which only re-export it or parse arguments and
print what it computes.

- :mod:`~hyst.systems.system`: :class:`hyst.System`, one system of N hysterons (h_i^±,
  c_ij), its transition graph, self-loops, drives, file and other conventions;
- :mod:`~hyst.systems.files`: system files (YAML, JSON, NPZ) and their validation, and the
  very system the sampler drew at a sweep point;
- :mod:`~hyst.systems.self_loops`: the self-loops of a transition graph and the field
  range of each (:class:`hyst.SelfLoop`);
- :mod:`~hyst.systems.graphs`: a transition graph as text, as a networkx graph, as GraphML
  and DOT files;
- :mod:`~hyst.systems.drives`: drive protocols of one system and their datasets in field
  units;
- :mod:`~hyst.systems.conventions`: the parameters in the conventions of the ``hysteron``
  package and of states 0/1;
- :mod:`~hyst.systems.general`: a system file of the general model (switching fields per
  state) and what is computed of it;
- :mod:`~hyst.systems.point_records`: the records a sampled point keeps;
- :mod:`~hyst.systems.loop_counts`, :mod:`~hyst.systems.census`: the tables of ``hyst
  loops`` and ``hyst tgraphs``, through the pipeline's files;
- :mod:`~hyst.systems.text`: words of the printed text.

It imports the pipeline (the YAML loader of system files), the figures (a system's
pictures) and every layer below them; nothing below imports it.
"""
