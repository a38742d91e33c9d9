"""Karatsuba polynomial arithmetic for SHE in hardware ([Mig16]): the
Karatsuba-r multiplier, its relinearization / key switching mode, the software side of the
co-design, and their `fhe-hw generate` entries."""

from ..params import parse_integer
from ..units import Option, parse_bool, register
from .multiplier import KaratsubaMultiplier
from .reduce import WideBarrettReducer
from .relin import KaratsubaRelinearizer
from .schedule import KaratsubaPlan, crossbar_schedule

__all__ = ["KaratsubaMultiplier", "KaratsubaRelinearizer", "WideBarrettReducer",
           "KaratsubaPlan", "crossbar_schedule"]


def _optional_int(text):
    """An integer (ASCII decimal digits or 0x hex), or ``none`` for the default."""
    if str(text).lower() in ("", "none"):
        return None
    return parse_integer(text)


_optional_int.__name__ = "integer"     # argparse: "invalid integer value: 'x'"


_RECURSIONS = Option("recursions", int, 3, "Karatsuba recursions in hardware (1..5)")
_LEAF = Option("leaf", int, 5, "coefficients of the schoolbook sub-polynomials")
_DIGIT_BITS = Option("digit-bits", int, 27, "datapath / DSP multiplier width")
_DIGITS = Option("digits", _optional_int, None, "digits per coefficient carrier (default: fit)")
_PIPELINED = Option("pipelined", parse_bool, True,
                    "registers that keep each path to one carry chain (true/false)")

register("karatsuba", "Karatsuba-r polynomial multiplier ([Mig16] §III)",
         _RECURSIONS, _LEAF, Option("coeff-bits", int, 125, "input coefficient bits"),
         _DIGIT_BITS, Option("modulus", _optional_int, None, "reduce outputs mod q (integer; "
                "default: none, no reduction)"),
         _DIGITS, _PIPELINED, latency=KaratsubaMultiplier.latency_of,
         cycles=lambda params, products=1: KaratsubaMultiplier.cycles_of(**params,
                                                                         products=products),
         )(KaratsubaMultiplier)
register("karatsuba-relin", "Karatsuba relinearization / key switching ([Mig16] §II-C)",
         _RECURSIONS, Option("words", int, 5, "word polynomials per group (l)"), _LEAF,
         Option("coeff-bits", int, 125, "key coefficient bits"),
         Option("word-bits", int, 27, "word coefficient bits (w)"), _DIGIT_BITS,
         _DIGITS, _PIPELINED, latency=KaratsubaRelinearizer.latency_of,
         cycles=lambda params, groups=1: KaratsubaRelinearizer.cycles_of(**params, groups=groups),
         )(KaratsubaRelinearizer)
