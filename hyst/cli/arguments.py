"""What every command of the command line shares: the parser whose errors are one line with
exit status 2, the user-mistake exception, and the argument types."""

from __future__ import annotations

import argparse


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """A user mistake: reported as one line, exit status 2."""


def positive_int(name):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{value} is not allowed (must be >= 1)")
        return value

    parse.__name__ = name
    return parse


def n_type(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"{value} is not allowed (N >= 2)")
    return value


def nj0_type(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"{text} is not allowed (a finite number > 0)")
    return value


def seed_type(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is not allowed (seed >= 0)")
    return value
