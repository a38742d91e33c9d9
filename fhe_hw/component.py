"""The base class of every fhe_hw hardware unit."""

from amaranth.lib import wiring

__all__ = ["Component"]


class Component(wiring.Component):
    """An ``amaranth.lib.wiring.Component``: the base class of the fhe_hw units.

    Units validate their parameters through pure ``latency_of``/``cycles_of``-style functions
    before they build their sub-units and signature, and the registry
    (:meth:`fhe_hw.units.Unit.build`) checks them through the unit's timing contract before
    calling the factory.
    """
