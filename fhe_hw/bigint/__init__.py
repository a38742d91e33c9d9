"""Super-size integer engines for FHE over the integers ([Cao13] §3–5): the
Integer-FFT block multiplier, the memory-streamed accumulation/subtraction module, the
super-size Barrett reduction and the CMNT/CNT encryption primitives, and their
`fhe-hw generate` entries.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`): its command-line
options come from the plan's fields.
"""

from ..units import register
from .barrett import SuperSizeBarrett, SuperSizeBarrettPlan
from .encryption import CMNTEncrypt, CMNTEncryptPlan, CNTEncrypt, CNTEncryptPlan, parse_group
from .multiplier import IntegerFFTMultiplier, IntegerFFTMultiplierPlan
from .ram import RAMHarness
from .sequencer import Sequencer, SequencerPlan, SequencerProgram
from .wordalu import ALUOp, WordALU

__all__ = ["IntegerFFTMultiplier", "SuperSizeBarrett", "CMNTEncrypt", "CNTEncrypt", "WordALU",
           "ALUOp", "Sequencer", "SequencerProgram", "SequencerPlan", "RAMHarness",
           "IntegerFFTMultiplierPlan", "SuperSizeBarrettPlan", "CMNTEncryptPlan",
           "CNTEncryptPlan", "parse_group"]

register("integer-fft-mul", plan=IntegerFFTMultiplierPlan, component=IntegerFFTMultiplier,
         description="super-size Integer-FFT block multiplier, 3 read + 1 write RAM ports "
                     "([Cao13] §3)")
register("supersize-barrett", plan=SuperSizeBarrettPlan, component=SuperSizeBarrett,
         description="super-size Barrett reduction on one Integer-FFT multiplier ([Cao13] §4, "
                     "Fig. 6iii)")
register("cmnt-encrypt", plan=CMNTEncryptPlan, component=CMNTEncrypt,
         description="CMNT encryption, accumulation + Barrett on one multiplier ([Cao13] "
                     "Fig. 6i-ii)")
register("cnt-encrypt", plan=CNTEncryptPlan, component=CNTEncrypt,
         description="CNT encryption, accumulation + Barrett on one multiplier ([Cao13] "
                     "Fig. 6i-ii)")
