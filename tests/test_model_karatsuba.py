"""Golden models of Karatsuba polynomial arithmetic ([Mig16] §II-B, §II-C, §III) against exact
products computed independently: Kronecker substitution (one Python big-integer product) for
non-negative polynomials, SymPy for signed ones and for reduction modulo x^n ± 1; and the
resource / time formulas against the paper's Table II, Table III and §III-B numbers."""

import random

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from fhe_hw.model.karatsuba import (
    digit_products,
    digits,
    hardware_cycles,
    hardware_multipliers,
    karatsuba,
    karatsuba_postcompute,
    karatsuba_precompute,
    karatsuba_split,
    leaf_multiply_digits,
    leaf_schedule,
    max_recursions,
    multiplier_utilization,
    multiply_digits,
    reduce_poly,
    relinearize,
    schoolbook,
    word_count,
    word_decomp,
)

SETTINGS = settings(max_examples=60, deadline=None)
X = sympy.Symbol("x")
ONES_125 = (1 << 125) - 1
Q125 = sympy.prevprime(1 << 125)


def kronecker(p, q):
    """Exact product of non-negative polynomials: pack each into one integer with slots wide
    enough that no product coefficient carries into the next, multiply once, unpack."""
    slot = max(p).bit_length() + max(q).bit_length() + min(len(p), len(q)).bit_length()
    pack = lambda a: int("".join(format(c, f"0{slot}b") for c in reversed(a)) or "0", 2)  # noqa: E731
    r = pack(p) * pack(q)
    return [(r >> (slot * i)) & ((1 << slot) - 1) for i in range(len(p) + len(q) - 1)]


def sympy_product(p, q):
    r = (sympy.Poly(list(reversed(p)), X) * sympy.Poly(list(reversed(q)), X)).all_coeffs()
    r = [int(c) for c in reversed(r)]
    return r + [0] * (len(p) + len(q) - 1 - len(r))


def sympy_reduce(c, n, sign, q):
    r = sympy.rem(sympy.Poly(list(reversed(c)), X), sympy.Poly(X**n + sign, X)).all_coeffs()
    r = [int(a) % q for a in reversed(r)]
    return r + [0] * (n - len(r))


def random_poly(rng, n, bits):
    return [rng.getrandbits(bits) for _ in range(n)]


@st.composite
def operands(draw, bits=135, signed=False):
    """(p, q, recursions, leaf) with n = leaf·2^recursions, edge coefficients included."""
    recursions, leaf = draw(st.integers(0, 4)), draw(st.integers(1, 6))
    lo = -(1 << bits) + 1 if signed else 0
    coeff = st.one_of(st.integers(lo, (1 << bits) - 1),
                      st.sampled_from([0, 1, (1 << bits) - 1, ONES_125]))
    n = leaf << recursions
    poly = st.lists(coeff, min_size=n, max_size=n)
    return draw(poly), draw(poly), recursions, leaf


# --- schoolbook and Karatsuba ----------------------------------------------------------------

@SETTINGS
@given(st.lists(st.integers(-(1 << 130), 1 << 130), min_size=1, max_size=12),
       st.lists(st.integers(-(1 << 130), 1 << 130), min_size=1, max_size=12))
def test_schoolbook_equals_sympy_product(p, q):
    assert schoolbook(p, q) == sympy_product(p, q)


@SETTINGS
@given(operands())
def test_karatsuba_equals_exact_product(case):
    p, q, recursions, leaf = case
    assert karatsuba(p, q, recursions, leaf) == kronecker(p, q)


@SETTINGS
@given(operands(signed=True))
def test_karatsuba_equals_exact_product_for_signed_coefficients(case):
    p, q, recursions, leaf = case
    assert karatsuba(p, q, recursions, leaf) == sympy_product(p, q)


def test_karatsuba_of_all_ones_125_bit_polynomials_is_exact():
    p = [ONES_125] * 40
    assert karatsuba(p, p, 3) == [(i + 1 if i < 40 else 79 - i) * ONES_125**2 for i in range(79)]


def test_karatsuba_of_zero_polynomial_is_zero():
    assert karatsuba([0] * 40, [ONES_125] * 40, 3) == [0] * 79


# --- pre-computation schedule and post-computation -----------------------------------------------

@pytest.mark.parametrize("recursions", [0, 1, 3, 5])
def test_leaf_schedule_fills_channel_slot_grid_where_channel_bits_lie_in_slot_bits(recursions):
    grid = {(s.channel, s.slot) for s in leaf_schedule(recursions)}
    size = 1 << recursions
    assert grid == {(c, t) for c in range(size) for t in range(size) if c & ~t == 0}
    assert len(grid) == 3 ** recursions


def test_leaf_schedule_is_in_production_order():
    schedule = leaf_schedule(4)
    assert schedule == sorted(schedule, key=lambda s: (s.slot, s.channel))
    assert len({s.path for s in schedule}) == 81


def test_leaf_schedule_outer_sum_branch_is_idle_in_the_first_half():
    """Fig. 5: the fresh channels of the outermost sum branch carry nothing while P_L arrives."""
    assert all(s.slot >= 4 for s in leaf_schedule(3) if s.channel >= 4)


@SETTINGS
@given(st.integers(0, 4), st.integers(1, 5), st.randoms(use_true_random=False))
def test_precompute_leaf_is_sum_of_input_blocks_its_path_selects(recursions, leaf, rng):
    """Leaf ``path`` = Σ of the leaf-size blocks j of P whose bits read L = 0, H = 1, S = 0 or 1."""
    p = random_poly(rng, leaf << recursions, 135)
    blocks = [p[j * leaf:(j + 1) * leaf] for j in range(1 << recursions)]
    for s, got in zip(leaf_schedule(recursions), karatsuba_precompute(p, recursions)):
        chosen = [b for j, b in enumerate(blocks)
                  if all(c == "S" or (j >> (recursions - 1 - k) & 1) == (c == "H")
                         for k, c in enumerate(s.path))]
        assert got == [sum(col) for col in zip(*chosen)]


def test_postcompute_of_hardware_order_leaf_products_gives_product():
    rng = random.Random(4)
    p, q = random_poly(rng, 40, 125), random_poly(rng, 40, 125)
    products = [kronecker(a, b) for a, b in
                zip(karatsuba_precompute(p, 3), karatsuba_precompute(q, 3))]
    assert karatsuba_postcompute(products, 3, 5) == kronecker(p, q)


# --- hardware/software split -------------------------------------------------------------------

def test_split_of_paper_size_with_three_hardware_recursions_equals_exact_product():
    rng = random.Random(2560)
    p, q = random_poly(rng, 2560, 125), random_poly(rng, 2560, 125)
    calls = []

    def hw(a, b):
        calls.append((len(a), len(b)))
        return karatsuba(a, b, 3)

    assert karatsuba_split(p, q, 3, hw=hw) == kronecker(p, q)
    assert calls == [(40, 40)] * 729


@SETTINGS
@given(operands(), st.integers(0, 4))
def test_split_with_default_hardware_equals_exact_product(case, hw_recursions):
    p, q, recursions, leaf = case
    hw_recursions = min(hw_recursions, recursions)
    assert karatsuba_split(p, q, hw_recursions, recursions, leaf) == kronecker(p, q)


# --- digit-serial sub-multiplier ---------------------------------------------------------------

@SETTINGS
@given(st.one_of(st.integers(0, (1 << 135) - 1), st.sampled_from([0, 1, (1 << 135) - 1])))
def test_digits_are_27_bit_words_that_recombine_to_the_value(c):
    d = digits(c)
    assert len(d) == 5 and all(0 <= x < 1 << 27 for x in d)
    assert sum(x << (27 * j) for j, x in enumerate(d)) == c


@SETTINGS
@given(st.integers(0, (1 << 135) - 1), st.integers(0, (1 << 135) - 1))
def test_multiply_digits_equals_integer_product(a, b):
    assert multiply_digits(a, b) == a * b


def test_digit_products_are_25_products_of_at_most_54_bits():
    top = (1 << 135) - 1
    products = [d for row in digit_products(top, top) for d in row]
    assert products == [((1 << 27) - 1) ** 2] * 25
    assert max(products).bit_length() == 54


@SETTINGS
@given(st.integers(1, 6), st.randoms(use_true_random=False))
def test_leaf_multiply_digits_equals_exact_product(leaf, rng):
    p, q = random_poly(rng, leaf, 135), random_poly(rng, leaf, 135)
    assert leaf_multiply_digits(p, q) == kronecker(p, q)


def test_karatsuba_on_digit_leaves_of_all_ones_at_max_recursions_is_exact():
    """Widths: 6-bit all-ones inputs on an 8-bit carrier allow 2 recursions (6 + 2 = 8 bits)."""
    p = [63] * 20
    leaf_multiply = lambda a, b: leaf_multiply_digits(a, b, 4, 2)  # noqa: E731
    assert max_recursions(6, 4, 2) == 2
    assert karatsuba(p, p, 2, leaf_multiply=leaf_multiply) == kronecker(p, p)


def test_karatsuba_on_digit_leaves_one_recursion_beyond_max_overflows_the_carrier():
    p = [63] * 40
    leaf_multiply = lambda a, b: leaf_multiply_digits(a, b, 4, 2)  # noqa: E731
    with pytest.raises(ValueError, match="p must have coefficients in"):
        karatsuba(p, p, 3, leaf_multiply=leaf_multiply)


def test_paper_135_bit_carrier_supports_its_9_recursions_on_125_bit_coefficients():
    assert max_recursions(125, 27, 5) == 10
    leaves = karatsuba_precompute([ONES_125] * (5 << 9), 9)
    assert max(max(leaf) for leaf in leaves) == ONES_125 << 9
    assert (ONES_125 << 9).bit_length() == 134


# --- reduction, WordDecomp, relinearization ------------------------------------------------------

@SETTINGS
@given(st.lists(st.integers(-(1 << 70), 1 << 70), min_size=1, max_size=30),
       st.integers(1, 12), st.sampled_from([1, -1]), st.sampled_from([2, 97, Q125]))
def test_reduce_poly_equals_sympy_remainder(c, n, sign, q):
    assert reduce_poly(c, n, sign, q) == sympy_reduce(c, n, sign, q)


def test_reduce_poly_without_q_keeps_integer_coefficients():
    assert reduce_poly([1, 2, 3, 4, 5], 2, 1) == [1 - 3 + 5, 2 - 4]
    assert reduce_poly([1, 2, 3, 4, 5], 2, -1) == [9, 6]


def test_word_count_of_paper_parameters_is_5():
    assert word_count(27, Q125) == 5
    assert word_count(27, 1 << 135) == 5
    assert word_count(27, (1 << 135) + 1) == 6
    assert word_count(27, 2) == 1


@SETTINGS
@given(st.lists(st.one_of(st.integers(0, Q125 - 1), st.sampled_from([0, 1, Q125 - 1])),
                min_size=1, max_size=8), st.integers(1, 40))
def test_word_decomp_words_are_w_bit_and_recombine(c, w):
    words = word_decomp(c, w, Q125)
    assert len(words) == -(-125 // w)
    assert all(0 <= a < 1 << w for word in words for a in word)
    assert [sum(word[j] << (w * i) for i, word in enumerate(words)) for j in range(len(c))] == c


@pytest.mark.parametrize("n, sign", [(40, 1), (37, 1), (40, -1), (23, -1)])
def test_relinearize_equals_direct_sum_of_word_key_products(n, sign):
    rng = random.Random(n * sign)
    c = [rng.randrange(Q125) for _ in range(n - 1)] + [Q125 - 1]
    gamma = [[rng.randrange(Q125) for _ in range(n)] for _ in range(5)]
    total = [0] * (2 * n - 1)
    for i, key in enumerate(gamma):
        word = [(a // 2 ** (27 * i)) % 2**27 for a in c]
        total = [x + y for x, y in zip(total, sympy_product(word, key))]
    assert relinearize(c, gamma, 27, Q125, n, 3, sign=sign) == sympy_reduce(total, n, sign, Q125)


# --- resources and time (Tables II, III; §III-B) ------------------------------------------------

@pytest.mark.parametrize("recursions, dsps", [(3, 100), (4, 200), (5, 400)])
def test_hardware_multipliers_match_table_ii(recursions, dsps):
    assert hardware_multipliers(recursions) == dsps


@pytest.mark.parametrize("recursions, percent", [(3, 84.38), (4, 63.29), (5, 47.46)])
def test_multiplier_utilization_matches_section_iii_b(recursions, percent):
    assert float(multiplier_utilization(recursions)) * 100 == pytest.approx(percent, abs=0.01)


@pytest.mark.parametrize("hw_recursions, microseconds", [(3, 583.2), (4, 388.8), (5, 259.2)])
def test_hardware_cycles_at_250_mhz_match_table_iii(hw_recursions, microseconds):
    assert hardware_cycles(hw_recursions) / 250 == pytest.approx(microseconds)


# --- invalid parameters -------------------------------------------------------------------------

def test_karatsuba_rejects_length_other_than_leaf_times_power_of_two():
    with pytest.raises(ValueError, match="p must have leaf"):
        karatsuba([1] * 39, [1] * 40, 3)


def test_karatsuba_rejects_operands_of_unequal_length():
    with pytest.raises(ValueError, match="q must have leaf"):
        karatsuba([1] * 40, [1] * 20, 3)


def test_karatsuba_rejects_negative_recursions():
    with pytest.raises(ValueError, match="recursions"):
        karatsuba([1], [1], -1)


def test_karatsuba_rejects_zero_leaf():
    with pytest.raises(ValueError, match="leaf"):
        karatsuba([1], [1], 0, leaf=0)


def test_karatsuba_rejects_non_integer_coefficients():
    with pytest.raises(TypeError, match="p must be a non-empty list of integers"):
        karatsuba([1.5], [1], 0, leaf=1)


def test_precompute_rejects_length_not_divisible_by_two_to_the_recursions():
    with pytest.raises(ValueError, match="p must have a multiple"):
        karatsuba_precompute([1] * 6, 2)


def test_postcompute_rejects_wrong_number_of_leaf_products():
    with pytest.raises(ValueError, match="leaf_products must be 3"):
        karatsuba_postcompute([[1]] * 8, 2, 1)


def test_postcompute_rejects_leaf_product_of_wrong_length():
    with pytest.raises(ValueError, match="leaf_products must have"):
        karatsuba_postcompute([[1, 2]] * 3, 1, 1)


def test_split_rejects_more_hardware_than_total_recursions():
    with pytest.raises(ValueError, match="hw_recursions"):
        karatsuba_split([1] * 10, [1] * 10, 2, 1)


def test_split_rejects_length_other_than_leaf_times_two_to_the_total():
    with pytest.raises(ValueError, match="p must have leaf"):
        karatsuba_split([1] * 20, [1] * 20, 1, 3)


def test_digits_rejects_value_wider_than_carrier():
    with pytest.raises(ValueError, match="c must have coefficients in"):
        digits(1 << 135)


def test_digits_rejects_negative_value():
    with pytest.raises(ValueError, match="c must have coefficients in"):
        digits(-1)


def test_multiply_digits_rejects_operand_wider_than_carrier():
    with pytest.raises(ValueError, match="b must have coefficients in"):
        multiply_digits(1, 1 << 135)


def test_leaf_multiply_digits_rejects_coefficient_wider_than_carrier():
    with pytest.raises(ValueError, match="q must have coefficients in"):
        leaf_multiply_digits([1], [1 << 135])


def test_max_recursions_rejects_coefficients_wider_than_carrier():
    with pytest.raises(ValueError, match="coeff_bits"):
        max_recursions(136)


def test_reduce_poly_rejects_sign_other_than_plus_or_minus_one():
    with pytest.raises(ValueError, match="sign"):
        reduce_poly([1, 2], 1, 0)


def test_reduce_poly_rejects_n_below_one():
    with pytest.raises(ValueError, match="n must be at least 1"):
        reduce_poly([1, 2], 0, 1)


def test_reduce_poly_rejects_q_below_two():
    with pytest.raises(ValueError, match="q must be at least 2"):
        reduce_poly([1, 2], 1, 1, 1)


def test_word_decomp_rejects_coefficient_not_below_q():
    with pytest.raises(ValueError, match="c must have coefficients in"):
        word_decomp([97], 4, 97)


def test_word_decomp_rejects_word_size_below_one():
    with pytest.raises(ValueError, match="w must be at least 1"):
        word_decomp([1], 0, 97)


def test_relinearize_rejects_wrong_number_of_keys():
    with pytest.raises(ValueError, match="gamma must be l = 2 keys"):
        relinearize([1] * 4, [[1] * 4], 4, 97, 4, 2, leaf=1)


def test_relinearize_rejects_key_coefficient_not_below_q():
    with pytest.raises(ValueError, match="gamma must have coefficients in"):
        relinearize([1] * 4, [[1] * 4, [97] * 4], 4, 97, 4, 2, leaf=1)


def test_relinearize_rejects_ring_degree_above_karatsuba_size():
    with pytest.raises(ValueError, match="n must be at most"):
        relinearize([1] * 5, [[1] * 5] * 2, 4, 97, 5, 2, leaf=1)


def test_relinearize_rejects_c_of_other_length_than_n():
    with pytest.raises(ValueError, match="c must have n"):
        relinearize([1] * 3, [[1] * 4] * 2, 4, 97, 4, 2, leaf=1)


def test_hardware_multipliers_rejects_zero_recursions():
    with pytest.raises(ValueError, match="recursions"):
        hardware_multipliers(0)


def test_hardware_cycles_rejects_more_hardware_than_total_recursions():
    with pytest.raises(ValueError, match="hw_recursions"):
        hardware_cycles(10)
