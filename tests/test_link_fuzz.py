"""The host link under malformed input: random, truncated, corrupted and oversized
frames, bad escapes, wrong lengths and addresses, line noise. Every frame the device closes is
answered with the status a Python reference of the protocol predicts, nothing hangs, stored
operands and results stay intact, and the next good transaction works.

The bulk (1,000 items) runs at the byte level (SimTransport level "byte": the LinkCore alone,
one byte per cycle, about 10·divisor times fewer cycles than UART bits); a smaller set (48
items plus UART framing errors and a break) runs through the UART pins of the whole top.
"""

import random

import pytest
from helpers import SEED

from fhe_hw.arith import BarrettReducer
from fhe_hw.link import HostLinkTop
from fhe_hw.link.host import Host, SimTransport
from fhe_hw.link.protocol import (
    END,
    ESC,
    Command,
    SlipDecoder,
    Status,
    crc16,
    decode_response,
    encode_frame,
    word_bytes,
)
from fhe_hw.model import reduce as R

DEPTH, MAX_FRAME = 16, 64
MUTATING = (Command.WRITE, Command.START, Command.RESET)


def _top():
    return HostLinkTop(BarrettReducer("general32"), "barrett-reducer", {"modulus": "general32"},
                       clk_hz=4e6, baud=1e6, depth=DEPTH, max_frame=MAX_FRAME)


def verdict(body, ok, mems):
    """The status the device must answer a received frame with (protocol reference)."""
    if not ok or len(body) > MAX_FRAME or len(body) < 4:
        return Status.BAD_FRAME
    if crc16(body):
        return Status.BAD_CRC
    cmd, args = body[1], body[2:-2]
    n = len(args)
    le = lambda k: args[k] | args[k + 1] << 8  # noqa: E731
    if cmd in (Command.IDENTIFY, Command.STATUS, Command.RESET):
        return Status.OK if n == 0 else Status.BAD_LENGTH
    if cmd == Command.START:
        if n != 2:
            return Status.BAD_LENGTH
        return Status.OK if 1 <= le(0) <= DEPTH else Status.BAD_ADDRESS
    if cmd == Command.READ:
        if n != 5:
            return Status.BAD_LENGTH
        good = args[0] < len(mems) and le(3) >= 1 and le(1) + le(3) <= DEPTH
        return Status.OK if good else Status.BAD_ADDRESS
    if cmd == Command.WRITE:
        if n < 5:
            return Status.BAD_LENGTH
        inputs = [m for m in mems if m["dir"] == "in"]
        if args[0] >= len(inputs):
            return Status.BAD_ADDRESS
        count = le(3)
        if count == 0 or n - 5 != count * word_bytes(inputs[args[0]]["bits"]):
            return Status.BAD_LENGTH
        return Status.OK if le(1) + count <= DEPTH else Status.BAD_ADDRESS
    return Status.UNKNOWN_COMMAND


def _good_body(rng, seq):
    """A well-formed request body (no CRC) that changes nothing on the device."""
    kind = rng.choice(["status", "read", "identify", "write"])
    if kind == "status":
        return bytes([seq, Command.STATUS])
    if kind == "identify":
        return bytes([seq, Command.IDENTIFY])
    if kind == "read":
        addr = rng.randrange(DEPTH)
        return bytes([seq, Command.READ, rng.randrange(2), addr, 0,
                      rng.randint(1, min(4, DEPTH - addr)), 0])
    # a WRITE, only ever sent corrupted or truncated
    count = rng.randint(1, 6)
    return bytes([seq, Command.WRITE, 0, rng.randrange(DEPTH - count), 0, count, 0]) + \
        bytes(rng.getrandbits(8) for _ in range(8 * count))


def _semantic_error(rng, seq):
    """A frame with a good CRC that the device must refuse."""
    case = rng.randrange(8)
    if case == 0:
        return bytes([seq, rng.choice([0, 7, 0x42, 0x80, 0xFF])])
    if case == 1:
        return bytes([seq, Command.STATUS, 1])
    if case == 2:
        return bytes([seq, Command.READ, 0, 0, 0, 1])
    if case == 3:
        return bytes([seq, Command.READ, rng.randint(2, 255), 0, 0, 1, 0])
    if case == 4:
        return bytes([seq, Command.READ, 1, DEPTH - 1, 0, 2, 0])
    if case == 5:  # write into the output memory
        return bytes([seq, Command.WRITE, 1, 0, 0, 1, 0]) + bytes(4)
    if case == 6:  # write past the end
        return bytes([seq, Command.WRITE, 0, DEPTH - 1, 0, 2, 0]) + bytes(16)
    return bytes([seq, Command.WRITE, 0, 0, 0, 2, 0]) + bytes(9)   # count and length differ


def fuzz_items(rng, count):
    """``count`` wire items of mixed kinds (a truncated item is closed by the next one's END)."""
    items = []
    for n in range(count):
        seq = n & 0xFF
        kind = rng.choice(["corrupt", "truncate", "oversize", "escape", "short", "semantic",
                           "noise", "good"])
        body = _good_body(rng, seq)
        frame = bytearray(body + crc16(body).to_bytes(2, "big"))
        if kind == "corrupt":
            k = rng.randrange(len(frame))
            frame[k] ^= rng.randint(1, 255)
            items.append(_stuff(frame))
        elif kind == "truncate":
            wire = encode_frame(body)
            items.append(wire[:rng.randint(1, len(wire) - 2)])
        elif kind == "oversize":
            big = bytes([seq, Command.WRITE, 0, 0, 0, 8, 0]) + bytes(
                rng.getrandbits(8) for _ in range(MAX_FRAME + rng.randint(-8, 8)))
            items.append(encode_frame(big))
        elif kind == "escape":
            wire = bytearray(encode_frame(body))
            k = rng.randint(1, len(wire) - 2)
            wire[k:k] = bytes([ESC, rng.choice([0x00, 0x41, 0xDB, 0xFF])])
            items.append(bytes(wire))
        elif kind == "short":
            items.append(_stuff(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 3)))))
        elif kind == "semantic":
            items.append(encode_frame(_semantic_error(rng, seq)))
        elif kind == "noise":
            items.append(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 40))))
        else:
            items.append(encode_frame(body) if body[1] != Command.WRITE else _stuff(frame[:-1]))
    return items


def _stuff(raw):
    from fhe_hw.link.protocol import slip_encode
    return slip_encode(bytes(raw))


def _segments(item):
    """Split after every END: the device closes a frame there and answers it."""
    out, start = [], 0
    for k, byte in enumerate(item):
        if byte == END:
            out.append(item[start:k + 1])
            start = k + 1
    if start < len(item):
        out.append(item[start:])
    return out


def _send_and_collect(transport, items, mems, bits_between=None):
    """Send the items; wait for the answer wherever the device closes a frame. Returns (the
    statuses expected, the responses received)."""
    model, device = SlipDecoder(), SlipDecoder()
    expected, got = [], []
    for n, item in enumerate(items):
        if bits_between is not None and n % 4 == 3:
            transport.write_bits(bits_between(n))
        for seg in _segments(item):
            transport.write(seg)
            closed = model.feed(seg)
            for body, ok in closed:
                expected.append(verdict(body, ok, mems))
                assert not (expected[-1] == Status.OK and body[1] in MUTATING), \
                    f"item {n} would change the device (seed {SEED})"
            if closed:
                wanted = len(expected)
                while len(got) < wanted:
                    data = transport.read(transport.default_timeout)
                    assert data, f"no response to frame {wanted - 1} (item {n}, seed {SEED})"
                    got += [decode_response(body) for body, _ in device.feed(data)]
    return expected, got


def _prepare(host, rng):
    """Store operands, run them once, return (operands, results)."""
    p = 0xFFF00001  # general32
    operands = [0, 1, p - 1, p, (p - 1) ** 2] + [rng.randrange((p - 1) ** 2)
                                                 for _ in range(DEPTH - 5)]
    results, _ = host.run({"i": operands}, {"o": DEPTH})
    return operands, results["o"]


def _check_intact_and_working(host, operands, results, rng):
    assert host.read("i", 0, DEPTH) == operands, "stored operands changed"
    assert host.read("o", 0, DEPTH) == results, "stored results changed"
    unit = BarrettReducer("general32")
    vectors = [rng.randrange(1 << 64) for _ in range(8)]
    got, status = host.run_payloads(unit, {"i": vectors}, {"o": 8})
    assert got["o"] == [R.barrett_reduce(x, unit.constants) for x in vectors]
    assert status["cycles"] == 8 + unit.latency
    return status


# The fast suite sends a third of the byte-level items and a quarter of the UART ones; the slow
# suite all of them (minutes of pysim).
@pytest.mark.parametrize("level,count", [
    ("byte", 300), ("uart", 12),
    pytest.param("byte", 1000, marks=pytest.mark.slow),
    pytest.param("uart", 48, marks=pytest.mark.slow)])
def test_malformed_frames_are_answered_as_the_protocol_says_and_change_nothing(level, count):
    rng = random.Random(f"{SEED}:fuzz:{level}")
    top = _top()
    transport = SimTransport(top, level=level)
    host = Host(transport)
    mems = host.identify()["mems"]
    operands, results = _prepare(host, rng)
    before = host.status()
    items = fuzz_items(rng, count)
    bits = None
    if level == "uart":
        def bits(n):  # a framing error (stop bit 0) or a 30-bit break, between frames
            return [0] * 10 + [1] * 2 if n % 8 == 3 else [0] * 30 + [1] * 2
    expected, got = _send_and_collect(transport, items, mems, bits)
    assert len(expected) >= count * 3 // 4
    assert [r.status for r in got] == expected, f"seed {SEED}"
    if level == "byte":
        assert set(Status) - {Status.BUSY} <= set(expected), "every error kind was exercised"
    after = host.status()
    assert after["bad_frame"] - before["bad_frame"] == expected.count(Status.BAD_FRAME)
    assert after["bad_crc"] - before["bad_crc"] == expected.count(Status.BAD_CRC)
    assert after["dropped"] == 0
    if level == "uart":
        assert after["uart_errors"] - before["uart_errors"] == count // 4
    _check_intact_and_working(host, operands, results, rng)


def test_bytes_sent_while_a_command_executes_are_dropped_and_counted_not_hung():
    rng = random.Random(f"{SEED}:overrun")
    transport = SimTransport(_top(), level="byte")
    host = Host(transport)
    host.identify()
    operands, results = _prepare(host, rng)
    # Back-to-back frames with no pause: the device drops what arrives while it answers.
    burst = b"".join(encode_frame(bytes([n, Command.IDENTIFY])) for n in range(20))
    transport.write(burst)
    answered = SlipDecoder().feed(transport.read(transport.default_timeout))
    assert 1 <= len(answered) < 20
    status = host.status()
    assert status["dropped"] >= 1
    _check_intact_and_working(host, operands, results, rng)
