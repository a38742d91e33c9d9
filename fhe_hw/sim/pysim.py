"""Run units in Amaranth's Python simulator: the driver shared by the tests and `fhe-hw demo`."""

import random
from dataclasses import dataclass

from amaranth.sim import Simulator

from ..payload import pack, payload_value, unpack
from . import SimulationMismatch

__all__ = ["pack", "unpack", "payload_value", "run_fixed_latency", "LatencyMismatch",
           "run_stream", "StreamRun", "StreamProtocolError"]


class LatencyMismatch(SimulationMismatch):
    """An output of a fixed-latency unit appeared at another cycle than ``unit.latency`` after
    its input, or did not appear."""


def run_fixed_latency(unit, inputs, *, bubbles=0.0, seed=0):
    """Stream ``inputs`` into a fixed-latency unit and return its outputs in order.

    With ``bubbles`` > 0, that fraction of cycles carries no input (``valid`` low) so the test
    sees ``valid`` travel with the data. Raises :class:`LatencyMismatch` unless every output
    appears exactly ``unit.latency`` cycles after its input and no output appears otherwise.
    """
    rng = random.Random(seed)
    i_value, i_shape = payload_value(unit.i)
    o_value, o_shape = payload_value(unit.o)
    words = [pack(i_shape, v) for v in inputs]
    outputs, sent, seen = [], [], []

    async def bench(ctx):
        cycle = 0
        pending = list(words)
        while pending or len(outputs) < len(words):
            if cycle > len(words) * (1 + 4 * bubbles) + 8 * unit.latency + 64:
                raise LatencyMismatch(f"only {len(outputs)} of {len(words)} outputs appeared")
            if pending and rng.random() >= bubbles:
                ctx.set(i_value, pending.pop(0))
                ctx.set(unit.i.valid, 1)
                sent.append(cycle)
            else:
                ctx.set(unit.i.valid, 0)
            if ctx.get(unit.o.valid):
                outputs.append(unpack(o_shape, ctx.get(o_value)))
                seen.append(cycle)
            if unit.latency:
                await ctx.tick()
            else:  # combinational: no clock domain to tick
                await ctx.delay(1e-8)
            cycle += 1

    sim = Simulator(unit)
    sim.add_clock(1e-8, if_exists=True)
    sim.add_testbench(bench)
    sim.run()
    for n, (t_in, t_out) in enumerate(zip(sent, seen)):
        if t_out - t_in != unit.latency:
            raise LatencyMismatch(f"output {n} appeared {t_out - t_in} cycles after its input; "
                                  f"latency is {unit.latency}")
    return outputs


class StreamProtocolError(SimulationMismatch):
    """An output stream broke the rules of ``amaranth.lib.stream``: ``valid`` fell or the
    payload changed before the transfer."""


@dataclass
class StreamRun:
    """Result of :func:`run_stream`: the output beats per stream, and the cycle count from the
    first input transfer to the last output transfer, both included (what engines' ``cycles()``
    formulas give when inputs are always valid and outputs always ready)."""

    outputs: dict
    cycles: int
    first_input: int
    last_output: int


def run_stream(unit, inputs, expected_counts, *, valid_prob=1.0, ready_prob=1.0, seed=0,
               max_cycles=None, setup=None, monitors=()):
    """Drive a stream engine in pysim, Glasgow-style: random ``valid`` on the inputs and random
    ``ready`` on the outputs, checking the stream rules on every output.

    ``inputs`` maps input port names (``"i"``, ``"i_a"``, ...) to lists of payload values (see
    :func:`pack`); ``expected_counts`` maps output port names to the number of beats to collect.
    An input beat, once offered, is held until it transfers (``valid`` never waits for
    ``ready``). ``setup(ctx)``, if given, runs first (e.g. to set configuration inputs);
    ``monitors`` are testbenches (``async def monitor(ctx)``) run in the background beside the
    driver, e.g. to check a property every cycle.
    Returns a :class:`StreamRun`.
    """
    rng = random.Random(seed)
    in_ports = {name: (getattr(unit, name), *payload_value(getattr(unit, name)))
                for name in inputs}
    out_ports = {name: (getattr(unit, name), *payload_value(getattr(unit, name)))
                 for name in expected_counts}
    pending = {name: [pack(shape, v) for v in beats]
               for name, beats in inputs.items() for _, _, shape in [in_ports[name]]}
    total_in = sum(len(v) for v in pending.values())
    limit = max_cycles or 64 + 64 * (total_in + sum(expected_counts.values()))
    got = {name: [] for name in expected_counts}
    marks = {}

    async def bench(ctx):
        if setup is not None:
            await setup(ctx)
        offered = dict.fromkeys(in_ports, False)
        held = {}
        cycle = 0
        while any(len(got[n]) < c for n, c in expected_counts.items()) or \
                any(pending.values()):
            if cycle >= limit:
                raise StreamProtocolError(
                    f"timed out after {cycle} cycles: outputs "
                    f"{ {n: len(v) for n, v in got.items()} } of {expected_counts}, inputs left "
                    f"{ {n: len(v) for n, v in pending.items()} }")
            for name, (port, value, _) in in_ports.items():
                if not offered[name] and pending[name] and rng.random() < valid_prob:
                    ctx.set(value, pending[name][0])
                    offered[name] = True
                ctx.set(port.valid, offered[name])
            for port, _, _ in out_ports.values():
                if not port.signature.always_ready:
                    ctx.set(port.ready, rng.random() < ready_prob)
            for name, (port, value, shape) in out_ports.items():
                valid = ctx.get(port.valid)
                word = ctx.get(value) if valid else None
                if name in held and (not valid or word != held[name]):
                    raise StreamProtocolError(f"{name}: valid fell or payload changed before "
                                              f"the transfer at cycle {cycle}")
                held.pop(name, None)
                if valid:
                    ready = port.signature.always_ready or ctx.get(port.ready)
                    if ready:
                        got[name].append(unpack(shape, word))
                        marks["last"] = cycle
                    else:
                        held[name] = word
            for name, (port, _, _) in in_ports.items():
                if offered[name] and ctx.get(port.ready):
                    pending[name].pop(0)
                    offered[name] = False
                    marks.setdefault("first", cycle)
            await ctx.tick()
            cycle += 1

    sim = Simulator(unit)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    for monitor in monitors:
        sim.add_testbench(monitor, background=True)
    sim.run()
    first, last = marks.get("first", 0), marks.get("last", 0)
    return StreamRun(got, last - first + 1, first, last)
