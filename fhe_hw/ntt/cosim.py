"""Verilator co-simulation scenarios of the NTT units (:mod:`fhe_hw.sim.cosim`): many transforms
through :class:`~fhe_hw.ntt.ShiftNTT` and :class:`~fhe_hw.ntt.ParallelNTT`, one transform of the
streaming and four-step engines at paper sizes, and a negacyclic product through the generated
Verilog, each checked against the golden model and the cycle count against ``cycles()``.
``fhe-hw table ntt-cosim`` / ``ntt-four-step`` run the documented ones, ``tools/cosim_ntt.py``
any size."""

import random
import time

from ..arith import ModMul
from ..model.ntt import ntt4096, ntt65536, ntt_radix2, shift_ntt, wang_huang_ntt
from ..params import SOLINAS64
from ..rns.common import polynomial_beats
from ..sim import SimulationMismatch, check_cycles
from ..sim.cosim import build
from .four_step import FourStepNTT
from .four_step_plan import control_trace
from .four_step_stream import StreamingFourStepNTT
from .parallel import ParallelNTT
from .shift import ShiftNTT
from .streaming import StreamingNTT

__all__ = ["cosim_shift_ntt", "cosim_parallel_ntt", "cosim_ntt", "cosim_four_step_stream",
           "cosim_polymul",
           "schoolbook_negacyclic", "Engines", "WANG_HUANG_CYCLES"]


def cosim_shift_ntt(n=64, lanes=None, *, inverse=False, transforms=256, seed=1,
                    valid_prob=1.0, ready_prob=1.0, workdir=None):
    """Co-simulate :class:`ShiftNTT` with Verilator (:mod:`fhe_hw.sim.cosim`) on ``transforms``
    random transforms (the first three are all 0, all p - 1 and all 2^64 - 1) and check every
    output against :func:`fhe_hw.model.ntt.shift_ntt` and, with always-valid input and
    always-ready output, the cycle count against :meth:`ShiftNTT.cycles`. Returns a dict with
    the run's numbers; raises :class:`~fhe_hw.sim.SimulationMismatch` on the first mismatch
    (naming the seed)."""
    unit = ShiftNTT(n, lanes, inverse=inverse)
    rng = random.Random(seed)
    vectors = [[0] * n, [SOLINAS64 - 1] * n, [(1 << 64) - 1] * n]
    vectors += [[rng.randrange(1 << 64) for _ in range(n)]
                for _ in range(max(0, transforms - 3))]
    vectors = vectors[:transforms]
    beats = [x[b:b + unit.lanes] for x in vectors for b in range(0, n, unit.lanes)]
    model = build(unit, "shift-ntt", workdir)
    run = model.run({"i": beats}, {"o": len(beats)}, valid_prob=valid_prob,
                    ready_prob=ready_prob)
    flat = [v for beat in run.outputs["o"] for v in beat]
    for t, x in enumerate(vectors):
        want, have = shift_ntt(x, inverse), flat[t * n:(t + 1) * n]
        if want != have:
            raise SimulationMismatch(
                f"ShiftNTT({n}, {unit.lanes}, inverse={inverse}) transform {t} (seed "
                f"{seed}) differs from the model at output {_first_mismatch(have, want)}")
    expected = unit.cycles(len(vectors))
    if valid_prob == 1.0 and ready_prob == 1.0:
        check_cycles(f"ShiftNTT({n}, {unit.lanes})", run.cycles, expected)
    return {"n": n, "lanes": unit.lanes, "inverse": inverse,
            "transforms": len(vectors), "cycles": run.cycles, "cycles_formula": expected}


def cosim_parallel_ntt(n, modulus, *, inverse=False, negacyclic=False, transforms=64, seed=1,
                       workdir=None):
    """Co-simulate :class:`ParallelNTT` with Verilator (:mod:`fhe_hw.sim.cosim`) on ``transforms``
    vectors (all 0, all p - 1, then random residues), check each against
    :func:`fhe_hw.model.ntt.ntt_radix2` and the cycle count against :meth:`ParallelNTT.cycles`.
    Returns a dict with the run's numbers; raises :class:`~fhe_hw.sim.SimulationMismatch` on a
    mismatch."""
    unit = ParallelNTT(n, modulus, inverse=inverse, negacyclic=negacyclic)
    p, rng = unit.modulus, random.Random(seed)
    vectors = ([[0] * n, [p - 1] * n] +
               [[rng.randrange(p) for _ in range(n)] for _ in range(transforms)])[:transforms]
    model = build(unit, "parallel-ntt", workdir)
    run = model.run({"i": vectors}, {"o": len(vectors)})
    for t, (x, have) in enumerate(zip(vectors, run.outputs["o"])):
        want = ntt_radix2(x, unit.params, inverse, negacyclic)
        if want != have:
            raise SimulationMismatch(
                f"ParallelNTT({n}, {modulus}, inverse={inverse}, negacyclic={negacyclic}) vector "
                f"{t} (seed {seed}) differs from the model")
    check_cycles(f"ParallelNTT({n}, {modulus})", run.cycles, unit.cycles(len(vectors)))
    return {"n": n, "modulus": str(modulus), "inverse": inverse, "negacyclic": negacyclic,
            "transforms": len(vectors), "cycles": run.cycles, "latency": unit.latency}


#: Wang–Huang ([Wang13] §V): 64K-point NTT in 0.125 ms at 100 MHz.
WANG_HUANG_CYCLES = 12_500


def _flat(beats):
    return [v for beat in beats for v in beat]


def _first_mismatch(got, want):
    return next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)


def schoolbook_negacyclic(a, b, p):
    """a·b mod (x^n + 1, p) exactly: the full product by Kronecker substitution (one integer
    multiplication with slots wide enough for every coefficient sum), then the wrap."""
    n = len(a)
    slot = 2 * p.bit_length() + n.bit_length() + 1
    pack = lambda v: sum(c << (slot * i) for i, c in enumerate(v))  # noqa: E731
    full, mask = pack(a) * pack(b), (1 << slot) - 1
    coeff = [(full >> (slot * i)) & mask for i in range(2 * n - 1)] + [0]
    return [(coeff[i] - coeff[i + n]) % p for i in range(n)]


class Engines:
    """Compiled Verilator models, built once per configuration."""

    def __init__(self, opt, **build_options):
        """``opt`` and ``build_options`` (``split``, ``jobs``): as
        :func:`fhe_hw.sim.cosim.build`."""
        self.opt, self.options, self.cache, self.build_seconds = opt, build_options, {}, 0.0

    def get(self, unit_name, factory, *key):
        """(unit, compiled model) for ``factory()``; the unit is built only once per key."""
        key = (unit_name, *key)
        if key not in self.cache:
            t = time.monotonic()
            unit = factory()
            self.cache[key] = unit, build(unit, unit_name, opt=self.opt, **self.options)
            self.build_seconds += time.monotonic() - t
        return self.cache[key]


def cosim_ntt(n, butterflies=4, modulus="solinas64", *, negacyclic=False, inverse=False,
              lanes=None, four_step=False, seed=1, engines=None, opt="-O3", valid_prob=1.0,
              ready_prob=1.0, karatsuba=False, log=print):
    """Co-simulate one transform of ``StreamingNTT(n, modulus, butterflies, ...)`` (Karatsuba
    multipliers with ``karatsuba``) on random input; return a result dict (cycles, expected
    cycles, bound, rates). Raises :class:`~fhe_hw.sim.SimulationMismatch` on a mismatch with
    the model (seed and first index given)."""
    engines = engines or Engines(opt)
    if four_step:
        unit, sim = engines.get("four-step-ntt", lambda: FourStepNTT(n, inverse=inverse), n,
                                inverse)
    else:
        unit, sim = engines.get("ntt", lambda: StreamingNTT(
            n, modulus, butterflies=butterflies, lanes=lanes, negacyclic=negacyclic,
            inverse=inverse, karatsuba=karatsuba), n, butterflies, modulus, negacyclic, inverse,
            lanes, karatsuba)
    rng = random.Random(f"{seed}:{n}:{butterflies}:{negacyclic}:{inverse}")
    x = [rng.randrange(unit.modulus) for _ in range(n)]
    t = time.monotonic()
    run = sim.run({"i": polynomial_beats([x], unit.lanes)}, {"o": n // unit.lanes},
                  valid_prob=valid_prob, ready_prob=ready_prob)
    seconds = time.monotonic() - t
    if four_step:
        want = (ntt4096 if n == 4096 else ntt65536)(x, inverse, unit.omega)
    else:
        want = ntt_radix2(x, unit.params, inverse, negacyclic)
    got = _flat(run.outputs["o"])
    bad = _first_mismatch(got, want)
    if bad is not None:
        raise SimulationMismatch(f"ntt n={n} P={butterflies} neg={negacyclic} inv={inverse}: "
                                 f"first mismatch at index {bad} (seed {seed}): expected "
                                 f"{want[bad]}, got {got[bad]}")
    log_n = n.bit_length() - 1
    bound = n * log_n // (2 * butterflies)
    result = {"test": "four-step" if four_step else "transform", "n": n,
              "butterflies": butterflies, "lanes": unit.lanes,
              "modulus": modulus, "negacyclic": negacyclic, "inverse": inverse,
              "valid_prob": valid_prob, "ready_prob": ready_prob, "cycles": run.cycles,
              "expected_cycles": unit.cycles(), "butterfly_bound": bound,
              "cycles_over_bound": round(run.cycles / bound, 3),
              "wang_huang_cycles": WANG_HUANG_CYCLES if n == 65536 else None,
              "run_seconds": round(seconds, 3),
              "mcycles_per_s": round(run.cycles / seconds / 1e6, 2) if seconds else None}
    log(f"ntt n={n} P={butterflies} lanes={unit.lanes} neg={negacyclic} inv={inverse}: "
        f"cycles {run.cycles} (cycles() {unit.cycles()}, bound n·log2n/2P {bound}"
        + (f", Wang–Huang {WANG_HUANG_CYCLES}" if n == 65536 else "")
        + f"), run {seconds:.2f} s")
    return result


def cosim_four_step_stream(n, lanes=16, *, inner_units=1, inverse=False, transforms=3, seed=1,
                           engines=None, opt="-O3", log=print):
    """Co-simulate ``transforms`` back-to-back transforms of :class:`StreamingFourStepNTT` (the
    first all p - 1, then random) and check each against
    :func:`~fhe_hw.model.ntt.wang_huang_ntt` and the cycles against ``cycles(transforms)`` and
    ``cycles(1)``. Returns a result dict; raises :class:`~fhe_hw.sim.SimulationMismatch` on a
    mismatch."""
    engines = engines or Engines(opt)
    unit, sim = engines.get("four-step-stream", lambda: StreamingFourStepNTT(
        n, lanes=lanes, inner_units=inner_units, inverse=inverse), n, lanes, inner_units, inverse)
    rng = random.Random(f"{seed}:{n}:{lanes}:{inverse}")
    xs = [[SOLINAS64 - 1] * n] + [[rng.randrange(SOLINAS64) for _ in range(n)]
                                  for _ in range(transforms - 1)]
    runs = {}
    t = time.monotonic()
    for count in sorted({1, transforms}):
        run = sim.run({"i": polynomial_beats(xs[:count], lanes)}, {"o": count * n // lanes})
        got = _flat(run.outputs["o"])
        for k, x in enumerate(xs[:count]):
            want = wang_huang_ntt(x, inverse, unit.omega)
            bad = _first_mismatch(got[k * n:(k + 1) * n], want)
            if bad is not None:
                raise SimulationMismatch(
                    f"four-step-stream n={n} lanes={lanes} inner_units={inner_units} "
                    f"inv={inverse}: transform {k}, first mismatch at index {bad} (seed {seed})")
        check_cycles(f"four-step-stream n={n} lanes={lanes}, {count} transforms", run.cycles,
                     unit.cycles(count))
        runs[count] = run.cycles
    seconds = time.monotonic() - t
    trace = control_trace(unit.four_step, unit.mul_latency)
    result = {"test": "four-step-stream", "n": n, "lanes": lanes, "inner_units": inner_units,
              "inverse": inverse,
              "cycles_1": runs[1], "cycles_T": runs[transforms], "transforms": transforms,
              "per_transform": (runs[transforms] - runs[1]) // max(1, transforms - 1),
              "in_banks": trace["in_banks"], "run_seconds": round(seconds, 2)}
    log(f"four-step-stream n={n} lanes={lanes} inner_units={inner_units} inv={inverse}: one "
        f"transform {runs[1]} cycles "
        f"(= cycles()), {transforms} back to back {runs[transforms]} (+{result['per_transform']}"
        f" each), in the banks {trace['in_banks']}; runs {seconds:.1f} s")
    return result


def cosim_polymul(n, butterflies=4, modulus="solinas64", *, seed=1, engines=None, opt="-O3",
                  karatsuba=False, log=print):
    """a·b mod x^n + 1 through the generated Verilog: forward ``ntt`` of a and b, the
    ``mod-mul`` unit pointwise, inverse ``ntt`` (all with Karatsuba multipliers with
    ``karatsuba``); compared with schoolbook multiplication."""
    engines = engines or Engines(opt)
    fwd, sim_f = engines.get("ntt", lambda: StreamingNTT(
        n, modulus, butterflies=butterflies, negacyclic=True, karatsuba=karatsuba), n,
        butterflies, modulus, True, False, None, karatsuba)
    _, sim_i = engines.get("ntt", lambda: StreamingNTT(
        n, modulus, butterflies=butterflies, negacyclic=True, inverse=True,
        karatsuba=karatsuba), n, butterflies, modulus, True, True, None, karatsuba)
    mul, sim_m = engines.get("mod_mul", lambda: ModMul(modulus, karatsuba=karatsuba), modulus,
                             karatsuba)
    p, lanes = fwd.modulus, fwd.lanes
    rng = random.Random(f"{seed}:polymul:{n}")
    a = [rng.randrange(p) for _ in range(n)]
    b = [rng.randrange(p) for _ in range(n)]
    t = time.monotonic()
    A = _flat(sim_f.run({"i": polynomial_beats([a], lanes)}, {"o": n // lanes}).outputs["o"])
    B = _flat(sim_f.run({"i": polynomial_beats([b], lanes)}, {"o": n // lanes}).outputs["o"])
    C = sim_m.run({"i": [{"a": x, "b": mul.premultiply(y)} for x, y in zip(A, B)]},
                  {"o": n}).outputs["o"]
    run = sim_i.run({"i": polynomial_beats([C], lanes)}, {"o": n // lanes})
    seconds = time.monotonic() - t
    got, want = _flat(run.outputs["o"]), schoolbook_negacyclic(a, b, p)
    bad = _first_mismatch(got, want)
    if bad is not None:
        raise SimulationMismatch(f"polymul n={n}: first mismatch at coefficient {bad} (seed "
                                 f"{seed}): expected {want[bad]}, got {got[bad]}")
    log(f"polymul a·b mod x^{n}+1 over {modulus}: equals schoolbook ({seconds:.2f} s of runs)")
    return {"test": "polymul", "n": n, "butterflies": butterflies, "modulus": modulus,
            "inverse_cycles": run.cycles, "run_seconds": round(seconds, 3)}
