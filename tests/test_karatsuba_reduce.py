"""WideBarrettReducer (fhe_hw.karatsuba.reduce): folds + [Cao14] Algorithm 2 for product
coefficients wider than 2m bits."""

import pytest
from helpers import check_unit, rng_for

from fhe_hw.karatsuba.reduce import WideBarrettReducer, fold_plan


@pytest.mark.parametrize("q,in_bits", [(4093, 30), (4093, 50), (1000003, 45), (4093, 20)])
def test_reduces_wide_inputs(q, in_bits):
    unit = WideBarrettReducer(q, in_bits, mult_stages=2)
    rng = rng_for("wide-barrett", q, in_bits)
    top = (1 << in_bits) - 1
    xs = [0, 1, q - 1, q, q + 1, top, top - 1, 1 << (in_bits - 1)]
    xs += [rng.getrandbits(in_bits) for _ in range(300)]
    check_unit(unit, xs, [x % q for x in xs], label=f"q={q} in_bits={in_bits}")


def test_one_fold_up_to_three_m_minus_two_bits():
    assert len(fold_plan(4093, 34)[0]) == 1
    assert len(fold_plan(4093, 35)[0]) == 2
    assert fold_plan(4093, 24) == ([], 24)


def test_fold_output_fits_the_barrett_input():
    for in_bits in range(25, 80):
        assert fold_plan(4093, in_bits)[1] <= 24


def test_latency_counts_the_folds():
    unit = WideBarrettReducer(4093, 50, mult_stages=3)
    # Each fold: its multiplier and an addition; Barrett: two multipliers, the subtractions and
    # the selection.
    assert unit.latency == unit.folds * 4 + 2 * 3 + 2


def test_rejects_a_tiny_modulus():
    with pytest.raises(ValueError, match="modulus"):
        fold_plan(3, 10)


def test_rejects_zero_input_bits():
    with pytest.raises(ValueError, match="in_bits"):
        WideBarrettReducer(4093, 0)
