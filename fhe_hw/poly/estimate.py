"""A sky130 estimate of :class:`~fhe_hw.poly.RNSPolyNTT` at the documented sizes, as
:mod:`fhe_hw.largeint.estimate` does it: the datapath blocks synthesized one by one
(:func:`blocks`: each engine's butterflies, and the inverse's post-multipliers), their areas
times their counts, plus the engines' banks and ROMs at
:data:`~fhe_hw.largeint.estimate.SRAM_UM2_PER_BIT`. The blocks are those of the first tower's
prime; the other towers' differ only in their constants. An estimate, not a layout: the engines'
control, crossbars and the stream distribution are not counted, and the clock is the slowest
block's."""

from ..arith import ModMul
from ..largeint.estimate import SRAM_UM2_PER_BIT, Sky130Estimate, block_rows
from ..ntt import Butterfly
from .ntt import RNSPolyNTTPlan

__all__ = ["blocks", "memory_bits", "sky130_estimate"]


def _multiplier(plan):
    options = {"tiled": plan.tiled}
    if plan.karatsuba:
        options["karatsuba"] = True
    if plan.mult_stages is not None:
        options["mult_stages"] = plan.mult_stages
    return options


def blocks(plan):
    """The datapath blocks of the :class:`RNSPolyNTTPlan` ``plan``: [(block, its parameters,
    how many, factory)]: P butterflies per engine (``engine-butterfly``: run-time twiddles, the
    engines' reducer), and for the inverse ``lanes`` post-multiplier ModMuls per engine
    (``engine-post-modmul``), built as the engines build them."""
    engine = plan.engines[0]
    towers, q, options = len(plan.towers), plan.towers[0], _multiplier(plan)
    shown = {"modulus": str(q), "reducer": engine.reducer, **options}
    out = [("engine-butterfly", shown, towers * plan.butterflies,
            lambda: Butterfly(q, reducer=engine.reducer, **options))]
    if plan.inverse:
        out.append(("engine-post-modmul", shown, towers * plan.lanes_resolved,
                    lambda: ModMul(q, engine.reducer, **options)))
    return out


def memory_bits(plan):
    """The engines' banks and ROMs: per tower n words of the banks, n twiddles and, for the
    inverse, n post-twiddles, each word the tower's prime's width."""
    words = plan.n * (3 if plan.inverse else 2)
    return sum(words * q.bit_length() for q in plan.towers)


def sky130_estimate(results, plan):
    """Combine ``results`` ({(unit, frozen params): AsicSynthResult} of :func:`blocks`) into a
    :class:`~fhe_hw.largeint.estimate.Sky130Estimate` of one polynomial (``cycles()``)."""
    if not isinstance(plan, RNSPolyNTTPlan):
        raise TypeError(f"plan must be an RNSPolyNTTPlan, not {plan!r}")
    rows = block_rows(results, blocks(plan))
    bits = memory_bits(plan)
    return Sky130Estimate(rows, sum(row[2] * row[3] for row in rows), bits,
                          bits * SRAM_UM2_PER_BIT, min(row[4] for row in rows), plan.cycles())
