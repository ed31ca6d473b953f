"""hyst: statistics of interacting hysterons.

N binary elements s_i = ±1 driven by a global field H switch at the
state-dependent thresholds H_i^±(S) = h_i^± − Σ_j c_ij s_j. With random
asymmetric couplings the dynamics can be trapped in *self-loops*: cycles of
unstable states. This package samples interaction ensembles and measures gaps,
self-loops, race conditions, avalanches and cyclic response exactly.

The package tree is the layer table (docs/architecture.md): each subpackage belongs to one
layer and imports only from the layers below it (``lint-imports`` checks it).
"""

from hyst._version import RELEASE


def __getattr__(name: str):
    if name == "__version__":
        from hyst import _version

        return _version.__version__
    raise AttributeError(f"module 'hyst' has no attribute {name!r}")


__all__ = ["RELEASE", "__version__"]
