"""Pipelined modular multiplier: a multi-stage multiplier ([Cao14] §3.2/§4: 4-stage pipelined
multipliers) followed by one of the reducers of [Cao14] §3.3 / [Kir25] §3.2.1.

The defaults are the fast pipeline: a tiled multiplier with a register per adder level and the
DSP's operand and product registers, and each reducer's ``deep`` form, one carry chain per
register. On the ECP5-85F that is the difference between 81.5 MHz (4-stage untiled multiplier,
2-stage Solinas reducer, latency 6) and 191 MHz (latency 10) for solinas64."""

from dataclasses import dataclass, field

from amaranth import Module, unsigned

from ..params import get_modulus
from ..plan import Plan, param
from .barrett import BarrettReducer, BarrettReducerPlan
from .dsp import DSP_WIDTH
from .modadd import operand_layout
from .montgomery import MontgomeryReducer, MontgomeryReducerPlan
from .pipeline import (
    FixedLatencyUnit,
    Multiplier,
    Stages,
    deep_param,
    fabric_rounds_param,
    karatsuba_param,
    modulus_param,
    mult_stages_param,
    pipelined_param,
    tile_reg_param,
    tiled_param,
)
from .solinas import SolinasReducer, SolinasReducerPlan
from .special import MAX_M, SpecialReducer, SpecialReducerPlan

__all__ = ["ModMul", "ModMulPlan", "REDUCERS", "choose_reducer"]

REDUCERS = ("auto", "barrett", "special", "solinas", "montgomery")

#: Widest Montgomery word "auto" uses: one 18x18 DSP column for the q_H x T̃ product.
AUTO_MONTGOMERY_WORD = 17
#: "auto" uses Montgomery when q ≡ 1 (mod 2^16) (NTT-friendly primes), else Barrett.
AUTO_MONTGOMERY_MIN_WORD = 16


def _two_adicity(q):
    return ((q - 1) & -(q - 1)).bit_length() - 1


def choose_reducer(modulus):
    """The reducer "auto" picks: special for 2^(m-1)+1, solinas for 2^64-2^32+1, montgomery
    when q ≡ 1 (mod 2^16), barrett otherwise."""
    mod = get_modulus(modulus)
    if mod.kind != "general":
        return mod.kind
    return "montgomery" if _two_adicity(mod.value) >= AUTO_MONTGOMERY_MIN_WORD else "barrett"


#: The reducer Component of each plan class.
_REDUCER_UNITS = {BarrettReducerPlan: BarrettReducer, SpecialReducerPlan: SpecialReducer,
                  SolinasReducerPlan: SolinasReducer, MontgomeryReducerPlan: MontgomeryReducer}


@dataclass(frozen=True)
class ModMulPlan(Plan):
    """The parameters of :class:`ModMul` and what they derive.

    Parameters
    ----------
    modulus : str, int or Modulus
        q, of m bits.
    reducer : str
        One of ``auto``, ``barrett``, ``special``, ``solinas``, ``montgomery``; ``auto``
        follows :func:`choose_reducer`.
    mult_stages : int or None
        Registers in the multiplier, and in each of Barrett's; default None, the fast setting
        of :class:`~fhe_hw.arith.pipeline.Multiplier`: one register per adder level, the
        product's and, tiled, the operands'; [Cao14] §4 uses 4.
    word : int or None
        The Montgomery word, default the largest w <= 17 with q ≡ 1 mod 2^w.
    alpha, beta : int or None
        Barrett's parameters.
    pipelined : bool
        Pipeline the reducer.
    deep : bool
        The reducer's fast pipeline, one carry chain per register (default True; see each
        reducer).
    tiled : bool
        Multipliers with both operands sliced into 17-bit tiles, one DSP per partial product
        with its operand and product registers in the DSP on an ECP5
        (:mod:`fhe_hw.arith.dsp`; default True).
    tile : int or None
        The slice width of the operand multiplier, 2 to 18 bits; default None: 17 tiled, one
        MULT18X18D per partial product, 18 untiled. A narrower tile is the depth that suits an
        ASIC, where each partial product is a gate-level multiplier of one cycle: more,
        smaller partial products and a deeper adder tree, one register per level.
    karatsuba : bool
        The operand multiplier as one level of Karatsuba, tiled only: three half-width
        products, 12 MULT18X18D instead of 16 for 64 bits, three cycles more for solinas64
        (see :class:`~fhe_hw.arith.pipeline.Multiplier`; default False).
    tile_reg : bool
        A fabric register after each DSP tile's product, before the adder tree, in the operand
        multiplier and Barrett's two, tiled only: one cycle more per multiplier, for a wire
        from a DSP to its adder across the die (default False; the Montgomery reducer's own
        tile products do not take it).
    fabric_rounds : bool
        The Montgomery reducer's rounds without DSPs, q_H·T̃ by shifted additions
        (:class:`MontgomeryReducerPlan`; default False): a 30-bit ModMul then takes the 4
        MULT18X18D of its product only.

    Attributes
    ----------
    kind : str
        The reducer chosen (never ``auto``).
    multiplier : Multiplier
        The operand multiplier's plan.
    reducer_plan : Plan
        The reducer's plan (:class:`BarrettReducerPlan`, :class:`SpecialReducerPlan`,
        :class:`SolinasReducerPlan` or :class:`MontgomeryReducerPlan`).
    """

    modulus: object = modulus_param("solinas64")
    reducer: str = param("auto", help="one of " + ", ".join(REDUCERS))
    mult_stages: int | None = mult_stages_param()
    word: int | None = param(None, help="Montgomery word (default: the largest w <= 17 with "
                             "q = 1 mod 2^w)", kw_only=True)
    alpha: int | None = field(default=None, kw_only=True)
    beta: int | None = field(default=None, kw_only=True)
    pipelined: bool = pipelined_param()
    deep: bool = deep_param()
    tiled: bool = tiled_param()
    tile: int | None = param(None, help="slice width of the operand multiplier, 2..18 bits "
                             "(default 17 tiled: one MULT18X18D each; narrower suits an ASIC)",
                             range=(2, DSP_WIDTH), kw_only=True)
    karatsuba: bool = karatsuba_param()
    tile_reg: bool = tile_reg_param()
    fabric_rounds: bool = fabric_rounds_param()
    kind: str = field(init=False, repr=False, compare=False)
    multiplier: object = field(init=False, repr=False, compare=False)
    reducer_plan: Plan = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        mod = get_modulus(self.modulus)
        multiplier = Multiplier(mod.bits, mod.bits, self.mult_stages, tiled=self.tiled,
                                chunk=self.tile, karatsuba=self.karatsuba,
                                tile_reg=self.tile_reg)
        kind, reducer_plan = self._reducer(mod)
        self._set(kind=kind, multiplier=multiplier, reducer_plan=reducer_plan)

    def _reducer(self, mod):
        """The reducer kind and plan; raises ``ValueError``/``TypeError`` for refused
        parameters."""
        if self.reducer not in REDUCERS:
            raise ValueError(f"reducer must be one of {', '.join(REDUCERS)}, not "
                             f"{self.reducer!r}")
        kind = choose_reducer(mod) if self.reducer == "auto" else self.reducer
        if self.word is not None and kind != "montgomery":
            raise ValueError(f"word applies to the Montgomery reducer only, not to {kind} "
                             f"(modulus {mod})")
        if self.fabric_rounds and kind != "montgomery":
            raise ValueError(f"fabric_rounds applies to the Montgomery reducer only, not to "
                             f"{kind} (modulus {mod})")
        if (self.alpha, self.beta) != (None, None) and kind != "barrett":
            raise ValueError(f"alpha and beta apply to the Barrett reducer only, not to {kind} "
                             f"(modulus {mod})")
        stages = {"pipelined": self.pipelined, "deep": self.deep}
        if kind == "special":
            if not mod.is_special:
                raise ValueError(f"reducer 'special' needs a modulus 2^(m-1)+1, not {mod}")
            if mod.bits > MAX_M:
                raise ValueError(f"modulus must have at most {MAX_M} bits for the special "
                                 f"reducer, not {mod.bits}")
            return kind, SpecialReducerPlan(mod.bits, **stages)
        if kind == "solinas":
            return kind, SolinasReducerPlan(mod, **stages)
        if kind == "montgomery":
            word = self.word
            if word is None:
                word = min(AUTO_MONTGOMERY_WORD, _two_adicity(mod.value))
            return kind, MontgomeryReducerPlan(mod, word, fabric_rounds=self.fabric_rounds,
                                               **stages)
        return kind, BarrettReducerPlan(mod, self.alpha, self.beta, mult_stages=self.mult_stages,
                                        tiled=self.tiled, tile_reg=self.tile_reg, **stages)

    @property
    def latency(self):
        """The multiplier's stages plus the reducer's latency (10 for solinas64 at the
        defaults)."""
        return self.multiplier.stages + self.reducer_plan.latency


class ModMul(FixedLatencyUnit):
    """(a·b·s) mod q for a, b in [0, q), with s = :attr:`output_scale`.

    s is 1 for the Barrett, special and Solinas reducers and R^-1 = 2^(-wν) mod q for Montgomery;
    engines that multiply by constants pass them through :meth:`premultiply` so that the product
    comes out unscaled ([Kir25] §3.2.1: "handled through the pre-processing of the data").

    Parameters
    ----------
    plan : ModMulPlan
        Or the arguments of one (``ModMul("solinas64", tiled=False)``).

    Attributes
    ----------
    i : In(stream.Signature(...)), always ready
        ``{a, b}``, m bits each, LSB-first.
    o : Out(stream.Signature(unsigned(m))), always ready
        The m-bit product, one per cycle.
    latency : int
        The multiplier's stages plus the reducer's latency (the plan's, without building).
    modulus : int
        q.
    reducer : str
        The reducer chosen (never ``auto``).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = ModMulPlan.coerce(*args, **kw)
        self._latency = plan.latency
        self._modulus = mod = get_modulus(plan.modulus)
        self._reducer = _REDUCER_UNITS[type(plan.reducer_plan)](plan.reducer_plan)
        super().__init__(operand_layout(mod.bits, "a", "b"), unsigned(mod.bits))

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def reducer(self):
        """The reducer kind in use: ``barrett``, ``special``, ``solinas`` or ``montgomery``."""
        return self.plan.kind

    @property
    def reducer_unit(self):
        """The reducer Component inside (for its ``constants``, ``m`` and ``latency``)."""
        return self._reducer

    @property
    def output_scale(self):
        """s in o = a·b·s mod q."""
        return self._reducer.constants.R_inv if self.plan.kind == "montgomery" else 1

    def premultiply(self, constant):
        """The value to feed as ``b`` so that the output is constant·a mod q."""
        return constant * pow(self.output_scale, -1, self.modulus) % self.modulus

    def elaborate(self, platform):
        m = Module()
        m.submodules.reducer = red = self._reducer
        st = Stages(m, self.i.valid)
        product = self.plan.multiplier.build(st, self.i.payload.a, self.i.payload.b)
        m.d.comb += [red.i.payload.eq(product), red.i.valid.eq(st.valid),
                     self.o.payload.eq(red.o.payload), self.o.valid.eq(red.o.valid)]
        return m
