"""fhe_hw's base conversions against OpenFHE's own, word for word.

``interop/openfhe_convert.cpp`` is compiled against the openfhe wheel's libOPENFHEcore and
OpenFHE's headers (:func:`fhe_hw.bench.openfhe.build`, as tests/test_openfhe_interop.py does).
OpenFHE picks the primes (``LastPrime(60, 2N)`` and ``PreviousPrime`` below it, N = 32: the l
largest are the source, the next k the target); the inputs are the residues of chosen integers
X spread over [0, Q) (:func:`helpers.around_half`: 0, 1, Q − 1, ⌈Q/2⌉ and its neighbours,
Q/2 ± D, OpenFHE's own rounding window, seeded values near 0, near Q, near Q/2 and anywhere).

* ``fast-base-conversion`` (pysim) equals ``ApproxSwitchCRTBasis`` on every word.
* ``kawamura`` with ``centred=True`` (pysim, ρ = 16) equals ``SwitchCRTBasis`` on every word
  of every X outside two windows: the Cox-Rower's, ⌈Q/2⌉ <= X < Q/2 + D (docs/rns.md), and
  OpenFHE's own, |X − Q/2| <= W = l(l + 5)·2^-53·Q, where OpenFHE's double-precision
  α = ⌊1/2 + Σ ξ_i·(1/q_i)⌋ may round either way. Inside them both give X or X − Q mod p_j,
  nothing else; outside them OpenFHE's words are the big-integer centred lift's.
* ``mixed-radix`` with ``centred=True`` (pysim, iterative 3 → 2, pipelined 4 → 4; the source
  ascending, eq. 2.30) and ``shenoy-kumaresan`` (pysim, folded, fed the redundant residue of
  the centred lift, which this test computes from X: OpenFHE's data carry none) are exact:
  they equal ``SwitchCRTBasis`` on every word of every X outside OpenFHE's window, and the
  big-integer centred lift on every word of every X.
* ``rns-poly-extend`` (pysim), the whole polynomial in OpenFHE's tower order, gives Q's
  towers unchanged and then ``SwitchCRTBasis``'s words for B's (``ExpandCRTBasis``), under the
  same comparison as the exact engines.
"""

import json
import subprocess
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from helpers import (
    SEED,
    around_half,
    centred_lift,
    fbc,
    kawamura,
    mixed_radix,
    rng_for,
    sk,
    slow_except,
)
from test_openfhe_interop import UNAVAILABLE

from fhe_hw.bench import openfhe as O
from fhe_hw.model import rns as model
from fhe_hw.params import RNSBase, ShenoyKumaresanConstants, ntt_primes
from fhe_hw.poly import RNSPolyExtend
from fhe_hw.rns import beats_to_polynomials, polynomial_beats
from fhe_hw.sim.pysim import run_stream

SOURCE = Path(__file__).with_name("interop") / "openfhe_convert.cpp"
N, BITS, RHO, TP = 32, 60, 16, 4
CASES = [(3, 2), (4, 4)]
#: The hardware's runs: 3 → 2 in the fast suite, 4 → 4 (twice the pysim time) in the slow suite.
HARDWARE_CASES = slow_except(CASES, fast=[(3, 2)])

pytestmark = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"OpenFHE: {UNAVAILABLE}")


def openfhe(*args, stdin=None):
    """``openfhe_convert ARGS`` (its JSON output)."""
    gxx, version = O.compiler()
    exe = O.build(O.library_dir(), O.include_dir(), gxx, version, SOURCE, "interop")
    done = subprocess.run([str(exe), *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def openfhe_window(l, big_q):
    """W = l(l + 5)·2^-53·Q: OpenFHE's α is the nearest integer's once |X − Q/2| > W (each
    term ξ_i·(1/q_i) < 1 is off by under 3.01·2^-53, each of the l additions to a sum below
    l + 1 by at most (l + 1)·2^-53; docs/rns.md)."""
    return Fraction(l * (l + 5) * big_q, 1 << 53)


@cache
def case(l, k):
    """OpenFHE's primes, the chosen X, and OpenFHE's two conversions of them."""
    primes = openfhe("primes", N, BITS, l + k)["primes"]
    source, target = tuple(primes[:l]), tuple(primes[l:])
    big_q = RNSBase(source).Q
    unit = kawamura(source, target, N, RHO, centred=True)
    w = openfhe_window(l, big_q)
    edges = [int(Fraction(big_q, 2) - w) - 1, int(Fraction(big_q, 2) + w) + 2]
    values = around_half(big_q, unit.constants.centred_distance, rng_for("openfhe", l, k), N,
                         edges)
    lines = [" ".join(map(str, source)), " ".join(map(str, target))]
    lines += [" ".join(str(x % q) for q in source) for x in values]
    out = openfhe("convert", N, l, k, stdin="\n".join(lines) + "\n")
    assert len(out["exact"]) == len(out["approx"]) == k
    return source, target, values, out


def differing(got, want):
    assert len(got) == len(want)
    return sum(g != w for g, w in zip(got, want))


@pytest.mark.parametrize("l, k", CASES)
def test_openfhe_picks_the_primes_the_model_tests_use(l, k):
    from test_rns_centred import OPENFHE_60, bases

    source, target, _, _ = case(l, k)
    assert (source, target) == bases(OPENFHE_60, l, k)


@pytest.mark.parametrize("l, k", HARDWARE_CASES)
def test_fast_base_conversion_gives_approx_switch_crt_basis(l, k):
    source, target, values, out = case(l, k)
    unit = fbc(source, target, N, TP, targets_per_pass=k)
    polys = [[x % q for x in values] for q in source]
    beats = polynomial_beats(polys, TP) * unit.passes
    run = run_stream(unit, {"i": beats}, {"o": unit.output_beats}, seed=SEED)
    got = beats_to_polynomials(run.outputs["o"], N, TP)
    assert sum(differing(g, w) for g, w in zip(got, out["approx"], strict=True)) == 0


@pytest.mark.parametrize("l, k", HARDWARE_CASES)
def test_centred_kawamura_gives_switch_crt_basis(l, k):
    source, target, values, out = case(l, k)
    unit = kawamura(source, target, N, RHO, centred=True)
    big_q, window = RNSBase(source).Q, unit.centred_window
    w = openfhe_window(l, big_q)
    run = run_stream(unit, {"i": [[x % q for q in source] for x in values]}, {"o": N},
                     seed=SEED)
    hardware = run.outputs["o"]
    exact = [[poly[c] for poly in out["exact"]] for c in range(N)]
    compared = differ = 0
    for x, got, want in zip(values, hardware, exact, strict=True):
        lifts = [[v % p for p in target] for v in (x, x - big_q)]
        if x in window or abs(x - Fraction(big_q, 2)) <= w:
            assert got in lifts and want in lifts, f"X = {x}"
            continue
        assert want == [centred_lift(x, big_q) % p for p in target], f"X = {x}"
        compared += 1
        differ += differing(got, want)
    assert differ == 0
    # 0, 1, 2, Q − 1, Q − 2, the points around Q/2 − D and Q/2 + D, OpenFHE's window's edges
    # and the seeded values outside the windows
    assert compared >= N - 14, f"only {compared} of {N} values compared"


def exact_against_openfhe(l, big_q, values, hardware, out, target):
    """The checks of an exact centred conversion: every word the big-integer centred lift's,
    and OpenFHE's outside its window W; returns how many X were compared with OpenFHE."""
    w = openfhe_window(l, big_q)
    exact = [[poly[c] for poly in out["exact"]] for c in range(N)]
    compared = differ = 0
    for x, got, want in zip(values, hardware, exact, strict=True):
        assert got == [centred_lift(x, big_q) % p for p in target], f"X = {x}"
        if abs(x - Fraction(big_q, 2)) > w:
            compared += 1
            differ += differing(got, want)
    assert differ == 0
    # all but ⌈Q/2⌉ and its neighbours and the points inside W (OpenFHE's window)
    assert compared >= N - 10, f"only {compared} of {N} values compared"
    return compared


# Both engines 3 → 2 in the fast suite, 4 → 4 in the slow suite.
@pytest.mark.parametrize("l, k, architecture", slow_except(
    [(3, 2, "iterative"), (4, 4, "iterative"), (3, 2, "pipelined"), (4, 4, "pipelined")],
    fast=[(3, 2, "iterative"), (3, 2, "pipelined")]))
def test_centred_mixed_radix_gives_switch_crt_basis(l, k, architecture):
    source, target, values, out = case(l, k)
    unit = mixed_radix(source[::-1], target, N, architecture, centred=True)
    run = run_stream(unit, {"i": [[x % q for q in unit.source] for x in values]}, {"o": N},
                     seed=SEED)
    exact_against_openfhe(l, RNSBase(source).Q, values, run.outputs["o"], out, target)


@pytest.mark.parametrize("parallel, beside, fused", [
    (False, False, False), (True, False, False), (True, True, False), (True, True, True)],
    ids=["towers", "targets-side-by-side", "and-redundant-beside", "and-post-sum-fused"])
@pytest.mark.parametrize("l, k", HARDWARE_CASES)
def test_shenoy_kumaresan_gives_switch_crt_basis_from_the_centred_redundant_residue(l, k,
                                                                                   parallel,
                                                                                   beside,
                                                                                   fused):
    """Also with the k target towers side by side on ``o`` (``parallel_targets``), each beat
    split into its towers by hand here, with the redundant residue beside the last source
    tower on ``i`` (``parallel_redundant``), and with the Post-Sum fused behind the last
    source tower (``fused_post_sum``, α matched against 0..l)."""
    source, target, values, out = case(l, k)
    big_q, red = RNSBase(source).Q, ntt_primes(BITS, N, l + k + 1)[0]
    unit = sk(source, target, red, N, TP, targets_per_pass=k, parallel_targets=parallel,
              parallel_redundant=beside, fused_post_sum=fused)
    polys = [[x % q for x in values] for q in source]
    redundant = [centred_lift(x, big_q) % red for x in values]
    beats = unit.plan.source_beats(polys, redundant)
    assert len(beats) == (l + (not beside)) * N // TP
    run = run_stream(unit, {"i": beats}, {"o": unit.output_beats}, seed=SEED)
    if parallel:
        assert len(run.outputs["o"]) == N // TP
        got = [[c for beat in run.outputs["o"] for c in beat[j * TP:(j + 1) * TP]]
               for j in range(k)]
    else:
        got = beats_to_polynomials(run.outputs["o"], N, TP)
    exact_against_openfhe(l, big_q, values, [list(c) for c in zip(*got)], out, target)


@pytest.mark.parametrize("l, k", HARDWARE_CASES)
def test_polynomial_extension_gives_q_then_switch_crt_basis(l, k):
    source, target, values, out = case(l, k)
    unit = RNSPolyExtend(N, limbs=l, target_limbs=k, prime_bits=BITS, lanes=2)
    assert (unit.towers, unit.targets) == (source, target)      # OpenFHE's, in its order
    towers = [[x % q for x in values] for q in source]
    run = run_stream(unit, {"i": polynomial_beats(towers, 2)}, {"o": unit.output_beats},
                     seed=SEED)
    got = beats_to_polynomials(run.outputs["o"], N, 2)
    assert got[:l] == towers
    exact_against_openfhe(l, RNSBase(source).Q, values, [list(c) for c in zip(*got[l:])],
                          out, target)


@pytest.mark.parametrize("l, k", CASES)
def test_shenoy_kumaresan_differs_exactly_above_half(l, k):
    """What the issue found: Shenoy–Kumaresan (the model the unit is tested against, given the
    redundant residue X mod q_l, which OpenFHE's data do not carry) returns X mod p_j, so it
    gives SwitchCRTBasis's words for X < Q/2 and differs on every word for X > Q/2 (outside
    OpenFHE's window)."""
    source, target, values, out = case(l, k)
    big_q, w = RNSBase(source).Q, openfhe_window(l, RNSBase(source).Q)
    red = ntt_primes(BITS, N, l + k + 1)[0]
    consts = ShenoyKumaresanConstants.build(source, target, red)
    exact = [[poly[c] for poly in out["exact"]] for c in range(N)]
    for x, want in zip(values, exact, strict=True):
        if abs(x - Fraction(big_q, 2)) <= w:
            continue
        got = list(model.shenoy_kumaresan([x % q for q in source], x % red, consts))
        assert got == [x % p for p in target]
        assert differing(got, want) == (0 if 2 * x < big_q else k), f"X = {x}"
