"""SLIP framing with CRC-16 in gateware (frame format: :mod:`fhe_hw.link.protocol`)."""

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.crc import catalog
from amaranth.lib.wiring import In, Out

from ..component import Component
from .protocol import END, ESC, ESC_END, ESC_ESC

__all__ = ["crc16_processor", "SlipTx", "FRAME_BYTE"]

#: Payload of a byte stream that carries frames: ``data`` and ``last`` (last byte of the frame).
FRAME_BYTE = data.StructLayout({"data": unsigned(8), "last": unsigned(1)})


def crc16_processor():
    """A CRC-16/CCITT-FALSE generator over bytes (``amaranth.lib.crc``; the same algorithm as
    :func:`fhe_hw.link.protocol.crc16`): ``start`` restarts it, a byte on ``data`` with
    ``valid`` updates ``crc`` one cycle later, ``match_detected`` flags a frame whose trailing
    CRC is right."""
    return catalog.CRC16_CCITT_FALSE(data_width=8).create()


class SlipTx(Component):
    """Frames a byte stream: for each frame of ``i`` (bytes up to one with ``last``) sends
    ``END``, the bytes stuffed, their CRC-16 (stuffed, high byte first) and ``END`` on ``o``.

    Ports: ``i`` (stream of :data:`FRAME_BYTE`), ``o`` (byte stream). One output byte per cycle
    when ``o`` is ready; ``i.ready`` rises only in the cycle its byte is sent."""

    def __init__(self):
        super().__init__({"i": In(stream.Signature(FRAME_BYTE)),
                          "o": Out(stream.Signature(unsigned(8)))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.crc = crc_unit = crc16_processor()
        crc = crc_unit.crc
        escaped = Signal()           # the ESC of the current byte has been sent
        current = Signal(8)          # byte of the current state, before stuffing
        advance = Signal()           # the current byte goes out this cycle
        special = (current == END) | (current == ESC)
        stuffed = Mux(escaped, Mux(current == END, ESC_END, ESC_ESC),
                      Mux(special, ESC, current))
        with m.If(self.o.valid & self.o.ready & special & ~escaped):
            m.d.sync += escaped.eq(1)
        with m.If(advance):
            m.d.sync += escaped.eq(0)
        m.d.comb += advance.eq(self.o.valid & self.o.ready & (escaped | ~special))

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += [self.o.valid.eq(self.i.valid), self.o.payload.eq(END)]
                with m.If(self.o.valid & self.o.ready):
                    m.next = "DATA"
            with m.State("DATA"):
                m.d.comb += [current.eq(self.i.payload.data), self.o.valid.eq(self.i.valid),
                             self.o.payload.eq(stuffed), self.i.ready.eq(advance)]
                with m.If(advance):
                    m.d.comb += [crc_unit.valid.eq(1), crc_unit.data.eq(self.i.payload.data)]
                    with m.If(self.i.payload.last):
                        m.next = "CRC_HIGH"
            with m.State("CRC_HIGH"):
                m.d.comb += [current.eq(crc[8:]), self.o.valid.eq(1),
                             self.o.payload.eq(stuffed)]
                with m.If(advance):
                    m.next = "CRC_LOW"
            with m.State("CRC_LOW"):
                m.d.comb += [current.eq(crc[:8]), self.o.valid.eq(1),
                             self.o.payload.eq(stuffed)]
                with m.If(advance):
                    m.next = "CLOSE"
            with m.State("CLOSE"):
                m.d.comb += [self.o.valid.eq(1), self.o.payload.eq(END)]
                with m.If(self.o.ready):
                    m.d.comb += crc_unit.start.eq(1)
                    m.next = "IDLE"
        return m
