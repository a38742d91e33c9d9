"""Build directories and cache keys: the one place that names them.

Every writer of results under ``build/`` asks this module where to write: out-of-context
synthesis (:func:`synth_dir`, keyed by :func:`synth_key`), board builds (:func:`board_dir`),
design-space exploration (:func:`explore_dir`), ASIC flows (:func:`asic_dir`), cosimulation
(:func:`cosim_dir`), the results tables (:func:`table_dir`) and the compiled OpenFHE benchmark
(:func:`openfhe_dir`).

A synthesis key holds everything that changes a result: the unit, its parameters (resolved:
every option, its default where not given, :func:`fhe_hw.flow.synth.key_params`), a hash of
the generated Verilog (so an edit of the generator's code that changes the design changes the
key), the target name, device, package, target frequency, the placer/router/Yosys options and
the tool versions. Two configurations that differ in any of these get different keys, so a cached
result is never served for another device or frequency.

Every returned path lies inside :data:`ROOT` (``build/``): names are reduced to
``[A-Za-z0-9._-]`` and may not climb out (``../../x`` becomes ``x``).
"""

import hashlib
import json
import re
from pathlib import Path

__all__ = ["ROOT", "safe_name", "digest", "synth_key", "synth_dir", "board_dir", "explore_dir",
           "asic_dir", "cosim_dir", "table_dir", "report_dir", "openfhe_dir", "floorplan_dir"]

#: The root of everything the flows write.
ROOT = Path("build")


def safe_name(name):
    """``name`` as one path component: characters other than ``[A-Za-z0-9._-]`` become ``-``,
    leading dots and dashes are dropped (no ``..``, no hidden files). ValueError if nothing
    is left."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name)).lstrip(".-")
    text = re.sub(r"\.{2,}", ".", text)
    if not text:
        raise ValueError(f"{name!r} does not make a file name")
    return text


def digest(data, length=12):
    """A short stable hash of JSON-able ``data`` (dict keys sorted, other values as str)."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def synth_key(unit, params, *, target, device, package, freq_mhz, options, tools, design):
    """The cache key of one synthesis run: a dict of everything that changes its result.

    ``design`` is a hash of the Verilog given to Yosys; ``options`` are the flow's
    Yosys/nextpnr variations (the Yosys script, placer, router, extra nextpnr flags, whether
    place and route runs), ``tools`` the version lines of Yosys and nextpnr."""
    return {"unit": unit, "params": json.loads(json.dumps(dict(params), default=str)),
            "target": target, "device": device, "package": package,
            "freq_mhz": float(freq_mhz), "options": json.loads(json.dumps(options)),
            "tools": dict(tools), "design": str(design)}


def synth_dir(key):
    """``build/synth/<unit>-<target>-<hash of key>`` for a :func:`synth_key`."""
    return ROOT / "synth" / f"{safe_name(key['unit'])}-{safe_name(key['target'])}-{digest(key)}"


def board_dir(board, unit, key):
    """``build/boards/<board>-<unit>-<hash of key>`` (key: parameters, link options)."""
    return ROOT / "boards" / f"{safe_name(board)}-{safe_name(unit)}-{digest(key, 8)}"


def explore_dir(name):
    """``build/explore/<name>`` with ``name`` reduced to one safe component."""
    return ROOT / "explore" / safe_name(name)


def asic_dir(flow, unit, params=None):
    """``build/asic/<flow>/<unit>[-<hash of params>]``."""
    tail = safe_name(unit) if params is None else f"{safe_name(unit)}-{digest(params, 8)}"
    return ROOT / "asic" / safe_name(flow) / tail


def cosim_dir(unit, key):
    """``build/cosim/<unit>-<hash of key>``."""
    return ROOT / "cosim" / f"{safe_name(unit)}-{digest(key, 16)}"


def table_dir():
    """``build/tables``: the Markdown and JSON each ``fhe-hw table`` run leaves."""
    return ROOT / "tables"


def report_dir():
    """``build/report``."""
    return ROOT / "report"


def openfhe_dir(key, prefix="bench"):
    """``build/openfhe/<prefix>-<hash of key>`` (key: the C++ source's hash, the compiler
    version, the OpenFHE library and include directories; prefix ``bench`` for the benchmark)."""
    return ROOT / "openfhe" / f"{prefix}-{digest(key, 16)}"


def floorplan_dir(device, package, tools):
    """``build/floorplan/<device>-<package>-<hash of tools>``: where the DSP sites nextpnr gives
    a device are kept (tools: the Yosys and nextpnr version lines)."""
    return ROOT / "floorplan" / f"{safe_name(device)}-{safe_name(package)}-{digest(tools)}"
