"""ModAdd / ModSub ([Kir25] Alg. 5, 6), the pipelined Multiplier and ModMul against Python."""

import pytest
from amaranth import Module, Signal
from amaranth.sim import Simulator
from helpers import RANDOM_VECTORS, alternating_slow, check_unit, rng_for

from fhe_hw.arith import ModAdd, ModMul, ModMulPlan, ModSub
from fhe_hw.arith.modadd import add_parallel, add_select, operand_layout, sub_parallel
from fhe_hw.arith.modmul import choose_reducer
from fhe_hw.arith.pipeline import FixedLatencyUnit, Multiplier, Stages
from fhe_hw.model import reduce as R
from fhe_hw.params import MODULI, ntt_primes

MODULI_ALL = [*MODULI, ntt_primes(30, 1 << 10, 1)[0], ntt_primes(60, 1 << 16, 1)[0],
              ntt_primes(64, 1 << 16, 1)[0]]


def pairs(q, *key, count=RANDOM_VECTORS):
    rng = rng_for(*key)
    edge = [(0, 0), (0, 1), (1, 0), (q - 1, q - 1), (q - 1, 1), (1, q - 1), (0, q - 1),
            (q // 2, q // 2 + 1)]
    return [{"a": a, "b": b} for a, b in edge] + \
           [{"a": rng.randrange(q), "b": rng.randrange(q)} for _ in range(count)]


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
@pytest.mark.parametrize("cls,model,op", [(ModAdd, R.mod_add, int.__add__),
                                          (ModSub, R.mod_sub, int.__sub__)], ids=["add", "sub"])
def test_mod_add_sub_match_model(modulus, cls, model, op):
    unit = cls(modulus)
    q = unit.modulus
    ins = pairs(q, cls.__name__, q)
    expected = [model(v["a"], v["b"], q) for v in ins]
    assert expected == [op(v["a"], v["b"]) % q for v in ins]
    check_unit(unit, ins, expected, label=f"{cls.__name__}({modulus})")


def test_unpipelined_mod_add_is_combinational():
    unit = ModAdd("general32", pipelined=False)
    assert unit.latency == 0
    ins = pairs(unit.modulus, "comb", count=200)
    check_unit(unit, ins, [(v["a"] + v["b"]) % unit.modulus for v in ins], label="comb add")


@pytest.mark.parametrize("runtime_q", [False, True], ids=["const-q", "runtime-q"])
def test_one_chain_add_and_sub_are_exact_for_every_operand_pair(runtime_q):
    # every a, b in [0, q) for small q up to the width's limit, q a constant or a signal
    width = 6
    a, b, qs, add, add_p, sub = (Signal(width) for _ in range(6))
    results = []
    for q in (3, 5, 17, 41, 63):
        m = Module()
        modulus = qs if runtime_q else q
        m.d.comb += [add.eq(add_select(b, (b - modulus)[:width + 1].as_signed(), a)),
                     add_p.eq(add_parallel(a, b, modulus, width)),
                     sub.eq(sub_parallel(a, b, modulus, width))]
        sim = Simulator(m)

        async def bench(ctx, q=q):
            ctx.set(qs, q)
            for x in range(q):
                for y in range(q):
                    ctx.set(a, x)
                    ctx.set(b, y)
                    results.append((q, x, y, ctx.get(add), ctx.get(add_p), ctx.get(sub)))
        sim.add_testbench(bench)
        sim.run()
    assert len(results) == 9 + 25 + 17 ** 2 + 41 ** 2 + 63 ** 2
    for q, x, y, got_add, got_add_p, got_sub in results:
        assert (got_add, got_add_p, got_sub) == ((x + y) % q,) * 2 + ((x - y) % q,), (q, x, y)


class _Mul(FixedLatencyUnit):
    def __init__(self, aw, bw, stages, tiled=False, karatsuba=False, tile_reg=False):
        self._mul = Multiplier(aw, bw, stages, tiled=tiled, karatsuba=karatsuba,
                               tile_reg=tile_reg)
        self._latency = self._mul.stages
        super().__init__(operand_layout(max(aw, bw), "a", "b"), self._mul.product_width)
        self._widths = aw, bw

    def elaborate(self, platform):
        m = Module()
        st = Stages(m, self.i.valid)
        aw, bw = self._widths
        product = self._mul.build(st, self.i.payload.a[:aw], self.i.payload.b[:bw])
        assert st.latency == self._latency
        m.d.comb += [self.o.payload.eq(product), self.o.valid.eq(st.valid)]
        return m


@pytest.mark.parametrize("aw,bw,stages,tiled", [
    (64, 64, 4, False), (64, 64, 1, False), (64, 64, 7, False), (33, 33, 2, False),
    (17, 17, 3, False), (128, 70, 5, False), (8, 8, 0, False), (64, 64, None, False),
    (64, 64, 4, True), (64, 64, 1, True), (65, 65, 4, True), (70, 33, 6, True), (8, 8, 0, True),
    (64, 64, 2, True), (64, 64, 6, True), (64, 64, 9, True), (64, 64, None, True),
    (17, 17, None, True), (1, 40, None, True)])
def test_pipelined_multiplier_latency_and_product(aw, bw, stages, tiled):
    unit = _Mul(aw, bw, stages, tiled)
    if stages is not None:
        assert unit.latency == stages
    rng = rng_for("mul", aw, bw, stages, tiled)
    ins = [{"a": (1 << aw) - 1, "b": (1 << bw) - 1}, {"a": 0, "b": 1}] + \
          [{"a": rng.getrandbits(aw), "b": rng.getrandbits(bw)} for _ in range(300)]
    check_unit(unit, ins, [v["a"] * v["b"] for v in ins], label="Multiplier")


@pytest.mark.parametrize("width,stages", [(18, None), (33, None), (34, None), (35, None),
                                          (64, None), (65, None), (64, 11), (100, None)])
def test_karatsuba_multiplier_is_the_product_after_its_stages(width, stages):
    unit = _Mul(width, width, stages, tiled=True, karatsuba=True)
    # the halves' register, the DSP's two, one per level of the widest tree (z1's, of
    # ⌈(h + 1) / 17⌉² tiles), the two subtractions and the final addition's two parts.
    h = -(-width // 2)
    fast = ((-(-(h + 1) // 17)) ** 2 - 1).bit_length() + 7
    assert unit.latency == (fast if stages is None else stages)
    top = (1 << width) - 1
    rng = rng_for("karatsuba-mul", width, stages)
    # all-ones halves make both half sums carry out; a one-sided operand leaves z1 = z0 + z2.
    ins = [{"a": top, "b": top}, {"a": 0, "b": top}, {"a": 1 << (width - 1), "b": top},
           {"a": (1 << h) - 1, "b": (1 << h) - 1}, {"a": top ^ ((1 << h) - 1), "b": top}] + \
          [{"a": rng.getrandbits(width), "b": rng.getrandbits(width)} for _ in range(300)]
    check_unit(unit, ins, [v["a"] * v["b"] for v in ins], label=f"Karatsuba({width})")


def test_karatsuba_uses_three_quarters_of_the_tiles_at_64_bits():
    assert Multiplier(64, 64, tiled=True).tile_count == 16
    assert Multiplier(64, 64, tiled=True, karatsuba=True).tile_count == 12
    assert Multiplier(64, 64, tiled=True, karatsuba=True).stages == 2 + 7


@pytest.mark.parametrize("kwargs,error,message", [
    ({"tiled": False, "karatsuba": True}, ValueError, "karatsuba needs tiled=True"),
    ({"tiled": True, "karatsuba": 1}, TypeError, "karatsuba must be a bool, not 1"),
    ({"tiled": True, "karatsuba": True, "stages": 8}, ValueError,
     "mult_stages must be at least 9 with karatsuba, not 8")])
def test_karatsuba_refuses_untiled_non_bool_and_too_few_stages(kwargs, error, message):
    with pytest.raises(error, match=message):
        Multiplier(64, 64, **kwargs)


@pytest.mark.parametrize("aw,bw,stages,karatsuba", [
    (64, 64, None, False), (64, 64, 2, False), (64, 64, 3, False), (64, 64, 8, False),
    (70, 33, None, False), (17, 17, None, False), (64, 64, None, True), (61, 61, 12, True)])
def test_tile_register_is_one_stage_more_and_keeps_the_product(aw, bw, stages, karatsuba):
    unit = _Mul(aw, bw, stages, tiled=True, karatsuba=karatsuba, tile_reg=True)
    plain = Multiplier(aw, bw, tiled=True, karatsuba=karatsuba)
    assert unit.latency == (plain.stages + 1 if stages is None else stages)
    rng = rng_for("tile-reg", aw, bw, stages, karatsuba)
    ins = [{"a": (1 << aw) - 1, "b": (1 << bw) - 1}, {"a": 0, "b": 1}] + \
          [{"a": rng.getrandbits(aw), "b": rng.getrandbits(bw)} for _ in range(200)]
    check_unit(unit, ins, [v["a"] * v["b"] for v in ins], label="Multiplier(tile_reg)")


@pytest.mark.parametrize("kwargs,error,message", [
    ({"tile_reg": True}, ValueError, "tile_reg needs tiled=True"),
    ({"tiled": True, "tile_reg": "yes"}, TypeError, "tile_reg must be a bool, not 'yes'"),
    ({"tiled": True, "tile_reg": True, "stages": 1}, ValueError,
     "mult_stages must be at least 2 with tile_reg, not 1"),
    ({"tiled": True, "karatsuba": True, "tile_reg": True, "stages": 9}, ValueError,
     "mult_stages must be at least 10 with karatsuba, not 9")])
def test_tile_register_refuses_untiled_non_bool_and_too_few_stages(kwargs, error, message):
    with pytest.raises(error, match=message):
        Multiplier(64, 64, **kwargs)


@pytest.mark.parametrize("modulus,karatsuba", [(ntt_primes(60, 1 << 12, 1)[0], True),
                                               ("general32", False)], ids=str)
def test_barrett_mod_mul_with_tile_registers_matches_model_three_cycles_later(modulus,
                                                                            karatsuba):
    unit = ModMul(modulus, "barrett", karatsuba=karatsuba, tile_reg=True)
    q = unit.modulus
    assert unit.latency == ModMulPlan(modulus, "barrett", karatsuba=karatsuba).latency + 3
    ins = pairs(q, "modmul-tile-reg", q)
    check_unit(unit, ins, [v["a"] * v["b"] % q for v in ins],
               label=f"ModMul({modulus}, tile_reg=True)")


@pytest.mark.parametrize("widths", [(64, 63), (17, 17), (8, 8)])
def test_karatsuba_needs_equal_widths_above_one_tile(widths):
    with pytest.raises(ValueError, match="karatsuba needs equal operand widths above chunk"):
        Multiplier(*widths, tiled=True, karatsuba=True)


@pytest.mark.parametrize("modulus", ["solinas64", "general32", ntt_primes(60, 1 << 16, 1)[0]],
                         ids=str)
def test_karatsuba_mod_mul_matches_model_three_cycles_later_at_64_bits(modulus):
    unit = ModMul(modulus, karatsuba=True)
    q = unit.modulus
    if modulus == "solinas64":
        assert unit.latency == ModMulPlan(modulus).latency + 3
    ins = pairs(q, "modmul-karatsuba", q)
    check_unit(unit, ins, [v["a"] * v["b"] * unit.output_scale % q for v in ins],
               label=f"ModMul({modulus}, karatsuba=True)")


# Each modulus with one reducer in turn in the fast suite (both run; the reducers' own tests
# cover each at every width), with the other in the slow suite.
@pytest.mark.parametrize("modulus, reducer", alternating_slow(
    [(m,) for m in MODULI_ALL], flags=("auto", "barrett")))
def test_mod_mul_matches_model(modulus, reducer):
    unit = ModMul(modulus, reducer)
    q = unit.modulus
    ins = pairs(q, "modmul", q, reducer)
    expected = [v["a"] * v["b"] * unit.output_scale % q for v in ins]
    check_unit(unit, ins, expected, label=f"ModMul({modulus}, {reducer})")


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
def test_untiled_shallow_mod_mul_matches_model_and_tiling_keeps_given_stages(modulus):
    unit = ModMul(modulus, mult_stages=4, tiled=False, deep=False)
    q = unit.modulus
    ins = pairs(q, "modmul-untiled", q)
    assert unit.latency == ModMulPlan(modulus, mult_stages=4, deep=False).latency
    check_unit(unit, ins, [v["a"] * v["b"] * unit.output_scale % q for v in ins],
               label=f"ModMul({modulus}, tiled=False, deep=False)")


def test_fast_multiplier_stages_are_one_per_adder_level_and_the_dsp_registers():
    # 64 x 64 bits: 4 x 4 tiles of 17 bits, 16 products summed in 4 levels; untiled, 4
    # slices of 18 bits summed in 2 levels.
    assert Multiplier(64, 64, tiled=True).stages == 4 + 2
    assert Multiplier(64, 64).stages == 2 + 1
    assert Multiplier(17, 17, tiled=True).stages == 0 + 2


def test_mod_mul_defaults_are_the_fast_pipeline():
    # The tiled multiplier (6 registers) and the deep Solinas reducer (4); the shallow pipeline
    # of [Cao14] (a 4-stage multiplier, 2-stage reducer) stays available.
    assert ModMulPlan("solinas64").latency == ModMul("solinas64").latency == 6 + 4
    assert ModMulPlan("solinas64", mult_stages=4, tiled=False, deep=False).latency == 4 + 2
    assert ModMulPlan("fermat32").latency == (2 + 2) + 4
    assert ModMulPlan("general32", pipelined=False).latency == 4


def test_mod_mul_premultiply_gives_plain_constant_products():
    unit = ModMul(ntt_primes(60, 1 << 16, 1)[0], "montgomery")
    q, c = unit.modulus, 123456789
    assert unit.output_scale != 1
    ins = [{"a": a, "b": unit.premultiply(c)} for a in (0, 1, q - 1, 987654321)]
    check_unit(unit, ins, [v["a"] * c % q for v in ins], label="premultiply")


def test_auto_reducer_choice_follows_the_modulus():
    assert [choose_reducer(n) for n in MODULI] == ["special", "special", "solinas", "montgomery"]
    assert choose_reducer(ntt_primes(30, 1 << 10, 1)[0]) == "barrett"
    # general32: 2 x 2 tiles, 2 adder levels, and the DSP's operand and product registers.
    assert ModMul("general32").latency == 4 + ModMul("general32").reducer_unit.latency


def test_mod_mul_rejects_bad_parameters():
    with pytest.raises(ValueError, match="reducer must be one of"):
        ModMul("solinas64", "karatsuba")
    with pytest.raises(ValueError, match="reducer 'special' needs a modulus 2\\^\\(m-1\\)\\+1"):
        ModMul("solinas64", "special")
    with pytest.raises(ValueError, match="modulus must be 2\\^64"):
        ModMul("general32", "solinas")
    with pytest.raises(ValueError, match="modulus must be odd"):
        ModMul(2**40)


def test_tiled_must_be_a_bool():
    with pytest.raises(TypeError, match="tiled must be a bool, not 1"):
        ModMul("solinas64", tiled=1)
    with pytest.raises(TypeError, match="tiled must be a bool, not 'yes'"):
        Multiplier(64, 64, 4, tiled="yes")


@pytest.mark.parametrize("reducer", ["auto", "barrett"])
@pytest.mark.parametrize("deep", [1, "no", None])
def test_deep_must_be_a_bool(reducer, deep):
    with pytest.raises(TypeError, match=f"deep must be a bool, not {deep!r}"):
        ModMulPlan("general32", reducer, deep=deep)
    with pytest.raises(TypeError, match=f"deep must be a bool, not {deep!r}"):
        ModMul("general32", reducer, deep=deep)


def test_tiles_wider_than_the_dsp_are_refused():
    with pytest.raises(ValueError, match="chunk must be at most 18 when tiled, not 19"):
        Multiplier(64, 64, tiled=True, chunk=19)
    assert Multiplier(64, 64, chunk=24).stages == 2 + 1


def test_operand_stage_counts_are_checked():
    with pytest.raises(ValueError, match="mult_stages must be at least 0"):
        ModMul("solinas64", mult_stages=-2)
    with pytest.raises(TypeError, match="mult_stages must be an integer, not 4.0"):
        ModMulPlan("solinas64", mult_stages=4.0)
    assert ModMulPlan("solinas64", mult_stages=0, pipelined=False).latency == 0


@pytest.mark.parametrize("modulus,tile", [("solinas64", 9), ("fermat32", 6), ("general32", 12)])
def test_narrow_tiles_match_the_model_and_deepen_only_the_adder_tree(modulus, tile):
    unit = ModMul(modulus, tile=tile)
    q, width = unit.modulus, unit.modulus.bit_length()
    # ⌈width / tile⌉² partial products summed by a tree, one register per level, plus the
    # operand and product registers; the reducer's latency is the default ModMul's.
    slices = -(-width // tile)
    levels = (slices * slices - 1).bit_length()
    reducer = ModMulPlan(modulus).latency - Multiplier(width, width, tiled=True).stages
    assert unit.latency == levels + 2 + reducer
    ins = pairs(q, "modmul-tile", q, tile)
    check_unit(unit, ins, [v["a"] * v["b"] * unit.output_scale % q for v in ins],
               label=f"ModMul({modulus}, tile={tile})")


@pytest.mark.parametrize("tile,error", [(1, ValueError), (19, ValueError), (9.0, TypeError)])
def test_tile_widths_outside_two_to_eighteen_are_refused(tile, error):
    with pytest.raises(error, match="tile must be"):
        ModMulPlan("solinas64", tile=tile)
