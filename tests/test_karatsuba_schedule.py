"""Karatsuba-r layout (fhe_hw.karatsuba.schedule): the pre-crossbar schedule, widths from the
model's bounds, multiplier counts and per-product cycles against [Mig16] §III-B and Table III."""

from fractions import Fraction

import pytest

from fhe_hw.karatsuba import KaratsubaMultiplier
from fhe_hw.karatsuba.schedule import (
    CrossbarSchedule,
    KaratsubaLayout,
    check_schedule,
    crossbar_schedule,
)
from fhe_hw.karatsuba.submultiplier import beat_delay
from fhe_hw.model.karatsuba import (
    hardware_cycles,
    hardware_multipliers,
    leaf_schedule,
    multiplier_utilization,
)


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5])
def test_every_leaf_gets_its_own_multiplier_slot(r):
    s = crossbar_schedule(r)
    table = s.table()
    placed = sorted(c for row in table for c in row if c is not None)
    assert placed == sorted(leaf.channel for leaf in leaf_schedule(r))


@pytest.mark.parametrize("r", [3, 4, 5])
def test_multipliers_are_half_the_channels_from_three_recursions(r):
    s = crossbar_schedule(r)
    assert (s.lines, s.period) == (1 << (r - 1), 1 << r)


@pytest.mark.parametrize("r", [3, 4, 5])
def test_utilization_matches_the_paper(r):
    plan = KaratsubaLayout(r, 5, 125, 125, 27, 5)
    assert Fraction(3 ** r, plan.schedule.lines * plan.schedule.period) == \
        multiplier_utilization(r)


def test_one_and_two_recursions_stretch_the_period():
    assert (crossbar_schedule(1).lines, crossbar_schedule(1).period) == (1, 3)
    assert (crossbar_schedule(2).lines, crossbar_schedule(2).period) == (2, 5)


def test_recursions_beyond_three_reuse_the_karatsuba3_blocks():
    s3, s5 = crossbar_schedule(3), crossbar_schedule(5)
    for c in range(32):
        assert s5.delay[c] == s3.delay[c % 8]
        assert s5.line[c] == s3.line[c % 8] + 4 * (c // 8)


def test_check_schedule_rejects_a_collision():
    bad = CrossbarSchedule(2, 2, 5, (0, 1, 1, 0), (0, 0, 0, 1))
    with pytest.raises(ValueError, match="collide"):
        check_schedule(bad)


def test_check_schedule_rejects_a_period_shorter_than_the_input():
    with pytest.raises(ValueError, match="period"):
        check_schedule(CrossbarSchedule(2, 4, 3, (0, 1, 2, 3), (0, 0, 0, 0)))


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5])
def test_multiplier_count_is_the_models(r):
    plan = KaratsubaLayout(r, 5, 125, 125, 27, 5)
    assert plan.multipliers == hardware_multipliers(r) == 100 * 2 ** (r - 1) // 4
    small = KaratsubaLayout(r, 3, 8, 8, 6, 2)
    assert small.multipliers == hardware_multipliers(r, count=2, leaf=3) == 6 << (r - 1)


@pytest.mark.parametrize("r,cycles", [(3, 145800), (4, 97200), (5, 64800)])
def test_period_gives_the_papers_accelerator_time(r, cycles):
    """Table III: 3^(9-r) products per degree-2559 multiplication, one per period."""
    unit = KaratsubaMultiplier(r, coeff_bits=125 + 9 - r, digits=5)
    assert unit.period * 3 ** (9 - r) == hardware_cycles(r) == cycles


def test_widths_cover_the_worst_case_leaf_and_output():
    plan = KaratsubaLayout(3, 5, 131, 131, 27, 5)
    top = (1 << 131) - 1
    assert plan.leaf_bits == (5 * 4 ** 3 * top * top).bit_length()
    assert plan.out_bits == (40 * top * top).bit_length()
    assert plan.digits * plan.chunk_bits >= plan.leaf_bits


@pytest.mark.parametrize("leaf,expected", [(1, 0), (2, 1), (3, 1), (4, 2), (5, 2)])
def test_beat_delay_waits_for_the_odd_coefficient(leaf, expected):
    assert beat_delay(leaf) == expected


def test_post_units_align_their_inputs():
    plan = KaratsubaLayout(3, 5, 8, 8, 6, 2)
    for u in plan.post_units:
        assert min(u.pass_delay, u.sum_delay) == 0
    assert len(plan.post_units) == 7


def test_schedule_rejects_zero_recursions():
    with pytest.raises(ValueError, match="recursions"):
        crossbar_schedule(0)
