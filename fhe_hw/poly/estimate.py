"""A sky130 estimate of :class:`~fhe_hw.poly.RNSPolyNTT`, :class:`~fhe_hw.poly.RNSPolyProduct`
and the exact base conversion beside OpenFHE's ``SwitchCRTBasis`` (the Sum / Post-Sum engine,
:class:`~fhe_hw.rns.ShenoyKumaresan`) at the documented sizes, as
:mod:`fhe_hw.largeint.estimate` does it: the datapath blocks synthesized one by one
(:func:`blocks`: each engine's butterflies, a product's point-wise multipliers, a conversion's
run-time-modulus multipliers), their areas times their counts, plus the engines' banks (and a
polynomial engine's ROMs) at :data:`~fhe_hw.largeint.estimate.SRAM_UM2_PER_BIT`. The blocks are
those of the first tower's prime; the other towers' differ only in their constants. An
estimate, not a layout: the engines' control, crossbars and the stream distribution (and a
conversion's modular adders, output queue and constant ROMs) are not counted, and the clock is
the slowest block's."""

from dataclasses import replace

from ..arith.montgomery_dyn import DynamicModMul
from ..arith.pipeline import MULTIPLIER_FLAGS
from ..largeint.estimate import SRAM_UM2_PER_BIT, Sky130Estimate, block_rows
from ..ntt import Butterfly
from ..rns.shenoy_kumaresan import CRTBaseExtensionPlan
from .ntt import RNSPolyNTTPlan
from .product import RNSPolyProductPlan

__all__ = ["blocks", "memory_bits", "sky130_estimate"]


def _multiplier(plan):
    options = {"tiled": plan.tiled}
    for name in MULTIPLIER_FLAGS:
        if getattr(plan, name):
            options[name] = True
    if plan.mult_stages is not None:
        options["mult_stages"] = plan.mult_stages
    return options


def blocks(plan):
    """The datapath blocks of ``plan``: [(block, its parameters, how many, factory)]. For an
    :class:`RNSPolyNTTPlan`, P butterflies per engine (``engine-butterfly``: run-time
    twiddles, the engines' reducer; the inverse's Gentleman–Sande form, with its
    up-multiplier when scaled), built as the engines build them but with their delay lines in
    registers (``ram_delays`` is an ECP5 form); for an
    :class:`RNSPolyProductPlan`, its forward units' (one, or two unless ``b_evaluated``) and
    inverse unit's, and two run-time-modulus multipliers per lane (``pointwise-modmul``); for a
    :class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtensionPlan`, its run-time-modulus
    multipliers (``conversion-modmul``, ``arithmetic_units["MM"]`` of them)."""
    if isinstance(plan, CRTBaseExtensionPlan):
        mul = replace(plan.multiplier, width=plan.width)
        shown = {"width": plan.width, "word": mul.word}
        if plan.tile_reg:
            shown["tile_reg"] = True
        return [("conversion-modmul", shown, plan.arithmetic_units["MM"],
                 lambda: DynamicModMul(mul))]
    if isinstance(plan, RNSPolyProductPlan):
        pointwise = plan.pointwise
        shown = {"towers": len(plan.towers), "width": plan.width, "word": pointwise.word}
        if plan.pointwise_stages is not None:
            shown["mult_stages"] = pointwise.mult_stages
        return [(name, params, count * plan.forward_units, factory)
                for name, params, count, factory in blocks(plan.forward)] + \
            blocks(plan.backward) + [("pointwise-modmul", shown, 2 * plan.lanes_resolved,
                                      lambda: DynamicModMul(pointwise))]
    engine = plan.engines[0]
    q, options = plan.towers[0], _multiplier(plan)
    shown = {"modulus": str(q), "reducer": engine.reducer, **options}
    if engine.moduli is not None:       # engine_count: run-time moduli, the first engine's
        shown["moduli"] = ",".join(map(str, engine.moduli))
    if plan.inverse:
        shown.update(form=engine.butterfly.form, scale_up=engine.butterfly.scale_up)
    # ram_delays is the ECP5's LUT RAM: in standard cells the delay line's registers are the
    # smaller and faster form (a memory of registers adds its write decode, whose pointer
    # fans out to every word), so the block is built with them.
    butterfly = replace(engine.butterfly, ram_delays=False)
    return [("engine-butterfly", shown, len(plan.engines) * plan.butterflies,
             lambda: Butterfly(butterfly))]


def memory_bits(plan):
    """The engines' banks and ROMs: per tower and engine n words of the banks (2n with
    ``ping_pong``), and a tower's
    twiddle ROM of n words once per two of its read ports, as a dual-port block RAM holds it
    (an NTT's engine reads its own through P ports; a product's engines of a tower read one,
    each through P ports, or one with ``wide_twiddles``), each word the tower's prime's width;
    with ``engine_count`` E below L, E engines' banks and every tower's table in its engine's
    ROM; a conversion's banks of N words of its widest modulus."""
    if isinstance(plan, CRTBaseExtensionPlan):
        return plan.banks * plan.n * plan.width
    if isinstance(plan, RNSPolyNTTPlan) and len(plan.engines) < len(plan.towers):
        tables = -(-plan.butterflies // 2)
        return sum(plan.n * e.modulus_resolved.bits for e in plan.engines) + \
            sum(plan.n * tables * q.bit_length() for q in plan.towers)
    sets, ports = 1, plan.butterflies           # sets of n words of banks per tower
    if isinstance(plan, RNSPolyProductPlan):
        sets = plan.forward_units + 1
        ports = sets * (1 if plan.wide_twiddles else plan.butterflies)
    elif plan.ping_pong:
        sets = 2
    words = plan.n * (sets + -(-ports // 2))
    return sum(words * q.bit_length() for q in plan.towers)


def sky130_estimate(results, plan):
    """Combine ``results`` ({(unit, frozen params): AsicSynthResult} of :func:`blocks`) into a
    :class:`~fhe_hw.largeint.estimate.Sky130Estimate` of one polynomial or product
    (``cycles()``), or conversion."""
    if not isinstance(plan, (RNSPolyNTTPlan, RNSPolyProductPlan, CRTBaseExtensionPlan)):
        raise TypeError(f"plan must be an RNSPolyNTTPlan, RNSPolyProductPlan or "
                        f"CRTBaseExtensionPlan, not {plan!r}")
    rows = block_rows(results, blocks(plan))
    bits = memory_bits(plan)
    return Sky130Estimate(rows, sum(row[2] * row[3] for row in rows), bits,
                          bits * SRAM_UM2_PER_BIT, min(row[4] for row in rows), plan.cycles())
