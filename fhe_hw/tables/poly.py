"""``fhe-hw table rns-poly``: resources, Fmax and time per polynomial of the RNS polynomial NTT
``rns-poly-ntt`` on ECP5-85F, rows :data:`fhe_hw.poly.configs.POLY_TABLE` (one engine per tower,
``splitnets``). Times are ``cycles()`` ÷ that configuration's Fmax: one polynomial from its
first input beat to its last output beat, and one polynomial of a stream back to back, with the
polynomials on chip (the input stream never waits; the host link's time is not included);
and the fraction of the device's DSP-bound limit each reaches, as the report's device-limit
section defines it (:func:`limit_fractions`). ``fhe-hw table rns-poly-extend`` routes the
exact base extension ``rns-poly-extend``, rows :data:`fhe_hw.poly.configs.EXTEND_TABLE`, its
time ``cycles()`` of one polynomial ÷ its Fmax;
``fhe-hw table rns-poly-product`` the polynomial product ``rns-poly-product``, rows
:data:`fhe_hw.poly.configs.PRODUCT_TABLE`, its times as the NTT's, per product."""

from ..asic import synthesize_blocks
from ..asic.configs import SKY130_CLOCK_NS
from ..flow.synth import dsp_limit, product_rate
from ..markdown import table as markdown_table
from ..model.ntt import modular_products as ntt_products
from ..poly.configs import EXTEND_TABLE, POLY_MODMULS, POLY_TABLE, PRODUCT_TABLE
from ..poly.estimate import blocks, sky130_estimate
from ..rns.configs import SIDE_BY_SIDE_TABLE
from ..units import get_unit
from .common import ecp5_facts, flow_cell, synth_rows
from .large_int import estimate_note, sky130_cells
from .pages import TableSpec

__all__ = ["TABLE", "TABLES", "markdown", "row_key", "timing", "modular_products",
           "limit_fractions", "estimate_markdown", "extend_markdown", "extend_row_key",
           "product_markdown"]


def timing(row):
    """(cycles of one polynomial, cycles per polynomial back to back) of ``row``."""
    unit = get_unit(row.unit)
    one, two, three = (unit.cycles(row.params, polys=k) for k in (1, 2, 3))
    return one, three - two


def _ring(row):
    """The ring degree whose OpenFHE primes ``row``'s towers are."""
    return row.params.get("prime_n", row.params["n"])


def _towers(row):
    plan = get_unit(row.unit).make_plan(row.params)
    return f"{len(plan.towers)} × {plan.width}-bit (OpenFHE's for N = {_ring(row)})"


#: The NTT table's column of its towers' layout on the streams.
SIDE_BY_SIDE = ("towers side by side", "parallel_towers")
TILE_REGISTERS = ("tile registers", "tile_reg")
#: The NTT table's columns of the ModMuls' Montgomery rounds and the banks' block RAM.
FABRIC_ROUNDS = ("Montgomery rounds in the fabric", "fabric_rounds")
WIDE_BANKS = ("banks in PDPW16KD", "wide_banks")
#: The NTT table's column of the streams' handshakes.
SPREAD = ("handshakes spread", "spread_handshakes")
#: The NTT table's column of the engines' second set of banks.
PING_PONG = ("ping-pong banks", "ping_pong")
#: The NTT table's yes/no columns that tell its rows apart.
_NTT_FLAGS = (SIDE_BY_SIDE, TILE_REGISTERS, FABRIC_ROUNDS, WIDE_BANKS, SPREAD, PING_PONG)
#: The NTT table's column of the engines' read-path registers.
READ_REGISTERS = "read registers"


def _read_registers(row):
    return str(get_unit(row.unit).make_plan(row.params).read_stages)


def row_key(row):
    """The cells that identify ``row`` in the table."""
    key = {"N": str(row.params["n"]), "towers": _towers(row),
           "P per engine": str(row.params["butterflies"]), "flow": flow_cell(row)}
    if row.unit == "rns-poly-ntt":
        key.update({header: _yes(row.params.get(name)) for header, name in _NTT_FLAGS})
        key[READ_REGISTERS] = _read_registers(row)
    return key


def _yes(value):
    return "yes" if value else "no"


#: The NTT table's columns of the fraction of the device's DSP-bound limit.
LIMIT = ("fraction of the DSP limit", "fraction of the DSP limit back to back")


def modular_products(row):
    """Modular products of one polynomial through the ``rns-poly-ntt`` ``row``: L towers of
    (n/2)·log2 n (:func:`fhe_hw.model.ntt.modular_products`)."""
    return row.params["limbs"] * ntt_products(row.params["n"])


def limit_fractions(row, result, modmul):
    """The fractions of the ECP5-85F's DSP-bound limit (:func:`~fhe_hw.flow.synth.dsp_limit`
    of ``modmul``, the routed result of the row's ModMul) that the ``rns-poly-ntt`` ``row``
    reaches at its routed ``result``'s Fmax, over one polynomial and over one of a stream
    back to back: :func:`modular_products` per its cycles; None each without both
    results."""
    limit = dsp_limit(modmul)
    if limit is None or result is None:
        return None, None
    products = modular_products(row)
    return tuple(product_rate(products, cycles, result.fmax_mhz) / limit
                 for cycles in timing(row))


def markdown(rows, results, per="polynomial", flags=(SIDE_BY_SIDE, ("Karatsuba", "karatsuba"),
                                                    TILE_REGISTERS, FABRIC_ROUNDS, WIDE_BANKS,
                                                    SPREAD, PING_PONG), read_registers=True,
             modmuls=None):
    """The block of ``rows`` (one ``per`` a unit's run) and their ``results``: resources,
    Fmax and times; ``flags``: (the header, the parameter) of each yes/no column;
    ``read_registers``: a column of the engines' read-path registers; ``modmuls``: each
    row's ModMul's result, for the columns of :func:`limit_fractions` (none without)."""
    cells = []
    reads = [READ_REGISTERS] if read_registers else []
    limits = modmuls is not None
    for row, r, modmul in zip(rows, results, modmuls if limits else [None] * len(rows)):
        one, period = timing(row)
        fractions = [f"{100 * f:.1f} %" if f is not None else None
                     for f in limit_fractions(row, r, modmul)] if limits else []
        cells.append([row.params["n"], _towers(row), row.params["butterflies"],
                      *(_yes(row.params.get(name)) for _, name in flags),
                      *([_read_registers(row)] if read_registers else []), one, period,
                      r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz, f"{one / r.fmax_mhz:.1f}",
                      f"{period / r.fmax_mhz:.1f}", *fractions, flow_cell(row)])
    return markdown_table(["N", "towers", "P per engine", *(header for header, _ in flags),
                           *reads, "cycles()", f"cycles per {per} back to back", "LUT", "FF",
                           "DSP", "BRAM", "Fmax MHz", f"µs per {per}",
                           f"µs per {per} back to back", *(LIMIT if limits else ()), "flow"],
                          cells)


def product_markdown(rows, results):
    """The ``rns-poly-product`` block: :func:`markdown` per product, whether b arrives in
    evaluation form."""
    return markdown(rows, results, "product", [("b in evaluation form", "b_evaluated")],
                    read_registers=False)


def _routed(rows, block, args, progress):
    """``rows`` routed (:func:`~fhe_hw.tables.common.synth_rows`): the markdown ``block(rows,
    results)`` and the facts of the run."""
    results = synth_rows(rows, args, progress)
    return block(rows, results), {**ecp5_facts(results),
                                  "json": [r.to_dict() for r in results]}


def generate(args, progress):
    """The NTT rows routed, with their ModMuls' (:data:`~fhe_hw.poly.configs.POLY_MODMULS`,
    the ``engine-modmuls`` table's rows) for the fractions of the device's limit."""
    modmuls = synth_rows(POLY_MODMULS, args, progress)
    block, facts = _routed(POLY_TABLE, lambda rows, results: markdown(
        rows, results, modmuls=modmuls), args, progress)
    return block, {**facts, "modmuls": [r.to_dict() for r in modmuls]}


def _bases(row):
    plan = get_unit(row.unit).make_plan(row.params)
    return (f"{len(plan.towers)} → {len(plan.towers)} + {len(plan.targets)} towers of "
            f"{plan.width}-bit primes (OpenFHE's for N = {_ring(row)})")


def extend_row_key(row):
    """The cells that identify an :data:`~fhe_hw.poly.configs.EXTEND_TABLE` row."""
    return {"N": str(row.params["n"]), "bases": _bases(row), "flow": flow_cell(row)}


def extend_markdown(rows, results):
    """The ``rns-poly-extend`` block: each row's resources, Fmax and time per polynomial."""
    cells = []
    for row, r in zip(rows, results):
        plan = get_unit(row.unit).make_plan(row.params)
        cycles = plan.cycles()
        cells.append([row.params["n"], _bases(row), plan.lanes, plan.architecture, cycles,
                      r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz, f"{cycles / r.fmax_mhz:.1f}",
                      flow_cell(row)])
    return markdown_table(["N", "bases", "lanes", "engine", "cycles()", "LUT", "FF", "DSP",
                           "BRAM", "Fmax MHz", "µs per polynomial", "flow"], cells)


def _generate_extend(args, progress):
    return _routed(EXTEND_TABLE, extend_markdown, args, progress)


def _generate_product(args, progress):
    return _routed(PRODUCT_TABLE, product_markdown, args, progress)


def _conversion_config(row):
    """The configuration cell of an exact conversion row (``SIDE_BY_SIDE_TABLE``)."""
    p, plan = row.params, get_unit(row.unit).make_plan(row.params)
    config = (f"exact conversion ({row.unit}): N={p['n']}, {len(plan.source)} → "
              f"{len(plan.target)} × {plan.width}-bit, TP={plan.lanes}, "
              f"t={plan.targets_per_pass}")
    if plan.parallel_targets:
        config += ", targets side by side"
    if plan.parallel_redundant:
        config += ", redundant beside"
    if plan.fused_post_sum:
        config += ", Post-Sum fused"
    if plan.tile_reg:
        config += f", {TILE_REGISTERS[0]}"
    return config


def estimate_markdown(estimates):
    """The ``rns-poly-asic`` block from [(row of :data:`POLY_TABLE`, :data:`PRODUCT_TABLE` or
    :data:`~fhe_hw.rns.configs.SIDE_BY_SIDE_TABLE`, its Sky130Estimate)]."""
    cells = []
    for row, e in estimates:
        if row.unit not in ("rns-poly-ntt", "rns-poly-product"):
            cells += sky130_cells(_conversion_config(row), e, "banks (bits, estimated)",
                                  " per conversion")
            continue
        config = f"N={row.params['n']}, {_towers(row)}, P={row.params['butterflies']}"
        for header, name in (SIDE_BY_SIDE, TILE_REGISTERS, PING_PONG):
            if row.params.get(name):
                config += f", {header}"
        what = "polynomial"
        if row.unit == "rns-poly-product":
            evaluated = ", b evaluated" if row.params.get("b_evaluated") else ""
            config, what = f"product{evaluated}: {config}", "product"
        per = f" per {what} ({timing(row)[1]} per {what} back to back)"
        cells += sky130_cells(config, e, "banks and ROMs (bits, estimated)", per)
    return markdown_table(["configuration", "block", "count", "area µm² each", "area mm²",
                           "Fmax MHz", "critical path"], cells) + estimate_note(
        "the engines' control, crossbars, the stream distribution and the wiring between "
        "blocks; the blocks are the first tower's (the others differ in their constants); a "
        "conversion's modular adders, output queue and constant ROMs")


def _generate_estimate(args, progress):
    plans = [(row, get_unit(row.unit).make_plan(row.params))
             for row in POLY_TABLE + PRODUCT_TABLE + SIDE_BY_SIDE_TABLE]
    wanted = {(unit, tuple(sorted(params.items()))): (unit, params, factory)
              for _, plan in plans for unit, params, _, factory in blocks(plan)}
    results, tools = synthesize_blocks(wanted, SKY130_CLOCK_NS, progress)
    estimates = [(row, sky130_estimate(results, plan)) for row, plan in plans]
    facts = {"tools": tools,
             "json": [{"params": row.params, "total_mm2": e.total_mm2, "fmax_mhz": e.fmax_mhz,
                       "cycles": e.cycles} for row, e in estimates]}
    return estimate_markdown(estimates), facts


TABLE = TableSpec("rns-poly", "poly.md", "RNS polynomial NTT on ECP5-85F", generate,
                  rows=tuple(POLY_TABLE))
TABLES = {t.name: t for t in (
    TABLE, TableSpec("rns-poly-asic", "poly.md", "RNS polynomial NTT, product and exact "
                     "conversion: sky130 estimate from their blocks", _generate_estimate,
                     logs="asic"),
    TableSpec("rns-poly-extend", "poly.md", "Exact base extension Q → Q ∪ B on ECP5-85F",
              _generate_extend, rows=tuple(EXTEND_TABLE)),
    TableSpec("rns-poly-product", "poly.md", "RNS polynomial product on ECP5-85F",
              _generate_product, rows=tuple(PRODUCT_TABLE)))}
