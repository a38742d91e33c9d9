"""Small stream helpers shared by the engines: a skid buffer that registers a
stream's payload, valid and ready without losing throughput, and a clock-enable wrapper that
stalls a fixed-latency datapath behind it on back-pressure."""

from amaranth import EnableInserter, Module, Mux, Signal
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from .component import Component

__all__ = ["SkidBuffer", "stall_on_backpressure"]


class SkidBuffer(Component):
    """A two-entry register slice: ``o`` carries the beats of ``i`` one cycle later, every path
    (payload, valid and ready) is registered, and a beat per cycle passes when ``o`` is always
    ready.

    Parameters: ``shape`` (payload shape). Ports: ``i`` (stream in), ``o`` (stream out).
    """

    def __init__(self, shape):
        self._shape = shape
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        skid = Signal.like(self.i.payload, name="skid")
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
