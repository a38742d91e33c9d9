"""RNS base extension ([Kir25]): Shenoy–Kumaresan folded and pipelined with a
multi-target variant, fast base conversion, Kawamura Cox-Rower and mixed-radix (iterative,
pipelined); their `fhe-hw generate` / `fhe-hw synth` entries (``shenoy-kumaresan``,
``fast-base-conversion``, ``kawamura``, ``mixed-radix``, built on :func:`default_bases` NTT
primes or on the user's ``--source-primes`` and ``--target-primes``). The large Verilator
co-simulations are the submodule :mod:`fhe_hw.rns.cosim` (:func:`~.cosim.cosim_base_extension`;
default N = 2^16, l = 17, TP = 32, 60-bit primes: [Kir25] Tables 4.6, 4.10), run by
``tools/cosim_rns.py``; importing this package loads no simulator.

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
from math import gcd, log2

from ..cliargs import fraction, int_list
from ..params import KawamuraConstants, ntt_primes, require_power_of_two
from ..units import Option, parse_bool, register
from .common import (
    MAX_BITS,
    MAX_N,
    MAX_RESIDUES,
    beats_to_polynomials,
    check_ring,
    default_bases,
    polynomial_beats,
)
from .fast_base_conv import FastBaseConversion
from .kawamura import Kawamura
from .mixed_radix import MixedRadix
from .shenoy_kumaresan import CRTBaseExtension, ShenoyKumaresan

__all__ = ["ShenoyKumaresan", "FastBaseConversion", "Kawamura", "MixedRadix",
           "CRTBaseExtension", "default_bases", "polynomial_beats", "beats_to_polynomials"]


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
_SOURCE = Option("source-primes", int_list, None, "the source base q_0,...,q_(l-1), e.g. "
                 "OpenFHE's (with --target-primes; replaces --bits, --l, --k, --prime-n; default: "
                 "none, the bases those choose)")
_TARGET = Option("target-primes", int_list, None, "the target base p_0,...,p_(k-1) (with "
                 "--source-primes; default: none, the bases --bits, --l, --k choose)")


def _user_primes(name, primes):
    """``primes`` (a sequence of odd ints of 2 to :data:`MAX_BITS` bits, at most
    :data:`MAX_RESIDUES`) as a tuple; ``ValueError``/``TypeError`` naming ``name``."""
    if isinstance(primes, (int, str)) or not hasattr(primes, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers, not {primes!r}")
    primes = tuple(primes)
    if not 1 <= len(primes) <= MAX_RESIDUES:
        raise ValueError(f"{name} must have 1 to {MAX_RESIDUES} primes, not {len(primes)}")
    for q in primes:
        if not isinstance(q, int) or isinstance(q, bool):
            raise TypeError(f"{name} must be integers, not {q!r}")
        if not 3 <= q < 1 << MAX_BITS or q % 2 == 0:
            raise ValueError(f"{name} must be odd integers from 3 to 2^{MAX_BITS} - 1 "
                             f"(Montgomery reduction), not {q}")
    return primes


def _bases(bits, n, l, k, prime_n, source_primes=None, target_primes=None, redundant=None,
           **kw):
    """:func:`default_bases` for ring degree ``n`` with primes 1 mod 2·``prime_n`` (default
    ``n``), each size checked under its own name first; or the user's ``source_primes`` and
    ``target_primes`` (both or neither; odd, of at most :data:`MAX_BITS` bits, pairwise coprime,
    together with the ``redundant`` prime if given), which replace ``bits``, ``l``, ``k`` and
    ``prime_n``. With ``redundant=True`` (Shenoy–Kumaresan) also the redundant prime: the
    default base's, or with the user's bases the largest prime ≡ 1 mod 2n of their widest
    prime's bits not in them; an int is the user's."""
    check_ring(n)
    if source_primes is None and target_primes is None:
        if prime_n is not None:
            require_power_of_two("prime_n", prime_n, maximum=MAX_N)
        bases = default_bases(bits, prime_n or n, l, k, redundant=redundant is not None, **kw)
        if isinstance(redundant, bool) or redundant is None:
            return bases
        return (*bases[:2], redundant)
    if source_primes is None or target_primes is None:
        given, missing = ("target_primes", "source_primes") if source_primes is None else \
            ("source_primes", "target_primes")
        raise ValueError(f"{missing} must be given too when {given} is")
    source = _user_primes("source_primes", source_primes)
    target = _user_primes("target_primes", target_primes)
    if redundant is True:
        bits = max(q.bit_length() for q in source + target)
        redundant = ntt_primes(bits, n, 1, exclude=source + target)[0]
    extra = () if redundant is None else (redundant,)
    both = source + target + extra
    for i, a in enumerate(both):
        for b in both[i + 1:]:
            if gcd(a, b) != 1:
                raise ValueError(f"source_primes and target_primes"
                                 f"{' and redundant_prime' * bool(extra)} must be pairwise "
                                 f"coprime; {a} and {b} share the factor {gcd(a, b)}")
    return (source, target, *extra)


def _sk_args(bits=32, n=1024, l=4, k=4, tp=4, architecture="folded", targets_per_pass=1,
             word=None, mult_stages=4, prime_n=None, source_primes=None, target_primes=None,
             redundant_prime=None):
    if redundant_prime is not None:
        (redundant_prime,) = _user_primes("redundant_prime", (redundant_prime,))
    source, target, red = _bases(bits, n, l, k, prime_n, source_primes, target_primes,
                                 True if redundant_prime is None else redundant_prime)
    return (source, target, red, n, tp, architecture, targets_per_pass), \
        {"word": word, "mult_stages": mult_stages}


def _fbc_args(bits=32, n=1024, l=4, k=4, tp=4, architecture="folded", targets_per_pass=1,
              word=None, mult_stages=4, deep=True, prime_n=None, source_primes=None,
              target_primes=None):
    source, target = _bases(bits, n, l, k, prime_n, source_primes, target_primes)
    return (source, target, n, tp, architecture, targets_per_pass), \
        {"word": word, "mult_stages": mult_stages, "deep": deep}


def _kawamura_args(bits=32, n=1024, l=4, k=4, rho=16, delta=None, centred=False, word=None,
                   mult_stages=4, deep=True, prime_n=None, source_primes=None,
                   target_primes=None):
    source, target = _bases(bits, n, l, k, prime_n, source_primes, target_primes,
                            source_high=True)
    if delta is None and centred is False:
        delta = Fraction(1, 8)
    return (source, target, n, rho, delta), {"centred": centred, "word": word,
                                             "mult_stages": mult_stages, "deep": deep}


def _mixed_radix_args(bits=32, n=1024, l=4, k=4, architecture="iterative", centred=False,
                      word=None, mult_stages=None, deep=None, prime_n=None, source_primes=None,
                      target_primes=None):
    source, target = _bases(bits, n, l, k, prime_n, source_primes, target_primes)
    return (source, target, n, architecture), {"word": word, "mult_stages": mult_stages,
                                               "deep": deep, "centred": centred}


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
        a, kw = args(**params)
        bases = {"source base (l residues)": list(a[0]), "target base (k residues)": list(a[1])}
        if params.get("source_primes") is not None:
            bases["bases from"] = "source_primes, target_primes (bits, l, k, prime_n unused)"
        if cls is ShenoyKumaresan:
            bases["redundant modulus q_l"] = a[2]
        if cls is Kawamura and kw["centred"]:
            c = KawamuraConstants.build(a[0], a[1], a[3], centred=True)
            share = c.centred_distance / c.source.Q
            bases["centred lift"] = (f"(X - Q if 2X >= Q) mod p_j, exact except for "
                                     f"ceil(Q/2) <= X < Q/2 + D, D = l(eps + lambda)Q = "
                                     f"2^{log2(share):.2f} Q")
        if cls is MixedRadix and kw["centred"]:
            bases["centred lift"] = "(X - Q if 2X >= Q) mod p_j, exact"
        return bases
    return factory, {"latency": latency, "cycles": cycles, "describe": describe}


_SK, _SK_TIMING = _contract(ShenoyKumaresan, _sk_args)
_FBC, _FBC_TIMING = _contract(FastBaseConversion, _fbc_args)
_KAWAMURA, _KAWAMURA_TIMING = _contract(Kawamura, _kawamura_args)
_MIXED_RADIX, _MIXED_RADIX_TIMING = _contract(MixedRadix, _mixed_radix_args)

register("shenoy-kumaresan", "Shenoy-Kumaresan base extension ([Kir25] Alg. 2, §3.3)", _BITS, _N,
         _L, _K, _TP, Option("architecture", str, "folded", "folded or pipelined"), _TPP, _WORD,
         _STAGES, _PRIME_N, _SOURCE, _TARGET,
         Option("redundant-prime", int, None, "the redundant modulus q_l (default: the largest "
                "prime 1 mod 2n of the bases' bits not in them)"), **_SK_TIMING)(_SK)
register("fast-base-conversion", "fast base conversion ([Kir25] Alg. 1)", _BITS, _N, _L, _K, _TP,
         Option("architecture", str, "folded", "folded or pipelined"), _TPP, _WORD, _STAGES,
         _DEEP, _PRIME_N, _SOURCE, _TARGET, **_FBC_TIMING)(_FBC)
register("kawamura", "Kawamura Cox-Rower base extension ([Kir25] Alg. 3, §4.1.1)",
         _BITS, _N, _L, _K, Option("rho", int, 16, "bits of xi kept by TRUNC"),
         Option("delta", fraction, None, "initial Cox offset, e.g. 1/8 (default 1/8; 1/2 with "
                "--centred true)"),
         Option("centred", parse_bool, False, "alpha rounded to nearest: the centred lift "
                "(X - Q when 2X >= Q) as OpenFHE's SwitchCRTBasis, exact except within D above "
                "Q/2 (docs/rns.md) (true/false)"),
         _WORD, _STAGES, _DEEP, _PRIME_N, _SOURCE, _TARGET, **_KAWAMURA_TIMING)(_KAWAMURA)
register("mixed-radix", "Garner mixed-radix base extension ([Kir25] Alg. 4, §4.1.2)",
         _BITS, _N, _L, _K, Option("architecture", str, "iterative", "iterative or pipelined"),
         Option("centred", parse_bool, False, "the centred lift (X - Q when 2X >= Q) as "
                "OpenFHE's SwitchCRTBasis, exact, no extra cycle (true/false; default false)"),
         _WORD, Option("mult-stages", int, None, "registers per multiplier (default: auto)"),
         Option("deep", parse_bool, None, "deep multiplier rounds (default: deep unless the "
                "iterative loop would need more than 16 multiplier registers)"),
         _PRIME_N, _SOURCE, _TARGET, **_MIXED_RADIX_TIMING)(_MIXED_RADIX)
