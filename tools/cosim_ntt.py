"""Verilator co-simulation of the streaming NTT engine `ntt` (`nox -s cosim`).

    python tools/cosim_ntt.py            # solinas64, P = 4: n = 4096 forward, inverse and
                                         # negacyclic a·b mod x^4096 + 1; n = 65536 forward
                                         # and inverse; cycles vs n·log2(n)/(2P) and 12,500
    python tools/cosim_ntt.py --quick    # < 60 s smoke: n = 64 and 256, incl. the polymul
    python tools/cosim_ntt.py --n 65536 --butterflies 1 --butterflies 8 ...
    python tools/cosim_ntt.py --four-step  # adds the four-step engine (4096, 65536)

Every run streams random coefficients through the generated Verilog (``fhe-hw generate ntt``)
and compares each output with the golden model :func:`fhe_hw.model.ntt.ntt_radix2`; the
negacyclic product (forward NTT of a and b, the hardware ``ModMul`` pointwise, inverse NTT) is
compared with exact schoolbook multiplication mod x^n + 1 (one big-integer product by Kronecker
substitution, then the wrap with sign). The measured cycle count must equal ``cycles()``.
Results go to JSON (default build/cosim/ntt.json); exit status 1 on any mismatch.

Why the C++ harness (:mod:`fhe_hw.sim.cosim`) and not cocotb: cocotb calls back into Python on
every clock edge, so it runs at about 2.5k cycles/s here with Verilator 5.006 (measured earlier;
cocotb is not installed in this environment, so we did not re-measure it), no faster than
Amaranth's own simulator, and a single n = 65536 transform takes ~150k cycles (about a minute
of cocotb per transform, plus Python-side bookkeeping of 65536 64-bit words per direction). The
generated harness keeps the whole stream loop in C++ and reads/writes beats from files; this
script prints the measured rate (millions of cycles/s at n = 65536), so cosim time is
dominated by the Verilator compile, not the run.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fhe_hw.arith import ModMul  # noqa: E402
from fhe_hw.model.ntt import ntt4096, ntt65536, ntt_radix2  # noqa: E402
from fhe_hw.ntt import FourStepNTT, StreamingNTT  # noqa: E402
from fhe_hw.rns import polynomial_beats  # noqa: E402
from fhe_hw.sim import cosim  # noqa: E402

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


class _Engines:
    """Compiled Verilator models, built once per configuration."""

    def __init__(self, opt):
        self.opt, self.cache, self.build_seconds = opt, {}, 0.0

    def get(self, unit_name, factory, *key):
        """(unit, compiled model) for ``factory()``; the unit is built only once per key."""
        key = (unit_name, *key)
        if key not in self.cache:
            t = time.monotonic()
            unit = factory()
            self.cache[key] = unit, cosim.build(unit, unit_name, opt=self.opt)
            self.build_seconds += time.monotonic() - t
        return self.cache[key]


def cosim_ntt(n, butterflies=4, modulus="solinas64", *, negacyclic=False, inverse=False,
              lanes=None, four_step=False, seed=1, engines=None, opt="-O3", valid_prob=1.0,
              ready_prob=1.0, log=print):
    """Co-simulate one transform of ``StreamingNTT(n, modulus, butterflies, ...)`` on random
    input; return a result dict (cycles, expected cycles, bound, rates). Raises
    ``AssertionError`` on a mismatch with the model (seed and first index given)."""
    engines = engines or _Engines(opt)
    if four_step:
        unit, sim = engines.get("four-step-ntt", lambda: FourStepNTT(n, inverse=inverse), n,
                                inverse)
    else:
        unit, sim = engines.get("ntt", lambda: StreamingNTT(
            n, modulus, butterflies=butterflies, lanes=lanes, negacyclic=negacyclic,
            inverse=inverse), n, butterflies, modulus, negacyclic, inverse, lanes)
    rng = random.Random(f"{seed}:{n}:{butterflies}:{negacyclic}:{inverse}")
    x = [rng.randrange(unit.modulus) for _ in range(n)]
    t = time.monotonic()
    run = sim.run({"i": polynomial_beats([x], unit.lanes)}, {"o": n // unit.lanes},
                  valid_prob=valid_prob, ready_prob=ready_prob)
    seconds = time.monotonic() - t
    if four_step:
        want = (ntt4096 if n == 4096 else ntt65536)(x, inverse)
    else:
        want = ntt_radix2(x, unit.params, inverse, negacyclic)
    got = _flat(run.outputs["o"])
    bad = _first_mismatch(got, want)
    assert bad is None, (f"ntt n={n} P={butterflies} neg={negacyclic} inv={inverse}: first "
                         f"mismatch at index {bad} (seed {seed}): expected {want[bad]}, "
                         f"got {got[bad]}")
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


def cosim_polymul(n, butterflies=4, modulus="solinas64", *, seed=1, engines=None, opt="-O3",
                  log=print):
    """a·b mod x^n + 1 through the generated Verilog: forward ``ntt`` of a and b, the
    ``mod-mul`` unit pointwise, inverse ``ntt``; compared with schoolbook multiplication."""
    engines = engines or _Engines(opt)
    fwd, sim_f = engines.get("ntt", lambda: StreamingNTT(
        n, modulus, butterflies=butterflies, negacyclic=True), n, butterflies, modulus, True,
        False, None)
    _, sim_i = engines.get("ntt", lambda: StreamingNTT(
        n, modulus, butterflies=butterflies, negacyclic=True, inverse=True), n, butterflies,
        modulus, True, True, None)
    mul, sim_m = engines.get("mod_mul", lambda: ModMul(modulus), modulus)
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
    assert bad is None, (f"polymul n={n}: first mismatch at coefficient {bad} (seed {seed}): "
                         f"expected {want[bad]}, got {got[bad]}")
    log(f"polymul a·b mod x^{n}+1 over {modulus}: equals schoolbook ({seconds:.2f} s of runs)")
    return {"test": "polymul", "n": n, "butterflies": butterflies, "modulus": modulus,
            "inverse_cycles": run.cycles, "run_seconds": round(seconds, 3)}


QUICK = [("transform", 64, 2, False, False), ("transform", 64, 2, True, True),
         ("transform", 256, 4, False, True), ("polymul", 64, 2, True, None)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small smoke runs (< 60 s)")
    ap.add_argument("--n", type=int, action="append", help="sizes (default 4096 and 65536)")
    ap.add_argument("--butterflies", type=int, action="append", help="P (default 4)")
    ap.add_argument("--modulus", default="solinas64")
    ap.add_argument("--four-step", action="store_true",
                    help="also the four-step engine (solinas64) at n = 4096 and 65536")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opt", default="-O3", help="C++ optimisation of the Verilator model")
    ap.add_argument("--out", default="build/cosim/ntt.json")
    args = ap.parse_args(argv)
    if args.quick:
        runs, opt = QUICK, "-O0"
    else:
        runs, opt = [], args.opt
        for n in args.n or [4096, 65536]:
            for P in args.butterflies or [4]:
                runs += [("transform", n, P, False, False), ("transform", n, P, False, True)]
                if n <= 4096:
                    runs += [("transform", n, P, True, False), ("transform", n, P, True, True),
                             ("polymul", n, P, True, None)]
    if args.four_step:
        runs += [("four-step", n, 1, False, inv) for n in (4096, 65536) for inv in (False, True)]
    engines = _Engines(opt)
    results, status, start = [], 0, time.monotonic()
    for kind, n, P, neg, inv in runs:
        try:
            if kind == "polymul":
                results.append(cosim_polymul(n, P, args.modulus, seed=args.seed,
                                             engines=engines))
            else:
                r = cosim_ntt(n, P, args.modulus, negacyclic=neg, inverse=inv, seed=args.seed,
                              four_step=kind == "four-step", engines=engines)
                if r["cycles"] != r["expected_cycles"]:
                    print(f"CYCLE MISMATCH: {r}", file=sys.stderr)
                    status = 1
                results.append(r)
        except AssertionError as e:
            print(f"FAIL: {e}", file=sys.stderr)
            status = 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"build_seconds": round(engines.build_seconds, 1),
                               "runs": results}, indent=2))
    print(f"{'ok' if status == 0 else 'FAILED'}: {len(results)} runs in "
          f"{time.monotonic() - start:.0f} s (Verilator builds {engines.build_seconds:.0f} s), "
          f"wrote {out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
