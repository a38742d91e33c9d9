"""A sky130 estimate of :class:`~fhe_hw.encrypt.TransformEncrypt` at the papers' groups, too
large to synthesize whole: as :mod:`fhe_hw.largeint.estimate`, its datapath blocks synthesized
one by one (:func:`blocks`), their areas times their counts, the on-chip memories at
:data:`~fhe_hw.largeint.estimate.SRAM_UM2_PER_BIT`, and the clock of the slowest block. The
RAM and the key memory are outside the unit (their sizes are given, not their area)."""

from dataclasses import dataclass

from ..bigint.wordalu import WordALU
from ..largeint.estimate import SRAM_UM2_PER_BIT, block_rows
from .sstage import SStageUnit
from .unit import ENCRYPTION, KEY_PREPARATION

__all__ = ["blocks", "EncryptEstimate", "sky130_estimate"]

_WORD = 64


def blocks(g):
    """The datapath blocks of the :class:`~fhe_hw.encrypt.TransformEncryptPlan` ``g``:
    [(name, params, count, factory)] — registered units (``factory`` None: built by the unit
    registry) and the unit's own S stage and word ALU (built by ``factory()``)."""
    prog, plan, lanes = g.program, g.engine, g.lanes
    p = prog.plan
    outer = plan.n1 > 1
    aw = max(1, (prog.regions.depth - 1).bit_length())
    out = [("mod-mul", {"modulus": "solinas64"}, 2 * lanes * (g.inner_units + outer) + lanes,
            None),
           ("shift-ntt", {"n": g.inner_n, "lanes": lanes}, 2 * g.inner_units, None)]
    if outer:
        out.append(("shift-ntt", {"n": plan.n1, "lanes": plan.outer_lanes},
                    2 * plan.groups, None))
    out.append(("carry-resolver", {"lanes": lanes, "digit_bits": p.digit_bits}, 1, None))
    if prog.s_stage is not None:
        cfg = prog.s_stage
        out.append(("s-stage", {"lanes": lanes, "digit_bits": p.digit_bits,
                                "coeff_bits": cfg.coeff_bits, "terms": cfg.terms}, 1,
                    lambda: SStageUnit(cfg, lanes, p.digit_bits, aw)))
    words = prog.max_alu_words()
    out.append(("word-alu", {"bits": p.word_bits, "max_words": words}, 1,
                lambda: WordALU(p.word_bits, aw, words)))
    return out


@dataclass(frozen=True)
class EncryptEstimate:
    """``rows`` [(block, params, count, area µm² each, Fmax MHz, critical path)], the logic
    area, the on-chip memory bits (engines, X buffer, accumulators), the external RAM and key
    memory bits, the clock (the slowest block), the encryption's and the key preparation's
    cycles."""

    rows: list
    logic_um2: float
    memory_bits: int
    memory_um2: float
    ram_bits: int
    key_bits: int
    fmax_mhz: float
    cycles: int
    key_cycles: int

    @property
    def total_mm2(self):
        return (self.logic_um2 + self.memory_um2) / 1e6

    @property
    def encryption_ms(self):
        return self.cycles / self.fmax_mhz / 1e3


def sky130_estimate(results, g):
    """Combine ``results`` ({(name, frozen params): AsicSynthResult} of :func:`blocks`) for the
    :class:`~fhe_hw.encrypt.TransformEncryptPlan` ``g`` into an :class:`EncryptEstimate`."""
    prog, timing = g.program, g.timing
    rows = block_rows(results, blocks(g))
    engines = 2 * sum(g.engine.storage_bits().values())
    beats = timing.beats
    cycles = g.cycles_per_program()
    bits = engines + (2 + prog.accumulators) * beats * _WORD * g.lanes
    return EncryptEstimate(
        rows, sum(row[2] * row[3] for row in rows), bits, bits * SRAM_UM2_PER_BIT,
        prog.regions.depth * prog.plan.word_bits, len(prog.spectra) * beats * _WORD * g.lanes,
        min(row[4] for row in rows),
        cycles[ENCRYPTION], cycles[KEY_PREPARATION])
