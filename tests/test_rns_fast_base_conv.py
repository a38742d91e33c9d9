"""Fast base conversion engine ([Kir25] Alg. 1) in pysim: outputs equal the golden model and
|A + α·Q|_{p_j} with 0 <= α < l; cycle counts; back-pressure; validation."""

import pytest
from helpers import SEED, alternating_slow, fbc, rng_for

from fhe_hw.model import rns as model
from fhe_hw.params import RNSBase, ntt_primes
from fhe_hw.rns import FastBaseConversionPlan, polynomial_beats
from fhe_hw.sim.pysim import run_stream

POOL = {bits: ntt_primes(bits, 1 << 12, 6) for bits in (32, 60, 64)}


def bases(bits, l, k):
    return tuple(POOL[bits][:l]), tuple(POOL[bits][l:l + k])


def run(unit, *, key=(), valid_prob=1.0, ready_prob=1.0):
    n, tp = unit.n, unit.lanes
    rng = rng_for("fbc", *key)
    base = RNSBase(unit.source)
    values = [0, base.Q - 1] + [rng.randrange(base.Q) for _ in range(n - 2)]
    polys = [[a % q for a in values] for q in unit.source]
    result = run_stream(unit, {"i": polynomial_beats(polys, tp) * unit.passes},
                        {"o": unit.output_beats}, valid_prob=valid_prob, ready_prob=ready_prob,
                        seed=SEED)
    got = unit.plan.target_polynomials(result.outputs["o"])
    golden = model.extend_polynomial(model.fast_base_conversion, polys, unit.constants)
    for j in range(len(unit.target)):
        bad = [c for c in range(n) if got[j][c] != golden[j][c]]
        assert not bad, (f"p_{j}: first mismatch at coefficient {bad[0]} (seed {SEED}, key "
                         f"{key}): expected {golden[j][bad[0]]}, got {got[j][bad[0]]}")
    return result, values, got


@pytest.mark.parametrize("bits", [32, 60, 64])
def test_outputs_are_a_plus_alpha_q_with_alpha_below_l(bits):
    unit = fbc(*bases(bits, 3, 2), 16, 4)
    _, values, got = run(unit, key=(bits,))
    Q = RNSBase(unit.source).Q
    for j, p in enumerate(unit.target):
        for a, y in zip(values, got[j]):
            assert any((a + alpha * Q) % p == y for alpha in range(unit.error_bound))


# Each engine and shape with one multiplier depth in turn in the fast suite (both depths run),
# with the other in the slow suite.
@pytest.mark.parametrize("architecture, n, tp, deep", alternating_slow(
    [("folded", 64, 1), ("folded", 8, 8), ("pipelined", 64, 1), ("pipelined", 8, 8)]))
def test_simulated_cycles_equal_the_formula(architecture, n, tp, deep):
    unit = fbc(*bases(32, 2, 3), n, tp, architecture, deep=deep)
    assert run(unit, key=(architecture, n, tp, deep))[0].cycles == unit.cycles() == \
        fbc(*bases(32, 2, 3), n, tp, architecture, deep=deep, cls=FastBaseConversionPlan).cycles()


def test_deep_rounds_only_lengthen_each_pass_by_their_extra_registers():
    """The deep multiplier (the default) has more registers than the shallow one; a pass
    cannot hide them, and its two multipliers are in series (a·Q̂_i^-1 mod q_i, then the
    product with Q̂_i mod p_j), so each of the k passes is longer by twice that difference."""
    deep = fbc(*bases(32, 2, 3), 16, 2)
    shallow = fbc(*bases(32, 2, 3), 16, 2, deep=False)
    extra = deep.multiplier_latency - shallow.multiplier_latency
    assert extra > 0
    assert deep.cycles() - shallow.cycles() == 2 * extra * deep.passes


def test_deep_must_be_a_bool():
    with pytest.raises(TypeError, match="deep"):
        fbc(*bases(32, 2, 2), 16, 2, deep=1)
    with pytest.raises(TypeError, match="deep"):
        fbc(*bases(32, 2, 2), 16, 2, deep="yes", cls=FastBaseConversionPlan).cycles()


def test_one_pass_for_all_targets():
    unit = fbc(*bases(32, 2, 3), 32, 2, targets_per_pass=3)
    assert run(unit, key=("t=k",))[0].cycles == unit.cycles() == unit.pass_offset() + 3 * 16
    assert unit.arithmetic_units == {"MM": 4 * 2, "MA": 3 * 2, "A": 0}


def test_targets_side_by_side():
    """``parallel_targets``: a pass's rows of every slot in one beat, N/TP output beats."""
    unit = fbc(*bases(32, 2, 4), 16, 2, targets_per_pass=2, parallel_targets=True)
    assert unit.output_beats == 2 * 8
    assert run(unit, key=("side",))[0].cycles == unit.cycles() == 2 * (unit.pass_offset() + 8)
    run(unit, key=("side vr",), valid_prob=0.5, ready_prob=0.5)


@pytest.mark.parametrize("architecture", ["folded", "pipelined"])
def test_random_valid_and_ready_keep_results_exact(architecture):
    unit = fbc(*bases(60, 2, 2), 16, 2, architecture)
    run(unit, key=("vr", architecture), valid_prob=0.5, ready_prob=0.5)


def test_rejects_non_coprime_bases():
    source, target = bases(32, 2, 2)
    with pytest.raises(ValueError, match="coprime"):
        fbc(source, (source[1],), 16, 2)


def test_rejects_lanes_not_power_of_two():
    with pytest.raises(ValueError, match="lanes must be a power of two, not 6"):
        fbc(*bases(32, 2, 2), 16, 6)


def test_rejects_lanes_above_n():
    with pytest.raises(ValueError, match="lanes must be at most n"):
        fbc(*bases(32, 2, 2), 4, 8)


def test_rejects_n_not_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two"):
        fbc(*bases(32, 2, 2), 24, 2)


def test_rejects_unknown_architecture():
    with pytest.raises(ValueError, match="architecture must be one of"):
        fbc(*bases(32, 2, 2), 16, 2, "systolic")
