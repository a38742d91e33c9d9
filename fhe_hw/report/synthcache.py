"""Synthesis results for the report, cached by :mod:`fhe_hw.builddir`'s key.

:func:`cached_synth` returns the :class:`~fhe_hw.flow.synth.SynthResult` of a registered unit
at some parameters and flow (a target name of :data:`fhe_hw.flow.synth.TARGETS`), from the
synthesis cache when a run with the same key (unit, parameters, a hash of the generated
Verilog, target, device, package, frequency, flow options, tool versions) is stored, and by running
:func:`fhe_hw.flow.synth.synth_unit` otherwise.
"""

from ..flow import synth

__all__ = ["current_tools", "load_cached", "cached_synth", "is_cached"]


def current_tools(target="ecp5"):
    """``{"yosys": version line, "nextpnr": version line}`` of the tools ``target`` runs."""
    return synth.tool_versions(target)


def load_cached(unit, params, flow="ecp5", **variation):
    """The stored :class:`~fhe_hw.flow.synth.SynthResult` of exactly this configuration, or None."""
    return synth.cached_unit(unit, params, flow, **variation)


def is_cached(unit, params, flow="ecp5", **variation):
    return load_cached(unit, params, flow, **variation) is not None


def cached_synth(unit, params, flow="ecp5", *, rerun=False, progress=None, **variation):
    """The synthesis result of registered unit ``unit`` built with ``params``: from the cache
    unless ``rerun``, else by running it (``progress`` hears the tools' stages). Raises as
    :func:`fhe_hw.flow.synth.synthesize`."""
    return synth.synth_unit(unit, params, flow, reuse=not rerun, progress=progress,
                            **variation)
