"""N independent ``ModMul``\\ s, ports registered, through the one synthesis flow: the routing
experiment behind the streaming NTT's P = 4 results (NTT results page).

    python tools/modmul_array_synth.py [--count 4] [--modulus solinas64] [--tiled] [--target T]
                                       [--reuse]
"""

import argparse
import sys

from fhe_hw.flow.synth import TARGETS
from fhe_hw.tables.modmul_array import synth_array


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--modulus", default="solinas64")
    ap.add_argument("--tiled", action="store_true", help="ModMul(tiled=True)")
    ap.add_argument("--target", default="ecp5-splitnets-router2", choices=list(TARGETS))
    ap.add_argument("--reuse", action="store_true", help="return a cached result of the same key")
    args = ap.parse_args(argv)
    try:
        r = synth_array(args.count, args.modulus, args.tiled, args.target, reuse=args.reuse,
                        progress=lambda text: print(text, file=sys.stderr))
    except ValueError as e:
        print(f"modmul_array_synth: error: {e}", file=sys.stderr)
        return 2
    print(f"{args.count} x ModMul({args.modulus}, tiled={args.tiled}): {r.lut} LUT, {r.ff} FF, "
          f"{r.dsp} DSP, {r.fmax_mhz} MHz ({r.build_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
