"""Verilator co-simulation of CMNT encryption on the Integer-FFT multiplier ([Cao13] §4–5;
`nox -s cosim`).

    python tools/cosim_bigint.py               # toy group of [Cao14] Table 1 (phi = 160,000 bits,
                                               # theta = 12), solinas64 n = 128, digit_bits = 28
                                               # (kb/2d = 8), factored schedule
    python tools/cosim_bigint.py --schedule paper factored
    python tools/cosim_bigint.py --quick       # smoke: phi = 1,000, theta = 2, fermat64
                                               # n = 8, digit_bits = 24, factored schedule
    python tools/cosim_bigint.py --key-bits 20000 --count 4   # a scaled toy group

The scenario is :func:`fhe_hw.bigint.cosim.cosim_cmnt`: each run generates the Verilog of
:class:`~fhe_hw.bigint.CMNTEncrypt` with its RAM (loaded with a random instance of
:func:`fhe_hw.model.bigint.random_cmnt_instance`), runs it in Verilator and checks the
ciphertext against :func:`fhe_hw.model.bigint.cmnt_encrypt` (and Python's ``%``) and the cycle
count, counted in hardware, against :meth:`CMNTEncrypt.cycles`. Results go to JSON (default
build/cosim/bigint.json). Exit status 1 on a mismatch.
"""

import argparse
import sys
import time
import warnings
from dataclasses import replace

from fhe_hw.bigint.cosim import cosim_cmnt
from fhe_hw.builddir import ROOT
from fhe_hw.model.bigint import cmnt_group
from fhe_hw.sim.cosim import finish, judge


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="phi = 1000, theta = 2 smoke run")
    ap.add_argument("--schedule", nargs="+", choices=("paper", "factored"),
                    default=["factored"])
    ap.add_argument("--modulus", default="solinas64")
    ap.add_argument("--n", type=int, default=128, help="transform size")
    ap.add_argument("--digit-bits", type=int, default=28)
    ap.add_argument("--key-bits", type=int, help="scale phi down (default: the toy group's)")
    ap.add_argument("--count", type=int, help="scale theta down")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opt", default="-O2", help="C++ optimisation of the Verilator model")
    ap.add_argument("--out", default=str(ROOT / "cosim" / "bigint.json"))
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*created but never used")
    sizes = cmnt_group("toy")
    mult = dict(modulus=args.modulus, n=args.n, digit_bits=args.digit_bits)
    schedules = args.schedule
    if args.quick:
        sizes = replace(sizes, key_bits=1000, count=2)
        mult, schedules = dict(modulus="fermat64", n=8, digit_bits=24), ["factored"]
    if args.key_bits or args.count:
        sizes = replace(sizes, key_bits=args.key_bits or sizes.key_bits,
                        count=args.count or sizes.count)
    results, status, start = [], 0, time.monotonic()
    for schedule in schedules:
        result = cosim_cmnt(sizes, schedule, mult, args.seed,
                            "-O0" if args.quick else args.opt)
        status |= judge(result, f"{schedule} ciphertext")
        results.append(result)
    return finish(results, args.out, start, status)


if __name__ == "__main__":
    sys.exit(main())
