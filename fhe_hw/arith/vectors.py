"""Test vectors of the arithmetic units: edge values and seeded random inputs, with the outputs
of the golden models in :mod:`fhe_hw.model.reduce` (see :mod:`fhe_hw.sim.vectors`).

:data:`DEMO` lists the configurations the demo simulates: the modular adders, every reducer
and the multiplier at the papers' moduli.
"""

from ..model import reduce as R
from ..params import MODULI, ntt_primes
from ..sim.vectors import Vectors, register_vectors

__all__ = ["DEMO"]

#: A 60-bit NTT-friendly prime (q ≡ 1 mod 2^17), the size of OpenFHE's RNS limbs.
RNS_PRIME = ntt_primes(60, 1 << 16, 1)[0]

#: (unit, label, parameters) of every configuration the demo runs.
DEMO = [
    ("mod-add", "general32", {"modulus": "general32"}),
    ("mod-sub", "solinas64", {"modulus": "solinas64"}),
    ("barrett-reducer", "general32", {"modulus": "general32"}),
    ("special-reducer", "modulus_bits=33", {"modulus_bits": 33}),
    ("special-reducer", "modulus_bits=65", {"modulus_bits": 65}),
    ("solinas-reducer", "solinas64", {}),
    ("montgomery-reducer", "60-bit, w=17", {"modulus": RNS_PRIME, "word": 17}),
] + [("mod-mul", name, {"modulus": name}) for name in MODULI]


def _pairs(unit, rng, count):
    q = unit.modulus
    edges = [(0, 0), (q - 1, q - 1), (q - 1, 1), (0, q - 1), (1, q - 1)]
    return [{"a": a, "b": b} for a, b in edges] + \
           [{"a": rng.randrange(q), "b": rng.randrange(q)} for _ in range(count)]


def _wide(unit, rng, count):
    """A reducer's inputs: the edges around p and (p-1)^2, the largest input, random words."""
    p, width = unit.modulus, len(unit.i.payload)
    edges = [0, 1, p - 1, p, p + 1, (p - 1) ** 2, (1 << width) - 1]
    return edges + [rng.getrandbits(width) for _ in range(count)]


def _fixed_latency(unit_name, inputs, model):
    """Register ``inputs(component, rng, count)`` on port ``i`` with ``model(component, x)`` on
    port ``o``."""
    @register_vectors(unit_name)
    def vectors(unit, rng, count):
        payloads = inputs(unit, rng, count)
        return Vectors({"i": payloads}, {"o": [model(unit, x) for x in payloads]},
                       {"count": len(payloads)})
    return vectors


def _mod_mul(unit, v):
    """ModMul's product through the golden model of the reducer it uses."""
    x, red = v["a"] * v["b"], unit.reducer_unit
    return {"barrett": lambda: R.barrett_reduce(x, red.constants),
            "montgomery": lambda: R.montgomery_reduce(x, red.constants),
            "special": lambda: R.special_reduce(x, red.modulus_bits),
            "solinas": lambda: R.solinas_reduce(x)}[unit.reducer]()


_fixed_latency("mod-add", _pairs, lambda u, v: R.mod_add(v["a"], v["b"], u.modulus))
_fixed_latency("mod-sub", _pairs, lambda u, v: R.mod_sub(v["a"], v["b"], u.modulus))
_fixed_latency("barrett-reducer", _wide, lambda u, x: R.barrett_reduce(x, u.constants))
_fixed_latency("special-reducer", _wide, lambda u, x: R.special_reduce(x, u.modulus_bits))
_fixed_latency("solinas-reducer", _wide, lambda u, x: R.solinas_reduce(x))
_fixed_latency("montgomery-reducer", _wide, lambda u, x: R.montgomery_reduce(x, u.constants))
_fixed_latency("mod-mul", _pairs, _mod_mul)
