"""fhe_hw.lib.delay: every delay line, simulated from reset, gives out(t) = in(t - latency) and
its reset value (0) before, for edge values (0, all ones) and random ones."""

import random

import pytest
from amaranth import Elaboratable, EnableInserter, Module, Signal
from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from fhe_hw.lib.delay import REGISTER_DELAY_LIMIT, DelayLine, delay, delay_line, register_delay


class _Harness(Elaboratable):
    """``build(m, ins)`` adds the part under test to the module and returns its outputs;
    ``ins`` are fresh input signals of the given widths."""

    def __init__(self, widths, build):
        self.ins = [Signal(w, name=f"in{k}") for k, w in enumerate(widths)]
        self.enable = Signal(init=1)
        self._build = build
        self.outs = None

    def elaborate(self, platform):
        m = Module()
        inner = Module()
        outs = self._build(inner, self.ins)
        self.outs = [Signal(len(o), name=f"out{k}") for k, o in enumerate(outs)]
        inner.d.comb += [s.eq(o) for s, o in zip(self.outs, outs)]
        m.submodules.part = EnableInserter(self.enable)(inner)
        toggle = Signal()       # a sync domain even for a part without registers
        m.d.sync += toggle.eq(~toggle)
        return m


def _stimulus(width, cycles, seed):
    ones = (1 << width) - 1
    rng = random.Random(seed)
    edge = [ones, 0, ones, ones, 0, 1, ones - 1]
    return edge + [rng.randrange(1 << width) for _ in range(cycles - len(edge))]


def _run(widths, build, stimuli, enables=None):
    """Drive one stimulus list per input of the part ``build`` makes, one value a cycle (with
    the clock ``enables``, default always); return the outputs seen in each cycle before its
    clock edge."""
    harness = _Harness(widths, build)
    fragment = Fragment.get(harness, None)      # elaborated once: the outputs exist
    cycles = len(stimuli[0])
    enables = enables or [1] * cycles
    seen = []
    sim = Simulator(fragment)
    sim.add_clock(1e-6)

    async def bench(ctx):
        for t in range(cycles):
            for sig, values in zip(harness.ins, stimuli):
                ctx.set(sig, values[t])
            ctx.set(harness.enable, enables[t])
            seen.append([ctx.get(o) for o in harness.outs])
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return seen


def _delayed(values, latency, enables=None):
    """out(t) = the input at the latency-th enabled cycle before t (0 from reset)."""
    enables = enables or [1] * len(values)
    out, history = [], []
    for v, en in zip(values, enables):
        out.append(history[-latency] if len(history) >= latency else 0)
        if en:
            history.append(v)
    return out


@pytest.mark.parametrize("count", [0, 1, 3])
def test_register_delay_of_a_value_and_of_a_list(count):
    a, b = _stimulus(8, 40, 1), _stimulus(3, 40, 2)
    got = _run([8, 3], lambda m, ins: [register_delay(m, ins[0], count, "x"),
                                       *register_delay(m, ins, count, "l")], [a, b])
    assert [g[0] for g in got] == (_delayed(a, count) if count else a)
    assert [g[1] for g in got] == [g[0] for g in got]
    assert [g[2] for g in got] == (_delayed(b, count) if count else b)


def test_register_delay_refuses_a_negative_count():
    with pytest.raises(ValueError, match="count"):
        register_delay(Module(), Signal(4), -1, "x")


@pytest.mark.parametrize("cycles", [1, 2, REGISTER_DELAY_LIMIT, REGISTER_DELAY_LIMIT + 1, 9])
def test_delay_line_registers_and_memory_from_reset(cycles):
    """The memory form (beyond REGISTER_DELAY_LIMIT) gives 0, not the memory's contents,
    until its words have gone round."""
    a = _stimulus(12, 60, cycles)
    got = _run([12], lambda m, ins: [delay_line(m, ins[0], cycles, name="line")], [a])
    assert [g[0] for g in got] == _delayed(a, cycles)


@pytest.mark.parametrize("cycles", [3, 7])
def test_delay_line_counts_enabled_cycles(cycles):
    a = _stimulus(5, 80, 3)
    enables = [random.Random(cycles).random() < 0.6 for _ in a]
    got = _run([5], lambda m, ins: [delay_line(m, ins[0], cycles)], [a], enables)
    assert [g[0] for g in got] == _delayed(a, cycles, enables)


def test_delay_line_of_a_list_keeps_the_widths():
    a, b = _stimulus(3, 30, 4), _stimulus(9, 30, 5)
    got = _run([3, 9], lambda m, ins: delay_line(m, list(ins), 6, name="pair"), [a, b])
    assert [g[0] for g in got] == _delayed(a, 6) and [g[1] for g in got] == _delayed(b, 6)


def test_delay_line_of_zero_cycles_is_the_value_itself():
    x = Signal(4)
    assert delay_line(Module(), x, 0) is x
    a = _stimulus(4, 12, 8)

    def build(m, ins):
        m.submodules.line = line = DelayLine(4, 0)
        m.d.comb += line.i.eq(ins[0])
        return [line.o]

    assert [g[0] for g in _run([4], build, [a])] == a


@pytest.mark.parametrize("args", [(0, 3), (4, -1), (True, 3), (4, 2.0)])
def test_delay_line_refuses_bad_parameters(args):
    with pytest.raises((ValueError, TypeError)):
        DelayLine(*args)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_delay_carries_valid_and_riders(n):
    v, a = _stimulus(1, 40, 6), _stimulus(16, 40, 7)

    def build(m, ins):
        valid, riders = delay(m, n, ins[0], a=ins[1])
        return [valid, riders["a"]]

    got = _run([1, 16], build, [v, a])
    assert [g[0] for g in got] == (_delayed(v, n) if n else v)
    assert [g[1] for g in got] == (_delayed(a, n) if n else a)
