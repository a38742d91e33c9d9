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

from dataclasses import dataclass, field

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out, connect, flipped

from ..arith import ModMul
from ..arith.pipeline import mult_stages_param, tiled_param, wrap_inc
from ..component import Component, FixedRun
from ..model.large_int import DIGIT_BITS, MAX_BITS, MAX_N, plan
from ..ntt import StreamingFourStepNTT
from ..ntt.four_step_stream import FourStepEnginesPlan
from ..ntt.streaming import output_fifo
from ..params import SOLINAS64, require_power_of_two
from ..plan import param
from .carry import CarryResolver, CarryResolverPlan

__all__ = ["LargeIntegerMultiplier", "LargeIntegerMultiplierPlan"]

_WORD = 64
_OPERAND_REGISTERS = 2      # engine output -> ModMul operand (spectrum read / register, register)


@dataclass(frozen=True)
class LargeIntegerMultiplierPlan(FourStepEnginesPlan):
    """The parameters of :class:`LargeIntegerMultiplier` and what they derive.

    Parameters
    ----------
    max_bits : int
        The operand size the transform is sized for: n is the smallest power of two holding
        2·⌈max_bits/d⌉ digits, at least inner_n², at most min(65536, 64·inner_n²) (default
        786432, the paper's: n = 65536).
    digit_bits : int
        d, 8 to 32 (default 24); (n/2)·(2^d - 1)^2 must stay below p.
    lanes : int
        Digits per beat, a power of two up to ``inner_n`` (default 16, the paper's).
    engines : int
        Forward engines: 1 (one for both operands, time-shared) or 2 (one each).
    inner_n : int
        The engines' inner shift-only unit size, a power of two from 2 to 64 (default 64;
        small values for tests).
    inner_units : int
        The engines' inner units: 1 (P1 and P2 share one), or 2 (one each, see
        :class:`~fhe_hw.ntt.StreamingFourStepNTT`).
    mult_stages : int or None
        The ModMuls' (default None: their fast setting).
    tiled : bool
        The ModMuls' (default True).

    Attributes
    ----------
    sizes : fhe_hw.model.large_int.LargeIntPlan
        The digits and the transform size n.
    forward, engine
        As :class:`~fhe_hw.ntt.four_step_stream.FourStepEnginesPlan`; the inverse engine
        times as the forward one.
    mul_latency : int
        The point-wise ModMuls' latency.
    n : int
        The transform size.
    latency : None
        A stream engine: :meth:`cycles` counts a product.
    """

    max_bits: int = param(MAX_BITS, help="operand size the transform is sized for, in bits "
                          "(default 49152: n = 4096, quicker to generate; the class's default is "
                          "the paper's 786432: n = 65536)", cli_default=49152)
    digit_bits: int = param(DIGIT_BITS, help="digit width d (8..32; (n/2)(2^d-1)^2 < p)")
    lanes: int = param(16, help="digits per beat, a power of two up to inner-n (default 4, "
                       "quicker to generate; the class's default is the paper's 16)",
                       cli_default=4, kw_only=True)
    engines: int = param(1, help="forward engines: 1 (time-shared) or 2", range=(1, 2),
                         kw_only=True)
    inner_n: int = param(64, help="the engines' inner shift unit size (power of two, 2..64)",
                         range=(2, 64), kw_only=True)
    inner_units: int = param(1, help="the engines' inner units: 1 (P1 and P2 share it) or 2",
                             range=(1, 2), kw_only=True)
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    sizes: object = field(init=False, repr=False, compare=False)
    mul_latency: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        m = require_power_of_two("inner_n", self.inner_n, minimum=2, maximum=64)
        sizes = plan(self.max_bits, self.digit_bits, min_n=min(m * m, MAX_N),
                     max_n=min(MAX_N, 64 * m * m))
        CarryResolverPlan(self.lanes, self.digit_bits, coeff_bits=_WORD)
        forward = self._set_forward(sizes.n)
        self._set(sizes=sizes, mul_latency=forward.mul_latency)

    @property
    def n(self):
        return self.sizes.n

    @property
    def input_beats(self):
        """Beats of one product on ``i``: A's n/(2·lanes), then B's."""
        return self.n // self.lanes

    @property
    def output_beats(self):
        """Beats of one product on ``o``: n / lanes."""
        return self.n // self.lanes

    def cycles(self):
        """Cycles of one product from A's first input transfer to the product's last output
        transfer, ``i`` always valid and ``o`` always ready: the forward engine's output of
        FFT(B) starts at f = (forward cycles of 2 transforms) - n/lanes (``engines=1``) or
        (forward cycles of 1) - n/(2·lanes) (``engines=2``); then the ModMul and its
        registers (latency + 3 to the inverse engine), the inverse engine's one-transform
        cycles and the CarryResolver's 5."""
        n, forward = self.n, self.forward
        if self.engines == 1:
            first_b = forward.cycles(transforms=2) - n // self.lanes
        else:
            first_b = forward.cycles() - n // (2 * self.lanes)
        return (first_b + _OPERAND_REGISTERS + self.mul_latency + 1
                + forward.cycles() + CarryResolverPlan().latency)

    def storage_bits(self):
        """Bits of memory: the engines'
        (:meth:`~fhe_hw.ntt.four_step_plan.FourStepPlan.storage_bits`) and, with one forward
        engine, the spectrum buffer's n words (``{"ram": ..., "rom": ...}``)."""
        each = self.engine.storage_bits()
        return {"ram": (self.engines + 1) * each["ram"] + (_WORD * self.n if self.engines == 1
                                                           else 0),
                "rom": (self.engines + 1) * each["rom"]}


class LargeIntegerMultiplier(FixedRun, Component):
    """a·b for 0 <= a, b < 2^(d·n/2) through n-point transforms ([Wang13] §III-A).

    Parameters
    ----------
    plan : LargeIntegerMultiplierPlan
        Or the arguments of one (``LargeIntegerMultiplier(256, 8, inner_n=4, lanes=4)``).

    Attributes
    ----------
    i : In(stream.Signature(data.ArrayLayout(unsigned(d), lanes)))
        A's n/2 digits (:attr:`operand_beats` beats), then B's, least significant first.
        Products may follow each other.
    o : Out(stream.Signature(data.ArrayLayout(unsigned(d), lanes)))
        The n digits of a·b (:attr:`output_beats` beats), least significant first.
    n, lanes, engines, digit_bits : int
        The plan's.

    :meth:`cycles` counts a product from A's first input transfer to its last output transfer
    (:meth:`LargeIntegerMultiplierPlan.cycles`).
    """

    def __init__(self, *args, **kw):
        self.plan = p = LargeIntegerMultiplierPlan.coerce(*args, **kw)
        self._forward = [StreamingFourStepNTT(p.forward) for _ in range(p.engines)]
        self._inverse = StreamingFourStepNTT(p.engine_plan(p.n, inverse=True))
        # solinas64 takes the Solinas reducer: output_scale 1, plain point-wise products
        self._muls = [ModMul("solinas64", mult_stages=p.mult_stages, tiled=p.tiled)
                      for _ in range(p.lanes)]
        self._carry = CarryResolver(p.lanes, p.digit_bits, coeff_bits=_WORD,
                                    beats=p.n // p.lanes)
        layout = data.ArrayLayout(unsigned(p.digit_bits), p.lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    def cycles(self):
        """Cycles of one product, first input transfer to last output transfer (``i`` always
        valid, ``o`` always ready)."""
        return self.plan.cycles()

    def storage_bits(self):
        """:meth:`LargeIntegerMultiplierPlan.storage_bits` of this unit."""
        return self.plan.storage_bits()

    n = property(lambda self: self.plan.n)
    lanes = property(lambda self: self.plan.lanes)
    engines = property(lambda self: self.plan.engines)
    digit_bits = property(lambda self: self.plan.digit_bits)
    modulus = property(lambda self: SOLINAS64)
    latency = property(lambda self: self.plan.latency)

    @property
    def operand_beats(self):
        """Beats of one operand on ``i``: n / (2·lanes)."""
        return self.n // (2 * self.lanes)

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
            mine = digits & ((operand == k) if self.engines == 2 else 1)
            m.d.comb += engine.i.valid.eq(Mux(digits, self.i.valid & mine, 1))
            for j in range(self.lanes):
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
        L = self.lanes
        go_signal = Signal()
        want = Signal()
        if self.engines == 2:
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
        latency = _OPERAND_REGISTERS + self.plan.mul_latency
        go, fifo = output_fifo(m, self._inverse.i, _WORD * self.lanes, latency, want)
        m.d.comb += go_signal.eq(go)
        go1, go2 = Signal(), Signal()
        m.d.sync += [go1.eq(go), go2.eq(go1)]
        for mul, x, y in zip(self._muls, xs, ys):
            m.d.sync += [mul.i.payload.a.eq(x), mul.i.payload.b.eq(y)]
            m.d.comb += mul.i.valid.eq(go2)
        m.d.comb += [fifo.w_en.eq(self._muls[0].o.valid),
                     fifo.w_data.eq(Cat(*(mul.o.payload for mul in self._muls)))]
