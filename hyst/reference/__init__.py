"""Layer 1, slow, obviously correct references that the fast kernels must match, shared by the tests
and the benchmarks (nothing in the package's own code paths uses them):

- :mod:`hyst.reference.naive`: the 2^N-state observables in plain Python (bitmask-free
  spin lists, thresholds recomputed from scratch);
- :mod:`hyst.reference.naive_drive`: the avalanche and cyclic-drive protocols for any N,
  fields recomputed from scratch with ``c @ s``;
- :mod:`hyst.reference.naive_mechanics`: the mechanics of serial chains of bilinear
  elements in exact rational arithmetic (force balance, no mapping to hysterons);
- :mod:`hyst.reference.peer`: an adapter driving the peer package ``hysteron`` (a test
  dependency: ``pip install hyst[test]``) through the same computations.
"""
