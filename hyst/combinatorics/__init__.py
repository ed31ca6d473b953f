"""Layer 3, combinatorics: fundamental self-loop structures. Their enumeration
(:mod:`hyst.combinatorics.structures`), design inequalities (:mod:`hyst.combinatorics.design`),
realizability by linear programming (:mod:`hyst.combinatorics.lp`) and re-simulation
(:mod:`hyst.combinatorics.realize`), one cell in independent pieces
(:mod:`hyst.combinatorics.cells`) stored in reusable files (:mod:`hyst.combinatorics.store`),
the paper's tables (:mod:`hyst.combinatorics.tables`) and where to draw the states of a loop
(:mod:`hyst.combinatorics.layout`)."""
