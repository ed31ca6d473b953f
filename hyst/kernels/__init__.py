"""Numba kernels over plain arrays: ``enumeration`` (all 2^N states, bitmasks)
and ``drive`` (event-driven relaxation, avalanches and cyclic drive, any N)."""

from hyst.kernels import drive, enumeration

__all__ = ["drive", "enumeration"]
