"""The base class of every fhe_hw hardware unit, and what some of them share."""

from amaranth.lib import wiring

__all__ = ["Component", "FixedRun"]


class Component(wiring.Component):
    """An ``amaranth.lib.wiring.Component``: the base class of the fhe_hw units.

    A unit's Component takes its plan (:mod:`fhe_hw.plan`), which has checked the parameters
    before any sub-unit or signature is built, and keeps it as ``plan``; the registry
    (:meth:`fhe_hw.units.Unit.build`) makes the plan before it calls the Component.
    """


class FixedRun:
    """Mixin of the Components of stream engines whose plan fixes one run (one transform, one
    conversion, one product): :attr:`input_beats` and :attr:`output_beats` are the plan's
    (:attr:`fhe_hw.plan.StreamPlan.input_beats`)."""

    @property
    def input_beats(self):
        """Beats on ``i`` of one run: the plan's."""
        return self.plan.input_beats

    @property
    def output_beats(self):
        """Beats on ``o`` of one run: the plan's."""
        return self.plan.output_beats
