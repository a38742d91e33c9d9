"""Golden model of CMNT and CNT encryption with every large product through transforms over
p = 2^64 - 2^32 + 1 ([Wang13] §III-A) and the sums accumulated in the transform domain: the
schedules of fhe_hw's transform-based encryption, beside the block-schoolbook schedules of
:func:`fhe_hw.model.bigint.cmnt_encrypt` ([Cao14]) and :func:`~fhe_hw.model.bigint.cnt_encrypt`
([Cao13]).

Both ciphertexts are x mod K for K the key modulus (A0 or x0, γ bits) and
x = M + 2R + 2·T (+ K when R < 0, so that x >= 0), T a sum of ``count`` products X_i·Y_i in
which Y_i is a public-key integer (fixed, so its transform is computed once per key) and X_i
comes with the encryption:

* CNT ([Cao13] eq. 2): T = Σ_i b_i·x_i, X_i = b_i (α bits), Y_i = x_i (γ bits), τ terms;
* CMNT ([Cao14] eq. 1): T = Σ_(i,j) B_ij·A_i0·A_j1 = Σ_i A_i0·S_i with S_i = Σ_j B_ij·A_j1,
  X_i = S_i, Y_i = A_i0, θ terms. S_i is formed first in the integer domain: B_ij has δ <= 72
  bits, so S_i is θ scalar-by-digit multiply-accumulates over A_j1's digits (linear in γ),
  followed by carries.

The steps, as :func:`encrypt_steps` follows them (d-bit digits, n-point transforms, both
chosen by :func:`plan` so that no accumulated sample reaches p):

1. once per key: the spectra NTT_n(Y_i's block v) of every key integer, and of K and of the
   Barrett constant μ (the reduction's multiplicands);
2. per term i: the spectra of X_i's blocks; for each block pair (u, v), Acc_o += NTT(X_i,u) ⊙
   NTT(Y_i,v) for the accumulator o at digit offset u·K_x + v·K_y (blocks of K_x and K_y
   digits; one block each when the product fits one transform);
3. per accumulator: the inverse transform (n^-1 folded in) and its carries give an integer of
   n digits; T is their sum, each shifted to its digit offset;
4. x = M + 2R + 2T (+ K when R < 0);
5. the super-size Barrett reduction of [Cao13] §4
   (:func:`~fhe_hw.model.bigint.supersize_barrett_constants`) with both of its products on
   the same transforms:
   σ = x_high·μ, σ̂ = ⌊σ / 2^(α-β)⌋, y = x - σ̂·K, and y - K when that is still >= K.

Each accumulated sample is a sum of at most terms·pairs·min(K_x, K_y) digit products (pairs:
the block pairs sharing an offset), so :class:`Blocking` requires
terms·pairs·min(K_x, K_y)·(2^d - 1)^2 < p; and K_x + K_y + ⌈log2(terms·pairs)/d⌉ <= n makes
every cyclic convolution the plain one and leaves each accumulator's integer within its n
digits (the hardware's carry resolution keeps n digits per accumulator,
:class:`fhe_hw.encrypt.TransformEncrypt`).

The hardware moves words of ``lanes`` digits, so a plan for ``lanes`` cuts operands only at
multiples of ``lanes`` digits and aligns the reduction's shifts γ + β and α - β to words of
lanes·d bits (:func:`~fhe_hw.model.bigint.supersize_barrett_shifts` with that word): x_high and
σ̂ are then whole words of x and σ.
"""

from dataclasses import dataclass

from ..params import SOLINAS64, require_int
from .bigint import (
    CMNTInstance,
    CNTInstance,
    EncryptionSizes,
    group_sizes,
    supersize_barrett_constants,
    supersize_barrett_shifts,
)
from .large_int import MAX_N, MIN_N, from_digits, resolve_carries, to_digits, transform

__all__ = ["SCHEMES", "Blocking", "blocking", "EncryptPlan", "plan", "EncryptTrace",
           "encrypt_steps", "encrypt"]

SCHEMES = ("cmnt", "cnt")
_MIN_DIGIT_BITS, _MAX_DIGIT_BITS = 8, 32


def _digits(bits, d):
    return -(-bits // d)


@dataclass(frozen=True)
class Blocking:
    """How a sum of ``terms`` products X·Y is cut for n-point transforms: X in ``x_blocks``
    blocks of ``x_block`` digits, Y in ``y_blocks`` blocks of ``y_block`` digits
    (x_block + y_block - 1 <= n), d-bit digits."""

    n: int
    digit_bits: int
    terms: int
    x_block: int
    x_blocks: int
    y_block: int
    y_blocks: int

    def offset(self, u, v):
        """Digit offset of block pair (u, v)'s convolution."""
        return u * self.x_block + v * self.y_block

    @property
    def offsets(self):
        """The accumulators' digit offsets, ascending: (u + v)·K for equal blocks, else one per
        block of the cut operand (the other is whole)."""
        if self.x_block == self.y_block:
            return [w * self.x_block for w in range(self.x_blocks + self.y_blocks - 1)]
        if min(self.x_blocks, self.y_blocks) != 1:
            raise ValueError("blocks of two sizes on both sides are not a supported cut")
        return sorted(self.offset(u, v) for u in range(self.x_blocks)
                      for v in range(self.y_blocks))

    @property
    def pairs_per_offset(self):
        """The most block pairs that share one accumulator: min(x_blocks, y_blocks) for equal
        blocks, else 1."""
        if self.x_block == self.y_block:
            return min(self.x_blocks, self.y_blocks)
        return 1 if min(self.x_blocks, self.y_blocks) == 1 else len(self.offsets)

    @property
    def bound(self):
        """The largest accumulated sample: terms·pairs·min(K_x, K_y)·(2^d - 1)^2."""
        return (self.terms * self.pairs_per_offset * min(self.x_block, self.y_block)
                * ((1 << self.digit_bits) - 1) ** 2)

    @property
    def fits(self):
        """Every accumulator's integer (at most terms·pairs products of a K_x-digit block by a
        K_y-digit one) fits its n digits: terms·pairs < 2^(d·(n - K_x - K_y))."""
        spare = self.n - self.x_block - self.y_block
        return spare >= 0 and ((self.terms * self.pairs_per_offset).bit_length()
                               <= self.digit_bits * spare)

    @property
    def exact(self):
        """No accumulated sample reaches p, and every accumulator fits n samples and n
        digits (:attr:`fits`)."""
        return self.bound < SOLINAS64 and self.fits

    @property
    def products(self):
        """Point-wise vector products of one encryption: terms·x_blocks·y_blocks."""
        return self.terms * self.x_blocks * self.y_blocks


def blocking(x_bits, y_bits, terms, n, digit_bits, *, align=1):
    """The :class:`Blocking` of a sum of ``terms`` products of an x_bits-bit X by a y_bits-bit
    Y on n-point transforms, leaving one spare digit per accumulator: both whole when
    dx + dy + 1 <= n digits; else the shorter whole and the longer in blocks of
    n - (shorter) - 1 digits when the shorter has at most n/2 digits; else both in blocks of
    n/2 - 1 digits; blocks of a cut operand rounded down to a multiple of ``align``. (The
    bounds are not checked here: see :attr:`Blocking.exact`.)"""
    for name, v in (("x_bits", x_bits), ("y_bits", y_bits), ("terms", terms), ("n", n),
                    ("align", align)):
        require_int(name, v, minimum=1)
    dx, dy = _digits(x_bits, digit_bits), _digits(y_bits, digit_bits)

    def cut(k):
        return max(align, k // align * align)

    if dx + dy + 1 <= n:
        kx, ky = dx, dy
    elif min(dx, dy) <= n // 2:
        kx, ky = (dx, cut(n - dx - 1)) if dx <= dy else (cut(n - dy - 1), dy)
    else:
        kx = ky = cut(n // 2 - 1)
    return Blocking(n, digit_bits, terms, kx, _digits(dx, kx), ky, _digits(dy, ky))


@dataclass(frozen=True)
class EncryptPlan:
    """One scheme's sizes and the transform plan of its encryption: d-bit digits in words of
    ``lanes`` digits, n-point transforms, and the :class:`Blocking` of the accumulated sum
    (``main``) and of the reduction's two products (``barrett_mu``: x_high·μ,
    ``barrett_key``: σ̂·K); ``alpha``, ``beta``: the reduction's shifts (γ + β and α - β
    multiples of the word), ``x_bits``: the widest x."""

    scheme: str
    sizes: EncryptionSizes
    digit_bits: int
    lanes: int
    n: int
    x_bits: int
    alpha: int
    beta: int
    main: Blocking
    barrett_mu: Blocking
    barrett_key: Blocking

    @property
    def word_bits(self):
        """Bits of one word of ``lanes`` digits."""
        return self.lanes * self.digit_bits

    @property
    def blockings(self):
        return (self.main, self.barrett_mu, self.barrett_key)

    @property
    def term_bits(self):
        """Bits of X_i: α (CNT's b_i) or the widest S_i = Σ_j B_ij·A_j1 (CMNT)."""
        return _term_bits(self.scheme, self.sizes)

    @property
    def key_spectrum_words(self):
        """Words of the spectra kept per key: every key integer's blocks, K's and μ's."""
        return self.n * (self.sizes.count * self.main.y_blocks + self.barrett_key.y_blocks
                         + self.barrett_mu.y_blocks)

    @property
    def s_stage_macs(self):
        """CMNT: scalar-by-digit multiply-accumulates forming the S_i (θ^2 per digit of A_j1);
        CNT: 0."""
        if self.scheme == "cnt":
            return 0
        s = self.sizes
        return s.count * s.count * _digits(s.key_bits, self.digit_bits)

    @property
    def transforms(self):
        """Transforms of one encryption: forward (X blocks per term, the reduction's x_high and
        σ̂ blocks) and inverse (one per accumulator of each sum)."""
        forward = sum(b.terms * b.x_blocks for b in self.blockings)
        inverse = sum(len(b.offsets) for b in self.blockings)
        return {"forward": forward, "inverse": inverse}

    @property
    def work(self):
        """Words through the transforms and the point-wise products of one encryption, plus
        the S stage's multiply-accumulates: the quantity :func:`plan` minimises."""
        t = self.transforms
        return ((t["forward"] + t["inverse"]) * self.n
                + sum(b.products for b in self.blockings) * self.n + self.s_stage_macs)


def _sizes(scheme, sizes):
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
    if not isinstance(sizes, (str, EncryptionSizes)):
        raise TypeError(f"sizes must be a group name or EncryptionSizes, not {sizes!r}")
    s = group_sizes(scheme, sizes)
    for name in ("coeff_bits", "noise_bits", "key_bits", "count"):
        require_int(name, getattr(s, name), minimum=1)
    return s


def _term_bits(scheme, s):
    if scheme == "cnt":
        return s.coeff_bits
    return s.coeff_bits + s.key_bits + (s.count - 1).bit_length()


def _x_bits(s, term_bits):
    """Bits of the widest x: |2R| < K, K of γ bits, each term below 2^(term_bits + γ)."""
    x_max = 1 + (1 << s.key_bits) * 2 + 2 * s.count * ((1 << (term_bits + s.key_bits)) - 1)
    return x_max.bit_length()


def _candidate(scheme, s, d, lanes, n, term_bits, x_bits):
    """The plan for digit width d, words of ``lanes`` digits and n-point transforms, or None
    if a bound fails."""
    word = lanes * d
    if s.key_bits <= word:
        return None
    main = blocking(term_bits, s.key_bits, s.count, n, d, align=lanes)
    alpha, beta = supersize_barrett_shifts(s.key_bits, x_bits, word)
    mu = blocking(x_bits - s.key_bits - beta, alpha + 1, 1, n, d, align=lanes)
    key = blocking(x_bits - s.key_bits + 1, s.key_bits, 1, n, d, align=lanes)
    if not all(b.exact for b in (main, mu, key)):
        return None
    return EncryptPlan(scheme, s, d, lanes, n, x_bits, alpha, beta, main, mu, key)


def plan(scheme, sizes, *, lanes=16, min_n=MIN_N, max_n=MAX_N):
    """The :class:`EncryptPlan` of ``scheme`` ("cmnt" or "cnt") for ``sizes`` (a group name of
    :func:`~fhe_hw.model.bigint.cmnt_group` / :func:`~fhe_hw.model.bigint.cnt_group`, or
    :class:`~fhe_hw.model.bigint.EncryptionSizes`) in words of ``lanes`` digits (1 to 64):
    over every digit width d from 8 to 32 and every power-of-two n from ``min_n`` to
    ``max_n``, the one with the least :attr:`EncryptPlan.work` among those whose every
    :class:`Blocking` is exact (ties: the wider d, then the smaller n). Raises ``ValueError``
    when none is."""
    s = _sizes(scheme, sizes)
    require_int("lanes", lanes, minimum=1, maximum=64)
    require_int("max_n", max_n, minimum=2, maximum=MAX_N)
    require_int("min_n", min_n, minimum=2, maximum=max_n)
    term_bits = _term_bits(scheme, s)
    x_bits = _x_bits(s, term_bits)
    best = None
    for d in range(_MAX_DIGIT_BITS, _MIN_DIGIT_BITS - 1, -1):
        n = 1 << (min_n - 1).bit_length()
        while n <= max_n:
            c = _candidate(scheme, s, d, lanes, n, term_bits, x_bits)
            if c is not None and (best is None or c.work < best.work):
                best = c
            n *= 2
    if best is None:
        raise ValueError(f"no digit width from {_MIN_DIGIT_BITS} to {_MAX_DIGIT_BITS} bits keeps "
                         f"the {scheme} sums of {s} below p with transforms of {min_n} to "
                         f"{max_n} points and words of {lanes} digits")
    return best


def _spectra(value, b, side):
    """The spectra of ``value``'s blocks for one side ("x" or "y") of :class:`Blocking` b."""
    k, count = (b.x_block, b.x_blocks) if side == "x" else (b.y_block, b.y_blocks)
    digits = to_digits(value, b.digit_bits, k * count)
    return [transform(digits[u * k:(u + 1) * k] + [0] * (b.n - k)) for u in range(count)]


def _accumulate(b, x_spectra, y_spectra):
    """Step 2 for the terms' spectra ([term][block] each): {offset: accumulated spectrum}."""
    acc = {o: [0] * b.n for o in b.offsets}
    for xs, ys in zip(x_spectra, y_spectra):
        for u, xu in enumerate(xs):
            for v, yv in enumerate(ys):
                o = b.offset(u, v)
                acc[o] = [(a + x * y) % SOLINAS64 for a, x, y in zip(acc[o], xu, yv)]
    return acc


def _sum_of_products(b, acc):
    """Step 3: per accumulator, the inverse transform and its carries (n digits: the
    accumulator's integer fits them, :attr:`Blocking.fits`); the integers added at their
    offsets."""
    total = 0
    for o, spectrum in acc.items():
        digits, carry = resolve_carries(transform(spectrum, inverse=True), b.digit_bits)
        if carry:
            raise RuntimeError(f"the accumulator at offset {o} does not fit its {b.n} digits "
                               f"(carry {carry}): the blocking's bound is wrong")
        total += from_digits(digits, b.digit_bits) << (b.digit_bits * o)
    return total


def _product(b, x, y_spectra):
    """x·y for one product with y's spectra kept (the reduction's products)."""
    return _sum_of_products(b, _accumulate(b, [_spectra(x, b, "x")], [y_spectra]))


@dataclass(frozen=True)
class EncryptTrace:
    """The intermediates of :func:`encrypt_steps`: the X_i (b_i, or the S_i of CMNT), T, x,
    the reduction's x_high, σ, σ̂, y1 = x - σ̂·K and the ciphertext."""

    plan: EncryptPlan
    terms: list
    total: int
    x: int
    x_high: int
    sigma: int
    sigma_hat: int
    y1: int
    ciphertext: int


def _check_instance(scheme, instance):
    kind = CMNTInstance if scheme == "cmnt" else CNTInstance
    if not isinstance(instance, kind):
        raise TypeError(f"instance must be a {kind.__name__}, not {instance!r}")


def encrypt_steps(scheme, instance, p):
    """Encrypt ``instance`` (a :class:`~fhe_hw.model.bigint.CMNTInstance` or
    :class:`~fhe_hw.model.bigint.CNTInstance` whose sizes fit :class:`EncryptPlan` ``p``) by
    steps 1–5 of this module; returns an :class:`EncryptTrace`. Raises ``TypeError`` for a
    wrong instance or plan and ``ValueError`` for values wider than the plan."""
    if not isinstance(p, EncryptPlan) or p.scheme != scheme:
        raise TypeError(f"p must be the EncryptPlan of {scheme!r}, not {p!r}")
    _check_instance(scheme, instance)
    s, d = p.sizes, p.digit_bits
    if scheme == "cnt":
        M, R, xs, ys, K = instance.M, instance.R, instance.b_list, instance.x_list, instance.x0
    else:
        M, R, K = instance.M, instance.R, instance.A0
        ys = instance.A0_list
        if any(v >> s.coeff_bits for row in instance.B for v in row):
            raise ValueError(f"the B_ij must be below 2^{s.coeff_bits}")
        # the S stage: per digit t of the A_j1, Σ_j B_ij·A_j1[t], then carries
        digits = [to_digits(a, d, _digits(s.key_bits, d)) for a in instance.A1_list]
        xs = []
        for row in instance.B:
            samples = [sum(bij * a[t] for bij, a in zip(row, digits))
                       for t in range(len(digits[0]))]
            sd, carry = resolve_carries(samples, d)
            xs.append(from_digits(sd, d) + (carry << (d * len(sd))))
    if len(xs) != s.count or len(ys) != s.count:
        raise ValueError(f"the instance must have {s.count} terms")
    if (K.bit_length() != s.key_bits or any(x >> p.term_bits for x in xs)
            or any(y >> s.key_bits for y in ys) or M not in (0, 1) or 2 * abs(R) >= K):
        raise ValueError("the instance does not fit the plan's sizes")
    b = p.main
    key = [_spectra(y, b, "y") for y in ys]                 # step 1 (once per key)
    total = _sum_of_products(b, _accumulate(b, [_spectra(x, b, "x") for x in xs], key))
    x = M + 2 * R + 2 * total + (K if R < 0 else 0)
    consts = supersize_barrett_constants(K, p.x_bits, p.word_bits)
    x_high = x >> (consts.gamma + consts.beta)
    sigma = _product(p.barrett_mu, x_high, _spectra(consts.mu, p.barrett_mu, "y"))
    sigma_hat = sigma >> (consts.alpha - consts.beta)
    y1 = x - _product(p.barrett_key, sigma_hat, _spectra(K, p.barrett_key, "y"))
    y = y1 - K if y1 >= K else y1
    if not 0 <= y < K:
        raise RuntimeError(f"Barrett: y = {y} is outside [0, K): σ̂ is not ⌊x/K⌋ or one less "
                           f"(Dhem's bound)")
    return EncryptTrace(p, xs, total, x, x_high, sigma, sigma_hat, y1, y)


def encrypt(scheme, instance, p):
    """The ciphertext of ``instance`` under :class:`EncryptPlan` ``p``
    (:func:`encrypt_steps`)."""
    return encrypt_steps(scheme, instance, p).ciphertext
