"""Result files of the loop cells: one NetCDF file per (cell, what), reused when its
provenance (the job's payload and the fingerprint of the code that computes it) matches.

Both the study kind ``loops`` and ``hyst loops`` compute cells through
:func:`hyst.combinatorics.counts.count_file` and
:func:`hyst.combinatorics.realizations.realize_file`, so each reuses what the other
computed. This module holds what both share (payloads, names, paths, provenance) and
imports neither: a count file records the fingerprint of the counting code alone, so a
change to the linear programs recounts no cell.

- ``count``: M(n_e, L) by the enumerator (and by Burnside's lemma when asked),
  the wall time, the number of chunks, and the representatives (start state,
  flips) when M ≤ ``store_max``;
- ``realize``: per representative and per variant the status code
  (``realize.STATUS``), LPs, refuted sign patterns, the size and residual of
  the Farkas certificate, 2H of the re-simulation; the counts per variant; the
  failed checks' messages; the wall time. Long cells write one file per block
  of representatives as they finish (a folder next to the cell file), so an
  interrupted job resumes where it stopped (``seconds`` is then the wall time of
  the run that finished the cell, ``blocks_reused`` says how many it found).
"""

from __future__ import annotations

import json
from pathlib import Path

from hyst.model import seeds
from hyst.provenance.fingerprints import code_fingerprint

#: Version of the file layout (part of the provenance).
FORMAT_VERSION = 1
#: Defaults of the job options (also the defaults of the study schema and of the CLI).
DEFAULTS = {
    "chunk_depth": 8,
    "store_max": 100_000,
    "variants": ["R", "W+"],
    "mode": "conservative",
    "lp_form": "eliminated",
    "block": 2000,  # representatives per realizability block
}
LP_FORMS = {
    "eliminated": "H eliminated: every lower bound on 2H below every upper bound (Supplemental)",
    "compact": "2H kept as an LP variable (the same parameters are feasible; faster)",
}


def count_payload(n_e: int, L: int, chunk_depth: int, store_max: int, burnside: bool) -> dict:
    """The payload (job options) of a ``count`` cell: M(n_e, L) by the enumerator, part of the
    file's provenance."""
    return {
        "what": "count",
        "n_e": int(n_e),
        "L": int(L),
        "chunk_depth": int(chunk_depth),
        "store_max": int(store_max),
        "burnside": bool(burnside),
    }


def realize_payload(n_e, L, variants, mode, lp_form, block) -> dict:
    """The payload (job options) of a ``realize`` cell: the realizability of each representative
    of M(n_e, L) per variant, part of the file's provenance."""
    return {
        "what": "realize",
        "n_e": int(n_e),
        "L": int(L),
        # R, R+, W, W+: the order of realize.VARIANTS (tests/test_loops_study.py)
        "variants": sorted(variants),
        "mode": str(mode),
        "lp_form": str(lp_form),
        "block": int(block),
    }


def job_name(payload: dict) -> str:
    """A file-system safe name saying what the job is, plus a digest of its payload."""
    return f"{payload['what']}-n{payload['n_e']}-L{payload['L']}-{seeds.digest(payload, 10)}"


def cell_path(results, payload: dict) -> Path:
    """The result file of a cell: ``<results>/loops/<job name>.nc``."""
    return Path(results) / "loops" / f"{job_name(payload)}.nc"


def provenance(payload: dict, computed_by: str) -> dict:
    """Attributes a file must carry to be reused: the JSON payload, the fingerprint of the
    code of the module that computes it (``computed_by``) and everything that imports, and
    the layout version."""
    return {
        "payload": json.dumps(payload, sort_keys=True),
        "code_fingerprint": code_fingerprint([computed_by]),
        "format_version": FORMAT_VERSION,
    }
