"""Running the super-size engines with their RAM (:class:`~fhe_hw.bigint.ram.RAMHarness`) in
Amaranth's simulator or in Verilator (:mod:`fhe_hw.sim.cosim`): load a RAM image, start, collect
the unit's cycle count, its ``o`` payload and the RAM contents afterwards."""

from dataclasses import dataclass

from ..sim import cosim
from ..sim.pysim import run_stream
from .ram import RAMHarness, from_words, to_words

__all__ = ["EngineRun", "run_harness", "run_multiply", "run_multiplies", "run_engine"]


@dataclass
class EngineRun:
    cycles: int       # unit cycles, i transfer to o transfer inclusive (counted in hardware)
    result: int       # the unit's o payload
    ram: list         # RAM words (of the dumped range) after the run


def run_harness(unit, ram, command, dump, *, backend="pysim", ready_prob=1.0, seed=0,
                workdir=None, unit_name="bigint-harness", opt="-O3"):
    """Run ``unit`` with ``ram`` (list of words) preloaded, ``command`` on ``i`` (or a list of
    commands, run one after the other), and read back ``dump`` = (address, words) after each.
    ``backend``: ``"pysim"`` or ``"verilator"``. Returns an :class:`EngineRun` (a list of them
    for a list of commands)."""
    many = isinstance(command, list)
    commands = command if many else [command]
    harness = RAMHarness(unit, max(len(ram), dump[0] + dump[1], 1), ram, dump)
    per = 2 + dump[1]
    want = {"o": per * len(commands)}
    if backend == "pysim":
        run = run_stream(harness, {"i": commands}, want, ready_prob=ready_prob, seed=seed,
                         max_cycles=10**6)
    elif backend == "verilator":
        model = cosim.build(harness, unit_name, workdir, opt=opt)
        run = model.run({"i": commands}, want, ready_prob=ready_prob,
                        max_cycles=10**10)
    else:
        raise ValueError(f"backend must be 'pysim' or 'verilator', not {backend!r}")
    out = run.outputs["o"]
    runs = [EngineRun(out[n], out[n + 1], out[n + 2:n + per]) for n in range(0, len(out), per)]
    return runs if many else runs[0]


def run_multiplies(unit, pairs, **kw):
    """Several products in one simulation: ``pairs`` of (x, y, x_words, y_words); all operands
    are loaded at once and the products share one region. Returns [(product, EngineRun)]."""
    d = unit.bus_width
    ram, cmds = [], []
    for x, y, xw, yw in pairs:
        ram += to_words(x, d, xw) + to_words(y, d, yw)
    z = len(ram)
    pw = max(unit.product_words(xw, yw) for _, _, xw, yw in pairs)
    addr = 0
    for _, _, xw, yw in pairs:
        cmds.append(unit.command(addr, xw, addr + xw, yw, z))
        addr += xw + yw
    runs = run_harness(unit, ram + [0] * pw, cmds, (z, pw), **kw)
    return [(from_words(r.ram[:unit.product_words(xw, yw)], d), r)
            for r, (_, _, xw, yw) in zip(runs, pairs)]


def run_multiply(unit, x, y, *, x_words=None, y_words=None, fill=None, **kw):
    """x·y on an :class:`~fhe_hw.bigint.IntegerFFTMultiplier`: x at word 0, y after it, the
    product region after y (pre-filled with ``fill`` words, default zeros, to show that the
    multiplier does not rely on a cleared RAM). Returns (product, :class:`EngineRun`)."""
    d = unit.bus_width
    xw = x_words or max(1, -(-x.bit_length() // d))
    yw = y_words or max(1, -(-y.bit_length() // d))
    pw = unit.product_words(xw, yw)
    z = xw + yw
    ram = to_words(x, d, xw) + to_words(y, d, yw) + (list(fill or [])[:pw] + [0] * pw)[:pw]
    run = run_harness(unit, ram, unit.command(0, xw, xw, yw, z), (z, pw), **kw)
    return from_words(run.ram, d), run


def run_engine(unit, ram, **kw):
    """One run of a :class:`~fhe_hw.bigint.sequencer.Sequencer` engine (Barrett, CMNT, CNT)
    on the RAM image ``ram``; returns an :class:`EngineRun` with the whole RAM."""
    return run_harness(unit, ram, 0, (0, unit.program.depth), **kw)
