"""Cells in independent pieces: counting chunks and realizability blocks merge exactly."""

from __future__ import annotations

import numpy as np

from hyst.combinatorics import blocks, cells
from hyst.combinatorics import structures as S
from hyst.combinatorics.tables import PAPER_M, PAPER_MR, PAPER_MW


def test_count_cell_in_groups_of_chunks():
    got = cells.count_cell(5, 12, depth=6)
    assert got.count == PAPER_M[(5, 12)] and got.chunks > cells.CHUNKS_PER_TASK


def test_tasks_run_in_order_and_report_as_they_finish():
    seen = []
    out = cells.run_tasks(lambda x: x * x, [3, 1, 2], on_result=lambda k, r: seen.append((k, r)))
    assert out == [9, 1, 4] and seen == [(0, 9), (1, 1), (2, 4)]


def test_blocks_merge_to_one_block():
    reps = S.enumerate_cell(4, 10)
    variants = ("R", "W+")
    whole = blocks.realize_block(blocks.Block(reps.starts, reps.flips, variants))
    parts = [
        blocks.realize_block(blocks.Block(reps.starts[a:b], reps.flips[a:b], variants))
        for a, b in blocks.blocks(reps.count, 37)
    ]
    merged = blocks.merge_blocks(parts)
    assert merged.size == whole.size == reps.count
    for v in variants:
        # exact answers; LP counts and witness points may depend on the stacking
        assert np.array_equal(merged.arrays["status"][v], whole.arrays["status"][v])
        assert merged.arrays["lps"][v].sum() >= reps.count
    s = blocks.summary(merged)
    assert s["R"]["feasible"] == PAPER_MR[(4, 10)] and s["W+"]["feasible"] == PAPER_MW[(4, 10)]
    assert s["R"]["failed"] == s["W+"]["failed"] == 0
    # infeasible loops carry the size of their Farkas certificate, feasible ones 2H
    infeasible = merged.arrays["status"]["R"] == 0
    assert (merged.arrays["support"]["R"][infeasible] > 0).all()
    assert (merged.arrays["field2"]["R"][~infeasible] != 0).any()
