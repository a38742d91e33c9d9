"""fhe-hw asic-synth: sky130_fd_sc_hd mapping (YoWASP Yosys) and OpenSTA timing (fhe_hw.asic)."""

import json
from pathlib import Path

import pytest

import fhe_hw
from fhe_hw.arith import ModMul, SolinasReducer
from fhe_hw.asic.sky130 import asic_synthesize, is_flip_flop, parse_sta_report
from fhe_hw.cli import main

pytestmark = pytest.mark.usefixtures("pdk_root")


@pytest.fixture(scope="module")
def solinas(tmp_path_factory, pdk_root):
    # deep=False: two stages, whose flip-flops the test below counts
    return asic_synthesize(SolinasReducer(deep=False), "solinas-reducer",
                           params={"modulus": "solinas64", "deep": False},
                           build_dir=tmp_path_factory.mktemp("solinas"))


@pytest.fixture(scope="module")
def modmul(tmp_path_factory, pdk_root):
    return asic_synthesize(ModMul("solinas64"), "mod-mul", params={"modulus": "solinas64"},
                           build_dir=tmp_path_factory.mktemp("modmul"))


def test_solinas_reducer_maps_to_sky130_hd_cells_only(solinas):
    assert solinas.cells == sum(solinas.cell_types.values()) > 0
    assert all(cell.startswith("sky130_fd_sc_hd__") for cell in solinas.cell_types)


# The 64-bit ModMul's synthesis (a quarter of a minute) in the slow suite; the reducer's here.
UNITS = ["solinas", pytest.param("modmul", marks=pytest.mark.slow)]


@pytest.mark.parametrize("unit", UNITS)
def test_no_power_gating_probe_delay_or_scan_cell_is_used(request, unit):
    result = request.getfixturevalue(unit)
    for bad in ("lpflow", "probe", "dlygate", "dlymetal", "clkdlybuf", "sdf", "sedf"):
        assert not [cell for cell in result.cell_types if bad in cell], bad


@pytest.mark.parametrize("unit", UNITS)
def test_flip_flops_are_of_drive_strength_two_or_more(request, unit):
    from fhe_hw.asic.pdk import FLOP_DONT_USE
    result = request.getfixturevalue(unit)
    assert "sky130_fd_sc_hd__dfxtp_2" in result.cell_types
    assert not set(FLOP_DONT_USE) & set(result.cell_types)


def test_solinas_reducer_flip_flops_are_its_two_stages_plus_the_port_registers(solinas):
    # ports: 128 + 1 in, 64 + 1 out; stages: r (66 bits signed) + valid, y (64) + valid
    assert solinas.io_ff == 194
    assert solinas.ff == solinas.io_ff + 66 + 1 + 64 + 1


def test_area_is_positive_and_includes_the_flip_flops(solinas):
    assert solinas.area_um2 > solinas.sequential_area_um2 > 0
    # a sky130_fd_sc_hd__dfxtp_2 is 21.27 um^2
    assert solinas.sequential_area_um2 >= 21.2 * solinas.ff


def test_fmax_follows_from_the_worst_slack(solinas):
    path = solinas.critical_path
    assert path["levels"] > 1 and path["arrival_ns"] > 0
    assert solinas.fmax_mhz == pytest.approx(1000 / (solinas.clock_ns - path["slack_ns"]),
                                             abs=0.01)
    assert 20 < solinas.fmax_mhz < 2000


@pytest.mark.slow
def test_mod_mul_solinas64_is_larger_and_slower_than_its_reducer(solinas, modmul):
    assert modmul.latency == ModMul("solinas64").latency
    assert modmul.area_um2 > 5 * solinas.area_um2
    assert modmul.fmax_mhz < solinas.fmax_mhz


def test_result_json_in_the_build_dir(solinas):
    saved = json.loads(Path(solinas.build_dir, "asic_synth.json").read_text())
    assert saved == json.loads(json.dumps(solinas.to_dict()))
    assert saved["tools"]["yosys"].startswith("Yosys") and saved["tools"]["opensta"]
    head = Path(solinas.build_dir, "top.v").read_text().splitlines()
    assert head[0] == (f"// fhe_hw {fhe_hw.__version__}: unit solinas-reducer (top module "
                       "fhe_hw_solinas_reducer)")
    assert "// wrapper: every port registered" in head[:8]
    assert Path(saved["netlist"]).read_text().startswith("/*") or "module" in \
        Path(saved["netlist"]).read_text()


def test_flip_flop_names():
    assert is_flip_flop("sky130_fd_sc_hd__dfxtp_1") and is_flip_flop("sky130_fd_sc_hd__edfxtp_1")
    assert not is_flip_flop("sky130_fd_sc_hd__dlxtp_1")
    assert not is_flip_flop("sky130_fd_sc_hd__nand2_1")


def test_sta_report_parser_reads_the_worst_path():
    report = """Startpoint: _5_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: _9_ (rising edge-triggered flip-flop clocked by clk)
            0.000    0.000    0.000 ^ _5_/CLK (sky130_fd_sc_hd__dfxtp_1)
   0.014    0.086    0.315    0.315 v _5_/Q (sky130_fd_sc_hd__dfxtp_1)
   0.007    0.086    0.195    0.509 v _7_/X (sky130_fd_sc_hd__xor2_1)
   0.002    0.052    0.333    0.842 v _8_/X (sky130_fd_sc_hd__mux2_1)
            0.052    0.003    0.845 v _9_/D (sky130_fd_sc_hd__dfxtp_1)
                              0.845   data arrival time
                    -0.124    4.876   library setup time
                              4.876   data required time
                              4.031   slack (MET)
"""
    assert parse_sta_report(report) == {"startpoint": "_5_", "endpoint": "_9_",
                                        "arrival_ns": 0.845, "setup_ns": 0.124,
                                        "slack_ns": 4.031, "levels": 2}


def test_sta_report_without_a_path_raises_value_error():
    with pytest.raises(ValueError, match="no timing path"):
        parse_sta_report("No paths found.\n")


@pytest.mark.parametrize("clock_ns", [0, -1.0, "10"])
def test_bad_clock_period_raises_value_error(clock_ns, tmp_path):
    with pytest.raises(ValueError, match="clock_ns must be a positive number"):
        asic_synthesize(SolinasReducer(), "solinas-reducer", clock_ns=clock_ns,
                        build_dir=tmp_path)


def test_missing_pdk_raises_runtime_error_naming_pdk_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PDK_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(RuntimeError, match="set PDK_ROOT"):
        asic_synthesize(SolinasReducer(), "solinas-reducer", build_dir=tmp_path)


def test_asic_synth_command_prints_a_table_and_writes_json_and_markdown(tmp_path, capsys):
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    code = main(["asic-synth", "special-reducer", "--modulus-bits", "33", "--clock-ns", "5",
                 "--build-dir", str(tmp_path / "b"), "--json", str(out_json),
                 "--markdown", str(out_md)])
    assert code == 0
    out = capsys.readouterr().out
    assert "| `special-reducer` | modulus_bits=33, pipelined=True, deep=True |" in out
    assert "critical path" in out
    saved = json.loads(out_json.read_text())
    assert saved["clock_ns"] == 5
    assert saved["params"] == {"modulus_bits": 33, "pipelined": True, "deep": True}
    assert out_md.read_text() in out
