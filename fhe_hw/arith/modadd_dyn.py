"""Modular addition and subtraction with the modulus as a run-time operand:
[Kir25] §3.2.1, Algorithms 5 and 6, for engines whose adders serve a different
prime per residue polynomial ([Kir25] §3.3). The arithmetic is that of :class:`.ModAdd` /
:class:`.ModSub` (their ``_result`` is reused, not copied); only q moves into the payload.
"""

from dataclasses import dataclass

from amaranth import Module, unsigned

from ..plan import Plan, param
from .modadd import ModAdd, ModSub, operand_layout
from .pipeline import FixedLatencyUnit, Stages, pipelined_param

__all__ = ["DynamicModAdd", "DynamicModSub", "DynamicModAddPlan"]


@dataclass(frozen=True)
class DynamicModAddPlan(Plan):
    """The parameters of :class:`DynamicModAdd` and :class:`DynamicModSub`: ``width`` (r: bits
    of a, b and q, at least 2), ``pipelined`` (register the result: latency 1; else
    combinational, latency 0)."""

    width: int = param(help="bits of a, b and q", range=(2, None))
    pipelined: bool = pipelined_param()

    @property
    def latency(self):
        return int(self.pipelined)


class DynamicModAdd(ModAdd):
    """(a + b) mod q for a, b in [0, q), q a run-time operand ([Kir25] Algorithm 5).

    Parameters: ``plan``, a :class:`DynamicModAddPlan` or its arguments
    (``DynamicModAdd(32, pipelined=False)``). Ports: ``i`` — always-ready stream of
    ``{a, b, q}`` (r bits each, LSB-first); ``o`` — always-ready stream of the r-bit result.
    """

    def __init__(self, *args, **kw):
        self.plan = plan = DynamicModAddPlan.coerce(*args, **kw)
        self._latency = plan.latency
        FixedLatencyUnit.__init__(self, operand_layout(plan.width, "a", "b", "q"),
                                  unsigned(plan.width))

    @property
    def modulus(self):
        """``None``: the modulus is the payload field ``q``."""
        return None

    @property
    def width(self):
        return self.plan.width

    def elaborate(self, platform):
        m = Module()
        p = self.i.payload
        st = Stages(m, self.i.valid, self.plan.pipelined)
        result, = st.cut(self._result(p.a, p.b, p.q)[:self.plan.width])
        self._output(m, st, result)
        return m


class DynamicModSub(DynamicModAdd):
    """(a − b) mod q for a, b in [0, q), q a run-time operand ([Kir25] Algorithm 6). Parameters,
    ports and latency as :class:`DynamicModAdd`."""

    _result = ModSub._result
