"""The RNS polynomial NTT (one engine per tower) against the DCRTPoly model, its plan and its
schedule: simulated cycles equal ``cycles()`` for one polynomial and back to back."""

import pytest
from helpers import rng_for

from fhe_hw.arith.modmul import ModMulPlan
from fhe_hw.flow.synth import OutOfContextPlatform
from fhe_hw.model.dcrt import dcrt_ntt, dcrt_pointwise, dcrt_product, schoolbook_product
from fhe_hw.params import ntt_primes, openfhe_primes
from fhe_hw.poly import RNSPolyNTT, RNSPolyNTTPlan
from fhe_hw.poly.estimate import blocks, memory_bits
from fhe_hw.rns.common import polynomial_beats
from fhe_hw.sim.icarus import require_iverilog, run_from_reset
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit, to_verilog


def random_dcrt(primes, n, *key):
    rng = rng_for("dcrt", n, primes, *key)
    return [[0] + [rng.randrange(q) for _ in range(n - 2)] + [q - 1] for q in primes]


def flat(polys):
    """The towers of each polynomial, one list, tower-major (the streams' order)."""
    return [tower for poly in polys for tower in poly]


def run_polys(unit, polys, **kw):
    """``polys`` (each a list of towers) streamed back to back through ``unit`` in pysim (in
    its plan's stream layout); the outputs regrouped per polynomial and the run."""
    beats = unit.plan.stream_beats(polys)
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, **kw)
    return unit.plan.stream_polynomials(run.outputs["o"]), run


# --- the model ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, towers, bits", [(16, 3, 30), (32, 2, 60), (64, 4, 20)])
def test_model_product_is_the_schoolbook_product_in_every_tower(n, towers, bits):
    primes = openfhe_primes(bits, n, towers)
    a, b = random_dcrt(primes, n, "a"), random_dcrt(primes, n, "b")
    want = schoolbook_product(a, b, primes)
    assert dcrt_product(a, b, primes) == want
    assert dcrt_product(a, dcrt_ntt(b, primes), primes, b_evaluated=True) == want
    assert dcrt_ntt(dcrt_pointwise(dcrt_ntt(a, primes), dcrt_ntt(b, primes), primes), primes,
                    inverse=True) == want


def test_model_inverse_undoes_forward_and_refuses_a_residue_out_of_range():
    primes = openfhe_primes(30, 16, 2)
    a = random_dcrt(primes, 16, "undo")
    assert dcrt_ntt(dcrt_ntt(a, primes), primes, inverse=True) == a
    with pytest.raises(ValueError, match=r"towers\[1\] must hold residues mod"):
        dcrt_ntt([a[0], [primes[1]] * 16], primes)
    with pytest.raises(ValueError, match="one tower per prime"):
        dcrt_ntt(a[:1], primes)


def test_openfhe_primes_are_the_largest_ntt_primes_descending():
    primes = openfhe_primes(30, 4096, 8)
    assert primes == tuple(sorted(ntt_primes(30, 4096, 8), reverse=True))
    assert all(q < 1 << 30 and q % 8192 == 1 for q in primes)


# --- the plan -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, message", [
    ({"limbs": 0}, "limbs must be"),
    ({"prime_bits": 61}, "prime_bits must be"),
    ({"primes": (97, 113)}, r"primes must be 1 mod 2n = 32"),
    ({"primes": (97, 161)}, r"primes\[1\] = 161: modulus must have a primitive 32-th root"),
    ({"primes": (97, 97)}, "primes must be distinct"),
    ({"primes": 97}, "primes must be a sequence"),
    ({"primes": (97, "193")}, "primes must be integers"),
    ({"reducer": "solinas"}, "reducer must be one of"),
    ({"butterflies": 3}, "butterflies must be a power of two"),
    ({"lanes": 8, "butterflies": 2}, "lanes must be at most"),
    ({"prime_bits": 14, "limbs": 64}, "limbs must be at most the primes"),
    ({"prime_n": 8}, "prime_n must be"),
    ({"prime_n": 48}, "prime_n must be a power of two"),
    # n = 16: the banks hold 8 words; 60-bit words are wider than a PDPW16KD's
    ({"prime_bits": 60, "wide_banks": True}, r"wide_banks needs banks .* of at most 36 bits"),
    ({"wide_banks": 1}, "wide_banks must be"),
])
def test_plan_refuses_bad_parameters_naming_them(kw, message):
    with pytest.raises((ValueError, TypeError), match=message):
        RNSPolyNTTPlan(16, **kw)


def test_prime_n_picks_openfhes_primes_of_a_larger_ring_for_montgomery_modmuls():
    plan = RNSPolyNTTPlan(4096, limbs=8, prime_n=1 << 16)
    assert plan.towers == openfhe_primes(30, 1 << 16, 8)
    assert all(q % (1 << 17) == 1 for q in plan.towers)
    assert {e.modulus_resolved.value for e in plan.engines} == set(plan.towers)
    assert RNSPolyNTTPlan(4096, limbs=8).towers == openfhe_primes(30, 4096, 8)


def test_plan_takes_the_users_primes_in_their_order():
    primes = tuple(ntt_primes(20, 16, 3))
    plan = RNSPolyNTTPlan(16, primes=list(primes))
    assert plan.towers == plan.primes == primes
    assert [e.modulus_resolved.value for e in plan.engines] == list(primes)
    assert plan.width == 20 and plan.input_beats == 3 * 16 // 2


# --- the hardware ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n, towers, P, lanes, inverse", [
    (16, 3, 1, None, False), (16, 2, 2, None, True),
    pytest.param(32, 2, 2, 2, False, marks=pytest.mark.slow),
    pytest.param(16, 4, 2, None, True, marks=pytest.mark.slow)])
def test_towers_transform_like_the_model_back_to_back_in_cycles(n, towers, P, lanes, inverse):
    unit = RNSPolyNTT(n, limbs=towers, butterflies=P, lanes=lanes, inverse=inverse)
    polys = [random_dcrt(unit.towers, n, k) for k in range(3)]
    got, run = run_polys(unit, polys)
    assert got == [dcrt_ntt(x, unit.towers, inverse) for x in polys]
    assert run.cycles == unit.cycles(3) == get_unit("rns-poly-ntt").cycles(
        {"n": n, "limbs": towers, "butterflies": P, "lanes": lanes, "inverse": inverse},
        polys=3)
    one, run1 = run_polys(unit, polys[:1])
    assert one == got[:1] and run1.cycles == unit.cycles()


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_random_valid_and_ready_keep_every_word(seed):
    unit = RNSPolyNTT(16, limbs=3, butterflies=2, lanes=2)
    polys = [random_dcrt(unit.towers, 16, "vr", seed, k) for k in range(2)]
    got, _ = run_polys(unit, polys, valid_prob=0.6, ready_prob=0.5, seed=seed)
    assert got == [dcrt_ntt(x, unit.towers) for x in polys]


def test_towers_of_different_widths_share_the_streams():
    primes = (ntt_primes(40, 16, 1)[0], ntt_primes(20, 16, 1)[0])
    unit = RNSPolyNTT(16, primes=primes)
    assert unit.plan.width == 40
    polys = [random_dcrt(primes, 16, "widths", k) for k in range(3)]
    got, run = run_polys(unit, polys)
    assert got == [dcrt_ntt(x, primes) for x in polys]
    assert run.cycles == unit.cycles(3)


def test_one_tower_is_the_streaming_engine():
    unit = RNSPolyNTT(16, limbs=1)
    assert unit.cycles() == unit.plan.engines[0].cycles()


def test_the_input_stream_bounds_the_schedule_when_the_engines_are_faster():
    """With short engine drains and one coefficient per beat, five towers take longer to load
    than an engine takes per transform: one polynomial every L·n/lanes cycles."""
    unit = RNSPolyNTT(16, limbs=5, butterflies=2, lanes=1, read_stages=0, write_stages=0,
                      mult_stages=0)
    assert unit.cycles(3) - unit.cycles(2) == 5 * 16
    polys = [random_dcrt(unit.towers, 16, "bound", k) for k in range(3)]
    got, run = run_polys(unit, polys)
    assert got == [dcrt_ntt(x, unit.towers) for x in polys]
    assert run.cycles == unit.cycles(3)


def test_sky130_estimate_counts_every_engines_butterflies_and_memories():
    forward = RNSPolyNTTPlan(64, limbs=3, butterflies=2)
    inverse = RNSPolyNTTPlan(64, limbs=3, butterflies=2, inverse=True)
    assert [(b[0], b[2]) for b in blocks(forward)] == [("engine-butterfly", 6)]
    assert [(b[0], b[1]["form"], b[2]) for b in blocks(inverse)] == [
        ("engine-butterfly", "gs", 6)]
    for plan in (forward, inverse):
        butterfly = blocks(plan)[0][3]()
        assert butterfly.modulus == plan.towers[0]
        assert butterfly.latency == plan.engines[0].butterfly_latency
        assert butterfly.scale_up == plan.inverse
    bits = sum(q.bit_length() for q in forward.towers) * 64
    # the banks, and the ROM's two read ports in one dual-port copy
    assert memory_bits(forward) == memory_bits(inverse) == 2 * bits
    # four butterflies read through four ports: two copies
    assert memory_bits(RNSPolyNTTPlan(64, limbs=3, butterflies=4)) == 3 * bits


@pytest.mark.parametrize("kw", [
    {"limbs": 3},
    # one beat per tower: the slice takes a whole tower from the stream while its engine works
    {"limbs": 3, "butterflies": 8, "lanes": 16},
    pytest.param({"limbs": 5, "butterflies": 2, "lanes": 1, "read_stages": 0,
                  "write_stages": 0, "mult_stages": 0}, marks=pytest.mark.slow),
    pytest.param({"primes": (ntt_primes(40, 16, 1)[0], ntt_primes(20, 16, 1)[0])},
                 marks=pytest.mark.slow)])
def test_skid_slices_keep_every_word_and_the_cycles(kw):
    unit = RNSPolyNTT(16, skid=True, **kw)
    polys = [random_dcrt(unit.towers, 16, "skid", k) for k in range(3)]
    got, run = run_polys(unit, polys)
    assert got == [dcrt_ntt(x, unit.towers) for x in polys]
    assert run.cycles == unit.cycles(3) == RNSPolyNTT(16, **kw).cycles(3) + 2


def test_skid_slices_under_random_valid_and_ready():
    unit = RNSPolyNTT(16, limbs=3, butterflies=2, lanes=2, skid=True)
    polys = [random_dcrt(unit.towers, 16, "skid-vr", k) for k in range(2)]
    got, _ = run_polys(unit, polys, valid_prob=0.5, ready_prob=0.5, seed=5)
    assert got == [dcrt_ntt(x, unit.towers) for x in polys]


# --- towers side by side --------------------------------------------------------------------------

def test_parallel_towers_put_every_towers_lanes_in_one_beat():
    plan = RNSPolyNTTPlan(16, limbs=3, butterflies=1, parallel_towers=True)
    polys = [random_dcrt(plan.towers, 16, "layout", k) for k in range(2)]
    beats = plan.stream_beats(polys)
    assert plan.beat_lanes == 6 and len(beats) == 2 * 8 == 2 * plan.input_beats
    (t0, t1, t2), second = polys
    assert beats[0] == [t0[0], t0[1], t1[0], t1[1], t2[0], t2[1]]
    assert beats[7] == [t0[14], t0[15], t1[14], t1[15], t2[14], t2[15]]
    assert beats[8] == [second[0][0], second[0][1], second[1][0], second[1][1], second[2][0],
                        second[2][1]]
    assert plan.stream_polynomials(beats) == polys
    tower_major = RNSPolyNTTPlan(16, limbs=3, butterflies=1)
    assert tower_major.beat_lanes == 2 and tower_major.stream_beats(polys) == \
        polynomial_beats(flat(polys), 2)


@pytest.mark.parametrize("kw", [
    {"limbs": 3, "butterflies": 1},
    {"limbs": 2, "butterflies": 2, "inverse": True},
    {"limbs": 3, "butterflies": 2, "lanes": 2, "skid": True},
    pytest.param({"limbs": 4, "butterflies": 1, "lanes": 1, "inverse": True, "skid": True},
                 marks=pytest.mark.slow)])
def test_parallel_towers_transform_like_the_model_in_one_engines_cycles(kw):
    unit = RNSPolyNTT(16, parallel_towers=True, **kw)
    polys = [random_dcrt(unit.towers, 16, "parallel", k) for k in range(3)]
    got, run = run_polys(unit, polys)
    inverse = kw.get("inverse", False)
    assert got == [dcrt_ntt(x, unit.towers, inverse) for x in polys]
    # The engines load at once: one polynomial is one engine's transform (and the slices'
    # two cycles), the next every engine period.
    engine, skid = unit.plan.engines[0], kw.get("skid", False)
    assert unit.cycles() == engine.cycles() + 2 * skid
    assert run.cycles == unit.cycles(3) == unit.cycles() + 2 * engine.period()
    one, run1 = run_polys(unit, polys[:1])
    assert one == got[:1] and run1.cycles == unit.cycles()


@pytest.mark.parametrize("seed, skid", [(3, False), pytest.param(4, True, marks=pytest.mark.slow)])
def test_parallel_towers_under_random_valid_and_ready(seed, skid):
    unit = RNSPolyNTT(16, limbs=3, butterflies=2, lanes=2, parallel_towers=True, skid=skid)
    polys = [random_dcrt(unit.towers, 16, "parallel-vr", seed, k) for k in range(2)]
    got, _ = run_polys(unit, polys, valid_prob=0.5, ready_prob=0.5, seed=seed)
    assert got == [dcrt_ntt(x, unit.towers) for x in polys]


def test_parallel_towers_need_one_engine_timing():
    primes = (ntt_primes(40, 16, 1)[0], ntt_primes(20, 16, 1)[0])
    with pytest.raises(ValueError, match="parallel_towers needs one timing .* 40, 20 bits"):
        RNSPolyNTTPlan(16, primes=primes, parallel_towers=True)


def test_parallel_towers_from_reset_in_icarus(tmp_path):
    """Side by side in Icarus from reset with every register and memory word at x: the
    engines' lockstep holds from reset, two polynomials in cycles(2)."""
    require_iverilog()
    unit = RNSPolyNTT(16, limbs=3, butterflies=1, parallel_towers=True)
    polys = [random_dcrt(unit.towers, 16, "parallel-x", k) for k in range(2)]
    beats = unit.plan.stream_beats(polys)
    run = run_from_reset(unit, "rns-poly-ntt", {"i": beats}, {"o": len(beats)}, tmp_path)
    assert unit.plan.stream_polynomials(run.outputs["o"]) == [dcrt_ntt(x, unit.towers)
                                                              for x in polys]
    assert run.cycles == unit.cycles(2)


def test_sixty_bit_towers_with_tile_registers_from_reset_in_icarus(tmp_path):
    """The 60-bit rows' shape (Karatsuba ModMuls with tile registers, towers side by side,
    skid slices) at n = 16: each ModMul three cycles deeper, the model's words back to back in
    cycles(), under random valid and ready, and in Icarus from reset with registers at x."""
    shape = {"limbs": 2, "prime_bits": 60, "butterflies": 1, "karatsuba": True,
             "parallel_towers": True, "skid": True}
    unit = RNSPolyNTT(16, tile_reg=True, **shape)
    plain = RNSPolyNTTPlan(16, **shape)
    assert unit.plan.engines[0].butterfly_latency == plain.engines[0].butterfly_latency + 3
    # each of a transform's 4 stages drains three cycles later
    assert unit.cycles() == plain.cycles() + 3 * 4
    check_back_to_back_and_from_reset(lambda: RNSPolyNTT(16, tile_reg=True, **shape),
                                      "tile-reg", tmp_path)


def check_back_to_back_and_from_reset(build, key, tmp_path):
    """The unit ``build()`` makes: three polynomials back to back give the model's words in
    cycles(3), two under random valid and ready too, and two in Icarus from reset with every
    register at x, in cycles(2)."""
    unit = build()
    polys = [random_dcrt(unit.towers, 16, key, k) for k in range(3)]
    want = [dcrt_ntt(x, unit.towers) for x in polys]
    got, run = run_polys(unit, polys)
    assert got == want and run.cycles == unit.cycles(3)
    got, _ = run_polys(unit, polys[:2], valid_prob=0.5, ready_prob=0.5, seed=6)
    assert got == want[:2]
    require_iverilog()
    beats = unit.plan.stream_beats(polys[:2])
    run = run_from_reset(build(), "rns-poly-ntt", {"i": beats}, {"o": len(beats)}, tmp_path)
    assert unit.plan.stream_polynomials(run.outputs["o"]) == want[:2]
    assert run.cycles == unit.cycles(2)


def test_thirty_bit_towers_with_fabric_rounds_transform_like_the_model(tmp_path):
    """The 30-bit rows' primes (OpenFHE's for N = 2^16: Montgomery ModMuls) with the rounds in
    the fabric, towers side by side at n = 16: the model's words back to back in cycles(),
    under random valid and ready, and in Icarus from reset with every register at x."""
    shape = {"limbs": 3, "prime_bits": 30, "prime_n": 1 << 16, "butterflies": 2,
             "parallel_towers": True, "skid": True}
    unit = RNSPolyNTT(16, fabric_rounds=True, **shape)
    plain = RNSPolyNTTPlan(16, **shape)
    assert {e.butterfly.reducer for e in plain.engines} == {"montgomery"}
    mod_mul = lambda p: p.engines[0].butterfly.mult_latency_resolved  # noqa: E731
    assert unit.cycles() - plain.cycles() == 4 * (mod_mul(unit.plan) - mod_mul(plain))
    check_back_to_back_and_from_reset(lambda: RNSPolyNTT(16, fabric_rounds=True, **shape),
                                      "fabric", tmp_path)


def test_sixty_bit_towers_with_fabric_rounds_and_karatsuba_transform_like_the_model(tmp_path):
    """OpenFHE's 60-bit primes for N = 2^16 (≡ 1 mod 2^17: Montgomery ModMuls of four rounds)
    with the rounds in the fabric, Karatsuba products and tile registers, two butterflies per
    engine, towers side by side at n = 16: 12 MULT18X18D per ModMul, the model's words back to
    back in cycles(), under random valid and ready, and in Icarus from reset."""
    shape = {"limbs": 2, "prime_bits": 60, "prime_n": 1 << 16, "butterflies": 2,
             "parallel_towers": True, "skid": True, "karatsuba": True, "tile_reg": True}
    unit = RNSPolyNTT(16, fabric_rounds=True, **shape)
    butterfly = unit.plan.engines[0].butterfly
    assert butterfly.reducer == "montgomery"
    mod_mul = ModMulPlan(unit.towers[0], tiled=True, karatsuba=True, tile_reg=True,
                         fabric_rounds=True)
    assert (mod_mul.reducer_plan.constants.nu, mod_mul.multiplier.tile_count) == (4, 12)
    check_back_to_back_and_from_reset(lambda: RNSPolyNTT(16, fabric_rounds=True, **shape),
                                      "fabric60", tmp_path)


def test_spread_handshakes_transform_like_the_model_in_the_slices_cycles(tmp_path):
    """Side by side with the handshakes spread (input slices that capture without valid, a
    gathering output slice with a ready register per engine in place of the engines' output
    slices): the model's words back to back in the cycles() of the unit without it, under
    random valid and ready, and in Icarus from reset with every register at x."""
    shape = {"limbs": 3, "butterflies": 2, "lanes": 2, "parallel_towers": True, "skid": True}
    unit = RNSPolyNTT(16, spread_handshakes=True, **shape)
    assert unit.cycles(3) == RNSPolyNTTPlan(16, **shape).cycles(3)
    check_back_to_back_and_from_reset(lambda: RNSPolyNTT(16, spread_handshakes=True, **shape),
                                      "spread", tmp_path)


@pytest.mark.parametrize("kw", [
    {"limbs": 3, "butterflies": 2, "lanes": 2, "parallel_towers": True, "skid": True,
     "spread_handshakes": True},
    {"limbs": 2, "prime_bits": 60, "prime_n": 1 << 16, "butterflies": 1, "karatsuba": True,
     "fabric_rounds": True, "parallel_towers": True}])
def test_ping_pong_towers_take_one_compute_phase_per_polynomial(kw, tmp_path):
    """Side by side with two sets of banks per engine: one polynomial in a cycle more than the
    unit without them, each next one an engine's compute phase later (its loads and unloads
    on the other set); the model's words back to back, under random valid and ready, and in
    Icarus from reset with every register at x; twice the banks in the sky130 estimate."""
    unit = RNSPolyNTT(16, ping_pong=True, **kw)
    plain = RNSPolyNTTPlan(16, **kw)
    engine = unit.plan.engines[0]
    assert engine.ping_pong and unit.cycles() == plain.cycles() + 1
    assert unit.cycles(3) == unit.cycles() + 2 * engine.compute_cycles() < plain.cycles(3)
    tower_bits = sum(q.bit_length() for q in unit.towers) * 16
    assert memory_bits(unit.plan) == memory_bits(plain) + tower_bits
    check_back_to_back_and_from_reset(lambda: RNSPolyNTT(16, ping_pong=True, **kw),
                                      "ping-pong", tmp_path)


def test_ping_pong_needs_towers_side_by_side():
    with pytest.raises(ValueError, match="ping_pong needs parallel_towers"):
        RNSPolyNTTPlan(16, limbs=2, ping_pong=True)


@pytest.mark.parametrize("kw", [{"parallel_towers": True}, {"skid": True}])
def test_spread_handshakes_need_towers_side_by_side_and_skid_slices(kw):
    with pytest.raises(ValueError, match="spread_handshakes needs parallel_towers and skid"):
        RNSPolyNTTPlan(16, limbs=2, spread_handshakes=True, **kw)


def test_fabric_rounds_need_montgomery_modmuls():
    with pytest.raises(ValueError, match="fabric_rounds applies to the Montgomery reducer only"):
        RNSPolyNTTPlan(16, limbs=2, prime_bits=30, fabric_rounds=True)


def test_wide_banks_put_each_bank_in_one_pdpw16kd_on_the_ecp5():
    """Every engine's 2P banks are PDPW16KDs on an ECP5 (the twiddle ROMs stay DP16KDs), and
    the towers transform as without them (the portable form is the same RAM)."""
    shape = {"limbs": 2, "prime_bits": 30, "prime_n": 1 << 16, "butterflies": 2}
    text = to_verilog(RNSPolyNTT(16, wide_banks=True, **shape), "rns-poly-ntt",
                      platform=OutOfContextPlatform("ecp5"))
    assert text.count("PDPW16KD #(") == 2 * 4
    unit = RNSPolyNTT(16, wide_banks=True, **shape)
    polys = [random_dcrt(unit.towers, 16, "wide", k) for k in range(2)]
    got, run = run_polys(unit, polys)
    assert got == [dcrt_ntt(x, unit.towers) for x in polys] and run.cycles == unit.cycles(2)


# --- fewer engines than towers (engine_count) -----------------------------------------------------

@pytest.mark.parametrize("kw", [
    {"limbs": 3, "engine_count": 1},
    {"limbs": 3, "engine_count": 2, "butterflies": 2},
    {"limbs": 5, "engine_count": 2, "inverse": True},
    pytest.param({"limbs": 4, "engine_count": 2, "skid": True}, marks=pytest.mark.slow),
    pytest.param({"limbs": 3, "engine_count": 2, "prime_n": 1 << 16, "inverse": True},
                 marks=pytest.mark.slow)])
def test_fewer_engines_take_the_towers_in_turn_like_the_model_in_cycles(kw):
    """E engines for L towers: engine e takes towers e, e + E, ... in turn, each mod its own
    prime; three polynomials back to back give the model's words in the plan's cycles(3), one
    in cycles()."""
    unit = RNSPolyNTT(16, **kw)
    count = kw["engine_count"]
    assert len(unit.engines) == count
    assert [e.moduli for e in unit.plan.engines] == [unit.towers[e::count]
                                                     for e in range(count)]
    polys = [random_dcrt(unit.towers, 16, "shared", k) for k in range(3)]
    got, run = run_polys(unit, polys)
    inverse = kw.get("inverse", False)
    assert got == [dcrt_ntt(x, unit.towers, inverse) for x in polys]
    assert run.cycles == unit.cycles(3)
    one, run1 = run_polys(unit, polys[:1])
    assert one == got[:1] and run1.cycles == unit.cycles()


def test_one_engine_for_three_towers_takes_three_of_its_periods_per_polynomial():
    """One engine for L towers: back to back, a polynomial every L engine periods, the engine
    then the bound (its period exceeds the n/lanes beats of a tower)."""
    unit = RNSPolyNTTPlan(16, limbs=3, engine_count=1)
    engine = unit.engines[0]
    assert engine.period() > unit.tower_beats
    assert unit.cycles(3) - unit.cycles(2) == 3 * engine.period()


def test_fewer_engines_from_reset_in_icarus_and_under_random_valid_and_ready(tmp_path):
    check_back_to_back_and_from_reset(lambda: RNSPolyNTT(16, limbs=3, engine_count=2),
                                      "shared-x", tmp_path)


def test_engine_count_of_the_towers_is_one_engine_per_tower():
    assert RNSPolyNTTPlan(16, limbs=3, engine_count=3).engines == \
        RNSPolyNTTPlan(16, limbs=3).engines


@pytest.mark.parametrize("kw, error, message", [
    ({"engine_count": 0}, ValueError, "engine_count must be at least 1"),
    ({"engine_count": 4}, ValueError, "engine_count must be at most 3"),
    ({"engine_count": "2"}, TypeError, "engine_count must be an integer"),
    ({"engine_count": 2, "parallel_towers": True}, ValueError,
     "engine_count below the towers .* needs tower-major streams, not parallel_towers"),
    ({"engine_count": 2, "karatsuba": True}, ValueError,
     r"engine_count = 2 \(engines shared by towers, run-time moduli\): moduli does not apply "
     "with karatsuba"),
    ({"engine_count": 2, "reducer": "barrett"}, ValueError, "moduli needs Montgomery")])
def test_engine_count_refuses_what_shared_engines_do_not_take(kw, error, message):
    with pytest.raises(error, match=message):
        RNSPolyNTTPlan(16, limbs=3, **kw)


def test_sky130_estimate_counts_the_shared_engines_and_every_towers_table():
    plan = RNSPolyNTTPlan(64, limbs=3, butterflies=2, engine_count=2)
    (name, shown, count, factory), = blocks(plan)
    assert (name, count, shown["moduli"]) == ("engine-butterfly", 4,
                                              ",".join(map(str, plan.towers[0::2])))
    assert factory().latency == plan.engines[0].butterfly_latency
    # two engines' banks, and each tower's table once (two read ports, one copy)
    assert memory_bits(plan) == 64 * 30 * (2 + 3)
