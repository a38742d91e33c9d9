"""The Karatsuba-r engine of [Mig16] §III (Fig. 2, Fig. 4): pre-computation,
pre-crossbar, 2^(r-1) serial polynomial multipliers, aligned post-computations, and the stream
shell with backpressure shared by :class:`~fhe_hw.karatsuba.KaratsubaMultiplier` and
:class:`~fhe_hw.karatsuba.KaratsubaRelinearizer`.

The datapath (:class:`KaratsubaCore`) is a fixed schedule: it takes one digit of each operand
per cycle for ``size·digits`` cycles, then (for r <= 2 only) idles for the rest of its period,
and every block knows its phase from counters (:class:`~fhe_hw.karatsuba.serial.Timing`). Flow
control (:class:`KaratsubaEngine`) is a registered clock enable (``run``) on the whole datapath,
memories included: it stops when an operand digit will be due but not available, or when the
output FIFO might be full. So that the last products drain without more input, a period that
starts without input while products are in flight runs as a bubble (zero operands, product
tagged invalid, no output).
"""

from amaranth import Cat, EnableInserter, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import wrap_inc
from ..component import Component
from ..lib.delay import delay_line
from ..params import require_int
from .postcompute import PostComputeUnit
from .precompute import PreComputeStage, PreCrossbar
from .reduce import WideBarrettReducer
from .serial import Timing, serial_add
from .submultiplier import SerialPolyMultiplier

__all__ = ["KaratsubaCore", "KaratsubaEngine"]


class KaratsubaCore(Component):
    """The lock-step datapath of a Karatsuba engine, described by a
    :class:`~fhe_hw.karatsuba.schedule.KaratsubaLayout`.

    ``modulus`` adds a :class:`~fhe_hw.karatsuba.reduce.WideBarrettReducer` on the output
    beats (one reducer shared by the two lanes when digits >= 2). ``layout.words`` > 1 accumulates
    that many consecutive products and emits only their sum (relinearization).

    The core has no flow control of its own: its streams are always ready, and the shell
    applies a clock enable to all of it and drives ``enable`` with it too, for the DSP
    primitives of the sub-multipliers, which its ``EnableInserter`` does not reach. The inputs
    are at label 0 (registered first when ``layout.pipelined``), the outputs at
    :attr:`final_time`, both registers.

    Parameters
    ----------
    layout : KaratsubaLayout
        The schedule, widths and time labels.
    modulus : int or None
        Reduce the output coefficients modulo it (default ``None``: the exact products).
    mult_stages : int
        Registers of the reducer's multipliers (default 4).

    Attributes
    ----------
    i : In(stream.Signature(StructLayout({"a": digit_bits, "b": digit_bits}), always_ready))
        One digit of each operand; when ``valid`` is low zeros enter instead.
    tag : In(1)
        The period that the current cycle belongs to carries a valid product (0 in a bubble).
    o : Out(stream.Signature(ArrayLayout(out_bits, 2), always_ready))
        The output beats: two coefficients, ``out_bits`` each.
    end : Out(1)
        The last beat of a valid product passes (also of a word product that relinearization
        accumulates without emitting it).
    enable : In(1), init 1
        The shell's clock enable, for the DSP primitives.
    channel_probes : Out(digit_bits).array(2^r, 2)
        For tests: the 2^r pre-computation channels, label ``layout.precompute_time``.
    line_probes : Out(digit_bits).array(lines, 2)
        For tests: the sub-multipliers' inputs, label ``layout.line_time``.
    product_probes : Out(chunk_bits).array(lines, 2)
        For tests: the sub-multipliers' outputs, label ``layout.line_out_time``.
    result_probe : Out(chunk_bits).array(2)
        For tests: the chunk-serial product, label ``layout.product_time``.
    """

    def __init__(self, layout, *, modulus=None, mult_stages=4):
        self.layout = layout
        db, k = layout.digit_bits, layout.chunk_bits
        self.final_time = self.final_time_of(layout, modulus, mult_stages)
        self.reducer = None
        self.out_bits = layout.out_bits
        if modulus is not None:
            self.reducer = WideBarrettReducer(modulus, layout.out_bits, mult_stages=mult_stages)
            self.out_bits = self.reducer.modulus.bit_length()
        lines = layout.schedule.lines
        super().__init__({
            "i": In(stream.Signature(data.StructLayout({"a": db, "b": db}), always_ready=True)),
            "tag": In(1),
            "o": Out(stream.Signature(data.ArrayLayout(self.out_bits, 2), always_ready=True)),
            "end": Out(1),
            "enable": In(1, init=1),
            "channel_probes": Out(db).array(1 << layout.recursions, 2),
            "line_probes": Out(db).array(lines, 2),
            "product_probes": Out(k).array(lines, 2),
            "result_probe": Out(k).array(2)})

    @staticmethod
    def final_time_of(layout, modulus=None, mult_stages=4):
        """The label at which the core's output beats leave: the product's beat time, plus
        the reducer and its registers with a ``modulus``. Raises ``ValueError``/``TypeError``
        for a modulus or ``mult_stages`` the reducer refuses."""
        if modulus is None:
            return layout.beat_time
        reducer = WideBarrettReducer.latency_of(modulus, layout.out_bits, mult_stages=mult_stages)
        return layout.beat_time + reducer + (2 if layout.digits > 1 else 1)

    def elaborate(self, platform):
        m = Module()
        P = self.layout
        t = Timing(m, P.period)
        channels = self._precompute(m)
        z = self._postcompute(m, self._multiply(m, channels))
        tag_z = delay_line(m, self.tag, P.product_time, name="tag_delay")
        emit = tag_z
        if P.words > 1:
            z, emit = self._accumulate(m, t, z, tag_z)
        self._output(m, t, z, tag_z, emit)
        return m

    def _precompute(self, m):
        """The r pre-computation stages, 1 -> 2^r channels (label ``precompute_time``): a dict
        channel -> (p, q) digits. The operands enter through ``layout.input_time`` registers
        (pipelined: so that the input FIFO's read and the flow control's take do not meet the
        first adders in one cycle); zeros enter unless ``i.valid``."""
        P = self.layout
        r, n = P.recursions, P.size
        operands = [Mux(self.i.valid, digit, 0) for digit in (self.i.payload.a, self.i.payload.b)]
        channels = {0: tuple(delay_line(m, operands, P.input_time, name="operands"))}
        for level in range(r):
            split = {}
            for x, (p, q) in channels.items():
                stage = PreComputeStage(n >> level, P.digits, P.digit_bits, P.period,
                                        P.input_time + level)
                m.submodules[f"pre{level}_{x}"] = stage
                m.d.comb += [stage.p.eq(p), stage.q.eq(q)]
                split[x] = (stage.pass_p, stage.pass_q)
                split[x | 1 << (r - 1 - level)] = (stage.sum_p, stage.sum_q)
            channels = split
        for c, (p, q) in channels.items():
            m.d.comb += [self.channel_probes[c][0].eq(p), self.channel_probes[c][1].eq(q)]
        return channels

    def _multiply(self, m, channels):
        """The pre-crossbar and the serial polynomial multipliers: the products of the lines,
        one (z0, z1) pair of chunk lanes per sub-multiplier (label ``line_out_time``)."""
        P = self.layout
        m.submodules.crossbar = xbar = PreCrossbar(P.schedule, P.slot, P.digit_bits, P.period,
                                                   P.precompute_time)
        for c, (p, q) in channels.items():
            m.d.comb += [xbar.channels[c][0].eq(p), xbar.channels[c][1].eq(q)]
        line_out = []
        for ln, (a, b) in enumerate(xbar.lines):
            mult = SerialPolyMultiplier(P.leaf, P.digits, P.digit_bits, P.chunk_bits, P.period,
                                        P.line_time, pipelined=P.pipelined)
            m.submodules[f"mult{ln}"] = mult
            m.d.comb += [mult.a.eq(a), mult.b.eq(b), mult.enable.eq(self.enable),
                         self.line_probes[ln][0].eq(a), self.line_probes[ln][1].eq(b),
                         self.product_probes[ln][0].eq(mult.z[0]),
                         self.product_probes[ln][1].eq(mult.z[1])]
            if P.line_time + mult.latency != P.line_out_time:
                raise RuntimeError(f"serial multiplier {ln}: latency {mult.latency}, the layout "
                                   f"says {P.line_out_time - P.line_time}")
            line_out.append(mult.z)
        return line_out

    def _postcompute(self, m, line_out):
        """The post-crossbar (alignment delays) and the post-computations: the chunk-serial
        product (two lanes, label ``product_time``)."""
        P = self.layout
        streams = {c: line_out[P.schedule.line[c]] for c in range(1 << P.recursions)}
        for u in P.post_units:
            unit = PostComputeUnit(u.m, P.digits, P.chunk_bits, P.period, u.time,
                                   pipelined=P.pipelined)
            m.submodules[f"post{u.level}_{u.x}"] = unit
            x = delay_line(m, list(streams[u.x]), u.pass_delay, name=f"align{u.level}_{u.x}")
            s = delay_line(m, list(streams[u.y]), u.sum_delay, name=f"align{u.level}_{u.y}")
            m.d.comb += [unit.x[i].eq(x[i]) for i in range(2)]
            m.d.comb += [unit.s[i].eq(s[i]) for i in range(2)]
            if u.time + unit.latency != u.out_time:
                raise RuntimeError(f"post-computation {u.level}_{u.x}: latency {unit.latency}, "
                                   f"the layout says {u.out_time - u.time}")
            streams[u.x] = unit.z
        z = streams[0]
        m.d.comb += [self.result_probe[i].eq(z[i]) for i in range(2)]
        return z

    def _accumulate(self, m, t, z, tag_z):
        """The relinearization accumulator (chunk-serial, one period of storage) of
        ``layout.words`` consecutive products ``z`` (tagged ``tag_z``, label ``product_time``):
        returns (the running sums, two lanes; emit: the last word's sum is there)."""
        P = self.layout
        tz, k = P.product_time, P.chunk_bits
        pos = Signal(range(P.words))
        with m.If((t.phase(tz) == P.data_cycles - 1) & tag_z):
            m.d.sync += pos.eq(wrap_inc(pos, P.words - 1))
        first_chunk = t.phase(tz, P.digits) == 0
        acc = [Signal(k, name=f"acc{i}") for i in range(2)]
        old = delay_line(m, acc, P.period, name="accumulator")
        for i in range(2):
            total = serial_add(m, Mux(pos == 0, 0, old[i]), z[i], first_chunk,
                               name=f"acc_carry{i}")
            m.d.comb += acc[i].eq(Mux(tag_z, total, old[i]))
        return acc, tag_z & (pos == P.words - 1)

    def _output(self, m, t, z, tag_z, emit):
        """Beat assembly (label ``beat_time``), the optional reduction and the output flags:
        ``o.valid`` and ``end`` are registers (label ``final_time``), formed one label
        earlier, so that the shell's flow control starts at flip-flops."""
        P = self.layout
        D, k, tz = P.digits, P.chunk_bits, P.product_time
        beat = []
        for i in range(2):
            shift = Signal(D * k, name=f"deser{i}")
            full = Cat(shift[k:], z[i])
            reg = Signal(D * k, name=f"beat{i}")
            m.d.sync += shift.eq(full)
            with m.If(t.phase(tz, D) == D - 1):
                m.d.sync += reg.eq(full)
            beat.append(reg[:P.out_bits])
        result = beat if self.reducer is None else self._reduce(m, t, beat)
        early = self.final_time - 1
        flags = delay_line(m, Cat(tag_z, emit), early - tz, name="flag_delay")
        f_phase = t.phase(early)
        in_window = (f_phase < P.data_cycles) & (t.phase(early, D) == 0)
        m.d.sync += [self.o.valid.eq(flags[1] & in_window),
                     self.end.eq(flags[0] & (f_phase == (P.size - 1) * D))]
        m.d.comb += self.o.payload.eq(Cat(*result))

    def _reduce(self, m, t, beat):
        """Reduce both lanes: one reducer fed lane 0 then lane 1 (digits >= 2), or two."""
        P, red = self.layout, self.reducer
        tb, L = P.beat_time, red.latency
        lanes = [Signal(self.out_bits, name=f"reduced{i}") for i in range(2)]
        if P.digits > 1:
            m.submodules.reducer = red
            second = t.phase(tb, P.digits) == 1
            m.d.comb += [red.i.payload.eq(Mux(second, beat[1], beat[0])),
                         red.i.valid.eq(t.phase(tb, P.digits) < 2)]
            low = Signal(self.out_bits)
            with m.If(t.phase(tb + L, P.digits) == 0):
                m.d.sync += low.eq(red.o.payload)
            with m.If(t.phase(tb + L + 1, P.digits) == 0):
                m.d.sync += [lanes[0].eq(low), lanes[1].eq(red.o.payload)]
        else:
            twin = WideBarrettReducer(red.modulus, P.out_bits, mult_stages=red.mult_stages)
            m.submodules.reducer0, m.submodules.reducer1 = red, twin
            for i, unit in enumerate((red, twin)):
                m.d.comb += [unit.i.payload.eq(beat[i]), unit.i.valid.eq(1)]
                m.d.sync += lanes[i].eq(unit.o.payload)
        return lanes


class KaratsubaEngine(Component):
    """Stream shell of a Karatsuba engine: input and output FIFOs around a
    :class:`KaratsubaCore` and the flow control that drives its clock enable.

    ``i``: one digit of each operand per beat (struct of ``a_name`` and ``b_name``, each
    ``digit_bits`` wide); coefficient j of a polynomial is beats j·digits .. j·digits + digits-1,
    least significant digit first; polynomials follow each other without gaps (the engine
    stalls ``i`` itself when it needs to). ``o``: ``size`` beats per product of two lanes
    (coefficients 2b and 2b + 1, the last lane 1 is 0).

    Flow control. The control advances in a cycle iff ``run`` is set, and the core one cycle later:
    its clock enable ``run_d`` is ``run`` registered, and the control hands it each cycle's operand
    digits and tags through a register (enabled by ``run``), so the core sees the control's sequence
    of cycles one cycle late. ``run`` is computed one cycle ahead from the next state of the control
    (period phase, bubble flag, products in flight) and of the two FIFOs, and ``run_d``, which
    drives every flip-flop, memory port and DSP of the datapath, comes straight from the flip-flop
    of ``run``: the placer can keep ``run`` by the control and put ``run_d`` among its ~17,700
    loads. The core will run unless it will need an operand digit that the input FIFO will not hold,
    or the output FIFO might be full (fewer than three free entries now: a write may come from each
    of the two cycles already decided). A period that starts without input while products are in
    flight is a bubble: zeros enter, the product is tagged invalid and emits nothing, and the input
    waits for the next period. Neither the input ``ready`` nor the output ``valid`` depends
    combinationally on the other side.
    """

    _a_name, _b_name = "a", "b"
    FIFO_DEPTH = 4
    #: Cycles from an input transfer to the core's label 0 (always-valid input): the input
    #: FIFO's register and the register between the control and the core.
    ENTRY_LATENCY = 2

    def __init__(self, layout, *, modulus=None, mult_stages=4):
        self._layout = layout
        self._modulus_arg, self._mult_stages = modulus, mult_stages
        self.core = KaratsubaCore(layout, modulus=modulus, mult_stages=mult_stages)
        self._in_layout = data.StructLayout({self._a_name: layout.digit_bits,
                                             self._b_name: layout.digit_bits})
        self._out_layout = data.ArrayLayout(self.core.out_bits, 2)
        super().__init__({"i": In(stream.Signature(self._in_layout)),
                          "o": Out(stream.Signature(self._out_layout))})

    @property
    def output_bits(self):
        """Width of each output coefficient."""
        return self.core.out_bits

    @property
    def latency(self):
        """Cycles from the first input transfer of a product to the transfer of its first
        output beat (always-valid input, always-ready output): :meth:`latency_from`."""
        return self.latency_from(self._layout, self._modulus_arg, self._mult_stages)

    @staticmethod
    def latency_from(layout, modulus=None, mult_stages=4):
        """:attr:`latency` of an engine on ``layout`` without building it: :attr:`ENTRY_LATENCY`,
        the core's final time and the output FIFO's register."""
        final = KaratsubaCore.final_time_of(layout, modulus, mult_stages)
        return KaratsubaEngine.ENTRY_LATENCY + final + 1

    @staticmethod
    def cycles_from(layout, latency, operations=1):
        """Cycles from the first input transfer to the last output transfer of ``operations``
        products (or accumulated word products) with always-valid input and always-ready
        output: (operations - 1)·period + latency + (size - 1)·digits + 1."""
        require_int("operations", operations, minimum=1)
        return ((operations - 1) * layout.period + latency
                + (layout.size - 1) * layout.digits + 1)

    def elaborate(self, platform):
        m = Module()
        P, core = self._layout, self.core
        T = P.period
        m.submodules.in_fifo = fin = SyncFIFO(width=len(self.i.payload.as_value()),
                                              depth=self.FIFO_DEPTH)
        m.submodules.out_fifo = fout = SyncFIFO(width=len(self.o.payload.as_value()),
                                                depth=self.FIFO_DEPTH)
        # i.ready is the input FIFO's w_rdy computed a cycle ahead, a register by the control
        in_ready = Signal(init=1)
        m.d.comb += [fin.w_data.eq(self.i.payload), fin.w_en.eq(self.i.valid & in_ready),
                     self.i.ready.eq(in_ready),
                     self.o.payload.eq(fout.r_data), self.o.valid.eq(fout.r_rdy),
                     fout.r_en.eq(self.o.ready)]

        run = Signal()
        phase = Signal(range(T))
        # Registered predicates of phase (0, T - 1, inside the data cycles, phase + 1 inside
        # them), updated with it, so that run's next value needs no comparison of a next phase.
        at_zero, at_last = Signal(init=1), Signal()
        in_data, data_after = Signal(init=1), Signal(init=1 < P.data_cycles)
        bubble = Signal()
        inflight = Signal(range(core.final_time // T + 4))

        def decide(at_zero, in_data, bubble, level, inflight):
            """(take an operand digit, start a bubble) in a cycle with this state."""
            start_bubble = at_zero & ~bubble & (level == 0) & (inflight != 0)
            take = in_data & ~bubble & ~start_bubble
            return take, start_bubble

        take, start_bubble = decide(at_zero, in_data, bubble, fin.r_level, inflight)
        operands = data.View(self._in_layout, fin.r_data)
        # The control's cycle t reaches the core in its cycle t + 1 (see the class docstring).
        run_d = Signal()
        m.d.sync += run_d.eq(run)
        with m.If(run):
            m.d.sync += [core.i.valid.eq(take), core.tag.eq(~(bubble | start_bubble)),
                         core.i.payload.a.eq(operands[self._a_name]),
                         core.i.payload.b.eq(operands[self._b_name])]
        m.submodules.core = EnableInserter(run_d)(core)
        m.d.comb += [core.enable.eq(run_d),
                     fin.r_en.eq(run & take),
                     fout.w_data.eq(core.o.payload), fout.w_en.eq(run_d & core.o.valid)]

        started = run & at_zero & take
        ended = run_d & core.end
        next_zero = Mux(run, at_last, at_zero)
        next_data = Mux(run, at_last | data_after, in_data)
        next_bubble = Mux(run & at_last, 0, bubble | (run & start_bubble))
        next_inflight = (inflight + started - ended)[:len(inflight)]
        # in_ready implies w_rdy (it is w_rdy, a cycle early), so every w_en is a write
        next_level = (fin.r_level + fin.w_en - (run & take))[:len(fin.r_level)]
        next_take, _ = decide(next_zero, next_data, next_bubble, next_level, next_inflight)
        room = fout.w_level + 2 < self.FIFO_DEPTH
        m.d.sync += [bubble.eq(next_bubble), inflight.eq(next_inflight),
                     run.eq(room & (~next_take | (next_level != 0))),
                     in_ready.eq(next_level != self.FIFO_DEPTH),
                     at_zero.eq(next_zero), in_data.eq(next_data)]
        with m.If(run):
            m.d.sync += [phase.eq(Mux(at_last, 0, phase + 1)), at_last.eq(phase == T - 2),
                         data_after.eq(at_last | (phase + 2 < P.data_cycles))]
        return m
