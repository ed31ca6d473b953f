"""Fundamental self-loop structures: enumeration (``structures``), design inequalities
(``design``), realizability by linear programming and re-simulation (``realize``) and
the paper's tables (``tables``)."""
