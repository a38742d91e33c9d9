"""The product of two RNS polynomials (OpenFHE's ``DCRTPoly`` a·b, mod x^n + 1 in every tower):
the forward NTTs of both operands, the point-wise product of each tower mod its prime, the
inverse NTT, on :class:`~fhe_hw.poly.RNSPolyNTT` units.

Data path
---------
``i_a`` and ``i_b`` carry the operands in OpenFHE's tower-major layout, ``o`` the product in the
same layout. a goes through a forward :class:`~fhe_hw.poly.RNSPolyNTT`; so does b, unless
``b_evaluated`` (b arrives in evaluation form, as OpenFHE keeps keys: one forward unit less).
The two evaluation forms meet tower by tower at the point-wise multipliers, ``lanes`` pairs of
:class:`~fhe_hw.arith.montgomery_dyn.DynamicModMul` whose modulus is the tower's prime, chosen
at run time by the tower counter: the first gives a·b·R^-1, the second multiplies by R^2 (a
per-tower constant), so the pair gives a·b mod q_j. One pair per lane serves every tower; a
:class:`~fhe_hw.arith.ModMul` per tower and lane would cost L times the DSPs. The products go
through the inverse :class:`~fhe_hw.poly.RNSPolyNTT` (evaluation to coefficient form) to ``o``.
The point-wise stage stalls as one pipeline when the inverse unit is not ready
(:func:`fhe_hw.lib.stream.stall_on_backpressure`).

Cycles
------
Tower j of each polynomial leaves the forward units as in :class:`RNSPolyNTTPlan`'s schedule,
reaches the inverse unit ``pointwise_latency`` cycles later and is scheduled there the same way
(:meth:`RNSPolyProductPlan.cycles`). The inverse engine of a tower has the forward engine's
period, so it is free when the tower's next polynomial arrives.
"""

from dataclasses import dataclass, field, fields

from amaranth import Array, Const, Module, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out, connect, flipped

from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from ..component import Component
from ..lib.delay import register_delay
from ..lib.stream import stall_on_backpressure
from ..plan import param
from .ntt import RNSPolyNTT, RNSPolyNTTPlan, TowersComponent, TowersPlan, tower_turn

__all__ = ["RNSPolyProduct", "RNSPolyProductPlan"]


@dataclass(frozen=True)
class RNSPolyProductPlan(TowersPlan):
    """The parameters of :class:`RNSPolyProduct`: those of :class:`~fhe_hw.poly.ntt.TowersPlan`
    (the towers, each engine's) and ``b_evaluated``.

    Parameters
    ----------
    b_evaluated : bool
        b arrives in evaluation form (default False: in coefficient form, transformed here).

    Attributes
    ----------
    forward, backward : RNSPolyNTTPlan
        The forward units' and the inverse unit's plans.
    pointwise : DynamicModMulPlan
        Each point-wise multiplier's (moduli: the towers).
    pointwise_latency : int
        Cycles from the forward units' output to the inverse unit's input.
    """

    b_evaluated: bool = param(False, help="b arrives in evaluation form (as OpenFHE keeps "
                              "keys): no forward transform of b", kw_only=True)
    forward: RNSPolyNTTPlan = field(init=False, repr=False, compare=False)
    backward: RNSPolyNTTPlan = field(init=False, repr=False, compare=False)
    pointwise: DynamicModMulPlan = field(init=False, repr=False, compare=False)
    pointwise_latency: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        shared = {f.name: getattr(self, f.name) for f in fields(TowersPlan) if f.init}
        forward = RNSPolyNTTPlan(**shared)
        pointwise = DynamicModMulPlan(self.towers, width=self.width)
        # Two multipliers, their output register and the stall wrapper's skid buffer.
        self._set(forward=forward, backward=RNSPolyNTTPlan(**shared, inverse=True),
                  pointwise=pointwise, pointwise_latency=2 * pointwise.latency + 2)

    def cycles(self, polys=1):
        """Exact cycles of ``polys`` products back to back, first input transfer to last output
        transfer, inputs always valid and output always ready (the module's schedule)."""
        arrivals = [t + self.pointwise_latency for t in self.forward.schedule(polys)]
        return self.backward.schedule(polys, arrivals)[-1] + self.tower_beats

    def describe(self):
        """The towers' primes and the point-wise multipliers' Montgomery word."""
        return {**super().describe(), "pointwise word": str(self.pointwise.word)}


class _Pointwise(Component):
    """a·b mod q_j lane by lane, j the tower of the beat: per lane a :class:`DynamicModMul`
    (a·b·R^-1) then another by R^2 mod q_j; the valid bit and the tower ride beside them. The
    output beat is a register (for :func:`~fhe_hw.lib.stream.stall_on_backpressure`)."""

    def __init__(self, plan):
        self._plan = plan
        lanes, width = plan.lanes_resolved, plan.width
        words = data.ArrayLayout(unsigned(width), lanes)
        self._mul = [[DynamicModMul(plan.pointwise) for _ in range(lanes)] for _ in range(2)]
        super().__init__({"valid": In(1), "a": In(words), "b": In(words),
                          "tower": In(range(len(plan.towers))),
                          "o_valid": Out(1), "o": Out(words)})

    def elaborate(self, platform):
        m = Module()
        p = self._plan
        towers, mul = p.towers, p.pointwise
        q = Array(Const(t, p.width) for t in towers)
        r2 = Array(Const(mul.premultiply(mul.R % t, t), p.width) for t in towers)
        latency = mul.latency
        tower_late = register_delay(m, self.tower, latency, "tower_late")
        for lane in range(p.lanes_resolved):
            first, second = self._mul[0][lane], self._mul[1][lane]
            m.submodules[f"mul{lane}"], m.submodules[f"scale{lane}"] = first, second
            m.d.comb += [first.i.valid.eq(self.valid), first.i.payload.a.eq(self.a[lane]),
                         first.i.payload.b.eq(self.b[lane]),
                         first.i.payload.q.eq(q[self.tower]),
                         second.i.valid.eq(first.o.valid), second.i.payload.a.eq(first.o.payload),
                         second.i.payload.b.eq(r2[tower_late]),
                         second.i.payload.q.eq(q[tower_late])]
            m.d.sync += self.o[lane].eq(second.o.payload)
        m.d.sync += self.o_valid.eq(register_delay(m, self.valid, 2 * latency, "valid_late"))
        return m


class RNSPolyProduct(TowersComponent):
    """a·b mod x^n + 1 of two L-tower RNS polynomials in OpenFHE's layout (module docstring).

    Parameters
    ----------
    plan : RNSPolyProductPlan
        Or the arguments of one (``RNSPolyProduct(64, limbs=3)``).

    Attributes
    ----------
    i_a, i_b : stream.Signature(data.ArrayLayout(unsigned(width), lanes))
        The operands, L·n/lanes beats each, tower-major, in coefficient form (b in evaluation
        form with ``b_evaluated``); a beat moves when both are valid.
    o : stream.Signature(data.ArrayLayout(unsigned(width), lanes))
        The product in coefficient form, the same layout.
    """

    def __init__(self, *args, **kw):
        self.plan = plan = RNSPolyProductPlan.coerce(*args, **kw)
        self._fa = RNSPolyNTT(plan.forward)
        self._fb = None if plan.b_evaluated else RNSPolyNTT(plan.forward)
        self._inv = RNSPolyNTT(plan.backward)
        self._pointwise = _Pointwise(plan)
        layout = data.ArrayLayout(unsigned(plan.width), plan.lanes_resolved)
        super().__init__({"i_a": In(stream.Signature(layout)),
                          "i_b": In(stream.Signature(layout)),
                          "o": Out(stream.Signature(layout))})

    def elaborate(self, platform):
        m = Module()
        plan = self.plan
        m.submodules.forward_a, m.submodules.inverse = self._fa, self._inv
        connect(m, flipped(self.i_a), self._fa.i)
        a = self._fa.o
        if self._fb is None:
            b = self.i_b
        else:
            m.submodules.forward_b = self._fb
            connect(m, flipped(self.i_b), self._fb.i)
            b = self._fb.o
        pw = self._pointwise
        advance = stall_on_backpressure(m, pw, pw.o_valid, pw.o, self._inv.i, name="pointwise")
        join = Signal()
        m.d.comb += [join.eq(a.valid & b.valid & advance), a.ready.eq(join), b.ready.eq(join),
                     pw.valid.eq(join), pw.a.eq(a.payload), pw.b.eq(b.payload),
                     pw.tower.eq(tower_turn(m, "pointwise", len(plan.towers),
                                            plan.tower_beats, join))]
        connect(m, self._inv.o, flipped(self.o))
        return m
