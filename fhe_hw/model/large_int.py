"""Golden model of [Wang13]'s large-number multiplier (§III-A, §IV): Strassen's FFT
multiplication over p = 2^64 - 2^32 + 1 with d-bit digits (d = 24 in the paper: 786,432-bit
operands as 32K digits, zero-padded to a 64K-point transform).

The steps, as [Wang13] §III-A lists them:

1. the digits (base b = 2^d) of A and B, least significant first, zero-padded to n samples,
   and their forward transforms (:func:`~fhe_hw.model.ntt.wang_huang_ntt`, n = 4096 ... 65536);
2. the point-wise products C[i] = FFT(A)[i]·FFT(B)[i] mod p;
3. the inverse transform C' = IFFT(C) (n^-1 folded in), the cyclic convolution of the digit
   vectors, which equals the plain (acyclic) one because A and B each have at most n/2 digits;
4. carry resolution: from the least significant sample up, C'[i] += carry, the digit is
   C'[i] mod b and the carry C'[i] div b.

The convolution is exact only if no sample reaches p: each is a sum of at most n/2 products of
digits below b, so :func:`plan` requires (n/2)·(b - 1)^2 < p. With d = 24 that holds for every
n up to 65,536 ((2^15)·(2^24 - 1)^2 < 2^63).
"""

from dataclasses import dataclass

from fhe_hw.model.ntt import WANG_HUANG_SIZES, dft, idft, wang_huang_ntt, wang_huang_root
from fhe_hw.params import SOLINAS64, require_int

__all__ = ["MIN_N", "MAX_N", "DIGIT_BITS", "MAX_BITS", "LargeIntPlan", "plan", "to_digits",
           "from_digits", "resolve_carries", "transform", "MultiplyTrace", "multiply_steps",
           "multiply"]

#: Smallest and largest transform: 4096 = 64 x 64 (eq. 8) and 65536 = 16 x 4096 (eq. 7).
MIN_N, MAX_N = WANG_HUANG_SIZES[0], WANG_HUANG_SIZES[-1]
#: [Wang13] §IV: "we choose the base b to be 24" (bits), 32K samples per operand.
DIGIT_BITS = 24
MAX_BITS = 32768 * DIGIT_BITS


@dataclass(frozen=True)
class LargeIntPlan:
    """Sizes of one multiplier: operands of up to ``max_bits`` bits as ``digits`` digits of
    ``digit_bits`` bits; transforms of ``n`` points; products of ``2·digits`` digits."""

    max_bits: int
    digit_bits: int
    digits: int
    n: int

    @property
    def product_digits(self):
        """Digits of a product: 2·``digits`` (the carry out of the top digit is always 0)."""
        return 2 * self.digits

    @property
    def bound(self):
        """The largest convolution sample the plan allows for: (n/2)·(2^d - 1)^2."""
        return self.n // 2 * ((1 << self.digit_bits) - 1) ** 2


def plan(max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, min_n=MIN_N, max_n=MAX_N):
    """The :class:`LargeIntPlan` for operands of up to ``max_bits`` bits in ``digit_bits``-bit
    digits: digits = ⌈max_bits / d⌉, n = 2^⌈log2(2·digits)⌉, at least ``min_n`` (the paper's
    4096; small engines for tests take less). Raises ``TypeError`` for a non-integer and
    ``ValueError`` when n would exceed ``max_n`` (65536) or the convolution could reach p
    ((n/2)·(2^d - 1)^2 >= p: take smaller digits)."""
    require_int("max_bits", max_bits, minimum=1)
    require_int("digit_bits", digit_bits, minimum=1, maximum=32)
    require_int("max_n", max_n, minimum=2, maximum=MAX_N)
    require_int("min_n", min_n, minimum=2, maximum=max_n)
    digits = -(-max_bits // digit_bits)
    n = max(min_n, 1 << (2 * digits - 1).bit_length())
    if n > max_n:
        raise ValueError(f"max_bits = {max_bits} needs {digits} digits of {digit_bits} bits, a "
                         f"{n}-point transform; at most {max_n // 2 * digit_bits} bits fit "
                         f"{max_n} points")
    result = LargeIntPlan(max_bits, digit_bits, digits, n)
    if result.bound >= SOLINAS64:
        raise ValueError(f"digit_bits = {digit_bits} is too wide for {n} points: "
                         f"(n/2)·(2^d - 1)^2 = {result.bound} is not below p = {SOLINAS64}")
    return result


def to_digits(value, digit_bits, count):
    """The ``count`` digits of ``value`` in base 2^digit_bits, least significant first. Raises
    ``ValueError`` when value is negative or needs more digits."""
    require_int("value", value, minimum=0)
    total = digit_bits * count
    if value >> total:
        raise ValueError(f"value needs more than {count} digits of {digit_bits} bits")
    # through the binary string: linear in the size, where shifting the whole value for each
    # digit is quadratic
    bits = format(value, "b").zfill(total)
    return [int(bits[total - (i + 1) * digit_bits:total - i * digit_bits], 2)
            for i in range(count)]


def from_digits(digits, digit_bits):
    """The integer whose base-2^digit_bits digits (least significant first) are ``digits``
    (any non-negative integers: a digit of 2^digit_bits or more carries into the next)."""
    if all(0 <= v < 1 << digit_bits for v in digits):
        return int("".join(format(v, f"0{digit_bits}b") for v in reversed(digits)) or "0", 2)
    return sum(v << (digit_bits * i) for i, v in enumerate(digits))


def resolve_carries(samples, digit_bits):
    """Step 4 of [Wang13] §III-A: from sample 0 up, add the carry, keep the low ``digit_bits``
    bits as the digit and pass the rest on. Returns (digits, final carry)."""
    mask, carry, out = (1 << digit_bits) - 1, 0, []
    for v in samples:
        v += carry
        out.append(v & mask)
        carry = v >> digit_bits
    return out, carry


@dataclass(frozen=True)
class MultiplyTrace:
    """The intermediates of :func:`multiply_steps`, one list of n samples each (``product``:
    the first ``product_digits`` digits of the result)."""

    plan: LargeIntPlan
    a_digits: list
    b_digits: list
    a_spectrum: list
    b_spectrum: list
    pointwise: list
    convolution: list
    product_digits: list
    product: int


def transform(x, inverse=False):
    """The n-point transform with root ``wang_huang_root(n)``: [Wang13]'s four-step
    (:func:`~fhe_hw.model.ntt.wang_huang_ntt`) at its sizes, the O(n^2) DFT below 4096."""
    if len(x) in WANG_HUANG_SIZES:
        return wang_huang_ntt(x, inverse)
    return (idft if inverse else dft)(x, SOLINAS64, wang_huang_root(len(x)))


def multiply_steps(a, b, max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, min_n=MIN_N):
    """a·b by [Wang13] §III-A steps 1–4 for 0 <= a, b < 2^max_bits; returns a
    :class:`MultiplyTrace`. ``min_n`` as in :func:`plan`. Raises ``ValueError`` for an
    operand out of range or a plan :func:`plan` refuses."""
    sizes = plan(max_bits, digit_bits, min_n=min_n)
    for name, value in (("a", a), ("b", b)):
        require_int(name, value, minimum=0)
        if value >> max_bits:
            raise ValueError(f"{name} must be below 2^{max_bits}")
    n, d = sizes.n, digit_bits
    a_digits, b_digits = to_digits(a, d, n), to_digits(b, d, n)
    a_spectrum, b_spectrum = transform(a_digits), transform(b_digits)
    pointwise = [x * y % SOLINAS64 for x, y in zip(a_spectrum, b_spectrum)]
    convolution = transform(pointwise, inverse=True)
    digits, carry = resolve_carries(convolution, d)
    if carry or any(digits[sizes.product_digits:]):
        raise RuntimeError(f"a·b is wider than its {sizes.product_digits} digits: the plan's "
                           f"bound is wrong")
    digits = digits[:sizes.product_digits]
    return MultiplyTrace(sizes, a_digits, b_digits, a_spectrum, b_spectrum, pointwise,
                         convolution, digits, from_digits(digits, d))


def multiply(a, b, max_bits=MAX_BITS, digit_bits=DIGIT_BITS, *, min_n=MIN_N):
    """a·b through the transform (:func:`multiply_steps`)."""
    return multiply_steps(a, b, max_bits, digit_bits, min_n=min_n).product
