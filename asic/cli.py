"""``fhe-hw asic-synth`` and ``fhe-hw harden``.

    fhe-hw asic-synth UNIT [unit options] [--clock-ns T] [--json F] [--markdown F]
    fhe-hw harden UNIT [unit options] --flow qflow
    fhe-hw harden UNIT [unit options] --flow librelane --pdk sky130A|gf180mcuD [--clock-ns T]

``harden`` writes a PNG picture of the routed layout beside the GDS (:mod:`.render`); a picture
that cannot be drawn is reported in one line and costs neither the GDS nor the exit status.

Tool failures and missing tools exit with status 1; bad unit parameters, an output that cannot
be written, a missing PDK (``asic-synth``) or LibreLane package (``harden --flow librelane``)
raise ``ValueError`` or an argparse error before anything is built (``fhe-hw`` exits with 2).
"""

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from fhe_hw.cliargs import (
    add_verbose,
    output_dir,
    output_file,
    percent,
    positive_float,
    write_text,
)
from fhe_hw.units import add_unit_subcommands, get_unit, top_name, unit_params

from .librelane import check_librelane_config, run_librelane, write_librelane_config
from .pdk import klayout_lyp, sky130_hd
from .qflow import harden_qflow
from .render import layout_picture
from .sky130 import asic_synthesize, markdown_table

__all__ = ["add_asic_synth_parser", "add_harden_parser", "cmd_asic_synth", "cmd_harden"]


def _build(args):
    unit = get_unit(args.unit)
    params = unit_params(unit, args)
    return unit, params, unit.build(**params)


def _write(path, text):
    write_text(path, text)
    print(f"wrote {path}", file=sys.stderr)


def _progress(line):
    print(line, file=sys.stderr)


def cmd_asic_synth(args):
    """Print the sky130 summary, write JSON (and Markdown when asked). A missing PDK is refused
    (``ValueError``, exit 2) before anything is built."""
    try:
        sky130_hd().require()
    except RuntimeError as e:
        raise ValueError(str(e)) from None
    unit, params, component = _build(args)
    try:
        result = asic_synthesize(component, unit.name, params=params, clock_ns=args.clock_ns,
                                 build_dir=args.build_dir, progress=_progress)
    except RuntimeError as e:
        print(f"fhe-hw asic-synth: error: {e}", file=sys.stderr)
        return 1
    table = markdown_table([result])
    path = result.critical_path
    print(table, end="")
    print(f"critical path {path['startpoint_register']} -> {path['endpoint_register']}: "
          f"{path['levels']} cells, "
          f"{path['arrival_ns'] + path['setup_ns']:.3f} ns with setup "
          f"(sky130_fd_sc_hd {result.corner}, pre-layout)")
    if args.json:
        _write(args.json, json.dumps(result.to_dict(), indent=2, default=str))
    else:
        print(f"wrote {Path(result.build_dir, 'asic_synth.json')}", file=sys.stderr)
    if args.markdown:
        _write(args.markdown, table)
    return 0


def cmd_harden(args):
    """Run qflow, or write/check/run a LibreLane configuration. Options the flow cannot take
    and a missing LibreLane package are refused (``ValueError``) before anything is built."""
    if args.flow == "qflow" and args.pdk not in (None, "osu018"):
        raise ValueError(f"--pdk must be osu018 (qflow's bundled library) with --flow qflow, "
                         f"not {args.pdk!r}")
    if args.flow == "librelane" and args.pdk == "osu018":
        raise ValueError("--pdk osu018 is qflow's library: --flow librelane takes sky130A or "
                         "gf180mcuD")
    if args.flow == "librelane" and importlib.util.find_spec("librelane") is None:
        raise ValueError("--flow librelane needs the LibreLane Python package: install the "
                         "'asic' extra (pip install 'fhe-hw[asic]')")
    unit, params, component = _build(args)
    try:
        if args.flow == "qflow":
            return _harden_qflow(unit, params, component, args)
        return _harden_librelane(unit, params, component, args)
    except RuntimeError as e:
        print(f"fhe-hw harden: error: {e}", file=sys.stderr)
        return 1


def _harden_qflow(unit, params, component, args):
    result = harden_qflow(component, unit.name, params=params, build_dir=args.build_dir,
                          timeout_s=args.timeout, progress=_progress)
    width, height = result.die_um
    for key, value in [("unit", unit.name), ("technology", "OSU 0.18 um (qflow osu018)"),
                       ("standard cells", result.cells),
                       ("die", f"{width:g} x {height:g} um = {result.die_area_um2:g} um^2"),
                       ("routed nets", f"{result.nets} ({result.failed_routes} failed)"),
                       ("Fmax pre-route", f"{result.fmax_pre_route_mhz} MHz"),
                       ("Fmax post-route", f"{result.fmax_mhz} MHz"),
                       ("DRC errors", result.drc_errors), ("LVS errors", result.lvs_errors),
                       ("GDS", result.gds), ("picture", result.png or result.png_error),
                       ("time", f"{result.runtime_s['total']:.0f} s")]:
        print(f"{key:<16}{value}")
    if args.json:
        _write(args.json, json.dumps(result.to_dict(), indent=2, default=str))
    print(f"wrote {Path(result.build_dir, 'qflow.json')}", file=sys.stderr)
    return 0 if result.clean else 1


def _harden_librelane(unit, params, component, args):
    import shutil

    pdk = args.pdk or "sky130A"
    config = write_librelane_config(component, unit.name, pdk=pdk,
                                    clock_ns=args.clock_ns, core_util=args.core_util,
                                    build_dir=args.build_dir, params=params)
    print(f"wrote {config} (with src/, constraints.sdc, pin_order.cfg)")
    if shutil.which("openroad"):
        return _run_librelane(unit, pdk, config, args)
    check = check_librelane_config(config)
    print(f"LibreLane {check.librelane}: {check.variables} variables of the {check.flow} flow "
          f"checked: {'no errors' if check.ok else f'{len(check.errors)} error(s)'}")
    for line in check.errors:
        print(f"  error: {line}")
    for line in check.warnings:
        print(f"  warning: {line}")
    print(f"  {len(check.pdk_variables)} further variables come from the PDK's LibreLane "
          f"configuration")
    print("not run: openroad is not on PATH; missing here to run the flow:")
    for line in check.missing_to_run:
        print(f"  - {line}")
    if args.json:
        _write(args.json, json.dumps(check.__dict__, indent=2, default=str))
    return 0 if check.ok else 1


def _run_librelane(unit, pdk, config, args):
    """Run the flow, then draw its GDS (``runs/<tag>/final/gds/``) beside it."""
    code, run_dir = run_librelane(config)
    gds = run_dir / "final" / "gds" / f"{top_name(unit.name)}.gds"
    if gds.is_file():
        png, png_error = layout_picture(gds, lyp=klayout_lyp(pdk))
    else:
        gds, png, png_error = None, None, f"no picture: LibreLane wrote no {gds}"
    summary = {"config": str(config), "run_dir": str(run_dir), "exit_status": code,
               "gds": gds and str(gds), "png": png, "png_error": png_error}
    for key, value in [("LibreLane run", f"{run_dir} (exit status {code})"), ("GDS", gds),
                       ("picture", png or png_error)]:
        print(f"{key:<16}{value}")
    if args.json:
        _write(args.json, json.dumps(summary, indent=2))
    return code


def add_asic_synth_parser(subparsers):
    """Add ``asic-synth UNIT [unit options] [--clock-ns T] [--json F] [--markdown F]
    [--build-dir D]``."""
    common = argparse.ArgumentParser(add_help=False)
    add_verbose(common)
    common.add_argument("--clock-ns", type=positive_float, default=10.0,
                        help="clock period in ns (ABC delay target, STA constraint)")
    common.add_argument("--json", type=output_file,
                        help="write the result here (default: the build directory)")
    common.add_argument("--markdown", type=output_file,
                        help="also write a Markdown table row here (default: none)")
    common.add_argument("--build-dir", type=output_dir,
                        help="build directory (default build/asic/synth/...)")
    s = subparsers.add_parser(
        "asic-synth", help="sky130 estimate: cells, area, FF, critical path, Fmax",
        description="Map a unit (ports registered) to sky130_fd_sc_hd with Yosys and time it "
                    "with OpenSTA. The PDK is found through PDK_ROOT.")
    add_unit_subcommands(s, [common])
    s.set_defaults(func=cmd_asic_synth)


def add_harden_parser(subparsers):
    """Add ``harden UNIT [unit options] --flow qflow|librelane [--pdk P] [--clock-ns T]
    [--core-util U] [--build-dir D] [--json F] [--timeout S]``."""
    common = argparse.ArgumentParser(add_help=False)
    add_verbose(common)
    common.add_argument("--flow", choices=("qflow", "librelane"), default="qflow",
                        help="qflow: run to GDS here (OSU 0.18 um); librelane: write, check "
                             "and (with OpenROAD) run a LibreLane macro")
    common.add_argument("--pdk", choices=("sky130A", "gf180mcuD", "osu018"),
                        help="LibreLane PDK (default sky130A); qflow uses osu018")
    common.add_argument("--clock-ns", type=positive_float, default=10.0,
                        help="clock period (ns)")
    common.add_argument("--core-util", type=percent, default=40,
                        help="LibreLane FP_CORE_UTIL (percent, above 0 and below 100)")
    common.add_argument("--timeout", type=positive_float, default=3600,
                        help="qflow: seconds for the whole run")
    common.add_argument("--build-dir", type=output_dir,
                        help="build directory (default build/asic/...)")
    common.add_argument("--json", type=output_file, help="also write the summary here "
                        "(default: none; qflow writes qflow.json in the build directory)")
    s = subparsers.add_parser(
        "harden", help="place and route: qflow to GDS, or a LibreLane macro",
        description="Harden a unit: --flow qflow runs Debian's qflow to GDS with DRC and LVS; "
                    "--flow librelane writes a LibreLane configuration in build/asic/UNIT, "
                    "runs it where openroad is on PATH and otherwise checks it.")
    add_unit_subcommands(s, [common])
    s.set_defaults(func=cmd_harden)
