"""Gate-level simulation of a sky130 netlist against a golden model.

:func:`gate_level_check` takes the netlist that :func:`fhe_hw.asic.sky130.asic_synthesize`
wrote (a fixed-latency unit with always-ready ``i``/``o`` streams, behind its port registers),
compiles it with Icarus Verilog together with the sky130_fd_sc_hd cell models (``FUNCTIONAL``
view, unit delay) and :file:`sky130_udp.v` (the primitives the models instantiate), feeds one
input per cycle, and compares every valid output, in order, with the expected values. So a
synthesis step can not silently change what the unit computes.

Icarus Verilog comes from Debian (``iverilog``; installed with apt-get when missing). Verilator
is not used: the cell models are built from user-defined primitives, which it does not accept.
"""

import re
import time
from dataclasses import dataclass
from pathlib import Path

from fhe_hw.debian import require_debian_tool
from fhe_hw.flow.run import run_logged
from fhe_hw.units import top_name

from .pdk import sky130_hd

__all__ = ["GateLevelRun", "gate_level_check", "netlist_ports"]

UDP = Path(__file__).with_name("sky130_udp.v")

_TB = """`timescale 1ns / 1ps
module tb;
    reg clk = 1'b0, rst = 1'b1;
    reg [{w_in}-1:0] i__payload = 0;
    reg i__valid = 1'b0;
    wire [{w_out}-1:0] o__payload;
    wire o__valid;
    {top} dut (.clk(clk), .rst(rst), .i__payload(i__payload), .i__valid(i__valid),
               .o__payload(o__payload), .o__valid(o__valid));
    reg [{w_in}-1:0] vectors [0:{n}-1];
    integer k, f;
    always #5 clk = ~clk;
    initial begin
        $readmemh("inputs.hex", vectors);
        f = $fopen("outputs.hex", "w");
        repeat (3) @(negedge clk);
        rst = 1'b0;
        for (k = 0; k < {n} + {drain}; k = k + 1) begin
            @(negedge clk);
            if (o__valid === 1'b1) $fwrite(f, "%h\\n", o__payload);
            else if (o__valid !== 1'b0) $fwrite(f, "valid=%b\\n", o__valid);
            i__valid = k < {n};
            i__payload = k < {n} ? vectors[k] : 0;
        end
        $fclose(f);
        $finish;
    end
endmodule
"""


@dataclass(frozen=True)
class GateLevelRun:
    """``vectors`` inputs simulated, ``outputs`` valid results seen, ``mismatches`` results that
    differ from the expected ones (``first_mismatch``: ``(index, input, expected, got)`` or
    None), ``seconds`` for compile + simulation, ``build_dir``."""

    vectors: int
    outputs: int
    mismatches: int
    first_mismatch: object
    seconds: float
    build_dir: str

    @property
    def ok(self):
        return self.mismatches == 0 and self.outputs == self.vectors


def netlist_ports(text, top):
    """``{port name: (direction, width)}`` of module ``top`` in a Yosys Verilog netlist."""
    body = re.search(rf"^module {re.escape(top)}\b.*?^endmodule", text, re.M | re.S)
    if body is None:
        raise ValueError(f"module {top} not in the netlist")
    return {name: (direction, int(msb) + 1 if msb else 1)
            for direction, msb, name in re.findall(
                r"^\s*(input|output)\s+(?:\[(\d+):0\]\s+)?(\w+)\s*;", body.group(0), re.M)}


def gate_level_check(netlist, unit_name, inputs, expected, *, build_dir=None, drain=16):
    """Simulate ``netlist`` (top ``fhe_hw_<unit_name>``) on ``inputs`` (integers, one per
    cycle) and compare the valid outputs with ``expected`` (same length); return a
    :class:`GateLevelRun`. ``drain`` idle cycles after the last input must cover the unit's
    latency plus its two port registers. ``build_dir`` defaults to the netlist's directory
    (``gatesim/`` in it).

    Raises ``ValueError`` if the lengths differ or the unit has no ``i``/``o`` ports, and
    ``RuntimeError`` if the PDK models or Icarus are missing or the simulation fails.
    """
    inputs, expected = list(inputs), list(expected)
    if len(inputs) != len(expected) or not inputs:
        raise ValueError(f"inputs and expected must be non-empty and of equal length, not "
                         f"{len(inputs)} and {len(expected)}")
    netlist = Path(netlist).resolve()
    top = top_name(unit_name)
    ports = netlist_ports(netlist.read_text(), top)
    for name in ("i__payload", "i__valid", "o__payload", "o__valid", "clk", "rst"):
        if name not in ports:
            raise ValueError(f"the netlist must have port {name} (a fixed-latency unit with "
                             f"i/o streams), not only {', '.join(ports)}")
    lib = sky130_hd()
    lib.require(lib.verilog)
    iverilog = require_debian_tool("iverilog", "iverilog")
    vvp = require_debian_tool("vvp", "iverilog")
    build_dir = Path(build_dir or netlist.parent / "gatesim")
    build_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()

    w_in, w_out = ports["i__payload"][1], ports["o__payload"][1]
    digits = (w_in + 3) // 4
    (build_dir / "inputs.hex").write_text("".join(f"{x:0{digits}x}\n" for x in inputs))
    (build_dir / "tb.v").write_text(_TB.format(w_in=w_in, w_out=w_out, top=top,
                                               n=len(inputs), drain=drain))
    (build_dir / "outputs.hex").unlink(missing_ok=True)
    run_logged([iverilog, "-g2005", "-DFUNCTIONAL", "-DUNIT_DELAY=#1", "-s", "tb", "-o",
                "sim.vvp", "tb.v", str(netlist), str(UDP), str(lib.verilog)],
               build_dir, "iverilog.log", "iverilog")
    run_logged([vvp, "-n", "sim.vvp"], build_dir, "vvp.log", "vvp")

    got = (build_dir / "outputs.hex").read_text().split()
    mismatches, first = 0, None
    for index, (x, want) in enumerate(zip(inputs, expected)):
        value = got[index] if index < len(got) else None
        ok = value is not None and re.fullmatch(r"[0-9a-f]+", value) and int(value, 16) == want
        if not ok:
            mismatches += 1
            if first is None:
                first = (index, x, want, value)
    return GateLevelRun(len(inputs), len(got), mismatches + max(0, len(got) - len(inputs)),
                        first, round(time.monotonic() - start, 2), str(build_dir))
