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

from amaranth import Elaboratable, Module, Mux, Signal

from ..lib.delay import delay_line
from .serial import Timing

__all__ = ["PreComputeStage", "PreCrossbar"]


class PreComputeStage(Elaboratable):
    """One Karatsuba pre-computation of both operands (P and Q) on one channel.

    Parameters: ``node`` (coefficients per sub-polynomial, even), ``digits``, ``digit_bits``,
    ``period`` (cycles of the engine's schedule), ``time`` (label of the input).

    Ports: ``p``, ``q`` (in, one digit each per cycle); ``pass_p``, ``pass_q`` (out: the input,
    registered); ``sum_p``, ``sum_q`` (out: P_L + P_H during the second half of each
    sub-polynomial, 0 otherwise). Latency 1. The FIFO holds node/2 coefficients of both
    operands (``node/2 · digits`` words of 2·digit_bits bits). The last digit's carry is dropped:
    the engine guarantees that the sums fit the carrier.
    """

    def __init__(self, node, digits, digit_bits, period, time):
        self.node, self.digits, self.period, self.time = node, digits, period, time
        self.p, self.q = Signal(digit_bits), Signal(digit_bits)
        self.pass_p, self.pass_q = Signal(digit_bits), Signal(digit_bits)
        self.sum_p, self.sum_q = Signal(digit_bits), Signal(digit_bits)

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


class PreCrossbar(Elaboratable):
    """Channel delays and the multiplexers that feed the sub-multipliers ([Mig16] §III-A1 "pre-
    crossbar", with the schedule of :func:`~fhe_hw.karatsuba.schedule.crossbar_schedule`).

    Ports: ``channels`` (in, list of (p, q) digit pairs, one per channel, label ``time``);
    ``lines`` (out, list of (a, b) digit pairs, one per sub-multiplier, label ``time + 1``),
    zero in slots without a leaf. Storage: ``delay[c]`` slots of both operands per channel.
    """

    def __init__(self, schedule, slot, digit_bits, period, time):
        self.schedule, self.slot, self.period, self.time = schedule, slot, period, time
        n = 1 << schedule.recursions
        self.channels = [(Signal(digit_bits, name=f"ch{c}_p"), Signal(digit_bits, name=f"ch{c}_q"))
                         for c in range(n)]
        self.lines = [(Signal(digit_bits, name=f"line{ln}_a"), Signal(digit_bits,
                                                                       name=f"line{ln}_b"))
                      for ln in range(schedule.lines)]

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
