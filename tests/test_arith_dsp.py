"""DSP tile products (fhe_hw.arith.dsp): the portable form against Python in Amaranth's
simulator, and the ECP5 form (MULT18X18D primitives with their own registers) against a
behavioural model of the primitive in Icarus, from reset with every register at x."""

import random

import pytest
from amaranth import Const, Module, Signal, unsigned
from ecp5_models import mult18x18d_model
from helpers import check_unit, rng_for

from fhe_hw.arith import BarrettReducer, ModMul, MontgomeryReducer
from fhe_hw.arith.dsp import TileProduct, is_ecp5, tile_product
from fhe_hw.arith.modadd import operand_layout
from fhe_hw.arith.montgomery_dyn import DynamicModMul
from fhe_hw.arith.pipeline import FixedLatencyUnit, Stages
from fhe_hw.arith.vectors import RNS_PRIME
from fhe_hw.flow.synth import OutOfContextPlatform
from fhe_hw.params import ntt_primes
from fhe_hw.sim.icarus import require_iverilog, run_from_reset
from fhe_hw.sim.vectors import vectors_for
from fhe_hw.units import get_unit, to_verilog

ECP5 = OutOfContextPlatform("ecp5")


class _Tile(FixedLatencyUnit):
    """One TileProduct behind always-ready streams; ``b`` a constant when given."""

    def __init__(self, a_width, b_width, operand_reg, constant=None):
        self._args = a_width, b_width, operand_reg, constant
        self._latency = 1 + operand_reg
        super().__init__(operand_layout(max(a_width, b_width), "a", "b"),
                         unsigned(a_width + b_width))

    def elaborate(self, platform):
        m = Module()
        a_width, b_width, operand_reg, constant = self._args
        st = Stages(m, self.i.valid)
        b = self.i.payload.b[:b_width] if constant is None else Const(constant, b_width)
        tile = tile_product(m, self.i.payload.a[:a_width], b, operand_reg=operand_reg)
        for _ in range(tile.latency):
            st.cut()
        m.d.comb += [self.o.payload.eq(tile.p), self.o.valid.eq(st.valid)]
        return m


@pytest.mark.parametrize("a_width,b_width,operand_reg,constant", [
    (17, 17, True, None), (17, 17, False, None), (18, 18, True, None), (1, 5, True, None),
    (17, 17, True, 0x1F2F3), (17, 17, True, 0), (17, 17, True, 1 << 9), (9, 17, False, 77)])
def test_portable_tile_product_is_the_product_after_its_registers(a_width, b_width,
                                                                  operand_reg, constant):
    unit = _Tile(a_width, b_width, operand_reg, constant)
    rng = rng_for("tile", a_width, b_width, operand_reg, constant)
    ins = [{"a": (1 << a_width) - 1, "b": (1 << b_width) - 1}, {"a": 0, "b": 1}] + \
          [{"a": rng.getrandbits(a_width), "b": rng.getrandbits(b_width)} for _ in range(200)]
    check_unit(unit, ins, [v["a"] * (v["b"] if constant is None else constant) for v in ins],
               label="TileProduct")


def test_a_dsp_is_used_unless_an_operand_is_a_power_of_two_zero_or_one_bit_wide():
    # a width stands for an operand port: only constants and widths matter
    uses = [TileProduct(a, b, operand_reg=True).uses_dsp()
            for a, b in [(17, 17), (17, Const(3, 2)), (17, Const(0, 5)), (17, Const(64, 7)),
                         (1, 17), (17, 2), (17, 1)]]
    assert uses == [True, True, False, False, False, True, False]


def test_operands_wider_than_the_dsp_are_refused():
    with pytest.raises(ValueError, match="b must be at most 18 bits wide, not 19"):
        TileProduct(4, Const(0, 19), operand_reg=False)
    with pytest.raises(ValueError, match="a must be at most 18 bits wide, not 19"):
        tile_product(Module(), Signal(19), Const(1, 4), operand_reg=False)
    with pytest.raises(ValueError, match="enable must be one bit wide, not 2"):
        tile_product(Module(), Const(1, 4), Const(1, 4), operand_reg=False, enable=Const(1, 2))


def test_only_an_ecp5_platform_selects_the_primitive():
    assert is_ecp5(ECP5) and not is_ecp5(None) and not is_ecp5(OutOfContextPlatform("ice40"))
    assert "MULT18X18D" not in to_verilog(ModMul("solinas64"), "mod-mul")


@pytest.mark.parametrize("name,build,dsps", [
    ("solinas64", lambda: ModMul("solinas64"), 16),
    ("solinas64-karatsuba", lambda: ModMul("solinas64", karatsuba=True), 12),
    ("general32-montgomery", lambda: ModMul("general32"), 4 + 2),  # 2 x 2 tiles, 2 rounds
    # an OpenFHE 30-bit prime for N = 2^16, its rounds in the fabric: the product's tiles only
    ("openfhe30-fabric-rounds", lambda: ModMul(1073479681, fabric_rounds=True), 4),
    ("rns-prime-barrett", lambda: ModMul(RNS_PRIME, "barrett"), None),
    ("untiled", lambda: ModMul("fermat32", tiled=False), 0),
    ("product-register-only", lambda: ModMul("fermat64", mult_stages=4), 16),
])
def test_ecp5_form_gives_the_model_products_at_the_same_latency_from_reset(name, build, dsps,
                                                                             tmp_path):
    require_iverilog()
    unit = build()
    vectors = vectors_for("mod-mul")(unit, random.Random(f"ecp5:{name}"), 40)
    instances = to_verilog(build(), "mod-mul", platform=ECP5).count("MULT18X18D #(")
    assert instances == dsps if dsps is not None else instances > 16
    result = run_from_reset(build(), "mod-mul", vectors.inputs, {"o": len(vectors.expected["o"])},
                            tmp_path, platform=ECP5, libraries=[mult18x18d_model()])
    assert result.outputs["o"] == vectors.expected["o"]
    assert result.cycles == len(vectors.inputs["i"]) + unit.latency


@pytest.mark.parametrize("build", [lambda: BarrettReducer("general32"),
                                   lambda: MontgomeryReducer(RNS_PRIME, 17)])
def test_ecp5_form_of_the_reducers_with_constant_tiles_matches_their_model(build, tmp_path):
    require_iverilog()
    unit = build()
    name = "barrett-reducer" if isinstance(unit, BarrettReducer) else "montgomery-reducer"
    vectors = vectors_for(name)(unit, random.Random(f"ecp5:{name}"), 40)
    result = run_from_reset(build(), name, vectors.inputs, {"o": len(vectors.expected["o"])},
                            tmp_path, platform=ECP5, libraries=[mult18x18d_model()])
    assert result.outputs["o"] == vectors.expected["o"]
    assert result.cycles == len(vectors.inputs["i"]) + unit.latency


def test_ecp5_form_of_the_run_time_modulus_multiplier_matches_python(tmp_path):
    # q_H travels with the operands: both operands of the round tiles are signals.
    require_iverilog()
    moduli = ntt_primes(32, 1 << 12, 3)
    unit = DynamicModMul(moduli)
    rng = rng_for("ecp5-dynamic")
    ins = [{"a": rng.randrange(q), "b": rng.randrange(q), "q": q}
           for q in [rng.choice(moduli) for _ in range(40)]]
    expected = [v["a"] * v["b"] * unit.output_scale(v["q"]) % v["q"] for v in ins]
    assert to_verilog(DynamicModMul(moduli), "dyn").count("MULT18X18D") == 0
    # 2 x 2 tiles of a x b, and 3 rounds of q_H (19 bits: 2 tiles) x T~ (13 bits).
    assert to_verilog(DynamicModMul(moduli), "dyn", platform=ECP5).count("MULT18X18D #(") == 10
    result = run_from_reset(DynamicModMul(moduli), "dynamic-mod-mul", {"i": ins},
                            {"o": len(ins)}, tmp_path, platform=ECP5,
                            libraries=[mult18x18d_model()])
    assert result.outputs["o"] == expected
    assert result.cycles == len(ins) + unit.latency


def test_ecp5_form_elaborates_in_a_reset_less_domain():
    # Board tops (fhe_hw.boards) clock the units from a reset-less domain: the DSP's RST0 is 0.
    from amaranth import ClockDomain, Elaboratable
    from amaranth.back import rtlil

    class Top(Elaboratable):
        def elaborate(self, platform):
            m = Module()
            m.domains.sync = ClockDomain(reset_less=True)
            m.submodules.mul = ModMul("fermat32")
            return m

    text = rtlil.convert(Top(), platform=ECP5, ports=[])
    assert text.count("cell \\MULT18X18D") == 4


def test_ecp5_form_of_karatsuba_stops_its_dsps_with_the_engine(tmp_path):
    """The Karatsuba engine stalls its datapath with a clock enable (an EnableInserter, which
    does not reach an Instance): under back-pressure its products stay exact only if the
    MULT18X18D registers stop with the rest (CE0)."""
    require_iverilog()
    params = {"recursions": 1, "leaf": 2, "coeff_bits": 40, "digit_bits": 27}  # 4 tiles each
    unit = get_unit("karatsuba")
    vectors = vectors_for("karatsuba")(unit.build(**params), random.Random("ecp5:karatsuba"), 3)
    verilog = to_verilog(unit.build(**params), "karatsuba", platform=ECP5)
    assert verilog.count("MULT18X18D #(") == 2 * 2 * 4     # leaf x digits x tiles
    result = run_from_reset(unit.build(**params), "karatsuba", vectors.inputs,
                            {"o": len(vectors.expected["o"])}, tmp_path, platform=ECP5,
                            libraries=[mult18x18d_model()], ready_period=4)
    assert result.outputs["o"] == vectors.expected["o"]
