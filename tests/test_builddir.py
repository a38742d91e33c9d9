"""Build directories and synthesis cache keys (fhe_hw.builddir, fhe_hw.flow.synth's cache)."""

import argparse
import json

import pytest

from fhe_hw import builddir
from fhe_hw.flow import synth
from fhe_hw.units import add_unit_options, get_unit, unit_params

TOOLS = {"yosys": "Yosys 1", "nextpnr": "nextpnr 1"}


DESIGN = "0123456789abcdef"


def _key(design=DESIGN, **variation):
    return synth.flow_key("mod-add", {"modulus": "general32"}, "ecp5", tools=TOOLS,
                          design=design, **variation)[0]


def test_key_differs_in_device_frequency_package_and_flow_options():
    base = _key()
    others = [_key(device="25k"), _key(freq_mhz=100), _key(package="CSFBGA285"),
              _key(router="router2"), _key(placer="static"), _key(splitnets="map"),
              _key(pnr=False)]
    digests = {builddir.digest(k) for k in [base, *others]}
    assert len(digests) == len(others) + 1
    assert len({builddir.synth_dir(k) for k in [base, *others]}) == len(others) + 1


def test_key_differs_in_tools_and_params():
    base = _key()
    other_tools = synth.flow_key("mod-add", {"modulus": "general32"}, "ecp5", design=DESIGN,
                                 tools=dict(TOOLS, yosys="Yosys 2"))[0]
    other_params = synth.flow_key("mod-add", {"modulus": "fermat32"}, "ecp5", tools=TOOLS,
                                  design=DESIGN)[0]
    assert builddir.synth_dir(base) not in (builddir.synth_dir(other_tools),
                                            builddir.synth_dir(other_params))


def test_a_row_and_the_command_line_run_of_it_share_a_key():
    """A table row names only what it sets; ``fhe-hw synth`` records every option of the unit
    (its default where not given). Both are the same configuration and the same entry."""
    unit = get_unit("ntt")
    parser = argparse.ArgumentParser()
    add_unit_options(parser, unit)
    given = ["--n", "4096", "--butterflies", "16", "--modulus", "1073479681", "--tiled", "true"]
    command_line = unit_params(unit, parser.parse_args(given))
    row = {"n": 4096, "butterflies": 16, "modulus": "1073479681", "tiled": True}
    assert command_line != row
    keys = [synth.flow_key("ntt", params, "ecp5-splitnets", tools=TOOLS, design=DESIGN)[0]
            for params in (row, command_line, {**row, "read_stages": 3})]
    assert keys[0] == keys[1] == keys[2]
    other = synth.flow_key("ntt", {**row, "read_stages": 4}, "ecp5-splitnets", tools=TOOLS,
                           design=DESIGN)[0]
    assert builddir.synth_dir(other) != builddir.synth_dir(keys[0])


def test_key_params_of_other_components_are_as_given():
    assert synth.key_params("not-a-unit", {"width": 8, "x": None}) == {"width": 8, "x": None}
    with pytest.raises(ValueError, match="no parameter 'width'"):
        synth.key_params("ntt", {"width": 8})


def _store(key, folder, lut):
    folder.mkdir(parents=True)
    data = dict(unit=key["unit"], params=key["params"], target=key["target"],
                device=key["device"], package=key["package"], latency=1, lut=lut, ff=2, dsp=0,
                bram=0, fmax_mhz=100.0, freq_target_mhz=key["freq_mhz"], io_ff=0, io_lut=0,
                cells={}, pnr_utilization={}, tools=key["tools"], runtime_s={},
                build_dir=str(folder), key=key)
    (folder / "synth.json").write_text(json.dumps(data))


def test_cached_result_is_never_served_for_another_device_or_frequency(tmp_path):
    key = _key()
    _store(key, tmp_path / "a", lut=7)
    assert synth.load_cached(key, tmp_path / "a").lut == 7
    # the same directory asked for with another device or frequency: a miss
    assert synth.load_cached(_key(device="25k"), tmp_path / "a") is None
    assert synth.load_cached(_key(freq_mhz=100), tmp_path / "a") is None


def test_cached_result_is_never_served_for_another_design(tmp_path):
    _store(_key(), tmp_path / "a", lut=7)
    assert synth.load_cached(_key(design="fedcba9876543210"), tmp_path / "a") is None
    assert builddir.synth_dir(_key()) != builddir.synth_dir(_key(design="fedcba9876543210"))


def test_an_edited_generator_misses_the_cache(monkeypatch, tmp_path):
    """The key holds a hash of the Verilog the unit generates now: a result stored for the
    same unit and parameters is not served once the generator builds something else."""
    monkeypatch.chdir(tmp_path)
    params = {"modulus": "general32"}
    tgt = synth.resolve_target("ecp5")[1]
    unit = get_unit("mod-add")
    verilog, _ = synth.ooc_verilog(unit.build(**params), "mod-add", params, tgt)
    key = synth.flow_key("mod-add", params, "ecp5", design=synth.design_digest(verilog))[0]
    _store(key, builddir.synth_dir(key), lut=7)
    assert synth.cached_unit("mod-add", params).lut == 7
    # the same unit name and parameters, but the generator now builds another circuit
    monkeypatch.setattr(type(unit), "build",
                        lambda self, **kw: get_unit("mod-add").factory(modulus="fermat32"))
    assert synth.cached_unit("mod-add", params) is None


def test_result_without_key_is_a_miss(tmp_path):
    key = _key()
    _store(key, tmp_path / "a", lut=7)
    data = json.loads((tmp_path / "a" / "synth.json").read_text())
    del data["key"]
    (tmp_path / "a" / "synth.json").write_text(json.dumps(data))
    assert synth.load_cached(key, tmp_path / "a") is None


def test_targets_are_read_only():
    with pytest.raises(TypeError):
        synth.TARGETS["ecp5"] = synth.TARGETS["ice40"]
    with pytest.raises(AttributeError):
        synth.TARGETS["ecp5"].synth = "synth_ecp5 -noabc9"


def test_variation_does_not_change_the_named_target():
    name, tgt = synth.resolve_target("ecp5", router="router2", freq_mhz=90)
    assert (name, tgt.router, tgt.freq_mhz) == ("ecp5", "router2", 90.0)
    assert synth.TARGETS["ecp5"].router == "" and synth.TARGETS["ecp5"].freq_mhz == 200.0


def test_unknown_target_and_splitnets_mode():
    with pytest.raises(ValueError, match="target"):
        synth.resolve_target("vivado")
    with pytest.raises(ValueError, match="splitnets"):
        synth.resolve_target("ecp5", splitnets="always")[1].yosys_script("top")


def test_splitnets_before_lut_mapping_script():
    script = synth.TARGETS["ecp5-splitnets-map"].yosys_script("top")
    assert ("synth_ecp5 -top top -run :map_luts\nsplitnets\n"
            "synth_ecp5 -top top -run map_luts: -json netlist.json\n") in script


@pytest.mark.parametrize("name, expected", [
    ("sk-tp", "build/explore/sk-tp"), ("../../x", "build/explore/x"),
    ("a/../../b", "build/explore/a-..-..-b".replace("..", ".")), ("/etc", "build/explore/etc")])
def test_explore_dir_stays_inside_build(name, expected):
    path = builddir.explore_dir(name)
    assert str(path) == expected
    assert path.parent == builddir.ROOT / "explore"


def test_floorplan_dir_is_one_folder_per_device_package_and_tools_inside_build():
    tools = {"yosys": "Yosys 0.70", "nextpnr": "nextpnr-0.11.1"}
    path = builddir.floorplan_dir("85k", "CABGA381", tools)
    assert path.parent == builddir.ROOT / "floorplan"
    assert path.name == f"85k-CABGA381-{builddir.digest(tools)}"
    assert builddir.floorplan_dir("../85k", "CABGA381", tools).parent == path.parent
    assert builddir.floorplan_dir("85k", "CABGA381", {**tools, "nextpnr": "other"}) != path


def test_empty_name_is_refused():
    with pytest.raises(ValueError):
        builddir.safe_name("../")


@pytest.mark.parametrize("out", [None, "results"])
def test_explore_output_stays_inside_its_folder_for_a_climbing_name(tmp_path, monkeypatch, out):
    from fhe_hw.flow import explore as E

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    space = {"name": "../../x", "unit": "shenoy-kumaresan",
             "fixed": {"prime_bits": 32, "n": 64, "source_limbs": 3, "target_limbs": 2,
                       "architecture": "folded"},
             "vary": {"lanes": [1]}, "synth": False}
    summary = E.explore(space, jobs=1, **({} if out is None else {"out": out}))
    root = work / ("build/explore" if out is None else out)
    assert summary["dir"] == str((root / "x").relative_to(work))
    assert (root / "x" / "pareto.md").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]
