"""What each board fits: build a unit behind the host link for growing values of one
parameter until the board runs out (nextpnr cannot place it) and print/write the largest that
fits with its resources and Fmax.

    python tools/board_fits.py                      # the README list (SK largest TP, NTT n)
    python tools/board_fits.py --board icebreaker --unit shenoy-kumaresan --key tp \\
        --values 1 2 4 8 --param n=64 --param l=2 --param k=2

Writes build/boards/fits.json and fits.md. The link's memories are sized to hold one whole
run of the unit (``input_beats``/``output_beats`` where the unit has them), so every bitstream
listed can really be driven by ``fhe-hw run``.
"""

import argparse
import json
import sys
import warnings
from pathlib import Path

from amaranth.hdl import UnusedElaboratable
from fhe_hw.boards import BOARDS
from fhe_hw.build import build_board, markdown
from fhe_hw.units import get_unit

#: (unit, fixed parameters, swept key, values): the README's list (streaming NTT: solinas64,
#: P = 1, 2 lanes).
SWEEPS = [
    ("shenoy-kumaresan", {"bits": 32, "n": 64, "l": 2, "k": 2, "architecture": "folded"},
     "tp", [1, 2, 4, 8, 16]),
    ("ntt", {}, "n", [256, 1024, 4096, 16384, 32768]),
]


def _depth(unit_name, params):
    unit = get_unit(unit_name).build(**params)   # read for its sizes only
    warnings.filterwarnings("ignore", category=UnusedElaboratable)
    beats = [b for b in (getattr(unit, "input_beats", None), getattr(unit, "output_beats", None))
             if isinstance(b, int)]
    return max(beats or [getattr(unit, "n", 16)] + [16])


def sweep(board, unit_name, params, key, values, log=print):
    """Build for each value in order until one fails; return (results that fit, first failure
    text or None)."""
    fits = []
    for value in values:
        p = {**params, key: value}
        try:
            depth = _depth(unit_name, p)
            result = build_board(board, unit_name, p, depth=depth)
        except (RuntimeError, ValueError) as e:
            reason = str(e).splitlines()
            log(f"{board} {unit_name} {key}={value}: does not build: "
                f"{next((x for x in reason if x.startswith('ERROR')), reason[0])}")
            why = next((x for x in reason if x.startswith("ERROR")), reason[-1] if reason else e)
            return fits, f"{key}={value}: {why}"
        log(markdown([result]).splitlines()[-1])
        fits.append(result)
    return fits, None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", action="append", choices=BOARDS, help="default: all boards")
    ap.add_argument("--unit")
    ap.add_argument("--key")
    ap.add_argument("--values", type=int, nargs="+")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE (int or text)")
    args = ap.parse_args(argv)
    if args.unit:
        params = {}
        for item in args.param:
            name, value = item.split("=", 1)
            params[name.replace("-", "_")] = int(value) if value.isdigit() else value
        sweeps = [(args.unit, params, args.key, args.values)]
    else:
        sweeps = SWEEPS
    from fhe_hw.units import units

    rows, summary = [], []
    for board in args.board or list(BOARDS):
        for unit_name, params, key, values in sweeps:
            if unit_name not in units():
                print(f"{unit_name}: not registered yet; skipped")
                continue
            fits, failure = sweep(board, unit_name, params, key, values)
            rows += fits
            best = fits[-1] if fits else None
            summary.append({"board": board, "unit": unit_name, "params": params, "key": key,
                            "largest": best.params[key] if best else None,
                            "fmax_mhz": best.fmax_mhz if best else None,
                            "first_failure": failure})
    out = Path("build", "boards")
    out.mkdir(parents=True, exist_ok=True)
    (out / "fits.json").write_text(json.dumps({"summary": summary,
                                               "builds": [r.to_dict() for r in rows]}, indent=2))
    (out / "fits.md").write_text(markdown(rows) + "\n")
    print(markdown(rows))
    for s in summary:
        print(f"{s['board']}: largest {s['key']} for {s['unit']} {s['params']}: {s['largest']} "
              f"({s['fmax_mhz']} MHz); first failure: {s['first_failure']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
