"""Floorplans for nextpnr: the DSP blocks of each tower of a polynomial unit in a block of DSP
sites of its own.

nextpnr places a cell whose ``BEL`` attribute names a site there and keeps it there
(nextpnr's absolute placement constraints). With many engines on an ECP5, the placer may put an
engine's MULT18X18D far from the adders they feed: the 8-tower NTT with four butterflies per
engine has a wire of several nanoseconds from a tower's DSP in one DSP row to its adder's carry
chain rows away. The ``towers`` floorplan gives every tower (the cells named
``...tower<j>...``) a block of consecutive DSP sites in one DSP row, the towers in order over
the rows, each row's towers spread over its width; the placer then draws each tower's logic
around its DSPs. Other cells are placed freely.

The device's DSP sites are read from nextpnr itself (:func:`dsp_sites`): a probe design with
as many MULT18X18D as the device has, placed once and kept under ``build/floorplan`` keyed by
device, package and tool versions.
"""

import json
import re
from pathlib import Path

from .. import builddir
from .run import run_logged

__all__ = ["FLOORPLANS", "dsp_sites", "tower_groups", "assign_sites", "apply_floorplan"]

#: The floorplans :func:`apply_floorplan` knows.
FLOORPLANS = ("towers",)

#: The ECP5 DSP primitive a floorplan places.
DSP_CELL = "MULT18X18D"

_SITE = re.compile(r"X(\d+)/Y(\d+)/")
_TOWER = re.compile(r"(?:^|\.)tower(\d+)(?:\.|$)")


def _natural(name):
    """A sort key that orders the numbers in ``name`` by value (bf2 before bf10)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def tower_groups(cells):
    """The names of the DSP ``cells`` (a netlist's ``{name: cell}``) of each tower, towers in
    order, each tower's cells in natural order; cells outside a tower are left out."""
    groups = {}
    for name, cell in cells.items():
        match = _TOWER.search(name)
        if cell["type"] == DSP_CELL and match:
            groups.setdefault(int(match.group(1)), []).append(name)
    return [sorted(groups[j], key=_natural) for j in sorted(groups)]


def assign_sites(groups, sites):
    """``{cell: site}`` for the ``groups`` (lists of cell names) over the DSP ``sites`` (names
    ``X<x>/Y<y>/<bel>``): the groups in order over the DSP rows (top to bottom, as evenly as
    the count allows, earlier rows taking one more), each row's groups in equal spans of its
    sites from left to right, each group the consecutive sites in the middle of its span.
    Raises ``ValueError`` when a row's groups do not fit it."""
    rows = {}
    for site in sites:
        x, y = map(int, _SITE.match(site).groups())
        rows.setdefault(y, []).append((x, site))
    rows = [[site for _, site in sorted(rows[y])] for y in sorted(rows)]
    placement, start = {}, 0
    for r, row in enumerate(rows):
        share = len(groups) // len(rows) + (r < len(groups) % len(rows))
        mine, start = groups[start:start + share], start + share
        if not mine:
            continue
        span = len(row) // len(mine)
        for k, cells in enumerate(mine):
            if len(cells) > span:
                raise ValueError(f"floorplan 'towers': a tower of {len(cells)} {DSP_CELL} does "
                                 f"not fit a span of {span} sites ({len(mine)} towers in a row "
                                 f"of {len(row)})")
            first = k * span + (span - len(cells)) // 2
            placement.update(zip(cells, row[first:first + len(cells)]))
    return placement


def _probe_verilog(count):
    """A design of ``count`` registered MULT18X18D, each driving an output."""
    return (f"module probe(input clk, input [17:0] a, input [17:0] b, output [{count - 1}:0] p);\n"
            f"  genvar i;\n  generate for (i = 0; i < {count}; i = i + 1) begin : g\n"
            f"    wire [35:0] q;\n"
            f"    {DSP_CELL} #(.REG_OUTPUT_CLK(\"CLK0\")) m (.CLK0(clk), "
            + ", ".join(f".A{k}(a[{k}])" for k in range(18)) + ", "
            + ", ".join(f".B{k}(b[{k}])" for k in range(18))
            + ", .P0(q[0]));\n    assign p[i] = q[0];\n  end endgenerate\nendmodule\n")


def _probe(yosys, nextpnr, device, package, count, work, progress):
    """Place a probe of ``count`` DSPs; ``(sites used, DSP sites available)``."""
    (work / "probe.v").write_text(_probe_verilog(count))
    run_logged([yosys, "-q", "-l", "yosys.log", "-p",
                "read_verilog probe.v; synth_ecp5 -top probe -json probe.json"],
               work, "yosys.log", "yosys (floorplan probe)", progress=progress, own_log=True)
    run_logged([nextpnr, f"--{device}", "--package", package, "--json", "probe.json",
                "--write", "placed.json", "--report", "report.json", "--out-of-context",
                "-q", "-l", "nextpnr.log"], work, "nextpnr.log", "nextpnr (floorplan probe)",
               progress=progress, own_log=True)
    (module,) = json.loads((work / "placed.json").read_text())["modules"].values()
    cells = module["cells"]
    used = [c["attributes"]["NEXTPNR_BEL"] for c in cells.values() if c["type"] == DSP_CELL]
    available = json.loads((work / "report.json").read_text())["utilization"][DSP_CELL]
    return used, available["available"]


def dsp_sites(yosys, nextpnr, device, package, tools, progress=None):
    """Every MULT18X18D site of the ECP5 ``device`` in ``package`` as nextpnr names them, read
    by placing a probe design (kept in ``build/floorplan``, keyed by the device, the package
    and ``tools``, the tool versions)."""
    work = builddir.floorplan_dir(device, package, tools)
    work.mkdir(parents=True, exist_ok=True)
    stored = work / "sites.json"
    if stored.exists():
        return json.loads(stored.read_text())
    _, available = _probe(yosys, nextpnr, device, package, 1, work, progress)
    sites, _ = _probe(yosys, nextpnr, device, package, available, work, progress)
    sites = sorted(sites, key=_natural)
    stored.write_text(json.dumps(sites))
    return sites


def apply_floorplan(floorplan, netlist, out, sites):
    """Write ``out``: the Yosys JSON ``netlist`` with a ``BEL`` attribute on the DSP cells that
    ``floorplan`` places (:func:`assign_sites` of :func:`tower_groups` over ``sites``); return
    the ``{cell: site}`` written. Raises ``ValueError`` for an unknown floorplan and
    ``RuntimeError`` when no DSP belongs to a tower."""
    if floorplan not in FLOORPLANS:
        raise ValueError(f"floorplan must be one of {', '.join(FLOORPLANS)}, not {floorplan!r}")
    design = json.loads(Path(netlist).read_text())
    tops = [m for m in design["modules"].values()
            if int(m.get("attributes", {}).get("top", "0") or 0)]
    module = tops[0] if len(tops) == 1 else None
    groups = tower_groups(module["cells"]) if module else []
    if not groups:
        raise RuntimeError(f"floorplan {floorplan!r}: no {DSP_CELL} of a tower in {netlist}")
    placement = assign_sites(groups, sites)
    for name, site in placement.items():
        module["cells"][name]["attributes"]["BEL"] = site
    Path(out).write_text(json.dumps(design))
    return placement
