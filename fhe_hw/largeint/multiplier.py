"""[Wang13]'s large-number multiplier (§III-A, §IV) in hardware: two integers in d-bit digits
in, the digits of their product out, through number-theoretic transforms over
p = 2^64 - 2^32 + 1 on :class:`~fhe_hw.ntt.StreamingFourStepNTT` engines.

Data path
---------
::

    i ─▶ zero padding ─▶ forward engine(s) ─▶ point-wise ModMuls ─▶ inverse engine ─▶ carries ─▶ o
                           (A, then B)       (FFT(A)·FFT(B))     (n^-1 folded in)

1. The operands arrive one after the other on ``i``, A then B, each as n/2 digits (``lanes``
   per beat, least significant first); the unit appends n/2 zero digits to each (the
   zero padding of [Wang13] §III-A step 1), so each forward transform sees n samples.
2. ``engines=1``: one forward engine transforms A and B back to back; FFT(A) is kept in a
   spectrum buffer (``lanes`` block RAMs of n/lanes words) until FFT(B) streams past it.
   ``engines=2``: a forward engine per operand; FFT(A) waits in its engine's output FIFO for
   FFT(B), and the two meet beat by beat.
3. ``lanes`` :class:`~fhe_hw.arith.ModMul` form FFT(A)[k]·FFT(B)[k] (registered operands, then
   the multiplier's pipeline) into an output FIFO with issue credits, which feeds the inverse
   engine.
4. The inverse transform gives the cyclic convolution of the digit vectors; it equals the plain
   one because each operand has at most n/2 non-zero digits, and no sample reaches p because
   :func:`fhe_hw.model.large_int.plan` requires (n/2)·(2^d - 1)^2 < p.
5. :class:`~fhe_hw.largeint.CarryResolver` turns the n samples into the n digits of the product.

The golden model is :func:`fhe_hw.model.large_int.multiply_steps`, which follows the same
steps.
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out, connect, flipped

from ..arith import ModMul
from ..arith.pipeline import wrap_inc
from ..component import Component
from ..model.large_int import DIGIT_BITS, MAX_BITS, MAX_N, plan
from ..ntt import StreamingFourStepNTT, StreamingFourStepNTTPlan
from ..ntt.streaming import output_fifo
from ..params import SOLINAS64, require_int, require_power_of_two
from .carry import CarryResolver

__all__ = ["LargeIntegerMultiplier"]

_WORD = 64
_OPERAND_REGISTERS = 2      # engine output -> ModMul operand (spectrum read / register, register)


def _engine_options(lanes, m, m_units, mult_stages, tiled):
    """The keywords of the engines' :class:`~fhe_hw.ntt.StreamingFourStepNTTPlan` besides n."""
    return dict(lanes=lanes, inner_n=m, inner_units=m_units, mult_stages=mult_stages,
                tiled=tiled)


class LargeIntegerMultiplier(Component):
    """a·b for 0 <= a, b < 2^(d·n/2) through n-point transforms ([Wang13] §III-A).

    Parameters: ``max_bits`` (the operand size the plan is made for: n is the smallest power
    of two holding 2·⌈max_bits/d⌉ digits, at least m², at most min(65536, 64·m²));
    ``digit_bits`` (d, 8 to 32; (n/2)·(2^d - 1)^2 must stay below p); ``lanes`` (digits per
    beat, a power of two up to m); ``engines`` (1: one forward engine for both operands, 2: one
    each); ``m`` (the engines' inner shift unit, a power of two from 2 to 64: small values for
    tests); ``m_units`` (1, or 2: P1 and P2 of every engine on their own m-point units, see
    :class:`~fhe_hw.ntt.StreamingFourStepNTT`); ``mult_stages``, ``tiled`` (the ModMuls').
    ``TypeError``/``ValueError`` for anything else, before hardware is built.

    Ports: ``i`` — stream of ``data.ArrayLayout(unsigned(d), lanes)``: A's n/2 digits
    (:attr:`operand_beats` beats), then B's, least significant first; ``o`` — stream of
    ``data.ArrayLayout(unsigned(d), lanes)``: the n digits of a·b (:attr:`output_beats`
    beats), least significant first. Products may follow each other on ``i``.

    Cycles: :meth:`cycles` from A's first input transfer to the product's last output transfer
    with ``i`` always valid and ``o`` always ready: the forward engine's output of FFT(B)
    starts at f = (forward cycles of 2 transforms) - n/lanes (``engines=1``) or (forward
    cycles of 1) - n/(2·lanes) (``engines=2``); then the ModMul and its registers
    (latency + 3 to the inverse engine), the inverse engine's one-transform cycles and the
    CarryResolver's 5.
    """

    def __init__(self, max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, lanes=16, engines=1, m=64,
                 m_units=1, mult_stages=None, tiled=True):
        self._plan, _, self._mul_latency = self.check(max_bits, digit_bits, lanes=lanes,
                                                      engines=engines, m=m, m_units=m_units,
                                                      mult_stages=mult_stages, tiled=tiled)
        self._lanes, self._engines = lanes, engines
        self._params = dict(lanes=lanes, engines=engines, m=m, m_units=m_units,
                            mult_stages=mult_stages, tiled=tiled)
        n = self._plan.n
        kw = _engine_options(lanes, m, m_units, mult_stages, tiled)
        self._forward = [StreamingFourStepNTT(n, **kw) for _ in range(engines)]
        self._inverse = StreamingFourStepNTT(n, inverse=True, **kw)
        # solinas64 takes the Solinas reducer: output_scale 1, plain point-wise products
        self._muls = [ModMul("solinas64", mult_stages=mult_stages, tiled=tiled)
                      for _ in range(lanes)]
        self._carry = CarryResolver(lanes, digit_bits, sample_bits=_WORD, beats=n // lanes)
        layout = data.ArrayLayout(unsigned(digit_bits), lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    @staticmethod
    def check(max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, lanes=16, engines=1, m=64,
              m_units=1, mult_stages=None, tiled=True):
        """Validate the parameters without building hardware; return (the
        :class:`~fhe_hw.model.large_int.LargeIntPlan`, the engines'
        :class:`~fhe_hw.ntt.four_step_plan.FourStepPlan`, the ModMuls' latency)."""
        # m and m_units, checked here under this unit's own names (the engines' are inner_n
        # and inner_units)
        require_power_of_two("m", m, minimum=2, maximum=64)
        require_int("m_units", m_units, minimum=1, maximum=2)
        sizes = plan(max_bits, digit_bits, min_n=min(m * m, MAX_N), max_n=min(MAX_N, 64 * m * m))
        CarryResolver.check(lanes, digit_bits, sample_bits=_WORD, beats=1)
        require_int("engines", engines, minimum=1, maximum=2)
        engine = StreamingFourStepNTTPlan(sizes.n, **_engine_options(lanes, m, m_units,
                                                                      mult_stages, tiled))
        return sizes, engine.four_step, engine.mul_latency

    @classmethod
    def latency_of(cls, **params):
        """``None``: a stream engine has no fixed latency (:meth:`cycles` counts a product).
        Raises what the constructor raises for refused ``params``."""
        cls.check(**params)

    @classmethod
    def cycles_of(cls, max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, lanes=16, engines=1, m=64,
                  m_units=1, mult_stages=None, tiled=True):
        """:meth:`cycles` without building the unit."""
        sizes, _, mul_latency = cls.check(max_bits, digit_bits, lanes=lanes, engines=engines,
                                          m=m, m_units=m_units, mult_stages=mult_stages,
                                          tiled=tiled)
        n = sizes.n
        forward = StreamingFourStepNTTPlan(n, **_engine_options(lanes, m, m_units, mult_stages,
                                                                 tiled))
        if engines == 1:
            first_b = forward.cycles(2) - n // lanes
        else:
            first_b = forward.cycles() - n // (2 * lanes)
        return (first_b + _OPERAND_REGISTERS + mul_latency + 1
                + forward.cycles() + CarryResolver.LATENCY)

    def cycles(self):
        """Cycles of one product, first input transfer to last output transfer (``i`` always
        valid, ``o`` always ready)."""
        return self.cycles_of(self._plan.max_bits, self._plan.digit_bits, **self._params)

    @classmethod
    def storage_bits_of(cls, max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, lanes=16, engines=1,
                        m=64, **engine):
        """Bits of memory without building the unit: the engines'
        (:meth:`~fhe_hw.ntt.four_step_plan.FourStepPlan.storage_bits`) and, with one forward
        engine, the spectrum buffer's n words (``{"ram": ..., "rom": ...}``)."""
        sizes, engine_plan, _ = cls.check(max_bits, digit_bits, lanes=lanes, engines=engines, m=m,
                                          **engine)
        each = engine_plan.storage_bits()
        return {"ram": (engines + 1) * each["ram"] + (_WORD * sizes.n if engines == 1 else 0),
                "rom": (engines + 1) * each["rom"]}

    def storage_bits(self):
        """:meth:`storage_bits_of` this unit."""
        return self.storage_bits_of(self._plan.max_bits, self._plan.digit_bits, **self._params)

    plan = property(lambda self: self._plan)
    n = property(lambda self: self._plan.n)
    lanes = property(lambda self: self._lanes)
    engines = property(lambda self: self._engines)
    digit_bits = property(lambda self: self._plan.digit_bits)
    modulus = property(lambda self: SOLINAS64)

    @property
    def operand_beats(self):
        """Beats of one operand on ``i``: n / (2·lanes)."""
        return self.n // (2 * self._lanes)

    @property
    def output_beats(self):
        """Beats of one product on ``o``: n / lanes."""
        return self.n // self._lanes

    @property
    def operand_bits(self):
        """The widest operand: d·n/2 bits."""
        return self.digit_bits * self.n // 2

    def elaborate(self, platform):
        m = Module()
        for k, engine in enumerate(self._forward):
            m.submodules[f"forward{k}"] = engine
        m.submodules.inverse = self._inverse
        m.submodules.carry = self._carry
        for j, mul in enumerate(self._muls):
            m.submodules[f"mul{j}"] = mul
        self._pad(m)
        words = self._pointwise_operands(m)
        self._products(m, words)
        connect(m, self._inverse.o, self._carry.i)
        connect(m, self._carry.o, flipped(self.o))
        return m

    def _pad(self, m):
        """``i`` into the forward engine(s): each operand's n/2 digits, then n/2 zeros."""
        half = self.operand_beats
        operand = Signal()                      # the operand on i: 0 = A, 1 = B
        taken = Signal(range(half))
        ready = []
        for k, engine in enumerate(self._forward):
            count = Signal(range(2 * half), name=f"pad{k}_beat")
            digits = count < half
            mine = digits & ((operand == k) if self._engines == 2 else 1)
            m.d.comb += engine.i.valid.eq(Mux(digits, self.i.valid & mine, 1))
            for j in range(self._lanes):
                m.d.comb += engine.i.payload[j].eq(Mux(digits, self.i.payload[j], 0))
            with m.If(engine.i.valid & engine.i.ready):
                m.d.sync += count.eq(wrap_inc(count, 2 * half - 1))
            ready.append(mine & engine.i.ready)
        m.d.comb += self.i.ready.eq(ready[0] | ready[-1])
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += taken.eq(wrap_inc(taken, half - 1))
            with m.If(taken == half - 1):
                m.d.sync += operand.eq(~operand)

    def _pointwise_operands(self, m):
        """The FFT(A)[k], FFT(B)[k] pairs: returns (``go``, to be driven by the product FIFO's
        issue; ``want``: a pair is available; the pair of a ``go`` one cycle later, FFT(A)'s
        and FFT(B)'s words as lists over the lanes)."""
        L = self._lanes
        go_signal = Signal()
        want = Signal()
        if self._engines == 2:
            fa, fb = (e.o for e in self._forward)
            m.d.comb += [want.eq(fa.valid & fb.valid), fa.ready.eq(go_signal),
                         fb.ready.eq(go_signal)]
            xs = [Signal(_WORD, name=f"fa{j}") for j in range(L)]
            ys = [Signal(_WORD, name=f"fb{j}") for j in range(L)]
            m.d.sync += [x.eq(fa.payload[j]) for j, x in enumerate(xs)]
            m.d.sync += [y.eq(fb.payload[j]) for j, y in enumerate(ys)]
            return go_signal, want, xs, ys
        # one engine: FFT(A) into the spectrum buffer, FFT(B) read against it
        f = self._forward[0].o
        beats = self.output_beats
        beat = Signal(range(beats))
        second = Signal()                       # 0: FFT(A) is streaming, 1: FFT(B)
        m.d.comb += [want.eq(f.valid & second), f.ready.eq(Mux(second, go_signal, 1))]
        with m.If(f.valid & f.ready):
            m.d.sync += beat.eq(wrap_inc(beat, beats - 1))
            with m.If(beat == beats - 1):
                m.d.sync += second.eq(~second)
        xs, ys = [], []
        for j in range(L):
            mem = Memory(shape=unsigned(_WORD), depth=beats, init=[])
            m.submodules[f"spectrum{j}"] = mem
            wp, rp = mem.write_port(), mem.read_port()
            m.d.comb += [wp.addr.eq(beat), wp.data.eq(f.payload[j]),
                         wp.en.eq(f.valid & ~second), rp.addr.eq(beat)]
            y = Signal(_WORD, name=f"fb{j}")
            m.d.sync += y.eq(f.payload[j])
            xs.append(rp.data)
            ys.append(y)
        return go_signal, want, xs, ys

    def _products(self, m, operands):
        """FFT(A)·FFT(B) beat by beat into the inverse engine through an output FIFO."""
        go_signal, want, xs, ys = operands
        latency = _OPERAND_REGISTERS + self._mul_latency
        go, fifo = output_fifo(m, self._inverse.i, _WORD * self._lanes, latency, want)
        m.d.comb += go_signal.eq(go)
        go1, go2 = Signal(), Signal()
        m.d.sync += [go1.eq(go), go2.eq(go1)]
        for mul, x, y in zip(self._muls, xs, ys):
            m.d.sync += [mul.i.payload.a.eq(x), mul.i.payload.b.eq(y)]
            m.d.comb += mul.i.valid.eq(go2)
        m.d.comb += [fifo.w_en.eq(self._muls[0].o.valid),
                     fifo.w_data.eq(Cat(*(mul.o.payload for mul in self._muls)))]
