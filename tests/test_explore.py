"""fhe_hw.flow.explore: spaces, caching, resume after interruption, local pool and Dask cluster."""

import json
import re

import pytest

from fhe_hw.cli import main
from fhe_hw.flow import explore as E
from fhe_hw.sim.vectors import small_params
from fhe_hw.units import units

#: Four points of the smallest Shenoy-Kumaresan units (one or two lanes: the elaboration that
#: keys each point is short).
SPACE = {"name": "sk", "unit": "shenoy-kumaresan",
         "fixed": {"prime_bits": 32, "n": 8, "source_limbs": 2, "target_limbs": 2},
         "vary": {"lanes": [1, 2], "architecture": ["folded", "pipelined"]},
         "synth": False, "objective": "area"}


#: Four points of the modular adder, which elaborates in milliseconds: the space of the tests of
#: explore's own machinery (pool, cluster, resume, keys, progress).
ADDERS = {"name": "add", "unit": "mod-add", "fixed": {},
          "vary": {"modulus": ["solinas64", "general32"], "pipelined": [True, False]},
          "synth": False, "objective": "area"}

#: Four points of the carry resolver (milliseconds each), one of which its plan refuses: 12-bit
#: samples are narrower than 16-bit digits, though each value alone is accepted.
ONE_BAD = {"name": "carry", "unit": "carry-resolver", "fixed": {"lanes": 2},
           "vary": {"digit_bits": [8, 16], "coeff_bits": [12, 16]},
           "synth": False, "objective": "area"}


def test_points_cross_product():
    pts = E.points(E.load_space(SPACE))
    assert len(pts) == 4 and {p["lanes"] for p in pts} == {1, 2}
    assert all(p["n"] == 8 for p in pts)


def test_load_space_rejects_missing_unit():
    with pytest.raises(ValueError, match="unit"):
        E.load_space({"name": "x", "vary": {}})


def test_load_space_rejects_empty_vary_list():
    with pytest.raises(ValueError, match="vary.lanes"):
        E.load_space(dict(SPACE, vary={"lanes": []}))


def test_load_space_rejects_bad_objective():
    with pytest.raises(ValueError, match="objective"):
        E.load_space(dict(SPACE, objective="speed"))


def test_load_space_rejects_unknown_key():
    with pytest.raises(ValueError, match="unknown"):
        E.load_space(dict(SPACE, colour="red"))


# (space text, the key the message must name, a word of the reason)
REFUSED = [
    ('synth: "no"', "synth:", "true or false"),
    ("synth: 1", "synth:", "true or false"),
    ("vary: {nosuchparam: [1, 2]}", "vary.nosuchparam:", "no parameter"),
    ("fixed: {nosuchparam: 1}", "fixed.nosuchparam:", "no parameter"),
    ("flow: vivado", "flow:", "ecp5"),
    ("objective: speed", "objective:", "atp"),
    ("colour: red", "colour:", "unknown key"),
    ("evaluator: os:system", "evaluator:", "default"),
    ("evaluator: fhe_hw.flow.explore:evaluate_point", "evaluator:", "default"),
    ("evaluator: [default]", "evaluator:", "string"),
    ("name: 7", "name:", "string"),
    ("name: ../", "name:", "file name"),
    ('vary: {n: ["64"]}', "vary.n:", "integer"),
    ("vary: {n: [64.0]}", "vary.n:", "integer"),
    ("vary: {n: [true]}", "vary.n:", "integer"),
    ("vary: {lanes: []}", "vary.lanes:", "non-empty list"),
    ("vary: {lanes: 4}", "vary.lanes:", "non-empty list"),
    ("vary: {lanes: [3, 4]}", "vary.lanes:", "power of two"),
    ("vary: {architecture: [folded, nope]}", "vary.architecture:", "folded"),
    ("vary: {architecture: [1.5]}", "vary.architecture:", "str"),
    ("vary: {n: [64, 128]}", "vary.n:", "given twice (also in fixed)"),
    ("vary: {prime-n: [128], prime_n: [256]}", "vary.prime_n:", "given twice (also in vary)"),
    ("fixed: {n: 63, prime_bits: 32, source_limbs: 3, target_limbs: 2}", "fixed.n:",
     "power of two"),
    ("fixed: [1, 2]", "fixed:", "mapping"),
    ("unit: nosuch", "unit:", "shenoy-kumaresan"),
]


@pytest.mark.parametrize("line,key,reason", REFUSED, ids=[r[0] for r in REFUSED])
def test_cli_refuses_a_bad_space_up_front(tmp_path, capsys, line, key, reason):
    """One stderr line naming the file and the key, exit 2, no traceback, nothing written."""
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    fields = {"unit": "unit: shenoy-kumaresan",
              "fixed": "fixed: {prime_bits: 32, n: 64, source_limbs: 3, target_limbs: 2}"}
    fields[line.split(":")[0]] = line
    path.write_text("\n".join(dict.fromkeys([*fields.values(), line])) + "\n")
    out = tmp_path / "out"
    assert main(["explore", str(path), "--no-synth", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{path}: {key}" in err and reason in err, err
    assert not out.exists()


@pytest.mark.parametrize("text,reason", [("", "empty file"), ("a: [\n", "not valid YAML"),
                                         ("- 1\n", "a list"), ("just text\n", "a str"),
                                         (b"\xff\xfe", "cannot read")])
def test_cli_refuses_a_space_file_that_is_no_mapping(tmp_path, capsys, text, reason):
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    assert main(["explore", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{path}: " in err and reason in err, err


def test_cli_refuses_a_missing_space_file(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["explore", str(tmp_path / "none.yaml")])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "none.yaml" in err


def test_yaml_is_read_with_safe_load_only(tmp_path, capsys):
    """A Python tag is not constructed: the file is refused as invalid YAML."""
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    path.write_text("unit: !!python/object/apply:os.system ['touch pwned']\n")
    assert main(["explore", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_values_take_the_options_types():
    """YAML integers and booleans as they are; other options parsed from their text as on the
    command line; names with - or _ alike."""
    space = E.load_space({"name": "k", "unit": "kawamura",
                          "fixed": {"prime_bits": 32, "n": 64, "source_limbs": 3,
                                    "target_limbs": 2, "delta": "1/8",
                                    "deep": False, "mult-stages": None}})
    from fractions import Fraction
    assert space["fixed"] == {"prime_bits": 32, "n": 64, "source_limbs": 3, "target_limbs": 2,
                              "delta": Fraction(1, 8),
                              "deep": False, "mult_stages": None}
    with pytest.raises(ValueError, match=r"^space: fixed.deep: must be true or false, not 'no'"):
        E.load_space({"name": "k", "unit": "kawamura", "fixed": {"deep": "no"}})


def test_an_evaluator_path_is_refused_without_importing_it(tmp_path, capsys, monkeypatch):
    """``evaluator: module:function`` names no registered evaluator: refused before anything
    is imported (a module that would record its import stays unimported)."""
    pytest.importorskip("yaml")
    marker = tmp_path / "imported"
    (tmp_path / "fhe_hw_canary.py").write_text(
        f"open({str(marker)!r}, 'w').close()\ndef run(*a, **k):\n    return {{}}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    real = importlib.import_module

    def guarded(name, *args, **kw):
        assert name.split(".")[0] not in ("os", "fhe_hw_canary"), name
        return real(name, *args, **kw)
    monkeypatch.setattr(importlib, "import_module", guarded)
    for name in ("fhe_hw_canary:run", "os:system", "fhe_hw_canary"):
        path = tmp_path / "space.yaml"
        path.write_text(f"unit: shenoy-kumaresan\n"
                        f"fixed: {{prime_bits: 32, n: 64, source_limbs: 3, target_limbs: 2}}\n"
                        f"evaluator: {name}\n")
        assert main(["explore", str(path), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert f"{path}: evaluator: must be one of default" in err and len(err.splitlines()) == 1
    assert not marker.exists() and "fhe_hw_canary" not in __import__("sys").modules


def test_a_plugin_evaluator_is_loaded_by_its_entry_point_name_only(tmp_path, monkeypatch):
    """An installed distribution's entry point in fhe_hw.explore_evaluators is an evaluator
    name; only the one a space names is loaded."""
    dist = tmp_path / "fhe_hw_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fhe-hw-plugin\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[fhe_hw.explore_evaluators]\nplug = fhe_hw_plugin_eval:run\n"
        "other = fhe_hw_plugin_other:run\n")
    (tmp_path / "fhe_hw_plugin_eval.py").write_text(
        "def run(point):\n    return {'cycles': 7, 'area': point.multiplier_tiles}\n")
    marker = tmp_path / "other-imported"
    (tmp_path / "fhe_hw_plugin_other.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nrun = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert {"plug", "other"} <= set(E.evaluator_names())
    s = E.explore(dict(SPACE, vary={"lanes": [1]}, evaluator="plug"), jobs=1, out=tmp_path / "o")
    assert [(r["ok"], r["cycles"]) for r in s["records"]] == [(True, 7)]
    assert not marker.exists()


def test_local_pool_runs_all_points(tmp_path):
    s = E.explore(ADDERS, jobs=2, out=tmp_path)
    assert len(s["evaluated"]) == 4 and s["cached"] == 0
    assert all(r["ok"] for r in s["records"]), [r.get("error") for r in s["records"]]
    assert (tmp_path / "add" / "pareto.md").exists()
    front = {(r["params"]["modulus"], r["params"]["pipelined"]) for r in s["pareto"]}
    assert front and front <= {(p["modulus"], p["pipelined"]) for p in E.points(E.load_space(
        ADDERS))}


def test_cycles_are_the_units_cycles(tmp_path):
    from fhe_hw.units import get_unit

    s = E.explore(dict(SPACE, vary={"lanes": [2]}), jobs=1, out=tmp_path)
    (r,) = s["records"]
    assert r["cycles"] == get_unit("shenoy-kumaresan").build(**r["params"]).cycles()


def test_integer_fft_mul_cycles_come_from_the_contract(tmp_path):
    space = {"name": "fft", "unit": "integer-fft-mul", "fixed": {"n": 8, "digit_bits": 12},
             "vary": {"max_bits": [960, 1920]}, "synth": False, "objective": "area"}
    s = E.explore(space, jobs=1, out=tmp_path)
    assert all(r["ok"] for r in s["records"]), [r.get("error") for r in s["records"]]
    from fhe_hw.units import get_unit
    assert [r["cycles"] for r in s["records"]] == \
        [get_unit("integer-fft-mul").cycles(r["params"]) for r in s["records"]]


def test_cli_explore_exits_non_zero_when_a_point_fails(tmp_path, capsys):
    """A combination the unit refuses (samples narrower than the wider digits) is that point's
    error."""
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    path.write_text(json.dumps(ONE_BAD))
    assert main(["explore", str(path), "--no-synth", "--jobs", "1", "--out",
                 str(tmp_path / "out")]) == 1
    out, err = capsys.readouterr()
    assert "coeff_bits must be at least 16, not 12" in out
    # each point reports as it finishes, with the elapsed time
    assert re.search(r"^\[ +\d+ s\] explore: digit_bits=16, coeff_bits=16: ok in [\d.]+ s$",
                     err, re.M), err
    assert re.search(r"^\[ +\d+ s\] explore: digit_bits=16, coeff_bits=12: error: "
                     r".*coeff_bits must", err, re.M), err


def test_resume_after_limit_evaluates_only_the_rest(tmp_path):
    first = E.explore(ADDERS, jobs=1, out=tmp_path, limit=3)
    assert len(first["evaluated"]) == 3
    second = E.explore(ADDERS, jobs=2, out=tmp_path)
    assert len(second["evaluated"]) == 1 and second["cached"] == 3
    assert {r["key"] for r in first["evaluated"]}.isdisjoint(
        r["key"] for r in second["evaluated"])


def test_resume_after_interrupt(tmp_path):
    seen = []

    def interrupt(record):
        seen.append(record["key"])
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        E.explore(ADDERS, jobs=2, out=tmp_path, on_result=interrupt)
    again = E.explore(ADDERS, jobs=2, out=tmp_path)
    assert len(again["evaluated"]) == 2 and again["cached"] == 2
    assert set(seen).isdisjoint(r["key"] for r in again["evaluated"])


def test_an_edited_generator_evaluates_stored_points_again(tmp_path, monkeypatch):
    """A point is keyed by the Verilog and cycles() the generator gives now, not only by its
    parameters: after an edit that changes the design, nothing stored is served."""
    space = dict(ADDERS, vary={"pipelined": [True, False]})
    assert E.explore(space, jobs=1, out=tmp_path)["cached"] == 0
    assert E.explore(space, jobs=1, out=tmp_path)["cached"] == 2
    from fhe_hw.units import get_unit
    unit = get_unit("mod-add")
    build = type(unit).build
    # the "edited" generator builds the adder for another modulus
    monkeypatch.setattr(type(unit), "build", lambda self, **kw: build(
        self, **dict(kw, modulus="fermat64")))
    again = E.explore(space, jobs=1, out=tmp_path)
    assert again["cached"] == 0 and len(again["evaluated"]) == 2
    assert all(r["ok"] for r in again["records"]), [r.get("error") for r in again["records"]]


def test_bad_point_is_recorded_not_fatal(tmp_path):
    s = E.explore(ONE_BAD, jobs=1, out=tmp_path)
    bad = [r for r in s["records"] if not r["ok"]]
    assert len(bad) == 1 and bad[0]["params"] == dict(lanes=2, digit_bits=16, coeff_bits=12)
    assert "coeff_bits must be at least 16, not 12" in bad[0]["error"]


def test_pareto_front_drops_dominated():
    recs = [{"ok": True, "key": k, "cycles": c, "area": a}
            for k, c, a in (("a", 10, 5), ("b", 5, 10), ("c", 10, 10), ("d", 20, 1))]
    assert [r["key"] for r in E.pareto_front(recs)] == ["b", "a", "d"]


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        s = E.explore(ADDERS, cluster=cluster.scheduler_address, out=tmp_path)
    assert len(s["evaluated"]) == 4 and all(r["ok"] for r in s["records"])


def test_cli_explore_yaml(tmp_path, capsys):
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    path.write_text(json.dumps(dict(SPACE, vary={"lanes": [1, 2]})))  # JSON is YAML
    assert main(["explore", str(path), "--no-synth", "--jobs", "1", "--out",
                 str(tmp_path / "out")]) == 0
    assert "| lanes | cycles |" in capsys.readouterr().out


def test_each_point_is_elaborated_once_and_never_converted_to_verilog(tmp_path, monkeypatch):
    """The key is computed once per point, in the run that evaluates it: one elaboration per
    point, no Verilog (a rerun elaborates each point once to key it, and reads it back)."""
    import fhe_hw.units
    calls = []
    elaborate = E._elaborate
    monkeypatch.setattr(E, "_elaborate", lambda *a: calls.append(a[1]) or elaborate(*a))

    def no_verilog(*a, **k):
        raise AssertionError("explore --no-synth generated Verilog")
    monkeypatch.setattr(fhe_hw.units, "to_verilog", no_verilog)
    assert len(E.explore(ADDERS, jobs=1, out=tmp_path)["evaluated"]) == 4 and len(calls) == 4
    again = E.explore(ADDERS, jobs=1, out=tmp_path)
    assert again["cached"] == 4 and not again["evaluated"] and len(calls) == 8


def test_progress_lines_arrive_as_points_finish(tmp_path, monkeypatch):
    """A line per point on standard error, written (and flushed) before the next point
    finishes, with the elapsed time; cached points say so on the rerun."""
    import io
    import sys
    import time

    pytest.importorskip("yaml")
    finished = []

    class Stamped(io.StringIO):
        lines = []

        def write(self, text):
            self.lines.append((time.monotonic(), text))
            return super().write(text)

    def slow(point):
        time.sleep(0.3)
        finished.append(time.monotonic())
        return {"cycles": len(point.params["modulus"]), "area": 1}
    monkeypatch.setitem(E._EVALUATORS, "test-slow", slow)
    path = tmp_path / "space.yaml"
    path.write_text(json.dumps(dict(ADDERS, vary={"modulus": ["solinas64", "general32",
                                                              "fermat64"]},
                                    evaluator="test-slow")))
    monkeypatch.setattr(sys, "stderr", Stamped())
    assert main(["explore", str(path), "--jobs", "1", "--out", str(tmp_path / "out")]) == 0
    lines = [(t, text) for t, text in Stamped.lines if "explore: modulus=" in text]
    assert [re.fullmatch(r"\[ +\d+ s\] explore: modulus=(\w+): ok in [\d.]+ s", text).group(1)
            for _, text in lines] == ["solinas64", "general32", "fermat64"]
    assert len(finished) == 3
    for (written, _), next_finish in zip(lines, finished[1:]):
        assert written < next_finish
    Stamped.lines = []
    assert main(["explore", str(path), "--jobs", "1", "--out", str(tmp_path / "out")]) == 0
    assert sum("explore: modulus=" in text and ": cached" in text
               for _, text in Stamped.lines) == 3


def test_multiplier_tiles_count_variable_products_in_18_bit_tiles():
    from amaranth.hdl import Fragment, Module, Signal, _ir, signed

    m = Module()
    a, b, c = Signal(64), Signal(17), Signal(signed(40))
    p, q, r, k = Signal(81), Signal(128), Signal(80), Signal(80)
    s = Signal(80)
    m.d.comb += [p.eq(a * b), q.eq(a * a), r.eq(c * c), k.eq(a * 0x12345), s.eq(a * 1024)]
    netlist = _ir.build_netlist(Fragment.get(m, None), ports=[a, b, c, p, q, r, k, s])
    # 64 x 17: 4 x 1; 64 x 64: 4 x 4; signed 40 x 40: 3 x 3; 64 x the 17-bit constant: 4 x 1;
    # the power of two is a shift
    assert E.multiplier_tiles(netlist) == 4 + 16 + 9 + 4


# Parameters that elaborate in seconds for the units whose defaults take longer.
AREA_PARAMS = {"four-step-stream": {"n": 64, "lanes": 2, "inner_n": 8},
               "large-int-mul": {"max_bits": 384, "inner_n": 8, "lanes": 2},
               "transform-encrypt": {"lanes": 1, "inner_n": 2, "inner_units": 1},
               "ntt": {"n": 16}, "parallel-ntt": {"n": 8}, "shift-ntt": {"n": 8, "lanes": 2},
               "supersize-barrett": {"gamma": 200}, "karatsuba": {"recursions": 1},
               "karatsuba-relin": small_params("karatsuba-relin"),
               **{unit: {"n": 64, "source_limbs": 3, "target_limbs": 2} for unit in (
                   "kawamura", "mixed-radix", "shenoy-kumaresan", "fast-base-conversion")}}
# One unit of each family in the fast suite (seconds each); every unit in the slow suite
# (four-step-ntt exists for n = 4096 and 65536 only: minutes to elaborate).
FAST_AREA = {"mod-mul", "ntt", "kawamura", "carry-resolver", "karatsuba-relin"}


@pytest.mark.parametrize("unit", [u if u in FAST_AREA else pytest.param(u, marks=pytest.mark.slow)
                                  for u in sorted(units())])
def test_every_unit_has_an_area_without_synthesis(tmp_path, unit):
    """The --no-synth area (the multiplier tiles of the elaborated design) is a number for
    every registered unit, so the Pareto front is over time and area."""
    s = E.explore({"name": unit, "unit": unit, "fixed": AREA_PARAMS.get(unit, {})}, jobs=1,
                  out=tmp_path)
    (r,) = s["records"]
    assert r["ok"], r.get("error")
    assert isinstance(r["area"], int) and r["area"] == r["multiplier_tiles"] >= 0
    assert r["atp"] == r["area"] * r["cycles"]


def test_without_pyyaml_the_message_names_the_explore_extra(tmp_path, capsys, monkeypatch):
    import sys
    path = tmp_path / "space.yaml"
    path.write_text("unit: mod-add\n")
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ModuleNotFoundError
    assert main(["explore", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "fhe-hw[explore]" in err, err
