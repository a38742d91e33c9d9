"""Carry resolution of [Wang13] §III-A step 4 in hardware: the samples of the inverse
transform (the convolution of two digit vectors, each below 2^coeff_bits) in, the d-bit digits
of the product out, ``lanes`` per beat, least significant first.

The model (:func:`fhe_hw.model.large_int.resolve_carries`) ripples one carry from sample to
sample. A beat of 16 samples cannot ripple 16 additions of 64 bits in one cycle, so the unit
splits the work:

1. *chunks*: sample i is cut into q = ⌈coeff_bits / d⌉ chunks of d bits; chunk k of sample i
   belongs to digit i + k. Digit lane i adds the chunks that belong to it,
   t_i = Σ_k chunk_k(s_(i-k)), taking the last q - 1 samples of the previous beat (none at the
   first beat of a product). t_i < q·2^d.
2. *split*: t_i = lo_i + 2^d·hi_i with hi_i < q; u_i = lo_i + hi_(i-1) (hi of the previous
   beat's last lane for lane 0) is below 2^(d+1). Its bit d is lane i's *generate* g_i, and
   lane i *propagates* (p_i) when its low d bits are all ones.
3. *prefix*: for every lane the carry it receives when the beat receives none (G_i) and whether
   a carry into the beat reaches it (P_i), by a parallel-prefix (Kogge–Stone) combination of
   the (g, p) pairs, ⌈log2 lanes⌉ levels.
4. *digits*: with c the carry into the beat, digit i = (u_i + (G_i | P_i·c)) mod 2^d, and the
   carry out of the beat is G_lanes | P_lanes·c: the only path that closes on itself is that
   one AND-OR.

Each step is a register stage under one clock enable
(:func:`~fhe_hw.lib.stream.stall_on_backpressure`, whose skid buffer is a fifth register). The
digits are those of Σ s_i·2^(d·i) mod 2^(d·n) for the n samples of a product: what the model
gives when the carry out of the last digit is 0, as it is for every product whose convolution
meets :func:`fhe_hw.model.large_int.plan`'s bound.
"""

from dataclasses import dataclass

from amaranth import Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import wrap_inc
from ..component import Component
from ..lib.stream import stall_on_backpressure
from ..model.large_int import DIGIT_BITS
from ..params import require_int
from ..plan import Plan, param

__all__ = ["CarryResolver", "CarryResolverPlan"]

#: Cycles from an input transfer to the output transfer of the same beat while ``o`` is ready:
#: four stages and the skid buffer of :func:`~fhe_hw.lib.stream.stall_on_backpressure`.
LATENCY = 5


@dataclass(frozen=True)
class CarryResolverPlan(Plan):
    """The parameters of :class:`CarryResolver`.

    Parameters
    ----------
    lanes : int
        Samples (and digits) per beat, 1 to 64 (default 16).
    digit_bits : int
        The digit width d, 8 to 32 (default 24).
    coeff_bits : int
        Bits of an input sample, d to 128 (default 64, the 2^64 - 2^32 + 1 transforms').
    beats : int
        Beats per product, 1 to 2^20 (default 1): a product has ``lanes·beats`` samples and as
        many digits.

    Attributes
    ----------
    latency : int
        :data:`LATENCY`, 5 cycles from an input transfer to the output transfer of the same
        beat while ``o`` is ready.
    """

    lanes: int = param(16, help="samples per beat (1..64)", range=(1, 64))
    digit_bits: int = param(DIGIT_BITS, help="digit width d (8..32)", range=(8, 32))
    coeff_bits: int = param(64, help="sample width (d..128)", range=(None, 128), kw_only=True)
    beats: int = param(1, help="beats per product (1..2^20)", range=(1, 1 << 20), kw_only=True)

    def __post_init__(self):
        super().__post_init__()
        require_int("coeff_bits", self.coeff_bits, minimum=self.digit_bits, maximum=128)

    @property
    def latency(self):
        return LATENCY

    def cycles(self, products=1):
        """Cycles from the first input transfer to the last output transfer of ``products``
        back-to-back products, input always valid and output always ready:
        ``beats·products + 5``."""
        require_int("products", products, minimum=1)
        return self.beats * products + LATENCY


class _Core(Component):
    """The four register stages of :class:`CarryResolver` (driven under its clock enable):
    ``i`` (always-ready stream of ``lanes`` samples), ``o`` (always-ready stream of ``lanes``
    digits, registered, four cycles later)."""

    def __init__(self, lanes, digit_bits, coeff_bits, beats):
        self._lanes, self._d, self._w, self._beats = lanes, digit_bits, coeff_bits, beats
        self._q = -(-coeff_bits // digit_bits)
        super().__init__({
            "i": In(stream.Signature(data.ArrayLayout(unsigned(coeff_bits), lanes),
                                     always_ready=True)),
            "o": Out(stream.Signature(data.ArrayLayout(unsigned(digit_bits), lanes),
                                      always_ready=True)),
        })

    def _chunk(self, sample, k):
        return sample[self._d * k:min(self._d * (k + 1), self._w)]

    def elaborate(self, platform):
        m = Module()
        L, d, q, B = self._lanes, self._d, self._q, self._beats

        # Framing: the first beat of each product of B beats starts with no history.
        beat = Signal(range(B))
        with m.If(self.i.valid):
            m.d.sync += beat.eq(wrap_inc(beat, B - 1))

        # Stage 1: the chunks of each digit lane, summed (history: the previous beat's last
        # q - 1 samples, zero at a product's first beat).
        history = [Signal(self._w, name=f"history{k}") for k in range(q - 1)]
        first = beat == 0
        # sample i of this beat at span[i + q - 1], the previous beat's before it
        span = [*(Mux(first, 0, h) for h in history), *(self.i.payload[i] for i in range(L))]
        t = [Signal(d + (q - 1).bit_length(), name=f"t{i}") for i in range(L)]
        v1, f1 = Signal(), Signal()
        m.d.sync += [v1.eq(self.i.valid), f1.eq(self.i.valid & first)]
        with m.If(self.i.valid):
            m.d.sync += [t[i].eq(sum(self._chunk(span[i + q - 1 - k], k) for k in range(q)))
                         for i in range(L)]
            m.d.sync += [h.eq(span[L + k]) for k, h in enumerate(history)]

        # Stage 2: lo_i + hi_(i-1); generate and propagate per lane.
        hi_last = Signal(len(t[0]) - d)
        highs = [Mux(f1, 0, hi_last), *(x[d:] for x in t[:-1])]
        u = [Signal(d, name=f"u{i}") for i in range(L)]
        g = Signal(L)
        p = Signal(L)
        v2, f2 = Signal(), Signal()
        m.d.sync += [v2.eq(v1), f2.eq(v1 & f1)]
        with m.If(v1):
            for i in range(L):
                total = t[i][:d] + highs[i]
                m.d.sync += [u[i].eq(total[:d]), g[i].eq(total[d]),
                             p[i].eq(total[:d] == (1 << d) - 1)]
            m.d.sync += hi_last.eq(t[-1][d:])

        # Stage 3: parallel prefix over the lanes, (G, P)[i] for the lanes below i.
        gen, prop = [g[i] for i in range(L)], [p[i] for i in range(L)]
        shift = 1
        while shift < L:
            gen, prop = ([gen[i] | (prop[i] & gen[i - shift]) if i >= shift else gen[i]
                          for i in range(L)],
                         [prop[i] & prop[i - shift] if i >= shift else prop[i]
                          for i in range(L)])
            shift *= 2
        # Carry into lane i (i = 0 .. L): lane 0 gets only the beat's carry.
        carry_g = Signal(L + 1)
        carry_p = Signal(L + 1)
        u3 = [Signal(d, name=f"u3_{i}") for i in range(L)]
        v3, f3 = Signal(), Signal()
        m.d.sync += [v3.eq(v2), f3.eq(v2 & f2)]
        with m.If(v2):
            m.d.sync += [carry_g.eq(Cat(Const(0, 1), *gen)), carry_p.eq(Cat(Const(1, 1), *prop))]
            m.d.sync += [a.eq(b) for a, b in zip(u3, u)]

        # Stage 4: the beat's carry in, the digits and the carry out to the next beat.
        beat_carry = Signal()
        c = Mux(f3, 0, beat_carry)
        m.d.sync += self.o.valid.eq(v3)
        with m.If(v3):
            m.d.sync += beat_carry.eq(carry_g[L] | (carry_p[L] & c))
            m.d.sync += [self.o.payload[i].eq(u3[i] + (carry_g[i] | (carry_p[i] & c)))
                         for i in range(L)]
        return m


class CarryResolver(Component):
    """[Wang13] §III-A step 4: convolution samples in, product digits out, ``lanes`` of each per
    beat, least significant first.

    Parameters
    ----------
    plan : CarryResolverPlan
        Or the arguments of one (``CarryResolver(4, 24, beats=3)``).

    Attributes
    ----------
    i : In(stream.Signature(data.ArrayLayout(unsigned(coeff_bits), lanes)))
        The samples in index order.
    o : Out(stream.Signature(data.ArrayLayout(unsigned(digit_bits), lanes)))
        The digits of Σ s_i·2^(d·i) mod 2^(d·lanes·beats) in the same order. Products follow
        each other back to back; the carry out of a product's last digit is dropped (0 for a
        product that fits its digits).
    latency : int
        :attr:`LATENCY` = 5 cycles from an input transfer to the output transfer of the same
        beat while ``o`` is ready (four stages and the skid buffer of
        :func:`~fhe_hw.lib.stream.stall_on_backpressure`); one beat per cycle; :meth:`cycles`
        = ``beats·products + 5`` from the first input to the last output.
    """

    LATENCY = LATENCY

    def __init__(self, *args, **kw):
        self.plan = p = CarryResolverPlan.coerce(*args, **kw)
        super().__init__({
            "i": In(stream.Signature(data.ArrayLayout(unsigned(p.coeff_bits), p.lanes))),
            "o": Out(stream.Signature(data.ArrayLayout(unsigned(p.digit_bits), p.lanes))),
        })

    def cycles(self, products=1):
        """Cycles from the first input transfer to the last output transfer of ``products``
        back-to-back products, input always valid and output always ready."""
        return self.plan.cycles(products)

    lanes = property(lambda self: self.plan.lanes)
    digit_bits = property(lambda self: self.plan.digit_bits)
    coeff_bits = property(lambda self: self.plan.coeff_bits)
    beats = property(lambda self: self.plan.beats)
    latency = property(lambda self: self.plan.latency)

    def elaborate(self, platform):
        m = Module()
        p = self.plan
        core = _Core(p.lanes, p.digit_bits, p.coeff_bits, p.beats)
        advance = stall_on_backpressure(m, core, core.o.valid, core.o.payload, self.o)
        m.d.comb += [self.i.ready.eq(advance), core.i.valid.eq(self.i.valid & advance),
                     core.i.payload.eq(self.i.payload)]
        return m
