"""Shared helpers of the NTT engine tests: random polynomials, stream runs, comparisons."""

from helpers import SEED, rng_for

from fhe_hw.model.ntt import ntt_radix2
from fhe_hw.sim.pysim import run_stream


def transform(unit, x, **kw):
    """Stream x through the engine; return (output coefficients, StreamRun)."""
    beats = [x[i:i + unit.lanes] for i in range(0, unit.n, unit.lanes)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, seed=SEED, **kw)
    return [v for beat in run.outputs["o"] for v in beat], run


def transforms_back_to_back(unit, xs, inverse=False, negacyclic=False, **kw):
    """Stream the polynomials ``xs`` back to back through the engine (``kw``: run_stream's
    valid/ready probabilities, monitors) and check each output against the model."""
    n, lanes = unit.n, unit.lanes
    beats = [x[i:i + lanes] for x in xs for i in range(0, n, lanes)]
    run = run_stream(unit, {"i": beats}, {"o": len(beats)}, seed=SEED, **kw)
    flat = [v for beat in run.outputs["o"] for v in beat]
    for k, x in enumerate(xs):
        assert_equal(flat[k * n:(k + 1) * n], ntt_radix2(x, unit.params, inverse, negacyclic),
                     f"transform {k}")
    return run


def assert_equal(got, want, label):
    bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    assert len(got) == len(want) and bad is None, (
        f"{label}: first mismatch at index {bad} (seed {SEED}): expected "
        f"{want[bad] if bad is not None else None}, got {got[bad] if bad is not None else None}")


def random_poly(p, n, *key):
    rng = rng_for("streaming-ntt", p, n, *key)
    edge = [0, 1, p - 1, p - 2]
    return edge + [rng.randrange(p) for _ in range(n - len(edge))]

