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

from amaranth import Module, Mux, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..bigint.ram import memory_members, read_port_signature, write_port_signature
from ..bigint.sequencer import ProgramROM, run_program, share_memory_ports
from ..bigint.wordalu import ALUOp, WordALU
from ..component import Component
from ..model.bigint import EncryptionSizes, group_sizes
from ..model.large_int import MAX_N
from ..model.transform_encrypt import SCHEMES, plan
from ..ntt import StreamingFourStepNTTPlan
from ..params import require_int, require_power_of_two
from ..payload import pack
from .program import build_program
from .sums import SumEngine
from .timing import EngineTiming, program_cycles, spacings

__all__ = ["TransformEncrypt", "KEY_PREPARATION", "ENCRYPTION", "cycles_per_program"]

KEY_PREPARATION, ENCRYPTION = 0, 1


class TransformEncrypt(Component):
    """CMNT ([Cao14] eq. 1) or CNT ([Cao13] eq. 2) encryption with every large product through
    2^64 - 2^32 + 1 transforms ([Wang13] §III-A) and the sums accumulated in the transform
    domain.

    Parameters: ``scheme`` ("cmnt" or "cnt"); ``group`` (a group name of [Cao14] Table 1 /
    [Cao13] Table 2, or :class:`~fhe_hw.model.bigint.EncryptionSizes` for scaled-down tests);
    ``lanes`` (digits per word and samples per transform beat, a power of two up to m); the
    engines' ``m`` (2 to 64; n is chosen from m² to ``max_n``, default min(65536, 64·m²)),
    ``m_units``, ``mult_stages``, ``tiled``. The digit width and n come from
    :func:`fhe_hw.model.transform_encrypt.plan` (:attr:`plan`). ``TypeError``/``ValueError``
    for anything else, before hardware is built.

    Ports: ``i`` — start stream, payload 1 bit (:data:`KEY_PREPARATION` or
    :data:`ENCRYPTION`); ``o`` — done stream (payload: the reduction's select flag); ``rd_x``,
    ``rd_y``, ``rd_z``, ``wr`` — the RAM (:mod:`fhe_hw.bigint.ram`) of lanes·d-bit words laid
    out by :attr:`program`; ``key_rd``, ``key_wr`` — the key memory, one spectrum beat
    (lanes·64 bits) per word, :attr:`key_words` words, read data a cycle after the address.

    Cycles: :meth:`cycles` (``KEY_PREPARATION`` or ``ENCRYPTION``) from the start transfer to
    the done transfer, both included, exact (:mod:`fhe_hw.encrypt.timing`).
    """

    def __init__(self, scheme="cmnt", group="toy", *, lanes=16, m=64, m_units=2, max_n=None,
                 mult_stages=None, tiled=True):
        self._program, self._timing = self.check(
            scheme, group, lanes=lanes, m=m, m_units=m_units, max_n=max_n,
            mult_stages=mult_stages, tiled=tiled)
        prog = self._program
        aw = max(1, (prog.regions.depth - 1).bit_length())
        self._sums = SumEngine(prog, addr_width=aw, spacings=spacings(prog, self._timing),
                               inverse_spacing=self._timing.spacing_inverse, m=m,
                               m_units=m_units, mult_stages=mult_stages, tiled=tiled)
        W = prog.plan.word_bits
        self._alu = WordALU(W, aw, prog.max_alu_words())
        self._entry = data.StructLayout({"end": 1, "is_sum": 1,
                                         "sum": self._sums.command_layout,
                                         "alu": self._alu.command_layout})
        key = self._sums.key_rd
        super().__init__({"i": In(stream.Signature(unsigned(1))),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(aw, W),
                          "key_rd": Out(read_port_signature(len(key.addr), len(key.data))),
                          "key_wr": Out(write_port_signature(len(key.addr), len(key.data)))})

    @staticmethod
    def check(scheme="cmnt", group="toy", *, lanes=16, m=64, m_units=2, max_n=None,
              mult_stages=None, tiled=True):
        """Validate the parameters without building hardware; return (the
        :class:`~fhe_hw.encrypt.program.Program`, the
        :class:`~fhe_hw.encrypt.timing.EngineTiming`)."""
        if scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
        if not isinstance(group, (str, EncryptionSizes)):
            raise TypeError(f"group must be a group name or EncryptionSizes, not {group!r}")
        # m and m_units, checked here under this unit's own names (the engines' are inner_n
        # and inner_units)
        require_power_of_two("m", m, minimum=2, maximum=64)
        require_int("m_units", m_units, minimum=1, maximum=2)
        require_int("lanes", lanes, minimum=1, maximum=m)
        top = min(MAX_N, 64 * m * m)
        max_n = top if max_n is None else require_int("max_n", max_n, minimum=m * m, maximum=top)
        p = plan(scheme, group_sizes(scheme, group), lanes=lanes,
                 min_n=min(max(m * m, 4 * lanes), max_n), max_n=max_n)
        StreamingFourStepNTTPlan(p.n, lanes=lanes, inner_n=m, inner_units=m_units,
                                 mult_stages=mult_stages, tiled=tiled)
        return build_program(p), EngineTiming.of(p.n, lanes, m, m_units, mult_stages, tiled)

    @classmethod
    def latency_of(cls, scheme="cmnt", group="toy", **params):
        """``None``: a start/done engine, timed by :meth:`cycles_of`. Raises what the
        constructor raises for refused parameters, without building hardware."""
        cls.check(scheme, group, **params)

    @classmethod
    def cycles_of(cls, scheme="cmnt", group="toy", *, program=ENCRYPTION, **params):
        """:meth:`cycles` without building the unit."""
        prog, timing = cls.check(scheme, group, **params)
        return program_cycles(prog, timing, _ops(prog, program))

    @classmethod
    def cycles_per_program_of(cls, scheme="cmnt", group="toy", **params):
        """{:data:`KEY_PREPARATION`: cycles, :data:`ENCRYPTION`: cycles}: :meth:`cycles_of` of
        both programs from one parameter check."""
        return cycles_per_program(*cls.check(scheme, group, **params))

    def cycles(self, program=ENCRYPTION):
        """Cycles of one run of ``program`` (:data:`KEY_PREPARATION` or :data:`ENCRYPTION`),
        start transfer to done transfer inclusive."""
        return program_cycles(self._program, self._timing, _ops(self._program, program))

    program = property(lambda self: self._program)
    plan = property(lambda self: self._program.plan)
    timing = property(lambda self: self._timing)
    sum_engine = property(lambda self: self._sums)

    @property
    def key_words(self):
        """Words of the key memory: one per spectrum beat."""
        return len(self._program.spectra) * self._timing.beats

    def _rom(self):
        zero_sum = dict.fromkeys(self._sums.command_layout.members, 0)
        zero_alu = dict.fromkeys(self._alu.command_layout.members, 0)
        commands = self._sums.commands()
        words = []
        ops = self._program.ops
        for k, op in enumerate(ops):
            end = int(k == self._program.key_ops - 1 or k == len(ops) - 1)
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
        for name in ("key_rd", "key_wr"):
            mine, theirs = getattr(self, name), getattr(sums, name)
            m.d.comb += [mine.addr.eq(theirs.addr), mine.en.eq(theirs.en)]
        m.d.comb += [self.key_wr.data.eq(sums.key_wr.data), sums.key_rd.data.eq(self.key_rd.data)]
        m.d.comb += [sums.i.payload.eq(entry.sum), alu.i.payload.eq(entry.alu)]

        run_program(m, self.i, self.o, rom,
                    start=Mux(self.i.payload[0], self._program.key_ops, 0),
                    units=[(entry.is_sum, sums), (~entry.is_sum, alu)], last=entry.end, flag=alu)
        return m


def cycles_per_program(program, timing):
    """{:data:`KEY_PREPARATION`: cycles, :data:`ENCRYPTION`: cycles} of a checked
    (``program``, ``timing``) pair (:meth:`TransformEncrypt.check`)."""
    return {which: program_cycles(program, timing, _ops(program, which))
            for which in (KEY_PREPARATION, ENCRYPTION)}


def _ops(program, which):
    require_int("program", which, minimum=KEY_PREPARATION, maximum=ENCRYPTION)
    return program.ops[:program.key_ops] if which == KEY_PREPARATION else program.encrypt_ops
