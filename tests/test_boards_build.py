"""Bitstream builds of a small unit behind the host link (fhe_hw.flow.build, fhe_hw.boards): the
CI-sized board builds (YoWASP; tens of seconds each once the tools' WebAssembly is
cached)."""

import dataclasses
import fcntl
import json
import os
from pathlib import Path

import pytest

from fhe_hw.boards import BOARDS, DEFAULT_BOARD, get_board
from fhe_hw.boards.himbaechel import himbaechel_argv
from fhe_hw.cli import main
from fhe_hw.flow.build import build_board, markdown, overused_resources

PARAMS = {"modulus": "general32"}


@pytest.fixture(scope="module")
def ulx3s(tmp_path_factory):
    """Built once per test session even when pytest-xdist runs these tests in several
    workers: the directory is shared and locked, a second worker gets the cached build."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        shared = tmp_path_factory.mktemp("ulx3s")
    else:
        shared = tmp_path_factory.getbasetemp().parent / f"ulx3s-mod-add-{run}"
        shared.mkdir(exist_ok=True)
    with open(shared / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = build_board("ulx3s", "mod-add", PARAMS, depth=16, build_dir=shared)
    return dataclasses.replace(result, cached=False)


@pytest.fixture(scope="module")
def icebreaker(tmp_path_factory):
    """Built through the command line, as a user would."""
    out = tmp_path_factory.mktemp("icebreaker")
    assert main(["build", "mod-add", "--modulus", "general32", "--board", "icebreaker",
                 "--depth", "16", "--build-dir", str(out), "--json", str(out / "r.json")]) == 0
    return json.loads((out / "r.json").read_text())


def test_ulx3s_is_the_default_board():
    assert DEFAULT_BOARD == "ulx3s" and list(BOARDS) == ["ulx3s", "icebreaker", "tang-nano-9k"]


def test_ulx3s_build_writes_a_bitstream_and_meets_the_25_mhz_board_clock(ulx3s):
    bit = Path(ulx3s.bitstream)
    assert bit.suffix == ".bit" and bit.stat().st_size == ulx3s.bitstream_bytes > 100_000
    assert ulx3s.clock_mhz == 25.0 and ulx3s.target_met and ulx3s.fmax_mhz >= 25.0


def test_ulx3s_report_counts_the_link_and_the_unit(ulx3s):
    assert ulx3s.lut > 32 and ulx3s.ff > 64
    assert ulx3s.bram >= 1               # the frame buffer
    assert ulx3s.utilization["TRELLIS_IO"]["used"] >= 3   # clk, rx, tx (+ LEDs)
    assert ulx3s.utilization["TRELLIS_COMB"]["available"] == 83640   # LFE5U-85F


def test_ulx3s_build_json_and_markdown_hold_the_result(ulx3s):
    saved = json.loads(Path(ulx3s.build_dir, "build.json").read_text())
    assert saved == json.loads(json.dumps(ulx3s.to_dict()))
    table = Path(ulx3s.build_dir, "build.md").read_text()
    assert table.strip() == markdown([ulx3s]).strip()
    assert "| ulx3s | mod-add | modulus=general32 |" in table


@pytest.mark.slow
def test_icebreaker_build_from_the_command_line_writes_a_bin_bitstream(icebreaker):
    """The iCE40 build (nextpnr-ice40, icepack) in the slow suite, as the Gowin one below; the
    fast suite builds the default board, the ULX3S."""
    assert icebreaker["board"] == "icebreaker" and icebreaker["bitstream"].endswith(".bin")
    assert Path(icebreaker["bitstream"]).stat().st_size == icebreaker["bitstream_bytes"] > 100_000
    assert icebreaker["clock_mhz"] == 12.0 and icebreaker["target_met"]
    assert icebreaker["utilization"]["ICESTORM_LC"]["available"] == 5280   # UP5K


@pytest.mark.slow
def test_tang_nano_9k_builds_through_nextpnr_himbaechel_and_gowin_pack(tmp_path):
    result = build_board("tang-nano-9k", "mod-add", PARAMS, depth=16, build_dir=tmp_path)
    assert result.bitstream.endswith(".fs") and result.bitstream_bytes > 100_000
    assert result.clock_mhz == 27.0 and result.target_met


def test_gowin_wrapper_rewrites_nextpnr_gowin_flags_for_himbaechel():
    argv = ["--device", "GW1NR-LV9QN88PC6/I5", "--family", "GW1N-9C", "--json", "a.json",
            "--cst", "top.cst", "--write", "b.json"]
    assert himbaechel_argv(argv) == ["--device", "GW1NR-LV9QN88PC6/I5", "--vopt",
                                     "family=GW1N-9C", "--json", "a.json", "--vopt",
                                     "cst=top.cst", "--write", "b.json"]


def test_unknown_board_raises_value_error():
    with pytest.raises(ValueError, match="board must be one of ulx3s, icebreaker, "
                                         "tang-nano-9k, not 'de10'"):
        get_board("de10")


def test_bad_unit_parameter_raises_before_any_tool_runs(tmp_path):
    with pytest.raises(ValueError):
        build_board("ulx3s", "mod-add", {"modulus": "nonsense"}, build_dir=tmp_path)
    assert not list(tmp_path.iterdir())


def test_an_identical_build_is_reused_from_its_build_directory(ulx3s):
    again = build_board("ulx3s", "mod-add", PARAMS, depth=16, build_dir=ulx3s.build_dir)
    assert again.cached and not ulx3s.cached
    assert (again.lut, again.fmax_mhz, again.digest) == (ulx3s.lut, ulx3s.fmax_mhz, ulx3s.digest)


@pytest.mark.parametrize("board,loader,suffix", [("ulx3s", "ulx3s", ".bit"),
                                                 ("icebreaker", "icebreaker", ".bin"),
                                                 ("tang-nano-9k", "tangnano9k", ".fs")])
def test_program_dry_run_prints_the_openfpgaloader_command(capsys, board, loader, suffix):
    assert main(["build", "mod-add", "--modulus", "general32", "--board", board, "--program",
                 "--dry-run"]) == 0
    built, command = capsys.readouterr().out.splitlines()
    bitstream = built.split()[2]
    assert bitstream.startswith(f"build/boards/{board}-mod-add-") and bitstream.endswith(suffix)
    assert command == f"openFPGALoader --board {loader} {bitstream}"


def test_a_design_that_does_not_fit_is_told_by_resource():
    log = ("Info: Device utilisation:\n"
           "Info: \t         ICESTORM_LC:  1200/ 5280    22%\n"
           "Info: \t            SB_MAC16:    28/    8   350%\n"
           "Info: \t         ICESTORM_RAM:    31/   30   103%\n"
           "ERROR: Unable to place cell 'mul'\n")
    assert overused_resources(log) == ("28 SB_MAC16, the device has 8; "
                                       "31 ICESTORM_RAM, the device has 30")
    assert overused_resources("Info: \t SB_MAC16: 2/ 8 25%\n") == ""
