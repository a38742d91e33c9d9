"""Mixed-radix (Garner) base extension: [Kir25] §2.5.2 (Algorithm 4,
eqs 2.19–2.31) and §4.1.2 (Fig. 4.3 iterative, Fig. 4.4 fully pipelined, Tables 4.3–4.4,
iterations in Table 4.5).

Iteration s (0..l-1) of Algorithm 4 subtracts the mixed-radix digit b_s from every later residue
and multiplies by |q_s^-1|: b_u ← (b_u − b_s)·|q_s^-1|_{q_u} (u > s) and
θ_j ← (θ_j − b_s)·|q_s^-1|_{p_j}; a last iteration gives a_{p_j} = |Q|_{p_j}·(−θ_j). Ascending
source moduli (eq. 2.30) keep b_s < q_s < q_u, so every subtraction needs one correction; a
digit subtracted modulo a smaller target prime is first reduced by conditional subtractions.

* ``"pipelined"`` (Fig. 4.4): all l + 1 iterations unrolled, l(l−1)/2 + k(l+1) multipliers
  ((l+1)l/2 + 1 for one target, Table 4.5), one coefficient per cycle: N cycles + latency.
* ``"iterative"`` (Fig. 4.3): the inner loop unrolled — one column per later source residue and
  per target, l − 1 + k multipliers (l for one target, Table 4.4) — and a coefficient makes
  l + 1 trips around a loop whose length L is the column latency (entry register, subtracter,
  multiplier, return register), padded (through the multiplier's spare stages) to a power of
  two; L coefficients share the loop, so N coefficients take N·(l+1) cycles + a constant
  (N >= L).

Each column has a fixed modulus (q_u or p_j) and a constant per iteration; the multipliers are
the run-time-modulus Montgomery multipliers of :mod:`fhe_hw.arith.montgomery_dyn` with a
constant modulus operand, so that all columns have the same latency.

Centred (``centred=True``, OpenFHE's ``SwitchCRTBasis``): the output is |X − C·Q|_{p_j},
C = [2X ≥ Q]. The digits b_s come out least significant first, one per iteration, and the
last iteration computes |Q|_{p_j}·(0 − θ_j); C is a lexicographic comparison of the digits with
those of (Q − 1)/2, h_s = (q_s − 1)/2, made as the digits pass, C_s = [b_s > h_s − C_{s−1}],
and the last iteration subtracts θ_j from −C (p_j − 1 or 0) instead of 0, so
|Q|_{p_j}·(−C − θ_j) = |X − C·Q|_{p_j}. Cost: one comparator of a digit with a constant per
iteration (one in the iterative loop, l pipelined) beside the column subtracters, its bit
carried with the coefficient through the multiplier latency, and a multiplexer on the final
subtracter's operand; no multiplier, no cycle.

Like the Cox-Rower, the algorithm needs all residues of a coefficient at once (§4.1.2.2): one
input beat holds the l source residues of one coefficient, one output beat its k target
residues. The datapath stalls (clock enable) while the output cannot move.
"""

from dataclasses import dataclass, field
from types import SimpleNamespace

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith import ModSub
from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan, common_montgomery_word
from ..arith.pipeline import MAX_STAGES, deep_param
from ..component import Component
from ..lib.delay import delay
from ..model import rns as model
from ..params import MixedRadixConstants
from ..plan import StreamPlan, param
from .common import check_choice, core_signature, lanes, stalled_core
from .plan import DEFAULT_MULT_STAGES, BaseConversionPlan

__all__ = ["MixedRadix", "MixedRadixPlan", "MixedRadixPipeline", "MixedRadixLoop",
           "ARCHITECTURES"]

ARCHITECTURES = ("iterative", "pipelined")


def _loop_length(multiplier_latency):
    """L: one trip around the iterative loop (entry register, subtracter, multiplier, return
    register)."""
    return 3 + multiplier_latency


@dataclass(frozen=True)
class MixedRadixPlan(BaseConversionPlan, StreamPlan):
    """The parameters of :class:`MixedRadix` and what they derive, without building it.

    Parameters
    ----------
    prime_bits, n, source_limbs, target_limbs, word, prime_n, source_primes, target_primes
        As :class:`~fhe_hw.rns.plan.BaseConversionPlan`; the source base must be ascending
        (eq. 2.30), as the generated one is.
    architecture : str
        ``"iterative"`` (Fig. 4.3) or ``"pipelined"`` (Fig. 4.4).
    centred : bool
        The centred lift, X − Q when 2X >= Q, as OpenFHE's ``SwitchCRTBasis`` returns it,
        exactly; no cycle more (see the module docstring).
    mult_stages : int or None
        Registers per multiplier; default None: :data:`~fhe_hw.rns.plan.DEFAULT_MULT_STAGES`
        pipelined, and for the iterative loop the smallest >= 2 that makes the loop length a
        power of two (more than :data:`~fhe_hw.arith.pipeline.MAX_STAGES` is refused: with a
        small Montgomery word, take ``deep=False``).
    deep : bool
        The multipliers' rounds with one carry chain per register (default True), or the
        shallow ones (False: fewer registers, so a shorter loop).

    Attributes
    ----------
    source, target, width
        As :class:`~fhe_hw.rns.plan.BaseConversionPlan`.
    constants : MixedRadixConstants
        The constants of Algorithm 4.
    multiplier : DynamicModMulPlan
        The columns' multipliers, ``mult_stages`` resolved.
    loop_length : int
        L, cycles of one trip around the iterative loop.
    """

    architecture: str = param("iterative", help="iterative or pipelined")
    centred: bool = param(False, help="the centred lift (X - Q when 2X >= Q) as OpenFHE's "
                          "SwitchCRTBasis, exact, no extra cycle (true/false)")
    mult_stages: int | None = param(
        None, help=f"registers per multiplier (default: {DEFAULT_MULT_STAGES} pipelined; "
        f"iterative, the fewest >= 2 that make the loop length a power of two)",
        range=(0, MAX_STAGES), kw_only=True)
    deep: bool = deep_param()
    constants: MixedRadixConstants = field(init=False, repr=False, compare=False)
    multiplier: DynamicModMulPlan = field(init=False, repr=False, compare=False)
    loop_length: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        check_choice("architecture", self.architecture, ARCHITECTURES)
        c = MixedRadixConstants.build(self.source, self.target, centred=self.centred)
        moduli = self.source + self.target
        stages = self.mult_stages
        if stages is None and self.architecture == "iterative":
            word = common_montgomery_word(moduli, self.word)
            loop = _loop_length(DynamicModMulPlan(moduli, word, mult_stages=0,
                                                  deep=self.deep).latency)
            stages = (1 << (loop + 1).bit_length()) - loop  # >= 2, L a power of two
            if stages > MAX_STAGES:
                raise ValueError(f"deep must be False for an iterative loop with a {word}-bit "
                                 f"Montgomery word, not True: its deep rounds need {stages} "
                                 f"multiplier registers (mult_stages at most {MAX_STAGES}) to "
                                 f"make the loop length a power of two")
        # The multiplier's latency is in the loop and the fill.
        mul = self._multiplier(moduli, self.deep, stages)
        self._set(constants=c, multiplier=mul, loop_length=_loop_length(mul.latency))

    def cycles(self):
        """Exact cycles from the first input transfer to the last output transfer for N
        coefficients (always-valid input, always-ready output; centred or not the same):
        N + latency pipelined. Iterative, the N coefficients go round the loop in g = ⌈N/L⌉
        groups of up to L, each group l + 1 trips of L cycles, and the last group's r = N −
        (g − 1)·L results leave after its last trip: (l+1)·g·L + r + 2 (= (l+1)·N + L + 2
        when L divides N, (l+1)·L + N + 2 when N <= L)."""
        n, l, lm = self.n, len(self.source), self.multiplier.latency
        if self.architecture == "pipelined":
            return n + (l + 1) * (1 + lm) + 2
        L = self.loop_length
        groups = -(-n // L)
        return (l + 1) * groups * L + n - (groups - 1) * L + 2

    def describe(self):
        bases = super().describe()
        if self.centred:
            bases["centred lift"] = "(X - Q if 2X >= Q) mod p_j, exact"
        return bases


class MixedRadix(Component):
    """Garner mixed-radix base extension ([Kir25] Algorithm 4, §4.1.2) of N coefficients.

    Parameters: a :class:`MixedRadixPlan` or its arguments (``prime_bits``, ``n``,
    ``source_limbs``, ``target_limbs``, ``architecture``, ``centred``; keywords ``word``,
    ``mult_stages``, ``deep``, ``prime_n``, ``source_primes``, ``target_primes``): l source
    moduli in ascending order (eq. 2.30), k target moduli, N coefficients per conversion.

    Ports: ``i`` — stream of ``data.ArrayLayout(r, l)``: the residues of one coefficient (any
    0 <= A < Q); ``o`` — ``data.ArrayLayout(r, k)``: its target residues (of A − Q when
    centred and 2A >= Q).

    Cycles: :meth:`cycles` — N + latency pipelined; iterative (l+1)·⌈N/L⌉·L plus the last
    group's coefficients plus 2 (= N·(l+1) + L + 2 when the loop length L divides N, as it does
    by default), [Kir25] Table 4.5 plus a constant.

    Raises (through the plan) ``ValueError`` for unordered or non-coprime moduli, N not a power
    of two, moduli without a common Montgomery word, an unknown architecture, an iterative loop
    that would need more than :data:`~fhe_hw.arith.pipeline.MAX_STAGES` multiplier registers;
    ``TypeError`` for a ``centred`` or ``deep`` that is not a bool.
    """

    def __init__(self, *args, **kw):
        self.plan = p = MixedRadixPlan.coerce(*args, **kw)
        self._source, self._target, self._n = p.source, p.target, p.n
        self._arch, self._c, self._width, self._proto = (p.architecture, p.constants, p.width,
                                                         p.multiplier)
        self._mult_stages = p.multiplier.mult_stages
        super().__init__({
            "i": In(stream.Signature(data.ArrayLayout(self._width, len(p.source)))),
            "o": Out(stream.Signature(data.ArrayLayout(self._width, len(p.target)))),
        })

    source = property(lambda self: self._source)
    target = property(lambda self: self._target)
    n = property(lambda self: self._n)
    architecture = property(lambda self: self._arch)
    constants = property(lambda self: self._c)
    word = property(lambda self: self._proto.word)
    width = property(lambda self: self._width)
    mult_stages = property(lambda self: self._mult_stages)
    deep = property(lambda self: self._proto.deep, doc="whether the multipliers' rounds are deep")
    multiplier_latency = property(lambda self: self._proto.latency)
    centred = property(lambda self: self._c.centred)

    loop_length = property(lambda self: self.plan.loop_length,
                           doc="L: cycles of one trip around the iterative loop")
    latency = property(lambda self: None, doc="None: a stream engine, timed by :meth:`cycles`")

    @property
    def arithmetic_units(self):
        l, k = len(self._source), len(self._target)
        if self._arch == "pipelined":
            mm = l * (l - 1) // 2 + k * (l + 1)
        else:
            mm = l - 1 + k
        return {"MM": mm, "MA": mm, "A": 0}

    def paper_iterations(self):
        """[Kir25] Table 4.5: N pipelined, N·(l+1) iterative."""
        l = len(self._source)
        if self._arch == "pipelined":
            return model.iterations_mrc_pipelined(self._n, l)
        return model.iterations_mrc_iterative(self._n, l)

    def cycles(self):
        """:meth:`MixedRadixPlan.cycles`: exact cycles of N coefficients."""
        return self.plan.cycles()

    def elaborate(self, platform):
        m = Module()
        core = (MixedRadixPipeline if self._arch == "pipelined" else MixedRadixLoop)(self.plan)
        stalled_core(m, core, self.i, self.o)
        return m


class _MixedRadixCore(Component):
    """What the two cores share: their ports (:func:`~fhe_hw.rns.common.core_signature`: one
    coefficient's l source residues in, its k target residues out) and their columns."""

    def __init__(self, plan):
        self._plan, self._c, self._proto, self._width = (plan, plan.constants, plan.multiplier,
                                                         plan.width)
        self._source, self._target = plan.source, plan.target
        super().__init__(core_signature(plan.width * len(plan.source),
                                        plan.width * len(plan.target)))

    def _column(self, core, name, modulus):
        """One column: ModSub (1 cycle) then a multiplier modulo ``modulus``."""
        core.submodules[f"sub_{name}"] = sub = ModSub(modulus)
        core.submodules[f"mul_{name}"] = mul = DynamicModMul(
            self._proto.moduli, self._proto.word, width=self._width,
            mult_stages=self._proto.mult_stages, deep=self._proto.deep)
        w = modulus.bit_length()
        core.d.comb += [mul.i.valid.eq(sub.o.valid), mul.i.payload.a.eq(sub.o.payload),
                        mul.i.payload.q.eq(modulus)]
        return sub, mul, w

    def _reduce(self, value, p):
        """value mod p for value < max(source): conditional subtractions, each one carry chain
        (the sign of value − p selects)."""
        for _ in range(-(-max(self._source) // p) - 1):
            d = value - p
            value = Mux(d < 0, value, d[:len(value)])
        return value

    def _minus_above(self, above, p):
        """|−C|_p, the final subtracter's first operand: p − 1 when centred and the digits are
        above (Q − 1)/2's, else 0."""
        w = p.bit_length()
        return Mux(above, Const(p - 1, w), Const(0, w)) if self._c.centred else Const(0, w)


class MixedRadixPipeline(_MixedRadixCore):
    """The fully pipelined core (Fig. 4.4) of :class:`MixedRadix`; takes its plan. Stage s
    (0..l-1) has the columns u > s and one per target, stage l the final ``|Q|_{p_j}·(−θ_j)``;
    one coefficient per cycle (``i_ready`` is 1).

    Ports: :func:`~fhe_hw.rns.common.core_signature`.
    """

    def elaborate(self, platform):
        core = Module()
        c, mul, r = self._c, self._proto, self._width
        src, tgt = self._source, self._target
        l = len(src)
        b = lanes(self.i_data, r, l)
        theta = [Const(0, r)] * len(tgt)
        valid = self.i_valid
        above = Const(0)  # C_{s-1}: the digits so far above (Q − 1)/2's (centred)
        for s in range(l + 1):
            new_b, new_theta = list(b), []
            for u in range(s + 1, l) if s < l else ():
                sub, mm, w = self._column(core, f"s{s}_b{u}", src[u])
                core.d.comb += [sub.i.valid.eq(valid), sub.i.payload.a.eq(b[u][:w]),
                                sub.i.payload.b.eq(b[s][:w]),
                                mm.i.payload.b.eq(mul.premultiply(c.q_inv[s][u], src[u]))]
                new_b[u] = mm.o.payload
            for j, p in enumerate(tgt):
                sub, mm, w = self._column(core, f"s{s}_t{j}", p)
                if s < l:
                    a_, b_, const = theta[j], self._reduce(b[s], p), c.q_inv_mod_p[j][s]
                else:
                    a_, b_, const = self._minus_above(above, p), theta[j], c.Q_mod_p[j]
                core.d.comb += [sub.i.valid.eq(valid), sub.i.payload.a.eq(a_[:w]),
                                sub.i.payload.b.eq(b_[:w]),
                                mm.i.payload.b.eq(mul.premultiply(const, p))]
                new_theta.append(mm.o.payload)
            riders = {}
            if c.centred and s < l:
                h = c.half_digits[s]
                riders["above"] = b[s] > Mux(above, h - 1, h)
            valid, riders = delay(core, 1 + mul.latency, valid, **riders)
            above = riders.get("above", above)
            b, theta = new_b, new_theta
        core.d.sync += [self.o_valid.eq(valid), self.o_data.eq(Cat(*theta))]
        core.d.comb += self.i_ready.eq(1)
        return core


class MixedRadixLoop(_MixedRadixCore):
    """The iterative core (Fig. 4.3) of :class:`MixedRadix`; takes its plan. Entry registers
    -> column subtracters -> multipliers -> return registers -> back to the entry: a
    coefficient makes l + 1 trips around the loop (L cycles each); the loop takes no input
    (``i_ready`` low) in a cycle where a coefficient returns for another trip. The return
    registers hold the columns' products and the next trip's digit, already selected from
    them, so that the digit's multiplexer and its reduction modulo each target prime are two
    cycles (at l = k = 8 on the ECP5 the two in one cycle were the critical path); the
    default ``mult_stages`` still pads the loop to a power of two.

    Ports: :func:`~fhe_hw.rns.common.core_signature`.
    """

    def elaborate(self, platform):
        core = Module()
        l, r = len(self._source), self._width
        # The trip's digit b_s enters a register with the residues (bs), and each target
        # column's operands (θ_j − b_s mod p_j, or 0 − θ_j on the final trip) enter registers
        # already selected and reduced (ta, tb), so no multiplexer or reduction precedes a
        # subtracter. Centred: trip s compares its digit b_s with h = h_s − C_{s−1}, loaded
        # with the digit; C_s rides with the coefficient around the loop.
        e = SimpleNamespace(valid=Signal(name="e_valid"), s=Signal(range(l + 1), name="e_s"),
                            b={u: Signal(r, name=f"e_b{u}") for u in range(1, l)},
                            bs=Signal(r, name="e_bs"),
                            h=Signal(r, name="e_h") if self._c.centred else None,
                            ta=[Signal(p.bit_length(), name=f"e_ta{j}")
                                for j, p in enumerate(self._target)],
                            tb=[Signal(p.bit_length(), name=f"e_tb{j}")
                                for j, p in enumerate(self._target)])
        riders = {"s": e.s}
        if self._c.centred:
            riders["above"] = e.bs > e.h
        ret_valid, ret, back_b, back_t = self._returned(
            core, delay(core, 1 + self._proto.latency, e.valid, **riders),
            *self._columns(core, e))
        done = ret_valid & (ret["s"] == l)
        again = ret_valid & (ret["s"] != l)
        core.d.sync += e.valid.eq(again | self.i_valid)
        self._next_trip(core, e, ret, again, back_b, back_t)
        core.d.sync += self.o_valid.eq(done)
        with core.If(done):
            core.d.sync += self.o_data.eq(Cat(*back_t))
        core.d.comb += self.i_ready.eq(~again)
        return core

    def _columns(self, core, e):
        """The inner loop unrolled: one column per later source residue (b_u) and per target
        (θ_j), each with its trip's constant in a register that rides one cycle beside the
        subtracter. Returns the columns' outputs (b_u by u, θ_j by j)."""
        c, mul, r, src = self._c, self._proto, self._width, self._source
        l = len(src)
        back_b, back_t = {}, []
        for u in range(1, l):
            sub, mm, w = self._column(core, f"b{u}", src[u])
            consts = Array(Const(mul.premultiply(c.q_inv[s][u], src[u]) if s < u else 0, r)
                           for s in range(l + 1))
            e_c = Signal(r, name=f"c_b{u}")
            core.d.comb += [sub.i.valid.eq(e.valid), sub.i.payload.a.eq(e.b[u][:w]),
                            sub.i.payload.b.eq(e.bs[:w]), mm.i.payload.b.eq(e_c)]
            core.d.sync += e_c.eq(consts[e.s])
            back_b[u] = mm.o.payload
        for j, p in enumerate(self._target):
            sub, mm, w = self._column(core, f"t{j}", p)
            consts = Array(Const(mul.premultiply(c.q_inv_mod_p[j][s] if s < l else c.Q_mod_p[j],
                                                 p), r) for s in range(l + 1))
            e_c = Signal(r, name=f"c_t{j}")
            core.d.comb += [sub.i.valid.eq(e.valid), sub.i.payload.a.eq(e.ta[j]),
                            sub.i.payload.b.eq(e.tb[j]), mm.i.payload.b.eq(e_c)]
            core.d.sync += e_c.eq(consts[e.s])
            back_t.append(mm.o.payload)
        return back_b, back_t

    def _returned(self, core, beside, back_b, back_t):
        """The return registers of the columns' products (``back_b``, b_u by u; ``back_t``,
        θ_j by j), beside ``beside`` = (valid, riders), the delay line's copy of their
        coefficient's, one stage of :func:`~fhe_hw.lib.delay.delay`. Returns the registered
        (valid, riders, b_u by u with the next trip's digit b_(s+1) as ``"next"``, 0 after the
        last digit; θ_j by j)."""
        valid, riders = beside
        l = len(self._source)
        digits = [back_b[u] for u in range(1, l)] + [Const(0, self._width)]
        ret_valid, ret = delay(core, 1, valid, **riders, next=Array(digits)[riders["s"]],
                               **{f"b{u}": back_b[u] for u in range(1, l)},
                               **{f"t{j}": t for j, t in enumerate(back_t)})
        held_b = {u: ret.pop(f"b{u}") for u in range(1, l)}
        held_b["next"] = ret.pop("next")
        held_t = [ret.pop(f"t{j}") for j in range(len(back_t))]
        return ret_valid, ret, held_b, held_t

    def _next_trip(self, core, e, ret, again, back_b, back_t):
        """The entry registers' next values: the returning coefficient's next trip (``again``)
        or a new coefficient from ``i_data``."""
        c, r, src, tgt = self._c, self._width, self._source, self._target
        l = len(src)
        inputs = lanes(self.i_data, r, l)
        # the next trip's digit: b_{s+1}, selected in the return register (0 after the last)
        next_bs = Mux(again, back_b["next"], inputs[0])
        core.d.sync += e.bs.eq(next_bs)
        final = ret["s"] == l - 1  # the next trip is the last
        with core.If(again):
            core.d.sync += [e.s.eq(ret["s"] + 1)] + [e.b[u].eq(back_b[u]) for u in range(1, l)]
            for j, p in enumerate(tgt):
                w = p.bit_length()
                core.d.sync += [e.ta[j].eq(Mux(final, self._minus_above(ret.get("above"), p),
                                               back_t[j][:w])),
                                e.tb[j].eq(Mux(final, back_t[j][:w],
                                               self._reduce(next_bs, p)[:w]))]
            if c.centred:
                h = c.half_digits
                h_next = [Array(Const(max(h[s + 1] - g, 0) if s + 1 < l else 0, r)
                                for s in range(l + 1)) for g in (0, 1)]
                core.d.sync += e.h.eq(Mux(ret["above"], h_next[1][ret["s"]],
                                          h_next[0][ret["s"]]))
        with core.Else():
            core.d.sync += [e.s.eq(0)] + [e.b[u].eq(inputs[u]) for u in range(1, l)]
            if c.centred:
                core.d.sync += e.h.eq(c.half_digits[0])
            core.d.sync += [e.ta[j].eq(0) for j in range(len(tgt))]
            core.d.sync += [e.tb[j].eq(self._reduce(inputs[0], p)[:p.bit_length()])
                            for j, p in enumerate(tgt)]
