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

from types import SimpleNamespace

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith import ModMul, ModMulPlan
from ..component import Component
from ..model.bigint import block_config, cycles_eq12
from ..ntt.parallel import ParallelNTT, ParallelNTTPlan
from ..params import require_int
from .ram import memory_members

__all__ = ["IntegerFFTMultiplier", "multiplier_cycles", "MIN_WORDS_PER_BLOCK", "MAX_OPERAND_BITS",
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


class IntegerFFTMultiplier(Component):
    """Super-size multiplier z = x·y with the Integer-FFT block core ([Cao13] §3, Fig. 1(ii)).

    Parameters: ``modulus`` (``fermat32``, ``fermat64``, ``solinas64``, ``general32``, or any
    modulus :func:`fhe_hw.model.bigint.block_config` accepts); ``k`` and ``b`` (default the
    [Cao14] Table 2 entry); ``bus_width`` d (default kb/16, so kb/2d = 8 as in [Cao13] §5);
    ``max_bits`` (generate-time maximum operand length, sets the counter widths);
    ``addr_width`` (RAM word-address bits, default 24); ``mult_stages`` (pipeline registers of
    every multiplier; default None, :class:`~fhe_hw.arith.ModMul`'s fast setting).

    Ports: ``i`` — stream of commands ``{x_addr, x_words, y_addr, y_words, z_addr}`` (word
    addresses and operand lengths in d-bit words, run-time); ``o`` — stream of one beat per
    command, payload ``error`` (1 bit); ``rd_x``, ``rd_y``, ``rd_z``, ``wr`` — RAM ports
    (:mod:`fhe_hw.bigint.ram`). The product occupies (n1 + n2)·kb/2d words at ``z_addr``
    (n = ⌈words/(kb/2d)⌉); the z region must not overlap x or y.

    Run-time errors: a command with ``x_words`` or ``y_words`` of 0 or above ``max_words``
    (= ⌈max_bits/d⌉) touches no memory and answers with ``error = 1`` after 2 cycles.

    Cycles: :meth:`cycles` (exact, checked in simulation); :meth:`cycles_eq12` gives 000
    eq. (12) with this unit's pipeline depths. Raises ``ValueError``/``TypeError`` for bad
    parameters (b over the bound k(2^b-1)^2/2 < p, k not dividing q - 1, d not b·2^t,
    kb/2d < 4, ...) before any hardware is built.
    """

    def __init__(self, modulus="solinas64", k=None, b=None, bus_width=None, max_bits=4096, *,
                 addr_width=24, mult_stages=None):
        self._p = p = self._plan(modulus, k, b, bus_width, max_bits, addr_width, mult_stages)
        self._cfg = cfg = p.cfg
        self._max_words, self._max_bits, self._addr_width = p.max_words, max_bits, addr_width
        mod = cfg.ntt.modulus
        self._fwd = [ParallelNTT(cfg.k, mod, mult_stages=mult_stages) for _ in range(2)]
        self._inv = ParallelNTT(cfg.k, mod, inverse=True, mult_stages=mult_stages)
        self._pw = [ModMul(mod, _pointwise_reducer(mod), mult_stages=mult_stages)
                    for _ in range(cfg.k)]
        self._pipeline = p.pipeline
        lw = self._max_words.bit_length()
        self._cmd_layout = data.StructLayout({
            "x_addr": unsigned(addr_width), "x_words": unsigned(lw),
            "y_addr": unsigned(addr_width), "y_words": unsigned(lw),
            "z_addr": unsigned(addr_width)})
        super().__init__({"i": In(stream.Signature(self._cmd_layout)),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(addr_width, cfg.d)})

    @staticmethod
    def _plan(modulus, k, b, bus_width, max_bits, addr_width, mult_stages):
        """The block configuration, ``max_words``, the per-part pipeline ``stages`` and their
        sum ``pipeline``; raises ``ValueError``/``TypeError`` for refused parameters."""
        cfg = block_config(modulus, k, b, bus_width)
        if cfg.words < MIN_WORDS_PER_BLOCK:
            raise ValueError(f"kb/2d must be at least {MIN_WORDS_PER_BLOCK}, not {cfg.words} "
                             f"(k = {cfg.k}, b = {cfg.b}, d = {cfg.d})")
        require_int("max_bits", max_bits, minimum=1, maximum=MAX_OPERAND_BITS)
        require_int("addr_width", addr_width, minimum=1, maximum=MAX_ADDR_WIDTH)
        max_words = -(-max_bits // cfg.d)
        if max_words * 4 > 1 << addr_width:
            raise ValueError(f"addr_width must address a few max_bits operands, not "
                             f"{addr_width!r} for {max_words} words")
        mod = cfg.ntt.modulus
        # each transform's butterfly-stage depths (ParallelNTT's defaults, as built)
        butterflies = {name: list(ParallelNTTPlan(cfg.k, mod, inverse=inverse,
                                                  mult_stages=mult_stages).stage_latencies)
                       for name, inverse in (("fft", False), ("ifft", True))}
        stages = {"fft": sum(butterflies["fft"]),
                  "pointwise": ModMulPlan(mod, _pointwise_reducer(mod),
                                                 mult_stages=mult_stages).latency,
                  "ifft": sum(butterflies["ifft"]),
                  "adder_tree": cfg.tree_levels}
        return SimpleNamespace(cfg=cfg, max_words=max_words, stages=stages,
                               pipeline=sum(stages.values()), butterflies=butterflies)

    @staticmethod
    def _cycles_from(p, x_words, y_words):
        for name, v in (("x_words", x_words), ("y_words", y_words)):
            require_int(name, v, minimum=1)
            if v > p.max_words:
                raise ValueError(f"{name} must be at most max_words = {p.max_words}, "
                                 f"not {v!r}")
        return multiplier_cycles(x_words, y_words, p.cfg.words, p.pipeline)

    @staticmethod
    def latency_of(modulus="solinas64", k=None, b=None, bus_width=None, max_bits=4096, *,
                   addr_width=24, mult_stages=None):
        """``None``: a command engine, timed by :meth:`cycles_of`. Raises the constructor's
        ``ValueError``/``TypeError`` for refused parameters without building anything."""
        IntegerFFTMultiplier._plan(modulus, k, b, bus_width, max_bits, addr_width, mult_stages)

    @staticmethod
    def cycles_of(modulus="solinas64", k=None, b=None, bus_width=None, max_bits=4096, *,
                  addr_width=24, mult_stages=None, x_words=None, y_words=None):
        """:meth:`cycles` of one multiplication on the multiplier with these parameters,
        without building it; ``x_words``/``y_words`` default to ``max_words`` (the longest
        operands the unit takes)."""
        p = IntegerFFTMultiplier._plan(modulus, k, b, bus_width, max_bits, addr_width,
                                       mult_stages)
        return IntegerFFTMultiplier._cycles_from(p, p.max_words if x_words is None else x_words,
                                                 p.max_words if y_words is None else y_words)

    # --- parameters ------------------------------------------------------------------------
    @property
    def config(self):
        """The :class:`~fhe_hw.model.bigint.BlockConfig` (k, b, d, the NTT parameters)."""
        return self._cfg

    @property
    def modulus(self):
        return self._cfg.ntt.p

    @property
    def k(self):
        return self._cfg.k

    @property
    def b(self):
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
        return self._max_bits

    @property
    def max_words(self):
        return self._max_words

    @property
    def addr_width(self):
        return self._addr_width

    @property
    def pipeline_latency(self):
        """Cycles from a block pair entering the forward NTTs to its adder-tree sums."""
        return self._pipeline

    @property
    def stage_latencies(self):
        """Per-part pipeline depths: forward NTT, point-wise ModMul, inverse NTT, adder tree."""
        return dict(self._p.stages)

    def command(self, x_addr, x_words, y_addr, y_words, z_addr):
        """A command payload (dict) for the ``i`` stream."""
        return dict(x_addr=x_addr, x_words=x_words, y_addr=y_addr, y_words=y_words,
                    z_addr=z_addr)

    def product_words(self, x_words, y_words):
        """Words written at ``z_addr``: (n1 + n2)·kb/2d."""
        W = self._cfg.words
        return (-(-x_words // W) - (-y_words // W)) * W

    def cycles(self, x_words, y_words):
        """Exact cycles of one multiplication (see :func:`multiplier_cycles`); raises
        ``ValueError`` for lengths the hardware rejects."""
        return self._cycles_from(self._p, x_words, y_words)

    def cycles_eq12(self, x_words, y_words):
        """[Cao13] eq. (12) for the same operands, with its 2·log2(k)·P_fft the sum of the
        forward and inverse NTTs' butterfly-stage depths (the paper's form when all stages are
        equal; the inverse's last stage, with the up-multiplier, can be a cycle deeper), P_pw =
        the ModMul latency and P_ar = the adder-tree levels. :meth:`cycles` is this plus 4
        (see :func:`multiplier_cycles`)."""
        return self._eq12_from(self._p, x_words, y_words)

    @staticmethod
    def _eq12_from(p, x_words, y_words):
        cfg = p.cfg
        stages = p.butterflies["fft"] + p.butterflies["ifft"]
        p_fft, excess = divmod(sum(stages), len(stages))
        return excess + cycles_eq12(x_words * cfg.d, y_words * cfg.d, cfg.k, cfg.b, cfg.d,
                                    p_fft=p_fft, p_pw=p.stages["pointwise"],
                                    p_ar=cfg.tree_levels)

    @staticmethod
    def cycles_eq12_of(modulus="solinas64", k=None, b=None, bus_width=None, max_bits=4096, *,
                       addr_width=24, mult_stages=None, x_words=None, y_words=None):
        """:meth:`cycles_eq12` of the multiplier with these parameters, without building it
        (operands as in :meth:`cycles_of`)."""
        p = IntegerFFTMultiplier._plan(modulus, k, b, bus_width, max_bits, addr_width,
                                       mult_stages)
        return IntegerFFTMultiplier._eq12_from(p, p.max_words if x_words is None else x_words,
                                               p.max_words if y_words is None else y_words)

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
