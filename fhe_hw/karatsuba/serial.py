"""The digit-serial toolbox of the Karatsuba datapath ([Mig16] §III: "all
elementary operations, including adders, subtractors and multipliers, are serialized").

The Karatsuba engines are lock-step pipelines: every register advances on the same (enabled)
clock edge, and the work repeats with a period of ``period`` cycles (one product). A value that
flows through the datapath is described by its *time label* τ: the element at offset 0 of a
product (the first digit of the first coefficient, or the first chunk of the first output
beat) is present at cycle g ≡ τ (mod period), where g counts enabled cycles since reset. Every
block derives the phase it needs (digit index, frame half, slot index) from counters that start
at reset with an initial value computed from τ, so no control signal travels with the data.

* :class:`Timing` — those phase counters, cached per (τ, frame length).
* :func:`serial_add` — a digit-serial adder/subtracter: one digit per cycle, least significant
  first, the carry kept in a flip-flop and re-initialised on the first digit.
"""

from amaranth import Cat, Const, Mux, Signal

from ..arith.pipeline import wrap_inc
from ..params import require_int

__all__ = ["Timing", "serial_add"]


class Timing:
    """Phase counters of a lock-step datapath with a ``period``-cycle schedule, built in
    ``module``'s sync domain (so they stop with the datapath's clock enable).

    ``phase(time, length)`` is ((g - time) mod period) reduced to frames of ``length`` cycles that
    restart at every period: for ``length`` dividing ``period`` a free-running counter, otherwise
    a counter cleared when the period counter wraps (frames then tile only the part of the period
    that holds data, which is what the engines use them for). ``index(time, unit, count)``
    counts ``unit``-cycle blocks modulo ``count`` (``unit * count`` must divide ``period``).
    """

    def __init__(self, module, period):
        self._m = module
        self.period = require_int("period", period, minimum=1)
        self._cache = {}

    def phase(self, time, length=None):
        length = self.period if length is None else length
        key = ("phase", time % self.period, length)
        if key not in self._cache:
            init = (-time) % self.period
            sig = Signal(range(length), init=init % length,
                         name=f"phase{length}_t{time % self.period}")
            wrap = sig == length - 1
            if self.period % length:
                wrap = wrap | (self.phase(time) == self.period - 1)
            self._m.d.sync += sig.eq(Mux(wrap, 0, sig + 1))
            self._cache[key] = sig
        return self._cache[key]

    def flag(self, time, length, test=0):
        """A register equal to ``test`` of ``phase(time, length)`` in every cycle (``test``: a
        phase value to compare with, or a function of the phase, called on the counter and on
        its initial value): its next value is the test one cycle ahead (on
        ``phase(time - 1, length)``), so its loads see a flip-flop instead of a shared
        counter's decoder or comparator. A new register on every call, for one group of loads
        (not cached)."""
        length = self.period if length is None else length
        check = test if callable(test) else (lambda phase: phase == test)
        init = bool(check((-time) % self.period % length))
        sig = Signal(init=init, name=f"flag{length}_t{time % self.period}")
        self._m.d.sync += sig.eq(check(self.phase(time - 1, length)))
        return sig

    def serial_add(self, a, b, time, length, *, subtract=False, name="carry"):
        """:func:`serial_add` for digits whose least significant one is at phase 0 of
        ``phase(time, length)``: the carry flip-flop holds the next digit's carry-in itself
        (loaded with the first digit's carry-in when :meth:`flag` ``(time - 1, length)`` says
        the next digit is a first one), so it drives the carry chain with no selection in
        between."""
        width = len(a)
        first_now = (-time) % self.period % length == 0
        carry = Signal(name=name, init=int(subtract and first_now))
        total = a + _operand(b, width, subtract) + carry
        self._m.d.sync += carry.eq(Mux(self.flag(time - 1, length), int(subtract),
                                       total[width]))
        return total[:width]

    def index(self, time, unit, count):
        if self.period % (unit * count):
            raise ValueError(f"unit * count must divide the period {self.period}, "
                             f"not {unit} * {count}")
        key = ("index", time % self.period, unit, count)
        if key not in self._cache:
            init = ((-time) % self.period) // unit % count
            sig = Signal(range(count), init=init, name=f"index{unit}x{count}_t{time % self.period}")
            with self._m.If(self.phase(time, unit) == unit - 1):
                self._m.d.sync += sig.eq(wrap_inc(sig, count - 1))
            self._cache[key] = sig
        return self._cache[key]


def _operand(b, width, subtract):
    """b cut or zero-extended to ``width`` bits, inverted for a subtraction."""
    operand = b[:width] if len(b) >= width else Cat(b, Const(0, width - len(b)))
    return ~operand if subtract else operand


def serial_add(m, a, b, first, *, subtract=False, name="carry"):
    """One digit of a ± b, least significant digit first: returns the ``len(a)``-bit digit
    (combinational) and keeps the carry (borrow, for ``subtract``) in a flip-flop of ``m``'s
    sync domain; ``first`` marks the least significant digit, whose carry-in is 0 (1 for a
    subtraction, a - b = a + ~b + 1). The result is exact modulo 2^(digits·width).
    :meth:`Timing.serial_add` is the same adder for digits on a phase counter's frames, with
    no selection before the carry chain."""
    width = len(a)
    carry = Signal(name=name)
    total = a + _operand(b, width, subtract) + Mux(first, int(subtract), carry)
    m.d.sync += carry.eq(total[width])
    return total[:width]
