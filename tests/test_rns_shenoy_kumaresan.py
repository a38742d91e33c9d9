"""Shenoy–Kumaresan base extension engine ([Kir25] Alg. 2, §3.3) in pysim: target residue
polynomials against exact CRT arithmetic and the golden model, cycle counts against [Kir25] Table
4.5/4.6, the multi-target variant, back-pressure, and parameter validation."""

import random

import pytest
from amaranth.hdl import Fragment
from ecp5_models import dp16kd_model, mult18x18d_model
from helpers import SEED, rng_for, sk

from fhe_hw.arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from fhe_hw.flow.synth import OutOfContextPlatform
from fhe_hw.model import rns as model
from fhe_hw.params import RNSBase, ntt_primes
from fhe_hw.poly.estimate import blocks, memory_bits
from fhe_hw.rns import ShenoyKumaresanPlan, default_bases
from fhe_hw.rns.crt_bank import AccumulatorBank
from fhe_hw.rns.crt_control import FUSED_LATENCY
from fhe_hw.sim.icarus import run_from_reset
from fhe_hw.sim.pysim import run_stream
from fhe_hw.sim.vectors import documented_cycles, small_params, vectors_for
from fhe_hw.units import get_unit

POOL = {bits: ntt_primes(bits, 1 << 12, 8) for bits in (32, 60, 64)}


def bases(bits, l, k):
    primes = POOL[bits]
    return tuple(primes[:l]), tuple(primes[l:l + k]), primes[-1]


def run(unit, *, key=(), valid_prob=1.0, ready_prob=1.0):
    """Extend random coefficients (coefficient 0 is A = 0, the last A = Q − 1); check every
    target residue against A mod p_j and the golden model; return the StreamRun."""
    n = unit.n
    rng = rng_for("sk", *key)
    base = RNSBase(unit.source)
    values = [0] + [rng.randrange(base.Q) for _ in range(n - 2)] + [base.Q - 1][:n - 1]
    polys = [[a % q for a in values] for q in unit.source]
    red = [a % unit.redundant for a in values]
    beats = unit.plan.source_beats(polys, red)
    result = run_stream(unit, {"i": beats}, {"o": unit.output_beats}, valid_prob=valid_prob,
                        ready_prob=ready_prob, seed=SEED)
    got = unit.plan.target_polynomials(result.outputs["o"])
    golden = model.extend_polynomial(model.shenoy_kumaresan, polys, unit.constants, red)
    for j, p in enumerate(unit.target):
        want = [a % p for a in values]
        assert list(golden[j]) == want
        bad = [c for c in range(n) if got[j][c] != want[c]]
        assert not bad, (f"p_{j}: first mismatch at coefficient {bad[0]} (seed {SEED}, key "
                         f"{key}): expected {want[bad[0]]}, got {got[j][bad[0]]}")
    return result


@pytest.mark.parametrize("architecture,iterations", [
    ("folded", model.iterations_sk_folded), ("pipelined", model.iterations_sk_pipelined)])
def test_cycles_equal_table_4_5_for_the_papers_architecture(architecture, iterations):
    source, target, red = bases(32, 2, 2)
    unit = sk(source, target, red, 128, 2, architecture)
    assert unit.rows >= unit.hidden_latency_rows
    result = run(unit, key=(architecture,))
    assert result.cycles == unit.cycles() == iterations(128, 2, 2) == unit.paper_iterations()


@pytest.mark.parametrize("architecture", ["folded", "pipelined"])
@pytest.mark.parametrize("n,tp", [(8, 8), (8, 4), (16, 4)], ids=["tp=n", "two-rows", "short-rows"])
def test_cycles_formula_holds_when_rows_are_too_few_to_hide_the_pipeline(architecture, n, tp):
    source, target, red = bases(32, 3, 2)
    unit = sk(source, target, red, n, tp, architecture)
    assert unit.cycles() > unit.paper_iterations()
    assert run(unit, key=(architecture, n, tp)).cycles == unit.cycles() == \
        sk(source, target, red, n, tp, architecture, cls=ShenoyKumaresanPlan).cycles()


@pytest.mark.parametrize("bits", [60, 64])
@pytest.mark.parametrize("architecture", ["folded", "pipelined"])
def test_wide_primes_extend_exactly(bits, architecture):
    source, target, red = bases(bits, 3, 2)
    unit = sk(source, target, red, 16, 2, architecture)
    assert run(unit, key=(bits, architecture)).cycles == unit.cycles()


@pytest.mark.parametrize("architecture", ["folded", "pipelined"])
def test_random_valid_and_ready_keep_results_exact(architecture):
    source, target, red = bases(64, 2, 3)
    unit = sk(source, target, red, 16, 4, architecture)
    run(unit, key=("vr", architecture), valid_prob=0.6, ready_prob=0.4)


@pytest.mark.parametrize("n,tp,deep", [(1024, 4, True), (512, 4, True), (128, 2, False),
                                       (4096, 64, False)])
def test_deep_multiplier_rounds_only_where_the_rows_hide_their_latency(n, tp, deep):
    source, target, red = bases(32, 3, 2)
    unit = sk(source, target, red, n, tp)
    moduli = source + target + (red,)
    assert unit.multiplier_latency == DynamicModMulPlan(moduli, unit.word, deep=deep).latency
    assert unit.rows >= unit.hidden_latency_rows or not deep


def test_one_pass_for_all_targets_reaches_the_io_bound():
    source, target, red = bases(32, 3, 3)
    unit = sk(source, target, red, 256, 4, targets_per_pass=3)
    assert unit.passes == 1
    assert run(unit, key=("t=k",)).cycles == unit.cycles() == unit.io_bound() == 7 * 64
    assert unit.arithmetic_units == {"MM": 5 * 4, "MA": 6 * 4, "A": 0}


def test_partial_last_pass_under_back_pressure():
    source, target, red = bases(32, 2, 3)
    unit = sk(source, target, red, 16, 2, targets_per_pass=2)
    assert unit.passes == 2
    assert run(unit, key=("t=2",)).cycles == unit.cycles()
    run(unit, key=("t=2 vr",), valid_prob=0.7, ready_prob=0.5)


def test_targets_side_by_side_leave_a_pass_in_one_residue_polynomials_beats():
    """``parallel_targets``: the t slots' rows leave together, so a one-pass conversion takes
    its input, the pipeline the rows hide, and N/TP output beats: (l + 2)·N/TP."""
    source, target, red = bases(32, 3, 3)
    unit = sk(source, target, red, 256, 4, targets_per_pass=3, parallel_targets=True)
    assert unit.o.payload.shape().length == 12 and unit.output_beats == 64
    assert run(unit, key=("side",)).cycles == unit.cycles() == unit.io_bound() == 5 * 64
    assert unit.arithmetic_units == {"MM": 5 * 4, "MA": 6 * 4, "A": 0}


def test_targets_side_by_side_over_two_passes_under_back_pressure():
    source, target, red = bases(32, 2, 4)
    unit = sk(source, target, red, 16, 2, targets_per_pass=2, parallel_targets=True)
    assert unit.passes == 2 and unit.output_beats == 2 * 8
    assert run(unit, key=("side t=2",)).cycles == unit.cycles() == \
        sk(source, target, red, 16, 2, targets_per_pass=2, parallel_targets=True,
           cls=ShenoyKumaresanPlan).cycles()
    run(unit, key=("side t=2 vr",), valid_prob=0.6, ready_prob=0.5)


def test_redundant_beside_the_last_source_residue_saves_its_beats():
    """``parallel_redundant``: the redundant residue's rows ride with the last source
    residue's, so a pass takes l·N/TP input beats; the Post-Sum follows the Sum's pipeline
    (pass offset l·N/TP + the latencies), against (l + 1)·N/TP without it."""
    source, target, red = bases(32, 3, 3)
    kw = {"targets_per_pass": 3, "parallel_targets": True}
    unit = sk(source, target, red, 256, 4, **kw, parallel_redundant=True)
    assert unit.i.payload.shape().length == 8 and unit.input_beats == 3 * 64
    p = unit.plan
    assert unit.pass_offset() == 3 * 64 + p.acc_latency + p.issue_latency + p.out_latency
    assert run(unit, key=("beside",)).cycles == unit.cycles() == unit.pass_offset() + 64
    assert unit.cycles() < sk(source, target, red, 256, 4, **kw).cycles() == 5 * 64
    assert unit.arithmetic_units == {"MM": 5 * 4, "MA": 6 * 4, "A": 0}


@pytest.mark.parametrize("kw", [{"targets_per_pass": 2}, {"targets_per_pass": 1},
                                {"targets_per_pass": 2, "parallel_targets": True}])
def test_redundant_beside_over_several_passes_under_back_pressure(kw):
    source, target, red = bases(64, 2, 4)
    unit = sk(source, target, red, 16, 2, **kw, parallel_redundant=True)
    assert unit.passes > 1
    assert run(unit, key=("beside", *kw.values())).cycles == unit.cycles() == \
        sk(source, target, red, 16, 2, **kw, parallel_redundant=True,
           cls=ShenoyKumaresanPlan).cycles()
    run(unit, key=("beside vr", *kw.values()), valid_prob=0.6, ready_prob=0.5)


def fused(l, k, n, tp, **kw):
    """The fused Post-Sum engine (one pass, targets side by side, redundant beside) on
    32-bit primes."""
    return sk(*bases(32, l, k), n, tp, targets_per_pass=k, parallel_targets=True,
              parallel_redundant=True, fused_post_sum=True, **kw)


def test_fused_post_sum_streams_the_outputs_behind_the_last_source_residue():
    unit = fused(3, 3, 256, 4)
    p = unit.plan
    assert unit.cycles() == 3 * 64 + p.acc_latency + FUSED_LATENCY + p.out_latency
    assert run(unit, key=("fused",)).cycles == unit.cycles() == \
        fused(3, 3, 256, 4, cls=ShenoyKumaresanPlan).cycles()
    assert unit.cycles() < sk(*bases(32, 3, 3), 256, 4, targets_per_pass=3,
                              parallel_targets=True, parallel_redundant=True).cycles()
    assert unit.arithmetic_units["MM"] == 5 * 4  # the Sum's multipliers, none more


@pytest.mark.parametrize("l, k, n, tp", [(2, 2, 16, 2), (3, 2, 8, 4), (2, 4, 32, 1)])
def test_fused_post_sum_under_back_pressure(l, k, n, tp):
    unit = fused(l, k, n, tp)
    assert run(unit, key=("fused", l, k, n, tp)).cycles == unit.cycles()
    run(unit, key=("fused vr", l, k, n, tp), valid_prob=0.6, ready_prob=0.5)


@pytest.mark.parametrize("valid_prob, ready_prob", [(1.0, 1.0), (0.7, 0.4)])
def test_fused_conversions_follow_each_other_without_a_hold(valid_prob, ready_prob):
    """Three conversions back to back: each one's outputs exact, and at full rate the next
    conversion's input follows the last one's at once, so three take 2·l·N/TP + cycles()."""
    unit, rng = fused(3, 2, 32, 2), rng_for("fused back to back", valid_prob)
    base, beats, want = RNSBase(unit.source), [], []
    for _ in range(3):
        values = [rng.randrange(base.Q) for _ in range(unit.n)]
        beats += unit.plan.source_beats([[a % q for a in values] for q in unit.source],
                                        [a % unit.redundant for a in values])
        want += unit.plan.target_beats([[a % p for a in values] for p in unit.target])
    result = run_stream(unit, {"i": beats}, {"o": len(want)}, valid_prob=valid_prob,
                        ready_prob=ready_prob, seed=SEED)
    assert result.outputs["o"] == want
    if valid_prob == 1.0:
        assert result.cycles == 2 * 3 * unit.rows + unit.cycles()


def test_fused_post_sum_takes_an_unmatched_alpha_as_zero():
    """A redundant residue of neither A nor its centred lift: α of Algorithm 2 exceeds l, the
    match finds none and the engine returns the sums a'_{p_j}
    (:func:`~fhe_hw.model.rns.shenoy_kumaresan_matched`); with A's residue the match is
    Algorithm 2."""
    unit, rng = fused(2, 2, 16, 2), rng_for("unmatched")
    base = RNSBase(unit.source)
    values = [rng.randrange(base.Q) for _ in range(unit.n)]
    polys = [[a % q for a in values] for q in unit.source]
    red = [rng.randrange(unit.redundant) for _ in values]
    matched = model.extend_polynomial(model.shenoy_kumaresan_matched, polys, unit.constants,
                                      red)
    assert matched != model.extend_polynomial(model.shenoy_kumaresan, polys, unit.constants,
                                              red)
    result = run_stream(unit, {"i": unit.plan.source_beats(polys, red)},
                        {"o": unit.output_beats}, seed=SEED)
    assert unit.plan.target_polynomials(result.outputs["o"]) == [list(p) for p in matched]
    exact = [a % unit.redundant for a in values]
    assert model.extend_polynomial(model.shenoy_kumaresan_matched, polys, unit.constants,
                                   exact) == \
        model.extend_polynomial(model.shenoy_kumaresan, polys, unit.constants, exact)


@pytest.mark.parametrize("kw", [{"parallel_redundant": False}, {"parallel_targets": False},
                                {"targets_per_pass": 1}])
def test_rejects_fused_post_sum_without_one_side_by_side_pass(kw):
    args = {"targets_per_pass": 2, "parallel_targets": True, "parallel_redundant": True,
            "fused_post_sum": True, **kw}
    with pytest.raises(ValueError, match="fused_post_sum needs parallel_redundant, "
                       "parallel_targets and targets_per_pass = k >= 2"):
        sk(*bases(32, 2, 2), 16, 2, **args, cls=ShenoyKumaresanPlan)
    with pytest.raises(ValueError, match="targets_per_pass = k >= 2"):
        sk(*bases(32, 2, 1), 16, 2, targets_per_pass=1, parallel_targets=True,
           parallel_redundant=True, fused_post_sum=True, cls=ShenoyKumaresanPlan)


def test_source_beats_put_the_redundant_rows_above_the_last_source_residue():
    plan = sk(*bases(32, 2, 2), 4, 2, parallel_redundant=True, cls=ShenoyKumaresanPlan)
    polys, red = [[1, 2, 3, 4], [5, 6, 7, 8]], [9, 10, 11, 12]
    assert plan.passes == 2 and plan.input_lanes == 4
    one = [[1, 2, 0, 0], [3, 4, 0, 0], [5, 6, 9, 10], [7, 8, 11, 12]]
    assert plan.source_beats(polys, red) == one + one
    tower = sk(*bases(32, 2, 2), 4, 2, targets_per_pass=2, cls=ShenoyKumaresanPlan)
    assert tower.source_beats(polys, red) == [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]
    with pytest.raises(ValueError, match="redundant: Shenoy–Kumaresan takes the redundant"):
        plan.source_beats(polys)


def test_target_beats_put_a_passs_targets_side_by_side():
    plan = sk(*bases(32, 2, 4), 4, 2, targets_per_pass=2, parallel_targets=True,
              cls=ShenoyKumaresanPlan)
    polys = [[10 * j + c for c in range(4)] for j in range(4)]
    beats = plan.target_beats(polys)
    assert beats == [[0, 1, 10, 11], [2, 3, 12, 13], [20, 21, 30, 31], [22, 23, 32, 33]]
    assert plan.target_polynomials(beats) == polys


@pytest.mark.parametrize("architecture", ["folded", "pipelined"])
@pytest.mark.parametrize("n,tp", [(128, 2), (8, 4)])
def test_a_pass_outputs_after_its_last_input_and_folded_waits_for_its_outputs(architecture, n,
                                                                               tp):
    """§3.3: a pass's outputs follow its Sum Process (its last input transfer); folded
    (§3.3.3) takes no input while it outputs. Transfers recorded under random valid/ready,
    at N/TP = 64 (the pipeline hidden: the gate holds the outputs) and at N/TP = 2."""
    source, target, red = bases(32, 2, 4)
    unit = sk(source, target, red, n, tp, architecture)
    xfers = {"i": [], "o": []}

    async def monitor(ctx):
        cycle = 0
        async for _, _, iv, ir, ov, orr in ctx.tick().sample(
                unit.i.valid, unit.i.ready, unit.o.valid, unit.o.ready):
            for name, v, r in (("i", iv, ir), ("o", ov, orr)):
                if v and r:
                    xfers[name].append(cycle)
            cycle += 1

    run_stream(unit, {"i": [[0] * tp] * unit.input_beats}, {"o": unit.output_beats},
               valid_prob=0.6, ready_prob=0.5, seed=SEED, monitors=[monitor])
    per_in, per_out = unit.input_beats // unit.passes, unit.output_beats // unit.passes
    for p in range(unit.passes):
        ins = xfers["i"][p * per_in:(p + 1) * per_in]
        outs = xfers["o"][p * per_out:(p + 1) * per_out]
        assert outs[0] > ins[-1], p
        if architecture == "folded" and p + 1 < unit.passes:
            assert xfers["i"][(p + 1) * per_in] > outs[-1], p


def count_instances(unit, cls):
    def walk(fragment):
        yield fragment
        for sub, _, _ in fragment.subfragments:
            yield from walk(sub)
    return sum(any(isinstance(o, cls) for o in (f.origins or ()))
               for f in walk(Fragment.get(unit, None)))


@pytest.mark.parametrize("architecture,per_lane", [("folded", 3), ("pipelined", 5)])
def test_instantiated_multipliers_are_3_or_5_per_lane_as_table_3_2(architecture, per_lane):
    source, target, red = bases(32, 2, 2)
    unit = sk(source, target, red, 64, 4, architecture)
    assert count_instances(unit, DynamicModMul) == per_lane * 4 == unit.arithmetic_units["MM"]


def test_multi_target_instantiates_t_plus_2_multipliers_per_lane():
    source, target, red = bases(32, 2, 3)
    unit = sk(source, target, red, 64, 2, targets_per_pass=3)
    assert count_instances(unit, DynamicModMul) == (3 + 2) * 2 == unit.arithmetic_units["MM"]


@pytest.mark.parametrize("parallel", [False, True])
def test_sky130_estimate_counts_the_multipliers_and_banks_the_engine_builds(parallel):
    """The estimate's blocks (fhe_hw.poly.estimate) against the instances elaboration makes:
    side by side the targets take no multiplier more, the Post-Sum borrowing every slot's."""
    source, target, red = bases(32, 2, 4)
    unit = sk(source, target, red, 64, 2, targets_per_pass=2, parallel_targets=parallel,
              tile_reg=True)
    (name, params, count, factory), = blocks(unit.plan)
    assert count == count_instances(unit, DynamicModMul) == (2 + 2) * 2
    assert factory().plan == unit.plan.multiplier and params["width"] == 32
    assert unit.plan.banks == count_instances(unit, AccumulatorBank) == 2 + 2
    assert memory_bits(unit.plan) == 4 * 64 * 32


def test_arithmetic_units_follow_table_3_2():
    source, target, red = bases(32, 2, 2)
    folded = sk(source, target, red, 64, 8)
    pipelined = sk(source, target, red, 64, 8, "pipelined")
    assert folded.arithmetic_units == {**model.arithmetic_units("sk_folded", 2, 8)}
    assert pipelined.arithmetic_units == {**model.arithmetic_units("sk_pipelined", 2, 8)}


@pytest.mark.parametrize("n,tp,l,bits", [(2**16, 32, 17, 32), (2**14, 32, 7, 32),
                                         (2**12, 64, 4, 32), (2**16, 32, 17, 60)])
@pytest.mark.parametrize("architecture,column", [("pipelined", 0), ("folded", 1)])
def test_cycles_reproduce_table_4_6(n, tp, l, bits, architecture, column):
    table = {(2**16, 17): (628736, 661504), (2**14, 7): (29184, 32256), (2**12, 4): (1344, 1536)}
    source, target, red = default_bases(bits, n, l, l, redundant=True)
    unit = sk(source, target, red, n, tp, architecture)
    assert unit.cycles() == table[n, l][column]


def test_generate_entry_builds_from_prime_counts():
    from fhe_hw.units import get_unit
    unit = get_unit("shenoy-kumaresan").build(n=1024, source_limbs=4, target_limbs=4, lanes=4,
                                              prime_bits=32, architecture="folded",
                                              targets_per_pass=1)
    assert (len(unit.source), len(unit.target), unit.lanes) == (4, 4, 4)
    assert all(q % 2048 == 1 for q in unit.source + unit.target + (unit.redundant,))


# --- parameter validation ----------------------------------------------------------------------

def test_rejects_non_coprime_bases():
    source, target, red = bases(32, 2, 2)
    with pytest.raises(ValueError, match="coprime"):
        sk(source, (target[0], source[0]), red, 16, 2)


def test_rejects_redundant_not_above_l():
    source, target, _ = bases(32, 3, 2)
    with pytest.raises(ValueError, match="greater than l = 3"):
        sk(source, target, 3, 16, 2)


def test_rejects_lanes_not_power_of_two():
    with pytest.raises(ValueError, match="lanes must be a power of two, not 3"):
        sk(*bases(32, 2, 2), 16, 3)


def test_rejects_lanes_above_n():
    with pytest.raises(ValueError, match="lanes must be at most n = 16, not 32"):
        sk(*bases(32, 2, 2), 16, 32)


def test_rejects_n_not_power_of_two():
    with pytest.raises(ValueError, match="n must be a power of two"):
        sk(*bases(32, 2, 2), 24, 2)


def test_rejects_moduli_without_a_common_montgomery_word():
    source, target, red = bases(32, 2, 2)
    with pytest.raises(ValueError, match="q ≡ 1 \\(mod 2\\^word\\)"):
        sk(source, target, red, 16, 2, word=16)


def test_rejects_unknown_architecture():
    with pytest.raises(ValueError, match="architecture must be one of"):
        sk(*bases(32, 2, 2), 16, 2, "systolic")


def test_rejects_multi_target_pipelined():
    with pytest.raises(ValueError, match="targets_per_pass must be 1 for the pipelined"):
        sk(*bases(32, 2, 2), 16, 2, "pipelined", targets_per_pass=2)


def test_rejects_targets_side_by_side_pipelined_or_with_a_partial_pass():
    with pytest.raises(ValueError, match="parallel_targets needs architecture='folded'"):
        sk(*bases(32, 2, 2), 16, 2, "pipelined", parallel_targets=True)
    with pytest.raises(ValueError, match="targets_per_pass dividing k = 3"):
        sk(*bases(32, 2, 3), 16, 2, targets_per_pass=2, parallel_targets=True)


def test_rejects_redundant_beside_pipelined():
    with pytest.raises(ValueError, match="parallel_redundant needs architecture='folded'"):
        sk(*bases(32, 2, 2), 16, 2, "pipelined", parallel_redundant=True)


def test_rejects_targets_per_pass_of_zero():
    with pytest.raises(ValueError, match="targets_per_pass must be"):
        sk(*bases(32, 2, 2), 16, 2, targets_per_pass=0)


def test_rejects_redundant_modulus_shared_with_the_source():
    source, target, _ = bases(32, 2, 2)
    with pytest.raises(ValueError, match="coprime|distinct|disjoint"):
        sk(source, target, source[0], 16, 2)


def test_rejects_more_targets_per_pass_than_targets():
    with pytest.raises(ValueError, match="targets_per_pass must be at most k = 2"):
        sk(*bases(32, 2, 2), 16, 2, targets_per_pass=3)


@pytest.mark.parametrize("name, extra", [
    ("shenoy-kumaresan", {}), ("fast-base-conversion", {}),
    # two slot banks: each reads a row register of its own, selected a cycle early
    ("shenoy-kumaresan", {"targets_per_pass": 2}),
    # the multipliers' tile registers (the 4 -> 4 row's)
    ("shenoy-kumaresan", {"targets_per_pass": 2, "tile_reg": True}),
    # the targets side by side (the rns-side-by-side row's)
    ("shenoy-kumaresan", {"targets_per_pass": 2, "tile_reg": True, "parallel_targets": True}),
    # and the redundant residue beside the last source one
    ("shenoy-kumaresan", {"targets_per_pass": 2, "tile_reg": True, "parallel_targets": True,
                          "parallel_redundant": True}),
    # and the Post-Sum fused behind the last source residue
    ("shenoy-kumaresan", {"targets_per_pass": 2, "tile_reg": True, "parallel_targets": True,
                          "parallel_redundant": True, "fused_post_sum": True}),
    ("fast-base-conversion", {"targets_per_pass": 2, "parallel_targets": True}),
    ("fast-base-conversion", {"tile_reg": True})])
def test_ecp5_form_matches_the_model_from_reset_in_icarus(name, extra, tmp_path):
    """As the ECP5 flow elaborates it (the Sum ROM a DP16KD with its output register, read a
    cycle ahead; MULT18X18D tiles), with behavioural models of both primitives, from reset with
    every register at x: the reset clears the block RAM's read as well, so the engine takes no
    input in the first cycle after it, and the outputs and cycles are the model's."""
    unit, params = get_unit(name), {**small_params(name), **extra}
    build = lambda: unit.build(**params)  # noqa: E731
    vectors = vectors_for(name)(build(), random.Random(f"ecp5:{name}"), 2)
    counts = {port: len(beats) for port, beats in vectors.expected.items()}
    result = run_from_reset(build(), name, vectors.inputs, counts, tmp_path,
                            platform=OutOfContextPlatform("ecp5"),
                            libraries=[dp16kd_model(), mult18x18d_model()],
                            max_cycles=4 * unit.cycles(params))
    assert (tmp_path / "unit.v").read_text().count('"OUTREG"') > 0
    assert result.outputs["o"] == vectors.expected["o"]
    assert result.cycles == documented_cycles(name, params, vectors.run)
