"""The link core's memories: the run controller, which holds the unit's operand and result
memories and streams a run through the unit, and the word buffer, through which READ and WRITE
move words between frame bytes and those memories (:mod:`fhe_hw.link.core`)."""

from amaranth import Cat, Const, Module, Mux, Signal, unsigned
from amaranth.hdl import Value
from amaranth.lib import data
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out, Signature

from ..component import Component
from .plan import drain_signature, fill_signature, memory_signature, run_signature

__all__ = ["WordBuffer", "RunController"]


class WordBuffer(Component):
    """The word a READ or WRITE moves, with its memory, address, words left and byte index.

    Parameters: ``plan`` (:class:`~fhe_hw.link.plan.LinkPlan`). Ports: ``fill`` (the
    executor's: load an access, put bytes, commit words), ``drain`` (the responder's: latch a
    memory word, take its bytes), ``memory`` (the memories' host port: the address and memory
    of the current word, its write). Every control acts on the next clock edge.
    """

    def __init__(self, plan):
        self._acc_bytes = plan.acc_bytes
        super().__init__({"fill": In(fill_signature(plan)), "drain": In(drain_signature()),
                          "memory": Out(memory_signature(plan))})

    def elaborate(self, platform):
        m = Module()
        fill, drain, memory = self.fill, self.drain, self.memory
        acc_bytes = self._acc_bytes
        word = Signal(8 * acc_bytes)
        index = Signal(range(acc_bytes))                 # the byte of the word
        word_bytes = Signal(range(acc_bytes + 1))
        remaining = Signal(16)
        word_done, last = index == word_bytes - 1, remaining == 1
        m.d.comb += [fill.word_done.eq(word_done), fill.last.eq(last),
                     drain.word_done.eq(word_done), drain.last.eq(last),
                     drain.byte.eq(word.word_select(index, 8)),
                     memory.wdata.eq(word), memory.write.eq(fill.commit)]
        next_word = [memory.addr.eq(memory.addr + 1), remaining.eq(remaining - 1)]
        with m.If(fill.load):
            m.d.sync += [memory.addr.eq(fill.access.addr), memory.mem.eq(fill.access.mem),
                         remaining.eq(fill.access.count),
                         word_bytes.eq(fill.access.word_bytes), index.eq(0)]
        with m.If(fill.put):
            m.d.sync += [word.word_select(index, 8).eq(fill.byte), index.eq(index + 1)]
        with m.If(fill.commit):
            m.d.sync += [*next_word, index.eq(0)]
        with m.If(drain.latch):
            m.d.sync += [word.eq(memory.rdata), index.eq(0)]
        with m.If(drain.take):
            m.d.sync += index.eq(index + 1)
            with m.If(word_done):
                m.d.sync += next_word
        return m


class RunController(Component):
    """The unit's memories, and the run that streams words 0..count-1 of every input memory
    into the unit's input streams and collects its output streams into the output memories,
    timing the run from the first input to the last output transfer.

    Parameters: ``plan`` (:class:`~fhe_hw.link.plan.LinkPlan`). Ports: ``unit`` (one stream
    per unit stream, named like it, flipped: connected to the unit), ``unit_rst`` (Out(1):
    reset the unit, on ``start`` and ``stop``), ``run`` (:func:`~fhe_hw.link.plan.run_signature`),
    ``host`` (the memories' host port, :func:`~fhe_hw.link.plan.memory_signature`; an input
    memory is read at the host address only while no run feeds it), ``running``, ``feeding``
    (a run still feeds the unit), ``overflow`` (an output came with its memory full),
    ``flags`` (the STATUS flags), ``count``, ``fed`` (words the unit took from input 0),
    ``cycles`` (0 until an output came), ``collected`` (words per output memory).
    """

    def __init__(self, plan):
        self._plan = plan
        unit = Signature({**{name: Out(sig) for name, sig in plan.inputs},
                          **{name: In(sig) for name, sig in plan.outputs}})
        super().__init__({"unit": Out(unit), "unit_rst": Out(1), "run": In(run_signature()),
                          "host": In(memory_signature(plan)), "running": Out(1),
                          "feeding": Out(1), "overflow": Out(1), "flags": Out(8),
                          "count": Out(16), "fed": Out(16), "cycles": Out(32),
                          "collected": Out(data.ArrayLayout(16, len(plan.outputs)))})

    def _memories(self, m):
        """The memories' (read, write) ports, ids inputs then outputs; the host's reads."""
        host, ports = self.host, []
        for n, ((name, _), bits) in enumerate(zip(self._plan.mems, self._plan.bits)):
            mem = Memory(shape=unsigned(bits), depth=self._plan.depth, init=[])
            m.submodules[f"mem_{n}_{name}"] = mem
            ports.append((mem.read_port(transparent_for=()), mem.write_port()))
        with m.Switch(host.mem):
            for n, (read, _) in enumerate(ports):
                with m.Case(n):
                    m.d.comb += host.rdata.eq(read.data)
        return ports

    def elaborate(self, platform):
        m = Module()
        plan, host, run = self._plan, self.host, self.run
        ports = self._memories(m)
        n_in = len(plan.inputs)
        tick, t_first, t_last = Signal(32), Signal(32), Signal(32)
        seen_in, seen_out = Signal(), Signal()
        fed = [Signal(16, name=f"fed_{n}") for n in range(n_in)]
        nxt = [Signal(16, name=f"next_{n}") for n in range(n_in)]
        beat = [Signal(name=f"beat_{n}") for n in range(n_in)]
        outs = [self.collected[j] for j in range(len(plan.outputs))]
        feeding = self.feeding
        m.d.comb += [feeding.eq(self.running & Cat(f != self.count for f in fed).any()),
                     self.fed.eq(fed[0]), self.unit_rst.eq(run.start | run.stop),
                     self.cycles.eq(Mux(seen_in & seen_out, t_last - t_first + 1, 0)),
                     self.flags.eq(Cat(self.running, ~feeding & self.running, self.overflow))]
        with m.If(self.running):
            m.d.sync += tick.eq(tick + 1)
        for n, (name, _) in enumerate(plan.inputs):
            (read, write), iface = ports[n], getattr(self.unit, name)
            load = ~beat[n] | iface.ready
            m.d.comb += [read.addr.eq(Mux(feeding, nxt[n], host.addr)), read.en.eq(~feeding | load),
                         iface.valid.eq(beat[n]), Value.cast(iface.payload).eq(read.data)]
            with m.If(host.write & (host.mem == n)):
                m.d.comb += [write.en.eq(1), write.addr.eq(host.addr), write.data.eq(host.wdata)]
            with m.If(self.running & load):
                m.d.sync += beat[n].eq(nxt[n] != self.count)
                with m.If(nxt[n] != self.count):
                    m.d.sync += nxt[n].eq(nxt[n] + 1)
            with m.If(beat[n] & iface.ready):
                m.d.sync += fed[n].eq(fed[n] + 1)
                if n == 0:
                    with m.If(~seen_in):
                        m.d.sync += [seen_in.eq(1), t_first.eq(tick)]
        for j, (name, _) in enumerate(plan.outputs):
            (read, write), iface = ports[n_in + j], getattr(self.unit, name)
            if not isinstance(iface.ready, Const):
                m.d.comb += iface.ready.eq(1)
            m.d.comb += [read.addr.eq(host.addr), write.addr.eq(outs[j]),
                         write.data.eq(Value.cast(iface.payload))]
            with m.If(self.running & iface.valid):
                m.d.sync += [seen_out.eq(1), t_last.eq(tick)]
                with m.If(outs[j] < plan.depth):
                    m.d.comb += write.en.eq(1)
                    m.d.sync += outs[j].eq(outs[j] + 1)
                with m.Else():
                    m.d.sync += self.overflow.eq(1)
        with m.If(run.start):
            m.d.sync += [self.running.eq(1), self.count.eq(run.count), tick.eq(0),
                         seen_in.eq(0), seen_out.eq(0), self.overflow.eq(0),
                         *(s.eq(0) for s in fed + nxt + beat + outs)]
        with m.If(run.stop):
            m.d.sync += [self.running.eq(0), *(s.eq(0) for s in beat)]
        return m
