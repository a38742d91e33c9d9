"""fhe_hw.flow.explore: spaces, caching, resume after interruption, local pool and Dask cluster."""

import json
import re

import pytest

from fhe_hw.cli import main
from fhe_hw.flow import explore as E

SPACE = {"name": "sk", "unit": "shenoy-kumaresan",
         "fixed": {"bits": 32, "n": 64, "l": 3, "k": 2},
         "vary": {"tp": [1, 2, 4, 8], "architecture": ["folded", "pipelined"]},
         "synth": False, "objective": "area"}


def test_points_cross_product():
    pts = E.points(E.load_space(SPACE))
    assert len(pts) == 8 and {p["tp"] for p in pts} == {1, 2, 4, 8}
    assert all(p["n"] == 64 for p in pts)


def test_load_space_rejects_missing_unit():
    with pytest.raises(ValueError, match="unit"):
        E.load_space({"name": "x", "vary": {}})


def test_load_space_rejects_empty_vary_list():
    with pytest.raises(ValueError, match="vary.tp"):
        E.load_space(dict(SPACE, vary={"tp": []}))


def test_load_space_rejects_bad_objective():
    with pytest.raises(ValueError, match="objective"):
        E.load_space(dict(SPACE, objective="speed"))


def test_load_space_rejects_unknown_key():
    with pytest.raises(ValueError, match="unknown"):
        E.load_space(dict(SPACE, colour="red"))


def test_local_pool_runs_all_points(tmp_path):
    s = E.explore(SPACE, jobs=2, out=tmp_path)
    assert len(s["evaluated"]) == 8 and s["cached"] == 0
    assert all(r["ok"] for r in s["records"]), [r.get("error") for r in s["records"]]
    assert (tmp_path / "sk" / "pareto.md").exists()
    front = {(r["params"]["tp"], r["params"]["architecture"]) for r in s["pareto"]}
    assert front and front <= {(p["tp"], p["architecture"]) for p in E.points(E.load_space(
        SPACE))}


def test_cycles_are_the_units_cycles(tmp_path):
    from fhe_hw.units import get_unit

    s = E.explore(dict(SPACE, vary={"tp": [2]}), jobs=1, out=tmp_path)
    (r,) = s["records"]
    assert r["cycles"] == get_unit("shenoy-kumaresan").build(**r["params"]).cycles()


def test_integer_fft_mul_cycles_come_from_the_contract(tmp_path):
    space = {"name": "fft", "unit": "integer-fft-mul", "fixed": {"k": 8, "b": 12},
             "vary": {"max_bits": [960, 1920]}, "synth": False, "objective": "area"}
    s = E.explore(space, jobs=1, out=tmp_path)
    assert all(r["ok"] for r in s["records"]), [r.get("error") for r in s["records"]]
    from fhe_hw.units import get_unit
    assert [r["cycles"] for r in s["records"]] == \
        [get_unit("integer-fft-mul").cycles(r["params"]) for r in s["records"]]


def test_cli_explore_exits_non_zero_when_a_point_fails(tmp_path, capsys):
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    path.write_text(json.dumps(dict(SPACE, vary={"tp": [2, 128]})))  # tp > n is refused
    assert main(["explore", str(path), "--no-synth", "--jobs", "1", "--out",
                 str(tmp_path / "out")]) == 1
    out, err = capsys.readouterr()
    assert "tp must be at most n" in out
    # each point reports as it finishes, with the elapsed time
    assert re.search(r"^\[ +\d+ s\] explore: \{.*'tp': 2.*\}: ok$", err, re.M)
    assert re.search(r"^\[ +\d+ s\] explore: \{.*'tp': 128.*\}: error: .*tp must", err, re.M)


def test_resume_after_limit_evaluates_only_the_rest(tmp_path):
    first = E.explore(SPACE, jobs=1, out=tmp_path, limit=3)
    assert len(first["evaluated"]) == 3
    second = E.explore(SPACE, jobs=2, out=tmp_path)
    assert len(second["evaluated"]) == 5 and second["cached"] == 3
    assert {r["key"] for r in first["evaluated"]}.isdisjoint(
        r["key"] for r in second["evaluated"])


def test_resume_after_interrupt(tmp_path):
    seen = []

    def interrupt(record):
        seen.append(record["key"])
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        E.explore(SPACE, jobs=2, out=tmp_path, on_result=interrupt)
    again = E.explore(SPACE, jobs=2, out=tmp_path)
    assert len(again["evaluated"]) == 4 and again["cached"] == 4
    assert set(seen).isdisjoint(r["key"] for r in again["evaluated"])


def test_an_edited_generator_evaluates_stored_points_again(tmp_path, monkeypatch):
    """A point is keyed by the Verilog and cycles() the generator gives now, not only by its
    parameters: after an edit that changes the design, nothing stored is served."""
    space = dict(SPACE, vary={"tp": [1, 2]})
    assert E.explore(space, jobs=1, out=tmp_path)["cached"] == 0
    assert E.explore(space, jobs=1, out=tmp_path)["cached"] == 2
    from fhe_hw.units import get_unit
    unit = get_unit("shenoy-kumaresan")
    build = type(unit).build
    # the "edited" generator builds the unit with one more base prime
    monkeypatch.setattr(type(unit), "build",
                        lambda self, **kw: build(self, **dict(kw, l=kw.get("l", 0) + 1)))
    again = E.explore(space, jobs=1, out=tmp_path)
    assert again["cached"] == 0 and len(again["evaluated"]) == 2


def test_bad_point_is_recorded_not_fatal(tmp_path):
    s = E.explore(dict(SPACE, vary={"tp": [3, 4]}), jobs=1, out=tmp_path)
    bad = [r for r in s["records"] if not r["ok"]]
    assert len(bad) == 1 and "tp" in bad[0]["error"]


def test_pareto_front_drops_dominated():
    recs = [{"ok": True, "key": k, "cycles": c, "area": a}
            for k, c, a in (("a", 10, 5), ("b", 5, 10), ("c", 10, 10), ("d", 20, 1))]
    assert [r["key"] for r in E.pareto_front(recs)] == ["b", "a", "d"]


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        s = E.explore(SPACE, cluster=cluster.scheduler_address, out=tmp_path)
    assert len(s["evaluated"]) == 8 and all(r["ok"] for r in s["records"])


def test_cli_explore_yaml(tmp_path, capsys):
    pytest.importorskip("yaml")
    path = tmp_path / "space.yaml"
    path.write_text(json.dumps(dict(SPACE, vary={"tp": [1, 2]})))  # JSON is YAML
    assert main(["explore", str(path), "--no-synth", "--jobs", "1", "--out",
                 str(tmp_path / "out")]) == 0
    assert "| tp | cycles |" in capsys.readouterr().out
