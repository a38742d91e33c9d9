"""fhe_hw.bench.openfhe: the OpenFHE baseline says what is missing, parses and checks the
benchmark's output against big integers, one residue or a DCRTPoly's towers (a wrong result gets
no time), and, with the openfhe wheel, OpenFHE's headers and g++ (all three on CI: the test
extra has the wheel, the headers are beside the checkout), compiles and runs the benchmark at
N = 4096, DCRTPoly sets included."""

import json
import subprocess
from math import prod
from pathlib import Path

import pytest
from helpers import rng_for

from fhe_hw import builddir
from fhe_hw.bench import openfhe as O
from fhe_hw.model.ntt import ntt_radix2, poly_mul_negacyclic
from fhe_hw.params import convention_root, ntt_params, openfhe_primes

N = 16
# Towers of 30-bit primes ≡ 1 mod 2^7 (prime_n = 4N), as fhe_hw.poly's prime_n would pick them.
SMALL = O.cases(ntt=(N,), products=(N,), bases=((N, 3),), dcrt=((N, 3, 30, 4 * N),))
NTT, MUL, DNTT, DMUL, DEVAL, DEXACT, EXACT, FAST = SMALL


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

def _rows(case, rng):
    return [[rng.randrange(q) for _ in range(case.n)] for q in case.source]


def _transform_check(case, **out):
    rng = rng_for(case.op)
    record = {"kind": "check", "op": case.op, "n": case.n, "source": list(case.source),
              "psi": list(case.psi), "index": list(range(case.n)), "input": _rows(case, rng)}
    if case.op not in ("ntt", "mul"):
        record["l"] = len(case.source)
    return dict(record, **out)


def _ntt_check(case):
    """A check record with the model's radix-2 NTT (with the case's roots) in each tower."""
    check = _transform_check(case)
    check["output"] = [ntt_radix2(a, ntt_params(q, case.n, negacyclic=True, psi=psi),
                                  negacyclic=True)
                       for q, psi, a in zip(case.source, case.psi, check["input"])]
    return check


def _mul_check(case):
    """A check record with the model's negacyclic product in each tower."""
    check = _transform_check(case, b=_rows(case, rng_for(case.op, "b")))
    check["output"] = [poly_mul_negacyclic(a, b, q)
                       for q, a, b in zip(case.source, check["input"], check["b"])]
    return check


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
    for case in O.cases(ntt=(N,), products=(), bases=((N, 3),), dcrt=()):
        assert all(p.bit_length() == 60 and p % (2 * N) == 1 for p in case.source + case.target)
        for q, psi in zip(case.source, case.psi):
            assert pow(psi, N, q) == q - 1
    assert [len(c.target) for c in O.cases(ntt=(), products=(), bases=((N, 3),), dcrt=())] \
        == [3, 3]


def test_dcrt_sets_have_the_hardwares_primes():
    # The 30-bit towers of fhe_hw.poly's ECP5 configuration (Montgomery ModMuls: q ≡ 1 mod 2^17).
    assert O.DCRT_SETS == ((4096, 8, 30, 65536), (4096, 4, 60, 4096), (4096, 4, 60, 65536))


@pytest.mark.parametrize("n, towers, bits, prime_n", O.DCRT_SETS + ((N, 3, 30, 4 * N),))
def test_dcrt_cases_have_the_rules_towers_and_openfhes_roots(n, towers, bits, prime_n):
    plan = O.cases(ntt=(), products=(), bases=(), dcrt=((n, towers, bits, prime_n),))
    assert [c.op for c in plan] == ["dcrt-ntt", "dcrt-mul", "dcrt-mul-eval", "dcrt-exact"]
    case, conversion = plan[0], plan[3]
    assert case.source == conversion.source == openfhe_primes(bits, prime_n, towers)
    assert list(case.source) == sorted(case.source, reverse=True) and len(case.source) == towers
    # B: the next primes of the same rule, none of them in Q.
    assert conversion.target == openfhe_primes(bits, prime_n, 2 * towers)[towers:]
    assert max(conversion.target) < min(case.source) and len(conversion.target) == towers
    for q, psi in zip(case.source, case.psi):
        assert q.bit_length() == bits and q % (2 * prime_n) == 1 and pow(psi, n, q) == q - 1
        assert psi == convention_root(q, 2 * n, "openfhe")
        # OpenFHE's RootOfUnity: the least of the primitive 2n-th roots ψ^j, j odd.
        assert psi == min(pow(psi, j, q) for j in range(1, 2 * n, 2))
    assert case.line() == " ".join(map(str, ("dcrt-ntt", n, towers, *case.source)))
    assert conversion.line() == " ".join(map(str, ("dcrt-exact", n, towers, towers,
                                                   *conversion.source, *conversion.target)))
    rule = f"{bits}-bit primes ≡ 1 mod 2^{(2 * prime_n).bit_length() - 1}"
    assert plan[2].name(2) == f"OpenFHE DCRTPoly negacyclic product (b in evaluation form) " \
        f"N={n}, {towers} towers of {rule} (2 threads)"
    assert conversion.name(1) == f"OpenFHE DCRTPoly exact base conversion to the next primes " \
        f"N={n}, {towers} → {towers} towers of {rule} (1 thread)"
    assert case.params(1) == {"op": "dcrt-ntt", "n": n, "bits": bits, "threads": 1, "l": towers,
                              "prime_n": prime_n}
    assert conversion.params(2) == {"op": "dcrt-exact", "n": n, "bits": bits, "threads": 2,
                                    "l": towers, "k": towers, "prime_n": prime_n}


@pytest.mark.parametrize("prime_n, message", [
    (N // 2, "prime_n must be a power of two of at least 16"),
    (3 * N, "prime_n must be a power of two, not 48"),
    (2**26, "has only")])
def test_a_dcrt_rule_without_its_primes_is_refused(prime_n, message):
    with pytest.raises(ValueError, match=message):
        O.cases(ntt=(), products=(), bases=(), dcrt=((N, 3, 30, prime_n),))


@pytest.mark.parametrize("case, check", [
    (NTT, _ntt_check(NTT)), (MUL, _mul_check(MUL)),
    (DNTT, _ntt_check(DNTT)), (DMUL, _mul_check(DMUL)), (DEVAL, _mul_check(DEVAL)),
    (DEXACT, _base_check(DEXACT, _centred)), (EXACT, _base_check(EXACT, _centred)),
    (FAST, _base_check(FAST, lambda x, q: x)),
    (FAST, _base_check(FAST, lambda x, q: x + 2 * q))])
def test_right_results_pass(case, check):
    assert O.verify(case, check, N) is None


@pytest.mark.parametrize("case, check, message", [
    (NTT, _ntt_check(NTT), f"forward NTT, tower 0 (q = {NTT.source[0]}): 1 of 16 checked "
                           f"outputs differ, first at index 5"),
    (MUL, _mul_check(MUL), "negacyclic product, tower 0 (q = "),
    (DNTT, _ntt_check(DNTT), f"DCRTPoly forward NTT, tower 2 (q = {DNTT.source[2]}): 1 of 16 "
                             f"checked outputs differ, first at index 5"),
    (DMUL, _mul_check(DMUL), "DCRTPoly negacyclic product, tower 2 "),
    (DEVAL, _mul_check(DEVAL), "DCRTPoly negacyclic product (b in evaluation form), tower 2 "),
    (DEXACT, _base_check(DEXACT, _centred), "DCRTPoly exact base conversion to the next "
                                            "primes: index 5"),
    (EXACT, _base_check(EXACT, _centred), "exact base conversion: index 5"),
    (FAST, _base_check(FAST, lambda x, q: x), "fast base conversion: index 5")])
def test_a_corrupted_output_is_rejected(case, check, message):
    out = check["output"]
    if case.op in O.TRANSFORMS:     # the last tower's sixth output
        out[-1][5] = (out[-1][5] + 1) % case.source[-1]
    else:                           # the sixth index's first target residue
        out[5][0] = (out[5][0] + 1) % case.target[0]
    assert message in O.verify(case, check, N)


def test_exact_conversion_must_be_centred_and_fast_within_l_multiples():
    # X >= Q/2 left uncentred, and X + lQ: both outside what OpenFHE documents.
    for case in (EXACT, DEXACT):
        assert "expected the centred representative" in O.verify(
            case, _base_check(case, lambda x, q: x if 2 * x >= q else x + q), N)
    assert "for one α in [0, 3)" in O.verify(FAST, _base_check(FAST, lambda x, q: x + 3 * q), N)


def test_a_check_of_other_moduli_or_too_few_points_is_rejected():
    check = _ntt_check(NTT)
    assert "source = [7]" in O.verify(NTT, dict(check, source=[7]), N)
    assert "no list of 16 indices" in O.verify(NTT, dict(check, index=[0]), N)
    assert "malformed check record" in O.verify(NTT, {k: v for k, v in check.items()
                                                      if k != "output"}, N)


def test_a_dcrt_check_of_other_towers_roots_or_shapes_is_rejected():
    check = _mul_check(DMUL)
    ascending = sorted(DMUL.source)
    assert f"the check ran with source = {ascending}" in O.verify(
        DMUL, dict(check, source=ascending), N)
    # OpenFHE's own towers for this N (prime_n = N), or one tower of another rule: not the plan's.
    own = list(openfhe_primes(30, N, 3))
    assert own != list(DMUL.source)
    assert f"the check ran with source = {own}" in O.verify(DMUL, dict(check, source=own), N)
    assert "the check ran with target = " in O.verify(
        DEXACT, dict(_base_check(DEXACT, _centred), target=[*DEXACT.target[:2], own[0]]), N)
    assert "the check ran with psi = " in O.verify(DMUL, dict(check, psi=check["psi"][::-1]), N)
    assert "input, b, output: not one list per tower (3)" in O.verify(
        DMUL, dict(check, output=check["output"][:2]), N)
    b = [row[:] for row in check["b"]]
    b[1][3] = DMUL.source[1]
    assert f"tower 1: the input and b are not n residues mod {DMUL.source[1]}" in O.verify(
        DMUL, dict(check, b=b), N)


def _records(checks, threads=1, runs=(2e-6, 1e-6, 3e-6), plan=SMALL):
    out = [{"kind": "info", "library_threads": threads}]
    for case, check in zip(plan, checks):
        out.append(check)
        time = {"kind": "time", "op": case.op, "n": case.n, "runs": list(runs)}
        if case.op not in ("ntt", "mul"):
            time.update(l=len(case.source))
        if case.target:
            time.update(k=len(case.target))
        out.append(time)
    return out


def _checks():
    return [_ntt_check(NTT), _mul_check(MUL), _ntt_check(DNTT), _mul_check(DMUL),
            _mul_check(DEVAL), _base_check(DEXACT, _centred), _base_check(EXACT, _centred),
            _base_check(FAST, lambda x, q: x + q)]


def test_timings_give_a_median_only_to_checked_results():
    checks = _checks()
    checks[1]["output"][0][0] = (checks[1]["output"][0][0] + 1) % MUL.source[0]
    checks[4]["output"][1][7] = (checks[4]["output"][1][7] + 1) % DEVAL.source[1]
    rows = O.timings(SMALL, _records(checks), 1, "OpenFHE x", N, 3)
    assert [r["name"] for r in rows] == [c.name(1) for c in SMALL]
    assert rows[0]["median_s"] == 2e-6 and rows[0]["repeat"] == 3
    assert rows[0]["params"] == {"op": "ntt", "n": N, "bits": 60, "threads": 1,
                                 "q": NTT.source[0]}
    assert rows[1]["error"].startswith("wrong result, not timed: negacyclic product")
    assert "median_s" not in rows[1]
    assert rows[2]["median_s"] == rows[3]["median_s"] == 2e-6
    assert rows[2]["name"] == "OpenFHE DCRTPoly forward NTT N=16, 3 towers of 30-bit primes " \
        "≡ 1 mod 2^7 (1 thread)"
    assert rows[4]["error"].startswith("wrong result, not timed: DCRTPoly negacyclic product "
                                       "(b in evaluation form), tower 1")
    assert rows[5]["median_s"] == 2e-6 and rows[5]["params"]["prime_n"] == 4 * N
    assert rows[7]["params"]["l"] == rows[7]["params"]["k"] == 3


def test_timings_take_each_cases_records_in_the_plans_order():
    # Two DCRTPolys of one size on the towers of two rules: each its own check and time.
    plan = O.cases(ntt=(), products=(), bases=(), dcrt=((N, 3, 30, N), (N, 3, 30, 4 * N)))
    checks = [_ntt_check(plan[0]), _ntt_check(plan[4])]
    rows = O.timings(plan[0:5:4], _records(checks, plan=plan[0:5:4]), 1, "OpenFHE x", N, 3)
    assert [r.get("error") for r in rows] == [None, None]
    rows = O.timings(plan[0:5:4], _records(checks[::-1], plan=plan[0:5:4]), 1, "x", N, 3)
    assert all(r["error"].startswith("wrong result, not timed: the check ran with source = ")
               for r in rows)
    rows = O.timings(plan[0:5:4], _records(checks[:1], plan=plan[0:5:4]), 1, "x", N, 3)
    assert "error" not in rows[0] and "printed no check" in rows[1]["error"]


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
    # the first two DCRT_SETS: their towers are told apart by their sizes below
    plan = O.cases(ntt=(4096,), products=(4096,), bases=((4096, 4),), dcrt=O.DCRT_SETS[:2])
    assert len(plan) == 12
    rows = O.openfhe_baselines(3, plan=plan, threads=(1,), warmup=1, samples=64)
    assert [r.get("error") for r in rows] == [None] * 12
    assert [r["name"] for r in rows] == [c.name(1) for c in plan]
    assert all(r["median_s"] > 0 and len(r["runs"]) == 3 for r in rows)
    assert rows[0]["library"].startswith("OpenFHE 1.6.1.0.22.4 (libOPENFHEcore; g++")
    (record,) = (tmp_path / "build" / "openfhe").glob("bench-*/run-1.jsonl")
    records = O.parse(record.read_text())
    checks = {r["op"]: r for r in records if r["kind"] == "check" and r.get("l") in (None, 4)}
    assert len(checks["exact"]["index"]) == 64 and checks["exact"]["index"][-1] == 4095
    # The program ran with the plan's towers (those ILDCRTParams(2N, 4, 60) would pick, and
    # 30-bit ones ≡ 1 mod 2^17) and with OpenFHE's RootOfUnity of each, convention "openfhe".
    assert checks["dcrt-ntt"]["source"] == list(openfhe_primes(60, 4096, 4))
    (towers30,) = [r for r in records if r["kind"] == "check" and r["op"] == "dcrt-mul"
                   and r["l"] == 8]
    assert towers30["source"] == list(openfhe_primes(30, 65536, 8))
    assert towers30["psi"] == [convention_root(q, 8192, "openfhe") for q in towers30["source"]]
    assert checks["dcrt-exact"]["target"] == list(openfhe_primes(60, 4096, 8)[4:])
    checks["exact"]["output"][3][2] = (checks["exact"]["output"][3][2] + 1) % \
        checks["exact"]["target"][2]
    checks["dcrt-exact"]["output"][7][1] = (checks["dcrt-exact"]["output"][7][1] + 1) % \
        checks["dcrt-exact"]["target"][1]
    checks["dcrt-mul"]["output"][3][9] ^= 1
    rows = O.timings(plan, records, 1, "OpenFHE", 64, 3)
    wrong = {r["name"]: r["error"] for r in rows if "error" in r}
    exact, dexact, dmul = (next(c for c in plan if c.op == op and len(c.source) == 4)
                           for op in ("exact", "dcrt-exact", "dcrt-mul"))
    assert wrong.keys() == {exact.name(1), dexact.name(1), dmul.name(1)}
    assert wrong[dexact.name(1)].startswith("wrong result, not timed: DCRTPoly exact base "
                                            "conversion to the next primes: index")
    assert wrong[exact.name(1)].startswith("wrong result, not timed: exact base conversion: "
                                           "index")
    assert wrong[dmul.name(1)].startswith("wrong result, not timed: DCRTPoly negacyclic product, "
                                          "tower 3 (q = ")
    # OpenFHE keeps one NTT table per modulus, made with the first root it meets: after a case
    # with another root of the DCRTPoly's first prime, its NTT is wrong and verify says so (why
    # every case takes OpenFHE's own root).
    dntt = next(c for c in plan if c.op == "dcrt-ntt" and c.bits == 60)
    other = O.Case("ntt", 4096, dntt.source[:1], psi=(pow(dntt.psi[0], 3, dntt.source[0]),))
    first, second = O.openfhe_baselines(1, plan=[other, dntt], threads=(1,), warmup=0)
    assert "error" not in first
    assert second["error"].startswith(f"wrong result, not timed: DCRTPoly forward NTT, tower 0 "
                                      f"(q = {dntt.source[0]}): 16 of 16 checked outputs differ")
