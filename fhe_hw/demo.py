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
from pathlib import Path

from .flow.build import build_board, markdown, utilization_line
from .link import HostLinkTop
from .link.host import Host, SimTransport, run_vectors
from .sim.pysim import run_stream
from .sim.vectors import demo_configurations, documented_cycles, vectors_for
from .units import get_unit, to_verilog

__all__ = ["run_demo", "run_board_demo", "run_unit_table", "DEFAULT_UNIT"]

#: The unit the board path of the demo generates, simulates and builds: (name, parameters).
DEFAULT_UNIT = ("mod-mul", {"modulus": "solinas64"})


def run_demo(*, seed=1, vectors=500, out=print, board="ulx3s", build=True, units=None):
    """The table of every case (of ``units`` only, when given: see :func:`run_unit_table`),
    then :func:`run_board_demo` (``board``; ``build=False`` skips the bitstream). Returns 0 when
    everything matches its model and builds, 1 otherwise."""
    status = run_unit_table(seed=seed, vectors=vectors, out=out, units=units)
    out("")
    return status | run_board_demo(board=board, seed=seed, build=build, out=out,
                                   vectors=min(vectors, BOARD_VECTORS))


#: Vectors the board path sends through the simulated UART at most (bit-level pysim is slow).
BOARD_VECTORS = 64


def run_board_demo(*, board="ulx3s", seed=1, vectors=BOARD_VECTORS, build=True, out=print,
                   workdir="build/demo"):
    """Generate, simulate through the board top and build the default unit; 0 on success."""
    name, params = DEFAULT_UNIT
    unit = get_unit(name)
    Path(workdir).mkdir(parents=True, exist_ok=True)
    verilog = Path(workdir, f"{name}.v")
    verilog.write_text(to_verilog(unit.build(**params), name, header=unit.summary(params)))
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
        result = build_board(board, name, params,
                             progress=lambda line: out(f"  building: {line}"))
    except RuntimeError as e:
        out(f"  {board} build failed: {e}")
        return 1
    how = "reused from an identical earlier build" if result.cached else "built"
    out(f"  {board} bitstream {result.bitstream} ({result.bitstream_bytes} bytes, {how}), "
        f"report {result.build_dir}/build.json")
    for line in markdown([result]).splitlines():
        out("  " + line)
    out(f"  nextpnr cells used/available: {utilization_line(result)}")
    return 1 if bad else 0


def run_unit_table(*, seed=1, vectors=200, out=print, units=None):
    """Simulate every configuration of :func:`fhe_hw.sim.vectors.demo_configurations` (every unit
    family), or those of the unit names in ``units``, on its test vectors, always valid and
    always ready, and compare the outputs with the golden models and the cycles with the
    documented count. Returns 0 when all match, 1 otherwise; a name in ``units`` that the demo
    does not run raises ``ValueError`` before any simulation."""
    configurations = demo_configurations()
    if units is not None:
        known = sorted({name for name, _, _ in configurations})
        for name in units:
            if name not in known:
                raise ValueError(f"unit must be one of {', '.join(known)}, not {name!r}")
        configurations = [c for c in configurations if c[0] in units]
    rows, failed = [], 0
    out("fhe_hw demo: RTL simulation (Amaranth pysim) against the golden models")
    for name, label, params in configurations:
        rng = random.Random(f"{seed}:{name}:{label}")
        component = get_unit(name).build(**params)
        run = vectors_for(name)(component, rng, vectors)
        dut = component if run.harness is None else run.harness(component)
        start = time.perf_counter()
        result = run_stream(dut, run.inputs, {p: len(v) for p, v in run.expected.items()})
        seconds = time.perf_counter() - start
        bad = [(p, n) for p, want in run.expected.items()
               for n, (w, g) in enumerate(zip(want, result.outputs[p])) if w != g]
        if run.run is None:     # the RAM harness's output carries the unit's own cycles
            cycles, documented = "in the results", "checked"
        else:
            cycles, documented = result.cycles, documented_cycles(name, params, run.run)
        ok = not bad and (run.run is None or cycles == documented)
        failed += not ok
        verdict = ("pass" if ok else f"FAIL: {bad[0][0]} beat {bad[0][1]} (seed {seed})" if bad
                   else f"FAIL: {cycles} cycles, documented {documented}")
        beats = sum(map(len, run.inputs.values()))
        rows.append((name, label, str(beats), str(cycles), verdict, f"{seconds:.1f}"))
        out(f"  {name} ({label}): {verdict}")
    header = ("unit", "parameters", "input beats", "cycles", "vs model and cycles()", "sim s")
    widths = [max(len(r[c]) for r in rows + [header]) for c in range(len(header))]
    for row in [header, tuple("-" * w for w in widths)] + rows:
        out("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    out(f"{len(rows) - failed} of {len(rows)} configurations match their models")
    return 1 if failed else 0
