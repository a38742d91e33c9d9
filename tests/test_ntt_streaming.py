"""The memory-based streaming NTT ([Cao14] §3.2, [Wang13] §IV) against the golden model, and its
unit timing contract."""

import random
import re

import pytest
from amaranth import Module
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out, connect, flipped
from ecp5_models import dp16kd_model, mult18x18d_model
from helpers import alternating_slow, rng_for, slow_except
from ntt_helpers import assert_equal, random_poly, transform, transforms_back_to_back

from fhe_hw.arith import ModMul, ModMulPlan
from fhe_hw.component import Component
from fhe_hw.flow.synth import OutOfContextPlatform
from fhe_hw.lib.bram import dp16kd_shape
from fhe_hw.model.ntt import ntt_radix2
from fhe_hw.ntt import Butterfly, ButterflyPlan, StreamingNTT
from fhe_hw.ntt.schedule import MAX_N, MIN_N
from fhe_hw.ntt.streaming import StreamingNTTPlan, shared_twiddle_rom
from fhe_hw.params import MODULI, ntt_params, ntt_primes
from fhe_hw.sim.icarus import require_iverilog, run_from_reset
from fhe_hw.sim.pysim import run_fixed_latency, run_stream
from fhe_hw.sim.vectors import vectors_for
from fhe_hw.units import get_unit

PRIME60 = ntt_primes(60, 1 << 16, 1)[0]
MODULI_ALL = [*MODULI, PRIME60]
#: (n, P) per modulus: fermat32 has only 64th roots modulo 641 for negacyclic (128 | 640).
SIZES = {"fermat32": (32, 2), "fermat64": (64, 4), "solinas64": (64, 1), "general32": (64, 2),
         PRIME60: (128, 4)}


# --- transforms against the model ----------------------------------------------------------------

def _every_direction_in_turn():
    """Every modulus with every direction and cyclicity: in the fast suite each modulus with one
    of the four in turn (so that each of the four runs), the others in the slow suite."""
    kinds = [(False, False), (False, True), (True, False), (True, True)]
    return [pytest.param(m, inv, neg, id=f"{m}-{'inverse' if inv else 'forward'}-"
                         f"{'negacyclic' if neg else 'cyclic'}",
                         marks=() if j == i % len(kinds) else pytest.mark.slow)
            for i, m in enumerate(MODULI_ALL) for j, (inv, neg) in enumerate(kinds)]


@pytest.mark.parametrize("modulus, inverse, negacyclic", _every_direction_in_turn())
def test_transform_matches_model_bit_exactly(modulus, inverse, negacyclic):
    n, P = SIZES[modulus]
    unit = StreamingNTT(n, modulus, butterflies=P, inverse=inverse, negacyclic=negacyclic)
    x = random_poly(unit.modulus, n, inverse, negacyclic)
    got, _ = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic),
                 f"StreamingNTT({n}, {modulus}, P={P}, inverse={inverse}, neg={negacyclic})")


# The round trip at two moduli in the fast suite (every modulus's transforms match the model in
# both directions above), at the others in the slow suite.
@pytest.mark.parametrize("modulus", slow_except([(m,) for m in MODULI_ALL],
                                                fast=[("general32",), ("solinas64",)]), ids=str)
def test_inverse_of_forward_is_identity(modulus):
    n, P = SIZES[modulus]
    x = random_poly(get_p(modulus), n, "roundtrip")
    fwd, _ = transform(StreamingNTT(n, modulus, butterflies=P, negacyclic=True), x)
    back, _ = transform(StreamingNTT(n, modulus, butterflies=P, negacyclic=True, inverse=True),
                        fwd)
    assert_equal(back, x, f"inverse(forward(x)) for {modulus}, n={n}")


def get_p(modulus):
    return ntt_params(modulus, 16).p


@pytest.mark.parametrize("n,P,modulus", slow_except(
    [(256, 4, "solinas64"), (64, 1, "general32"), (128, 2, PRIME60)],
    fast=[(64, 1, "general32")]))
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
    (128, 4, 2, False, True), (256, 2, None, True, False),
    pytest.param(256, 8, 16, True, True, marks=pytest.mark.slow)])
def test_simulated_cycles_equal_cycles(n, P, lanes, negacyclic, inverse):
    unit = StreamingNTT(n, "solinas64", butterflies=P, lanes=lanes, negacyclic=negacyclic,
                        inverse=inverse)
    x = random_poly(unit.modulus, n, "cycles")
    got, run = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), "cycles run")
    params = {"n": n, "butterflies": P, "lanes": lanes, "negacyclic": negacyclic,
              "inverse": inverse}
    assert run.cycles == unit.cycles() == get_unit("ntt").cycles(params)


@pytest.mark.parametrize("negacyclic", [True, False])
def test_unscaled_inverse_is_n_times_the_inverse_without_up_multipliers(negacyclic):
    """scaled=False leaves n^-1 to the caller: the output is n times the model's, and the
    butterflies have no up-multiplier (the negacyclic inverse's Gentleman–Sande butterfly then
    has the scaled one's latency; the cyclic Fig. 2 butterfly one cycle less)."""
    kw = dict(butterflies=2, inverse=True, negacyclic=negacyclic)
    unit = StreamingNTT(64, "general32", scaled=False, **kw)
    scaled = StreamingNTT(64, "general32", **kw)
    assert unit.cycles() == scaled.cycles() - 6 * (not negacyclic)
    x = random_poly(unit.modulus, 64, "unscaled", True, negacyclic)
    got, run = transform(unit, x)
    p = unit.modulus
    assert_equal(got, [v * 64 % p for v in ntt_radix2(x, unit.params, True, negacyclic)],
                 "unscaled inverse")
    assert run.cycles == unit.cycles()


class _SharedPair(Component):
    """A forward and an unscaled inverse engine reading one twiddle ROM (``shared_twiddles``),
    each with its own streams."""

    def __init__(self, n, modulus, P):
        self.fwd = StreamingNTT(n, modulus, butterflies=P, negacyclic=True, shared_twiddles=True)
        self.inv = StreamingNTT(n, modulus, butterflies=P, negacyclic=True, inverse=True,
                                scaled=False, shared_twiddles=True)
        beats = stream.Signature(self.fwd.i.payload.shape())
        super().__init__({"i_f": In(beats), "o_f": Out(beats), "i_i": In(beats),
                          "o_i": Out(beats)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.fwd, m.submodules.inv = self.fwd, self.inv
        self.rom = shared_twiddle_rom(m, "twiddles", [self.fwd, self.inv])
        connect(m, flipped(self.i_f), self.fwd.i)
        connect(m, self.fwd.o, flipped(self.o_f))
        connect(m, flipped(self.i_i), self.inv.i)
        connect(m, self.inv.o, flipped(self.o_i))
        return m


@pytest.mark.parametrize("n,P,modulus", [(32, 1, "general32"), (64, 2, PRIME60)])
def test_forward_and_inverse_sharing_one_twiddle_rom_match_the_model(n, P, modulus):
    """The inverse reads the forward table through the ROM's second port, its addresses mapped
    to brv(n - brv(a)) and its differences negated: both match the model (the inverse n
    times it) at the same time, in their own cycles, under random valid and ready."""
    unit = _SharedPair(n, modulus, P)
    p, lanes = unit.fwd.modulus, unit.fwd.lanes
    x = random_poly(p, n, "shared", False, True)
    y = random_poly(p, n, "shared", True, True)
    beats = lambda v: [v[i:i + lanes] for i in range(0, n, lanes)]  # noqa: E731
    run = run_stream(unit, {"i_f": beats(x), "i_i": beats(y)},
                     {"o_f": n // lanes, "o_i": n // lanes}, seed=7, valid_prob=0.8,
                     ready_prob=0.7)
    flat = {k: [c for beat in v for c in beat] for k, v in run.outputs.items()}
    assert_equal(flat["o_f"], ntt_radix2(x, unit.fwd.params, False, True), "shared forward")
    assert_equal(flat["o_i"], [v * n % p for v in ntt_radix2(y, unit.inv.params, True, True)],
                 "shared inverse")
    assert len(unit.rom.ports) == 2 * P


@pytest.mark.parametrize("kw,match", [
    ({"negacyclic": False}, "shared_twiddles needs a negacyclic transform"),
    ({"negacyclic": True, "inverse": True}, "shared_twiddles needs scaled=False")])
def test_shared_twiddles_refuse_what_the_forward_table_cannot_give(kw, match):
    with pytest.raises(ValueError, match=match):
        StreamingNTTPlan(64, "general32", shared_twiddles=True, **kw)


def test_a_shared_rom_refuses_an_inverse_first_or_engines_of_two_primes():
    inv = StreamingNTT(64, "general32", negacyclic=True, inverse=True, scaled=False,
                       shared_twiddles=True)
    other = StreamingNTT(64, PRIME60, negacyclic=True, shared_twiddles=True)
    with pytest.raises(ValueError, match="the first a forward engine"):
        shared_twiddle_rom(Module(), "t", [inv])
    with pytest.raises(ValueError, match="one n, prime, root"):
        shared_twiddle_rom(Module(), "t", [other, inv])


@pytest.mark.parametrize("inverse,negacyclic", [(False, True), (True, True), (True, False)])
def test_tiled_engine_matches_model_in_the_same_cycles(inverse, negacyclic):
    kw = dict(butterflies=4, inverse=inverse, negacyclic=negacyclic)
    unit = StreamingNTT(64, "solinas64", tiled=True, **kw)
    assert unit.cycles() == StreamingNTT(64, "solinas64", **kw).cycles()
    x = random_poly(unit.modulus, 64, "tiled", inverse, negacyclic)
    got, run = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), "tiled engine")
    assert run.cycles == unit.cycles() == get_unit("ntt").cycles({"n": 64, "tiled": True, **kw})


@pytest.mark.parametrize("inverse,negacyclic", [(False, False), (True, True)])
def test_karatsuba_engine_matches_model_three_cycles_later_per_stage(inverse, negacyclic):
    # The butterflies' ModMuls take three cycles more: each of the log2(64) = 6 stages drains
    # three cycles later.
    kw = dict(butterflies=4, inverse=inverse, negacyclic=negacyclic)
    unit = StreamingNTT(64, "solinas64", karatsuba=True, **kw)
    added = 3 * 6
    assert unit.cycles() == StreamingNTT(64, "solinas64", **kw).cycles() + added
    x = random_poly(unit.modulus, 64, "karatsuba", inverse, negacyclic)
    got, run = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), "karatsuba engine")
    assert run.cycles == unit.cycles() == get_unit("ntt").cycles(
        {"n": 64, "karatsuba": True, **kw})


def _depth_matches_model(knob, depth, added, key, **kw):
    """A 64-point engine with ``knob`` (read_stages or write_stages) = ``depth``: ``added``
    cycles more than with 0, its output equal to the model for the input of ``key``, and its
    simulated cycles equal to cycles(), the plan's cycles() and the unit contract's."""
    n, depth_kw = 64, {knob: depth}
    unit = StreamingNTT(n, "solinas64", **depth_kw, **kw)
    assert getattr(unit, knob) == depth
    assert unit.cycles() == StreamingNTT(n, "solinas64", **{knob: 0}, **kw).cycles() + added
    x = random_poly(unit.modulus, n, *key)
    got, run = transform(unit, x)
    inverse, negacyclic = kw["inverse"], kw["negacyclic"]
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), f"{knob}={depth}")
    assert run.cycles == unit.cycles() == StreamingNTTPlan(
        n, "solinas64", **depth_kw, **kw).cycles() == get_unit("ntt").cycles({"n": n, **depth_kw,
                                                                              **kw})


READ_DEPTH_ENGINES = [(1, True, True), (4, False, True), (8, True, False)]


# Every depth in the fast suite, each with one of the engines in turn; the other combinations in
# the slow suite.
@pytest.mark.parametrize("read_stages, P, negacyclic, inverse", [
    pytest.param(depth, *engine, marks=() if k == depth % len(READ_DEPTH_ENGINES) else
                 pytest.mark.slow)
    for depth in range(5) for k, engine in enumerate(READ_DEPTH_ENGINES)])
def test_every_read_depth_matches_model_in_cycles(read_stages, P, negacyclic, inverse):
    # 0 and 4 are the edge values. The address register adds one cycle to the unload; each
    # register after the banks one per stage (six of them) and one to the unload.
    _depth_matches_model("read_stages", read_stages, read_stages + 6 * max(read_stages - 1, 0),
                         ("read_stages", P, negacyclic, inverse),
                         butterflies=P, negacyclic=negacyclic, inverse=inverse)


def test_default_read_depth_is_three():
    assert StreamingNTT(64).read_stages == 3


# Each engine with one write depth in turn in the fast suite (both depths run), with the other in
# the slow suite.
@pytest.mark.parametrize("P,negacyclic,inverse,read_stages,write_stages", alternating_slow(
    [(1, True, True, 3), (4, False, True, 0), (8, True, False, 3), (2, False, False, 1)],
    flags=(0, 1)))
def test_every_write_depth_matches_model_in_cycles(write_stages, P, negacyclic, inverse,
                                                   read_stages):
    # The write-back register adds one cycle to each of the six stages' drains.
    _depth_matches_model("write_stages", write_stages, 6 * write_stages,
                         ("write_stages", write_stages, P, negacyclic, inverse),
                         butterflies=P, negacyclic=negacyclic, inverse=inverse,
                         read_stages=read_stages)


@pytest.mark.parametrize("n, P, lanes, negacyclic, inverse", [
    (16, 1, None, False, False), (32, 2, 2, True, True)])
def test_the_next_transform_starts_one_period_after_the_first(n, P, lanes, negacyclic, inverse):
    """Two transforms back to back end one transform's cycles() after the second's start,
    which is period() after the first's (schedule.period)."""
    unit = StreamingNTT(n, "general32", butterflies=P, lanes=lanes, negacyclic=negacyclic,
                        inverse=inverse)
    xs = [random_poly(unit.modulus, n, "period", k) for k in range(2)]
    run = transforms_back_to_back(unit, xs, inverse, negacyclic)
    assert run.cycles == unit.plan.period() + unit.cycles()


# --- ping-pong: two sets of banks -----------------------------------------------------------------

@pytest.mark.parametrize("n, P, lanes, negacyclic, inverse, read_stages, write_stages", [
    (16, 1, None, False, False, 3, 1), (32, 2, None, True, True, 3, 1),
    (64, 2, 2, True, False, 0, 0), (64, 4, None, False, True, 4, 1),
    (32, 2, 1, True, True, 2, 0)])
def test_ping_pong_takes_one_compute_phase_per_transform(n, P, lanes, negacyclic, inverse,
                                                         read_stages, write_stages):
    """One transform takes cycles(), one cycle more than without ping-pong; three back to back
    each take one compute phase more (period() = compute_cycles(), the load and unload hidden
    behind the other set's compute phase), all equal to the model."""
    kw = {"butterflies": P, "lanes": lanes, "negacyclic": negacyclic, "inverse": inverse,
          "read_stages": read_stages, "write_stages": write_stages}
    unit = StreamingNTT(n, "general32", ping_pong=True, **kw)
    plain = StreamingNTTPlan(n, "general32", **kw)
    assert unit.plan.period() == unit.plan.compute_cycles() == \
        plain.period() - 2 * (n // unit.lanes)
    assert unit.cycles() == plain.cycles() + 1
    x = random_poly(unit.modulus, n, "ping-pong")
    got, run = transform(unit, x)
    assert_equal(got, ntt_radix2(x, unit.params, inverse, negacyclic), "one transform")
    assert run.cycles == unit.cycles()
    unit = StreamingNTT(n, "general32", ping_pong=True, **kw)
    xs = [random_poly(unit.modulus, n, "ping-pong", k) for k in range(3)]
    run = transforms_back_to_back(unit, xs, inverse, negacyclic)
    assert run.cycles == unit.cycles() + 2 * unit.plan.period()


@pytest.mark.parametrize("n, P, lanes, inverse", [(32, 2, None, False), (16, 1, 1, True)])
def test_ping_pong_streams_under_random_valid_and_ready(n, P, lanes, inverse):
    """Four transforms under random valid and ready (the sets swap after a load or an unload
    that waited, and with one set empty or one full) come out equal to the model."""
    unit = StreamingNTT(n, "general32", butterflies=P, lanes=lanes, negacyclic=True,
                        inverse=inverse, ping_pong=True)
    xs = [random_poly(unit.modulus, n, "ping-pong-random", k) for k in range(4)]
    transforms_back_to_back(unit, xs, inverse, True, valid_prob=0.3, ready_prob=0.4)


def test_ping_pong_refuses_a_compute_phase_shorter_than_its_transfers():
    """n = 64 with 32 butterflies and one lane: 128 cycles of load and unload against a
    shorter compute phase, which the plan computes; refused before anything is built."""
    plan = StreamingNTTPlan(64, "general32", butterflies=32, lanes=1)
    assert plan.compute_cycles() < 128
    with pytest.raises(ValueError, match=r"ping_pong needs the compute phase \(\d+ cycles\) "
                       r"at least as long as a load and an unload \(2·n/lanes = 128\)"):
        StreamingNTTPlan(64, "general32", butterflies=32, lanes=1, ping_pong=True)
    with pytest.raises(TypeError, match="ping_pong"):
        StreamingNTTPlan(64, "general32", ping_pong="yes")


def test_default_write_depth_is_one():
    assert StreamingNTT(64).write_stages == 1


@pytest.mark.parametrize("write_stages", [0, 1])
def test_every_write_depth_streams_under_back_pressure(write_stages):
    n, P = 64, 4
    unit = StreamingNTT(n, "solinas64", butterflies=P, lanes=4, write_stages=write_stages)
    xs = [random_poly(unit.modulus, n, "ws-b2b", write_stages, k) for k in range(2)]
    transforms_back_to_back(unit, xs, valid_prob=0.6, ready_prob=0.5)


@pytest.mark.parametrize("read_stages", [0, 3, 4])
def test_every_read_depth_streams_under_back_pressure(read_stages):
    n, P = 32, 2
    unit = StreamingNTT(n, "general32", butterflies=P, negacyclic=True, inverse=True,
                        read_stages=read_stages)
    xs = [random_poly(unit.modulus, n, "rs-b2b", read_stages, k) for k in range(2)]
    transforms_back_to_back(unit, xs, True, True, valid_prob=0.7, ready_prob=0.4)


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


def _valid_trace(port, trace):
    """A monitor that records ``port``'s (valid, ready) at every clock edge."""
    async def monitor(ctx):
        async for _, _, valid, ready in ctx.tick().sample(port.valid, port.ready):
            trace.append((valid, ready))
    return monitor


@pytest.mark.parametrize("inverse", [False, True])
def test_registered_valid_streams_the_same_beats_in_the_same_cycles(inverse):
    """With ``registered_valid`` the output's valid is a register of its own: under the same
    random valid and ready, two transforms back to back leave in the same beats, with valid
    high in the same cycles, as from the engine without it, and match the model."""
    n, P = 32, 2
    traces = []
    for registered in (False, True):
        unit = StreamingNTT(n, "general32", butterflies=P, negacyclic=True, inverse=inverse,
                            registered_valid=registered)
        xs = [random_poly(unit.modulus, n, "registered", inverse, k) for k in range(2)]
        traces.append([])
        run = transforms_back_to_back(unit, xs, inverse, True, valid_prob=0.6, ready_prob=0.5,
                                      monitors=[_valid_trace(unit.o, traces[-1])])
    without, with_register = traces
    assert with_register == without and any(v for v, _ in without)
    assert run.last_output < len(without)


def test_back_to_back_transforms_stream_through():
    n = 32
    unit = StreamingNTT(n, "solinas64", butterflies=2)
    xs = [random_poly(unit.modulus, n, "b2b", k) for k in range(3)]
    transforms_back_to_back(unit, xs, valid_prob=0.8, ready_prob=0.5)


# --- bank reads never meet a write of their address (the ECP5 form's block RAM) -----------------

# Every read depth, both write depths and each direction in the fast suite; four more rows at 128
# and 256 points in the slow suite.
@pytest.mark.parametrize("n,P,inverse,negacyclic,read_stages,write_stages,ping_pong", [
    (16, 1, False, False, 3, 1, False), (16, 4, True, True, 3, 1, False),
    (32, 1, True, True, 0, 0, False), (64, 2, True, False, 3, 1, False),
    (64, 4, False, True, 2, 0, False), (128, 2, False, False, 1, 1, False),
    (32, 4, True, True, 4, 1, False), (128, 2, True, True, 3, 1, True),
    (64, 2, False, True, 0, 0, True),
    *(pytest.param(*row, marks=pytest.mark.slow) for row in (
        (256, 8, True, True, 4, 1, False), (128, 4, True, True, 3, 1, False),
        (256, 8, False, True, 3, 1, False), (256, 4, True, False, 3, 0, False)))])
def test_no_bank_read_meets_a_write_of_its_address(n, P, inverse, negacyclic, read_stages,
                                                   write_stages, ping_pong):
    """A read of the word written in the same cycle is undefined on the DP16KD; the banks'
    ECP5 form reads the old word all the same (RegisteredRAM's bypass), and the engine does
    not even rely on it: over two back-to-back transforms under random valid and ready, every
    bank's enabled read address differs from its write address in every cycle where both
    ports are used. One-word banks (P = n/2) are flip-flops on the ECP5 too; there the last
    unload read and the next load's first write do meet."""
    unit = StreamingNTT(n, "solinas64", butterflies=P, inverse=inverse, negacyclic=negacyclic,
                        read_stages=read_stages, write_stages=write_stages, ping_pong=ping_pong)
    hits, both = [], [0]

    async def monitor(ctx):
        ports = [s for bank in unit.banks for s in (bank.w_en, bank.w_addr, bank.r_en,
                                                     bank.r_addr)]
        cycle = 0
        async for _, _, *v in ctx.tick().sample(*ports):
            for k in range(len(unit.banks)):
                w_en, w_addr, r_en, r_addr = v[4 * k:4 * k + 4]
                if w_en and r_en and unit.banks[k].depth > 1:
                    both[0] += 1
                    if w_addr == r_addr:
                        hits.append((cycle, k, w_addr))
            cycle += 1

    xs = [random_poly(unit.modulus, n, "collide", P, k) for k in range(2)]
    transforms_back_to_back(unit, xs, inverse, negacyclic, valid_prob=0.7, ready_prob=0.5,
                            monitors=[monitor])
    assert not hits, f"read and write of the same bank word in one cycle (cycle, bank, address)" \
        f": {hits[:4]}"
    assert both[0] > 0          # the ports were used together: the check saw something


# Four butterflies (eight bank pairs and two twiddle-ROM copies) at 64 points in the slow suite;
# the fast suite's inverse negacyclic rows (Gentleman–Sande, scaled and not) at two.
@pytest.mark.parametrize("params", [{"n": 32, "butterflies": 2},
                                    {"n": 32, "butterflies": 2, "inverse": True,
                                     "negacyclic": True},
                                    {"n": 32, "butterflies": 2, "inverse": True,
                                     "negacyclic": True, "scaled": False},
                                    pytest.param({"n": 64, "butterflies": 4, "inverse": True,
                                                  "negacyclic": True}, marks=pytest.mark.slow),
                                    {"n": 32, "butterflies": 2, "karatsuba": True},
                                    {"n": 32, "butterflies": 2, "ping_pong": True}])
def test_ecp5_form_matches_the_model_from_reset_in_icarus(params, tmp_path):
    """The engine as the ECP5 flow elaborates it (DP16KD banks and ROMs with their output
    register, the ROMs' words in the DP16KDs' INITVALs, MULT18X18D tiles), with behavioural
    models of both primitives, from reset with every register and RAM word at x, in exactly
    cycles()."""
    require_iverilog()
    build = lambda: StreamingNTT(modulus="solinas64", tiled=True, **params)  # noqa: E731
    unit = build()
    vectors = vectors_for("ntt")(unit, random.Random(f"ecp5:{params}"), 2)
    counts = {port: len(beats) for port, beats in vectors.expected.items()}
    result = run_from_reset(build(), "ntt", vectors.inputs, counts, tmp_path,
                            platform=OutOfContextPlatform("ecp5"),
                            libraries=[dp16kd_model(), mult18x18d_model()],
                            max_cycles=4 * unit.cycles())
    n, P = unit.n, unit.butterflies
    roms = -(-P // 2) * dp16kd_shape(64, n)[1]                     # the twiddle ROM's copies
    sets = 2 if params.get("ping_pong") else 1
    assert (tmp_path / "unit.v").read_text().count("DP16KD #(") == \
        sets * 2 * P * dp16kd_shape(64, n // (2 * P))[1] + roms
    assert result.outputs["o"] == vectors.expected["o"]


def test_properties_report_the_parameters():
    unit = StreamingNTT(64, "general32", butterflies=2, lanes=2, negacyclic=True, inverse=True)
    assert (unit.n, unit.butterflies, unit.lanes, unit.negacyclic, unit.inverse) == \
        (64, 2, 2, True, True)
    assert unit.modulus == MODULI["general32"].value
    assert (unit.plan.butterfly.form, unit.plan.butterfly.up_multiplier) == ("gs", True)
    assert StreamingNTT(64).plan.butterfly.form == "ct"
    unscaled = StreamingNTTPlan(64, "general32", negacyclic=True, inverse=True, scaled=False)
    assert not unscaled.butterfly.up_multiplier


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


@pytest.mark.parametrize("read_stages,error,match", [
    (-1, ValueError, "read_stages must be at least 0"),
    (5, ValueError, "read_stages must be at most 4"),
    (True, TypeError, "read_stages must be an integer"),
    (1.0, TypeError, "read_stages must be an integer"),
    (None, TypeError, "read_stages must be an integer")])
def test_rejects_bad_read_stages_before_building(read_stages, error, match):
    for fn in (StreamingNTT, StreamingNTTPlan):
        with pytest.raises(error, match=match):
            fn(64, read_stages=read_stages)


@pytest.mark.parametrize("write_stages,error,match", [
    (-1, ValueError, "write_stages must be at least 0"),
    (2, ValueError, "write_stages must be at most 1"),
    (True, TypeError, "write_stages must be an integer"),
    (None, TypeError, "write_stages must be an integer")])
def test_rejects_bad_write_stages_before_building(write_stages, error, match):
    for fn in (StreamingNTT, StreamingNTTPlan):
        with pytest.raises(error, match=match):
            fn(64, write_stages=write_stages)


# --- timing contract -----------------------------------------------------------------------------

@pytest.mark.parametrize("params", [
    {}, {"n": 16, "butterflies": 8}, {"n": 65536, "butterflies": 4},
    {"n": 4096, "butterflies": 2, "lanes": 1, "negacyclic": True, "inverse": True},
    {"n": 256, "modulus": "general32", "inverse": True, "mult_stages": 2},
    {"n": 64, "modulus": "fermat64", "butterflies": 4, "inverse": True, "tiled": True},
    {"n": 128, "modulus": str(PRIME60), "negacyclic": True, "inverse": True, "mult_stages": 0},
    {"n": 64, "modulus": "fermat32", "butterflies": 16, "lanes": 8, "mult_stages": 6}])
def test_contract_cycles_equal_the_built_engine(params):
    unit = get_unit("ntt")
    built = unit.build(**params)
    assert unit.cycles(params) == built.cycles()
    assert unit.latency(params) is None


def test_pure_cycles_take_the_reducer_too():
    kw = dict(butterflies=2, negacyclic=True, inverse=True, reducer="barrett")
    built = StreamingNTT(256, "solinas64", **kw)
    assert StreamingNTTPlan(256, "solinas64", **kw).cycles() == built.cycles() != \
        StreamingNTT(256, "solinas64", butterflies=2, negacyclic=True, inverse=True).cycles()


def test_contract_describes_one_transform_only():
    with pytest.raises(TypeError):
        get_unit("ntt").cycles({}, count=2)


@pytest.mark.parametrize("params,error,match", [
    ({"n": 48}, ValueError, "n must be a power of two"),
    ({"n": 8}, ValueError, "n must be between"),
    ({"n": 64, "butterflies": 3}, ValueError, "butterflies must be a power of two"),
    ({"n": 16, "butterflies": 16}, ValueError, "butterflies must be at most n/2"),
    ({"n": 64, "butterflies": 2, "lanes": 8}, ValueError, "lanes must be at most"),
    ({"n": 256, "modulus": "fermat32"}, ValueError, "primitive 256-th root of unity"),
    ({"n": 64, "inverse": 1}, TypeError, "inverse must be a bool"),
    ({"n": 64, "tiled": "yes"}, TypeError, "tiled must be a bool"),
    ({"n": 64, "mult_stages": -1}, ValueError, "mult_stages must be at least 0"),
    ({"n": 64, "read_stages": 5}, ValueError, "read_stages must be at most 4"),
    ({"n": 64, "write_stages": 2}, ValueError, "write_stages must be at most 1"),
    ({"n": 64, "scaled": False}, ValueError, "scaled=False applies to the inverse only"),
    ({"n": 64, "inverse": True, "scaled": 0}, TypeError, "scaled must be a bool")])
def test_contract_rejects_what_the_engine_rejects(params, error, match):
    unit = get_unit("ntt")
    for fn in (unit.build, lambda **p: unit.cycles(p), lambda **p: unit.latency(p)):
        with pytest.raises(error, match=match):
            fn(**params)


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
@pytest.mark.parametrize("reducer", ["auto", "barrett", "montgomery", "special", "solinas"])
@pytest.mark.parametrize("mult_stages,pipelined", [(4, True), (0, True), (3, False)])
def test_modmul_and_butterfly_latency_of_equal_the_built_units(modulus, reducer, mult_stages,
                                                               pipelined):
    kw = dict(mult_stages=mult_stages, pipelined=pipelined)
    try:
        mul = ModMul(modulus, reducer, **kw)
    except ValueError as e:         # a reducer that does not fit the modulus
        with pytest.raises(ValueError, match=re.escape(str(e))):
            ModMulPlan(modulus, reducer, **kw)
        return
    assert ModMulPlan(modulus, reducer, **kw).latency == mul.latency == \
        mult_stages + mul.reducer_unit.latency
    if pipelined:
        bf = Butterfly(modulus, scale_up=True, mult_stages=mult_stages, reducer=reducer)
        assert ButterflyPlan(modulus, scale_up=True, mult_stages=mult_stages,
                             reducer=reducer).latency == bf.latency


@pytest.mark.parametrize("args,kw", [
    (("general32", "montgomery"), {"word": 25, "pipelined": False}),
    (("solinas64", "barrett"), {"alpha": 10}), (("general32", "nope"), {}),
    (("general32", "special"), {}), (("general32", "solinas"), {}),
    (("general32",), {"tiled": "yes"}), (("general32",), {"mult_stages": -1}),
    (("general32",), {"pipelined": 1})])
def test_modmul_latency_of_rejects_what_the_constructor_rejects(args, kw):
    with pytest.raises((TypeError, ValueError)) as built:
        ModMul(*args, **kw)
    with pytest.raises(built.type, match=re.escape(str(built.value))):
        ModMulPlan(*args, **kw)


# --- an engine shared by several primes (moduli) ------------------------------------------------

@pytest.mark.parametrize("n, P, inverse, scaled, valid", [
    (16, 2, False, True, 1.0), (32, 1, True, True, 1.0), (16, 2, True, False, 0.6)])
def test_an_engine_with_moduli_takes_its_primes_in_turn(n, P, inverse, scaled, valid):
    """Four transforms back to back through an engine of three primes: the t-th is the
    model's mod the (t mod 3)-th prime, with that prime's roots (the ``openfhe`` convention),
    in one engine's cycles() and then one period each (and under random valid and ready)."""
    primes = ntt_primes(30, 1 << 16, 3)
    unit = StreamingNTT(n, primes[0], butterflies=P, negacyclic=True, inverse=inverse,
                        scaled=scaled, moduli=primes, root="openfhe")
    assert [r.p for r in unit.plan.moduli_roots] == list(primes)
    assert len(unit.twiddle_words()) == 3 * n
    xs = [random_poly(primes[t % 3], n, "moduli", t) for t in range(4)]
    beats = [x[i:i + unit.lanes] for x in xs for i in range(0, n, unit.lanes)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, valid_prob=valid, ready_prob=valid,
                     seed=7)
    flat = [v for beat in run.outputs["o"] for v in beat]
    for t, x in enumerate(xs):
        roots = ntt_params(primes[t % 3], n, negacyclic=True, root="openfhe")
        want = ntt_radix2(x, roots, inverse, True)
        if not scaled:
            want = [w * n % roots.p for w in want]
        assert_equal(flat[t * n:(t + 1) * n], want, f"transform {t}")
    if valid == 1.0:
        assert run.cycles == unit.cycles() + 3 * unit.plan.period()


@pytest.mark.parametrize("kw, match", [
    ({"moduli": (1073479681,)}, "moduli must start with modulus"),
    ({"moduli": 1073741441}, "moduli must be a non-empty sequence"),
    ({"moduli": (1073741441, "1073740609")}, "moduli must be an integer"),
    ({"moduli": (1073741441, 1073740609), "negacyclic": False}, "needs a negacyclic"),
    ({"moduli": (1073741441, 1073740609), "ping_pong": True}, "not apply with ping_pong"),
    ({"moduli": (1073741441, 1073740609),
      "psi": ntt_params(1073741441, 16, negacyclic=True).psi}, "not psi or omega"),
    ({"moduli": (1073741441, 8380417)}, "moduli must include modulus .* 30 bits"),
    ({"moduli": (1073741441, 1073741443)}, "1073741443 has no primitive 32-th root")])
def test_moduli_refuse_what_the_shared_engine_does_not_take(kw, match):
    kw = {"negacyclic": True, **kw}
    with pytest.raises((ValueError, TypeError), match=match):
        StreamingNTTPlan(16, 1073741441, **kw)
