"""The RNS polynomial product (forward NTTs, run-time-modulus point-wise products, inverse NTT)
against the schoolbook product in every tower; simulated cycles equal ``cycles()``."""

import pytest
from ecp5_models import dp16kd_model, mult18x18d_model
from test_poly_ntt import random_dcrt

from fhe_hw.flow.synth import OutOfContextPlatform
from fhe_hw.lib.bram import dp16kd_shape
from fhe_hw.model.dcrt import dcrt_extend, dcrt_ntt, schoolbook_product
from fhe_hw.model.ntt import bit_reverse
from fhe_hw.ntt.schedule import schedule, twiddle_index
from fhe_hw.params import openfhe_primes
from fhe_hw.poly import RNSPolyProduct, RNSPolyProductPlan
from fhe_hw.poly.configs import PRODUCT_TABLE
from fhe_hw.poly.estimate import blocks, memory_bits
from fhe_hw.sim.icarus import require_iverilog, run_from_reset
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit


def run_products(unit, pairs, **kw):
    """The products of ``pairs`` ((a, b), each a list of towers) back to back through ``unit``
    in pysim, regrouped per product, and the run."""
    streams = {port: unit.plan.stream_beats([pair[k] for pair in pairs])
               for k, port in enumerate(("i_a", "i_b"))}
    run = run_stream(unit, streams, {"o": len(streams["i_a"])}, **kw)
    return unit.plan.stream_polynomials(run.outputs["o"]), run


# n = 64, 3 towers: a product's towers leave the forward unit as a run of 96 beats, longer than
# the beats in flight between the join and the inverse unit, so the queue's credit must keep up.
@pytest.mark.parametrize("n, towers, P, b_evaluated", [
    pytest.param(16, 3, 1, False, marks=pytest.mark.slow), (16, 2, 2, True), (64, 3, 1, True)])
def test_products_are_the_schoolbook_products_back_to_back_in_cycles(n, towers, P, b_evaluated):
    unit = RNSPolyProduct(n, limbs=towers, butterflies=P, b_evaluated=b_evaluated)
    primes = unit.towers
    pairs = [(random_dcrt(primes, n, "a", k), random_dcrt(primes, n, "b", k)) for k in range(3)]
    fed = [(a, dcrt_ntt(b, primes) if b_evaluated else b) for a, b in pairs]
    got, run = run_products(unit, fed)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]
    assert run.cycles == unit.cycles(3) == get_unit("rns-poly-product").cycles(
        {"n": n, "limbs": towers, "butterflies": P, "b_evaluated": b_evaluated}, polys=3)


#: The documented 60-bit product's options (PRODUCT_TABLE's last row) but its size and beat.
SIXTY = {k: v for k, v in PRODUCT_TABLE[-1].params.items()
         if k not in ("n", "limbs", "butterflies", "lanes", "b_evaluated")}


@pytest.mark.parametrize("random_handshakes", [False, True])
def test_60_bit_product_with_karatsuba_and_fabric_rounds_back_to_back(random_handshakes):
    """The documented 60-bit product's shape at n = 16, 2 towers: OpenFHE's 60-bit primes for
    the ring 2^16 (Montgomery ModMuls, their rounds in the fabric, Karatsuba products, tile
    registers), the butterflies' delay lines in memories, b in evaluation form, one lane,
    register slices; the schoolbook products of
    three pairs back to back, in cycles(3) with the streams always valid and ready, and under
    random valid/ready."""
    params = {"n": 16, "limbs": 2, "butterflies": 1, "lanes": 1, "b_evaluated": True,
              **SIXTY}
    unit = RNSPolyProduct(**params)
    primes = unit.towers
    assert primes == openfhe_primes(60, 65536, 2) and SIXTY["ram_delays"]
    pairs = [(random_dcrt(primes, 16, "ka", k), random_dcrt(primes, 16, "kb", k))
             for k in range(3)]
    kw = dict(valid_prob=0.6, ready_prob=0.5, seed=5) if random_handshakes else {}
    got, run = run_products(unit, [(a, dcrt_ntt(b, primes)) for a, b in pairs], **kw)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]
    if not random_handshakes:
        assert run.cycles == unit.cycles(3) == get_unit("rns-poly-product").cycles(params,
                                                                                 polys=3)


def test_random_valid_and_ready_keep_every_product():
    unit = RNSPolyProduct(16, limbs=2, butterflies=2, lanes=2)
    primes = unit.towers
    pairs = [(random_dcrt(primes, 16, "va", k), random_dcrt(primes, 16, "vb", k))
             for k in range(2)]
    got, _ = run_products(unit, pairs, valid_prob=0.6, ready_prob=0.5, seed=3)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]


def test_plan_derives_both_transforms_and_the_pointwise_multipliers():
    plan = RNSPolyProductPlan(4096, limbs=8)
    assert plan.forward.towers == plan.backward.towers == plan.towers
    assert not plan.forward.inverse and plan.backward.inverse
    assert plan.pointwise.moduli == tuple(sorted(plan.towers)) and plan.pointwise.word == 13
    assert plan.input_beats == plan.output_beats == 8 * 4096 // 2


def test_distributed_queue_asks_for_luts_and_keeps_the_cycles():
    """``distributed_queue`` marks the point-wise queue's storage for LUT RAM (the only
    memory of this product the attribute is added to) and changes no cycle."""
    from amaranth.back import rtlil

    def lut_memories(unit):
        return rtlil.convert(unit).count('attribute \\ram_style "distributed"')

    kw = dict(limbs=2, b_evaluated=True)
    plain, lut = RNSPolyProductPlan(16, **kw), RNSPolyProductPlan(16, distributed_queue=True, **kw)
    assert lut_memories(RNSPolyProduct(lut)) == lut_memories(RNSPolyProduct(plain)) + 1
    assert lut.cycles(3) == plain.cycles(3)
    with pytest.raises(TypeError, match="distributed_queue"):
        RNSPolyProductPlan(16, distributed_queue=1, **kw)


# b in evaluation form with random valid/ready in the fast suite (whose chain's cycles the Icarus
# test below checks, from reset); both operands in coefficient form, and skid slices with one
# butterfly, in the slow suite.
@pytest.mark.parametrize("b_evaluated, P, skid, ready", [
    (True, 2, False, 0.5), pytest.param(False, 2, False, 1.0, marks=pytest.mark.slow),
    pytest.param(True, 1, True, 1.0, marks=pytest.mark.slow)])
def test_extended_products_are_the_models_product_then_extension(b_evaluated, P, skid, ready):
    """With ``extend_limbs``: each product in coefficient form, then its towers mod B (the
    centred lift), three products through the chain one at a time; simulated cycles =
    cycles(3) = 3·cycles(1) with the inputs always valid and the output always ready."""
    unit = RNSPolyProduct(16, limbs=2, butterflies=P, b_evaluated=b_evaluated, skid=skid,
                          extend_limbs=2)
    primes, targets = unit.towers, unit.plan.extension.targets
    assert primes + targets == openfhe_primes(30, 16, 4)
    pairs = [(random_dcrt(primes, 16, "ea", k), random_dcrt(primes, 16, "eb", k))
             for k in range(3)]
    fed = [(a, dcrt_ntt(b, primes) if b_evaluated else b) for a, b in pairs]
    kw = {} if ready == 1.0 else dict(valid_prob=0.6, ready_prob=ready, seed=4)
    beats = {port: unit.plan.stream_beats([pair[k] for pair in fed])
             for k, port in enumerate(("i_a", "i_b"))}
    run = run_stream(unit, beats, {"o": 3 * unit.output_beats}, **kw)
    assert unit.plan.stream_polynomials(run.outputs["o"]) == [
        dcrt_extend(schoolbook_product(a, b, primes), primes, targets) for a, b in pairs]
    if ready == 1.0:
        assert run.cycles == unit.cycles(3) == 3 * unit.cycles(1)
        params = {"n": 16, "limbs": 2, "butterflies": P, "b_evaluated": b_evaluated,
                  "skid": skid, "extend_limbs": 2}
        assert unit.cycles(1) == get_unit("rns-poly-product").cycles(params) == (
            RNSPolyProductPlan(16, limbs=2, butterflies=P, b_evaluated=b_evaluated,
                               skid=skid).cycles(1)
            + unit.plan.extension.cycles(1) - unit.plan.extension.input_beats)


@pytest.mark.parametrize("kw, match", [
    ({"primes": (97, 193), "extend_limbs": 1}, "extend_limbs must be 0 with primes given"),
    ({"extend_limbs": 2, "extend_architecture": "folded"},
     "extend_architecture must be one of iterative, pipelined, not 'folded'"),
    ({"prime_bits": 17, "prime_n": 2048, "limbs": 2, "extend_limbs": 10},
     r"limbs \+ extend_limbs must be at most the primes of prime_bits = 17 bits"),
])
def test_plan_refuses_an_extension_it_cannot_build(kw, match):
    with pytest.raises(ValueError, match=match):
        RNSPolyProductPlan(16, **kw)


@pytest.mark.slow
def test_skid_slices_in_the_products_transforms_keep_the_products_and_cycles():
    unit = RNSPolyProduct(16, limbs=2, butterflies=2, skid=True)
    primes = unit.towers
    pairs = [(random_dcrt(primes, 16, "sa", k), random_dcrt(primes, 16, "sb", k))
             for k in range(3)]
    got, run = run_products(unit, pairs)
    assert got == [schoolbook_product(a, b, primes) for a, b in pairs]
    assert run.cycles == unit.cycles(3)


def test_extended_product_from_reset_in_icarus(tmp_path):
    """The chain (product, then the extension and the input gate) in Icarus from reset with
    every register and memory word at x: two products of one tower extended by one, the
    model's words, cycles(2)."""
    require_iverilog()
    unit = RNSPolyProduct(16, limbs=1, butterflies=2, extend_limbs=1)
    primes, targets = unit.towers, unit.plan.extension.targets
    pairs = [(random_dcrt(primes, 16, "ra", k), random_dcrt(primes, 16, "rb", k))
             for k in range(2)]
    beats = {port: unit.plan.stream_beats([pair[k] for pair in pairs])
             for k, port in enumerate(("i_a", "i_b"))}
    run = run_from_reset(unit, "rns-poly-product", beats, {"o": 2 * unit.output_beats},
                         tmp_path)
    assert unit.plan.stream_polynomials(run.outputs["o"]) == [
        dcrt_extend(schoolbook_product(a, b, primes), primes, targets) for a, b in pairs]
    assert run.cycles == unit.cycles(2)


@pytest.mark.parametrize("P, lanes, wide, more", [
    (1, None, False, {}), (2, 2, True, {}), (1, 1, False, SIXTY)])
def test_evaluated_product_in_ecp5_form_from_reset_in_icarus(P, lanes, wide, more, tmp_path):
    """The b-evaluated product as the ECP5 flow elaborates it (DP16KD banks and ROMs with
    their output registers, MULT18X18D tiles), with behavioural models of both, in Icarus
    from reset with every register and RAM word at x: each tower's forward and inverse engines
    read one twiddle ROM, one DP16KD copy per tower (with one butterfly each through its two
    ports; with two and ``wide_twiddles``, n/2 words of two twiddles, a port per engine), and
    two products of two towers give the schoolbook products in cycles(2); also in the shape of
    the documented 60-bit product."""
    require_iverilog()
    build = lambda: RNSPolyProduct(32, limbs=2, butterflies=P, lanes=lanes,  # noqa: E731
                                   b_evaluated=True, wide_twiddles=wide, **more)
    unit = build()
    primes = unit.towers
    pairs = [(random_dcrt(primes, 32, "ea", P, k), random_dcrt(primes, 32, "eb", P, k))
             for k in range(2)]
    beats = {port: unit.plan.stream_beats([(a, dcrt_ntt(b, primes))[k] for a, b in pairs])
             for k, port in enumerate(("i_a", "i_b"))}
    run = run_from_reset(build(), "rns-poly-product", beats, {"o": 2 * unit.output_beats},
                         tmp_path, platform=OutOfContextPlatform("ecp5"),
                         libraries=[dp16kd_model(), mult18x18d_model()])
    assert unit.plan.stream_polynomials(run.outputs["o"]) == [
        schoolbook_product(a, b, primes) for a, b in pairs]
    assert run.cycles == unit.cycles(2)
    banks = dp16kd_shape(unit.plan.width, 32 // (2 * P))[1]
    per_word = P if wide else 1
    rom = dp16kd_shape(per_word * unit.plan.width, 32 // per_word)[1]
    assert (tmp_path / "unit.v").read_text().count("DP16KD #(") == 2 * (2 * 2 * P * banks + rom)


def test_sky130_estimate_keys_the_pointwise_stages_and_builds_delay_lines_of_registers():
    """The point-wise block is keyed by its product's registers when ``pointwise_stages`` sets
    them, and built with them; the butterflies of a ``ram_delays`` product are built with
    their delay lines in registers (the ASIC's form) under the same key as without."""
    plain = RNSPolyProductPlan(16, limbs=2, b_evaluated=True)
    tuned = RNSPolyProductPlan(16, limbs=2, b_evaluated=True, pointwise_stages=6,
                               ram_delays=True)
    rows, tuned_rows = blocks(plain), blocks(tuned)
    assert [r[1] for r in tuned_rows[:2]] == [r[1] for r in rows[:2]]
    assert [r[3]().plan for r in tuned_rows[:2]] == [r[3]().plan for r in rows[:2]]
    assert tuned.forward.engines[0].butterfly.ram_delays
    assert rows[2][1] == {"towers": 2, "width": 30, "word": plain.pointwise.word}
    assert tuned_rows[2][1] == {**rows[2][1], "mult_stages": 6}
    assert tuned_rows[2][3]().latency == tuned.pointwise.latency == plain.pointwise.latency + 2


def test_wide_twiddle_words_hold_every_cycles_twiddles():
    """The premise of ``wide_twiddles``: in every compute cycle of every stage the P twiddle
    addresses an engine issues (forward, and the inverse's, mapped onto the forward table)
    lie in one word of P entries."""
    for n, P in ((16, 2), (64, 4), (4096, 2), (4096, 4)):
        log_n = n.bit_length() - 1
        for inverse in (False, True):
            for s, stage in enumerate(schedule(n, P, inverse)):
                for pairs in stage:
                    addrs = [twiddle_index(s, up, log_n, inverse, gs=inverse) for up, _ in pairs]
                    if inverse:
                        addrs = [bit_reverse((n - bit_reverse(a, log_n)) % n, log_n) for a in addrs]
                    assert len({a // P for a in addrs}) == 1, (n, P, inverse, s, addrs)


@pytest.mark.parametrize("P, lanes, b_evaluated", [(2, 2, True), (4, None, False)])
def test_wide_twiddles_keep_the_products_under_random_valid_and_ready(P, lanes, b_evaluated):
    unit = RNSPolyProduct(16, limbs=2, butterflies=P, lanes=lanes, b_evaluated=b_evaluated,
                          skid=True, wide_twiddles=True)
    primes = unit.towers
    pairs = [(random_dcrt(primes, 16, "wa", k), random_dcrt(primes, 16, "wb", k))
             for k in range(3)]
    fed = [(a, dcrt_ntt(b, primes) if b_evaluated else b) for a, b in pairs]
    want = [schoolbook_product(a, b, primes) for a, b in pairs]
    got, run = run_products(unit, fed)
    assert got == want and run.cycles == unit.cycles(3)
    got, _ = run_products(RNSPolyProduct(16, limbs=2, butterflies=P, lanes=lanes,
                                         b_evaluated=b_evaluated, skid=True,
                                         wide_twiddles=True),
                          fed[:2], valid_prob=0.6, ready_prob=0.5, seed=P)
    assert got == want[:2]


def test_wide_twiddles_need_two_butterflies():
    with pytest.raises(ValueError, match="wide_twiddles needs butterflies of at least 2, not 1"):
        RNSPolyProductPlan(16, limbs=2, wide_twiddles=True)


@pytest.mark.parametrize("b_evaluated, forward_units, wide, words", [
    (True, 1, False, 4), (False, 2, False, 6), (True, 1, True, 3), (False, 2, True, 5)])
def test_sky130_estimate_counts_the_products_engines_multipliers_and_memories(
        b_evaluated, forward_units, wide, words):
    """Each tower's forward engines (one with b evaluated), its unscaled Gentleman–Sande
    inverse engine, two point-wise multipliers per lane; per tower the engines' banks and one
    n-word ROM per two read ports (the shared ROM's dual-port copies): two per engine at two
    butterflies, one with wide twiddle words."""
    plan = RNSPolyProductPlan(64, limbs=3, butterflies=2, b_evaluated=b_evaluated,
                              wide_twiddles=wide)
    rows = blocks(plan)
    assert [(name, params.get("form"), count) for name, params, count, _ in rows] == [
        ("engine-butterfly", None, 3 * 2 * forward_units), ("engine-butterfly", "gs", 6),
        ("pointwise-modmul", None, 2 * plan.lanes_resolved)]
    assert not rows[1][3]().scale_up and rows[2][3]().latency == plan.pointwise.latency
    assert memory_bits(plan) == words * 64 * sum(q.bit_length() for q in plan.towers)
