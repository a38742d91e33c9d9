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

from ..arith import ModAdd, ModMul, ModSub
from ..arith.modadd import check_bool, operand_layout
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
    ModMul's defaults (None, True: its fast pipeline).

    Ports: ``i`` — always-ready stream of ``{up, down, w_down[, w_up]}`` (m bits each,
    LSB-first; only ``{up, down}`` with constant twiddles); ``o`` — always-ready stream of
    ``{up, down}``. Run-time twiddles are given as the multiplier expects them: pass ω through
    :meth:`premultiply` (the identity unless the multiplier is a Montgomery one). Latency
    ``multiplier latency + 1``; one butterfly per cycle.
    """

    def __init__(self, modulus, *, scale_up=False, mult_stages=None, reducer="auto", twiddle=None,
                 twiddle_up=None, multiplier="auto", mult_latency=None, tiled=True):
        plan = self._plan(modulus, scale_up, mult_stages, reducer, twiddle, twiddle_up,
                          multiplier, mult_latency, tiled)
        self._twiddle, self._twiddle_up, self._scale_up, mult_latency = plan
        self._modulus = get_modulus(modulus)
        if twiddle is None:
            muls = [ModMul(self._modulus, reducer, mult_stages=mult_stages, tiled=tiled)
                    for _ in range(2 if scale_up else 1)]
        else:
            consts = [self._twiddle] + ([self._twiddle_up] if self._scale_up else [])
            muls = [ConstMul(self._modulus, c, multiplier=multiplier, mult_stages=mult_stages,
                             reducer=reducer, latency=mult_latency, tiled=tiled)
                    for c in consts]
        self._mul, self._mul_up = (muls + [None])[:2]
        self._latency = mult_latency + 1
        width = self._modulus.bits
        names = ("up", "down")
        if twiddle is None:
            names += ("w_down",) + (("w_up",) if scale_up else ())
        super().__init__(operand_layout(width, *names), operand_layout(width, "up", "down"))

    @staticmethod
    def _plan(modulus, scale_up, mult_stages, reducer, twiddle, twiddle_up, multiplier,
              mult_latency, tiled):
        """``(twiddle, twiddle_up, scale_up, multiplier latency)`` with the twiddles reduced
        mod p; raises ``ValueError``/``TypeError`` for refused parameters."""
        mod = get_modulus(modulus)
        check_bool("scale_up", scale_up)
        check_bool("tiled", tiled)
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
            latency = ModMul.latency_of(mod, reducer, mult_stages=mult_stages, tiled=tiled)
            return None, None, scale_up, latency
        p = mod.value
        twiddle = require_int("twiddle", twiddle) % p
        if twiddle_up is not None:
            twiddle_up = require_int("twiddle_up", twiddle_up) % p
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
                   twiddle_up=None, multiplier="auto", mult_latency=None, tiled=True):
        """The :attr:`latency` of the Butterfly with these parameters without building it;
        raises the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        return 1 + Butterfly._plan(modulus, scale_up, mult_stages, reducer, twiddle,
                                   twiddle_up, multiplier, mult_latency, tiled)[3]

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def scale_up(self):
        return self._scale_up

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
        if self._scale_up:
            m.submodules.mul_up = mul_up = self._mul_up
            if const:
                m.d.comb += mul_up.i.payload.eq(x.up)
            else:
                m.d.comb += [mul_up.i.payload.a.eq(x.up), mul_up.i.payload.b.eq(x.w_up)]
            m.d.comb += mul_up.i.valid.eq(self.i.valid)
            up = mul_up.o.payload
        else:
            # x_up waits for the product in a delay line of the multiplier's latency.
            st = Stages(m, self.i.valid)
            st.ride(up=x.up)
            for _ in range(self._mul.latency):
                st.cut()
            up = st["up"]
        m.submodules.add = add = ModAdd(self._modulus)
        m.submodules.sub = sub = ModSub(self._modulus)
        for unit in (add, sub):
            m.d.comb += [unit.i.payload.a.eq(up), unit.i.payload.b.eq(mul.o.payload),
                         unit.i.valid.eq(mul.o.valid)]
        m.d.comb += [self.o.payload.up.eq(add.o.payload), self.o.payload.down.eq(sub.o.payload),
                     self.o.valid.eq(add.o.valid)]
        return m


