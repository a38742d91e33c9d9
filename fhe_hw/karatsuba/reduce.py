"""Reduction of wide product coefficients modulo q: folds, then the Barrett reducer of
[Cao14] Algorithm 2 (:class:`fhe_hw.arith.BarrettReducer`).

A Karatsuba product coefficient of n·(q-1)^2 has about 2m + log2(n) bits for an m-bit q, more
than the 2m bits the Barrett reducer accepts. Each fold replaces x = x_hi·2^k + x_lo by
x_hi·(2^k mod q) + x_lo, which is congruent modulo q, with k = 2m - 1: one constant multiplier of
(width - k) x m bits. One fold suffices while the input has at most 3m - 2 bits; wider inputs
fold again. The result, below 2^(2m), goes to the Barrett reducer.
"""

from amaranth import Const, Module, unsigned

from ..arith import BarrettReducer, BarrettReducerPlan
from ..arith.pipeline import FixedLatencyUnit, Multiplier, Stages, check_stages
from ..params import get_modulus, require_int

__all__ = ["WideBarrettReducer", "fold_plan"]


def fold_plan(modulus, in_bits):
    """The folds for inputs below 2^in_bits: a list of (k, 2^k mod q, width before the fold),
    and the width after the last fold (at most 2m). Raises ``ValueError`` if q < 3 or
    in_bits < 1."""
    q = int(get_modulus(modulus))
    require_int("in_bits", in_bits, minimum=1)
    m = q.bit_length()
    if m < 3:
        raise ValueError(f"modulus must have at least 3 bits for folding, not {q!r}")
    folds, width = [], in_bits
    while width > 2 * m:
        k = 2 * m - 1
        c = (1 << k) % q
        folds.append((k, c, width))
        width = max(1, (((1 << (width - k)) - 1) * c + (1 << k) - 1).bit_length())
    return folds, width


class WideBarrettReducer(FixedLatencyUnit):
    """x mod q for 0 <= x < 2^in_bits and any modulus the Barrett reducer accepts.

    Parameters: ``modulus``, ``in_bits``, ``mult_stages`` (registers in each multiplier,
    default 4). Ports: ``i`` (always-ready stream of in_bits-bit x), ``o`` (always-ready stream
    of the m-bit x mod q). Latency: ``mult_stages + 1`` per fold plus the Barrett latency; one
    result per cycle. Raises ``ValueError``/``TypeError`` for a bad modulus or width.
    """

    def __init__(self, modulus, in_bits, *, mult_stages=4):
        self._latency = self.latency_of(modulus, in_bits, mult_stages=mult_stages)
        self._q = int(get_modulus(modulus))
        self._folds, self._fold_bits = fold_plan(self._q, in_bits)
        self._mult_stages = mult_stages
        self._barrett = BarrettReducer(self._q, mult_stages=mult_stages)
        self._in_bits = in_bits
        super().__init__(unsigned(in_bits), unsigned(self._q.bit_length()))

    @staticmethod
    def latency_of(modulus, in_bits, *, mult_stages=4):
        """The :attr:`latency` of ``WideBarrettReducer(modulus, in_bits,
        mult_stages=mult_stages)`` without building it; raises the constructor's
        ``ValueError``/``TypeError`` for refused parameters."""
        q = int(get_modulus(modulus))
        folds, _ = fold_plan(q, in_bits)
        check_stages("mult_stages", mult_stages)
        return (len(folds) * (mult_stages + 1)
                + BarrettReducerPlan(q, mult_stages=mult_stages).latency)

    @property
    def modulus(self):
        return self._q

    @property
    def mult_stages(self):
        return self._mult_stages

    @property
    def folds(self):
        """Number of fold stages before the Barrett reducer."""
        return len(self._folds)

    def elaborate(self, platform):
        mod = Module()
        st = Stages(mod, self.i.valid)
        x = self.i.payload
        m = self._q.bit_length()
        for k, c, width in self._folds:
            x = x[:width]
            st.ride(low=x[:k])
            product = Multiplier(width - k, m, self._mult_stages).build(st, x[k:], Const(c, m))
            x, = st.cut(product + st["low"], enable=True)
        mod.submodules.barrett = barrett = self._barrett
        mod.d.comb += [barrett.i.payload.eq(x), barrett.i.valid.eq(st.valid),
                       self.o.payload.eq(barrett.o.payload), self.o.valid.eq(barrett.o.valid)]
        return mod
