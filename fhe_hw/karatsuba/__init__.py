"""Karatsuba polynomial arithmetic for SHE in hardware ([Mig16]): the
Karatsuba-r multiplier, its relinearization / key switching mode, the software side of the
co-design, and their `fhe-hw generate` entries.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`): its command-line
options come from the plan's fields.
"""

from ..units import register
from .multiplier import KaratsubaMultiplier, KaratsubaMultiplierPlan
from .reduce import WideBarrettReducer
from .relin import KaratsubaRelinearizer, KaratsubaRelinearizerPlan
from .schedule import KaratsubaLayout, crossbar_schedule

__all__ = ["KaratsubaMultiplier", "KaratsubaRelinearizer", "WideBarrettReducer",
           "KaratsubaMultiplierPlan", "KaratsubaRelinearizerPlan", "KaratsubaLayout",
           "crossbar_schedule"]

register("karatsuba", plan=KaratsubaMultiplierPlan, component=KaratsubaMultiplier,
         description="Karatsuba-r polynomial multiplier ([Mig16] §III)")
register("karatsuba-relin", plan=KaratsubaRelinearizerPlan, component=KaratsubaRelinearizer,
         description="Karatsuba relinearization / key switching ([Mig16] §II-C)")
