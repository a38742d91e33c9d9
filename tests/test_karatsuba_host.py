"""The software side of the co-design (fhe_hw.karatsuba.host, [Mig16] Fig. 1, §III-D): the
product and relinearization with 3 hardware recursions and the rest in software, on the
hardware model (the full degree 2559 with 6 software recursions in the slow suite); a reduced
split on the pysim hardware. The Verilator runs of the full size are
fhe_hw.karatsuba.host.cosim_full_product / cosim_relinearize (tools/cosim_karatsuba.py)."""

import pytest
from helpers import rng_for

from fhe_hw.karatsuba.host import HardwareModel, Pysim, karatsuba_product, relinearize_split
from fhe_hw.model.karatsuba import reduce_poly, relinearize, schoolbook


# [Mig16]'s full degree 2559 (nine recursions) in the slow suite; degree 319 (six) here.
@pytest.mark.parametrize("n, recursions", [(320, 6),
                                           pytest.param(2560, 9, marks=pytest.mark.slow)])
def test_product_on_the_hardware_model(n, recursions):
    rng = rng_for("host-2560" if n == 2560 else f"host-{n}")
    p = [rng.getrandbits(125) for _ in range(n)]
    q = [rng.getrandbits(125) for _ in range(n)]
    q[:5] = [(1 << 125) - 1] * 5
    got = karatsuba_product(p, q, hw_recursions=3, total_recursions=recursions)
    assert got == schoolbook(p, q)


# [Mig16] Table I (depth 4, log2 q = 125, n = 2515, nine recursions) in the slow suite.
@pytest.mark.parametrize("n, recursions", [(300, 6),
                                           pytest.param(2515, 9, marks=pytest.mark.slow)])
def test_relinearization_on_the_hardware_model(n, recursions):
    q = (1 << 125) - 159
    rng = rng_for("host-relin" if n == 2515 else f"host-relin-{n}")
    c = [rng.randrange(q) for _ in range(n)]
    gamma = [[rng.randrange(q) for _ in range(n)] for _ in range(5)]
    got = relinearize_split(c, gamma, 27, q, n, 3, recursions,
                            backend=HardwareModel(digit_serial=False))
    assert got == relinearize(c, gamma, 27, q, n, recursions)


# The paper's carrier (125-bit coefficients, 5 digits of 27 bits) under two hardware recursions
# in the fast suite, three (the paper's accelerator, 27 leaf multipliers) in the slow.
@pytest.mark.parametrize("hw, total", [(2, 3), pytest.param(3, 4, marks=pytest.mark.slow)])
def test_split_product_through_pysim_hardware(hw, total):
    rng = rng_for("host-pysim") if hw == 3 else rng_for("host-pysim", hw)
    n = 5 << total
    p = [rng.getrandbits(125) for _ in range(n)]
    q = [rng.getrandbits(125) for _ in range(n)]
    backend = Pysim()
    assert karatsuba_product(p, q, hw, total, backend=backend) == schoolbook(p, q)
    assert backend.last_run["cycles"] == backend.last_run["expected_cycles"]


@pytest.mark.parametrize("sign", [1, -1])
def test_split_product_in_the_ring_through_pysim_hardware(sign):
    """Z_q[x]/(x^n + sign): the accelerator's Barrett stage reduces every leaf product mod q,
    software post-computes mod q and folds modulo x^n + sign."""
    q, n = 4093, 40
    rng = rng_for("host-ring", sign)
    p = [rng.randrange(q) for _ in range(n)]
    r = [rng.randrange(q) for _ in range(n)]
    backend = Pysim()
    got = karatsuba_product(p, r, 2, 3, coeff_bits=12, digit_bits=8, digits=None,
                            backend=backend, modulus=q, sign=sign)
    assert got == reduce_poly(schoolbook(p, r), n, sign, q)
    assert backend.last_run["cycles"] == backend.last_run["expected_cycles"]


def test_split_product_modulo_q_on_the_hardware_model():
    q = (1 << 125) - 159
    rng = rng_for("host-mod-q")
    p = [rng.randrange(q) for _ in range(160)]
    r = [rng.randrange(q) for _ in range(160)]
    got = karatsuba_product(p, r, 3, 5, modulus=q)
    assert got == [c % q for c in schoolbook(p, r)]


def test_rejects_a_bad_ring_sign():
    with pytest.raises(ValueError, match="sign must be"):
        karatsuba_product([0] * 40, [0] * 40, 3, 3, sign=2)


def test_rejects_a_polynomial_of_the_wrong_degree():
    with pytest.raises(ValueError, match="n = leaf \\* 2\\*\\*total_recursions = 2560"):
        karatsuba_product([0] * 2515, [0] * 2515)


def test_rejects_coefficients_that_outgrow_the_carrier():
    """130-bit inputs grow to 136 bits after 6 software recursions: beyond 135 bits."""
    with pytest.raises(ValueError, match="carrier"):
        karatsuba_product([0] * 2560, [0] * 2560, coeff_bits=130, digit_bits=27)


def test_rejects_more_hardware_than_total_recursions():
    with pytest.raises(ValueError, match="hw_recursions"):
        karatsuba_product([0] * 40, [0] * 40, hw_recursions=4, total_recursions=3)


def test_rejects_relinearization_of_a_too_long_polynomial():
    with pytest.raises(ValueError, match="n must be at most"):
        relinearize_split([0] * 2561, [[0] * 2561], 27, 1 << 20, 2561)


def test_rejects_an_unknown_backend():
    with pytest.raises(ValueError, match="backend"):
        karatsuba_product([0] * 40, [0] * 40, 3, 3, backend="fpga")
