"""What every command of the command line shares: the parser whose errors are one line with
exit status 2, the user-mistake exception, and the argument types."""

from __future__ import annotations

import argparse

from hyst.systems.text import plural  # noqa: F401 (the commands import it from here)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message):
        """Print ``message`` as one line and exit with status 2 (no usage dump)."""
        self.exit(2, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """A user mistake: reported as one line, exit status 2."""


def number_type(name: str, convert, allowed: str, ok):
    """An argparse type: ``convert`` (int or float) the text, then check ``ok(value)``. A
    failure is one line: "'x' is not an integer" (or "a number"), or "0 is not allowed
    (``allowed``)" (an int as read, a float as typed: 0, not 0.0)."""
    noun = "an integer" if convert is int else "a number"

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if not ok(value):
            shown = value if convert is int else text
            raise argparse.ArgumentTypeError(f"{shown} is not allowed ({allowed})")
        return value

    parse.__name__ = name
    return parse


def positive_int(name):
    """An argparse type for an integer >= 1 (a count: elements, samples, workers)."""
    return number_type(name, int, "must be >= 1", lambda v: v >= 1)


def count_option(parser, flag: str, help: str, **kwargs) -> None:
    """An option that takes an integer >= 1; a bad value is one line naming ``flag``."""
    parser.add_argument(flag, type=positive_int(flag.lstrip("-")), help=help, **kwargs)


def subcommand(sub, name: str, help: str, description: str, **kwargs) -> argparse.ArgumentParser:
    """A subcommand whose --help prints its description (and epilog) as written."""
    return sub.add_parser(
        name,
        help=help,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )


n_type = number_type("N", int, "N >= 2", lambda v: v >= 2)
nj0_type = number_type("NJ0", float, "a finite number > 0", lambda v: 0 < v < float("inf"))
seed_type = number_type("seed", int, "0 <= seed < 2^64", lambda v: 0 <= v < 2**64)


def output_file(path: str, option: str):
    """Check, before anything is computed, that the file ``path`` of ``option`` can be
    written: one line naming the option where not. Returns its folder where that folder
    is missing (the caller creates it and says so), else None."""
    from pathlib import Path

    from hyst.pipeline.config import ConfigError, check_results

    folder = Path(path).expanduser().parent
    try:
        check_results(folder, key=option)
    except ConfigError as err:
        raise UsageError(str(err).replace(repr(str(folder)), repr(path), 1)) from None
    if Path(path).is_dir():
        raise UsageError(f"{option}: {path!r} is not allowed (a folder; give a file)")
    return None if folder.exists() else folder


def results_cache(results: str, command: str, what: str = "the cache") -> None:
    """Check that the cache folder ``results`` (option --results) can be written, before
    anything is computed, and create it (saying so: ``what`` it holds) where missing."""
    import sys
    from pathlib import Path

    from hyst.pipeline.config import ConfigError, check_results

    try:
        check_results(results, key="--results")
    except ConfigError as err:
        raise UsageError(str(err)) from None
    if not Path(results).exists():
        Path(results).mkdir(parents=True)
        print(f"hyst {command}: created the folder {results} ({what}, --results)", file=sys.stderr)


def progress(quiet: bool):
    """A log function printing indented lines on stderr, or nothing if ``quiet``."""
    import sys

    def log(line):
        if not quiet:
            print(f"  {line}", file=sys.stderr, flush=True)

    return log
