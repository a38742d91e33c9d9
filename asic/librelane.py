"""LibreLane (OpenLane 2 successor) macro configuration for a unit.

:func:`write_librelane_config` writes, into ``build/asic/<unit>/`` by default:

* ``src/fhe_hw_<unit>.v`` — the unit's Verilog (``fhe_hw.units.to_verilog``; the macro's pins
  are the unit's own ports, ``clk`` and ``rst`` included);
* ``constraints.sdc`` — the clock on ``clk``, input/output delays of a fraction of the period,
  clock uncertainty and transition, an output load (used for both place-and-route and
  sign-off);
* ``pin_order.cfg`` — ``clk``, ``rst`` and the input stream ``i__*`` on the west edge, the
  output stream ``o__*`` on the east edge;
* ``config.yaml`` — LibreLane's Classic flow: design name, PDK and standard-cell library,
  Verilog, clock port and period, the SDC files, the pin order, relative die sizing
  (``FP_CORE_UTIL``) and placement density.

:func:`check_librelane_config` loads the YAML with LibreLane's own ``Config.load`` against
the Classic flow's variable definitions (every step's variables), leaving out the PDK's own
configuration, and reports type errors, unknown variables and required variables not set, the
PDK-provided variables, and what is missing on this machine to run the flow. :func:`run_librelane`
runs ``python -m librelane`` where ``openroad`` is on PATH (e.g. inside LibreLane's Nix shell),
into ``runs/<tag>/`` beside the configuration (the GDS in ``final/gds/``).

The Python package comes with the pip extra ``asic`` (``pip install fhe-hw[asic]``: librelane,
pyosys).
"""

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from fhe_hw.units import get_unit, to_verilog, top_name, verilog_header

from .pdk import pdk_root

__all__ = ["PDKS", "LibreLaneCheck", "write_librelane_config", "check_librelane_config",
           "run_librelane", "librelane_tools_missing"]

# PDK name -> (standard-cell library, a small inverter to drive inputs in the SDC)
PDKS = {
    "sky130A": ("sky130_fd_sc_hd", "sky130_fd_sc_hd__inv_2", "Y"),
    "gf180mcuD": ("gf180mcu_fd_sc_mcu7t5v0", "gf180mcu_fd_sc_mcu7t5v0__inv_2", "ZN"),
}

# Executables the Classic flow calls (beyond Python): OpenROAD, Yosys (or pyosys), Magic,
# Netgen, KLayout.
_FLOW_TOOLS = ("openroad", "magic", "netgen", "klayout")


def _yaml_value(value):
    # JSON scalars and lists are valid YAML; LibreLane's loader reads 10.0 as a Decimal.
    return json.dumps(value)


def _sdc(clock_ns, io_fraction, driver):
    cell, pin = driver
    io = round(clock_ns * io_fraction, 4)
    return (f"# fhe_hw: timing constraints of one macro (clock clk, period {clock_ns:g} ns)\n"
            f"create_clock -name clk -period {clock_ns:g} [get_ports clk]\n"
            f"set_clock_uncertainty 0.25 [get_clocks clk]\n"
            f"set_clock_transition 0.15 [get_clocks clk]\n"
            f"set ins [delete_from_list [all_inputs] [get_ports clk]]\n"
            f"set_input_delay {io:g} -clock clk $ins\n"
            f"set_output_delay {io:g} -clock clk [all_outputs]\n"
            f"set_driving_cell -lib_cell {cell} -pin {pin} $ins\n"
            f"set_load 0.033 [all_outputs]\n")


_PIN_ORDER = "#W\nclk\nrst\ni__.*\n\n#E\no__.*\n"


def write_librelane_config(component, unit_name, *, pdk="sky130A", clock_ns=10.0,
                           core_util=40, density_pct=50, io_fraction=0.2, build_dir=None,
                           params=None):
    """Write the macro files (module docstring) for ``component``; return the path of
    ``config.yaml``.

    Parameters: ``pdk`` (``"sky130A"`` or ``"gf180mcuD"``), ``clock_ns`` (clock period),
    ``core_util`` (``FP_CORE_UTIL``, percent of the core area taken by cells), ``density_pct``
    (``PL_TARGET_DENSITY_PCT``), ``io_fraction`` (input/output delay as a fraction of the
    period), ``build_dir`` (default ``build/asic/<unit>``), ``params`` (recorded in a comment).

    Raises ``ValueError`` for an unknown PDK or out-of-range numbers.
    """
    if pdk not in PDKS:
        raise ValueError(f"pdk must be one of {', '.join(PDKS)}, not {pdk!r}")
    if not isinstance(clock_ns, (int, float)) or isinstance(clock_ns, bool) or clock_ns <= 0:
        raise ValueError(f"clock_ns must be a positive number, not {clock_ns!r}")
    if not 0 < core_util < 100:
        raise ValueError(f"core_util must be between 0 and 100, not {core_util!r}")
    if not 0 < density_pct <= 100:
        raise ValueError(f"density_pct must be in (0, 100], not {density_pct!r}")
    if not 0 <= io_fraction < 1:
        raise ValueError(f"io_fraction must be in [0, 1), not {io_fraction!r}")
    scl, *driver = PDKS[pdk]
    build_dir = Path(build_dir or Path("build", "asic", unit_name))
    (build_dir / "src").mkdir(parents=True, exist_ok=True)
    top = top_name(unit_name)
    (build_dir / "src" / f"{top}.v").write_text(to_verilog(
        component, unit_name, header=verilog_header(unit_name, params)))
    (build_dir / "constraints.sdc").write_text(_sdc(clock_ns, io_fraction, driver))
    (build_dir / "pin_order.cfg").write_text(_PIN_ORDER)
    settings = {
        "DESIGN_NAME": top,
        "PDK": pdk,
        "STD_CELL_LIBRARY": scl,
        "VERILOG_FILES": [f"dir::src/{top}.v"],
        "CLOCK_PORT": "clk",
        "CLOCK_PERIOD": clock_ns,
        "PNR_SDC_FILE": "dir::constraints.sdc",
        "SIGNOFF_SDC_FILE": "dir::constraints.sdc",
        "IO_PIN_ORDER_CFG": "dir::pin_order.cfg",
        "FP_SIZING": "relative",
        "FP_CORE_UTIL": core_util,
        "PL_TARGET_DENSITY_PCT": density_pct,
    }
    shown = ", ".join(f"{k}={v}" for k, v in (params or {}).items())
    lines = [f"# LibreLane macro of fhe_hw unit {unit_name} ({shown or 'defaults'}), written by "
             f"`fhe-hw harden {unit_name} --flow librelane --pdk {pdk}`.",
             f"# Latency {get_unit(unit_name).latency(params)}; ports as in the unit's docstring.",
             "meta:", "  version: 2", "  flow: Classic"]
    lines += [f"{key}: {_yaml_value(value)}" for key, value in settings.items()]
    path = build_dir / "config.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@dataclass
class LibreLaneCheck:
    """Result of :func:`check_librelane_config`: ``errors`` and ``warnings`` from LibreLane's
    loader, ``variables`` the number of flow variables checked, ``pdk_variables`` the required
    variables that the PDK's LibreLane configuration supplies, ``missing_to_run`` what this
    machine lacks to run the flow (tools on PATH, PDK files)."""

    config: str
    flow: str
    librelane: str
    variables: int
    errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    pdk_variables: list = field(default_factory=list)
    missing_to_run: list = field(default_factory=list)

    @property
    def ok(self):
        return not self.errors


def _librelane():
    try:
        import librelane  # noqa: F401 - imported for its presence and version
        from librelane.__version__ import __version__
    except ImportError:
        raise RuntimeError("the LibreLane Python package is not installed: "
                           "`pip install fhe-hw[asic]` (librelane, pyosys)") from None
    return __version__


def librelane_tools_missing(pdk="sky130A"):
    """What this machine lacks to run LibreLane's Classic flow for ``pdk``: executables not
    on PATH and the PDK's LibreLane configuration under :func:`fhe_hw.asic.pdk.pdk_root`."""
    missing = [f"`{tool}` on PATH" for tool in _FLOW_TOOLS if shutil.which(tool) is None]
    pdk_config = pdk_root() / pdk / "libs.tech" / "librelane"
    if not pdk_root().is_dir():
        missing.append(f"PDK_ROOT ({pdk_root()}) does not exist: set it to a ciel PDK root")
    elif not pdk_config.is_dir():
        missing.append(f"{pdk_config} (the PDK's LibreLane configuration: install the full "
                       f"PDK with `ciel enable --pdk-family {pdk.rstrip('ABCD')} <version>`)")
    return missing


def _config_keys(config):
    """The top-level keys and values of a LibreLane YAML or JSON configuration."""
    import yaml  # a dependency of librelane

    with open(config, encoding="utf8") as f:
        data = json.load(f) if str(config).endswith(".json") else yaml.safe_load(f)
    return data if isinstance(data, dict) else {}


def check_librelane_config(config, flow="Classic"):
    """Check ``config`` (a LibreLane YAML/JSON file) against the variables of ``flow`` with
    LibreLane's own loader; return a :class:`LibreLaneCheck`. RuntimeError without LibreLane.
    """
    version = _librelane()
    from librelane.config import Config, InvalidConfig
    from librelane.flows import Flow

    flow_cls = Flow.factory.get(flow)
    if flow_cls is None:
        raise ValueError(f"flow must be one of {', '.join(Flow.factory.list())}, not {flow!r}")
    # Every variable of the flow and its steps; those a PDK supplies are checked by the PDK's
    # own configuration, which a design configuration does not set.
    variables = Flow.get_all_config_variables(flow_cls)
    design_vars = [v for v in variables if not v.pdk]
    pdk_required = sorted(v.name for v in variables if v.pdk and not v.optional
                          and v.default is None)
    config = Path(config).resolve()
    keys = _config_keys(config)
    # PDK variables that the design sets itself (STD_CELL_LIBRARY) are checked too.
    checked = design_vars + [v for v in variables if v.pdk and v.name in keys]
    check = LibreLaneCheck(str(config), flow, version, len(checked),
                           pdk_variables=[name for name in pdk_required if name not in keys],
                           missing_to_run=librelane_tools_missing(keys.get("PDK", "sky130A")))
    try:
        # PDK_ROOT must name an existing folder; a missing one is reported in missing_to_run.
        root = pdk_root() if pdk_root().is_dir() else config.parent
        Config.load(str(config), checked, design_dir=str(config.parent), pdk_root=str(root),
                    _load_pdk_configs=False)
    except InvalidConfig as e:
        check.errors += list(e.errors)
        check.warnings += list(e.warnings)
    except (ValueError, TypeError, KeyError) as e:
        check.errors.append(f"{type(e).__name__}: {e}")
    return check


def run_librelane(config, *, run_tag=None, extra_args=()):
    """Run LibreLane's Classic flow on ``config`` (needs ``openroad`` on PATH and a full PDK
    under ``PDK_ROOT``) as the run ``run_tag`` (default ``fhe_hw_<date>_<time>``); return the
    exit status and the run's folder (``runs/<run_tag>`` beside ``config``). RuntimeError
    naming what is missing."""
    _librelane()
    missing = librelane_tools_missing(_config_keys(config).get("PDK", "sky130A"))
    if missing:
        raise RuntimeError("cannot run LibreLane here; missing: " + "; ".join(missing))
    run_tag = run_tag or time.strftime("fhe_hw_%Y-%m-%d_%H-%M-%S")
    argv = [sys.executable, "-m", "librelane", "--pdk-root", str(pdk_root()),
            "--run-tag", run_tag, *extra_args, str(config)]
    code = subprocess.run(argv, env=dict(os.environ)).returncode
    return code, Path(config).parent / "runs" / run_tag
