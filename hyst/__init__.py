"""hyst: statistics of interacting hysterons.

N binary elements s_i = ±1 driven by a global field H switch at the
state-dependent thresholds H_i^±(S) = h_i^± − Σ_j c_ij s_j. With random
asymmetric couplings the dynamics can be trapped in *self-loops*: cycles of
unstable states. This package samples interaction ensembles and measures gaps,
self-loops, race conditions, avalanches and cyclic response exactly.

Layout
------
hyst.model       exact (integer) representation of one or many systems
hyst.ensembles   the six coupling and three span ensembles
hyst.kernels     numba kernels over plain arrays (no I/O, no xarray)
hyst.dynamics    thin wrappers: relax one system from one state
hyst.observables per-point sampling driver and statistics -> xarray
hyst.io          NetCDF I/O with provenance, atomic writes
hyst.cli         the ``hyst`` command line
"""

__version__ = "0.1.0"
