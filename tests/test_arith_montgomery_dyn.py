"""Run-time-modulus word-level Montgomery multiplier ([Kir25] Alg. 7) and run-time-modulus modular
adders ([Kir25] Alg. 5, 6) against Python, switching the modulus on every operation."""

import pytest
from helpers import check_unit, rng_for

from fhe_hw.arith import MontgomeryReducer
from fhe_hw.arith.modadd_dyn import DynamicModAdd, DynamicModSub
from fhe_hw.arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan, common_montgomery_word
from fhe_hw.model import reduce as R
from fhe_hw.params import montgomery_constants, ntt_primes

SETS = {bits: ntt_primes(bits, 1 << 12, 4) for bits in (32, 60, 64)}


def operands(moduli, *key, count=600, full_width=False):
    """Edge and random {a, b, q}: a, b below q, or below 2^r when ``full_width``."""
    rng = rng_for(*key)
    r = max(q.bit_length() for q in moduli)
    out = []
    for q in moduli:
        top = (1 << r) if full_width else q
        out += [{"a": a, "b": b, "q": q} for a, b in
                [(0, 0), (1, 1), (q - 1, q - 1), (top - 1, top - 1), (top - 1, 1), (0, top - 1)]]
    out += [{"a": rng.randrange(top), "b": rng.randrange(top), "q": q}
            for q in [rng.choice(moduli) for _ in range(count)]
            for top in [(1 << r) if full_width else q]]
    return out


@pytest.mark.parametrize("tiled,deep", [(True, True), (False, False), (True, False),
                                        (False, True)])
@pytest.mark.parametrize("bits", sorted(SETS))
def test_dynamic_montgomery_multiplies_modulo_the_operand_modulus(bits, tiled, deep):
    moduli = SETS[bits]
    unit = DynamicModMul(moduli, tiled=tiled, deep=deep)
    ins = operands(moduli, "dynmul", bits, count=300)
    expected = [v["a"] * v["b"] * unit.output_scale(v["q"]) % v["q"] for v in ins]
    check_unit(unit, ins, expected, label=f"DynamicModMul({bits}-bit, {tiled=}, {deep=})")


def test_dynamic_montgomery_is_exact_for_unreduced_operands():
    """RNS engines feed residues of one modulus into a product modulo another."""
    moduli = SETS[60]
    unit = DynamicModMul(moduli, 12)
    ins = operands(moduli, "dynmul-wide", full_width=True)
    check_unit(unit, ins, [v["a"] * v["b"] * unit.output_scale(v["q"]) % v["q"] for v in ins],
               label="DynamicModMul(unreduced)")


def test_dynamic_montgomery_agrees_with_the_fixed_reducer_model():
    q = SETS[32][0]
    unit = DynamicModMul([q], 13)
    c = montgomery_constants(q, 13)
    assert unit.R == c.R and unit.nu == c.nu
    assert unit.corrections == MontgomeryReducer(q, 13).corrections
    ins = operands([q], "dynmul-model", count=200)
    check_unit(unit, ins, [R.montgomery_reduce(v["a"] * v["b"], c) for v in ins],
               label="DynamicModMul vs model")


def test_premultiplied_constant_gives_plain_product():
    moduli = SETS[32]
    unit = DynamicModMul(moduli)
    rng = rng_for("premul")
    ins, expected = [], []
    for _ in range(200):
        q = rng.choice(moduli)
        a, c = rng.randrange(q), rng.randrange(q)
        ins.append({"a": a, "b": unit.premultiply(c, q), "q": q})
        expected.append(a * c % q)
    check_unit(unit, ins, expected, label="premultiply")


def test_latency_counts_multiplier_rounds_and_corrections():
    unit = DynamicModMul(SETS[64], 13, mult_stages=3, deep=False)
    assert unit.nu == 5
    assert unit.latency == 3 + 5 + unit.corrections


def test_deep_latency_counts_the_round_registers_and_two_for_the_subtractions():
    # 64-bit moduli, w = 13: q_H has 51 bits, 3 tiles; a round is T~ (the DSPs' operand
    # registers), the products, then 2 adder levels for T_H and the 3 tiles.
    assert DynamicModMulPlan(SETS[64], 13, mult_stages=3).latency == 3 + 5 * (2 + 2) + 2
    # 32-bit moduli, w = 13: q_H has 19 bits, 2 tiles, 2 adder levels.
    assert DynamicModMul(SETS[32]).latency == 4 + 3 * (2 + 2) + 2


@pytest.mark.parametrize("bits, deep", [(32, True), (60, False)])
def test_tile_registers_are_one_multiplier_stage_more(bits, deep):
    moduli = SETS[bits]
    unit = DynamicModMul(moduli, tile_reg=True, deep=deep)
    assert unit.latency == DynamicModMulPlan(moduli, deep=deep).latency + 1
    ins = operands(moduli, "dynmul-tile-reg", bits, count=200, full_width=True)
    expected = [v["a"] * v["b"] * unit.output_scale(v["q"]) % v["q"] for v in ins]
    check_unit(unit, ins, expected, label=f"DynamicModMul({bits}-bit, tile_reg=True)")


@pytest.mark.parametrize("kw", [{"tiled": False}, {"mult_stages": 0}])
def test_tile_registers_need_tiles_and_a_registered_multiplier(kw):
    with pytest.raises(ValueError, match="tile_reg needs tiled=True and mult_stages >= 1"):
        DynamicModMulPlan(SETS[32], tile_reg=True, **kw)


@pytest.mark.parametrize("name,value", [("deep", 1), ("tiled", "yes"), ("tile_reg", 1)])
def test_refuses_a_non_bool_deep_or_tiled(name, value):
    with pytest.raises(TypeError, match=f"{name} must be a bool, not {value!r}"):
        DynamicModMulPlan(SETS[32], **{name: value})


def test_default_word_is_the_common_two_adicity_up_to_17():
    assert common_montgomery_word(SETS[32]) == 13
    assert common_montgomery_word([(1 << 32) - (1 << 20) + 1]) == 17


def test_rejects_modulus_not_one_mod_two_to_the_word():
    with pytest.raises(ValueError, match="q ≡ 1 \\(mod 2\\^word\\)"):
        DynamicModMul(SETS[32] + [2**31 + 11], 13)


def test_rejects_even_modulus():
    with pytest.raises(ValueError, match="moduli must be odd"):
        DynamicModMul([2**32])


def test_rejects_empty_moduli():
    with pytest.raises(ValueError, match="non-empty"):
        DynamicModMul([])


def test_premultiply_rejects_foreign_modulus():
    with pytest.raises(ValueError, match="one of the unit's moduli"):
        DynamicModMul(SETS[32]).premultiply(3, 97)


@pytest.mark.parametrize("cls,op", [(DynamicModAdd, int.__add__), (DynamicModSub, int.__sub__)],
                         ids=["add", "sub"])
@pytest.mark.parametrize("pipelined", [True, False])
def test_dynamic_add_sub_follow_the_operand_modulus(cls, op, pipelined):
    moduli = SETS[64]
    unit = cls(64, pipelined=pipelined)
    assert unit.latency == int(pipelined) and unit.modulus is None
    ins = operands(moduli, cls.__name__, pipelined, count=500)
    check_unit(unit, ins, [op(v["a"], v["b"]) % v["q"] for v in ins], label=cls.__name__)
