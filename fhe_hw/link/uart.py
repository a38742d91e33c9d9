"""8N1 UART receiver and transmitter for the host link (no flow control).

The bit period is ``divisor`` clock cycles (``round(clk_hz / baud)``); at 115200 baud that is 217
cycles on the ULX3S's 25 MHz clock. The receiver synchronises the pin with two flip-flops,
checks the start bit half a period after its falling edge and samples each data bit in the
middle of its period; a stop bit that reads 0 is a framing error (the byte is dropped, ``error``
pulses, and the receiver waits for the line to return high before it looks for the next start
bit), so noise or a break never leaves it stuck.
"""

from amaranth import Cat, Module, Signal, unsigned
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..params import require_int

__all__ = ["UartRx", "UartTx", "uart_divisor"]


def uart_divisor(clk_hz, baud):
    """Clock cycles per bit; ``ValueError`` if below 4 or more than 3% off the baud rate."""
    divisor = round(clk_hz / baud)
    if divisor < 4:
        raise ValueError(f"clock / baud must be at least 4, not {clk_hz / baud:g}")
    if abs(clk_hz / divisor - baud) / baud > 0.03:
        raise ValueError(f"baud rate must be within 3% of clock / divisor, not {baud} "
                         f"({clk_hz / divisor:g} with divisor {divisor})")
    return divisor


def _check_divisor(divisor):
    require_int("divisor", divisor)
    if divisor < 4:
        raise ValueError(f"divisor must be at least 4, not {divisor}")


class UartRx(Component):
    """Receiver. Parameters: ``divisor`` (cycles per bit, at least 4). Ports: ``rx`` (In(1), the
    pin, idle high), ``o`` (always-ready byte stream: a received byte is valid for one cycle and
    is lost if nobody takes it), ``error`` (Out(1): pulses on a framing error)."""

    def __init__(self, divisor):
        _check_divisor(divisor)
        self._divisor = divisor
        super().__init__({"rx": In(1, init=1),
                          "o": Out(stream.Signature(unsigned(8), always_ready=True)),
                          "error": Out(1)})

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        sync = Signal(2, init=0b11)
        m.d.sync += sync.eq(Cat(self.rx, sync[0]))
        line = sync[1]
        timer = Signal(range(self._divisor))
        bit = Signal(range(8))
        shift = Signal(8)
        m.d.comb += self.o.payload.eq(shift)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~line):
                    m.d.sync += timer.eq(self._divisor // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    m.d.sync += [timer.eq(self._divisor - 1), bit.eq(0)]
                    # a start bit that is gone half a period later was a glitch
                    with m.If(line):
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "DATA"
            with m.State("DATA"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    m.d.sync += [timer.eq(self._divisor - 1), shift.eq(Cat(shift[1:], line)),
                                 bit.eq(bit + 1)]
                    with m.If(bit == 7):
                        m.next = "STOP"
            with m.State("STOP"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    with m.If(line):
                        m.d.comb += self.o.valid.eq(1)
                        m.next = "IDLE"
                    with m.Else():
                        m.d.comb += self.error.eq(1)
                        m.next = "BREAK"
            with m.State("BREAK"):
                with m.If(line):
                    m.next = "IDLE"
        return m


class UartTx(Component):
    """Transmitter. Parameters: ``divisor``. Ports: ``i`` (byte stream; ready while idle),
    ``tx`` (Out(1, init=1), the pin)."""

    def __init__(self, divisor):
        _check_divisor(divisor)
        self._divisor = divisor
        super().__init__({"i": In(stream.Signature(unsigned(8))), "tx": Out(1, init=1)})

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        timer = Signal(range(self._divisor))
        bits = Signal(range(11))          # bits left to send, start and stop included
        shift = Signal(10, init=0x3FF)
        m.d.comb += [self.tx.eq(shift[0]), self.i.ready.eq(bits == 0)]
        with m.If(bits == 0):
            with m.If(self.i.valid):
                m.d.sync += [shift.eq(Cat(0, self.i.payload, 1)), bits.eq(10),
                             timer.eq(self._divisor - 1)]
        with m.Else():
            m.d.sync += timer.eq(timer - 1)
            with m.If(timer == 0):
                m.d.sync += [timer.eq(self._divisor - 1), bits.eq(bits - 1),
                             shift.eq(Cat(shift[1:], 1))]
        return m
