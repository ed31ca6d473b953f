"""Layer 3, combinatorics: fundamental self-loop structures. Their enumeration
(:mod:`hyst.combinatorics.structures`), design inequalities (:mod:`hyst.combinatorics.design`),
realizability by linear programming (:mod:`hyst.combinatorics.lp`) and re-simulation
(:mod:`hyst.combinatorics.realize`), one cell in independent pieces
(:mod:`hyst.combinatorics.cells`) stored in reusable files (:mod:`hyst.combinatorics.store`)
and the paper's tables (:mod:`hyst.combinatorics.tables`). The general model's
t-graphs: their census (:mod:`hyst.combinatorics.tgraphs`,
:mod:`hyst.combinatorics.tgraph_search`), pairwise realizability
(:mod:`hyst.combinatorics.tgraph_pairwise`) and the share of well-defined parameter space by
sampled orders of switching fields (:mod:`hyst.combinatorics.tgraph_orders`)."""
