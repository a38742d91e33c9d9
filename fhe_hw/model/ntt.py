"""Golden models of the number-theoretic transforms:

* [Cao14] §3.2 and Fig. 2: the radix-2 fully parallel FFT/IFFT (log2 k stages
  of k/2 butterflies) built from the unified butterfly, with k^-1 folded into the twiddles of the
  last inverse stage (ω̂^-1 = (kω)^-1);
* [Wang13] §III-B and §IV (Wang–Huang) over p = 2^64 - 2^32 + 1: shift-only
  64- and 16-point transforms accumulated in carry-save form (§IV-A, §IV-B, eqs 5–6), the
  4096 = 64 x 64 and 65536 = 16 x 4096 transforms with a twiddle multiplication between the two
  steps (§IV-C, eqs 7–8).

``dft``/``idft`` are the O(n^2) definitions everything else is checked against.

Data order of the radix-2 transform: the forward transform takes coefficients in natural order
and returns the spectrum in bit-reversed order; the inverse takes that bit-reversed order and
returns natural order. Both use the Fig. 2 butterfly (twiddle on the lower input, then sum and
difference), so one hardware pipeline serves both and a polynomial product needs no reordering.
The negacyclic transform (mod x^k + 1) merges ψ into the forward twiddles (no pre-multiplication);
its inverse runs the same inverse stages without the k^-1 fold and ends with one multiplication
by k^-1·ψ^-i per output, which a Fig. 2 butterfly cannot absorb (see
:func:`negacyclic_post_twiddles`). The same inverse in Gentleman–Sande form (difference first,
then the twiddle: :func:`gs_butterfly`) has ψ^-1 merged into its twiddles as OpenFHE's
``InverseTransformFromBitReverseInPlace`` has (:func:`negacyclic_inverse_gs`): no
post-multiplication, and k^-1 folded into its last stage or left out (``scaled=False``).

The Wang–Huang transforms take and give natural order.
"""

from dataclasses import dataclass
from functools import cache

from fhe_hw.model.reduce import solinas_reduce
from fhe_hw.params import (
    SOLINAS64,
    NTTParams,
    get_modulus,
    ntt_params,
    require_int,
    shift_exponent,
    wang_huang_root,
)

__all__ = [
    "dft", "idft", "bit_reverse", "bit_reversed", "butterfly", "stage_pairs", "stage_twiddles",
    "negacyclic_post_twiddles", "stage", "ntt_radix2", "gs_butterfly", "gs_table",
    "gs_stage_twiddles", "negacyclic_inverse_gs", "poly_mul_cyclic", "poly_mul_negacyclic",
    "wang_huang_root", "wang_huang_params", "csa", "CarrySave", "normalise",
    "shift_ntt_carry_save", "shift_ntt", "shift_ntt64", "shift_ntt16", "four_step_twiddles",
    "FourStepTrace", "ntt4096_steps", "ntt4096", "ntt65536_steps", "ntt65536",
    "WANG_HUANG_SIZES", "wang_huang_ntt",
    "modular_products",
]


def _residues(name, a, p, n=None):
    """``a`` as a list of ints in [0, p) (of length n when given); raise otherwise."""
    if not isinstance(a, (list, tuple)) or (n is not None and len(a) != n):
        size = f"{n} " if n is not None else ""
        raise ValueError(f"{name} must be a list of {size}residues modulo {p}, not {a!r}")
    for v in a:
        require_int(f"{name} element", v, minimum=0)
        if v >= p:
            raise ValueError(f"{name} elements must be less than {p}, not {v!r}")
    return list(a)


# --- reference: the O(n^2) definition -----------------------------------------------------------

def dft(a, p, omega, indices=None):
    """A_j = Σ_i a_i·ω^(ij) mod p ([Wang13] eq. 4), evaluated by Horner's rule at ω^j for every j,
    or only for the j in ``indices``. Raises ``TypeError``/``ValueError`` for a bad p or ω."""
    require_int("p", p, minimum=2)
    require_int("omega", omega, minimum=0)
    n = len(a)
    out = []
    for j in range(n) if indices is None else indices:
        x, acc = pow(omega, j, p), 0
        for v in reversed(a):
            acc = (acc * x + v) % p
        out.append(acc)
    return out


def idft(A, p, omega):
    """a_i = n^-1·Σ_j A_j·ω^(-ij) mod p, the inverse of :func:`dft`."""
    n_inv = pow(len(A), -1, p)
    return [v * n_inv % p for v in dft(A, p, pow(omega, -1, p))]


# --- [Cao14] §3.2: radix-2 fully parallel transform
# -------------------------------------------------

def bit_reverse(i, bits):
    """i with its ``bits`` low bits in reverse order."""
    return int(f"{i:0{bits}b}"[::-1], 2) if bits else 0


def bit_reversed(a):
    """The list a (of power-of-two length) permuted to bit-reversed index order."""
    bits = len(a).bit_length() - 1
    return [a[bit_reverse(i, bits)] for i in range(len(a))]


def _butterfly(u, v, w_up, w_down, p):
    if w_up is not None:
        u = u * w_up % p
    v = v * w_down % p
    return (u + v) % p, (u - v) % p


def butterfly(x_up, x_down, w_up, w_down, p):
    """[Cao14] Fig. 2: X_up = x_up·ω_up + x_down·ω_down, X_down = x_up·ω_up - x_down·ω_down (mod p).

    ``w_up`` is ``None`` where the unit has no upper multiplier (every stage but the last inverse
    one), so x_up passes unchanged. Operands and twiddles are residues mod p; raises otherwise."""
    require_int("p", p, minimum=2)
    _residues("operands", [x_up, x_down, w_down] + ([] if w_up is None else [w_up]), p)
    return _butterfly(x_up, x_down, w_up, w_down, p)


def _span(s, k, inverse):
    """Distance h between the two inputs of a butterfly of stage s: the forward transform halves
    it from k/2 down to 1, the inverse doubles it from 1 up to k/2."""
    return 1 << s if inverse else k >> (s + 1)


def _check_params(params):
    if not isinstance(params, NTTParams):
        raise TypeError(f"params must be an NTTParams from fhe_hw.params.ntt_params, "
                        f"not {params!r}")
    return params


def _check_stage(s, params):
    _check_params(params)
    require_int("s", s, minimum=0)
    if s >= params.log_k:
        raise ValueError(f"s must be less than log2 k = {params.log_k}, not {s!r}")


def stage_pairs(s, k, inverse=False):
    """(up, down) element indices of the k/2 butterflies of stage s, in butterfly order: blocks
    of 2h elements, butterfly j of a block pairs its elements j and j + h."""
    h = _span(s, k, inverse)
    return [(b + j, b + j + h) for b in range(0, k, 2 * h) for j in range(h)]


def stage_twiddles(s, params, inverse=False, negacyclic=False, scaled=True):
    """(ω_up, ω_down) for each butterfly of stage s, in :func:`stage_pairs` order.

    Forward stage s splits block b, which holds a mod (x^(2h) - ζ^2), into a mod (x^h - ζ) and
    a mod (x^h + ζ) with ζ = ω^(brv_s(b)·h), h = k/2^(s+1) (times ψ^h for the negacyclic
    transform, whose first block is a mod x^k + 1: ψ is merged into the twiddles). Inverse
    stage s is the decimation-in-time step with ω^(-j·k/2^(s+1)) for butterfly j of a block;
    in its last cyclic stage both multipliers fold in k^-1 ([Cao14] §3.2: ω̂^-1 = (kω)^-1). The
    negacyclic inverse leaves k^-1 to :func:`negacyclic_post_twiddles`. ω_up is ``None`` where
    the butterfly does not multiply x_up; ``scaled=False`` leaves k^-1 out of the cyclic
    inverse too. Raises for bad s, params or a missing ψ."""
    _check_stage(s, params)
    if negacyclic and params.psi is None:
        raise ValueError("params must come from ntt_params(..., negacyclic=True) for a negacyclic "
                         f"transform, not {params!r}")
    p, k, step = params.p, params.k, params.k >> (s + 1)
    if not inverse:
        extra = pow(params.psi, step, p) if negacyclic else 1
        return [(None, pow(params.omega, bit_reverse(b // (2 * step), s) * step, p) * extra % p)
                for b, _ in stage_pairs(s, k)]
    last = s == params.log_k - 1 and not negacyclic and scaled
    scale = params.k_inv if last else 1
    return [(scale if last else None, pow(params.omega_inv, j % (1 << s) * step, p) * scale % p)
            for j, _ in stage_pairs(s, k, inverse=True)]


def negacyclic_post_twiddles(params):
    """k^-1·ψ^-i, the one multiplication per output i after the negacyclic inverse stages.

    ψ^-i depends on the output index, which a Fig. 2 butterfly (one factor per input, shared by
    both outputs) cannot apply, so it stays a post-multiplication and takes k^-1 with it."""
    p = params.p
    return [params.k_inv * pow(params.psi_inv, i, p) % p for i in range(params.k)]


def gs_butterfly(x_up, x_down, w_up, w_down, p):
    """The Gentleman–Sande butterfly: X_up = (x_up + x_down)·ω_up, X_down = (x_up - x_down)·ω_down
    (mod p); ``w_up`` ``None`` where the unit does not multiply the sum (every stage but the
    last of a scaled inverse). Operands and twiddles are residues mod p; raises otherwise."""
    require_int("p", p, minimum=2)
    _residues("operands", [x_up, x_down, w_down] + ([] if w_up is None else [w_up]), p)
    total = (x_up + x_down) % p
    return (total if w_up is None else total * w_up % p), (x_up - x_down) * w_down % p


def gs_table(params, scaled=True):
    """The k words of the Gentleman–Sande negacyclic inverse's twiddle table: word a is
    ψ^-brv(a) (brv over log2 k bits; OpenFHE's ``rootOfUnityInverseTable``), word 1 (read only
    by the last stage) times k^-1 when ``scaled``. Word 0 is never read."""
    _check_params(params)
    if params.psi is None:
        raise ValueError(f"params must come from ntt_params(..., negacyclic=True), not {params!r}")
    p, bits = params.p, params.log_k
    table = [pow(params.psi_inv, bit_reverse(a, bits), p) for a in range(params.k)]
    if scaled:
        table[1] = table[1] * params.k_inv % p
    return table


def gs_stage_twiddles(s, params, scaled=True):
    """(ω_up, ω_down) for each butterfly of stage s of the negacyclic inverse in
    Gentleman–Sande form, in :func:`stage_pairs` (inverse) order: the butterfly whose upper
    index is j reads :func:`gs_table` word k/2^(s+1) + (j >> (s+1)) (its block's); the last stage
    of a ``scaled`` inverse also multiplies the sum by k^-1 (ω_up), else ω_up is ``None``."""
    _check_stage(s, params)
    table, step = gs_table(params, scaled), params.k >> (s + 1)
    w_up = params.k_inv if scaled and s == params.log_k - 1 else None
    return [(w_up, table[step + (j >> (s + 1))]) for j, _ in stage_pairs(s, params.k, True)]


def negacyclic_inverse_gs(a, params, scaled=True):
    """The negacyclic inverse of the bit-reversed spectrum ``a`` in Gentleman–Sande form
    (:func:`gs_stage_twiddles`): :func:`ntt_radix2` (``inverse=True, negacyclic=True``) when
    ``scaled``, k times it otherwise."""
    out = _residues("a", a, params.p, params.k)
    for s in range(params.log_k):
        pairs = stage_pairs(s, params.k, inverse=True)
        for (i, j), (w_up, w_down) in zip(pairs, gs_stage_twiddles(s, params, scaled)):
            out[i], out[j] = gs_butterfly(out[i], out[j], w_up, w_down, params.p)
    return out


def stage(a, s, params, inverse=False, negacyclic=False):
    """The k residues after stage s of the forward (natural order in) or inverse (bit-reversed
    order in) transform of ``a``: k/2 Fig. 2 butterflies with :func:`stage_twiddles`."""
    twiddles = stage_twiddles(s, params, inverse, negacyclic)
    out = _residues("a", a, params.p, params.k)
    for (i, j), (w_up, w_down) in zip(stage_pairs(s, params.k, inverse), twiddles):
        out[i], out[j] = _butterfly(out[i], out[j], w_up, w_down, params.p)
    return out


def ntt_radix2(a, params, inverse=False, negacyclic=False):
    """The k-point transform of [Cao14] §3.2 as log2 k stages of k/2 butterflies.

    Forward: natural-order ``a`` to A_brv(i) with A_j = a(ω^j) (cyclic) or a(ψ^(2j+1))
    (negacyclic, mod x^k + 1). Inverse: bit-reversed spectrum to natural-order coefficients,
    already scaled by k^-1 (and by ψ^-i through :func:`negacyclic_post_twiddles`)."""
    for s in range(_check_params(params).log_k):
        a = stage(a, s, params, inverse, negacyclic)
    if inverse and negacyclic:
        a = [v * t % params.p for v, t in zip(a, negacyclic_post_twiddles(params))]
    return a


def modular_products(k):
    """Modular products of one forward k-point :func:`ntt_radix2`: one per butterfly, k/2 in
    each of the log2 k stages (the engines compute twiddle products by 1 too)."""
    require_int("k", k, minimum=2)
    return k // 2 * (k.bit_length() - 1)


def _poly_mul(a, b, p, negacyclic):
    if len(a) != len(b):
        raise ValueError(f"b must have the length of a ({len(a)}), not {b!r}")
    params = ntt_params(p, len(a), negacyclic=negacyclic)
    A, B = (ntt_radix2(x, params, negacyclic=negacyclic) for x in (a, b))
    return ntt_radix2([x * y % params.p for x, y in zip(A, B)], params, True, negacyclic)


def poly_mul_cyclic(a, b, p):
    """a·b mod (x^k - 1, p), k = len(a) a power of two dividing q - 1 for each prime q | p."""
    return _poly_mul(a, b, p, False)


def poly_mul_negacyclic(a, b, p):
    """a·b mod (x^k + 1, p), k = len(a) with 2k dividing q - 1 for each prime q | p."""
    return _poly_mul(a, b, p, True)


# --- 002: Wang–Huang transforms over p = 2^64 - 2^32 + 1 ----------------------------------------

_WIDTH = 192            # 2^192 ≡ 1 (mod p): shifts are rotations of 192-bit words ([Wang13] §IV-A)
_MASK = (1 << _WIDTH) - 1


def wang_huang_params(n):
    """:class:`NTTParams` of the n-point transform over solinas64 with ω = ``wang_huang_root(n)``
    (and ψ = ω_2n), so :func:`ntt_radix2` computes the same transform as the four-step models."""
    p, w, psi = SOLINAS64, wang_huang_root(n), wang_huang_root(2 * n)
    return NTTParams(get_modulus("solinas64"), n, w, pow(w, -1, p), pow(n, -1, p),
                     psi, pow(psi, -1, p))


def csa(a, b, c):
    """One 192-bit carry-save adder ([Wang13] §IV-A, Fig. 1): ps_i = a_i ⊕ b_i ⊕ c_i and the shifted
    carry sc = 2·maj(a, b, c), whose bit 192 re-enters at bit 0 (2^192 ≡ 1), so both stay 192
    bits and ps + sc ≡ a + b + c (mod 2^192 - 1, hence mod p)."""
    maj = (a & b) | (a & c) | (b & c)
    return a ^ b ^ c, ((maj << 1) | (maj >> (_WIDTH - 1))) & _MASK


@dataclass(frozen=True)
class CarrySave:
    """An unnormalised radix-64/16 PE result: partial sum ``ps`` and shift-carry ``sc``."""

    ps: int
    sc: int


def normalise(v):
    """The 64-bit residue of v >= 0 mod p, done once at the end of a shift transform ([Wang13]
    §IV-A): end-around folds of 192-bit words (2^192 ≡ 1), then v = 2^96·hi + lo ≡ lo - hi (2^96 ≡
    -1, [Wang13] §III-B), offset by 2^33·p to stay positive below 2^98, then [Cao14] Fig. 3(c) (eq.
    3)."""
    require_int("v", v,
    minimum=0)
    while v >> _WIDTH:
        v = (v & _MASK) + (v >> _WIDTH)
    return solinas_reduce((v & ((1 << 96) - 1)) - (v >> 96) + (SOLINAS64 << 33))


@cache
def _shift(n, omega=None):
    """e with 2^e ≡ ω for the primitive n-th root ω (default ω_n = 2^(192/n)): for n = 2, 4,
    ..., 64 every primitive n-th root is a shift (an odd power of ω_n; ω_2 = -1 = 2^96); raise
    ``ValueError`` for another n or an ω that is not a primitive n-th root."""
    if n < 2 or n & (n - 1) or n > 64:
        raise ValueError(f"x must have a power-of-two length of 2 to 64 (shift-only roots), "
                         f"not {n}")
    return shift_exponent(wang_huang_root(n) if omega is None else
                          ntt_params(SOLINAS64, n, omega=omega).omega)


def _terms(x, inverse, omega=None):
    """The 192-bit words of each output j: x_i·ω^(±ij) as rotations by e·ij bits, 2^e = ω (3ij
    for ω_64 = 8, 12ij for ω_16 = 4096); the inverse rotates the other way and by log2 n less,
    which multiplies by n^-1 = 2^(-log2 n) so the inverse costs no multiplier either."""
    n = len(x)
    _residues("x", x, 1 << 64)
    step = _shift(n, omega)
    sign, offset = (-1, n.bit_length() - 1) if inverse else (1, 0)
    for j in range(n):
        rot = [(sign * step * i * j - offset) % _WIDTH for i in range(n)]
        yield [((v << r) | (v >> (_WIDTH - r))) & _MASK for v, r in zip(x, rot)]


def shift_ntt_carry_save(x, inverse=False, omega=None):
    """[Wang13] §IV-A/B: the carry-save pair each PE holds before normalisation, per output j.

    The PE folds in its shifted samples x_i·2^(step·ij) one 3:2 compressor (:func:`csa`) each, in
    index order i = 0, 1, ..., starting from ps = sc = 0 (a PE taking 8 samples per cycle runs 8
    of them per cycle). ``x``: n = 64 or 16 (any length n <= 64) words in [0, 2^64); ``omega``:
    the primitive n-th root (default ``wang_huang_root(n)``)."""
    out = []
    for terms in _terms(x, inverse, omega):
        ps = sc = 0
        for t in terms:
            ps, sc = csa(ps, sc, t)
        out.append(CarrySave(ps, sc))
    return out


def shift_ntt(x, inverse=False, omega=None):
    """Shift-only transform A_j = Σ_i x_i·ω^(ij) mod p ([Wang13] eqs 5–6), inverse scaled by n^-1;
    ω = ``omega``, any primitive n-th root (each is a power of two), default ω_n.

    Each output is the sum of its rotated terms, normalised once; this equals
    ``normalise(ps + sc)`` of :func:`shift_ntt_carry_save` (which is much slower in Python, so the
    composite transforms use this one)."""
    return [normalise(sum(terms)) for terms in _terms(x, inverse, omega)]


def shift_ntt64(x, inverse=False, omega=None):
    """The radix-64 unit ([Wang13] §IV-A, eq. 5): 64-point transform with ω = 8 (or ``omega``)."""
    return shift_ntt(_residues("x", x, 1 << 64, 64), inverse, omega)


def shift_ntt16(x, inverse=False, omega=None):
    """The radix-16 unit ([Wang13] §IV-B, eq. 6): 16-point transform with ω = 4096 (or
    ``omega``)."""
    return shift_ntt(_residues("x", x, 1 << 64, 16), inverse, omega)


@cache
def four_step_twiddles(n, n1, inverse=False, omega=None):
    """The ROM of [Wang13] eqs 7–8: ``[a][k2]`` = W_n^(a·k2) (W_n = ω, or ω^-1 for the inverse;
    ω = ``omega``, default ω_n) for a < n1 and k2 < n/n1."""
    w = wang_huang_root(n) if omega is None else omega
    w = pow(w, -1, SOLINAS64) if inverse else w
    rows = []
    for a in range(n1):
        wa, row, t = pow(w, a, SOLINAS64), [], 1
        for _ in range(n // n1):
            row.append(t)
            t = t * wa % SOLINAS64
        rows.append(tuple(row))
    return tuple(rows)


@dataclass(frozen=True)
class FourStepTrace:
    """Intermediates of [Wang13] eq. 7/8 with n = n1·n2: ``inner[a]`` the n2-point transform of
    x[a], x[a + n1], ...; ``twiddled[a][k2]`` = inner[a][k2]·W_n^(a·k2); ``output``."""

    inner: list
    twiddled: list
    output: list


def _four_step(x, n1, inner, outer, inverse, omega):
    """X(k2 + n2·k1) = Σ_a W_n1^(a·k1)·W_n^(a·k2)·Σ_b x(a + n1·b)·W_n2^(b·k2): the inner
    transforms, the twiddle multiplication (a 64x64 product reduced by [Cao14] Fig. 3(c)) and the
    outer transforms, with the output in natural order. The inverse uses inverse inner and outer
    transforms (each scaled by its size^-1, so by n^-1 together) and W_n^-1. W_n = ``omega``
    (checked: a primitive n-th root), W_n2 = W_n^n1 and W_n1 = W_n^n2; default the
    Wang–Huang family's."""
    n = len(x)
    n2 = n // n1
    w2 = w1 = None
    if omega is not None:
        omega = ntt_params(SOLINAS64, n, omega=omega).omega
        w2, w1 = pow(omega, n1, SOLINAS64), pow(omega, n2, SOLINAS64)
    cols = [inner(x[a::n1], inverse, w2) for a in range(n1)]
    twiddled = [[solinas_reduce(y * w) for y, w in zip(col, row)]
                for col, row in zip(cols, four_step_twiddles(n, n1, inverse, omega))]
    out = [0] * n
    for k2 in range(n2):
        for k1, v in enumerate(outer([t[k2] for t in twiddled], inverse, w1)):
            out[k2 + n2 * k1] = v
    return FourStepTrace(cols, twiddled, out)


def ntt4096_steps(x, inverse=False, omega=None):
    """[Wang13] §IV-C eq. 8 and Fig. 3: 4096 = 64 x 64 with ω_4096 (ω_4096^64 = 8), or any
    primitive 4096th root ``omega``; x: 4096 words in [0, 2^64). Returns a
    :class:`FourStepTrace`."""
    return _four_step(_residues("x", x, 1 << 64, 4096), 64, shift_ntt64, shift_ntt64, inverse,
                      omega)


def ntt4096(x, inverse=False, omega=None):
    """The 4096-point transform with root ``omega`` (default ``wang_huang_root(4096)``), natural
    order in and out."""
    return ntt4096_steps(x, inverse, omega).output


def ntt65536_steps(x, inverse=False, omega=None):
    """[Wang13] §IV-C eq. 7 and Fig. 4: 65536 = 16 x 4096 with ω_65536 (ω_65536^4096 = 4096), or
    any primitive 65536th root ``omega``; x: 65536 words in [0, 2^64). Returns a
    :class:`FourStepTrace`."""
    return _four_step(_residues("x", x, 1 << 64, 65536), 16, ntt4096, shift_ntt16, inverse,
                      omega)


def ntt65536(x, inverse=False, omega=None):
    """The 65536-point transform with root ``omega`` (default ``wang_huang_root(65536)``),
    natural order in and out."""
    return ntt65536_steps(x, inverse, omega).output


#: Sizes of :func:`wang_huang_ntt`: 4096 = 64 x 64 (eq. 8) and n1 x 4096 for n1 = 2 ... 16.
WANG_HUANG_SIZES = (4096, 8192, 16384, 32768, 65536)


def wang_huang_ntt(x, inverse=False, omega=None):
    """The n-point transform with root ``omega`` (default ``wang_huang_root(n)``) for n = 4096,
    8192, ..., 65536,
    natural order in and out: eq. 8 for 4096, else eq. 7 with n1 = n / 4096 (a shift-only
    n1-point transform after the twiddles; n1 = 16 is :func:`~fhe_hw.model.ntt.ntt65536`)."""
    n = len(x)
    if n not in WANG_HUANG_SIZES:
        raise ValueError(f"x must have {', '.join(map(str, WANG_HUANG_SIZES))} words, not {n}")
    if n == 4096:
        return ntt4096(x, inverse, omega)
    return _four_step(_residues("x", x, 1 << 64, n), n // 4096, ntt4096, shift_ntt,
                      inverse, omega).output
