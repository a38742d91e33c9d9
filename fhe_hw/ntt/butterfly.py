"""The unified FFT/IFFT butterfly: [Cao14] §3.2, Fig. 2 ([Cao13] Fig. 2(ii)).

X_up = x_up·ω_up + x_down·ω_down and X_down = x_up·ω_up - x_down·ω_down (mod p). The product
x_down·ω_down is made in every stage; x_up·ω_up only in the last inverse stage, where
ω_up = k^-1 and ω_down = k^-1·ω^-j fold the inverse transform's scaling into the twiddles, so no
separate scaling stage is needed. An engine that does not use the up-multiplier builds the
butterfly with ``scale_up=False`` and saves it.

A fully parallel transform ([Cao14] §3.2) knows every twiddle when it is built: with ``twiddle=``
(and ``twiddle_up=`` for the last inverse stage) the butterfly multiplies by constants, through
:class:`~fhe_hw.ntt.shift.ConstMul`: "if the special modulus p = 2^(m-1) + 1 is used, each m-bit
multiplier in a butterfly is implemented using a bit-shift operation" ([Cao14] §3.2), and the same
holds for powers of two (and sums of two of them) modulo 2^64 - 2^32 + 1 ([Wang13] §III-B); other
constants use a ModMul with a constant operand.
"""

from amaranth import Module

from ..arith import ModMul, ModMulPlan
from ..arith.modadd import add_select, check_bool, operand_layout, sub_select
from ..arith.pipeline import FixedLatencyUnit, Stages
from ..params import get_modulus, require_int
from .shift import MULTIPLIERS, ConstMul

__all__ = ["Butterfly"]


class Butterfly(FixedLatencyUnit):
    """Pipelined unified butterfly with run-time or constant twiddles ([Cao14] Fig. 2).

    Parameters: ``modulus``; ``scale_up`` (include the x_up·ω_up multiplier used by the last
    inverse stage); ``mult_stages`` and ``reducer`` (passed to :class:`~fhe_hw.arith.ModMul`);
    ``twiddle`` (a constant ω_down: the butterfly of a fully parallel transform; ``None`` for
    run-time twiddles); ``twiddle_up`` (a constant ω_up, only with ``twiddle``; it implies the
    up-multiplier, so ``scale_up`` is then ignored unless it is True without ``twiddle_up``,
    which raises); ``multiplier`` (constant twiddles only: ``"auto"`` — shifts when the
    twiddle is a sum of at most two powers of two mod a special or Solinas modulus, else a
    ModMul; ``"shift"`` — shifts or ``ValueError``; ``"modmul"`` — always a ModMul);
    ``mult_latency`` (constant twiddles only: pad the multipliers to this latency, so that
    butterflies of one stage with different twiddles stay aligned); ``tiled`` (every ModMul
    with both operands in 17-bit tiles, one MULT18X18D per partial product, see
    :class:`~fhe_hw.arith.pipeline.Multiplier`). ``mult_stages`` and ``tiled`` default to
    ModMul's defaults (None, True: its fast pipeline). ``tile`` (run-time twiddles only: the
    ModMul's operand-multiplier slice width, default None = ModMul's; narrower for an ASIC).
    ``karatsuba`` (run-time twiddles only: the ModMul's operand multiplier as one level of
    Karatsuba, 12 MULT18X18D instead of 16 at 64 bits; default False).
    ``fast_add`` (default True): x_up - p
    and x_up + p are registered a cycle before the modular addition and subtraction, which
    are then one carry chain and a select each (:func:`~fhe_hw.arith.modadd.add_select`);
    x_up's delay line holds them, except with the up-multiplier, whose product needs one
    more register for them. False: x_up ∓ p in the same cycle, two carry chains in series
    (one cycle less with the up-multiplier).

    Ports: ``i`` — always-ready stream of ``{up, down, w_down[, w_up]}`` (m bits each,
    LSB-first; only ``{up, down}`` with constant twiddles); ``o`` — always-ready stream of
    ``{up, down}``. Run-time twiddles are given as the multiplier expects them: pass ω through
    :meth:`premultiply` (the identity unless the multiplier is a Montgomery one). Latency
    ``multiplier latency +`` :meth:`add_latency` (1, or 2 with the up-multiplier and
    ``fast_add``); one butterfly per cycle.
    """

    def __init__(self, modulus, *, scale_up=False, mult_stages=None, reducer="auto", twiddle=None,
                 twiddle_up=None, multiplier="auto", mult_latency=None, tiled=True,
                 fast_add=True, tile=None, karatsuba=False):
        plan = self._plan(modulus, scale_up, mult_stages, reducer, twiddle, twiddle_up,
                          multiplier, mult_latency, tiled, fast_add, tile, karatsuba)
        self._twiddle, self._twiddle_up, self._scale_up, mult_latency = plan
        self._modulus = get_modulus(modulus)
        if twiddle is None:
            muls = [ModMul(self._modulus, reducer, mult_stages=mult_stages, tiled=tiled,
                           tile=tile, karatsuba=karatsuba)
                    for _ in range(2 if scale_up else 1)]
        else:
            consts = [self._twiddle] + ([self._twiddle_up] if self._scale_up else [])
            muls = [ConstMul(self._modulus, c, multiplier=multiplier, mult_stages=mult_stages,
                             reducer=reducer, latency=mult_latency, tiled=tiled)
                    for c in consts]
        self._mul, self._mul_up = (muls + [None])[:2]
        self._fast_add = fast_add
        self._latency = mult_latency + self.add_latency(self._scale_up, fast_add)
        width = self._modulus.bits
        names = ("up", "down")
        if twiddle is None:
            names += ("w_down",) + (("w_up",) if scale_up else ())
        super().__init__(operand_layout(width, *names), operand_layout(width, "up", "down"))

    @staticmethod
    def _plan(modulus, scale_up, mult_stages, reducer, twiddle, twiddle_up, multiplier,
              mult_latency, tiled, fast_add, tile, karatsuba=False):
        """``(twiddle, twiddle_up, scale_up, multiplier latency)``, the twiddles in
        ``[0, p)``; raises ``ValueError``/``TypeError`` for refused parameters."""
        mod = get_modulus(modulus)
        check_bool("scale_up", scale_up)
        check_bool("tiled", tiled)
        check_bool("fast_add", fast_add)
        if twiddle is None:
            if twiddle_up is not None:
                raise ValueError(f"twiddle_up needs a constant twiddle, not twiddle=None with "
                                 f"twiddle_up={twiddle_up!r}")
            if mult_latency is not None:
                raise ValueError(f"mult_latency applies to constant twiddles only, not "
                                 f"{mult_latency!r} with twiddle=None")
            if multiplier != "auto":
                raise ValueError(f"multiplier applies to constant twiddles only, not "
                                 f"{multiplier!r} with twiddle=None")
            latency = ModMulPlan(mod, reducer, mult_stages=mult_stages, tiled=tiled,
                                        tile=tile, karatsuba=karatsuba).latency
            return None, None, scale_up, latency
        if tile is not None:
            raise ValueError(f"tile applies to run-time twiddles only, not {tile!r} with a "
                             f"constant twiddle")
        if check_bool("karatsuba", karatsuba):
            raise ValueError("karatsuba applies to run-time twiddles only, not with a constant "
                             "twiddle")
        p = mod.value
        twiddle = require_int("twiddle", twiddle, minimum=0, maximum=p - 1)
        if twiddle_up is not None:
            twiddle_up = require_int("twiddle_up", twiddle_up, minimum=0, maximum=p - 1)
        elif scale_up:
            raise ValueError("scale_up with a constant twiddle needs twiddle_up, not None")
        if multiplier not in MULTIPLIERS:
            raise ValueError(f"multiplier must be one of {', '.join(MULTIPLIERS)}, "
                             f"not {multiplier!r}")
        consts = [twiddle] + ([twiddle_up] if twiddle_up is not None else [])
        natural = max(ConstMul.latency_of(mod, c, multiplier=multiplier,
                                          mult_stages=mult_stages, reducer=reducer, tiled=tiled)
                      for c in consts)
        if mult_latency is None:
            mult_latency = natural
        require_int("mult_latency", mult_latency)
        if mult_latency < natural:
            raise ValueError(f"mult_latency must be at least {natural} for these twiddles, "
                             f"not {mult_latency!r}")
        return twiddle, twiddle_up, twiddle_up is not None, mult_latency

    @staticmethod
    def latency_of(modulus, *, scale_up=False, mult_stages=None, reducer="auto", twiddle=None,
                   twiddle_up=None, multiplier="auto", mult_latency=None, tiled=True,
                   fast_add=True, tile=None, karatsuba=False):
        """The :attr:`latency` of the Butterfly with these parameters without building it;
        raises the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        _, _, scale_up, mult_latency = Butterfly._plan(
            modulus, scale_up, mult_stages, reducer, twiddle, twiddle_up, multiplier,
            mult_latency, tiled, fast_add, tile, karatsuba)
        return mult_latency + Butterfly.add_latency(scale_up, fast_add)

    @staticmethod
    def add_latency(scale_up, fast_add=True):
        """Cycles from the multipliers' products to ``o``: the result register, and with
        ``scale_up`` and ``fast_add`` the register of x_up ∓ p after the up-multiplier."""
        return 1 + (scale_up and fast_add)

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def scale_up(self):
        return self._scale_up

    @property
    def fast_add(self):
        return self._fast_add

    @property
    def twiddle(self):
        """The constant ω_down, or ``None`` for run-time twiddles."""
        return self._twiddle

    @property
    def twiddle_up(self):
        """The constant ω_up, or ``None``."""
        return self._twiddle_up

    @property
    def multiplier_kinds(self):
        """Constant twiddles: ``kind`` (``"shift"``/``"modmul"``) of the down (and up)
        multiplier; run-time twiddles: ``("modmul",)`` per multiplier."""
        muls = (self._mul,) + ((self._mul_up,) if self._mul_up is not None else ())
        return tuple(getattr(u, "kind", "modmul") for u in muls)

    def premultiply(self, twiddle):
        """The operand to feed for run-time twiddle ω so that the product is x·ω mod p."""
        if self._twiddle is not None:
            raise ValueError("premultiply applies to run-time twiddles, not to a butterfly with "
                             "constant twiddles")
        return self._mul.premultiply(twiddle)

    def elaborate(self, platform):
        m = Module()
        x = self.i.payload
        const = self._twiddle is not None
        m.submodules.mul = mul = self._mul
        if const:
            m.d.comb += mul.i.payload.eq(x.down)
        else:
            m.d.comb += [mul.i.payload.a.eq(x.down), mul.i.payload.b.eq(x.w_down)]
        m.d.comb += mul.i.valid.eq(self.i.valid)
        p = self._modulus.value
        if self._scale_up:
            m.submodules.mul_up = mul_up = self._mul_up
            if const:
                m.d.comb += mul_up.i.payload.eq(x.up)
            else:
                m.d.comb += [mul_up.i.payload.a.eq(x.up), mul_up.i.payload.b.eq(x.w_up)]
            m.d.comb += mul_up.i.valid.eq(self.i.valid)
            st = Stages(m, mul.o.valid)
            st.ride(up=mul_up.o.payload, product=mul.o.payload)
            cuts = int(self._fast_add)
        else:
            # x_up waits for the product in a delay line of the multiplier's latency.
            st = Stages(m, self.i.valid)
            st.ride(up=x.up)
            cuts = self._mul.latency
        # x_up - p and x_up + p enter the pipeline one register before the add (fast_add).
        for _ in range(cuts - self._fast_add):
            st.cut()
        up = st["up"]
        st.ride(up_minus=up - p, up_plus=up + p)
        for _ in range(self._fast_add):
            st.cut()
        up, product = st["up"], st["product"] if self._scale_up else mul.o.payload
        out = Stages(m, st.valid)
        x_up, x_down = out.cut(add_select(up, st["up_minus"], product),
                               sub_select(up, st["up_plus"], product))
        m.d.comb += [self.o.payload.up.eq(x_up), self.o.payload.down.eq(x_down),
                     self.o.valid.eq(out.valid)]
        return m
