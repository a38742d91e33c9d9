"""UART receiver/transmitter and the SLIP transmitter of the host link (gateware)."""

import pytest
from amaranth import Module
from amaranth.sim import Simulator

from fhe_hw.link import SlipTx, UartRx, UartTx, uart_divisor
from fhe_hw.link.protocol import crc16, slip_encode


def _loopback(payload, divisor=5, bits=None):
    """Send ``payload`` through UartTx → UartRx (plus raw ``bits`` on the line first); return
    (received bytes, framing errors)."""
    m = Module()
    m.submodules.tx = tx = UartTx(divisor)
    m.submodules.rx = rx = UartRx(divisor)
    line = tx.tx
    got, errors = [], []
    if bits is None:
        m.d.comb += rx.rx.eq(line)
    sim = Simulator(m)
    sim.add_clock(1e-6)

    async def send(ctx):
        for byte in payload:
            ctx.set(tx.i.payload, byte)
            ctx.set(tx.i.valid, 1)
            await ctx.tick().until(tx.i.ready)
        ctx.set(tx.i.valid, 0)

    async def inject(ctx):
        for level in bits:
            ctx.set(rx.rx, level)
            await ctx.tick().repeat(divisor)
        ctx.set(rx.rx, 1)

    async def receive(ctx):
        while True:
            await ctx.tick()
            if ctx.get(rx.o.valid):
                got.append(ctx.get(rx.o.payload))
            if ctx.get(rx.error):
                errors.append(1)

    sim.add_testbench(inject if bits is not None else send)
    sim.add_testbench(receive, background=True)
    sim.run_until(1e-6 * divisor * 10 * (len(payload) + len(bits or ()) + 4))
    return got, len(errors)


def test_uart_loopback_carries_every_byte_value_pattern():
    payload = [0x00, 0xFF, 0x55, 0xAA, 0xC0, 0xDB, 0x01, 0x80]
    assert _loopback(payload) == (payload, 0)


def test_uart_receiver_reports_a_missing_stop_bit_and_recovers():
    # start, 8 zero bits, stop bit 0 (a break), idle, then a good 0x5A
    good = [0] + [(0x5A >> n) & 1 for n in range(8)] + [1]
    got, errors = _loopback([], bits=[0] * 10 + [1, 1] + good)
    assert (got, errors) == ([0x5A], 1)


def test_uart_receiver_ignores_a_glitch_shorter_than_half_a_bit():
    got, errors = _loopback([], divisor=8, bits=[1, 1])  # no start bit at all
    assert (got, errors) == ([], 0)


def test_uart_divisor_rounds_clock_over_baud():
    assert uart_divisor(25e6, 115200) == 217


def test_uart_divisor_below_four_raises_value_error():
    with pytest.raises(ValueError, match="clock / baud must be at least 4"):
        uart_divisor(12e6, 4e6)


def test_uart_divisor_too_far_from_the_baud_rate_raises_value_error():
    with pytest.raises(ValueError, match="baud rate must be within 3%"):
        uart_divisor(1e6, 180000)  # 1e6/6 = 166.7k, 7% off


def test_uart_tx_divisor_below_four_raises_value_error():
    with pytest.raises(ValueError, match="divisor must be at least 4, not 3"):
        UartTx(3)


def test_slip_tx_frames_bytes_with_stuffing_and_crc():
    frames = [bytes([1, 0xC0, 2]), bytes([0xDB]), bytes(range(0xBE, 0xDE))]
    dut = SlipTx()
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    out = bytearray()

    async def feed(ctx):
        for frame in frames:
            for n, byte in enumerate(frame):
                ctx.set(dut.i.payload, {"data": byte, "last": n == len(frame) - 1})
                ctx.set(dut.i.valid, 1)
                await ctx.tick().until(dut.i.ready)
            ctx.set(dut.i.valid, 0)

    async def drain(ctx):
        flip = 0
        while True:
            flip ^= 1          # ready every other cycle: payload must hold
            ctx.set(dut.o.ready, flip)
            valid, payload = ctx.get(dut.o.valid), ctx.get(dut.o.payload)
            await ctx.tick()
            if valid and flip:
                out.append(payload)

    sim.add_testbench(feed)
    sim.add_testbench(drain, background=True)
    sim.run_until(1e-6 * 400)
    assert bytes(out) == b"".join(slip_encode(f + crc16(f).to_bytes(2, "big")) for f in frames)
