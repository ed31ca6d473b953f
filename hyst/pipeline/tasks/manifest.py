"""Write the run's manifest (:mod:`hyst.pipeline.manifest`): every result file's SHA-256 and
the code that made it."""

from __future__ import annotations

import json

from hyst.pipeline.manifest import write_manifest
from hyst.provenance.files import write_log


def run(sm) -> None:
    """``<results>/manifest.json`` of the run's results."""
    config, code = json.loads(sm.params.configuration), json.loads(sm.params.code)
    path = write_manifest(sm.params.results, config, code)
    write_log(sm.log[0], f"{path}: {len(sm.input)} files")
