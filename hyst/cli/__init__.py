"""Layer 10, the command line (beside the public API, :mod:`hyst.api`): it parses arguments
and prints. ``hyst point``, ``config``, ``profile`` and ``cluster`` (:mod:`hyst.cli.main`),
``hyst system`` (:mod:`hyst.cli.system`, its drive protocols :mod:`hyst.cli.drives`, the
general model's systems :mod:`hyst.cli.general_system`), ``hyst loops``
(:mod:`hyst.cli.loops`) and ``hyst tgraphs`` (:mod:`hyst.cli.tgraphs`); the parser and
argument types they share are in :mod:`hyst.cli.arguments`. What they compute is in
:mod:`hyst.systems` and the layers below. Nothing in hyst imports this package but
``hyst/__main__.py`` (an import-linter contract, ``pyproject.toml``)."""
