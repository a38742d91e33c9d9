"""Barrett reduction for any modulus: [Cao14] Algorithm 2, §3.3, Fig. 3(a).

σ̂ = ⌊⌊x / 2^(m+β)⌋ · μ / 2^(α-β)⌋ with μ = ⌊2^(m+α) / p⌋ (β = -4, α = m + 4 by default),
p2 = σ̂·p, y1 = x - p2, y2 = y1 - p, and y = y2 unless it is negative. Two multipliers and two
subtractions. Because y1 < 2p whenever α > m and β < -2 (Dhem 1998; checked by the model's
tests over the full input range), only the low m + 2 bits of x and p2 take part in the
subtractions.

y1 - p = (x - p) - p2, and x - p does not depend on the multipliers: it is computed beside the
first and travels beside the second, so y1 and y1 - p come out of two subtractions side by side.
With ``deep`` (the default) they are registered and the selection by the sign of y1 - p has a
register of its own; otherwise subtractions and selection share one.
"""

from amaranth import Const, Module, Mux, unsigned

from ..params import barrett_constants
from .modadd import check_bool
from .pipeline import FixedLatencyUnit, Multiplier, Stages

__all__ = ["BarrettReducer"]


class BarrettReducer(FixedLatencyUnit):
    """x mod p for any odd p of m bits and any 0 <= x < 2^(2m) ([Cao14] Algorithm 2).

    Parameters
    ----------
    modulus : str, int or Modulus
        p, odd, of m bits.
    alpha, beta : int or None
        The Barrett parameters: alpha > m (default m + 4), beta < -2 (default -4).
    mult_stages : int or None
        Registers inside each of the two multipliers; default None, the fast setting of
        :class:`~fhe_hw.arith.pipeline.Multiplier`; [Cao14] §4 uses 4.
    tiled : bool
        Both multipliers in 17-bit tiles, one DSP per partial product (default True).
    pipelined : bool
        Register the final subtractions and selection.
    deep : bool
        Give the selection a register of its own (default True; no effect when not
        pipelined).

    Attributes
    ----------
    i : In(stream.Signature(unsigned(2m))), always ready
        x.
    o : Out(stream.Signature(unsigned(m))), always ready
        x mod p, one per cycle.
    latency : int
        The two multipliers' stages plus 2 (pipelined and deep), 1 (pipelined) or 0
        (:meth:`latency_of` without building).
    """

    def __init__(self, modulus, alpha=None, beta=None, *, mult_stages=None, tiled=True,
                 pipelined=True, deep=True):
        self._latency = self.latency_of(modulus, alpha, beta, mult_stages=mult_stages,
                                        tiled=tiled, pipelined=pipelined, deep=deep)
        self._c = barrett_constants(modulus, alpha, beta)
        self._muls = self._multipliers(self._c, mult_stages, tiled)
        self._pipelined, self._deep = pipelined, deep
        super().__init__(unsigned(2 * self._c.m), unsigned(self._c.m))

    @staticmethod
    def _multipliers(c, mult_stages, tiled):
        """The plans of the multipliers t·μ and σ̂·p."""
        t_width = 2 * c.m - (c.m + c.beta)
        sigma_width = t_width + c.mu_bits - (c.alpha - c.beta)
        return (Multiplier(t_width, c.mu_bits, mult_stages, tiled=tiled),
                Multiplier(sigma_width, c.m, mult_stages, tiled=tiled))

    @staticmethod
    def latency_of(modulus, alpha=None, beta=None, *, mult_stages=None, tiled=True,
                   pipelined=True, deep=True):
        """The :attr:`latency` of the reducer with these parameters without building it; raises
        the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        c = barrett_constants(modulus, alpha, beta)
        first, second = BarrettReducer._multipliers(c, mult_stages, tiled)
        deep = check_bool("deep", deep)
        final = (2 if deep else 1) if check_bool("pipelined", pipelined) else 0
        return first.stages + second.stages + final

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
        first, second = self._muls
        q1 = first.build(st, x[m + c.beta:], Const(c.mu, c.mu_bits))
        st.ride(xp=(st["x"] - c.p)[:low])
        p2 = second.build(st, q1[c.alpha - c.beta:], Const(c.p, m))[:low]
        # y2 = y1 - p lies in [-p, p) and |y2| < 2^(low - 1): bit low - 1 is its sign.
        y1, y2 = st.cut((st["x"] - p2)[:low], (st["xp"] - p2)[:low],
                        enable=self._pipelined and self._deep)
        y, = st.cut(Mux(y2[low - 1], y1, y2)[:m])
        self._output(mod, st, y)
        return mod
