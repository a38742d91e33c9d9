"""Mixed-radix (Garner) base extension ([Kir25] Alg. 4, §4.1.2) in pysim, iterative and pipelined:
golden model and exact CRT for every 0 <= A < Q, cycle counts against [Kir25] Table 4.5,
back-pressure, and the ascending-moduli requirement."""

import pytest
from helpers import SEED, alternating_slow, mixed_radix, rng_for

from fhe_hw.model import rns as model
from fhe_hw.params import RNSBase, ntt_primes
from fhe_hw.rns import MixedRadixPlan
from fhe_hw.sim.pysim import run_stream

POOL = {bits: ntt_primes(bits, 1 << 12, 8) for bits in (32, 60, 64)}


def bases(bits, l, k, *, targets_below=False):
    primes = POOL[bits]
    if targets_below:  # digits must be reduced modulo the smaller targets
        return tuple(primes[k:k + l]), tuple(primes[:k])
    return tuple(primes[:l]), tuple(primes[l:l + k])


def run(unit, *, key=(), valid_prob=1.0, ready_prob=1.0):
    rng = rng_for("mrc", *key)
    Q = RNSBase(unit.source).Q
    values = [0, Q - 1, 1] + [rng.randrange(Q) for _ in range(unit.n - 3)]
    beats = [[a % q for q in unit.source] for a in values]
    result = run_stream(unit, {"i": beats}, {"o": len(beats)}, valid_prob=valid_prob,
                        ready_prob=ready_prob, seed=SEED)
    for x, (a, beat, got) in enumerate(zip(values, beats, result.outputs["o"])):
        want = [a % p for p in unit.target]
        assert list(model.mixed_radix(beat, unit.constants)) == want
        assert got == want, (f"first mismatch at coefficient {x} (seed {SEED}, key {key}, "
                             f"A = {a}): expected {want}, got {got}")
    return result


def test_iterative_cycles_follow_table_4_5():
    unit = mixed_radix(*bases(32, 3, 3), 32, "iterative")
    assert unit.n >= unit.loop_length
    result = run(unit, key=("iter",))
    assert result.cycles == unit.cycles() == unit.paper_iterations() + unit.loop_length + 2
    assert unit.paper_iterations() == model.iterations_mrc_iterative(32, 3)


def test_pipelined_cycles_follow_table_4_5():
    unit = mixed_radix(*bases(32, 3, 2), 32, "pipelined")
    result = run(unit, key=("pipe",))
    assert result.cycles == unit.cycles() == mixed_radix(*bases(32, 3, 2), 32, "pipelined",
                                                         cls=MixedRadixPlan).cycles()
    assert unit.cycles() - unit.paper_iterations() == (3 + 1) * (1 + unit.multiplier_latency) + 2


@pytest.mark.parametrize("deep", [True, False])
@pytest.mark.parametrize("architecture", ["iterative", "pipelined"])
def test_both_multiplier_depths_keep_results_and_cycles(architecture, deep):
    unit = mixed_radix(*bases(32, 3, 2), 32, architecture, deep=deep)
    assert unit.deep is deep
    assert run(unit, key=("deep", architecture, deep)).cycles == unit.cycles() == \
        mixed_radix(*bases(32, 3, 2), 32, architecture, deep=deep, cls=MixedRadixPlan).cycles()


def test_deep_rounds_are_refused_where_the_loop_padding_exceeds_the_register_limit():
    assert mixed_radix(*bases(32, 3, 2), 32, "iterative").deep is True
    # 32-bit primes that are only 1 mod 32: a 5-bit Montgomery word, seven deep rounds; the
    # loop would need 31 multiplier registers to reach a power of two
    small_word = tuple(ntt_primes(32, 16, 5))
    unit = mixed_radix(small_word[:3], small_word[3:], 16, "iterative", deep=False)
    assert unit.deep is False and unit.mult_stages <= 16
    with pytest.raises(ValueError, match="^deep must be False for an iterative loop with a "
                                         "5-bit Montgomery word, not True: .* 31 multiplier "
                                         "registers \\(mult_stages at most 16\\)"):
        mixed_radix(small_word[:3], small_word[3:], 16, "iterative")
    with pytest.raises(TypeError, match="deep"):
        mixed_radix(*bases(32, 3, 2), 32, deep="yes")


def test_iterative_with_fewer_coefficients_than_the_loop():
    unit = mixed_radix(*bases(32, 2, 2), 4, "iterative")
    assert run(unit, key=("short",)).cycles == unit.cycles() == 3 * unit.loop_length + 4 + 2


@pytest.mark.parametrize("l, k, n, mult_stages", [(2, 2, 32, 3), (2, 3, 64, 2), (3, 2, 16, 5)])
def test_iterative_cycles_with_a_loop_length_that_does_not_divide_n(l, k, n, mult_stages):
    """A given mult_stages can make the loop length L no power of two (19, 18, 21 here): the
    last of the ⌈N/L⌉ groups is partly empty, and its results leave after its last trip."""
    unit = mixed_radix(*bases(32, l, k), n, "iterative", mult_stages=mult_stages)
    L = unit.loop_length
    assert L & (L - 1)
    groups = -(-n // L)
    assert run(unit, key=("loop", l, k, n)).cycles == unit.cycles() == \
        (l + 1) * groups * L + n - (groups - 1) * L + 2


# Each engine at one width in turn in the fast suite, at the other in the slow suite.
@pytest.mark.parametrize("architecture, bits", alternating_slow(
    [("iterative",), ("pipelined",)], flags=(60, 64)))
def test_wide_primes_with_targets_below_the_source(bits, architecture):
    unit = mixed_radix(*bases(bits, 3, 2, targets_below=True), 8, architecture)
    assert run(unit, key=(bits, architecture)).cycles == unit.cycles()


@pytest.mark.parametrize("architecture", ["iterative", "pipelined"])
def test_random_valid_and_ready_keep_results_exact(architecture):
    unit = mixed_radix(*bases(64, 3, 3), 16, architecture)
    run(unit, key=("vr", architecture), valid_prob=0.5, ready_prob=0.4)


def test_arithmetic_units_follow_table_4_5_for_one_target():
    assert mixed_radix(*bases(32, 4, 1), 8, "pipelined").arithmetic_units["MM"] == \
        model.arithmetic_units("mrc_pipelined", 4)["MM"]
    assert mixed_radix(*bases(32, 4, 1), 8, "iterative").arithmetic_units["MM"] == \
        model.arithmetic_units("mrc_iterative", 4)["MM"]


def test_iterative_loop_length_is_a_power_of_two():
    unit = mixed_radix(*bases(64, 3, 2), 8, "iterative")
    assert unit.loop_length & (unit.loop_length - 1) == 0


def test_rejects_unordered_source_moduli():
    source, target = bases(32, 3, 2)
    with pytest.raises(ValueError, match="ascending order"):
        mixed_radix(source[::-1], target, 16)


def test_rejects_non_coprime_bases():
    source, _ = bases(32, 3, 2)
    with pytest.raises(ValueError, match="coprime"):
        mixed_radix(source, (source[0],), 16)


def test_rejects_unknown_architecture():
    with pytest.raises(ValueError, match="architecture must be one of"):
        mixed_radix(*bases(32, 2, 2), 16, "folded")


def test_rejects_n_not_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two"):
        mixed_radix(*bases(32, 2, 2), 12)


def test_rejects_even_modulus():
    source, target = bases(32, 2, 1)
    with pytest.raises(ValueError):
        mixed_radix(source, (1 << 31,), 16)
