"""Golden models of the modular adders and reducers ([Kir25] Algorithms 5–7, [Cao14] Algorithm 2 and
Fig. 3, [Wang13] eq. 3) against plain Python big-integer arithmetic."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fhe_hw.model import reduce as R
from fhe_hw.params import (
    MODULI,
    SOLINAS64,
    barrett_constants,
    montgomery_constants,
    ntt_primes,
)

SETTINGS = settings(max_examples=300, deadline=None)
PRIMES = ntt_primes(30, 2**12, 1) + ntt_primes(60, 2**16, 1) + ntt_primes(64, 2**16, 1)
BARRETT_MODULI = [m.value for m in MODULI.values()] + PRIMES
ADD_MODULI = BARRETT_MODULI + [2, 3, 2**31, 2**31 + 1, 2**32 - 1]
MASK32 = 2**32 - 1


def edges(p, width):
    """0, 1, p-1, p, p+1, 2p-1, (p-1)^2, powers of two, all ones, and the multiples of p (and
    their neighbours) just below 2^width."""
    top = 2**width - 1
    k = top // p * p
    values = {0, 1, p - 1, p, p + 1, 2 * p - 1, (p - 1) ** 2, top, 2**(width - 1),
              2**(width - 1) - 1, k, k - 1, k - p, k - p - 1, k + p - 1}
    return sorted(v for v in values if 0 <= v <= top)


def reference_barrett_bounds(x, p, steps):
    """[Cao14] §2.3 guarantee: σ̂ is ⌊x/p⌋ or one less, so 0 <= y1 < 2p."""
    return steps.sigma in (x // p - 1, x // p) and 0 <= steps.y1 < 2 * p


# --- [Kir25] Algorithms 5 and 6
# ---------------------------------------------------------------------

def test_mod_add_and_sub_exact_for_every_operand_pair_of_small_moduli():
    for q in range(2, 40):
        for a in range(q):
            for b in range(q):
                assert R.mod_add(a, b, q) == (a + b) % q
                assert R.mod_sub(a, b, q) == (a - b) % q


@st.composite
def operands(draw):
    q = draw(st.sampled_from(ADD_MODULI))
    operand = st.one_of(st.sampled_from([0, 1, q - 1, q // 2]), st.integers(0, q - 1))
    return draw(operand), draw(operand), q


@SETTINGS
@given(operands())
def test_mod_add_equals_sum_mod_q(abq):
    a, b, q = abq
    assert R.mod_add(a, b, q) == (a + b) % q


@SETTINGS
@given(operands())
def test_mod_sub_equals_difference_mod_q(abq):
    a, b, q = abq
    assert R.mod_sub(a, b, q) == (a - b) % q


@pytest.mark.parametrize("model", [R.mod_add, R.mod_sub])
def test_mod_add_sub_reject_operand_not_below_q(model):
    with pytest.raises(ValueError, match="a must be less than q = 17"):
        model(17, 0, 17)
    with pytest.raises(ValueError, match="b must be at least 0"):
        model(0, -1, 17)


def test_mod_add_rejects_non_integer_operand():
    with pytest.raises(TypeError, match="b must be an integer"):
        R.mod_add(1, 2.0, 17)


def test_mod_add_rejects_modulus_below_two():
    with pytest.raises(ValueError, match="q must be at least 2"):
        R.mod_add(0, 0, 1)


# --- [Cao14] Algorithm 2: Barrett
# -------------------------------------------------------------------

@pytest.mark.parametrize("p", BARRETT_MODULI, ids=hex)
def test_barrett_on_edges_needs_one_subtraction_and_is_exact(p):
    c = barrett_constants(p)
    for x in edges(p, 2 * c.m):
        steps = R.barrett_steps(x, c)
        assert reference_barrett_bounds(x, p, steps), hex(x)
        assert steps.y == R.barrett_reduce(x, c) == x % p


@st.composite
def barrett_cases(draw, default=True):
    p = draw(st.sampled_from(BARRETT_MODULI))
    m = p.bit_length()
    alpha, beta = (None, None) if default else (draw(st.integers(m + 1, 2 * m + 8)),
                                                draw(st.integers(-m, -3)))
    x = draw(st.one_of(st.integers(0, 2**(2 * m) - 1), st.sampled_from(edges(p, 2 * m))))
    return x, barrett_constants(p, alpha, beta)


@SETTINGS
@given(barrett_cases())
def test_barrett_default_constants_need_one_subtraction(case):
    x, c = case
    assert reference_barrett_bounds(x, c.p, R.barrett_steps(x, c))


@SETTINGS
@given(barrett_cases())
def test_barrett_trace_follows_algorithm_2(case):
    x, c = case
    s = R.barrett_steps(x, c)
    assert (s.p2, s.y1, s.y2) == (s.sigma * c.p, x - s.sigma * c.p, x - s.sigma * c.p - c.p)
    assert s.y == x % c.p


@SETTINGS
@given(barrett_cases(default=False))
def test_barrett_any_legal_alpha_beta_needs_one_subtraction(case):
    x, c = case
    s = R.barrett_steps(x, c)
    assert reference_barrett_bounds(x, c.p, s) and s.y == x % c.p


def test_barrett_exact_for_every_input_of_small_moduli_at_extreme_alpha_beta():
    for p in range(5, 64, 2):
        m = p.bit_length()
        for alpha in (m + 1, m + 4, 2 * m + 3):
            for beta in (-3, -m):
                c = barrett_constants(p, alpha, beta)
                for x in range(2**(2 * m)):
                    s = R.barrett_steps(x, c)
                    assert reference_barrett_bounds(x, p, s) and s.y == x % p, (p, alpha, beta, x)


def test_barrett_rejects_input_of_more_than_2m_bits():
    c = barrett_constants("general32")
    with pytest.raises(ValueError, match=r"x must be less than 2\^\(2m\) = 2\^64"):
        R.barrett_reduce(2**64, c)


def test_barrett_rejects_negative_input():
    with pytest.raises(ValueError, match="x must be at least 0"):
        R.barrett_reduce(-1, barrett_constants("general32"))


def test_barrett_rejects_constants_of_another_kind():
    with pytest.raises(TypeError, match="consts must be a BarrettConstants"):
        R.barrett_reduce(5, montgomery_constants(PRIMES[0], 13))


# --- [Cao14] Fig. 3(b): special modulus 2^(m-1) + 1
# ------------------------------------------------

def test_special_exact_for_every_input_of_small_m():
    for m in range(3, 8):
        p = 2**(m - 1) + 1
        for x in range(2**(2 * m)):
            assert R.special_reduce(x, m) == x % p, (m, x)


def test_special_paper_two_way_selection_exact_for_products_of_small_m():
    for m in range(3, 8):
        p = 2**(m - 1) + 1
        for x in range((p - 1) ** 2 + 1):
            y1 = R.special_steps(x, m).y1
            assert (y1 + p if y1 < 0 else y1) == x % p, (m, x)


@st.composite
def special_cases(draw, products_only=False):
    m = draw(st.sampled_from([17, 33, 65]))
    p = 2**(m - 1) + 1
    top = (p - 1) ** 2 if products_only else 2**(2 * m) - 1
    return draw(st.one_of(st.integers(0, top), st.sampled_from(edges(p, 2 * m)).filter(
        lambda v: v <= top))), m, p


@SETTINGS
@given(special_cases(products_only=True))
def test_special_paper_two_way_selection_exact_for_products(case):
    x, m, p = case
    y1 = R.special_steps(x, m).y1
    assert (y1 + p if y1 < 0 else y1) == x % p


@SETTINGS
@given(special_cases())
def test_special_full_domain_equals_x_mod_p(case):
    x, m, p = case
    s = R.special_steps(x, m)
    assert (s.y1 - x) % p == 0 and -p < s.y1 < 2 * p
    assert s.y == R.special_reduce(x, m) == x % p


@pytest.mark.parametrize("m", [3, 33, 65])
def test_special_third_candidate_needed_above_products(m):
    p = 2**(m - 1) + 1
    x = 3 * 2**(2 * m - 2) + 2**(m - 1) - 1   # top field 3, middle 0, low all ones
    s = R.special_steps(x, m)
    assert (s.y1, s.correction) == (p + 1, -1)
    assert s.y == x % p


def test_special_rejects_m_below_three():
    with pytest.raises(ValueError, match="m must be at least 3"):
        R.special_reduce(0, 2)


def test_special_rejects_input_of_more_than_2m_bits():
    with pytest.raises(ValueError, match=r"x must be less than 2\^\(2m\) = 2\^66"):
        R.special_reduce(2**66, 33)


# --- [Cao14] Fig. 3(c) / [Wang13] eq. (3): Solinas 2^64 - 2^32 + 1
# --------------------------------------

words = st.one_of(st.integers(0, MASK32), st.sampled_from([0, 1, MASK32, 2**31]))


@SETTINGS
@given(words, words, words, words)
def test_solinas_paper_identity_holds(a, b, c, d):
    x = 2**96 * a + 2**64 * b + 2**32 * c + d
    assert x % SOLINAS64 == (2**32 * (b + c) - a - b + d) % SOLINAS64


@SETTINGS
@given(words, words, words, words)
def test_solinas_folds_to_r_in_minus_p_to_2p_and_reduces(a, b, c, d):
    x = 2**96 * a + 2**64 * b + 2**32 * c + d
    s = R.solinas_steps(x)
    assert s.y1 == 2**32 * (b + c) - a - b + d
    assert -SOLINAS64 < s.y1 < 2 * SOLINAS64
    assert s.y == R.solinas_reduce(x) == x % SOLINAS64


@pytest.mark.parametrize("x,r,correction", [
    (MASK32 << 96, -MASK32, 1),                                          # minimum of r
    ((MASK32 << 64) | (MASK32 << 32) | MASK32, 2 * SOLINAS64 - 2, -1),    # maximum of r
    (2**128 - 1, (2**33 - 1) * MASK32, -1),
    (2**64, 2**32 - 1, 0),
])
def test_solinas_extreme_r_selects_the_right_candidate(x, r, correction):
    s = R.solinas_steps(x)
    assert (s.y1, s.correction) == (r, correction)
    assert s.y == x % SOLINAS64


def test_solinas_rejects_input_of_more_than_128_bits():
    with pytest.raises(ValueError, match=r"x must be less than 2\^128"):
        R.solinas_reduce(2**128)


# --- [Kir25] Algorithm 7: word-level Montgomery
# -----------------------------------------------------

P32 = ntt_primes(32, 2**12, 2)
P60 = ntt_primes(60, 2**16, 2)
P64 = ntt_primes(64, 2**16, 1)
MONTGOMERY = ([(q, w) for q in P32 for w in (13, 8, 5)] + [(q, w) for q in P60 for w in (17, 12)]
              + [(q, w) for q in P64 for w in (17, 16)])
# Cases with w | r, where R = 2^r and q·(R + 1) is a 2r-bit input.
W_DIVIDES_R = [(q, w) for q, w in MONTGOMERY if q.bit_length() % w == 0]


def r_inverse(q, w):
    nu = -(-q.bit_length() // w)
    return pow(2, -w * nu, q)


@st.composite
def montgomery_cases(draw, top=lambda q, c: 2**(2 * c.r) - 1):
    q, w = draw(st.sampled_from(MONTGOMERY))
    c = montgomery_constants(q, w)
    bound = min(top(q, c), 2**(2 * c.r) - 1)
    T = draw(st.one_of(st.integers(0, bound), st.sampled_from([0, 1, q - 1, (q - 1) ** 2, bound])))
    return T, c


@pytest.mark.parametrize("q,w", MONTGOMERY, ids=str)
def test_montgomery_on_edges_equals_T_times_R_inverse(q, w):
    c = montgomery_constants(q, w)
    for T in (0, 1, q - 1, q, (q - 1) ** 2, 2**(2 * c.r) - 1):
        assert R.montgomery_reduce(T, c) == T * r_inverse(q, w) % q, T


@SETTINGS
@given(montgomery_cases())
def test_montgomery_equals_T_times_R_inverse(case):
    T, c = case
    assert R.montgomery_reduce(T, c) == T * r_inverse(c.q, c.word) % c.q


@SETTINGS
@given(montgomery_cases())
def test_montgomery_each_round_is_an_exact_division_of_T_plus_k_q(case):
    T, c = case
    rounds = R.montgomery_steps(T, c).rounds
    assert len(rounds) == -(-c.q.bit_length() // c.word)
    for prev, t in zip((T,) + rounds, rounds):
        k, rest = divmod(t * 2**c.word - prev, c.q)
        assert rest == 0 and 0 <= k < 2**c.word


@SETTINGS
@given(montgomery_cases(top=lambda q, c: (q - 1) ** 2))
def test_montgomery_products_of_residues_need_one_subtraction(case):
    T, c = case
    s = R.montgomery_steps(T, c)
    assert s.rounds[-1] < 2 * c.q and s.subtractions <= 1


@SETTINGS
@given(montgomery_cases(top=lambda q, c: q * (c.R + 1) - 1))
def test_montgomery_one_subtraction_suffices_below_q_times_R_plus_1(case):
    T, c = case
    assert R.montgomery_steps(T, c).subtractions <= 1


@pytest.mark.parametrize("q,w", W_DIVIDES_R, ids=str)
def test_montgomery_q_times_R_plus_1_needs_a_second_subtraction(q, w):
    c = montgomery_constants(q, w)
    s = R.montgomery_steps(q * (c.R + 1), c)
    assert (s.rounds[-1], s.subtractions, s.d) == (2 * q, 2, 0)


def test_montgomery_w_dividing_r_cases_exist():
    assert len(W_DIVIDES_R) >= 3


@SETTINGS
@given(st.sampled_from(MONTGOMERY), st.data())
def test_montgomery_mul_equals_product_times_R_inverse(qw, data):
    q, w = qw
    a, b = data.draw(st.integers(0, q - 1)), data.draw(st.integers(0, q - 1))
    assert R.montgomery_mul(a, b, montgomery_constants(q, w)) == a * b * r_inverse(q, w) % q


@pytest.mark.parametrize("q,w", MONTGOMERY, ids=str)
def test_montgomery_mul_by_premultiplied_constant_gives_plain_product(q, w):
    c = montgomery_constants(q, w)
    for a, k in [(q - 1, q - 1), (123456789, 987654321 % q), (1, 2)]:
        assert R.montgomery_mul(a, c.to_montgomery(k), c) == a * k % q


def test_montgomery_rejects_input_of_more_than_2r_bits():
    c = montgomery_constants(P32[0], 13)
    with pytest.raises(ValueError, match=r"T must be less than 2\^\(2r\) = 2\^64"):
        R.montgomery_reduce(2**64, c)


def test_montgomery_rejects_constants_of_another_kind():
    with pytest.raises(TypeError, match="consts must be a MontgomeryConstants"):
        R.montgomery_reduce(5, barrett_constants("general32"))


def test_montgomery_mul_rejects_operand_not_below_q():
    c = montgomery_constants(P32[0], 13)
    with pytest.raises(ValueError, match="a must be less than q"):
        R.montgomery_mul(P32[0], 1, c)


# --- dispatch ---------------------------------------------------------------------------------

GENERAL = BARRETT_MODULI + [(1 << 64) + 1]


@st.composite
def any_modulus_input(draw):
    p = draw(st.sampled_from(GENERAL))
    width = 2 * p.bit_length()
    return draw(st.one_of(st.integers(0, 2**width - 1), st.sampled_from(edges(p, width)))), p


@SETTINGS
@given(any_modulus_input())
def test_reduce_equals_x_mod_p_for_every_modulus_kind(case):
    x, p = case
    assert R.reduce(x, p) == x % p


@pytest.mark.parametrize("name,model", [("fermat32", "special_reduce"),
                                        ("fermat64", "special_reduce"),
                                        ("solinas64", "solinas_reduce"),
                                        ("general32", "barrett_reduce")])
def test_reduce_picks_the_reducer_of_the_modulus_kind(monkeypatch, name, model):
    monkeypatch.setattr(R, model, lambda *args: model)
    assert R.reduce(7, name) == model


def test_reduce_rejects_input_of_more_than_2m_bits():
    with pytest.raises(ValueError, match="x must be less than"):
        R.reduce(2**64, "general32")
