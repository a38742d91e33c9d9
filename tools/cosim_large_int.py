"""Verilator co-simulation of the large-integer multiplier `large-int-mul` ([Wang13] §III-A).

    python tools/cosim_large_int.py                        # 786,432-bit operands, 8 lanes,
                                                           # one and two forward engines
    python tools/cosim_large_int.py --max-bits 49152 --lanes 4 --engines 1

Each configuration multiplies random, all-ones and one-digit × full-size operands through the
generated Verilog and compares every product with Python's ``*`` and the cycles with
``cycles()``. Results go to JSON (default build/cosim/large-int.json); exit status 1 on any
mismatch. At 65,536 points the 16-lane multiplier does not build in Verilator on a 24 GiB
machine (Verilator itself takes 21.0 GB for one 16-lane engine, and the multiplier has two or
three); 8 lanes take a few GB.
"""

import argparse
import sys
import time

from fhe_hw.largeint.cosim import cosim_large_int_mul
from fhe_hw.sim import SimulationMismatch
from fhe_hw.sim.cosim import add_build_arguments, finish, judge


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-bits", type=int, default=786432)
    ap.add_argument("--digit-bits", type=int, default=24)
    ap.add_argument("--lanes", type=int, action="append", help="digits per beat (default 8)")
    ap.add_argument("--engines", type=int, action="append", help="forward engines (default 1, 2)")
    ap.add_argument("--inner-units", type=int, default=1, choices=(1, 2),
                    help="the engines' inner units (default 1)")
    add_build_arguments(ap)
    ap.add_argument("--out", default="build/cosim/large-int.json")
    args = ap.parse_args(argv)
    results, status, start = [], 0, time.monotonic()
    for lanes in args.lanes or [8]:
        for engines in args.engines or [1, 2]:
            try:
                result = cosim_large_int_mul(args.max_bits, args.digit_bits, lanes=lanes,
                                             engines=engines, inner_units=args.inner_units,
                                             seed=args.seed, opt=args.opt, split=args.split,
                                             jobs=args.jobs)
                result["ok"] = True
            except SimulationMismatch as e:
                result = {"test": "large-int-mul", "lanes": lanes, "engines": engines,
                          "ok": False, "error": str(e)}
            status |= judge(result, f"large-int-mul lanes={lanes} engines={engines}")
            results.append(result)
    return finish(results, args.out, start, status)


if __name__ == "__main__":
    sys.exit(main())
