"""KaratsubaMultiplier (fhe_hw.karatsuba, [Mig16] §III) in pysim against schoolbook products and the
Karatsuba golden model: r = 1, 2, 3, the paper's coefficient sizes, intermediate values (leaf
operands, leaf products), cycle counts, random valid/ready, the modulus option and bad
parameters."""

import pytest
from amaranth.sim import Simulator
from helpers import SEED, rng_for

from fhe_hw.karatsuba import KaratsubaMultiplier, KaratsubaMultiplierPlan
from fhe_hw.model.karatsuba import karatsuba_precompute, leaf_schedule, schoolbook
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit, to_verilog


def random_pairs(unit, count, key, bits=None):
    rng = rng_for("karatsuba", *key)
    bits = unit.coeff_bits if bits is None else bits
    return [([rng.getrandbits(bits) for _ in range(unit.size)],
             [rng.getrandbits(bits) for _ in range(unit.size)]) for _ in range(count)]


def check_products(unit, pairs, got, reduce=None):
    assert len(got) == len(pairs)
    for j, (p, q) in enumerate(pairs):
        want = schoolbook(p, q)
        if reduce is not None:
            want = [c % reduce for c in want]
        if got[j] != want:
            index = next(i for i, (a, b) in enumerate(zip(got[j], want)) if a != b)
            pytest.fail(f"product {j} (seed {SEED}): first mismatch at coefficient {index}: "
                        f"expected {want[index]}, got {got[j][index]}")


def simulate(unit, pairs, **kw):
    run = run_stream(unit, {"i": unit.input_beats(pairs)}, {"o": unit.size * len(pairs)},
                     seed=SEED, **kw)
    return run, unit.products(run.outputs["o"])


@pytest.mark.parametrize("r", [1, 2, 3])
def test_product_equals_schoolbook(r):
    unit = KaratsubaMultiplier(r, coeff_bits=8, digit_bits=6)
    pairs = random_pairs(unit, 3, ("small", r))
    _, got = simulate(unit, pairs)
    check_products(unit, pairs, got)


# Karatsuba-3 (eight leaf multipliers) in the slow suite here and below; its products in the
# fast suite through test_product_equals_schoolbook.
@pytest.mark.parametrize("r", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_simulated_cycles_equal_the_formula(r):
    unit = KaratsubaMultiplier(r, coeff_bits=8, digit_bits=6)
    run, _ = simulate(unit, random_pairs(unit, 2, ("cycles", r)))
    assert run.cycles == unit.cycles(2) == get_unit("karatsuba").cycles(
        {"recursions": r, "coeff_bits": 8, "digit_bits": 6}, products=2)


def test_all_ones_coefficients_reach_the_carrier_bound():
    """coeff_bits + r = digits·digit_bits: the pre-computed sums use every carrier bit."""
    unit = KaratsubaMultiplier(3, coeff_bits=9, digit_bits=6, digits=2)
    top = (1 << 9) - 1
    pairs = [([top] * unit.size, [top] * unit.size), ([0] * unit.size, [top] * unit.size)]
    _, got = simulate(unit, pairs)
    check_products(unit, pairs, got)


@pytest.mark.slow
def test_paper_coefficients_karatsuba3():
    """Karatsuba-3 as in [Mig16] §III: 131-bit operands (125 bits after 6 software recursions) in
    5 digits of 27 bits, 100 multipliers (in the slow suite; Karatsuba-3 at smaller coefficients
    runs in the fast suite in the other tests of this file)."""
    unit = KaratsubaMultiplier(3, coeff_bits=131)
    assert (unit.digits, unit.multipliers, unit.size) == (5, 100, 40)
    pairs = random_pairs(unit, 1, ("paper3",))
    top = (1 << 131) - 1
    pairs.append(([top] * 40, [top] * 40))
    run, got = simulate(unit, pairs)
    check_products(unit, pairs, got)
    assert run.cycles == unit.cycles(2)


def test_paper_coefficients_karatsuba1_with_random_handshakes():
    unit = KaratsubaMultiplier(1, coeff_bits=125)
    pairs = random_pairs(unit, 3, ("paper1",))
    _, got = simulate(unit, pairs, valid_prob=0.6, ready_prob=0.5)
    check_products(unit, pairs, got)


@pytest.mark.parametrize("r", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_random_valid_and_ready_keep_products_exact(r):
    unit = KaratsubaMultiplier(r, coeff_bits=7, digit_bits=5)
    pairs = random_pairs(unit, 3, ("handshake", r))
    _, got = simulate(unit, pairs, valid_prob=0.5, ready_prob=0.4)
    check_products(unit, pairs, got)


def test_sparse_input_drains_the_pipeline_and_restarts():
    """Long input gaps: in-flight products finish through bubble periods, then the engine
    waits at a product boundary until the next product arrives."""
    unit = KaratsubaMultiplier(1, coeff_bits=7, digit_bits=4)
    pairs = random_pairs(unit, 3, ("sparse",))
    _, got = simulate(unit, pairs, valid_prob=0.03)
    check_products(unit, pairs, got)


@pytest.mark.parametrize("leaf", [1, 2, 3])
def test_other_leaf_sizes(leaf):
    unit = KaratsubaMultiplier(2, leaf=leaf, coeff_bits=7, digit_bits=4)
    pairs = random_pairs(unit, 2, ("leaf", leaf))
    run, got = simulate(unit, pairs)
    check_products(unit, pairs, got)
    assert run.cycles == unit.cycles(2)


def test_single_digit_carrier():
    unit = KaratsubaMultiplier(2, coeff_bits=6, digit_bits=8)
    assert unit.digits == 1
    pairs = random_pairs(unit, 2, ("one-digit",))
    run, got = simulate(unit, pairs)
    check_products(unit, pairs, got)
    assert run.cycles == unit.cycles(2)


def test_four_recursions_duplicate_karatsuba3():
    unit = KaratsubaMultiplier(4, coeff_bits=5, digit_bits=5, digits=2)
    assert unit.lines == 8
    pairs = random_pairs(unit, 1, ("k4",))
    run, got = simulate(unit, pairs)
    check_products(unit, pairs, got)
    assert run.cycles == unit.cycles(1)


# --- pipelining ------------------------------------------------------------------------------

@pytest.mark.parametrize("r", [1, 2])
@pytest.mark.parametrize("pipelined", [False, True])
def test_both_datapaths_are_exact_with_handshakes(r, pipelined):
    unit = KaratsubaMultiplier(r, coeff_bits=8, digit_bits=6, pipelined=pipelined)
    assert unit.pipelined is pipelined
    pairs = random_pairs(unit, 3, ("pipelined", r, pipelined))
    _, got = simulate(unit, pairs, valid_prob=0.6, ready_prob=0.5)
    check_products(unit, pairs, got)


@pytest.mark.parametrize("r", [1, 3])
def test_unpipelined_cycles_equal_the_formula(r):
    unit = KaratsubaMultiplier(r, coeff_bits=8, digit_bits=6, pipelined=False)
    run, _ = simulate(unit, random_pairs(unit, 2, ("unpipelined", r)))
    assert run.cycles == unit.cycles(2) == get_unit("karatsuba").cycles(
        {"recursions": r, "coeff_bits": 8, "digit_bits": 6, "pipelined": False}, products=2)


@pytest.mark.parametrize("digit_bits,coeff_bits,digits", [(1, 4, None), (2, 5, 3), (8, 6, 1)])
@pytest.mark.parametrize("pipelined", [False, True])
def test_carry_save_accumulation_at_the_carrier_bound(digit_bits, coeff_bits, digits, pipelined):
    """All-ones operands filling the carrier: the largest carries through the compressors and
    the digit and chunk resolutions, for 1-bit digits, two digits and one digit."""
    unit = KaratsubaMultiplier(1, coeff_bits=coeff_bits, digit_bits=digit_bits, digits=digits,
                               pipelined=pipelined)
    top = (1 << coeff_bits) - 1
    pairs = [([top] * unit.size, [top] * unit.size)] + random_pairs(unit, 1, ("bound",
                                                                           digit_bits))
    run, got = simulate(unit, pairs)
    check_products(unit, pairs, got)
    assert run.cycles == unit.cycles(2)


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("leaf", [1, 5])
def test_pipelining_costs_four_plus_leaf_digits_plus_r_cycles_of_latency_not_period(r, leaf):
    fast = dict(leaf=leaf, coeff_bits=125, pipelined=True)
    slow = dict(leaf=leaf, coeff_bits=125, pipelined=False)
    assert (KaratsubaMultiplierPlan(r, **fast).latency
            - KaratsubaMultiplierPlan(r, **slow).latency) == 4 + leaf * 5 + r
    assert (KaratsubaMultiplierPlan(r, **fast).cycles(products=5)
            - KaratsubaMultiplierPlan(r, **slow).cycles(products=5)) == 4 + leaf * 5 + r


@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_rejects_a_pipelined_flag_that_is_not_a_bool(value):
    for check in (KaratsubaMultiplier, KaratsubaMultiplierPlan):
        with pytest.raises(TypeError, match="pipelined must be a bool"):
            check(1, coeff_bits=8, digit_bits=6, pipelined=value)


# --- intermediate values ---------------------------------------------------------------------

def probe_trace(unit, pairs, cycles, probes):
    """Values of ``probes`` (lists of signals) in every cycle of a run with always-valid input
    and always-ready output; the core sees the first input digit in cycle
    ``unit.ENTRY_LATENCY``."""
    beats = unit.input_beats(pairs)
    trace = []

    async def bench(ctx):
        ctx.set(unit.o.ready, 1)
        pending = list(beats)
        for _ in range(cycles):
            if pending:
                ctx.set(unit.i.payload, pending[0])
                ctx.set(unit.i.valid, 1)
            else:
                ctx.set(unit.i.valid, 0)
            trace.append([ctx.get(s) for s in probes])
            if pending and ctx.get(unit.i.ready):
                pending.pop(0)
            await ctx.tick()

    sim = Simulator(unit)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return trace


def digits_to_coeffs(trace, index, start, count, digits, width):
    return [sum(trace[start + i * digits + d][index] << (width * d) for d in range(digits))
            for i in range(count)]


def test_leaf_operands_match_the_models_precompute():
    r, leaf = 3, 5
    unit = KaratsubaMultiplier(r, leaf, coeff_bits=8, digit_bits=6)
    plan = unit.plan.layout
    p, q = random_pairs(unit, 1, ("probe-pre",))[0]
    probes = [s for pair in unit.core.channel_probes for s in pair]
    entry = unit.ENTRY_LATENCY
    trace = probe_trace(unit, [(p, q)], entry + plan.precompute_time + plan.period, probes)
    want_p, want_q = karatsuba_precompute(p, r), karatsuba_precompute(q, r)
    for n, leaf_slot in enumerate(leaf_schedule(r)):
        start = entry + plan.precompute_time + leaf_slot.slot * plan.slot
        for operand, want in ((0, want_p), (1, want_q)):
            got = digits_to_coeffs(trace, 2 * leaf_slot.channel + operand, start, leaf,
                                   plan.digits, plan.digit_bits)
            assert got == want[n], f"leaf {leaf_slot.path} operand {operand}"


def test_leaf_products_leave_the_sub_multipliers_as_scheduled():
    r, leaf = 3, 5
    unit = KaratsubaMultiplier(r, leaf, coeff_bits=8, digit_bits=6)
    plan, sched = unit.plan.layout, unit.schedule
    p, q = random_pairs(unit, 1, ("probe-mult",))[0]
    probes = [s for pair in unit.core.product_probes for s in pair]
    last = max(s.slot + sched.delay[s.channel] for s in leaf_schedule(r)) + 1
    entry = unit.ENTRY_LATENCY
    trace = probe_trace(unit, [(p, q)], entry + plan.line_out_time + last * plan.slot, probes)
    pre_p, pre_q = karatsuba_precompute(p, r), karatsuba_precompute(q, r)
    for n, s in enumerate(leaf_schedule(r)):
        want = schoolbook(pre_p[n], pre_q[n]) + [0]
        start = entry + plan.line_out_time + (s.slot + sched.delay[s.channel]) * plan.slot
        line = sched.line[s.channel]
        got = []
        for b in range(leaf):
            for lane in range(2):
                got += digits_to_coeffs(trace, 2 * line + lane, start + b * plan.digits, 1,
                                        plan.digits, plan.chunk_bits)
        assert got == want, f"leaf {s.path} on line {line}"


# --- modulus option --------------------------------------------------------------------------

@pytest.mark.parametrize("r,digit_bits", [(1, 5), (2, 14)])
def test_modulus_reduces_every_coefficient(r, digit_bits):
    q = 4093
    unit = KaratsubaMultiplier(r, coeff_bits=12, digit_bits=digit_bits, modulus=q)
    rng = rng_for("karatsuba-mod", r)
    pairs = [([rng.randrange(q) for _ in range(unit.size)],
              [rng.randrange(q) for _ in range(unit.size)]), ([q - 1] * unit.size,) * 2]
    run, got = simulate(unit, pairs)
    check_products(unit, pairs, got, reduce=q)
    assert run.cycles == unit.cycles(2)


def test_modulus_with_paper_sized_coefficients_and_handshakes():
    q = (1 << 125) - 159
    unit = KaratsubaMultiplier(1, coeff_bits=125, modulus=q)
    assert unit.output_bits == 125
    rng = rng_for("karatsuba-mod125")
    pairs = [([rng.randrange(q) for _ in range(unit.size)],
              [rng.randrange(q) for _ in range(unit.size)]) for _ in range(2)]
    _, got = simulate(unit, pairs, valid_prob=0.7, ready_prob=0.6)
    check_products(unit, pairs, got, reduce=q)


# --- generation and parameters ----------------------------------------------------------------

def test_generate_writes_verilog():
    unit = get_unit("karatsuba").build(recursions=1, coeff_bits=10, digit_bits=6)
    text = to_verilog(unit, "karatsuba")
    assert "module fhe_hw_karatsuba(" in text and "o__payload" in text


def test_properties_describe_the_paper_configuration():
    unit = KaratsubaMultiplier(3, coeff_bits=131)
    assert (unit.recursions, unit.leaf, unit.digit_bits, unit.digits, unit.lines) == \
        (3, 5, 27, 5, 4)
    assert unit.period == 200 and unit.modulus is None
    assert unit.output_bits == (40 * ((1 << 131) - 1) ** 2).bit_length()


def test_rejects_zero_recursions():
    with pytest.raises(ValueError, match="recursions must be at least 1"):
        KaratsubaMultiplier(0)


def test_rejects_non_integer_recursions():
    with pytest.raises(TypeError, match="recursions must be an integer"):
        KaratsubaMultiplier(3.0)


def test_rejects_zero_leaf():
    with pytest.raises(ValueError, match="leaf"):
        KaratsubaMultiplier(3, leaf=0)


def test_rejects_coefficients_wider_than_the_carrier():
    with pytest.raises(ValueError, match="carrier"):
        KaratsubaMultiplier(3, coeff_bits=133, digits=5)


def test_rejects_recursions_beyond_the_carrier_headroom():
    """131-bit coefficients in 5 digits of 27 bits (135) leave room for 4 additions, not 5."""
    with pytest.raises(ValueError, match="carrier"):
        KaratsubaMultiplier(5, coeff_bits=131, digits=5)


def test_rejects_more_recursions_than_hardware_takes():
    with pytest.raises(ValueError, match="recursions must be at most 5"):
        KaratsubaMultiplier(11, coeff_bits=125, digits=5)


def test_rejects_zero_digit_bits():
    with pytest.raises(ValueError, match="digit_bits"):
        KaratsubaMultiplier(3, digit_bits=0)


def test_rejects_a_modulus_below_three():
    with pytest.raises(ValueError, match="modulus"):
        KaratsubaMultiplier(1, coeff_bits=8, modulus=2)


def test_rejects_polynomials_of_the_wrong_degree():
    unit = KaratsubaMultiplier(1, coeff_bits=8, digit_bits=6)
    with pytest.raises(ValueError, match="size = 10"):
        unit.input_beats([([1] * 11, [1] * 11)])


def test_rejects_coefficients_out_of_range():
    unit = KaratsubaMultiplier(1, coeff_bits=8, digit_bits=6)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*8\)"):
        unit.input_beats([([256] * 10, [1] * 10)])
