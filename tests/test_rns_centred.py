"""The Cox-Rower's centred mode (``Kawamura(..., centred=True)``, ``--centred true``): α rounded
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
from helpers import SEED, around_half, centred_lift, rng_for

from fhe_hw.cli import main
from fhe_hw.markdown import table
from fhe_hw.model import rns as model
from fhe_hw.params import KawamuraConstants, ntt_primes
from fhe_hw.rns import Kawamura
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
    unit = Kawamura(*bases(OPENFHE_60, l, k), N, 16, centred=True)
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
    assert Kawamura.latency_of(source, target, N, 16, Fraction(1, 2), centred=True) == \
        Kawamura.latency_of(source, target, N, 16, centred=True)
    with pytest.raises(ValueError, match="delta must be 1/2"):
        Kawamura(source, target, N, 16, Fraction(1, 8), centred=True)
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


def test_generate_kawamura_centred_on_openfhes_primes(tmp_path, capsys):
    source, target = bases(OPENFHE_60, 3, 2)
    out = tmp_path / "k.v"
    assert main(["generate", "kawamura", "--n", str(N), "--centred", "true", "--source-primes",
                 ",".join(map(str, source)), "--target-primes", ",".join(map(str, target)),
                 "-o", str(out)]) == 0
    text = out.read_text()
    assert f"// source base (l residues): {list(source)}" in text
    assert "// bases from: source_primes, target_primes (bits, l, k, prime_n unused)" in text
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
