"""fhe_hw.stream and the stream driver of fhe_hw.sim.pysim."""

import pytest
from amaranth import Module, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from fhe_hw.component import Component
from fhe_hw.sim.pysim import StreamProtocolError, pack, run_stream, unpack
from fhe_hw.stream import SkidBuffer


@pytest.mark.parametrize("valid_prob,ready_prob", [(1, 1), (0.5, 0.5), (0.9, 0.3), (0.2, 1)])
def test_skid_buffer_passes_every_beat_in_order(valid_prob, ready_prob):
    beats = list(range(200))
    run = run_stream(SkidBuffer(unsigned(8)), {"i": beats}, {"o": len(beats)},
                     valid_prob=valid_prob, ready_prob=ready_prob, seed=7)
    assert run.outputs["o"] == beats


def test_skid_buffer_has_full_throughput():
    run = run_stream(SkidBuffer(unsigned(8)), {"i": list(range(100))}, {"o": 100})
    assert run.cycles == 100 + 1


class _DropsValid(Component):
    """Deliberately broken: offers each beat for one cycle only, ignoring ready."""

    def __init__(self):
        super().__init__({"i": In(stream.Signature(8)), "o": Out(stream.Signature(8))})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.i.ready.eq(1)
        m.d.sync += [self.o.valid.eq(self.i.valid), self.o.payload.eq(self.i.payload)]
        return m


def test_driver_rejects_a_stream_whose_valid_falls_before_the_transfer():
    with pytest.raises(StreamProtocolError, match="valid fell or payload changed"):
        run_stream(_DropsValid(), {"i": list(range(50))}, {"o": 50}, ready_prob=0.3, seed=1)


def test_pack_and_unpack_lanes_and_structs():
    lanes = data.ArrayLayout(16, 4)
    assert unpack(lanes, pack(lanes, [1, 2, 3, 0xFFFF])) == [1, 2, 3, 0xFFFF]
    assert pack(lanes, [1, 0, 0, 2]) == 1 | 2 << 48
    pair = data.StructLayout({"a": 4, "b": 4})
    assert pack(pair, {"a": 1, "b": 2}) == 0x21
    with pytest.raises(ValueError, match="int of 4 bits"):
        pack(pair, {"a": 16, "b": 0})
