"""Open place and route to GDS with Debian's qflow and its OSU 0.18 µm cells.

:func:`harden_qflow` writes the unit (behind its port registers, as for ``asic-synth``, so the
post-route Fmax covers every stage) into a qflow project and runs qflow's steps in order:

``synthesize`` (Yosys, ABC, fanout buffering) → ``place`` (GrayWolf) → ``sta`` (Vesta) →
``route`` (qrouter) → ``backanno`` (Vesta with the extracted wire RC) → ``migrate`` (Magic:
layout and extracted netlist) → ``drc`` (Magic) → ``lvs`` (Netgen: layout vs. synthesized
netlist) → ``gdsii`` (Magic).

The summary (:class:`QflowResult`) is read from the layout (DEF) and qflow's logs: standard
cells (fill cells not counted), die area, routed nets and failed routes, post-route Fmax,
DRC errors, LVS errors, GDS file and its picture. Debian's ``qflow-tech-osu018`` has LEF
abstracts but no layout of the cells, so the GDS holds the routing with empty cells (Magic says
"Cell ... is unavailable") and DRC covers the routing layers; LVS compares the extracted
cell-level connectivity with the synthesized netlist. The picture (``layout/<top>.png``, KLayout
through :mod:`fhe_hw.asic.render`) draws the cells as their LEF outlines under the routing.

qflow comes from Debian (``apt-get install qflow``, done here when it is missing and we are
root).
"""

import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from fhe_hw.builddir import asic_dir
from fhe_hw.debian import require_debian_tool
from fhe_hw.flow.run import run_logged
from fhe_hw.flow.synth import RegisteredPorts
from fhe_hw.units import to_verilog, top_name, verilog_header

from .render import layout_picture

__all__ = ["STEPS", "QflowResult", "harden_qflow", "read_qflow_results"]

STEPS = ("synthesize", "place", "sta", "route", "backanno", "migrate", "drc", "lvs", "gdsii")
TECH = "osu018"


@dataclass(frozen=True)
class QflowResult:
    """One qflow run: ``cells`` placed standard cells (no fill) and ``cell_types`` by type,
    ``die_um`` (width, height) and ``die_area_um2``, ``nets`` in the routed DEF and
    ``failed_routes``, ``fmax_mhz`` after routing (Vesta, extracted wire delays) and
    ``fmax_pre_route_mhz``, ``drc_errors``, ``lvs_errors`` (None when a step did not report),
    ``gds`` (path), ``png`` (its picture, None when there is none) and ``png_error`` (why not),
    ``runtime_s`` per step and for the picture."""

    unit: str
    params: dict
    tech: str
    registered_ports: bool
    cells: int
    cell_types: dict
    die_um: tuple
    die_area_um2: float
    nets: int
    failed_routes: int
    fmax_pre_route_mhz: float
    fmax_mhz: float
    drc_errors: object
    lvs_errors: object
    gds: str
    png: object
    png_error: object
    runtime_s: dict
    build_dir: str

    @property
    def clean(self):
        """Routed completely with no DRC and no LVS error."""
        return self.failed_routes == 0 and self.drc_errors == 0 and self.lvs_errors == 0

    def to_dict(self):
        return dict(asdict(self), clean=self.clean)


def _def_section(text, name):
    match = re.search(rf"^{name} (\d+) ;(.*?)^END {name}", text, re.M | re.S)
    if match is None:
        raise ValueError(f"no {name} section in the DEF file")
    return int(match.group(1)), match.group(2)


def _last_number(pattern, text, cast=float):
    found = re.findall(pattern, text, re.M)
    return cast(found[-1]) if found else None


def read_qflow_results(project, top):
    """``{cells, cell_types, die_um, die_area_um2, nets, failed_routes, fmax_pre_route_mhz,
    fmax_mhz, drc_errors, lvs_errors, gds}`` from a qflow project directory after a run."""
    project = Path(project)
    layout = (project / "layout" / f"{top}.def").read_text()
    scale = int(re.search(r"UNITS DISTANCE MICRONS (\d+)", layout).group(1))
    x0, y0, x1, y1 = map(int, re.search(
        r"DIEAREA \( (-?\d+) (-?\d+) \) \( (-?\d+) (-?\d+) \)", layout).groups())
    _, components = _def_section(layout, "COMPONENTS")
    types = {}
    for cell in re.findall(r"^\s*- \S+ (\S+)", components, re.M):
        if not cell.upper().startswith("FILL"):
            types[cell] = types.get(cell, 0) + 1
    nets, _ = _def_section(layout, "NETS")
    logs = "\n".join(path.read_text(errors="replace")
                     for path in sorted((project / "log").glob("*")) if path.is_file())
    route = (project / "log" / "route.log").read_text(errors="replace")
    final = re.findall(r"^Final: (.*)$", route, re.M)
    if final and "No failed routes" in final[-1]:
        failed = 0
    else:
        failed = _last_number(r"^Final: .*?(\d+)", route, int) if final else None
    sta = (project / "log" / "sta.log").read_text(errors="replace")
    post = (project / "log" / "post_sta.log").read_text(errors="replace")
    freq = r"Computed maximum clock frequency \(zero margin\) = ([\d.]+) MHz"
    lvs = _last_number(r"^Total errors = (\d+)", logs, int)
    gds = project / "layout" / f"{top}.gds"
    width, height = (x1 - x0) / scale, (y1 - y0) / scale
    return {"cells": sum(types.values()), "cell_types": dict(sorted(types.items())),
            "die_um": (width, height), "die_area_um2": round(width * height, 2), "nets": nets,
            "failed_routes": failed, "fmax_pre_route_mhz": _last_number(freq, sta),
            "fmax_mhz": _last_number(freq, post),
            "drc_errors": _last_number(r"^drc = (\d+)", logs, int), "lvs_errors": lvs,
            "gds": str(gds) if gds.exists() else None}


def _cell_lef(project):
    """The LEF file of the technology's standard cells (qflow's ``techdir`` and the
    technology's ``leffile``), or None."""
    try:
        techdir = re.search(r"^set techdir=(\S+)", (project / "qflow_vars.sh").read_text(),
                            re.M).group(1)
        leffile = re.search(r"^set leffile=(\S+)", Path(techdir, f"{TECH}.sh").read_text(),
                            re.M).group(1)
    except (OSError, AttributeError):
        return None
    path = Path(techdir, leffile)
    return path if path.is_file() else None


def harden_qflow(component, unit_name, *, params=None, build_dir=None, registered_ports=True,
                 steps=STEPS, timeout_s=3600, progress=None):
    """Run qflow on ``component``; return a :class:`QflowResult` (also ``qflow.json`` in
    ``build_dir``).

    Parameters: ``unit_name`` (top module ``fhe_hw_<unit>``), ``params`` (recorded),
    ``build_dir`` (the qflow project; default ``build/asic/qflow/<unit>-<hash>``: ``source/``,
    ``synthesis/``, ``layout/`` with the GDS and its PNG picture, ``log/`` with one
    ``<step>.out`` per step), ``registered_ports``
    (wrap the unit as :class:`fhe_hw.flow.synth.RegisteredPorts`), ``steps`` (a prefix of
    :data:`STEPS`), ``timeout_s`` (for the whole run), ``progress(line)`` (hears each step with
    its log path and, while it runs, the elapsed time every 10 s).

    Raises ``ValueError`` for unknown steps and ``RuntimeError`` when qflow is missing, a step
    exits non-zero or the time runs out.
    """
    steps = tuple(steps)
    if not steps or steps != STEPS[:len(steps)]:
        raise ValueError(f"steps must be a non-empty prefix of {', '.join(STEPS)}, "
                         f"not {steps!r}")
    qflow = require_debian_tool("qflow", "qflow")
    params = {} if params is None else dict(params)
    if build_dir is None:
        build_dir = asic_dir("qflow", unit_name, {"params": params,
                                                  "registered_ports": registered_ports})
    project = Path(build_dir).resolve()
    for sub in ("source", "synthesis", "layout", "log"):
        (project / sub).mkdir(parents=True, exist_ok=True)
    top = top_name(unit_name)
    unit = RegisteredPorts(component) if registered_ports else component
    notes = ["wrapper: every port registered"] if registered_ports else []
    (project / "source" / f"{top}.v").write_text(to_verilog(
        unit, unit_name, header=verilog_header(unit_name, params, notes)))

    runtime, start = {}, time.monotonic()
    for step in steps:
        left = timeout_s - (time.monotonic() - start)
        out = project / "log" / f"{step}.out"
        if progress is not None:
            progress(f"{unit_name}: qflow {step} ({time.monotonic() - start:.0f} s so far), "
                     f"log {out}")
        run_logged([qflow, step, "-T", TECH, top], project, out, f"qflow {step}",
                   progress=progress, timeout_s=max(left, 1))
        runtime[step] = round(time.monotonic() - start - sum(runtime.values()), 2)
    try:
        found = read_qflow_results(project, top)
    except (OSError, ValueError, AttributeError) as e:
        raise RuntimeError(f"qflow left no complete result in {project}/log: {e}") from None
    png = png_error = None
    if found["gds"] is not None:
        drawn = time.monotonic()
        png, png_error = layout_picture(found["gds"], cell_lef=_cell_lef(project))
        runtime["picture"] = round(time.monotonic() - drawn, 2)
        if progress is not None:
            progress(f"{unit_name}: picture {png}" if png else f"{unit_name}: {png_error}")
    runtime["total"] = round(time.monotonic() - start, 2)
    result = QflowResult(unit=unit_name, params=params, tech=TECH,
                         registered_ports=registered_ports, **found, png=png,
                         png_error=png_error, runtime_s=runtime, build_dir=str(project))
    (project / "qflow.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    return result
