"""Verilator co-simulation of :class:`~fhe_hw.largeint.LargeIntegerMultiplier`
(:mod:`fhe_hw.sim.cosim`): products of random, all-ones and one-digit-by-full-size operands
through the generated Verilog, each against Python's ``*`` and its cycles against ``cycles()``.
``tools/cosim_large_int.py`` runs it at any size (the paper's 786,432 bits by default)."""

import random
import time

from ..model.large_int import from_digits
from ..sim import SimulationMismatch, check_cycles
from ..sim.cosim import build
from .multiplier import LargeIntegerMultiplier
from .vectors import operand_beats

__all__ = ["cosim_large_int_mul"]


def cosim_large_int_mul(max_bits=786432, digit_bits=24, *, lanes=16, engines=1, inner_units=1,
                        seed=1, opt="-O3", split=None, jobs=2, log=print):
    """One product per operand kind (random × random, all ones × all ones, a one-digit
    operand × a random full-size one), each run from reset with ``i`` always valid and ``o``
    always ready (``opt``, ``split``, ``jobs``: as :func:`fhe_hw.sim.cosim.build`). Returns a
    result dict; raises :class:`~fhe_hw.sim.SimulationMismatch` on a wrong product or a cycle
    count other than ``cycles()``."""
    unit = LargeIntegerMultiplier(max_bits, digit_bits, lanes=lanes, engines=engines,
                                  inner_units=inner_units)
    t = time.monotonic()
    model = build(unit, "large-int-mul", opt=opt, split=split, jobs=jobs)
    build_seconds = time.monotonic() - t
    bits = unit.operand_bits
    rng = random.Random(f"{seed}:{max_bits}:{digit_bits}:{lanes}:{engines}")
    top = (1 << bits) - 1
    cases = {"random": (rng.getrandbits(bits), rng.getrandbits(bits)), "all-ones": (top, top),
             "one-digit": (rng.randrange(1, 1 << digit_bits), rng.getrandbits(bits))}
    runs = {}
    t = time.monotonic()
    for name, (a, b) in cases.items():
        run = model.run({"i": operand_beats(unit, a, b)}, {"o": unit.output_beats})
        got = from_digits([w for beat in run.outputs["o"] for w in beat], digit_bits)
        if got != a * b:
            raise SimulationMismatch(f"large-int-mul {name}: the product differs (seed {seed})")
        check_cycles(f"large-int-mul {name}", run.cycles, unit.cycles())
        runs[name] = run.cycles
    seconds = time.monotonic() - t
    log(f"large-int-mul {bits} bits, n={unit.n}, lanes={lanes}, engines={engines}, "
        f"inner_units={inner_units}: "
        f"{', '.join(runs)} equal a*b in {unit.cycles()} cycles (= cycles()); "
        f"build {build_seconds:.0f} s, runs {seconds:.1f} s")
    return {"test": "large-int-mul", "operand_bits": bits, "digit_bits": digit_bits,
            "n": unit.n, "lanes": lanes, "engines": engines, "inner_units": inner_units,
            "cases": list(runs),
            "cycles": unit.cycles(), "expected_cycles": unit.cycles(),
            "build_seconds": round(build_seconds), "run_seconds": round(seconds, 2)}
