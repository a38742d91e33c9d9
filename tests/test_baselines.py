"""fhe_hw.bench.baselines: the software baselines are correct computations, timed by median."""

import random

import pytest
from helpers import SEED

from fhe_hw.bench import baselines as B
from fhe_hw.model.bigint import (
    cmnt_encrypt,
    cnt_encrypt,
    random_cmnt_instance,
    random_cnt_instance,
)
from fhe_hw.model.ntt import dft
from fhe_hw.params import ntt_primes


@pytest.mark.parametrize("n", [2, 16, 64])
def test_numpy_ntt_matches_model_dft(n):
    pytest.importorskip("numpy")
    q = ntt_primes(31, n, 1)[0]
    omega = B._root(q, n)
    rng = random.Random(f"{SEED}-{n}")
    a = [rng.randrange(q) for _ in range(n)]
    got, want = [int(v) for v in B.ntt_numpy(a, q, omega)], dft(a, q, omega)
    bad = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), None)
    assert bad is None, f"seed {SEED}, n {n}: first mismatch at index {bad}"


def test_root_is_primitive():
    q = ntt_primes(31, 1024, 1)[0]
    w = B._root(q, 1024)
    assert pow(w, 1024, q) == 1 and pow(w, 512, q) != 1


def test_cmnt_reference_matches_model():
    rng = random.Random(SEED)
    inst = random_cmnt_instance("toy", rng, key_bits=600, count=4)
    assert B.gmp_cmnt_reference(*inst) == cmnt_encrypt(*inst)


def test_cnt_reference_matches_model():
    rng = random.Random(SEED)
    inst = random_cnt_instance("toy", rng, key_bits=2000, count=5)
    assert B.gmp_cnt_reference(*inst) == cnt_encrypt(*inst)


@pytest.mark.parametrize("timer, params", [
    ("gmp_cmnt_encrypt", {"group": "toy", "delta": 42, "rho": 168, "phi": 160_000,
                          "theta": 12}),
    ("gmp_cnt_encrypt", {"group": "toy", "alpha": 936, "rho": 936, "gamma": 150_000,
                         "tau": 158}),
])
def test_gmp_encryption_toy_group_timing(timer, params):
    pytest.importorskip("gmpy2")
    t = getattr(B, timer)("toy", repeat=1)
    assert t["params"] == params
    assert t["median_s"] > 0 and len(t["runs"]) == 1


def test_time_median_reports_median_of_runs():
    median, runs = B.time_median(lambda: None, repeat=5, warmup=0)
    assert len(runs) == 5 and median == sorted(runs)[2]


def test_time_median_rejects_zero_repeats():
    with pytest.raises(ValueError, match="repeat"):
        B.time_median(lambda: None, repeat=0)


def test_gmp_multiply_rejects_zero_bits():
    pytest.importorskip("gmpy2")
    with pytest.raises(ValueError, match="bits"):
        B.gmp_multiply(0)


def test_flint_baselines_run_small():
    pytest.importorskip("flint")
    a = B.flint_poly_multiply(n=64, bits=125, repeat=1)
    b = B.flint_negacyclic_multiply(n=64, repeat=1)
    assert a["library"].startswith("python-flint") and b["params"]["n"] == 64


def test_the_machine_names_the_processor_model_from_cpuinfo():
    cpuinfo = ("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\n"
               "processor\t: 1\nmodel name\t: AMD EPYC 7B13\n")
    assert B.cpu_model(cpuinfo) == "AMD EPYC 7B13"
    assert B.cpu_model("processor\t: 0\n") != ""          # no model line: the architecture
    assert B.machine()["processor"].endswith(" logical CPUs)")
