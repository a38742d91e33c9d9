"""Running :class:`~fhe_hw.encrypt.TransformEncrypt` with its RAM and key memory in pysim or
Verilator: the host writes each instance's inputs into the RAM, starts the key preparation
and then the encryption, and reads the ciphertext back; one simulation runs any number of
instances (keys and messages) one after the other."""

from dataclasses import dataclass

from amaranth import Module, unsigned
from amaranth.lib import memory, stream
from amaranth.lib.wiring import In, Out, connect, flipped

from ..bigint.ram import READ_PORTS, RAMHarness, from_words, memory_members
from ..bigint.sequencer import ram_image
from ..component import Component
from ..sim import cosim
from ..sim.pysim import run_stream
from .program import ram_values
from .unit import ENCRYPTION, KEY_PREPARATION

__all__ = ["WithKeyMemory", "EncryptRun", "host_beats", "run_encryptions"]


class WithKeyMemory(Component):
    """A :class:`~fhe_hw.encrypt.TransformEncrypt` with its key memory (``unit.key_words``
    words of lanes·64 bits), for simulation: the unit's ``i``, ``o`` and RAM ports passed
    through."""

    def __init__(self, unit):
        self._unit = unit
        super().__init__({"i": In(stream.Signature(unsigned(1))),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(len(unit.wr.addr), len(unit.wr.data))})

    def elaborate(self, platform):
        m = Module()
        unit = self._unit
        m.submodules.unit = unit
        m.submodules.keys = keys = memory.Memory(shape=unsigned(len(unit.rd_key.data)),
                                                 depth=unit.key_words, init=[])
        rp, wp = keys.read_port(), keys.write_port()
        m.d.comb += [rp.addr.eq(unit.rd_key.addr), rp.en.eq(unit.rd_key.en),
                     unit.rd_key.data.eq(rp.data), wp.addr.eq(unit.wr_key.addr),
                     wp.en.eq(unit.wr_key.en), wp.data.eq(unit.wr_key.data)]
        connect(m, flipped(self.i), unit.i)
        connect(m, unit.o, flipped(self.o))
        for name in (*READ_PORTS, "wr"):
            connect(m, getattr(unit, name), flipped(getattr(self, name)))
        return m


@dataclass
class EncryptRun:
    ciphertext: int       # region Y after the encryption
    key_cycles: int       # the key preparation, start to done inclusive (counted in hardware)
    cycles: int           # the encryption, likewise
    select: int           # the unit's o payload: the reduction's last select flag


def host_beats(unit, instance):
    """The harness's input beats for ``instance``: host writes of its input regions, then the
    key preparation's and the encryption's starts."""
    prog = unit.program
    values = ram_values(prog, instance)
    ram = ram_image(prog.regions, values)
    beats = []
    for name in values:
        addr, words = prog.region(name)
        beats += [{"command": 0, "write": 1, "addr": a, "data": ram[a]}
                  for a in range(addr, addr + words)]
    start = {"write": 0, "addr": 0, "data": 0}
    return beats + [{"command": KEY_PREPARATION, **start}, {"command": ENCRYPTION, **start}]


def run_encryptions(unit, instances, *, backend="pysim", seed=0, opt="-O1", split=None, jobs=2,
                    unit_name="transform-encrypt"):
    """Key preparation and encryption of each of ``instances`` in one simulation
    (``backend``: "pysim" or "verilator"; ``opt``, ``split``, ``jobs``: the Verilator build's,
    :func:`fhe_hw.sim.cosim.build`). Returns an :class:`EncryptRun` per instance."""
    prog = unit.program
    y_addr, y_words = prog.region("Y")
    harness = RAMHarness(WithKeyMemory(unit), prog.regions.depth, [], (y_addr, y_words),
                         host_writes=True)
    beats = [b for inst in instances for b in host_beats(unit, inst)]
    per = 2 + y_words
    want = {"o": 2 * per * len(instances)}
    if backend == "pysim":
        run = run_stream(harness, {"i": beats}, want, seed=seed, max_cycles=10**7)
    elif backend == "verilator":
        model = cosim.build(harness, unit_name, opt=opt, split=split, jobs=jobs)
        run = model.run({"i": beats}, want, max_cycles=10**10)
    else:
        raise ValueError(f"backend must be 'pysim' or 'verilator', not {backend!r}")
    out = run.outputs["o"]
    runs = []
    for k in range(len(instances)):
        key, enc = out[2 * k * per:(2 * k + 1) * per], out[(2 * k + 1) * per:(2 * k + 2) * per]
        runs.append(EncryptRun(from_words(enc[2:], prog.plan.word_bits), key[0], enc[0],
                               enc[1]))
    return runs
