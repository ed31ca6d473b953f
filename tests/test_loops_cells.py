"""Cells in independent pieces: counting chunks and realizability blocks merge exactly."""

from __future__ import annotations

import numpy as np

from hyst.loops import cells
from hyst.loops import structures as S
from hyst.loops.tables import PAPER_M, PAPER_MR, PAPER_MW


def test_count_cell_with_any_mapper():
    got = cells.count_cell(5, 12, depth=3, mapper=lambda f, xs: [f(x) for x in reversed(list(xs))])
    assert got.count == PAPER_M[(5, 12)] and got.chunks > 10


def test_blocks_merge_to_one_block():
    reps = S.enumerate_cell(4, 10)
    whole = cells.realize_block(reps.starts, reps.flips, ("R", "W+"))
    parts = [
        cells.realize_block(reps.starts[a:b], reps.flips[a:b], ("R", "W+"))
        for a, b in cells.blocks(reps.count, 37)
    ]
    merged = cells.merge_blocks(parts, ("R", "W+"))
    for v in ("R", "W+"):
        # exact answers; LP counts and witness points may depend on the stacking
        assert np.array_equal(merged.status[v], whole.status[v])
        assert merged.lps[v].sum() >= reps.count
    s = cells.summary(merged)
    assert s["R"]["feasible"] == PAPER_MR[(4, 10)] and s["W+"]["feasible"] == PAPER_MW[(4, 10)]
    assert s["R"]["failed"] == s["W+"]["failed"] == 0


def test_cell_files_resume(tmp_path):
    lines = []
    first = cells.realize_cell_files(3, 6, tmp_path, ("R", "W+"), block_size=2, log=lines.append)
    assert len(lines) == 3 and len(list(tmp_path.glob("block-*.npz"))) == 3
    (tmp_path / "block-0000002-0000004.npz").unlink()
    lines.clear()
    again = cells.realize_cell_files(3, 6, tmp_path, ("R", "W+"), block_size=2, log=lines.append)
    assert len(lines) == 1 and "block 2-4" in lines[0]  # only the missing block ran
    for v in ("R", "W+"):
        assert np.array_equal(first.status[v], again.status[v])
    assert cells.summary(again)["W+"]["feasible"] == PAPER_MW[(3, 6)]
