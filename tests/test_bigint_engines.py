"""Super-size Barrett reduction, CMNT and CNT encryption ([Cao13] §4, Fig. 6) on one Integer-FFT
multiplier: results against the golden model (fhe_hw.model.bigint) and Python's %, simulated
cycles against cycles(), with scaled-down sizes and a k = 8 transform so pysim stays fast."""

import pytest
from helpers import rng_for

from fhe_hw.bigint import CMNTEncrypt, CMNTEncryptPlan, CNTEncrypt, SuperSizeBarrett
from fhe_hw.bigint.run import run_engine
from fhe_hw.model.bigint import (
    EncryptionSizes,
    block_config,
    cmnt_encrypt,
    cnt_encrypt,
    random_cmnt_instance,
    random_cnt_instance,
    supersize_barrett_constants,
    supersize_barrett_shifts,
    supersize_barrett_steps,
)
from fhe_hw.units import get_unit

MULT = dict(modulus="fermat64", n=8, digit_bits=24, bus_width=24)      # kb/2d = 4
CFG = block_config("fermat64", 8, 24, 24)


def contract_cycles(unit_name, **params):
    """The registry's timing contract for ``params`` with the multiplier of :data:`MULT`."""
    return get_unit(unit_name).cycles({**MULT, **params})


def test_barrett_matches_model_steps_and_python_mod():
    unit = SuperSizeBarrett(200, 420, **MULT)
    rng = rng_for("barrett")
    A0 = rng.getrandbits(200) | 1 << 199 | 1
    x = rng.getrandbits(420)
    run = run_engine(unit, unit.ram_image(x, A0))
    steps = supersize_barrett_steps(x, supersize_barrett_constants(A0, 420, CFG.d), CFG)
    assert unit.result(run.ram) == steps.y == x % A0
    sig_addr, _ = unit.program.regions["SIG"]
    sigma = sum(v << (24 * i) for i, v in
                enumerate(run.ram[sig_addr:sig_addr + unit.program.regions["SIG"][1]]))
    assert sigma == steps.sigma, "Step-2 product in RAM equals the model's sigma"
    assert run.result == (steps.y2 >= 0), "the subtraction module's select signal"
    assert run.cycles == unit.cycles() == contract_cycles("supersize-barrett", gamma=200,
                                                          x_bits=420)


def test_barrett_edge_inputs_take_both_subtraction_branches():
    unit = SuperSizeBarrett(100, **MULT)
    A0 = (1 << 99) | 12345
    seen = set()
    for x in (0, A0 - 1, A0, 2 * A0 - 1, A0 * A0 - 1, (1 << 200) - 1):
        run = run_engine(unit, unit.ram_image(x, A0))
        assert unit.result(run.ram) == x % A0, hex(x)
        seen.add(run.result)
    assert run.cycles == unit.cycles()
    assert seen == {0, 1}


@pytest.mark.parametrize("schedule", ["paper", "factored"])
def test_cmnt_encryption_matches_model(schedule):
    sizes = EncryptionSizes(10, 12, 80, 3)
    rng = rng_for("cmnt", schedule)
    inst = random_cmnt_instance(sizes, rng)
    unit = CMNTEncrypt(sizes, schedule, **MULT)
    run = run_engine(unit, unit.ram_image(*inst))
    want = cmnt_encrypt(*inst, schedule=schedule, config=CFG)
    M, R, B, A0l, A1l, A0 = inst
    total = sum(B[i][j] * A0l[i] * A1l[j] for i in range(3) for j in range(3))
    assert unit.result(run.ram) == want == (M + 2 * R + 2 * total) % A0
    assert run.cycles == unit.cycles() == contract_cycles("cmnt-encrypt", group=sizes,
                                                          schedule=schedule)


def test_factored_schedule_has_theta_big_products_instead_of_theta_squared():
    sizes = EncryptionSizes(10, 12, 80, 3)
    big = {s: sum(1 for op in CMNTEncryptPlan(sizes, s, **MULT).program.ops
                  if op[0] == "mul" and min(op[2], op[4]) > 1) for s in ("paper", "factored")}
    # besides the two Barrett passes
    assert big == {"paper": 9 + 2, "factored": 3 + 2}


def test_cnt_encryption_matches_model():
    sizes = EncryptionSizes(30, 30, 90, 4)
    rng = rng_for("cnt")
    inst = random_cnt_instance(sizes, rng)
    unit = CNTEncrypt(sizes, **MULT)
    run = run_engine(unit, unit.ram_image(*inst))
    M, R, b, x, x0 = inst
    assert unit.result(run.ram) == cnt_encrypt(*inst, config=CFG) == \
        (M + 2 * R + 2 * sum(bi * xi for bi, xi in zip(b, x))) % x0
    assert run.cycles == unit.cycles() == contract_cycles("cnt-encrypt", group=sizes)


def test_cmnt_with_solinas64_small_transform():
    mult = dict(modulus="solinas64", n=8, digit_bits=28, bus_width=28)
    sizes = EncryptionSizes(8, 8, 64, 2)
    inst = random_cmnt_instance(sizes, rng_for("solinas"))
    unit = CMNTEncrypt(sizes, "factored", **mult)
    run = run_engine(unit, unit.ram_image(*inst))
    assert unit.result(run.ram) == cmnt_encrypt(*inst, config=block_config(
        "solinas64", 8, 28, 28))
    assert run.cycles == unit.cycles()


@pytest.mark.parametrize("build,match", [
    (lambda: SuperSizeBarrett(24, **MULT), "gamma must be more than d"),
    (lambda: SuperSizeBarrett(100, 99, **MULT), "x_bits must be"),
    (lambda: CMNTEncrypt("toy", "fast", **MULT), "schedule must be"),
    (lambda: CMNTEncrypt("huge", **MULT), "group must be"),
    (lambda: CMNTEncrypt(EncryptionSizes(10, 12, 12, 2), **MULT), "key_bits must"),
    (lambda: CNTEncrypt(EncryptionSizes(10, 12, 80, 0), **MULT), "count must be"),
    (lambda: CMNTEncrypt("toy", modulus="fermat32", n=64, digit_bits=14),
     "digit_bits must satisfy"),
])
def test_bad_engine_parameters_raise(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_host_image_rejects_a_modulus_of_the_wrong_size_or_parity():
    unit = SuperSizeBarrett(100, **MULT)
    with pytest.raises(ValueError, match="exactly gamma"):
        unit.ram_image(5, (1 << 98) | 1)
    with pytest.raises(ValueError, match="less than 2"):
        unit.ram_image(1 << 200, (1 << 99) | 1)
    sizes = EncryptionSizes(10, 12, 80, 2)
    enc = CNTEncrypt(sizes, **MULT)
    with pytest.raises(ValueError, match="odd"):
        enc.ram_image(0, 0, [1, 1], [1, 1], 1 << 79)


def test_barrett_shifts_meet_the_papers_conditions():
    """β < -2, α > x_bits - γ (Dhem), γ + β and α - β multiples of d, α the least such."""
    rng = rng_for("shape")
    for _ in range(200):
        d = rng.choice([12, 14, 24, 28, 32, 48, 192, 224])
        gamma = rng.randrange(d + 1, 3000)
        x_bits = rng.randrange(gamma, 7000)
        alpha, beta = supersize_barrett_shifts(gamma, x_bits, d)
        assert beta < -2 and alpha > x_bits - gamma
        assert (gamma + beta) % d == 0 and (alpha - beta) % d == 0
        assert alpha - d <= x_bits - gamma
