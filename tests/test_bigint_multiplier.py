"""IntegerFFTMultiplier ([Cao13] §3): products, RAM image and cycles against the golden model
(fhe_hw.model.bigint) and Python's *, at every modulus with a reduced transform size (k = 8 or
16, so pysim stays fast); the [Cao14] Table 2 sizes run in the slow suite."""

import pytest
from helpers import rng_for, slow_except

from fhe_hw.bigint import IntegerFFTMultiplier, IntegerFFTMultiplierPlan
from fhe_hw.bigint.run import run_harness, run_multiplies, run_multiply
from fhe_hw.model.bigint import block_config, block_multiply, block_multiply_trace

# (modulus, k, b, d): every modulus, with and without adder-tree levels (d > b), kb/2d >= 4.
SMALL = [("fermat32", 16, 12, 24), ("fermat64", 8, 24, 24), ("solinas64", 8, 28, 28),
         ("general32", 16, 12, 12)]


def _unit(modulus, k, b, d, max_bits=1024):
    return IntegerFFTMultiplier(modulus, k, b, d, max_bits, addr_width=10)


# general32 (16 points of 12 bits, the longest run) in the slow suite; d = b at fermat64 and
# solinas64 here.
@pytest.mark.parametrize("modulus,k,b,d", slow_except(SMALL, fast=SMALL[:3]))
def test_product_matches_model_and_python_at_every_modulus(modulus, k, b, d):
    unit = _unit(modulus, k, b, d)
    rng = rng_for("mul", modulus)
    W = unit.words_per_block
    # x of three blocks (outer loop, rows i > 0 read back partial products), y of two and a
    # bit, so that the last block of y is partial and read past its end as zeros.
    xw, yw = 3 * W, 2 * W + 1
    x, y = rng.getrandbits(xw * d), rng.getrandbits(yw * d)
    fill = [rng.getrandbits(d) for _ in range(unit.product_words(xw, yw))]
    z, run = run_multiply(unit, x, y, x_words=xw, y_words=yw, fill=fill)
    assert run.result == 0, "no error flag"
    assert z == x * y == block_multiply(x, y, modulus, k, b, d=d), \
        f"{modulus}: seed key ('mul', {modulus!r})"
    assert run.cycles == unit.cycles(xw, yw)


def test_ram_image_equals_the_model_trace_word_for_word():
    modulus, k, b, d = SMALL[0]
    unit = _unit(modulus, k, b, d)
    rng = rng_for("trace")
    W = unit.words_per_block
    x, y = rng.getrandbits(2 * W * d), rng.getrandbits(2 * W * d)
    _, run = run_multiply(unit, x, y, x_words=2 * W, y_words=2 * W)
    trace = block_multiply_trace(x, y, modulus, k, b, d=d)
    model_ram = {}
    for writes in trace.writes:
        model_ram.update(writes)
    assert run.ram == [model_ram[a] for a in range(len(run.ram))]


def test_edge_operands_zero_one_and_all_ones():
    # The smallest transform (fermat64, k = 8: pysim seconds, not minutes); every modulus's
    # products are checked at random operands above.
    modulus, k, b, d = SMALL[1]
    unit = _unit(modulus, k, b, d)
    W = unit.words_per_block
    ones_x, ones_y = (1 << (2 * W * d)) - 1, (1 << (W * d)) - 1
    pairs = [(x, y, 2 * W, W) for x, y in
             [(0, 0), (1, 1), (ones_x, ones_y), (ones_x, 1), (1, ones_y), (ones_x, 0)]]
    pairs += [(1, 1, 1, 1), (ones_y, ones_y, W, W)]
    for (x, y, xw, yw), (z, run) in zip(pairs, run_multiplies(unit, pairs)):
        assert z == x * y, f"x = {x:#x}, y = {y:#x}"
        assert run.cycles == unit.cycles(xw, yw)


def test_block_counts_and_partial_last_blocks_back_to_back():
    # One, two and three blocks per operand, with the last block full or cut at either end,
    # one command after another on one unit (the row and column count-downs reload from each
    # command, not from reset), every word non-zero so that a read past an operand's end (it
    # lands on the next operand) spoils the product.
    modulus, k, b, d = SMALL[0]
    unit = _unit(modulus, k, b, d)
    W = unit.words_per_block
    rng = rng_for("counts")
    sizes = [(3 * W - 1, 2 * W + 1), (1, 1), (W + 1, 2 * W), (2 * W, W - 1), (1, 3 * W),
             (3 * W, 1), (W, W + 1), (2 * W + 1, 3 * W - 1), (W - 1, W)]

    def operand(words):
        return sum((rng.getrandbits(d - 1) | 1 << (d - 1)) << (n * d) for n in range(words))

    pairs = [(operand(xw), operand(yw), xw, yw) for xw, yw in sizes]
    for (x, y, xw, yw), (z, run) in zip(pairs, run_multiplies(unit, pairs)):
        n1, n2 = -(-xw // W), -(-yw // W)
        assert run.result == 0 and z == x * y, (xw, yw)
        assert run.cycles == W * n1 * n2 + W * n1 + W + unit.pipeline_latency + 4, (xw, yw)


def test_result_survives_random_backpressure_on_the_output():
    modulus, k, b, d = SMALL[2]
    unit = _unit(modulus, k, b, d)
    rng = rng_for("ready")
    x, y = rng.getrandbits(200), rng.getrandbits(90)
    z, run = run_multiply(unit, x, y, ready_prob=0.5, seed=3)
    assert z == x * y


def test_cycles_is_eq12_plus_four_register_cycles():
    unit = _unit(*SMALL[0])
    for xw, yw in [(1, 1), (8, 3), (40, 41)]:
        assert unit.cycles(xw, yw) == unit.cycles_eq12(xw, yw) + 4


@pytest.mark.parametrize("modulus,k,b,d", SMALL)
def test_the_counts_without_building_use_the_built_units_depths(modulus, k, b, d):
    """The plan's cycles and cycles_eq12 (the report's, which builds nothing) take each
    transform's butterfly-stage depths and the point-wise ModMul's latency: they are the built
    units' own."""
    unit = _unit(modulus, k, b, d)
    depths = unit.plan.butterflies
    assert depths == {"fft": unit._fwd[0].stage_latencies, "ifft": unit._inv.stage_latencies}
    assert unit.plan.stages["pointwise"] == unit._pw[0].latency
    plan = IntegerFFTMultiplierPlan(modulus, n=k, digit_bits=b, bus_width=d, max_bits=1024,
                                    addr_width=10)
    assert plan == unit.plan
    assert plan.cycles(8, 3) == unit.cycles(8, 3) == unit.cycles(x_words=8, y_words=3)
    assert plan.cycles_eq12(8, 3) == unit.cycles_eq12(8, 3)
    assert plan.cycles() == unit.cycles(unit.max_words, unit.max_words)


def test_operand_longer_than_max_or_empty_raises_the_error_flag_after_two_cycles():
    unit = _unit(*SMALL[0], max_bits=1024)     # max_words = 43
    assert unit.max_words == 43
    bad = [(0, 4), (4, 0), (44, 4), (4, 44), (63, 63)]
    cmds = [unit.command(0, xw, 0, yw, 8) for xw, yw in bad] + [unit.command(0, 1, 1, 1, 8)]
    runs = run_harness(unit, [3, 5] + [0] * 6, cmds, (8, 2))
    for (xw, yw), run in zip(bad, runs[:-1]):
        assert run.result == 1 and run.cycles == 2, (xw, yw)
        with pytest.raises(ValueError, match="must be"):
            unit.cycles(xw, yw)
    # and the unit still works afterwards
    assert runs[-1].result == 0 and runs[-1].ram[0] == 15


@pytest.mark.parametrize("kwargs,match", [
    (dict(modulus="fermat32", n=64, digit_bits=14), "^digit_bits must satisfy .* at most 13 "),
    (dict(modulus="solinas64", n=128, digit_bits=30), "^digit_bits must satisfy"),
    (dict(modulus="fermat32", n=16, digit_bits=12, bus_width=36), "^bus_width must be digit_bits"),
    (dict(modulus="fermat32", n=8, digit_bits=12, bus_width=24), "^bus_width must leave .* >= 4 "),
    (dict(modulus="fermat32", n=16, digit_bits=12, max_bits=0), "^max_bits must be"),
    (dict(modulus="fermat32", n=256, digit_bits=4), "^n must divide q - 1 .* at most 128, "),
    (dict(modulus="fermat32", n=12, digit_bits=4), "^n must be a power of two"),
    (dict(modulus=257), "^n and digit_bits must be given"),
    (dict(modulus=2**32, n=16, digit_bits=8), "must be"),
])
def test_bad_parameters_raise_before_any_hardware_is_built(kwargs, match):
    with pytest.raises(ValueError, match=match):
        IntegerFFTMultiplier(**kwargs)


def test_table_configurations_have_kb_over_2d_equal_8():
    for modulus, d in [("fermat32", 32), ("fermat64", 192), ("solinas64", 224),
                       ("general32", 48)]:
        cfg = block_config(modulus)
        assert cfg.d == d and cfg.words == 8


# The [Cao14] Table 2 rows themselves (k = 64 and 128), with operands of several kb/2-bit blocks for
# every row (solinas64's block is 1792 bits, fermat32's 256).
@pytest.mark.slow
@pytest.mark.parametrize("modulus", ["fermat32", "fermat64", "solinas64", "general32"])
def test_table2_size_multiplier_in_pysim(modulus):
    unit = IntegerFFTMultiplier(modulus, max_bits=4096, addr_width=12)
    rng = rng_for("table", modulus)
    x, y = rng.getrandbits(4000) | 1 << 3999, rng.getrandbits(2500)
    z, run = run_multiply(unit, x, y)
    assert z == x * y and run.cycles == unit.cycles(-(-4000 // unit.bus_width),
                                                    -(-2500 // unit.bus_width))
