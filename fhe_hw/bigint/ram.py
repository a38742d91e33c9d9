"""The shared-RAM interface of the super-size engines: [Cao13] §3.1 ("a shared
RAM ... used to store the input operands, the intermediate and final results", assumed
off-chip) and §5 ("three RAM read buses and one RAM write bus").

Port signature (from the engine's side, all ``Out`` except read data):

* read port ``rd_x``/``rd_y``/``rd_z``: ``addr`` (word address), ``en``, ``data`` (``In``, d
  bits). Synchronous: the word at ``addr`` presented with ``en`` in cycle t is on ``data`` in
  cycle t + 1 (one cycle of read latency, no back-pressure: the engines are fixed schedules).
* write port ``wr``: ``addr``, ``en``, ``data``; the word is stored at the end of the cycle in
  which ``en`` is high, and a read presented in a later cycle sees it.

Words are d bits, operands least significant word first. :class:`RAMHarness` puts a unit and
such a RAM (an ``amaranth.lib.memory.Memory`` with three read ports and one write port, read
ports not transparent) together for simulation and Verilator co-simulation; it is the memory
model of the tests, not part of the engines.
"""

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..params import require_int

__all__ = ["read_port_signature", "write_port_signature", "memory_members", "RAMHarness",
           "connect_ports", "to_words", "from_words"]

READ_PORTS = ("rd_x", "rd_y", "rd_z")


def to_words(value, d, count):
    """``value`` as ``count`` RAM words of ``d`` bits, least significant first (higher bits
    are dropped; callers check that the value fits)."""
    mask = (1 << d) - 1
    return [(value >> (d * i)) & mask for i in range(count)]


def from_words(words, d):
    """The integer held in ``words`` (``d`` bits each, least significant first)."""
    return sum(w << (d * i) for i, w in enumerate(words))


def read_port_signature(addr_width, data_width):
    return wiring.Signature({"addr": Out(addr_width), "en": Out(1), "data": In(data_width)})


def write_port_signature(addr_width, data_width):
    return wiring.Signature({"addr": Out(addr_width), "en": Out(1), "data": Out(data_width)})


def memory_members(addr_width, data_width):
    """Signature members of an engine's three read ports and one write port."""
    members = {name: Out(read_port_signature(addr_width, data_width)) for name in READ_PORTS}
    members["wr"] = Out(write_port_signature(addr_width, data_width))
    return members


def connect_ports(m, engine, ports):
    """Drive the memory ports of ``engine`` (``ports`` of a sub-unit inside it: either the
    engine's own port objects or another unit's) — helper for muxing several users."""
    for name in READ_PORTS:
        src, dst = getattr(ports, name), getattr(engine, name)
        m.d.comb += [dst.addr.eq(src.addr), dst.en.eq(src.en), src.data.eq(dst.data)]
    m.d.comb += [engine.wr.addr.eq(ports.wr.addr), engine.wr.en.eq(ports.wr.en),
                 engine.wr.data.eq(ports.wr.data)]


class RAMHarness(Component):
    """A unit with memory ports plus the RAM behind them, for simulation.

    Parameters: ``unit`` (a component with ``rd_x``/``rd_y``/``rd_z``/``wr`` ports, an input
    stream ``i`` and an output stream ``o``); ``depth`` (words); ``init`` (initial words, list of
    ints); ``dump`` ((address, words) read back after the unit's ``o`` beat); ``host_writes``
    (the host may write RAM words between commands).

    Ports: ``i`` — the unit's ``i`` stream, passed through (with ``host_writes``: a stream of
    :attr:`host_layout`, ``{"command", "write", "addr", "data"}``: a beat with ``write`` set
    stores ``data`` at ``addr`` while the unit is idle and starts nothing, a beat without it
    passes ``command`` to the unit); ``o`` — stream of d-bit words: the
    unit's cycle count first (cycles from the ``i`` transfer to the unit's ``o`` beat, both
    included — the convention of :func:`fhe_hw.sim.pysim.run_stream`), then the unit's ``o``
    payload, then the ``dump`` words in address order; this repeats for every command (the
    next command is accepted once the previous dump has left). The whole run is thus checked
    through two streams, in pysim and in the Verilator harness of :mod:`fhe_hw.sim.cosim` alike.
    """

    def __init__(self, unit, depth, init=(), dump=(0, 0), *, host_writes=False):
        self._unit = unit
        self._depth = require_int("depth", depth, minimum=1)
        self._width = len(unit.wr.data)
        self._host = host_writes
        self._init = list(init)
        if len(self._init) > depth:
            raise ValueError(f"init must have at most depth = {depth} words, not {len(init)}")
        self._dump = dump
        if dump[0] + dump[1] > depth:
            raise ValueError(f"dump must lie inside the RAM, not {dump!r}")
        command = unit.i.payload.shape()
        self._host_layout = data.StructLayout({
            "command": command, "write": 1, "addr": unsigned(max(1, (depth - 1).bit_length())),
            "data": unsigned(self._width)})
        super().__init__({"i": In(stream.Signature(self._host_layout if host_writes else command)),
                          "o": Out(stream.Signature(unsigned(max(self._width, 32))))})

    host_layout = property(lambda self: self._host_layout)

    def elaborate(self, platform):
        m = Module()
        unit = self._unit
        m.submodules.unit = unit
        m.submodules.mem = mem = memory.Memory(shape=unsigned(self._width), depth=self._depth,
                                               init=self._init)
        aw = (self._depth - 1).bit_length() or 1
        for name in READ_PORTS:
            port = getattr(unit, name)
            rp = mem.read_port()
            m.d.comb += [rp.addr.eq(port.addr[:aw]), rp.en.eq(port.en),
                         port.data.eq(rp.data)]
        dump_rp = mem.read_port()
        wp = mem.write_port()
        phase = Signal(2)        # 0 idle/running, 1 send count, 2 send result, 3 dump
        idle = Signal()
        count = Signal(48)
        running = Signal()
        m.d.comb += idle.eq(phase == 0)
        # a new command waits until the previous one's beats (and dump) have left
        if self._host:
            beat = data.View(self._host_layout, self.i.payload)
            host = Signal()
            m.d.comb += [host.eq(self.i.valid & beat.write & idle & ~running),
                         unit.i.payload.eq(beat.command),
                         unit.i.valid.eq(self.i.valid & ~beat.write & idle),
                         self.i.ready.eq(Mux(beat.write, idle & ~running, unit.i.ready & idle))]
            m.d.comb += [wp.addr.eq(Mux(host, beat.addr, unit.wr.addr[:aw])),
                         wp.en.eq(unit.wr.en | host),
                         wp.data.eq(Mux(host, beat.data, unit.wr.data))]
        else:
            m.d.comb += [unit.i.payload.eq(self.i.payload),
                         unit.i.valid.eq(self.i.valid & idle),
                         self.i.ready.eq(unit.i.ready & idle)]
            m.d.comb += [wp.addr.eq(unit.wr.addr[:aw]), wp.en.eq(unit.wr.en),
                         wp.data.eq(unit.wr.data)]

        # counter, then result beat, then dump words.
        result = Signal.like(unit.o.payload)
        addr = Signal(aw + 1)
        left = Signal(range(self._dump[1] + 1))
        pending = Signal()       # dump read issued, data on dump_rp.data
        with m.If(unit.i.valid & unit.i.ready):
            m.d.sync += [running.eq(1), count.eq(1)]
        with m.Elif(running):
            m.d.sync += count.eq(count + 1)
        m.d.comb += unit.o.ready.eq(phase == 0)
        with m.If(unit.o.valid & unit.o.ready):
            m.d.sync += [running.eq(0), result.eq(unit.o.payload), phase.eq(1)]
        m.d.comb += dump_rp.addr.eq(addr)
        with m.Switch(phase):
            with m.Case(1):
                m.d.comb += [self.o.valid.eq(1), self.o.payload.eq(count)]
                with m.If(self.o.ready):
                    m.d.sync += phase.eq(2)
            with m.Case(2):
                m.d.comb += [self.o.valid.eq(1), self.o.payload.eq(result)]
                with m.If(self.o.ready):
                    m.d.sync += [phase.eq(3 if self._dump[1] else 0),
                                 addr.eq(self._dump[0]), left.eq(self._dump[1]),
                                 pending.eq(0)]
            with m.Case(3):
                # One word per two cycles: issue the read, then offer its data until taken.
                with m.If(~pending):
                    m.d.comb += dump_rp.en.eq(1)
                    m.d.sync += pending.eq(1)
                with m.Else():
                    m.d.comb += [self.o.valid.eq(1), self.o.payload.eq(dump_rp.data)]
                    with m.If(self.o.ready):
                        m.d.sync += [pending.eq(0), addr.eq(addr + 1), left.eq(left - 1)]
                        with m.If(left == 1):
                            m.d.sync += phase.eq(0)
        return m
