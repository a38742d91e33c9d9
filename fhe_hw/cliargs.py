"""Checked command-line values: every ``fhe-hw`` subcommand validates its arguments with these
before any long work starts, so a bad value gets one line naming its ``--flag`` and the accepted
range, and exit status 2 (:class:`Parser`). The module imports nothing else of fhe_hw: its
integer syntax (:func:`parse_integer`) is also the library's (:mod:`fhe_hw.params`).

The ``type=`` callables raise ``argparse.ArgumentTypeError``; argparse puts the flag in front of
the message. :func:`flag_message` turns the ``name must be ...`` messages of the library's own
validation into ``--name must be ...`` when ``name`` is an option of the command.
"""

import argparse
import dataclasses
import os
import re
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

__all__ = ["parse_integer", "Parser", "HelpFormatter", "RawDescriptionHelpFormatter",
           "shown_default", "add_verbose", "integer", "int_in", "int_list", "positive_float",
           "percent", "fraction", "output_file", "output_dir", "write_text", "input_file",
           "flag_message"]

#: A plain number: ASCII digits with an optional point and exponent (``float()`` would also
#: take ``1_0``, ``' 5 '``, non-ASCII digits, ``nan`` and ``inf``).
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?",
                     re.ASCII)
#: A fraction: an optional minus sign, a plain number, optionally ``/`` and ASCII digits.
_FRACTION = re.compile(r"-?(?:[0-9]+/[0-9]+|[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)


#: The text of an integer (:func:`parse_integer`): ASCII decimal digits or 0x hex, an optional
#: minus sign, nothing else (``int()`` would also take ``1_000``, ``' 7 '`` and non-ASCII
#: digits such as ``５``).
_INTEGER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|[0-9]+)", re.ASCII)


def parse_integer(text):
    """The integer that ``text`` spells in ASCII decimal digits or ``0x`` hex (with an optional
    leading ``-``); ``ValueError`` for anything else."""
    text = str(text)
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"must be an integer (ASCII decimal digits or 0x hex), not {text!r}")
    return int(text, 16 if text.lstrip("-")[:2].lower() == "0x" else 10)


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
    (:class:`HelpFormatter`, also in the sub-command parsers it makes). Options are never
    abbreviated: a renamed option (``--m``, now ``--inner-n``) is refused, not taken as the
    prefix of another (``--mult-stages``)."""

    def __init__(self, *args, formatter_class=HelpFormatter, allow_abbrev=False, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, allow_abbrev=allow_abbrev,
                         **kwargs)

    def error(self, message):
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


def integer(text):
    """An argparse type: an integer in ASCII decimal digits or ``0x`` hex
    (:func:`parse_integer`)."""
    try:
        return parse_integer(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


integer.__name__ = "integer"


def int_in(minimum, maximum=None):
    """An argparse type: an :func:`integer` in ``[minimum, maximum]``; either refusal names
    the range."""
    span = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"

    def parse(text):
        try:
            value = integer(text)
        except argparse.ArgumentTypeError:
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
        return tuple(parse_integer(x) for x in str(text).split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated integers such as 97,193, "
                                         f"not {text!r}") from None


int_list.__name__ = "integer list"


def positive_float(text):
    """An argparse type: a finite number > 0 in ASCII digits (``2``, ``0.5``, ``1e3``)."""
    if not _NUMBER.fullmatch(text) or not 0 < float(text) < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number greater than 0, not {text!r}")
    return float(text)


positive_float.__name__ = "number"


def percent(text):
    """An argparse type: a percentage greater than 0 and below 100."""
    if not _NUMBER.fullmatch(text) or not 0 < float(text) < 100:
        raise argparse.ArgumentTypeError(f"must be a percentage greater than 0 and below 100, "
                                         f"not {text!r}")
    return float(text)


percent.__name__ = "percentage"


def fraction(text):
    """An argparse type: a fraction such as ``1/8`` or ``0.125`` (ASCII digits)."""
    try:
        if not _FRACTION.fullmatch(text):
            raise ValueError(text)
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"must be a fraction such as 1/8, not {text!r}") \
            from None


fraction.__name__ = "fraction"


def _can_create_in(folder, what):
    """Raise ``ArgumentTypeError`` unless an entry can be made in the existing ``folder`` (a
    probe folder is made and removed: permissions alone do not tell, e.g. ``/proc`` for root
    or a read-only file system)."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".fhe-hw-probe-", dir=folder))
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot create {what}: {e.strerror or e}") from None


def output_file(text):
    """An argparse type: a file to write (``-`` for standard output); its folder must exist and
    take a new file, an existing file must be writable."""
    if text == "-":
        return text
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must name a file, not {text!r}")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory, not a file")
    if not path.absolute().parent.is_dir():
        raise argparse.ArgumentTypeError(f"folder {path.parent} of {text} does not exist")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"cannot write {text}: permission denied")
    else:
        _can_create_in(path.absolute().parent, text)
    return text


output_file.__name__ = "file"


def output_dir(text):
    """An argparse type: a folder to write into, existing or to be made: its nearest existing
    ancestor must be a folder that takes new entries. Nothing is left behind by the check."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must name a folder, not {text!r}")
    path = Path(text).absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot create {text}: {existing} is not a folder")
    _can_create_in(existing, text)
    return text


output_dir.__name__ = "folder"


def write_text(path, text):
    """Write ``text`` to the file ``path``; an ``OSError`` names the file (a full disk raises
    without one)."""
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None


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


def flag_message(message, flags, aliases=None):
    """``message`` with its leading parameter name (``name must ...``, ``name needs ...``)
    written ``--name`` when ``--name`` (with ``-`` for ``_``) is one of ``flags``, or written
    ``aliases[name]`` (the option that sets a parameter of another name, ``n`` -> ``--rns-n``)."""
    match = re.match(r"([a-z][a-z0-9_]*)(?= )", message)
    if match:
        name = match.group(1)
        flag = (aliases or {}).get(name) or "--" + name.replace("_", "-")
        if flag in flags or name in (aliases or {}):
            return flag + message[len(name):]
    return message


def add_verbose(parser):
    """``-v``/``--verbose`` on a command that runs external tools: their output is copied to
    standard error as it comes (besides their logs; :func:`fhe_hw.flow.run.stream_to`)."""
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="stream the tools' output to standard error as it comes")
