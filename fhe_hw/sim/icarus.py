"""Simulation of generated Verilog in Icarus Verilog, a 4-state simulator, from reset.

Amaranth's simulator and Verilator start every register at its initial value; silicon does not.
:func:`run_from_reset` takes the unit's Verilog (:func:`fhe_hw.units.to_verilog`), removes every
register's initial value and every all-zero memory initialisation (:func:`without_initial_values`)
so that they start at ``x``, holds ``rst`` for a few cycles and then streams the inputs through
the unit with always-valid inputs and always-ready outputs, as :func:`fhe_hw.sim.pysim.run_stream`
does (or with outputs ready one cycle in ``ready_period``). State that reset does not clear and
that reaches an output shows up as ``x`` in a payload or a ``valid``, or as missing or extra
output beats. Memories with real contents (ROMs of
constants) keep their initialisation: they are the design, not power-up state.

Icarus comes from Debian's ``iverilog`` package (``apt-get install iverilog``); the harness is
plain Verilog-2005 and runs with ``-g2005`` and ``-g2012``.
"""

import re
import subprocess
from pathlib import Path

from ..debian import require_debian_tool
from ..units import to_verilog, top_name
from . import SimulationMismatch
from .cosim import stream_ports
from .pysim import StreamRun, pack, unpack
from .verilog import without_zero_memories

__all__ = ["GENERATIONS", "require_iverilog", "without_initial_values", "run_from_reset"]

#: The Verilog generations the check runs under.
GENERATIONS = ("2005", "2012")

# `reg [W:0] name = value;` as Yosys writes registers with an initial value. Yosys's own
# `$auto$verilog_backend` trigger registers (which start `always @*` blocks) keep theirs.
_REG_INIT = re.compile(r"^(\s*reg\s+(?:signed\s+)?(?:\[[^\]]*\]\s*)?(?!\\\$auto\$)\S+)\s*=[^;]*;",
                       re.MULTILINE)


def require_iverilog():
    """The path of ``iverilog`` (Debian's ``iverilog`` package, with ``vvp``; installed when
    missing and we are root); ``RuntimeError`` naming the package otherwise."""
    require_debian_tool("vvp", "iverilog")
    return require_debian_tool("iverilog", "iverilog")


def without_initial_values(verilog):
    """``verilog`` with no register initial values and no all-zero memory initialisation."""
    return without_zero_memories(_REG_INIT.sub(r"\1 ;", verilog))


def _input_driver(p, n):
    """(declarations, connections, per-cycle statements, initial statements, done condition)
    of the file-fed driver of input stream ``p`` with ``n`` beats."""
    w = p.width
    decl = [f"  reg [{w - 1}:0] in_{p.name} [0:{max(n, 1) - 1}];",
            f"  integer at_{p.name} = 0;",
            f"  wire {p.name}_valid = !rst && at_{p.name} < {n};",
            f"  wire [{w - 1}:0] {p.name}_payload = {p.name}_valid ? "
            f"in_{p.name}[at_{p.name}] : {w}'d0;"]
    conn = [f".{p.name}__payload({p.name}_payload)", f".{p.name}__valid({p.name}_valid)"]
    ready = "1'b1"
    if p.has_ready:
        decl.append(f"  wire {p.name}_ready;")
        conn.append(f".{p.name}__ready({p.name}_ready)")
        ready = f"{p.name}_ready"
    init = [f'    $readmemh("{p.name}.in", in_{p.name});'] if n else []
    step = [f"      if ({p.name}_valid && {ready}) begin",
            f"        at_{p.name} <= at_{p.name} + 1;",
            "        if (first < 0) first <= cycle;",
            "      end"]
    return decl, conn, step, init, f"at_{p.name} == {n}"


def _output_writer(p, count, ready_period):
    """The same five parts for the file writer of output stream ``p`` (``count`` beats, ready
    one cycle in ``ready_period``)."""
    w = p.width
    decl = [f"  wire [{w - 1}:0] {p.name}_payload;", f"  wire {p.name}_valid;",
            f"  integer got_{p.name} = 0;", f"  integer f_{p.name};"]
    conn = [f".{p.name}__payload({p.name}_payload)", f".{p.name}__valid({p.name}_valid)"]
    ready = "1'b1"
    if p.has_ready:
        ready = "1'b1" if ready_period == 1 else f"cycle % {ready_period} == 0"
        decl.append(f"  wire {p.name}_ready = {ready};")
        conn.append(f".{p.name}__ready({p.name}_ready)")
    init = [f'    f_{p.name} = $fopen("{p.name}.out", "w");']
    step = [f"      if ({p.name}_valid === 1'bx)",
            f'        $display("X {p.name}__valid at cycle %0d", cycle);',
            f"      if ({p.name}_valid === 1'b1 && {ready}) begin",
            f'        $fwrite(f_{p.name}, "%h\\n", {p.name}_payload);',
            f"        got_{p.name} <= got_{p.name} + 1;",
            "        last <= cycle;",
            "      end"]
    return decl, conn, step, init, f"got_{p.name} >= {count}"


def _harness(top, ports, counts, config, reset_cycles, max_cycles, ready_period=1):
    """A Verilog-2005 test bench: clock, reset, one file-fed driver per input stream, one
    file writer per output stream (ready one cycle in ``ready_period``); prints
    ``first <cycle> last <cycle>`` and ``X`` lines."""
    decl, conn, step, init, done = [], [".clk(clk)", ".rst(rst)"], [], [], []
    for p in ports:
        w = p.width
        if p.is_stream:
            parts = (_input_driver(p, counts[p.name]) if p.is_input else
                     _output_writer(p, counts[p.name], ready_period))
            for into, part in zip((decl, conn, step, init), parts):
                into += part
            done.append(parts[4])
        elif p.is_input:
            value = pack(p.shape, config[p.name]) if p.name in config else 0
            conn.append(f".{p.name}({w}'h{value:x})")
        else:
            decl.append(f"  wire [{w - 1}:0] {p.name};")
            conn.append(f".{p.name}({p.name})")
    return "\n".join([
        "`timescale 1ns/1ns",
        "module harness;",
        "  reg clk = 1'b0, rst = 1'b0;",
        "  integer cycle = 0, first = -1, last = -1;",
        *decl,
        f"  {top} dut ({', '.join(conn)});",
        "  always #5 clk = !clk;",
        "  initial begin",
        *init,
        # rst rises after time 0 so that every `always @*` block sees an event (an initial
        # value is no event in -g2012) and computes its reset value before the first edge.
        "    #2 rst = 1'b1;",
        f"    repeat ({reset_cycles}) @(posedge clk);",
        "    #1 rst = 1'b0;",
        "  end",
        "  always @(posedge clk) begin",
        "    if (!rst) begin",
        "      cycle <= cycle + 1;",
        *step,
        f"      if ({' && '.join(done) or '1'}) begin",
        '        $display("first %0d last %0d", first, last);',
        "        $finish;",
        "      end",
        f"      if (cycle > {max_cycles}) begin",
        '        $display("timeout after %0d cycles", cycle);',
        "        $finish;",
        "      end",
        "    end",
        "  end",
        "endmodule",
        ""])


def run_from_reset(component, unit_name, inputs, expected_counts, workdir, *,
                   generation="2012", config=None, reset_cycles=4, max_cycles=None,
                   platform=None, libraries=(), ready_period=1, verilog=None):
    """Simulate ``component`` in Icarus (``-g<generation>``) from reset with every register at
    ``x``: ``inputs`` maps input streams to beats, ``expected_counts`` output streams to the
    number of beats to wait for, ``config`` plain input signals to constants. ``platform`` is
    passed to the units' ``elaborate`` (:func:`fhe_hw.units.to_verilog`) and ``libraries``
    (Verilog source texts) are compiled beside the unit: models of the vendor primitives such
    a platform makes the units instantiate. ``ready_period``: the output streams are ready
    one cycle in that many (back-pressure; 1 is always ready). ``verilog``: the text
    :func:`~fhe_hw.units.to_verilog` gives for ``component`` (and ``platform``) when the caller
    has it already, so that it is not generated again. Returns a
    :class:`~fhe_hw.sim.pysim.StreamRun` (``cycles`` from the first input transfer to the last
    output transfer, both included) or raises :class:`~fhe_hw.sim.SimulationMismatch` when an
    output ``valid`` is ``x``, an output payload has ``x`` bits or the run does not finish."""
    if generation not in GENERATIONS:
        raise ValueError(f"generation must be one of {', '.join(GENERATIONS)}, "
                         f"not {generation!r}")
    iverilog = require_iverilog()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ports = stream_ports(component)
    by_name = {p.name: p for p in ports}
    counts = {name: len(beats) for name, beats in inputs.items()} | dict(expected_counts)
    limit = max_cycles or 64 + 64 * sum(counts.values())
    top = top_name(unit_name)
    if verilog is None:
        verilog = to_verilog(component, unit_name, platform=platform)
    (workdir / "unit.v").write_text(without_initial_values(verilog))
    (workdir / "harness.v").write_text(_harness(top, ports, counts, config or {}, reset_cycles,
                                                limit, ready_period))
    sources = ["harness.v", "unit.v"]
    for n, text in enumerate(libraries):
        sources.append(f"library{n}.v")
        (workdir / sources[-1]).write_text(text)
    for name, beats in inputs.items():
        (workdir / f"{name}.in").write_text(
            "".join(f"{pack(by_name[name].shape, b):x}\n" for b in beats))
    subprocess.run([iverilog, f"-g{generation}", "-o", "sim", *sources],
                   cwd=workdir, check=True, capture_output=True, text=True)
    result = subprocess.run(["vvp", "-n", "sim"], cwd=workdir, check=True, capture_output=True,
                            text=True)
    lines = result.stdout.splitlines()
    unknown = [line for line in lines if line.startswith("X ")]
    if unknown:
        raise SimulationMismatch(f"{unit_name}: {unknown[0]} (register state not cleared by "
                                 f"reset)")
    summary = [line for line in lines if line.startswith(("first ", "timeout "))]
    if not (summary and summary[-1].startswith("first ")):
        raise SimulationMismatch(f"{unit_name}: {summary[-1] if summary else 'no result'} "
                                 f"in Icarus")
    first, last = (int(v) for v in summary[-1].split()[1::2])
    outputs = {}
    for name in expected_counts:
        words = (workdir / f"{name}.out").read_text().split()
        bad = [w for w in words if not re.fullmatch(r"[0-9a-f]+", w)]
        if bad:
            raise SimulationMismatch(f"{unit_name}: output {name} has unknown bits ({bad[0]})")
        outputs[name] = [unpack(by_name[name].shape, int(w, 16)) for w in words]
    return StreamRun(outputs, last - first + 1, first, last)
