"""Verilator co-simulation of the Karatsuba co-design of 004 (`nox -s cosim`).

    python tools/cosim_karatsuba.py            # n = 2560 (9 recursions, 3 in hardware):
                                               # product and relinearization (l = 5 words)
    python tools/cosim_karatsuba.py --quick    # < 60 s smoke: n = 40 (3 recursions, 1 in
                                               # hardware), product and relinearization
    python tools/cosim_karatsuba.py --hw 4 --only product

The software side (:mod:`fhe_hw.karatsuba.host`) performs the outer recursions; every
accelerator call runs the generated Verilog of :class:`~fhe_hw.karatsuba.KaratsubaMultiplier`
/ :class:`~fhe_hw.karatsuba.KaratsubaRelinearizer` in Verilator. The product is checked
against schoolbook multiplication, relinearization against
:func:`fhe_hw.model.karatsuba.relinearize`; the simulated accelerator cycles against the units'
``cycles()``. Results go to JSON (default build/cosim/karatsuba.json). Exit status 1 on a
mismatch.
"""

import argparse
import sys
import time

from fhe_hw.karatsuba.host import cosim_full_product, cosim_relinearize
from fhe_hw.sim.cosim import finish, judge


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 40 smoke runs (Karatsuba-1)")
    ap.add_argument("--hw", type=int, default=3, help="recursions in hardware")
    ap.add_argument("--total", type=int, default=9, help="recursions in total (n = 5 * 2^total)")
    ap.add_argument("--only", choices=("product", "relin"), help="run one of the two")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opt", default="-O3", help="C++ optimisation of the Verilator model")
    ap.add_argument("--out", default="build/cosim/karatsuba.json")
    args = ap.parse_args(argv)
    hw, total, opt = (1, 3, "-O0") if args.quick else (args.hw, args.total, args.opt)
    kinds = [args.only] if args.only else ["product", "relin"]
    results, status, start = [], 0, time.monotonic()
    for kind in kinds:
        run = cosim_full_product if kind == "product" else cosim_relinearize
        result = {"kind": kind, **run(hw_recursions=hw, total_recursions=total,
                                      seed=args.seed, opt=opt)}
        status |= judge(result, kind)
        results.append(result)
    return finish(results, args.out, start, status)


if __name__ == "__main__":
    sys.exit(main())
