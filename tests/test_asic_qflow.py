"""fhe-hw harden --flow qflow: Debian's qflow (OSU 0.18 um) to GDS with DRC and LVS
(fhe_hw.asic.qflow)."""

import json
from pathlib import Path

import pytest

from fhe_hw.arith import SpecialReducer
from fhe_hw.asic.qflow import STEPS, harden_qflow
from fhe_hw.cli import main


@pytest.fixture(scope="module")
def special17(tmp_path_factory):
    return harden_qflow(SpecialReducer(17), "special-reducer", params={"modulus_bits": 17},
                        build_dir=tmp_path_factory.mktemp("special17"), timeout_s=900)


def test_special_reducer_routes_every_net(special17):
    assert special17.nets > 0 and special17.failed_routes == 0


def test_special_reducer_lvs_is_clean(special17):
    assert special17.lvs_errors == 0


def test_special_reducer_drc_is_clean(special17):
    assert special17.drc_errors == 0


def test_gds_is_written(special17):
    gds = Path(special17.gds)
    assert gds.suffix == ".gds" and gds.stat().st_size > 0


def test_picture_of_the_layout_is_beside_the_gds(special17):
    pytest.importorskip("klayout.lay")
    assert special17.png_error is None
    png = Path(special17.png)
    assert png == Path(special17.gds).with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_summary_counts_cells_die_and_post_route_fmax(special17):
    assert special17.cells == sum(special17.cell_types.values()) > 100
    assert not [cell for cell in special17.cell_types if cell.upper().startswith("FILL")]
    width, height = special17.die_um
    assert special17.die_area_um2 == pytest.approx(width * height)
    assert 10 < special17.fmax_mhz < 2000 and special17.fmax_pre_route_mhz > 0
    assert special17.clean


def test_qflow_json_holds_the_summary(special17):
    saved = json.loads(Path(special17.build_dir, "qflow.json").read_text())
    assert saved["clean"] is True and saved["lvs_errors"] == 0
    assert saved["params"] == {"modulus_bits": 17}


def test_steps_must_be_a_prefix_of_the_flow(tmp_path):
    with pytest.raises(ValueError, match="steps must be a non-empty prefix"):
        harden_qflow(SpecialReducer(17), "special-reducer", steps=("place",),
                     build_dir=tmp_path)


def test_flow_order():
    assert STEPS == ("synthesize", "place", "sta", "route", "backanno", "migrate", "drc",
                     "lvs", "gdsii")


def test_harden_command_rejects_a_pdk_other_than_osu018_for_qflow(capsys):
    assert main(["harden", "special-reducer", "--modulus-bits", "17", "--flow", "qflow",
                 "--pdk", "sky130A"]) == 2
    assert "pdk must be osu018" in capsys.readouterr().err
