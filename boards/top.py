"""The shared board top: a unit behind the UART host link, on a board's pins."""

from amaranth import Elaboratable, Module
from amaranth.lib import io

from fhe_hw.link import HostLinkTop

__all__ = ["BoardTop"]


class BoardTop(Elaboratable):
    """``unit`` behind :class:`~fhe_hw.link.HostLinkTop` on ``platform``'s ``uart`` 0 at
    ``baud``, clocked by the board's default clock; LED 0 lights while a run feeds the unit,
    LED 1 after an error response.

    Parameters: ``unit`` (Component), ``unit_name`` and ``params`` (for IDENTIFY), ``clk_hz``
    (the board clock), ``baud``, ``depth`` (words per operand/result memory), ``max_frame``."""

    def __init__(self, unit, unit_name, params=None, *, clk_hz, baud=115200, depth=256,
                 max_frame=512):
        self.link = HostLinkTop(unit, unit_name, params, clk_hz=clk_hz, baud=baud, depth=depth,
                                max_frame=max_frame)

    def elaborate(self, platform):
        m = Module()
        m.submodules.link = link = self.link
        uart = platform.request("uart", 0, dir="-")
        m.submodules.rx_buffer = rx = io.Buffer("i", uart.rx)
        m.submodules.tx_buffer = tx = io.Buffer("o", uart.tx)
        m.d.comb += [link.rx.eq(rx.i), tx.o.eq(link.tx)]
        for n, signal in enumerate((link.busy, link.error)):
            try:
                led = platform.request("led", n, dir="-")
            except Exception:  # a board with fewer LEDs: the signal stays internal
                break
            m.submodules[f"led_{n}"] = buffer = io.Buffer("o", led)
            m.d.comb += buffer.o.eq(signal)
        return m
