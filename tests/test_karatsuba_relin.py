"""KaratsubaRelinearizer (fhe_hw.karatsuba.relin, [Mig16] §II-C): accumulated word products in
pysim against schoolbook sums and, through the host split, fhe_hw.model.karatsuba.relinearize."""

import pytest
from helpers import SEED, rng_for

from fhe_hw.karatsuba import KaratsubaRelinearizer, KaratsubaRelinearizerPlan
from fhe_hw.karatsuba.host import Pysim, relinearize_split
from fhe_hw.model.karatsuba import relinearize, schoolbook
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit


def random_groups(unit, count, key):
    rng = rng_for("relin", *key)
    return [([[rng.getrandbits(unit.word_bits) for _ in range(unit.size)]
              for _ in range(unit.words)],
             [[rng.getrandbits(unit.coeff_bits) for _ in range(unit.size)]
              for _ in range(unit.words)]) for _ in range(count)]


def expected(group):
    words, keys = group
    return [sum(col) for col in zip(*(schoolbook(w, k) for w, k in zip(words, keys)))]


def simulate(unit, groups, **kw):
    run = run_stream(unit, {"i": unit.input_beats(groups)}, {"o": unit.size * len(groups)},
                     seed=SEED, **kw)
    return run, unit.products(run.outputs["o"])


@pytest.mark.parametrize("r", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_group_sum_equals_the_sum_of_products(r):
    unit = KaratsubaRelinearizer(r, 3, coeff_bits=10, word_bits=4, digit_bits=5)
    groups = random_groups(unit, 2, ("sum", r))
    run, got = simulate(unit, groups)
    for n, group in enumerate(groups):
        assert got[n] == expected(group), f"group {n} (seed {SEED})"
    assert run.cycles == unit.cycles(2) == get_unit("karatsuba-relin").cycles(
        {"recursions": r, "words": 3, "coeff_bits": 10, "word_bits": 4, "digit_bits": 5},
        groups=2)


def test_random_handshakes_do_not_disturb_the_accumulator():
    """Bubble periods between the words of a group must leave the partial sum intact."""
    unit = KaratsubaRelinearizer(2, 4, coeff_bits=9, word_bits=3, digit_bits=4)
    groups = random_groups(unit, 3, ("handshake",))
    _, got = simulate(unit, groups, valid_prob=0.4, ready_prob=0.5)
    assert got == [expected(g) for g in groups]


def test_single_word_is_a_plain_product():
    unit = KaratsubaRelinearizer(1, 1, coeff_bits=8, word_bits=8, digit_bits=6)
    groups = random_groups(unit, 2, ("single",))
    _, got = simulate(unit, groups)
    assert got == [expected(g) for g in groups]


def test_host_split_matches_the_model_in_pysim():
    """WordDecomp, one software recursion, Karatsuba-2 in pysim with accumulation, software
    post-computation and reduction modulo (x^n + 1, q)."""
    q, w, n = 4093, 4, 37
    rng = rng_for("relin-host")
    c = [rng.randrange(q) for _ in range(n)]
    gamma = [[rng.randrange(q) for _ in range(n)] for _ in range(3)]
    got = relinearize_split(c, gamma, w, q, n, hw_recursions=2, total_recursions=3,
                            digit_bits=9, digits=None, backend=Pysim())
    assert got == relinearize(c, gamma, w, q, n, 3)


def test_unpipelined_relinearizer_sums_and_counts():
    unit = KaratsubaRelinearizer(2, 2, coeff_bits=10, word_bits=4, digit_bits=5,
                                 pipelined=False)
    groups = random_groups(unit, 2, ("unpipelined",))
    run, got = simulate(unit, groups)
    for n, group in enumerate(groups):
        assert got[n] == expected(group), f"group {n} (seed {SEED})"
    assert run.cycles == unit.cycles(2) == KaratsubaRelinearizerPlan(
        2, 2, coeff_bits=10, word_bits=4, digit_bits=5, pipelined=False).cycles(groups=2)
    assert unit.latency + 4 + 5 * 3 + 2 == KaratsubaRelinearizerPlan(
        2, 2, coeff_bits=10, word_bits=4, digit_bits=5).latency


def test_rejects_a_pipelined_flag_that_is_not_a_bool():
    with pytest.raises(TypeError, match="pipelined must be a bool"):
        KaratsubaRelinearizer(1, 2, pipelined="no")


def test_rejects_zero_words():
    with pytest.raises(ValueError, match="words"):
        KaratsubaRelinearizer(3, 0)


def test_rejects_words_wider_than_the_carrier():
    with pytest.raises(ValueError, match="carrier"):
        KaratsubaRelinearizer(3, 5, coeff_bits=20, word_bits=30, digit_bits=8, digits=4)


def test_rejects_a_group_with_the_wrong_word_count():
    unit = KaratsubaRelinearizer(1, 2, coeff_bits=8, word_bits=4, digit_bits=6)
    with pytest.raises(ValueError, match="words = 2"):
        unit.input_beats([([[0] * 10], [[0] * 10])])


def test_rejects_word_coefficients_out_of_range():
    unit = KaratsubaRelinearizer(1, 1, coeff_bits=8, word_bits=4, digit_bits=6)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*4\)"):
        unit.input_beats([([[16] * 10], [[0] * 10])])
