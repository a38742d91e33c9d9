"""The DSP floorplan of the FPGA flow (fhe_hw.flow.floorplan)."""

import json
import re
import subprocess

import pytest
from amaranth import Module, Signal
from amaranth.lib.wiring import In, Out

from fhe_hw.arith.dsp import tile_product
from fhe_hw.cli import main
from fhe_hw.component import Component
from fhe_hw.flow.floorplan import apply_floorplan, assign_sites, dsp_sites, tower_groups
from fhe_hw.flow.synth import TARGETS, resolve_target, synthesize, tool_versions
from fhe_hw.tools import YOSYS, tool_path

#: Three rows of DSP sites as nextpnr names the LFE5U-85F's: 26 columns of two in each.
ROWS = (10, 34, 58)
SITES = [f"X{x}/Y{y}/MULT18_{k}" for y in ROWS for x in range(4, 56, 2) for k in (0, 1)]


def _site_xy(site):
    return tuple(map(int, re.match(r"X(\d+)/Y(\d+)/", site).groups()))


def test_tower_groups_take_each_towers_dsps_in_natural_order():
    cells = {name: {"type": kind} for name, kind in (
        ("unit.tower10.bf0.mul.U$1.dsp", "MULT18X18D"), ("unit.tower2.bf10.dsp", "MULT18X18D"),
        ("unit.tower2.bf2.dsp", "MULT18X18D"), ("unit.tower2.ff", "TRELLIS_FF"),
        ("unit.pointwise.dsp", "MULT18X18D"), ("unit.towers.dsp", "MULT18X18D"))}
    assert tower_groups(cells) == [["unit.tower2.bf2.dsp", "unit.tower2.bf10.dsp"],
                                   ["unit.tower10.bf0.mul.U$1.dsp"]]


def test_eight_towers_of_sixteen_take_blocks_of_their_own_three_three_and_two_a_row():
    groups = [[f"unit.tower{j}.bf{b}.dsp" for b in range(16)] for j in range(8)]
    placement = assign_sites(groups, SITES)
    assert len(placement) == 128 and len(set(placement.values())) == 128
    rows = []
    for cells in groups:
        xy = [_site_xy(placement[c]) for c in cells]
        assert len({y for _, y in xy}) == 1                     # one row
        row = sorted((s for s in SITES if _site_xy(s)[1] == xy[0][1]),
                     key=lambda s: (_site_xy(s), s))
        index = [row.index(placement[c]) for c in cells]
        assert index == list(range(index[0], index[0] + 16))    # consecutive, in order
        rows.append(xy[0][1])
    assert rows == [10, 10, 10, 34, 34, 34, 58, 58]
    # a row of two towers spreads them: each in the middle of its half
    assert [_site_xy(placement[groups[j][0]])[0] for j in (6, 7)] == [8, 34]


def test_a_tower_larger_than_its_span_is_refused():
    groups = [[f"tower{j}.d{k}" for k in range(30)] for j in range(6)]
    with pytest.raises(ValueError, match="a tower of 30 MULT18X18D does not fit a span of 26"):
        assign_sites(groups, SITES)


def test_only_a_flow_with_a_floorplan_has_it_in_its_key():
    assert "floorplan" not in TARGETS["ecp5-splitnets"].options()
    _, tgt = resolve_target("ecp5-splitnets", floorplan="towers")
    assert tgt.options()["floorplan"] == "towers"


@pytest.mark.parametrize("target, floorplan", [("ecp5", "rows"), ("ice40", "towers")])
def test_a_floorplan_is_refused_off_an_ecp5_or_unknown(target, floorplan):
    with pytest.raises(ValueError, match="floorplan must be one of towers on an ECP5 target"):
        resolve_target(target, floorplan=floorplan)


def test_synth_command_refuses_an_unknown_floorplan(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["synth", "mod-add", "--floorplan", "rows"])
    assert exit_.value.code == 2
    assert "--floorplan: invalid choice: 'rows'" in capsys.readouterr().err


def test_synth_command_refuses_a_floorplan_off_an_ecp5_before_yosys(capsys):
    assert main(["synth", "mod-add", "--target", "ice40", "--floorplan", "towers"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--floorplan must be one of towers on an ECP5" in err
    assert "yosys" not in err


class _TwoTowers(Component):
    """Two towers of two registered DSP products each."""

    def __init__(self):
        super().__init__({"a": In(17), "b": In(17), "p": Out(4 * 34)})

    def elaborate(self, platform):
        m = Module()
        outputs = []
        for j in range(2):
            tower = Module()
            for k in range(2):
                tile = tile_product(tower, self.a + k, self.b, operand_reg=True)
                out = Signal(34)
                tower.d.comb += out.eq(tile.p)
                outputs.append(out)
            m.submodules[f"tower{j}"] = tower
        m.d.comb += self.p.eq(sum(o << (34 * i) for i, o in enumerate(outputs)))
        return m


def test_nextpnr_places_each_towers_dsps_where_the_floorplan_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # the probe's directory is relative: build/floorplan
    said = []
    result = synthesize(_TwoTowers(), "two-towers", "ecp5", floorplan="towers",
                        build_dir=tmp_path / "synth", progress=said.append)
    assert result.dsp == 4 and result.pnr == "ok"
    assert f"floorplan towers: 4 MULT18X18D placed, sites in {tmp_path}/synth/floorplan.txt" \
        in said
    build = tmp_path / "synth"
    placement = dict(line.split() for line in (build / "floorplan.txt").read_text().splitlines())
    assert sorted(cell.split(".")[1] for cell in placement) == ["tower0"] * 2 + ["tower1"] * 2
    # place the same netlist again, writing where nextpnr put each cell
    tgt = resolve_target("ecp5", floorplan="towers")[1]
    subprocess.run([tool_path(tgt.nextpnr), "--85k", "--package", "CABGA381", "--json",
                    "floorplan.json", "--write", "placed.json", "--out-of-context", "-q"],
                   cwd=build, check=True)
    (module,) = json.loads((build / "placed.json").read_text())["modules"].values()
    placed = {name: c["attributes"]["NEXTPNR_BEL"] for name, c in module["cells"].items()
              if c["type"] == "MULT18X18D"}
    assert placed == placement
    # the towers: two blocks of the first two rows of the device's DSP sites
    sites = dsp_sites(tool_path(YOSYS), tool_path(tgt.nextpnr), "85k", "CABGA381",
                      tool_versions(tgt))
    assert len(sites) == 156 and {_site_xy(s)[1] for s in sites} == set(ROWS)
    rows = {j: {_site_xy(site)[1] for cell, site in placement.items() if f"tower{j}." in cell}
            for j in range(2)}
    assert rows == {0: {10}, 1: {34}}


def test_apply_floorplan_needs_a_dsp_in_a_tower(tmp_path):
    netlist = tmp_path / "netlist.json"
    netlist.write_text(json.dumps({"modules": {"top": {
        "attributes": {"top": "00000000000000000000000000000001"},
        "cells": {"mul.dsp": {"type": "MULT18X18D", "attributes": {}}}}}}))
    with pytest.raises(RuntimeError, match="no MULT18X18D of a tower"):
        apply_floorplan("towers", netlist, tmp_path / "out.json", SITES)
