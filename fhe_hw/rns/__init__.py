"""RNS base extension ([Kir25]): Shenoy–Kumaresan folded and pipelined with a
multi-target variant, fast base conversion, Kawamura Cox-Rower and mixed-radix (iterative,
pipelined); their `fhe-hw generate` / `fhe-hw synth` entries (``shenoy-kumaresan``,
``fast-base-conversion``, ``kawamura``, ``mixed-radix``, built on :func:`default_bases` NTT
primes) and the large Verilator co-simulations of :mod:`.cosim` (:func:`cosim_base_extension`;
default N = 2^16, l = 17, TP = 32, 60-bit primes: [Kir25] Tables 4.6, 4.10), run by
``tools/cosim_rns.py``.

Stream interfaces:

* :class:`ShenoyKumaresan`, :class:`FastBaseConversion` (the thesis's polynomial streaming,
  [Kir25] §3.4): ``i`` and ``o`` carry ``data.ArrayLayout(r, tp)`` beats, one residue polynomial at
  a time, N/TP beats each (coefficient c in beat c // TP, lane c % TP). Input per pass: q_0,
  q_1, ..., q_{l-1}, then the redundant q_l (Shenoy–Kumaresan); a conversion is
  ⌈k / targets_per_pass⌉ passes over the source. Output: p_0, ..., p_{k-1}.
* :class:`Kawamura`, :class:`MixedRadix` need all residues of a coefficient at once (003
  §4.1.1.1, §4.1.2.2): ``i`` carries ``data.ArrayLayout(r, l)`` (one coefficient's source
  residues), ``o`` ``data.ArrayLayout(r, k)``; N beats each.
"""

import inspect
from fractions import Fraction

from ..cliargs import fraction
from ..params import require_power_of_two
from ..units import Option, parse_bool, register
from .common import MAX_N, beats_to_polynomials, check_ring, default_bases, polynomial_beats
from .cosim import cosim_base_extension, cosim_shenoy_kumaresan
from .fast_base_conv import FastBaseConversion
from .kawamura import Kawamura
from .mixed_radix import MixedRadix
from .shenoy_kumaresan import CRTBaseExtension, ShenoyKumaresan

__all__ = ["ShenoyKumaresan", "FastBaseConversion", "Kawamura", "MixedRadix",
           "CRTBaseExtension", "default_bases", "polynomial_beats", "beats_to_polynomials",
           "cosim_shenoy_kumaresan", "cosim_base_extension"]


_BITS = Option("bits", int, 32, "bit width of the NTT primes (ntt_primes)")
_N = Option("n", int, 1024, "ring degree N (primes are 1 mod 2N)")
_L = Option("l", int, 4, "source residues")
_K = Option("k", int, 4, "target residues")
_TP = Option("tp", int, 4, "throughput: coefficients per beat")
_TPP = Option("targets-per-pass", int, 1, "target residues per pass over the source")
_WORD = Option("word", int, None, "Montgomery word (default: largest <= 17 the primes allow)")
_STAGES = Option("mult-stages", int, 4, "registers per multiplier")
_DEEP = Option("deep", parse_bool, True, "deep multiplier rounds, one carry chain per register: "
               "faster clock, longer fill (true/false)")
_PRIME_N = Option("prime-n", int, None, "primes are 1 mod 2*prime-n (default n); a larger "
                  "prime-n allows a wider Montgomery word, fewer rounds and DSPs")


def _bases(bits, n, l, k, prime_n, **kw):
    """:func:`default_bases` for ring degree ``n`` with primes 1 mod 2·``prime_n`` (default
    ``n``), each size checked under its own name first."""
    check_ring(n)
    if prime_n is not None:
        require_power_of_two("prime_n", prime_n, maximum=MAX_N)
    return default_bases(bits, prime_n or n, l, k, **kw)


def _sk_args(bits=32, n=1024, l=4, k=4, tp=4, architecture="folded", targets_per_pass=1,
             word=None, mult_stages=4, prime_n=None):
    source, target, red = _bases(bits, n, l, k, prime_n, redundant=True)
    return (source, target, red, n, tp, architecture, targets_per_pass), \
        {"word": word, "mult_stages": mult_stages}


def _fbc_args(bits=32, n=1024, l=4, k=4, tp=4, architecture="folded", targets_per_pass=1,
              word=None, mult_stages=4, deep=True, prime_n=None):
    source, target = _bases(bits, n, l, k, prime_n)
    return (source, target, n, tp, architecture, targets_per_pass), \
        {"word": word, "mult_stages": mult_stages, "deep": deep}


def _kawamura_args(bits=32, n=1024, l=4, k=4, rho=16, delta=Fraction(1, 8), word=None,
                   mult_stages=4, deep=True, prime_n=None):
    source, target = _bases(bits, n, l, k, prime_n, source_high=True)
    return (source, target, n, rho, delta), {"word": word, "mult_stages": mult_stages,
                                             "deep": deep}


def _mixed_radix_args(bits=32, n=1024, l=4, k=4, architecture="iterative", word=None,
                      mult_stages=None, deep=None, prime_n=None):
    source, target = _bases(bits, n, l, k, prime_n)
    return (source, target, n, architecture), {"word": word, "mult_stages": mult_stages,
                                               "deep": deep}


def _contract(cls, args):
    """The factory, the timing contract and the description (its bases) of a unit whose class
    takes ``args(**params)``."""
    def factory(**params):
        a, kw = args(**params)
        return cls(*a, **kw)
    factory.__signature__ = inspect.signature(args)   # its defaults are the unit's

    def latency(**params):
        a, kw = args(**params)
        return cls.latency_of(*a, **kw)

    def cycles(params):
        a, kw = args(**params)
        return cls.cycles_of(*a, **kw)

    def describe(params):
        a, _ = args(**params)
        bases = {"source base (l residues)": list(a[0]), "target base (k residues)": list(a[1])}
        if cls is ShenoyKumaresan:
            bases["redundant modulus q_l"] = a[2]
        return bases
    return factory, {"latency": latency, "cycles": cycles, "describe": describe}


_SK, _SK_TIMING = _contract(ShenoyKumaresan, _sk_args)
_FBC, _FBC_TIMING = _contract(FastBaseConversion, _fbc_args)
_KAWAMURA, _KAWAMURA_TIMING = _contract(Kawamura, _kawamura_args)
_MIXED_RADIX, _MIXED_RADIX_TIMING = _contract(MixedRadix, _mixed_radix_args)

register("shenoy-kumaresan", "Shenoy-Kumaresan base extension ([Kir25] Alg. 2, §3.3)", _BITS, _N,
         _L, _K, _TP, Option("architecture", str, "folded", "folded or pipelined"), _TPP, _WORD,
         _STAGES, _PRIME_N, **_SK_TIMING)(_SK)
register("fast-base-conversion", "fast base conversion ([Kir25] Alg. 1)", _BITS, _N, _L, _K, _TP,
         Option("architecture", str, "folded", "folded or pipelined"), _TPP, _WORD, _STAGES,
         _DEEP, _PRIME_N, **_FBC_TIMING)(_FBC)
register("kawamura", "Kawamura Cox-Rower base extension ([Kir25] Alg. 3, §4.1.1)",
         _BITS, _N, _L, _K, Option("rho", int, 16, "bits of xi kept by TRUNC"),
         Option("delta", fraction, Fraction(1, 8), "initial Cox offset, e.g. 1/8"), _WORD,
         _STAGES, _DEEP, _PRIME_N, **_KAWAMURA_TIMING)(_KAWAMURA)
register("mixed-radix", "Garner mixed-radix base extension ([Kir25] Alg. 4, §4.1.2)",
         _BITS, _N, _L, _K, Option("architecture", str, "iterative", "iterative or pipelined"),
         _WORD, Option("mult-stages", int, None, "registers per multiplier (default: auto)"),
         Option("deep", parse_bool, None, "deep multiplier rounds (default: deep unless the "
                "iterative loop would need more than 16 multiplier registers)"),
         _PRIME_N, **_MIXED_RADIX_TIMING)(_MIXED_RADIX)
