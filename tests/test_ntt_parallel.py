"""The fully parallel radix-2 NTT ([Cao14] §3.2) against the golden model ntt_radix2."""

import pytest
from helpers import SEED, rng_for, slow_except

from fhe_hw.model.ntt import dft, ntt_radix2, stage_twiddles
from fhe_hw.ntt import ParallelNTT, ParallelNTTPlan
from fhe_hw.ntt.shift import shift_exponents
from fhe_hw.params import MODULI, ntt_params
from fhe_hw.sim.pysim import run_fixed_latency, run_stream
from fhe_hw.units import get_unit

NAMES = list(MODULI)


def vectors(unit, count, *key):
    p, k = unit.modulus, unit.n
    rng = rng_for("parallel", unit.n, unit.modulus, unit.inverse, unit.negacyclic, *key)
    edge = [[0] * k, [p - 1] * k, [1] + [0] * (k - 1), [(1 << (p.bit_length() - 1)) - 1] * k]
    return edge + [[rng.randrange(p) for _ in range(k)] for _ in range(count)]


def check(unit, xs, label, bubbles=0.1):
    got = run_fixed_latency(unit, xs, bubbles=bubbles, seed=SEED)
    for n, (x, have) in enumerate(zip(xs, got)):
        want = ntt_radix2(x, unit.params, unit.inverse, unit.negacyclic)
        bad = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), None)
        assert bad is None, (f"{label}: vector {n} (seed {SEED}), first mismatch at index "
                             f"{bad}: expected {want[bad]}, got {have[bad]}")
    return got


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("negacyclic", [False, True])
def test_small_parallel_ntt_matches_the_model(name, inverse, negacyclic):
    unit = ParallelNTT(8, name, inverse=inverse, negacyclic=negacyclic)
    check(unit, vectors(unit, 8), f"ParallelNTT(8, {name}, inverse={inverse}, "
          f"negacyclic={negacyclic})")


@pytest.mark.parametrize("name", NAMES)
def test_forward_output_is_the_bit_reversed_dft(name):
    unit = ParallelNTT(8, name)
    x = vectors(unit, 1, "dft")[-1]
    got, = run_fixed_latency(unit, [x])
    spectrum = dft(x, unit.modulus, unit.params.omega)
    assert got == [spectrum[int(f"{i:03b}"[::-1], 2)] for i in range(8)]


# The round trip at the special moduli in the fast suite (every modulus's transforms match the
# model in both directions above), at the general ones in the slow suite.
@pytest.mark.parametrize("name", slow_except([(m,) for m in NAMES],
                                             fast=[("fermat32",), ("solinas64",)]))
def test_inverse_undoes_forward(name):
    fwd, inv = ParallelNTT(16, name), ParallelNTT(16, name, inverse=True)
    xs = vectors(fwd, 6, "roundtrip")
    assert run_fixed_latency(inv, run_fixed_latency(fwd, xs)) == xs, f"{name}, seed {SEED}"


# general32's Table 2 size (a 64-point unit with general multipliers) in the slow suite.
@pytest.mark.parametrize("name", ["fermat32", pytest.param("general32", marks=pytest.mark.slow)])
def test_table2_size_forward_matches_the_model(name):
    unit = ParallelNTT(MODULI[name].table_k, name)
    check(unit, vectors(unit, 1)[-2:], f"ParallelNTT(Table 2, {name})", bubbles=0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fermat64", "solinas64"])
def test_table2_size_128_forward_matches_the_model(name):
    unit = ParallelNTT(MODULI[name].table_k, name)
    check(unit, vectors(unit, 1)[-2:], f"ParallelNTT(Table 2, {name})", bubbles=0)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("inverse,negacyclic", [(True, False), (False, True), (True, True)])
def test_table2_size_inverse_and_negacyclic_match_the_model(name, inverse, negacyclic):
    unit = ParallelNTT(MODULI[name].table_k, name, inverse=inverse, negacyclic=negacyclic)
    check(unit, vectors(unit, 1)[-2:], f"ParallelNTT(Table 2, {name}, inverse={inverse}, "
          f"negacyclic={negacyclic})", bubbles=0)


@pytest.mark.parametrize("name", ["fermat32", "fermat64", "solinas64"])
@pytest.mark.parametrize("inverse", [False, True])
def test_table2_cyclic_twiddles_are_shift_only(name, inverse):
    params = ntt_params(name, MODULI[name].table_k)
    for s in range(params.log_k):
        for pair in stage_twiddles(s, params, inverse):
            for w in pair:
                assert w is None or len(shift_exponents(name, w)) <= 2, (name, s, w)


def test_table2_fermat32_unit_has_only_shift_multipliers():
    kinds = ParallelNTT(64, "fermat32", inverse=True).multiplier_kinds
    assert kinds == {"shift": 6 * 32 + 32, "modmul": 0}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fermat64", "solinas64"])
def test_table2_128_point_units_have_only_shift_multipliers(name):
    kinds = ParallelNTT(128, name, inverse=True).multiplier_kinds
    assert kinds == {"shift": 7 * 64 + 64, "modmul": 0}


def test_general_modulus_uses_multipliers():
    assert ParallelNTT(64, "general32").multiplier_kinds == {"shift": 0, "modmul": 192}


def test_modmul_twiddles_give_the_same_transform():
    unit = ParallelNTT(8, "fermat32", multiplier="modmul")
    assert unit.multiplier_kinds["shift"] == 0
    check(unit, vectors(unit, 4, "modmul"), "ParallelNTT(8, fermat32, modmul)")


@pytest.mark.parametrize("name", NAMES)
def test_cycles_equal_the_formula(name):
    unit = ParallelNTT(8, name, inverse=True)
    xs = vectors(unit, 5, "cycles")
    run = run_stream(unit, {"i": xs}, {"o": len(xs)})
    assert run.cycles == unit.cycles(len(xs)) == len(xs) + unit.latency == \
        get_unit("parallel-ntt").cycles({"n": 8, "modulus": name, "inverse": True},
                                        transforms=len(xs))
    assert unit.latency == sum(unit.stage_latencies)


def test_latency_is_stages_times_butterfly_latency():
    assert ParallelNTT(64, "fermat32").stage_latencies == [1 + 2 + 1] * 6
    assert ParallelNTT(8, "solinas64").latency == 3 * (1 + 3 + 1)


def test_parallel_ntt_cycles_formula():
    assert ParallelNTTPlan(8, "solinas64").cycles(10) == 10 + 3 * (1 + 3 + 1)


def test_rejects_n_not_a_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two"):
        ParallelNTT(6, "fermat32")


def test_rejects_n_not_dividing_q_minus_1():
    with pytest.raises(ValueError, match="n must divide q - 1"):
        ParallelNTT(256, "fermat32")


def test_rejects_negacyclic_n_too_large():
    with pytest.raises(ValueError, match="2k \\| q - 1"):
        ParallelNTT(128, "fermat32", negacyclic=True)


def test_rejects_a_non_bool_inverse():
    with pytest.raises(TypeError, match="inverse must be a bool"):
        ParallelNTT(8, "fermat32", inverse="yes")


def test_rejects_an_unknown_multiplier():
    with pytest.raises(ValueError, match="multiplier must be one of auto, shift, modmul"):
        ParallelNTT(8, "fermat32", multiplier="dsp")


def test_rejects_forced_shifts_for_a_general_modulus():
    with pytest.raises(ValueError, match="modulus must be 2\\^\\(m-1\\)\\+1"):
        ParallelNTT(8, "general32", multiplier="shift")


def test_rejects_negative_mult_stages():
    with pytest.raises(ValueError, match="mult_stages must be at least 0"):
        ParallelNTT(8, "general32", mult_stages=-1)


def test_rejects_a_bad_modulus():
    with pytest.raises(ValueError, match="modulus must be odd"):
        ParallelNTT(8, 1 << 32)


@pytest.mark.parametrize("root", [dict(root="openfhe"), dict(psi="third power")])
def test_negacyclic_transform_with_a_chosen_root_evaluates_at_its_powers(root):
    """Slot i of the forward transform holds x(ψ^(2·brev(i)+1)) for the ψ the unit was given
    (the third power of the default one) or picked (the smallest, OpenFHE's), mod 7681."""
    p = 7681                                                # 15 * 2^9 + 1
    default = ntt_params(p, 8, negacyclic=True).psi
    if "psi" in root:
        root = dict(psi=pow(default, 3, p))
    unit = ParallelNTT(8, p, negacyclic=True, **root)
    psi = unit.params.psi
    assert psi != default and pow(psi, 8, p) == p - 1
    if "root" in root:
        assert psi == min(x for x in range(2, p) if pow(x, 8, p) == p - 1)
    x = vectors(unit, 1, "root")[-1]
    got, = run_fixed_latency(unit, [x])
    assert got == [dft(x, p, pow(psi, 2 * int(f"{i:03b}"[::-1], 2) + 1, p), [1])[0]
                   for i in range(8)]
    inverse = ParallelNTT(8, p, negacyclic=True, inverse=True, psi=psi)
    assert run_fixed_latency(inverse, [got]) == [x]
