"""Shared test helpers: run a fixed-latency unit and compare it with expected values."""

import random
from fractions import Fraction

import pytest

from fhe_hw.sim.pysim import run_fixed_latency

SEED = 20261122
RANDOM_VECTORS = 2000


def rng_for(*key):
    """A seeded RNG per test case, so a failure is reproducible from its parameters."""
    return random.Random(":".join(map(str, (SEED,) + key)))


def check_unit(unit, inputs, expected, *, label="", bubbles=0.1):
    """Simulate ``unit`` on ``inputs`` and assert every output equals ``expected``; the message
    names the seed and the first mismatching index."""
    got = run_fixed_latency(unit, inputs, bubbles=bubbles, seed=SEED)
    assert len(got) == len(expected)
    for n, (x, want, have) in enumerate(zip(inputs, expected, got)):
        assert have == want, (f"{label}: first mismatch at index {n} (seed {SEED}): input {x!r}: "
                              f"expected {want}, got {have}")


def centred_lift(x, big_q):
    """The centred lift of 0 <= x < Q, as OpenFHE's SwitchCRTBasis takes it: x, or x − Q when
    2x >= Q (big integers)."""
    return x - big_q if 2 * x >= big_q else x


def around_half(big_q, distance, rng, count, extra=()):
    """``count`` integers in [0, Q): 0, 1, 2, Q − 1, Q − 2, ⌈Q/2⌉ and its neighbours, the
    neighbours of Q/2 − D and of ⌈Q/2 + D⌉ (D = ``distance``, a Fraction), the ``extra`` points,
    then seeded values near 0, near Q, within D above Q/2 and anywhere."""
    half = (big_q + 1) // 2
    above = -((-(big_q / Fraction(2) + distance).numerator)
              // (big_q / Fraction(2) + distance).denominator)
    below = int(big_q / Fraction(2) - distance)
    points = [0, 1, 2, big_q - 1, big_q - 2, *range(half - 3, half + 3),
              *range(above - 2, above + 3), below - 1, below, below + 1, *extra]
    kinds = [lambda: rng.randrange(1 << 64), lambda: big_q - 1 - rng.randrange(1 << 64),
             lambda: rng.randrange(half, above), lambda: rng.randrange(big_q)]
    while len(points) < count:
        points.append(kinds[len(points) % len(kinds)]())
    if len(points) > count:
        raise ValueError(f"count must be at least {len(points)}, not {count}")
    return points


def alternating_slow(cases, flags=(True, False)):
    """``pytest.param``\\ s of every case of ``cases`` (tuples) with every flag of ``flags``
    appended: the fast suite runs each case with one flag, taking the flags in turn so that
    each flag is run, and the slow suite runs the other combinations."""
    return [pytest.param(*case, flag, marks=() if j == i % len(flags) else pytest.mark.slow)
            for i, case in enumerate(cases) for j, flag in enumerate(flags)]


def slow_except(cases, fast):
    """``pytest.param``\\ s of ``cases`` (tuples of arguments): those in ``fast`` run in the fast
    suite, the others in the slow suite only. The fast suite keeps each check on its smallest
    configuration of every variant; the larger or repeated ones run in ``nox -s slow``."""
    unknown = [case for case in fast if case not in cases]
    if unknown:
        raise ValueError(f"fast cases {unknown} are not among the cases")
    return [pytest.param(*case, marks=() if case in fast else pytest.mark.slow)
            for case in cases]


def sk(source, target, redundant, n, lanes, architecture="folded", targets_per_pass=1, *,
       cls=None, **kw):
    """A Shenoy–Kumaresan engine (or with ``cls`` its plan) on explicit bases."""
    from fhe_hw.rns import ShenoyKumaresan
    return (cls or ShenoyKumaresan)(source_primes=source, target_primes=target,
                                    redundant_prime=redundant, n=n, lanes=lanes,
                                    architecture=architecture, targets_per_pass=targets_per_pass,
                                    **kw)


def fbc(source, target, n, lanes, architecture="folded", targets_per_pass=1, *, cls=None, **kw):
    """A fast base conversion engine (or with ``cls`` its plan) on explicit bases."""
    from fhe_hw.rns import FastBaseConversion
    return (cls or FastBaseConversion)(source_primes=source, target_primes=target, n=n,
                                       lanes=lanes, architecture=architecture,
                                       targets_per_pass=targets_per_pass, **kw)


def kawamura(source, target, n, rho, delta=None, *, cls=None, **kw):
    """A Cox-Rower engine (or with ``cls`` its plan) on explicit bases."""
    from fhe_hw.rns import Kawamura
    return (cls or Kawamura)(source_primes=source, target_primes=target, n=n, rho=rho,
                             delta=delta, **kw)


def mixed_radix(source, target, n, architecture="iterative", *, cls=None, **kw):
    """A mixed-radix engine (or with ``cls`` its plan) on explicit bases."""
    from fhe_hw.rns import MixedRadix
    return (cls or MixedRadix)(source_primes=source, target_primes=target, n=n,
                               architecture=architecture, **kw)
