"""The host driver over the simulated board top (fhe_hw.link.host, fhe_hw.link.HostLinkTop): the
full path host → UART bits → unit → UART bits → host, results against the golden models."""

import random

import pytest
from amaranth import Module, unsigned
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out
from helpers import SEED

from fhe_hw.arith import BarrettReducer, SpecialReducer
from fhe_hw.component import Component
from fhe_hw.link import HostLinkTop
from fhe_hw.link.host import Host, LinkError, SimTransport, rebuild_unit, run_vectors
from fhe_hw.link.protocol import Status, crc16, slip_encode
from fhe_hw.model import reduce as R
from fhe_hw.sim.vectors import vectors_for
from fhe_hw.units import get_unit


def _top(unit, name, params, depth=32, **kw):
    return HostLinkTop(unit, name, params, clk_hz=4e6, baud=1e6, depth=depth, **kw)


@pytest.fixture(scope="module")
def barrett_uart():
    """A Barrett reducer behind the link, driven through the UART pins."""
    top = _top(BarrettReducer("general32"), "barrett-reducer", {"modulus": "general32"})
    return Host(SimTransport(top, level="uart"))


def test_identify_describes_unit_parameters_and_memories(barrett_uart):
    desc = barrett_uart.identify()
    assert (desc["unit"], desc["params"], desc["latency"]) == \
        ("barrett-reducer", {"modulus": "general32"}, BarrettReducer("general32").latency)
    assert desc["mems"] == [
        {"id": 0, "port": "i", "dir": "in", "bits": 64, "depth": 32},
        {"id": 1, "port": "o", "dir": "out", "bits": 32, "depth": 32}]


def test_reducer_results_over_uart_bits_equal_the_golden_model(barrett_uart):
    lines = []
    assert run_vectors(barrett_uart, count=20, seed=SEED, out=lines.append) == 0
    # the cycles from the first input to the last output: 27 beats plus the unit's latency
    latency = BarrettReducer("general32").latency
    assert f"27 of 27 results match the golden model; {27 + latency} cycles" in lines[-1]


def test_status_counts_cycles_from_first_input_to_last_output(barrett_uart):
    unit = BarrettReducer("general32")
    xs = [random.Random(SEED).getrandbits(64) for _ in range(10)]
    got, status = barrett_uart.run_payloads(unit, {"i": xs}, {"o": 10})
    assert got["o"] == [R.barrett_reduce(x, unit.constants) for x in xs]
    latency = get_unit("barrett-reducer").latency({"modulus": "general32"})
    assert (status["cycles"], status["fed"], status["count"]) == (10 + latency, 10, 10)


def test_write_then_read_returns_the_words_of_an_odd_width_memory():
    unit = SpecialReducer(33)   # 66-bit input words: 9 bytes with 6 spare bits
    top = _top(unit, "special-reducer", {"modulus_bits": 33}, depth=8)
    host = Host(SimTransport(top, level="byte"))
    words = [(1 << 66) - 1, 0, 1 << 65, 12345]
    host.write("i", 2, words)
    assert host.read("i", 2, 4) == words


def test_writes_longer_than_a_frame_are_split_and_reassembled():
    top = _top(BarrettReducer("general32"), "barrett-reducer", {}, depth=64, max_frame=32)
    host = Host(SimTransport(top, level="byte"))
    words = list(range(1000, 1064))
    host.write("i", 0, words)   # (32 - 9) // 8 = 2 words per frame
    assert host.read(0, 0, 64) == words


def test_out_of_range_read_raises_link_error_with_bad_address():
    host = Host(SimTransport(_top(BarrettReducer("general32"), "barrett-reducer", {}, depth=8),
                             level="byte"))
    with pytest.raises(LinkError, match="READ failed: BAD_ADDRESS") as e:
        host.read("o", 6, 3)
    assert e.value.status == Status.BAD_ADDRESS


class _Corrupting:
    """A transport that corrupts the first ``n`` requests (one payload byte flipped)."""

    def __init__(self, inner, n):
        self.inner, self.n = inner, n
        self.default_timeout = inner.default_timeout

    def write(self, data):
        data = bytearray(data)
        if self.n:
            self.n -= 1
            data[2] ^= 0x01 if data[2] not in (0xC1, 0xDA, 0xDC) else 0x04
        self.inner.write(bytes(data))

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_host_resends_a_request_the_device_rejected_as_bad_crc():
    inner = SimTransport(_top(BarrettReducer("general32"), "barrett-reducer", {}), level="byte")
    host = Host(_Corrupting(inner, 2), retries=2)
    assert host.identify()["unit"] == "barrett-reducer"
    assert host.status()["bad_crc"] == 2


def test_host_gives_up_after_its_retries_when_nothing_answers():
    class Silent:
        default_timeout = 0.01
        now = 0.0

        def write(self, data):
            pass

        def read(self, timeout):
            Silent.now += timeout
            return b""

        def clock(self):
            return Silent.now

    with pytest.raises(LinkError, match="IDENTIFY failed after 2 tries: no response"):
        Host(Silent(), retries=1).identify()


class _Stuck(Component):
    """Takes no input and gives no output: a run never finishes feeding."""

    def __init__(self):
        super().__init__({"i": In(stream.Signature(unsigned(8))),
                          "o": Out(stream.Signature(unsigned(8)))})

    def elaborate(self, platform):
        return Module()


def test_a_stuck_unit_makes_writes_busy_until_reset_and_never_hangs_the_link():
    host = Host(SimTransport(_top(_Stuck(), "stuck", {}, depth=4), level="byte"))
    host.write("i", 0, [1, 2, 3])
    host.start(3)
    status = host.status()
    assert (status["flags"] & 1, status["fed"]) == (1, 0)
    for call in (lambda: host.write("i", 0, [9]), lambda: host.start(1),
                 lambda: host.read("i", 0, 1)):
        with pytest.raises(LinkError, match="BUSY"):
            call()
    assert host.read("o", 0, 4) == [0, 0, 0, 0]   # results stay readable
    host.reset()
    host.write("i", 0, [7])
    assert host.read("i", 0, 3) == [7, 2, 3]


def test_rebuild_unit_builds_the_described_unit_from_its_parameters():
    unit = rebuild_unit({"unit": "mod-mul", "params": {"modulus": "general32",
                                                       "pipelined": "false"}})
    assert unit.modulus == 0xFFF00001


def test_vectors_for_an_unknown_unit_raises_value_error():
    with pytest.raises(ValueError, match="unit must have test vectors"):
        vectors_for("no-such-unit")


def test_device_answers_a_frame_sent_without_a_leading_end():
    host = Host(SimTransport(_top(BarrettReducer("general32"), "barrett-reducer", {}),
                             level="byte"))
    body = bytes([7, 0x05])
    host.transport.write(slip_encode(body + crc16(body).to_bytes(2, "big"))[1:])
    data = host.transport.read(host.transport.default_timeout)
    assert data[1:4] == bytes([7, 0x05, Status.OK])


@pytest.mark.parametrize("unit_name,params", [
    ("shenoy-kumaresan", {"n": 16, "source_limbs": 2, "target_limbs": 2, "lanes": 2}),
])
def test_base_extension_through_the_board_top_equals_the_golden_model(unit_name, params):
    """At the byte level (the UART's bits are simulated with the reducer above): a cycle of
    this top costs the more, the larger its unit."""
    unit = get_unit(unit_name).build(**params)
    host = Host(SimTransport(_top(unit, unit_name, params, depth=64), level="byte"))
    lines = []
    assert run_vectors(host, seed=SEED, out=lines.append) == 0, lines
    assert f"{unit.output_beats} of {unit.output_beats} results match" in lines[-1]
    assert f"; {get_unit(unit_name).cycles(params)} cycles first input to last output" \
        in lines[-1]


# The inverse negacyclic engine in the fast suite; 256 points in the slow suite.
@pytest.mark.parametrize("params", [
    pytest.param({"n": 256, "butterflies": 2}, marks=pytest.mark.slow),
    {"n": 16, "butterflies": 2, "negacyclic": True, "inverse": True},
])
def test_streaming_ntt_through_the_link_equals_the_golden_model(params):
    unit = get_unit("ntt").build(**params)
    host = Host(SimTransport(_top(unit, "ntt", params, depth=64), level="byte"))
    lines = []
    assert run_vectors(host, seed=SEED, out=lines.append) == 0, lines
    beats = unit.n // unit.lanes
    assert f"{beats} of {beats} results match" in lines[-1]
    assert f"; {unit.cycles()} cycles first input to last output" in lines[-1]
