"""``fhe-hw ... --help``: every option's default is shown, as a user types it; the units' command
line defaults agree with their classes' or say why not; no reST markup reaches the terminal."""

import argparse
import dataclasses
import re
from fractions import Fraction

import pytest

from fhe_hw import cli
from fhe_hw.cli import main
from fhe_hw.cliargs import shown_default
from fhe_hw.component import Component
from fhe_hw.model.bigint import EncryptionSizes
from fhe_hw.plan import Plan, param
from fhe_hw.units import Unit, plan_options, units

UNITS = sorted(units())


def help_text(capsys, *argv):
    """The ``--help`` output of ``fhe-hw *argv``."""
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def option_texts(text):
    """``{--flag: its help text on one line}`` of an argparse help output."""
    out = {}
    for block in re.split(r"\n(?=  -)", text.split("\noptions:\n", 1)[1]):
        invocation = re.split(r"\s{2,}", block.strip().split("\n")[0])[0]
        for flag in re.findall(r"(?:^|, )(--?[\w-]+)", invocation):
            out[flag] = " ".join(block.split())
    return out


def names_default(text, value):
    """Whether help ``text`` says ``default value`` (``default: value``, ``default value``)."""
    return re.search(r"default:? " + re.escape(shown_default(value)) + r"(?![\w.])", text)


def parsers(parser=None, path=()):
    """Every parser of the ``fhe-hw`` command, with its sub-command path."""
    parser = parser or cli.parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def test_shown_default_is_what_a_user_types():
    assert shown_default(True) == "true" and shown_default(False) == "false"
    assert shown_default(EncryptionSizes(12, 20, 200, 2)) == "12,20,200,2"
    assert shown_default(Fraction(1, 8)) == "1/8" and shown_default("solinas64") == "solinas64"


def test_generate_ntt_help_says_n_is_1024_and_booleans_are_true_false(capsys):
    texts = option_texts(help_text(capsys, "generate", "ntt"))
    assert "(default: 1024)" in texts["--n"]
    assert "(default: false)" in texts["--inverse"] and "(default: true)" in texts["--tiled"]
    texts = option_texts(help_text(capsys, "generate", "transform-encrypt"))
    assert "default 12,20,200,2" in texts["--group"]


@pytest.mark.parametrize("name", UNITS)
def test_generate_unit_help_names_every_default(capsys, name):
    """The option's default, or (when it is None) the factory's own; when that is None too the
    option's text says what applies (``default 2P``, ``default: none, no reduction``)."""
    unit = units()[name]
    texts = option_texts(help_text(capsys, "generate", name))
    factory_defaults = unit.factory_defaults()
    for opt in unit.options:
        text = texts[f"--{opt.name}"]
        value = opt.default if opt.default is not None else factory_defaults.get(opt.dest)
        if value is None:
            assert "default" in text, (name, opt.name, text)
        else:
            assert names_default(text, value), (name, opt.name, value, text)
        assert not re.search(r"default:? (None|True|False)\b", text), (name, opt.name, text)


def test_every_command_help_names_every_default():
    """Every option that takes a value and is not required, in every parser (the units' under
    synth, asic-synth, harden and build too), shows its default."""
    checked = 0
    for path, parser in parsers():
        texts = option_texts(parser.format_help())
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0 or action.required:
                continue
            text = texts[action.option_strings[-1]]
            if action.default is None:
                assert "default" in text, (path, action.option_strings, text)
            else:
                assert names_default(text, action.default), (path, action.option_strings, text)
            checked += 1
    assert checked > 1000


def test_help_has_no_rest_markup(capsys):
    assert "``" not in help_text(capsys)
    for path, parser in parsers():
        text = parser.format_help()
        assert "``" not in text and ":class:" not in text and ":func:" not in text, path


def undocumented_differences(unit):
    """The options of ``unit`` whose command-line default differs from its factory's (the
    Python class's) default while the option's help does not say so: it must name the class's
    default ("the class's default: 64", "the classes' default: ..."), and its value when that is
    not None."""
    factory_defaults = unit.factory_defaults()
    out = []
    for opt in unit.options:
        if opt.default is None or opt.dest not in factory_defaults:
            continue        # None leaves the class's default in force; a required argument
        own = factory_defaults[opt.dest]
        if opt.default == own:
            continue
        said = re.search(r"class(es)?'s? default", opt.help) and \
            (own is None or shown_default(own) in opt.help)
        if not said:
            out.append((opt.name, opt.default, own))
    return out


@pytest.mark.parametrize("name", UNITS)
def test_cli_default_is_the_class_default_or_the_help_says_why(name):
    assert undocumented_differences(units()[name]) == []


def test_the_differences_are_found():
    """The check finds a silent difference, and the units' documented ones exist (the
    command line's smaller configurations: see each option's help and the unit's page)."""
    @dataclasses.dataclass(frozen=True)
    class Silent(Plan):
        size: int = param(64, help="the size", cli_default=8)
        mode: str = param("a", help="the mode")

    @dataclasses.dataclass(frozen=True)
    class Said(Plan):
        size: int = param(64, help="the size (default 8; the class's default: 64)",
                          cli_default=8)

    def unit(plan):
        return Unit("x", Component, "x", plan_options(plan), plan)
    assert undocumented_differences(unit(Silent)) == [("size", 8, 64)]
    assert undocumented_differences(unit(Said)) == []
    differing = {(name, opt.name) for name, unit in units().items()
                 for opt in unit.options
                 if opt.default is not None
                 and unit.factory_defaults().get(opt.dest, opt.default) != opt.default}
    assert {("large-int-mul", "max-bits"), ("large-int-mul", "lanes"),
            ("transform-encrypt", "inner-n"), ("integer-fft-mul", "n")} <= differing


def test_the_command_list_is_the_commands_own_help():
    """``fhe-hw --help`` lists each command with :data:`fhe_hw.cli.COMMANDS`' help, without
    importing its module: the same line the command's module declares for its parser."""
    listed = {a.dest: a.help for a in next(a for a in cli.parser()._actions
                                           if isinstance(a, argparse._SubParsersAction))
              ._choices_actions}
    assert listed == {name: text for name, (text, _, _) in cli.COMMANDS.items()}

