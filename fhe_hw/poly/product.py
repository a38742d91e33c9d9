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
at run time by the tower counter: the first gives a·b·R^-1, the second multiplies by
R^2·n^-1 (a per-tower constant), so the pair gives a·b·n^-1 mod q_j. One pair per lane serves
every tower; a :class:`~fhe_hw.arith.ModMul` per tower and lane would cost L times the DSPs.
The products go through the inverse :class:`~fhe_hw.poly.RNSPolyNTT` (evaluation to
coefficient form) to ``o``; it is unscaled (``scaled=False``: the n^-1 is the point-wise
stage's), so its Gentleman–Sande butterflies have no up-multiplier.

Each operand passes a :class:`~fhe_hw.lib.stream.SkidBuffer` before they meet, and every
engine's output ``valid`` comes straight from a register (``registered_valid``), so the
path from an engine across the die to an operand's slice starts at a flip-flop and passes only
the multiplexer of the towers. The point-wise stage never stalls: it takes a pair of beats
only while the :class:`~fhe_hw.lib.stream.CreditQueue` after it has room for every beat in
flight (:func:`~fhe_hw.lib.stream.credit_room`), so no clock enable spans its multipliers.
A register slice follows the queue, so that the inverse unit's ``ready`` (a multiplexer of
its engines', from across the die) reaches the slice's registers only, not the queue's
count, and the beats reach every inverse engine from registers.

With ``extend_limbs`` = K > 0, the product then goes through the exact base extension
Q → Q ∪ B (:class:`~fhe_hw.poly.RNSPolyExtend`, OpenFHE's ``ExpandCRTBasis``; B the K primes
OpenFHE takes after the towers'), as a BFV multiplication or a key switch extends a product in
coefficient form, and ``o`` carries its L + K towers. The extension holds the whole product
before it converts, so the products go through one at a time: the inputs of the next product
are taken after the last beat of this one's extension has left.

Twiddles
--------
The engines of a tower read one twiddle ROM (:func:`~fhe_hw.ntt.streaming.shared_twiddle_rom`:
the forward table ψ^brv(a), which the inverse reads as -ψ^(n - brv(a))), through the block
RAM's two ports when b arrives evaluated, so a tower's forward and inverse engines take the
block RAM of one ROM, not two; with b transformed here the three engines' ports take two
copies.
With ``wide_twiddles`` the ROM holds P twiddles per word and every engine reads it through one
port, so with P butterflies per engine a tower's forward and inverse engines still share one
copy (P ports each would take P copies).

Cycles
------
Tower j of each polynomial leaves the forward units as in :class:`RNSPolyNTTPlan`'s schedule,
reaches the inverse unit ``pointwise_latency`` cycles later and is scheduled there the same way
(:meth:`RNSPolyProductPlan.cycles`). The inverse engine of a tower has the forward engine's
period, so it is free when the tower's next polynomial arrives. With the extension, one product
takes the product's cycles plus the extension's after its last input transfer
(``RNSPolyExtendPlan.cycles() - input_beats``), and ``polys`` products ``polys`` times that.
"""

from dataclasses import dataclass, field, fields

from amaranth import Array, Const, Module, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out, connect, flipped

from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from ..arith.pipeline import MAX_STAGES
from ..component import Component
from ..lib.delay import register_delay
from ..lib.stream import CreditQueue, SkidBuffer, credit_room
from ..ntt.streaming import shared_twiddle_rom
from ..params import require_int
from ..plan import param
from .extend import ARCHITECTURES, RNSPolyExtend, RNSPolyExtendPlan
from .ntt import (
    MAX_TOWERS,
    RNSPolyNTT,
    RNSPolyNTTPlan,
    TowersComponent,
    TowersPlan,
    beat_count,
    openfhe_towers,
    tower_turn,
)

__all__ = ["RNSPolyProduct", "RNSPolyProductPlan"]


@dataclass(frozen=True)
class RNSPolyProductPlan(TowersPlan):
    """The parameters of :class:`RNSPolyProduct`: those of :class:`~fhe_hw.poly.ntt.TowersPlan`
    (the towers, each engine's) and ``b_evaluated``.

    Parameters
    ----------
    b_evaluated : bool
        b arrives in evaluation form (default False: in coefficient form, transformed here).
    extend_limbs : int
        K, the towers of B the exact base extension appends to the product (default 0: no
        extension); with OpenFHE's primes only (``primes`` not given).
    extend_architecture : str
        The extension's conversion engine (:class:`~fhe_hw.poly.RNSPolyExtendPlan`'s
        ``architecture``, default ``"iterative"``).
    wide_twiddles : bool
        Each tower's twiddle ROM holds P twiddles per word and each engine reads it through
        one port (:func:`~fhe_hw.ntt.streaming.shared_twiddle_rom`'s ``wide``; default False:
        a port per butterfly), so a tower's engines take one block-RAM copy of the ROM whatever
        P; ``butterflies`` at least 2.
    pointwise_stages : int or None
        Registers of each point-wise multiplier's r×r product
        (:class:`~fhe_hw.arith.montgomery_dyn.DynamicModMulPlan`'s ``mult_stages``; default
        None: its own default). As many as the product's adder levels plus two put its operands
        in the DSPs' input registers (six at 60 bits): the operands then reach the DSPs from
        the operand slices, across the die, in a cycle of their own.
    distributed_queue : bool
        The queue after the point-wise multipliers in LUT RAM
        (:class:`~fhe_hw.lib.stream.CreditQueue`'s ``distributed``; default False: Yosys maps
        a wide one to block RAM, whose read without its output register then starts the path
        to the inverse unit's slice). Same cycles.

    Attributes
    ----------
    forward, backward : RNSPolyNTTPlan
        The forward units' and the inverse unit's plans.
    pointwise : DynamicModMulPlan
        Each point-wise multiplier's (moduli: the towers).
    pointwise_latency : int
        Cycles from the forward units' output to the inverse unit's input.
    extension : RNSPolyExtendPlan or None
        The extension's plan (Q the towers, B OpenFHE's next K primes), or None.
    """

    b_evaluated: bool = param(False, help="b arrives in evaluation form (as OpenFHE keeps "
                              "keys): no forward transform of b", kw_only=True)
    # cli_default None: left out of a generated file's header unless given.
    extend_limbs: int = param(0, help="towers K of the base B the exact base extension Q -> Q "
                              "u B appends to the product (rns-poly-extend; default 0: none; "
                              "OpenFHE's primes only)", range=(0, MAX_TOWERS), cli_default=None,
                              kw_only=True)
    extend_architecture: str = param("iterative", help="the extension's conversion engine: "
                                     "iterative or pipelined (default iterative)",
                                     cli_default=None, kw_only=True)
    # cli_default None, as extend_limbs.
    wide_twiddles: bool = param(False, help="each tower's twiddle ROM P twiddles to a word, "
                                "one port per engine (butterflies >= 2; true/false, default "
                                "false)", cli_default=None, kw_only=True)
    # cli_default None, as extend_limbs.
    pointwise_stages: int | None = param(None, help="registers of each point-wise multiplier's "
                                         "product (default: the multiplier's own, 4; its adder "
                                         "levels + 2 put its operands in the DSPs' input "
                                         "registers)", range=(0, MAX_STAGES),
                                         cli_default=None, kw_only=True)
    # cli_default None, as extend_limbs.
    distributed_queue: bool = param(False, help="the queue after the point-wise multipliers "
                                    "in LUT RAM, not block RAM (true/false, default false)",
                                    cli_default=None, kw_only=True)
    forward: RNSPolyNTTPlan = field(init=False, repr=False, compare=False)
    backward: RNSPolyNTTPlan = field(init=False, repr=False, compare=False)
    pointwise: DynamicModMulPlan = field(init=False, repr=False, compare=False)
    pointwise_latency: int = field(init=False, repr=False, compare=False)
    extension: RNSPolyExtendPlan | None = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.wide_twiddles and self.butterflies < 2:
            raise ValueError(f"wide_twiddles needs butterflies of at least 2, not "
                             f"{self.butterflies}")
        shared = {f.name: getattr(self, f.name) for f in fields(TowersPlan) if f.init}
        units = dict(shared, shared_twiddles=True, registered_valid=True)
        stages = {} if self.pointwise_stages is None else {"mult_stages": self.pointwise_stages}
        pointwise = DynamicModMulPlan(self.towers, width=self.width, **stages)
        # The operands' slices, two multipliers, their output register, the queue after it and
        # the slice before the inverse unit.
        self._set(forward=RNSPolyNTTPlan(**units),
                  backward=RNSPolyNTTPlan(**units, inverse=True, scaled=False),
                  pointwise=pointwise,
                  pointwise_latency=2 * pointwise.latency + 3 + CreditQueue.LATENCY,
                  extension=self._extension())

    def _extension(self):
        if self.extend_architecture not in ARCHITECTURES:
            raise ValueError(f"extend_architecture must be one of {', '.join(ARCHITECTURES)}, "
                             f"not {self.extend_architecture!r}")
        if self.extend_limbs == 0:
            return None
        if self.primes is not None:
            raise ValueError(f"extend_limbs must be 0 with primes given (the extension's base B "
                             f"is OpenFHE's primes after the towers'), not {self.extend_limbs}")
        both = openfhe_towers(self.n, self.prime_bits, self.prime_n,
                              len(self.towers) + self.extend_limbs, "limbs + extend_limbs")
        return RNSPolyExtendPlan(self.n, primes=self.towers, target_primes=both[len(self.towers):],
                                 lanes=self.lanes_resolved,
                                 architecture=self.extend_architecture)

    @property
    def output_beats(self):
        """Beats of one product on ``o``: (L + K)·n / lanes with the extension, else L·n /
        lanes."""
        if self.extension is None:
            return self.input_beats
        return self.extension.output_beats

    def cycles(self, polys=1):
        """Exact cycles of ``polys`` products back to back, first input transfer to last output
        transfer, inputs always valid and output always ready (the module's schedule)."""
        ext = self.extension
        if ext is None:
            return self._product_cycles(polys)
        require_int("polys", polys, minimum=1)
        return polys * (self._product_cycles(1) + ext.cycles() - ext.input_beats)

    def _product_cycles(self, polys):
        """Cycles of ``polys`` products back to back without the extension."""
        arrivals = [t + self.pointwise_latency for t in self.forward.schedule(polys)]
        return self.backward.schedule(polys, arrivals)[-1] + self.tower_beats

    @property
    def forward_units(self):
        """The forward units: one for a, and one for b unless it arrives evaluated."""
        return 1 if self.b_evaluated else 2

    def describe(self):
        """The towers' primes, the point-wise multipliers' Montgomery word and, with the
        extension, B's primes."""
        extension = {} if self.extension is None else {
            "extension's target primes": ",".join(map(str, self.extension.targets))}
        return {**super().describe(), "pointwise word": str(self.pointwise.word), **extension}


class _Pointwise(Component):
    """a·b·n^-1 mod q_j lane by lane, j the tower of the beat: per lane a :class:`DynamicModMul`
    (a·b·R^-1) then another by R^2·n^-1 mod q_j (the unscaled inverse's n^-1); the valid bit
    and the tower ride beside them. The output beat is a register, ``o_valid`` 2·latency + 1
    cycles after ``valid``."""

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
        r2 = Array(Const(mul.premultiply(mul.R * pow(p.n, -1, t) % t, t), p.width)
                   for t in towers)
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
        The product in coefficient form, the same layout; with ``extend_limbs``, its L + K
        towers (Q's, then B's).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = RNSPolyProductPlan.coerce(*args, **kw)
        self._fa = RNSPolyNTT(plan.forward)
        self._fb = RNSPolyNTT(plan.forward) if plan.forward_units == 2 else None
        self._inv = RNSPolyNTT(plan.backward)
        self._pointwise = _Pointwise(plan)
        self._extend = None if plan.extension is None else RNSPolyExtend(plan.extension)
        self._layout = layout = data.ArrayLayout(unsigned(plan.width), plan.lanes_resolved)
        super().__init__({"i_a": In(stream.Signature(layout)),
                          "i_b": In(stream.Signature(layout)),
                          "o": Out(stream.Signature(layout))})

    def elaborate(self, platform):
        m = Module()
        plan = self.plan
        m.submodules.forward_a, m.submodules.inverse = self._fa, self._inv
        engines = [self._fa.engines, self._inv.engines]
        if self._fb is not None:
            engines.insert(1, self._fb.engines)
        for j, tower in enumerate(zip(*engines)):
            shared_twiddle_rom(m, f"twiddles{j}", tower, wide=plan.wide_twiddles)
        i_a, i_b = self._gated_inputs(m)
        connect(m, i_a, self._fa.i)
        a = self._fa.o
        if self._fb is None:
            b = i_b
        else:
            m.submodules.forward_b = self._fb
            connect(m, i_b, self._fb.i)
            b = self._fb.o
        a, b = self._slices(m, a, b)
        m.submodules.pointwise = pw = self._pointwise
        # A beat holds its credit from the join until two cycles after it leaves the queue
        # (credit_room counts a take a cycle late): pointwise_latency cycles, so as many
        # credits pass a beat per cycle.
        depth = plan.pointwise_latency
        m.submodules.queue = queue = CreditQueue(self._layout, depth,
                                                 distributed=plan.distributed_queue)
        join = Signal()
        room = credit_room(m, join, queue.o.valid & queue.o.ready, depth, "pointwise_credit")
        m.d.comb += [join.eq(a.valid & b.valid & room), a.ready.eq(join), b.ready.eq(join),
                     pw.valid.eq(join), pw.a.eq(a.payload), pw.b.eq(b.payload),
                     pw.tower.eq(tower_turn(m, "pointwise", len(plan.towers),
                                            plan.tower_beats, join)),
                     queue.i.valid.eq(pw.o_valid), queue.i.payload.eq(pw.o)]
        m.submodules.inverse_slice = into = SkidBuffer(self._layout)
        connect(m, queue.o, into.i)
        connect(m, into.o, self._inv.i)
        if self._extend is None:
            connect(m, self._inv.o, flipped(self.o))
        else:
            m.submodules.extend = self._extend
            connect(m, self._inv.o, self._extend.i)
            connect(m, self._extend.o, flipped(self.o))
        return m

    def _slices(self, m, a, b):
        """``a`` and ``b`` through a :class:`~fhe_hw.lib.stream.SkidBuffer` each before they
        meet, so that the join (both valid and the point-wise stage advancing) starts at
        registers: from the forward units' output multiplexer of their towers, that path ran
        across the die to the point-wise tower counter (the routed row's critical path). Returns
        the slices' outputs."""
        out = []
        for name, source in (("a", a), ("b", b)):
            m.submodules[f"{name}_slice"] = buffer = SkidBuffer(self._layout)
            connect(m, source, buffer.i)
            out.append(buffer.o)
        return out

    def _gated_inputs(self, m):
        """``i_a`` and ``i_b`` as the units take them: as they are without the extension; with
        it, each closed after one product's beats until the extension's last beat of that
        product has left on ``o`` (one product at a time through the extension)."""
        if self._extend is None:
            return flipped(self.i_a), flipped(self.i_b)
        p = self.plan
        last_out = Signal()
        m.d.comb += last_out.eq(self.o.valid & self.o.ready & (
            beat_count(m, "o_beats", p.output_beats, self.o.valid & self.o.ready)
            == p.output_beats - 1))
        gated = []
        for name, port in (("a", self.i_a), ("b", self.i_b)):
            inner = stream.Signature(self._layout).create(path=(f"gated_{name}",))
            took = port.valid & port.ready
            count = beat_count(m, f"{name}_beats", p.input_beats, took)
            closed = Signal(name=f"{name}_closed")
            with m.If(took & (count == p.input_beats - 1)):
                m.d.sync += closed.eq(1)
            with m.If(last_out):
                m.d.sync += closed.eq(0)
            m.d.comb += [inner.valid.eq(port.valid & ~closed), inner.payload.eq(port.payload),
                         port.ready.eq(inner.ready & ~closed)]
            gated.append(inner)
        return gated
