"""The release and the version: the release plus a fingerprint of the package's code."""

from __future__ import annotations

#: The release, as in pyproject.toml and CITATION.cff.
RELEASE = "0.2.0"


def __getattr__(name: str):
    """``__version__``: the release plus a fingerprint of the package's source, so it changes
    whenever the code does (PEP 440 local version label). Computed on first use, so that
    importing hyst costs nothing for it."""
    if name == "__version__":
        from hyst.provenance.fingerprints import package_fingerprint

        version = f"{RELEASE}+src.{package_fingerprint()[:10]}"
        globals()["__version__"] = version
        return version
    raise AttributeError(f"module 'hyst._version' has no attribute {name!r}")
