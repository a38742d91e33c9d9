"""The unified FFT/IFFT butterfly: 001_3f208c7469731276.txt §3.2, Fig. 2 (000 Fig. 2(ii)).

X_up = x_up·ω_up + x_down·ω_down and X_down = x_up·ω_up - x_down·ω_down (mod p). The product
x_down·ω_down is made in every stage; x_up·ω_up only in the last inverse stage, where
ω_up = k^-1 and ω_down = k^-1·ω^-j fold the inverse transform's scaling into the twiddles, so no
separate scaling stage is needed. An engine that does not use the up-multiplier builds the
butterfly with ``scale_up=False`` and saves it.
"""

from amaranth import Module

from ..arith import ModAdd, ModMul, ModSub
from ..arith.modadd import check_bool, operand_layout
from ..arith.pipeline import FixedLatencyUnit, Stages
from ..params import get_modulus

__all__ = ["Butterfly"]


class Butterfly(FixedLatencyUnit):
    """Pipelined unified butterfly with run-time twiddles (001 Fig. 2).

    Parameters: ``modulus``; ``scale_up`` (include the x_up·ω_up multiplier used by the last
    inverse stage); ``mult_stages`` and ``reducer`` (passed to :class:`~fhe_hw.arith.ModMul`).

    Ports: ``i`` — always-ready stream of ``{up, down, w_down[, w_up]}`` (m bits each,
    LSB-first); ``o`` — always-ready stream of ``{up, down}``. Twiddles are given as the
    multiplier expects them: pass ω through :meth:`premultiply` (the identity unless the
    multiplier is a Montgomery one). Latency ``ModMul.latency + 1``; one butterfly per cycle.
    """

    def __init__(self, modulus, *, scale_up=False, mult_stages=4, reducer="auto"):
        self._modulus = get_modulus(modulus)
        self._scale_up = check_bool("scale_up", scale_up)
        self._mul = ModMul(self._modulus, reducer, mult_stages=mult_stages)
        self._mul_up = ModMul(self._modulus, reducer, mult_stages=mult_stages) if scale_up \
            else None
        self._latency = self._mul.latency + 1
        width = self._modulus.bits
        names = ("up", "down", "w_down") + (("w_up",) if scale_up else ())
        super().__init__(operand_layout(width, *names), operand_layout(width, "up", "down"))

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def scale_up(self):
        return self._scale_up

    def premultiply(self, twiddle):
        """The operand to feed for twiddle ω so that the product is x·ω mod p."""
        return self._mul.premultiply(twiddle)

    def elaborate(self, platform):
        m = Module()
        x = self.i.payload
        m.submodules.mul = mul = self._mul
        m.d.comb += [mul.i.payload.a.eq(x.down), mul.i.payload.b.eq(x.w_down),
                     mul.i.valid.eq(self.i.valid)]
        if self._scale_up:
            m.submodules.mul_up = mul_up = self._mul_up
            m.d.comb += [mul_up.i.payload.a.eq(x.up), mul_up.i.payload.b.eq(x.w_up),
                         mul_up.i.valid.eq(self.i.valid)]
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


