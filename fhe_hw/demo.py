"""`fhe-hw demo`: the main job.

1. Elaborates every available unit at the papers' parameters, simulates it on edge values and
   seeded random inputs against its golden model in :mod:`fhe_hw.model`, checks the latency, and
   prints a summary table.
2. The board path for the default unit (:data:`DEFAULT_UNIT`, a 64-bit Solinas modular
   multiplier): writes its Verilog, simulates the whole board top (the unit behind the UART host
   link) with the host driver talking through the UART pins and checks every result against the
   golden model, then builds the ULX3S bitstream with YoWASP and prints the build report.
"""

import random
import time
from dataclasses import dataclass

from .arith import (
    BarrettReducer,
    ModAdd,
    ModMul,
    ModSub,
    MontgomeryReducer,
    SolinasReducer,
    SpecialReducer,
)
from .model import reduce as R
from .params import MODULI, ntt_primes
from .simulate import run_fixed_latency

__all__ = ["run_demo", "run_board_demo", "CASES", "DEFAULT_UNIT"]

#: The unit the board path of the demo generates, simulates and builds: (name, parameters).
DEFAULT_UNIT = ("mod-mul", {"modulus": "solinas64"})


@dataclass(frozen=True)
class Case:
    unit: str
    label: str
    build: object          # () -> Component
    inputs: object         # (component, rng, count) -> list of payloads
    model: object          # (component, payload) -> expected output


def _wide(bits, edges):
    def gen(unit, rng, count):
        return edges(unit) + [rng.getrandbits(bits(unit)) for _ in range(count)]
    return gen


def _pairs(unit, rng, count):
    q = unit.modulus
    edges = [(0, 0), (q - 1, q - 1), (q - 1, 1), (0, q - 1), (1, q - 1)]
    return [{"a": a, "b": b} for a, b in edges] + \
           [{"a": rng.randrange(q), "b": rng.randrange(q)} for _ in range(count)]


def _mod_mul_model(unit, v):
    """ModMul's product through the golden model of the reducer it uses."""
    x, red = v["a"] * v["b"], unit.reducer_unit
    return {"barrett": lambda: R.barrett_reduce(x, red.constants),
            "montgomery": lambda: R.montgomery_reduce(x, red.constants),
            "special": lambda: R.special_reduce(x, red.m),
            "solinas": lambda: R.solinas_reduce(x)}[unit.reducer]()


def _reducer_edges(unit):
    p, top = unit.modulus, (1 << len(unit.i.payload)) - 1
    return [0, 1, p - 1, p, p + 1, (p - 1) ** 2, top]


_RNS_PRIME = ntt_primes(60, 1 << 16, 1)[0]

CASES = [
    Case("mod-add", "general32", lambda: ModAdd("general32"), _pairs,
         lambda u, v: R.mod_add(v["a"], v["b"], u.modulus)),
    Case("mod-sub", "solinas64", lambda: ModSub("solinas64"), _pairs,
         lambda u, v: R.mod_sub(v["a"], v["b"], u.modulus)),
    Case("barrett-reducer", "general32", lambda: BarrettReducer("general32"),
         _wide(lambda u: len(u.i.payload), _reducer_edges),
         lambda u, x: R.barrett_reduce(x, u.constants)),
    Case("special-reducer", "m=33", lambda: SpecialReducer(33),
         _wide(lambda u: len(u.i.payload), _reducer_edges), lambda u, x: R.special_reduce(x, 33)),
    Case("special-reducer", "m=65", lambda: SpecialReducer(65),
         _wide(lambda u: len(u.i.payload), _reducer_edges), lambda u, x: R.special_reduce(x, 65)),
    Case("solinas-reducer", "solinas64", SolinasReducer,
         _wide(lambda u: len(u.i.payload), _reducer_edges), lambda u, x: R.solinas_reduce(x)),
    Case("montgomery-reducer", "60-bit, w=17", lambda: MontgomeryReducer(_RNS_PRIME, 17),
         _wide(lambda u: len(u.i.payload), _reducer_edges),
         lambda u, x: R.montgomery_reduce(x, u.constants)),
] + [
    Case("mod-mul", name, lambda name=name: ModMul(name), _pairs, _mod_mul_model)
    for name in MODULI
]


def run_demo(*, seed=1, vectors=500, out=print, board="ulx3s", build=True):
    """The table of every case, then :func:`run_board_demo` (``board``; ``build=False`` skips
    the bitstream). Returns 0 when everything matches its model and builds, 1 otherwise."""
    status = run_unit_table(seed=seed, vectors=vectors, out=out)
    out("")
    return status | run_board_demo(board=board, seed=seed, build=build, out=out)


def run_board_demo(*, board="ulx3s", seed=1, vectors=64, build=True, out=print,
                   workdir="build/demo"):
    """Generate, simulate through the board top and build the default unit; 0 on success."""
    from pathlib import Path

    from .build import _utilization_line, build_board, markdown
    from .host import Host, SimTransport, run_vectors
    from .link import HostLinkTop
    from .units import get_unit, to_verilog

    name, params = DEFAULT_UNIT
    unit = get_unit(name)
    Path(workdir).mkdir(parents=True, exist_ok=True)
    verilog = Path(workdir, f"{name}.v")
    verilog.write_text(to_verilog(unit.build(**params), name))
    out(f"fhe_hw demo: board path for {name} {params} (board {board})")
    out(f"  generated {verilog}")
    top = HostLinkTop(unit.build(**params), name, params, clk_hz=4e6, baud=1e6, depth=256)
    host = Host(SimTransport(top, level="uart"))
    start = time.perf_counter()
    lines = []
    bad = run_vectors(host, count=vectors, seed=seed, out=lines.append, unit=top.unit)
    out(f"  simulated board top over UART bits (host driver): {lines[-1]} "
        f"[{time.perf_counter() - start:.1f} s wall]")
    if not build:
        return 1 if bad else 0
    try:
        result = build_board(board, name, params)
    except RuntimeError as e:
        out(f"  {board} build failed: {e}")
        return 1
    how = "reused from an identical earlier build" if result.cached else "built"
    out(f"  {board} bitstream {result.bitstream} ({result.bitstream_bytes} bytes, {how}), "
        f"report {result.build_dir}/build.json")
    for line in markdown([result]).splitlines():
        out("  " + line)
    out(f"  nextpnr cells used/available: {_utilization_line(result)}")
    return 1 if bad else 0


def run_unit_table(*, seed=1, vectors=500, out=print):
    """Run every case; return 0 when all match their models, 1 otherwise."""
    rows, failed = [], 0
    for case in CASES:
        rng = random.Random(f"{seed}:{case.unit}:{case.label}")
        unit = case.build()
        payloads = case.inputs(unit, rng, vectors)
        start = time.perf_counter()
        got = run_fixed_latency(unit, payloads, bubbles=0.1, seed=seed)
        seconds = time.perf_counter() - start
        mismatches = [n for n, (v, y) in enumerate(zip(payloads, got)) if case.model(unit, v) != y]
        ok = not mismatches
        failed += not ok
        rows.append((case.unit, case.label, str(unit.latency), str(len(payloads)),
                     "pass" if ok else f"FAIL at vector {mismatches[0]} (seed {seed})",
                     f"{seconds:.2f}"))
    header = ("unit", "parameters", "latency", "vectors", "vs golden model", "sim s")
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    out("fhe_hw demo: RTL simulation (Amaranth pysim) against the golden models")
    for row in [header, tuple("-" * w for w in widths)] + rows:
        out("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    out(f"{len(rows) - failed} of {len(rows)} units match their models")
    return 1 if failed else 0
