"""NTT engines (001 §3.2, 002 §III–IV) and their `fhe-hw generate` entries."""

from ..units import Option, parse_bool, register
from .butterfly import Butterfly

__all__ = ["Butterfly"]

register("butterfly", "unified FFT/IFFT butterfly with run-time twiddles (001 Fig. 2)",
         Option("modulus", str, "solinas64", "modulus name or integer"),
         Option("scale-up", parse_bool, False, "include the x_up*w_up multiplier"),
         Option("mult-stages", int, 4, "registers in each multiplier"))(Butterfly)
