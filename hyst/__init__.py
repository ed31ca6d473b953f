"""hyst: statistics of interacting hysterons.

N binary elements s_i = ±1 driven by a global field H switch at the
state-dependent thresholds H_i^±(S) = h_i^± − Σ_j c_ij s_j. With random
asymmetric couplings the dynamics can be trapped in *self-loops*: cycles of
unstable states. This package samples interaction ensembles and measures gaps,
self-loops, race conditions, avalanches and cyclic response exactly.

The public API (everything else is internal):

- ``hyst.System``: one system (from parameters, a file, or a sampled draw), its
  transition graph, self-loops, saturated loop, response to a field protocol, the drive
  protocols (``drive``, ``symmetric_drive``, ``amplitude_sweep``, ``return_point_memory``,
  …), ``to_file``, and its parameters in the conventions of N. Keim's ``hysteron`` package
  (``from_hysteron``, ``to_hysteron``) and of states 0/1 (``from_zero_one``,
  ``to_zero_one``);
- ``hyst.TransitionGraph``, ``hyst.Transition``, ``hyst.SelfLoop``: what
  ``System.transition_graph`` and ``System.self_loops`` return;
- ``hyst.sample_point(couplings=..., N=..., NJ0=..., samples=..., seed=...)``: one sweep
  point, the ``xarray.Dataset`` that ``hyst point`` writes;
- ``hyst.open_results(folder)``: every dataset, analysis and table of a results folder
  as one ``xarray.DataTree``;
- ``hyst.symmetric_drives(h_plus, h_minus, couplings, amplitude)`` and
  ``hyst.amplitude_sweeps(h_plus, h_minus, couplings)``: the drives of many systems given
  as parameter arrays, in one call, as one dataset;
- ``hyst.tgraphs``: transition graphs of the general model (switching fields per state),
  their design, realizability, census and statistics (the module :mod:`hyst.api.tgraphs`);
- ``hyst.__version__`` and ``hyst.RELEASE``.

``import hyst`` stays cheap: the API is imported on first use.

The package tree is the layer table (docs/architecture.md): each subpackage belongs to one
layer and imports only from the layers below it (``lint-imports`` checks it).
"""

from __future__ import annotations

from hyst._version import RELEASE

#: Public names imported on first use (PEP 562): name -> module. Named as strings, never
#: imported here: every code fingerprint includes this module's imports
#: (hyst.provenance.fingerprints), and the API imports every layer.
_LAZY = {
    "System": "hyst.api",
    "SelfLoop": "hyst.api",
    "Transition": "hyst.api",
    "TransitionGraph": "hyst.api",
    "sample_point": "hyst.api",
    "open_results": "hyst.api",
    "symmetric_drives": "hyst.api",
    "amplitude_sweeps": "hyst.api",
}
#: Public modules imported on first use: name -> module.
_LAZY_MODULES = {"tgraphs": "hyst.api.tgraphs"}


def __getattr__(name: str):
    if name == "__version__":
        from hyst import _version

        return _version.__version__
    if name in _LAZY or name in _LAZY_MODULES:
        import importlib

        if name in _LAZY:
            value = getattr(importlib.import_module(_LAZY[name]), name)
        else:
            value = importlib.import_module(_LAZY_MODULES[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hyst' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "RELEASE",
    "SelfLoop",
    "System",
    "Transition",
    "TransitionGraph",
    "__version__",
    "amplitude_sweeps",
    "open_results",
    "sample_point",
    "symmetric_drives",
    "tgraphs",
]
