"""Modular addition and subtraction with the modulus as a run-time operand:
[Kir25] §3.2.1, Algorithms 5 and 6, for engines whose adders serve a different
prime per residue polynomial ([Kir25] §3.3). The arithmetic is that of :class:`.ModAdd` /
:class:`.ModSub` (their ``_result`` is reused, not copied); only q moves into the payload.
"""

from amaranth import Module, unsigned

from ..params import require_int
from .modadd import ModAdd, ModSub, check_bool, operand_layout
from .pipeline import FixedLatencyUnit, Stages

__all__ = ["DynamicModAdd", "DynamicModSub"]


class DynamicModAdd(ModAdd):
    """(a + b) mod q for a, b in [0, q), q a run-time operand ([Kir25] Algorithm 5).

    Parameters: ``width`` (r: bits of a, b and q), ``pipelined`` (register the result: latency
    1; else combinational, latency 0). Ports: ``i`` — always-ready stream of ``{a, b, q}``
    (r bits each, LSB-first); ``o`` — always-ready stream of the r-bit result.
    """

    def __init__(self, width, *, pipelined=True):
        self._width = require_int("width", width, minimum=2)
        self._pipelined = check_bool("pipelined", pipelined)
        self._latency = int(pipelined)
        FixedLatencyUnit.__init__(self, operand_layout(width, "a", "b", "q"), unsigned(width))

    @property
    def modulus(self):
        """``None``: the modulus is the payload field ``q``."""
        return None

    @property
    def width(self):
        return self._width

    def elaborate(self, platform):
        m = Module()
        p = self.i.payload
        st = Stages(m, self.i.valid, self._pipelined)
        result, = st.cut(self._result(p.a, p.b, p.q)[:self._width])
        self._output(m, st, result)
        return m


class DynamicModSub(DynamicModAdd):
    """(a − b) mod q for a, b in [0, q), q a run-time operand ([Kir25] Algorithm 6). Parameters,
    ports and latency as :class:`DynamicModAdd`."""

    _result = ModSub._result
