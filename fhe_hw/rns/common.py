"""Pieces shared by the RNS base-extension engines of [Kir25]: parameter
checks, lane slicing, default bases, the packing of residue polynomials into beats and the
stalled core of the per-coefficient engines (the delay lines and ROMs are :mod:`fhe_hw.lib`'s)."""

from amaranth import Signal
from amaranth.lib.wiring import In, Out, Signature

from ..arith.pipeline import wrap_inc
from ..lib.stream import stall_on_backpressure
from ..params import ntt_primes, require_int, require_power_of_two

__all__ = ["check_ring", "check_choice", "wrap_inc", "lanes",
           "default_bases", "polynomial_beats", "beats_to_polynomials", "core_signature",
           "stalled_core", "MAX_BITS", "MAX_N", "MAX_RESIDUES"]

#: Upper bounds of the generated bases, beyond [Kir25]'s largest set (N = 2^16, l = k = 17,
#: 60-bit primes): prime bits, ring degree N, residues per base.
MAX_BITS = 64
MAX_N = 1 << 17
MAX_RESIDUES = 64


def check_ring(n, lanes=None):
    """Validate the ring degree N (a power of two up to :data:`MAX_N`) and the ``lanes``
    (coefficients per beat, TP in [Kir25]: a power of two, at most N)."""
    require_power_of_two("n", n, maximum=MAX_N)
    if lanes is not None:
        require_power_of_two("lanes", lanes)
        if lanes > n:
            raise ValueError(f"lanes must be at most n = {n}, not {lanes!r}")
    return n, lanes


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}")
    return value


def lanes(value, width, count):
    """The ``count`` ``width``-bit lanes of a flat value, lane 0 in the low bits."""
    return [value[i * width:(i + 1) * width] for i in range(count)]


def default_bases(prime_bits, n, source_limbs, target_limbs, *, redundant=False,
                  source_high=False):
    """Source (l = ``source_limbs``), target (k = ``target_limbs``) and, if asked, redundant NTT
    primes of ``prime_bits`` bits with
    q ≡ 1 (mod 2n) (:func:`fhe_hw.params.ntt_primes`), all distinct, each base ascending.
    The source is the l smallest (mixed radix wants source < target, eq. 2.30), or the l largest
    with ``source_high`` (closest to 2^r, as Kawamura's bound wants); the redundant prime is the
    largest. Sizes beyond :data:`MAX_BITS`, :data:`MAX_N` and :data:`MAX_RESIDUES` are refused
    (``ValueError``) before any prime is searched."""
    require_int("prime_bits", prime_bits, minimum=8, maximum=MAX_BITS)
    check_ring(n)
    l = require_int("source_limbs", source_limbs, minimum=1, maximum=MAX_RESIDUES)
    k = require_int("target_limbs", target_limbs, minimum=1, maximum=MAX_RESIDUES)
    primes = ntt_primes(prime_bits, n, l + k + int(redundant))
    red = primes.pop() if redundant else None
    if source_high:
        source, target = primes[k:], primes[:k]
    else:
        source, target = primes[:l], primes[l:]
    return (tuple(source), tuple(target), red) if redundant else (tuple(source), tuple(target))


def polynomial_beats(polys, lanes):
    """Residue polynomials (each N coefficients) as ``ArrayLayout(r, lanes)`` beats,
    residue-major: N/lanes beats per polynomial, coefficient c in beat c // lanes, lane
    c % lanes."""
    return [list(poly[x:x + lanes]) for poly in polys for x in range(0, len(poly), lanes)]


def beats_to_polynomials(beats, n, lanes):
    """Inverse of :func:`polynomial_beats`: the polynomials of N coefficients."""
    flat = [c for beat in beats for c in beat]
    return [flat[x:x + n] for x in range(0, len(flat), n)]


def core_signature(in_width, out_width):
    """The ports of a per-coefficient engine's core (Kawamura's Cox-Rower, mixed radix), which
    runs under the clock enable of :func:`stalled_core`: ``i_valid`` (in, a beat of
    ``in_width`` bits on ``i_data`` transfers), ``i_ready`` (out, the core takes a beat this
    cycle), ``o_valid`` and ``o_data`` (out, ``out_width`` bits: the registered output beat)."""
    return Signature({"i_valid": In(1), "i_ready": Out(1), "i_data": In(in_width),
                      "o_valid": Out(1), "o_data": Out(out_width)})


def stalled_core(m, core, i, o):
    """Add ``core`` (:func:`core_signature`) to ``m`` between the engine's streams ``i`` and
    ``o`` under :func:`~fhe_hw.lib.stream.stall_on_backpressure`'s clock enable: ``i.ready`` is
    the enable and the core's ``i_ready``, a transfer at ``i`` is the core's ``i_valid``."""
    accept = Signal()
    m.d.comb += [accept.eq(i.valid & i.ready), core.i_valid.eq(accept),
                 core.i_data.eq(i.payload.as_value())]
    advance = stall_on_backpressure(m, core, core.o_valid, core.o_data, o)
    m.d.comb += i.ready.eq(advance & core.i_ready)
