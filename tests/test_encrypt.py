"""CMNT and CNT encryption on transforms (fhe_hw.encrypt.TransformEncrypt) in pysim: every
ciphertext equals Python's ``%`` and the golden model (fhe_hw.model.transform_encrypt), and the
simulated cycles of the key preparation and the encryption equal ``cycles()`` — for random
keys and messages and the extreme ones (all-ones keys and coefficients, the largest noise of
either sign), at scaled-down sizes that exercise every cut of the operands (whole, both in
equal blocks, the key integers in blocks), the S stage's flush beats, one and two inner units and
2 and 4 lanes. The toy groups run in Verilator (tools/cosim_encrypt.py)."""

from types import SimpleNamespace

import pytest
from helpers import rng_for

from fhe_hw.encrypt import ENCRYPTION, KEY_PREPARATION, TransformEncrypt, TransformEncryptPlan
from fhe_hw.encrypt.cosim import python_ciphertext
from fhe_hw.encrypt.estimate import blocks, sky130_estimate
from fhe_hw.encrypt.run import run_encryptions
from fhe_hw.encrypt.timing import (
    EngineTiming,
    _inverses_done,
    _sum_cycles,
    _walk_jobs,
    lone_spacing,
    program_cycles,
    spacings,
)
from fhe_hw.model.bigint import (
    CMNTInstance,
    CNTInstance,
    EncryptionSizes,
    random_cmnt_instance,
    random_cnt_instance,
)
from fhe_hw.model.transform_encrypt import encrypt
from fhe_hw.ntt import StreamingFourStepNTTPlan
from fhe_hw.ntt.four_step_plan import spaced_trace

E = EncryptionSizes
CONFIGS = {
    "cmnt-whole-flush": ("cmnt", E(12, 20, 230, 2), dict(lanes=2, inner_n=4)),
    "cmnt-equal-blocks": ("cmnt", E(10, 20, 150, 2), dict(lanes=2, inner_n=2, max_n=8)),
    "cnt-key-blocks": ("cnt", E(40, 40, 150, 2), dict(lanes=2, inner_n=2, max_n=8)),
    "cmnt-equal-blocks-300": ("cmnt", E(10, 20, 300, 2), dict(lanes=2, inner_n=4, max_n=16)),
    "cnt-key-blocks-600": ("cnt", E(40, 40, 600, 2), dict(lanes=2, inner_n=4, max_n=16)),
    "cmnt-4-lanes-small": ("cmnt", E(12, 20, 230, 2), dict(lanes=4, inner_n=4, inner_units=1)),
    "cmnt-equal-blocks-700": ("cmnt", E(10, 20, 700, 2), dict(lanes=2, inner_n=4, max_n=32)),
    "cnt-key-blocks-1200": ("cnt", E(40, 40, 1200, 3), dict(lanes=2, inner_n=4, max_n=32)),
    "cmnt-4-lanes-one-inner-unit": ("cmnt", E(12, 20, 500, 3),
                                    dict(lanes=4, inner_n=4, inner_units=1)),
}
#: Simulated in the slow suite only (up to minutes of pysim each): the same cuts, lanes and
#: inner units as the fast suite's configurations (the whole cut and the flush at four lanes,
#: equal and key blocks at two on 8-point transforms of inner_n = 2), with longer keys, 16- and
#: 32-point transforms of inner_n = 4, three key integers, or the whole cut at two lanes.
SLOW = {"cmnt-whole-flush", "cmnt-equal-blocks-300", "cnt-key-blocks-600",
        "cmnt-equal-blocks-700", "cnt-key-blocks-1200", "cmnt-4-lanes-one-inner-unit"}


def _cases():
    """Each configuration with two encryptions back to back (a random one, then the all-ones
    extreme with the most negative noise) in the fast suite, and with four in the slow suite
    (a second random one and the other extreme)."""
    for name in sorted(CONFIGS):
        if name not in SLOW:
            yield pytest.param(name, 2, id=f"{name}-2")
        yield pytest.param(name, 4, marks=pytest.mark.slow, id=f"{name}-4")


def _extreme(scheme, s, sign):
    """All-ones key integers and coefficients (K = 2^γ - 1), M = 1 and the largest noise."""
    ones, top = (1 << s.key_bits) - 1, (1 << s.coeff_bits) - 1
    R = sign * ((1 << s.noise_bits) - 1)
    if scheme == "cmnt":
        return CMNTInstance(1, R, [[top] * s.count] * s.count, [ones] * s.count,
                            [ones] * s.count, ones)
    return CNTInstance(1, R, [top] * s.count, [ones] * s.count, ones)


@pytest.mark.parametrize("name, count", list(_cases()))
def test_ciphertexts_equal_python_and_cycles_equal_cycles(name, count):
    scheme, sizes, params = CONFIGS[name]
    unit = TransformEncrypt(scheme, sizes, **params)
    rng = rng_for("transform-encrypt-unit", name)
    make = random_cmnt_instance if scheme == "cmnt" else random_cnt_instance
    instances = [make(sizes, rng), _extreme(scheme, sizes, -1), make(sizes, rng),
                 _extreme(scheme, sizes, 1)][:count]
    runs = run_encryptions(unit, instances, seed=3)
    for inst, run in zip(instances, runs):
        assert run.ciphertext == python_ciphertext(scheme, inst) == encrypt(
            scheme, inst, unit.plan.encrypt_plan)
        assert run.key_cycles == unit.cycles(KEY_PREPARATION)
        assert run.cycles == unit.cycles(ENCRYPTION)
    assert unit.cycles() == TransformEncryptPlan(scheme, sizes, **params).cycles()


def test_the_configurations_cover_every_cut_and_the_flush():
    """The fast suite's configurations alone cover every cut and the flush."""
    kinds = set()
    for scheme, sizes, params in (c for name, c in CONFIGS.items() if name not in SLOW):
        unit = TransformEncrypt(scheme, sizes, **params)
        b = unit.plan.encrypt_plan.main
        kinds.add("whole" if b.x_blocks == b.y_blocks == 1 else
                  "equal" if b.x_block == b.y_block else "key blocks")
        s = unit.program.s_stage
        if s is not None and s.s_words > s.key_words:
            kinds.add("flush")
        if len(b.offsets) > 1:
            kinds.add("accumulators")
    assert kinds == {"whole", "equal", "key blocks", "flush", "accumulators"}


def test_cycles_per_program_is_cycles_of_each_program():
    scheme, sizes, params = CONFIGS["cnt-key-blocks"]
    plan = TransformEncryptPlan(scheme, sizes, **params)
    both = plan.cycles_per_program()
    assert both == {which: plan.cycles(program=which) for which in (KEY_PREPARATION, ENCRYPTION)}
    assert both[KEY_PREPARATION] != both[ENCRYPTION]


@pytest.mark.parametrize("scheme, sizes, params", [
    *[(scheme, group, {"lanes": 16}) for scheme, group in
      (("cnt", "toy"), ("cnt", "small"), ("cmnt", "toy"), ("cmnt", "medium"))],
    *CONFIGS.values()])
def test_a_sum_without_the_s_stage_takes_the_cycles_of_its_job_by_job_walk(scheme, sizes,
                                                                           params):
    """The closed form of a sum without the S stage against the job-by-job walk that the
    S-stage sums take (and every sum took before; the simulations above check its counts):
    the done cycle and every job's first input transfer, at paper groups at 16 lanes and at
    the scaled-down configurations."""
    plan = TransformEncryptPlan(scheme, sizes, **params)
    prog, timing = plan.program, plan.timing
    plain = [i for i, s in enumerate(prog.sums) if not s.s_stage]
    assert plain
    for i in plain:
        spacing, closed, walked = spacings(prog, timing)[i], [], []
        done = _sum_cycles(prog, timing, i, spacing, 11, closed)
        assert done == _inverses_done(prog.sums[i], timing, 11,
                                      _walk_jobs(prog, prog.sums[i], timing, spacing, 11, walked))
        assert closed == walked and len(closed) == len(prog.sums[i].jobs)


@pytest.mark.parametrize("scheme", ["cmnt", "cnt"])
def test_the_sky130_estimate_adds_the_blocks_and_takes_the_slowest_clock(scheme):
    """Made-up block results (area 1000·i + 7 µm², clock 50 + i MHz for the i-th block): the
    estimate's logic area is Σ count·area, its clock the smallest, its cycles the plan's."""
    group = TransformEncryptPlan(scheme, "toy")
    listed = blocks(group)
    results = {(name, tuple(sorted(params.items()))): SimpleNamespace(
                   area_um2=1000.0 * i + 7, fmax_mhz=50.0 + i,
                   critical_path={"startpoint_register": "a", "endpoint_register": "b",
                                  "levels": i})
               for i, (name, params, _, _) in enumerate(listed)}
    e = sky130_estimate(results, group)
    assert e.logic_um2 == sum(count * (1000.0 * i + 7)
                              for i, (_, _, count, _) in enumerate(listed))
    assert e.fmax_mhz == 50.0
    assert e.cycles == TransformEncryptPlan(scheme, "toy").cycles()
    assert e.key_cycles == TransformEncryptPlan(scheme, "toy").cycles(program=KEY_PREPARATION)
    assert e.encryption_ms == e.cycles / 50.0 / 1e3
    assert [row[2] for row in e.rows] == [count for _, _, count, _ in listed]


@pytest.mark.parametrize("scheme, goal", [("cmnt", 135_657), ("cnt", 123_007)])
def test_the_toy_groups_meet_table_6_at_16_lanes(scheme, goal):
    """[Cao13]/[Cao14] Table 6's toy encryption times at 166.45 MHz, in cycles."""
    assert TransformEncryptPlan(scheme, "toy", lanes=16).cycles() <= goal


@pytest.mark.parametrize("scheme", ["cmnt", "cnt"])
def test_every_transform_of_the_toy_schedules_passes_the_engine_as_if_alone(scheme):
    """The cycle model assumes each forward transform sees the engine alone; the engine's own
    control model, fed the schedule's actual start cycles, agrees (no stall, unloads keep the
    inputs' spacing)."""
    unit = TransformEncrypt(scheme, "toy", lanes=16)
    starts = []
    program_cycles(unit.program, unit.timing, unit.program.encrypt_ops, trace=starts)
    engine = StreamingFourStepNTTPlan(unit.plan.encrypt_plan.n, lanes=16, inner_n=64,
                                      inner_units=2)
    plan, latency = engine.four_step, engine.mul_latency
    trace = spaced_trace(plan, latency, [s - starts[0] for s in starts])
    assert trace["stalls"] == 0
    u = trace["unload_starts"]
    assert [x - u[0] for x in u] == [s - starts[0] for s in starts]


def test_lone_spacing_is_the_engines_back_to_back_rate_or_more():
    kw = dict(lanes=16, inner_n=64, inner_units=2, mult_stages=None, tiled=True)
    forward = StreamingFourStepNTTPlan(4096, **kw)
    t = EngineTiming.of(forward, StreamingFourStepNTTPlan(4096, inverse=True, **kw))
    assert t.beats == 256 <= t.spacing_forward == lone_spacing(forward)
    assert t.lo_forward > t.beats


@pytest.mark.parametrize("params, error, match", [
    (dict(scheme="rsa"), ValueError, "scheme"),
    (dict(group=3), TypeError, "group"),
    (dict(group="huge"), ValueError, "group"),
    (dict(lanes=8, inner_n=4), ValueError, "lanes"),
    (dict(inner_n=128), ValueError, "inner_n"),
    (dict(inner_units=3), ValueError, "inner_units"),
    (dict(max_n=8, inner_n=4), ValueError, "max_n"),
    (dict(scheme="cnt", group=E(100, 10, 200, 1 << 50)), ValueError, "no digit width"),
    (dict(group=E(100, 10, 200, 2)), ValueError, "B_ij .* must fit one word"),
])
def test_refused_parameters_raise_before_hardware(params, error, match):
    args = dict(scheme="cmnt", group=E(12, 20, 230, 2), lanes=2, inner_n=4)
    args.update(params)
    with pytest.raises(error, match=match):
        TransformEncryptPlan(**args)
    with pytest.raises(error, match=match):
        TransformEncrypt(**args)
