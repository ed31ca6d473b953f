"""Layer 9, the command line: ``hyst point``, ``config``, ``profile`` and ``cluster``
(:mod:`hyst.cli.main`), ``hyst system`` (:mod:`hyst.cli.system`) and ``hyst loops``
(:mod:`hyst.cli.loops`)."""
