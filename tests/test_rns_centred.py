"""The Cox-Rower's centred mode (``kawamura(..., centred=True)``, ``--centred true``): α rounded
to nearest gives the centred lift (X, or X − Q when 2X >= Q) mod p_j of every X outside
⌈Q/2⌉ <= X < Q/2 + D, D = l·(ε + λ)·Q (docs/rns.md), checked against Python big integers in
the model and in pysim at and around ⌈Q/2⌉ and Q/2 + D, with OpenFHE's 60-bit primes for
N = 32 (what ``LastPrime``/``PreviousPrime`` return, as tests/test_openfhe_convert.py checks)
and 32-bit ones; the base-extension units take the user's primes (``--source-primes``,
``--target-primes``)."""

from fractions import Fraction
from math import log2
from pathlib import Path

import pytest
from helpers import SEED, around_half, centred_lift, kawamura, mixed_radix, rng_for, sk, slow_except

from fhe_hw.cli import main
from fhe_hw.markdown import table
from fhe_hw.model import rns as model
from fhe_hw.params import (
    KawamuraConstants,
    MixedRadixConstants,
    ShenoyKumaresanConstants,
    ntt_primes,
)
from fhe_hw.rns import (
    KawamuraPlan,
    MixedRadixPlan,
    beats_to_polynomials,
    polynomial_beats,
)
from fhe_hw.sim.pysim import run_stream
from fhe_hw.units import get_unit

N = 32
#: 60-bit primes q ≡ 1 mod 2N, largest first: OpenFHE's LastPrime(60, 64) and PreviousPrime.
OPENFHE_60 = ntt_primes(60, N, 8)[::-1]
POOL_32 = ntt_primes(32, 1 << 12, 8)[::-1]


def bases(pool, l, k):
    """The l largest primes of ``pool`` as the source (closest to 2^r), the next k the target."""
    return tuple(pool[:l]), tuple(pool[l:l + k])


CASES = [(OPENFHE_60, 3, 2, 16), (OPENFHE_60, 4, 4, 16), (OPENFHE_60, 3, 2, 48),
         (POOL_32, 3, 2, 8), (POOL_32, 4, 4, 12)]


def bound_table():
    """The docs' table of D for :data:`CASES` (docs/rns.md shows this text)."""
    rows = []
    for pool, l, k, rho in CASES:
        c = KawamuraConstants.build(*bases(pool, l, k), rho, centred=True)
        rows.append([f"{c.r}-bit, {'OpenFHE' if pool is OPENFHE_60 else 'ntt_primes'}",
                     f"{l} → {k}", rho, f"2^{log2(c.epsilon):.2f}", f"2^{log2(c.lam):.2f}",
                     f"{float(l * (c.epsilon + c.lam)):.3g}",
                     f"2^{log2(c.centred_distance / c.source.Q):.2f}"])
    return table(["primes", "l → k", "ρ", "ε", "λ", "l(ε + λ) ≤ 1/2", "D / Q"], rows)


def test_the_docs_show_the_bound_of_the_tested_bases():
    assert bound_table() in (Path(__file__).parents[1] / "docs" / "rns.md").read_text()


def expect(c, x):
    """The words a centred conversion of X may give: the centred lift's, and in the window
    also X mod p_j."""
    lifts = {centred_lift(x, c.source.Q)}
    if x in c.centred_window:
        lifts.add(x)
    return [[v % p for p in c.target] for v in sorted(lifts)]


@pytest.mark.parametrize("pool, l, k, rho", CASES)
def test_model_is_the_centred_lift_outside_the_window(pool, l, k, rho):
    c = KawamuraConstants.build(*bases(pool, l, k), rho, centred=True)
    big_q, window = c.source.Q, c.centred_window
    assert c.delta == Fraction(1, 2) and c.max_input == big_q
    assert c.centred_distance == l * (c.epsilon + c.lam) * big_q
    assert window.start == (big_q + 1) // 2 and \
        window.stop >= Fraction(big_q, 2) + c.centred_distance > window.stop - 1
    values = around_half(big_q, c.centred_distance, rng_for("centred", l, k, rho), 400)
    outside = 0
    for x in values:
        got = list(model.kawamura(list(c.source.residues(x)), c))
        assert got in expect(c, x), f"X = {x}"
        outside += x not in window
    assert outside >= 250
    # the window is not empty: at X = ⌈Q/2⌉ the sum Σ ξ_i/q_i = α + 1/2 + 1/(2Q) is
    # underestimated by more than 1/(2Q) (q_i < 2^r, l >= 3), so α is not rounded up
    x = window.start
    assert list(model.kawamura(list(c.source.residues(x)), c)) == [x % p for p in c.target]
    # the first X above the window, and the last below it, are exact
    for x in (window.stop, window.start - 1):
        assert list(model.kawamura(list(c.source.residues(x)), c)) == \
            [centred_lift(x, big_q) % p for p in c.target]


@pytest.mark.parametrize("l, k", [(3, 2), (4, 4)])
def test_hardware_is_the_centred_lift_outside_the_window(l, k):
    """pysim, OpenFHE's 60-bit primes, ρ = 16: every word outside the window is the centred
    lift's; ⌈Q/2⌉ gives X mod p_j."""
    unit = kawamura(*bases(OPENFHE_60, l, k), N, 16, centred=True)
    c = unit.constants
    values = around_half(c.source.Q, c.centred_distance, rng_for("centred-hw", l, k), N)
    beats = [list(c.source.residues(x)) for x in values]
    run = run_stream(unit, {"i": beats}, {"o": N}, seed=SEED, ready_prob=0.7)
    assert run.cycles > 0
    for x, got in zip(values, run.outputs["o"]):
        assert got in expect(c, x), f"X = {x}"
        if x not in c.centred_window:
            assert got == [centred_lift(x, c.source.Q) % p for p in c.target]
    start = values.index(c.centred_window.start)
    assert run.outputs["o"][start] == [values[start] % p for p in c.target]


def test_centred_needs_delta_one_half_and_the_bound():
    source, target = bases(OPENFHE_60, 3, 2)
    half = kawamura(source, target, N, 16, Fraction(1, 2), centred=True, cls=KawamuraPlan)
    assert half.latency == kawamura(source, target, N, 16, centred=True, cls=KawamuraPlan).latency
    with pytest.raises(ValueError, match="delta must be 1/2"):
        kawamura(source, target, N, 16, Fraction(1, 8), centred=True)
    with pytest.raises(ValueError, match="error bound"):      # 3·(2^-2) > 1/2
        KawamuraConstants.build(source, target, 2, centred=True)
    with pytest.raises(TypeError, match="centred"):
        KawamuraConstants.build(source, target, 16, centred=1)
    assert not KawamuraConstants.build(source, target, 16, Fraction(1, 8)).centred_window


@pytest.mark.parametrize("name", ["shenoy-kumaresan", "fast-base-conversion", "kawamura",
                                  "mixed-radix"])
def test_units_take_the_users_primes(name):
    source, target = bases(OPENFHE_60, 3, 2)
    if name == "mixed-radix":
        source = source[::-1]           # ascending, [Kir25] eq. 2.30
    unit = get_unit(name).build(n=N, source_primes=source, target_primes=target)
    assert unit.source == source and unit.target == target
    assert get_unit(name).describe({"n": N, "source_primes": source, "target_primes": target})[
        "target base (k residues)"] == list(target)


def test_shenoy_kumaresan_redundant_prime():
    source, target = bases(OPENFHE_60, 3, 2)
    unit = get_unit("shenoy-kumaresan").build(n=N, source_primes=source, target_primes=target)
    assert unit.redundant == ntt_primes(60, N, 6)[0]     # the largest not in the bases
    chosen = OPENFHE_60[-1]
    assert get_unit("shenoy-kumaresan").build(
        n=N, source_primes=source, target_primes=target, redundant_prime=chosen).redundant == chosen


def test_generate_kawamura_centred_on_openfhes_primes(tmp_path, capsys, header_only):
    source, target = bases(OPENFHE_60, 3, 2)
    out = tmp_path / "k.v"
    assert main(["generate", "kawamura", "--n", str(N), "--centred", "true", "--source-primes",
                 ",".join(map(str, source)), "--target-primes", ",".join(map(str, target)),
                 "-o", str(out)]) == 0
    text = out.read_text()
    assert f"// source base (l residues): {list(source)}" in text
    assert ("// bases from: source_primes, target_primes (prime_bits, source_limbs, target_limbs, "
            "prime_n unused)") in text
    assert "// centred lift: (X - Q if 2X >= Q) mod p_j, exact except for ceil(Q/2) <= X < " \
           "Q/2 + D, D = l(eps + lambda)Q = 2^-14.42 Q" in text


PRIMES = ",".join(map(str, OPENFHE_60[:3]))
TARGETS = ",".join(map(str, OPENFHE_60[3:5]))


@pytest.mark.parametrize("args, flag", [
    (["--source-primes", PRIMES], "--target-primes must be given too"),
    (["--target-primes", TARGETS], "--source-primes must be given too"),
    (["--source-primes", "7,x", "--target-primes", "5"], "--source-primes: must be comma"),
    (["--source-primes", "9,15", "--target-primes", "7"], "--source-primes and target_primes "
     "must be pairwise coprime; 9 and 15"),
    (["--source-primes", "7", "--target-primes", "8"], "--target-primes must be odd"),
    (["--source-primes", str(1 << 64 | 1), "--target-primes", "7"], "--source-primes must be"),
    (["--source-primes", PRIMES, "--target-primes", TARGETS, "--centred", "true", "--delta",
      "1/8"], "--delta must be 1/2"),
    (["--source-primes", PRIMES, "--target-primes", TARGETS, "--centred", "true", "--rho", "2"],
     "Kawamura error bound violated"),
])
def test_bad_primes_are_one_line_and_exit_2(args, flag, capsys):
    try:
        code = main(["generate", "kawamura", "--n", str(N), *args, "-o", "-"])
    except SystemExit as e:             # argparse's own errors
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert flag in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- exact centred lifts: mixed radix (centred=True) and Shenoy–Kumaresan ---------------------

def edges(big_q, rng, count):
    """0, 1, 2, Q − 2, Q − 1, the integers from ⌊Q/2⌋ − 2 to ⌈Q/2⌉ + 2 (Q/2 − 1, Q/2, Q/2 + 1
    rounded either way), the neighbours of Q/2 ± 2^20, four seeded values within 2^20 below
    Q/2, then seeded values near 0, near Q, within 2^20 above Q/2 and anywhere."""
    below = [big_q // 2 - 1 - rng.randrange(1 << 20) for _ in range(4)]
    return around_half(big_q, Fraction(1 << 20), rng, count, below)


def ascending(pool, l, k):
    """OpenFHE's bases of :func:`bases` with the source ascending (mixed radix, eq. 2.30)."""
    source, target = bases(pool, l, k)
    return source[::-1], target


@pytest.mark.parametrize("source, target", [
    ((3, 5, 7), (11, 13)), ((5, 7, 11, 13), (3, 17)),       # small: every X below
    ascending(OPENFHE_60, 3, 2), ascending(OPENFHE_60, 4, 4), ascending(POOL_32, 3, 2),
    (tuple(POOL_32[5:8][::-1]), tuple(POOL_32[:3])),        # targets above the source
])
def test_mixed_radix_model_is_the_exact_centred_lift(source, target):
    c = MixedRadixConstants.build(source, target, centred=True)
    plain = MixedRadixConstants.build(source, target)
    big_q = c.source.Q
    values = range(big_q) if big_q < 1 << 16 else \
        edges(big_q, rng_for("mrc-centred", source), 400)
    for x in values:
        residues = [x % q for q in source]
        steps = model.mixed_radix_steps(residues, c)
        assert steps.above[-1] == (2 * x >= big_q), f"X = {x}"
        assert list(steps.a_p) == [centred_lift(x, big_q) % p for p in target], f"X = {x}"
        assert list(model.mixed_radix(residues, plain)) == [x % p for p in target]


# Each engine once in the fast suite, one with back-pressure; the other rows in the slow suite.
@pytest.mark.parametrize("architecture, l, k, ready", slow_except(
    [("iterative", 3, 2, 1.0), ("iterative", 3, 2, 0.6), ("pipelined", 3, 2, 1.0),
     ("pipelined", 3, 2, 0.6), ("iterative", 4, 4, 1.0)],
    fast=[("iterative", 3, 2, 1.0), ("pipelined", 3, 2, 0.6)]))
def test_mixed_radix_hardware_is_the_centred_lift_at_no_cycle_more(architecture, l, k, ready):
    """pysim from reset, OpenFHE's 60-bit primes: every word is the model's and the big-integer
    centred lift's, at the edges and at seeded values, with and without back-pressure; the
    cycle count is the uncentred engine's (4 → 4, both engines, against OpenFHE's own words in
    ``tests/test_openfhe_convert.py``, slow suite)."""
    source, target = ascending(OPENFHE_60, l, k)
    unit = mixed_radix(source, target, N, architecture, centred=True)
    assert unit.centred and unit.cycles() == mixed_radix(
        source, target, N, architecture, cls=MixedRadixPlan).cycles()
    big_q = unit.constants.source.Q
    values = edges(big_q, rng_for("mrc-centred-hw", architecture, l, k), N)
    beats = [[x % q for q in source] for x in values]
    want = [[centred_lift(x, big_q) % p for p in target] for x in values]
    assert [list(model.mixed_radix(b, unit.constants)) for b in beats] == want
    run = run_stream(unit, {"i": beats}, {"o": N}, seed=SEED, ready_prob=ready)
    assert run.outputs["o"] == want
    if ready == 1.0:
        assert run.cycles == unit.cycles()


def test_mixed_radix_targets_above_the_source_in_hardware():
    source, target = tuple(POOL_32[5:8][::-1]), tuple(POOL_32[:3])
    unit = mixed_radix(source, target, N, "iterative", centred=True)
    big_q = unit.constants.source.Q
    values = edges(big_q, rng_for("mrc-centred-above"), N)
    run = run_stream(unit, {"i": [[x % q for q in source] for x in values]}, {"o": N},
                     seed=SEED)
    assert run.outputs["o"] == [[centred_lift(x, big_q) % p for p in target] for x in values]


def test_mixed_radix_centred_is_validated():
    source, target = ascending(OPENFHE_60, 3, 2)
    with pytest.raises(TypeError, match="centred"):
        mixed_radix(source, target, N, centred=1)
    with pytest.raises(TypeError, match="centred"):
        mixed_radix(source, target, N, centred="yes", cls=MixedRadixPlan).cycles()
    with pytest.raises(ValueError, match="centred needs odd"):
        MixedRadixConstants.build((4, 5), (7,), centred=True)


def test_generate_mixed_radix_centred(tmp_path, capsys, header_only):
    source, target = ascending(OPENFHE_60, 3, 2)
    out = tmp_path / "m.v"
    primes = ["--source-primes", ",".join(map(str, source)), "--target-primes",
              ",".join(map(str, target))]
    assert main(["generate", "mixed-radix", "--n", str(N), "--centred", "true", *primes, "-o",
                 str(out)]) == 0
    assert "// centred lift: (X - Q if 2X >= Q) mod p_j, exact" in out.read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["generate", "mixed-radix", "--n", str(N), "--centred", "maybe", *primes, "-o", "-"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--centred" in err and len(err.strip().splitlines()) == 1


def redundant_residue(x, big_q, q_l, centred):
    """What Shenoy–Kumaresan's redundant input carries: X mod q_l, or the centred lift's."""
    return (centred_lift(x, big_q) if centred else x) % q_l


@pytest.mark.parametrize("l, k", [(3, 2), (4, 4)])
def test_shenoy_kumaresan_model_extends_the_integer_its_redundant_residue_pins(l, k):
    """Given the centred lift's redundant residue, Algorithm 2 returns the centred lift (α + 1 <=
    l < q_l); given X mod q_l, X mod p_j."""
    source, target = bases(OPENFHE_60, l, k)
    red = ntt_primes(60, N, 9)[0]        # below both bases
    c = ShenoyKumaresanConstants.build(source, target, red)
    big_q = c.source.Q
    for x in edges(big_q, rng_for("sk-centred", l, k), 400):
        residues = [x % q for q in source]
        for centred in (False, True):
            want = centred_lift(x, big_q) if centred else x
            got = model.shenoy_kumaresan(residues, redundant_residue(x, big_q, red, centred), c)
            assert list(got) == [want % p for p in target], f"X = {x}, centred {centred}"


@pytest.mark.parametrize("architecture", ["folded", "pipelined"])
def test_shenoy_kumaresan_hardware_gives_the_centred_lift(architecture):
    """pysim from reset: the unchanged engine, fed the centred lift's redundant residue, gives
    the big-integer centred lift at the edges and at seeded values, in cycles()."""
    source, target = bases(OPENFHE_60, 3, 2)
    red = ntt_primes(60, N, 9)[0]        # below both bases
    unit = sk(source, target, red, N, 4, architecture, targets_per_pass=1)
    big_q = unit.constants.source.Q
    values = edges(big_q, rng_for("sk-centred-hw", architecture), N)
    polys = [[x % q for x in values] for q in source]
    redundant = [redundant_residue(x, big_q, red, True) for x in values]
    beats = polynomial_beats(polys + [redundant], 4) * unit.passes
    run = run_stream(unit, {"i": beats}, {"o": unit.output_beats}, seed=SEED)
    assert run.cycles == unit.cycles()
    assert beats_to_polynomials(run.outputs["o"], N, 4) == \
        [[centred_lift(x, big_q) % p for x in values] for p in target]
