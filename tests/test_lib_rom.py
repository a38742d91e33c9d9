"""fhe_hw.lib.rom: a ROM's read ports and the table of named fields, simulated from reset, read
every address (the first and last included) with the documented latency."""

import random

import pytest
from amaranth import Elaboratable, Module, Signal
from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from fhe_hw.lib.rom import Rom, rom_ports


class _Reader(Elaboratable):
    """``build(m, addrs)`` adds the ROM and returns, per port, the values read."""

    def __init__(self, depth, ports, build):
        self.addrs = [Signal(range(depth), name=f"addr{p}") for p in range(ports)]
        self._build = build
        self.outs = None

    def elaborate(self, platform):
        m = Module()
        outs = self._build(m, self.addrs)
        self.outs = [Signal(len(o), name=f"out{k}") for k, o in enumerate(outs)]
        m.d.comb += [s.eq(o) for s, o in zip(self.outs, outs)]
        return m


def _read(depth, ports, build, addresses):
    reader = _Reader(depth, ports, build)
    sim = Simulator(Fragment.get(reader, None))
    sim.add_clock(1e-6)
    seen = []

    async def bench(ctx):
        for t in range(len(addresses[0])):
            for sig, addrs in zip(reader.addrs, addresses):
                ctx.set(sig, addrs[t])
            seen.append([ctx.get(o) for o in reader.outs])
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    return seen


def _addresses(depth, cycles, seed):
    rng = random.Random(seed)
    edge = [0, depth - 1, depth - 1, 0]
    return edge + [rng.randrange(depth) for _ in range(cycles - len(edge))]


def _expected(table, addrs, latency):
    """The word read ``latency`` cycles after its address; 0 before (the read registers'
    reset value)."""
    return [table[addrs[t - latency]] if t >= latency else 0 for t in range(len(addrs))]


@pytest.mark.parametrize("depth,ports", [(1, 1), (5, 1), (16, 2)])
def test_rom_ports_read_each_word_a_cycle_later(depth, ports):
    width = 10
    words = [(1 << width) - 1, 0] + [random.Random(depth).randrange(1 << width)
                                     for _ in range(depth - 2)]
    words = words[:depth]
    addresses = [_addresses(depth, 30, seed) for seed in range(ports)]
    got = _read(depth, ports, lambda m, addrs: [
        _drive(m, port, addr) for port, addr in zip(rom_ports(m, "rom", width, words,
                                                              read_ports=ports), addrs)],
        addresses)
    for p in range(ports):
        assert [g[p] for g in got] == _expected(words, addresses[p], 1)


def _drive(m, port, addr):
    m.d.comb += port.addr.eq(addr)
    return port.data


def test_rom_ports_refuse_an_empty_table_and_no_port():
    with pytest.raises(ValueError, match="at least one word"):
        rom_ports(Module(), "rom", 8, [])
    with pytest.raises(ValueError, match="read_ports"):
        rom_ports(Module(), "rom", 8, [1], read_ports=0)


@pytest.mark.parametrize("output_reg", [False, True])
def test_rom_of_fields_reads_every_field_with_its_latency(output_reg):
    width, depth = 6, 12
    rng = random.Random(5)
    rows = [{"p": 63, "c": 0}, {"p": 0, "c": 63}] + [
        {"p": rng.randrange(64), "c": rng.randrange(64)} for _ in range(depth - 2)]
    addresses = [_addresses(depth, 30, 1), _addresses(depth, 30, 2)]

    def build(m, addrs):
        rom = Rom(m, "table", rows, width, output_reg=output_reg, read_ports=2)
        first, second = rom.read(addrs[0]), rom.read(addrs[1], port=1)
        return [first["p"], first["c"], second["p"], second["c"]]

    got = _read(depth, 2, build, addresses)
    latency = 2 if output_reg else 1
    assert Rom(Module(), "t", rows, width, output_reg=output_reg).latency == latency
    for k, (port, field) in enumerate([(0, "p"), (0, "c"), (1, "p"), (1, "c")]):
        table = [row[field] for row in rows]
        assert [g[k] for g in got] == _expected(table, addresses[port], latency)


def test_rom_ports_take_the_names_given():
    first, second = rom_ports(Module(), "rom", 8, [1, 2, 3], read_ports=2,
                              port_names=["fetch", "peek"])
    assert (first.addr.name, second.data.name) == ("fetch__addr", "peek__data")
    with pytest.raises(ValueError, match="port_names"):
        rom_ports(Module(), "rom", 8, [1], read_ports=2, port_names=["one"])
