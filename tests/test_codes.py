"""The kernels' output columns: every index constant addresses the column its name says, and
every relaxation's row begins with the record that ``bookkeeping.record`` writes.

The kernels write their outputs by index constants (``RELAX_FLIPS``, ``WALK_L``, …) and their
callers read them by name (``hyst.model.batch.Columns``); a table reordered without its
constants, or constants unpacked in another order than their names, would swap outputs
silently (flips and steps, say, which differ only under rule 2)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import hyst.kernels
from hyst.kernels import bookkeeping, codes
from hyst.model.batch import Columns

#: Index constants whose name is not their column's name (the rest end in it).
ABBREVIATED = {
    "PC_ATTRACTOR": "attractor_families",
    "PC_GRAPH": "graph_families",
    "EV_M": "magnetisation",
    "SW_NEXT": "next_amplitude",
    "SS_CRITICAL": "critical_amplitude",
    "SS_SATURATION": "saturation_field",
    "O_SIMPLE_PAIRS": "simple_self_loop_pairs",
}


def column_tables():
    """(module, table name, index constants) of every ``A, B, … = range(len(TABLE))`` of the
    kernel modules, and of every ``range(len(FIRST), len(TABLE))`` (a table's own columns
    after those of another it begins with)."""
    found = []
    for info in pkgutil.iter_modules(hyst.kernels.__path__):
        name = f"hyst.kernels.{info.name}"
        tree = ast.parse(Path(importlib.import_module(name).__file__).read_text())
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple)):
                continue
            value = node.value
            if (
                isinstance(value, ast.Call)
                and getattr(value.func, "id", None) == "range"
                and all(
                    isinstance(a, ast.Call) and getattr(a.func, "id", None) == "len"
                    for a in value.args
                )
            ):
                constants = [t.id for t in node.targets[0].elts]
                found.append((name, value.args[-1].args[0].id, constants))
    return found


TABLES = column_tables()


def names_its_column(constant: str, column: str) -> bool:
    """Whether the index constant's name is its column's (after a prefix such as RELAX_)."""
    if constant in ABBREVIATED:
        return ABBREVIATED[constant] == column
    return constant == column.upper() or constant.endswith("_" + column.upper())


def test_the_column_tables_are_found():
    tables = {table for _module, table, _constants in TABLES}
    assert {
        "RELAXATION_RECORD",
        "WALK_COLUMNS",
        "RELAX_COLUMNS",
        "MECH_RELAX_COLUMNS",
        "ENUMERATION_COLUMNS",
        "FLOAT64_COLUMNS",
        "DRIVE_COLUMNS",
        "ORDER_COLUMNS",
    } <= tables


@pytest.mark.parametrize("module, table, constants", TABLES, ids=[t[1] for t in TABLES])
def test_every_index_constant_addresses_the_column_it_names(module, table, constants):
    mod = importlib.import_module(module)
    columns = getattr(mod, table)
    assert len(set(columns)) == len(columns), f"{table}: a column named twice"
    for constant in constants:
        k = getattr(mod, constant)
        assert names_its_column(constant, columns[k]), (
            f"{module}.{constant} = {k} addresses {table}[{k}] = {columns[k]!r}"
        )


def test_every_relaxation_row_begins_with_the_record():
    for table in (codes.WALK_COLUMNS, codes.RELAX_COLUMNS, codes.MECH_RELAX_COLUMNS):
        assert table[: len(codes.RELAXATION_RECORD)] == codes.RELAXATION_RECORD
    # each table's own columns follow the record
    own = (codes.WALK_FINAL_STATE, codes.RELAX_E1, codes.MR_CYCLE_START)
    assert own == (len(codes.RELAXATION_RECORD),) * 3


@pytest.mark.parametrize("table", ["WALK_COLUMNS", "RELAX_COLUMNS", "MECH_RELAX_COLUMNS"])
def test_the_record_lands_in_the_columns_its_callers_read(table):
    names = getattr(codes, table)
    out = np.full(len(names), -7, np.int64)
    steps, flips, race, ties = 5, 9, 1, 3
    bookkeeping.record(out, (steps, flips, race, ties), 4, 2)
    row = Columns(out[None, :], names)
    got = {name: int(row[name][0]) for name in codes.RELAXATION_RECORD}
    assert got == {"flips": 9, "steps": 5, "race": 1, "ties": 3, "L": 4, "n_e": 2}
    assert (out[len(codes.RELAXATION_RECORD) :] == -7).all()  # the kernel's own columns


@pytest.mark.parametrize("rule", [codes.RULE_0, codes.RULE_1, codes.RULE_1P, codes.RULE_2])
def test_the_verdict_of_a_scanned_state(rule):
    assert bookkeeping.verdict(rule, 0) == codes.STABLE
    assert bookkeeping.verdict(rule, 1) == codes.MOVED
    several = codes.ILL_DEFINED if rule == codes.RULE_0 else codes.MOVED
    assert bookkeeping.verdict(rule, 2) == several


def test_the_record_counts_steps_flips_ties_and_races_after_the_first_step():
    book = bookkeeping.begin(2)
    book = bookkeeping.scanned(book, 3, 1)  # the start state: several unstable, no race
    assert book == (0, 0, 0, 3)
    book = bookkeeping.moved(book, 3)  # rule 2 flips all three
    book = bookkeeping.scanned(book, 1, 0)
    assert book == (1, 3, 0, 3)
    book = bookkeeping.moved(book, 1)
    book = bookkeeping.scanned(book, 2, 1)  # after the first step: a race condition
    assert book == (2, 4, 1, 4)
    book = bookkeeping.moved(book, 1)
    assert bookkeeping.scanned(book, 0, 0) == (3, 5, 1, 4)  # race stays set
    assert bookkeeping.loop_length(book, 1) == 2


def test_elements_flipping_counts_the_bits_of_a_flip_mask():
    assert bookkeeping.elements_flipping(np.int64(0)) == 0
    assert bookkeeping.elements_flipping(np.int64(0b101101)) == 4
    assert bookkeeping.elements_flipping(np.uint64(2**64 - 1)) == 64
