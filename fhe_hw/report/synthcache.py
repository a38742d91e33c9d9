"""Synthesis results for the report, cached by :mod:`fhe_hw.builddir`'s key.

:func:`cached_synth` returns the :class:`~fhe_hw.flow.synth.SynthResult` of a registered unit
at some parameters and flow (a target name of :data:`fhe_hw.flow.synth.TARGETS` and the
``options`` a :class:`~fhe_hw.flow.rows.Row` varies it by, e.g. its placer), from the
synthesis cache when a run with the same key (unit, parameters, a hash of the generated
Verilog, target, device, package, frequency, flow options, tool versions) is stored, and by running
:func:`fhe_hw.flow.synth.synth_unit` otherwise.
"""

from ..flow import synth

__all__ = ["current_tools", "load_cached", "cached_synth"]


def current_tools(target="ecp5"):
    """``{"yosys": version line, "nextpnr": version line}`` of the tools ``target`` runs."""
    return synth.tool_versions(target)


def load_cached(unit, params, flow="ecp5", options=None):
    """The stored :class:`~fhe_hw.flow.synth.SynthResult` of exactly this configuration, or None."""
    return synth.cached_unit(unit, params, flow, **synth.flow_variation(options or {}))


def cached_synth(unit, params, flow="ecp5", options=None, *, rerun=False, progress=None):
    """The synthesis result of registered unit ``unit`` built with ``params``: from the cache
    unless ``rerun``, else by running it (``progress`` hears the tools' stages). Raises as
    :func:`fhe_hw.flow.synth.synthesize`."""
    return synth.synth_unit(unit, params, flow, reuse=not rerun, progress=progress,
                            **(options or {}))
