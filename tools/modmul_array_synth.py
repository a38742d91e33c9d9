"""ECP5-85F place and route of ``count`` independent ``ModMul``s side by side: the multipliers
of a P-butterfly streaming NTT (or of a point-wise stage) without banks or crossbars, to see
whether the MULT18X18D rows alone are the routing hot spot.

    python tools/modmul_array_synth.py [--count 4] [--modulus solinas64] [--tiled] [--target T]

``--tiled`` builds them with ``ModMul(tiled=True)`` (both operands in 17-bit tiles, one
MULT18X18D per registered partial product). Each multiplier keeps its own ports (``i<q>``,
``o<q>``), so the out-of-context wrapper of :func:`fhe_hw.synth.synthesize` registers all of
them and nothing is optimised away. Writes
``build/synth/modmul-array-<count>-<modulus>[-tiled]-<target>/synth.json`` and prints LUT, FF,
DSP and Fmax.
"""

import argparse
import sys
from pathlib import Path

from amaranth import Module
from amaranth.lib import wiring

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fhe_hw.arith import ModMul  # noqa: E402
from fhe_hw.synth import TARGETS, synthesize  # noqa: E402


class ModMulArray(wiring.Component):
    """``count`` ModMuls over ``modulus``; ports ``i<q>``/``o<q>`` are those of multiplier q."""

    def __init__(self, count, modulus, tiled=False):
        self._muls = [ModMul(modulus, tiled=tiled) for _ in range(count)]
        members = {}
        for q, mul in enumerate(self._muls):
            members[f"i{q}"] = mul.signature.members["i"]
            members[f"o{q}"] = mul.signature.members["o"]
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for q, mul in enumerate(self._muls):
            m.submodules[f"mul{q}"] = mul
            i, o = getattr(self, f"i{q}"), getattr(self, f"o{q}")
            m.d.comb += [mul.i.payload.eq(i.payload), mul.i.valid.eq(i.valid),
                         o.payload.eq(mul.o.payload), o.valid.eq(mul.o.valid)]
        return m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--modulus", default="solinas64")
    ap.add_argument("--tiled", action="store_true", help="ModMul(tiled=True)")
    ap.add_argument("--target", default="ecp5-splitnets-router2", choices=list(TARGETS))
    args = ap.parse_args(argv)
    if args.count < 1:
        ap.error("--count must be at least 1")
    params = {"count": args.count, "modulus": args.modulus, "tiled": args.tiled}
    name = f"{args.count}-{args.modulus}{'-tiled' if args.tiled else ''}-{args.target}"
    build_dir = Path("build", "synth", f"modmul-array-{name}")
    r = synthesize(ModMulArray(args.count, args.modulus, args.tiled), "modmul-array",
                   args.target, params=params, build_dir=build_dir)
    print(f"{args.count} x ModMul({args.modulus}, tiled={args.tiled}): {r.lut} LUT, {r.ff} FF, "
          f"{r.dsp} DSP, {r.fmax_mhz} MHz ({build_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
