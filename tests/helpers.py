"""Shared test helpers: run a fixed-latency unit and compare it with expected values."""

import random

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
