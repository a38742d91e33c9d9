"""Verilator co-simulation of the RNS base-extension engines (`nox -s cosim`).

    python tools/cosim_rns.py            # [Kir25] Table 4.10 set: Shenoy-Kumaresan folded,
                                         # N = 2^16, l = k = 17, TP = 32, 60-bit primes
    python tools/cosim_rns.py --quick    # < 60 s smoke: all four engines at N = 256, l = k = 2
    python tools/cosim_rns.py --engine kawamura --engine mixed-radix [--n ..] [--source-limbs ..]
    python tools/cosim_rns.py --engine all
    python tools/cosim_rns.py --n 4096 --source-limbs 4 --lanes 4 --prime-bits 32 \
        --prime-n 65536 --targets-per-pass 4 --tile-reg   # the rns table's exact 4 -> 4 row
        [--parallel-targets]                              # (rns-side-by-side's)

Checks every target residue against exact CRT arithmetic and a prefix against the golden
model (:func:`fhe_hw.rns.cosim.cosim_base_extension`), prints the measured cycles beside the
engine's ``cycles()`` and [Kir25] Table 4.5, and writes the results as JSON (default
build/cosim/rns.json). Exit status 1 on a mismatch or a cycle count that differs from
``cycles()``.
"""

import argparse
import sys
import time

from fhe_hw.rns.cosim import ENGINES, FLAGS, cosim_base_extension
from fhe_hw.sim import SimulationMismatch
from fhe_hw.sim.cosim import finish, judge

#: --quick: small runs of every engine (Shenoy-Kumaresan with 60-bit primes and two targets per
#: pass, the others with 32-bit primes to keep the Verilator builds short; all widths and
#: targets_per_pass = 1 are covered in pysim).
QUICK = [
    {"engine": "shenoy-kumaresan", "n": 256, "source_limbs": 2, "target_limbs": 2, "lanes": 2,
     "prime_bits": 60, "targets_per_pass": 2},
    {"engine": "fast-base-conversion", "n": 256, "source_limbs": 2, "target_limbs": 2,
     "lanes": 2, "prime_bits": 32},
    {"engine": "kawamura", "n": 256, "source_limbs": 2, "target_limbs": 2, "lanes": 1,
     "prime_bits": 32},
    {"engine": "mixed-radix", "n": 256, "source_limbs": 2, "target_limbs": 2, "lanes": 1,
     "prime_bits": 32},
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small smoke runs of every engine")
    ap.add_argument("--engine", action="append", choices=ENGINES + ("all",),
                    help="engine(s) to run (default shenoy-kumaresan)")
    ap.add_argument("--n", type=int, default=2**16)
    ap.add_argument("--source-limbs", type=int, default=17, help="l, source residues")
    ap.add_argument("--target-limbs", type=int, default=None,
                    help="k, target residues (default: --source-limbs)")
    ap.add_argument("--lanes", type=int, default=32, help="coefficients per beat (TP)")
    ap.add_argument("--prime-bits", type=int, default=60)
    ap.add_argument("--architecture", default=None)
    ap.add_argument("--targets-per-pass", type=int, default=1)
    ap.add_argument("--prime-n", type=int, default=None,
                    help="NTT size the primes support (default: the engine's)")
    ap.add_argument("--tile-reg", action="store_true",
                    help="a register after each DSP tile's product (polynomial engines)")
    ap.add_argument("--parallel-targets", action="store_true",
                    help="a pass's targets side by side on o (polynomial engines, folded)")
    ap.add_argument("--parallel-redundant", action="store_true",
                    help="the redundant residue beside the last source residue on i "
                    "(shenoy-kumaresan, folded)")
    ap.add_argument("--fused-post-sum", action="store_true",
                    help="the Post-Sum behind each row of the last source residue, no "
                    "multiplier (shenoy-kumaresan, with --parallel-redundant, "
                    "--parallel-targets and --targets-per-pass = k)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opt", default="-O3", help="C++ optimisation of the Verilator model")
    ap.add_argument("--out", default="build/cosim/rns.json")
    args = ap.parse_args(argv)
    engines = args.engine or ["shenoy-kumaresan"]
    if "all" in engines:
        engines = list(ENGINES)
    for flag, allowed in FLAGS.items():
        if getattr(args, flag) and set(engines) - set(allowed):
            ap.error(f"--{flag.replace('_', '-')} applies to {' and '.join(allowed)} only")
    if args.quick:
        runs = [dict(run, opt="-O0") for run in QUICK]
    else:
        runs = [{"engine": e, "n": args.n, "source_limbs": args.source_limbs,
                 "target_limbs": args.target_limbs, "lanes": args.lanes,
                 "prime_bits": args.prime_bits, "architecture": args.architecture,
                 "targets_per_pass": args.targets_per_pass, "prime_n": args.prime_n,
                 **{flag: getattr(args, flag) for flag in FLAGS},
                 "opt": args.opt} for e in engines]
    results, status, start = [], 0, time.monotonic()
    for run in runs:
        try:
            result = cosim_base_extension(**run, seed=args.seed)
        except SimulationMismatch as e:
            print(f"FAIL: {e}", file=sys.stderr)
            status = 1
            continue
        status |= judge(result, run["engine"])
        results.append(result)
    return finish(results, args.out, start, status)


if __name__ == "__main__":
    sys.exit(main())
