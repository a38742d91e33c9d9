"""CMNT and CNT encryption on number-theoretic transforms: the schedule of
:mod:`fhe_hw.model.transform_encrypt` in hardware.

The unit runs one of two programs (:mod:`fhe_hw.encrypt.program`) per start beat:

* **key preparation** (payload 0), once per public key: the forward spectra of every key
  integer's blocks, of K and of the reduction's μ, stored into the key memory;
* **encryption** (payload 1): the sum T = Σ X_i·Y_i accumulated in the transform domain
  (CMNT's X_i = S_i from the S stage, CNT's X_i = b_i from the RAM), x = E + 2T, and the
  super-size Barrett reduction ([Cao13] §4) with its two products x_high·μ and σ̂·K on the same
  engines; the ciphertext is left in RAM region ``Y``.

A sequencer fetches the operations from a ROM, as :class:`~fhe_hw.bigint.sequencer.Sequencer`
does, and issues each to the :class:`~fhe_hw.encrypt.sums.SumEngine` or to the
:class:`~fhe_hw.bigint.wordalu.WordALU`.
"""

from dataclasses import dataclass, field

from amaranth import Module, Mux, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import mult_stages_param, tiled_param
from ..bigint import parse_group
from ..bigint.ram import memory_members, read_port_signature, write_port_signature
from ..bigint.sequencer import ProgramROM, run_program, share_memory_ports
from ..bigint.wordalu import ALUOp, WordALU
from ..component import Component
from ..model.bigint import EncryptionSizes, group_sizes
from ..model.large_int import MAX_N
from ..model.transform_encrypt import SCHEMES, plan
from ..ntt import StreamingFourStepNTTPlan
from ..ntt.four_step_stream import FourStepEnginesPlan
from ..params import require_int, require_power_of_two
from ..payload import pack
from ..plan import param
from .program import build_program
from .sums import SumEngine
from .timing import EngineTiming, program_cycles, spacings

__all__ = ["TransformEncrypt", "TransformEncryptPlan", "KEY_PREPARATION", "ENCRYPTION"]

KEY_PREPARATION, ENCRYPTION = 0, 1


@dataclass(frozen=True)
class TransformEncryptPlan(FourStepEnginesPlan):
    """The parameters of :class:`TransformEncrypt` and what they derive.

    Parameters
    ----------
    scheme : str
        ``cmnt`` or ``cnt``.
    group : str or EncryptionSizes
        A group name of [Cao14] Table 1 / [Cao13] Table 2, or
        :class:`~fhe_hw.model.bigint.EncryptionSizes` for scaled-down tests (default ``toy``).
    lanes : int
        Digits per word and samples per transform beat, a power of two up to ``inner_n``
        (default 16, the paper's rate).
    inner_n : int
        The engines' inner shift-only unit size, a power of two from 2 to 64 (default 64); n is
        chosen from inner_n² to ``max_n``.
    inner_units : int
        The engines' inner units: 1 or 2 (default 2).
    max_n : int or None
        The largest transform (default min(65536, 64·inner_n²)).
    mult_stages : int or None
        The ModMuls' (default None: their fast setting).
    tiled : bool
        The ModMuls' (default True).

    Attributes
    ----------
    program : fhe_hw.encrypt.program.Program
        The two programs and the RAM layout.
    forward, engine
        As :class:`~fhe_hw.ntt.four_step_stream.FourStepEnginesPlan`.
    inverse : fhe_hw.ntt.StreamingFourStepNTTPlan
        The inverse engine's plan.
    timing : fhe_hw.encrypt.timing.EngineTiming
        The engines' timing constants.
    encrypt_plan : fhe_hw.model.transform_encrypt.EncryptPlan
        ``program.plan``: the scheme's sizes, the digit width and n.
    latency : None
        A start/done engine: :meth:`cycles` counts a program.
    """

    scheme: str = param("cmnt", help="cmnt or cnt")
    group: object = param("toy", help="toy/small/medium/large or coeff,noise,key,count "
                          "(default 12,20,200,2, a scaled-down group, quicker to generate; the "
                          "class's default is the paper's toy group, which needs --inner-n 64)",
                          parse=parse_group, cli_default=EncryptionSizes(12, 20, 200, 2))
    lanes: int = param(16, help="digits per word and beat, a power of two up to inner-n "
                       "(default 2; the class's default is the paper's rate, 16)",
                       cli_default=2, kw_only=True)
    inner_n: int = param(64, help="the engines' inner shift unit size, a power of two 2..64 "
                         "(default 4: 16-point transforms; the class's default: 64)",
                         range=(2, 64), cli_default=4, kw_only=True)
    inner_units: int = param(2, help="the engines' inner units: 1 or 2", range=(1, 2),
                             kw_only=True)
    max_n: int | None = param(None, help="the largest transform (default "
                              "min(65536, 64*inner_n^2))", kw_only=True)
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    program: object = field(init=False, repr=False, compare=False)
    inverse: StreamingFourStepNTTPlan = field(init=False, repr=False, compare=False)
    timing: object = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {self.scheme!r}")
        if not isinstance(self.group, (str, EncryptionSizes)):
            raise TypeError(f"group must be a group name or EncryptionSizes, not "
                            f"{self.group!r}")
        m = require_power_of_two("inner_n", self.inner_n, minimum=2, maximum=64)
        require_int("lanes", self.lanes, minimum=1, maximum=m)
        top = min(MAX_N, 64 * m * m)
        max_n = top if self.max_n is None else require_int("max_n", self.max_n, minimum=m * m,
                                                           maximum=top)
        p = plan(self.scheme, group_sizes(self.scheme, self.group), lanes=self.lanes,
                 min_n=min(max(m * m, 4 * self.lanes), max_n), max_n=max_n)
        forward, inverse = self._set_forward(p.n), self.engine_plan(p.n, inverse=True)
        self._set(program=build_program(p), inverse=inverse,
                  timing=EngineTiming.of(forward, inverse))

    @property
    def encrypt_plan(self):
        return self.program.plan

    def cycles(self, program=ENCRYPTION):
        """Cycles of one run of ``program`` (:data:`KEY_PREPARATION` or :data:`ENCRYPTION`),
        start transfer to done transfer inclusive (:mod:`fhe_hw.encrypt.timing`)."""
        return program_cycles(self.program, self.timing, _ops(self.program, program))

    def cycles_per_program(self):
        """{:data:`KEY_PREPARATION`: cycles, :data:`ENCRYPTION`: cycles}."""
        return {which: self.cycles(which) for which in (KEY_PREPARATION, ENCRYPTION)}


class TransformEncrypt(Component):
    """CMNT ([Cao14] eq. 1) or CNT ([Cao13] eq. 2) encryption with every large product through
    2^64 - 2^32 + 1 transforms ([Wang13] §III-A) and the sums accumulated in the transform
    domain.

    Ports: ``i`` — start stream, payload 1 bit (:data:`KEY_PREPARATION` or
    :data:`ENCRYPTION`); ``o`` — done stream (payload: the reduction's select flag); ``rd_x``,
    ``rd_y``, ``rd_z``, ``wr`` — the RAM (:mod:`fhe_hw.bigint.ram`) of lanes·d-bit words laid
    out by :attr:`program`; ``rd_key``, ``wr_key`` — the key memory, one spectrum beat
    (lanes·64 bits) per word, :attr:`key_words` words, read data a cycle after the address.

    Cycles: :meth:`cycles` (``KEY_PREPARATION`` or ``ENCRYPTION``) from the start transfer to
    the done transfer, both included, exact (:mod:`fhe_hw.encrypt.timing`).

    Parameters
    ----------
    plan : TransformEncryptPlan
        Or the arguments of one (``TransformEncrypt("cnt", group, lanes=2, inner_n=4)``).
    """

    def __init__(self, *args, **kw):
        self.plan = p = TransformEncryptPlan.coerce(*args, **kw)
        prog = p.program
        aw = max(1, (prog.regions.depth - 1).bit_length())
        self._sums = SumEngine(prog, addr_width=aw, spacings=spacings(prog, p.timing),
                               inverse_spacing=p.timing.spacing_inverse, inner_n=p.inner_n,
                               inner_units=p.inner_units, mult_stages=p.mult_stages,
                               tiled=p.tiled)
        W = prog.plan.word_bits
        self._alu = WordALU(W, aw, prog.max_alu_words())
        self._entry = data.StructLayout({"end": 1, "is_sum": 1,
                                         "sum": self._sums.command_layout,
                                         "alu": self._alu.command_layout})
        key = self._sums.rd_key
        super().__init__({"i": In(stream.Signature(unsigned(1))),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(aw, W),
                          "rd_key": Out(read_port_signature(len(key.addr), len(key.data))),
                          "wr_key": Out(write_port_signature(len(key.addr), len(key.data)))})

    def cycles(self, program=ENCRYPTION):
        """Cycles of one run of ``program`` (:data:`KEY_PREPARATION` or :data:`ENCRYPTION`),
        start transfer to done transfer inclusive."""
        return self.plan.cycles(program)

    program = property(lambda self: self.plan.program)
    timing = property(lambda self: self.plan.timing)
    sum_engine = property(lambda self: self._sums)
    latency = property(lambda self: self.plan.latency)

    @property
    def key_words(self):
        """Words of the key memory: one per spectrum beat."""
        return len(self.program.spectra) * self.timing.beats

    def _rom(self):
        zero_sum = dict.fromkeys(self._sums.command_layout.members, 0)
        zero_alu = dict.fromkeys(self._alu.command_layout.members, 0)
        commands = self._sums.commands()
        words = []
        ops = self.program.ops
        for k, op in enumerate(ops):
            end = int(k == self.program.key_ops - 1 or k == len(ops) - 1)
            if op[0] == "sum":
                entry = {"end": end, "is_sum": 1, "sum": commands[op[1]], "alu": zero_alu}
            else:
                entry = {"end": end, "is_sum": 0, "sum": zero_sum,
                         "alu": {"op": ALUOp(op[1]).value, **op[2]}}
            words.append(pack(self._entry, entry))
        return words

    def elaborate(self, platform):
        m = Module()
        sums, alu = self._sums, self._alu
        m.submodules.sums, m.submodules.alu = sums, alu
        rom = ProgramROM(m, self._entry, self._rom())
        entry = rom.entry

        # RAM: the ALU's three read ports; the sum engine's S stage on rd_x, feeder on rd_y
        share_memory_ports(m, self, alu, sums)
        for name in ("rd_key", "wr_key"):
            mine, theirs = getattr(self, name), getattr(sums, name)
            m.d.comb += [mine.addr.eq(theirs.addr), mine.en.eq(theirs.en)]
        m.d.comb += [self.wr_key.data.eq(sums.wr_key.data), sums.rd_key.data.eq(self.rd_key.data)]
        m.d.comb += [sums.i.payload.eq(entry.sum), alu.i.payload.eq(entry.alu)]

        run_program(m, self.i, self.o, rom,
                    start=Mux(self.i.payload[0], self.program.key_ops, 0),
                    units=[(entry.is_sum, sums), (~entry.is_sum, alu)], last=entry.end, flag=alu)
        return m


def _ops(program, which):
    require_int("program", which, minimum=KEY_PREPARATION, maximum=ENCRYPTION)
    return program.ops[:program.key_ops] if which == KEY_PREPARATION else program.encrypt_ops
