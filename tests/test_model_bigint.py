"""Golden models of super-size integer arithmetic ([Cao14] Algorithm 1 and eq. 1; [Cao13] §3.1,
§3.4, §4 eqs 9–11, eqs 2 and 12) against plain Python big-integer arithmetic."""

import time

import pytest
from helpers import rng_for
from hypothesis import given, settings
from hypothesis import strategies as st

from fhe_hw.model import bigint as BI
from fhe_hw.params import MODULI, ntt_params

# [Cao14] Table 2: fermat32 k=64 b=8, fermat64 k=128 b=24, solinas64 k=128 b=28, general32 k=64
# b=12.
CONFIGS = list(MODULI)
SETTINGS = settings(max_examples=40, deadline=None)


def block_bits(name):
    m = MODULI[name]
    return m.table_k * m.table_b // 2


def word_at(value, d):
    """A function giving the d-bit word at word address a of value."""
    return lambda a: (value >> (a * d)) & ((1 << d) - 1)


# --- [Cao14] Algorithm 1
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONFIGS)
def test_integer_fft_multiply_equals_product_on_edge_values(name):
    top = block_bits(name)
    ones = (1 << top) - 1
    edges = [0, 1, 2, ones, 1 << (top - 1), ones // 3, (1 << (top // 2)) - 1]
    for x in edges:
        for y in edges:
            assert BI.integer_fft_multiply(x, y, name) == x * y


@SETTINGS
@given(st.sampled_from(CONFIGS), st.data())
def test_integer_fft_multiply_equals_product_for_random_operands(name, data):
    top = block_bits(name)
    x, y = data.draw(sized_integers(top)), data.draw(sized_integers(top))
    assert BI.integer_fft_multiply(x, y, name) == x * y


@pytest.mark.parametrize("name", ["fermat32", "general32"])
def test_integer_fft_steps_follow_algorithm_1(name):
    m, rng = MODULI[name], rng_for("alg1", name)
    k, b, p = m.table_k, m.table_b, m.value
    w = ntt_params(name, k).omega
    x, y = rng.getrandbits(k * b // 2), rng.getrandbits(k * b // 2)
    s = BI.integer_fft_steps(x, y, name)
    xd = [(x >> (i * b)) % 2**b for i in range(k // 2)] + [0] * (k // 2)
    yd = [(y >> (i * b)) % 2**b for i in range(k // 2)] + [0] * (k // 2)
    assert s.x_digits + [0] * (k // 2) == xd and s.y_digits + [0] * (k // 2) == yd
    assert s.X == [sum(v * pow(w, i * j, p) for j, v in enumerate(xd)) % p for i in range(k)]
    assert s.Y == [sum(v * pow(w, i * j, p) for j, v in enumerate(yd)) % p for i in range(k)]
    assert s.Z == [a * c % p for a, c in zip(s.X, s.Y)]
    assert s.c == [sum(xd[j] * yd[i - j] for j in range(i + 1)) for i in range(k)]
    assert s.digits == [(x * y >> (i * b)) % 2**b for i in range(k)]


def test_integer_fft_rejects_an_operand_wider_than_half_the_transform():
    with pytest.raises(ValueError, match="x must be less than 2"):
        BI.integer_fft_multiply(2**block_bits("solinas64"), 1, "solinas64")


def test_integer_fft_rejects_a_negative_operand():
    with pytest.raises(ValueError, match="y must be at least 0"):
        BI.integer_fft_multiply(1, -1, "solinas64")


def test_block_config_rejects_digits_too_wide_for_the_b_bound():
    with pytest.raises(ValueError, match="b must satisfy"):
        BI.block_config("solinas64", 128, 30)


def test_block_config_rejects_k_not_dividing_q_minus_1():
    with pytest.raises(ValueError, match="k must"):
        BI.block_config("fermat32", 256, 4)


@pytest.mark.parametrize("d", [36, 24 * 3, 24 * 128])
def test_block_config_rejects_a_bus_width_not_b_times_a_power_of_two_dividing_k_over_2(d):
    with pytest.raises(ValueError, match="d must be b"):
        BI.block_config("fermat64", 128, 24, d)


def test_block_config_needs_k_and_b_for_an_unregistered_modulus():
    with pytest.raises(ValueError, match="k and b must be given"):
        BI.block_config(257)


def test_block_config_defaults_to_table_2_with_eight_words_per_block():
    cfgs = {n: BI.block_config(n) for n in CONFIGS}
    got = {n: (c.k, c.b, c.d, c.words, c.tree_levels) for n, c in cfgs.items()}
    assert got == {"fermat32": (64, 8, 32, 8, 2), "fermat64": (128, 24, 192, 8, 3),
                   "solinas64": (128, 28, 224, 8, 3), "general32": (64, 12, 48, 8, 2)}


# --- [Cao13] §3.1 / §3.4: block schoolbook multiplication -----------------------------------------

def operand_pairs(name):
    """Lengths around the block size, one operand much longer, zeros and all-ones."""
    B, rng = block_bits(name), rng_for("block", name)
    lengths = [(0, 0), (0, 700), (1, 1), (B, B), (B + 1, B - 1), (2 * B + 5, 3 * B - 7),
               (3000, 40), (40, 3000), (2500, 2500)]
    pairs = [(rng.getrandbits(a) | (a and 1 << (a - 1)), rng.getrandbits(b) | (b and 1 << (b - 1)))
             for a, b in lengths]
    return pairs + [(2**(2 * B) - 1, 2**(3 * B) - 1), (2**1000 - 1, 1)]


@pytest.mark.parametrize("name", CONFIGS)
def test_block_multiply_equals_product_at_many_lengths(name):
    for x, y in operand_pairs(name):
        assert BI.block_multiply(x, y, name) == x * y, (x.bit_length(), y.bit_length())


def sized_integers(max_bits):
    """Integers of a uniformly drawn bit length (plain st.integers favours small values)."""
    return st.integers(0, max_bits).flatmap(lambda n: st.integers(2**n >> 1, 2**n - 1))


@SETTINGS
@given(st.sampled_from(CONFIGS), sized_integers(2500), sized_integers(1200))
def test_block_multiply_equals_product_for_random_operands(name, x, y):
    assert BI.block_multiply(x, y, name) == x * y


@pytest.mark.parametrize("d", [24, 48, 384, 1536])
def test_block_multiply_is_exact_for_every_legal_bus_width(d):
    rng = rng_for("bus", d)
    x, y = rng.getrandbits(5000), rng.getrandbits(3333)
    assert BI.block_multiply(x, y, "fermat64", d=d) == x * y


@pytest.mark.parametrize("name", CONFIGS)
def test_each_write_holds_the_word_of_the_rows_partial_product(name):
    """After row i the RAM holds (x mod 2^((i+1)·kb/2))·y; each word written in row i is final
    for that row."""
    rng = rng_for("rows", name)
    x, y = rng.getrandbits(4 * block_bits(name) - 3), rng.getrandbits(3 * block_bits(name) + 9)
    tr = BI.block_multiply_trace(x, y, name)
    d, B = tr.config.d, tr.config.block_bits
    for step, written in zip(tr.schedule, tr.writes):
        partial = word_at((x % 2**((step.i + 1) * B)) * y, d)
        assert written and all(word == partial(a) for a, word in written), step


@pytest.mark.parametrize("name", CONFIGS)
def test_written_words_fill_the_blocks_the_schedule_names_in_bus_order(name):
    rng = rng_for("order", name)
    tr = BI.block_multiply_trace(rng.getrandbits(2000), rng.getrandbits(3000), name)
    W = tr.config.words
    for step, written in zip(tr.schedule, tr.writes):
        assert [a for a, _ in written] == [n * W + t for n in step.writes for t in range(W)]
        assert all(0 <= v < 2**tr.config.d for _, v in written)


def test_blocks_marked_final_hold_the_product_and_are_never_rewritten():
    rng = rng_for("final")
    x, y = rng.getrandbits(9000), rng.getrandbits(7000)
    tr = BI.block_multiply_trace(x, y, "general32")
    W, product = tr.config.words, word_at(x * y, tr.config.d)
    done = set()
    for step, written in zip(tr.schedule, tr.writes):
        assert not done & {a // W for a, _ in written}
        done |= set(step.final)
        assert all(v == product(a) for a, v in written if a // W in step.final)
    last = tr.schedule[-1]
    assert done == set(range(last.i + last.j + 2))


def test_schedule_runs_j_inside_i_reading_from_the_second_row_on():
    steps = BI.block_schedule(3, 2)
    assert [(s.i, s.j, s.read, s.writes, s.final) for s in steps] == [
        (0, 0, None, (0,), (0,)), (0, 1, None, (1, 2), ()),
        (1, 0, 1, (1,), (1,)), (1, 1, 2, (2, 3), ()),
        (2, 0, 2, (2,), (2,)), (2, 1, 3, (3, 4), (3, 4))]


@pytest.mark.parametrize(("n1", "n2"), [(1, 1), (1, 5), (5, 1), (4, 7)])
def test_schedule_makes_every_product_block_final_exactly_once(n1, n2):
    finals = [n for s in BI.block_schedule(n1, n2) for n in s.final]
    assert sorted(finals) == list(range(n1 + n2))


@pytest.mark.parametrize("arg", ["x_blocks", "y_blocks"])
def test_schedule_rejects_a_block_count_below_one(arg):
    with pytest.raises(ValueError, match=arg):
        BI.block_schedule(**{"x_blocks": 2, "y_blocks": 2, arg: 0})


def test_block_multiply_rejects_a_negative_operand():
    with pytest.raises(ValueError, match="x must be at least 0"):
        BI.block_multiply(-5, 3)


# --- [Cao13] eq. (12)
# -------------------------------------------------------------------------------

def test_cycles_eq12_for_a_hand_worked_solinas_case():
    # kb/2d = 8; prep = 8 + 2·7·8 + 4 + 8 = 132; 3 x 2 blocks: 8·6 + 8·3 = 72.
    assert BI.cycles_eq12(3 * 1792, 2 * 1792 - 5, 128, 28, 224, p_fft=8, p_pw=4, p_ar=8) == 204


@pytest.mark.parametrize("name", CONFIGS)
def test_cycles_eq12_output_part_counts_kb_2d_cycles_per_block_the_schedule_writes(name):
    cfg, B = BI.block_config(name), block_bits(name)
    n1, n2 = 5, 3
    writes = sum(len(s.writes) for s in BI.block_schedule(n1, n2))
    args = (n1 * B, n2 * B, cfg.k, cfg.b, cfg.d)
    zero_prep = BI.cycles_eq12(*args, p_fft=0, p_pw=0, p_ar=0) - cfg.words
    assert zero_prep == cfg.words * writes


@pytest.mark.parametrize(("arg", "value"), [("x_bits", 0), ("k", 48), ("d", 5), ("p_ar", -1)])
def test_cycles_eq12_rejects_bad_parameters(arg, value):
    kwargs = {"x_bits": 100, "y_bits": 100, "k": 64, "b": 8, "d": 32, "p_fft": 8, "p_pw": 4,
              "p_ar": 4, arg: value}
    with pytest.raises(ValueError, match=arg):
        BI.cycles_eq12(**kwargs)


# --- [Cao13] §4: super-size Barrett
# ------------------------------------------------------------------

def random_modulus(bits, key):
    return rng_for("A0", bits, key).getrandbits(bits - 1) | 1 << (bits - 1) | 1


@pytest.mark.parametrize("bits", [2000, 5003, 20000])
def test_supersize_barrett_equals_mod_on_edges_up_to_A0_squared(bits):
    A0 = random_modulus(bits, "edges")
    for x in [0, 1, A0 - 1, A0, A0 + 1, 2 * A0 - 1, A0**2 - 1, 2**(2 * bits) - 1]:
        assert BI.supersize_barrett_reduce(x, A0) == x % A0


@pytest.mark.parametrize("name", CONFIGS)
def test_supersize_barrett_equals_mod_with_every_multiplier(name):
    rng, A0 = rng_for("barrett", name), random_modulus(2100, name)
    cfg = BI.block_config(name)
    for x in [rng.randrange(A0**2) for _ in range(3)] + [A0**2 - 1]:
        assert BI.supersize_barrett_reduce(x, A0, config=cfg) == x % A0


@settings(max_examples=25, deadline=None)
@given(st.integers(300, 6000), st.data())
def test_supersize_barrett_equals_mod_for_random_modulus_and_input(bits, data):
    A0 = data.draw(st.integers(2**(bits - 1), 2**bits - 1))
    x = data.draw(sized_integers(2 * bits))
    assert BI.supersize_barrett_reduce(x, A0) == x % A0


def test_supersize_barrett_covers_a_wider_input_range_when_asked():
    A0 = random_modulus(3000, "wide")
    x = 2**9000 - 1
    assert BI.supersize_barrett_reduce(x, A0, x_bits=9000) == x % A0


@pytest.mark.parametrize(("bits", "x_bits"), [(2000, 4000), (2016, 4100), (5000, 12345)])
def test_supersize_barrett_constants_meet_the_word_alignment_and_dhem_conditions(bits, x_bits):
    c = BI.supersize_barrett_constants(random_modulus(bits, "c"), x_bits, 224)
    assert (c.gamma + c.beta) % 224 == 0 and (c.alpha - c.beta) % 224 == 0
    assert c.beta < -2 and c.alpha >= x_bits - bits + 1
    assert c.mu == 2**(bits + c.alpha) // c.A0
    assert c.x_address * 224 == bits + c.beta and c.sigma_address * 224 == c.alpha - c.beta


def test_supersize_barrett_quotient_estimate_is_exact_or_one_short():
    A0, rng = random_modulus(2500, "q"), rng_for("q")
    c = BI.supersize_barrett_constants(A0, 5000, BI.block_config().d)
    for x in [rng.randrange(2**5000) for _ in range(20)]:
        s = BI.supersize_barrett_steps(x, c)
        assert s.sigma_hat in (x // A0 - 1, x // A0)
        assert s.p2 == s.sigma_hat * A0 and s.y1 == x - s.p2 and s.y2 == s.y1 - A0


def test_supersize_barrett_multiples_of_a0_take_the_final_subtraction():
    """σ̂ truncates below x/A0 whenever μ is inexact, so exact multiples land one short."""
    A0 = random_modulus(2500, "m")
    c = BI.supersize_barrett_constants(A0, 5000, BI.block_config().d)
    for q in [1, 5, 2**5000 // A0]:
        s = BI.supersize_barrett_steps(q * A0, c)
        assert (s.sigma_hat, s.y1, s.y2, s.y) == (q - 1, A0, 0, 0)


def test_supersize_barrett_rejects_an_input_beyond_its_range():
    c = BI.supersize_barrett_constants(random_modulus(1000, "r"), 2000, 224)
    with pytest.raises(ValueError, match="x must be less than 2"):
        BI.supersize_barrett_steps(2**2000, c)


def test_supersize_barrett_rejects_a_modulus_no_wider_than_the_bus():
    with pytest.raises(ValueError, match="A0 must have more than d"):
        BI.supersize_barrett_constants(2**200 + 1, 400, 224)


def test_supersize_barrett_rejects_an_input_range_narrower_than_the_modulus():
    with pytest.raises(ValueError, match="x_bits"):
        BI.supersize_barrett_constants(random_modulus(1000, "n"), 999, 224)


def test_supersize_barrett_rejects_constants_of_the_wrong_type():
    with pytest.raises(TypeError, match="consts"):
        BI.supersize_barrett_steps(5, (1, 2))


def test_supersize_barrett_rejects_a_config_of_the_wrong_type():
    with pytest.raises(TypeError, match="config"):
        BI.supersize_barrett_reduce(5, random_modulus(1000, "t"), config="solinas64")


# --- CMNT ([Cao14] eq. 1) and CNT ([Cao13] eq. 2) encryption
# ----------------------------------------------

def cmnt_reference(M, R, B, A0_list, A1_list, A0):
    theta = len(A0_list)
    return (M + 2 * R + 2 * sum(B[i][j] * A0_list[i] * A1_list[j]
                                for i in range(theta) for j in range(theta))) % A0


@pytest.mark.parametrize("schedule", ["paper", "factored"])
@pytest.mark.parametrize(("name", "key_bits", "count"),
                         [("solinas64", 3000, 3), ("fermat64", 2000, 2), ("general32", 1500, 2)])
def test_cmnt_encrypt_equals_the_direct_formula(schedule, name, key_bits, count):
    inst = BI.random_cmnt_instance("toy", rng_for("cmnt", name, key_bits), key_bits=key_bits,
                                   count=count)
    got = BI.cmnt_encrypt(*inst, schedule=schedule, config=BI.block_config(name))
    assert got == cmnt_reference(*inst)


def test_cmnt_encrypt_with_negative_noise_and_zero_coefficients_reduces_m_plus_2r():
    inst = BI.random_cmnt_instance("small", rng_for("neg"), key_bits=1200, count=2)
    inst = inst._replace(R=-(2**207) + 3, B=[[0, 0], [0, 0]])
    assert BI.cmnt_encrypt(*inst) == (inst.M + 2 * inst.R) % inst.A0


@pytest.mark.slow
def test_cmnt_encrypt_on_the_toy_group_with_the_factored_schedule():
    """[Cao14] Table 1 toy sizes (φ = 160,000, θ = 12) on the Solinas Table 2 multiplier. The paper
    schedule (θ^2 = 144 big products) takes minutes in this model, the factored one seconds."""
    inst = BI.random_cmnt_instance("toy", rng_for("toy"))
    start = time.perf_counter()
    got = BI.cmnt_encrypt(*inst, schedule="factored")
    print(f"toy CMNT, factored schedule: {time.perf_counter() - start:.1f} s")
    assert got == cmnt_reference(*inst)


@pytest.mark.parametrize("name", ["solinas64", "fermat32"])
def test_cnt_encrypt_equals_the_direct_formula(name):
    inst = BI.random_cnt_instance("toy", rng_for("cnt", name), key_bits=2500, count=5)
    want = (inst.M + 2 * inst.R + 2 * sum(b * x for b, x in zip(inst.b_list, inst.x_list))
            ) % inst.x0
    assert BI.cnt_encrypt(*inst, config=BI.block_config(name)) == want


def test_groups_are_the_papers_tables():
    assert [tuple(vars(BI.cmnt_group(g)).values()) for g in ("toy", "small", "medium", "large")] \
        == [(42, 168, 160_000, 12), (52, 208, 860_000, 23), (62, 248, 4_200_000, 44),
            (72, 288, 19_000_000, 88)]
    assert [tuple(vars(BI.cnt_group(g)).values()) for g in ("toy", "small", "medium", "large")] \
        == [(936, 936, 150_000, 158), (1476, 1476, 830_000, 572), (2016, 2016, 4_200_000, 2110),
            (2556, 2556, 19_350_000, 7695)]


def test_cmnt_group_has_rho_four_times_delta():
    assert all(BI.cmnt_group(g).noise_bits == 4 * BI.cmnt_group(g).coeff_bits
               for g in ("toy", "small", "medium", "large"))


def test_random_cmnt_instance_has_the_groups_bit_lengths():
    M, R, B, A0_list, A1_list, A0 = BI.random_cmnt_instance("medium", rng_for("len"),
                                                            key_bits=5000, count=4)
    assert M in (0, 1) and -(2**248) < R < 2**248
    assert len(B) == 4 and all(len(row) == 4 and all(0 <= v < 2**62 for v in row) for row in B)
    assert max(v.bit_length() for row in B for v in row) > 55
    assert all(v.bit_length() == 5000 for v in A0_list + A1_list + [A0]) and A0 % 2 == 1


def test_random_cnt_instance_has_the_groups_bit_lengths():
    M, R, b_list, x_list, x0 = BI.random_cnt_instance(BI.cnt_group("small"), rng_for("cntlen"),
                                                      key_bits=4000, count=6)
    assert M in (0, 1) and -(2**1476) < R < 2**1476
    assert len(b_list) == 6 and all(0 <= v < 2**1476 for v in b_list)
    assert all(v.bit_length() == 4000 for v in x_list + [x0]) and x0 % 2 == 1


def small_cmnt():
    return BI.random_cmnt_instance("toy", rng_for("bad"), key_bits=1000, count=2)


def test_cmnt_encrypt_rejects_an_unknown_schedule():
    with pytest.raises(ValueError, match="schedule"):
        BI.cmnt_encrypt(*small_cmnt(), schedule="karatsuba")


def test_cmnt_encrypt_rejects_a_plaintext_other_than_a_bit():
    with pytest.raises(ValueError, match="M must be 0 or 1"):
        BI.cmnt_encrypt(*small_cmnt()._replace(M=2))


def test_cmnt_encrypt_rejects_noise_with_2r_not_below_a0():
    inst = small_cmnt()
    with pytest.raises(ValueError, match="R must satisfy"):
        BI.cmnt_encrypt(*inst._replace(R=-(inst.A0 // 2 + 1)))


def test_cmnt_encrypt_rejects_b_that_is_not_theta_by_theta():
    with pytest.raises(ValueError, match="B rows must have 2 entries"):
        BI.cmnt_encrypt(*small_cmnt()._replace(B=[[1, 2], [3]]))


def test_cmnt_encrypt_rejects_b_of_the_wrong_type():
    with pytest.raises(TypeError, match="B must be a list"):
        BI.cmnt_encrypt(*small_cmnt()._replace(B=5))


def test_cmnt_encrypt_rejects_key_lists_of_different_lengths():
    inst = small_cmnt()
    with pytest.raises(ValueError, match="A1_list must have 2 entries"):
        BI.cmnt_encrypt(*inst._replace(A1_list=inst.A1_list[:1]))


def test_cnt_encrypt_rejects_a_negative_coefficient():
    inst = BI.random_cnt_instance("toy", rng_for("neg-b"), key_bits=1000, count=2)
    with pytest.raises(ValueError, match="b_list entries must be at least 0"):
        BI.cnt_encrypt(*inst._replace(b_list=[-1, 1]))


def test_group_lookup_rejects_an_unknown_name():
    with pytest.raises(ValueError, match="group must be one of"):
        BI.cmnt_group("huge")


def test_random_instance_rejects_a_key_too_short_for_the_noise():
    with pytest.raises(ValueError, match="key_bits must be at least 170"):
        BI.random_cmnt_instance("toy", rng_for("short"), key_bits=100)
