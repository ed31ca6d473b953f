"""Networks of passive and active bilinear elements (main text "Networks of Active
Elements", Fig. 3, and the Supplemental section "Serially-coupled two-state elements").

Modules
-------
hyst.networks.elements   bilinear elements and serial chains (exact int64 parameters)
hyst.networks.mapping    chains -> hysteron systems (force balance; constant columns)
hyst.networks.mechanics  the direct mechanical simulation and its transition graph
"""
