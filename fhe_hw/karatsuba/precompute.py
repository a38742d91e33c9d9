"""Karatsuba pre-computation and pre-crossbar: [Mig16] §III-A1, Fig. 2, Fig. 3,
Fig. 5.

One :class:`PreComputeStage` splits a channel of sub-polynomials of ``node`` coefficients, which
arrive digit-serially in ascending order: a FIFO keeps the first half (P_L) while it passes
through, and while the second half (P_H) passes through the stage adds it digit by digit to the
stored half, producing P_L + P_H on a fresh channel. r stages on 1, 2, 4, ... channels produce
the 2^r channels of :func:`fhe_hw.model.karatsuba.leaf_schedule`. The :class:`PreCrossbar` then
delays each channel and multiplexes the channels onto the sub-multipliers (see
:mod:`fhe_hw.karatsuba.schedule`).
"""

from amaranth import Module, Mux
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..lib.delay import delay_line
from .serial import Timing

__all__ = ["PreComputeStage", "PreCrossbar"]


class PreComputeStage(Component):
    """One Karatsuba pre-computation of both operands (P and Q) on one channel.

    Latency 1. The FIFO holds node/2 coefficients of both operands (``node/2 · digits`` words
    of 2·digit_bits bits). The last digit's carry is dropped: the engine guarantees that the
    sums fit the carrier. Lock-step: the ports carry a digit every cycle, without ``valid``.

    Parameters
    ----------
    node : int
        Coefficients per sub-polynomial, even.
    digits, digit_bits : int
        Digits per coefficient and their width.
    period : int
        Cycles of the engine's schedule.
    time : int
        Label of the input.

    Attributes
    ----------
    p, q : In(digit_bits)
        One digit of each operand per cycle.
    pass_p, pass_q : Out(digit_bits)
        The input, registered.
    sum_p, sum_q : Out(digit_bits)
        P_L + P_H during the second half of each sub-polynomial, 0 otherwise.
    """

    def __init__(self, node, digits, digit_bits, period, time):
        self.node, self.digits, self.period, self.time = node, digits, period, time
        super().__init__({name: In(digit_bits) if name in "pq" else Out(digit_bits)
                          for name in ("p", "q", "pass_p", "pass_q", "sum_p", "sum_q")})

    def elaborate(self, platform):
        m = Module()
        t = Timing(m, self.period)
        half = self.node // 2 * self.digits
        low_p, low_q = delay_line(m, [self.p, self.q], half, name="fifo")
        second = t.flag(self.time, self.node * self.digits, lambda phase: phase >= half)
        sum_p, sum_q = (t.serial_add(low, x, self.time, self.digits, name=name)
                        for low, x, name in ((low_p, self.p, "carry_p"),
                                             (low_q, self.q, "carry_q")))
        m.d.sync += [self.pass_p.eq(self.p), self.pass_q.eq(self.q),
                     self.sum_p.eq(Mux(second, sum_p, 0)), self.sum_q.eq(Mux(second, sum_q, 0))]
        return m


class PreCrossbar(Component):
    """Channel delays and the multiplexers that feed the sub-multipliers ([Mig16] §III-A1 "pre-
    crossbar", with the schedule of :func:`~fhe_hw.karatsuba.schedule.crossbar_schedule`).

    Storage: ``delay[c]`` slots of both operands per channel. Lock-step, without ``valid``.

    Parameters
    ----------
    schedule : CrossbarSchedule
        The leaves' slots, delays and lines
        (:func:`~fhe_hw.karatsuba.schedule.crossbar_schedule`).
    slot : int
        Cycles of one leaf slot.
    digit_bits, period, time : int
        Digit width, cycles of the engine's schedule, label of the input.

    Attributes
    ----------
    channels : In(digit_bits).array(2^r, 2)
        The (p, q) digits of each channel, label ``time``.
    lines : Out(digit_bits).array(lines, 2)
        The (a, b) digits of each sub-multiplier, label ``time + 1``, zero in slots without a
        leaf.
    """

    def __init__(self, schedule, slot, digit_bits, period, time):
        self.schedule, self.slot, self.period, self.time = schedule, slot, period, time
        super().__init__({"channels": In(digit_bits).array(1 << schedule.recursions, 2),
                          "lines": Out(digit_bits).array(schedule.lines, 2)})

    def elaborate(self, platform):
        m = Module()
        t = Timing(m, self.period)
        delayed = [delay_line(m, list(pq), self.schedule.delay[c] * self.slot, name=f"delay{c}")
                   for c, pq in enumerate(self.channels)]
        slot = t.index(self.time, self.slot, self.schedule.period)
        for ln, row in enumerate(self.schedule.table()):
            a, b = self.lines[ln]
            with m.Switch(slot):
                for s, c in enumerate(row):
                    if c is not None:
                        with m.Case(s):
                            m.d.sync += [a.eq(delayed[c][0]), b.eq(delayed[c][1])]
                with m.Default():
                    m.d.sync += [a.eq(0), b.eq(0)]
        return m
