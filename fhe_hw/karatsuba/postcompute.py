"""Karatsuba post-computation: [Mig16] §II-B and §III-A3 (Fig. 2).

A node of 2m operand coefficients recombines the products of its children (2m - 1 coefficients
each) as Z = Z_L + (Z_S - Z_L - Z_H)·x^m + Z_H·x^(2m), like
:func:`fhe_hw.model.karatsuba.karatsuba_postcompute`. Products travel as beats of two
coefficients (c_2b, c_2b+1), one beat per coefficient-time, each beat as ``digits`` chunks of
``chunk_bits`` bits, least significant first, so every adder is ``chunk_bits`` wide and
digit-serial (the paper serialises all operations on 27-bit digits; our chunks are about two
digits wide because products are twice as wide as operands).

The pass channel carries Z_L during the first half of a node frame and Z_H during the second;
the sum channel carries Z_S during the second half. The unit forms D = Z_S - Z_L - Z_H while
Z_H and Z_S arrive (a FIFO of m beats keeps Z_L), and emits Z beat b = the pass channel
delayed by ⌈m/2⌉ beats plus the coefficients 2b - m, 2b + 1 - m of D (which, for odd m, swap
lanes with a one-beat delay on one lane). Arithmetic is modulo 2^(digits·chunk_bits); the
engine sizes the chunks so that every true value fits, so intermediate wrap-around is harmless.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..lib.delay import delay_line
from ..params import check_bool
from .serial import Timing

__all__ = ["PostComputeUnit"]


class PostComputeUnit(Component):
    """One Karatsuba post-computation (recombination) on chunk-serial two-lane product streams.

    Latency :meth:`latency_of` = ⌈m/2⌉·digits + 2 cycles (+ 1 when ``pipelined``). Storage: a
    FIFO of m beats of the pass channel (plus one lane-beat for odd m). Lock-step: the ports
    carry a chunk of each lane every cycle, without ``valid``.

    Parameters
    ----------
    m : int
        Coefficients of each child operand.
    digits, chunk_bits, period : int
        Chunks per beat, their width, cycles of the engine's schedule.
    time : int
        Label of the aligned inputs: node frames of 2m beats start there.
    pipelined : bool
        A register between the two subtractions of D, one cycle of latency, so that no path
        has more than one carry chain (default ``True``).

    Attributes
    ----------
    x : In(chunk_bits).array(2)
        The pass channel: Z_L then Z_H, two lanes.
    s : In(chunk_bits).array(2)
        The sum channel: Z_S in the second half.
    z : Out(chunk_bits).array(2)
        Two lanes: the 4m - 1 coefficients of Z over 2m beats.
    """

    def __init__(self, m, digits, chunk_bits, period, time, *, pipelined=True):
        self.m, self.digits, self.chunk_bits = m, digits, chunk_bits
        self.period, self.time = period, time
        self.pipelined = check_bool("pipelined", pipelined)
        super().__init__({"x": In(chunk_bits).array(2), "s": In(chunk_bits).array(2),
                          "z": Out(chunk_bits).array(2)})

    @staticmethod
    def latency_of(m, digits, pipelined=True):
        return (m + 1) // 2 * digits + 2 + int(check_bool("pipelined", pipelined))

    @property
    def latency(self):
        return self.latency_of(self.m, self.digits, self.pipelined)

    def elaborate(self, platform):
        mod = Module()
        m, D = self.m, self.digits
        t = Timing(mod, self.period)
        half = (m + 1) // 2
        extra = int(self.pipelined)
        # One FIFO of m beats with two taps: the direct term (half a node late, +1 cycle to
        # meet the registered difference, +1 more when pipelined) and Z_L while Z_H arrives.
        direct = half * D + 1 + extra
        if direct <= m * D:
            x_direct = delay_line(mod, self.x, direct, name="z_direct")
            x_low = delay_line(mod, x_direct, m * D - direct, name="z_low")
        else:
            x_low = delay_line(mod, self.x, m * D, name="z_low")
            x_direct = delay_line(mod, x_low, direct - m * D, name="z_direct")

        # D = Z_S - Z_L - Z_H, registered (after each subtraction when pipelined), zero outside
        # the second half of the node frame.
        diff = []
        for lane in range(2):
            t1 = t.serial_add(self.s[lane], x_low[lane], self.time, D, subtract=True,
                              name=f"borrow_l{lane}")
            x_high = self.x[lane]
            if self.pipelined:
                t1 = delay_line(mod, t1, 1, name=f"partial{lane}")
                x_high = delay_line(mod, x_high, 1, name=f"z_high{lane}")
            t2 = t.serial_add(t1, x_high, self.time + extra, D, subtract=True,
                              name=f"borrow_h{lane}")
            reg = Signal(self.chunk_bits, name=f"diff{lane}")
            mod.d.sync += reg.eq(t2)
            diff.append(reg)
        diff = [Mux(t.flag(self.time + 1 + extra, 2 * m * D, lambda phase: phase >= m * D), v, 0)
                for v in diff]
        if m % 2:
            # coefficient 2b - m is lane 1 of an earlier beat, 2b + 1 - m lane 0 of this one.
            diff = [delay_line(mod, diff[1], D, name="lane_swap"), diff[0]]

        for lane in range(2):
            total = t.serial_add(x_direct[lane], diff[lane], self.time + 1 + extra, D,
                                 name=f"carry{lane}")
            mod.d.sync += self.z[lane].eq(total)
        return mod
