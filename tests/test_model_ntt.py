"""Golden models of the transforms ([Cao14] §3.2 Fig. 2; [Wang13] §III–IV) against the O(n^2) DFT,
schoolbook polynomial products and plain big-integer arithmetic."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fhe_hw.model import ntt as N
from fhe_hw.ntt.schedule import run_four_step_schedule
from fhe_hw.params import MODULI, SOLINAS64, convention_root, ntt_params

P = SOLINAS64
SEED = 20261122
SETTINGS = settings(max_examples=40, deadline=None)
CASES = [(name, k) for name, m in MODULI.items() for k in sorted({2, 8, m.table_k})]


def rng(*key):
    return random.Random(":".join(map(str, (SEED,) + key)))


def inputs(p, k, *key):
    """Edge vectors (zeros, ones, all p-1, a unit impulse at the end) and two random ones."""
    r = rng(p, k, *key)
    return [[0] * k, [1] * k, [p - 1] * k, [0] * (k - 1) + [1],
            *([r.randrange(p) for _ in range(k)] for _ in range(2))]


def schoolbook(a, b, p, sign):
    """a·b mod (x^k - sign, p) by the schoolbook product and x^k = sign."""
    k, c = len(a), [0] * len(a)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            c[(i + j) % k] += x * y * (sign if i + j >= k else 1)
    return [v % p for v in c]


def poly_mod(a, h, zeta, p):
    """a mod (x^h - ζ): coefficient r collects a_(r + qh)·ζ^q."""
    return [sum(a[r + q * h] * pow(zeta, q, p) for q in range(len(a) // h)) % p
            for r in range(h)]


def horner(a, x, p):
    acc = 0
    for v in reversed(a):
        acc = (acc * x + v) % p
    return acc


def brv(i, bits):
    return int(format(i, f"0{bits}b")[::-1], 2) if bits else 0


# --- dft / idft ---------------------------------------------------------------------------------

def test_dft_of_an_impulse_is_all_ones_and_of_all_ones_is_k_at_index_zero():
    prm = ntt_params("general32", 8)
    assert N.dft([1] + [0] * 7, prm.p, prm.omega) == [1] * 8
    assert N.dft([1] * 8, prm.p, prm.omega) == [8] + [0] * 7


@pytest.mark.parametrize("name,k", CASES)
def test_dft_is_polynomial_evaluation_at_powers_of_omega(name, k):
    prm = ntt_params(name, k)
    for a in inputs(prm.p, k, "dft"):
        assert N.dft(a, prm.p, prm.omega) == [
            sum(c * pow(prm.omega, i * j, prm.p) for i, c in enumerate(a)) % prm.p
            for j in range(k)]


@pytest.mark.parametrize("name,k", CASES)
def test_idft_inverts_dft(name, k):
    prm = ntt_params(name, k)
    for a in inputs(prm.p, k, "idft"):
        assert N.idft(N.dft(a, prm.p, prm.omega), prm.p, prm.omega) == a


def test_dft_at_selected_indices_equals_those_entries_of_the_full_dft():
    prm = ntt_params("solinas64", 16)
    a = inputs(prm.p, 16, "sel")[-1]
    assert N.dft(a, prm.p, prm.omega, [3, 0, 15]) == [N.dft(a, prm.p, prm.omega)[j]
                                                     for j in (3, 0, 15)]


# --- [Cao14] Fig. 2 butterfly and the radix-2 transform
# ---------------------------------------------

@SETTINGS
@given(st.sampled_from(list(MODULI)), st.data())
def test_butterfly_is_sum_and_difference_of_twiddled_inputs(name, data):
    p = MODULI[name].value
    u, v, wu, wd = (data.draw(st.one_of(st.sampled_from([0, 1, p - 1]), st.integers(0, p - 1)))
                    for _ in range(4))
    assert N.butterfly(u, v, wu, wd, p) == ((u * wu + v * wd) % p, (u * wu - v * wd) % p)
    assert N.butterfly(u, v, None, wd, p) == ((u + v * wd) % p, (u - v * wd) % p)


def test_bit_reverse_is_an_involution_and_reverses_bits():
    assert [N.bit_reverse(i, 3) for i in range(8)] == [0, 4, 2, 6, 1, 5, 3, 7]
    assert all(N.bit_reverse(N.bit_reverse(i, 7), 7) == i for i in range(128))
    assert N.bit_reversed(list("abcdefgh")) == list("aecgbfdh")


@pytest.mark.parametrize("k", [2, 8, 64])
def test_every_stage_pairs_each_index_exactly_once(k):
    for inverse in (False, True):
        for s in range(k.bit_length() - 1):
            flat = [i for pair in N.stage_pairs(s, k, inverse) for i in pair]
            assert sorted(flat) == list(range(k))


@pytest.mark.parametrize("name,k", CASES)
def test_forward_radix2_gives_the_dft_in_bit_reversed_order(name, k):
    prm = ntt_params(name, k)
    for a in inputs(prm.p, k, "fwd"):
        assert N.ntt_radix2(a, prm) == N.bit_reversed(N.dft(a, prm.p, prm.omega))


@pytest.mark.parametrize("name,k", CASES)
def test_forward_negacyclic_gives_evaluations_at_odd_powers_of_psi_bit_reversed(name, k):
    prm = ntt_params(name, k, negacyclic=True)
    for a in inputs(prm.p, k, "nfwd"):
        expected = [horner(a, pow(prm.psi, 2 * j + 1, prm.p), prm.p) for j in range(k)]
        assert N.ntt_radix2(a, prm, negacyclic=True) == N.bit_reversed(expected)


@pytest.mark.parametrize("name,k", CASES)
@pytest.mark.parametrize("negacyclic", [False, True])
def test_inverse_radix2_undoes_the_forward_transform(name, k, negacyclic):
    prm = ntt_params(name, k, negacyclic=negacyclic)
    for a in inputs(prm.p, k, "inv", negacyclic):
        A = N.ntt_radix2(a, prm, negacyclic=negacyclic)
        assert N.ntt_radix2(A, prm, inverse=True, negacyclic=negacyclic) == a


@pytest.mark.parametrize("name", list(MODULI))
@pytest.mark.parametrize("negacyclic", [False, True])
def test_forward_stage_s_leaves_each_block_reduced_modulo_its_factor(name, negacyclic):
    """After stages 0..s block i of h = k/2^(s+1) holds a mod (x^h - ζ_i), ζ_i = ω^(brv(i)·h)
    (cyclic) or ψ^((2·brv(i)+1)·h) (negacyclic)."""
    k = MODULI[name].table_k
    prm = ntt_params(name, k, negacyclic=negacyclic)
    a = inputs(prm.p, k, "stage")[-1]
    x = a
    for s in range(prm.log_k):
        x = N.stage(x, s, prm, negacyclic=negacyclic)
        h = k >> (s + 1)
        for i in range(1 << (s + 1)):
            r = brv(i, s + 1)
            zeta = pow(prm.psi, (2 * r + 1) * h, prm.p) if negacyclic else \
                pow(prm.omega, r * h, prm.p)
            assert x[i * h:(i + 1) * h] == poly_mod(a, h, zeta, prm.p), (s, i)


@pytest.mark.parametrize("name", list(MODULI))
def test_inverse_stage_s_leaves_each_block_the_transform_of_its_bit_reversed_inputs(name):
    """After inverse stages 0..s block b of m = 2^(s+1) holds the m-point DFT with root ω^(-k/m)
    of y[b·m + brv(j)], scaled by k^-1 after the last stage."""
    k = MODULI[name].table_k
    prm = ntt_params(name, k)
    y = inputs(prm.p, k, "istage")[-1]
    x = y
    for s in range(prm.log_k):
        x = N.stage(x, s, prm, inverse=True)
        m = 2 << s
        scale = prm.k_inv if s == prm.log_k - 1 else 1
        for b in range(k // m):
            ref = N.dft([y[b * m + brv(j, s + 1)] for j in range(m)], prm.p,
                        pow(prm.omega_inv, k // m, prm.p))
            assert x[b * m:(b + 1) * m] == [v * scale % prm.p for v in ref], (s, b)


def test_only_the_last_cyclic_inverse_stage_multiplies_x_up_by_k_inverse():
    prm = ntt_params("general32", 64)
    for s in range(prm.log_k):
        assert all(wu is None for wu, _ in N.stage_twiddles(s, prm))
        inv = N.stage_twiddles(s, prm, inverse=True)
        assert all(wu is None for wu, _ in inv) == (s < prm.log_k - 1)
    last = N.stage_twiddles(prm.log_k - 1, prm, inverse=True)
    assert all(wu == prm.k_inv for wu, _ in last)
    # ω̂^-1 = (k·ω^j)^-1 for butterfly j ([Cao14] §3.2)
    assert [wd * 64 * pow(prm.omega, j, prm.p) % prm.p for j, (_, wd) in enumerate(last)] \
        == [1] * 32


def test_negacyclic_inverse_has_no_up_multiplier_and_post_multiplies_by_k_inv_psi_inv():
    prm = ntt_params("solinas64", 16, negacyclic=True)
    assert all(wu is None for s in range(4)
               for wu, _ in N.stage_twiddles(s, prm, inverse=True, negacyclic=True))
    assert [t * 16 * pow(prm.psi, i, prm.p) % prm.p
            for i, t in enumerate(N.negacyclic_post_twiddles(prm))] == [1] * 16


@pytest.mark.parametrize("name,k", CASES)
def test_gentleman_sande_inverse_equals_the_post_twisted_one_and_unscaled_k_times_it(name, k):
    prm = ntt_params(name, k, negacyclic=True)
    spectrum = [random.Random(f"gs:{name}:{k}").randrange(prm.p) for _ in range(k)]
    want = N.ntt_radix2(spectrum, prm, inverse=True, negacyclic=True)
    assert N.negacyclic_inverse_gs(spectrum, prm) == want
    assert N.negacyclic_inverse_gs(spectrum, prm, scaled=False) == [v * k % prm.p for v in want]


def test_gentleman_sande_table_is_psi_inverse_at_bit_reversed_exponents():
    prm = ntt_params("solinas64", 16, negacyclic=True)
    table, p = N.gs_table(prm), prm.p
    assert [pow(prm.psi, N.bit_reverse(a, 4), p) * w % p for a, w in enumerate(table)] \
        == [1, prm.k_inv] + [1] * 14
    assert N.gs_table(prm, scaled=False)[1] * pow(prm.psi, 8, p) % p == 1
    # Only the last stage multiplies the sum, by k^-1.
    assert [{wu for wu, _ in N.gs_stage_twiddles(s, prm)} for s in range(4)] == \
        [{None}] * 3 + [{prm.k_inv}]


@st.composite
def poly_pairs(draw):
    name = draw(st.sampled_from(list(MODULI)))
    m = MODULI[name]
    k = draw(st.sampled_from([2, 4, 8, 16, m.table_k]))
    coeff = st.one_of(st.sampled_from([0, 1, m.value - 1]), st.integers(0, m.value - 1))
    a, b = (draw(st.lists(coeff, min_size=k, max_size=k)) for _ in range(2))
    return a, b, m.value


@SETTINGS
@given(poly_pairs())
def test_cyclic_product_equals_schoolbook_mod_x_k_minus_one(abp):
    a, b, p = abp
    assert N.poly_mul_cyclic(a, b, p) == schoolbook(a, b, p, 1)


@SETTINGS
@given(poly_pairs())
def test_negacyclic_product_equals_schoolbook_mod_x_k_plus_one(abp):
    a, b, p = abp
    assert N.poly_mul_negacyclic(a, b, p) == schoolbook(a, b, p, -1)


# --- 002: roots over p = 2^64 - 2^32 + 1 --------------------------------------------------------

def test_two_has_order_192_with_two_to_the_96_equal_to_minus_one():
    assert pow(2, 192, P) == 1 and pow(2, 96, P) == P - 1 and pow(2, 64, P) != 1


def test_wang_huang_roots_are_8_4096_and_the_square_root_2_25_minus_2_73():
    r128 = ((1 << 25) - (1 << 73)) % P
    assert N.wang_huang_root(64) == 8 and N.wang_huang_root(16) == 4096
    assert N.wang_huang_root(128) == r128
    assert r128 * r128 % P == 8 and pow(r128, 64, P) == P - 1


def test_wang_huang_roots_form_one_primitive_family():
    for e in range(1, 33):
        w = N.wang_huang_root(1 << e)
        assert pow(w, 1 << (e - 1), P) == P - 1, e
        if e < 32:
            assert pow(N.wang_huang_root(2 << e), 2, P) == w, e
    assert pow(N.wang_huang_root(4096), 64, P) == 8
    assert pow(N.wang_huang_root(65536), 4096, P) == 4096


# --- [Wang13] §IV-A/B: carry-save shift-only units
# ---------------------------------------------------

WORD = st.one_of(st.sampled_from([0, 1, P - 1, P, 2**64 - 1]), st.integers(0, 2**64 - 1))
WIDE = st.one_of(st.sampled_from([0, 2**192 - 1, 2**191]), st.integers(0, 2**192 - 1))


@settings(max_examples=300, deadline=None)
@given(WIDE, WIDE, WIDE)
def test_csa_keeps_192_bits_and_the_sum_modulo_2_192_minus_1(a, b, c):
    ps, sc = N.csa(a, b, c)
    assert 0 <= ps < 2**192 and 0 <= sc < 2**192
    assert (ps + sc - a - b - c) % (2**192 - 1) == 0


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from([0, P - 1, P, 2**192 - 1, 2**193 - 2, 2**200]),
                 st.integers(0, 2**200)))
def test_normalise_returns_the_residue_mod_p(v):
    assert N.normalise(v) == v % P


@pytest.mark.parametrize("n,root", [(64, 8), (16, 4096)])
def test_shift_units_equal_the_dft_with_root_8_and_4096(n, root):
    unit = N.shift_ntt64 if n == 64 else N.shift_ntt16
    r = rng("shift", n)
    for x in ([0] * n, [2**64 - 1] * n, [P - 1] * n, [1] + [0] * (n - 1),
              [r.randrange(2**64) for _ in range(n)]):
        assert unit(x) == N.dft([v % P for v in x], P, root)


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32, 64])
def test_shift_unit_inverse_undoes_the_forward_transform(n):
    x = [rng("ishift", n).randrange(P) for _ in range(n)]
    assert N.shift_ntt(N.shift_ntt(x), inverse=True) == x


@settings(max_examples=15, deadline=None)
@given(st.lists(WORD, min_size=64, max_size=64), st.booleans())
def test_carry_save_pair_normalises_to_the_shift_unit_output(x, inverse):
    pairs = N.shift_ntt_carry_save(x, inverse)
    assert all(0 <= c.ps < 2**192 and 0 <= c.sc < 2**192 for c in pairs)
    assert [N.normalise(c.ps + c.sc) for c in pairs] == N.shift_ntt64(x, inverse)


def test_carry_save_pair_of_one_sample_is_the_rotated_sample_and_no_carry():
    x = [2**64 - 1] + [0] * 15
    assert N.shift_ntt_carry_save(x) == [N.CarrySave(2**64 - 1, 0)] * 16


# --- [Wang13] §IV-C: four-step 4096 and 65536
# --------------------------------------------------------

@pytest.fixture(scope="module")
def x4096():
    r = rng("4096")
    return [r.randrange(2**64) for _ in range(4096)]


def test_ntt4096_equals_radix2_transform_with_the_same_root(x4096):
    prm = N.wang_huang_params(4096)
    assert N.ntt4096(x4096) == N.bit_reversed(N.ntt_radix2([v % P for v in x4096], prm))


def test_ntt4096_equals_the_dft_at_sampled_indices(x4096):
    idx = rng("4096i").sample(range(4096), 6) + [0, 4095]
    X = N.ntt4096(x4096)
    assert [X[j] for j in idx] == N.dft([v % P for v in x4096], P, N.wang_huang_root(4096), idx)


def test_ntt4096_inverse_undoes_the_forward_transform(x4096):
    assert N.ntt4096(N.ntt4096(x4096), inverse=True) == [v % P for v in x4096]


def test_ntt4096_trace_holds_the_radix64_columns_and_their_twiddled_values(x4096):
    t = N.ntt4096_steps(x4096)
    w = N.wang_huang_root(4096)
    for a in (0, 1, 63):
        assert t.inner[a] == N.dft([v % P for v in x4096[a::64]], P, 8)
        assert t.twiddled[a] == [y * pow(w, a * k2, P) % P for k2, y in enumerate(t.inner[a])]


def _openfhe_root(order):
    """OpenFHE's rule, the least primitive ``order``-th root, found apart from the convention
    code: the least odd power of the Wang–Huang root (the odd powers are all the primitive
    roots)."""
    w = N.wang_huang_root(order)
    return min(pow(w, j, P) for j in range(1, order, 2))


def test_ntt4096_with_openfhes_root_is_the_dft_at_that_root(x4096):
    w = _openfhe_root(4096)
    assert w == convention_root(P, 4096, "openfhe") != N.wang_huang_root(4096)
    x = [v % P for v in x4096]
    X = N.ntt4096(x4096, omega=w)
    idx = rng("4096o").sample(range(4096), 6) + [0, 4095]
    assert [X[j] for j in idx] == N.dft(x, P, w, idx)
    assert X == N.bit_reversed(N.ntt_radix2(x, ntt_params(P, 4096, omega=w)))
    assert X == run_four_step_schedule(x4096, omega=w)
    assert N.ntt4096(X, inverse=True, omega=w) == x


def test_wang_huang_ntt_takes_a_root_for_the_sizes_past_4096():
    r = rng("8192o")
    x = [r.randrange(P) for _ in range(8192)]
    w = pow(N.wang_huang_root(8192), 3, P)
    X = N.wang_huang_ntt(x, omega=w)
    assert [X[j] for j in (0, 1, 4097, 8191)] == N.dft(x, P, w, (0, 1, 4097, 8191))
    assert X != N.wang_huang_ntt(x)


@pytest.mark.parametrize("n", [16, 64])
def test_shift_ntt_takes_every_primitive_root(n):
    r = rng("shift-roots", n)
    x = [r.randrange(P) for _ in range(n)]
    for j in range(1, n, 2):
        w = pow(N.wang_huang_root(n), j, P)
        assert N.shift_ntt(x, omega=w) == N.dft(x, P, w)
        assert N.shift_ntt(x, True, w) == N.idft(x, P, w)


@pytest.mark.parametrize("call, message", [
    (lambda: N.ntt4096([0] * 4096, omega=N.wang_huang_root(2048)),
     "omega must be a primitive 4096-th root of unity"),
    (lambda: N.ntt4096([0] * 4096, omega=P + N.wang_huang_root(4096)),
     "omega must be a primitive 4096-th root of unity"),
    (lambda: N.shift_ntt([0] * 16, omega=pow(4096, 2, P)),
     "omega must be a primitive 16-th root of unity"),
    (lambda: N.shift_ntt64([0] * 64, omega=0), "omega must be a primitive 64-th root"),
])
def test_the_models_refuse_a_root_that_is_not_primitive(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# [Wang13]'s 65,536 points in the slow suite: the 4096-point tests above make the same checks.
@pytest.fixture(scope="module")
def x65536_and_transform():
    r = rng("65536")
    x = [r.randrange(P) for _ in range(65536)]
    return x, N.ntt65536(x)


@pytest.mark.slow
def test_ntt65536_equals_the_dft_at_sampled_indices(x65536_and_transform):
    x, X = x65536_and_transform
    idx = rng("65536i").sample(range(65536), 3) + [0, 65535]
    assert [X[j] for j in idx] == N.dft(x, P, N.wang_huang_root(65536), idx)


@pytest.mark.slow
def test_ntt65536_equals_radix2_transform_with_the_same_root(x65536_and_transform):
    x, X = x65536_and_transform
    assert X == N.bit_reversed(N.ntt_radix2(x, N.wang_huang_params(65536)))


@pytest.mark.slow
def test_ntt65536_inverse_undoes_the_forward_transform(x65536_and_transform):
    x, X = x65536_and_transform
    assert N.ntt65536(X, inverse=True) == x


# --- bad parameters -----------------------------------------------------------------------------

def test_radix2_rejects_params_that_are_not_ntt_params():
    with pytest.raises(TypeError, match="params must be an NTTParams"):
        N.ntt_radix2([0, 0], 5)


def test_radix2_rejects_input_of_the_wrong_length():
    with pytest.raises(ValueError, match="a must be a list of 8 residues"):
        N.ntt_radix2([0] * 4, ntt_params("general32", 8))


def test_radix2_rejects_coefficients_not_below_p():
    prm = ntt_params("general32", 2)
    with pytest.raises(ValueError, match="a elements must be less than"):
        N.ntt_radix2([0, prm.p], prm)


def test_stage_rejects_s_beyond_the_last_stage():
    with pytest.raises(ValueError, match="s must be less than log2 k = 3"):
        N.stage([0] * 8, 3, ntt_params("general32", 8))


def test_negacyclic_transform_rejects_params_without_psi():
    with pytest.raises(ValueError, match=r"params must come from ntt_params\(\.\.\., negacyclic"):
        N.ntt_radix2([0] * 8, ntt_params("general32", 8), negacyclic=True)


def test_butterfly_rejects_operands_not_below_p():
    with pytest.raises(ValueError, match="operands elements must be less than 17"):
        N.butterfly(17, 0, None, 1, 17)


def test_dft_rejects_a_modulus_below_two():
    with pytest.raises(ValueError, match="p must be at least 2"):
        N.dft([1], 1, 1)


def test_poly_mul_rejects_operands_of_different_lengths():
    with pytest.raises(ValueError, match="b must have the length of a"):
        N.poly_mul_cyclic([1, 2], [1, 2, 3, 4], "general32")


def test_poly_mul_negacyclic_rejects_k_without_a_2k_th_root():
    with pytest.raises(ValueError, match="k must satisfy 2k"):
        N.poly_mul_negacyclic([1] * 128, [1] * 128, "fermat32")


@pytest.mark.parametrize("n", [3, 2**33])
def test_wang_huang_root_rejects_n_that_is_not_a_power_of_two_up_to_2_32(n):
    with pytest.raises(ValueError, match="n must be a power of two of at most 2\\^32"):
        N.wang_huang_root(n)


def test_shift_ntt_rejects_lengths_without_a_shift_only_root():
    with pytest.raises(ValueError, match="x must have a power-of-two length of 2 to 64"):
        N.shift_ntt([0] * 128)


def test_shift_ntt64_rejects_input_of_the_wrong_length():
    with pytest.raises(ValueError, match="x must be a list of 64 residues"):
        N.shift_ntt64([0] * 16)


def test_shift_ntt16_rejects_words_wider_than_64_bits():
    with pytest.raises(ValueError, match="x elements must be less than"):
        N.shift_ntt16([2**64] + [0] * 15)


def test_ntt4096_rejects_input_of_the_wrong_length():
    with pytest.raises(ValueError, match="x must be a list of 4096 residues"):
        N.ntt4096([0] * 64)


def test_normalise_rejects_negative_values():
    with pytest.raises(ValueError, match="v must be at least 0"):
        N.normalise(-1)


@pytest.mark.parametrize("k", [2, 8, 64, 1024])
def test_modular_products_count_the_forward_transforms_multiplications(monkeypatch, k):
    products = []
    butterfly = N._butterfly

    def counting(u, v, w_up, w_down, p):
        products.append(1 + (w_up is not None))
        return butterfly(u, v, w_up, w_down, p)

    monkeypatch.setattr(N, "_butterfly", counting)
    params = ntt_params(SOLINAS64, k)
    a = [random.Random(k).randrange(SOLINAS64) for _ in range(k)]
    assert N.ntt_radix2(a, params) == N.bit_reversed(N.dft(a, SOLINAS64, params.omega))
    assert sum(products) == N.modular_products(k) == k // 2 * (k.bit_length() - 1)
