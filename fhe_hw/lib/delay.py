"""Delay lines: a value made available again a fixed number of clock cycles later.

* :func:`register_delay` — a chain of registers in the caller's module (a value or a list of
  values); the form for short delays whose registers the tools may retime.
* :class:`DelayLine` and :func:`delay_line` — an exact delay that turns into a circular buffer in a
  memory beyond :data:`REGISTER_DELAY_LIMIT` cycles (the FIFOs of the digit-serial Karatsuba
  datapath); its output is 0 from reset until the first word has gone round.
* :func:`delay` — a ``valid`` flag and named riders registered together, a
  pipeline of :class:`~fhe_hw.arith.pipeline.Stages` cuts beside a fixed-latency unit.

All of them add registers to the ``sync`` domain, so under an ``EnableInserter`` they count
enabled cycles.
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import Stages, wrap_inc
from ..component import Component
from ..params import require_int

__all__ = ["REGISTER_DELAY_LIMIT", "DelayLine", "delay_line", "register_delay", "delay"]

#: Delays up to this many cycles use registers in :class:`DelayLine`; longer ones a memory
#: (one write and one read port, i.e. a simple dual-port block RAM).
REGISTER_DELAY_LIMIT = 4


def register_delay(m, value, count, name):
    """``value`` delayed by ``count`` registers added to ``m``'s ``sync`` domain.

    Parameters: ``value`` (a Value, or a list of Values, each delayed on its own), ``count``
    (registers, 0 returns ``value`` itself), ``name`` (the registers are ``<name>_d0``,
    ``<name>_d1``, ...; for a list, value k's are ``<name><k>_d0``, ...). Latency: ``count``
    cycles. The registers take their shape's reset value.
    """
    require_int("count", count, minimum=0)
    if isinstance(value, (list, tuple)):
        return [register_delay(m, v, count, f"{name}{k}") for k, v in enumerate(value)]
    for d in range(count):
        reg = Signal(value.shape(), name=f"{name}_d{d}")
        m.d.sync += reg.eq(value)
        value = reg
    return value


class DelayLine(Component):
    """``o`` is ``i`` delayed by exactly ``cycles`` clock cycles (0: a wire).

    Parameters: ``width`` (bits, at least 1), ``cycles`` (at least 0). Ports: ``i`` (in,
    ``width`` bits), ``o`` (out, ``width`` bits). Latency: ``cycles``.

    Up to :data:`REGISTER_DELAY_LIMIT` cycles it is a register chain (``d0``, ``d1``, ...,
    reset to 0); beyond, a circular buffer of ``cycles - 1`` words in a memory whose
    non-transparent synchronous read port adds the last cycle; its output is 0 until every
    word has been written since reset, so the line behaves the same from reset whatever the
    memory held at power-up. Under an ``EnableInserter`` the whole line (memory ports
    included) stops with the enable, so the delay counts enabled cycles.
    """

    def __init__(self, width, cycles):
        self.width = require_int("width", width, minimum=1)
        self.cycles = require_int("cycles", cycles, minimum=0)
        super().__init__({"i": In(width), "o": Out(width)})

    def elaborate(self, platform):
        m = Module()
        if self.cycles == 0:
            m.d.comb += self.o.eq(self.i)
        elif self.cycles <= REGISTER_DELAY_LIMIT:
            prev = self.i
            for n in range(self.cycles):
                reg = Signal(self.width, name=f"d{n}")
                m.d.sync += reg.eq(prev)
                prev = reg
            m.d.comb += self.o.eq(prev)
        else:
            depth = self.cycles - 1
            m.submodules.mem = mem = Memory(shape=unsigned(self.width), depth=depth, init=[])
            wr = mem.write_port()
            rd = mem.read_port(transparent_for=())
            ptr = Signal(range(depth))
            # Memory words and the read register have no reset: until every word has been
            # written since reset (``wrapped``) and read once more (``primed``), o is 0, as
            # it would be from a zero-initialised memory, whatever the power-up contents.
            wrapped, primed = Signal(), Signal()
            m.d.sync += [ptr.eq(wrap_inc(ptr, depth - 1)), primed.eq(wrapped)]
            with m.If(ptr == depth - 1):
                m.d.sync += wrapped.eq(1)
            m.d.comb += [wr.addr.eq(ptr), wr.data.eq(self.i), wr.en.eq(1),
                         rd.addr.eq(ptr), self.o.eq(Mux(primed, rd.data, 0))]
        return m


def delay_line(m, value, cycles, name=None):
    """A :class:`DelayLine` of ``cycles`` cycles added to ``m`` (as submodule ``name``, or an
    anonymous one) for ``value``; returns the delayed copy.

    ``value`` is a Value or a list of Values, concatenated into one line; the result is then a
    list of slices of the same widths. ``cycles`` = 0 returns ``value`` itself (no submodule).
    Latency: ``cycles`` (enabled) cycles; the output is 0 from reset for the first ``cycles``
    cycles.
    """
    parts = value if isinstance(value, (list, tuple)) else [value]
    if cycles == 0:
        return list(parts) if isinstance(value, (list, tuple)) else value
    flat = Cat(*parts)
    line = DelayLine(len(flat), cycles)
    if name is None:
        m.submodules += line
    else:
        m.submodules[name] = line
    m.d.comb += line.i.eq(flat)
    out, lo = [], 0
    for p in parts:
        out.append(line.o[lo:lo + len(p)])
        lo += len(p)
    return out if isinstance(value, (list, tuple)) else out[0]


def delay(m, n, valid, **riders):
    """``valid`` and the values ``riders`` registered ``n`` times together in ``m`` (a
    delay line that runs beside a fixed-latency unit, :class:`~fhe_hw.arith.pipeline.Stages`
    cuts: registers ``s1_valid``, ``s1_<rider>``, ``s2_valid``, ...).

    Returns ``(valid, {name: delayed value})``. Latency: ``n`` cycles; the registers reset to
    0, so the delayed ``valid`` is low for the first ``n`` cycles after reset.
    """
    require_int("n", n, minimum=0)
    st = Stages(m, valid)
    st.ride(**riders)
    for _ in range(n):
        st.cut()
    return st.valid, {name: st[name] for name in riders}
