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

from dataclasses import dataclass, field

from amaranth import Const, Module, Mux, unsigned

from ..params import barrett_constants
from ..plan import Plan, param
from .pipeline import (
    FixedLatencyUnit,
    Multiplier,
    Stages,
    deep_param,
    modulus_param,
    mult_stages_param,
    pipelined_param,
    tile_reg_param,
    tiled_param,
)

__all__ = ["BarrettReducer", "BarrettReducerPlan"]


@dataclass(frozen=True)
class BarrettReducerPlan(Plan):
    """The parameters of :class:`BarrettReducer` and what they derive.

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
    tile_reg : bool
        A fabric register after each tile's product in both multipliers, tiled only (default
        False; see :class:`~fhe_hw.arith.pipeline.Multiplier`).
    pipelined : bool
        Register the final subtractions and selection.
    deep : bool
        Give the selection a register of its own (default True; no effect when not
        pipelined).

    Attributes
    ----------
    constants : BarrettConstants
        The constants baked into the unit (:func:`~fhe_hw.params.barrett_constants`).
    multipliers : (Multiplier, Multiplier)
        The plans of the multipliers t·μ and σ̂·p.
    """

    modulus: object = modulus_param("general32")
    alpha: int | None = param(None, help="alpha > m (default m + 4)")
    beta: int | None = param(None, help="beta < -2 (default -4)")
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    tile_reg: bool = tile_reg_param()
    pipelined: bool = pipelined_param()
    deep: bool = deep_param()
    constants: object = field(init=False, repr=False, compare=False)
    multipliers: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        c = barrett_constants(self.modulus, self.alpha, self.beta)
        t_width = 2 * c.m - (c.m + c.beta)
        sigma_width = t_width + c.mu_bits - (c.alpha - c.beta)
        self._set(constants=c, multipliers=(
            Multiplier(t_width, c.mu_bits, self.mult_stages, tiled=self.tiled,
                       tile_reg=self.tile_reg),
            Multiplier(sigma_width, c.m, self.mult_stages, tiled=self.tiled,
                       tile_reg=self.tile_reg)))

    @property
    def latency(self):
        """The two multipliers' stages plus 2 (pipelined and deep), 1 (pipelined) or 0."""
        first, second = self.multipliers
        final = (2 if self.deep else 1) if self.pipelined else 0
        return first.stages + second.stages + final


class BarrettReducer(FixedLatencyUnit):
    """x mod p for any odd p of m bits and any 0 <= x < 2^(2m) ([Cao14] Algorithm 2).

    Parameters
    ----------
    plan : BarrettReducerPlan
        Or the arguments of one (``BarrettReducer("general32", mult_stages=4)``).

    Attributes
    ----------
    i : In(stream.Signature(unsigned(2m))), always ready
        x.
    o : Out(stream.Signature(unsigned(m))), always ready
        x mod p, one per cycle.
    latency : int
        As the plan says (without building).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = BarrettReducerPlan.coerce(*args, **kw)
        self._latency = plan.latency
        super().__init__(unsigned(2 * plan.constants.m), unsigned(plan.constants.m))

    @property
    def modulus(self):
        return self.plan.constants.p

    @property
    def constants(self):
        """The :class:`~fhe_hw.params.BarrettConstants` baked into the unit."""
        return self.plan.constants

    def elaborate(self, platform):
        mod = Module()
        p, x = self.plan, self.i.payload
        c = p.constants
        m, low = c.m, c.m + 2
        st = Stages(mod, self.i.valid, p.pipelined)
        st.ride(x=x[:low])
        first, second = p.multipliers
        q1 = first.build(st, x[m + c.beta:], Const(c.mu, c.mu_bits))
        st.ride(xp=(st["x"] - c.p)[:low])
        p2 = second.build(st, q1[c.alpha - c.beta:], Const(c.p, m))[:low]
        # y2 = y1 - p lies in [-p, p) and |y2| < 2^(low - 1): bit low - 1 is its sign.
        y1, y2 = st.cut((st["x"] - p2)[:low], (st["xp"] - p2)[:low],
                        enable=p.pipelined and p.deep)
        y, = st.cut(Mux(y2[low - 1], y1, y2)[:m])
        self._output(mod, st, y)
        return mod
