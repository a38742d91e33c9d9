"""The picture of a routed layout (fhe_hw.asic.render) and `fhe-hw harden` writing it beside the
GDS, for qflow and LibreLane (the flows themselves replaced by stand-ins that leave a GDS)."""

import json
import struct
from pathlib import Path

import pytest

from fhe_hw.asic import qflow
from fhe_hw.asic.pdk import klayout_lyp
from fhe_hw.asic.render import layout_picture, render_gds
from fhe_hw.cli import main

db = pytest.importorskip("klayout.db")
lay = pytest.importorskip("klayout.lay")

RED = 0xFF0000
# A LEF macro the GDS below leaves empty, as Debian's osu018 library does for every cell.
LEF = """VERSION 5.7 ;
UNITS DATABASE MICRONS 1000 ; END UNITS
LAYER metal1 TYPE ROUTING ; DIRECTION HORIZONTAL ; END metal1
MACRO INVX1
  CLASS CORE ;
  ORIGIN 0 0 ;
  SIZE 2.4 BY 10 ;
END INVX1
END LIBRARY
"""
# One layer, drawn solid red.
LYP = """<?xml version="1.0" encoding="utf-8"?>
<layer-properties>
 <properties>
  <frame-color>#ff0000</frame-color><fill-color>#ff0000</fill-color>
  <frame-brightness>0</frame-brightness><fill-brightness>0</fill-brightness>
  <dither-pattern>I0</dither-pattern><valid>true</valid><visible>true</visible>
  <transparent>false</transparent><width>1</width><marked>false</marked>
  <animation>0</animation><name>metal</name><source>1/0@1</source>
 </properties>
</layer-properties>
"""


def tiny_gds(path, *, cells=False):
    """A 40 x 20 µm top cell with rectangles on layers 1/0 and 2/0 (and, with ``cells``, three
    instances of an empty INVX1)."""
    layout = db.Layout()
    layout.dbu = 0.001
    top = layout.create_cell("TOP")
    for layer, boxes in (((1, 0), [(0, 0, 40, 4), (0, 16, 40, 20)]),
                         ((2, 0), [(5, 0, 8, 20), (30, 0, 33, 20)])):
        index = layout.layer(*layer)
        for x0, y0, x1, y1 in boxes:
            top.shapes(index).insert(db.DBox(x0, y0, x1, y1))
    if cells:
        inv = layout.create_cell("INVX1")
        for x in (10, 14, 18):
            top.insert(db.DCellInstArray(inv.cell_index(), db.DTrans(x, 5)))
    layout.write(str(path))
    return path


def png_size(path):
    """Width and height from the PNG's own header."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def colours(path):
    image = lay.PixelBuffer.read_png(str(path))
    return {image.pixel(x, y) & 0xFFFFFF for x in range(image.width())
            for y in range(image.height())}


def test_a_tiny_gds_renders_to_a_png_of_its_aspect_ratio(tmp_path):
    png = render_gds(tiny_gds(tmp_path / "tiny.gds"), tmp_path / "tiny.png", width=200)
    assert png == tmp_path / "tiny.png"
    assert png_size(png) == (200, 100)
    # Background and the two layers' colours at least: not a blank picture.
    assert len(colours(png)) >= 3


def test_the_layer_properties_file_gives_the_colours(tmp_path):
    (tmp_path / "colours.lyp").write_text(LYP)
    gds = tiny_gds(tmp_path / "tiny.gds")
    assert RED not in colours(render_gds(gds, tmp_path / "default.png", width=100))
    assert RED in colours(render_gds(gds, tmp_path / "red.png", width=100,
                                     lyp=tmp_path / "colours.lyp"))


def test_empty_cells_are_drawn_as_their_lef_outlines(tmp_path):
    (tmp_path / "cells.lef").write_text(LEF)
    gds = tiny_gds(tmp_path / "cells.gds", cells=True)
    grey = 0x505050   # the outline layer's fill
    assert grey not in colours(render_gds(gds, tmp_path / "bare.png", width=200))
    assert grey in colours(render_gds(gds, tmp_path / "cells.png", width=200,
                                      cell_lef=tmp_path / "cells.lef"))


def test_a_layout_without_shapes_is_refused(tmp_path):
    layout = db.Layout()
    layout.create_cell("EMPTY")
    layout.write(str(tmp_path / "empty.gds"))
    with pytest.raises(RuntimeError, match="no single top cell with shapes"):
        render_gds(tmp_path / "empty.gds", tmp_path / "empty.png")
    assert not (tmp_path / "empty.png").exists()


def test_width_must_be_a_sensible_integer(tmp_path):
    with pytest.raises(ValueError, match="width must be an integer of at least 16"):
        render_gds(tmp_path / "x.gds", tmp_path / "x.png", width=4)


def test_layout_picture_writes_beside_the_gds_or_says_why_not(tmp_path):
    png, error = layout_picture(tiny_gds(tmp_path / "macro.gds"))
    assert (png, error) == (str(tmp_path / "macro.png"), None)
    bad = tmp_path / "broken.gds"
    bad.write_bytes(b"not a GDS")
    png, error = layout_picture(bad)
    assert png is None and error.startswith(f"no picture of {bad}: KLayout: ")
    assert "\n" not in error and bad.read_bytes() == b"not a GDS"


def test_pdk_layer_properties_are_found_under_pdk_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PDK_ROOT", str(tmp_path))
    assert klayout_lyp("sky130A") is None
    tech = tmp_path / "sky130A" / "libs.tech" / "klayout" / "tech"
    tech.mkdir(parents=True)
    (tech / "sky130A.lyp").write_text(LYP)
    assert klayout_lyp("sky130A") == tech / "sky130A.lyp"


def fake_qflow(monkeypatch, gds_bytes=None):
    """Replace qflow's steps and result reader: the 'run' leaves ``layout/<top>.gds`` (the tiny
    GDS, or ``gds_bytes``) and a qflow_vars.sh naming no technology."""

    def run_logged(argv, cwd, out, what, **kwargs):
        layout = Path(cwd, "layout")
        gds = layout / "fhe_hw_special_reducer.gds"
        if gds_bytes is None:
            tiny_gds(gds)
        else:
            gds.write_bytes(gds_bytes)

    def results(project, top):
        return {"cells": 3, "cell_types": {"INVX1": 3}, "die_um": (40.0, 20.0),
                "die_area_um2": 800.0, "nets": 2, "failed_routes": 0,
                "fmax_pre_route_mhz": 100.0, "fmax_mhz": 90.0, "drc_errors": 0,
                "lvs_errors": 0, "gds": str(Path(project, "layout", f"{top}.gds"))}

    monkeypatch.setattr(qflow, "require_debian_tool", lambda executable, package: executable)
    monkeypatch.setattr(qflow, "run_logged", run_logged)
    monkeypatch.setattr(qflow, "read_qflow_results", results)


def test_harden_qflow_writes_the_picture_beside_the_gds(tmp_path, monkeypatch, capsys):
    fake_qflow(monkeypatch)
    assert main(["harden", "special-reducer", "--modulus-bits", "17", "--build-dir",
                 str(tmp_path), "--json", str(tmp_path / "summary.json")]) == 0
    captured = capsys.readouterr()
    png = tmp_path / "layout" / "fhe_hw_special_reducer.png"
    assert png_size(png) == (1200, 600)
    assert f"picture         {png}" in captured.out.splitlines()
    assert f"special-reducer: picture {png}" in captured.err
    for saved in (tmp_path / "qflow.json", tmp_path / "summary.json"):
        data = json.loads(saved.read_text())
        assert data["png"] == str(png) and data["png_error"] is None


def test_a_picture_that_fails_costs_neither_the_gds_nor_the_exit_status(
        tmp_path, monkeypatch, capsys):
    fake_qflow(monkeypatch, gds_bytes=b"not a GDS")
    assert main(["harden", "special-reducer", "--modulus-bits", "17",
                 "--build-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    gds = tmp_path / "layout" / "fhe_hw_special_reducer.gds"
    assert gds.read_bytes() == b"not a GDS"
    assert not gds.with_suffix(".png").exists()
    [line] = [line for line in out.splitlines() if line.startswith("picture")]
    assert f"no picture of {gds}: KLayout:" in line
    saved = json.loads((tmp_path / "qflow.json").read_text())
    assert saved["gds"] == str(gds) and saved["png"] is None
    assert saved["png_error"].startswith("no picture of")


def test_harden_librelane_draws_the_gds_of_its_run(tmp_path, monkeypatch, capsys):
    import shutil

    from fhe_hw.asic import cli

    def run_librelane(config):
        run_dir = Path(config).parent / "runs" / "tag"
        (run_dir / "final" / "gds").mkdir(parents=True)
        tiny_gds(run_dir / "final" / "gds" / "fhe_hw_solinas_reducer.gds")
        return 0, run_dir

    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: "/x/openroad" if name == "openroad"
                        else which(name))
    monkeypatch.setattr(cli, "run_librelane", run_librelane)
    monkeypatch.setenv("PDK_ROOT", str(tmp_path / "pdk"))   # no .lyp: default colours
    assert main(["harden", "solinas-reducer", "--flow", "librelane", "--build-dir",
                 str(tmp_path / "macro"), "--json", str(tmp_path / "run.json")]) == 0
    png = tmp_path / "macro" / "runs" / "tag" / "final" / "gds" / "fhe_hw_solinas_reducer.png"
    assert len(colours(png)) >= 3
    assert f"picture         {png}" in capsys.readouterr().out.splitlines()
    saved = json.loads((tmp_path / "run.json").read_text())
    assert saved["png"] == str(png) and saved["exit_status"] == 0
