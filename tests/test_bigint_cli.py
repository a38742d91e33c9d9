"""`fhe-hw generate` entries of the super-size engines ([Cao13] §3–4)."""

import pytest
from test_cli import small_argv

from fhe_hw.cli import main

UNITS = ["integer-fft-mul", "supersize-barrett", "cmnt-encrypt", "cnt-encrypt"]


# tests/test_cli.py generates every registered unit at its small configuration; the engines'
# RAM ports are checked here at the same configurations (their Verilog converted once per run),
# on the multiplier, and on the three sequencer engines in the slow suite.
@pytest.mark.parametrize("name", [UNITS[0]] + [pytest.param(n, marks=pytest.mark.slow)
                                               for n in UNITS[1:]])
def test_generate_writes_the_unit_with_its_ram_ports(tmp_path, name):
    out = tmp_path / "unit.v"
    assert main(["generate", name, *small_argv(name), "-o", str(out)]) == 0
    text = out.read_text()
    assert f"module fhe_hw_{name.replace('-', '_')}(" in text
    for port in ("clk", "rst", "i__valid", "i__ready", "o__valid", "o__payload",
                 "rd_x__addr", "rd_x__en", "rd_x__data", "rd_y__data", "rd_z__data",
                 "wr__addr", "wr__en", "wr__data"):
        assert f" {port};" in text, port


@pytest.mark.parametrize("argv,message", [
    (["integer-fft-mul", "--modulus", "fermat32", "--n", "64", "--digit-bits", "14"],
     "--digit-bits must satisfy"),
    (["integer-fft-mul", "--bus-width", "20"], "--bus-width must be digit_bits"),
    (["supersize-barrett", "--gamma", "10"], "gamma must be more than d"),
    (["cmnt-encrypt", "--schedule", "fast"], "schedule must be"),
])
def test_generate_rejects_bad_parameters_without_writing(tmp_path, capsys, argv, message):
    out = tmp_path / "x.v"
    code = main(["generate", *argv, "-o", str(out)])
    assert code == 2 and not out.exists()
    assert message in capsys.readouterr().err
