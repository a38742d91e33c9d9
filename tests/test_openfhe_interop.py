"""fhe_hw's negacyclic NTT against OpenFHE's own, word for word.

``interop/openfhe_ntt.cpp`` is compiled against the openfhe wheel's libOPENFHEcore and OpenFHE's
headers (:func:`fhe_hw.bench.openfhe.build`; CI has both: the test extra has the wheel, the
headers are beside the checkout) and run once per configuration, each in its own process
(OpenFHE caches its twiddle tables per modulus). OpenFHE picks the primes (``LastPrime``,
``PreviousPrime``) and the roots (``RootOfUnity``) itself; fhe_hw's ``ntt`` unit, given the same
prime and ``root="openfhe"``, must give the same words in pysim: the ``NativePoly`` forward and
inverse NTTs at n = 256 (n = 1024 in pysim is ``slow``; the fast suite checks it on the model
the unit is tested against); and a 3-tower ``DCRTPoly`` product in evaluation and coefficient
form through the ``rns-poly-ntt`` unit, all towers in one run, at OpenFHE's primes (and in the
slow suite through the NumPy API, :mod:`fhe_hw.poly.host`, on the simulated board); the towers
and roots of the documented poly configurations (``fhe_hw.poly.configs.POLY_TABLE``, whose
words tests/test_poly_cosim.py compares in Verilator). Without the option (fhe_hw's
``generator`` root) the words differ.
"""

import json
import subprocess
from functools import cache
from pathlib import Path

import pytest

from fhe_hw.bench import openfhe as O
from fhe_hw.model.dcrt import dcrt_pointwise, tower_params
from fhe_hw.model.ntt import ntt_radix2
from fhe_hw.ntt import StreamingNTT
from fhe_hw.params import convention_root, ntt_params, openfhe_primes
from fhe_hw.poly import RNSPolyNTT, RNSPolyNTTPlan
from fhe_hw.poly.configs import POLY_TABLE
from fhe_hw.sim.pysim import run_stream

SOURCE = Path(__file__).with_name("interop") / "openfhe_ntt.cpp"
SEED = 20261129
#: (n, bits of OpenFHE's LastPrime) of the NativePoly cases.
NATIVE = [(256, 60), (256, 30), (1024, 60), (1024, 30)]
DCRT = (64, 60, 3)        # n, bits, limbs


UNAVAILABLE = O.unavailable()
pytestmark = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"OpenFHE: {UNAVAILABLE}")


@cache
def openfhe(*args):
    """OpenFHE's output for ``openfhe_ntt ARGS SEED``, one process per configuration."""
    gxx, version = O.compiler()
    exe = O.build(O.library_dir(), O.include_dir(), gxx, version, SOURCE, "interop")
    done = subprocess.run([str(exe), *map(str, args), str(SEED)], capture_output=True, text=True,
                          timeout=120, check=True)
    out = json.loads(done.stdout)
    assert out["n"] == args[1] and len(out["limbs"]) == (args[3] if args[0] == "dcrt" else 1)
    return out["limbs"]


def native(n, bits):
    (limb,) = openfhe("native", n, bits)
    assert limb["q"].bit_length() == bits and limb["q"] % (2 * n) == 1
    return limb


def differing(got, want):
    assert len(got) == len(want)
    return sum(g != w for g, w in zip(got, want))


def hardware(n, q, *xs, inverse=False):
    """The transforms of the polynomials ``xs``, streamed back to back through one pysim run of
    fhe_hw's ``ntt`` unit (negacyclic, ``root="openfhe"``), concatenated."""
    unit = StreamingNTT(n, q, negacyclic=True, inverse=inverse, root="openfhe")
    assert unit.params.psi == convention_root(q, 2 * n, "openfhe")
    beats = [x[i:i + unit.lanes] for x in xs for i in range(0, n, unit.lanes)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, seed=SEED)
    return [v for beat in run.outputs["o"] for v in beat]


@pytest.mark.parametrize("n, bits", NATIVE)
def test_openfhe_picks_the_root_of_the_openfhe_convention(n, bits):
    limb = native(n, bits)
    q, psi = limb["q"], limb["psi"]
    assert psi == ntt_params(q, n, negacyclic=True, root="openfhe").psi
    assert psi != ntt_params(q, n, negacyclic=True).psi


@pytest.mark.parametrize("n, bits", NATIVE)
def test_model_with_the_openfhe_root_gives_openfhes_words(n, bits):
    limb = native(n, bits)
    params = ntt_params(limb["q"], n, negacyclic=True, root="openfhe")
    assert differing(ntt_radix2(limb["a"], params, negacyclic=True), limb["a_eval"]) == 0
    assert differing(ntt_radix2(limb["e"], params, True, True), limb["e_coef"]) == 0


@pytest.mark.parametrize("n, bits", NATIVE)
def test_the_default_root_differs_from_openfhe(n, bits):
    """fhe_hw's generator root evaluates at the same points in another order: every evaluation
    word differs; of the inverse's, all but the ones that do not depend on the root (word 0 is
    n^-1·Σ e_j whatever ψ)."""
    limb = native(n, bits)
    params = ntt_params(limb["q"], n, negacyclic=True)
    assert differing(ntt_radix2(limb["a"], params, negacyclic=True), limb["a_eval"]) == n
    coef = ntt_radix2(limb["e"], params, True, True)
    assert coef[0] == limb["e_coef"][0] and differing(coef, limb["e_coef"]) >= n - 2


def _hardware_case(n, bits, fast_bits=(30, 60)):
    """n = 256 at ``fast_bits`` in the fast suite, the others (n = 1024) in the slow suite."""
    return pytest.param(n, bits, marks=[pytest.mark.slow] if n > 256 or bits not in fast_bits
                        else [])


@pytest.mark.parametrize("n, bits", [_hardware_case(n, bits) for n, bits in NATIVE])
def test_forward_ntt_hardware_gives_openfhes_words(n, bits):
    limb = native(n, bits)
    assert differing(hardware(n, limb["q"], limb["a"]), limb["a_eval"]) == 0


# The inverse at 30 bits in the fast suite (the forward transform at both widths above).
@pytest.mark.parametrize("n, bits", [_hardware_case(n, bits, (30,)) for n, bits in NATIVE])
def test_inverse_ntt_hardware_gives_openfhes_words(n, bits):
    limb = native(n, bits)
    assert differing(hardware(n, limb["q"], limb["e"], inverse=True), limb["e_coef"]) == 0


def dcrt_hardware(polys, inverse=False, parallel_towers=False):
    """The DCRTPoly transforms of ``polys`` (each a list of towers) streamed back to back
    through one pysim run of fhe_hw's ``rns-poly-ntt`` unit at OpenFHE's primes (its towers
    side by side on the streams with ``parallel_towers``), flattened tower-major."""
    n, bits, limbs = DCRT
    unit = RNSPolyNTT(n, limbs=limbs, prime_bits=bits, butterflies=2, inverse=inverse,
                      parallel_towers=parallel_towers)
    beats = unit.plan.stream_beats(polys)
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, seed=SEED)
    return [v for poly in unit.plan.stream_polynomials(run.outputs["o"]) for t in poly
            for v in t]


def test_dcrt_primes_and_roots_are_openfhes():
    n, bits, limbs = DCRT
    towers = openfhe("dcrt", n, bits, limbs)
    assert tuple(t["q"] for t in towers) == openfhe_primes(bits, n, limbs)
    assert [t["psi"] for t in towers] == [p.psi for p in tower_params(n, openfhe_primes(
        bits, n, limbs))]


@pytest.mark.parametrize("row", POLY_TABLE, ids=lambda row: f"{row.params['limbs']}x"
                         f"{row.params['prime_bits']}")
def test_dcrt_towers_of_the_documented_configurations_are_openfhes(row):
    """OpenFHE's primes of the ring ``prime_n`` (PRIME_N of the program's dcrt mode; default N)
    and its roots for N are the towers and roots of each documented poly configuration."""
    params = row.params
    plan = RNSPolyNTTPlan(**params)
    ring = (params["prime_n"],) if "prime_n" in params else ()
    towers = openfhe("dcrt", plan.n, params["prime_bits"], params["limbs"], *ring)
    assert tuple(t["q"] for t in towers) == plan.towers
    assert [t["psi"] for t in towers] == [e.roots.psi for e in plan.engines]


@pytest.mark.parametrize("parallel_towers", [False, True], ids=["tower-major", "side-by-side"])
def test_dcrt_forward_ntt_through_the_rns_polynomial_ntt(parallel_towers):
    """OpenFHE's DCRTPoly a and b to evaluation form, every tower at once: fhe_hw's
    rns-poly-ntt unit gives OpenFHE's words for both, back to back, with its towers
    tower-major or side by side on the streams."""
    n, bits, limbs = DCRT
    towers = openfhe("dcrt", n, bits, limbs)
    a, b = [t["a"] for t in towers], [t["b"] for t in towers]
    want = [v for x in ("a_eval", "b_eval") for t in towers for v in t[x]]
    assert differing(dcrt_hardware([a, b], parallel_towers=parallel_towers), want) == 0


def test_dcrt_product_through_the_rns_polynomial_ntt():
    """OpenFHE's DCRTPoly a·b: the point-wise product of a's and b's evaluation forms is
    OpenFHE's product in evaluation form, and the rns-poly-ntt unit's inverse gives its
    coefficient form."""
    n, bits, limbs = DCRT
    towers = openfhe("dcrt", n, bits, limbs)
    primes = [t["q"] for t in towers]
    product = dcrt_pointwise([t["a_eval"] for t in towers], [t["b_eval"] for t in towers],
                             primes)
    assert product == [t["ab_eval"] for t in towers]
    assert differing(dcrt_hardware([product], inverse=True),
                     [v for t in towers for v in t["ab"]]) == 0


# Minutes of the link core in pysim: the slow suite (the fast suite checks the unit against
# OpenFHE above and the NumPy API against the model in tests/test_poly_host.py).
@pytest.mark.slow
@pytest.mark.parametrize("unit_name, extra", [("rns-poly-ntt", {}),
                                               ("rns-poly-ntt", {"parallel_towers": True}),
                                               ("rns-poly-product", {})],
                         ids=["ntt", "ntt-side-by-side", "product"])
def test_the_numpy_api_gives_openfhes_words(unit_name, extra):
    """A library's call: OpenFHE's towers of a and b, each a uint64 array of shape (L, n) as a
    DCRTPoly holds them, through :class:`~fhe_hw.poly.host.PolyDevice` on the simulated board
    (the link core and the unit at OpenFHE's primes): ``transform`` gives OpenFHE's evaluation
    forms of both (the same arrays when the towers stream side by side), ``product`` OpenFHE's
    a·b."""
    np = pytest.importorskip("numpy")
    from fhe_hw.poly.host import simulated

    n, bits, limbs = DCRT
    towers = openfhe("dcrt", n, bits, limbs)
    device = simulated(unit_name, polys=2, n=n, limbs=limbs, prime_bits=bits, butterflies=2,
                       **extra)
    assert device.towers == tuple(t["q"] for t in towers)
    a, b = (np.array([t[x] for t in towers], dtype=np.uint64) for x in ("a", "b"))
    if unit_name == "rns-poly-ntt":
        got, want = device.transform(np.stack([a, b])), [[t[x] for t in towers]
                                                         for x in ("a_eval", "b_eval")]
    else:
        got, want = device.product(a, b), [t["ab"] for t in towers]
    assert got.dtype == np.uint64 and got.tolist() == want


@pytest.mark.slow
def test_the_numpy_api_gives_openfhes_product_of_b_in_evaluation_form():
    """As a library keeps a key: OpenFHE's a in coefficient form and b_eval, its evaluation
    form, through the b-evaluated product (the documented product row's shape: one butterfly
    per engine, each tower's engines on one twiddle ROM) on the simulated board give OpenFHE's
    a·b."""
    np = pytest.importorskip("numpy")
    from fhe_hw.poly.host import simulated

    n, bits, limbs = DCRT
    towers = openfhe("dcrt", n, bits, limbs)
    device = simulated("rns-poly-product", n=n, limbs=limbs, prime_bits=bits, butterflies=1,
                       b_evaluated=True)
    a, b_eval = (np.array([t[x] for t in towers], dtype=np.uint64) for x in ("a", "b_eval"))
    got = device.product(a, b_eval)
    assert got.dtype == np.uint64 and got.tolist() == [t["ab"] for t in towers]


@pytest.mark.parametrize("index", range(DCRT[2]))
def test_dcrt_product_with_the_default_root_agrees_only_in_coefficient_form(index):
    """The product does not depend on the root: with fhe_hw's default root the model's a·b
    equals OpenFHE's in coefficient form, while every evaluation-form word differs."""
    n, bits, limbs = DCRT
    limb = openfhe("dcrt", n, bits, limbs)[index]
    q = limb["q"]
    params = ntt_params(q, n, negacyclic=True)
    a, b = (ntt_radix2(limb[x], params, negacyclic=True) for x in ("a", "b"))
    product = [x * y % q for x, y in zip(a, b)]
    assert differing(product, limb["ab_eval"]) == n
    assert differing(ntt_radix2(product, params, True, True), limb["ab"]) == 0

