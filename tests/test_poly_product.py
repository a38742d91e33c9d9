"""The RNS polynomial product (forward NTTs, run-time-modulus point-wise products, inverse NTT)
against the schoolbook product in every tower; simulated cycles equal ``cycles()``."""

import pytest
from test_poly_ntt import random_dcrt, regroup

from fhe_hw.model.dcrt import dcrt_ntt, schoolbook_product
from fhe_hw.poly import RNSPolyProduct, RNSPolyProductPlan
from fhe_hw.rns.common import polynomial_beats
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit


def run_products(unit, pairs, **kw):
    """The products of ``pairs`` ((a, b), each a list of towers) back to back through ``unit``
    in pysim, regrouped per product, and the run."""
    streams = {port: polynomial_beats([t for pair in pairs for t in pair[k]], unit.lanes)
               for k, port in enumerate(("i_a", "i_b"))}
    run = run_stream(unit, streams, {"o": len(streams["i_a"])}, **kw)
    return regroup(run.outputs["o"], unit, len(pairs)), run


@pytest.mark.parametrize("n, towers, P, b_evaluated", [
    pytest.param(16, 3, 1, False, marks=pytest.mark.slow), (16, 2, 2, True)])
def test_products_are_the_schoolbook_products_back_to_back_in_cycles(n, towers, P, b_evaluated):
    unit = RNSPolyProduct(n, limbs=towers, butterflies=P, b_evaluated=b_evaluated)
    primes = unit.towers
    pairs = [(random_dcrt(primes, n, "a", k), random_dcrt(primes, n, "b", k)) for k in range(3)]
    fed = [(a, dcrt_ntt(b, primes) if b_evaluated else b) for a, b in pairs]
    got, run = run_products(unit, fed)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]
    assert run.cycles == unit.cycles(3) == get_unit("rns-poly-product").cycles(
        {"n": n, "limbs": towers, "butterflies": P, "b_evaluated": b_evaluated}, polys=3)


def test_random_valid_and_ready_keep_every_product():
    unit = RNSPolyProduct(16, limbs=2, butterflies=2, lanes=2)
    primes = unit.towers
    pairs = [(random_dcrt(primes, 16, "va", k), random_dcrt(primes, 16, "vb", k))
             for k in range(2)]
    got, _ = run_products(unit, pairs, valid_prob=0.6, ready_prob=0.5, seed=3)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]


def test_plan_derives_both_transforms_and_the_pointwise_multipliers():
    plan = RNSPolyProductPlan(4096, limbs=8)
    assert plan.forward.towers == plan.backward.towers == plan.towers
    assert not plan.forward.inverse and plan.backward.inverse
    assert plan.pointwise.moduli == tuple(sorted(plan.towers)) and plan.pointwise.word == 13
    assert plan.input_beats == plan.output_beats == 8 * 4096 // 2


@pytest.mark.slow
def test_skid_slices_in_the_products_transforms_keep_the_products_and_cycles():
    unit = RNSPolyProduct(16, limbs=2, butterflies=2, skid=True)
    primes = unit.towers
    pairs = [(random_dcrt(primes, 16, "sa", k), random_dcrt(primes, 16, "sb", k))
             for k in range(3)]
    got, run = run_products(unit, pairs)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]
    assert run.cycles == unit.cycles(3)
