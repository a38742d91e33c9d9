"""Shared pieces of every fixed-latency arithmetic pipeline: the base Component with always-ready
``i``/``o`` streams and a ``latency`` property, the stage register helper that carries ``valid``
with the data, and a pipelined multiplier.

Convention: ``latency`` is the number of clock cycles from an input transfer to the
matching output ``valid``; a latency of 0 means the unit is combinational.
"""

from amaranth import Shape, Signal
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..params import check_bool, require_int

__all__ = ["FixedLatencyUnit", "Stages", "Multiplier", "check_stages", "MAX_STAGES"]


#: The most registers a unit takes in one pipeline (a multiplier's stages, say): deeper than
#: any multiplier needs, and small enough that a mistyped value is refused at once.
MAX_STAGES = 16


def check_stages(name, value, maximum=MAX_STAGES):
    """Return ``value`` if it is a register count in ``[0, maximum]``; raise
    ``TypeError``/``ValueError`` otherwise."""
    return require_int(name, value, minimum=0, maximum=maximum)


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


class Stages:
    """Cuts a combinational data path into pipeline stages.

    ``st = Stages(m, valid)`` starts at the input; ``a, b = st.cut(a, b)`` returns registered
    copies of the values when that cut point is enabled, or the values themselves when it is not;
    it always returns a tuple. ``valid`` and every value handed to :meth:`ride` are registered at
    each enabled cut too, so data that bypasses a multiplier stays aligned with it (``st[name]``
    is the current copy). ``st.latency`` counts the enabled cuts so far, so a unit's latency
    follows from the code that builds it.
    """

    def __init__(self, m, valid, enabled=True):
        self._m = m
        self.valid = valid
        self.latency = 0
        self._enabled = enabled
        self._riders = {}
        self._n = 0

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
    over the remaining ``stages - 1`` registers (spare registers go at the end, where synthesis
    may retime them). This is the multi-stage pipelined multiplier of [Cao14] §3.2 / §4 (4 stages).

    ``tiled=True`` slices ``a`` too (``chunk`` defaults to 17 then: an unsigned 17 x 17
    product is one MULT18X18D), so each registered partial product is a single DSP output and
    every sum happens in the registered tree; same latency. On the ECP5-85F four tiled
    solinas64 ModMuls route in 25 router2 iterations at 73.96 MHz, against 87 iterations and
    50.14 MHz untiled (``tools/modmul_array_synth.py --count 4 [--tiled]``).
    """

    def __init__(self, a_width, b_width, stages, *, chunk=None, tiled=False):
        self.a_width = require_int("a_width", a_width, minimum=1)
        self.b_width = require_int("b_width", b_width, minimum=1)
        self.stages = check_stages("mult_stages", stages)
        self.tiled = check_bool("tiled", tiled)
        self.chunk = require_int("chunk", (17 if tiled else 18) if chunk is None else chunk,
                                 minimum=1)

    @property
    def product_width(self):
        return self.a_width + self.b_width

    def build(self, st, a, b):
        """Emit a * b into the pipeline ``st`` (a :class:`Stages`) and return the product."""
        width = self.product_width
        if self.stages == 0:
            return (a * b)[:width]
        c = self.chunk
        if self.tiled:
            products = sorted(((a[i:i + c] * b[j:j + c], i + j)
                               for i in range(0, self.a_width, c)
                               for j in range(0, self.b_width, c)), key=lambda t: t[1])
        else:
            products = [(a * b[lo:lo + c], lo) for lo in range(0, self.b_width, c)]
        parts = st.cut(*(p for p, _ in products), enable=True)
        terms = list(zip(parts, (lo for _, lo in products)))
        levels = (len(terms) - 1).bit_length()
        spare = self.stages - 1
        cut_after = {round((n + 1) * levels / spare) - 1 for n in range(spare)} & set(range(levels))
        for level in range(levels):
            terms = [_add_pair(terms[i:i + 2]) for i in range(0, len(terms), 2)]
            if level in cut_after:
                regs = st.cut(*(t for t, _ in terms), enable=True)
                terms = list(zip(regs, (lo for _, lo in terms)))
        (product, _), = terms
        for _ in range(spare - len(cut_after)):
            product, = st.cut(product, enable=True)
        return product[:width]


def _add_pair(pair):
    if len(pair) == 1:
        return pair[0]
    (x, lo_x), (y, lo_y) = pair
    return (x + (y << (lo_y - lo_x)), lo_x)
