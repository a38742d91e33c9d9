"""A sky130 estimate of :class:`~fhe_hw.largeint.LargeIntegerMultiplier` at sizes too large to
synthesize whole: the datapath blocks synthesized one by one (:func:`blocks`, each through
:func:`fhe_hw.asic.asic_synthesize` with every port registered), their areas times their
counts, plus the memories at :data:`SRAM_UM2_PER_BIT`. An estimate, not a layout: the
control, the bank crossbars and the wiring between blocks are not counted, and the clock is
the slowest block's."""

from dataclasses import dataclass

from .multiplier import LargeIntegerMultiplierPlan

__all__ = ["SRAM_UM2_PER_BIT", "SRAM_SOURCE", "blocks", "block_rows", "Sky130Estimate",
           "sky130_estimate"]

#: Area of one SRAM bit with its periphery: an OpenRAM single-port 1024 x 32 sky130 macro,
#: 534,277 µm² for 32,768 bits (:data:`SRAM_SOURCE`). The engines' banks need one read and
#: one write port, which costs more; the figure is a lower bound for that reason.
SRAM_UM2_PER_BIT = 534277 / 32768
SRAM_SOURCE = ("OpenRAM 1024 x 32 single-port sky130 macro, 534,277 µm² "
               "(github.com/vsdip/vsdsram_sky130)")


def blocks(max_bits=786432, *, lanes=16, engines=1, inner_n=64, inner_units=1):
    """The datapath blocks of ``LargeIntegerMultiplier(max_bits, lanes=lanes, engines=engines,
    inner_n=inner_n, inner_units=inner_units)``: [(registered unit, its parameters, how many)]
    — per engine and inner unit ``lanes`` twiddle ModMuls and an inner_n-point ShiftNTT for
    P1/P2, and for n > inner_n²
    ``lanes`` ModMuls more with the n1-point ShiftNTTs of P3; ``lanes`` point-wise ModMuls;
    one CarryResolver."""
    unit_plan = LargeIntegerMultiplierPlan(max_bits, lanes=lanes, engines=engines,
                                           inner_n=inner_n, inner_units=inner_units)
    plan = unit_plan.engine
    transforms = engines + 1
    outer = plan.n1 > 1
    out = [("mod-mul", {"modulus": "solinas64"},
            transforms * lanes * (inner_units + outer) + lanes),
           ("shift-ntt", {"n": inner_n, "lanes": lanes}, transforms * inner_units)]
    if outer:
        out.append(("shift-ntt", {"n": plan.n1, "lanes": plan.outer_lanes},
                    transforms * plan.groups))
    out.append(("carry-resolver", {"lanes": lanes, "digit_bits": unit_plan.digit_bits}, 1))
    return out


def block_rows(results, entries):
    """[(block, params, count, area µm² each, Fmax MHz, critical path)] of ``entries``
    ([(block, params, count, ...)], a ``blocks()`` list) from ``results`` ({(block, frozen
    params): AsicSynthResult}); the path as OpenSTA reports it: start register → end
    register, logic levels."""
    rows = []
    for name, params, count, *_ in entries:
        r = results[name, tuple(sorted(params.items()))]
        path = r.critical_path
        rows.append((name, params, count, r.area_um2, r.fmax_mhz,
                     f"{path.get('startpoint_register')} → {path.get('endpoint_register')}, "
                     f"{path['levels']} levels"))
    return rows


@dataclass(frozen=True)
class Sky130Estimate:
    """The estimate: ``rows`` [(unit, params, count, area µm² each, Fmax MHz, critical path
    as OpenSTA reports it: start register → end register, logic levels)], the logic
    area, the memory bits and their area, the total, the clock (the slowest block) and the
    multiplier's cycles and time at that clock."""

    rows: list
    logic_um2: float
    memory_bits: int
    memory_um2: float
    fmax_mhz: float
    cycles: int

    @property
    def total_mm2(self):
        return (self.logic_um2 + self.memory_um2) / 1e6

    @property
    def product_us(self):
        return self.cycles / self.fmax_mhz


def sky130_estimate(results, max_bits=786432, *, lanes=16, engines=1, inner_n=64,
                    inner_units=1):
    """Combine ``results`` ({(unit, frozen params): AsicSynthResult} of :func:`blocks`) into a
    :class:`Sky130Estimate`."""
    config = dict(lanes=lanes, engines=engines, inner_n=inner_n, inner_units=inner_units)
    plan = LargeIntegerMultiplierPlan(max_bits, **config)
    rows = block_rows(results, blocks(max_bits, **config))
    bits = sum(plan.storage_bits().values())
    return Sky130Estimate(rows, sum(row[2] * row[3] for row in rows), bits,
                          bits * SRAM_UM2_PER_BIT, min(row[4] for row in rows),
                          plan.cycles())
