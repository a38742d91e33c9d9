"""``fhe-hw table asic``: sky130 area and Fmax of the reducers, modular multipliers,
butterflies and the largest "ASIC-only" design, rows :data:`fhe_hw.asic.configs.SKY130_TABLE`
and :data:`~fhe_hw.asic.configs.ASIC_ONLY` through :func:`fhe_hw.asic.asic_synthesize` (YoWASP
Yosys to sky130_fd_sc_hd, OpenSTA; no place and route). PDK_ROOT must point at a sky130A PDK
root. :func:`qflow_rows` / :func:`qflow_markdown` make the qflow (OSU 0.18 µm) table of
``asic/README.md``.
"""

from concurrent.futures import ProcessPoolExecutor
from functools import partial

from ..asic import asic_synthesize
from ..asic.configs import ASIC_ONLY, QFLOW_ROWS, SKY130_CLOCK_NS, SKY130_TABLE
from ..asic.qflow import harden_qflow
from ..markdown import table as markdown_table
from ..units import get_unit, units
from .pages import TableSpec

__all__ = ["TABLE", "TABLES", "sky130_markdown", "scaling_note", "qflow_rows", "qflow_markdown"]

NOT_RUN = ("k = 64 is not in the table: its Yosys run was still in ABC after 28 minutes on this "
           "shared 2-core machine and was stopped.")


def synthesize_row(row, progress=None):
    """One row's sky130 synthesis and timing; ``progress`` (picklable: it goes to a worker
    process) hears the tools' stages."""
    component = get_unit(row.unit).build(**row.params)
    result = asic_synthesize(component, row.unit, params=row.params, clock_ns=SKY130_CLOCK_NS,
                             progress=progress)
    return row.unit, row.params, _shown(row.unit, row.params, component), result


def harden_row(row):

    return row.unit, row.params, harden_qflow(get_unit(row.unit).build(**row.params), row.unit,
                                              params=row.params)


def qflow_rows(jobs=1):
    """Harden :data:`fhe_hw.asic.configs.QFLOW_ROWS` with qflow."""

    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(harden_row, QFLOW_ROWS))


def _shown(name, params, component):
    text = ", ".join(f"{k}={v}" for k, v in params.items())
    if name == "mod-mul":
        text += f" ({component.reducer})"
    return text


def sky130_markdown(rows, missing, seconds):
    lines = [markdown_table(
        ["unit", "params", "latency", "cells", "area (µm²)", "FF (port FF)", "logic levels",
         "Fmax (MHz)", "synth + STA (s)"],
        [[f"`{name}`", shown, r.latency, r.cells, f"{r.area_um2:,.0f}", f"{r.ff} ({r.io_ff})",
          r.critical_path["levels"], f"{r.fmax_mhz:.1f}", f"{r.runtime_s['total']:.0f}"]
         for name, _, shown, r in rows]).rstrip("\n")]
    first = rows[0][3]
    lines += ["", f"sky130_fd_sc_hd, {first.corner} Liberty, every port registered (the port "
              f"FF), ABC delay target {first.clock_ns:g} ns; Fmax from OpenSTA "
              f"({first.tools['opensta']}) "
              f"with an ideal clock and no wire load, i.e. before placement. "
              f"{first.tools['yosys'].split(' (')[0]}."]
    lines += ["", scaling_note(rows)]
    if any(name == "parallel-ntt" for name, *_ in rows):
        lines += ["", NOT_RUN]
    for name, params in missing:
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        lines += ["", f"Not in the table: `{name}` ({shown}) is not a registered unit in this "
                      f"checkout."]
    return "\n".join(lines) + "\n"


def scaling_note(rows):
    """How area grows with the modulus width, from the measured rows."""
    area = {(name, params.get("modulus")): r.area_um2 for name, params, _, r in rows
            if set(params) <= {"modulus", "m", "word", "n"}}   # the default depth only
    parts = []
    for name in ("mod-mul", "butterfly"):
        a32, a64 = area.get((name, "fermat32")), area.get((name, "fermat64"))
        if a32 and a64:
            parts.append(f"`{name}` grows {a64 / a32:.1f}x in area from 2^32+1 to 2^64+1 (its "
                         f"w x w multiplier is quadratic in the width)")
    mm, red = area.get(("mod-mul", "solinas64")), area.get(("solinas-reducer", "solinas64"))
    if mm and red:
        parts.append(f"the Solinas reducer is {100 * red / mm:.0f}% of its 64-bit `mod-mul`, "
                     f"so the multiplier dominates")
    ntt = sorted((params["n"], r) for name, params, _, r in rows if name == "parallel-ntt")
    if len(ntt) >= 2:
        (k0, r0), (k1, r1) = ntt[0], ntt[-1]
        growth = (r1.area_um2 / r0.area_um2) / ((k1 * (k1.bit_length() - 1))
                                                  / (k0 * (k0.bit_length() - 1)))
        per = r1.area_um2 / (k1 // 2 * (k1.bit_length() - 1))
        parts.append(f"`parallel-ntt` (solinas64, shift-only twiddles) grows from k = {k0} to "
                     f"k = {k1} by {r1.area_um2 / r0.area_um2:.1f}x, {growth:.2f}x the "
                     f"k·log2(k) butterfly count; at {per:,.0f} µm² per butterfly, [Wang13] Table "
                     f"2's k = 128 (448 butterflies) would take about {448 * per / 1e6:.0f} mm² "
                     f"before placement")
    bf = area.get(("butterfly", "solinas64"))
    if bf:
        parts.append(f"a P-butterfly NTT datapath scales as P x {bf:,.0f} µm² (one 64-bit "
                     f"Solinas butterfly) plus its memories")
    return ("Scaling: " + "; ".join(parts) + ".") if parts else ""


def qflow_markdown(rows, seconds):
    lines = [markdown_table(
        ["unit", "params", "cells", "die (µm)", "routed nets (failed)",
         "Fmax post-route (MHz)", "DRC", "LVS", "time (s)"],
        [[f"`{name}`", ", ".join(f"{k}={v}" for k, v in params.items()), r.cells,
          f"{r.die_um[0]:g} x {r.die_um[1]:g}", f"{r.nets} ({r.failed_routes})",
          f"{r.fmax_mhz:.1f}", r.drc_errors, r.lvs_errors, f"{r.runtime_s['total']:.0f}"]
         for name, params, r in rows]).rstrip("\n")]
    lines += ["", f"qflow 1.3.17 (Debian) with OSU 0.18 µm (osu018), ports registered; DRC and "
              f"LVS error counts from Magic and Netgen; {seconds:.0f} s."]
    return "\n".join(lines) + "\n"


def generate(args, progress):
    import time


    known = units()
    rows = SKY130_TABLE + [row for row in ASIC_ONLY if row.unit in known]
    missing = [(row.unit, row.params) for row in ASIC_ONLY if row.unit not in known]
    progress(f"{len(rows)} sky130 synthesis + STA run(s), {args.jobs} at a time, "
             f"logs under build/asic/synth/")
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(partial(synthesize_row, progress=progress), rows))
    first = done[0][3]
    return sky130_markdown(done, missing, time.monotonic() - start), {
        "tools": f"{first.tools['yosys'].split(' (')[0]}, OpenSTA {first.tools['opensta']}",
        "device": f"sky130_fd_sc_hd {first.corner}",
        "json": [r.to_dict() if hasattr(r, "to_dict") else str(r) for *_, r in done]}


TABLE = TableSpec("asic", "asic.md", "sky130 synthesis and OpenSTA (before placement)",
                  generate, logs="asic/synth")
TABLES = {TABLE.name: TABLE}
