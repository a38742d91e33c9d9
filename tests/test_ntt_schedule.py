"""The pure schedules of the NTT engines (fhe_hw.ntt.schedule): bank maps, conflict freedom,
issue order, addresses and cycle formulas of the radix-2 engine ([Cao14] §3.2, [Wang13] §IV) and of
the four-step plan ([Wang13] §IV-C), the latter executed against the model."""

import pytest
from ntt_helpers import assert_equal, random_poly

from fhe_hw.model.ntt import gs_stage_twiddles, gs_table, ntt4096, ntt65536, stage_pairs
from fhe_hw.ntt.schedule import (
    FOUR_STEP_PHASES,
    MAX_N,
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
from fhe_hw.params import SOLINAS64, ntt_params

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
    gs = {twiddle_index(s, up, 8, True, gs=True) for s in range(8)
          for up, _ in stage_pairs(s, 256, True)}
    assert gs == set(range(1, 256))


def test_gentleman_sande_index_reads_the_model_twiddle_of_each_butterfly():
    prm = ntt_params("general32", 64, negacyclic=True)
    table = gs_table(prm)
    for s in range(6):
        assert [table[twiddle_index(s, up, 6, True, gs=True)] for up, _ in
                stage_pairs(s, 64, True)] == [w for _, w in gs_stage_twiddles(s, prm)]


def test_cycles_formula_for_65536():
    # 2·n/lanes + log2 n·(n/2P + latency + 2 + (read_stages - 1) + write_stages) + 3
    # + read_stages; the defaults are read_stages = 3, write_stages = 1
    assert cycles(65536, 4, butterfly_latency=9) == 2 * 8192 + 16 * (8192 + 14) + 6
    assert cycles(65536, 4, butterfly_latency=9, write_stages=0) == \
        2 * 8192 + 16 * (8192 + 13) + 6
    assert cycles(65536, 4, butterfly_latency=9, read_stages=0) == \
        2 * 8192 + 16 * (8192 + 12) + 3
    assert cycles(16, 8, butterfly_latency=7, read_stages=1, write_stages=0) \
        == 2 + 4 * (1 + 9) + 4


# --- four-step plan ([Wang13] §IV-C)
# ------------------------------------------------------------------

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


def test_four_step_cycles_formula():
    assert four_step_cycles(4096, 6) == 1024 + 2 * (512 + 6 + 8 + 9) + 3

