"""The static layout of a Karatsuba-r engine ([Mig16] §III): the pre-crossbar
schedule that packs the 3^r leaves onto 2^(r-1) serial polynomial multipliers (§III-A1, Fig. 3;
§III-B2, Fig. 5), the bit widths derived from the golden model's bounds, and the time label of
every stage (see :mod:`fhe_hw.karatsuba.serial`), from which ``cycles()`` follows.

Pre-crossbar. After r pre-computation stages, leaf ``path`` of :func:`fhe_hw.model.karatsuba.
leaf_schedule` sits on channel c in slot t (c ⊆ t bitwise; a slot is one leaf of ``leaf``
coefficients, ``leaf·digits`` cycles). Our crossbar delays every channel c as a whole by
``delay[c]`` slots (a FIFO in block RAM) and connects it to sub-multiplier ``line[c]``; a
multiplier then takes, in slot s of the period, the one channel whose delayed leaf falls there.
Because a channel keeps its order, the post-crossbar needs no multiplexers: channel c's products
leave multiplier ``line[c]`` ``delay[c]`` slots late, and each post-computation unit only delays
the earlier of its two inputs by the difference (the "successive partial post-crossbars" of
§III-A3). The tables for r = 1, 2, 3 were found by exhaustive search for the least storage
(pre-side delay slots, plus twice the post-side alignment slots since products are about twice
as wide as operands); :func:`check_schedule` verifies them. For r >= 4 the Karatsuba-3 table is
reused on each block of 8 channels with 4 fresh multipliers, as §III-B2 prescribes, so the
last post-computations need no alignment.

r = 3 (period 8 slots, 4 multipliers, 27 of 32 multiplier slots busy — the 84.38 % of §III-B2):

    channel  0  1  2  3  4  5  6  7
    line     0  1  2  2  3  1  3  1
    delay    1  1  0  1  0  0  2  2

Karatsuba-1 and -2 have more leaves (3, 9) than 2^(r-1) multipliers offer slots per
polynomial (2, 8), so their period is longer than the input: 3 slots for 2 (one multiplier) and
5 slots for 4 (two multipliers); the input stream is stalled in the extra slots.
"""

from dataclasses import dataclass
from functools import cached_property

from ..model.karatsuba import leaf_schedule
from ..params import check_bool, require_int
from .postcompute import PostComputeUnit
from .submultiplier import SerialPolyMultiplier, beat_delay

__all__ = ["CrossbarSchedule", "crossbar_schedule", "check_schedule", "KaratsubaLayout",
           "MAX_RECURSIONS"]

#: The most recursions a hardware unit takes: [Mig16] builds 3, 4 and 5; each more triples
#: the sub-multipliers (5: 243) and the time to generate them.
MAX_RECURSIONS = 5
#: Upper bounds of the other sizes, far beyond [Mig16]'s (leaf 5, 125-bit coefficients, 27-bit
#: digits, 5 words), so that a mistyped value is refused at once instead of elaborating for
#: minutes: coefficients per leaf, coefficient and word bits, digit bits, digits per carrier,
#: word polynomials per relinearization group.
MAX_LEAF = 32
MAX_COEFF_BITS = 4096
MAX_DIGIT_BITS = 64
MAX_DIGITS = 256
MAX_WORDS = 64

# (multipliers, period in slots, line per channel, delay per channel): found by search.
_TABLES = {
    1: (1, 3, (0, 0), (0, 1)),
    2: (2, 5, (0, 1, 1, 0), (0, 0, 2, 1)),
    3: (4, 8, (0, 1, 2, 2, 3, 1, 3, 1), (1, 1, 0, 1, 0, 0, 2, 2)),
}


@dataclass(frozen=True)
class CrossbarSchedule:
    """Where each pre-computation channel goes: ``line[c]`` (sub-multiplier) and ``delay[c]``
    (slots); the schedule repeats every ``period`` slots."""

    recursions: int
    lines: int
    period: int
    line: tuple
    delay: tuple

    def table(self):
        """``table[l][s]``: the channel that multiplier l takes in slot s of the period (or
        ``None``), from :func:`~fhe_hw.model.karatsuba.leaf_schedule`."""
        table = [[None] * self.period for _ in range(self.lines)]
        for leaf in leaf_schedule(self.recursions):
            c = leaf.channel
            table[self.line[c]][(leaf.slot + self.delay[c]) % self.period] = c
        return table


def crossbar_schedule(recursions):
    """The pre-crossbar schedule of Karatsuba-r (see the module docstring). Raises
    ``ValueError`` if recursions < 1."""
    require_int("recursions", recursions, minimum=1)
    if recursions in _TABLES:
        lines, period, line, dly = _TABLES[recursions]
    else:
        lines3, _, line3, delay3 = _TABLES[3]
        channels = range(1 << recursions)
        lines, period = lines3 << (recursions - 3), 1 << recursions
        line = tuple(line3[c % 8] + lines3 * (c // 8) for c in channels)
        dly = tuple(delay3[c % 8] for c in channels)
    schedule = CrossbarSchedule(recursions, lines, period, line, dly)
    check_schedule(schedule)
    return schedule


def check_schedule(schedule):
    """Raise ``ValueError`` unless every leaf of :func:`leaf_schedule` gets its own
    (multiplier, slot mod period) and the period is at least the 2^r slots of the input."""
    r = schedule.recursions
    if schedule.period < 1 << r:
        raise ValueError(f"period must be at least 2**recursions = {1 << r} slots, "
                         f"not {schedule.period}")
    if len(schedule.line) != 1 << r or len(schedule.delay) != 1 << r:
        raise ValueError(f"schedule must map all {1 << r} channels")
    taken = {}
    for leaf in leaf_schedule(r):
        c = leaf.channel
        if not 0 <= schedule.line[c] < schedule.lines or schedule.delay[c] < 0:
            raise ValueError(f"channel {c} has no valid line or delay")
        key = (schedule.line[c], (leaf.slot + schedule.delay[c]) % schedule.period)
        if key in taken:
            raise ValueError(f"leaves {taken[key]} and {leaf.path} collide on multiplier "
                             f"{key[0]} in slot {key[1]}")
        taken[key] = leaf.path


def _bits(value):
    return max(1, value.bit_length())


@dataclass(frozen=True)
class PostUnitPlan:
    """One post-computation unit: pass channel ``x`` (Z_L then Z_H), sum channel ``y`` (Z_S),
    child size ``m`` coefficients, the alignment delays (cycles) of the two inputs, the time
    label of the aligned inputs and of the output."""

    level: int
    x: int
    y: int
    m: int
    pass_delay: int
    sum_delay: int
    time: int
    out_time: int


class KaratsubaLayout:
    """Sizes, widths and time labels of a Karatsuba-r engine multiplying operands of
    ``a_bits`` and ``b_bits`` bits (and accumulating ``words`` products for relinearization).

    Widths (A = 2^a_bits - 1, B = 2^b_bits - 1): r pre-computation additions grow operands to
    ``max(a_bits, b_bits) + r`` bits, which must fit the carrier of ``digits`` digits. A node at
    depth k with s sum letters multiplies operands below 2^s·A, 2^s·B of leaf·2^(r-k)
    coefficients, so every leaf product and post-computation value is at most leaf·4^r·A·B
    (``leaf_bits``); the final product coefficients are at most words·n·A·B (``out_bits``).
    The chunk-serial post-computation computes modulo 2^(digits·chunk_bits), which exceeds both.

    The units' plans (:class:`~fhe_hw.karatsuba.multiplier.KaratsubaMultiplierPlan`,
    :class:`~fhe_hw.karatsuba.relin.KaratsubaRelinearizerPlan`) derive it from their
    parameters. ``pipelined`` (default ``True``) selects the sub-multipliers' and
    post-computations' extra registers
    (:class:`~fhe_hw.karatsuba.submultiplier.SerialPolyMultiplier`,
    :class:`~fhe_hw.karatsuba.postcompute.PostComputeUnit`); the time labels follow.
    """

    def __init__(self, recursions, leaf, a_bits, b_bits, digit_bits, digits, words=1, *,
                 pipelined=True):
        self.recursions = r = require_int("recursions", recursions, minimum=1)
        self.leaf = require_int("leaf", leaf, minimum=1)
        self.a_bits = require_int("a_bits", a_bits, minimum=1)
        self.b_bits = require_int("b_bits", b_bits, minimum=1)
        self.digit_bits = require_int("digit_bits", digit_bits, minimum=1)
        self.digits = require_int("digits", digits, minimum=1)
        self.words = require_int("words", words, minimum=1)
        self.pipelined = check_bool("pipelined", pipelined)
        self.schedule = crossbar_schedule(r)
        self.size = leaf << r
        self.slot = leaf * digits
        self.period = self.schedule.period * self.slot
        self.data_cycles = self.size * digits
        a, b = (1 << a_bits) - 1, (1 << b_bits) - 1
        self.leaf_bits = _bits(leaf * 4 ** r * a * b)
        self.out_bits = _bits(words * self.size * a * b)
        self.chunk_bits = -(-max(self.leaf_bits, self.out_bits) // digits)
        self.beat_delay = beat_delay(leaf)

    # --- time labels (cycles after the first input digit of a product enters the core) --------

    @property
    def input_time(self):
        """Label of the operand digits entering the pre-computation: 1 when ``pipelined`` (a
        register between the engine's input FIFO and the first pre-computation adders), else
        0."""
        return int(self.pipelined)

    @property
    def precompute_time(self):
        """Label of the 2^r pre-computation channels (one register per stage)."""
        return self.input_time + self.recursions

    @property
    def line_time(self):
        """Label of the sub-multiplier inputs (the crossbar multiplexer is registered)."""
        return self.precompute_time + 1

    @property
    def multiplier_latency(self):
        """:meth:`SerialPolyMultiplier.latency_of <fhe_hw.karatsuba.submultiplier.
        SerialPolyMultiplier.latency_of>`."""
        return SerialPolyMultiplier.latency_of(self.leaf, self.digits, self.pipelined)

    @property
    def line_out_time(self):
        return self.line_time + self.multiplier_latency

    @cached_property
    def post_units(self):
        """The post-computation units, innermost level first, with their alignment."""
        r, D = self.recursions, self.digits
        label = {c: self.line_out_time + self.schedule.delay[c] * self.slot
                 for c in range(1 << r)}
        units = []
        for level in range(r - 1, -1, -1):
            bit = 1 << (r - 1 - level)
            m = self.leaf << (r - 1 - level)
            for x in range(0, 1 << r, 2 * bit):
                y = x | bit
                time = max(label[x], label[y])
                out = time + PostComputeUnit.latency_of(m, D, self.pipelined)
                units.append(PostUnitPlan(level, x, y, m, time - label[x], time - label[y],
                                          time, out))
                label[x] = out
        return tuple(units)

    @property
    def product_time(self):
        """Label of the chunk-serial product (2 coefficients per beat) on channel 0."""
        return self.post_units[-1].out_time

    @property
    def beat_time(self):
        """Label of the assembled output beat register."""
        return self.product_time + self.digits

    @property
    def multipliers(self):
        """digit_bits x digit_bits multipliers: ``digits`` per coefficient lane, ``leaf`` lanes
        per serial polynomial multiplier, one multiplier per line."""
        return self.schedule.lines * self.leaf * self.digits

    @property
    def utilization(self):
        """Busy fraction of the sub-multipliers' slots."""
        return 3 ** self.recursions / (self.schedule.lines * self.schedule.period)
