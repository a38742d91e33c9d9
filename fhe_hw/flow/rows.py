"""A configuration row: the identity every table, report section and smoke set shares.

A :class:`Row` is (registered unit name, parameter dict, target options): ``target`` names a
flow of :data:`fhe_hw.flow.synth.TARGETS` and ``options`` holds further keywords of
:func:`fhe_hw.flow.synth.synthesize` (``router``, ``placer``, ``freq_mhz``, ``device``, ...).
The families' ``configs`` modules hold the named lists of rows.
"""

from typing import NamedTuple

__all__ = ["Row", "shown", "shown_flow"]


class Row(NamedTuple):
    unit: str
    params: dict
    target: str = "ecp5"
    options: dict = {}

    def synth_kw(self):
        """Keywords for :func:`fhe_hw.flow.synth.synth_unit` after ``unit`` and ``params``."""
        return {"target": self.target, **self.options}


def shown(params, skip=()):
    """``"a=1, b=2"``: parameters as the tables print them."""
    return ", ".join(f"{k}={v}" for k, v in params.items() if k not in skip)


def shown_flow(flow, options=None):
    """``"flow"`` or ``"flow, placer=static"``: a flow and the options a row varies it by."""
    return ", ".join([flow] + ([shown(options)] if options else []))
