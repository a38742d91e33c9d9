"""fhe_hw.params: moduli, roots, bounds, prime bases and precomputed constants."""

from fractions import Fraction
from math import gcd, prod

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from fhe_hw import params as P

TABLE2 = {  # [Cao14] Table 2: p, m, k, b
    "fermat32": (2**32 + 1, 33, 64, 8),
    "fermat64": (2**64 + 1, 65, 128, 24),
    "solinas64": (2**64 - 2**32 + 1, 64, 128, 28),
    "general32": (2**32 - 2**20 + 1, 32, 64, 12),
}


def order(w, p):
    """Multiplicative order of w modulo p, by brute force over the divisors of a power of 2·3."""
    n = 1
    x = w % p
    while x != 1:
        x = x * w % p
        n += 1
        assert n <= 1 << 12
    return n


@pytest.mark.parametrize("name", TABLE2)
def test_named_moduli_match_table2(name):
    p, m, k, b = TABLE2[name]
    mod = P.get_modulus(name)
    assert (mod.value, mod.bits, mod.table_k, mod.table_b) == (p, m, k, b)
    assert P.get_modulus(p) is mod and P.get_modulus(str(p)) is mod and P.get_modulus(hex(p)) is mod


@pytest.mark.parametrize("name", TABLE2)
def test_root_of_unity_has_exact_order_k(name):
    p, _, k, _ = TABLE2[name]
    w = P.get_modulus(name).root_of_unity(k)
    assert order(w, p) == k
    assert gcd(pow(w, k // 2, p) - 1, p) == 1  # principal: the inverse transform exists


def test_special_moduli_use_shift_twiddles():
    assert P.get_modulus("fermat32").root_of_unity(64) == 2
    assert P.get_modulus("fermat64").root_of_unity(128) == 2
    assert P.get_modulus("fermat32").root_of_unity(16) == 2**4


def test_solinas64_shift_roots_of_design_section_4():
    p = TABLE2["solinas64"][0]
    assert order(8, p) == 64
    assert order(4096, p) == 16
    assert order(2, p) == 192
    assert order((2**25 - 2**73) % p, p) == 128


def test_prime_roots_come_from_the_paper_base():
    p = TABLE2["general32"][0]
    assert P.get_modulus("general32").root_of_unity(64) == pow(17, (p - 1) // 64, p)
    q = TABLE2["solinas64"][0]
    assert P.get_modulus("solinas64").root_of_unity(128) == pow(7, (q - 1) // 128, q)


@pytest.mark.parametrize("name", TABLE2)
def test_ntt_params_inverses(name):
    p, _, k, _ = TABLE2[name]
    t = P.ntt_params(name, k)
    assert t.omega * t.omega_inv % p == 1
    assert t.k_inv * k % p == 1


def test_negacyclic_psi_is_a_square_root_of_omega_with_psi_k_minus_one():
    for name, k in (("solinas64", 128), ("general32", 64), ("fermat32", 32)):
        t = P.ntt_params(name, k, negacyclic=True)
        p = t.p
        assert t.psi * t.psi % p == t.omega
        assert pow(t.psi, k, p) == p - 1


def test_composite_modulus_root_is_crt_combined_when_no_shift_root_exists():
    w = P.get_modulus("fermat32").root_of_unity(128)   # 2 has order 64 only
    assert pow(w, 128, 2**32 + 1) == 1 and gcd(pow(w, 64, 2**32 + 1) - 1, 2**32 + 1) == 1


def test_plain_integer_prime_modulus():
    q = 998244353  # 119 * 2^23 + 1
    w = P.get_modulus(q).root_of_unity(1 << 10)
    assert order(w, q) == 1 << 10


@pytest.mark.parametrize("name", TABLE2)
def test_b_bound_holds_for_table2_and_fails_one_above_the_largest(name):
    p, _, k, b = TABLE2[name]
    assert P.b_bound_holds(p, k, b)
    largest = P.max_digit_bits(p, k)
    assert k * (2**largest - 1) ** 2 / 2 < p <= k * (2**(largest + 1) - 1) ** 2 / 2
    with pytest.raises(ValueError, match="b must satisfy"):
        P.check_digit_bits(p, k, largest + 1)


def test_b_30_is_too_large_for_solinas64_at_k_128():
    with pytest.raises(ValueError, match="b must satisfy.*b = 30"):
        P.check_digit_bits(P.get_modulus("solinas64"), 128, 30)


def test_k_not_dividing_a_prime_factor_minus_one_is_rejected():
    with pytest.raises(ValueError, match=r"k must divide q - 1.*641"):
        P.ntt_params("fermat32", 256)


def test_k_not_a_power_of_two_is_rejected():
    with pytest.raises(ValueError, match="k must be a power of two"):
        P.ntt_params("solinas64", 96)


def test_negacyclic_needs_2k_dividing_q_minus_one():
    with pytest.raises(ValueError, match="k must satisfy 2k"):
        P.ntt_params(998244353, 1 << 23, negacyclic=True)


def test_composite_modulus_where_a_prime_is_required_is_rejected():
    with pytest.raises(ValueError, match="modulus must be prime.*641"):
        P.get_modulus("fermat32").require_prime()


@pytest.mark.parametrize("bad", [4, 2**32, 1, 0, -7])
def test_even_or_tiny_modulus_is_rejected(bad):
    with pytest.raises(ValueError, match="modulus must be"):
        P.get_modulus(bad)


def test_unknown_modulus_name_is_rejected():
    with pytest.raises(ValueError, match="modulus must be one of"):
        P.get_modulus("mersenne61")


def test_modulus_kind_selects_the_reducer_family():
    assert [P.get_modulus(n).kind for n in TABLE2] == ["special", "special", "solinas", "general"]


@pytest.mark.parametrize("bits,n,count", [(32, 1 << 12, 5), (60, 1 << 16, 18), (64, 1 << 16, 3),
                                          (30, 1 << 10, 4)])
def test_ntt_primes_are_ascending_distinct_ntt_friendly_primes_of_the_width(bits, n, count):
    qs = P.ntt_primes(bits, n, count)
    assert len(qs) == count and qs == sorted(set(qs))
    for q in qs:
        assert sympy.isprime(q) and q % (2 * n) == 1 and q.bit_length() == bits


def test_ntt_primes_exclude_gives_disjoint_bases():
    a = P.ntt_primes(32, 1 << 12, 4)
    b = P.ntt_primes(32, 1 << 12, 4, exclude=a)
    assert not set(a) & set(b)


def test_ntt_primes_rejects_n_not_a_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two"):
        P.ntt_primes(32, 3000, 2)


def test_ntt_primes_reports_exhaustion():
    with pytest.raises(ValueError, match="count"):
        P.ntt_primes(12, 1 << 8, 50)


def test_rns_base_must_be_pairwise_coprime():
    with pytest.raises(ValueError, match="pairwise coprime.*15"):
        P.RNSBase((15, 7, 45))


@given(st.integers(min_value=0))
@settings(max_examples=200, deadline=None)
def test_rns_reconstruction_inverts_residues(a):
    base = P.RNSBase(tuple(P.ntt_primes(32, 1 << 12, 4)))
    a %= base.Q
    assert base.reconstruct(base.residues(a)) == a


def _bases(l=4, k=3, bits=32, n=1 << 12):
    src = P.ntt_primes(bits, n, l)
    tgt = P.ntt_primes(bits, n, k, exclude=src)
    red = P.ntt_primes(bits, n, 1, exclude=src + tgt)[0]
    return src, tgt, red


def test_shenoy_kumaresan_constants_follow_table_3_1():
    src, tgt, red = _bases()
    c = P.ShenoyKumaresanConstants.build(src, tgt, red)
    Q = prod(src)
    for i, q in enumerate(src):
        assert c.Q_hat_inv[i] * (Q // q) % q == 1
        assert c.Q_hat_mod_ql[i] == Q // q % red
        for j, p in enumerate(tgt):
            assert c.Q_hat_mod_p[j][i] == Q // q % p
    assert c.Q_inv_mod_ql * Q % red == 1
    assert c.Q_mod_p == tuple(Q % p for p in tgt)
    assert c.term_counts == {"Q_hat_inv": 4, "Q_hat_mod_p": 12, "Q_hat_mod_ql": 4,
                             "Q_inv_mod_ql": 1, "Q_mod_p": 3}


def test_shenoy_kumaresan_redundant_modulus_must_exceed_l():
    src, tgt, _ = _bases()
    with pytest.raises(ValueError, match="redundant modulus q_l must be greater than l = 4"):
        P.ShenoyKumaresanConstants.build(src, tgt, 3)


def test_source_and_target_must_be_coprime():
    src, _, red = _bases()
    with pytest.raises(ValueError, match="pairwise coprime"):
        P.ShenoyKumaresanConstants.build(src, src[:1], red)


def test_mixed_radix_constants_follow_table_4_3():
    src, tgt, _ = _bases()
    c = P.MixedRadixConstants.build(src, tgt)
    for s in range(len(src)):
        for u in range(s + 1, len(src)):
            assert c.q_inv[s][u] * src[s] % src[u] == 1
        for j, p in enumerate(tgt):
            assert c.q_inv_mod_p[j][s] * src[s] % p == 1


def test_mixed_radix_needs_ascending_source_moduli():
    src, tgt, _ = _bases()
    with pytest.raises(ValueError, match="source moduli must be in ascending order"):
        P.MixedRadixConstants.build(src[::-1], tgt)


def test_kawamura_accepts_primes_close_to_2_pow_r():
    src, tgt, _ = _bases()
    c = P.KawamuraConstants.build(src, tgt, rho=16, delta=Fraction(1, 2))
    assert c.r == 32 and len(src) * (c.epsilon + c.lam) <= c.delta
    assert c.minus_Q_mod_p == tuple(-prod(src) % p for p in tgt)
    assert c.max_input == -(-prod(src) // 2)


def test_kawamura_bound_violated_is_rejected():
    src = P.ntt_primes(32, 1 << 12, 3)
    far = [2**31 + 1 + 2 * i * (1 << 13) for i in range(40)]
    far = [q for q in far if sympy.isprime(q)][:3]    # primes near 2^31: ε_Q ≈ 1/2
    with pytest.raises(ValueError, match="Kawamura error bound violated"):
        P.KawamuraConstants.build(far, src, rho=16, delta=Fraction(1, 2))


def test_kawamura_small_rho_is_rejected():
    src, tgt, _ = _bases()
    with pytest.raises(ValueError, match="Kawamura error bound violated.*rho = 2"):
        P.KawamuraConstants.build(src, tgt, rho=2, delta=Fraction(1, 2))


def test_kawamura_delta_must_be_below_one():
    src, tgt, _ = _bases()
    with pytest.raises(ValueError, match="delta must be in"):
        P.KawamuraConstants.build(src, tgt, rho=16, delta=1)


@pytest.mark.parametrize("name", TABLE2)
def test_barrett_constants_default_to_the_papers_alpha_beta(name):
    p, m, _, _ = TABLE2[name]
    c = P.barrett_constants(name)
    assert (c.alpha, c.beta, c.mu) == (m + 4, -4, 2**(2 * m + 4) // p)


def test_barrett_alpha_must_exceed_m():
    with pytest.raises(ValueError, match="alpha must be greater than m = 32"):
        P.barrett_constants("general32", alpha=32)


def test_barrett_beta_must_be_below_minus_two():
    with pytest.raises(ValueError, match="beta must be less than -2"):
        P.barrett_constants("general32", beta=-2)


def test_montgomery_constants():
    q = P.ntt_primes(32, 1 << 16, 1)[0]
    c = P.montgomery_constants(q, 17)
    assert (c.nu, c.q_high, c.R) == (2, q >> 17, 2**34)
    assert c.R_inv * c.R % q == 1 and c.R2_mod_q == 2**68 % q


def test_montgomery_needs_q_congruent_one_mod_2_pow_word():
    with pytest.raises(ValueError, match="q ≡ 1 \\(mod 2\\^word\\)"):
        P.montgomery_constants("general32", 21)


def test_montgomery_rejects_even_modulus():
    with pytest.raises(ValueError, match="modulus must be odd"):
        P.montgomery_constants(2**32, 8)


def test_require_power_of_two_names_the_parameter():
    with pytest.raises(ValueError, match="N must be a power of two, not 1000"):
        P.require_power_of_two("N", 1000)
    with pytest.raises(TypeError, match="TP must be an integer"):
        P.require_power_of_two("TP", 4.0)


def test_kawamura_delta_is_rounded_up_to_the_rho_bit_grid():
    src, tgt, _ = _bases()
    c = P.KawamuraConstants.build(src, tgt, rho=16, delta=Fraction(1, 3))
    assert c.delta_fixed == -(-(1 << 16) // 3) and c.delta == Fraction(c.delta_fixed, 1 << 16)


def test_kawamura_delta_that_rounds_up_to_one_is_rejected():
    src, tgt, _ = _bases()
    with pytest.raises(ValueError, match="delta must be at most 1 - 2\\^-rho"):
        P.KawamuraConstants.build(src, tgt, rho=20, delta=1 - Fraction(1, 1 << 40))


# --- root conventions and user roots ------------------------------------------------------------

def test_openfhe_root_is_the_least_element_of_exact_order():
    q = 7681                            # 15 * 512 + 1
    for m in (16, 64, 512):
        want = min(x for x in range(2, q) if pow(x, m // 2, q) == q - 1)   # order exactly m
        assert P.smallest_primitive_root(q, m) == P.convention_root(q, m, "openfhe") == want


def test_default_convention_is_the_generator_power_as_before():
    q = P.ntt_primes(60, 256, 1)[0]
    for negacyclic in (False, True):
        t = P.ntt_params(q, 256, negacyclic=negacyclic)
        assert t == P.ntt_params(q, 256, negacyclic=negacyclic, root="generator")
    g = sympy.primitive_root(q)
    assert P.ntt_params(q, 256, negacyclic=True).psi == pow(g, (q - 1) // 512, q)


def test_openfhe_convention_gives_the_smallest_psi_and_omega_its_square():
    q = P.ntt_primes(30, 256, 1)[0]
    t = P.ntt_params(q, 256, negacyclic=True, root="openfhe")
    assert t.psi == P.smallest_primitive_root(q, 512) != P.ntt_params(q, 256, negacyclic=True).psi
    assert t.omega == t.psi ** 2 % q and t.psi * t.psi_inv % q == 1
    assert P.ntt_params(q, 256, root="openfhe").omega == P.smallest_primitive_root(q, 256)


def test_a_given_psi_or_omega_is_used():
    q = P.ntt_primes(30, 64, 1)[0]
    psi = pow(P.ntt_params(q, 64, negacyclic=True).psi, 5, q)
    t = P.ntt_params(q, 64, negacyclic=True, psi=psi)
    assert (t.psi, t.omega) == (psi, psi * psi % q)
    assert P.ntt_params(q, 64, omega=psi * psi % q).omega == psi * psi % q


@pytest.mark.parametrize("kw, message", [
    (dict(negacyclic=True, psi=5), r"psi must be a primitive 128-th root of unity mod q = \d+ "
                                   r"\(an integer in \[1, q\) with psi\^64 ≡ -1\), not 5"),
    (dict(omega=1), r"omega must be a primitive 64-th root of unity mod q"),
    (dict(negacyclic=True, omega=3), "omega is the root of a cyclic transform; this one takes psi"),
    (dict(psi=3), "psi is the root of a negacyclic transform; this one takes omega"),
    (dict(root="openfhe", omega=3), "root must be left out when omega is given"),
    (dict(root="OpenFHE"), "root must be one of generator, openfhe, wang-huang, not 'OpenFHE'"),
    (dict(root="wang-huang"),
     "root wang-huang is \\[Wang13\\]'s family over 2\\^64 - 2\\^32 \\+ 1"),
])
def test_bad_roots_are_refused_naming_the_parameter(kw, message):
    q = P.ntt_primes(30, 64, 1)[0]
    with pytest.raises(ValueError, match=message):
        P.ntt_params(q, 64, **kw)


def test_a_psi_that_is_a_root_of_lower_order_or_out_of_range_is_refused():
    q = P.ntt_primes(30, 64, 1)[0]
    psi = P.ntt_params(q, 64, negacyclic=True).psi
    for bad in (psi * psi % q, psi + q, 0):
        with pytest.raises(ValueError, match="psi must be a primitive 128-th root"):
            P.ntt_params(q, 64, negacyclic=True, psi=bad)
    with pytest.raises(TypeError, match="psi must be an integer"):
        P.ntt_params(q, 64, negacyclic=True, psi=float(psi))


def test_openfhe_convention_needs_a_prime():
    with pytest.raises(ValueError, match="root openfhe needs a prime modulus"):
        P.ntt_params("fermat32", 64, root="openfhe")


# --- roots over 2^64 - 2^32 + 1: the shift-only units ------------------------------------------

def test_wang_huang_convention_is_the_papers_shift_roots():
    p = P.SOLINAS64
    assert P.convention_root("solinas64", 64, "wang-huang") == 8
    assert P.convention_root(p, 16, "wang-huang") == 4096
    assert pow(P.convention_root(p, 128, "wang-huang"), 2, p) == 8
    assert P.solinas_ntt_params(4096) == P.ntt_params(p, 4096, root="wang-huang")
    t = P.solinas_ntt_params(4096, negacyclic=True)
    assert pow(t.psi, 4096, p) == p - 1 and pow(t.psi, 2 * 64, p) == 8


def test_every_root_of_order_up_to_64_is_a_shift():
    """The claim that lets the four-step units take any primitive root: the 2^e, e < 192, hold
    every 64th root of unity mod 2^64 - 2^32 + 1 (all of them, counted by brute force)."""
    p = P.SOLINAS64
    shifts = {pow(2, e, p) for e in range(192)}
    roots64 = {x for x in shifts if pow(x, 64, p) == 1}
    assert len(roots64) == 64                       # the whole group of 64th roots of unity
    for order in (2, 4, 8, 16, 32, 64):
        w = P.convention_root(p, 4096, "openfhe")   # any primitive root's power of that order
        assert pow(2, P.shift_exponent(pow(w, 4096 // order, p)), p) == pow(w, 4096 // order, p)
    with pytest.raises(ValueError, match="omega must be a power of two mod 2\\^64 - 2\\^32 \\+ 1"):
        P.shift_exponent(3)


@pytest.mark.parametrize("kw, message", [
    (dict(omega=P.wang_huang_root(2048)), "omega must be a primitive 4096-th root of unity"),
    (dict(omega=P.SOLINAS64 + 8), "omega must be a primitive 4096-th root of unity"),
    (dict(negacyclic=True, psi=P.wang_huang_root(4096)), "psi must be a primitive 8192-th root"),
    (dict(psi=3), "psi is the root of a negacyclic transform"),
    (dict(root="nope"), "root must be one of generator, openfhe, wang-huang"),
])
def test_solinas_roots_are_checked_as_every_unit_checks_them(kw, message):
    with pytest.raises(ValueError, match=message):
        P.solinas_ntt_params(4096, **kw)
