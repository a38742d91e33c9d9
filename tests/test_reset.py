"""Every unit with test vectors behaves the same from reset in a 4-state simulator: its Verilog,
at a small configuration, with every register and every RAM word starting at x, simulated in
Icarus Verilog after a few reset cycles, gives the golden model's outputs in exactly the
documented number of cycles (fhe_hw.sim.icarus). The fast suite runs each unit under -g2005 or
-g2012, the two in turn; the slow suite the other generation too.

four-step-ntt exists at 4,096 points and more only: its check (minutes of Verilog, compilation
and simulation per generation) is in the slow suite; its parts, the shift-only NTT units and
the Solinas ModMul, are checked here at small sizes. Each unit's Verilog is converted once per
run, for both generations and the CLI's generate test (:func:`fhe_hw.units.verilog_store`); the
RAM harness of an engine with memory ports instantiates that Verilog's module rather than
converting the unit again."""

import random

import pytest
from amaranth.hdl import ClockSignal, Const, Instance, Module, ResetSignal, Value
from amaranth.lib import wiring
from helpers import alternating_slow

from fhe_hw.sim.icarus import GENERATIONS, run_from_reset, without_initial_values
from fhe_hw.sim.vectors import documented_cycles, small_params, vector_units, vectors_for
from fhe_hw.units import get_unit, to_verilog, top_name

#: Units whose smallest configuration takes minutes in Icarus.
SLOW = {"four-step-ntt"}


class Instantiated(wiring.Component):
    """``component`` as an instance of the Verilog module ``module`` (its converted text, given
    beside): the same signature and ports, ``clk`` and ``rst``; other attributes are
    ``component``'s. A harness around it converts without converting the unit again."""

    def __init__(self, component, module):
        self._component, self._module = component, module
        super().__init__(component.signature)

    def __getattr__(self, name):
        if name.startswith("_") or name in self._component.signature.members:
            raise AttributeError(name)      # not yet made by Component.__init__
        return getattr(self._component, name)

    def elaborate(self, platform):
        m = Module()
        ports = {}
        for path, member, value in self.signature.flatten(self):
            value = Value.cast(value)
            if not isinstance(value, Const):        # an always-ready stream's ready
                kind = "i_" if member.flow is wiring.In else "o_"
                ports[kind + "__".join(map(str, path))] = value
        m.submodules.unit = Instance(self._module, i_clk=ClockSignal(), i_rst=ResetSignal(),
                                     **ports)
        return m


def _cases():
    """Each unit under one generation in the fast suite, -g2005 and -g2012 in turn from unit to
    unit (so that both run), and under the other in the slow suite; the SLOW units under both
    in the slow suite only."""
    for case in alternating_slow([(u,) for u in vector_units()], GENERATIONS):
        name, generation = case.values
        yield pytest.param(name, generation, marks=pytest.mark.slow) if name in SLOW else case


@pytest.mark.parametrize("name, generation", list(_cases()))
def test_unit_from_reset_with_every_register_at_x(name, generation, tmp_path, shared_verilog):
    unit, params = get_unit(name), small_params(name)
    component = unit.build(**params)
    vectors = vectors_for(name)(component, random.Random(f"reset:{name}"), 3)
    dut, top = unit.build(**params), name
    verilog = to_verilog(dut, name)     # the unit's own Verilog, converted once per run
    if vectors.harness is not None:     # the unit's RAM; its output holds the unit's cycles
        # The harness instantiates that Verilog's module: only the harness is converted here.
        dut, top = vectors.harness(Instantiated(dut, top_name(name))), f"{name}-harness"
        verilog = shared_verilog(("reset-harness", name, sorted(params.items())),
                                 lambda: to_verilog(dut, top)) + verilog
    counts = {port: len(beats) for port, beats in vectors.expected.items()}
    # The harness allows 64 cycles per beat; an engine that computes for long per beat (CMNT:
    # one command, hundreds of cycles) gets its documented cycles on top.
    beats = sum(counts.values()) + sum(len(beats) for beats in vectors.inputs.values())
    result = run_from_reset(dut, top, vectors.inputs, counts, tmp_path, generation=generation,
                            max_cycles=64 + 64 * beats + 2 * unit.cycles(params),
                            verilog=verilog)
    for port, want in vectors.expected.items():
        got = result.outputs[port]
        bad = next((k for k, (w, g) in enumerate(zip(want, got)) if w != g), None)
        assert bad is None, f"{name} {params}: output {port} beat {bad}: {got[bad]} != {want[bad]}"
    if vectors.run is not None:
        assert result.cycles == documented_cycles(name, params, vectors.run)


def test_initial_values_are_removed_but_constant_memories_kept():
    verilog = "\n".join([
        "  reg [3:0] count = 4'h0;",
        "  reg \\$signal$3  = 1'h0;",
        "  reg \\$auto$verilog_backend.cc:1$1  = 0;",
        "  reg [7:0] ram [1:0];",
        "  initial begin",
        "    ram[0] = 8'h00;",
        "    ram[1] = 8'h00;",
        "  end",
        "  reg [7:0] rom [1:0];",
        "  initial begin",
        "    rom[0] = 8'h2a;",
        "    rom[1] = 8'h00;",
        "  end",
        ""])
    out = without_initial_values(verilog)
    assert "  reg [3:0] count ;" in out and "  reg \\$signal$3 ;" in out
    assert "\\$auto$verilog_backend.cc:1$1  = 0;" in out
    assert "ram[0]" not in out and "rom[0] = 8'h2a;" in out
