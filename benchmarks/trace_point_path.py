"""The path of one point's parameters from the Dask task to the kernels, as function calls.

Runs one chunk task of a sweep point (random couplings, hysteron spans, rule 1, N = 6,
NJ0 = 10; 20 systems) the way a Dask worker does, with ``sys.setprofile`` recording every
call of a function defined in ``hyst`` (numba kernels included: their dispatchers report
the call). Prints, for the calls in order and for the distinct functions in the order of
their first call, the number of stops, the modules they lie in, and the returns to a
module already left (a call into a module visited before, after calls in others).

    python benchmarks/trace_point_path.py [--groups transitions] [--order]

``--groups``: the observable groups ("all": the default groups); ``--order`` prints the
sequence of modules. The layouts before and after the packages became layers are both
understood (``PYTHONPATH`` selects the tree).
"""

from __future__ import annotations

import argparse
import os
import sys


def _task():
    """(chunk task, Point, resolve_groups) of the tree on ``sys.path``."""
    try:
        from hyst.sampling.cluster import _chunk_task
        from hyst.sampling.sampler import Point, resolve_groups
    except ImportError:  # the layout before the packages became layers
        from hyst.distributed import _chunk_task
        from hyst.sampler import Point, resolve_groups
    return _chunk_task, Point, resolve_groups


def trace(groups) -> list[tuple[str, str]]:
    """[(module, function)] of every hyst call of one chunk task, in order."""
    import hyst

    chunk_task, Point, resolve_groups = _task()
    root = os.path.dirname(hyst.__file__) + os.sep
    point = Point("random", "hysteron", "1", 6, 10.0)
    groups = resolve_groups(point, groups)
    chunk_task(point, 2, 0, 20, groups)  # load the kernels (another seed: nothing cached)
    calls = []

    def profile(frame, event, _arg):
        name = frame.f_code.co_filename
        if event == "call" and name.startswith(root):
            calls.append((name[len(root) : -3].replace(os.sep, "."), frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        chunk_task(point, 1, 0, 20, groups)
    finally:
        sys.setprofile(None)
    return calls


def summary(stops: list[tuple[str, str]]) -> tuple[int, int, int, list[str]]:
    """(stops, modules, returns to a module already left, the sequence of modules)."""
    sequence = []
    for module, _function in stops:
        if not sequence or sequence[-1] != module:
            sequence.append(module)
    returns = len(sequence) - len(set(sequence))
    return len(stops), len(set(sequence)), returns, sequence


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--groups", default="transitions", help="comma-separated, or 'all'")
    parser.add_argument("--order", action="store_true", help="print the sequence of modules")
    args = parser.parse_args(argv)
    groups = None if args.groups == "all" else args.groups.split(",")
    calls = trace(groups)
    for label, stops in (
        ("calls", calls),
        ("distinct functions", list(dict.fromkeys(calls))),
    ):
        n, modules, returns, sequence = summary(stops)
        print(f"{label}: {n} stops in {modules} modules, {returns} returns to a module left")
        if args.order:
            print("  " + " -> ".join(sequence))


if __name__ == "__main__":
    main()
