"""The FSM controller of [Cao13] §4 Fig. 6(i): one Integer-FFT multiplier and
the memory-streamed accumulation/subtraction module (:class:`~fhe_hw.bigint.wordalu.WordALU`)
share the RAM's three read ports and one write port; "these two primitives share the same
architecture but with different FSM controller logic (i.e., different accumulation and
multiplication schedule procedure)".

Here the schedule is a program computed in Python before any hardware (a
:class:`SequencerProgram`: RAM regions and a list of multiplier / ALU operations) and baked
into a ROM; the controller fetches an operation, issues it to its unit, waits for the unit's
done beat and moves on. The same program gives the memory image the host loads and the exact
cycle count, so they cannot drift apart. An engine's plan (a :class:`SequencerPlan`) holds its
program and the plan of the multiplier that runs it.
"""

from dataclasses import dataclass, field

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..lib.rom import rom_ports
from ..payload import pack
from ..plan import StreamPlan
from .multiplier import IntegerFFTMultiplier, IntegerFFTMultiplierPlan, block_fields_config
from .ram import READ_PORTS, from_words, memory_members, to_words
from .wordalu import ALUOp, WordALU, alu_cycles

__all__ = ["SequencerProgram", "SequencerPlan", "Sequencer", "words_for", "ram_image",
           "region_value", "share_memory_ports", "ProgramROM", "run_program"]


def words_for(bits, d):
    return max(1, -(-bits // d))


@dataclass
class SequencerProgram:
    """RAM regions (name -> (word address, words)) and the operations of one engine run.

    ``ops`` entries are ``("mul", x_addr, x_words, y_addr, y_words, z_addr)`` or
    ``("alu", op, dict(a_addr=..., ...))``. Build with :meth:`region`, :meth:`mul`,
    :meth:`alu`."""

    d: int
    words_per_block: int
    regions: dict = field(default_factory=dict)
    ops: list = field(default_factory=list)
    depth: int = 0

    def region(self, name, words):
        self.regions[name] = (self.depth, words)
        self.depth += words
        return self.depth - words

    def product_words(self, x_words, y_words):
        W = self.words_per_block
        return (-(-x_words // W) - (-y_words // W)) * W

    def mul(self, x_addr, x_words, y_addr, y_words, z_addr):
        self.ops.append(("mul", x_addr, x_words, y_addr, y_words, z_addr))

    def alu(self, op, n, *, dst, a=(0, 0), b=(0, 0), c=(0, 0), shift=0):
        # words at or past n are never read: clip the lengths to n
        self.ops.append(("alu", op, dict(a_addr=a[0], a_len=min(a[1], n), b_addr=b[0],
                                         b_len=min(b[1], n), c_addr=c[0], c_len=min(c[1], n),
                                         dst=dst, n=n, shift=shift)))

    def max_operand_words(self):
        return max([max(op[2], op[4]) for op in self.ops if op[0] == "mul"] + [1])

    def max_alu_words(self):
        return max([op[2]["n"] for op in self.ops if op[0] == "alu"] + [1])


@dataclass(frozen=True)
class SequencerPlan(StreamPlan):
    """Base of the plans of the engines that run a :class:`SequencerProgram` on one
    :class:`~fhe_hw.bigint.IntegerFFTMultiplier` and one
    :class:`~fhe_hw.bigint.wordalu.WordALU`: a subclass declares the multiplier's fields
    (``modulus``, ``n``, ``digit_bits``, ``bus_width``, ``mult_stages``), writes its program in
    ``__post_init__`` and hands it to :meth:`_sequence`.

    Attributes
    ----------
    program : SequencerProgram
        The RAM regions and the operations.
    multiplier : IntegerFFTMultiplierPlan
        The multiplier's plan, its ``max_bits`` the program's longest operand and its
        ``addr_width`` enough for the RAM and a few such operands.
    """

    program: SequencerProgram = field(init=False, repr=False, compare=False)
    multiplier: IntegerFFTMultiplierPlan = field(init=False, repr=False, compare=False)

    def block_config(self):
        """The multiplier's block configuration for the plan's fields (checked), which the
        program is written for."""
        return block_fields_config(self.modulus, self.n, self.digit_bits, self.bus_width)

    def _sequence(self, program):
        """Store ``program`` and the plan of the multiplier that runs it; raises
        ``ValueError``/``TypeError`` for refused parameters."""
        if not program.ops:
            raise ValueError("program must have at least one operation, not 0")
        aw = max(1, (program.depth - 1).bit_length())
        words = program.max_operand_words()
        mul = IntegerFFTMultiplierPlan(self.modulus, self.n, self.digit_bits, self.bus_width,
                                       words * program.d,
                                       addr_width=max(aw, (words * 4).bit_length()),
                                       mult_stages=self.mult_stages)
        WordALU.check(program.d, mul.addr_width, program.max_alu_words())
        self._set(program=program, multiplier=mul)

    def op_cycles(self, op):
        """Cycles of one operation of the program on its unit."""
        if op[0] == "mul":
            return self.multiplier.cycles(op[2], op[4])
        return alu_cycles(op[2]["n"])

    def cycles(self):
        """Exact cycles of one run, start transfer to done transfer inclusive: 2 + Σ (1 +
        cycles of each operation)."""
        return 2 + sum(1 + self.op_cycles(op) for op in self.program.ops)


class Sequencer(Component):
    """Runs the :class:`SequencerProgram` of a :class:`SequencerPlan` on one
    :class:`~fhe_hw.bigint.IntegerFFTMultiplier` and one
    :class:`~fhe_hw.bigint.wordalu.WordALU` ([Cao13] Fig. 6(i)).

    Parameters: ``plan``. Ports: ``i`` — start stream (1-bit payload, ignored); ``o`` — done
    stream (payload: the ALU's last ``ge`` flag); ``rd_x``, ``rd_y``, ``rd_z``, ``wr`` — RAM
    ports. Cycles: :meth:`cycles`, the plan's, exact.
    """

    def __init__(self, plan):
        self.plan = plan
        program = plan.program
        self._mul = IntegerFFTMultiplier(plan.multiplier)
        self._alu = WordALU(program.d, self._mul.addr_width, program.max_alu_words())
        self._entry = data.StructLayout({"is_mul": 1,
                                         "mul": self._mul.i.payload.shape(),
                                         "alu": self._alu.command_layout})
        super().__init__({"i": In(stream.Signature(unsigned(1))),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(self._mul.addr_width, program.d)})

    @property
    def program(self):
        return self.plan.program

    @property
    def multiplier(self):
        return self._mul

    @property
    def latency(self):
        """``None``: a start/done engine, timed by :meth:`cycles`."""
        return self.plan.latency

    def op_cycles(self, op):
        return self.plan.op_cycles(op)

    def cycles(self):
        """Exact cycles of one run, start transfer to done transfer inclusive."""
        return self.plan.cycles()

    def _rom(self):
        words = []
        zero_mul = dict.fromkeys(self._mul.i.payload.shape().members, 0)
        zero_alu = dict.fromkeys(self._alu.command_layout.members, 0)
        for op in self.program.ops:
            if op[0] == "mul":
                words.append(pack(self._entry, {"is_mul": 1, "mul": self._mul.command(*op[1:]),
                                                   "alu": zero_alu}))
            else:
                words.append(pack(self._entry, {"is_mul": 0, "mul": zero_mul,
                                                   "alu": {"op": ALUOp(op[1]).value, **op[2]}}))
        return words

    def elaborate(self, platform):
        m = Module()
        mul, alu = self._mul, self._alu
        m.submodules.mul, m.submodules.alu = mul, alu
        rom = ProgramROM(m, self._entry, self._rom())
        share_memory_ports(m, self, mul, alu)
        m.d.comb += [mul.i.payload.eq(rom.entry.mul), alu.i.payload.eq(rom.entry.alu)]
        run_program(m, self.i, self.o, rom, start=0,
                    units=[(rom.entry.is_mul, mul), (~rom.entry.is_mul, alu)],
                    last=rom.pc == len(self.program.ops) - 1, flag=alu)
        return m


def share_memory_ports(m, ports, *users):
    """Drive the RAM ports of ``ports`` from ``users``, components whose signatures have some
    of ``rd_x``/``rd_y``/``rd_z``/``wr``: each drives an address only while it reads or writes,
    and the read data goes to every user of the port."""
    for name in (*READ_PORTS, "wr"):
        port = getattr(ports, name)
        mine = [getattr(u, name) for u in users if name in u.signature.members]
        en, addr = mine[-1].en, mine[-1].addr
        for u in reversed(mine[:-1]):
            en, addr = en | u.en, Mux(u.en, u.addr, addr)
        m.d.comb += [port.en.eq(en), port.addr.eq(addr)]
        if name == "wr":
            data_out = mine[-1].data
            for u in reversed(mine[:-1]):
                data_out = Mux(u.en, u.data, data_out)
            m.d.comb += port.data.eq(data_out)
        else:
            m.d.comb += [u.data.eq(port.data) for u in mine]


class ProgramROM:
    """The operations of a ROM-programmed engine: a ROM of ``words`` (each a ``layout``), its
    address ``pc`` and the word read, ``entry`` (a view of ``layout``)."""

    def __init__(self, m, layout, words):
        self.port, = rom_ports(m, "rom", layout.size, words, port_names=["port"])
        self.entry = data.View(layout, self.port.data)
        self.pc = Signal(range(len(words)))
        m.d.comb += self.port.addr.eq(self.pc)


def run_program(m, i, o, rom, *, start, units, last, flag):
    """The control loop of a ROM-programmed engine ([Cao13] Fig. 6(i)'s FSM controller): on a
    start beat on ``i``, ``rom.pc`` := ``start``; then per operation FETCH (the ROM read),
    ISSUE (the command to the unit of ``units`` — (condition, unit with ``i``/``o`` streams)
    — whose condition holds), WAIT for that unit's done beat; after the operation for which
    ``last`` holds, a done beat on ``o`` whose payload is the last done payload of unit
    ``flag``. Two cycles per operation besides the unit's own."""
    rom_port, pc = rom.port, rom.pc
    payload = Signal()
    m.d.comb += o.payload.eq(payload)
    with m.FSM():
        with m.State("IDLE"):
            m.d.comb += i.ready.eq(1)
            with m.If(i.valid):
                m.d.sync += pc.eq(start)
                m.next = "FETCH"
        with m.State("FETCH"):
            m.d.comb += rom_port.en.eq(1)
            m.next = "ISSUE"
        with m.State("ISSUE"):
            m.d.comb += rom_port.en.eq(0)
            for cond, unit in units:
                with m.If(cond):
                    m.d.comb += unit.i.valid.eq(1)
            m.next = "WAIT"
        with m.State("WAIT"):
            m.d.comb += [unit.o.ready.eq(1) for _, unit in units]
            m.d.comb += rom_port.en.eq(0)
            finished = 0
            for _, unit in units:
                finished = finished | unit.o.valid
            with m.If(finished):
                with m.If(flag.o.valid):
                    m.d.sync += payload.eq(flag.o.payload)
                with m.If(last):
                    m.next = "DONE"
                with m.Else():
                    m.d.sync += pc.eq(pc + 1)
                    m.next = "FETCH"
        with m.State("DONE"):
            m.d.comb += o.valid.eq(1)
            with m.If(o.ready):
                m.next = "IDLE"


def ram_image(program, values):
    """The RAM words for ``values`` (region name -> non-negative int) laid out by ``program``;
    other words are zero. Raises ``ValueError`` when a value does not fit its region."""
    ram = [0] * program.depth
    for name, value in values.items():
        addr, words = program.regions[name]
        if value < 0 or value >> (words * program.d):
            raise ValueError(f"{name} must fit {words} words of {program.d} bits, not a "
                             f"{value.bit_length()}-bit value")
        ram[addr:addr + words] = to_words(value, program.d, words)
    return ram


def region_value(program, ram, name, words=None):
    """The integer stored in region ``name`` (its first ``words`` words) of ``ram``."""
    addr, size = program.regions[name]
    return from_words(ram[addr:addr + (words or size)], program.d)
