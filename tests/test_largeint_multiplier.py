"""LargeIntegerMultiplier ([Wang13] §III-A): products equal Python's ``*`` in pysim at small
transforms (one and two forward engines, n1 = 1 and > 1, the all-ones carry worst case,
products back to back, random valid/ready), cycles() equals the simulation, and refused
parameters raise before hardware is built."""

import pytest
from helpers import rng_for, slow_except

from fhe_hw.largeint import LargeIntegerMultiplier, LargeIntegerMultiplierPlan
from fhe_hw.largeint.vectors import operand_beats
from fhe_hw.model.large_int import from_digits, multiply
from fhe_hw.sim.icarus import require_iverilog, run_from_reset
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit


def _products(unit, pairs, **kw):
    run = run_stream(unit, {"i": operand_beats(unit, *(v for pair in pairs for v in pair))},
                     {"o": len(pairs) * unit.output_beats}, **kw)
    digits = [w for beat in run.outputs["o"] for w in beat]
    n = unit.n
    return [from_digits(digits[k * n:(k + 1) * n], unit.digit_bits)
            for k in range(len(pairs))], run


def _edge_pairs(unit, rng):
    top = (1 << unit.operand_bits) - 1
    return [(top, top), (rng.getrandbits(unit.operand_bits), top), (7, top),
            (0, rng.getrandbits(unit.operand_bits)),
            (rng.getrandbits(unit.operand_bits), rng.getrandbits(unit.operand_bits))]


# (inner_n, lanes, digit_bits, engines, max_bits, inner_units): n = 16 (n1 = 1), 64 (n1 = 4),
# 4 (inner_n = 2)
CONFIGS = [(4, 2, 8, 1, 64, 1), (4, 2, 8, 2, 64, 1), (4, 4, 8, 1, 256, 1),
           (4, 2, 12, 2, 256, 1), (4, 2, 8, 1, 256, 2), (4, 4, 8, 2, 256, 2),
           (2, 1, 8, 1, 16, 1), (2, 2, 16, 2, 64, 1), (4, 2, 8, 1, 64, 2)]


# One product's cycles in the fast suite with one and two engines, at n = 4, 16 and 64 (256
# bits, four lanes); the other rows' cycles (two inner units among them, whose products run back
# to back below) in the slow suite.
@pytest.mark.parametrize("inner_n, lanes, d, engines, bits, inner_units", slow_except(
    CONFIGS, fast=[CONFIGS[2], CONFIGS[6], CONFIGS[7]]))
def test_one_product_equals_python_in_cycles(inner_n, lanes, d, engines, bits, inner_units):
    unit = LargeIntegerMultiplier(bits, d, lanes=lanes, engines=engines, inner_n=inner_n,
                                  inner_units=inner_units)
    top = (1 << unit.operand_bits) - 1
    got, run = _products(unit, [(top, top)])
    assert got == [top * top]
    assert run.cycles == unit.cycles() == get_unit("large-int-mul").cycles(
        {"max_bits": bits, "digit_bits": d, "lanes": lanes, "engines": engines,
         "inner_n": inner_n, "inner_units": inner_units})


#: Back to back in the fast suite: one and two lanes, engines 1 and 2, 8- and 16-bit digits at
#: n = 4 and 16; the other rows (n = 64, 256 bits, two inner units, whose products run under
#: random valid and ready below) in the slow suite, where the fast suite checks one 256-bit
#: product's cycles.
BACK_TO_BACK = slow_except(CONFIGS, fast=CONFIGS[6:8])


@pytest.mark.parametrize("inner_n, lanes, d, engines, bits, inner_units", BACK_TO_BACK)
def test_products_back_to_back_equal_python(inner_n, lanes, d, engines, bits, inner_units):
    unit = LargeIntegerMultiplier(bits, d, lanes=lanes, engines=engines, inner_n=inner_n,
                                  inner_units=inner_units)
    pairs = _edge_pairs(unit, rng_for("large-int-mul", inner_n, lanes, d, engines, inner_units))
    got, _ = _products(unit, pairs)
    assert got == [a * b for a, b in pairs]


# 32-bit products (n = 8 of 2-point inner transforms) with two engines or two inner units in the
# fast suite; one of each, the 64-bit ones (n = 16 of 4-point inner transforms) and the 256-bit
# ones in the slow suite.
@pytest.mark.parametrize("bits, inner_n", [(32, 2), pytest.param(64, 4, marks=pytest.mark.slow),
                                           pytest.param(256, 4, marks=pytest.mark.slow)])
@pytest.mark.parametrize("engines, inner_units", [
    pytest.param(1, 1, marks=pytest.mark.slow), (2, 1), (1, 2)])
def test_random_valid_and_ready_keep_every_product(engines, inner_units, bits, inner_n):
    unit = LargeIntegerMultiplier(bits, 8, lanes=2, engines=engines, inner_n=inner_n,
                                  inner_units=inner_units)
    rng = rng_for("large-int-mul-bp", engines, inner_units)
    pairs = _edge_pairs(unit, rng)[:3]
    got, _ = _products(unit, pairs, valid_prob=0.6, ready_prob=0.5, seed=engines + inner_units)
    assert got == [a * b for a, b in pairs]


def test_the_model_at_small_transforms_equals_python():
    rng = rng_for("large-int-model-small")
    for bits, d, min_n in ((64, 8, 16), (256, 12, 16), (40, 8, 4)):
        a, b = rng.getrandbits(bits), rng.getrandbits(bits)
        assert multiply(a, b, bits, d, min_n=min_n) == a * b


def test_paper_size_cycles_meet_the_goal_with_two_forward_engines():
    """786,432-bit operands: two forward engines stay within 45,000 cycles; one time-shared
    engine takes one transform's unload more (the Verilator run checks both counts)."""
    two = LargeIntegerMultiplierPlan(engines=2).cycles()
    one = LargeIntegerMultiplierPlan(engines=1).cycles()
    assert two <= 45_000 < one
    # the time-shared engine: B waits 2n/16 = 8192 cycles for the inner unit; two engines: B starts
    # n/32 = 2048 beats after A
    assert one - two == 8192 - 2048


def test_paper_size_cycles_meet_the_goal_with_two_inner_units():
    """With P1 and P2 on their own units, one time-shared forward engine meets the goal too,
    and the 8-lane multiplier stays within twice it."""
    assert LargeIntegerMultiplierPlan(engines=1, inner_units=2).cycles() <= 45_000
    assert LargeIntegerMultiplierPlan(engines=2, inner_units=2).cycles() <= 45_000
    assert LargeIntegerMultiplierPlan(lanes=8, engines=1, inner_units=2).cycles() <= 90_000


@pytest.mark.parametrize("kw, error, match", [
    ({"max_bits": 786433}, ValueError, "at most 786432 bits fit 65536 points"),
    ({"max_bits": 513 * 8, "digit_bits": 8, "inner_n": 4}, ValueError, "fit 1024 points"),
    ({"digit_bits": 25}, ValueError, "too wide"),
    ({"digit_bits": 7, "max_bits": 64, "inner_n": 4}, ValueError, "digit_bits must be at least 8"),
    ({"engines": 3}, ValueError, "engines must be at most 2"),
    ({"lanes": 3}, ValueError, "lanes"),
    ({"lanes": 128}, ValueError, "lanes"),
    ({"inner_n": 128}, ValueError, "inner_n must be at most 64"),
    ({"max_bits": 1.5}, TypeError, "max_bits"),
    ({"engines": True}, TypeError, "engines"),
    ({"inner_units": 3}, ValueError, "inner_units must be at most 2"),
])
def test_bad_parameters_are_refused_before_hardware_is_built(kw, error, match):
    with pytest.raises(error, match=match):
        LargeIntegerMultiplier(**kw)
    with pytest.raises(error, match=match):
        LargeIntegerMultiplierPlan(**kw)


# The paper's 4096-point transform takes minutes in Icarus: the fast suite runs 16 points.
@pytest.mark.parametrize("kw, n", [
    pytest.param({"max_bits": 49152, "lanes": 4}, 4096, marks=pytest.mark.slow),
    ({"max_bits": 64, "digit_bits": 8, "inner_n": 4, "lanes": 2}, 16)], ids=["4096", "16"])
def test_the_largest_operands_from_reset_in_icarus(tmp_path, kw, n):
    """The largest operands of an n-point transform (n/2 digits: 49,152 bits of 24-bit digits
    at 4096 points), all ones (every carry chain at its longest), in Icarus from reset with
    every register at x; cycles = cycles()."""
    require_iverilog()
    unit = LargeIntegerMultiplier(**kw)
    assert unit.n == n and unit.operand_bits == kw["max_bits"]
    top = (1 << kw["max_bits"]) - 1
    run = run_from_reset(unit, "large-int-mul", {"i": operand_beats(unit, top, top)},
                         {"o": unit.output_beats}, tmp_path)
    assert from_digits([w for beat in run.outputs["o"] for w in beat],
                       unit.digit_bits) == top * top
    assert run.cycles == unit.cycles()
