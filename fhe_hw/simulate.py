"""Run units in Amaranth's Python simulator: the driver shared by the tests and `fhe-hw demo`."""

import random

from amaranth.lib import data
from amaranth.sim import Simulator

__all__ = ["pack", "unpack", "run_fixed_latency", "LatencyMismatch"]


def pack(shape, value):
    """Pack ``value`` (an int, or a dict of ints for a struct layout) into the integer that the
    payload ``shape`` holds, fields LSB-first in declaration order."""
    if isinstance(shape, data.StructLayout):
        word = 0
        for name, field in shape:
            width = field.shape.width
            field_value = value[name]
            if not 0 <= field_value < 1 << width:
                raise ValueError(f"{name} must fit in {width} bits, not {field_value!r}")
            word |= field_value << field.offset
        return word
    return value


def unpack(shape, word):
    if isinstance(shape, data.StructLayout):
        return {name: (word >> f.offset) & ((1 << f.shape.width) - 1) for name, f in shape}
    return word


class LatencyMismatch(AssertionError):
    pass


def run_fixed_latency(unit, inputs, *, bubbles=0.0, seed=0):
    """Stream ``inputs`` into a fixed-latency unit (DESIGN §3) and return its outputs in order.

    With ``bubbles`` > 0, that fraction of cycles carries no input (``valid`` low) so the test
    sees ``valid`` travel with the data. Raises :class:`LatencyMismatch` unless every output
    appears exactly ``unit.latency`` cycles after its input and no output appears otherwise.
    """
    rng = random.Random(seed)
    i_shape = unit.i.payload.shape() if hasattr(unit.i.payload, "shape") else None
    i_layout = data.Layout.cast(i_shape) if isinstance(i_shape, data.Layout) else None
    o_shape = unit.o.payload.shape()
    o_layout = o_shape if isinstance(o_shape, data.StructLayout) else None
    words = [pack(i_layout, v) if i_layout else v for v in inputs]
    outputs, sent, seen = [], [], []

    async def bench(ctx):
        i_payload = unit.i.payload.as_value() if i_layout else unit.i.payload
        o_payload = unit.o.payload.as_value() if o_layout else unit.o.payload
        cycle = 0
        pending = list(words)
        while pending or len(outputs) < len(words):
            if cycle > len(words) * (1 + 4 * bubbles) + 8 * unit.latency + 64:
                raise LatencyMismatch(f"only {len(outputs)} of {len(words)} outputs appeared")
            if pending and rng.random() >= bubbles:
                ctx.set(i_payload, pending.pop(0))
                ctx.set(unit.i.valid, 1)
                sent.append(cycle)
            else:
                ctx.set(unit.i.valid, 0)
            if ctx.get(unit.o.valid):
                word = ctx.get(o_payload)
                outputs.append(unpack(o_layout, word) if o_layout else word)
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
