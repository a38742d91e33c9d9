"""Verilator co-simulation of CMNT and CNT encryption on transforms (`transform-encrypt`).

    python tools/cosim_encrypt.py                          # toy CMNT and CNT, 8 lanes,
                                                           # 3 encryptions each
    python tools/cosim_encrypt.py --scheme cnt --lanes 8 --encryptions 5

Each run draws random keys and messages, prepares each key's spectra and encrypts through the
generated Verilog, and compares every ciphertext with Python's ``%`` and the golden model
(fhe_hw.model.transform_encrypt), and both programs' cycles with ``cycles()``. Results go to
JSON (default build/cosim/transform-encrypt.json); exit status 1 on any mismatch. 16 lanes
do not build in Verilator on a 24 GiB machine (two 16-lane engines at about 21 GB each).
"""

import argparse
import sys
import time

from fhe_hw.encrypt.cosim import cosim_encrypt
from fhe_hw.sim import SimulationMismatch
from fhe_hw.sim.cosim import add_build_arguments, finish, judge


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheme", action="append", choices=("cmnt", "cnt"),
                    help="default: both")
    ap.add_argument("--group", default="toy")
    ap.add_argument("--lanes", type=int, default=8)
    ap.add_argument("--inner-units", type=int, default=2, choices=(1, 2))
    ap.add_argument("--encryptions", type=int, default=3)
    add_build_arguments(ap)
    ap.add_argument("--out", default="build/cosim/transform-encrypt.json")
    args = ap.parse_args(argv)
    results, status, start = [], 0, time.monotonic()
    for scheme in args.scheme or ["cmnt", "cnt"]:
        try:
            result = cosim_encrypt(scheme, args.group, lanes=args.lanes,
                                   inner_units=args.inner_units, encryptions=args.encryptions,
                                   seed=args.seed, opt=args.opt, split=args.split,
                                   jobs=args.jobs)
            result["ok"] = True
        except SimulationMismatch as e:
            result = {"test": "transform-encrypt", "scheme": scheme, "ok": False,
                      "error": str(e)}
        status |= judge(result, f"transform-encrypt {scheme} {args.group}")
        results.append(result)
    return finish(results, args.out, start, status)


if __name__ == "__main__":
    sys.exit(main())
