"""Reducer hardware ([Cao14] Fig. 3, [Kir25] Alg. 7) against the golden models and Python's %."""

import pytest
from helpers import RANDOM_VECTORS, check_unit, rng_for

from fhe_hw.arith import (
    BarrettReducer,
    BarrettReducerPlan,
    MontgomeryReducer,
    MontgomeryReducerPlan,
    SolinasReducer,
    SolinasReducerPlan,
    SpecialReducer,
    SpecialReducerPlan,
)
from fhe_hw.arith.montgomery import signed_digits
from fhe_hw.model import reduce as R
from fhe_hw.params import MODULI, SOLINAS64, ntt_primes

PRIME30 = ntt_primes(30, 1 << 10, 1)[0]
PRIME60 = ntt_primes(60, 1 << 16, 1)[0]
PRIME64 = ntt_primes(64, 1 << 16, 1)[0]
BARRETT_MODULI = [*MODULI.values(), PRIME30, PRIME60, PRIME64]


def edges(p, width):
    """0, 1, p-1, p, p+1, 2^k±1 around p, (p-1)^2 and all ones (the largest legal input)."""
    k = p.bit_length()
    values = [0, 1, p - 1, p, p + 1, (1 << k) - 1, (1 << k) + 1, (1 << (k - 1)) + 1,
              (p - 1) ** 2, 2 * p, (1 << width) - 1, 1 << (width - 1)]
    return [v for v in values if 0 <= v < 1 << width]


def vectors(p, width, *key):
    rng = rng_for(*key)
    return edges(p, width) + [rng.getrandbits(width) for _ in range(RANDOM_VECTORS)]


@pytest.mark.parametrize("modulus", BARRETT_MODULI, ids=str)
def test_barrett_reducer_matches_model_for_every_input_width(modulus):
    unit = BarrettReducer(modulus)
    p, width = unit.modulus, 2 * unit.constants.m
    xs = vectors(p, width, "barrett", p)
    expected = [R.barrett_reduce(x, unit.constants) for x in xs]
    assert expected == [x % p for x in xs]
    check_unit(unit, xs, expected, label=f"BarrettReducer({modulus})")


@pytest.mark.parametrize("mult_stages,tiled,pipelined,deep", [
    (0, True, False, True), (1, True, True, True), (2, True, True, False), (3, False, False, True),
    (4, False, True, True), (6, True, True, True)])
def test_barrett_reducer_latency_follows_its_stages(mult_stages, tiled, pipelined, deep):
    unit = BarrettReducer("general32", mult_stages=mult_stages, tiled=tiled,
                          pipelined=pipelined, deep=deep)
    assert unit.latency == 2 * mult_stages + (1 + deep if pipelined else 0)
    xs = vectors(unit.modulus, 64, "barrett-stages", mult_stages)[:300]
    check_unit(unit, xs, [x % unit.modulus for x in xs], label="Barrett stages")


def test_barrett_reducer_defaults_are_the_fast_multipliers_and_the_deep_selection():
    # general32: t (36 bits) x mu (37 bits) and sigma (33 bits) x p (32 bits), 3 x 3 and
    # 2 x 2 tiles: 4 and 2 adder levels, each plus the DSP's operand and product registers.
    assert BarrettReducerPlan("general32").latency == (4 + 2) + (2 + 2) + 2
    assert BarrettReducer("general32").latency == 12


def test_barrett_reducer_non_default_alpha_beta():
    unit = BarrettReducer(PRIME60, alpha=66, beta=-3)
    xs = vectors(PRIME60, 120, "barrett-ab")[:500]
    check_unit(unit, xs, [R.barrett_reduce(x, unit.constants) for x in xs], label="alpha/beta")


@pytest.mark.parametrize("m", [33, 65, 17, 3])
@pytest.mark.parametrize("pipelined,deep,latency", [(True, True, 4), (True, False, 2),
                                                    (False, True, 0), (False, False, 0)])
def test_special_reducer_matches_model(m, pipelined, deep, latency):
    unit = SpecialReducer(m, pipelined=pipelined, deep=deep)
    p = (1 << (m - 1)) + 1
    assert unit.modulus == p and unit.latency == latency
    assert SpecialReducerPlan(m, pipelined=pipelined, deep=deep).latency == latency
    xs = vectors(p, 2 * m, "special", m, pipelined)
    expected = [R.special_reduce(x, m) for x in xs]
    assert expected == [x % p for x in xs]
    check_unit(unit, xs, expected, label=f"SpecialReducer({m})")


@pytest.mark.parametrize("pipelined,deep,latency", [(True, True, 4), (True, False, 2),
                                                    (False, True, 0)])
def test_solinas_reducer_matches_model(pipelined, deep, latency):
    unit = SolinasReducer(pipelined=pipelined, deep=deep)
    assert unit.latency == SolinasReducerPlan(pipelined=pipelined, deep=deep).latency == latency
    xs = vectors(SOLINAS64, 128, "solinas", pipelined)
    # The extremes of r = 2^32(b+c) - a - b + d: a = all ones, b = c = d = 0 and the reverse.
    xs += [(2**32 - 1) << 96, ((2**32 - 1) << 64) | ((2**32 - 1) << 32) | (2**32 - 1)]
    expected = [R.solinas_reduce(x) for x in xs]
    assert expected == [x % SOLINAS64 for x in xs]
    check_unit(unit, xs, expected, label="SolinasReducer")


MONTGOMERY = [("general32", 17), ("general32", 20), (ntt_primes(32, 1 << 12, 1)[0], 13),
              (PRIME60, 17), (PRIME64, 17), (PRIME30, 11), (PRIME64, 16), (PRIME60, 12)]


@pytest.mark.parametrize("deep", [True, False])
@pytest.mark.parametrize("modulus,word", MONTGOMERY, ids=str)
def test_montgomery_reducer_matches_model(modulus, word, deep):
    unit = MontgomeryReducer(modulus, word, deep=deep)
    c = unit.constants
    xs = vectors(c.q, 2 * c.r, "montgomery", c.q, word)
    expected = [R.montgomery_reduce(x, c) for x in xs]
    assert expected == [x * pow(c.R, -1, c.q) % c.q for x in xs]
    if c.r % word == 0:  # T = q(R + 1) fits in 2r bits and needs a second subtraction
        xs.append(c.q * (c.R + 1))
        expected.append(c.q * (c.R + 1) * pow(c.R, -1, c.q) % c.q)
    check_unit(unit, xs, expected, label=f"MontgomeryReducer({modulus}, {word}, deep={deep})")
    assert unit.corrections == (2 if c.r % word == 0 else 1)
    # Deep: per round T~ (in the DSP's operand registers), the products, one register per
    # adder level of T_H + the tiles of q_H x T~; the subtractions side by side, the selection.
    tiles = -(-c.q_high.bit_length() // 17) * -(-word // 17)
    rounds = c.nu * (2 + tiles.bit_length()) + 2 if deep else c.nu + unit.corrections
    assert unit.latency == MontgomeryReducerPlan(modulus, word, deep=deep).latency == rounds


#: The 30-bit primes OpenFHE picks for N = 2^16 (q_H just below 2^13: two to five signed digits)
#: and the moduli above whose q_H has no negative digit, or many.
OPENFHE30 = [1073479681, 1071513601, 1062862849, 1062469633]


@pytest.mark.parametrize("modulus,word", [(q, 17) for q in OPENFHE30] + MONTGOMERY, ids=str)
def test_montgomery_fabric_rounds_match_the_model(modulus, word):
    unit = MontgomeryReducer(modulus, word, fabric_rounds=True)
    c = unit.constants
    xs = vectors(c.q, 2 * c.r, "montgomery fabric", c.q, word)
    if c.r % word == 0:
        xs.append(c.q * (c.R + 1))
    expected = [x * pow(c.R, -1, c.q) % c.q for x in xs]
    check_unit(unit, xs, expected, label=f"MontgomeryReducer({modulus}, {word}, fabric)")
    # per round: T~, T_H and the carry; one register per adder level of the positive and the
    # negative digits' sums side by side, as many as the most digits a q_H of this width has
    # (at most ceil((b + 1)/2)); their difference
    plus, minus = signed_digits(c.q_high)
    assert sum(1 << s for s in plus) - sum(1 << s for s in minus) == c.q_high
    assert all(b - a >= 2 for a, b in zip(sorted(plus + minus), sorted(plus + minus)[1:]))
    b = c.q_high.bit_length()
    assert len(plus) + len(minus) <= (b + 2) // 2
    assert unit.latency == c.nu * (2 + ((b + 2) // 2).bit_length()) + 2


def test_montgomery_fabric_rounds_need_the_deep_pipeline():
    for kw in ({"deep": False}, {"pipelined": False}):
        with pytest.raises(ValueError, match="fabric_rounds needs pipelined and deep"):
            MontgomeryReducerPlan(OPENFHE30[0], 17, fabric_rounds=True, **kw)
    with pytest.raises(TypeError):
        MontgomeryReducerPlan(OPENFHE30[0], 17, fabric_rounds=1)


def test_montgomery_reducer_latencies_at_the_table_moduli():
    assert MontgomeryReducerPlan("general32", 17).latency == 2 * 3 + 2
    assert MontgomeryReducerPlan(PRIME60, 17).latency == 4 * 4 + 2
    assert MontgomeryReducerPlan("general32", 17, pipelined=False).latency == 0


def test_solinas_reducer_rejects_another_modulus():
    with pytest.raises(ValueError, match="modulus must be 2\\^64 - 2\\^32 \\+ 1"):
        SolinasReducer("general32")


def test_special_reducer_rejects_tiny_m():
    with pytest.raises(ValueError, match="modulus_bits must be at least 3"):
        SpecialReducer(2)


def test_montgomery_rejects_q_not_one_mod_2_pow_word():
    with pytest.raises(ValueError, match="q ≡ 1 \\(mod 2\\^word\\)"):
        MontgomeryReducer(SOLINAS64, 33)


def test_barrett_rejects_even_modulus_and_small_alpha():
    with pytest.raises(ValueError, match="modulus must be odd"):
        BarrettReducer(2**32)
    with pytest.raises(ValueError, match="alpha must be greater than m"):
        BarrettReducer("general32", alpha=31)


def test_invalid_stage_counts_are_rejected():
    with pytest.raises(ValueError, match="mult_stages must be at least 0"):
        BarrettReducer("general32", mult_stages=-1)
    with pytest.raises(TypeError, match="pipelined must be a bool"):
        SpecialReducer(33, pipelined=1)


@pytest.mark.parametrize("build", [
    lambda **kw: BarrettReducer("general32", **kw), lambda **kw: SpecialReducer(33, **kw),
    lambda **kw: SolinasReducer(**kw), lambda **kw: MontgomeryReducer("general32", 17, **kw),
    lambda **kw: BarrettReducerPlan("general32", **kw).latency,
    lambda **kw: SpecialReducerPlan(65, **kw).latency,
    lambda **kw: SolinasReducerPlan(**kw).latency,
    lambda **kw: MontgomeryReducerPlan("general32", 17, **kw).latency])
@pytest.mark.parametrize("deep", [1, "yes", None])
def test_deep_must_be_a_bool_even_when_not_pipelined(build, deep):
    with pytest.raises(TypeError, match=f"deep must be a bool, not {deep!r}"):
        build(deep=deep, pipelined=False)


def test_barrett_tiled_must_be_a_bool():
    with pytest.raises(TypeError, match="tiled must be a bool, not 0"):
        BarrettReducerPlan("general32", tiled=0)
