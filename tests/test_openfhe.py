"""fhe_hw.bench.openfhe: the OpenFHE baseline says what is missing, parses and checks the
benchmark's output against big integers (a wrong result gets no time), and, with the openfhe
wheel, OpenFHE's headers and g++ (all three on CI: the test extra has the wheel, the headers are
beside the checkout), compiles and runs the benchmark at N = 4096."""

import json
import subprocess
from math import prod
from pathlib import Path

import pytest
from helpers import rng_for

from fhe_hw import builddir
from fhe_hw.bench import openfhe as O
from fhe_hw.model.ntt import ntt_radix2, poly_mul_negacyclic
from fhe_hw.params import ntt_params

N = 16
SMALL = O.cases(ntt=(N,), products=(N,), bases=((N, 3),))
NTT, MUL, EXACT, FAST = SMALL


UNAVAILABLE = O.unavailable()


# --- what is missing ---------------------------------------------------------------------------

def test_no_wheel_is_one_row_naming_the_extra(monkeypatch):
    monkeypatch.setattr(O.importlib.util, "find_spec", lambda name: None)
    (row,) = O.openfhe_baselines()
    assert row["name"] == "OpenFHE" and "median_s" not in row
    assert "pip install 'fhe_hw[bench]'" in row["error"]


def test_no_headers_names_openfhe_include(monkeypatch, tmp_path):
    monkeypatch.setattr(O, "library_dir", lambda: tmp_path)
    monkeypatch.setenv("OPENFHE_INCLUDE", str(tmp_path / "nowhere"))
    (row,) = O.openfhe_baselines()
    assert f"OPENFHE_INCLUDE={tmp_path / 'nowhere'}" in row["error"]
    assert "lattice/lat-hal.h" in row["error"]


def test_default_headers_are_beside_the_checkout(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENFHE_INCLUDE", raising=False)
    monkeypatch.setattr(O, "CHECKOUT", tmp_path / "repo")
    with pytest.raises(O.OpenFHEUnavailable, match="OPENFHE_INCLUDE is not set"):
        O.include_dir()
    headers = tmp_path / "shared" / "openfhe" / "include"
    (headers / "lattice").mkdir(parents=True)
    (headers / "lattice" / "lat-hal.h").write_text("")
    assert O.include_dir() == headers.resolve()


def test_no_compiler_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(O, "library_dir", lambda: tmp_path)
    monkeypatch.setattr(O, "include_dir", lambda: tmp_path)
    monkeypatch.setattr(O.shutil, "which", lambda name: None)
    (row,) = O.openfhe_baselines()
    assert row["error"].startswith("g++ is not installed")


def test_build_is_cached_by_source_compiler_library_and_headers(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    compiled = []

    def fake_gxx(cmd, cwd, log, what, **kw):
        Path(cmd[-1]).write_text("binary")
        compiled.append(cmd)
        return 0

    monkeypatch.setattr(O, "run_logged", fake_gxx)
    first = O.build(Path("/lib/a"), Path("/inc/a"), "g++", "g++ 1")
    assert O.build(Path("/lib/a"), Path("/inc/a"), "g++", "g++ 1") == first
    assert len(compiled) == 1 and first.parent.parent == builddir.ROOT / "openfhe"
    others = {O.build(Path("/lib/b"), Path("/inc/a"), "g++", "g++ 1"),
              O.build(Path("/lib/a"), Path("/inc/b"), "g++", "g++ 1"),
              O.build(Path("/lib/a"), Path("/inc/a"), "g++", "g++ 2")}
    assert len(others) == 3 and first not in others and len(compiled) == 4
    assert json.loads((first.parent / "key.json").read_text())["include"] == "/inc/a"


def test_a_failed_compile_names_its_log(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    def failing_gxx(cmd, cwd, log, what, **kw):
        Path(cwd, log).write_text("bench.cpp:1:1: error: no such header\n")
        return 1

    monkeypatch.setattr(O, "run_logged", failing_gxx)
    with pytest.raises(O.OpenFHEUnavailable, match="no such header; log: build/openfhe/"):
        O.build(Path("/lib"), Path("/inc"), "g++", "g++ 1")
    assert not list((tmp_path / "build" / "openfhe").glob("*/openfhe_bench"))


def test_a_failed_run_is_a_row_per_thread_count(monkeypatch, tmp_path):
    exe = tmp_path / "openfhe_bench"
    monkeypatch.setattr(O, "library_dir", lambda: tmp_path)
    monkeypatch.setattr(O, "include_dir", lambda: tmp_path)
    monkeypatch.setattr(O, "compiler", lambda: ("g++", "g++ 1"))
    monkeypatch.setattr(O, "build", lambda *args: exe)
    monkeypatch.setattr(O.importlib.metadata, "version", lambda name: "1.6.1.0.22.4")
    monkeypatch.setattr(O.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(
        cmd, 134, "", "terminate called after throwing\n  what():  boom\n"))
    rows = O.openfhe_baselines(plan=SMALL, threads=(1, 2))
    assert [r["name"] for r in rows] == ["OpenFHE (1 thread)", "OpenFHE (2 threads)"]
    assert rows[1]["error"] == f"{exe} failed with 2 thread(s): what():  boom"


# --- parsing -----------------------------------------------------------------------------------

def test_parse_reads_json_lines():
    text = '{"kind": "info", "library_threads": 1}\n\n{"kind": "time", "op": "ntt", ' \
           '"n": 16, "runs": [1e-06]}\n'
    assert [r["kind"] for r in O.parse(text)] == ["info", "time"]


@pytest.mark.parametrize("line", ["not json", '["kind", "time"]', '{"kind": "other"}'])
def test_parse_names_the_bad_line(line):
    with pytest.raises(ValueError, match="line 2 of the OpenFHE benchmark's output"):
        O.parse('{"kind": "info"}\n' + line)


# --- checks against big integers ---------------------------------------------------------------

def _ntt_check(case):
    q = case.source[0]
    a = [rng_for("ntt").randrange(q) for _ in range(case.n)]
    out = ntt_radix2(a, ntt_params(q, case.n, negacyclic=True), negacyclic=True)
    return {"kind": "check", "op": "ntt", "n": case.n, "q": q, "psi": case.psi, "input": a,
            "index": list(range(case.n)), "output": out}


def _mul_check(case):
    q, rng = case.source[0], rng_for("mul")
    a, b = ([rng.randrange(q) for _ in range(case.n)] for _ in range(2))
    return {"kind": "check", "op": "mul", "n": case.n, "q": q, "psi": case.psi, "a": a, "b": b,
            "index": list(range(case.n)), "output": poly_mul_negacyclic(a, b, q)}


def _base_check(case, value):
    """A check record whose outputs are ``value(X, Q)`` mod each target prime."""
    rng, big_q = rng_for(case.op), prod(case.source)
    inputs, outputs = [], []
    for _ in range(case.n):
        big_x = rng.randrange(big_q)
        inputs.append([big_x % q for q in case.source])
        outputs.append([value(big_x, big_q) % p for p in case.target])
    return {"kind": "check", "op": case.op, "n": case.n, "l": len(case.source),
            "k": len(case.target), "source": list(case.source), "target": list(case.target),
            "index": list(range(case.n)), "input": inputs, "output": outputs}


def _centred(x, q):
    return x - q if 2 * x >= q else x


def test_cases_use_60_bit_primes_and_primitive_roots():
    for case in O.cases(ntt=(N,), products=(), bases=((N, 3),)):
        assert all(p.bit_length() == 60 and p % (2 * N) == 1 for p in case.source + case.target)
        if case.psi:
            assert pow(case.psi, N, case.source[0]) == case.source[0] - 1
    assert [len(c.target) for c in O.cases(ntt=(), products=(), bases=((N, 3),))] == [3, 3]


@pytest.mark.parametrize("case, check", [
    (NTT, _ntt_check(NTT)), (MUL, _mul_check(MUL)),
    (EXACT, _base_check(EXACT, _centred)),
    (FAST, _base_check(FAST, lambda x, q: x)),
    (FAST, _base_check(FAST, lambda x, q: x + 2 * q))])
def test_right_results_pass(case, check):
    assert O.verify(case, check, N) is None


@pytest.mark.parametrize("case, check, message", [
    (NTT, _ntt_check(NTT), "forward NTT: 1 of 16 checked outputs differ, first at index 5"),
    (MUL, _mul_check(MUL), "negacyclic product: 1 of 16 checked outputs differ"),
    (EXACT, _base_check(EXACT, _centred), "exact base conversion: index 5"),
    (FAST, _base_check(FAST, lambda x, q: x), "fast base conversion: index 5")])
def test_a_corrupted_output_is_rejected(case, check, message):
    out = check["output"]
    if isinstance(out[5], list):
        out[5][0] = (out[5][0] + 1) % case.target[0]
    else:
        out[5] = (out[5] + 1) % case.source[0]
    assert message in O.verify(case, check, N)


def test_exact_conversion_must_be_centred_and_fast_within_l_multiples():
    # X >= Q/2 left uncentred, and X + lQ: both outside what OpenFHE documents.
    assert "expected the centred representative" in O.verify(
        EXACT, _base_check(EXACT, lambda x, q: x if 2 * x >= q else x + q), N)
    assert "for one α in [0, 3)" in O.verify(FAST, _base_check(FAST, lambda x, q: x + 3 * q), N)


def test_a_check_of_other_moduli_or_too_few_points_is_rejected():
    check = _ntt_check(NTT)
    assert "q = 7" in O.verify(NTT, dict(check, q=7), N)
    assert "no list of 16 indices" in O.verify(NTT, dict(check, index=[0]), N)
    assert "malformed check record" in O.verify(NTT, {k: v for k, v in check.items()
                                                      if k != "output"}, N)


def _records(checks, threads=1, runs=(2e-6, 1e-6, 3e-6)):
    out = [{"kind": "info", "library_threads": threads}]
    for case, check in zip(SMALL, checks):
        out.append(check)
        time = {"kind": "time", "op": case.op, "n": case.n, "runs": list(runs)}
        if case.op in ("exact", "fast"):
            time.update(l=len(case.source), k=len(case.target))
        out.append(time)
    return out


def _checks():
    return [_ntt_check(NTT), _mul_check(MUL), _base_check(EXACT, _centred),
            _base_check(FAST, lambda x, q: x + q)]


def test_timings_give_a_median_only_to_checked_results():
    checks = _checks()
    checks[1]["output"][0] = (checks[1]["output"][0] + 1) % MUL.source[0]
    rows = O.timings(SMALL, _records(checks), 1, "OpenFHE x", N, 3)
    assert [r["name"] for r in rows] == [c.name(1) for c in SMALL]
    assert rows[0]["median_s"] == 2e-6 and rows[0]["repeat"] == 3
    assert rows[0]["params"] == {"op": "ntt", "n": N, "bits": 60, "threads": 1,
                                 "q": NTT.source[0]}
    assert rows[1]["error"].startswith("wrong result, not timed: negacyclic product")
    assert "median_s" not in rows[1]
    assert rows[3]["params"]["l"] == rows[3]["params"]["k"] == 3


def test_timings_refuse_a_run_with_other_threads_or_missing_times():
    rows = O.timings(SMALL, _records(_checks(), threads=2), 1, "OpenFHE x", N, 3)
    assert all("ran with 2 thread(s), not 1" in r["error"] for r in rows)
    rows = O.timings(SMALL, _records(_checks(), runs=(1e-6,)), 1, "OpenFHE x", N, 3)
    assert all(r["error"] == "the benchmark printed no 3 positive run times" for r in rows)
    rows = O.timings(SMALL, _records(_checks())[:1], 1, "OpenFHE x", N, 3)
    assert all("printed no check" in r["error"] for r in rows)


# --- the real benchmark ------------------------------------------------------------------------

@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"OpenFHE baseline: {UNAVAILABLE}")
def test_benchmark_at_4096_is_right_and_timed(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    plan = O.cases(ntt=(4096,), products=(4096,), bases=((4096, 4),))
    rows = O.openfhe_baselines(3, plan=plan, threads=(1,), warmup=1, samples=64)
    assert [r.get("error") for r in rows] == [None] * 4
    assert [r["name"] for r in rows] == [c.name(1) for c in plan]
    assert all(r["median_s"] > 0 and len(r["runs"]) == 3 for r in rows)
    assert rows[0]["library"].startswith("OpenFHE 1.6.1.0.22.4 (libOPENFHEcore; g++")
    (record,) = (tmp_path / "build" / "openfhe").glob("bench-*/run-1.jsonl")
    records = O.parse(record.read_text())
    (check,) = [r for r in records if r["kind"] == "check" and r["op"] == "exact"]
    assert len(check["index"]) == 64 and check["index"][-1] == 4095
    check["output"][3][2] = (check["output"][3][2] + 1) % check["target"][2]
    rows = O.timings(plan, records, 1, "OpenFHE", 64, 3)
    assert rows[2]["error"].startswith("wrong result, not timed: exact base conversion: index")
    assert [r.get("error") for r in rows[:2] + rows[3:]] == [None] * 3
