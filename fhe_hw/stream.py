"""Small stream helpers shared by the engines (DESIGN §2): a skid buffer that registers a
stream's payload, valid and ready without losing throughput."""

from amaranth import Module, Mux, Signal
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from .component import Component

__all__ = ["SkidBuffer"]


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
