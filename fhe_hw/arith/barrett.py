"""Barrett reduction for any modulus: [Cao14] Algorithm 2, §3.3, Fig. 3(a).

σ̂ = ⌊⌊x / 2^(m+β)⌋ · μ / 2^(α-β)⌋ with μ = ⌊2^(m+α) / p⌋ (β = -4, α = m + 4 by default),
p2 = σ̂·p, y1 = x - p2, y2 = y1 - p, and y = y2 unless it is negative. Two multipliers and two
subtractions. Because y1 < 2p whenever α > m and β < -2 (Dhem 1998; checked by the model's
tests over the full input range), only the low m + 2 bits of x and p2 take part in the
subtractions.
"""

from amaranth import Const, Module, Mux, unsigned

from ..params import barrett_constants
from .modadd import check_bool
from .pipeline import FixedLatencyUnit, Multiplier, Stages, check_stages

__all__ = ["BarrettReducer"]


class BarrettReducer(FixedLatencyUnit):
    """x mod p for any odd p of m bits and any 0 <= x < 2^(2m) ([Cao14] Algorithm 2).

    Parameters: ``modulus``; ``alpha`` (> m, default m + 4) and ``beta`` (< -2, default -4);
    ``mult_stages`` (registers inside each of the two multipliers, default 4 as in [Cao14] §4);
    ``pipelined`` (register the final selection).

    Ports: ``i`` — always-ready stream of the 2m-bit x; ``o`` — always-ready stream of the m-bit
    x mod p. Latency ``2·mult_stages + pipelined``; one result per cycle.
    """

    def __init__(self, modulus, alpha=None, beta=None, *, mult_stages=4, pipelined=True):
        self._latency = self.latency_of(modulus, alpha, beta, mult_stages=mult_stages,
                                        pipelined=pipelined)
        self._c = barrett_constants(modulus, alpha, beta)
        self._mult_stages = mult_stages
        self._pipelined = pipelined
        super().__init__(unsigned(2 * self._c.m), unsigned(self._c.m))

    @staticmethod
    def latency_of(modulus, alpha=None, beta=None, *, mult_stages=4, pipelined=True):
        """The :attr:`latency` of the reducer with these parameters without building it; raises
        the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        barrett_constants(modulus, alpha, beta)
        check_stages("mult_stages", mult_stages)
        return 2 * mult_stages + int(check_bool("pipelined", pipelined))

    @property
    def modulus(self):
        return self._c.p

    @property
    def constants(self):
        """The :class:`~fhe_hw.params.BarrettConstants` baked into the unit."""
        return self._c

    def elaborate(self, platform):
        mod = Module()
        c, x = self._c, self.i.payload
        m, low = c.m, c.m + 2
        st = Stages(mod, self.i.valid, self._pipelined)
        st.ride(x=x[:low])
        t = x[m + c.beta:]
        q1 = Multiplier(len(t), c.mu_bits, self._mult_stages).build(st, t, Const(c.mu, c.mu_bits))
        sigma = q1[c.alpha - c.beta:]
        p2 = Multiplier(len(sigma), m, self._mult_stages).build(st, sigma, Const(c.p, m))
        y1 = (st["x"] - p2[:low])[:low]
        y2 = y1 - c.p
        y, = st.cut(Mux(y2 < 0, y1, y2)[:m])
        mod.d.comb += [self.o.payload.eq(y), self.o.valid.eq(st.valid)]
        return mod
