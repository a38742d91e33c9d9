"""Golden models of super-size integer arithmetic for FHE over the integers:

* [Cao14] §2.2 Algorithm 1 (Integer-FFT multiplication) and Table 2 (its
  four moduli), §2.1 eq. (1) and Table 1 (CMNT encryption and its parameter groups);
* [Cao13] §3.1 Steps 1–3 (schoolbook scheduling of block products), §3.4
  and Fig. 4 (addition recovery: two-by-two adder tree, registered carry chain, product
  accumulation), §4 eqs (9)–(11) and Steps 1–4 (super-size Barrett reduction), §2.1 eq. (2) and
  Table 2 (CNT encryption), §5 eq. (12) (multiplier latency).

The text of 000 lost its typeset formulas and table headers. Eqs (2), (10), (11) and (12) are
reconstructed here from the surrounding prose; each docstring says what the prose fixes.

Memory layout ([Cao13] §3.1, §4): operands, partial products and constants sit in the shared RAM
from address 0 as d-bit words, least significant first; an operand of N bits is ⌈2N/kb⌉ blocks
of kb/2 bits (at least one), each kb/2d words.
"""

from dataclasses import dataclass, replace
from functools import lru_cache
from operator import add, mul, sub
from typing import NamedTuple

from fhe_hw.params import (
    NTTParams,
    check_digit_bits,
    get_modulus,
    ntt_params,
    require_int,
    require_power_of_two,
)

__all__ = [
    "BlockConfig", "block_config", "IntegerFFTSteps", "integer_fft_steps", "integer_fft_multiply",
    "adder_tree", "ScheduleStep", "block_schedule", "BlockMultiplyTrace", "block_multiply_trace",
    "block_multiply", "cycles_eq12", "SupersizeBarrettConstants", "supersize_barrett_constants",
    "supersize_barrett_shifts", "SupersizeBarrettSteps", "supersize_barrett_steps",
    "supersize_barrett_reduce",
    "cmnt_encrypt", "cnt_encrypt", "EncryptionSizes", "cmnt_group", "cnt_group", "group_sizes",
    "CMNTInstance", "CNTInstance", "random_cmnt_instance", "random_cnt_instance",
]


# --- the Integer-FFT block multiplier ([Cao14] §2.2 Algorithm 1)
# ------------------------------------

@dataclass(frozen=True)
class BlockConfig:
    """A validated Integer-FFT block multiplier: the k-point transform ``ntt`` modulo p, digit
    width b and RAM bus width d. A block is kb/2 bits (``block_bits``), moved as kb/2d bus words
    (``words``); Fig. 4(i) has log2(d/b) adder-tree levels (``tree_levels``)."""

    ntt: NTTParams
    b: int
    d: int

    @property
    def k(self):
        return self.ntt.k

    @property
    def block_bits(self):
        return self.k * self.b // 2

    @property
    def words(self):
        return self.block_bits // self.d

    @property
    def tree_levels(self):
        return (self.d // self.b).bit_length() - 1


@lru_cache(maxsize=64)
def block_config(modulus="solinas64", k=None, b=None, d=None):
    """Validate and return a :class:`BlockConfig`. ``k`` and ``b`` default to the modulus's
    [Cao14] Table 2 entry; ``d`` to kb/16, which makes kb/2d = 8 as in [Cao13] §5 (d = 32, 192,
    224, 48 for the four moduli), or b when k < 16.

    Raises ``ValueError`` when k does not divide q - 1 for every prime q | p, when
    k(2^b - 1)^2/2 >= p ([Cao14] §2.2), or unless d = b·2^t with 2^t dividing k/2 (the adder tree is
    two-by-two and a block is a whole number of words); ``TypeError`` for non-integers."""
    m = get_modulus(modulus)
    k = m.table_k if k is None else k
    b = m.table_b if b is None else b
    if k is None or b is None:
        raise ValueError(f"k and b must be given for a modulus without a Table 2 entry, not "
                         f"k = {k!r}, b = {b!r}")
    ntt = ntt_params(m, k)
    check_digit_bits(m.value, k, b)
    d = b * max(1, k // 16) if d is None else require_int("bus_width d", d, minimum=1)
    if d % b or (d // b) & (d // b - 1) or (k // 2) % (d // b):
        raise ValueError(f"bus_width d must be b = {b} times a power of two dividing "
                         f"k/2 = {k // 2}, not {d!r}")
    return BlockConfig(ntt, b, d)


@lru_cache(maxsize=16)
def _ntt_tables(k, w, p):
    """Per-stage twiddles w^(j with its s low bits cleared), j < k/2, of the constant-geometry
    transform, and the bit-reversal permutation that puts its output in natural order."""
    bits = k.bit_length() - 1
    stages = [[pow(w, j >> s << s, p) for j in range(k // 2)] for s in range(bits)]
    return stages, [int(f"{i:0{bits}b}"[::-1], 2) if bits else 0 for i in range(k)]


def _cyclic_ntt(a, w, p):
    """A_i = Σ_j a_j·w^(ij) mod p, the k-point transform of [Cao14] Algorithm 1 steps 1 and 3.

    Radix-2 decimation in frequency in Pease's constant geometry: every stage pairs a_j with
    a_(j+k/2) and writes the sum to 2j and the twiddled difference to 2j+1, so a stage is two
    whole-list operations. Values are reduced mod p only with the final bit reversal: Python ints
    stay exact and only residues matter (this keeps the model fast, not the hardware's order)."""
    stages, perm = _ntt_tables(len(a), w, p)
    h = len(a) // 2
    for tw in stages:
        u, v = a[:h], a[h:]
        a = [0] * (2 * h)
        a[0::2] = map(add, u, v)
        a[1::2] = map(mul, map(sub, u, v), tw)
    return [a[i] % p for i in perm]


def _forward(cfg, value):
    """Step 1 and the forward FFT: the k/2 b-bit digits of a block, k/2 zeros, transformed."""
    digits = [(value >> (i * cfg.b)) & ((1 << cfg.b) - 1) for i in range(cfg.k // 2)]
    return digits, _cyclic_ntt(digits + [0] * (cfg.k // 2), cfg.ntt.omega, cfg.ntt.p)


def _pointwise(cfg, X, Y):
    """Point-wise product Z_i = X_i·Y_i mod p (Algorithm 1 step 2)."""
    p = cfg.ntt.p
    return [x * y % p for x, y in zip(X, Y)]


def _inverse(cfg, Z):
    """The IFFT of Algorithm 1 step 3 without its factor k^-1 (see :func:`_scale`)."""
    return _cyclic_ntt(Z, cfg.ntt.omega_inv, cfg.ntt.p)


def _scale(cfg, values):
    """values·k^-1 mod p, the IFFT's last factor."""
    p, k_inv = cfg.ntt.p, cfg.ntt.k_inv
    return [v * k_inv % p for v in values]


@dataclass(frozen=True)
class IntegerFFTSteps:
    """[Cao14] Algorithm 1 for one block pair: digits of x and y (k/2 each), their transforms X and
    Y, the point-wise product Z, the IFFT output c (k coefficients, before carries), the k digits
    after carry resolution and the product."""

    x_digits: list
    y_digits: list
    X: list
    Y: list
    Z: list
    c: list
    digits: list
    product: int


def _require_block(name, value, cfg):
    require_int(name, value, minimum=0)
    if value >> cfg.block_bits:
        raise ValueError(f"{name} must be less than 2^(kb/2) = 2^{cfg.block_bits}, not a "
                         f"{value.bit_length()}-bit value")


def integer_fft_steps(x, y, modulus="solinas64", k=None, b=None):
    """[Cao14] Algorithm 1 step by step for 0 <= x, y < 2^(kb/2); returns :class:`IntegerFFTSteps`.
    The k/2 zero digits make the cyclic convolution acyclic, and the b bound keeps each IFFT output
    c_i = Σ x_j·y_(i-j) < k(2^b - 1)^2/2 < p, so c holds the exact digit products. Step 4 then
    resolves the carry chain digit by digit: c_(i+1) += c_i div 2^b, c_i = c_i mod 2^b.

    Raises as :func:`block_config` for bad (modulus, k, b), ``ValueError`` for operands out of
    range, ``TypeError`` for non-integers."""
    cfg = block_config(modulus, k, b)
    _require_block("x", x, cfg)
    _require_block("y", y, cfg)
    x_digits, X = _forward(cfg, x)
    y_digits, Y = _forward(cfg, y)
    Z = _pointwise(cfg, X, Y)
    c = _scale(cfg, _inverse(cfg, Z))
    digits = list(c)
    for i in range(cfg.k - 1):
        digits[i + 1] += digits[i] >> cfg.b
        digits[i] &= (1 << cfg.b) - 1
    if digits[-1] >> cfg.b:
        raise RuntimeError(f"x·y does not fit {cfg.k} digits of {cfg.b} bits")
    product = sum(v << (i * cfg.b) for i, v in enumerate(digits))
    return IntegerFFTSteps(x_digits, y_digits, X, Y, Z, c, digits, product)


def integer_fft_multiply(x, y, modulus="solinas64", k=None, b=None):
    """x·y by [Cao14] Algorithm 1 (see :func:`integer_fft_steps`)."""
    return integer_fft_steps(x, y, modulus, k, b).product


# --- addition recovery and schoolbook block scheduling ([Cao13] §3.1, §3.4, Fig. 4) ---------------

def adder_tree(c, cfg):
    """[Cao13] §3.4 Fig. 4(i): log2(d/b) levels of two-by-two additions of adjacent IFFT outputs,
    least significant first. Returns kb/d sums s_t = Σ_(u < d/b) c_(t·d/b+u)·2^(u·b); s_t weighs
    2^(t·d), so s_0..s_(kb/2d-1) make the low half P^L of the block product and the rest the high
    half P^H. Each s_t is a little wider than d bits; the carry chain absorbs the excess."""
    level, width = list(c), cfg.b
    while width < cfg.d:
        level = [lo + (hi << width) for lo, hi in zip(level[::2], level[1::2])]
        width *= 2
    return level


class ScheduleStep(NamedTuple):
    """One block product X_i·Y_j of the schoolbook schedule ([Cao13] §3.1 Steps 1–3)."""

    i: int        # block of x (outer loop)
    j: int        # block of y (inner loop)
    read: int | None  # product block read from RAM before accumulating (Step-3.1)
    writes: tuple  # product blocks written, in order (Step-3.2)
    final: tuple  # the written blocks that no later step changes


def block_schedule(x_blocks, y_blocks):
    """[Cao13] §3.1 Step-3.3: j runs over y's blocks inside i over x's blocks. Step X_i·Y_j adds
    P^L_ij, P^H_(i,j-1) and (when i > 0) the block i+j written by row i-1, and writes block i+j;
    at j = last it also writes P^H_ij with the carry as block i+j+1 (the kb-bit write of eq. 12).
    Step-3.1's read condition is garbled in the text; block i+j holds row i-1's sum exactly when
    i > 0, so that is when it is read. A block n is final once row min(n, last i) writes it.
    Returns a tuple of :class:`ScheduleStep`. Raises ``ValueError`` for counts below 1."""
    require_int("x_blocks", x_blocks, minimum=1)
    require_int("y_blocks", y_blocks, minimum=1)
    steps = []
    for i in range(x_blocks):
        for j in range(y_blocks):
            writes = (i + j, i + j + 1) if j == y_blocks - 1 else (i + j,)
            final = writes if i == x_blocks - 1 else (i,) if j == 0 else ()
            steps.append(ScheduleStep(i, j, i + j if i else None, writes, final))
    return tuple(steps)


@dataclass(frozen=True)
class BlockMultiplyTrace:
    """Result of :func:`block_multiply_trace`: the product, the schedule and, per step, the
    (word address, d-bit word) pairs written back to RAM in bus order."""

    product: int
    config: BlockConfig
    schedule: tuple
    writes: tuple


def _blocks(value, bits):
    count = max(1, -(-value.bit_length() // bits))
    return [(value >> (n * bits)) & ((1 << bits) - 1) for n in range(count)]


def block_multiply_trace(x, y, modulus="solinas64", k=None, b=None, *, d=None):
    """x·y for operands of any length by [Cao13] §3.1: kb/2-bit blocks multiplied by the
    Integer-FFT (Algorithm 1 steps 1–3), recovered by the adder tree of Fig. 4(i) and accumulated
    word by word by the registered carry chain of Fig. 4(ii) in :func:`block_schedule` order. The
    carry chain adds, per d-bit word of block i+j, the low-half tree sum of X_i·Y_j, the high-half
    sum of X_i·Y_(j-1) (held on chip) and the word read from RAM, writes the low d bits and keeps
    the rest as carry. Returns :class:`BlockMultiplyTrace`.

    Raises as :func:`block_config`, and ``ValueError``/``TypeError`` for negative or non-integer
    operands."""
    cfg = block_config(modulus, k, b, d)
    require_int("x", x, minimum=0)
    require_int("y", y, minimum=0)
    return _trace(cfg, x, y)


def _trace(cfg, x, y):
    xs, ys = _blocks(x, cfg.block_bits), _blocks(y, cfg.block_bits)
    # Each block's transform is computed once (the hardware recomputes it per pair: same values)
    # and k^-1 is folded into y's, as [Cao14] §3.2 folds it into the last IFFT twiddles.
    fx = [_forward(cfg, v)[1] for v in xs]
    fy = [_scale(cfg, _forward(cfg, v)[1]) for v in ys]
    W, mask = cfg.words, (1 << cfg.d) - 1
    ram, writes = [0] * ((len(xs) + len(ys)) * W), []
    schedule = block_schedule(len(xs), len(ys))
    for step in schedule:
        if step.j == 0:
            carry, held = 0, [0] * W
        s = adder_tree(_inverse(cfg, _pointwise(cfg, fx[step.i], fy[step.j])), cfg)
        first = (step.i + step.j) * W
        read = ram[first:first + W] if step.read is not None else [0] * W
        addends = list(map(add, map(add, s[:W], held), read))
        held = s[W:]
        if len(step.writes) == 2:
            addends += held
        for a, v in enumerate(addends, first):
            carry += v
            ram[a] = carry & mask
            carry >>= cfg.d
        writes.append(tuple(enumerate(ram[first:first + len(addends)], first)))
        if len(step.writes) != 1 and carry:
            raise RuntimeError(f"row {step.i}'s sum does not fit its blocks (carry {carry})")
    product = sum(v << (a * cfg.d) for a, v in enumerate(ram))
    return BlockMultiplyTrace(product, cfg, schedule, tuple(writes))


def block_multiply(x, y, modulus="solinas64", k=None, b=None, *, d=None):
    """x·y by the block schoolbook Integer-FFT multiplier (see :func:`block_multiply_trace`)."""
    return block_multiply_trace(x, y, modulus, k, b, d=d).product


def cycles_eq12(x_bits, y_bits, k, b, d, *, p_fft, p_pw, p_ar):
    """Latency in clock cycles of one super-size multiplication, [Cao13] §5 eq. (12).

    The typeset formula is lost from the text; the prose fixes every term. With N1 = ``x_bits``
    and N2 = ``y_bits`` (the operand lengths; x's blocks form the outer loop), n1 = ⌈2·N1/kb⌉ and
    n2 = ⌈2·N2/kb⌉ block counts, P_fft / P_pw / P_ar the pipeline stages of one FFT/IFFT butterfly
    stage, of the point-wise multiplication and of the addition recovery::

        T = kb/2d + 2·log2(k)·P_fft + P_pw + P_ar  +  (kb/2d)·n1·n2  +  (kb/2d)·n1

    The first part is the preparation before the first block product (kb/2d cycles to read an
    operand block, then FFT, point-wise product, IFFT and addition recovery); then each of the
    n1·n2 block products writes kb/2 bits in kb/2d cycles, and the n1 products with j = last
    write kb bits, kb/2d cycles more. The paper's design has kb/2d = 8 (and P_fft = 8), so its
    printed form may show 8 in place of kb/2d.
    Raises as :func:`block_config` (without the modulus checks) for bad k, b, d."""
    for name, v in (("x_bits", x_bits), ("y_bits", y_bits), ("b", b), ("d", d)):
        require_int(name, v, minimum=1)
    require_power_of_two("k", k, minimum=2)
    for name, v in (("p_fft", p_fft), ("p_pw", p_pw), ("p_ar", p_ar)):
        require_int(name, v, minimum=0)
    if (k * b) % (2 * d):
        raise ValueError(f"d must divide kb/2 = {k * b // 2}, not {d!r}")
    block, words = k * b // 2, k * b // (2 * d)
    n1, n2 = -(-x_bits // block), -(-y_bits // block)
    prep = words + 2 * (k.bit_length() - 1) * p_fft + p_pw + p_ar
    return prep + words * n1 * n2 + words * n1


# --- super-size Barrett reduction ([Cao13] §4, eqs 9–11)
# -------------------------------------------

@dataclass(frozen=True)
class SupersizeBarrettConstants:
    """[Cao13] §4 Step-1: modulus A0 of γ bits, inputs x < 2^``x_bits``, bus width d, eq. (10) β,
    eq. (11) α and the pre-computed μ = ⌊2^(γ+α)/A0⌋ (eq. 9)."""

    A0: int
    gamma: int
    x_bits: int
    d: int
    alpha: int
    beta: int
    mu: int

    @property
    def x_address(self):
        """Word address (γ+β)/d where Step-2 starts reading x."""
        return (self.gamma + self.beta) // self.d

    @property
    def sigma_address(self):
        """Word address (α-β)/d where Step-3 starts reading σ̂ out of σ."""
        return (self.alpha - self.beta) // self.d


def supersize_barrett_shifts(gamma, x_bits, d):
    """(α, β) of :func:`supersize_barrett_constants` for a γ-bit A0: they depend on γ, x_bits
    and d only (μ depends on A0), so a plan can be sized without A0 or the 2^(γ+α) / A0
    division. Raises as :func:`supersize_barrett_constants`."""
    require_int("d", d, minimum=3)
    require_int("gamma", gamma, minimum=2)
    if gamma <= d:
        raise ValueError(f"A0 must have more than d = {d} bits ([Cao13] eq. 10), not {gamma} bits")
    require_int("x_bits", x_bits, minimum=gamma)
    beta = -d - gamma % d
    return beta + d * -(-(x_bits - gamma + 1 - beta) // d), beta


def supersize_barrett_constants(A0, x_bits, d):
    """Constants of the super-size Barrett reduction of x < 2^x_bits modulo A0 ([Cao13] §4).

    Eqs (10) and (11) are lost from the text; the prose requires γ > d, that γ+β and α-β be
    multiples of d (so x and σ̂ are read from whole word addresses) and Dhem's conditions β < -2,
    α > x_bits - γ ([Cao14] §2.3). The smallest choice meeting all of them is used:
    β = -d - (γ mod d) (eq. 10) and α the least value >= x_bits - γ + 1 with d | α - β (eq. 11).
    Then σ̂ is ⌊x/A0⌋ or one less, and one subtraction finishes.

    Raises ``ValueError`` unless A0 has more than d bits, x_bits >= γ and d >= 3; ``TypeError``
    for non-integers."""
    require_int("A0", A0, minimum=2)
    gamma = A0.bit_length()
    alpha, beta = supersize_barrett_shifts(gamma, x_bits, d)
    return SupersizeBarrettConstants(A0, gamma, x_bits, d, alpha, beta,
                                     (1 << (gamma + alpha)) // A0)


@dataclass(frozen=True)
class SupersizeBarrettSteps:
    """[Cao13] §4 Steps 2–4: x_high = ⌊x/2^(γ+β)⌋, σ = x_high·μ, σ̂ = ⌊σ/2^(α-β)⌋, p2 = σ̂·A0,
    y1 = x - p2, y2 = y1 - A0 and the result y (y2 when y2 >= 0, else y1)."""

    x_high: int
    sigma: int
    sigma_hat: int
    p2: int
    y1: int
    y2: int
    y: int


def supersize_barrett_steps(x, consts, config=None):
    """[Cao13] §4 Steps 2–4 for 0 <= x < 2^consts.x_bits, both products by :func:`block_multiply`
    with ``config`` (default :func:`block_config` ()). Returns :class:`SupersizeBarrettSteps`.
    Raises ``ValueError``/``TypeError`` for x out of range or bad ``consts``/``config``."""
    if not isinstance(consts, SupersizeBarrettConstants):
        raise TypeError(f"consts must come from supersize_barrett_constants, not {consts!r}")
    cfg = _config(config)
    require_int("x", x, minimum=0)
    if x >> consts.x_bits:
        raise ValueError(f"x must be less than 2^x_bits = 2^{consts.x_bits}, not a "
                         f"{x.bit_length()}-bit value")
    mul = _multiplier(cfg)
    x_high = x >> (consts.gamma + consts.beta)
    sigma = mul(x_high, consts.mu)
    sigma_hat = sigma >> (consts.alpha - consts.beta)
    p2 = mul(sigma_hat, consts.A0)
    y1 = x - p2
    y2 = y1 - consts.A0
    y = y2 if y2 >= 0 else y1
    if not 0 <= y < consts.A0:
        raise RuntimeError(f"Barrett: y = {y} is outside [0, A0): σ̂ is not ⌊x/A0⌋ or one "
                           f"less (Dhem's bound)")
    return SupersizeBarrettSteps(x_high, sigma, sigma_hat, p2, y1, y2, y)


def supersize_barrett_reduce(x, A0, *, x_bits=None, config=None):
    """x mod A0 by the super-size Barrett reduction; ``x_bits`` (default 2γ, i.e. x < A0^2 is
    covered) sets the input range the constants are built for."""
    cfg = _config(config)
    require_int("A0", A0, minimum=2)
    consts = supersize_barrett_constants(A0, 2 * A0.bit_length() if x_bits is None else x_bits,
                                         cfg.d)
    return supersize_barrett_steps(x, consts, cfg).y


def _config(config):
    if config is None:
        return block_config()
    if not isinstance(config, BlockConfig):
        raise TypeError(f"config must be a BlockConfig from block_config, not {config!r}")
    return config


def _multiplier(cfg):
    return lambda x, y: _trace(cfg, x, y).product


# --- CMNT and CNT encryption ([Cao14] eq. 1 / [Cao13] eq. 1, [Cao13] eq. 2)
# --------------------------------

def _sized_list(name, values, length=None):
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} must be a list, not {values!r}")
    if not values or (length is not None and len(values) != length):
        raise ValueError(f"{name} must have {length or 'at least 1'} entries, not {len(values)}")
    return values


def _nonneg_list(name, values, length=None):
    for v in _sized_list(name, values, length):
        require_int(f"{name} entries", v, minimum=0)
    return values


def _finish(M, R, total, A0, term_bits, count, config, steps=False):
    """x = M + 2R + 2·total (+ A0 when R < 0, so x >= 0 as |2R| < A0), reduced by the
    super-size Barrett with α sized for the largest x these operand lengths allow (its
    :class:`SupersizeBarrettSteps` with ``steps``)."""
    if require_int("M", M) not in (0, 1):
        raise ValueError(f"M must be 0 or 1, not {M!r}")
    require_int("R", R)
    require_int("A0", A0, minimum=2)
    if 2 * abs(R) >= A0:
        raise ValueError(f"R must satisfy |2R| < A0, not {R!r}")
    cfg = _config(config)
    x = M + 2 * R + 2 * total + (A0 if R < 0 else 0)
    x_max = 1 + 2 * abs(R) + A0 + 2 * count * ((1 << term_bits) - 1)
    consts = supersize_barrett_constants(A0, x_max.bit_length(), cfg.d)
    result = supersize_barrett_steps(x, consts, cfg)
    return result if steps else result.y


def cmnt_encrypt(M, R, B, A0_list, A1_list, A0, *, schedule="paper", config=None, steps=False):
    """CMNT ciphertext C = (M + 2R + 2·Σ_(i,j<=θ) B_ij·A_i0·A_j1) mod A0 ([Cao14] eq. 1).

    ``schedule="paper"`` accumulates the θ^2 products in the paper's order (i outer, j inner),
    each as (B_ij·A_i0)·A_j1; ``"factored"`` forms Σ_i A_i0·(Σ_j B_ij·A_j1), θ big products. All
    products use :func:`block_multiply` with ``config``, the final reduction
    :func:`supersize_barrett_steps` (whose steps it returns with ``steps``). ``B`` is a θ x θ
    list of lists, M ∈ {0, 1}, |2R| < A0. Raises ``ValueError``/``TypeError`` for anything
    else."""
    theta = len(_nonneg_list("A0_list", A0_list))
    _nonneg_list("A1_list", A1_list, theta)
    for row in _sized_list("B", B, theta):
        _nonneg_list("B rows", row, theta)
    mul = _multiplier(_config(config))
    if schedule == "paper":
        total = sum(mul(mul(B[i][j], A0_list[i]), A1_list[j])
                    for i in range(theta) for j in range(theta))
    elif schedule == "factored":
        total = sum(mul(A0_list[i], sum(mul(B[i][j], A1_list[j]) for j in range(theta)))
                    for i in range(theta))
    else:
        raise ValueError(f"schedule must be 'paper' or 'factored', not {schedule!r}")
    term_bits = (max(v.bit_length() for row in B for v in row)
                 + max(v.bit_length() for v in A0_list) + max(v.bit_length() for v in A1_list))
    return _finish(M, R, total, A0, term_bits, theta * theta, config, steps)


def cnt_encrypt(M, R, b_list, x_list, x0, *, config=None, steps=False):
    """CNT ciphertext c = (m + 2r + 2·Σ_(i<=τ) b_i·x_i) mod x0 ([Cao13] eq. 2, lost from the text;
    the form of Coron, Naccache, Tibouchi 2012 that [Cao13] §2.1 describes: b_i of α bits, x_i of γ
    bits). Products by :func:`block_multiply`, reduction by the super-size Barrett; raises as
    :func:`cmnt_encrypt`."""
    tau = len(_nonneg_list("b_list", b_list))
    _nonneg_list("x_list", x_list, tau)
    mul = _multiplier(_config(config))
    total = sum(mul(bi, xi) for bi, xi in zip(b_list, x_list))
    term_bits = max(v.bit_length() for v in b_list) + max(v.bit_length() for v in x_list)
    return _finish(M, R, total, x0, term_bits, tau, config, steps)


@dataclass(frozen=True)
class EncryptionSizes:
    """Bit lengths of one parameter group: ``coeff_bits`` (δ of B_ij in CMNT, α of b_i in CNT),
    ``noise_bits`` (ρ or ρ': R ∈ (-2^ρ, 2^ρ)), ``key_bits`` (φ or γ: bits of A0 and of the
    public-key integers) and ``count`` (θ or τ)."""

    coeff_bits: int
    noise_bits: int
    key_bits: int
    count: int


#: [Cao14] Table 1 (CMNT: δ, ρ = 4δ, φ, θ) and [Cao13] Table 2 (CNT: α, ρ', γ, τ; header lost from
#the : text, columns read as in Coron-Naccache-Tibouchi 2012).
_GROUPS = {
    "cmnt": {"toy": (42, 168, 160_000, 12), "small": (52, 208, 860_000, 23),
             "medium": (62, 248, 4_200_000, 44), "large": (72, 288, 19_000_000, 88)},
    "cnt": {"toy": (936, 936, 150_000, 158), "small": (1476, 1476, 830_000, 572),
            "medium": (2016, 2016, 4_200_000, 2110), "large": (2556, 2556, 19_350_000, 7695)},
}


def _group(scheme, group, key_bits, count):
    if isinstance(group, str):
        if group not in _GROUPS[scheme]:
            raise ValueError(f"group must be one of {', '.join(_GROUPS[scheme])}, not {group!r}")
        group = EncryptionSizes(*_GROUPS[scheme][group])
    if not isinstance(group, EncryptionSizes):
        raise TypeError(f"group must be a group name or EncryptionSizes, not {group!r}")
    if key_bits is not None:
        # |2R| < A0 needs φ > ρ + 1.
        group = replace(group, key_bits=require_int("key_bits", key_bits,
                                                    minimum=group.noise_bits + 2))
    if count is not None:
        group = replace(group, count=require_int("count", count, minimum=1))
    return group


def group_sizes(scheme, group, *, key_bits=None, count=None):
    """The sizes of ``group`` (a name of [Cao14] Table 1 for ``scheme`` "cmnt", of [Cao13]
    Table 2 for "cnt", or :class:`EncryptionSizes`) with φ/γ and θ/τ optionally replaced: the
    sizes of :func:`random_cmnt_instance` / :func:`random_cnt_instance` with the same
    arguments."""
    if scheme not in _GROUPS:
        raise ValueError(f"scheme must be one of {', '.join(_GROUPS)}, not {scheme!r}")
    return _group(scheme, group, key_bits, count)


def cmnt_group(name):
    """The CMNT sizes of [Cao14] Table 1 group ``name`` (toy, small, medium, large)."""
    return _group("cmnt", name, None, None)


def cnt_group(name):
    """The CNT sizes of [Cao13] Table 2 group ``name`` (toy, small, medium, large)."""
    return _group("cnt", name, None, None)


def _key(rng, bits):
    return rng.getrandbits(bits - 1) | 1 << (bits - 1)


def _public(rng, s):
    """A0 (odd, exactly φ bits) and a signed R ∈ (-2^ρ, 2^ρ), M ∈ {0, 1}."""
    bound = 1 << s.noise_bits
    return rng.getrandbits(1), rng.randrange(1 - bound, bound), _key(rng, s.key_bits) | 1


class CMNTInstance(NamedTuple):
    M: int
    R: int
    B: list
    A0_list: list
    A1_list: list
    A0: int


class CNTInstance(NamedTuple):
    M: int
    R: int
    b_list: list
    x_list: list
    x0: int


def random_cmnt_instance(group, rng, *, key_bits=None, count=None):
    """Random CMNT inputs ([Cao14] §2.1) of group ``group`` (a name or :class:`EncryptionSizes`),
    with φ and θ optionally scaled down: B_ij of δ bits, A_i0, A_j1 and A0 of exactly φ bits."""
    s = _group("cmnt", group, key_bits, count)
    M, R, A0 = _public(rng, s)
    B = [[rng.getrandbits(s.coeff_bits) for _ in range(s.count)] for _ in range(s.count)]
    A0_list = [_key(rng, s.key_bits) for _ in range(s.count)]
    return CMNTInstance(M, R, B, A0_list, [_key(rng, s.key_bits) for _ in range(s.count)], A0)


def random_cnt_instance(group, rng, *, key_bits=None, count=None):
    """Random CNT inputs ([Cao13] §2.1): b_i of α bits, x_i and x0 of exactly γ bits."""
    s = _group("cnt", group, key_bits, count)
    M, R, x0 = _public(rng, s)
    return CNTInstance(M, R, [rng.getrandbits(s.coeff_bits) for _ in range(s.count)],
                       [_key(rng, s.key_bits) for _ in range(s.count)], x0)
