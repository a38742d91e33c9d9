"""SLIP framing with CRC-16 in gateware (frame format: :mod:`fhe_hw.link.protocol`): the
link core's frame receiver and the transmitter of its responses."""

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.crc import catalog
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..component import Component
from .plan import buffer_signature, frame_signature
from .protocol import END, ESC, ESC_END, ESC_ESC

__all__ = ["crc16_processor", "FrameReceiver", "SlipTx", "FRAME_BYTE"]

#: Payload of a byte stream that carries frames: ``data`` and ``last`` (last byte of the frame).
FRAME_BYTE = data.StructLayout({"data": unsigned(8), "last": unsigned(1)})


def crc16_processor():
    """A CRC-16/CCITT-FALSE generator over bytes (``amaranth.lib.crc``; the same algorithm as
    :func:`fhe_hw.link.protocol.crc16`): ``start`` restarts it, a byte on ``data`` with
    ``valid`` updates ``crc`` one cycle later, ``match_detected`` flags a frame whose trailing
    CRC is right."""
    return catalog.CRC16_CCITT_FALSE(data_width=8).create()


class FrameReceiver(Component):
    """Unstuffs each request frame into a frame buffer while computing its CRC, and judges it
    after its closing ``END`` (bad escape, too short, too long, CRC).

    Parameters: ``plan`` (:class:`~fhe_hw.link.plan.LinkPlan`; its ``max_frame`` bytes are
    buffered). Ports: ``rx`` (always-ready byte stream in), ``idle`` (In(1): the executor takes
    a frame; while it is low, bytes are dropped up to the next ``END`` and counted in
    ``dropped``), ``uart_error`` (In(1), counted in ``uart_errors``), ``frame``
    (:func:`~fhe_hw.link.plan.frame_signature`), ``buffer`` (the frame buffer's read port),
    ``dropped`` and ``uart_errors`` (Out(16) counters).
    """

    def __init__(self, plan):
        self._max_frame = plan.max_frame
        super().__init__({"rx": In(stream.Signature(unsigned(8), always_ready=True)),
                          "idle": In(1), "uart_error": In(1), "frame": Out(frame_signature(plan)),
                          "buffer": Out(buffer_signature(plan)), "dropped": Out(16),
                          "uart_errors": Out(16)})

    def elaborate(self, platform):
        m = Module()
        max_frame, frame, byte = self._max_frame, self.frame, self.rx.payload
        m.submodules.buffer = buffer = Memory(shape=unsigned(8), depth=max_frame, init=[])
        write, read = buffer.write_port(), buffer.read_port(transparent_for=())
        m.d.comb += [read.addr.eq(self.buffer.addr), read.en.eq(self.buffer.en),
                     self.buffer.data.eq(read.data)]
        m.submodules.crc = crc = crc16_processor()
        hunt, esc, too_long, bad_esc = Signal(), Signal(), Signal(), Signal()
        length = Signal(range(max_frame + 1))
        store, store_byte = Signal(), Signal(8)
        with m.If(self.uart_error):
            m.d.sync += self.uart_errors.eq(self.uart_errors + 1)
        restart = [length.eq(0), esc.eq(0), too_long.eq(0), bad_esc.eq(0)]
        with m.If(self.rx.valid):
            with m.If(~self.idle):
                with m.If(~hunt):
                    m.d.sync += self.dropped.eq(self.dropped + 1)
                m.d.sync += hunt.eq(1)
            with m.Elif(hunt):
                with m.If(byte == END):
                    m.d.sync += [hunt.eq(0), *restart]
                    m.d.comb += crc.start.eq(1)
            with m.Elif(byte == END):
                with m.If((length != 0) | bad_esc | too_long):
                    m.d.comb += frame.closed.eq(1)
                    m.d.sync += [frame.length.eq(length),
                                 frame.bad.eq(bad_esc | too_long | (length < 4)),
                                 frame.crc_ok.eq(crc.match_detected)]
                m.d.sync += restart
                m.d.comb += crc.start.eq(1)
            with m.Elif(esc):
                m.d.sync += esc.eq(0)
                with m.If((byte == ESC_END) | (byte == ESC_ESC)):
                    m.d.comb += [store.eq(1), store_byte.eq(Mux(byte == ESC_END, END, ESC))]
                with m.Else():
                    m.d.sync += bad_esc.eq(1)
            with m.Elif(byte == ESC):
                m.d.sync += esc.eq(1)
            with m.Else():
                m.d.comb += [store.eq(1), store_byte.eq(byte)]
        with m.If(store):
            with m.If(length < max_frame):
                m.d.comb += [write.en.eq(1), write.addr.eq(length), write.data.eq(store_byte),
                             crc.valid.eq(1), crc.data.eq(store_byte)]
                m.d.sync += length.eq(length + 1)
            with m.Else():
                m.d.sync += too_long.eq(1)
        return m


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
