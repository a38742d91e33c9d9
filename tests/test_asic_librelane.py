"""fhe-hw harden --flow librelane: the macro configuration and LibreLane's variable check
(fhe_hw.asic.librelane; the check needs the pip extra `asic`)."""

import json

import pytest

import fhe_hw
from fhe_hw.arith import SolinasReducer
from fhe_hw.asic.librelane import PDKS, check_librelane_config, write_librelane_config
from fhe_hw.cli import main

pytestmark = pytest.mark.usefixtures("pdk_root")


@pytest.fixture
def config(tmp_path):
    return write_librelane_config(SolinasReducer(), "solinas-reducer", clock_ns=8.0,
                                  build_dir=tmp_path / "solinas-reducer",
                                  params={"modulus": "solinas64"})


def test_config_names_design_verilog_clock_sdc_pins_and_die(config):
    text = config.read_text()
    for line in ['DESIGN_NAME: "fhe_hw_solinas_reducer"', 'PDK: "sky130A"',
                 'STD_CELL_LIBRARY: "sky130_fd_sc_hd"',
                 'VERILOG_FILES: ["dir::src/fhe_hw_solinas_reducer.v"]', 'CLOCK_PORT: "clk"',
                 "CLOCK_PERIOD: 8.0", 'PNR_SDC_FILE: "dir::constraints.sdc"',
                 'SIGNOFF_SDC_FILE: "dir::constraints.sdc"',
                 'IO_PIN_ORDER_CFG: "dir::pin_order.cfg"', 'FP_SIZING: "relative"',
                 "FP_CORE_UTIL: 40", "PL_TARGET_DENSITY_PCT: 50"]:
        assert line in text.splitlines(), line


def test_files_beside_the_config(config):
    verilog = (config.parent / "src" / "fhe_hw_solinas_reducer.v").read_text()
    assert "module fhe_hw_solinas_reducer" in verilog
    assert verilog.startswith(f"// fhe_hw {fhe_hw.__version__}: unit solinas-reducer ")
    assert verilog.splitlines()[1].startswith("// parameters: modulus=solinas64")
    sdc = (config.parent / "constraints.sdc").read_text()
    assert "create_clock -name clk -period 8 [get_ports clk]" in sdc
    assert "set_input_delay 1.6 -clock clk" in sdc
    assert (config.parent / "pin_order.cfg").read_text().split() == \
        ["#W", "clk", "rst", "i__.*", "#E", "o__.*"]


def test_gf180_config_uses_its_cell_library(tmp_path):
    path = write_librelane_config(SolinasReducer(), "solinas-reducer", pdk="gf180mcuD",
                                  build_dir=tmp_path)
    assert 'STD_CELL_LIBRARY: "gf180mcu_fd_sc_mcu7t5v0"' in path.read_text()
    assert PDKS["gf180mcuD"][1] in (tmp_path / "constraints.sdc").read_text()


def test_unknown_pdk_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="pdk must be one of sky130A, gf180mcuD, not 'tsmc'"):
        write_librelane_config(SolinasReducer(), "solinas-reducer", pdk="tsmc",
                               build_dir=tmp_path)


def test_core_utilisation_out_of_range_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="core_util must be between 0 and 100, not 120"):
        write_librelane_config(SolinasReducer(), "solinas-reducer", core_util=120,
                               build_dir=tmp_path)


def test_solinas_config_passes_librelanes_variable_check(config):
    pytest.importorskip("librelane")
    check = check_librelane_config(config)
    assert check.ok, check.errors
    assert check.variables > 100
    assert "LIB" in check.pdk_variables and "STD_CELL_LIBRARY" not in check.pdk_variables


def test_a_wrong_type_and_an_unknown_variable_fail_the_check(config):
    pytest.importorskip("librelane")
    config.write_text(config.read_text().replace("CLOCK_PERIOD: 8.0", 'CLOCK_PERIOD: "fast"')
                      + "FP_CORE_UTILISATION: 30\n")
    check = check_librelane_config(config)
    assert not check.ok
    assert any("CLOCK_PERIOD" in e for e in check.errors)
    assert any("FP_CORE_UTILISATION" in e for e in check.errors)


def test_harden_librelane_without_openroad_checks_and_says_what_is_missing(
        tmp_path, capsys, monkeypatch):
    pytest.importorskip("librelane")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no openroad
    code = main(["harden", "solinas-reducer", "--flow", "librelane", "--pdk", "sky130A",
                 "--build-dir", str(tmp_path), "--json", str(tmp_path / "check.json")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no errors" in out and "`openroad` on PATH" in out
    assert json.loads((tmp_path / "check.json").read_text())["errors"] == []
