"""fhe_hw.lib.stream and the stream driver of fhe_hw.sim.pysim."""

import random

import pytest
from amaranth import Module, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from fhe_hw.component import Component
from fhe_hw.lib.stream import CreditQueue, GroupedQueue, SkidBuffer, credit_room
from fhe_hw.sim.pysim import StreamProtocolError, pack, run_stream, unpack


@pytest.mark.parametrize("valid_prob,ready_prob", [(1, 1), (0.5, 0.5), (0.9, 0.3), (0.2, 1)])
def test_skid_buffer_passes_every_beat_in_order(valid_prob, ready_prob):
    beats = list(range(200))
    run = run_stream(SkidBuffer(unsigned(8)), {"i": beats}, {"o": len(beats)},
                     valid_prob=valid_prob, ready_prob=ready_prob, seed=7)
    assert run.outputs["o"] == beats


def test_skid_buffer_has_full_throughput():
    run = run_stream(SkidBuffer(unsigned(8)), {"i": list(range(100))}, {"o": 100})
    assert run.cycles == 100 + 1


@pytest.mark.parametrize("spread", [1, 3])
@pytest.mark.parametrize("valid_prob,ready_prob", [(1, 1), (0.5, 0.5), (0.9, 0.3)])
def test_spread_skid_buffer_passes_every_beat_in_order(spread, valid_prob, ready_prob):
    beats = list(range(200))
    run = run_stream(SkidBuffer(unsigned(8), spread=spread), {"i": beats}, {"o": len(beats)},
                     valid_prob=valid_prob, ready_prob=ready_prob, seed=spread)
    assert run.outputs["o"] == beats
    if valid_prob == ready_prob == 1:
        assert run.cycles == 100 * 2 + 1


def test_spread_skid_buffers_ready_copies_are_its_ready_every_cycle():
    """Every copy of the slot's state is ``i.ready`` in every cycle, under random valid and
    ready, and the slot does fill (ready falls) and empty."""
    dut = SkidBuffer(unsigned(8), spread=4)
    rng = random.Random(11)
    readies = []

    async def bench(ctx):
        for cycle in range(300):
            ctx.set(dut.i.valid, rng.random() < 0.7)
            ctx.set(dut.i.payload, cycle & 0xFF)
            ctx.set(dut.o.ready, rng.random() < 0.4)
            ready = ctx.get(dut.i.ready)
            assert ctx.get(dut.ready_copies) == (0b1111 if ready else 0), cycle
            readies.append(ready)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert 0 < sum(readies) < len(readies)


def test_skid_buffer_refuses_a_spread_below_one():
    with pytest.raises(ValueError, match="spread"):
        SkidBuffer(unsigned(8), spread=0)


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


def _run_credit_queue(depth, n, valid_prob, ready_prob, seed, dut=None):
    """Write n beats into a CreditQueue (or ``dut``, a GroupedQueue of 16 bits) under a writer
    that counts credits (beats written minus beats taken at o, or read into a GroupedQueue's
    buffer, at most depth); return (beats seen at o, cycle of each write, cycle of each output
    transfer)."""
    dut = CreditQueue(unsigned(16), depth) if dut is None else dut
    rng = random.Random(seed)
    seen, written, taken = [], [], []

    async def bench(ctx):
        cycle, sent, freed = 0, 0, 0
        while len(seen) < n:
            assert cycle < 20 * n + 50, "the queue stopped delivering"
            write = sent < n and sent - freed < depth and rng.random() < valid_prob
            ready = rng.random() < ready_prob
            ctx.set(dut.i.valid, write)
            ctx.set(dut.i.payload, (sent * 7919 + 13) & 0xFFFF)
            ctx.set(dut.o.ready, ready)
            if ctx.get(dut.o.valid) and ready:
                seen.append(ctx.get(dut.o.payload))
                taken.append(cycle)
            if write:
                written.append(cycle)
                sent += 1
            freed = ctx.get(dut.read) + freed if isinstance(dut, GroupedQueue) else len(seen)
            await ctx.tick()
            cycle += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen, written, taken


@pytest.mark.parametrize("depth", [2, 3, 5, 17])
@pytest.mark.parametrize("valid_prob,ready_prob", [(1, 1), (1, 0.3), (0.5, 0.5), (0.3, 1)])
def test_credit_queue_delivers_every_beat_in_order_at_full_credit(depth, valid_prob,
                                                                   ready_prob):
    seen, _, _ = _run_credit_queue(depth, 150, valid_prob, ready_prob, seed=depth)
    assert seen == [(x * 7919 + 13) & 0xFFFF for x in range(150)]


@pytest.mark.parametrize("depth", [3, 5])  # LATENCY + 1 credits cover the round trip
def test_credit_queue_passes_a_beat_per_cycle_two_cycles_after_its_write(depth):
    seen, written, taken = _run_credit_queue(depth, 60, 1, 1, seed=0)
    assert written == list(range(60))
    assert taken == [w + CreditQueue.LATENCY for w in written]


def test_credit_queue_refuses_a_depth_below_two():
    with pytest.raises(ValueError, match="depth"):
        CreditQueue(unsigned(8), 1)
    with pytest.raises(TypeError, match="depth"):
        CreditQueue(unsigned(8), 2.0)


def test_credit_queue_in_distributed_ram_asks_the_tools_for_luts():
    from amaranth.back import rtlil

    def storage_attrs(queue):
        text = rtlil.convert(queue, ports=[queue.i.valid, queue.i.payload, queue.o.valid,
                                           queue.o.ready, queue.o.payload])
        return [line.strip() for line in text.splitlines() if "ram_style" in line]
    assert storage_attrs(CreditQueue(unsigned(8), 4, distributed=True)) == \
        ['attribute \\ram_style "distributed"']
    assert storage_attrs(CreditQueue(unsigned(8), 4)) == []
    with pytest.raises(TypeError, match="distributed must be a bool"):
        CreditQueue(unsigned(8), 4, distributed=1)


@pytest.mark.parametrize("widths", [(16,), (5, 11), (1, 7, 8)])
@pytest.mark.parametrize("valid_prob,ready_prob", [(1, 1), (1, 0.3), (0.5, 0.5), (0.3, 1)])
def test_grouped_queue_delivers_every_beat_whole_and_in_order(widths, valid_prob, ready_prob):
    """Each group holds its own bits of a beat; under random valid and ready the groups stay
    in lockstep, so every beat leaves whole (a group ahead or behind would mix two beats)."""
    seen, _, _ = _run_credit_queue(4, 150, valid_prob, ready_prob, seed=len(widths),
                                   dut=GroupedQueue(widths, 4))
    assert seen == [(x * 7919 + 13) & 0xFFFF for x in range(150)]


def test_grouped_queue_passes_a_beat_per_cycle_three_cycles_after_its_write():
    seen, written, taken = _run_credit_queue(5, 60, 1, 1, seed=0,
                                             dut=GroupedQueue((8, 8), 5, distributed=True))
    assert written == list(range(60))
    assert taken == [w + GroupedQueue.LATENCY for w in written] and GroupedQueue.LATENCY == 3


def test_grouped_queue_refuses_bad_groups_depth_and_distributed():
    with pytest.raises(ValueError, match="at least one group"):
        GroupedQueue((), 4)
    with pytest.raises(ValueError, match="widths must be at least 1"):
        GroupedQueue((8, 0), 4)
    with pytest.raises(TypeError, match="widths must be an integer"):
        GroupedQueue((8, 2.0), 4)
    with pytest.raises(ValueError, match="depth"):
        GroupedQueue((8,), 1)
    with pytest.raises(TypeError, match="distributed must be a bool"):
        GroupedQueue((8,), 4, distributed=1)


class _Credit(Component):
    """credit_room alone: ``room`` for a queue of ``depth`` beats, ``issue`` and ``taken`` in."""

    def __init__(self, depth, late):
        self._depth, self._late = depth, late
        super().__init__({"issue": In(1), "taken": In(1), "room": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.room.eq(credit_room(m, self.issue, self.taken, self._depth,
                                             late=self._late))
        return m


@pytest.mark.parametrize("late", [True, False])
@pytest.mark.parametrize("depth", [1, 2, 5])
def test_credit_room_is_the_count_below_the_depth_every_cycle(depth, late):
    """Random issues (only with room) and takes (only of beats issued and not yet taken):
    ``room`` equals count < depth in every cycle, the count being the beats issued minus those
    taken before the previous cycle (``late``: a take counts a cycle late) or before this one,
    and it reaches the depth."""
    dut, rng = _Credit(depth, late), random.Random(depth)
    counts = []

    async def bench(ctx):
        count = held = last_taken = 0
        for _ in range(400):
            assert ctx.get(dut.room) == (count < depth)
            issue = count < depth and rng.random() < 0.7
            taken = held > 0 and rng.random() < 0.4
            ctx.set(dut.issue, issue)
            ctx.set(dut.taken, taken)
            await ctx.tick()
            count += issue - (last_taken if late else taken)
            held += issue - taken
            last_taken = taken
            counts.append(count)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert max(counts) == depth
