"""Shared pieces of every fixed-latency arithmetic pipeline: the base Component with always-ready
``i``/``o`` streams and a ``latency`` property, the stage register helper that carries ``valid``
with the data, and a pipelined multiplier.

Convention: ``latency`` is the number of clock cycles from an input transfer to the
matching output ``valid``; a latency of 0 means the unit is combinational.
"""

from dataclasses import MISSING

from amaranth import Cat, Const, Mux, Shape, Signal
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..params import check_bool, modulus_spec, require_int
from ..plan import param
from .dsp import DSP_WIDTH, tile_product

__all__ = ["FixedLatencyUnit", "Stages", "Multiplier", "tile_products", "add_terms", "wrap_inc",
           "check_stages", "check_mult_stages", "MAX_STAGES", "KEEP", "modulus_param",
           "pipelined_param", "deep_param", "mult_stages_param", "tiled_param",
           "karatsuba_param", "tile_reg_param", "fabric_rounds_param", "MULTIPLIER_FLAGS",
           "add_term_lists"]


#: The attributes of a register that is a deliberate copy of another (to split a large
#: fan-out): ``Signal(..., attrs=KEEP)``. Yosys merges flip-flops with the same input and
#: reset value; the synthesis flows of :mod:`fhe_hw.flow.synth` and :mod:`fhe_hw.asic` keep
#: these apart (:data:`fhe_hw.flow.synth.KEEP_COPIES`).
KEEP = {"keep": 1}

#: The most registers a unit takes in one pipeline (a multiplier's stages, say): deeper than
#: any multiplier needs, and small enough that a mistyped value is refused at once.
MAX_STAGES = 16

#: Registers of a Karatsuba multiplier beyond its adder trees: the halves and their sums, the
#: DSPs' operand and product registers, z1 - z0, minus z2 and the final addition's two parts.
_KARATSUBA_EXTRA = 7


def wrap_inc(counter, last):
    """counter + 1, or 0 after ``last``: a counter's next value that wraps."""
    return Mux(counter == last, 0, counter + 1)


def check_stages(name, value, maximum=MAX_STAGES):
    """Return ``value`` if it is a register count in ``[0, maximum]``; raise
    ``TypeError``/``ValueError`` otherwise."""
    return require_int(name, value, minimum=0, maximum=maximum)


def check_mult_stages(value):
    """``mult_stages`` of a :class:`Multiplier` and the units that pass it on: ``None`` (the
    fast setting) or a register count >= 0."""
    return value if value is None else check_stages("mult_stages", value)


def modulus_param(cli_default=MISSING, help="modulus name or integer", **kw):
    """The plan field ``modulus`` (a name of :data:`~fhe_hw.params.MODULI`, an integer or a
    :class:`~fhe_hw.params.Modulus`), ``cli_default`` on the command line; ``kw`` go to
    :func:`~fhe_hw.plan.param`."""
    return param(help=help, parse=modulus_spec, cli_default=cli_default, **kw)


def pipelined_param():
    """The plan field ``pipelined``: register the stages (default True)."""
    return param(True, help="register the stages (true/false)", kw_only=True)


def deep_param():
    """The plan field ``deep``: one carry chain per register (default True)."""
    return param(True, help="one carry chain per register: faster clock, more cycles "
                 "(true/false)", kw_only=True)


def mult_stages_param():
    """The plan field ``mult_stages`` of a unit with :class:`Multiplier` s: registers in each,
    default None (the fast setting)."""
    return param(None, help="registers in each multiplier (default: one per adder level, the "
                 "product's and, tiled, the operands')", range=(0, MAX_STAGES), kw_only=True)


def tiled_param():
    """The plan field ``tiled`` of a unit with :class:`Multiplier` s (default True)."""
    return param(True, help="multipliers in 17-bit tiles, one DSP per partial product "
                 "(true/false)", kw_only=True)


def karatsuba_param():
    """The plan field ``karatsuba`` of a unit with an operand :class:`Multiplier` (default
    False). Its command-line default None leaves the plan's own and keeps it out of the
    parameters a generated file's header lists (and with them the synthesis cache keys of the
    tables' rows)."""
    return param(False, help="the operand multiplier as one level of Karatsuba, tiled only: 12 "
                 "DSPs instead of 16 at 64 bits (true/false, default false)", cli_default=None,
                 kw_only=True)


#: The yes/no multiplier options, off by default, that an engine passes on to its ModMuls
#: (:func:`karatsuba_param`, :func:`tile_reg_param`, :func:`fabric_rounds_param`): what a
#: row's own ModMul must share with it, and what tells two rows of an engine apart.
MULTIPLIER_FLAGS = ("karatsuba", "tile_reg", "fabric_rounds")


def tile_reg_param():
    """The plan field ``tile_reg`` of a unit with tiled :class:`Multiplier` s (default False;
    left out of a generated file's header unless given, like ``karatsuba``)."""
    return param(False, help="a fabric register after each DSP tile's product, before the adder "
                 "tree: the wire from a DSP to its adder has a cycle of its own, one more per "
                 "multiplier (true/false, default false)", cli_default=None, kw_only=True)


def fabric_rounds_param():
    """The plan field ``fabric_rounds`` of a unit with Montgomery ModMuls (default False; left
    out of a generated file's header unless given, like ``karatsuba``)."""
    return param(False, help="the Montgomery rounds' q_H x T~ by shifted additions in the "
                 "fabric, no DSP (true/false, default false)", cli_default=None, kw_only=True)


class FixedLatencyUnit(Component):
    """Base of the fixed-latency units: ``i`` and ``o`` are always-ready streams of the given
    payload shapes. Subclasses set ``self._latency`` in ``__init__``."""

    def __init__(self, i_shape, o_shape):
        super().__init__({
            "i": In(stream.Signature(i_shape, always_ready=True)),
            "o": Out(stream.Signature(o_shape, always_ready=True)),
        })

    @property
    def latency(self):
        """Clock cycles from an input transfer to its output ``valid``."""
        return self._latency

    def _output(self, m, st, payload):
        """Drive ``o`` with ``payload`` and ``valid`` from the last stage of ``st``; raises
        ``RuntimeError`` unless the stages built have the :attr:`latency` the unit promised."""
        if st.latency != self._latency:
            raise RuntimeError(f"{type(self).__name__}: the built stages have latency "
                               f"{st.latency}, its timing contract says {self._latency}")
        m.d.comb += [self.o.payload.eq(payload), self.o.valid.eq(st.valid)]


class Stages:
    """Cuts a combinational data path into pipeline stages.

    ``st = Stages(m, valid)`` starts at the input; ``a, b = st.cut(a, b)`` returns registered
    copies of the values when that cut point is enabled, or the values themselves when it is not;
    it always returns a tuple. ``valid`` and every value handed to :meth:`ride` are registered at
    each enabled cut too, so data that bypasses a multiplier stays aligned with it (``st[name]``
    is the current copy). ``st.latency`` counts the enabled cuts so far, so a unit's latency
    follows from the code that builds it. ``st.cut()`` with no values only advances ``valid``
    and the riders: the data registers of that stage are inside a submodule (a
    :class:`~fhe_hw.arith.dsp.TileProduct`). ``clock_enable`` (default always) is the enable
    of the sync domain when ``m`` is under an ``EnableInserter``: the tile products of
    :func:`tile_products` take it, since the inserter does not reach their DSP primitives.
    """

    def __init__(self, m, valid, enabled=True, *, clock_enable=1):
        self._m = m
        self.clock_enable = clock_enable
        self.valid = valid
        self.latency = 0
        self._enabled = enabled
        self._riders = {}
        self._n = 0

    @property
    def m(self):
        """The Module the stages add their registers (and any submodule of theirs) to."""
        return self._m

    def ride(self, **values):
        self._riders.update(values)

    def __getitem__(self, name):
        return self._riders[name]

    def _reg(self, value, name):
        reg = Signal(Shape.cast(value.shape()), name=name)
        self._m.d.sync += reg.eq(value)
        return reg

    def cut(self, *values, enable=None):
        self._n += 1
        if not (self._enabled if enable is None else enable):
            return values
        self.valid = self._reg(self.valid, f"s{self._n}_valid")
        self._riders = {k: self._reg(v, f"s{self._n}_{k}") for k, v in self._riders.items()}
        self.latency += 1
        return tuple(self._reg(v, f"s{self._n}_{i}") for i, v in enumerate(values))


class Multiplier:
    """An unsigned ``a_width`` x ``b_width`` multiplier pipelined over ``stages`` registers.

    ``stages = 0`` is combinational. Otherwise ``b`` is split into ``chunk``-bit slices (18 by
    default: one ECP5 MULT18X18D / Xilinx DSP column); the partial products ``a * b_j`` are
    registered (stage 1) and summed by a binary tree of shifted additions whose levels are spread
    over the following registers, at most one register per level; each addition's carry chain
    spans only the bits where its operands overlap. This is the multi-stage pipelined multiplier
    of [Cao14] §3.2 / §4 (4 stages).

    ``tiled=True`` slices ``a`` too (``chunk`` defaults to 17 then: an unsigned 17 x 17
    product is one MULT18X18D), so each partial product is one
    :class:`~fhe_hw.arith.dsp.TileProduct` whose product register is the DSP's output register
    on an ECP5, and every sum happens in the registered tree. A register beyond the product
    register and one per tree level holds the operands, in the DSP's input registers.

    ``tile_reg=True`` (tiled only) puts a register in the fabric after each tile's product
    register, before the adder tree: on an ECP5 the placer can then put it between a DSP and the
    adder it feeds, which may lie across the die when many multipliers share the DSP rows. It
    counts in ``stages`` right after the product register (``stages`` is then at least 2).

    Registers beyond those go at the end. ``stages=None`` is the fast setting
    (:attr:`stages` becomes ``levels + 2`` tiled, ``levels + 1`` otherwise: a register for every
    tree level, and the operand register when tiled; one more with ``tile_reg``), where
    ``levels`` is the depth of the adder tree.

    ``karatsuba=True`` (tiled, square, both operands at least ``chunk + 1`` bits) makes one
    level of Karatsuba multiplication: with h = ⌈width/2⌉, a = a1·2^h + a0 and b likewise,
    the three products z0 = a0·b0, z2 = a1·b1 and z1 = (a0 + a1)(b0 + b1) are tiled, and
    a·b = z2·2^(2h) + (z1 − z0 − z2)·2^h + z0. For 64 bits that is 12 MULT18X18D instead of
    16. Its fast pipeline (the least :attr:`stages` it takes) is a register for the halves and
    their sums, the DSP's operand and product registers, one per tree level (the three trees
    side by side; ``levels`` is theirs), then z1 − z0, minus z2 and the final addition in two
    parts (the middle term's span, then the carry above it), one register each:
    ``levels + 7`` (``levels + 8`` with ``tile_reg``).
    """

    def __init__(self, a_width, b_width, stages=None, *, chunk=None, tiled=False,
                 karatsuba=False, tile_reg=False):
        self.a_width = require_int("a_width", a_width, minimum=1)
        self.b_width = require_int("b_width", b_width, minimum=1)
        self.tiled = check_bool("tiled", tiled)
        self.karatsuba = check_bool("karatsuba", karatsuba)
        self.tile_reg = check_bool("tile_reg", tile_reg)
        if tile_reg and not tiled:
            raise ValueError("tile_reg needs tiled=True")
        self.chunk = require_int("chunk", (17 if tiled else 18) if chunk is None else chunk,
                                 minimum=1)
        if tiled and self.chunk > DSP_WIDTH:
            raise ValueError(f"chunk must be at most {DSP_WIDTH} when tiled, not {chunk!r}")
        if karatsuba:
            if not tiled:
                raise ValueError("karatsuba needs tiled=True")
            if self.a_width != self.b_width or self.a_width <= self.chunk:
                raise ValueError(f"karatsuba needs equal operand widths above chunk = "
                                 f"{self.chunk} bits, not {self.a_width} x {self.b_width}")
            # The widest of the three products is z1's, (h + 1) x (h + 1) bits.
            slices = -(-(self.half + 1) // self.chunk)
            self.levels = (slices * slices - 1).bit_length()
            fast = self.levels + _KARATSUBA_EXTRA + self.tile_reg
        else:
            terms = (-(-self.b_width // self.chunk)
                     * (-(-self.a_width // self.chunk) if tiled else 1))
            self.levels = (terms - 1).bit_length()
            fast = self.levels + 1 + self.tiled + self.tile_reg
        self.stages = fast if check_mult_stages(stages) is None else stages
        if karatsuba and self.stages < fast:
            raise ValueError(f"mult_stages must be at least {fast} with karatsuba, not "
                             f"{stages!r}")
        if self.tile_reg and self.stages < 2:
            raise ValueError(f"mult_stages must be at least 2 with tile_reg, not {stages!r}")

    @property
    def half(self):
        """h = ⌈a_width/2⌉, the low half's width (Karatsuba)."""
        return -(-self.a_width // 2)

    @property
    def tile_count(self):
        """The partial products (DSP tiles when tiled; 18-bit slices of b otherwise)."""
        c = self.chunk
        if self.karatsuba:
            h, high = self.half, self.a_width - self.half
            return sum((-(-x // c)) ** 2 for x in (h, h + 1, high))
        return -(-self.b_width // c) * (-(-self.a_width // c) if self.tiled else 1)

    @property
    def product_width(self):
        return self.a_width + self.b_width

    def build(self, st, a, b):
        """Emit a * b into the pipeline ``st`` (a :class:`Stages`) and return the product. A
        constant operand is given as a :class:`~amaranth.hdl.Const`."""
        width = self.product_width
        if self.stages == 0:
            return (a * b)[:width]
        if self.karatsuba:
            return self._build_karatsuba(st, a, b)[:width]
        c, levels = self.chunk, self.levels
        fixed = 1 + self.tile_reg       # the product register and the tile register
        tree_regs = min(self.stages - fixed, levels)
        operand_reg = self.tiled and self.stages - fixed > levels
        if self.tiled:
            terms, _ = tile_products(st, a, b, self.a_width, self.b_width, chunk=c,
                                     operand_reg=operand_reg)
            if self.tile_reg:
                (terms,), _ = _cut_terms(st, [terms])
        else:
            products = [(a * _slice(b, lo, c), lo) for lo in range(0, self.b_width, c)]
            parts = st.cut(*(p for p, _ in products), enable=True)
            terms = list(zip(parts, (lo for _, lo in products)))
        product = add_terms(st, terms, tree_regs)
        for _ in range(self.stages - fixed - tree_regs - operand_reg):
            product, = st.cut(product, enable=True)
        return product[:width]

    def _build_karatsuba(self, st, a, b):
        if isinstance(a, Const) or isinstance(b, Const):
            raise TypeError("karatsuba multiplies run-time operands, not a constant")
        w, h, c = self.a_width, self.half, self.chunk
        a0, a1, sa, b0, b1, sb = st.cut(a[:h], a[h:w], a[:h] + a[h:w], b[:h], b[h:w],
                                        b[:h] + b[h:w], enable=True)
        trees = [_tiles(st, x, y, x_width, x_width, chunk=c, operand_reg=True)
                 for x, y, x_width in ((a0, b0, h), (sa, sb, h + 1), (a1, b1, w - h))]
        st.cut(enable=True)     # the DSPs' operand registers
        st.cut(enable=True)     # and their product registers
        if self.tile_reg:
            trees, _ = _cut_terms(st, trees)
        (z0, z1, z2), _ = _add_trees(st, trees, self.levels)
        # z1 - z0 = a0·b1 + a1·b0 + a1·b1 >= 0; minus z2 leaves the middle term, < 2^(2h+1).
        low_high = Cat(z0[:2 * h], z2)
        diff, low_high, z2 = st.cut((z1 - z0)[:2 * h + 2], low_high, z2, enable=True)
        span = 2 * h + 1
        middle, low_high = st.cut((diff - z2)[:span], low_high, enable=True)
        # The final addition in two registered parts: the middle term's span, then the carry
        # into the bits above it (98 bits in one chain at 64 bits would be the longest path).
        low_sum, low, high = st.cut(low_high[h:h + span] + middle, low_high[:h],
                                    low_high[h + span:], enable=True)
        product, = st.cut(Cat(low, low_sum[:span], high + low_sum[span]), enable=True)
        for _ in range(self.stages - self.levels - _KARATSUBA_EXTRA - self.tile_reg):
            product, = st.cut(product, enable=True)
        return product


def tile_products(st, a, b, a_width, b_width, *, chunk=17, operand_reg=True, along=()):
    """The partial products of ``a`` and ``b`` (``a_width``/``b_width`` bits; a constant as a
    :class:`~amaranth.hdl.Const`) cut into ``chunk``-bit tiles: one
    :class:`~fhe_hw.arith.dsp.TileProduct` each in ``st``'s module (with its clock enable),
    and ``st`` advanced by
    their latency (the operand register with ``operand_reg``, and the product register), the
    values ``along`` registered with them. Returns ``(terms, along)``: ``(product, offset)``
    terms in increasing offset for :func:`add_terms` and the registered ``along``."""
    terms = _tiles(st, a, b, a_width, b_width, chunk=chunk, operand_reg=operand_reg)
    for _ in range(1 + operand_reg):
        along = st.cut(*along, enable=True)
    return terms, along


def _tiles(st, a, b, a_width, b_width, *, chunk, operand_reg):
    """The :class:`~fhe_hw.arith.dsp.TileProduct` s of :func:`tile_products`, added to ``st``'s
    module, as ``(product, offset)`` terms in increasing offset; ``st`` is not advanced."""
    tiles = sorted(((tile_product(st.m, _slice(a, i, chunk), _slice(b, j, chunk),
                                  operand_reg=operand_reg, enable=st.clock_enable), i + j)
                    for i in range(0, a_width, chunk) for j in range(0, b_width, chunk)),
                   key=lambda t: t[1])
    return [(tile.p, lo) for tile, lo in tiles]


def add_terms(st, terms, registers, *, carry=None, along=None):
    """The sum of ``(value, offset)`` terms (offsets increasing) by a binary tree of shifted
    additions, ``levels = ⌈log2(len(terms))⌉`` deep, with ``registers`` (at most ``levels``)
    cuts of ``st`` spread over its levels. Each addition's carry chain starts where its
    operands overlap. ``carry`` (one bit) enters the first addition, whose terms must have
    the same offset, as its carry in. Returns the sum, at the first term's offset, or with
    ``along`` (a tuple of values registered at the same cuts) ``(sum, along)``."""
    (total,), rest = _add_trees(st, [terms], registers, carry=carry,
                                along=() if along is None else along)
    return total if along is None else (total, rest)


def add_term_lists(st, lists, registers, *, carry=None):
    """:func:`add_terms` of several lists of ``(value, offset)`` terms side by side, cut at the
    same ``registers`` (spread over the deepest list's levels), ``carry`` (one bit) the carry
    in of the first list's first addition: their sums, in order."""
    return _add_trees(st, lists, registers, carry=carry)[0]


def _cut_terms(st, trees, along=()):
    """The ``(value, offset)`` term lists ``trees`` after one cut of ``st``, and ``along`` (a
    tuple of values) registered at the same cut: ``(trees, along)``."""
    flat = [t for terms in trees for t, _ in terms]
    regs = st.cut(*flat, *along, enable=True)
    rest, out = tuple(regs[len(flat):]), []
    for terms in trees:
        out.append(list(zip(regs[:len(terms)], (lo for _, lo in terms))))
        regs = regs[len(terms):]
    return out, rest


def _add_trees(st, trees, registers, *, carry=None, along=()):
    """:func:`add_terms` of several term lists side by side, cut at the same registers (spread
    over the deepest tree's levels; ``carry`` enters the first list's). Returns the sums and
    the registered ``along``."""
    levels = max((len(terms) - 1).bit_length() for terms in trees)
    cut_after = {round((n + 1) * levels / registers) - 1 for n in range(registers)}
    rest = along
    for level in range(levels):
        trees = [[_add_pair(terms[i:i + 2], carry if i == level == k == 0 else None)
                  for i in range(0, len(terms), 2)] for k, terms in enumerate(trees)]
        if level in cut_after:
            trees, rest = _cut_terms(st, trees, rest)
    return [terms[0][0] for terms in trees], rest


def _slice(value, lo, width):
    """``value[lo:lo + width]``, a :class:`~amaranth.hdl.Const` when ``value`` is one."""
    if isinstance(value, Const):
        return Const((value.value >> lo) & ((1 << width) - 1), min(width, len(value) - lo))
    return value[lo:lo + width]


def _add_pair(pair, carry=None):
    """The sum of two (value, offset) terms, offset of the first <= the second's, plus
    ``carry`` (a bit, at the first's offset); without a carry the low bits that only the first
    term has are passed through, so the carry chain starts where the terms overlap."""
    if len(pair) == 1:
        return pair[0]
    (x, lo_x), (y, lo_y) = pair
    shift = lo_y - lo_x
    if carry is not None:
        # One chain with a carry in: bit 0 of Cat(c, x) + Cat(c, y) is 2c, a carry of c (with
        # terms at different offsets the chain starts at the first's bit 0).
        if shift:
            y = Cat(Const(0, shift), y)
        return ((Cat(carry, x) + Cat(carry, y))[1:], lo_x)
    if shift >= len(x):
        return (Cat(x, Const(0, shift - len(x)), y), lo_x)
    return (Cat(x[:shift], x[shift:] + y), lo_x)
