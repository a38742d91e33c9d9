"""The memory-based streaming NTT (001 §3.2, 002 §IV) against the golden model."""

import pytest
from helpers import SEED, rng_for

from fhe_hw.arith import ModMul
from fhe_hw.model.ntt import ntt4096, ntt65536, ntt_radix2, stage_pairs
from fhe_hw.ntt import StreamingNTT
from fhe_hw.ntt.streaming import (
    FOUR_STEP_PHASES,
    MAX_N,
    MIN_N,
    address_of,
    bank_of,
    crossbar_bank,
    crossbar_position,
    cycles,
    four_step_bank,
    four_step_cycles,
    four_step_output_position,
    four_step_position,
    four_step_schedule,
    four_step_twiddle,
    four_step_unload_position,
    run_four_step_schedule,
    schedule,
    stage_window,
    twiddle_index,
)
from fhe_hw.params import MODULI, SOLINAS64, ntt_params, ntt_primes
from fhe_hw.simulate import run_fixed_latency, run_stream

PRIME60 = ntt_primes(60, 1 << 16, 1)[0]
MODULI_ALL = [*MODULI, PRIME60]
#: (n, P) per modulus: fermat32 has only 64th roots modulo 641 for negacyclic (128 | 640).
SIZES = {"fermat32": (32, 2), "fermat64": (64, 4), "solinas64": (64, 1), "general32": (64, 2),
         PRIME60: (128, 4)}


def transform(unit, x, **kw):
    """Stream x through the engine; return (output coefficients, StreamRun)."""
    beats = [x[i:i + unit.lanes] for i in range(0, unit.n, unit.lanes)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, seed=SEED, **kw)
    return [v for beat in run.outputs["o"] for v in beat], run


def assert_equal(got, want, label):
    bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    assert len(got) == len(want) and bad is None, (
        f"{label}: first mismatch at index {bad} (seed {SEED}): expected "
        f"{want[bad] if bad is not None else None}, got {got[bad] if bad is not None else None}")


def random_poly(p, n, *key):
    rng = rng_for("streaming-ntt", p, n, *key)
    edge = [0, 1, p - 1, p - 2]
    return edge + [rng.randrange(p) for _ in range(n - len(edge))]


# --- bank mapping and schedule ----------------------------------------------------------------

@pytest.mark.parametrize("b", [1, 2, 3, 4])
def test_bank_and_address_are_a_bijection(b):
    n = 1 << 10
    slots = {(bank_of(i, b), address_of(i, b)) for i in range(n)}
    assert len(slots) == n
    assert all(bank < 1 << b and addr < n >> b for bank, addr in slots)


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("n", [16, 64, 256, 1024, 4096])
@pytest.mark.parametrize("P", [1, 2, 4, 8])
def test_every_issue_cycle_reads_each_bank_once(n, P, inverse):
    b = P.bit_length()
    for s, stage in enumerate(schedule(n, P, inverse)):
        for c, pairs in enumerate(stage):
            banks = {bank_of(i, b) for pair in pairs for i in pair}
            assert len(banks) == 2 * P, f"n={n} P={P} stage {s} cycle {c}: conflict {pairs}"


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("n,P", [(16, 8), (64, 2), (256, 4), (2048, 16)])
def test_schedule_does_every_butterfly_of_every_stage_once(n, P, inverse):
    for s, stage in enumerate(schedule(n, P, inverse)):
        done = sorted(pair for pairs in stage for pair in pairs)
        assert done == sorted(stage_pairs(s, n, inverse)), f"stage {s}"


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("n,P", [(16, 8), (256, 4), (1024, 2), (4096, 4)])
def test_butterfly_q_always_meets_its_own_bank_pair(n, P, inverse):
    # What the pair-structured crossbars rely on: in stage s the banks of butterfly q are the
    # two that differ in bank bit u = t mod b and hold q in the other bits.
    b, log_n = P.bit_length(), n.bit_length() - 1
    for s, stage in enumerate(schedule(n, P, inverse)):
        u = stage_window(s, log_n, b, inverse)[0] % b
        for pairs in stage:
            for q, pair in enumerate(pairs):
                assert {bank_of(i, b) for i in pair} == \
                    {crossbar_bank(2 * q, u), crossbar_bank(2 * q + 1, u)}, f"stage {s}"


@pytest.mark.parametrize("b", [1, 2, 3, 4])
def test_crossbar_position_inverts_crossbar_bank(b):
    for u in range(b):
        assert sorted(crossbar_bank(p, u) for p in range(1 << b)) == list(range(1 << b))
        assert all(crossbar_position(crossbar_bank(p, u), u) == p for p in range(1 << b))


def test_schedule_is_conflict_free_at_65536_with_four_butterflies():
    for stage in schedule(MAX_N, 4):
        for pairs in stage:
            assert len({bank_of(i, 3) for pair in pairs for i in pair}) == 8


@pytest.mark.parametrize("lanes,b", [(1, 1), (2, 1), (4, 3), (8, 3), (16, 4)])
def test_load_beats_use_distinct_banks(lanes, b):
    n = 1024
    for start in range(0, n, lanes):
        assert len({bank_of(i, b) for i in range(start, start + lanes)}) == lanes


def test_twiddle_index_is_one_run_of_entries_per_stage():
    for inverse in (False, True):
        used = {twiddle_index(s, up, 8, inverse) for s in range(8)
                for up, _ in stage_pairs(s, 256, inverse)}
        assert used == set(range(1, 256))


# --- transforms against the model ----------------------------------------------------------------

@pytest.mark.parametrize("negacyclic", [False, True], ids=["cyclic", "negacyclic"])
@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
def test_transform_matches_model_bit_exactly(modulus, inverse, negacyclic):
    n, P = SIZES[modulus]
    unit = StreamingNTT(n, modulus, butterflies=P, inverse=inverse, negacyclic=negacyclic)
    x = random_poly(unit.modulus, n, inverse, negacyclic)
    got, _ = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic),
                 f"StreamingNTT({n}, {modulus}, P={P}, inverse={inverse}, neg={negacyclic})")


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
def test_inverse_of_forward_is_identity(modulus):
    n, P = SIZES[modulus]
    x = random_poly(get_p(modulus), n, "roundtrip")
    fwd, _ = transform(StreamingNTT(n, modulus, butterflies=P, negacyclic=True), x)
    back, _ = transform(StreamingNTT(n, modulus, butterflies=P, negacyclic=True, inverse=True),
                        fwd)
    assert_equal(back, x, f"inverse(forward(x)) for {modulus}, n={n}")


def get_p(modulus):
    return ntt_params(modulus, 16).p


@pytest.mark.parametrize("n,P,modulus", [(256, 4, "solinas64"), (64, 1, "general32"),
                                         (128, 2, PRIME60)])
def test_negacyclic_polynomial_product_equals_schoolbook(n, P, modulus):
    fwd = StreamingNTT(n, modulus, butterflies=P, negacyclic=True)
    inv = StreamingNTT(n, modulus, butterflies=P, negacyclic=True, inverse=True)
    p = fwd.modulus
    rng = rng_for("polymul", n, modulus)
    a = [rng.randrange(p) for _ in range(n)]
    c = [rng.randrange(p) for _ in range(n)]
    A, _ = transform(fwd, a)
    C, _ = transform(StreamingNTT(n, modulus, butterflies=P, negacyclic=True), c)
    mul = ModMul(modulus)
    prod = run_fixed_latency(mul, [{"a": x, "b": mul.premultiply(y)} for x, y in zip(A, C)])
    got, _ = transform(inv, prod)
    want = [0] * n
    for i, x in enumerate(a):
        for j, y in enumerate(c):
            k, sign = (i + j, 1) if i + j < n else (i + j - n, -1)
            want[k] = (want[k] + sign * x * y) % p
    assert_equal(got, want, f"a·b mod x^{n}+1 over {modulus}")


# --- cycles and stream behaviour -----------------------------------------------------------------

@pytest.mark.parametrize("n,P,lanes,negacyclic,inverse", [
    (16, 1, None, False, False), (16, 8, None, False, True), (64, 2, 1, True, True),
    (128, 4, 2, False, True), (256, 2, None, True, False), (256, 8, 16, True, True)])
def test_simulated_cycles_equal_cycles(n, P, lanes, negacyclic, inverse):
    unit = StreamingNTT(n, "solinas64", butterflies=P, lanes=lanes, negacyclic=negacyclic,
                        inverse=inverse)
    x = random_poly(unit.modulus, n, "cycles")
    got, run = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), "cycles run")
    assert run.cycles == unit.cycles()


@pytest.mark.parametrize("inverse,negacyclic", [(False, True), (True, True), (True, False)])
def test_tiled_engine_matches_model_in_the_same_cycles(inverse, negacyclic):
    kw = dict(butterflies=4, inverse=inverse, negacyclic=negacyclic)
    unit = StreamingNTT(64, "solinas64", tiled=True, **kw)
    assert unit.cycles() == StreamingNTT(64, "solinas64", **kw).cycles()
    x = random_poly(unit.modulus, 64, "tiled", inverse, negacyclic)
    got, run = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), "tiled engine")
    assert run.cycles == unit.cycles()


def test_cycles_formula_for_65536():
    # 2·n/lanes + log2 n·(n/2P + latency + 2) + 3 + post
    assert cycles(65536, 4, butterfly_latency=9) == 2 * 8192 + 16 * (8192 + 11) + 3


@pytest.mark.parametrize("inverse,negacyclic", [(False, False), (True, True)])
def test_random_valid_and_ready_give_the_same_result(inverse, negacyclic):
    n, P = 64, 2
    unit = StreamingNTT(n, "general32", butterflies=P, lanes=2, inverse=inverse,
                        negacyclic=negacyclic)
    x = random_poly(unit.modulus, n, "backpressure")
    want = ntt_radix2(x, unit.params, inverse, negacyclic)
    for prob in (0.3, 0.7):
        got, _ = transform(unit, x, valid_prob=prob, ready_prob=1 - prob / 2)
        assert_equal(got, want, f"valid_prob={prob}")


def test_back_to_back_transforms_stream_through():
    n = 32
    unit = StreamingNTT(n, "solinas64", butterflies=2)
    xs = [random_poly(unit.modulus, n, "b2b", k) for k in range(3)]
    beats = [x[i:i + 4] for x in xs for i in range(0, n, 4)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, valid_prob=0.8, ready_prob=0.5,
                     seed=SEED)
    flat = [v for beat in run.outputs["o"] for v in beat]
    for k, x in enumerate(xs):
        assert_equal(flat[k * n:(k + 1) * n], ntt_radix2(x, unit.params), f"transform {k}")


def test_properties_report_the_parameters():
    unit = StreamingNTT(64, "general32", butterflies=2, lanes=2, negacyclic=True, inverse=True)
    assert (unit.n, unit.butterflies, unit.lanes, unit.negacyclic, unit.inverse) == \
        (64, 2, 2, True, True)
    assert unit.modulus == MODULI["general32"].value
    assert unit.post_latency > 0 and StreamingNTT(64).post_latency == 0


# --- bad parameters ------------------------------------------------------------------------------

def test_rejects_n_not_a_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two, not 48"):
        StreamingNTT(48)


def test_rejects_n_below_range():
    with pytest.raises(ValueError, match=f"n must be between {MIN_N} and {MAX_N}, not 8"):
        StreamingNTT(8)


def test_rejects_n_above_range():
    with pytest.raises(ValueError, match="n must be between 16 and 65536, not 131072"):
        StreamingNTT(1 << 17)


def test_rejects_n_not_an_integer():
    with pytest.raises(TypeError, match="n must be an integer"):
        StreamingNTT(64.0)


def test_rejects_butterflies_not_a_power_of_two():
    with pytest.raises(ValueError, match="butterflies must be a power of two, not 3"):
        StreamingNTT(64, butterflies=3)


def test_rejects_more_butterflies_than_n_over_two():
    with pytest.raises(ValueError, match="butterflies must be at most n/2 = 8, not 16"):
        StreamingNTT(16, butterflies=16)


def test_rejects_lanes_not_a_power_of_two():
    with pytest.raises(ValueError, match="lanes must be a power of two, not 3"):
        StreamingNTT(64, butterflies=2, lanes=3)


def test_rejects_more_lanes_than_banks():
    with pytest.raises(ValueError, match="lanes must be at most 2·butterflies = 4"):
        StreamingNTT(64, butterflies=2, lanes=8)


def test_rejects_modulus_without_the_root():
    with pytest.raises(ValueError, match="primitive 256-th root of unity for n = 256"):
        StreamingNTT(256, "fermat32")


def test_rejects_negacyclic_modulus_without_the_2n_root():
    with pytest.raises(ValueError, match="primitive 256-th root of unity for n = 128 "
                                         r"\(negacyclic\)"):
        StreamingNTT(128, "fermat32", negacyclic=True)


def test_rejects_non_bool_inverse():
    with pytest.raises(TypeError, match="inverse must be a bool"):
        StreamingNTT(64, inverse=1)


def test_rejects_non_bool_tiled():
    with pytest.raises(TypeError, match="tiled must be a bool"):
        StreamingNTT(64, tiled="yes")
    with pytest.raises(TypeError, match="tiled must be a bool"):
        StreamingNTT(4096, four_step=True, tiled=None)


# --- four-step plan (002 §IV-C) ------------------------------------------------------------------

def _groups_of_8(seq):
    return [seq[j:j + 8] for j in range(0, len(seq), 8)]


@pytest.mark.parametrize("n", [4096, 65536])
def test_four_step_plan_accesses_eight_distinct_banks(n):
    accesses = _groups_of_8(list(range(n)))                           # load
    accesses += _groups_of_8([four_step_output_position(k, n) for k in range(n)])  # unload
    for phase in four_step_schedule(n):
        for _, positions, _ in phase:
            accesses += _groups_of_8(positions)
    for group in accesses:
        assert len({four_step_bank(i, n) for i in group}) == 8, group


@pytest.mark.parametrize("inverse", [False, True])
def test_four_step_plan_computes_ntt4096(inverse):
    x = random_poly(SOLINAS64, 4096, "four-step", inverse)
    assert_equal(run_four_step_schedule(x, inverse), ntt4096(x, inverse), "four-step 4096")


@pytest.mark.slow
@pytest.mark.parametrize("inverse", [False, True])
def test_four_step_plan_computes_ntt65536(inverse):
    x = random_poly(SOLINAS64, 65536, "four-step", inverse)
    assert_equal(run_four_step_schedule(x, inverse), ntt65536(x, inverse), "four-step 65536")


def test_four_step_address_formulas_follow_the_plan():
    for n in (4096, 65536):
        for ph, phase in enumerate(four_step_schedule(n)):
            T, B, points = FOUR_STEP_PHASES[n][ph]
            assert len(phase) == T
            for t in range(0, T, 7):
                pts, positions, exponents = phase[t]
                assert pts == points
                for c in range(B):
                    for lane in range(8):
                        assert positions[8 * c + lane] == four_step_position(n, ph, t, c, lane)
                        if exponents is not None:
                            assert exponents[8 * c + lane] == \
                                four_step_twiddle(n, ph, t, c, lane)[1]
        for k in range(0, n, 5):
            assert four_step_output_position(k, n) == four_step_unload_position(n, k >> 3, k & 7)


def _verilator_or_skip():
    import shutil

    if shutil.which("verilator") is None:
        pytest.skip("verilator is not installed (apt-get install verilator)")


@pytest.mark.slow
@pytest.mark.parametrize("inverse", [False, True])
def test_four_step_engine_equals_ntt4096_in_verilator(inverse):
    """The four-step datapath (ModMul twiddle stage between ShiftNTT(64, 8) phases, in-place
    write-back) against the model, with the exact cycle count; then with random valid/ready.
    Verilator: pysim is too slow for two 64-point shift units (about 10 min to build here)."""
    from fhe_hw.cosim import build

    _verilator_or_skip()
    unit = StreamingNTT(4096, four_step=True, inverse=inverse)
    x = random_poly(SOLINAS64, 4096, "four-step-rtl", inverse)
    beats = [x[i:i + 8] for i in range(0, 4096, 8)]
    model = build(unit, "ntt", opt="-O1")
    want = ntt4096(x, inverse)
    run = model.run({"i": beats}, {"o": len(beats)})
    assert_equal([v for b in run.outputs["o"] for v in b], want, f"four-step inverse={inverse}")
    assert run.cycles == unit.cycles() == four_step_cycles(4096, ModMul("solinas64").latency)
    run = model.run({"i": beats}, {"o": len(beats)}, valid_prob=0.7, ready_prob=0.6)
    assert_equal([v for b in run.outputs["o"] for v in b], want, "four-step with back-pressure")


def test_four_step_cycles_formula():
    assert four_step_cycles(4096, 6) == 1024 + 2 * (512 + 6 + 8 + 9) + 3


def test_four_step_rejects_another_modulus():
    with pytest.raises(ValueError, match="modulus must be solinas64"):
        StreamingNTT(4096, "general32", four_step=True)


def test_four_step_rejects_another_size():
    with pytest.raises(ValueError, match="n must be 4096 or 65536 for the four-step mode"):
        StreamingNTT(1024, four_step=True)


def test_four_step_rejects_negacyclic():
    with pytest.raises(ValueError, match="negacyclic must be False in the four-step mode"):
        StreamingNTT(4096, negacyclic=True, four_step=True)
