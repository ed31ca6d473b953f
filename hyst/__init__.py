"""hyst: statistics of interacting hysterons.

N binary elements s_i = ±1 driven by a global field H switch at the
state-dependent thresholds H_i^±(S) = h_i^± − Σ_j c_ij s_j. With random
asymmetric couplings the dynamics can be trapped in *self-loops*: cycles of
unstable states. This package samples interaction ensembles and measures gaps,
self-loops, race conditions, avalanches and cyclic response exactly.

The layout (rooms and seams) is described in docs/architecture.md.
"""

#: The release, as in pyproject.toml.
RELEASE = "0.2.0"


def __getattr__(name: str):
    """``__version__``: the release plus a fingerprint of the package's source, so it changes
    whenever the code does (PEP 440 local version label). Computed on first use, so that
    importing hyst costs nothing for it."""
    if name == "__version__":
        from hyst.fingerprint import source_fingerprint

        version = f"{RELEASE}+src.{source_fingerprint(['hyst'])[:10]}"
        globals()["__version__"] = version
        return version
    raise AttributeError(f"module 'hyst' has no attribute {name!r}")
