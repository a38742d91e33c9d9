"""Bad invocations of every subcommand: exit status 2, one line on stderr that names the
``--flag`` or file at fault, no traceback, and no long work first."""

import os
import sys

import pytest

from fhe_hw.cli import main

COMPOSITE_196 = 50216813883093446110686317378883443862681048734090979955001

#: (arguments, a fragment the one-line message must hold)
BAD = [
    ("generate mod-add --pipelined maybe", "--pipelined"),
    ("generate karatsuba --digits x", "--digits"),
    ("generate karatsuba --recursions 20", "--recursions must be at most 5"),
    ("generate karatsuba --coeff-bits 0", "--coeff-bits"),
    ("generate kawamura --delta 1/0", "--delta"),
    ("generate mod-mul --modulus 8", "--modulus must be odd"),
    ("generate mod-mul --modulus banana", "--modulus"),
    ("generate mod-mul --modulus general32 --reducer nope", "--reducer"),
    ("generate ntt --n 100", "--n"),
    ("generate ntt --butterflies 3", "--butterflies"),
    ("generate ntt --n 256 --negacyclic true --modulus 1152921504606844417 --psi 5",
     "--psi must be a primitive 512-th root of unity mod q = 1152921504606844417"),
    ("generate ntt --root smallest", "--root must be one of generator, openfhe"),
    ("generate ntt --n 16 --modulus fermat32 --root openfhe", "--root openfhe needs a prime"),
    ("generate ntt --omega 3 --negacyclic true", "--omega is the root of a cyclic transform"),
    ("generate parallel-ntt --k 8 --modulus general32 --omega 3",
     "--omega must be a primitive 8-th root of unity"),
    (f"generate ntt --modulus {COMPOSITE_196}", "--modulus"),
    ("generate special-reducer --m 2", "--m"),
    ("generate montgomery-reducer --word 21", "--modulus must satisfy q ≡ 1 (mod 2^word)"),
    ("generate shift-ntt --points 12", "--points"),
    ("generate parallel-ntt --k 48", "--k"),
    ("generate butterfly --twiddle-up 3", "--twiddle-up"),
    ("generate shenoy-kumaresan --architecture serial", "--architecture"),
    ("generate fast-base-conversion --tp 2048", "--tp"),
    ("generate mixed-radix --architecture serial", "--architecture"),
    ("generate cmnt-encrypt --group huge", "--group"),
    ("generate cmnt-encrypt --schedule fast", "--schedule"),
    ("generate integer-fft-mul --addr-width 3", "--addr-width"),
    ("generate supersize-barrett --gamma 8", "--gamma"),
    ("generate no-such-unit", "UNIT"),
    ("generate mod-add -o /no/such/dir/x.v", "/no/such/dir"),
    ("params --modulus general32 --rns-n 1024 --source 0", "--source"),
    ("params --modulus general32 --rns-n 1024 --rho 16 --delta abc", "--delta"),
    ("params --modulus 4294967297 --k 256", "--k"),
    (f"params --modulus {COMPOSITE_196}", "--modulus"),
    ("params --modulus general32 --rns-bits 2", "--rns-bits"),
    ("demo --vectors -5", "--vectors"),
    ("demo --vectors 100001", "--vectors"),
    ("demo --board de10", "--board"),
    ("synth mod-add --freq 0", "--freq"),
    ("synth mod-add --freq -5", "--freq"),
    ("synth mod-add --device 999k", "--device"),
    ("synth mod-add --target xyz", "--target"),
    ("synth mod-add --placer foo", "--placer"),
    ("synth mod-add --json /no/such/x.json", "/no/such"),
    ("synth mod-mul --modulus 8", "--modulus"),
    ("build mod-add --baud 0", "--baud"),
    ("build mod-add --board de10", "--board"),
    ("build mod-add --depth 0", "--depth"),
    ("run --port /dev/no-such-port-fhe", "/dev/no-such-port-fhe"),
    ("run --port /dev/null --vectors 0", "--vectors"),
    ("run --port /dev/null --timeout 0", "--timeout"),
    ("report --jobs 0", "--jobs"),
    ("table no-such-table", "no-such-table"),
    ("table reducers --jobs 0", "--jobs"),
    ("asic-synth mod-add --clock-ns 0", "--clock-ns"),
    ("harden mod-add --flow nope", "--flow"),
    ("explore /no/such/space.yaml", "/no/such/space.yaml"),
]


def run(capsys, argv):
    """(exit status, stderr) of ``fhe-hw argv``; an exception escaping main fails the test."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def check(code, err, fragment):
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("args,fragment", BAD, ids=[a for a, _ in BAD])
def test_bad_invocation_is_one_line_naming_the_culprit(capsys, args, fragment):
    check(*run(capsys, args.split()), fragment)


def test_there_are_at_least_forty_bad_invocations():
    assert len(BAD) >= 40


@pytest.mark.parametrize("text,fragment", [("a: [1, 2", "not valid YAML"),
                                           ("- just\n- a list\n", "YAML mapping"),
                                           ("name: x\nunit: mod-add\nbogus: 1\n", "bogus")])
def test_malformed_space_files_are_named(capsys, tmp_path, text, fragment):
    space = tmp_path / "space.yaml"
    space.write_text(text)
    code, err = run(capsys, ["explore", str(space)])
    check(code, err, str(space))
    assert fragment in err


def test_a_directory_is_not_a_space_file(capsys, tmp_path):
    check(*run(capsys, ["explore", str(tmp_path)]), "is not a file")


def test_a_missing_optional_extra_is_named(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "serial", None)      # as if pyserial were not installed
    check(*run(capsys, ["run", "--port", "/dev/null"]), "'host' extra")


def test_a_port_where_no_board_answers(capsys):
    controller, device = os.openpty()
    try:
        code, err = run(capsys, ["run", "--port", os.ttyname(device), "--timeout", "0.2"])
    finally:
        os.close(controller)
        os.close(device)
    check(code, err, "")


#: Integer options for which 2^40 is a valid value (a twiddle of the 64-bit Solinas prime).
HUGE_IS_VALID = {("butterfly", "twiddle")}


def _size_options():
    from fhe_hw.units import units
    return [(unit.name, opt.name) for unit in units().values() for opt in unit.options
            if getattr(opt.type, "__name__", "") in ("int", "integer")
            and (unit.name, opt.name) not in HUGE_IS_VALID]


@pytest.mark.parametrize("unit,option", [pytest.param(*pair, id="-".join(pair))
                                         for pair in _size_options()])
def test_every_size_option_has_an_upper_bound(capsys, unit, option):
    """A huge value of any integer option is refused at once with the option's name (an upper
    bound, or a rule that rules it out), not elaborated for minutes or out of memory."""
    assert main(["generate", unit, f"--{option}", str(1 << 40), "-o", os.devnull]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"--{option}" in err, err
