"""An array of independent ``ModMul``\\ s, for routing experiments on the streaming NTT's
multipliers (``python tools/modmul_array_synth.py --count N``; the results are described on the
NTT results page)."""

from amaranth import Module
from amaranth.lib import wiring

from ..arith import ModMul
from ..flow.synth import synthesize

__all__ = ["ModMulArray", "synth_array"]


class ModMulArray(wiring.Component):
    """``count`` ModMuls over ``modulus``; ports ``i<q>``/``o<q>`` are those of multiplier q."""

    def __init__(self, count, modulus, tiled=False):
        self._muls = [ModMul(modulus, tiled=tiled) for _ in range(count)]
        members = {}
        for q, mul in enumerate(self._muls):
            members[f"i{q}"] = mul.signature.members["i"]
            members[f"o{q}"] = mul.signature.members["o"]
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for q, mul in enumerate(self._muls):
            m.submodules[f"mul{q}"] = mul
            i, o = getattr(self, f"i{q}"), getattr(self, f"o{q}")
            m.d.comb += [mul.i.payload.eq(i.payload), mul.i.valid.eq(i.valid),
                         o.payload.eq(mul.o.payload), o.valid.eq(mul.o.valid)]
        return m


def synth_array(count, modulus="solinas64", tiled=False, target="ecp5-splitnets-router2",
                **kw):
    """:func:`fhe_hw.flow.synth.synthesize` of a :class:`ModMulArray` (cached by its key)."""

    if count < 1:
        raise ValueError(f"--count must be at least 1, not {count}")
    params = {"count": count, "modulus": modulus, "tiled": tiled}
    return synthesize(lambda: ModMulArray(count, modulus, tiled), "modmul-array", target,
                      params=params, **kw)
