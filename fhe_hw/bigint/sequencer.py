"""The FSM controller of [Cao13] §4 Fig. 6(i): one Integer-FFT multiplier and
the memory-streamed accumulation/subtraction module (:class:`~fhe_hw.bigint.wordalu.WordALU`)
share the RAM's three read ports and one write port; "these two primitives share the same
architecture but with different FSM controller logic (i.e., different accumulation and
multiplication schedule procedure)".

Here the schedule is a program computed in Python at elaboration time (a :class:`Plan`: RAM
regions and a list of multiplier / ALU operations) and baked into a ROM; the controller fetches
an operation, issues it to its unit, waits for the unit's done beat and moves on. The same plan
gives the memory image the host loads and the exact cycle count, so they cannot drift apart.
"""

from dataclasses import dataclass, field

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..lib.rom import rom_ports
from ..payload import pack
from .multiplier import IntegerFFTMultiplier
from .ram import READ_PORTS, from_words, memory_members, to_words
from .wordalu import ALUOp, WordALU, alu_cycles

__all__ = ["Plan", "Sequencer", "words_for", "ram_image", "region_value", "share_memory_ports",
           "ProgramROM", "run_program"]


def words_for(bits, d):
    return max(1, -(-bits // d))


@dataclass
class Plan:
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


class Sequencer(Component):
    """Runs a :class:`Plan` on one :class:`~fhe_hw.bigint.IntegerFFTMultiplier` and one
    :class:`~fhe_hw.bigint.wordalu.WordALU` ([Cao13] Fig. 6(i)).

    Parameters: ``plan``; ``modulus``, ``k``, ``b``, ``bus_width``, ``mult_stages`` (the
    multiplier's). Ports: ``i`` — start stream (1-bit payload, ignored); ``o`` — done stream
    (payload: the ALU's last ``ge`` flag); ``rd_x``, ``rd_y``, ``rd_z``, ``wr`` — RAM ports.
    Cycles: :meth:`cycles` = 2 + Σ (1 + cycles of each operation), exact.
    """

    def __init__(self, plan, modulus="solinas64", k=None, b=None, bus_width=None, *,
                 mult_stages=None):
        self._aw, mul_kw, _ = self._check(plan, modulus, k, b, bus_width, mult_stages)
        self._plan = plan
        d = plan.d
        self._mul = IntegerFFTMultiplier(modulus, k, b, bus_width, mult_stages=mult_stages,
                                         **mul_kw)
        self._alu = WordALU(d, self._mul.addr_width, plan.max_alu_words())
        self._entry = data.StructLayout({"is_mul": 1,
                                         "mul": self._mul.i.payload.shape(),
                                         "alu": self._alu.command_layout})
        super().__init__({"i": In(stream.Signature(unsigned(1))),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(self._mul.addr_width, d)})

    @staticmethod
    def _check(plan, modulus, k, b, bus_width, mult_stages):
        """``(RAM address bits, the multiplier's max_bits/addr_width, its plan)``; raises the
        constructor's ``ValueError``/``TypeError`` for refused parameters."""
        if not plan.ops:
            raise ValueError("plan must have at least one operation, not 0")
        aw = max(1, (plan.depth - 1).bit_length())
        mul_kw = {"max_bits": plan.max_operand_words() * plan.d,
                  "addr_width": max(aw, (plan.max_operand_words() * 4).bit_length())}
        mul = IntegerFFTMultiplier._plan(modulus, k, b, bus_width, mul_kw["max_bits"],
                                         mul_kw["addr_width"], mult_stages)
        if mul.cfg.d != plan.d or mul.cfg.words != plan.words_per_block:
            raise ValueError(f"plan must be made for d = {mul.cfg.d}, not {plan.d}")
        WordALU.check(plan.d, mul_kw["addr_width"], plan.max_alu_words())
        return aw, mul_kw, mul

    @staticmethod
    def cycles_of_plan(plan, modulus="solinas64", k=None, b=None, bus_width=None, *,
                       mult_stages=None):
        """:meth:`cycles` of a Sequencer with these parameters without building it."""
        mul = Sequencer._check(plan, modulus, k, b, bus_width, mult_stages)[2]
        return Sequencer._cycles_from(
            plan, lambda x_words, y_words: IntegerFFTMultiplier._cycles_from(mul, x_words,
                                                                             y_words))

    @staticmethod
    def _op_cycles(op, mul_cycles):
        if op[0] == "mul":
            return mul_cycles(op[2], op[4])
        return alu_cycles(op[2]["n"])

    @staticmethod
    def _cycles_from(plan, mul_cycles):
        return 2 + sum(1 + Sequencer._op_cycles(op, mul_cycles) for op in plan.ops)

    @property
    def plan(self):
        return self._plan

    @property
    def multiplier(self):
        return self._mul

    def op_cycles(self, op):
        return self._op_cycles(op, self._mul.cycles)

    def cycles(self):
        """Exact cycles of one run, start transfer to done transfer inclusive."""
        return self._cycles_from(self._plan, self._mul.cycles)

    def _rom(self):
        words = []
        zero_mul = dict.fromkeys(self._mul.i.payload.shape().members, 0)
        zero_alu = dict.fromkeys(self._alu.command_layout.members, 0)
        for op in self._plan.ops:
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
                    last=rom.pc == len(self._plan.ops) - 1, flag=alu)
        return m


def share_memory_ports(m, ports, *users):
    """Drive the RAM ports of ``ports`` from ``users`` (components or port bundles with
    ``rd_x``/``rd_y``/``rd_z``/``wr``, or ``None`` for a port a user lacks): each drives an
    address only while it reads or writes, and the read data goes to every user."""
    for name in (*READ_PORTS, "wr"):
        port = getattr(ports, name)
        mine = [getattr(u, name) for u in users if getattr(u, name, None) is not None]
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


def ram_image(plan, values):
    """The RAM words for ``values`` (region name -> non-negative int) laid out by ``plan``;
    other words are zero. Raises ``ValueError`` when a value does not fit its region."""
    ram = [0] * plan.depth
    for name, value in values.items():
        addr, words = plan.regions[name]
        if value < 0 or value >> (words * plan.d):
            raise ValueError(f"{name} must fit {words} words of {plan.d} bits, not a "
                             f"{value.bit_length()}-bit value")
        ram[addr:addr + words] = to_words(value, plan.d, words)
    return ram


def region_value(plan, ram, name, words=None):
    """The integer stored in region ``name`` (its first ``words`` words) of ``ram``."""
    addr, size = plan.regions[name]
    return from_words(ram[addr:addr + (words or size)], plan.d)
