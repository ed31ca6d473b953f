"""Keep the large per-chunk buffers of a sampling process in its heap (glibc only).

A chunk of dense couplings at N = 1024 is 16 x 8 MB. By default glibc serves an
allocation that large with a fresh ``mmap`` and returns it with ``munmap`` when freed, and
each worker thread gets its own arena, whose heaps cannot hold it either. Every chunk then
pays first-touch page faults on 128 MB: about 0.4 ms per system of a 1024-element
sampling job, as system time (benchmarks/README.md). With one arena, a high mmap threshold
and a high trim threshold, freed chunks stay in the heap and the next chunk reuses them.
The process keeps its peak heap instead of returning it to the system, which the job's
``mem_mb`` already allows for.

Nothing here changes a result: only where the memory comes from.
"""

from __future__ import annotations

import ctypes
import ctypes.util

#: mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
#: Allocations below this are taken from the heap (a chunk is at most 2^24 couplings).
MMAP_THRESHOLD = 1 << 30
#: Free heap kept at the top before it is returned to the system.
TRIM_THRESHOLD = (1 << 31) - 1

_done = False


def keep_large_buffers() -> bool:
    """Tune glibc's allocator once per process (see the module docstring). Returns whether
    it applied (False on other C libraries, where nothing is changed)."""
    global _done
    if _done:
        return True
    _done = True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # glibc only  # noqa: B018
    except (OSError, AttributeError):
        return False
    ok = libc.mallopt(_M_ARENA_MAX, 1)
    ok &= libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    ok &= libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    return bool(ok)
