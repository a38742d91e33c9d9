"""Golden models of RNS base extension ([Kir25] §2.5, §3, §4.1) against exact CRT arithmetic on
Python integers, and the cost formulas of Table 4.5 against the numbers of Table 4.6."""

import dataclasses
import random
from fractions import Fraction
from math import prod

import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fhe_hw.model.rns import (
    arithmetic_units,
    extend_polynomial,
    fast_base_conversion,
    iterations_cox_rower,
    iterations_mrc_iterative,
    iterations_mrc_pipelined,
    iterations_sk_folded,
    iterations_sk_pipelined,
    kawamura,
    kawamura_steps,
    memory_terms,
    mixed_radix,
    mixed_radix_steps,
    modular_products,
    shenoy_kumaresan,
    shenoy_kumaresan_steps,
    trunc,
)
from fhe_hw.params import (
    FastBaseConversionConstants,
    KawamuraConstants,
    MixedRadixConstants,
    ShenoyKumaresanConstants,
    ntt_primes,
)

BITS = (32, 60, 64)
POOLS = {bits: ntt_primes(bits, 4096, 14) for bits in BITS}
SETTINGS = settings(max_examples=200, deadline=None)


def split(bits, l, k):
    """Ascending source of l primes, a target of k primes and a redundant prime, all distinct."""
    pool = POOLS[bits]
    return tuple(pool[:l]), tuple(pool[l:l + k]), pool[l + k]


@st.composite
def bases(draw):
    bits = draw(st.sampled_from(BITS))
    l, k = draw(st.integers(1, 8)), draw(st.integers(1, 5))
    chosen = draw(st.permutations(POOLS[bits]))[:l + k + 1]
    return tuple(sorted(chosen[:l])), tuple(chosen[l:l + k]), chosen[-1]


@st.composite
def cases(draw):
    """(source, target, redundant, A) with A in [0, Q), edges included."""
    source, target, redundant = draw(bases())
    Q = prod(source)
    return source, target, redundant, draw(st.sampled_from([0, Q - 1]) | st.integers(0, Q - 1))


def crt_alpha(A, source):
    """α of eq. 2.5: (Σ |a_i·Q̂_i^-1|_{q_i}·Q̂_i − A) / Q, from Python big integers."""
    Q = prod(source)
    total = sum(A % q * pow(Q // q, -1, q) % q * (Q // q) for q in source)
    assert (total - A) % Q == 0
    return (total - A) // Q


def residues(A, moduli):
    return [A % m for m in moduli]


def kawamura_bound(source, rho):
    """l·(ε_Q + λ_Q) of eqs 2.17–2.18 with r the width of the source moduli."""
    r = max(q.bit_length() for q in source)
    eps = max(Fraction(2**r - q, 2**r) for q in source)
    lam = max(Fraction(2**(r - rho) - 1, q) for q in source)
    return len(source) * (eps + lam)


def tight_delta(source, rho):
    """The smallest δ on the ρ-bit grid with l·(ε_Q + λ_Q) ≤ δ."""
    scaled = kawamura_bound(source, rho) * 2**rho
    return Fraction(-(-scaled.numerator // scaled.denominator), 2**rho)


# --- Algorithm 1 --------------------------------------------------------------------------------

@SETTINGS
@given(cases())
def test_fast_base_conversion_is_a_plus_alpha_q_with_alpha_below_l(case):
    source, target, _, A = case
    Q = prod(source)
    out = fast_base_conversion(residues(A, source),
                               FastBaseConversionConstants.build(source, target))
    assert out in [tuple((A + a * Q) % p for p in target) for a in range(len(source))]


def test_fast_base_conversion_error_appears_for_large_inputs():
    source, target, _ = split(64, 4, 3)
    A = prod(source) - 1
    out = fast_base_conversion(residues(A, source),
                               FastBaseConversionConstants.build(source, target))
    assert crt_alpha(A, source) > 0
    assert out == tuple((A + crt_alpha(A, source) * prod(source)) % p for p in target)


# --- Algorithm 2 --------------------------------------------------------------------------------

@SETTINGS
@given(cases())
def test_shenoy_kumaresan_is_exact_below_q(case):
    source, target, ql, A = case
    consts = ShenoyKumaresanConstants.build(source, target, ql)
    assert shenoy_kumaresan(residues(A, source), A % ql, consts) == tuple(residues(A, target))


@SETTINGS
@given(cases())
def test_shenoy_kumaresan_step5_is_the_crt_alpha(case):
    source, target, ql, A = case
    steps = shenoy_kumaresan_steps(residues(A, source), A % ql,
                                   ShenoyKumaresanConstants.build(source, target, ql))
    assert steps.alpha == crt_alpha(A, source)
    assert steps.ms == crt_alpha(A, source) * prod(source) % ql


@pytest.mark.parametrize("l", [1, 4, 8])
def test_shenoy_kumaresan_is_exact_with_the_smallest_redundant_modulus(l):
    source, target, _ = split(60, l, 3)
    ql = sympy.nextprime(l)
    consts = ShenoyKumaresanConstants.build(source, target, ql)
    for A in (0, prod(source) - 1, prod(source) // 3):
        assert shenoy_kumaresan(residues(A, source), A % ql, consts) == tuple(residues(A, target))


# --- Algorithm 3 --------------------------------------------------------------------------------

def kawamura_consts(source, target, rho, delta=None):
    return KawamuraConstants.build(source, target, rho,
                                   tight_delta(source, rho) if delta is None else delta)


@SETTINGS
@given(bases(), st.integers(8, 24), st.data())
def test_kawamura_is_exact_below_max_input(base, rho, data):
    source, target, _ = base
    consts = kawamura_consts(source, target, rho)
    A = data.draw(st.sampled_from([0, consts.max_input - 1]) | st.integers(0, consts.max_input - 1))
    assert kawamura(residues(A, source), consts) == tuple(residues(A, target))


@pytest.mark.parametrize("bits", BITS)
def test_kawamura_is_exact_at_max_input_minus_one_with_delta_at_the_bound(bits):
    source, target, _ = split(bits, 8, 5)
    consts = kawamura_consts(source, target, rho=4)
    A = consts.max_input - 1
    assert kawamura(residues(A, source), consts) == tuple(residues(A, target))


@st.composite
def worst_truncation_inputs(draw):
    """Source near the error bound (ρ = 4, l = 8) and A built from ξ values whose truncated
    bits are mostly all ones, so TRUNC loses as much as it can."""
    bits = draw(st.sampled_from(BITS))
    source, target, _ = split(bits, 8, 2)
    low = 2**(bits - 4) - 1
    xi = [draw(st.integers(0, q - 1).map(lambda x, q=q: min(x | low, q - 1))
               | st.integers(0, q - 1)) for q in source]
    Q = prod(source)
    return source, target, sum(x * (Q // q) for x, q in zip(xi, source, strict=True)) % Q


@SETTINGS
@given(worst_truncation_inputs())
def test_kawamura_is_exact_near_the_error_bound(case):
    source, target, A = case
    consts = kawamura_consts(source, target, rho=4)
    assume(A < consts.max_input)
    steps = kawamura_steps(residues(A, source), consts)
    assert steps.a_p == tuple(residues(A, target))
    assert steps.alpha == crt_alpha(A, source)


@SETTINGS
@given(bases(), st.data())
def test_kawamura_sigma_stays_a_rho_bit_fraction_and_y_reduces_to_the_result(base, data):
    source, target, _ = base
    consts = kawamura_consts(source, target, rho=12)
    A = data.draw(st.integers(0, consts.max_input - 1))
    steps = kawamura_steps(residues(A, source), consts)
    assert all(0 <= s < 2**12 for s in steps.sigma)
    assert set(steps.alpha_bits) <= {0, 1}
    assert tuple(y % p for y, p in zip(steps.y, target, strict=True)) == tuple(residues(A, target))


def test_trunc_clears_the_low_r_minus_rho_bits():
    assert trunc(0b1011_0111, 8, 3) == 0b1010_0000
    assert trunc(0xFF, 8, 8) == 0xFF


# --- Algorithm 4 --------------------------------------------------------------------------------

@SETTINGS
@given(cases())
def test_mixed_radix_is_exact_below_q(case):
    source, target, _, A = case
    consts = MixedRadixConstants.build(source, target)
    assert mixed_radix(residues(A, source), consts) == tuple(residues(A, target))


@SETTINGS
@given(cases())
def test_mixed_radix_digits_rebuild_a(case):
    source, target, _, A = case
    consts = MixedRadixConstants.build(source, target)
    digits = mixed_radix_steps(residues(A, source), consts).digits
    assert all(0 <= b < q for b, q in zip(digits, source, strict=True))
    assert sum(b * prod(source[:s]) for s, b in enumerate(digits)) == A


# --- edges on every algorithm, polynomial layout -----------------------------------------------

@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("l", [1, 2, 8])
@pytest.mark.parametrize("edge", ["zero", "q_minus_one"])
def test_exact_algorithms_on_edge_inputs(bits, l, edge):
    source, target, ql = split(bits, l, 5)
    A = 0 if edge == "zero" else prod(source) - 1
    expected = tuple(residues(A, target))
    sk = ShenoyKumaresanConstants.build(source, target, ql)
    assert shenoy_kumaresan(residues(A, source), A % ql, sk) == expected
    assert mixed_radix(residues(A, source), MixedRadixConstants.build(source, target)) == expected


ALGORITHMS = {  # name: (convert, constants from (source, target, q_l), exact)
    "fast_base_conversion": (fast_base_conversion,
                             lambda s, t, ql: FastBaseConversionConstants.build(s, t), False),
    "shenoy_kumaresan": (shenoy_kumaresan, ShenoyKumaresanConstants.build, True),
    "kawamura": (kawamura, lambda s, t, ql: kawamura_consts(s, t, rho=16), True),
    "mixed_radix": (mixed_radix, lambda s, t, ql: MixedRadixConstants.build(s, t), True),
}


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_extend_polynomial_is_residue_major_and_coefficient_wise(algorithm):
    convert, build, exact = ALGORITHMS[algorithm]
    source, target, ql = split(32, 4, 3)
    consts = build(source, target, ql)
    Q = prod(source)
    rng = random.Random(1)
    coeffs = [rng.randrange(getattr(consts, "max_input", Q)) for _ in range(8)]
    polys = [[A % q for A in coeffs] for q in source]
    redundant = [A % ql for A in coeffs] if convert is shenoy_kumaresan else None
    out = extend_polynomial(convert, polys, consts, redundant)
    assert len(out) == len(target) and all(len(poly) == 8 for poly in out)
    for c, A in enumerate(coeffs):
        column = tuple(poly[c] for poly in out)
        allowed = [0] if exact else range(len(source))
        assert column in [tuple((A + a * Q) % p for p in target) for a in allowed]


# --- bad parameters ----------------------------------------------------------------------------

def test_non_coprime_source_is_rejected():
    with pytest.raises(ValueError, match="source"):
        FastBaseConversionConstants.build((15, 21), (101,))


def test_source_sharing_a_factor_with_target_is_rejected():
    with pytest.raises(ValueError, match="target"):
        ShenoyKumaresanConstants.build((7, 11), (11, 13), 17)


def test_redundant_modulus_not_above_l_is_rejected():
    source, target, _ = split(32, 3, 2)
    with pytest.raises(ValueError, match="redundant"):
        ShenoyKumaresanConstants.build(source, target, 3)


def test_redundant_modulus_sharing_a_factor_is_rejected():
    source, target, _ = split(32, 3, 2)
    with pytest.raises(ValueError, match="redundant"):
        ShenoyKumaresanConstants.build(source, target, target[0])


def test_unordered_source_is_rejected_for_mixed_radix():
    source, target, _ = split(32, 3, 2)
    with pytest.raises(ValueError, match="source moduli"):
        MixedRadixConstants.build(source[::-1], target)


def test_kawamura_moduli_far_from_two_to_the_r_are_rejected():
    with pytest.raises(ValueError, match="delta"):
        KawamuraConstants.build((17, 19, 23), (29,), 5, Fraction(1, 2))


@pytest.mark.parametrize("rho", [4, 12])
def test_kawamura_delta_one_step_below_the_bound_is_rejected(rho):
    source, target, _ = split(32, 8, 1)
    delta = tight_delta(source, rho)
    assert kawamura_bound(source, rho) > delta - Fraction(1, 2**rho)
    with pytest.raises(ValueError, match="delta"):
        KawamuraConstants.build(source, target, rho, delta - Fraction(1, 2**rho))


@pytest.mark.parametrize("bad", [[1, 2], [0, 0, -1], [0, 0, 2**32], [0, 0, 0.5]])
def test_residues_out_of_range_are_rejected(bad):
    source, target, _ = split(32, 3, 1)
    with pytest.raises(ValueError, match="residues"):
        mixed_radix(bad, MixedRadixConstants.build(source, target))


def test_redundant_residue_out_of_range_is_rejected():
    source, target, ql = split(32, 3, 1)
    with pytest.raises(ValueError, match="redundant_residue"):
        shenoy_kumaresan([0, 0, 0], ql, ShenoyKumaresanConstants.build(source, target, ql))


def test_polynomials_of_different_lengths_are_rejected():
    source, target, _ = split(32, 2, 1)
    with pytest.raises(ValueError, match="residue_polys"):
        extend_polynomial(mixed_radix, [[0, 1], [0]], MixedRadixConstants.build(source, target))


# --- Table 4.5 / 4.6 costs -----------------------------------------------------------------------

TABLE_4_6 = {  # (N, TP, l): SK pipelined, SK folded, Cox-Rower, MRC pipelined, MRC iterative
    (2**16, 32, 17): (628736, 661504, 1179648, 65536, 1179648),
    (2**14, 32, 7): (29184, 32256, 131072, 16384, 131072),
    (2**12, 64, 4): (1344, 1536, 20480, 4096, 20480),
}


@pytest.mark.parametrize("column", sorted(TABLE_4_6))
@pytest.mark.parametrize("row", range(5))
def test_iteration_counts_reproduce_table_4_6(column, row):
    n, tp, l = column
    counts = (iterations_sk_pipelined(n, l, tp), iterations_sk_folded(n, l, tp),
              iterations_cox_rower(n, l), iterations_mrc_pipelined(n, l),
              iterations_mrc_iterative(n, l))
    assert counts[row] == TABLE_4_6[column][row]


def test_iteration_counts_reproduce_the_example_of_section_3_3_3():
    assert iterations_sk_folded(2**16, 30, 64) == 983040
    assert iterations_sk_pipelined(2**16, 30, 64) == 953344


@pytest.mark.parametrize("l", [1, 2, 4, 16])
def test_folded_with_tp_equal_to_l_takes_n_times_l_plus_two(l):
    assert iterations_sk_folded(2**10, l, l) == 2**10 * (l + 2)


@pytest.mark.parametrize("l", range(1, 10))
def test_memory_terms_match_table_4_5(l):
    assert memory_terms("sk_pipelined", l) == memory_terms("sk_folded", l) == l * l + 3 * l + 1
    assert memory_terms("cox_rower", l) == l * l + 2 * l
    assert memory_terms("mrc_pipelined", l) == memory_terms("mrc_iterative", l) \
        == l * l + l * (l - 1) // 2 + l


@pytest.mark.parametrize("l, k", [(1, 1), (3, 2), (8, 5)])
def test_memory_terms_count_the_constants_params_stores(l, k):
    source, target, ql = split(32, l, k)
    sk = ShenoyKumaresanConstants.build(source, target, ql)
    cr = kawamura_consts(source, target, rho=16)
    mr = MixedRadixConstants.build(source, target)
    assert memory_terms("sk_folded", l, k) == sum(sk.term_counts.values())
    assert memory_terms("cox_rower", l, k) == len(cr.Q_hat_inv) + l * k + len(cr.minus_Q_mod_p)
    assert memory_terms("mrc_iterative", l, k) == (
        sum(x is not None for row in mr.q_inv for x in row) + l * k + len(mr.Q_mod_p))


@pytest.mark.parametrize("l, tp", [(1, 1), (7, 32), (17, 64)])
def test_arithmetic_units_match_table_4_5(l, tp):
    assert arithmetic_units("sk_pipelined", l, tp) == {"MM": 5 * tp, "MA": 4 * tp, "A": 0}
    assert arithmetic_units("sk_folded", l, tp) == {"MM": 3 * tp, "MA": 4 * tp, "A": 0}
    assert arithmetic_units("cox_rower", l) == {"MM": l, "MA": 2 * l, "A": 1}
    tri = (l + 1) * l // 2
    assert arithmetic_units("mrc_pipelined", l) == {"MM": tri + 1, "MA": tri, "A": 0}
    assert arithmetic_units("mrc_iterative", l) == {"MM": l, "MA": l, "A": 0}


@pytest.mark.parametrize("function", [iterations_sk_pipelined, iterations_sk_folded])
@pytest.mark.parametrize("n, l, tp, name", [(1000, 4, 8, "n"), (1024, 0, 8, "l"),
                                            (1024, 4, 12, "tp"), (64, 4, 128, "tp")])
def test_sk_iterations_reject_bad_parameters(function, n, l, tp, name):
    with pytest.raises(ValueError, match=name):
        function(n, l, tp)


@pytest.mark.parametrize("function", [iterations_cox_rower, iterations_mrc_pipelined,
                                      iterations_mrc_iterative])
@pytest.mark.parametrize("n, l, name", [(96, 4, "n"), (1024, 0, "l")])
def test_iterations_reject_bad_parameters(function, n, l, name):
    with pytest.raises(ValueError, match=name):
        function(n, l)


def test_unknown_architecture_is_rejected():
    with pytest.raises(ValueError, match="arch"):
        arithmetic_units("systolic", 4, 8)


def test_sk_arithmetic_units_need_a_power_of_two_tp():
    with pytest.raises(ValueError, match="tp"):
        arithmetic_units("sk_folded", 4, 24)


class _Counted(int):
    """A constant that counts the products it takes part in."""

    products = 0

    def __mul__(self, other):
        _Counted.products += 1
        return int(self) * int(other)

    __rmul__ = __mul__


def _counted(value):
    return tuple(map(_counted, value)) if isinstance(value, tuple) else _Counted(value)


@pytest.mark.parametrize("l,k", [(1, 1), (2, 5), (4, 4), (7, 3)])
def test_modular_products_count_the_models_multiplications(l, k):
    """Every product of the two algorithms has a constant operand, so counting the constants'
    products counts the algorithm's."""
    primes = ntt_primes(32, 4096, l + k + 1)
    source, target, red = primes[:l], primes[l:l + k], primes[-1]
    residues = [random.Random(l * k).randrange(q) for q in source]
    for method, consts, run in (
            ("fast", FastBaseConversionConstants.build(source, target),
             lambda c: fast_base_conversion(residues, c)),
            ("shenoy-kumaresan", ShenoyKumaresanConstants.build(source, target, red),
             lambda c: shenoy_kumaresan(residues, 0, c))):
        counted = dataclasses.replace(consts, **{
            f.name: _counted(getattr(consts, f.name)) for f in dataclasses.fields(consts)
            if f.name.startswith("Q_")})
        _Counted.products = 0
        assert run(counted) == run(consts)
        assert _Counted.products == modular_products(method, l, k)


def test_modular_products_refuses_an_unknown_method():
    with pytest.raises(ValueError, match="method must be"):
        modular_products("kawamura", 2, 2)
