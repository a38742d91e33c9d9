"""Golden models of Karatsuba polynomial arithmetic for SHE, after [Mig16]
(Migliore et al., FPT 2016):

* §II-B: recursive Karatsuba, P = P_L + x^(n/2)·P_H, three half-size products P_L·Q_L,
  P_H·Q_H, (P_L+P_H)(Q_L+Q_H), schoolbook leaves of ρ+1 coefficients, n = (ρ+1)·2^r
  (the paper: ρ = 4, r = 9, n = 2560);
* §II-C: WordDecomp_{w,q} and relinearization / key switching, eq. (1);
* §III: the hardware/software split (Fig. 1), the pre-computation channels and their slots
  (§III-A1, Fig. 3 and Fig. 5), the degree-4 schoolbook sub-multipliers built from serial integer
  multipliers of 5 digits of 27 bits (§III-A2), the post-computation (§III-A3), and the
  resource and time figures of §III-B, Table II and Table III.

Polynomials are lists of integer coefficients, lowest degree first. Karatsuba is exact over the
integers; :func:`reduce_poly` then reduces modulo x^n ± 1 and q.

Leaf order. The pre-computation unit (§III-A1) splits each channel into a pass-through channel,
which carries P_L and then P_H, and a sum channel, which carries P_L + P_H while P_H arrives
(the FIFO holds P_L until then). A leaf is named by its path, one letter per recursion from the
outermost: ``L``, ``H`` or ``S``. After r stages it sits on channel c and in time slot t (one
slot = one leaf of ρ+1 coefficients), where bit r-1-k of c is set iff letter k is ``S`` and
bit r-1-k of t is set iff letter k is ``H`` or ``S``. So the 3^r leaves fill the 2^r x 2^r
channel/slot grid wherever c ⊆ t bitwise; the outermost sum branch owns the fresh channels
2^(r-1)..2^r-1 and is idle in the first half (Fig. 5's empty south-west area). Leaves are listed
in production order, by (slot, channel); the pre-crossbar that re-packs them onto 2^(r-1)
sub-multipliers (Fig. 3) is a hardware schedule and is not modelled here.
"""

import reprlib
from fractions import Fraction
from functools import partial
from itertools import product
from typing import NamedTuple

from fhe_hw.params import require_int

__all__ = [
    "schoolbook", "LeafSlot", "leaf_schedule", "karatsuba_precompute", "karatsuba_postcompute",
    "karatsuba", "karatsuba_split", "digits", "digit_products", "multiply_digits",
    "leaf_multiply_digits", "max_recursions", "reduce_poly", "word_count", "word_decomp",
    "relinearize", "hardware_multipliers", "multiplier_utilization", "hardware_cycles",
]


def _poly(name, value):
    if (not isinstance(value, (list, tuple)) or not value
            or not all(isinstance(c, int) and not isinstance(c, bool) for c in value)):
        raise TypeError(f"{name} must be a non-empty list of integers, not {reprlib.repr(value)}")
    return list(value)


def _check_length(name, poly, length, what):
    if len(poly) != length:
        raise ValueError(f"{name} must have {what} = {length} coefficients, not {len(poly)}")


def _check_range(name, poly, bound, what):
    if not all(0 <= c < bound for c in poly):
        raise ValueError(f"{name} must have coefficients in [0, {what}), not {reprlib.repr(poly)}")


# --- §II-B: schoolbook leaves and recursive Karatsuba ----------------------------------------

def schoolbook(p, q, mul=None):
    """The standard polynomial product P·Q ([Mig16] §II-B, the leaf multiplication), of
    len(p) + len(q) - 1 coefficients; ``mul(a, b)`` multiplies two coefficients (default ``*``).
    Raises ``TypeError`` unless p and q are non-empty lists of integers."""
    p, q = _poly("p", p), _poly("q", q)
    r = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            r[i + j] += a * b if mul is None else mul(a, b)
    return r


class LeafSlot(NamedTuple):
    """Where the pre-computation unit emits one leaf (see the module docstring)."""

    path: str      # "L"/"H"/"S" per recursion, outermost first
    channel: int   # pre-computation output channel, 0 .. 2^r - 1
    slot: int      # time slot within one input polynomial, 0 .. 2^r - 1


def _bits(path, letters):
    """The r-bit number whose bit r-1-k is set iff letter k of ``path`` is in ``letters``."""
    return sum(1 << (len(path) - 1 - k) for k, c in enumerate(path) if c in letters)


def leaf_schedule(recursions):
    """The 3^r leaves of r pre-computation stages ([Mig16] §III-A1, Fig. 5) in production order,
    sorted by (slot, channel). Raises ``ValueError`` if ``recursions`` < 0."""
    require_int("recursions", recursions, minimum=0)
    paths = ("".join(path) for path in product("LHS", repeat=recursions))
    slots = (LeafSlot(path, _bits(path, "S"), _bits(path, "HS")) for path in paths)
    return sorted(slots, key=lambda s: (s.slot, s.channel))


def karatsuba_precompute(p, recursions):
    """r Karatsuba pre-computation stages ([Mig16] §II-B, §III-A1) on P of n = m·2^r coefficients:
    each stage maps every sub-polynomial A to A_L, A_H and A_L + A_H. Returns the 3^r leaf
    operands of m coefficients in :func:`leaf_schedule` order. Only additions occur, so
    non-negative inputs below 2^b give leaves below 2^(b+r) (:func:`max_recursions`).
    Raises ``ValueError`` unless 2^r divides n, ``TypeError`` if p is not a list of integers."""
    p = _poly("p", p)
    require_int("recursions", recursions, minimum=0)
    if len(p) % (1 << recursions):
        raise ValueError(f"p must have a multiple of 2**recursions = {1 << recursions} "
                         f"coefficients, not {len(p)}")
    parts = {"": p}
    for _ in range(recursions):
        split = {}
        for path, a in parts.items():
            lo, hi = a[:len(a) // 2], a[len(a) // 2:]
            split.update({path + "L": lo, path + "H": hi,
                          path + "S": [x + y for x, y in zip(lo, hi)]})
        parts = split
    return [parts[s.path] for s in leaf_schedule(recursions)]


def karatsuba_postcompute(leaf_products, recursions, leaf):
    """r Karatsuba post-computation stages ([Mig16] §II-B, §III-A3), innermost first: the products
    Z_L, Z_H, Z_S of one split of A (2m coefficients) recombine as
    Z_L + ((Z_S - Z_L) - Z_H)·x^m + Z_H·x^(2m). For non-negative operands every intermediate
    stays non-negative, since Z_S - Z_L = P_L·Q_H + P_H·Q_L + P_H·Q_H.

    ``leaf_products`` holds the 3^r products of ``leaf``-coefficient operands (2·leaf - 1
    coefficients each) in :func:`leaf_schedule` order. Returns the product of
    2·leaf·2^r - 1 coefficients. Raises ``ValueError`` on a wrong count or product length."""
    require_int("recursions", recursions, minimum=0)
    require_int("leaf", leaf, minimum=1)
    schedule = leaf_schedule(recursions)
    if not isinstance(leaf_products, (list, tuple)) or len(leaf_products) != len(schedule):
        raise ValueError(f"leaf_products must be 3**recursions = {len(schedule)} products, "
                         f"not {reprlib.repr(leaf_products)}")
    parts = {}
    for s, z in zip(schedule, leaf_products):
        _check_length("leaf_products", _poly("leaf_products", z), 2 * leaf - 1, "2*leaf - 1")
        parts[s.path] = list(z)
    m = leaf
    for _ in range(recursions):
        combined = {}
        for path in dict.fromkeys(k[:-1] for k in parts):
            zl, zh, zs = parts[path + "L"], parts[path + "H"], parts[path + "S"]
            r = [0] * (4 * m - 1)
            for i, (l, h, s) in enumerate(zip(zl, zh, zs)):
                r[i] += l
                r[i + m] += s - l - h
                r[i + 2 * m] += h
            combined[path] = r
        parts, m = combined, 2 * m
    return parts[""]


def karatsuba(p, q, recursions, leaf=5, leaf_multiply=schoolbook):
    """P·Q by ``recursions`` levels of Karatsuba over ``leaf_multiply`` leaves of ``leaf``
    (= ρ+1) coefficients ([Mig16] §II-B): pre-computation, 3^r leaf products, post-computation.
    Pass ``leaf_multiply=leaf_multiply_digits`` for the hardware's digit-serial leaves.
    Returns 2n - 1 coefficients. Raises ``ValueError`` unless len(p) = len(q) = leaf·2^r."""
    p, q = _poly("p", p), _poly("q", q)
    require_int("recursions", recursions, minimum=0)
    require_int("leaf", leaf, minimum=1)
    _check_length("p", p, leaf << recursions, "leaf * 2**recursions")
    _check_length("q", q, leaf << recursions, "leaf * 2**recursions")
    products = [leaf_multiply(a, b) for a, b in
                zip(karatsuba_precompute(p, recursions), karatsuba_precompute(q, recursions))]
    return karatsuba_postcompute(products, recursions, leaf)


def karatsuba_split(p, q, hw_recursions, total_recursions=9, leaf=5, hw=None):
    """The hardware/software co-design of [Mig16] Fig. 1 / §III: software performs the outer
    total - hw recursions and calls ``hw(a, b)`` on each of the 3^(total-hw) operand pairs of
    leaf·2^hw coefficients (in :func:`leaf_schedule` order), then post-computes. ``hw`` defaults
    to ``karatsuba(a, b, hw_recursions, leaf)``. Returns P·Q (2n - 1 coefficients). Raises
    ``ValueError`` unless 0 <= hw_recursions <= total_recursions and len(p) = len(q) =
    leaf·2^total_recursions, or if ``hw`` returns a product of the wrong length."""
    require_int("total_recursions", total_recursions, minimum=0)
    require_int("hw_recursions", hw_recursions, minimum=0)
    require_int("leaf", leaf, minimum=1)
    if hw_recursions > total_recursions:
        raise ValueError(f"hw_recursions must be at most total_recursions = {total_recursions}, "
                         f"not {hw_recursions!r}")
    p, q = _poly("p", p), _poly("q", q)
    _check_length("p", p, leaf << total_recursions, "leaf * 2**total_recursions")
    _check_length("q", q, leaf << total_recursions, "leaf * 2**total_recursions")
    hw = hw or partial(karatsuba, recursions=hw_recursions, leaf=leaf)
    sw = total_recursions - hw_recursions
    products = [hw(a, b) for a, b in
                zip(karatsuba_precompute(p, sw), karatsuba_precompute(q, sw))]
    return karatsuba_postcompute(products, sw, leaf << hw_recursions)


# --- §III-A2: sub-multipliers on 27-bit digits --------------------------------------------------

def _check_carrier(name, values, digit_bits, count):
    require_int("digit_bits", digit_bits, minimum=1)
    require_int("count", count, minimum=1)
    _check_range(name, values, 1 << (digit_bits * count), f"2**{digit_bits * count}")


def digits(c, digit_bits=27, count=5):
    """Split 0 <= c < 2^(digit_bits·count) into ``count`` digits of ``digit_bits`` bits, least
    significant first ([Mig16] §III: 125-bit coefficients carried as 5 digits of 27 bits). Raises
    ``ValueError`` if c is out of range or a width is below 1."""
    require_int("c", c)
    _check_carrier("c", [c], digit_bits, count)
    return [(c >> (digit_bits * j)) & ((1 << digit_bits) - 1) for j in range(count)]


def digit_products(a, b, digit_bits=27, count=5):
    """The count x count digit products a_j·b_k of the serial integer multiplier ([Mig16] §III-A2):
    row j is cycle j, where digit a_j meets all digits of b on ``count`` DSPs of
    digit_bits x digit_bits bits. Raises ``ValueError`` if a or b exceeds the carrier."""
    _check_carrier("a", [require_int("a", a)], digit_bits, count)
    _check_carrier("b", [require_int("b", b)], digit_bits, count)
    bs = digits(b, digit_bits, count)
    return [[aj * bk for bk in bs] for aj in digits(a, digit_bits, count)]


def multiply_digits(a, b, digit_bits=27, count=5):
    """a·b as the serial integer multiplier forms it: Σ_j Σ_k a_j·b_k·2^(digit_bits·(j+k))
    ([Mig16] §III-A2, 25 products of 27 x 27 bits for the paper). Raises like
    :func:`digit_products`."""
    return sum(d << (digit_bits * (j + k))
               for j, row in enumerate(digit_products(a, b, digit_bits, count))
               for k, d in enumerate(row))


def leaf_multiply_digits(p, q, digit_bits=27, count=5):
    """The serial polynomial (sub-)multiplier of [Mig16] §III-A2: a schoolbook product whose
    coefficient products come from :func:`multiply_digits`. Raises ``ValueError`` if a
    coefficient of p or q lies outside [0, 2^(digit_bits·count)), for example after more
    Karatsuba additions than :func:`max_recursions` allows."""
    p, q = _poly("p", p), _poly("q", q)
    _check_carrier("p", p, digit_bits, count)
    _check_carrier("q", q, digit_bits, count)
    return schoolbook(p, q, partial(multiply_digits, digit_bits=digit_bits, count=count))


def max_recursions(coeff_bits=125, digit_bits=27, count=5):
    """Most Karatsuba recursions whose pre-computed leaves still fit the digit carrier.

    r pre-computation stages sum up to 2^r input coefficients, so coeff_bits-bit inputs grow to
    coeff_bits + r bits (all-ones inputs reach that bound). [Mig16] §III carries 125-bit
    coefficients in 27·5 = 135 bits and never discusses the growth; the 10 spare bits cover its 9
    recursions (6 in software, 3 in hardware) with one bit to spare. Returns digit_bits·count -
    coeff_bits. Raises ``ValueError`` if coeff_bits exceeds the carrier."""
    require_int("digit_bits", digit_bits, minimum=1)
    require_int("count", count, minimum=1)
    require_int("coeff_bits", coeff_bits, minimum=1)
    if coeff_bits > digit_bits * count:
        raise ValueError(f"coeff_bits must be at most digit_bits * count = {digit_bits * count}, "
                         f"not {coeff_bits!r}")
    return digit_bits * count - coeff_bits


# --- rings and §II-C relinearization ----------------------------------------------------------

def reduce_poly(c, n, sign, q=None):
    """c mod (x^n + sign) and, if given, mod q: coefficient i folds onto i mod n with factor
    (-sign)^(i // n) (sign = +1: x^n + 1, negacyclic; sign = -1: x^n - 1, cyclic). Returns n
    coefficients (in [0, q) when q is given). Raises ``ValueError`` if n < 1, sign is not ±1
    or q < 2."""
    c = _poly("c", c)
    require_int("n", n, minimum=1)
    if require_int("sign", sign) not in (1, -1):
        raise ValueError(f"sign must be 1 (x^n + 1) or -1 (x^n - 1), not {sign!r}")
    if q is not None:
        require_int("q", q, minimum=2)
    r = [0] * n
    for i, a in enumerate(c):
        r[i % n] += a * (-sign) ** (i // n)
    return r if q is None else [a % q for a in r]


def word_count(w, q):
    """ℓ_{w,q}: the number of w-bit words WordDecomp needs for coefficients in [0, q), i.e.
    ⌈bitlen(q - 1) / w⌉ (at least 1). [Mig16] §II-C writes l = ⌈log q / log ω⌉ with w = log ω.
    Raises ``ValueError`` if w < 1 or q < 2."""
    require_int("w", w, minimum=1)
    require_int("q", q, minimum=2)
    return max(1, -(-(q - 1).bit_length() // w))


def word_decomp(c, w, q):
    """WordDecomp_{w,q}(C) of [Mig16] §II-C: ℓ = :func:`word_count` polynomials, C[i] = C_(l0..l1)
    with l0 = i·w, l1 = (i+1)·w - 1 (bit truncation of every coefficient). Raises
    ``ValueError`` unless the coefficients of c lie in [0, q)."""
    c = _poly("c", c)
    ell = word_count(w, q)
    _check_range("c", c, q, "q")
    return [[(a >> (i * w)) & ((1 << w) - 1) for a in c] for i in range(ell)]


def relinearize(c, gamma, w, q, n, recursions, leaf=5, sign=1):
    """Relinearization / key switching, [Mig16] §II-C eq. (1): Σ_i WordDecomp_{w,q}(C)[i]·γ[i] in
    Z_q[x]/(x^n + sign). The paper leaves f(X) open (degree-n irreducible; §II-D discusses
    x^n ± 1); x^n + 1 is the default. Each product is a Karatsuba product of r recursions over
    ``leaf``-coefficient leaves, zero-padded to leaf·2^r >= n as the paper pads degree 2515 to
    2559 (§II-D). Because post-computation is linear, the ℓ leaf products are accumulated
    per leaf and post-computed once, as Table III's equal post-computation times for
    multiplication and relinearization suggest. Returns n coefficients in [0, q). Raises
    ``ValueError`` if n > leaf·2^r, c or a γ[i] is not n coefficients in [0, q), or γ does not
    hold ℓ keys."""
    require_int("n", n, minimum=1)
    require_int("recursions", recursions, minimum=0)
    require_int("leaf", leaf, minimum=1)
    size = leaf << recursions
    if n > size:
        raise ValueError(f"n must be at most leaf * 2**recursions = {size}, not {n!r}")
    words = word_decomp(c, w, q)
    _check_length("c", words[0], n, "n")
    if not isinstance(gamma, (list, tuple)) or len(gamma) != len(words):
        raise ValueError(f"gamma must be l = {len(words)} keys, not {reprlib.repr(gamma)}")
    acc = [[0] * (2 * leaf - 1) for _ in range(3 ** recursions)]
    for word, key in zip(words, gamma):
        key = _poly("gamma", key)
        _check_length("gamma", key, n, "n")
        _check_range("gamma", key, q, "q")
        pre_c = karatsuba_precompute(word + [0] * (size - n), recursions)
        pre_g = karatsuba_precompute(key + [0] * (size - n), recursions)
        for z, a, b in zip(acc, pre_c, pre_g):
            z[:] = [x + y for x, y in zip(z, schoolbook(a, b))]
    return reduce_poly(karatsuba_postcompute(acc, recursions, leaf), n, sign, q)


# --- §III-A2, §III-B, Tables II and III: resources and time -----------------------------------

def hardware_multipliers(recursions, count=5, leaf=5):
    """Digit multipliers (DSPs) of Karatsuba-r ([Mig16] §III-A2, §III-B): the 2^r pre-computation
    channels are re-packed onto 2^(r-1) serial polynomial multipliers (Karatsuba-3: 8 channels,
    4 multipliers; Karatsuba-4/-5 duplicate that 2 and 4 times), each ``leaf`` serial integer
    multipliers of ``count`` DSPs: 2^(r-1)·leaf·count = 100, 200, 400 for r = 3, 4, 5.
    Raises ``ValueError`` if recursions < 1."""
    require_int("recursions", recursions, minimum=1)
    require_int("count", count, minimum=1)
    require_int("leaf", leaf, minimum=1)
    return (1 << (recursions - 1)) * leaf * count


def multiplier_utilization(recursions):
    """Busy fraction of the sub-multipliers ([Mig16] §III-B2): per input polynomial of 2^r slots,
    2^(r-1) multipliers offer 2^(2r-1) leaf slots for 3^r leaves: 27/32, 81/128, 243/512 for
    r = 3, 4, 5 (the paper's 84.38 %, 63.29 %, 47.46 %). Raises ``ValueError`` if r < 1."""
    require_int("recursions", recursions, minimum=1)
    return Fraction(3 ** recursions, 1 << (2 * recursions - 1))


def hardware_cycles(hw_recursions, total_recursions=9, leaf=5, count=5):
    """Clock cycles of the accelerator for one product ([Mig16] Table III "Hardware accelerator"):
    3^(total - hw) operand pairs, each streamed digit-serially as leaf·2^hw coefficients of
    ``count`` digits. Returns 145800, 97200, 64800 for hw = 3, 4, 5 (583.2, 388.8, 259.2 µs
    at 250 MHz). Raises ``ValueError`` unless 0 <= hw_recursions <= total_recursions."""
    require_int("total_recursions", total_recursions, minimum=0)
    require_int("hw_recursions", hw_recursions, minimum=0)
    require_int("leaf", leaf, minimum=1)
    require_int("count", count, minimum=1)
    if hw_recursions > total_recursions:
        raise ValueError(f"hw_recursions must be at most total_recursions = {total_recursions}, "
                         f"not {hw_recursions!r}")
    return 3 ** (total_recursions - hw_recursions) * (leaf << hw_recursions) * count
