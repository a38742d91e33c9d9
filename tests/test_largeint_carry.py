"""CarryResolver ([Wang13] §III-A step 4) against the model's resolve_carries, under random
valid/ready, with cycles() against simulation."""

import pytest
from helpers import rng_for

from fhe_hw.largeint import CarryResolver
from fhe_hw.model.large_int import resolve_carries
from fhe_hw.sim.pysim import run_stream

ONES64 = (1 << 64) - 1


def _expected(products, d):
    """The digits of each product mod 2^(d·samples): the model's, its final carry dropped."""
    return [digit for samples in products for digit in resolve_carries(samples, d)[0]]


def _run(unit, products, **kw):
    L = unit.lanes
    beats = [s[k:k + L] for s in products for k in range(0, len(s), L)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, **kw)
    return [digit for beat in run.outputs["o"] for digit in beat], run


@pytest.mark.parametrize("lanes, d, beats", [(16, 24, 4), (4, 24, 3), (1, 24, 8), (8, 16, 2),
                                             (3, 32, 3), (5, 22, 2)])
def test_digits_equal_the_model_for_edge_and_random_samples(lanes, d, beats):
    rng = rng_for("carry", lanes, d, beats)
    n = lanes * beats
    mask = (1 << d) - 1
    products = [
        [ONES64] * n,                                       # every chunk and carry at its top
        [mask] * (n - 1) + [1],
        [mask + 1] + [mask] * (n - 1),                      # a carry out of the last digit ...
        [0] * n,                                            # ... that must not reach the next
        [rng.choice([0, 1, mask, mask + 1, ONES64, rng.getrandbits(64)]) for _ in range(n)],
        [rng.getrandbits(64) for _ in range(n)],
        [rng.getrandbits(63) for _ in range(n)],
    ]
    unit = CarryResolver(lanes, d, beats=beats)
    got, _ = _run(unit, products, valid_prob=0.7, ready_prob=0.6, seed=lanes * d)
    assert got == _expected(products, d)


def test_a_real_convolution_gives_the_product_digits():
    # Digit vectors of two 8 x 24-bit operands, their acyclic convolution in 16 samples.
    rng = rng_for("convolution")
    a, b = [rng.getrandbits(24) | 1 << 23 for _ in range(8)], [(1 << 24) - 1] * 8
    conv = [sum(a[i] * b[k - i] for i in range(8) if 0 <= k - i < 8) for k in range(16)]
    unit = CarryResolver(4, 24, beats=4)
    got, _ = _run(unit, [conv])
    value = sum(x << (24 * i) for i, x in enumerate(got))
    assert value == sum(x << (24 * i) for i, x in enumerate(a)) * sum(
        x << (24 * i) for i, x in enumerate(b))


@pytest.mark.parametrize("products", [1, 3])
def test_cycles_equal_simulation(products):
    unit = CarryResolver(16, 24, beats=4)
    rng = rng_for("cycles", products)
    data = [[rng.getrandbits(64) for _ in range(64)] for _ in range(products)]
    got, run = _run(unit, data)
    assert got == _expected(data, 24)
    assert run.cycles == unit.cycles(products) == 4 * products + CarryResolver.LATENCY


@pytest.mark.parametrize("kw, error", [
    ({"lanes": 0}, ValueError), ({"lanes": 65}, ValueError), ({"digit_bits": 7}, ValueError),
    ({"digit_bits": 33}, ValueError), ({"digit_bits": 24, "coeff_bits": 20}, ValueError),
    ({"beats": 0}, ValueError), ({"lanes": 2.0}, TypeError), ({"beats": True}, TypeError),
])
def test_bad_parameters_are_refused_before_hardware_is_built(kw, error):
    with pytest.raises(error):
        CarryResolver(**kw)
