"""Super-size integer engines for FHE over the integers ([Cao13] §3–5): the
Integer-FFT block multiplier, the memory-streamed accumulation/subtraction module, the
super-size Barrett reduction and the CMNT/CNT encryption primitives, and their
`fhe-hw generate` entries."""

from .barrett import SuperSizeBarrett
from .encryption import CMNTEncrypt, CNTEncrypt
from .multiplier import IntegerFFTMultiplier
from .ram import RAMHarness
from .sequencer import Plan, Sequencer
from .wordalu import ALUOp, WordALU

__all__ = ["IntegerFFTMultiplier", "SuperSizeBarrett", "CMNTEncrypt", "CNTEncrypt", "WordALU",
           "ALUOp", "Sequencer", "Plan", "RAMHarness"]

from ..arith import MULT_STAGES_OPTION  # noqa: E402
from ..model.bigint import EncryptionSizes  # noqa: E402
from ..params import modulus_spec, parse_integer  # noqa: E402
from ..units import Option, register  # noqa: E402


def parse_group(text):
    """A group name (toy, small, medium, large) or ``coeff,noise,key,count`` bit sizes."""
    if "," not in text:
        return text
    fields = text.split(",")
    if len(fields) != 4:
        raise ValueError(f"group must be a name or coeff,noise,key,count, not {text!r}")
    return EncryptionSizes(*(parse_integer(f) for f in fields))


parse_group.__name__ = "group"


# The command-line default is a reduced transform (fermat32, k = 8, b = 12), quicker to generate
# and synthesize; the classes' defaults are [Cao14] Table 2's solinas64, k = 128, b = 28 (the
# 001 Table 2 rows are e.g. --modulus solinas64 --k 128 --b 28, see tools/bigint_table.py).
_REDUCED = "a reduced transform, quicker to generate and synthesize"
_MULT = (Option("modulus", modulus_spec, "fermat32", "fermat32, fermat64, solinas64 or "
                f"general32 (default fermat32, {_REDUCED}; the classes' default: solinas64)"),
         Option("k", int, 8, f"transform size (default 8, {_REDUCED}; the classes' default: "
                "the modulus's [Cao14] Table 2 k, 64 or 128)"),
         Option("b", int, 12, f"digit bits (default 12, {_REDUCED}; the classes' default: the "
                "modulus's [Cao14] Table 2 b, 8, 24, 28 or 12)"),
         Option("bus-width", int, None, "RAM word bits d (default kb/16: kb/2d = 8)"),
         MULT_STAGES_OPTION)

register("integer-fft-mul", "super-size Integer-FFT block multiplier, 3 read + 1 write RAM "
         "ports ([Cao13] §3)",
         *_MULT, Option("max-bits", int, 4096, "longest operand in bits"),
         Option("addr-width", int, 24, "RAM word-address bits"),
         latency=IntegerFFTMultiplier.latency_of,
         cycles=lambda params, x_words=None, y_words=None: IntegerFFTMultiplier.cycles_of(
             **params, x_words=x_words, y_words=y_words),
         )(IntegerFFTMultiplier)
register("supersize-barrett", "super-size Barrett reduction on one Integer-FFT multiplier "
         "([Cao13] §4, Fig. 6iii)",
         Option("gamma", int, 4096, "bits of the modulus A0"),
         Option("x-bits", int, None, "bits of the input (default 2*gamma)"),
         *_MULT,
         latency=SuperSizeBarrett.latency_of,
         cycles=lambda params: SuperSizeBarrett.cycles_of(**params),
         )(SuperSizeBarrett)
register("cmnt-encrypt", "CMNT encryption, accumulation + Barrett on one multiplier "
         "([Cao13] Fig. 6i-ii)",
         Option("group", parse_group, "toy", "toy/small/medium/large or coeff,noise,key,count"),
         Option("schedule", str, "paper", "paper (theta^2 big products) or factored (theta)"),
         *_MULT,
         latency=CMNTEncrypt.latency_of,
         cycles=lambda params: CMNTEncrypt.cycles_of(**params),
         )(CMNTEncrypt)
register("cnt-encrypt", "CNT encryption, accumulation + Barrett on one multiplier "
         "([Cao13] Fig. 6i-ii)",
         Option("group", parse_group, "toy", "toy/small/medium/large or coeff,noise,key,count"),
         *_MULT,
         latency=CNTEncrypt.latency_of,
         cycles=lambda params: CNTEncrypt.cycles_of(**params),
         )(CNTEncrypt)
