"""Pipelined modular multiplier: a multi-stage multiplier ([Cao14] §3.2/§4: 4-stage pipelined
multipliers) followed by one of the reducers of [Cao14] §3.3 / [Kir25] §3.2.1.

The defaults are the fast pipeline: a tiled multiplier with a register per adder level and the
DSP's operand and product registers, and each reducer's ``deep`` form, one carry chain per
register. On the ECP5-85F that is the difference between 81.5 MHz (4-stage untiled multiplier,
2-stage Solinas reducer, latency 6) and 191 MHz (latency 10) for solinas64."""

from amaranth import Module, unsigned

from ..params import get_modulus, require_int
from .barrett import BarrettReducer
from .dsp import DSP_WIDTH
from .modadd import check_bool, operand_layout
from .montgomery import MontgomeryReducer
from .pipeline import FixedLatencyUnit, Multiplier, Stages
from .solinas import SolinasReducer
from .special import MAX_M, SpecialReducer

__all__ = ["ModMul", "REDUCERS", "choose_reducer"]

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


class ModMul(FixedLatencyUnit):
    """(a·b·s) mod q for a, b in [0, q), with s = :attr:`output_scale`.

    s is 1 for the Barrett, special and Solinas reducers and R^-1 = 2^(-wν) mod q for Montgomery;
    engines that multiply by constants pass them through :meth:`premultiply` so that the product
    comes out unscaled ([Kir25] §3.2.1: "handled through the pre-processing of the data").

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

    Attributes
    ----------
    i : In(stream.Signature(...)), always ready
        ``{a, b}``, m bits each, LSB-first.
    o : Out(stream.Signature(unsigned(m))), always ready
        The m-bit product, one per cycle.
    latency : int
        The multiplier's stages plus the reducer's latency (:meth:`latency_of` without
        building; 10 for solinas64 at the defaults).
    modulus : int
        q.
    reducer : str
        The reducer chosen (never ``auto``).
    """

    def __init__(self, modulus, reducer="auto", *, mult_stages=None, word=None, alpha=None,
                 beta=None, pipelined=True, deep=True, tiled=True, tile=None, karatsuba=False):
        self._latency = self.latency_of(modulus, reducer, mult_stages=mult_stages, word=word,
                                        alpha=alpha, beta=beta, pipelined=pipelined, deep=deep,
                                        tiled=tiled, tile=tile, karatsuba=karatsuba)
        self._modulus = mod = get_modulus(modulus)
        self._multiplier_plan = self._multiplier(mod, mult_stages, tiled, tile, karatsuba)
        kind, cls, args, kwargs = self._reducer_plan(mod, reducer, mult_stages, word, alpha,
                                                     beta, pipelined, deep, tiled)
        self._kind, self._reducer = kind, cls(*args, **kwargs)
        super().__init__(operand_layout(mod.bits, "a", "b"), unsigned(mod.bits))

    @staticmethod
    def _reducer_plan(modulus, reducer, mult_stages, word, alpha, beta, pipelined, deep, tiled):
        """The reducer kind and its class with constructor arguments ``(kind, cls, args,
        kwargs)``; raises ``ValueError``/``TypeError`` for refused parameters."""
        mod = get_modulus(modulus)
        if reducer not in REDUCERS:
            raise ValueError(f"reducer must be one of {', '.join(REDUCERS)}, not {reducer!r}")
        check_bool("pipelined", pipelined)
        kind = choose_reducer(mod) if reducer == "auto" else reducer
        if word is not None and kind != "montgomery":
            raise ValueError(f"word applies to the Montgomery reducer only, not to {kind} "
                             f"(modulus {mod})")
        if (alpha, beta) != (None, None) and kind != "barrett":
            raise ValueError(f"alpha and beta apply to the Barrett reducer only, not to {kind} "
                             f"(modulus {mod})")
        if kind == "special":
            if not mod.is_special:
                raise ValueError(f"reducer 'special' needs a modulus 2^(m-1)+1, not {mod}")
            if mod.bits > MAX_M:
                raise ValueError(f"modulus must have at most {MAX_M} bits for the special "
                                 f"reducer, not {mod.bits}")
            return kind, SpecialReducer, (mod.bits,), {"pipelined": pipelined, "deep": deep}
        if kind == "solinas":
            return kind, SolinasReducer, (mod,), {"pipelined": pipelined, "deep": deep}
        if kind == "montgomery":
            if word is None:
                word = min(AUTO_MONTGOMERY_WORD, _two_adicity(mod.value))
            return kind, MontgomeryReducer, (mod, word), {"pipelined": pipelined, "deep": deep}
        return kind, BarrettReducer, (mod, alpha, beta), {"mult_stages": mult_stages,
                                                          "tiled": tiled, "pipelined": pipelined,
                                                          "deep": deep}

    @staticmethod
    def latency_of(modulus, reducer="auto", *, mult_stages=None, word=None, alpha=None,
                   beta=None, pipelined=True, deep=True, tiled=True, tile=None,
                   karatsuba=False):
        """The :attr:`latency` of the ModMul with these parameters without building it;
        raises the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        stages = ModMul._multiplier(modulus, mult_stages, tiled, tile, karatsuba).stages
        _, cls, args, kwargs = ModMul._reducer_plan(modulus, reducer, mult_stages, word, alpha,
                                                    beta, pipelined, deep, tiled)
        return stages + cls.latency_of(*args, **kwargs)

    @staticmethod
    def _multiplier(modulus, mult_stages, tiled, tile, karatsuba=False):
        """The operand multiplier (a plan: nothing is built until :meth:`Multiplier.build`)."""
        width = get_modulus(modulus).bits
        if tile is not None:
            require_int("tile", tile, minimum=2, maximum=DSP_WIDTH)
        return Multiplier(width, width, mult_stages, tiled=tiled, chunk=tile,
                          karatsuba=karatsuba)

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def reducer(self):
        """The reducer kind in use: ``barrett``, ``special``, ``solinas`` or ``montgomery``."""
        return self._kind

    @property
    def reducer_unit(self):
        """The reducer Component inside (for its ``constants``, ``m`` and ``latency``)."""
        return self._reducer

    @property
    def output_scale(self):
        """s in o = a·b·s mod q."""
        return self._reducer.constants.R_inv if self._kind == "montgomery" else 1

    def premultiply(self, constant):
        """The value to feed as ``b`` so that the output is constant·a mod q."""
        return constant * pow(self.output_scale, -1, self.modulus) % self.modulus

    def elaborate(self, platform):
        m = Module()
        m.submodules.reducer = red = self._reducer
        st = Stages(m, self.i.valid)
        product = self._multiplier_plan.build(st, self.i.payload.a, self.i.payload.b)
        m.d.comb += [red.i.payload.eq(product), red.i.valid.eq(st.valid),
                     self.o.payload.eq(red.o.payload), self.o.valid.eq(red.o.valid)]
        return m
