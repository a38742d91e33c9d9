"""Reduction modulo the special modulus p = 2^(m-1) + 1 without multipliers:
[Cao14] §3.3, Fig. 3(b) (after Zimmermann 1999).

Since 2^(m-1) ≡ -1 (mod p), a 2m-bit x = T·2^(2m-2) + H·2^(m-1) + L is congruent to
y1 = L - H + T, with L = x[m-2:0], H = x[2m-3:m-1], T = x[2m-1:2m-2]. The paper then selects
y1 + p when y1 < 0, else y1. That is exact for products of reduced operands (x <= (p-1)^2, where
T = 1 forces H = L = 0); over the whole 2m-bit input y1 reaches at most p + 1, so this unit also
selects y1 - p when y1 >= p: a 3→1 selection, and the result is x mod p for every 2m-bit input.

Pipelined, the unit puts one carry chain in each stage (``deep=True``, latency 4): L - H,
y1 = (L - H) + T, y1 + p and y1 - p side by side, and the selection by the signs of y1 and
y1 - p. ``deep=False`` merges the first two and the last two (latency 2).

Proved formally (:mod:`fhe_hw.sim.formal`, ``tests/test_formal.py``): for m = 33 and 65 the
combinational unit outputs y < p with x - y a multiple of p for all 2^(2m) inputs (Yosys SAT,
0.9 s and 2.5 s here); the paper's two-way selection fails that proof and passes it under
x <= (p-1)^2.
"""

from dataclasses import dataclass

from amaranth import Module, Mux, unsigned

from ..plan import Plan, param
from .pipeline import FixedLatencyUnit, Stages, deep_param, pipelined_param

__all__ = ["SpecialReducer", "SpecialReducerPlan", "MAX_M"]

#: The widest special modulus 2^(m-1) + 1 taken (m bits; [Cao14] uses m up to 65).
MAX_M = 4096


@dataclass(frozen=True)
class SpecialReducerPlan(Plan):
    """The parameters of :class:`SpecialReducer`.

    Parameters
    ----------
    modulus_bits : int
        m, the bit length of p, 3 to :data:`MAX_M`: 33 for 2^32 + 1, 65 for 2^64 + 1.
    pipelined : bool
        Register the stages; otherwise combinational (latency 0).
    deep : bool
        One carry chain per stage: latency 4, the default; False: latency 2 (see the module
        docstring). No effect when not pipelined.
    """

    modulus_bits: int = param(help="bit length m of p = 2^(m-1)+1 (33: 2^32+1, 65: 2^64+1)",
                              range=(3, MAX_M), cli_default=33)
    pipelined: bool = pipelined_param()
    deep: bool = deep_param()

    @property
    def latency(self):
        return (4 if self.deep else 2) if self.pipelined else 0

    @property
    def modulus(self):
        """p = 2^(m-1) + 1."""
        return (1 << (self.modulus_bits - 1)) + 1


class SpecialReducer(FixedLatencyUnit):
    """x mod p for p = 2^(m-1) + 1 and any 0 <= x < 2^(2m) ([Cao14] Fig. 3b), with adders
    and a multiplexer only.

    Parameters
    ----------
    plan : SpecialReducerPlan
        Or the arguments of one (``SpecialReducer(33, deep=False)``).

    Attributes
    ----------
    i : In(stream.Signature(unsigned(2m))), always ready
        x.
    o : Out(stream.Signature(unsigned(m))), always ready
        x mod p, one per cycle.
    latency : int
        4, 2 or 0, as the plan says (without building).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = SpecialReducerPlan.coerce(*args, **kw)
        self._latency = plan.latency
        super().__init__(unsigned(2 * plan.modulus_bits), unsigned(plan.modulus_bits))

    @property
    def modulus_bits(self):
        return self.plan.modulus_bits

    @property
    def modulus(self):
        return self.plan.modulus

    def elaborate(self, platform):
        mod = Module()
        m, p, x = self.plan.modulus_bits, self.plan.modulus, self.i.payload
        low, high, top = x[:m - 1], x[m - 1:2 * m - 2], x[2 * m - 2:]
        st = Stages(mod, self.i.valid, self.plan.pipelined)
        deep = self.plan.pipelined and self.plan.deep
        diff, top = st.cut(low - high, top, enable=deep)
        y1, = st.cut(diff + top)
        plus, minus, y1 = st.cut(y1 + p, y1 - p, y1, enable=deep)
        y, = st.cut(Mux(y1 < 0, plus, Mux(minus >= 0, minus, y1))[:m])
        self._output(mod, st, y)
        return mod
