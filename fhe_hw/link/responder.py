"""The link core's responder: sends each response, ``seq cmd status`` and its payload (the
IDENTIFY descriptor, the STATUS fields or memory words), through the SLIP transmitter
(:mod:`fhe_hw.link.core`)."""

from amaranth import Module, Signal, unsigned
from amaranth.hdl import Value
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out, connect, flipped

from ..component import Component
from ..lib.rom import rom_ports
from .plan import Payload, drain_signature, response_signature, status_layout
from .protocol import Status
from .slip import SlipTx

__all__ = ["ResponseTransmitter"]


class ResponseTransmitter(Component):
    """Sends the responses the executor hands over, one at a time.

    Parameters: ``plan`` (:class:`~fhe_hw.link.plan.LinkPlan`; its ``descriptor`` is the
    IDENTIFY payload, held in a ROM). Ports: ``response`` (from the executor), ``fields`` (the
    STATUS fields, :func:`~fhe_hw.link.plan.status_layout`, latched on ``snapshot``),
    ``words`` (the word buffer, for a READ's words), ``tx`` (byte stream out, SLIP frames),
    ``busy`` (Out(1): a response is being sent), ``error`` (Out(1): the last response's status
    is not OK).
    """

    def __init__(self, plan):
        self._descriptor = plan.descriptor
        self._fields = status_layout(plan)
        super().__init__({"response": In(response_signature()), "fields": In(self._fields),
                          "words": Out(drain_signature()),
                          "tx": Out(stream.Signature(unsigned(8))), "busy": Out(1),
                          "error": Out(1)})

    def elaborate(self, platform):
        m = Module()
        response, words, n_rom = self.response, self.words, len(self._descriptor)
        status, payload = Signal(8), Signal(Payload)
        fields = Signal(self._fields.size)          # shifted out a byte at a time
        n_fields = self._fields.size // 8
        field_idx = Signal(range(n_fields))
        rom, = rom_ports(m, "identify_rom", 8, self._descriptor, port_names=["rom_r"])
        rom_idx = Signal(range(n_rom))
        m.submodules.slip = slip = SlipTx()
        connect(m, slip.o, flipped(self.tx))
        send, byte, last = slip.i.valid, slip.i.payload.data, slip.i.payload.last
        sent = send & slip.i.ready
        m.d.comb += [rom.addr.eq(rom_idx), self.error.eq(status != Status.OK)]

        def send_byte(value, is_last=0):
            m.d.comb += [send.eq(1), byte.eq(value), last.eq(is_last)]

        with m.FSM() as fsm:
            with m.State("IDLE"):                  # the executor acts only now
                with m.If(response.snapshot):
                    m.d.sync += fields.eq(Value.cast(self.fields))
                with m.If(response.respond):
                    m.d.sync += [status.eq(response.status), payload.eq(response.payload)]
                    m.next = "SEQ"
            for state, value, after in (("SEQ", response.seq, "CMD"),
                                        ("CMD", response.cmd, "STATUS")):
                with m.State(state):
                    send_byte(value)
                    with m.If(sent):
                        m.next = after
            with m.State("STATUS"):
                send_byte(status, payload == Payload.NONE)
                with m.If(sent):
                    m.d.sync += [rom_idx.eq(0), field_idx.eq(0)]
                    with m.Switch(payload):
                        for kind, state in ((Payload.NONE, "IDLE"),
                                            (Payload.DESCRIPTOR, "ROM_WAIT"),
                                            (Payload.STATUS, "FIELDS"), (Payload.WORDS, "FETCH")):
                            with m.Case(kind):
                                m.next = state
            with m.State("ROM_WAIT"):               # the ROM (block RAM) answers a cycle later
                m.next = "ROM"
            with m.State("ROM"):
                send_byte(rom.data, rom_idx == n_rom - 1)
                with m.If(sent):
                    m.d.sync += rom_idx.eq(rom_idx + 1)
                    with m.If(last):
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "ROM_WAIT"
            with m.State("FIELDS"):
                send_byte(fields[:8], field_idx == n_fields - 1)
                with m.If(sent):
                    m.d.sync += [fields.eq(fields >> 8), field_idx.eq(field_idx + 1)]
                    with m.If(last):
                        m.next = "IDLE"
            with m.State("FETCH"):                  # the memory answers a cycle later
                m.next = "LATCH"
            with m.State("LATCH"):
                m.d.comb += words.latch.eq(1)
                m.next = "WORD"
            with m.State("WORD"):
                send_byte(words.byte, words.word_done & words.last)
                with m.If(sent):
                    m.d.comb += words.take.eq(1)
                    with m.If(last):
                        m.next = "IDLE"
                    with m.Elif(words.word_done):
                        m.next = "FETCH"
        m.d.comb += self.busy.eq(~fsm.ongoing("IDLE"))
        return m
