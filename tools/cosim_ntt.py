"""Verilator co-simulation of the streaming NTT engine `ntt` (`nox -s cosim`).

    python tools/cosim_ntt.py            # solinas64, P = 4: n = 4096 forward, inverse and
                                         # negacyclic a·b mod x^4096 + 1; n = 65536 forward
                                         # and inverse; cycles vs n·log2(n)/(2P) and 12,500
    python tools/cosim_ntt.py --quick    # < 60 s smoke: n = 64 and 256, incl. the polymul
    python tools/cosim_ntt.py --n 65536 --butterflies 1 --butterflies 8 ...
    python tools/cosim_ntt.py --n 4096 --karatsuba   # every ModMul with karatsuba=True
    python tools/cosim_ntt.py --four-step  # adds the four-step engine (4096, 65536)
    python tools/cosim_ntt.py --four-step-stream --n 4096 --lanes 16
                                         # StreamingFourStepNTT only: 3 transforms back to
                                         # back, forward and inverse, at each n and lanes

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
import sys
import time

from fhe_hw.ntt.cosim import Engines, cosim_four_step_stream, cosim_ntt, cosim_polymul
from fhe_hw.sim import SimulationMismatch
from fhe_hw.sim.cosim import add_build_arguments, finish, judge

QUICK = [("transform", 64, 2, False, False), ("transform", 64, 2, True, True),
         ("transform", 256, 4, False, True), ("polymul", 64, 2, True, None)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small smoke runs (< 60 s)")
    ap.add_argument("--n", type=int, action="append", help="sizes (default 4096 and 65536)")
    ap.add_argument("--butterflies", type=int, action="append", help="P (default 4)")
    ap.add_argument("--modulus", default="solinas64")
    ap.add_argument("--karatsuba", action="store_true",
                    help="the engines' and the pointwise ModMuls with karatsuba=True")
    ap.add_argument("--four-step", action="store_true",
                    help="also the four-step engine (solinas64) at n = 4096 and 65536")
    ap.add_argument("--four-step-stream", action="store_true",
                    help="only the streaming four-step engine, at each --n (default 4096 and "
                         "65536) and --lanes (default 16 and 8)")
    ap.add_argument("--lanes", type=int, action="append",
                    help="samples per beat of the streaming four-step engine")
    ap.add_argument("--inner-units", type=int, default=1, choices=(1, 2),
                    help="m-point units of the streaming four-step engine (default 1)")
    add_build_arguments(ap, opt="-O3")
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
    if args.four_step_stream:
        runs = [("four-step-stream", n, lanes, False, inv) for n in args.n or [4096, 65536]
                for lanes in args.lanes or [16, 8] for inv in (False, True)]
    engines = Engines(opt, split=args.split, jobs=args.jobs)
    results, status, start = [], 0, time.monotonic()
    for kind, n, P, neg, inv in runs:
        try:
            if kind == "polymul":
                result = cosim_polymul(n, P, args.modulus, seed=args.seed, engines=engines,
                                       karatsuba=args.karatsuba)
                result["ok"] = True
            elif kind == "four-step-stream":
                result = cosim_four_step_stream(n, P, inner_units=args.inner_units, inverse=inv,
                                                seed=args.seed, engines=engines)
                result["ok"] = True
            else:
                result = cosim_ntt(n, P, args.modulus, negacyclic=neg, inverse=inv,
                                   seed=args.seed, four_step=kind == "four-step",
                                   engines=engines, karatsuba=args.karatsuba)
        except SimulationMismatch as e:
            result = {"test": kind, "n": n, "butterflies": P, "ok": False, "error": str(e)}
        status |= judge(result, f"{kind} n={n} P={P}")
        results.append(result)
    print(f"Verilator builds {engines.build_seconds:.0f} s", file=sys.stderr)
    return finish(results, args.out, start, status)


if __name__ == "__main__":
    sys.exit(main())
