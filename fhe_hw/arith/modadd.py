"""Modular addition and subtraction: [Kir25] §3.2.1, Algorithms 5 and 6.

Both take a, b in [0, q) and return one result in [0, q) after a single conditional correction:
the adder keeps e = a + b when f = a + b - q is negative, else f (Algorithm 5); the subtracter
keeps e = a - b unless it is negative, then e + q (Algorithm 6). :class:`ModAdd` and
:class:`ModSub` compute both candidates side by side (:func:`add_parallel`,
:func:`sub_parallel`), so that a result is one carry chain deep.

:func:`add_select` and :func:`sub_select` are the same algorithms for an operand a known a cycle
before b (the butterfly's x_up, which waits for the product; the RNS accumulation's μ): with
a - q (a + q) computed and registered beforehand, both candidates are carry chains side by side
and the sign of one selects, one carry chain deep instead of two. :func:`add_parallel` and
:func:`sub_parallel` are the adder and subtracter when nothing is known beforehand: the two
candidates side by side, the one with q through one carry-save layer.
"""

from dataclasses import dataclass

from amaranth import Cat, Const, Module, Mux, unsigned
from amaranth.lib import data

from ..params import check_bool, get_modulus
from ..plan import Plan
from .pipeline import FixedLatencyUnit, Stages, modulus_param, pipelined_param

__all__ = ["ModAdd", "ModSub", "ModAddPlan", "add_select", "sub_select", "add_parallel",
           "sub_parallel", "operand_layout", "check_bool"]


def operand_layout(width, *names):
    """Payload of operands packed LSB-first in declaration order."""
    return data.StructLayout({name: unsigned(width) for name in names})


def add_select(a, a_minus_q, b):
    """(a + b) mod q for a, b in [0, q), given ``a_minus_q`` = a - q (signed): f = (a - q) + b
    and e = a + b in parallel, e when f < 0, else f ([Kir25] Algorithm 5). The m-bit result
    (m = ``len(b)``), combinational."""
    f = a_minus_q + b
    return Mux(f < 0, a + b, f)[:len(b)]


def sub_select(a, a_plus_q, b):
    """(a - b) mod q for a, b in [0, q), given ``a_plus_q`` = a + q: e = a - b and
    (a + q) - b in parallel, the second when e < 0 ([Kir25] Algorithm 6). The m-bit result
    (m = ``len(b)``), combinational."""
    e = a - b
    return Mux(e < 0, a_plus_q - b, e)[:len(b)]


def sub_parallel(a, b, q, width):
    """(a − b) mod q for ``width``-bit a, b in [0, q), q an int or a value: Algorithm 6 with
    e = a − b and e + q = a + ~b + q + 1 (a carry-save layer, one LUT per bit, into one carry
    chain) side by side and the sign of e selecting, one carry chain deep instead of two in
    series."""
    a, nb, q = a[:width], ~b[:width], Const(q, width) if isinstance(q, int) else q[:width]
    save, carry = a ^ nb ^ q, (a & nb) | (a & q) | (nb & q)
    e = a - b[:width]
    return Mux(e < 0, (save + Cat(Const(0, 1), carry) + 1)[:width], e[:width])


def add_parallel(a, b, q, width):
    """(a + b) mod q for ``width``-bit a, b in [0, q), q an int or a value: Algorithm 5 with
    e = a + b and f = a + b − q = a + b + ~q + 1 (a carry-save layer, one LUT per bit, into one
    carry chain) side by side and the sign of f selecting, one carry chain deep instead of two
    in series."""
    n = width + 2
    q = Const(q, width) if isinstance(q, int) else q[:width]
    a, b, nq = Cat(a[:width], Const(0, 2)), Cat(b[:width], Const(0, 2)), ~Cat(q, Const(0, 2))
    save, carry = a ^ b ^ nq, (a & b) | (a & nq) | (b & nq)
    f = (save + Cat(Const(0, 1), carry) + 1)[:n]
    return Mux(f[n - 1], (a + b)[:width], f[:width])


@dataclass(frozen=True)
class ModAddPlan(Plan):
    """The parameters of :class:`ModAdd` and :class:`ModSub`.

    Parameters
    ----------
    modulus : str, int or Modulus
        q: a name of :data:`~fhe_hw.params.MODULI`, an odd integer >= 3 or a
        :class:`~fhe_hw.params.Modulus`; m is its bit length.
    pipelined : bool
        Register the result (latency 1); otherwise combinational (latency 0).
    """

    modulus: object = modulus_param("solinas64")
    pipelined: bool = pipelined_param()

    def __post_init__(self):
        super().__post_init__()
        get_modulus(self.modulus)

    @property
    def latency(self):
        return int(self.pipelined)


class ModAdd(FixedLatencyUnit):
    """(a + b) mod q for a, b in [0, q) ([Kir25] Algorithm 5).

    Parameters
    ----------
    plan : ModAddPlan
        Or the arguments of one (``ModAdd("general32", pipelined=False)``).

    Attributes
    ----------
    i : In(stream.Signature(...)), always ready
        ``{a, b}``, each m bits, packed LSB-first.
    o : Out(stream.Signature(unsigned(m))), always ready
        The m-bit result, one per cycle.
    latency : int
        Cycles from an input transfer to its result (the plan's, without building).
    modulus : int
        q.
    """

    def __init__(self, *args, **kw):
        self.plan = plan = ModAddPlan.coerce(*args, **kw)
        self._latency = plan.latency
        self._modulus = get_modulus(plan.modulus)
        width = self._modulus.bits
        super().__init__(operand_layout(width, "a", "b"), unsigned(width))

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def pipelined(self):
        return self.plan.pipelined

    def _result(self, a, b, q):
        return add_parallel(a, b, q, len(b))

    def elaborate(self, platform):
        m = Module()
        result = self._result(self.i.payload.a, self.i.payload.b, self.modulus)
        st = Stages(m, self.i.valid, self.plan.pipelined)
        result, = st.cut(result[:self._modulus.bits])
        self._output(m, st, result)
        return m


class ModSub(ModAdd):
    """(a - b) mod q for a, b in [0, q) ([Kir25] Algorithm 6).

    Plan (:class:`ModAddPlan`), ports and latency as :class:`ModAdd`.
    """

    def _result(self, a, b, q):
        return sub_parallel(a, b, q, len(b))
