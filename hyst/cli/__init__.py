"""Layer 9, the command line: ``hyst point``, ``config``, ``profile`` and ``cluster``
(:mod:`hyst.cli.main`), ``hyst system`` (:mod:`hyst.cli.system`, its input files
:mod:`hyst.cli.system_input`) and ``hyst loops`` (:mod:`hyst.cli.loops`); the parser and
argument types they share are in :mod:`hyst.cli.arguments`."""
