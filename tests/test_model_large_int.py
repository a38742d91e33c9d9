"""Golden model of [Wang13]'s large-number multiplier (fhe_hw.model.large_int) against Python's
integers and the O(n^2) DFT."""

import random

import pytest

from fhe_hw.model.large_int import (
    DIGIT_BITS,
    MAX_BITS,
    from_digits,
    multiply,
    multiply_steps,
    plan,
    resolve_carries,
    to_digits,
)
from fhe_hw.model.ntt import WANG_HUANG_SIZES, dft, ntt65536, wang_huang_ntt, wang_huang_root
from fhe_hw.params import SOLINAS64 as P


def test_the_paper_plan_is_32k_digits_of_24_bits_in_64k_points():
    sizes = plan()
    assert (sizes.max_bits, sizes.digit_bits, sizes.digits, sizes.n) == (786432, 24, 32768, 65536)
    assert sizes.product_digits == 65536
    assert sizes.bound == 32768 * (2**24 - 1) ** 2 < P


@pytest.mark.parametrize("max_bits, digits, n", [
    (1, 1, 4096), (24 * 2048, 2048, 4096), (24 * 2048 + 1, 2049, 8192),
    (24 * 4096, 4096, 8192), (24 * 8192, 8192, 16384), (24 * 16384, 16384, 32768),
    (MAX_BITS - 23, 32768, 65536),
])
def test_the_transform_is_the_smallest_power_of_two_holding_twice_the_digits(max_bits, digits,
                                                                             n):
    sizes = plan(max_bits)
    assert (sizes.digits, sizes.n) == (digits, n)


@pytest.mark.parametrize("kw, match", [
    ({"max_bits": MAX_BITS + 1}, "at most 786432 bits fit 65536 points"),
    ({"max_bits": 25 * 16385, "digit_bits": 25}, "digit_bits = 25 is too wide for 65536"),
    ({"max_bits": 100, "digit_bits": 32}, "digit_bits = 32 is too wide"),
    ({"max_bits": 0}, "max_bits must be at least 1"),
    ({"digit_bits": 33}, "digit_bits must be at most 32"),
])
def test_plans_that_overflow_p_or_65536_points_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        plan(**kw)


def test_the_bound_is_the_largest_digit_width_that_stays_below_p():
    # 25-bit digits fit up to 32768 points ((2^14)·(2^25 - 1)^2 < p); at 65536, 24 is the most.
    assert plan(16384 * 25, 25).n == 32768
    with pytest.raises(ValueError):
        plan(MAX_BITS // 24 * 25, 25)
    with pytest.raises(TypeError):
        plan(1.5)


@pytest.mark.parametrize("n", [pytest.param(n, marks=[pytest.mark.slow] * (n > 8192))
                               for n in WANG_HUANG_SIZES[1:4]])
def test_the_intermediate_sizes_are_the_dft_with_the_wang_huang_root(n):
    rng = random.Random(n)
    x = [rng.randrange(P) for _ in range(n)]
    spectrum = wang_huang_ntt(x)
    picks = [0, 1, n // 2 - 1, n // 2, n - 1] + rng.sample(range(n), 3)
    assert [spectrum[j] for j in picks] == dft(x, P, wang_huang_root(n), indices=picks)
    assert wang_huang_ntt(spectrum, inverse=True) == x


@pytest.mark.slow
def test_65536_points_is_the_existing_eq7_model():
    rng = random.Random(7)
    x = [rng.randrange(P) for _ in range(65536)]
    assert wang_huang_ntt(x) == ntt65536(x)


def test_other_sizes_are_refused():
    with pytest.raises(ValueError, match="4096, 8192, 16384, 32768, 65536 words, not 2048"):
        wang_huang_ntt([0] * 2048)


def test_digits_round_trip_and_refuse_a_value_that_does_not_fit():
    value = 0xABCDEF_123456_000001
    assert to_digits(value, 24, 4) == [1, 0x123456, 0xABCDEF, 0]
    assert from_digits(to_digits(value, 24, 4), 24) == value
    with pytest.raises(ValueError, match="more than 2 digits of 24 bits"):
        to_digits(1 << 48, 24, 2)


def test_carries_ripple_from_the_least_significant_sample():
    b = 1 << 24
    assert resolve_carries([b + 5, 3, b - 1, b * b], 24) == ([5, 4, b - 1, 0], b)
    assert resolve_carries([2 * b - 1, b - 1, b - 1], 24) == ([b - 1, 0, 0], 1)


def test_the_inverse_transform_gives_the_acyclic_convolution_of_the_digits():
    rng = random.Random(3)
    a, b = rng.getrandbits(24 * 40), rng.getrandbits(24 * 37)
    trace = multiply_steps(a, b, max_bits=24 * 40)
    expected = [0] * trace.plan.n
    for i, x in enumerate(trace.a_digits):
        for j, y in enumerate(trace.b_digits[:trace.plan.n - i]):
            expected[i + j] += x * y
    assert trace.convolution == expected
    assert trace.pointwise == [x * y % P for x, y in zip(trace.a_spectrum, trace.b_spectrum)]
    assert trace.product == a * b and len(trace.product_digits) == 80


@pytest.mark.parametrize("max_bits", [24 * 2048,
                                      pytest.param(24 * 4096 - 5, marks=pytest.mark.slow)])
def test_products_equal_python_including_the_all_ones_carry_worst_case(max_bits):
    rng = random.Random(max_bits)
    ones = (1 << max_bits) - 1
    cases = [(ones, ones), (0, ones), (1, ones), (rng.getrandbits(DIGIT_BITS), ones),
             (rng.getrandbits(max_bits), rng.getrandbits(max_bits))]
    for a, b in cases:
        assert multiply(a, b, max_bits) == a * b


def test_operands_out_of_range_are_refused():
    with pytest.raises(ValueError, match="a must be below 2"):
        multiply(1 << 100, 1, max_bits=100)
    with pytest.raises(ValueError, match="b must be at least 0"):
        multiply(1, -1, max_bits=100)


@pytest.mark.slow
def test_paper_size_products_equal_python():
    rng = random.Random(786432)
    ones = (1 << MAX_BITS) - 1
    for a, b in [(ones, ones), (rng.getrandbits(24), rng.getrandbits(MAX_BITS)),
                 (rng.getrandbits(MAX_BITS), rng.getrandbits(MAX_BITS))]:
        trace = multiply_steps(a, b)
        assert trace.product == a * b
        assert max(trace.convolution) <= trace.plan.bound
