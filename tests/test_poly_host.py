"""The NumPy API of the RNS polynomial units over the simulated board (fhe_hw.poly.host):
OpenFHE's layout in and out, checked against the DCRTPoly model."""

import numpy as np
import pytest
from test_poly_ntt import random_dcrt

from fhe_hw.model.dcrt import dcrt_extend, dcrt_ntt, schoolbook_product
from fhe_hw.poly.host import simulated


@pytest.fixture(scope="module")
def ntt_device():
    return simulated("rns-poly-ntt", polys=2, n=16, limbs=2, butterflies=2)


def test_transform_takes_and_gives_openfhes_layout(ntt_device):
    towers = ntt_device.towers
    polys = [random_dcrt(towers, 16, "api", k) for k in range(2)]
    got = ntt_device.transform(np.array(polys, dtype=np.uint64))
    assert got.dtype == np.uint64 and got.shape == (2, 2, 16)
    assert got.tolist() == [dcrt_ntt(x, towers) for x in polys]
    one = ntt_device.transform(np.array(polys[0], dtype=np.uint64))
    assert one.shape == (2, 16) and one.tolist() == dcrt_ntt(polys[0], towers)


def test_towers_side_by_side_take_the_same_arrays():
    """With ``parallel_towers`` the beats interleave the towers; the arrays are OpenFHE's
    layout still, and the device rebuilt from its descriptor streams them the same way."""
    device = simulated("rns-poly-ntt", n=16, limbs=3, butterflies=1, parallel_towers=True)
    assert device.unit.plan.parallel_towers
    x = random_dcrt(device.towers, 16, "api-parallel")
    got = device.transform(np.array(x, dtype=np.uint64))
    assert got.tolist() == dcrt_ntt(x, device.towers)


@pytest.mark.parametrize("x, error, message", [
    (np.zeros((2, 16), dtype=np.int64), TypeError, "must be a uint64 array"),
    (np.zeros((3, 16), dtype=np.uint64), ValueError, r"shape \(towers, n\) = \(2, 16\)"),
    (np.zeros((3, 2, 16), dtype=np.uint64), ValueError, "1 to 2 polynomials"),
    (np.full((2, 16), 2**40, dtype=np.uint64), ValueError, "tower 0 must hold residues below"),
])
def test_transform_refuses_what_is_not_a_polynomial_of_the_device(ntt_device, x, error, message):
    with pytest.raises(error, match=message):
        ntt_device.transform(x)
    with pytest.raises(ValueError, match=r"product\(\) needs an rns-poly-product device"):
        ntt_device.product(x, x)


@pytest.mark.slow
def test_product_is_the_schoolbook_product():
    device = simulated("rns-poly-product", n=16, limbs=2, butterflies=2)
    towers = device.towers
    a, b = random_dcrt(towers, 16, "api-a"), random_dcrt(towers, 16, "api-b")
    got = device.product(np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64))
    assert got.tolist() == schoolbook_product(a, b, towers)


def test_simulated_refuses_another_unit():
    with pytest.raises(ValueError, match="unit_name must be one of"):
        simulated("ntt", n=16)


def test_extension_gives_q_then_b_towers():
    device = simulated("rns-poly-extend", n=16, limbs=2, target_limbs=1)
    towers, targets = device.towers, device.unit.targets
    x = random_dcrt(towers, 16, "api-x")
    got = device.extend(np.array(x, dtype=np.uint64))
    assert got.shape == (3, 16) and got.tolist() == dcrt_extend(x, towers, targets)
