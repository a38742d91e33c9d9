"""Shift-only arithmetic ([Cao14] §3.2, [Wang13] §III-B, §IV-A/B) against the golden model."""

import pytest
from helpers import SEED, check_unit, rng_for

from fhe_hw.model.ntt import dft, idft, normalise, shift_ntt, wang_huang_root
from fhe_hw.ntt import Butterfly, ConstMul, RingNormaliser, ShiftMul, ShiftNTT
from fhe_hw.ntt.shift import ShiftNTTPlan, shift_exponents, shift_ring
from fhe_hw.params import MODULI, SOLINAS64, convention_root, ntt_params
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit

SHIFT_MODULI = ["fermat32", "fermat64", "solinas64"]
ALL_ONES = (1 << 64) - 1


def p_of(name):
    return MODULI[name].value


# --- constants as sums of powers of two ---------------------------------------------------------

@pytest.mark.parametrize("name", SHIFT_MODULI)
def test_shift_exponents_sum_to_the_constant(name):
    p, rng = p_of(name), rng_for("exponents", name)
    width = shift_ring(name)
    for c in [0, 1, 2, p - 1, p - 2] + [pow(2, rng.randrange(width), p) +
                                        pow(2, rng.randrange(width), p) for _ in range(50)]:
        exps = shift_exponents(name, c)
        assert len(exps) <= 2 and all(0 <= e < width for e in exps)
        assert sum(pow(2, e, p) for e in exps) % p == c % p, f"{name}: constant {c}"


@pytest.mark.parametrize("name", ["fermat32", "fermat64"])
def test_special_modulus_twiddles_are_single_shifts(name):
    params = ntt_params(name, MODULI[name].table_k)
    for j in range(params.k):
        for w in (pow(params.omega, j, params.p), pow(params.omega_inv, j, params.p)):
            assert len(shift_exponents(name, w)) == 1


def test_solinas_128th_roots_are_at_most_two_shifts():
    params = ntt_params("solinas64", 128)
    for j in range(128):
        for w in (pow(params.omega, j, SOLINAS64), pow(params.omega_inv, j, SOLINAS64),
                  params.k_inv * pow(params.omega_inv, j, SOLINAS64)):
            assert len(shift_exponents("solinas64", w)) <= 2


def test_shift_ring_is_none_for_a_general_modulus():
    assert shift_ring("general32") is None
    assert (shift_ring("fermat32"), shift_ring("fermat64"), shift_ring("solinas64")) == \
        (64, 128, 192)


def test_shift_exponents_reject_a_general_modulus():
    with pytest.raises(ValueError, match="modulus must be 2\\^\\(m-1\\)\\+1 or 2\\^64-2\\^32\\+1"):
        shift_exponents("general32", 2)


def test_shift_exponents_reject_a_constant_with_too_many_terms():
    with pytest.raises(ValueError, match="sum of at most 1 powers of two"):
        shift_exponents("solinas64", 3, max_terms=1)
    root_256 = ntt_params("solinas64", 256).omega
    with pytest.raises(ValueError, match="sum of at most 2 powers of two"):
        shift_exponents("solinas64", root_256)


# --- normaliser, shift multiplier, constant multiplier -----------------------------------------

@pytest.mark.parametrize("name", SHIFT_MODULI)
def test_ring_normaliser_gives_the_residue(name):
    p, width = p_of(name), shift_ring(name) + 1
    rng = rng_for("normalise", name)
    ins = [0, 1, p - 1, p, (1 << (width - 1)) - 1, 1 << (width - 1), (1 << width) - 1] + \
        [rng.randrange(1 << width) for _ in range(300)]
    expected = [normalise(v) if name == "solinas64" else v % p for v in ins]
    assert expected == [v % p for v in ins]
    check_unit(RingNormaliser(name, width), ins, expected, label=f"RingNormaliser({name})")


@pytest.mark.parametrize("name", SHIFT_MODULI)
def test_shift_mul_multiplies_by_the_constant(name):
    p, bits = p_of(name), MODULI[name].bits
    rng = rng_for("shiftmul", name)
    width = shift_ring(name)
    for c in (2, pow(2, width // 2 + 5, p), (pow(2, 7, p) + pow(2, width - 3, p)) % p):
        ins = [0, 1, p - 1, (1 << bits) - 1] + [rng.randrange(p) for _ in range(100)]
        check_unit(ShiftMul(name, c), ins, [x * c % p for x in ins],
                   label=f"ShiftMul({name}, {c})")


def test_shift_mul_latency_is_sum_stage_plus_normaliser():
    assert ShiftMul("fermat32", 2).latency == 1 + 2
    assert ShiftMul("solinas64", 8).latency == 1 + 3


@pytest.mark.parametrize("name", [*SHIFT_MODULI, "general32"])
def test_const_mul_multiplies_by_any_constant(name):
    p, rng = p_of(name), rng_for("constmul", name)
    for c in (1, 3, rng.randrange(p)):
        ins = [0, 1, p - 1] + [rng.randrange(p) for _ in range(50)]
        check_unit(ConstMul(name, c), ins, [x * c % p for x in ins],
                   label=f"ConstMul({name}, {c})")


def test_const_mul_picks_shifts_only_where_they_apply():
    assert ConstMul("solinas64", 8).kind == "shift"
    assert ConstMul("solinas64", ntt_params("solinas64", 256).omega).kind == "modmul"
    assert ConstMul("general32", 2).kind == "modmul"
    assert ConstMul("fermat32", 2, multiplier="modmul").kind == "modmul"


def test_const_mul_pads_to_the_requested_latency():
    unit = ConstMul("fermat32", 4, latency=9)
    assert unit.latency == 9
    check_unit(unit, [0, 5, (1 << 32)], [0, 20, (1 << 34) % ((1 << 32) + 1)], label="padded")


def test_const_mul_rejects_a_latency_below_its_own():
    with pytest.raises(ValueError, match="latency must be at least 4"):
        ConstMul("solinas64", 8, latency=3)


def test_const_mul_rejects_forced_shift_for_a_general_modulus():
    with pytest.raises(ValueError, match="modulus must be 2\\^\\(m-1\\)\\+1"):
        ConstMul("general32", 2, multiplier="shift")


def test_const_mul_rejects_an_unknown_multiplier():
    with pytest.raises(ValueError, match="multiplier must be one of auto, shift, modmul"):
        ConstMul("solinas64", 8, multiplier="dsp")


# --- the constant-twiddle (shift-only) butterfly ------------------------------------------------

@pytest.mark.parametrize("name", [*SHIFT_MODULI, "general32"])
def test_constant_twiddle_butterfly_matches_the_definition(name):
    p, rng = p_of(name), rng_for("constbf", name)
    w = ntt_params(name, 8).omega
    unit = Butterfly(name, twiddle=w)
    raw = [(p - 1, p - 1), (0, 0), (1, p - 1)] + \
        [(rng.randrange(p), rng.randrange(p)) for _ in range(200)]
    ins = [{"up": u, "down": d} for u, d in raw]
    expected = [{"up": (u + d * w) % p, "down": (u - d * w) % p} for u, d in raw]
    check_unit(unit, ins, expected, label=f"Butterfly({name}, twiddle={w})")
    assert unit.multiplier_kinds == (("modmul",) if name == "general32" else ("shift",))


def test_constant_twiddle_butterfly_scales_up_in_the_last_inverse_stage():
    p = SOLINAS64
    k_inv, w = pow(128, -1, p), ntt_params("solinas64", 128).omega_inv
    unit = Butterfly("solinas64", twiddle=k_inv * w % p, twiddle_up=k_inv)
    rng = rng_for("constbf-up")
    raw = [(rng.randrange(p), rng.randrange(p)) for _ in range(100)]
    ins = [{"up": u, "down": d} for u, d in raw]
    expected = [{"up": (u * k_inv + d * k_inv * w) % p, "down": (u * k_inv - d * k_inv * w) % p}
                for u, d in raw]
    check_unit(unit, ins, expected, label="Butterfly(solinas64, scale-up)")
    assert unit.multiplier_kinds == ("shift", "shift")


def test_constant_twiddle_butterfly_has_no_twiddle_ports():
    unit = Butterfly("fermat32", twiddle=2)
    assert [name for name, _ in unit.i.payload.shape()] == ["up", "down"]


def test_butterfly_rejects_twiddle_up_without_twiddle():
    with pytest.raises(ValueError, match="twiddle_up needs a constant twiddle"):
        Butterfly("fermat32", twiddle_up=2)


def test_butterfly_rejects_constant_scale_up_without_twiddle_up():
    with pytest.raises(ValueError, match="scale_up with a constant twiddle needs twiddle_up"):
        Butterfly("fermat32", twiddle=2, scale_up=True)


def test_butterfly_rejects_multiplier_choice_for_run_time_twiddles():
    with pytest.raises(ValueError, match="multiplier applies to constant twiddles only"):
        Butterfly("fermat32", multiplier="shift")


def test_butterfly_rejects_a_short_mult_latency():
    with pytest.raises(ValueError, match="mult_latency must be at least 3"):
        Butterfly("fermat32", twiddle=2, mult_latency=2)


# --- ShiftNTT -----------------------------------------------------------------------------------

def edge_and_random(points, key, count):
    rng = rng_for("shiftntt", *key)
    vectors = [[0] * points, [SOLINAS64 - 1] * points, [ALL_ONES] * points,
               [1] + [0] * (points - 1)]
    return vectors + [[rng.randrange(1 << 64) for _ in range(points)] for _ in range(count)]


def beats_of(unit, vectors):
    lanes = unit.lanes
    return [x[b:b + lanes] for x in vectors for b in range(0, unit.n, lanes)]


def run_shift_ntt(unit, vectors, **kw):
    beats = beats_of(unit, vectors)
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, seed=SEED, **kw)
    flat = [v for beat in run.outputs["o"] for v in beat]
    return [flat[t:t + unit.n] for t in range(0, len(flat), unit.n)], run


def check_shift_ntt(unit, vectors, label, **kw):
    got, run = run_shift_ntt(unit, vectors, **kw)
    for n, (x, have) in enumerate(zip(vectors, got)):
        want = shift_ntt(x, unit.inverse, unit.root)
        bad = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), None)
        assert bad is None, (f"{label}: transform {n} (seed {SEED}), first mismatch at output "
                             f"{bad}: expected {want[bad]}, got {have[bad]}")
    return run


# n = 8 in the fast suite (a fifth of the 16-point unit's simulation set-up), 16 in the slow.
@pytest.mark.parametrize("n, root", [(8, 2**24), pytest.param(16, 4096, marks=pytest.mark.slow)])
def test_shift_ntt_matches_the_model_one_transform_per_cycle(n, root):
    unit = ShiftNTT(n)
    assert (unit.lanes, unit.beats, unit.root) == (n, 1, root)
    vectors = edge_and_random(n, (n,), 4)
    run = check_shift_ntt(unit, vectors, f"ShiftNTT({n})")
    assert run.cycles == unit.cycles(len(vectors)) == len(vectors) + 7 == \
        get_unit("shift-ntt").cycles({"n": n}, transforms=len(vectors))


# Forward here, inverse at another root below, in the fast suite; the other two in the slow suite.
@pytest.mark.parametrize("inverse", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_multi_beat_shift_ntt_matches_the_model(inverse):
    unit = ShiftNTT(8, 2, inverse=inverse)
    vectors = edge_and_random(8, (8, 2, inverse), 4)
    run = check_shift_ntt(unit, vectors, f"ShiftNTT(8, 2, inverse={inverse})")
    assert run.cycles == unit.cycles(len(vectors)) == 4 * len(vectors) + 3 + 7 == \
        get_unit("shift-ntt").cycles({"n": 8, "lanes": 2, "inverse": inverse},
                                     transforms=len(vectors))


def test_shift_ntt_survives_random_valid_and_ready():
    unit = ShiftNTT(4, 2)
    check_shift_ntt(unit, edge_and_random(4, ("random",), 6), "ShiftNTT(4, 2) random",
                    valid_prob=0.6, ready_prob=0.5)


def test_shift_ntt_inverse_undoes_forward():
    fwd, inv = ShiftNTT(4, 2), ShiftNTT(4, 2, inverse=True)
    rng = rng_for("roundtrip", 4)
    vectors = [[rng.randrange(SOLINAS64) for _ in range(4)] for _ in range(6)] + \
        [[SOLINAS64 - 1] * 4]
    spectra, _ = run_shift_ntt(fwd, vectors)
    back, _ = run_shift_ntt(inv, spectra)
    assert back == vectors, f"seed {SEED}"


@pytest.mark.slow
@pytest.mark.parametrize("inverse", [False, True])
def test_shift_ntt64_matches_the_model_one_result_every_8_cycles(inverse):
    unit = ShiftNTT(64, inverse=inverse)
    assert (unit.lanes, unit.beats, unit.root) == (8, 8, 8)
    vectors = edge_and_random(64, (64, inverse), 1)
    run = check_shift_ntt(unit, vectors, f"ShiftNTT(64, inverse={inverse})")
    assert run.cycles == unit.cycles(len(vectors)) == 8 * len(vectors) + 7 + 7


@pytest.mark.slow
def test_shift_ntt16_inverse_matches_the_model():
    check_shift_ntt(ShiftNTT(16, inverse=True), edge_and_random(16, (16, "inv"), 4),
                    "ShiftNTT(16, inverse)")


def test_shift_ntt_roots_are_the_wang_huang_family():
    assert wang_huang_root(64) == 8 and wang_huang_root(16) == 4096
    assert ShiftNTT(32, 32).root == pow(2, 6, SOLINAS64)


@pytest.mark.parametrize("inverse", [pytest.param(False, marks=pytest.mark.slow), True])
def test_shift_ntt_with_another_primitive_root_is_the_dft_at_that_root(inverse):
    """ω = 2^(24·3) (an odd power of ω_8 = 2^24): the rotations become 72·i·j bits; the hardware
    equals the model with that root and the O(n^2) (inverse) DFT at it."""
    w = pow(wang_huang_root(8), 3, SOLINAS64)
    unit = ShiftNTT(8, 4, inverse=inverse, omega=w)
    assert unit.root == w != ShiftNTT(8, 4).root
    vectors = edge_and_random(8, ("omega", inverse), 3)
    got, _ = run_shift_ntt(unit, vectors)
    want = [(idft if inverse else dft)([v % SOLINAS64 for v in x], SOLINAS64, w) for x in vectors]
    assert got == want == [shift_ntt(x, inverse, w) for x in vectors], f"seed {SEED}"


def test_shift_ntt_takes_the_root_conventions():
    assert ShiftNTT(8, 8, root="wang-huang").root == ShiftNTT(8, 8).root == 2**24
    assert ShiftNTT(8, 8, root="generator").root == convention_root(SOLINAS64, 8, "generator")
    assert ShiftNTT(64, 8, root="openfhe").root == 8     # OpenFHE's rule agrees at 64


@pytest.mark.parametrize("kw, message", [
    ({"omega": 2**48}, "omega must be a primitive 8-th root of unity mod q"),    # order 4
    ({"omega": 3}, "omega must be a primitive 8-th root of unity mod q"),
    ({"omega": SOLINAS64 + 2**24}, "omega must be a primitive 8-th root of unity mod q"),
    ({"root": "openfhe", "omega": 2**24}, "root must be left out when omega is given"),
    ({"root": "smallest"}, "root must be one of generator, openfhe, wang-huang"),
])
def test_shift_ntt_refuses_a_root_that_is_not_primitive(kw, message):
    with pytest.raises(ValueError, match=message):
        ShiftNTT(8, 8, **kw)
    with pytest.raises(ValueError, match=message):
        get_unit("shift-ntt").latency({"n": 8, **kw})


def test_shift_ntt_cycles_formula():
    assert ShiftNTTPlan(64).cycles() == 8 + 7 + 7
    assert ShiftNTTPlan(64, 8).cycles(transforms=10) == 80 + 7 + 7
    assert ShiftNTTPlan(16).cycles(transforms=10) == 10 + 7


def test_shift_ntt_rejects_sizes_that_are_not_shift_sizes():
    with pytest.raises(ValueError, match="n must be one of 2, 4, 8, 16, 32, 64, not 128"):
        ShiftNTT(128)


def test_shift_ntt_rejects_lanes_not_a_power_of_two():
    with pytest.raises(ValueError, match="lanes must be a power of two"):
        ShiftNTT(64, 3)


def test_shift_ntt_rejects_lanes_above_n():
    with pytest.raises(ValueError, match="lanes must divide n = 16, not 32"):
        ShiftNTT(16, 32)


def test_shift_ntt_rejects_a_non_bool_inverse():
    with pytest.raises(TypeError, match="inverse must be a bool"):
        ShiftNTT(16, inverse=1)


def test_shift_ntt_cycles_rejects_zero_transforms():
    with pytest.raises(ValueError, match="transforms must be"):
        ShiftNTTPlan(16).cycles(transforms=0)
