"""The super-size Integer-FFT block multiplier: [Cao13] §3.1 (shared RAM, FSM,
schoolbook scheduling of block products, Steps 1–3), §3.2 (radix-2 fully parallel FFT/IFFT),
§3.4 and Fig. 4 (addition recovery: registered two-by-two adder tree and registered carry chain,
product accumulation), §5 (three read buses, one write bus, kb/2d = 8, eq. 12); the block
product is [Cao14] §2.2 Algorithm 1.

Data path per block pair X_i·Y_j (x's blocks form the outer loop, as in [Cao13] §3.1 Step-3.3):

1. read the kb/2-bit blocks X_i and Y_j over two d-bit read ports, one word per cycle (kb/2d
   cycles); words past an operand's run-time length read as zero, so no padding is needed in RAM;
2. split each block into k/2 b-bit digits plus k/2 zeros and transform both with
   :class:`~fhe_hw.ntt.ParallelNTT` (forward: natural order in, bit-reversed spectrum out);
3. k point-wise :class:`~fhe_hw.arith.ModMul`, then the inverse ParallelNTT (bit-reversed in,
   natural out, k^-1 folded into its last stage as [Cao13] §3.2 does);
4. log2(d/b) registered levels of the two-by-two adder tree (Fig. 4(i)) give kb/d sums s_t of
   weight 2^(t·d); the low half plus the high half held from X_i·Y_(j-1) is loaded into a
   shift register, and the registered carry chain (Fig. 4(ii)) adds one word per cycle, with the
   partial-product word of block i+j read from RAM on the third read port when i > 0
   (Step-3.1), and writes it back (Step-3.2); for the last j of a row it also writes the new
   high half with the carry (kb bits in 2·kb/2d cycles).

A new pair enters every kb/2d cycles (2·kb/2d after the last pair of a row), so the Integer-FFT
pipeline, the RAM reads and the writes run concurrently ([Cao13] §3.1: "fully pipeline
architecture"). The product is written as (n1 + n2)·kb/2d words from ``z_addr``; it is exactly
:func:`fhe_hw.model.bigint.block_multiply_trace`'s RAM image.
"""

from dataclasses import dataclass, field
from types import SimpleNamespace

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith import ModMul, ModMulPlan
from ..arith.pipeline import modulus_param, mult_stages_param
from ..component import Component
from ..model.bigint import BlockConfig, block_config, cycles_eq12
from ..ntt.parallel import ParallelNTT, ParallelNTTPlan
from ..params import b_bound_holds, get_modulus, max_digit_bits, require_int, require_power_of_two
from ..plan import StreamPlan, param
from .ram import memory_members

__all__ = ["IntegerFFTMultiplier", "IntegerFFTMultiplierPlan", "multiplier_cycles",
           "block_fields_config", "modulus_field", "n_field", "digit_bits_field",
           "bus_width_field", "MIN_WORDS_PER_BLOCK", "MAX_OPERAND_BITS",
           "MAX_ADDR_WIDTH"]

#: The longest operand (bits) and the widest RAM address the big-integer engines take: beyond
#: [Cao13]'s large group (19,350,000-bit keys), and small enough that a mistyped size is
#: refused at once.
MAX_OPERAND_BITS = 1 << 25
MAX_ADDR_WIDTH = 32

#: kb/2d must be at least 4: the partial-product block that row i reads (Step-3.1) was written
#: by row i-1 at least kb/2d cycles earlier, and the write path is three cycles deep.
MIN_WORDS_PER_BLOCK = 4


def multiplier_cycles(x_words, y_words, words, pipeline):
    """Cycles of one multiplication of an x of ``x_words`` and a y of ``y_words`` d-bit words,
    from the command transfer to the done beat, both included (o always ready):

        W·n1·n2 + W·n1 + W + L + 4,  n1 = ⌈x_words/W⌉, n2 = ⌈y_words/W⌉, W = kb/2d

    with L the Integer-FFT pipeline (forward NTT + point-wise ModMul + inverse NTT + adder tree).
    The 4 extra cycles: command to first read, block register to NTT input, carry chain to write
    register, write to done."""
    n1, n2 = -(-x_words // words), -(-y_words // words)
    return words * n1 * n2 + words * n1 + words + pipeline + 4


def _pointwise_reducer(modulus):
    # Montgomery ("auto" for NTT-friendly general primes) would scale by R^-1; the paper uses
    # Barrett for the general modulus ([Cao13] §3.3), which gives the plain product.
    return "barrett" if modulus.kind == "general" else "auto"


def _countdown(m, left, last, pen, step, reload, reload_last, reload_pen):
    """``left`` blocks after the current one, ``last`` = (left == 0) and ``pen`` = (left == 1)
    kept as registers: on ``step`` the next values come from registers only (``pen`` becomes
    ``last``; the new ``pen`` compares ``left``, not its decrement), or from the reload values
    when ``last``."""
    with m.If(step):
        with m.If(last):
            m.d.sync += [left.eq(reload), last.eq(reload_last), pen.eq(reload_pen)]
        with m.Else():
            m.d.sync += [left.eq(left - 1), last.eq(pen), pen.eq(left == 2)]


# The command-line default is a reduced transform (fermat32, n = 8, digit_bits = 12), quicker
# to generate and synthesize; the plans' defaults are [Cao14] Table 2's solinas64, n = 128,
# digit_bits = 28 (the 001 Table 2 rows are e.g. --modulus solinas64 --n 128 --digit-bits 28,
# see fhe_hw/bigint/configs.py).
_REDUCED = "a reduced transform, quicker to generate and synthesize"


def block_fields_config(modulus, n, digit_bits, bus_width):
    """The :class:`~fhe_hw.model.bigint.BlockConfig` of the multiplier fields of a plan (the
    model's ``block_config(modulus, k, b, d)``), after checking them in the plans' message style,
    naming ``n``, ``digit_bits`` and ``bus_width``; ``n`` and ``digit_bits`` default to the
    modulus's [Cao14] Table 2 entry."""
    m = get_modulus(modulus)
    n = m.table_k if n is None else n
    digit_bits = m.table_b if digit_bits is None else digit_bits
    if n is None or digit_bits is None:
        raise ValueError(f"n and digit_bits must be given for a modulus without a [Cao14] "
                         f"Table 2 entry, not n = {n!r}, digit_bits = {digit_bits!r}")
    require_power_of_two("n", n, minimum=2)
    if m.max_k() % n:
        raise ValueError(f"n must divide q - 1 for every prime factor q of the modulus "
                         f"{m.value}, at most {m.max_k()}, not {n!r}")
    require_int("digit_bits", digit_bits, minimum=1, maximum=m.bits)
    if not b_bound_holds(m.value, n, digit_bits):
        raise ValueError(f"digit_bits must satisfy n(2^digit_bits-1)^2/2 < p, at most "
                         f"{max_digit_bits(m.value, n)} for n = {n} and p = {m.value}, not "
                         f"{digit_bits!r}")
    if bus_width is not None:
        ratio = require_int("bus_width", bus_width, minimum=1) // digit_bits
        if bus_width % digit_bits or ratio & (ratio - 1) or (n // 2) % ratio:
            raise ValueError(f"bus_width must be digit_bits = {digit_bits} times a power of two "
                             f"dividing n/2 = {n // 2}, not {bus_width!r}")
    return block_config(modulus, n, digit_bits, bus_width)


def modulus_field():
    """The plan field ``modulus`` of the big-integer engines' multiplier (command-line default
    fermat32, a reduced transform)."""
    return modulus_param("fermat32", help=f"fermat32, fermat64, solinas64 or general32 "
                         f"(default fermat32, {_REDUCED}; the classes' default: solinas64)",
                         default="solinas64")


def n_field():
    """The plan field ``n``, the transform size k of [Cao13] (command-line default 8)."""
    return param(None, help=f"transform size (default 8, {_REDUCED}; the classes' default: the "
                 f"modulus's [Cao14] Table 2 k, 64 or 128)", cli_default=8, range=(2, None))


def digit_bits_field():
    """The plan field ``digit_bits``, the digit width b of [Cao13] (command-line default 12)."""
    return param(None, help=f"digit bits (default 12, {_REDUCED}; the classes' default: the "
                 f"modulus's [Cao14] Table 2 b, 8, 24, 28 or 12)", cli_default=12,
                 range=(1, None))


def bus_width_field():
    """The plan field ``bus_width``, the RAM word bits d of [Cao13]."""
    return param(None, help="RAM word bits d (default n*digit_bits/16: kb/2d = 8)",
                 range=(1, None))


@dataclass(frozen=True)
class IntegerFFTMultiplierPlan(StreamPlan):
    """The parameters of :class:`IntegerFFTMultiplier` and what they derive.

    Parameters
    ----------
    modulus : str, int or Modulus
        The transform's modulus p: ``fermat32``, ``fermat64``, ``solinas64``, ``general32``, or
        any modulus :func:`fhe_hw.model.bigint.block_config` accepts.
    n : int or None
        Transform size k of [Cao13] (a power of two dividing q - 1 for every prime q | p);
        default the modulus's [Cao14] Table 2 entry.
    digit_bits : int or None
        Digit width b of [Cao13], with n(2^b - 1)^2/2 < p; default the Table 2 entry.
    bus_width : int or None
        RAM word bits d = digit_bits·2^t with 2^t dividing n/2; default n·digit_bits/16, so
        that a block is kb/2d = 8 words as in [Cao13] §5 (digit_bits when n < 16). At least 4
        words per block.
    max_bits : int
        Longest operand in bits (sets the counter widths), at most :data:`MAX_OPERAND_BITS`.
    addr_width : int
        RAM word-address bits, at most :data:`MAX_ADDR_WIDTH`, enough for a few ``max_bits``
        operands.
    mult_stages : int or None
        Registers in every multiplier; default None, :class:`~fhe_hw.arith.ModMul`'s fast
        setting.

    Attributes
    ----------
    config : BlockConfig
        The block configuration (its ``k``, ``b`` and ``d`` are n, digit_bits and bus_width
        resolved; ``words`` = kb/2d).
    max_words : int
        ⌈max_bits/d⌉, the longest operand in words.
    butterflies : dict
        The butterfly-stage depths of the forward (``fft``) and inverse (``ifft``) transforms.
    stages : dict
        Per-part pipeline depths: forward NTT, point-wise ModMul, inverse NTT, adder tree.
    pipeline : int
        Their sum, L: cycles from a block pair entering the forward NTTs to its adder-tree sums.
    """

    modulus: object = modulus_field()
    n: int | None = n_field()
    digit_bits: int | None = digit_bits_field()
    bus_width: int | None = bus_width_field()
    max_bits: int = param(4096, help="longest operand in bits", range=(1, MAX_OPERAND_BITS))
    addr_width: int = param(24, help="RAM word-address bits", range=(1, MAX_ADDR_WIDTH),
                            kw_only=True)
    mult_stages: int | None = mult_stages_param()
    config: BlockConfig = field(init=False, repr=False, compare=False)
    max_words: int = field(init=False, repr=False, compare=False)
    butterflies: dict = field(init=False, repr=False, compare=False)
    stages: dict = field(init=False, repr=False, compare=False)
    pipeline: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        cfg = block_fields_config(self.modulus, self.n, self.digit_bits, self.bus_width)
        if cfg.words < MIN_WORDS_PER_BLOCK:
            raise ValueError(f"bus_width must leave n*digit_bits/(2*bus_width) >= "
                             f"{MIN_WORDS_PER_BLOCK} words per block, not {cfg.words} (n = "
                             f"{cfg.k}, digit_bits = {cfg.b}, bus_width = {cfg.d})")
        max_words = -(-self.max_bits // cfg.d)
        if max_words * 4 > 1 << self.addr_width:
            raise ValueError(f"addr_width must address a few max_bits operands, not "
                             f"{self.addr_width!r} for {max_words} words")
        mod = cfg.ntt.modulus
        # each transform's butterfly-stage depths (ParallelNTT's defaults, as built)
        butterflies = {name: list(ParallelNTTPlan(cfg.k, mod, inverse=inverse,
                                                  mult_stages=self.mult_stages).stage_latencies)
                       for name, inverse in (("fft", False), ("ifft", True))}
        stages = {"fft": sum(butterflies["fft"]),
                  "pointwise": ModMulPlan(mod, _pointwise_reducer(mod),
                                          mult_stages=self.mult_stages).latency,
                  "ifft": sum(butterflies["ifft"]),
                  "adder_tree": cfg.tree_levels}
        self._set(config=cfg, max_words=max_words, butterflies=butterflies, stages=stages,
                  pipeline=sum(stages.values()))

    def _operands(self, x_words, y_words):
        """``(x_words, y_words)``, ``max_words`` for None; raises ``ValueError`` for lengths the
        hardware rejects."""
        words = []
        for name, v in (("x_words", x_words), ("y_words", y_words)):
            v = self.max_words if v is None else require_int(name, v, minimum=1)
            if v > self.max_words:
                raise ValueError(f"{name} must be at most max_words = {self.max_words}, "
                                 f"not {v!r}")
            words.append(v)
        return words

    def cycles(self, x_words=None, y_words=None):
        """Exact cycles of one multiplication of an x of ``x_words`` and a y of ``y_words``
        words (default ``max_words``, the longest operands the unit takes), see
        :func:`multiplier_cycles`; raises ``ValueError`` for lengths the hardware rejects."""
        x_words, y_words = self._operands(x_words, y_words)
        return multiplier_cycles(x_words, y_words, self.config.words, self.pipeline)

    def cycles_eq12(self, x_words=None, y_words=None):
        """[Cao13] eq. (12) for the same operands as :meth:`cycles`, with its 2·log2(k)·P_fft
        the sum of the forward and inverse NTTs' butterfly-stage depths (the paper's form when
        all stages are equal; the inverse's last stage, with the up-multiplier, can be a cycle
        deeper), P_pw = the ModMul latency and P_ar = the adder-tree levels. :meth:`cycles` is
        this plus 4 (see :func:`multiplier_cycles`)."""
        x_words, y_words = self._operands(x_words, y_words)
        cfg = self.config
        depths = self.butterflies["fft"] + self.butterflies["ifft"]
        p_fft, excess = divmod(sum(depths), len(depths))
        return excess + cycles_eq12(x_words * cfg.d, y_words * cfg.d, cfg.k, cfg.b, cfg.d,
                                    p_fft=p_fft, p_pw=self.stages["pointwise"],
                                    p_ar=cfg.tree_levels)

    def product_words(self, x_words, y_words):
        """Words of a product at ``z_addr``: (n1 + n2)·kb/2d."""
        W = self.config.words
        return (-(-x_words // W) - (-y_words // W)) * W


class IntegerFFTMultiplier(Component):
    """Super-size multiplier z = x·y with the Integer-FFT block core ([Cao13] §3, Fig. 1(ii)).

    Parameters: an :class:`IntegerFFTMultiplierPlan`, or its arguments.

    Ports: ``i`` — stream of commands ``{x_addr, x_words, y_addr, y_words, z_addr}`` (word
    addresses and operand lengths in d-bit words, run-time); ``o`` — stream of one beat per
    command, payload ``error`` (1 bit); ``rd_x``, ``rd_y``, ``rd_z``, ``wr`` — RAM ports
    (:mod:`fhe_hw.bigint.ram`). The product occupies (n1 + n2)·kb/2d words at ``z_addr``
    (n = ⌈words/(kb/2d)⌉); the z region must not overlap x or y.

    Run-time errors: a command with ``x_words`` or ``y_words`` of 0 or above ``max_words``
    (= ⌈max_bits/d⌉) touches no memory and answers with ``error = 1`` after 2 cycles.

    Cycles: :meth:`cycles` (exact, checked in simulation); :meth:`cycles_eq12` gives [Cao13]
    eq. (12) with this unit's pipeline depths. The plan raises ``ValueError``/``TypeError`` for
    bad parameters (digit_bits over the bound n(2^b-1)^2/2 < p, n not dividing q - 1,
    bus_width not digit_bits·2^t, fewer than 4 words per block, ...) before any hardware is
    built.
    """

    def __init__(self, *args, **kw):
        self.plan = p = IntegerFFTMultiplierPlan.coerce(*args, **kw)
        self._cfg = cfg = p.config
        self._max_words, self._addr_width = p.max_words, p.addr_width
        mod = cfg.ntt.modulus
        self._fwd = [ParallelNTT(cfg.k, mod, mult_stages=p.mult_stages) for _ in range(2)]
        self._inv = ParallelNTT(cfg.k, mod, inverse=True, mult_stages=p.mult_stages)
        self._pw = [ModMul(mod, _pointwise_reducer(mod), mult_stages=p.mult_stages)
                    for _ in range(cfg.k)]
        lw = self._max_words.bit_length()
        self._cmd_layout = data.StructLayout({
            "x_addr": unsigned(p.addr_width), "x_words": unsigned(lw),
            "y_addr": unsigned(p.addr_width), "y_words": unsigned(lw),
            "z_addr": unsigned(p.addr_width)})
        super().__init__({"i": In(stream.Signature(self._cmd_layout)),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(p.addr_width, cfg.d)})

    # --- parameters ------------------------------------------------------------------------
    @property
    def config(self):
        """The :class:`~fhe_hw.model.bigint.BlockConfig` (k, b, d, the NTT parameters)."""
        return self._cfg

    @property
    def modulus(self):
        return self._cfg.ntt.p

    @property
    def n(self):
        """The transform size (k of [Cao13])."""
        return self._cfg.k

    @property
    def digit_bits(self):
        """The digit width (b of [Cao13])."""
        return self._cfg.b

    @property
    def bus_width(self):
        return self._cfg.d

    @property
    def words_per_block(self):
        """kb/2d: bus words per kb/2-bit block (cycles per block read or written)."""
        return self._cfg.words

    @property
    def max_bits(self):
        return self.plan.max_bits

    @property
    def max_words(self):
        return self._max_words

    @property
    def addr_width(self):
        return self._addr_width

    @property
    def pipeline_latency(self):
        """Cycles from a block pair entering the forward NTTs to its adder-tree sums."""
        return self.plan.pipeline

    @property
    def stage_latencies(self):
        """Per-part pipeline depths: forward NTT, point-wise ModMul, inverse NTT, adder tree."""
        return dict(self.plan.stages)

    def command(self, x_addr, x_words, y_addr, y_words, z_addr):
        """A command payload (dict) for the ``i`` stream."""
        return dict(x_addr=x_addr, x_words=x_words, y_addr=y_addr, y_words=y_words,
                    z_addr=z_addr)

    def product_words(self, x_words, y_words):
        """Words written at ``z_addr``: (n1 + n2)·kb/2d."""
        return self.plan.product_words(x_words, y_words)

    @property
    def latency(self):
        """``None``: a command engine, timed by :meth:`cycles`."""
        return self.plan.latency

    def cycles(self, x_words=None, y_words=None):
        """Exact cycles of one multiplication (:meth:`IntegerFFTMultiplierPlan.cycles`)."""
        return self.plan.cycles(x_words, y_words)

    def cycles_eq12(self, x_words=None, y_words=None):
        """[Cao13] eq. (12) for the same operands
        (:meth:`IntegerFFTMultiplierPlan.cycles_eq12`)."""
        return self.plan.cycles_eq12(x_words, y_words)

    # --- hardware --------------------------------------------------------------------------
    def elaborate(self, platform):
        m = Module()
        command = self._command(m)
        xblk, yblk, fire = self._front_end(m, command)
        level, valid, sw = self._transform(m, xblk, yblk, fire)
        self._back_end(m, command, level, valid, sw)
        return m

    @property
    def _count_width(self):
        """Bits of the block count-downs."""
        return (self._max_words + self._cfg.words).bit_length() + 1

    def _command(self, m):
        """Controller: the command register, ``i``/``o`` handshakes (busy, done, error) and the
        block counts every stage reloads; returns them as a namespace."""
        W = self._cfg.words
        cnt_w = self._count_width

        cmd = Signal(self._cmd_layout)
        busy = Signal()
        done = Signal()
        error = Signal()
        m.d.comb += [self.i.ready.eq(~busy), self.o.valid.eq(done), self.o.payload.eq(error)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += [done.eq(0), busy.eq(0)]

        # Block counts minus one, n - 1 = (words - 1) >> log2(W) (W is a power of two), and
        # their "n = 1" and "n = 2" flags, registered with the command.
        lg = W.bit_length() - 1
        x = self.i.payload
        n2m = Signal(cnt_w)
        n2_one, n2_two = Signal(), Signal()
        take = self.i.valid & self.i.ready
        last_blocks = [(words - 1) >> lg for words in (x.x_words, x.y_words)]
        with m.If(take):
            bad = ((x.x_words == 0) | (x.y_words == 0) | (x.x_words > self._max_words)
                   | (x.y_words > self._max_words))
            m.d.sync += [busy.eq(1), cmd.eq(x), error.eq(bad),
                         n2m.eq(last_blocks[1]), n2_one.eq(last_blocks[1] == 0),
                         n2_two.eq(last_blocks[1] == 1)]
            with m.If(bad):
                m.d.sync += done.eq(1)
        return SimpleNamespace(cmd=cmd, done=done, x=x, take=take, bad=bad,
                               last_blocks=last_blocks, n2m=n2m, n2_one=n2_one, n2_two=n2_two)

    def _front_end(self, m, c):
        """Memory side of the operands: block reads (Step-1) into the block registers; returns
        (x block, y block, the one-cycle ``fire`` when a pair is complete)."""
        W, d = self._cfg.words, self._cfg.d
        lg = W.bit_length() - 1
        cnt_w = self._count_width
        cmd, x, take, last_blocks = c.cmd, c.x, c.take, c.last_blocks

        # front end: block reads (Step-1), one slot of W cycles per pair, 2W at a row's end.
        # The control fans out across the die, so every predicate is a register whose next
        # value comes from registers through no carry chain: the ends of a slot, of a row
        # (row_end, j = n2 - 1) and the last row (last_row, i = n1 - 1) come from count-downs
        # of the blocks left that keep "one left" beside them; a word is present unless the
        # block is the operand's last and the slot's low bits pass the last block's word count
        # ((words - 1) mod W, registered with the command); the read addresses are pointers
        # (block base plus the slot) stepped with the slot.
        f_run = Signal()
        f_cols, f_rows = Signal(cnt_w), Signal(cnt_w)
        row_end, col_pen, last_row, row_pen, slot_last = (Signal(name=name) for name in (
            "row_end", "col_pen", "last_row", "row_pen", "slot_last"))
        x_base, y_base = Signal(self._addr_width), Signal(self._addr_width)
        x_ptr, y_ptr = Signal(self._addr_width), Signal(self._addr_width)
        x_tail, y_tail = Signal(max(lg, 1)), Signal(max(lg, 1))
        slot = Signal(range(2 * W))

        with m.If(take):
            m.d.sync += [f_cols.eq(last_blocks[1]), row_end.eq(last_blocks[1] == 0),
                         col_pen.eq(last_blocks[1] == 1), f_rows.eq(last_blocks[0]),
                         last_row.eq(last_blocks[0] == 0), row_pen.eq(last_blocks[0] == 1),
                         slot.eq(0), slot_last.eq(0),
                         x_base.eq(x.x_addr), y_base.eq(x.y_addr),
                         x_ptr.eq(x.x_addr), y_ptr.eq(x.y_addr),
                         x_tail.eq(x.x_words - 1), y_tail.eq(x.y_words - 1)]
            with m.If(~c.bad):
                m.d.sync += f_run.eq(1)

        reading = f_run & ~slot[lg]
        x_in = reading & (~last_row | (slot[:lg] <= x_tail))
        y_in = reading & (~row_end | (slot[:lg] <= y_tail))
        m.d.comb += [self.rd_x.en.eq(x_in), self.rd_x.addr.eq(x_ptr),
                     self.rd_y.en.eq(y_in), self.rd_y.addr.eq(y_ptr)]
        with m.If(f_run):
            m.d.sync += [slot.eq(slot + 1), x_ptr.eq(x_ptr + 1), y_ptr.eq(y_ptr + 1),
                         slot_last.eq(slot + 2 == Mux(row_end, 2 * W, W))]
            with m.If(slot_last):
                m.d.sync += [slot.eq(0), slot_last.eq(0)]
                with m.If(row_end):
                    m.d.sync += [y_base.eq(cmd.y_addr), y_ptr.eq(cmd.y_addr),
                                 x_base.eq(x_base + W), x_ptr.eq(x_base + W)]
                    with m.If(last_row):
                        m.d.sync += f_run.eq(0)
                with m.Else():
                    m.d.sync += [y_base.eq(y_base + W), y_ptr.eq(y_base + W), x_ptr.eq(x_base)]
        _countdown(m, f_cols, row_end, col_pen, f_run & slot_last, c.n2m, c.n2_one, c.n2_two)
        _countdown(m, f_rows, last_row, row_pen, f_run & slot_last & row_end, 0, 0, 0)

        # the returned words shift into the block registers (least significant word first)
        cap, x_ok, y_ok, last_word = Signal(), Signal(), Signal(), Signal()
        m.d.sync += [cap.eq(reading), x_ok.eq(x_in), y_ok.eq(y_in),
                     last_word.eq(reading & (slot[:lg] == W - 1))]
        xblk, yblk = Signal(W * d), Signal(W * d)
        with m.If(cap):
            m.d.sync += [xblk.eq(Cat(xblk[d:], Mux(x_ok, self.rd_x.data, 0))),
                         yblk.eq(Cat(yblk[d:], Mux(y_ok, self.rd_y.data, 0)))]
        fire = Signal()
        m.d.sync += fire.eq(last_word)

        return xblk, yblk, fire

    def _transform(self, m, xblk, yblk, fire):
        """Datapath: the Integer-FFT core and the addition recovery; returns (the 2W column
        sums, their valid, their bits)."""
        cfg = self._cfg
        d, b, k = cfg.d, cfg.b, cfg.k
        mbits = cfg.ntt.modulus.bits

        # Integer-FFT core ([Cao14] Algorithm 1): digits -> NTT, point-wise, inverse NTT
        for n, (blk, ntt) in enumerate(zip((xblk, yblk), self._fwd)):
            m.submodules[f"fft_{'xy'[n]}"] = ntt
            m.d.comb += ntt.i.valid.eq(fire)
            for t in range(k // 2):
                m.d.comb += ntt.i.payload[t].eq(blk[t * b:(t + 1) * b])
        m.submodules.ifft = inv = self._inv
        for t, pw in enumerate(self._pw):
            m.submodules[f"pw{t}"] = pw
            m.d.comb += [pw.i.valid.eq(self._fwd[0].o.valid),
                         pw.i.payload.a.eq(self._fwd[0].o.payload[t]),
                         pw.i.payload.b.eq(self._fwd[1].o.payload[t]),
                         inv.i.payload[t].eq(pw.o.payload)]
        m.d.comb += inv.i.valid.eq(self._pw[0].o.valid)

        # addition recovery, Fig. 4(i): registered two-by-two adder tree
        level = [inv.o.payload[t] for t in range(k)]
        valid, width = inv.o.valid, b
        while width < d:
            nxt = []
            for t in range(len(level) // 2):
                s = Signal(mbits + 2 * width - b + 1, name=f"tree{width}_{t}")
                m.d.sync += s.eq(level[2 * t] + (level[2 * t + 1] << width))
                nxt.append(s)
            v = Signal(name=f"tree{width}_valid")
            m.d.sync += v.eq(valid)
            level, valid, width = nxt, v, width * 2
        sw = mbits + d - b + 1          # every s_t < 2^sw; log2(d/b) levels leave kb/d = 2W
        return level, valid, sw

    def _back_end(self, m, c, level, valid, sw):
        """Memory side of the product: accumulation and the registered carry chain into z
        (Step-3), and ``done`` after the last word."""
        W, d = self._cfg.words, self._cfg.d
        cnt_w = self._count_width
        x, take, last_blocks, done = c.x, c.take, c.last_blocks, c.done

        # product accumulation and registered carry chain, Fig. 4(ii) / Step-3; as in the front
        # end, the column and row predicates (j = 0, j = n2 - 1, i > 0, i = n1 - 1) are
        # registers (b_last, which selects half the sums, from a count-down with "one left"
        # beside it), the z addresses come from bases (z_addr + i·W, z_addr + (i+j)·W) and the
        # words' read and write addresses are pointers stepped with them.
        b_cols, b_rows = Signal(cnt_w), Signal(cnt_w)
        b_first, b_last, b_later, b_last_row, b_col_pen, b_row_pen = (
            Signal(name=name) for name in ("b_first", "b_last", "b_later", "b_last_row",
                                           "b_col_pen", "b_row_pen"))
        b_zrow, b_zptr = Signal(self._addr_width), Signal(self._addr_width)
        with m.If(take):
            m.d.sync += [b_cols.eq(last_blocks[1]), b_last.eq(last_blocks[1] == 0),
                         b_col_pen.eq(last_blocks[1] == 1), b_rows.eq(last_blocks[0]),
                         b_last_row.eq(last_blocks[0] == 0), b_row_pen.eq(last_blocks[0] == 1),
                         b_first.eq(1), b_later.eq(0), b_zrow.eq(x.z_addr), b_zptr.eq(x.z_addr)]
        held = [Signal(sw, name=f"held{t}") for t in range(W)]
        sreg = [Signal(sw + 1, name=f"acc{t}") for t in range(2 * W)]
        carry = Signal(sw + 3 - d)
        active, c_read, c_last, c_final = Signal(), Signal(), Signal(), Signal()
        c_wptr, c_rptr = Signal(self._addr_width), Signal(self._addr_width)
        oc = Signal(range(2 * W))

        # Step-3.1: partial-product words of block i+j (row i > 0): word 0 in the load cycle,
        # word w in the cycle that consumes word w-1.
        rz_en = Signal()
        ahead = active & c_read & (oc < W - 1)
        m.d.comb += [
            self.rd_z.en.eq((valid & b_later) | ahead),
            self.rd_z.addr.eq(Mux(valid, b_zptr, c_rptr))]
        m.d.sync += rz_en.eq(self.rd_z.en)

        total = Signal(sw + 3)
        m.d.comb += total.eq(carry + sreg[0] + Mux(rz_en, self.rd_z.data, 0))
        m.d.sync += [self.wr.en.eq(0)]
        with m.If(active):
            m.d.sync += [self.wr.en.eq(1), self.wr.addr.eq(c_wptr), c_wptr.eq(c_wptr + 1),
                         c_rptr.eq(c_rptr + 1), self.wr.data.eq(total[:d]),
                         carry.eq(total[d:]), oc.eq(oc + 1)]
            m.d.sync += [sreg[t].eq(sreg[t + 1]) for t in range(2 * W - 1)]
            m.d.sync += sreg[-1].eq(0)
            with m.If(oc == Mux(c_last, 2 * W - 1, W - 1)):
                m.d.sync += active.eq(0)
                with m.If(c_final):
                    m.d.sync += done.eq(1)
        with m.If(valid):
            m.d.sync += [active.eq(1), oc.eq(0), c_read.eq(b_later), c_last.eq(b_last),
                         c_final.eq(b_last & b_last_row), c_wptr.eq(b_zptr),
                         c_rptr.eq(b_zptr + 1)]
            for t in range(W):
                m.d.sync += sreg[t].eq(level[t] + Mux(b_first, 0, held[t]))
                m.d.sync += sreg[W + t].eq(Mux(b_last, level[W + t], 0))
                m.d.sync += held[t].eq(level[W + t])
            with m.If(b_first):
                m.d.sync += carry.eq(0)
            m.d.sync += b_first.eq(b_last)
            with m.If(b_last):
                m.d.sync += [b_later.eq(1), b_zrow.eq(b_zrow + W), b_zptr.eq(b_zrow + W)]
            with m.Else():
                m.d.sync += b_zptr.eq(b_zptr + W)
        _countdown(m, b_cols, b_last, b_col_pen, valid, c.n2m, c.n2_one, c.n2_two)
        _countdown(m, b_rows, b_last_row, b_row_pen, valid & b_last, 0, 0, 0)
