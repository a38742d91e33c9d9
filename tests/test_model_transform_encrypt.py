"""The transform-domain encryption model (fhe_hw.model.transform_encrypt): its plans keep every
accumulated sample below p for every group, and its ciphertexts equal Python's ``%`` — at the
toy groups' full sizes, at scaled-down sizes with every way of cutting the operands into
blocks, and with all-ones operands (every accumulated sample at its largest)."""

import pytest
from helpers import rng_for

from fhe_hw.model.bigint import (
    CMNTInstance,
    CNTInstance,
    EncryptionSizes,
    group_sizes,
    random_cmnt_instance,
    random_cnt_instance,
)
from fhe_hw.model.transform_encrypt import blocking, encrypt, encrypt_steps, plan
from fhe_hw.params import SOLINAS64 as P

GROUPS = ("toy", "small", "medium", "large")


def _expected(scheme, inst):
    if scheme == "cnt":
        total = sum(b * x for b, x in zip(inst.b_list, inst.x_list))
        return (inst.M + 2 * inst.R + 2 * total) % inst.x0
    total = sum(inst.B[i][j] * inst.A0_list[i] * inst.A1_list[j]
                for i in range(len(inst.B)) for j in range(len(inst.B)))
    return (inst.M + 2 * inst.R + 2 * total) % inst.A0


def _random(scheme, group, rng, **kw):
    make = random_cmnt_instance if scheme == "cmnt" else random_cnt_instance
    return make(group, rng, **kw)


@pytest.mark.parametrize("scheme", ["cmnt", "cnt"])
@pytest.mark.parametrize("group", GROUPS)
def test_every_group_has_a_plan_whose_sums_stay_below_p(scheme, group):
    p = plan(scheme, group)
    for b in p.blockings:
        largest = (b.terms * b.pairs_per_offset * min(b.x_block, b.y_block)
                   * ((1 << b.digit_bits) - 1) ** 2)
        assert b.bound == largest < P
        assert b.x_block + b.y_block < b.n <= 65536
        # the integer of each accumulator fits its n digits (the hardware keeps n per
        # accumulator), and a cut operand is cut at whole words of p.lanes digits
        value = (b.terms * b.pairs_per_offset * ((1 << b.digit_bits * b.x_block) - 1)
                 * ((1 << b.digit_bits * b.y_block) - 1))
        assert b.fits and value < 1 << (b.digit_bits * b.n)
        assert b.x_blocks == 1 or b.x_block % p.lanes == 0
        assert b.y_blocks == 1 or b.y_block % p.lanes == 0
        assert b.x_block * b.x_blocks * b.digit_bits >= (p.term_bits if b is p.main else 1)
    assert p.main.y_block * p.main.y_blocks * p.digit_bits >= p.sizes.key_bits
    assert (p.sizes.key_bits + p.beta) % p.word_bits == 0 == (p.alpha - p.beta) % p.word_bits
    assert p.main == blocking(p.term_bits, p.sizes.key_bits, p.sizes.count, p.n, p.digit_bits,
                              align=p.lanes)


@pytest.mark.slow
@pytest.mark.parametrize("scheme, group", [("cmnt", "toy"), ("cnt", "toy")])
def test_the_toy_groups_at_full_size_equal_python(scheme, group):
    rng = rng_for("transform-encrypt-toy", scheme)
    inst = _random(scheme, group, rng)
    trace = encrypt_steps(scheme, inst, plan(scheme, group))
    assert trace.ciphertext == _expected(scheme, inst)
    key = inst.A0 if scheme == "cmnt" else inst.x0
    assert trace.sigma_hat in (trace.x // key, trace.x // key - 1)


# (scheme, key_bits, count, max_n): one block each; the short operand whole and the key cut;
# both cut in equal blocks
SCALED = [("cmnt", 400, 3, 64), ("cmnt", 400, 3, 16), ("cmnt", 1200, 4, 32),
          ("cnt", 1100, 5, 256), ("cnt", 1100, 5, 64), ("cnt", 4000, 3, 128)]


@pytest.mark.parametrize("scheme, key_bits, count, max_n", SCALED)
def test_scaled_groups_equal_python_for_random_and_all_ones(scheme, key_bits, count, max_n):
    sizes = group_sizes(scheme, "toy", key_bits=key_bits, count=count)
    p = plan(scheme, sizes, lanes=2, min_n=8, max_n=max_n)
    rng = rng_for("transform-encrypt", scheme, key_bits, count, max_n)
    for _ in range(3):
        inst = _random(scheme, "toy", rng, key_bits=key_bits, count=count)
        assert encrypt(scheme, inst, p) == _expected(scheme, inst)
    top, ones = (1 << sizes.coeff_bits) - 1, (1 << key_bits) - 1
    if scheme == "cmnt":
        inst = CMNTInstance(1, (1 << sizes.noise_bits) - 1, [[top] * count] * count,
                            [ones] * count, [ones] * count, ones)
    else:
        inst = CNTInstance(1, (1 << sizes.noise_bits) - 1, [top] * count, [ones] * count, ones)
    assert encrypt(scheme, inst, p) == _expected(scheme, inst)


def test_the_cuts_the_scaled_plans_exercise():
    """The scaled runs above cover every kind of cut."""
    kinds = set()
    for scheme, key_bits, count, max_n in SCALED:
        b = plan(scheme, group_sizes(scheme, "toy", key_bits=key_bits, count=count), lanes=2,
                 min_n=8, max_n=max_n).main
        kinds.add("whole" if b.x_blocks == b.y_blocks == 1 else
                  "equal" if b.x_block == b.y_block else "short")
    assert kinds == {"whole", "equal", "short"}


def test_refused_inputs():
    p = plan("cnt", "toy")
    rng = rng_for("transform-encrypt-bad")
    with pytest.raises(ValueError, match="scheme"):
        plan("rsa", "toy")
    with pytest.raises(TypeError, match="sizes"):
        plan("cnt", 3)
    with pytest.raises(ValueError, match="group"):
        plan("cnt", "huge")
    with pytest.raises(ValueError, match="no digit width"):
        plan("cnt", EncryptionSizes(100, 10, 200, 1 << 50))
    small = random_cnt_instance("toy", rng, key_bits=1100, count=2)
    with pytest.raises(TypeError, match="EncryptPlan"):
        encrypt("cmnt", small, p)
    with pytest.raises(TypeError, match="CMNTInstance"):
        encrypt("cmnt", small, plan("cmnt", "toy"))
    with pytest.raises(ValueError, match="terms"):
        encrypt("cnt", small, p)
