"""``fhe-hw table encrypt-plans``: CMNT and CNT encryption through transforms for every group
of [Cao14] Table 1 and [Cao13] Table 2 — the plan (:func:`fhe_hw.model.transform_encrypt.plan`
at :data:`LANES` lanes) and the exact cycles of
:class:`~fhe_hw.encrypt.TransformEncrypt` (its plan's ``cycles_per_program()``, two inner
units), beside [Cao13] Table 6's
cycles (its times × its 166.45 MHz). The point-wise and S-stage beats are the work floor of any
unit with :data:`LANES` multipliers.

``fhe-hw table encrypt-asic``: the unit's sky130 estimate at the toy and small groups
(:func:`fhe_hw.encrypt.estimate.sky130_estimate`): its blocks synthesized one by one, and the
projected encryption time at the slowest block's clock."""

from ..asic import synthesize_blocks
from ..asic.configs import SKY130_CLOCK_NS
from ..encrypt import ENCRYPTION, KEY_PREPARATION, TransformEncryptPlan
from ..encrypt.estimate import blocks, sky130_estimate
from ..markdown import table as markdown_table
from ..model.transform_encrypt import SCHEMES, plan
from .large_int import block_cells, estimate_note
from .pages import TableSpec
from .paper import table6_cycles

__all__ = ["TABLES", "LANES", "ESTIMATED", "markdown", "estimate_markdown"]

GROUPS = ("toy", "small", "medium", "large")
#: Digits per word and transform beat (the point-wise multipliers and the S stage's lanes).
LANES = 16
#: The sky130 estimate's configurations: (scheme, group).
ESTIMATED = [("cmnt", "toy"), ("cnt", "toy"), ("cmnt", "small"), ("cnt", "small")]


def _cut(digits, blocks):
    return f"{blocks} × {digits:,}" if blocks > 1 else f"{digits:,}"


def markdown(progress=lambda line: None):
    cells = []
    for scheme in SCHEMES:
        for group in GROUPS:
            progress(f"{scheme} {group}: plan and cycles")
            p = plan(scheme, group, lanes=LANES)
            b, t = p.main, p.transforms
            paper = table6_cycles(scheme, group)
            pointwise = sum(x.products for x in p.blockings) * p.n // LANES
            s_stage = -(-p.s_stage_macs // LANES)
            both = TransformEncryptPlan(scheme, group, lanes=LANES).cycles_per_program()
            cycles, key = both[ENCRYPTION], both[KEY_PREPARATION]
            cells.append([scheme.upper(), group, p.digit_bits, f"{p.n:,}",
                          _cut(b.x_block, b.x_blocks), _cut(b.y_block, b.y_blocks),
                          f"{b.bound / 2**64:.3f}",
                          f"{t['forward']:,} + {t['inverse']:,}",
                          f"{p.key_spectrum_words * 64 / 1e6:,.1f}", f"{pointwise:,}",
                          f"{s_stage:,}" if s_stage else "", f"{key:,}", f"**{cycles:,}**",
                          f"{paper:,}", f"**{cycles / paper:.2f}**"])
    return markdown_table(
        ["scheme", "group", "d (bits)", "n", "X_i digits", "key digits",
         "largest sample / 2^64", "transforms (fwd + inv)", "key spectra (Mbit)",
         f"point-wise beats at {LANES} lanes", f"S-stage beats at {LANES} lanes",
         "key preparation cycles()", "encryption cycles()", "[Cao13] Table 6 cycles",
         "cycles() / Table 6"], cells) + (
        f"\nX_i: b_i (CNT) or S_i = Σ_j B_ij·A_j1 (CMNT), whole or in blocks × digits; key: "
        f"each public-key integer (x_i or A_i0) likewise. Transforms and point-wise beats "
        f"include the super-size Barrett reduction's two products. cycles(): "
        f"`TransformEncrypt(scheme, group, lanes={LANES})` (two m-units), start to done; the "
        f"key preparation runs once per public key. Table 6 cycles: its 2^64-2^32+1 times × "
        f"166.45 MHz.\n")


def generate(args, progress):
    return markdown(progress), {"timed": False}


def estimate_markdown(estimates):
    """The ``encrypt-asic`` block from {(scheme, group): EncryptEstimate}."""
    cells = []
    for (scheme, group), e in estimates.items():
        config = f"{scheme.upper()} {group}, lanes={LANES}"
        cells += block_cells(config, e.rows, "on-chip memories (engines, X buffer, "
                             "accumulators; estimated)", e.memory_bits, e.memory_um2)
        cells.append([config, f"external: RAM {e.ram_bits / 1e6:.2f} Mbit, key memory "
                      f"{e.key_bits / 1e6:.2f} Mbit", "", "", "", "", ""])
        cells.append([config, f"**total (estimate)**: encryption {e.cycles:,} cycles, "
                      f"{e.encryption_ms:.2f} ms at {e.fmax_mhz:.1f} MHz (key preparation "
                      f"{e.key_cycles:,} cycles)", "", "", f"**{e.total_mm2:.1f}**",
                      f"{e.fmax_mhz:.1f}", ""])
    return markdown_table(["configuration", "block", "count", "area µm² each", "area mm²",
                           "Fmax MHz", "critical path"], cells) + estimate_note(
        "the control, the bank crossbars, the ROMs and the wiring between blocks")


def _generate_estimate(args, progress):
    groups = {(s, g): TransformEncryptPlan(s, g, lanes=LANES) for s, g in ESTIMATED}
    wanted = {(name, tuple(sorted(params.items()))): (name, params, factory)
              for group in groups.values() for name, params, _, factory in blocks(group)}
    results, tools = synthesize_blocks(wanted, SKY130_CLOCK_NS, progress)
    estimates = {key: sky130_estimate(results, group) for key, group in groups.items()}
    facts = {"tools": tools,
             "json": {f"{s} {g}": {"total_mm2": e.total_mm2, "fmax_mhz": e.fmax_mhz,
                                   "cycles": e.cycles, "encryption_ms": e.encryption_ms}
                      for (s, g), e in estimates.items()}}
    return estimate_markdown(estimates), facts


TABLES = {t.name: t for t in (
    TableSpec("encrypt-plans", "bigint.md", "CMNT and CNT through transforms: plans, cycles and "
              "work per group", generate, logs="none"),
    TableSpec("encrypt-asic", "bigint.md", "CMNT and CNT through transforms: sky130 estimate "
              "from the unit's blocks", _generate_estimate, logs="asic"),
)}
