"""fhe_hw.report: sections, paper data with citations, cache, writers, CLI."""

import json
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from fhe_hw.bench.timing import Timing
from fhe_hw.cli import main
from fhe_hw.flow import synth
from fhe_hw.flow.rows import Row, shown
from fhe_hw.ntt.configs import STREAMING_TABLE, streaming_params
from fhe_hw.poly import RNSPolyExtendPlan
from fhe_hw.poly.configs import POLY_TABLE, PRODUCT_TABLE, towers_of
from fhe_hw.report import committed, core, sections, writers
from fhe_hw.report.core import Part, Section, Table, Unavailable
from fhe_hw.rns.configs import REPORT_ROWS as RNS_ROWS
from fhe_hw.tables import ntt_streaming, pages, paper
from fhe_hw.tables.poly import timing as poly_timing
from fhe_hw.units import get_unit

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
if not PAPERS.exists():
    PAPERS = Path("/work/shared/papers")

#: The 8-tower DCRTPoly forward NTT's label in the report.
EIGHT = "DCRTPoly forward NTT N=4096, 8 towers of 30-bit primes ≡ 1 mod 2^17"


def _run(tmp_path, secs, **kw):
    return core.build_report(sections=secs, synth=False, baselines=False, out=tmp_path,
                             plots=False, **kw)


def test_unavailable_section_is_reported_not_raised(tmp_path):
    def missing(ctx):
        raise Unavailable("fhe_hw.nothing is not built yet")
    (r,) = _run(tmp_path, [Section("000", "missing", "Missing", missing)])
    assert r.status == "unavailable" and r.tables == []
    assert "*Not available yet:* fhe_hw.nothing" in (tmp_path / "report.md").read_text()


def test_import_error_counts_as_unavailable(tmp_path):
    def missing(ctx):
        import fhe_hw.no_such_module  # noqa: F401
    (r,) = _run(tmp_path, [Section("000", "missing", "Missing", missing)])
    assert r.status == "unavailable"


def test_failing_section_does_not_stop_the_others(tmp_path):
    def broken(ctx):
        raise ZeroDivisionError("boom")

    def fine(ctx):
        return Part([Table("T", "measured here", ["a"], [[1]])])
    a, b = _run(tmp_path, [Section("001", "b", "Broken", broken),
                           Section("002", "f", "Fine", fine)])
    assert (a.status, b.status) == ("error", "ok")
    assert "ZeroDivisionError: boom" in (tmp_path / "report.md").read_text()


def test_paper_filter_keeps_the_paper_and_software(tmp_path):
    secs = [Section(p, p, p, lambda ctx: Part()) for p in ("001", "003", "sw")]
    assert [r.paper for r in _run(tmp_path, secs, papers="003")] == ["003", "sw"]


def test_rns_iterations_section_matches_table_4_6(tmp_path):
    (sec,) = [s for s in core.SECTIONS if s.key == "rns_iterations"]
    (r,) = _run(tmp_path, [sec])
    assert r.status == "ok", r.message
    rows = {(row[0], row[1]): row for row in r.tables[0].rows}
    assert rows[("2^16, 32, 17", "SK folded")][2:5] == [661504, 661504, 661504]
    assert len(rows) == 15


def test_report_json_is_readable(tmp_path):
    (sec,) = [s for s in core.SECTIONS if s.key == "karatsuba"]
    _run(tmp_path, [sec])
    data = json.loads((tmp_path / "report.json").read_text())
    (s,) = data["sections"]
    assert s["status"] == "ok" and s["tables"][0]["columns"][0] == "r"


def _paper_text(paper_id):
    """The text of paper ``paper_id`` (000–004) in the shared papers folder, or None."""
    found = sorted(PAPERS.glob(f"{paper_id}_*.txt")) if PAPERS.exists() else []
    return found[0].read_text() if found else None


def test_every_paper_table_cites_a_paper_by_its_key():
    tables = [v for v in vars(paper).values() if isinstance(v, paper.PaperTable)]
    assert len(tables) >= 11
    for t in tables:
        assert t.source == f"{paper.PAPERS[t.paper]} {t.table}"
        if PAPERS.exists():
            assert _paper_text(t.paper) is not None, t.paper


@pytest.mark.parametrize("paper_id, text", [("003", "661504"), ("003", "2614.89"),
                                            ("004", "583.2"), ("002", "0.125 ms"),
                                            ("001", "166.450"), ("000", "15.735"),
                                            ("000", "304.990"), ("000", "1122826")])
def test_paper_values_appear_in_the_paper_text(paper_id, text):
    assert PAPERS.exists(), "the shared papers folder is beside the checkout"
    assert text in _paper_text(paper_id)


def test_every_section_has_a_registered_paper():
    assert {s.paper for s in core.SECTIONS} == {"000", "001", "002", "003", "004", "sw"}


def test_ratio_and_fmt():
    assert core.ratio(3, 2) == 1.5 and core.ratio(None, 2) is None and core.ratio(1, 0) is None
    assert writers.fmt(None) == "—" and writers.fmt(1234567.0) == "1.235e+06"


def test_slower_finding_says_so():
    assert "slower" in sections._slower("x", 2.0)
    assert "faster" in sections._slower("x", 0.5)


def test_plot_written_as_png(tmp_path):
    pytest.importorskip("matplotlib")
    r = core.SectionResult("003", "k", "t", "ok", plots=[core.Plot(
        "p", "t", "x", "y", {"a": [(1, 2), (2, 3)]})])
    assert writers.write_plots([r], tmp_path) == {"p": "p.png"}
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_report_without_synthesis(tmp_path):
    assert main(["report", "--paper", "004", "--no-synth", "--no-baselines", "--no-plots",
                 "--out", str(tmp_path)]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "[Mig16] Tables II–III" in text
    # Provenance: the checkout's commit as `git rev-parse` gives it, and the tool versions.
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=Path(core.__file__).parents[2]).stdout.strip()
    assert f"Run at commit `{head}" in text and "Yosys 0." in text
    meta = json.loads((tmp_path / "report.json").read_text())["meta"]
    assert meta["commit"].startswith(head) and meta["tools"].startswith("Yosys")


def _no_synthesis(row):
    return None, 0.0


def test_prefetch_synthesizes_a_row_shared_by_two_sections_once(monkeypatch, capsys):
    monkeypatch.setattr(core, "load_cached", lambda *row: None)
    monkeypatch.setattr(core, "_synth_worker", _no_synthesis)
    row = ("mod-mul", {"modulus": "fermat32"}, "ecp5")
    core.Context(jobs=1).prefetch([row, ("mod-mul", {"modulus": "fermat32"}, "ecp5")])
    out = capsys.readouterr().out
    assert "synthesizing 1 configuration(s)" in out
    assert out.count("mod-mul {'modulus': 'fermat32'}: done") == 1


def test_a_synthesis_worker_prints_its_tools_stages(monkeypatch, capsys):
    def cached_synth(unit, params, flow, progress):
        progress(f"{unit}: nextpnr, 10 s, log build/synth/x/nextpnr.log")
    monkeypatch.setattr(core, "cached_synth", cached_synth)
    err, seconds = core._synth_worker(("mod-mul", {"modulus": "fermat32"}, "ecp5"))
    assert err is None and seconds >= 0
    assert capsys.readouterr().out == "  mod-mul: nextpnr, 10 s, log build/synth/x/nextpnr.log\n"


def _openfhe_rows():
    """OpenFHE baseline rows as fhe_hw.bench.openfhe returns them (times made up for the
    arithmetic; the real run is tests/test_openfhe.py)."""
    rows = [Timing(name=f"OpenFHE ntt {t}", library="OpenFHE", median_s=40e-6 * (3 - t),
                   params={"op": "ntt", "n": 4096, "bits": 60, "threads": t}) for t in (1, 2)]
    rows.append(Timing(name="OpenFHE exact", library="OpenFHE", median_s=1.2e-3,
                       params={"op": "exact", "n": 16384, "bits": 60, "threads": 1, "l": 7,
                               "k": 7}))
    rows.append(Timing(name="OpenFHE exact 2", error="wrong result, not timed: x",
                       params={"op": "exact", "n": 16384, "bits": 60, "threads": 2, "l": 7,
                               "k": 7}))
    return rows


def _committed(results):
    """A stand-in for fhe_hw.report.committed.lookup: ``results(unit, params)`` is a
    SimpleNamespace of result fields or None; every request is recorded in ``.asked``."""
    asked = []

    def lookup(unit, params, flow="ecp5", options=None):
        asked.append((unit, params, flow))
        r = results(unit, params)
        if r is None:
            return None, "the committed block `t` in p has no such row"
        return SimpleNamespace(**vars(r), table="t", page="p",
                               provenance="Generated by `fhe-hw table t` at commit `abc`."), None
    lookup.asked = asked
    return lookup


def _cpu_section(monkeypatch, tmp_path, baselines, fmax, findings=False):
    """The CPU vs hardware section's table with ``baselines`` and committed synthesis results
    of Fmax ``fmax[unit]`` for exactly the configurations it asks for (every request
    recorded), and with ``findings`` its findings too."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(core, "run_baselines", lambda full=False: baselines)

    def result(unit, params):
        if unit not in fmax:
            return None
        return SimpleNamespace(fmax_mhz=fmax[unit](params) if callable(fmax[unit])
                               else fmax[unit])
    lookup = _committed(result)
    monkeypatch.setattr(core.committed, "lookup", lookup)
    (sec,) = [s for s in core.SECTIONS if s.key == "cpu_vs_hardware"]
    r = core.run_section(sec, core.Context(synth=False, baselines=True))
    assert r.status == "ok", r.message
    (t,) = r.tables
    rows = {row[0]: dict(zip(t.columns, row)) for row in t.rows}
    return (rows, lookup.asked, r.findings) if findings else (rows, lookup.asked)


def test_cpu_vs_hardware_divides_each_configurations_cycles_by_its_own_fmax(monkeypatch,
                                                                            tmp_path):
    rows, asked = _cpu_section(monkeypatch, tmp_path, _openfhe_rows(),
                               {"ntt": 100.0, "shenoy-kumaresan": 50.0})
    ntt = rows["forward NTT n=4096"]
    # all at 100 MHz: the documented table's solinas64 streaming engine at n = 4096 with the
    # fewest cycles, P = 8 (the 30-bit engine with P = 16 is not beside a 60-bit prime)
    assert max(row.params["butterflies"] for row in STREAMING_TABLE) == 16
    cycles = get_unit("ntt").cycles(streaming_params(4096, 8, karatsuba=True))
    assert ntt["our configuration"].startswith("ntt n=4096, butterflies=8")
    assert ntt["cycles()"] == cycles and ntt["hardware µs"] == pytest.approx(cycles / 100)
    assert ntt["OpenFHE 1 thread µs"] == pytest.approx(80.0)
    assert ntt["OpenFHE 2 threads / hardware"] == pytest.approx(40.0 / (cycles / 100))
    sk = rows["exact base conversion N=2^14, 7 → 7"]
    assert sk["our configuration"].endswith("lanes=8, architecture=folded")
    assert sk["hardware µs"] == 129024 / 50.0 and sk["OpenFHE 2 threads µs"].startswith("wrong")
    assert sk["OpenFHE 2 threads / hardware"] is None
    # Each row asked for the result of its own configuration, nothing borrowed; the NTT's
    # candidates (n = 4096) were asked for besides, to pick the fastest.
    shown_rows = sorted(v["our configuration"] for v in rows.values() if v["cycles()"])
    candidates = [row for row in STREAMING_TABLE
                  if row.params["n"] == 4096 and row.params["modulus"] == "solinas64"]
    assert len(candidates) == 4
    asked_rows = [f"{unit} {shown(params, () if unit.startswith('rns-poly') else ('prime_n',))}"
                  for unit, params, _ in asked]
    assert len(set(asked_rows)) == len(asked_rows)      # each configuration asked once
    assert set(asked_rows) == set(shown_rows) | {f"ntt {shown(row.params)}" for row in candidates}
    # without a configuration: the two products, and for each DCRTPoly set its two products
    # but the b-evaluated one of a set with PRODUCT_TABLE rows (its exact conversion has the
    # extension's cycles)
    sets = {tuple(towers_of(row.params).items()) for row in POLY_TABLE}
    product_sets = {tuple(towers_of(row.params).items()) for row in PRODUCT_TABLE}
    assert len(shown_rows) == len(rows) - 2 - 2 * len(sets) + len(product_sets)
    label = ("DCRTPoly negacyclic product (b in evaluation form) N=4096, 8 towers of 30-bit "
             "primes ≡ 1 mod 2^17")
    product = PRODUCT_TABLE[0].params
    assert towers_of(product) == {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536}
    assert rows[label]["our configuration"].startswith("rns-poly-product")
    assert rows[label]["cycles()"] == get_unit("rns-poly-product").cycles(product)
    assert rows[label + " (one of a stream back to back)"]["cycles()"] == \
        poly_timing(PRODUCT_TABLE[0])[1]
    # every product row of those towers, the one with two butterflies per engine named so
    two = PRODUCT_TABLE[1]
    assert rows[label + " (2 butterflies per engine)"]["cycles()"] == \
        get_unit("rns-poly-product").cycles(two.params)
    assert rows[label + " (2 butterflies per engine, one of a stream back to back)"][
        "cycles()"] == poly_timing(two)[1]


def test_cpu_vs_hardware_puts_the_polynomial_ntt_beside_openfhes_dcrtpoly(monkeypatch,
                                                                          tmp_path):
    """A DCRTPoly forward NTT row per POLY_TABLE set, one polynomial and one of a stream,
    each cycles() ÷ the configuration's own Fmax against OpenFHE's time on the same towers."""
    baselines = _openfhe_rows() + [
        Timing(name="OpenFHE dcrt", library="OpenFHE", median_s=500e-6,
               params={"op": "dcrt-ntt", "n": 4096, "bits": 30, "threads": 1, "l": 8,
                       "prime_n": 65536})]
    rows, _ = _cpu_section(monkeypatch, tmp_path, baselines,
                           {"ntt": 100.0, "shenoy-kumaresan": 50.0, "rns-poly-ntt": 125.0})
    row = POLY_TABLE[0]
    unit = get_unit("rns-poly-ntt")
    one, period = unit.cycles(row.params), poly_timing(row)[1]
    first = rows[EIGHT + " (2 butterflies per engine)"]
    stream = rows[EIGHT + " (2 butterflies per engine, one of a "
                  "stream back to back)"]
    assert (first["cycles()"], stream["cycles()"]) == (one, period) and period < one
    assert first["hardware µs"] == pytest.approx(one / 125.0)
    assert stream["OpenFHE 1 thread / hardware"] == pytest.approx(500.0 / (period / 125.0))
    # the same towers side by side: a row of their own beside the same OpenFHE time
    side, four = [r for r in POLY_TABLE if r.params.get("parallel_towers") and
                  r.params["limbs"] == 8]
    beside = rows[EIGHT + " (towers side by side, 2 butterflies "
                  "per engine)"]
    assert "parallel_towers=True" in beside["our configuration"]
    assert beside["cycles()"] == unit.cycles(side.params) < one
    assert beside["OpenFHE 1 thread / hardware"] == pytest.approx(
        500.0 / (unit.cycles(side.params) / 125.0))
    assert rows[EIGHT + " (towers side by side, 2 butterflies "
                "per engine, one of a stream back to back)"]["cycles()"] == poly_timing(side)[1]
    # and with four butterflies per engine: a row of its own, in its own cycles
    assert rows[EIGHT + " (towers side by side, 4 butterflies "
                "per engine)"]["cycles()"] == unit.cycles(four.params) < unit.cycles(side.params)
    assert rows[EIGHT.replace("forward NTT", "negacyclic product")]["our configuration"].startswith(
        "none routed")
    # beside SwitchCRTBasis: the extension of the same towers, its cycles, no routed time
    (exact,) = [v for k, v in rows.items() if k.startswith("DCRTPoly exact") and
                k.endswith("N=4096, 8 towers of 30-bit primes ≡ 1 mod 2^17")]
    assert exact["our configuration"].startswith("rns-poly-extend n=4096, limbs=8, ")
    plan = RNSPolyExtendPlan(4096, limbs=8, target_limbs=8, prime_n=65536, lanes=4)
    assert exact["cycles()"] == plan.cycles() and exact["hardware µs"] is None


def test_cpu_vs_hardware_puts_the_fastest_measured_ntt_beside_openfhe(monkeypatch, tmp_path):
    """Not the engine with the most butterflies: the one with the least cycles() ÷ its own
    Fmax. P = 8 at 50 MHz takes longer than P = 4 at 100 MHz, so P = 4 is shown."""
    def fmax(params):
        return 50.0 if params["butterflies"] == 8 else 100.0

    rows, _ = _cpu_section(monkeypatch, tmp_path, _openfhe_rows(),
                           {"ntt": fmax, "shenoy-kumaresan": 50.0})
    p4, p8 = (get_unit("ntt").cycles(params) for params in
              (streaming_params(4096, 4), streaming_params(4096, 8, karatsuba=True)))
    assert p4 / 100 < p8 / 50
    ntt = rows["forward NTT n=4096"]
    assert ntt["our configuration"] == "ntt n=4096, butterflies=4, modulus=solinas64, tiled=True"
    assert ntt["hardware µs"] == pytest.approx(p4 / 100)
    # the other sizes take the same engine (no Fmax there: not a row of the tables)
    assert rows["forward NTT n=65536"]["our configuration"].startswith("ntt n=65536, "
                                                                       "butterflies=4,")


def test_cpu_vs_hardware_findings_compare_with_openfhes_fastest_thread_count(monkeypatch,
                                                                           tmp_path):
    """A slower multi-threaded median (oversubscribed OpenMP) must not flatter the hardware:
    each finding names OpenFHE's fastest thread count and divides by its time."""
    rows = _openfhe_rows()[:3]      # without the failed two-thread conversion
    rows.append(Timing(name="OpenFHE exact threads", library="OpenFHE", median_s=8e-3,
                       params={"op": "exact", "n": 16384, "bits": 60, "threads": 2, "l": 7,
                               "k": 7}))
    table, _, found = _cpu_section(monkeypatch, tmp_path, rows,
                                   {"ntt": 50.0, "shenoy-kumaresan": 50.0}, findings=True)
    sk = table["exact base conversion N=2^14, 7 → 7"]
    assert sk["OpenFHE 2 threads / hardware"] == pytest.approx(8000.0 / sk["hardware µs"])
    (line,) = [f for f in found if f.startswith("exact base conversion N=2^14")]
    # 1200 µs on one thread against 129024 cycles at 50 MHz (2580.48 µs): 2.15x faster
    assert "fastest here (1 thread)" in line and "2.15x faster" in line
    ntt_cycles = table["forward NTT n=4096"]["cycles()"]
    (line,) = [f for f in found if f.startswith("forward NTT n=4096")]
    # 40 µs on two threads, 80 on one, against more than 40 µs of hardware at 50 MHz
    assert ntt_cycles / 50 > 40.0
    assert f"fastest here (2 threads) is {(ntt_cycles / 50) / 40.0:.3g}x faster" in line


def test_kir25_openfhe_table_shows_openfhe_measured_here(monkeypatch, tmp_path):
    monkeypatch.setattr(core, "run_baselines", lambda full=False: _openfhe_rows())
    (sec,) = [s for s in core.SECTIONS if s.key == "rns_openfhe"]
    (r,) = core.build_report(sections=[sec], synth=False, baselines=True, out=tmp_path,
                             plots=False)
    t = r.tables[0]
    rows = {(row[0], row[1]): dict(zip(t.columns, row)) for row in t.rows}
    here = rows[("2^14", 7)]
    assert here["OpenFHE exact here µs"] == pytest.approx(1200.0)
    assert here["ours / OpenFHE here"] == pytest.approx(here["ours µs at 5 ns"] / 1200.0)
    assert rows[("2^14", 6)]["OpenFHE exact here µs"] is None


def test_cpu_vs_hardware_without_a_result_gives_no_time_and_says_why(monkeypatch, tmp_path):
    rows, _ = _cpu_section(monkeypatch, tmp_path, _openfhe_rows(), {})
    ntt = rows["forward NTT n=4096"]
    assert ntt["Fmax MHz (ECP5-85F)"] == "none: the committed block `t` in p has no such row"
    assert ntt["hardware µs"] is None and ntt["OpenFHE 1 thread / hardware"] is None


def test_cpu_vs_hardware_is_unavailable_without_openfhe(monkeypatch, tmp_path):
    monkeypatch.setattr(core, "run_baselines", lambda full=False: [Timing(
        name="OpenFHE", error="the openfhe wheel is not installed: install the bench extra")])
    (sec,) = [s for s in core.SECTIONS if s.key == "cpu_vs_hardware"]
    (r,) = core.build_report(sections=[sec], synth=False, baselines=True, out=tmp_path,
                             plots=False)
    assert r.status == "unavailable" and "openfhe wheel is not installed" in r.message


def test_device_limit_divides_by_156_dsp_and_each_configurations_own_fmax(monkeypatch):
    """Limit = ⌊156 / DSP⌋ × the ModMul's Fmax; an engine's rate = products × its own Fmax ÷
    its cycles()."""
    fmax = {("mod-mul", "solinas64"): 100.0}

    def synth(unit, params, flow="ecp5", options=None):
        if unit == "mod-mul":
            f = fmax.get((unit, params["modulus"]))
            return SimpleNamespace(dsp=16, fmax_mhz=f) if f else None
        if unit == "ntt" and params["butterflies"] == 4:
            return SimpleNamespace(fmax_mhz=70.0)
        return None

    ctx = SimpleNamespace(full=False, synth=synth)
    (table,) = sections.device_limit(ctx).tables
    by_config = {row[1]: row for row in table.rows}
    p4 = by_config["ntt n=4096, butterflies=4, tiled=True (one operation)"]
    cycles = get_unit("ntt").cycles(streaming_params(4096, 4))
    limit = 156 // 16 * 100.0 / 1e3                              # 9 ModMuls at 100 MHz
    rate = 24576 * 70.0 / cycles / 1e3                           # the engine's own Fmax
    assert p4[3:] == [16, 100.0, limit, 70.0, cycles, 24576, rate, rate / limit]
    p1 = by_config["ntt n=4096, butterflies=1, tiled=True (one operation)"]
    assert p1[6] is None and p1[-2:] == [None, None]           # no synthesis, no rate
    sk = next(row for row in table.rows if row[0] == "shenoy-kumaresan")
    assert sk[3:6] == [None, None, None]                       # its ModMul not measured


def test_device_limit_of_the_rns_polynomial_ntt_per_polynomial_and_back_to_back():
    """The polynomial NTT's rows: L·n/2·log2 n products over one polynomial's cycles() and
    over the cycles per polynomial of a stream (cycles(3) − cycles(2)), against its own
    ModMul's limit."""
    row = POLY_TABLE[0]

    def synth(unit, params, flow="ecp5", options=None):
        if unit == "mod-mul":
            own = {"modulus": str(get_unit(row.unit).make_plan(row.params).towers[0]),
                   "tiled": True}
            return SimpleNamespace(dsp=6, fmax_mhz=200.0) if params == own else None
        return SimpleNamespace(fmax_mhz=100.0) if params == row.params else None

    (table,) = sections.device_limit(SimpleNamespace(full=False, synth=synth)).tables
    rows = [r for r in table.rows if r[0] == "rns-poly-ntt" and r[6] is not None]
    unit = get_unit("rns-poly-ntt")
    one = unit.cycles(row.params)
    period = unit.cycles(row.params, polys=3) - unit.cycles(row.params, polys=2)
    products = 8 * 4096 // 2 * 12
    limit = 156 // 6 * 200.0 / 1e3
    assert [r[7:9] for r in rows] == [[one, products], [period, products]]
    assert rows[1][-1] == pytest.approx(products * 100.0 / period / 1e3 / limit)
    assert rows[0][1].endswith("(one polynomial)") and rows[1][1].endswith("(back to back)")


def test_device_limit_of_a_karatsuba_engine_is_its_own_karatsuba_modmuls(monkeypatch):
    # the documented table's 64-bit P = 8 row has Karatsuba multipliers
    assert Row("ntt", streaming_params(4096, 8, karatsuba=True),
               "ecp5-splitnets-static") in STREAMING_TABLE
    asked = []

    def synth(unit, params, flow="ecp5", options=None):
        asked.append((unit, params))
        if unit == "mod-mul":
            dsp = 12 if params.get("karatsuba") else 16
            return SimpleNamespace(dsp=dsp, fmax_mhz=200.0)
        return None

    ctx = SimpleNamespace(full=False, synth=synth)
    (table,) = sections.device_limit(ctx).tables
    (p8,) = [row for row in table.rows if "butterflies=8" in row[1] and "karatsuba" in row[1]]
    assert p8[2] == "modulus=solinas64, tiled=True, karatsuba=True"
    assert p8[3:6] == [12, 200.0, 156 // 12 * 200.0 / 1e3]    # 13 ModMuls, not 9
    assert ("mod-mul", {"modulus": "solinas64", "tiled": True, "karatsuba": True}) in asked


# --- the plan: what a run synthesizes, and what it reads from the committed blocks ----------

def _all_rows():
    return [row for s in core.SECTIONS if s.synth_rows for row in s.synth_rows()]


def _synth_row(row):
    return (row.unit, row.params, row.target, row.options)


P8 = _synth_row(Row("ntt", streaming_params(4096, 8, karatsuba=True), "ecp5-splitnets-static"))


def test_the_default_plan_synthesizes_nothing_the_committed_blocks_hold():
    """The repository's own results pages: every row the sections read, the engines (the
    64-bit P = 8 NTT, the Shenoy–Kumaresan rows) and their ModMuls (the engine-modmuls
    block), is read, none synthesized."""
    run, read = core.plan(_all_rows())
    assert run == []
    assert all(committed.lookup(*row)[0] is not None for row in read)
    assert P8 in read and _synth_row(RNS_ROWS[0]) in read
    engines = {row[0] for row in read} - core.QUICK_UNITS
    assert engines >= {"ntt", "shenoy-kumaresan", "fast-base-conversion", "karatsuba"}


def test_full_plans_every_row_for_synthesis():
    rows = _all_rows()
    run, read = core.plan(rows, full=True)
    assert read == [] and P8 in run
    assert len(run) == len({core._row_key(*r) for r in rows})


def _three_seconds(row):
    return None, 3.0


def test_the_report_says_up_front_what_it_synthesizes_and_where_each_result_came_from(
        monkeypatch, tmp_path, capsys):
    """No tool runs (the synthesis is stubbed); the engines' results come from the repository's
    committed blocks, so the device limit's engine columns have numbers."""
    monkeypatch.setattr(core, "load_cached", lambda *row: None)
    monkeypatch.setattr(core, "_synth_worker", _three_seconds)
    lookup = committed.lookup      # as if no block held the ModMuls: those are synthesized
    monkeypatch.setattr(committed, "lookup", lambda unit, *rest: (
        (None, "not in a block here") if unit == "mod-mul" else lookup(unit, *rest)))
    synthesized = []

    def cached_synth(unit, params, flow="ecp5", options=None):
        synthesized.append((unit, params, flow, options))
        return SimpleNamespace(dsp=16, fmax_mhz=200.0, build_dir="build/synth/x")
    monkeypatch.setattr(core, "cached_synth", cached_synth)
    (sec,) = [s for s in core.SECTIONS if s.key == "device_limit"]
    (r,) = core.build_report(sections=[sec], synth=True, baselines=False, out=tmp_path,
                             plots=False, jobs=1)
    assert r.status == "ok", r.message
    out = capsys.readouterr().out
    run, read = core.plan(sec.synth_rows())
    assert run and {row[0] for row in run} == {"mod-mul"}
    announced = out.index(f"will synthesize (or take from the synthesis cache) {len(run)} "
                          "configuration(s):")
    assert announced < out.index("synthesizing") < out.index("fhe-hw report: sw")
    assert f"reads {len(read)} configuration(s) from the results pages' committed" in out
    assert "  ntt n=4096, butterflies=8, modulus=solinas64, karatsuba=True, tiled=True " \
           "(ecp5-splitnets-static)" in out
    # the sections took the synthesized results of exactly the planned rows, nothing else
    assert set(map(core._row_key, *zip(*synthesized))) == {core._row_key(*row) for row in run}
    (table,) = r.tables
    assert all(row[6] is not None and row[-1] is not None for row in table.rows)  # engines
    text = (tmp_path / "report.md").read_text()
    assert "## Where the synthesis results come from" in text
    assert "synthesized in this run (3 s)" in text
    assert "| committed block `ntt-streaming` in docs/results/ntt.md | Generated by `fhe-hw " \
           "table ntt-streaming" in text
    sources = json.loads((tmp_path / "report.json").read_text())["meta"]["synth_sources"]
    assert len(sources) == len(run) + len(read)


def _page(root, name, page, block):
    path = root / "docs" / "results" / page
    path.parent.mkdir(parents=True, exist_ok=True)
    begin, end = pages.markers(name)
    path.write_text(f"# A page\n\n{begin}\n{block}{end}\n")


def test_a_committed_block_yields_its_rows_with_the_blocks_provenance(tmp_path):
    row, other = STREAMING_TABLE[0], STREAMING_TABLE[1]
    made_up = SimpleNamespace(lut=1234, ff=2345, dsp=16, bram=12, fmax_mhz=111.25)
    line = pages.provenance("fhe-hw table ntt-streaming --reuse", commit="abc1234",
                            tools="Yosys 0.70, nextpnr-0.11.1", date="2026-01-01")
    _page(tmp_path, "ntt-streaming", "ntt.md",
          ntt_streaming.markdown([row], [made_up]) + "\n" + line + "\n")
    r, why = committed.lookup(*_synth_row(row), root=tmp_path)
    assert why is None
    assert (r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz) == (1234, 2345, 16, 12, 111.25)
    assert r.table == "ntt-streaming" and r.page == "docs/results/ntt.md"
    assert r.provenance == line and "at commit `abc1234`" in r.provenance
    assert committed.lookup(*_synth_row(other), root=tmp_path) == (
        None, "the committed block `ntt-streaming` in docs/results/ntt.md has no such row")
    assert committed.lookup(*_synth_row(RNS_ROWS[0]), root=tmp_path) == (
        None, "no committed block `rns` in docs/results/rns.md")
    assert committed.lookup("mod-add", {"modulus": "general32"}, root=tmp_path)[0] is None


def test_every_row_of_the_committed_tables_parses_with_its_provenance():
    """The repository's pages as committed: each documented row is found, with LUTs and the
    provenance line of its own table (Karatsuba-2 and -3 do not fit: no Fmax)."""
    for name, (_, rows, _) in committed.BLOCKS.items():
        for row in rows:
            r, why = committed.lookup(*_synth_row(row))
            assert why is None, (name, row)
            assert r.lut > 0 and r.provenance.startswith(f"Generated by `fhe-hw table {name}")
            assert (r.fmax_mhz is None) == (name == "karatsuba" and
                                            row.params["recursions"] > 1)


def test_a_row_with_its_own_flow_options_is_that_row_and_is_synthesized_with_them(monkeypatch):
    """A table row placed with its own placer: the committed block's row is found only with
    those options, and a planned run synthesizes (and keys) it with them."""
    row = next(r for r in POLY_TABLE if r.options)
    assert committed.lookup(*_synth_row(row))[1] is None
    assert committed.lookup(row.unit, row.params, row.target) == (
        None, "not a row of a committed results table (docs/results)")
    synthesized = []

    def cached_synth(unit, params, flow="ecp5", options=None):
        synthesized.append(options)
        return SimpleNamespace(fmax_mhz=100.0, build_dir="build/synth/x")
    monkeypatch.setattr(core, "cached_synth", cached_synth)
    ctx = core.Context(planned=[_synth_row(row)])
    assert ctx.synth(*_synth_row(row)).fmax_mhz == 100.0 and synthesized == [row.options]
    assert ctx.why(*_synth_row(row)) == "synthesis cache (build/synth/x)"
    assert ctx.why(row.unit, row.params, row.target) is None
    assert core._shown_row(*_synth_row(row)).endswith(
        f"({row.target}, {shown(row.options)})")
    # a row's options that are not its flow's (how a failed route is recorded) key no cache
    assert synth.flow_variation({"placer": "static", "pnr_errors": "record"}) == {
        "placer": "static"}


def test_a_karatsuba_row_that_does_not_fit_has_no_fmax():
    (table,) = committed.parse_tables("| r | Fmax ECP5 (MHz) |\n| --- | --- |\n"
                                      "| 2 | — (does not fit: 200 of 156 MULT18X18D) |\n")
    assert table == [{"r": "2", "Fmax ECP5 (MHz)": "— (does not fit: 200 of 156 MULT18X18D)"}]
    assert committed._value(table[0], "fmax_mhz") is None


def test_a_planned_row_read_by_many_engines_is_keyed_once(monkeypatch):
    """The device limit reads one ModMul per engine; taking a result from the synthesis cache
    converts the design to Verilog for its key, so the context asks once per row."""
    calls = []

    def cached_synth(unit, params, flow="ecp5", options=None):
        calls.append(unit)
        return SimpleNamespace(dsp=6, fmax_mhz=200.0, build_dir="build/synth/x")
    monkeypatch.setattr(core, "cached_synth", cached_synth)
    row = ("mod-mul", {"modulus": 4293918721}, "ecp5")
    ctx = core.Context(planned=[row])
    assert all(ctx.synth(*row).fmax_mhz == 200.0 for _ in range(5)) and calls == ["mod-mul"]
    assert ctx.why(*row) == "synthesis cache (build/synth/x)"


def test_a_failed_synthesis_is_listed_as_failed_not_replaced_by_a_committed_block(monkeypatch):
    def cached_synth(unit, params, flow="ecp5", options=None):
        raise RuntimeError("nextpnr failed (exit 1)\nmore")
    monkeypatch.setattr(core, "cached_synth", cached_synth)
    row = ("mod-mul", {"modulus": "fermat32"}, "ecp5")      # a row the reducer block holds
    ctx = core.Context(planned=[row])
    assert ctx.synth(*row) is None and ctx.synth(*row) is None
    assert ctx.why(*row) == "synthesis failed: nextpnr failed (exit 1)"
    assert ctx.synth_errors == {core._row_key(*row): "nextpnr failed (exit 1)"}
