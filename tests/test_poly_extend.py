"""The exact base extension of an RNS polynomial (Q → Q ∪ B): the model against big integers,
the unit against the model in pysim (edge coefficients, back to back, random valid/ready),
simulated cycles = ``cycles()``, and its plan's refusals. OpenFHE's own words:
tests/test_openfhe_convert.py."""

import pytest
from helpers import rng_for

from fhe_hw.model.dcrt import dcrt_extend
from fhe_hw.params import RNSBase, openfhe_primes
from fhe_hw.poly import RNSPolyExtend, RNSPolyExtendPlan
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit


def integers(big_q, n, *key):
    """n coefficients in [0, Q): 0, 1, Q − 1 and both sides of Q/2 (where the centred lift
    turns negative), the rest seeded."""
    rng = rng_for("extend", big_q, n, *key)
    edges = [0, 1, big_q - 1, (big_q - 1) // 2, (big_q + 1) // 2]
    return edges + [rng.randrange(big_q) for _ in range(n - len(edges))]


def towers_of(values, primes):
    return [[x % q for x in values] for q in primes]


@pytest.mark.parametrize("bits, l, k", [(30, 3, 2), (60, 2, 3), (14, 1, 1)])
def test_model_appends_the_centred_lift_mod_each_new_prime(bits, l, k):
    primes = openfhe_primes(bits, 16, l + k)
    source, target = primes[:l], primes[l:]
    big_q = RNSBase(source).Q
    values = integers(big_q, 16, bits)
    got = dcrt_extend(towers_of(values, source), source, target)
    centred = [x - big_q if 2 * x >= big_q else x for x in values]
    assert got == towers_of(values, source) + [[v % p for v in centred] for p in target]


def test_model_refuses_residues_out_of_range_and_shared_factors():
    with pytest.raises(ValueError, match=r"towers\[1\] must hold residues mod 11"):
        dcrt_extend([[1], [11]], [7, 11], [13])
    with pytest.raises(ValueError, match="pairwise coprime"):
        dcrt_extend([[1], [2]], [7, 11], [7])


def run_extension(unit, polys, **kw):
    """``polys`` (each a list of L towers) streamed back to back through ``unit`` in pysim:
    the outputs, L + K towers per polynomial, and the run."""
    beats = unit.plan.stream_beats(polys)
    run = run_stream(unit, {"i": beats}, {"o": len(polys) * unit.output_beats}, **kw)
    return unit.plan.stream_polynomials(run.outputs["o"]), run


# (n, L, K, lanes, architecture): one and several lanes, both engines, one tower of Q
@pytest.mark.parametrize("n, l, k, lanes, architecture", [
    (16, 3, 2, 2, "iterative"), (16, 2, 3, 4, "pipelined"), (16, 1, 1, 1, "iterative"),
    pytest.param(64, 4, 4, 8, "pipelined", marks=pytest.mark.slow)])
def test_polynomials_back_to_back_are_the_models_extension_in_cycles(n, l, k, lanes,
                                                                     architecture):
    unit = RNSPolyExtend(n, limbs=l, target_limbs=k, lanes=lanes, architecture=architecture)
    big_q = RNSBase(unit.towers).Q
    polys = [towers_of(integers(big_q, n, key), unit.towers) for key in range(2)]
    got, run = run_extension(unit, polys)
    assert got == [dcrt_extend(poly, unit.towers, unit.targets) for poly in polys]
    params = {"n": n, "limbs": l, "target_limbs": k, "lanes": lanes,
              "architecture": architecture}
    assert run.cycles == unit.cycles(2) == get_unit("rns-poly-extend").cycles(params, polys=2)
    assert unit.cycles(2) == 2 * unit.cycles(1)


def test_random_valid_and_ready_keep_every_word():
    unit = RNSPolyExtend(16, limbs=2, target_limbs=2, lanes=2)
    big_q = RNSBase(unit.towers).Q
    polys = [towers_of(integers(big_q, 16, "vr", key), unit.towers) for key in range(2)]
    got, _ = run_extension(unit, polys, valid_prob=0.6, ready_prob=0.5, seed=5)
    assert got == [dcrt_extend(poly, unit.towers, unit.targets) for poly in polys]


def test_plan_takes_openfhes_primes_q_first_then_b():
    plan = RNSPolyExtendPlan(4096, limbs=8, target_limbs=8, prime_n=65536)
    assert plan.towers + plan.targets == openfhe_primes(30, 65536, 16)
    assert plan.conversion.source == tuple(sorted(plan.towers)) and plan.conversion.centred
    assert plan.input_beats == 8 * 2048 and plan.output_beats == 16 * 2048
    explicit = RNSPolyExtendPlan(16, primes=[193, 97], target_primes=[257])
    assert (explicit.towers, explicit.targets, explicit.width) == ((193, 97), (257,), 9)


@pytest.mark.parametrize("kw, error, match", [
    ({"primes": (97, 193)}, ValueError, "target_primes must be given too when primes is"),
    ({"target_primes": (257,)}, ValueError, "primes must be given too when target_primes"),
    ({"primes": (97, 193), "target_primes": (291,)}, ValueError,
     "primes and target_primes must be pairwise coprime; 97 and 291 share the factor 97"),
    ({"lanes": 3}, ValueError, "lanes must be a power of two"),
    ({"lanes": 32}, ValueError, "lanes must be at most n = 16, not 32"),
    ({"architecture": "folded"}, ValueError, "architecture must be one of iterative, "
                                             "pipelined"),
    ({"prime_bits": 14, "limbs": 40, "target_limbs": 40}, ValueError,
     "limbs must be at most"),
    ({"prime_n": 8}, ValueError, "prime_n must be at least"),
    ({"limbs": 0}, ValueError, "limbs must be at least 1"),
    ({"lanes": True}, TypeError, "lanes"),
])
def test_plan_refuses_bad_parameters_before_hardware(kw, error, match):
    with pytest.raises(error, match=match):
        RNSPolyExtendPlan(16, **kw)
