"""Golden models of the modular adders and reducers, step by step:

* [Kir25] §3.2.1 Algorithms 5 and 6 (modular addition and subtraction) and
  Algorithm 7 (word-level Montgomery reduction, Mert et al. 2020);
* [Cao14] §2.3 Algorithm 2 and §3.3 Fig. 3(a) (Barrett), Fig. 3(b) (special
  modulus 2^(m-1) + 1), Fig. 3(c) (Solinas modulus 2^64 - 2^32 + 1, also
  [Wang13] eq. (3)).

Each reducer has a ``*_steps`` function returning its intermediate values (for comparison with
the hardware's registers) and a function returning only the result. Constants come from
:mod:`fhe_hw.params`.
"""

from dataclasses import dataclass

from fhe_hw.params import (
    SOLINAS64,
    BarrettConstants,
    MontgomeryConstants,
    barrett_constants,
    get_modulus,
    require_int,
)

__all__ = [
    "mod_add", "mod_sub", "BarrettSteps", "barrett_steps", "barrett_reduce", "FoldSteps",
    "special_steps", "special_reduce", "solinas_steps", "solinas_reduce", "MontgomerySteps",
    "montgomery_steps", "montgomery_reduce", "montgomery_mul", "reduce",
]


def _require_below(name, value, bound, bound_text):
    require_int(name, value, minimum=0)
    if value >= bound:
        raise ValueError(f"{name} must be less than {bound_text}, not {value!r}")
    return value


def _require_consts(consts, cls, maker):
    if not isinstance(consts, cls):
        raise TypeError(f"consts must be a {cls.__name__} from fhe_hw.params.{maker}, "
                        f"not {consts!r}")
    return consts


def _sign(v, r):
    """Bit r of v as an (r+1)-bit two's-complement word: 1 iff -2^r <= v < 0."""
    return (v >> r) & 1


# --- [Kir25] Algorithms 5 and 6
# ---------------------------------------------------------------------

def _check_operands(a, b, q):
    require_int("q", q, minimum=2)
    _require_below("a", a, q, f"q = {q}")
    _require_below("b", b, q, f"q = {q}")
    return q.bit_length()


def mod_add(a, b, q):
    """(a + b) mod q by [Kir25] Algorithm 5: e = a + b, f = e - q, c = e if f is negative else f.

    ``a``, ``b`` in [0, q); raises ``TypeError``/``ValueError`` otherwise. The thesis tests
    "f_{r-1}" for 2^(r-1) <= q < 2^r; f lies in [-q, q - 1], which needs r + 1 bits, so the sign
    is bit r of f (bit r-1 is wrong, e.g. for a = b = 0 it would keep f = -q)."""
    r = _check_operands(a, b, q)
    e = a + b
    f = e - q
    return e if _sign(f, r) else f


def mod_sub(a, b, q):
    """(a - b) mod q by [Kir25] Algorithm 6: e = a - b, c = e + q if e is negative else e.

    ``a``, ``b`` in [0, q); raises otherwise. As in :func:`mod_add`, e in [-(q-1), q-1] has
    its sign in bit r (the thesis writes e_{r-1})."""
    r = _check_operands(a, b, q)
    e = a - b
    return e + q if _sign(e, r) else e


# --- [Cao14] Algorithm 2: Barrett
# -------------------------------------------------------------------

@dataclass(frozen=True)
class BarrettSteps:
    """[Cao14] Algorithm 2: σ̂ (``sigma``), p2 = σ̂·p, y1 = x - p2, y2 = y1 - p, result y."""

    sigma: int
    p2: int
    y1: int
    y2: int
    y: int


def barrett_steps(x, consts):
    """[Cao14] Algorithm 2 on 0 <= x < 2^(2m) with ``consts`` =
    :func:`fhe_hw.params.barrett_constants`.

    Writing x = σp + z (0 <= z < p), μ = ⌊2^(m+α)/p⌋ > 2^(m+α)/p - 1 and ⌊x/2^(m+β)⌋ >
    x/2^(m+β) - 1 give σ - 1 + (1 - x/2^(m+α) - 2^(m+β)/p) < σ̂ <= σ, and the bracket is positive
    because x/2^(m+α) < 2^(m-α) <= 1/2 (α > m) and 2^(m+β)/p < 2^(β+1) <= 1/4 (β <= -3,
    p > 2^(m-1)). So σ̂ ∈ {σ - 1, σ} and 0 <= y1 < 2p: the one subtraction of steps 3–4 is exact
    for every (α, β) that ``barrett_constants`` accepts (Dhem's guarantee, [Cao14] §2.3).

    Raises ``TypeError`` for other ``consts``, ``TypeError``/``ValueError`` for a bad ``x``."""
    c = _require_consts(consts, BarrettConstants, "barrett_constants")
    _require_below("x", x, 1 << (2 * c.m), f"2^(2m) = 2^{2 * c.m}")
    sigma = ((x >> (c.m + c.beta)) * c.mu) >> (c.alpha - c.beta)
    p2 = sigma * c.p
    y1 = x - p2
    y2 = y1 - c.p
    return BarrettSteps(sigma, p2, y1, y2, y1 if y2 < 0 else y2)


def barrett_reduce(x, consts):
    """x mod p by [Cao14] Algorithm 2; see :func:`barrett_steps`."""
    return barrett_steps(x, consts).y


# --- [Cao14] Fig. 3(b), 3(c): addition-only reducers
# ------------------------------------------------

@dataclass(frozen=True)
class FoldSteps:
    """An addition-only reducer: the folded value y1 (``r`` in [Cao14] Fig. 3c) with y1 ≡ x (mod p)
    and -p < y1 < 2p, ``correction`` in {+1, 0, -1} naming the candidate chosen among y1 + p,
    y1, y1 - p, and the result y = y1 + correction·p."""

    y1: int
    correction: int
    y: int


def _select3(y1, p):
    correction = 1 if y1 < 0 else -1 if y1 >= p else 0
    return FoldSteps(y1, correction, y1 + correction * p)


def special_steps(x, m):
    """[Cao14] §3.3, Fig. 3(b) for p = 2^(m-1) + 1 (m >= 3) and 0 <= x < 2^(2m).

    As 2^(m-1) ≡ -1 (mod p), y1 = x[m-2:0] + x[2m-1:2m-2] - x[2m-3:m-1] ≡ x. The paper selects
    y1 + p when y1 < 0, else y1; that is exact for x <= (p-1)^2 = 2^(2m-2) (then the top field is
    0, or 1 with the others 0, so -p < y1 < p). Over all 2m-bit x, y1 reaches
    (2^(m-1) - 1) + 3 = p + 1, so the model adds the third candidate y1 - p (correction -1).

    Raises ``TypeError``/``ValueError`` for a bad ``m`` or ``x``."""
    require_int("m", m, minimum=3)
    _require_below("x", x, 1 << (2 * m), f"2^(2m) = 2^{2 * m}")
    h = m - 1
    low, mid, top = x & ((1 << h) - 1), (x >> h) & ((1 << h) - 1), x >> (2 * h)
    return _select3(low + top - mid, (1 << h) + 1)


def special_reduce(x, m):
    """x mod (2^(m-1) + 1); see :func:`special_steps`."""
    return special_steps(x, m).y


def solinas_steps(x):
    """[Cao14] Fig. 3(c) / [Wang13] eq. (3) for p = 2^64 - 2^32 + 1 and 0 <= x < 2^128.

    x = 2^96·a + 2^64·b + 2^32·c + d (32-bit a, b, c, d); 2^96 ≡ -1 and 2^64 ≡ 2^32 - 1 give
    x ≡ r = 2^32·(b + c) - a - b + d = (2^32 - 1)·b + 2^32·c - a + d. Every term but -a is
    non-negative, so r >= -(2^32 - 1) > -p; the maximum, at a = 0 and b = c = d = 2^32 - 1, is
    (2^32 - 1)·2^33 = 2p - 2. Hence -p < r < 2p and the 3→1 selection among r + p, r, r - p is
    exact (001 says "(p, 2p)", which must mean (-p, 2p): r < 0 and r >= p both occur).

    Raises ``TypeError``/``ValueError`` for a bad ``x``."""
    _require_below("x", x, 1 << 128, "2^128")
    mask = (1 << 32) - 1
    a, b, c, d = x >> 96, (x >> 64) & mask, (x >> 32) & mask, x & mask
    return _select3(((b + c) << 32) - a - b + d, SOLINAS64)


def solinas_reduce(x):
    """x mod (2^64 - 2^32 + 1); see :func:`solinas_steps`."""
    return solinas_steps(x).y


# --- [Kir25] Algorithm 7: word-level Montgomery
# -----------------------------------------------------

@dataclass(frozen=True)
class MontgomerySteps:
    """[Kir25] Algorithm 7: ``rounds`` is T after each of the ν rounds (the last is the value before
    the final subtraction), ``subtractions`` the number of q subtracted at the end (0 or 1 for
    T < q·(R + 1), which includes every product of residues; up to 2 above), ``d`` the result."""

    rounds: tuple
    subtractions: int
    d: int


def montgomery_steps(T, consts):
    """T·2^(-wν) mod q by [Kir25] Algorithm 7 for 0 <= T < 2^(2r), ``consts`` =
    :func:`fhe_hw.params.montgomery_constants`.

    One round: T_L = T mod 2^w, T_H = T >> w, T̃ = -T_L mod 2^w, carry = T̃[w-1] ∨ T[w-1],
    T ← T_H + q_H·T̃ + carry. With q = 2^w·q_H + 1, T + T̃·q = 2^w·(T_H + q_H·T̃) + (T_L + T̃) and
    T_L + T̃ is 2^w when T_L ≠ 0, else 0; the carry is exactly [T_L ≠ 0] (T_L < 2^(w-1) makes
    T̃ = 2^w - T_L >= 2^(w-1)), so each round is the exact division (T + T̃·q) / 2^w.

    Deviations from the thesis text, both needed for exactness: line 6 reads q_H·T_L, but the
    derivation (and a carry defined from T̃) needs q_H·T̃; line 3 takes T_H = T[r-1:w], which
    would drop the high half of a 2r-bit product, so T_H = T >> w here.

    After ν rounds T = (T_0 + M·q)/R with M < R = 2^(wν), so T < 2q exactly when
    T_0 < q·(R + 1) (T_0 = q·(R + 1) with M = R - 1 gives 2q): then the single conditional
    subtraction of lines 8–12 suffices, in particular for T_0 < q^2. For larger 2r-bit T_0 (only
    possible when w divides r, so R = 2^r) T < 2^(2r)/R + q < 3q, and one more subtraction is
    applied, as the hardware does.

    Raises ``TypeError`` for other ``consts``, ``TypeError``/``ValueError`` for a bad ``T``."""
    c = _require_consts(consts, MontgomeryConstants, "montgomery_constants")
    _require_below("T", T, 1 << (2 * c.r), f"2^(2r) = 2^{2 * c.r}")
    w, rounds = c.word, []
    for _ in range(c.nu):
        t_low, t_high = T & ((1 << w) - 1), T >> w
        t_neg = -t_low % (1 << w)
        carry = (t_neg >> (w - 1)) | ((T >> (w - 1)) & 1)
        T = t_high + c.q_high * t_neg + carry
        rounds.append(T)
    subtractions = 0
    while T >= c.q:
        T -= c.q
        subtractions += 1
    return MontgomerySteps(tuple(rounds), subtractions, T)


def montgomery_reduce(T, consts):
    """T·2^(-wν) mod q; see :func:`montgomery_steps`."""
    return montgomery_steps(T, consts).d


def montgomery_mul(a, b, consts):
    """a·b·2^(-wν) mod q for ``a``, ``b`` in [0, q): Algorithm 7 applied to the product."""
    c = _require_consts(consts, MontgomeryConstants, "montgomery_constants")
    _check_operands(a, b, c.q)
    return montgomery_reduce(a * b, c)


# --- dispatch ---------------------------------------------------------------------------------

def reduce(x, modulus):
    """x mod p for 0 <= x < 2^(2m) with the reducer that suits ``modulus`` (name, int or
    :class:`~fhe_hw.params.Modulus`): special 2^(m-1) + 1 → :func:`special_reduce`, 2^64 - 2^32 + 1
    → :func:`solinas_reduce`, any other → :func:`barrett_reduce` with α = m + 4, β = -4."""
    mod = get_modulus(modulus)
    if mod.kind == "special":
        return special_reduce(x, mod.bits)
    if mod.kind == "solinas":
        return solinas_reduce(x)
    return barrett_reduce(x, barrett_constants(mod))
