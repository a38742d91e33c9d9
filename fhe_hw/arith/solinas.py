"""Reduction modulo the Solinas prime p = 2^64 - 2^32 + 1 without multipliers:
[Cao14] §3.3, Fig. 3(c); [Wang13] eq. (3).

With x = 2^96·a + 2^64·b + 2^32·c + d (32-bit a, b, c, d), 2^96 ≡ -1 and 2^64 ≡ 2^32 - 1 give
x ≡ r = 2^32·(b + c) - a - b + d. For every 128-bit x, -(2^32 - 1) <= r <= 2^65 - 2^33 < 2p, so
r lies in (-p, 2p) and one of r + p, r, r - p is the result: one addition, one subtraction and a
3→1 selection, as in the paper.

Proved formally (:mod:`fhe_hw.sim.formal`, ``tests/test_formal.py``): the combinational unit outputs
y < p with x - y a multiple of p for all 2^128 inputs (Yosys SAT, 9 s here).
"""

from amaranth import Module, Mux, unsigned

from ..params import SOLINAS64, get_modulus
from .modadd import check_bool
from .pipeline import FixedLatencyUnit, Stages

__all__ = ["SolinasReducer"]


class SolinasReducer(FixedLatencyUnit):
    """x mod (2^64 - 2^32 + 1) for any 128-bit x ([Cao14] Fig. 3c).

    Parameters: ``modulus`` (optional; only 2^64 - 2^32 + 1 / ``"solinas64"`` is accepted),
    ``pipelined`` (register r and the result: latency 2; otherwise combinational, latency 0).

    Ports: ``i`` — always-ready stream of the 128-bit x; ``o`` — always-ready stream of the
    64-bit x mod p. One result per cycle. Uses adders and a multiplexer only.
    """

    def __init__(self, modulus="solinas64", *, pipelined=True):
        self._latency = self.latency_of(modulus, pipelined=pipelined)
        self._pipelined = pipelined
        super().__init__(unsigned(128), unsigned(64))

    @staticmethod
    def latency_of(modulus="solinas64", *, pipelined=True):
        """The :attr:`latency` of ``SolinasReducer(modulus, pipelined=pipelined)`` without
        building it; raises the constructor's ``ValueError``/``TypeError`` for refused
        parameters."""
        if get_modulus(modulus).value != SOLINAS64:
            raise ValueError(f"modulus must be 2^64 - 2^32 + 1 (solinas64) for the Solinas "
                             f"reducer, not {modulus!r}")
        return 2 if check_bool("pipelined", pipelined) else 0

    @property
    def modulus(self):
        return SOLINAS64

    def elaborate(self, platform):
        m = Module()
        p, x = SOLINAS64, self.i.payload
        a, b, c, d = x[96:128], x[64:96], x[32:64], x[:32]
        st = Stages(m, self.i.valid, self._pipelined)
        r, = st.cut(((b + c) << 32) + d - (a + b))
        y = Mux(r < 0, r + p, Mux(r >= p, r - p, r))
        y, = st.cut(y[:64])
        m.d.comb += [self.o.payload.eq(y), self.o.valid.eq(st.valid)]
        return m
