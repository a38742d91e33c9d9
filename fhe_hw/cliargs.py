"""Checked command-line values: every ``fhe-hw`` subcommand validates its arguments with these
before any long work starts, so a bad value gets one line naming its ``--flag`` and the accepted
range, and exit status 2 (:class:`Parser`).

The ``type=`` callables raise ``argparse.ArgumentTypeError``; argparse puts the flag in front of
the message. :func:`flag_message` turns the ``name must be ...`` messages of the library's own
validation into ``--name must be ...`` when ``name`` is an option of the command.
"""

import argparse
import dataclasses
import re
import sys
from fractions import Fraction
from pathlib import Path

__all__ = ["Parser", "HelpFormatter", "RawDescriptionHelpFormatter", "shown_default",
           "add_verbose", "int_in", "int_list", "positive_float", "fraction", "output_file",
           "input_file", "flag_message"]


def shown_default(value):
    """A default as ``--help`` writes it, the way a user would type it: booleans ``true`` and
    ``false``, tuples and dataclass records (such as an encryption group's sizes)
    comma-separated."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.astuple(value)
    if isinstance(value, tuple):
        return ",".join(map(shown_default, value))
    return str(value)


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` that ends the text of every option taking a value with ``(default: X)``
    (:func:`shown_default`), unless the text says its default already. An option whose default
    is ``None`` says in its own text what applies without it."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (action.nargs == 0 or not action.option_strings or default in (None, argparse.SUPPRESS)
                or "default" in text):
            return text
        shown = shown_default(default).replace("%", "%%")
        return f"{text} (default: {shown})".lstrip()


class RawDescriptionHelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """:class:`HelpFormatter` that keeps the description's line breaks."""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``prog: error: message``) and exit 2,
    without the usage block; ``--help`` shows the usage and every option's default
    (:class:`HelpFormatter`, also in the sub-command parsers it makes)."""

    def __init__(self, *args, formatter_class=HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message):
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


def int_in(minimum, maximum=None):
    """An argparse type: an integer in ``[minimum, maximum]``."""
    span = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"

    def parse(text):
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer {span}, not {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be an integer {span}, not {value}")
        return value
    parse.__name__ = "integer"
    return parse


def int_list(text):
    """An argparse type: comma-separated integers such as ``97,193`` (a tuple); the unit
    checks their range."""
    try:
        return tuple(int(x, 0) for x in str(text).split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated integers such as 97,193, "
                                         f"not {text!r}") from None


int_list.__name__ = "integer list"


def positive_float(text):
    """An argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number greater than 0, not {text!r}") \
            from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number greater than 0, not {text!r}")
    return value


positive_float.__name__ = "number"


def fraction(text):
    """An argparse type: a fraction such as ``1/8`` or ``0.125``."""
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"must be a fraction such as 1/8, not {text!r}") \
            from None


fraction.__name__ = "fraction"


def output_file(text):
    """An argparse type: a file to write (``-`` for standard output); its folder must exist."""
    if text == "-":
        return text
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory, not a file")
    if not path.resolve().parent.is_dir():
        raise argparse.ArgumentTypeError(f"folder {path.parent} does not exist")
    return text


output_file.__name__ = "file"


def input_file(text):
    """An argparse type: an existing, readable file."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"file {text} does not exist")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text} is not a file")
    try:
        path.open("rb").close()
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot read {text}: {e.strerror}") from None
    return text


input_file.__name__ = "file"


def flag_message(message, flags):
    """``message`` with its leading parameter name (``name must ...``, ``name needs ...``)
    written ``--name`` when ``--name`` (with ``-`` for ``_``) is one of ``flags``."""
    match = re.match(r"([a-z][a-z0-9_]*)(?= )", message)
    if match:
        flag = "--" + match.group(1).replace("_", "-")
        if flag in flags:
            return flag + message[len(match.group(1)):]
    return message


def add_verbose(parser):
    """``-v``/``--verbose`` on a command that runs external tools: their output is copied to
    standard error as it comes (besides their logs; :func:`fhe_hw.flow.run.stream_to`)."""
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="stream the tools' output to standard error as it comes")
