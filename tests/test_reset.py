"""Every unit with test vectors behaves the same from reset in a 4-state simulator: its Verilog,
at a small configuration, with every register and every RAM word starting at x, simulated in
Icarus Verilog (-g2005 and -g2012) after a few reset cycles, gives the golden model's outputs in
exactly the documented number of cycles (fhe_hw.sim.icarus)."""

import random

import pytest

from fhe_hw.sim.icarus import GENERATIONS, require_iverilog, run_from_reset, without_initial_values
from fhe_hw.sim.vectors import documented_cycles, small_params, vector_units, vectors_for
from fhe_hw.units import get_unit


@pytest.mark.parametrize("generation", GENERATIONS)
@pytest.mark.parametrize("name", vector_units())
def test_unit_from_reset_with_every_register_at_x(name, generation, tmp_path):
    require_iverilog()
    unit, params = get_unit(name), small_params(name)
    component = unit.build(**params)
    vectors = vectors_for(name)(component, random.Random(f"reset:{name}"), 3)
    dut = unit.build(**params)
    if vectors.harness is not None:     # the unit's RAM; its output holds the unit's cycles
        dut = vectors.harness(dut)
    counts = {port: len(beats) for port, beats in vectors.expected.items()}
    # The harness allows 64 cycles per beat; an engine that computes for long per beat (CMNT:
    # one command, hundreds of cycles) gets its documented cycles on top.
    beats = sum(counts.values()) + sum(len(beats) for beats in vectors.inputs.values())
    result = run_from_reset(dut, name, vectors.inputs, counts, tmp_path, generation=generation,
                            max_cycles=64 + 64 * beats + 2 * unit.cycles(params))
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
