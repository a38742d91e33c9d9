"""The block RAM and ROM with a registered read (fhe_hw.lib.bram): the portable forms against
Python models in Amaranth's simulator, and the ECP5 forms (DP16KD primitives, output register in
the block, the ROM's words in their INITVALs) against the same models in Icarus, from reset with
every register at x; the INITVAL layout against Yosys's own ECP5 memory map."""

import random
import re
import subprocess

import pytest
from amaranth.back import verilog
from amaranth.sim import Simulator
from ecp5_models import dp16kd_model, pdpw16kd_model
from helpers import alternating_slow

from fhe_hw.flow.synth import OutOfContextPlatform
from fhe_hw.lib.bram import RegisteredRAM, RegisteredROM, dp16kd_initval, dp16kd_shape
from fhe_hw.sim.icarus import require_iverilog, without_initial_values
from fhe_hw.tools import YOSYS, tool_path

ECP5 = OutOfContextPlatform("ecp5")
#: (width, depth): every DP16KD port width once, a 64-bit bank as the streaming NTT has them,
#: the smallest block RAM.
SHAPES = [(64, 512), (64, 2048), (5, 4096), (3, 8192), (2, 16384), (64, 2)]


@pytest.mark.parametrize("width,depth,shape", [
    (64, 512, (18, 4)), (64, 1024, (18, 4)), (64, 2048, (9, 8)), (64, 4096, (4, 16)),
    (64, 16384, (1, 64)), (18, 1024, (18, 1)), (19, 1024, (18, 2)), (5, 8192, (2, 3))])
def test_dp16kd_shape_takes_the_fewest_blocks(width, depth, shape):
    assert dp16kd_shape(width, depth) == shape


def test_a_memory_deeper_than_one_block_is_refused_on_the_ecp5():
    with pytest.raises(ValueError, match="deeper than one DP16KD"):
        dp16kd_shape(64, 16385)
    with pytest.raises(ValueError, match="deeper than one DP16KD"):
        verilog.convert(RegisteredRAM(8, 32768, output_reg=True), platform=ECP5,
                        ports=_ports(RegisteredRAM(8, 32768, output_reg=True)))
    assert "DP16KD" not in verilog.convert(
        RegisteredRAM(8, 32768, output_reg=True), ports=_ports(RegisteredRAM(8, 32768,
                                                                            output_reg=True)))


def test_a_one_word_memory_stays_in_the_fabric_on_the_ecp5():
    ram = RegisteredRAM(64, 1, output_reg=True)
    assert "DP16KD" not in verilog.convert(ram, platform=ECP5, ports=_ports(ram))


def _ports(ram):
    return [ram.w_en, ram.w_addr, ram.w_data, ram.r_en, ram.r_addr, ram.r_data]


def _stimulus(width, depth, cycles, seed):
    """Per cycle (w_en, w_addr, w_data, r_en, r_addr): writes to every address of a small set
    first (0, depth - 1, a random address and its neighbours in every address bit, so that
    two addresses the RAM confused would be seen), then random writes and reads of that set,
    reads of the word written in the same cycle or the cycle before included."""
    rng = random.Random(seed)
    base = rng.randrange(depth)
    addrs = sorted({0, depth - 1, base, *(base ^ 1 << j for j in range((depth - 1).bit_length())
                                          if base ^ 1 << j < depth)})
    ops = [(1, a, rng.getrandbits(width), 0, 0) for a in addrs]
    while len(ops) < cycles:
        w_en, w_addr, r_en, r_addr = (rng.random() < 0.6, rng.choice(addrs),
                                      rng.random() < 0.7, rng.choice(addrs))
        ops.append((int(w_en), w_addr, rng.getrandbits(width), int(r_en), r_addr))
    return ops


def _expected(ops, latency):
    """r_data in each cycle (None before the first read's word arrives); a read of the word
    written in the same cycle gives the old word."""
    mem, latch, out, got = {}, None, 0, []
    for w_en, w_addr, w_data, r_en, r_addr in ops:
        got.append(out if latency == 2 else latch)
        if latency == 2:
            out = latch
        if r_en:
            latch = mem.get(r_addr)
        if w_en:
            mem[w_addr] = w_data
    return got


@pytest.mark.parametrize("output_reg", [True, False])
@pytest.mark.parametrize("width,depth", SHAPES)
def test_portable_form_matches_the_model(width, depth, output_reg):
    ram = RegisteredRAM(width, depth, output_reg=output_reg)
    ops = _stimulus(width, depth, 300, f"pysim:{width}:{depth}")
    want = _expected(ops, ram.latency)
    got = []

    async def bench(ctx):
        for op in ops:
            for sig, v in zip(_ports(ram), op):
                ctx.set(sig, v)
            got.append(ctx.get(ram.r_data))
            await ctx.tick()

    sim = Simulator(ram)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert [g if w is not None else None for g, w in zip(got, want)] == want
    assert sum(w is not None for w in want) > len(ops) // 2


def _icarus(unit, ops, platform, workdir, inputs, outputs):
    """The ``outputs`` of each cycle of ``ops`` (values of ``inputs`` per cycle; as hex text, x
    where unknown), simulating ``unit``'s Verilog (no register initial values) in Icarus after
    two reset cycles."""
    workdir.mkdir(parents=True, exist_ok=True)
    unit_v = verilog.convert(unit, name="unit", platform=platform, ports=[*inputs, *outputs],
                             emit_src=False)
    (workdir / "unit.v").write_text(without_initial_values(unit_v))
    (workdir / "model.v").write_text(dp16kd_model() + pdpw16kd_model())
    fields = [len(s) for s in inputs]
    total, lows = sum(fields), [sum(fields[:i]) for i in range(len(fields))]
    (workdir / "ops.hex").write_text("".join(
        f"{sum(v << lo for v, lo in zip(op, lows)):x}\n" for op in ops))
    conn = [f".{s.name}(op[{lo + w - 1}:{lo}])" for s, w, lo in zip(inputs, fields, lows)]
    conn += [f".{s.name}({s.name})" for s in outputs]
    (workdir / "tb.v").write_text(f"""
`timescale 1ns/1ns
module tb;
  reg clk = 0, rst = 0;
  reg [{total - 1}:0] ops [0:{len(ops) - 1}];
  reg [{total - 1}:0] op = 0;
  {" ".join(f"wire [{len(s) - 1}:0] {s.name};" for s in outputs)}
  integer k;
  unit dut(.clk(clk), .rst(rst), {", ".join(conn)});
  initial begin
    $readmemh("ops.hex", ops);
    #2 rst = 1;
    @(posedge clk); @(posedge clk);
    #1 rst = 0;
    for (k = 0; k < {len(ops)}; k = k + 1) begin
      op = ops[k];
      #1 $display("{" ".join("%h" for _ in outputs)}", {", ".join(s.name for s in outputs)});
      @(posedge clk);
      #1;
    end
    $finish;
  end
  always #5 clk = !clk;
endmodule
""")
    iverilog = require_iverilog()
    subprocess.run([iverilog, "-g2012", "-o", "sim", "tb.v", "unit.v", "model.v"], cwd=workdir,
                   check=True, capture_output=True, text=True)
    out = subprocess.run(["vvp", "-n", "sim"], cwd=workdir, check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert len(out) == len(ops)
    return [line.split() for line in out]


def _icarus_ram(ram, ops, platform, workdir):
    """r_data of each cycle of ``ops`` in Icarus (:func:`_icarus`)."""
    return [words[0] for words in _icarus(ram, ops, platform, workdir, _ports(ram)[:5],
                                          [ram.r_data])]


# Icarus, seconds a case: each shape with one output_reg here, the other in the slow suite.
@pytest.mark.parametrize("width,depth,output_reg", alternating_slow(SHAPES))
def test_ecp5_form_matches_the_model_and_the_portable_form_in_icarus(width, depth, output_reg,
                                                                    tmp_path):
    ops = _stimulus(width, depth, 300, f"icarus:{width}:{depth}")
    want = _expected(ops, 1 + output_reg)
    ecp5 = RegisteredRAM(width, depth, output_reg=output_reg)
    blocks = verilog.convert(ecp5, platform=ECP5, ports=_ports(ecp5)).count("DP16KD #(")
    assert blocks == dp16kd_shape(width, depth)[1]
    got = {name: _icarus_ram(RegisteredRAM(width, depth, output_reg=output_reg), ops, platform,
                         tmp_path / name)
           for name, platform in (("ecp5", ECP5), ("portable", None))}
    defined = [k for k, w in enumerate(want) if w is not None]
    assert len(defined) > len(ops) // 2
    for name, words in got.items():
        bad = next((k for k in defined if not re.fullmatch("[0-9a-f]+", words[k])
                    or int(words[k], 16) != want[k]), None)
        assert bad is None, f"{name}: cycle {bad}: r_data {words[bad]}, want {want[bad]:x}"
    if output_reg:   # the output register is cleared by the reset, in both forms
        assert got["ecp5"][0] == got["portable"][0] == "0" * len(got["ecp5"][0])


# The streaming NTT's 30-bit banks with four butterflies (512 words), the widest word, a narrow
# one; the output register both ways.
@pytest.mark.parametrize("width,depth,output_reg", [(30, 512, True), (36, 64, False),
                                                    (19, 512, False), (2, 16, True)])
def test_wide_ecp5_form_is_one_pdpw16kd_matching_the_model_in_icarus(width, depth, output_reg,
                                                                     tmp_path):
    """With ``wide``: one PDPW16KD (36-bit ports), no DP16KD, the model's words from reset,
    a read of the word written at the same edge included (the write register's bypass)."""
    ops = _stimulus(width, depth, 300, f"wide:{width}:{depth}")
    want = _expected(ops, 1 + output_reg)
    ram = RegisteredRAM(width, depth, output_reg=output_reg, wide=True)
    text = verilog.convert(ram, platform=ECP5, ports=_ports(ram))
    assert (text.count("PDPW16KD #("), text.count("DP16KD #(")) == (1, 0)
    words = _icarus_ram(RegisteredRAM(width, depth, output_reg=output_reg, wide=True), ops, ECP5,
                        tmp_path)
    defined = [k for k, w in enumerate(want) if w is not None]
    assert len(defined) > len(ops) // 2
    bad = next((k for k in defined if not re.fullmatch("[0-9a-f]+", words[k])
                or int(words[k], 16) != want[k]), None)
    assert bad is None, f"cycle {bad}: r_data {words[bad]}, want {want[bad]:x}"


@pytest.mark.parametrize("width,depth", [(37, 16), (30, 1024)])
def test_wide_needs_one_pdpw16kd(width, depth):
    with pytest.raises(ValueError, match="wide needs at most 512 words of at most 36 bits"):
        RegisteredRAM(width, depth, output_reg=True, wide=True)
    with pytest.raises(TypeError):
        RegisteredRAM(8, 16, output_reg=True, wide=1)


@pytest.mark.parametrize("bypass", [True, False])
def test_ecp5_form_reads_the_written_word_where_the_dp16kd_would_not(bypass, tmp_path,
                                                                     monkeypatch):
    """A write reaches the DP16KD a cycle late: a read at that edge of the word being written
    is undefined on the device (x in the model) and takes the registered write instead, as the
    portable form reads it (05). Without that bypass (a test-only patch) the word is x."""
    if not bypass:
        monkeypatch.setattr("fhe_hw.lib.bram.Mux", lambda sel, a, b: b)
    ops = [(1, 3, 5, 0, 0), (0, 0, 0, 1, 3), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0)]
    ecp5 = _icarus_ram(RegisteredRAM(8, 16, output_reg=True), ops, ECP5, tmp_path / "ecp5")
    portable = _icarus_ram(RegisteredRAM(8, 16, output_reg=True), ops, None, tmp_path / "portable")
    assert portable[3] == "05" and ecp5[3] == ("05" if bypass else "xx")


# --- RegisteredROM ----------------------------------------------------------------------------

#: (width, depth, read ports): every DP16KD port width, the streaming NTT's twiddle ROM (64-bit
#: words, depth 4096) with an idle B port, a depth that is not a power of two.
ROM_SHAPES = [(64, 4096, 3), (64, 512, 2), (5, 16384, 1), (13, 2048, 2), (18, 1024, 4),
              (3, 8192, 1), (7, 5, 2)]


def _rom_ports(rom):
    return [s for port in rom.ports for s in (port.r_en, port.r_addr)]


def _rom(width, depth, read_ports, output_reg):
    rng = random.Random(f"rom:{width}:{depth}")
    init = [rng.getrandbits(width) for _ in range(depth)]
    init[0], init[-1] = (1 << width) - 1, (1 << width) - 2    # all ones, and all but bit 0
    return RegisteredROM(width, init, read_ports=read_ports, output_reg=output_reg)


def _rom_stimulus(depth, read_ports, cycles, seed):
    """Per cycle (r_en, r_addr) of each port: reads of 0, depth - 1, a random address and its
    neighbours in every address bit (so that two addresses the ROM confused would be seen) on
    every port in turn, then random addresses, r_en mostly 1."""
    rng = random.Random(seed)
    base = rng.randrange(depth)
    edges = [0, depth - 1, base, *(base ^ 1 << j for j in range((depth - 1).bit_length())
                                   if base ^ 1 << j < depth)]
    ops = [[v for q in range(read_ports) for v in (1, edges[(k + q) % len(edges)])]
           for k in range(len(edges) + read_ports)]
    while len(ops) < cycles:
        ops.append([v for _ in range(read_ports)
                    for v in (int(rng.random() < 0.8), rng.randrange(depth))])
    return ops


def _rom_expected(ops, init, latency):
    """r_data of each port in each cycle (None before the port's first read arrives)."""
    ports = len(ops[0]) // 2
    latch, out, got = [None] * ports, [0] * ports, []
    for op in ops:
        got.append(list(out if latency == 2 else latch))
        for q in range(ports):
            if latency == 2:
                out[q] = latch[q]
            if op[2 * q]:
                latch[q] = init[op[2 * q + 1]]
    return got


def test_rom_parameters_are_checked():
    with pytest.raises(ValueError, match="at least one word"):
        RegisteredROM(8, [], output_reg=True)
    with pytest.raises(ValueError, match="word 1 must be at most 255"):
        RegisteredROM(8, [0, 256], output_reg=True)
    with pytest.raises(ValueError, match="read_ports must be at least 1"):
        RegisteredROM(8, [0, 1], read_ports=0, output_reg=True)
    with pytest.raises(TypeError, match="width must be an integer"):
        RegisteredROM(True, [0, 1], output_reg=True)
    rom = RegisteredROM(8, [0] * 16385, output_reg=True)
    with pytest.raises(ValueError, match="deeper than one DP16KD"):
        verilog.convert(rom, platform=ECP5, ports=_rom_ports(rom) + [rom.ports[0].r_data])


@pytest.mark.parametrize("w,depth", [(1, 16384), (2, 8192), (4, 4096), (9, 2048), (18, 1024)])
def test_initval_layout_is_that_of_yosys_ecp5_memory_map(w, depth, tmp_path):
    """dp16kd_initval lays the words out in INITVAL_00 ... INITVAL_3F exactly as Yosys's ECP5
    map does when it infers a DP16KD with ports of that width from a ROM of the same words."""
    rng = random.Random(f"initval:{w}")
    words = [rng.getrandbits(w) for _ in range(depth)]
    (tmp_path / "rom.hex").write_text("".join(f"{v:x}\n" for v in words))
    (tmp_path / "rom.v").write_text(f"""
module rom(input clk, input [{(depth - 1).bit_length() - 1}:0] a, output reg [{w - 1}:0] d);
  reg [{w - 1}:0] mem [0:{depth - 1}];
  initial $readmemh("rom.hex", mem);
  always @(posedge clk) d <= mem[a];
endmodule
""")
    subprocess.run([tool_path(YOSYS), "-q", "-p", "read_verilog rom.v; synth_ecp5 -top rom; "
                    "write_verilog -noattr out.v"], cwd=tmp_path, check=True)
    out = (tmp_path / "out.v").read_text()
    assert out.count("DP16KD #(") == 1 and f".DATA_WIDTH_A(32'd{w})" in out
    yosys = {name: int(v, 16) for name, v in
             re.findall(r"\.(INITVAL_[0-9A-F]{2})\(320'h([0-9a-f]+)\)", out)}
    assert yosys == dp16kd_initval(words, w)
    assert any(yosys.values())


@pytest.mark.parametrize("output_reg", [True, False])
@pytest.mark.parametrize("width,depth,read_ports", ROM_SHAPES)
def test_portable_rom_reads_its_words(width, depth, read_ports, output_reg):
    rom = _rom(width, depth, read_ports, output_reg)
    ops = _rom_stimulus(depth, read_ports, 200, f"pysim:{width}:{depth}")
    want = _rom_expected(ops, rom.init, rom.latency)
    got = []

    async def bench(ctx):
        for op in ops:
            for sig, v in zip(_rom_ports(rom), op):
                ctx.set(sig, v)
            got.append([ctx.get(port.r_data) for port in rom.ports])
            await ctx.tick()

    sim = Simulator(rom)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert [[g if w is not None else None for g, w in zip(gs, ws)]
            for gs, ws in zip(got, want)] == want


@pytest.mark.parametrize("width,depth,read_ports,output_reg", alternating_slow(ROM_SHAPES))
def test_ecp5_rom_reads_its_words_from_initval_in_icarus(width, depth, read_ports, output_reg,
                                                         tmp_path):
    """The ECP5 form (its words in the DP16KDs' INITVALs, read through the model that loads
    them as the device does) and the portable form read the ROM's words with the same
    latency, from reset with every register at x; the output registers reset to 0."""
    ops = _rom_stimulus(depth, read_ports, 120, f"icarus:{width}:{depth}")
    rom = _rom(width, depth, read_ports, output_reg)
    want = _rom_expected(ops, rom.init, rom.latency)
    text = verilog.convert(rom, platform=ECP5, ports=_rom_ports(rom))
    w, blocks = dp16kd_shape(width, depth)
    assert text.count("DP16KD #(") == -(-read_ports // 2) * blocks
    assert text.count('"OUTREG"') == (read_ports * blocks if output_reg else 0)
    for name, platform in (("ecp5", ECP5), ("portable", None)):
        rom = _rom(width, depth, read_ports, output_reg)
        got = _icarus(rom, ops, platform, tmp_path / name, _rom_ports(rom),
                      [port.r_data for port in rom.ports])
        for k, (words, wants) in enumerate(zip(got, want)):
            for q, (word, v) in enumerate(zip(words, wants)):
                if v is not None:
                    assert re.fullmatch("[0-9a-f]+", word) and int(word, 16) == v, \
                        f"{name}: cycle {k}, port {q}: r_data {word}, want {v:x}"
        if output_reg:
            assert all(set(word) == {"0"} for word in got[0]), f"{name}: not reset"
    assert sum(v is not None for wants in want for v in wants) > len(ops) * read_ports // 2
