"""StreamingFourStepNTT ([Wang13] §IV-C, generalised to n = n1·m²) and its plan: the bank maps
are conflict free and one-to-one for every size, the engine equals the O(n^2) DFT with the
Wang–Huang root at small m in pysim (back to back, inverse, random valid/ready), and cycles()
equals the simulation."""

import pytest
from helpers import rng_for

from fhe_hw.model.ntt import dft, idft, wang_huang_ntt, wang_huang_root
from fhe_hw.ntt.four_step_plan import FourStepPlan, _ControlModel, control_cycles
from fhe_hw.ntt.four_step_stream import StreamingFourStepNTT, StreamingFourStepNTTPlan
from fhe_hw.params import SOLINAS64 as P
from fhe_hw.sim.icarus import require_iverilog, run_from_reset
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit

PLANS = [FourStepPlan(m, n1, lanes) for m in (2, 4, 8) for n1 in (1, 2, 4, 8, 16)
         for lanes in (1, 2, 4, 8) if lanes <= m] + [FourStepPlan(64, 16, 16),
                                                      FourStepPlan(64, 1, 8)]


def _accesses(p):
    """(buffer, [indices of the lanes]) of every beat of every access pattern."""
    L = p.lanes
    for t in range(p.beats):
        yield 0, [p.load_index(t, j) for j in range(L)]
        yield (3 if p.n1 > 1 else 2), [p.unload_index(t, j) for j in range(L)]
    for a in range(p.n1):
        for q in range(p.inner_n):
            for c in range(p.m_beats):
                yield 0, [p.p1_read_index(a, q, c, j) for j in range(L)]
                yield 1, [p.p1_write_index(q, c, j) for j in range(L)]
                yield 1, [p.p2_read_index(q, c, j) for j in range(L)]
                yield 2, [p.p2_write_index(a, q, c, j) for j in range(L)]
    if p.n1 > 1:
        for s, c in p.p3_steps():
            yield 2, [p.p3_read_index(s, c, j) for j in range(L)]
            yield 3, [p.p3_write_index(s, c, j) for j in range(L)]


@pytest.mark.parametrize("p", PLANS, ids=lambda p: f"m{p.inner_n}-n1_{p.n1}-L{p.lanes}")
def test_every_beat_puts_lane_j_in_bank_j_xor_one_fold(p):
    if p.n > 4096 and p.inner_n < 64:
        pytest.skip("covered by the smaller plans")
    banks = {0: p.bank0, 1: p.bank1, 2: p.bank2, 3: p.bank3}
    for buf, indices in _accesses(p):
        fold = banks[buf](indices[0])
        assert [banks[buf](i) for i in indices] == [j ^ fold for j in range(p.lanes)], buf


@pytest.mark.parametrize("p", PLANS, ids=lambda p: f"m{p.inner_n}-n1_{p.n1}-L{p.lanes}")
def test_bank_and_address_are_one_to_one_and_every_pass_covers_its_buffer(p):
    size = {0: p.n, 1: p.inner_n * p.inner_n, 2: p.n, 3: p.n}
    maps = {0: (p.bank0, p.address0), 1: (p.bank1, p.address1), 2: (p.bank2, p.address2),
            3: (p.bank3, p.address3)}
    for buf, (bank, address) in maps.items():
        if buf == 3 and p.n1 == 1:
            continue
        places = {(bank(i), address(i)) for i in range(size[buf])}
        assert len(places) == size[buf]
        assert all(a < size[buf] // p.lanes for _, a in places)
    seen = {}
    for buf, indices in _accesses(p):
        seen.setdefault(buf, []).extend(indices)
    # the load, P1's reads, P2's writes, P3 and the unload each touch every word once per
    # transform (B1 once per block)
    assert sorted(seen[0]) == sorted(list(range(p.n)) * 2)
    assert sorted(seen[1]) == sorted(list(range(p.inner_n * p.inner_n)) * 2 * p.n1)


def _run(unit, xs, **kw):
    L = unit.lanes
    beats = [x[t:t + L] for x in xs for t in range(0, unit.n, L)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, **kw)
    return [w for b in run.outputs["o"] for w in b], run


def _expected(xs, n, inverse):
    w = wang_huang_root(n)
    return [v for x in xs for v in (idft(x, P, w) if inverse else dft(x, P, w))]


# One row per inner size 2 and 4, n1 = 1 and 4 (n1 = 2 in the random valid/ready check), lane
# count, direction and inner-unit count in the fast suite; the longer rows (n1 = 8 and 16, m = 8
# ...) and the second rows of a variant in the slow suite.
@pytest.mark.parametrize("m, n1, lanes, inverse, m_units", [
    (4, 1, 2, False, 1), (2, 4, 1, True, 1), (4, 1, 4, True, 1), (4, 4, 4, True, 2),
    *(pytest.param(*row, marks=pytest.mark.slow) for row in (
        (4, 4, 4, True, 1), (4, 2, 2, False, 1), (4, 1, 2, False, 2),
        (4, 8, 2, False, 1), (2, 16, 2, False, 1), (4, 2, 2, False, 2), (2, 16, 2, False, 2),
        (8, 1, 4, False, 1), (8, 1, 4, True, 2), (2, 4, 1, False, 2))),
])
def test_transforms_back_to_back_equal_the_dft_and_cycles(m, n1, lanes, inverse, m_units):
    n = n1 * m * m
    rng = rng_for("four-step-stream", m, n1, lanes, inverse, m_units)
    xs = [[P - 1] * n, [rng.randrange(P) for _ in range(n)], [rng.randrange(P) for _ in range(n)]]
    unit = StreamingFourStepNTT(n, lanes=lanes, inner_n=m, inner_units=m_units, inverse=inverse)
    got, run = _run(unit, xs)
    assert got == _expected(xs, n, inverse)
    assert run.cycles == unit.cycles(3) == StreamingFourStepNTTPlan(
        n, lanes=lanes, inner_n=m, inner_units=m_units).cycles(transforms=3)


def _negacyclic(xs, n, inverse):
    psi = wang_huang_root(2 * n)
    if inverse:
        return [v * pow(psi, -(i % n), P) % P for i, v in enumerate(_expected(xs, n, True))]
    return _expected([[v * pow(psi, i, P) % P for i, v in enumerate(x)] for x in xs], n, False)


# Forward at m = 4 (n1 = 1) and inverse at m = 2 (n1 = 4) in the fast suite; the other
# direction of each, two inner units and the longer rows in the slow suite.
@pytest.mark.parametrize("m, n1, lanes, inverse, m_units", [
    (4, 1, 2, False, 1), (2, 4, 1, True, 1),
    *(pytest.param(*row, marks=pytest.mark.slow) for row in (
        (4, 1, 2, True, 1), (4, 4, 4, True, 1), (2, 8, 1, True, 1), (4, 4, 2, False, 2),
        (4, 4, 2, False, 1), (2, 16, 2, False, 1), (2, 8, 1, True, 2))),
])
def test_negacyclic_transforms_back_to_back_and_cycles(m, n1, lanes, inverse, m_units):
    """Forward: x_i·ψ^i in P1's twiddle stage; inverse: ψ^-i on the unload (ψ = ω_2n)."""
    n = n1 * m * m
    rng = rng_for("four-step-stream-neg", m, n1, lanes, inverse, m_units)
    xs = [[P - 1] * n, [rng.randrange(P) for _ in range(n)]]
    unit = StreamingFourStepNTT(n, lanes=lanes, inner_n=m, inner_units=m_units, inverse=inverse,
                                negacyclic=True)
    got, run = _run(unit, xs)
    assert got == _negacyclic(xs, n, inverse)
    assert run.cycles == unit.cycles(2) == StreamingFourStepNTTPlan(
        n, lanes=lanes, inner_n=m, inner_units=m_units, inverse=inverse,
        negacyclic=True).cycles(transforms=2)


def _least_primitive_root(order):
    """OpenFHE's rule (RootOfUnity: the least primitive root) apart from the convention code:
    the least odd power of the Wang–Huang root, the odd powers being every primitive root."""
    w = wang_huang_root(order)
    return min(pow(w, j, P) for j in range(1, order, 2))


def test_openfhes_root_gives_the_dft_at_that_root():
    """n = 128 = 8·4^2, the smallest size at which OpenFHE's rule and the Wang–Huang root
    differ; the hardware equals the O(n^2) DFT at the least primitive 128th root."""
    n, w = 128, _least_primitive_root(128)
    unit = StreamingFourStepNTT(n, lanes=4, inner_n=4, root="openfhe")
    assert unit.omega == w != wang_huang_root(n) and unit.psi is None
    xs = [[rng_for("four-step-stream-openfhe").randrange(P) for _ in range(n)]]
    got, run = _run(unit, xs)
    assert got == dft(xs[0], P, w)
    assert run.cycles == unit.cycles(1)


def test_a_given_psi_gives_the_negacyclic_inverse_at_that_root():
    """The inverse negacyclic transform with ψ = OpenFHE's least primitive 128th root (n = 64):
    x_i = ψ^-i·n^-1·Σ_k X_k·ψ^(-2ik), the twist ROM and the shift units from ψ."""
    n, psi = 64, _least_primitive_root(128)
    unit = StreamingFourStepNTT(n, lanes=4, inner_n=4, inverse=True, negacyclic=True, psi=psi)
    assert (unit.psi, unit.omega) == (psi, psi * psi % P)
    assert psi != wang_huang_root(2 * n)
    X = [rng_for("four-step-stream-psi").randrange(P) for _ in range(n)]
    got, _ = _run(unit, [X])
    assert got == [v * pow(psi, -i, P) % P for i, v in enumerate(idft(X, P, psi * psi % P))]


@pytest.mark.parametrize("kw, match", [
    ({"omega": wang_huang_root(16)}, "omega must be a primitive 32-th root of unity"),
    ({"omega": P + wang_huang_root(32)}, "omega must be a primitive 32-th root of unity"),
    ({"negacyclic": True, "psi": wang_huang_root(32)}, "psi must be a primitive 64-th root"),
    ({"negacyclic": True, "omega": wang_huang_root(32)}, "omega is the root of a cyclic"),
    ({"psi": wang_huang_root(64)}, "psi is the root of a negacyclic transform"),
    ({"root": "OpenFHE"}, "root must be one of generator, openfhe, wang-huang"),
])
def test_a_bad_root_is_refused_naming_it(kw, match):
    params = {"n": 32, "inner_n": 4, "lanes": 2, **kw}
    with pytest.raises(ValueError, match=match):
        StreamingFourStepNTT(**params)
    with pytest.raises(ValueError, match=match):
        get_unit("four-step-stream").latency(params)


@pytest.mark.parametrize("m, n1, lanes", [(4, 2, 2), (4, 1, 2)])
def test_one_transform_takes_cycles_1(m, n1, lanes):
    n = n1 * m * m
    unit = StreamingFourStepNTT(n, lanes=lanes, inner_n=m)
    x = [rng_for("one", m, n1).randrange(P) for _ in range(n)]
    got, run = _run(unit, [x])
    assert got == _expected([x], n, False) and run.cycles == unit.cycles(1)


@pytest.mark.parametrize("m, n1, lanes, m_units", [
    (4, 1, 2, 1), (4, 2, 2, 2),
    *(pytest.param(*row, marks=pytest.mark.slow) for row in (
        (2, 8, 2, 1), (4, 2, 2, 1), (2, 8, 2, 2))),
])
def test_random_valid_and_ready_keep_every_result(m, n1, lanes, m_units):
    n = n1 * m * m
    rng = rng_for("four-step-stream-bp", m, n1, lanes, m_units)
    xs = [[rng.randrange(P) for _ in range(n)] for _ in range(3)]
    unit = StreamingFourStepNTT(n, lanes=lanes, inner_n=m, inner_units=m_units)
    got, _ = _run(unit, xs, valid_prob=0.5, ready_prob=0.4, seed=m * n1 + lanes)
    assert got == _expected(xs, n, False)


@pytest.mark.slow
def test_the_4096_point_engine_from_reset_in_icarus(tmp_path):
    """The paper's 4096-point transform (m = 64) at 2 lanes, in Icarus from reset with every
    register at x: equals [Wang13]'s four-step model; cycles = cycles(). (Minutes: the fast
    suite runs the same check at m = 8 below.)"""
    require_iverilog()
    unit = StreamingFourStepNTT(4096, lanes=2)
    x = [P - 1] + [rng_for("four-step-stream-icarus").randrange(P) for _ in range(4095)]
    run = run_from_reset(unit, "four-step-stream", {"i": [x[t:t + 2] for t in range(0, 4096, 2)]},
                         {"o": 2048}, tmp_path)
    assert [w for beat in run.outputs["o"] for w in beat] == wang_huang_ntt(x)
    assert run.cycles == unit.cycles()


@pytest.mark.slow
def test_one_m_8_transform_from_reset_in_icarus(tmp_path):
    """The 4096-point check above at n = m² = 64 (m = 8, 2 lanes): one transform in Icarus
    from reset with every register at x equals the DFT; cycles = cycles(). (The fast suite's
    from-reset check of the unit is ``tests/test_reset.py``'s, at m = 4.)"""
    require_iverilog()
    unit = StreamingFourStepNTT(64, lanes=2, inner_n=8)
    x = [P - 1] + [rng_for("four-step-stream-icarus-8").randrange(P) for _ in range(63)]
    run = run_from_reset(unit, "four-step-stream", {"i": [x[t:t + 2] for t in range(0, 64, 2)]},
                         {"o": 32}, tmp_path)
    assert [w for beat in run.outputs["o"] for w in beat] == _expected([x], 64, False)
    assert run.cycles == unit.cycles()


@pytest.mark.slow
def test_two_m_units_from_reset_in_icarus(tmp_path):
    """P1 and P2 on their own m-units (m = 4, n1 = 4, 2 lanes), two transforms from reset with
    every register at x: equal to the DFT; cycles = cycles(2). (The fast suite's from-reset
    check, ``tests/test_reset.py``, runs one transform on two m-units at n1 = 2.)"""
    require_iverilog()
    unit = StreamingFourStepNTT(64, lanes=2, inner_n=4, inner_units=2)
    rng = rng_for("four-step-stream-icarus-2")
    xs = [[P - 1] * 64, [rng.randrange(P) for _ in range(64)]]
    run = run_from_reset(unit, "four-step-stream", {"i": [x[t:t + 2] for x in xs
                                                         for t in range(0, 64, 2)]},
                         {"o": 64}, tmp_path)
    assert [w for beat in run.outputs["o"] for w in beat] == _expected(xs, 64, False)
    assert run.cycles == unit.cycles(2)


def test_paper_sizes_count_the_issue_goals():
    """The cycle counts at [Wang13]'s sizes (the Verilator runs check them)."""
    c16 = [control_cycles(FourStepPlan(64, 16, 16), 10, t) for t in (1, 2, 3)]
    assert c16[1] - c16[0] == c16[2] - c16[1] == 8192      # back to back: the m-unit's 2n/16
    assert control_cycles(FourStepPlan(64, 1, 16), 10) <= 1100
    c8 = [control_cycles(FourStepPlan(64, 16, 8), 10, t) for t in (1, 2)]
    assert c8[1] - c8[0] == 16384


def test_two_m_units_count_the_first_in_last_out_goals():
    """With P1 and P2 on their own units: 65,536 points first input to last output
    <= 17,000 cycles at 16 lanes and <= 34,000 at 8; back to back n/lanes plus the B2 loop's
    latencies (P2 of transform t + 2 waits for P3 to drain t)."""
    for lanes, goal in ((16, 17000), (8, 34000)):
        plan = FourStepPlan(64, 16, lanes, inner_units=2)
        c = [control_cycles(plan, 10, t) for t in (1, 2, 3)]
        assert c[0] <= goal
        assert c[1] - c[0] == c[2] - c[1] < 65536 // lanes + 256
        assert c[0] < control_cycles(FourStepPlan(64, 16, lanes), 10) - 65536 // lanes // 2


@pytest.mark.parametrize("m, n1, lanes, m_units, twist", [
    (4, 1, 1, 1, 0), (4, 4, 2, 2, 0), (8, 2, 4, 1, 3), (8, 16, 8, 2, 0), (16, 4, 16, 1, 0),
    (64, 1, 16, 1, 10), (64, 4, 16, 2, 0)])
def test_stepping_over_quiet_cycles_gives_what_stepping_each_cycle_gives(m, n1, lanes, m_units,
                                                                         twist):
    """The control model's fast run against its cycle-by-cycle run (the one the simulations
    above check): cycles, marks, unload starts and stalls, back to back and spaced (closer
    than one transform, so that the load stalls, and further apart)."""
    plan = FourStepPlan(m, n1, lanes, m_units)
    model = _ControlModel(plan, 10, twist)
    for transforms in (1, 2, 3):
        assert model.run(transforms) == model.run(transforms, skip=False)
    for spacing in (plan.beats // 2, plan.beats + 5, 3 * plan.beats + 7):
        starts = [7 + t * spacing for t in range(4)]
        assert model.run(4, starts) == model.run(4, starts, skip=False)


@pytest.mark.parametrize("kw, error", [
    ({"n": 4096 * 3}, ValueError), ({"n": 4096 * 128}, ValueError), ({"n": 100}, ValueError),
    ({"n": 4096, "lanes": 128}, ValueError), ({"n": 4096, "lanes": 3}, ValueError),
    ({"n": 48, "inner_n": 4}, ValueError), ({"n": 4096, "inner_n": 128}, ValueError),
    ({"n": 4096, "inverse": 1}, TypeError), ({"n": 4096.0}, TypeError),
    ({"n": 4096, "negacyclic": "yes"}, TypeError), ({"n": 4096, "inner_units": 3}, ValueError),
    ({"n": 4096, "inner_units": 2.0}, TypeError),
])
def test_bad_parameters_are_refused_before_hardware_is_built(kw, error):
    with pytest.raises(error):
        StreamingFourStepNTT(**kw)
