"""Reduction modulo the Solinas prime p = 2^64 - 2^32 + 1 without multipliers:
[Cao14] §3.3, Fig. 3(c); [Wang13] eq. (3).

With x = 2^96·a + 2^64·b + 2^32·c + d (32-bit a, b, c, d), 2^96 ≡ -1 and 2^64 ≡ 2^32 - 1 give
x ≡ r = 2^32·(b + c) - a - b + d. For every 128-bit x, -(2^32 - 1) <= r <= 2^65 - 2^33 < 2p, so
r lies in (-p, 2p) and one of r + p, r, r - p is the result: one addition, one subtraction and a
3→1 selection, as in the paper.

Pipelined, the unit puts one carry chain in each stage (``deep=True``, latency 4): b + c and
a + b (33 bits each, side by side), r = (2^32·(b + c) + d) - (a + b) (2^32·(b + c) + d is a
concatenation, so this is one 66-bit subtraction), r + p and r - p side by side, and the
selection by the signs of r and r - p. ``deep=False`` merges the first two and the last two
(latency 2): a 66-bit chain behind a 33-bit one, and a 3→1 selection behind a 66-bit chain.

Proved formally (:mod:`fhe_hw.sim.formal`, ``tests/test_formal.py``): the combinational unit outputs
y < p with x - y a multiple of p for all 2^128 inputs (Yosys SAT, 9 s here).
"""

from dataclasses import dataclass

from amaranth import Cat, Module, Mux, unsigned

from ..params import SOLINAS64, get_modulus
from ..plan import Plan
from .pipeline import FixedLatencyUnit, Stages, deep_param, modulus_param, pipelined_param

__all__ = ["SolinasReducer", "SolinasReducerPlan"]


@dataclass(frozen=True)
class SolinasReducerPlan(Plan):
    """The parameters of :class:`SolinasReducer`.

    Parameters
    ----------
    modulus : str, int or Modulus, optional
        Only 2^64 - 2^32 + 1 (``"solinas64"``) is accepted.
    pipelined : bool
        Register the stages; otherwise combinational (latency 0).
    deep : bool
        One carry chain per stage: latency 4, the default; False: latency 2 (see the module
        docstring). No effect when not pipelined.
    """

    modulus: object = modulus_param(help="must be solinas64", default="solinas64")
    pipelined: bool = pipelined_param()
    deep: bool = deep_param()

    def __post_init__(self):
        super().__post_init__()
        if get_modulus(self.modulus).value != SOLINAS64:
            raise ValueError(f"modulus must be 2^64 - 2^32 + 1 (solinas64) for the Solinas "
                             f"reducer, not {self.modulus!r}")

    @property
    def latency(self):
        return (4 if self.deep else 2) if self.pipelined else 0


class SolinasReducer(FixedLatencyUnit):
    """x mod (2^64 - 2^32 + 1) for any 128-bit x ([Cao14] Fig. 3c), with adders and a
    multiplexer only.

    Parameters
    ----------
    plan : SolinasReducerPlan
        Or the arguments of one (``SolinasReducer(deep=False)``).

    Attributes
    ----------
    i : In(stream.Signature(unsigned(128))), always ready
        x.
    o : Out(stream.Signature(unsigned(64))), always ready
        x mod p, one per cycle.
    latency : int
        4, 2 or 0, as the plan says (without building).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = SolinasReducerPlan.coerce(*args, **kw)
        self._latency = plan.latency
        super().__init__(unsigned(128), unsigned(64))

    @property
    def modulus(self):
        return SOLINAS64

    def elaborate(self, platform):
        m = Module()
        p, x = SOLINAS64, self.i.payload
        a, b, c, d = x[96:128], x[64:96], x[32:64], x[:32]
        st = Stages(m, self.i.valid, self.plan.pipelined)
        deep = self.plan.pipelined and self.plan.deep
        high, low, d = st.cut(b + c, a + b, d, enable=deep)
        r, = st.cut(Cat(d, high) - low)
        plus, minus, r = st.cut(r + p, r - p, r, enable=deep)
        y, = st.cut(Mux(r < 0, plus, Mux(minus >= 0, minus, r))[:64])
        self._output(m, st, y)
        return m
