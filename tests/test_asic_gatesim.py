"""Gate-level simulation of the sky130 netlist of the Solinas reducer against the golden model
(fhe_hw.asic.gatesim, Icarus Verilog with the sky130_fd_sc_hd cell models)."""

from pathlib import Path

import pytest
from helpers import SEED, rng_for

from fhe_hw.arith import SolinasReducer
from fhe_hw.asic.gatesim import gate_level_check, netlist_ports
from fhe_hw.asic.sky130 import asic_synthesize
from fhe_hw.model.reduce import solinas_reduce

P = 2**64 - 2**32 + 1


pytestmark = pytest.mark.usefixtures("pdk_root")


@pytest.fixture(scope="module")
def netlist(tmp_path_factory, pdk_root):
    result = asic_synthesize(SolinasReducer(), "solinas-reducer",
                             build_dir=tmp_path_factory.mktemp("solinas"))
    return Path(result.netlist)


def vectors(n):
    rng = rng_for("asic-gatesim", n)
    edges = [0, 1, P - 1, P, P + 1, 2 * P - 1, 2**64 - 1, 2**64, 2**96 - 1, 2**96,
             2**128 - 1, (2**128 - 1) // P * P, 2**127]
    return edges + [rng.getrandbits(128) for _ in range(n - len(edges))]


def test_solinas_netlist_matches_the_golden_model_on_1000_vectors(netlist):
    xs = vectors(1000)
    run = gate_level_check(netlist, "solinas-reducer", xs, [solinas_reduce(x) for x in xs])
    assert run.outputs == run.vectors == 1000
    assert run.ok, f"seed {SEED}: first mismatch (index, x, expected, got) {run.first_mismatch}"


def test_a_changed_cell_in_the_netlist_is_caught(netlist, tmp_path):
    # nand2 -> nor2 in one cell: the simulation must disagree with the model.
    text = netlist.read_text()
    broken = text.replace("sky130_fd_sc_hd__nand2_1 ", "sky130_fd_sc_hd__nor2_1 ", 1)
    assert broken != text
    (tmp_path / "broken.v").write_text(broken)
    xs = vectors(64)
    run = gate_level_check(tmp_path / "broken.v", "solinas-reducer", xs,
                           [solinas_reduce(x) for x in xs])
    assert not run.ok and run.first_mismatch is not None


def test_netlist_ports_reads_widths(netlist):
    ports = netlist_ports(netlist.read_text(), "fhe_hw_solinas_reducer")
    assert ports["i__payload"] == ("input", 128) and ports["o__payload"] == ("output", 64)
    assert ports["clk"] == ("input", 1) and ports["o__valid"] == ("output", 1)


def test_unequal_lengths_raise_value_error(netlist):
    with pytest.raises(ValueError, match="equal length, not 2 and 1"):
        gate_level_check(netlist, "solinas-reducer", [1, 2], [1])
