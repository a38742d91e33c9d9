"""Host link: a framed request/response protocol over a UART between a host and a unit on an
FPGA board. :mod:`.protocol` is the frame format in Python, :mod:`.uart` and
:mod:`.slip` the byte-level gateware, :mod:`.core` the command engine and the board-level top
that the host driver (:mod:`fhe_hw.link.host`) talks to, in simulation or over a serial port;
the engine's parts are in :mod:`.executor`, :mod:`.memories` and :mod:`.responder`, connected
through the signatures of :mod:`.plan`."""

from .core import HostLinkTop, LinkCore, describe, stream_ports
from .protocol import Command, Status
from .slip import SlipTx
from .uart import UartRx, UartTx, uart_divisor

__all__ = ["HostLinkTop", "LinkCore", "describe", "stream_ports", "Command", "Status", "SlipTx",
           "UartRx", "UartTx", "uart_divisor"]
