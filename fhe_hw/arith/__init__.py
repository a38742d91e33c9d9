"""Modular arithmetic hardware ([Cao14] §3.3, [Kir25] §3.2.1) and its `fhe-hw generate` entries.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`): its command-line
options come from the plan's fields.
"""

from ..units import register
from .barrett import BarrettReducer, BarrettReducerPlan
from .modadd import ModAdd, ModAddPlan, ModSub
from .modmul import ModMul, ModMulPlan
from .montgomery import MontgomeryReducer, MontgomeryReducerPlan
from .solinas import SolinasReducer, SolinasReducerPlan
from .special import SpecialReducer, SpecialReducerPlan

__all__ = ["ModAdd", "ModSub", "BarrettReducer", "SpecialReducer", "SolinasReducer",
           "MontgomeryReducer", "ModMul", "ModAddPlan", "BarrettReducerPlan",
           "SpecialReducerPlan", "SolinasReducerPlan", "MontgomeryReducerPlan", "ModMulPlan"]

register("mod-add", plan=ModAddPlan, component=ModAdd,
         description="modular adder ([Kir25] Alg. 5)")
register("mod-sub", plan=ModAddPlan, component=ModSub,
         description="modular subtracter ([Kir25] Alg. 6)")
register("barrett-reducer", plan=BarrettReducerPlan, component=BarrettReducer,
         description="Barrett reducer, 2m -> m bits ([Cao14] Alg. 2)")
register("special-reducer", plan=SpecialReducerPlan, component=SpecialReducer,
         description="reducer for p = 2^(m-1)+1 ([Cao14] Fig. 3b)")
register("solinas-reducer", plan=SolinasReducerPlan, component=SolinasReducer,
         description="reducer for p = 2^64-2^32+1 ([Cao14] Fig. 3c)")
register("montgomery-reducer", plan=MontgomeryReducerPlan, component=MontgomeryReducer,
         description="word-level Montgomery reducer ([Kir25] Alg. 7)")
register("mod-mul", plan=ModMulPlan, component=ModMul,
         description="pipelined modular multiplier")
