"""The allocator tuning of sampling processes (``hyst.sampling.malloc``)."""

import platform

import pytest

from hyst.sampling.malloc import keep_large_buffers


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_allocator_keeps_large_buffers_on_glibc():
    assert keep_large_buffers() is True
    assert keep_large_buffers() is True  # once per process, then a no-op
