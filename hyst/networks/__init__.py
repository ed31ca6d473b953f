"""Layer 3, networks of passive and active bilinear elements (main text "Networks of Active
Elements", Fig. 3, and the Supplemental section "Serially-coupled two-state elements"),
and random serial chains beyond the paper.

Modules
-------
hyst.networks.elements   bilinear elements and serial chains (exact int64 parameters)
hyst.networks.mapping    chains -> hysteron systems (force balance; constant columns)
hyst.networks.mechanics  the direct mechanical simulation and its transition graph
hyst.networks.pair       two elements: self-loop families SL1-SL6, the Supplemental's
                         and the exact conditions, the race inequalities R1-R4
hyst.networks.scan       (d1, d2) scans of the drive range, cell by cell (xarray)
hyst.networks.chains     random chains with a fraction phi of active elements

The transition graph of any hysteron system is
``hyst.model.transition_graph.transition_graph``; the mechanical kernels are in
``hyst.kernels.mechanics``; Fig. 3, the Supplemental's figures and the chain figure are
drawn by ``hyst.plotting.networks``.
"""
