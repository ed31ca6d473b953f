"""Layer 1, the kernels: numba functions over plain arrays, nothing else of hyst.

- ``state_table``: all 2^N states of a system as bitmasks (the enumeration: stable states,
  transitions, self-loops, gaps);
- ``self_loop_search``: P_sl alone without the state table (N ≤ 62);
- ``relaxation``: event-driven relaxation, any N;
- ``drive``: avalanches, cyclic drive and the saturated loop built on relaxation;
- ``protocols``: drive protocols of one system (legs to turning fields, the amplitude
  sweep of the symmetric drive); ``drive_paths``: drives along turning fields and cyclic
  drives until the orbit repeats, with an event log; ``sweep_summaries``: a
  sweep's summary per system and return-point memory on the nested protocol;
  ``protocol_batches``: the sweep and the symmetric drive of a batch of systems;
- ``columns``: those drives for constant columns under rules 0 and 1 in O(N/64) a flip;
- ``first_loops``: the first self-loop of each saturated branch;
- ``roundoff``: the floating-point (non-exact) comparison of the enumeration;
- ``mechanics``: serial chains of bilinear elements simulated directly;
- ``loop_enumeration``: fundamental self-loop structures (combinatorics);
- ``dense_couplings``: dense couplings from compact forms; ``streams``: the couplings'
  random streams;
- ``rules``: the next-flip choice of every rule; ``bookkeeping``: what a relaxation counts
  (steps, flips, race, ties, self-loops) and when it stops, for every relaxing kernel;
- ``codes``: every output column, outcome, rule and coupling-form code shared with the
  callers; ``jit``: the one decorator, with the project's numba options.
"""
