"""The host-link frame format, in Python: shared by the host driver and the tests, and the single
source of the constants that the gateware (:mod:`fhe_hw.link.core`) uses.

A frame on the wire is SLIP (RFC 1055) byte stuffing: ``END`` (0xC0) opens and closes it, a data
byte ``END`` becomes ``ESC ESC_END`` (0xDB 0xDC) and ``ESC`` becomes ``ESC ESC_ESC`` (0xDB 0xDD).
SLIP was chosen over COBS because both directions stuff and unstuff one byte at a time with no
look-ahead buffer (a COBS encoder must know the distance to the next zero byte before it sends
the first one), which keeps the transmit side of the gateware a small state machine.

Inside the stuffing:

* request  ``seq cmd args... crc_hi crc_lo``
* response ``seq cmd status payload... crc_hi crc_lo``

``crc`` is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, not reflected, no final
XOR) over every byte before it, sent most significant byte first, so the CRC of a whole good
frame is 0. ``seq`` is echoed by the device so the host can pair responses with requests.
Multi-byte integers are little-endian; a memory word of ``bits`` bits takes
``ceil(bits / 8)`` bytes.

Commands (arguments → response payload):

* ``IDENTIFY`` (none → JSON text: unit name, parameters, memories, clock, baud rate)
* ``WRITE`` (mem, addr:2, count:2, words... → none): write ``count`` whole words into an input
  memory (the count is sent so that the device checks the length without a divider)
* ``READ`` (mem, addr:2, count:2 → words): read words of any memory
* ``START`` (count:2 → none): reset the unit, stream words 0..count-1 of every input memory into
  its input streams and collect its output streams into the output memories from address 0
* ``STATUS`` (none → :data:`STATUS_FIELDS`, then one count:2 per output memory)
* ``RESET`` (none → none): reset the unit and stop the run; memories are kept

Error statuses: a frame with a bad escape, shorter than 4 bytes or longer than the device's
``max_frame`` is ``BAD_FRAME``; a wrong CRC is ``BAD_CRC`` (both echo whatever bytes stood in
the seq and cmd places); an unknown command is ``UNKNOWN_COMMAND``; wrong argument lengths are
``BAD_LENGTH``; a memory id or word range outside the device is ``BAD_ADDRESS``; ``WRITE`` of an
input memory, ``START`` and ``READ`` of an input memory while a run feeds the unit are ``BUSY``.
A request that gets an error status changes nothing.
"""

import binascii
import enum
import struct
from dataclasses import dataclass

__all__ = ["END", "ESC", "ESC_END", "ESC_ESC", "Command", "Status", "crc16", "slip_encode",
           "SlipDecoder", "encode_request", "encode_frame", "Response", "decode_response",
           "STATUS_FIELDS", "FLAG_RUNNING", "FLAG_FED", "FLAG_OVERFLOW", "word_bytes",
           "FrameError"]

END, ESC, ESC_END, ESC_ESC = 0xC0, 0xDB, 0xDC, 0xDD
#: CRC-16/CCITT-FALSE's start value.
CRC_INIT = 0xFFFF


class Command(enum.IntEnum):
    IDENTIFY = 0x01
    WRITE = 0x02
    READ = 0x03
    START = 0x04
    STATUS = 0x05
    RESET = 0x06


class Status(enum.IntEnum):
    OK = 0x00
    BAD_FRAME = 0x01
    BAD_CRC = 0x02
    UNKNOWN_COMMAND = 0x03
    BAD_LENGTH = 0x04
    BAD_ADDRESS = 0x05
    BUSY = 0x06


#: STATUS payload before the per-output counts: (name, bytes).
STATUS_FIELDS = (("flags", 1), ("count", 2), ("fed", 2), ("cycles", 4), ("bad_frame", 2),
                 ("bad_crc", 2), ("dropped", 2), ("uart_errors", 2))
FLAG_RUNNING, FLAG_FED, FLAG_OVERFLOW = 1, 2, 4


class FrameError(ValueError):
    """A received frame is malformed (too short or a bad CRC)."""


def word_bytes(bits):
    return (bits + 7) // 8


def crc16(data, crc=CRC_INIT):
    """CRC-16/CCITT-FALSE of ``data`` (``binascii.crc_hqx``: polynomial 0x1021, MSB first)."""
    return binascii.crc_hqx(bytes(data), crc)


def slip_encode(body):
    """``END`` + ``body`` stuffed + ``END``."""
    out = bytearray([END])
    for byte in body:
        if byte == END:
            out += bytes([ESC, ESC_END])
        elif byte == ESC:
            out += bytes([ESC, ESC_ESC])
        else:
            out.append(byte)
    out.append(END)
    return bytes(out)


def encode_frame(body):
    """A whole frame on the wire: ``body`` with its CRC appended, stuffed."""
    return slip_encode(bytes(body) + crc16(body).to_bytes(2, "big"))


def encode_request(seq, cmd, args=b""):
    return encode_frame(bytes([seq & 0xFF, int(cmd)]) + bytes(args))


class SlipDecoder:
    """Feed it bytes, get back whole unstuffed frames (empty frames are skipped). A bad escape
    sequence marks the frame; :meth:`feed` returns ``(body, ok)`` pairs."""

    def __init__(self):
        self._buf, self._esc, self._bad = bytearray(), False, False

    def feed(self, data):
        frames = []
        for byte in data:
            if byte == END:
                if self._buf or self._bad:
                    frames.append((bytes(self._buf), not self._bad))
                self._buf, self._esc, self._bad = bytearray(), False, False
            elif self._esc:
                self._esc = False
                if byte in (ESC_END, ESC_ESC):
                    self._buf.append(END if byte == ESC_END else ESC)
                else:
                    self._bad = True
            elif byte == ESC:
                self._esc = True
            else:
                self._buf.append(byte)
        return frames


@dataclass(frozen=True)
class Response:
    seq: int
    cmd: int
    status: Status
    payload: bytes

    def fields(self, layout=STATUS_FIELDS):
        """Decode a STATUS payload: dict of :data:`STATUS_FIELDS` plus ``outputs`` (list)."""
        out, pos = {}, 0
        for name, size in layout:
            out[name] = int.from_bytes(self.payload[pos:pos + size], "little")
            pos += size
        out["outputs"] = [v for (v,) in struct.iter_unpack("<H", self.payload[pos:])]
        return out


def decode_response(body):
    """A :class:`Response` from an unstuffed frame body; :class:`FrameError` if it is shorter
    than 5 bytes or its CRC is wrong."""
    if len(body) < 5:
        raise FrameError(f"response must have at least 5 bytes, not {len(body)}")
    if crc16(body) != 0:
        raise FrameError(f"response CRC must check, frame {body.hex()}")
    try:
        status = Status(body[2])
    except ValueError:
        raise FrameError(f"response status must be known, not {body[2]:#x}") from None
    return Response(body[0], body[1], status, bytes(body[3:-2]))
