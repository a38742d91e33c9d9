"""NTT engines ([Cao14] §3.2, [Wang13] §III–IV) and their `fhe-hw generate` entries.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`): its command-line
options come from the plan's fields, its timing and the root of unity a generated file's header
shows from the plan's ``cycles()`` and ``describe()``.
"""

from ..units import register
from .butterfly import Butterfly, ButterflyPlan
from .four_step import FourStepNTT, FourStepNTTPlan
from .four_step_stream import StreamingFourStepNTT, StreamingFourStepNTTPlan
from .parallel import ParallelNTT, ParallelNTTPlan
from .schedule import READ_STAGES, WRITE_STAGES
from .shift import ConstMul, RingNormaliser, ShiftMul, ShiftNTT, ShiftNTTPlan
from .streaming import StreamingNTT, StreamingNTTPlan

__all__ = ["StreamingNTT", "FourStepNTT", "StreamingFourStepNTT", "Butterfly", "ParallelNTT",
           "ShiftNTT", "ShiftMul", "ConstMul", "RingNormaliser", "ButterflyPlan",
           "ParallelNTTPlan", "ShiftNTTPlan", "StreamingNTTPlan", "FourStepNTTPlan",
           "StreamingFourStepNTTPlan", "READ_STAGES", "WRITE_STAGES"]

register("butterfly", plan=ButterflyPlan, component=Butterfly,
         description="unified FFT/IFFT butterfly, run-time or constant (shift) twiddles "
         "([Cao14] Fig. 2)")
register("parallel-ntt", plan=ParallelNTTPlan, component=ParallelNTT,
         description="fully parallel radix-2 n-point NTT, constant twiddles ([Cao14] §3.2)")
register("shift-ntt", plan=ShiftNTTPlan, component=ShiftNTT,
         description="Wang-Huang shift-only radix-64/16 unit over 2^64-2^32+1 ([Wang13] "
         "§IV-A/B)")
register("ntt", plan=StreamingNTTPlan, component=StreamingNTT,
         description="memory-based streaming NTT, n = 16..65536, P butterflies ([Cao14] §3.2, "
         "[Wang13] §IV)")
register("four-step-ntt", plan=FourStepNTTPlan, component=FourStepNTT,
         description="four-step NTT over 2^64-2^32+1 with shift-only radix-64/16 units, "
         "n = 4096 or 65536 ([Wang13] eqs 7-8, Figs 3-4)")
register("four-step-stream", plan=StreamingFourStepNTTPlan, component=StreamingFourStepNTT,
         description="streaming four-step NTT over 2^64-2^32+1, n = n1*m^2, lanes samples per "
         "cycle, transforms back to back ([Wang13] eqs 7-8, Figs 3-4)")
