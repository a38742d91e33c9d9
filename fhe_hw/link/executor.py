"""The link core's controller: the request checker, which judges a received frame and its
arguments, and the command executor, which reads each frame's header, acts on the checker's
verdict and hands the response to the responder (:mod:`fhe_hw.link.core`)."""

from amaranth import Cat, Module, Signal
from amaranth.lib.wiring import In, Out

from ..component import Component
from .plan import (
    HEADER,
    WRITE_DATA,
    Action,
    Payload,
    access_layout,
    buffer_signature,
    fill_signature,
    frame_signature,
    response_signature,
    run_signature,
)
from .protocol import Command, Status

__all__ = ["RequestChecker", "CommandExecutor"]


class RequestChecker(Component):
    """The verdict on a request, combinationally: its response status and payload, the action
    it asks for (only a request that gets ``OK`` asks for one) and its decoded arguments.

    Parameters: ``plan`` (:class:`~fhe_hw.link.plan.LinkPlan`). Ports in: ``header`` (the
    frame's first :data:`~fhe_hw.link.plan.HEADER` bytes, the first in the low bits),
    ``length`` (argument bytes), ``bad`` and ``crc_ok`` (the receiver's judgement),
    ``feeding`` (a run feeds the unit). Ports out: ``status``, ``payload``
    (:class:`~fhe_hw.link.plan.Payload`), ``action`` (:class:`~fhe_hw.link.plan.Action`),
    ``access`` (a READ's or WRITE's memory, address, count and word bytes), ``count`` (a
    START's words).
    """

    def __init__(self, plan):
        self._plan = plan
        super().__init__({"header": In(8 * HEADER), "length": In(range(plan.max_frame + 1)),
                          "bad": In(1), "crc_ok": In(1), "feeding": In(1),
                          "status": Out(8), "payload": Out(Payload), "action": Out(Action),
                          "access": Out(access_layout(plan)), "count": Out(16)})

    def elaborate(self, platform):
        m = Module()
        plan, length = self._plan, self.length
        arg = [self.header[8 * k:8 * k + 8] for k in range(2, HEADER)]
        mem, addr, count = arg[0], Cat(arg[1], arg[2]), Cat(arg[3], arg[4])
        n_in, depth = len(plan.inputs), plan.depth
        m.d.comb += [self.access.mem.eq(mem), self.access.addr.eq(addr),
                     self.access.count.eq(count), self.count.eq(Cat(arg[0], arg[1]))]
        with m.Switch(mem):
            for n, wb in enumerate(plan.word_bytes):
                with m.Case(n):
                    m.d.comb += self.access.word_bytes.eq(wb)

        def verdict(status, action=Action.NONE, payload=Payload.NONE):
            m.d.comb += [self.status.eq(status), self.action.eq(action),
                         self.payload.eq(payload)]

        def no_arguments(action=Action.NONE, payload=Payload.NONE):
            with m.If(length != 0):
                verdict(Status.BAD_LENGTH)
            with m.Else():
                verdict(Status.OK, action, payload)

        with m.If(self.bad):
            verdict(Status.BAD_FRAME, Action.BAD_FRAME)
        with m.Elif(~self.crc_ok):
            verdict(Status.BAD_CRC, Action.BAD_CRC)
        with m.Else():
            with m.Switch(self.header[8:16]):
                with m.Case(Command.IDENTIFY):
                    no_arguments(payload=Payload.DESCRIPTOR)
                with m.Case(Command.STATUS):
                    no_arguments(Action.STATUS, Payload.STATUS)
                with m.Case(Command.RESET):
                    no_arguments(Action.RESET)
                with m.Case(Command.START):
                    with m.If(length != 2):
                        verdict(Status.BAD_LENGTH)
                    with m.Elif((self.count == 0) | (self.count > depth)):
                        verdict(Status.BAD_ADDRESS)
                    with m.Elif(self.feeding):
                        verdict(Status.BUSY)
                    with m.Else():
                        verdict(Status.OK, Action.START)
                with m.Case(Command.READ):
                    with m.If(length != 5):
                        verdict(Status.BAD_LENGTH)
                    with m.Elif((mem >= len(plan.mems)) | (count == 0) | (addr + count > depth)):
                        verdict(Status.BAD_ADDRESS)
                    with m.Elif(self.feeding & (mem < n_in)):
                        verdict(Status.BUSY)
                    with m.Else():
                        verdict(Status.OK, Action.READ, Payload.WORDS)
                with m.Case(Command.WRITE):
                    with m.If(length < 5):
                        verdict(Status.BAD_LENGTH)
                    with m.Elif(mem >= n_in):
                        verdict(Status.BAD_ADDRESS)
                    with m.Else():
                        self._check_write(m, verdict, mem, addr, count)
                with m.Default():
                    verdict(Status.UNKNOWN_COMMAND)
        return m

    def _check_write(self, m, verdict, mem, addr, count):
        """The verdict on a WRITE of ``count`` words into input memory ``mem`` (whose word
        bytes are a constant in each case, so the length check needs no multiplier)."""
        data_len = self.length - 5
        with m.Switch(mem):
            for n in range(len(self._plan.inputs)):
                with m.Case(n):
                    with m.If((count == 0) | (data_len != count * self._plan.word_bytes[n])):
                        verdict(Status.BAD_LENGTH)
                    with m.Elif(addr + count > self._plan.depth):
                        verdict(Status.BAD_ADDRESS)
                    with m.Elif(self.feeding):
                        verdict(Status.BUSY)
                    with m.Else():
                        verdict(Status.OK, Action.WRITE)


class CommandExecutor(Component):
    """Reads a received frame's header from the frame buffer, acts on the
    :class:`RequestChecker`'s verdict, writes a WRITE's words through the word buffer, and
    hands every response to the responder.

    Parameters: ``plan`` (:class:`~fhe_hw.link.plan.LinkPlan`). Ports: ``frame`` and
    ``buffer`` (from the receiver), ``idle`` (Out(1): waiting for a frame), ``feeding``
    (In(1): a run feeds the unit), ``run`` (start and stop), ``words`` (the word buffer),
    ``response`` (to the responder), ``bad_frame`` and ``bad_crc`` (Out(16) counters).
    """

    def __init__(self, plan):
        self._plan = plan
        super().__init__({"frame": In(frame_signature(plan)), "buffer": In(buffer_signature(plan)),
                          "idle": Out(1), "feeding": In(1), "run": Out(run_signature()),
                          "words": Out(fill_signature(plan)),
                          "response": Out(response_signature()),
                          "bad_frame": Out(16), "bad_crc": Out(16)})

    def elaborate(self, platform):
        m = Module()
        max_frame, frame, words, response = self._plan.max_frame, self.frame, self.words, \
            self.response
        m.submodules.check = check = RequestChecker(self._plan)
        header, index = Signal(8 * HEADER), Signal(range(HEADER))
        ptr = Signal(range(max_frame + 1))          # the frame buffer's read address
        length = Signal(range(max_frame + 1))       # argument bytes
        m.d.comb += [self.buffer.addr.eq(ptr), check.header.eq(header), check.length.eq(length),
                     check.bad.eq(frame.bad), check.crc_ok.eq(frame.crc_ok),
                     check.feeding.eq(self.feeding), response.seq.eq(header[0:8]),
                     response.cmd.eq(header[8:16]), self.run.count.eq(check.count),
                     words.access.eq(check.access), words.byte.eq(self.buffer.data)]

        def respond(status, payload):
            m.d.comb += [response.respond.eq(1), response.status.eq(status),
                         response.payload.eq(payload)]
            m.next = "IDLE"

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.idle.eq(1)
                with m.If(frame.closed):
                    m.d.sync += ptr.eq(0)
                    m.next = "PRIME"
            with m.State("PRIME"):
                m.d.sync += [ptr.eq(1), index.eq(0), length.eq(frame.length - 4)]
                m.next = "HEADER"
            with m.State("HEADER"):
                m.d.sync += [header.word_select(index, 8).eq(self.buffer.data), ptr.eq(ptr + 1),
                             index.eq(index + 1)]
                with m.If(index == HEADER - 1):
                    m.next = "CHECK"
            with m.State("CHECK"):
                with m.Switch(check.action):
                    with m.Case(Action.BAD_FRAME):
                        m.d.sync += self.bad_frame.eq(self.bad_frame + 1)
                    with m.Case(Action.BAD_CRC):
                        m.d.sync += self.bad_crc.eq(self.bad_crc + 1)
                    with m.Case(Action.STATUS):
                        m.d.comb += response.snapshot.eq(1)
                    with m.Case(Action.RESET):
                        m.d.comb += self.run.stop.eq(1)
                    with m.Case(Action.START):
                        m.d.comb += self.run.start.eq(1)
                    with m.Case(Action.READ, Action.WRITE):
                        m.d.comb += words.load.eq(1)
                with m.If(check.action == Action.WRITE):
                    m.d.sync += ptr.eq(WRITE_DATA)
                    m.next = "W_READ"
                with m.Else():
                    respond(check.status, check.payload)
            with m.State("W_READ"):                 # the buffer answers a cycle later
                m.next = "W_BYTE"
            with m.State("W_BYTE"):
                m.d.comb += words.put.eq(1)
                m.d.sync += ptr.eq(ptr + 1)
                with m.If(words.word_done):
                    m.next = "W_COMMIT"
                with m.Else():
                    m.next = "W_READ"
            with m.State("W_COMMIT"):
                m.d.comb += words.commit.eq(1)
                with m.If(words.last):
                    respond(Status.OK, Payload.NONE)
                with m.Else():
                    m.next = "W_READ"
        return m
