"""The RNS polynomial units in Verilator against OpenFHE's words (``slow``: each Verilator
build takes minutes at N = 4096); the fast suite checks the checks.

For each documented ECP5 configuration (:data:`fhe_hw.poly.configs.POLY_TABLE`, N = 4096, all
towers) and a small one of the same shape (and the first through fewer engines than towers,
``engine_count``), the interop program (``interop/openfhe_ntt.cpp``,
``dcrt N BITS LIMBS [PRIME_N] SEED``) gives OpenFHE's DCRTPoly a, b, their product ab and the
evaluation forms of the three on the configuration's towers. Three polynomials stream back to
back through the generated Verilog (:mod:`fhe_hw.poly.cosim`): the forward ``rns-poly-ntt`` of
[a, b, ab] must give OpenFHE's [a_eval, b_eval, ab_eval], the inverse the reverse, and
``rns-poly-product`` of (a, b), (b, a), (a, b) must give ab three times, word for word, each
in exactly ``cycles(3)``; so must each documented product configuration
(:data:`fhe_hw.poly.configs.PRODUCT_TABLE`, b in evaluation form: OpenFHE's b_eval and a_eval)
and a small one of its shape. The exact base extension to K = L more towers (OpenFHE's next
primes), ``rns-poly-extend`` of [a, b, ab] and the product chained with it
(``extend_limbs``), must give the towers and then OpenFHE's ``SwitchCRTBasis`` words
(``interop/openfhe_convert.cpp``; every coefficient is outside OpenFHE's rounding window, which
the test checks).

Run them one at a time (each N = 4096 build holds GBs):
``nox -s slow -- tests/test_poly_cosim.py -n 0 -s``.
"""

from dataclasses import fields
from fractions import Fraction

import pytest
from test_openfhe_interop import UNAVAILABLE, openfhe

from fhe_hw.ntt.cosim import Engines
from fhe_hw.params import RNSBase
from fhe_hw.poly import RNSPolyExtendPlan, RNSPolyNTTPlan
from fhe_hw.poly.configs import POLY_TABLE, PRODUCT_TABLE, extension_of
from fhe_hw.poly.cosim import PolyRun, check_poly, cosim_poly
from fhe_hw.sim import SimulationMismatch

needs_openfhe = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"OpenFHE: {UNAVAILABLE}")

#: Each documented configuration's shape at n = 64, 3 towers: smaller builds (the 60-bit
#: product's is the longest).
SMALL = [{**row.params, "n": 64, "limbs": 3} for row in POLY_TABLE]


def config_id(p):
    side = "-side-by-side" if p.get("parallel_towers") else ""
    wide = f"-P{p['butterflies']}" if p.get("wide_banks") or p.get("fabric_rounds") else ""
    spread = "-spread" if p.get("spread_handshakes") else ""
    pong = "-ping-pong" if p.get("ping_pong") else ""
    return f"n{p['n']}-{p['limbs']}x{p['prime_bits']}{side}{wide}{spread}{pong}"


CONFIGS = [pytest.param(p, id=config_id(p)) for p in [row.params for row in POLY_TABLE] + SMALL]
#: The configurations whose streams are tower-major: the product and the extension take
#: their towers (and lanes).
TOWER_MAJOR = [c for c in CONFIGS if not c.values[0].get("parallel_towers")]
#: Fewer engines than towers (``engine_count``): the first row's 8 towers through 4 engines and
#: its shape at n = 64 through 2, each engine taking its towers in turn.
SHARED = [pytest.param(p, id=f"{config_id(p)}-E{p['engine_count']}")
          for p in ({**POLY_TABLE[0].params, "engine_count": 4}, {**SMALL[0], "engine_count": 2})]
#: The documented products and each at n = 64, 3 towers.
PRODUCTS = [pytest.param(p, id=f"n{p['n']}-{p['limbs']}x{p['prime_bits']}-P{p['butterflies']}")
            for row in PRODUCT_TABLE for p in (row.params, {**row.params, "n": 64, "limbs": 3})]


@pytest.fixture(scope="module")
def engines():
    """The Verilator models, each built once (cached in build/cosim/ across runs)."""
    return Engines("-O3")


def openfhe_polys(params):
    """OpenFHE's a, b, ab and a_eval, b_eval, ab_eval (each a list of towers) on the towers
    of ``params``, which must be the plan's."""
    ring = (params["prime_n"],) if params.get("prime_n") else ()
    towers = openfhe("dcrt", params["n"], params["prime_bits"], params["limbs"], *ring)
    names = {f.name for f in fields(RNSPolyNTTPlan) if f.init}
    shared = {k: v for k, v in params.items() if k in names}
    assert tuple(t["q"] for t in towers) == RNSPolyNTTPlan(**shared).towers
    return {key: [t[key] for t in towers] for key in ("a", "b", "ab", "a_eval", "b_eval",
                                                      "ab_eval")}


@pytest.mark.parametrize("params", CONFIGS + SHARED)
@pytest.mark.parametrize("kind", ["forward", "inverse"])
@pytest.mark.slow
@needs_openfhe
def test_transforms_in_verilator_give_openfhes_words_back_to_back(params, kind, engines):
    words = openfhe_polys(params)
    coef, evaluation = ["a", "b", "ab"], ["a_eval", "b_eval", "ab_eval"]
    given, want = (coef, evaluation) if kind == "forward" else (evaluation, coef)
    run = cosim_poly(kind, params, [words[k] for k in given], engines=engines)
    check_poly(run, [words[k] for k in want])
    assert run.cycles == run.expected_cycles


@pytest.mark.parametrize("params", TOWER_MAJOR)
@pytest.mark.slow
@needs_openfhe
def test_products_in_verilator_give_openfhes_product_back_to_back(params, engines):
    words = openfhe_polys(params)
    a, b = words["a"], words["b"]
    run = cosim_poly("product", params, [(a, b), (b, a), (a, b)], engines=engines)
    check_poly(run, [words["ab"]] * 3)
    assert run.cycles == run.expected_cycles


@pytest.mark.parametrize("params", PRODUCTS)
@pytest.mark.slow
@needs_openfhe
def test_evaluated_products_in_verilator_give_openfhes_product_back_to_back(params, engines):
    words = openfhe_polys(params)
    pairs = [("a", "b_eval"), ("b", "a_eval"), ("a", "b_eval")]
    run = cosim_poly("product", params, [(words[a], words[b]) for a, b in pairs],
                     engines=engines)
    check_poly(run, [words["ab"]] * 3)
    assert run.cycles == run.expected_cycles


def extended(params, polys):
    """Each of ``polys`` (lists of towers in coefficient form) extended by OpenFHE to
    ``limbs`` more towers: its towers, then ``SwitchCRTBasis``'s words mod the next primes
    (OpenFHE's, as the units take them); every coefficient must be outside OpenFHE's window."""
    from test_openfhe_convert import openfhe as convert
    from test_openfhe_convert import openfhe_window

    plan = RNSPolyExtendPlan(**extend_params(params))
    q, n = RNSBase(plan.towers), params["n"]
    out = []
    for poly in polys:
        lines = [" ".join(map(str, plan.towers)), " ".join(map(str, plan.targets))]
        lines += [" ".join(str(t[c]) for t in poly) for c in range(n)]
        words = convert("convert", n, len(plan.towers), len(plan.targets),
                        stdin="\n".join(lines) + "\n")
        window = openfhe_window(len(plan.towers), q.Q)
        xs = [q.reconstruct([t[c] for t in poly]) for c in range(n)]
        assert all(abs(x - Fraction(q.Q, 2)) > window for x in xs)
        out.append([list(t) for t in poly] + words["exact"])
    return plan, out


def extend_params(params):
    """The extension of a :data:`CONFIGS` row's towers: K = L, the row's lanes."""
    return extension_of(params, params.get("lanes") or 2 * params["butterflies"])


@pytest.mark.parametrize("params", TOWER_MAJOR)
@pytest.mark.slow
@needs_openfhe
def test_extension_in_verilator_gives_openfhes_words_back_to_back(params, engines):
    words = openfhe_polys(params)
    polys = [words[k] for k in ("a", "b", "ab")]
    plan, want = extended(params, polys)
    run = cosim_poly("extend", extend_params(params), polys, engines=engines)
    check_poly(run, want)
    assert run.cycles == run.expected_cycles == plan.cycles(3)


@pytest.mark.parametrize("params", [c for c in TOWER_MAJOR if c.values[0]["n"] == 64]
                         + TOWER_MAJOR[:1])
@pytest.mark.slow
@needs_openfhe
def test_extended_products_in_verilator_give_openfhes_words(params, engines):
    words = openfhe_polys(params)
    a, b = words["a"], words["b"]
    _, want = extended(params, [words["ab"]])
    run = cosim_poly("product", {**params, "extend_limbs": params["limbs"]},
                     [(a, b), (b, a), (a, b)], engines=engines)
    check_poly(run, want * 3)
    assert run.cycles == run.expected_cycles


# --- the checks, without Verilator ---------------------------------------------------------------

def test_check_poly_names_the_first_differing_word_and_a_cycle_count_off_cycles():
    want = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]
    run = PolyRun("forward", "forward n=2", want, 10, 10, 0.0, 0.0)
    check_poly(run, want)
    bad = PolyRun("forward", "forward n=2", [[[1, 2], [3, 4]], [[5, 6], [7, 9]]], 10, 10, 0.0, 0.0)
    with pytest.raises(SimulationMismatch, match=r"forward n=2: polynomial 1, tower 1, "
                       r"coefficient 1: expected 8, got 9"):
        check_poly(bad, want)
    slow = PolyRun("forward", "forward n=2", want, 11, 10, 0.0, 0.0)
    with pytest.raises(SimulationMismatch, match="11 simulated cycles, cycles.. says 10"):
        check_poly(slow, want)
    with pytest.raises(ValueError, match="want must be 2 polynomials of 2 towers of 2 words"):
        check_poly(run, want[:1])


@pytest.mark.parametrize("kind, polys, message", [
    ("sideways", [], "kind must be one of forward, inverse, product, extend"),
    ("forward", [], "polys must hold at least one polynomial"),
    ("inverse", [[[0] * 16] * 2], r"i polynomial 0 must be 3 towers of 16 residues"),
    ("product", [([[0] * 16] * 3, [[0] * 15] * 3)], "i_b polynomial 0 must be 3 towers"),
    ("product", [([[0] * 16] * 3,)], r"must be \(a, b\) pairs"),
])
def test_cosim_poly_refuses_bad_input_before_building(kind, polys, message):
    with pytest.raises(ValueError, match=message):
        cosim_poly(kind, {"n": 16, "limbs": 3}, polys, engines=object())
