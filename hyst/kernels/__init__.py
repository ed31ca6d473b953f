"""Numba kernels over plain arrays: ``enumeration`` (all 2^N states, bitmasks),
``relaxation`` (event-driven relaxation, any N), ``drive`` (avalanches, cyclic drive and
saturated loop built on it) and ``structure`` (dense couplings from compact forms); their
shared codes are in ``codes``."""

from hyst.kernels import codes, drive, enumeration, relaxation, structure

__all__ = ["codes", "drive", "enumeration", "relaxation", "structure"]
