"""Kawamura Cox-Rower base extension ([Kir25] Alg. 3, §4.1.1) in pysim: bit-exact with the golden
model (Cox accumulator, α bits) and exact CRT for 0 <= A < (1 − δ)·Q, cycles N·(l+1) + a
constant, back-pressure, and the error-bound check."""

from fractions import Fraction

import pytest
from helpers import SEED, kawamura, rng_for

from fhe_hw.model import rns as model
from fhe_hw.params import ntt_primes
from fhe_hw.rns import KawamuraPlan
from fhe_hw.sim.pysim import run_stream

POOL = {bits: ntt_primes(bits, 1 << 12, 8) for bits in (32, 60, 64)}


def bases(bits, l, k):
    """Source: the l largest primes (closest to 2^r, eq. 2.17)."""
    primes = POOL[bits]
    return tuple(primes[-l:]), tuple(primes[:k])


def run(unit, *, key=(), valid_prob=1.0, ready_prob=1.0, values=None):
    rng = rng_for("kawamura", *key)
    top = unit.max_input
    if values is None:
        # edges, values just below the bound (α computed from the Cox unit matters most there)
        values = [0, 1, top - 1, top - 2] + [top - 1 - rng.randrange(top >> 8)
                                             for _ in range(4)]
        values += [rng.randrange(top) for _ in range(unit.n - len(values))]
    beats = [[a % q for q in unit.source] for a in values]
    result = run_stream(unit, {"i": beats}, {"o": len(beats)}, valid_prob=valid_prob,
                        ready_prob=ready_prob, seed=SEED)
    for x, (a, beat, got) in enumerate(zip(values, beats, result.outputs["o"])):
        steps = model.kawamura_steps(beat, unit.constants)
        want = [a % p for p in unit.target]
        assert list(steps.a_p) == want
        assert got == want, (f"first mismatch at coefficient {x} (seed {SEED}, key {key}, "
                             f"A = {a}, α = {steps.alpha}): expected {want}, got {got}")
    return result


@pytest.mark.parametrize("l,k", [(3, 3), (4, 2), (2, 5)])
def test_exact_below_the_bound_and_cycles_follow_table_4_5(l, k):
    unit = kawamura(*bases(32, l, k), 16, 8, Fraction(1, 8))
    result = run(unit, key=(l, k))
    assert result.cycles == unit.cycles() == unit.paper_iterations() + unit.latency - l
    assert result.cycles == kawamura(*bases(32, l, k), 16, 8, Fraction(1, 8),
                                     cls=KawamuraPlan).cycles()
    assert unit.paper_iterations() == 16 * (l + 1)


@pytest.mark.parametrize("deep", [True, False])
def test_deep_rounds_are_the_default_and_only_lengthen_the_fill(deep):
    args = (*bases(32, 3, 3), 16, 8, Fraction(1, 8))
    unit = kawamura(*args, deep=deep)
    assert unit.multiplier_latency > kawamura(*args, deep=False).multiplier_latency if deep \
        else unit.multiplier_latency == kawamura(*args, deep=False).multiplier_latency
    assert run(unit, key=("deep", deep)).cycles == unit.cycles() == \
        kawamura(*args, deep=deep, cls=KawamuraPlan).cycles() == \
        unit.paper_iterations() + unit.latency - 3
    assert kawamura(*args).latency == kawamura(*args, deep=True).latency


def test_deep_must_be_a_bool():
    with pytest.raises(TypeError):
        kawamura(*bases(32, 3, 3), 16, 8, Fraction(1, 8), deep=1, cls=KawamuraPlan)


@pytest.mark.parametrize("bits", [60, 64])
def test_wide_primes(bits):
    unit = kawamura(*bases(bits, 3, 2), 8, 12, Fraction(1, 4))
    assert run(unit, key=(bits,)).cycles == unit.cycles()


def test_random_valid_and_ready_keep_results_exact():
    unit = kawamura(*bases(64, 3, 3), 16, 10, Fraction(1, 8))
    run(unit, key=("vr",), valid_prob=0.5, ready_prob=0.3)


def test_alpha_bits_come_from_the_cox_accumulator():
    """Inputs that make α = 0, 1, 2 (l = 3) all extend exactly."""
    unit = kawamura(*bases(32, 3, 2), 8, 8, Fraction(1, 8))
    Q = unit.constants.source.Q
    values = [0, Q // 2, unit.max_input - 1, Q // 3, 2 * Q // 3, 1, Q // 7, 5 * Q // 7]
    alphas = {model.kawamura_steps([a % q for q in unit.source], unit.constants).alpha
              for a in values}
    assert alphas == {0, 1, 2}
    run(unit, key=("alpha",), values=values)


def test_arithmetic_units_follow_table_4_2():
    unit = kawamura(*bases(32, 4, 4), 8, 8, Fraction(1, 8))
    assert unit.arithmetic_units == {"MM": 4, "MA": 8, "A": 1}


def test_rejects_parameters_outside_the_error_bound():
    with pytest.raises(ValueError, match="Kawamura error bound violated"):
        kawamura(*bases(32, 4, 2), 16, 2, Fraction(1, 8))


def test_rejects_delta_of_one():
    with pytest.raises(ValueError, match="delta must be in \\[0, 1\\)"):
        kawamura(*bases(32, 2, 2), 16, 8, 1)


def test_rejects_non_coprime_bases():
    source, _ = bases(32, 2, 2)
    with pytest.raises(ValueError, match="coprime"):
        kawamura(source, (source[0],), 16, 8, Fraction(1, 8))


def test_rejects_n_not_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two"):
        kawamura(*bases(32, 2, 2), 12, 8, Fraction(1, 8))


def test_rejects_rho_wider_than_the_moduli():
    with pytest.raises(ValueError, match="rho must be at most r = 32 bits, not 33"):
        kawamura(*bases(32, 2, 2), 16, 33, Fraction(1, 8))


def test_rejects_negative_delta():
    with pytest.raises(ValueError, match="delta must be in \\[0, 1\\)"):
        kawamura(*bases(32, 2, 2), 16, 8, Fraction(-1, 8))
