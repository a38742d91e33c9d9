"""Small stream helpers shared by the engines: a skid buffer that registers a
stream's payload, valid and ready without losing throughput, a queue for writers that count
credits (and the two in a row, cut into groups of payload bits with control of their own), and
a clock-enable wrapper that stalls a fixed-latency datapath behind it on
back-pressure."""

from amaranth import Cat, EnableInserter, Module, Mux, Signal, Value
from amaranth.lib import stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import KEEP, wrap_inc
from ..component import Component
from ..params import check_bool, require_int

__all__ = ["SkidBuffer", "CreditQueue", "GroupedQueue", "credit_room", "stall_on_backpressure"]


class SkidBuffer(Component):
    """A two-entry register slice: ``o`` carries the beats of ``i`` one cycle later, every path
    (payload, valid and ready) is registered, and a beat per cycle passes when ``o`` is always
    ready.

    Parameters: ``shape`` (payload shape); ``spread`` (None, the default, or k >= 1): the
    payload's registers take no valid, the skid register capturing ``i.payload`` in every cycle
    its slot is free, so ``i.valid`` reaches the valid registers only, not the payload's clock
    enables; and the slot's state is k register copies (kept apart in synthesis,
    :data:`~fhe_hw.arith.pipeline.KEEP`), each one producer's ``ready``, so that k producers
    spread over the die each take their ready from a register of their own, not from one net
    across the die. With k > 1 the payload's bits are k segments in order, as equal as they
    divide (segment g bits ⌊g·w/k⌋ to ⌊(g + 1)·w/k⌋ − 1 of w), segment g producer g's: its
    registers take their clock enables from copy g and from a copy of the output's valid of
    their own, so no clock enable spans the producers either; only ``o.ready`` and
    ``i.valid`` reach every segment. Ports: ``i`` (stream in), ``o`` (stream out); with
    ``spread``, ``ready_copies`` (out, k bits: copy g is ``i.ready``, for producer g).
    """

    def __init__(self, shape, *, spread=None):
        if spread is not None:
            require_int("spread", spread, minimum=1)
        self._shape, self._spread = shape, spread
        ports = {"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))}
        if spread is not None:
            ports["ready_copies"] = Out(spread)
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        skid = Signal.like(self.i.payload, name="skid")
        if self._spread is not None:
            return self._elaborate_spread(m, skid)
        skid_valid = Signal()
        # i.ready is a register: high while the skid slot is free.
        m.d.comb += self.i.ready.eq(~skid_valid)
        with m.If(self.o.ready | ~self.o.valid):
            m.d.sync += [self.o.valid.eq(self.i.valid | skid_valid),
                         self.o.payload.eq(Mux(skid_valid, skid, self.i.payload)),
                         skid_valid.eq(0)]
        with m.Elif(self.i.valid & self.i.ready):
            m.d.sync += [skid.eq(self.i.payload), skid_valid.eq(1)]
        return m

    def _elaborate_spread(self, m, skid):
        """``spread``: the same slice, the skid slot's state in copies (class docstring)."""
        copies = [Signal(name=f"skid_valid{g}", attrs=KEEP) for g in range(self._spread)]
        skid_valid = copies[0]
        move = Signal()
        m.d.comb += [move.eq(self.o.ready | ~self.o.valid), self.i.ready.eq(~skid_valid),
                     self.ready_copies.eq(~Cat(*copies))]
        if self._spread > 1:
            with m.If(move):
                m.d.sync += self.o.valid.eq(self.i.valid | skid_valid)
            self._segments(m, skid, copies)
            return m
        with m.If(~skid_valid):
            m.d.sync += skid.eq(self.i.payload)
        with m.If(move):
            m.d.sync += [self.o.valid.eq(self.i.valid | skid_valid),
                         self.o.payload.eq(Mux(skid_valid, skid, self.i.payload))]
        # Each copy from its own value: the slot fills with a beat it did not pass on, and
        # empties when the output register moves.
        m.d.sync += [copy.eq(~move & (copy | self.i.valid)) for copy in copies]
        return m

    def _segments(self, m, skid, copies):
        """Segment g of the payload under copy g of the slot and a copy of ``o.valid`` (class
        docstring): every copy sees the same updates from reset, so they stay equal."""
        i, o, skid = (Value.cast(v) for v in (self.i.payload, self.o.payload, skid))
        bounds = [g * len(i) // len(copies) for g in range(len(copies) + 1)]
        for g, copy in enumerate(copies):
            valid, move = Signal(name=f"o_valid{g}", attrs=KEEP), Signal(name=f"move{g}")
            lo, hi = bounds[g], bounds[g + 1]
            m.d.comb += move.eq(self.o.ready | ~valid)
            with m.If(~copy):
                m.d.sync += skid[lo:hi].eq(i[lo:hi])
            with m.If(move):
                m.d.sync += [valid.eq(self.i.valid | copy),
                             o[lo:hi].eq(Mux(copy, skid[lo:hi], i[lo:hi]))]
            m.d.sync += copy.eq(~move & (copy | self.i.valid))


class CreditQueue(Component):
    """A first-in first-out queue of ``depth`` beats for a writer that never overfills it (it
    counts credits: beats written minus beats taken at ``o`` stay at most ``depth``), so that
    its write needs no level check: ``i`` is always ready, and a beat written with ``i.valid``
    goes to the queue's storage unconditionally. The writer's valid register therefore reaches
    the storage's write enable without logic between them (the level check of
    :class:`amaranth.lib.fifo.SyncFIFOBuffered` put a comparator there).

    Parameters: ``shape`` (payload shape), ``depth`` (beats, at least 2), ``distributed`` (the
    storage in distributed RAM, LUTs, never block RAM: Yosys otherwise maps a wide one to block
    RAM, folding the output register into its read port, and the block RAM's clock-to-out, about
    6 ns on the ECP5 DP16KD without its own output register, then starts the path to the
    consumer; default False). Ports: ``i`` (stream in, always ready), ``o`` (stream out,
    ``payload`` and ``valid`` registers). Latency: a beat
    written in cycle w is valid at ``o`` from w + 2 (:data:`CreditQueue.LATENCY`); one beat
    per cycle passes when ``o`` is ready. Storage: ``depth`` − 1 words (distributed RAM with an
    asynchronous read) and the output register. Writing more than ``depth`` beats ahead of
    ``o`` overwrites the oldest one: the writer's credit must prevent it.
    """

    LATENCY = 2

    def __init__(self, shape, depth, *, distributed=False):
        require_int("depth", depth, minimum=2)
        if not isinstance(distributed, bool):
            raise TypeError(f"distributed must be a bool, not {distributed!r}")
        self._shape, self._depth, self._distributed = shape, depth, distributed
        super().__init__({"i": In(stream.Signature(shape, always_ready=True)),
                          "o": Out(stream.Signature(shape))})

    @property
    def depth(self):
        return self._depth

    def elaborate(self, platform):
        m = Module()
        words = self._depth - 1
        attrs = {"ram_style": "distributed"} if self._distributed else None
        m.submodules.storage = mem = Memory(shape=self._shape, depth=words, init=[], attrs=attrs)
        w_port, r_port = mem.write_port(), mem.read_port(domain="comb")
        produce, consume = Signal(range(words)), Signal(range(words))
        count = Signal(range(words + 1))
        nonempty = Signal()  # count != 0, a register
        move = Signal()      # storage -> output register
        m.d.comb += [w_port.addr.eq(produce), w_port.data.eq(self.i.payload),
                     w_port.en.eq(self.i.valid), r_port.addr.eq(consume),
                     move.eq(nonempty & (self.o.ready | ~self.o.valid))]
        with m.If(self.i.valid):
            m.d.sync += produce.eq(wrap_inc(produce, words - 1))
        with m.If(move):
            m.d.sync += [consume.eq(wrap_inc(consume, words - 1)),
                         self.o.payload.eq(r_port.data), self.o.valid.eq(1)]
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        count_next = count + self.i.valid - move
        m.d.sync += [count.eq(count_next), nonempty.eq(count_next != 0)]
        return m


class GroupedQueue(Component):
    """A :class:`CreditQueue` draining into a :class:`SkidBuffer`, the queue's read depending on
    registers only, with the payload cut into groups of bits that each have a queue and a buffer
    of their own, control and all. The groups see the same writes and the same ``o.ready``, so
    they move in lockstep from reset, but no group's clock enable, counter or level reaches
    another: a payload spread over the die (a group per engine slot) needs no control net that
    spans it, only ``i.valid`` and ``o.ready`` reach every group. (Each group's registers feed
    back into themselves, so synthesis does not merge the copies.)

    Parameters: ``widths`` (bits of each group; payload bit 0 is group 0's first), ``depth``
    (the queue's beats, at least 2) and ``distributed``, as :class:`CreditQueue`'s. Ports: ``i``
    (stream in, always ready: the writer counts credits), ``o`` (stream out, ``payload`` and
    ``valid`` registers), ``read`` (out: a beat leaves the queue for the buffer in this cycle,
    the credit's "taken"). Latency: a beat written in cycle w is valid at ``o`` from w + 3
    (:data:`GroupedQueue.LATENCY`), one beat per cycle passes when ``o`` is ready.
    """

    LATENCY = CreditQueue.LATENCY + 1

    def __init__(self, widths, depth, *, distributed=False):
        widths = tuple(widths)
        if not widths:
            raise ValueError("widths must name at least one group")
        for width in widths:
            require_int("widths", width, minimum=1)
        require_int("depth", depth, minimum=2)
        check_bool("distributed", distributed)
        self._widths, self._depth, self._distributed = widths, depth, distributed
        super().__init__({"i": In(stream.Signature(sum(widths), always_ready=True)),
                          "o": Out(stream.Signature(sum(widths))), "read": Out(1)})

    def elaborate(self, platform):
        m = Module()
        start, outs, skids = 0, [], []
        for g, width in enumerate(self._widths):
            m.submodules[f"queue{g}"] = queue = CreditQueue(width, self._depth,
                                                            distributed=self._distributed)
            m.submodules[f"skid{g}"] = skid = SkidBuffer(width)
            m.d.comb += [queue.i.valid.eq(self.i.valid),
                         queue.i.payload.eq(self.i.payload[start:start + width]),
                         skid.i.valid.eq(queue.o.valid), skid.i.payload.eq(queue.o.payload),
                         queue.o.ready.eq(skid.i.ready), skid.o.ready.eq(self.o.ready)]
            start += width
            outs.append(skid.o.payload)
            skids.append(skid)
        m.d.comb += [self.o.payload.eq(Cat(*outs)), self.o.valid.eq(skids[0].o.valid),
                     self.read.eq(skids[0].i.valid & skids[0].i.ready)]
        return m


def credit_room(m, issue, taken, depth, name="credit", *, late=True):
    """The issue credit of a :class:`CreditQueue` of ``depth`` beats behind a fixed-latency
    unit: a count of the beats issued (``issue``) and not yet taken at the queue's output
    (``taken``), and returns ``room``, whether the count is below ``depth``, as a register
    (its next value picked from comparisons of the count for each way the count may move, so
    no comparator follows it). Issue only with ``room`` and the queue never overfills.

    With ``late`` (the default) ``taken`` is counted a cycle late, through a register: the
    consumer's ``ready`` (which may come from across the die) then ends at a flip-flop, not at
    the count's adder. The count is one beat too high for that cycle, so a queue that must pass
    a beat per cycle needs one beat more than the beats in flight. Without it a take frees
    its beat at once."""
    credit = Signal(range(depth + 1), name=name)
    room = Signal(init=1, name=f"{name}_room")
    if late:
        took = Signal(name=f"{name}_taken")
        m.d.sync += took.eq(taken)
    else:
        took = taken
    m.d.sync += [credit.eq(credit + issue - took),
                 room.eq(Mux(issue, Mux(took, credit < depth, credit < depth - 1),
                             took | (credit < depth)))]
    return room


def stall_on_backpressure(m, core, valid, payload, o, name="core"):
    """Add ``core`` (an elaboratable whose ``sync`` logic drives the registered output beat
    ``valid``/``payload``) to ``m`` under a clock enable, and drive the stream ``o`` from that
    beat through a :class:`SkidBuffer`.

    The whole core advances in a cycle unless its output beat is valid and the skid buffer
    cannot take it, so fixed-latency units inside (modular multipliers, adders) stall as one
    pipeline and nothing is lost. Returns the enable ``advance`` (comb; an engine's input
    ``ready`` must include it). With ``o`` always ready the core never stalls and the skid
    buffer adds one cycle of latency.
    """
    advance = Signal(name=f"{name}_advance")
    m.submodules[name] = EnableInserter({"sync": advance})(core)
    m.submodules[f"{name}_skid"] = skid = SkidBuffer(o.payload.shape())
    m.d.comb += [skid.i.valid.eq(valid), skid.i.payload.eq(payload),
                 advance.eq(~valid | skid.i.ready),
                 o.valid.eq(skid.o.valid), o.payload.eq(skid.o.payload),
                 skid.o.ready.eq(o.ready)]
    return advance
