"""Behavioural Verilog models of the ECP5 primitives the units instantiate on an ECP5
(Yosys's ``cells_sim.v`` declares them as black boxes only), for the Icarus tests of their
ECP5 forms. Each models the primitive as the units use it and gives x for any other use."""


def bits(name, n):
    """``name{n-1}, ..., name0``: a bus of single-bit Verilog ports, most significant first."""
    return ", ".join(f"{name}{k}" for k in reversed(range(n)))


#: The block RAMs' reset and global-reset parameters, as the units set them.
_RAM_RESET_PARAMETERS = """\
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter GSR = "ENABLED";
"""


def mult18x18d_model():
    """The MULT18X18D as the tiles use it (Lattice TN1267, sysDSP): unsigned A x B, the operands
    registered when REG_INPUTA_CLK/REG_INPUTB_CLK name CLK0 and the product when
    REG_OUTPUT_CLK does, with CE0 and the synchronous RST0 (which clears the registers whatever
    CE0 is). The product is x for any other use (signed operands, cascade inputs, a clock
    enable that is not 0 or 1, other modes)."""
    return f"""
module MULT18X18D({bits("A", 18)}, {bits("B", 18)}, {bits("C", 18)}, CLK0, CE0, RST0,
                  SIGNEDA, SIGNEDB, SOURCEA, SOURCEB, {bits("P", 36)});
  parameter REG_INPUTA_CLK = "NONE";
  parameter REG_INPUTB_CLK = "NONE";
  parameter REG_PIPELINE_CLK = "NONE";
  parameter REG_OUTPUT_CLK = "NONE";
  parameter RESETMODE = "SYNC";
  parameter GSR = "ENABLED";
  input {bits("A", 18)}, {bits("B", 18)}, {bits("C", 18)}, CLK0, CE0, RST0;
  input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB;
  output {bits("P", 36)};
  wire [17:0] a = {{{bits("A", 18)}}};
  wire [17:0] b = {{{bits("B", 18)}}};
  reg [17:0] ra, rb;
  reg [35:0] rp;
  wire [17:0] pa = REG_INPUTA_CLK == "CLK0" ? ra : a;
  wire [17:0] pb = REG_INPUTB_CLK == "CLK0" ? rb : b;
  wire supported = REG_PIPELINE_CLK == "NONE" && RESETMODE == "SYNC" &&
                   (REG_INPUTA_CLK == "NONE" || REG_INPUTA_CLK == "CLK0") &&
                   (REG_INPUTB_CLK == "NONE" || REG_INPUTB_CLK == "CLK0") &&
                   (REG_OUTPUT_CLK == "NONE" || REG_OUTPUT_CLK == "CLK0") &&
                   {{SIGNEDA, SIGNEDB, SOURCEA, SOURCEB}} === 4'b0000 &&
                   (CE0 === 1'b0 || CE0 === 1'b1);
  always @(posedge CLK0)
    if (RST0) begin
      ra <= 0; rb <= 0; rp <= 0;
    end else if (CE0) begin
      ra <= a; rb <= b; rp <= pa * pb;
    end
  assign {{{bits("P", 36)}}} = !supported ? 36'bx : REG_OUTPUT_CLK == "CLK0" ? rp : pa * pb;
endmodule
"""


def dp16kd_model():
    """The DP16KD as :mod:`fhe_hw.lib.bram` uses it (Lattice TN1264, ECP5 sysMEM; address
    bits as Yosys's ``brams_map_16kd.v`` drives them): both ports of ``DATA_WIDTH`` w in 1, 2,
    4, 9, 18 bits, port A reading or writing, port B reading. The array is 2048 9-bit bytes,
    initialised from ``INITVAL_00`` ... ``INITVAL_3F`` as the device is at configuration: row
    r (bytes 2r, 2r + 1, low byte first) is bits [20(r % 16), +18) of ``INITVAL_{r // 16}``
    (nextpnr's ``ecp5/bitstream.cc`` writes them so). A port's word address is ``AD[13:s]``
    with s = 0, 1, 2, 3, 4 for w = 1, 2, 4, 9, 18, its data ``DI/DO[w-1:0]``; a word of 18 or
    9 bits is two bytes or one, a word of 1, 2 or 4 bits one of the 8/w in the low 8 bits of a
    byte, lowest address in the lowest bits (Yosys's memory map, ``byte 9``); at w = 18,
    ``ADA0``/``ADA1`` enable the low and high byte of a write. A write happens at a clock edge
    with ``CEA`` and ``WEA``; a read (``CE`` without ``WE``) latches the addressed word, x when
    port A writes the word port B reads at that edge (undefined on the device) and on port A
    after its writes (the units leave ``DOA`` of a writing port unconnected); ``REGMODE =
    "OUTREG"`` adds the output register (``OCE``); the synchronous ``RST`` clears the latch and
    the register, whatever ``CE``/``OCE`` are. The outputs are x for any other use: different
    widths, port B writing, chip selects, an asynchronous reset, a clock enable that is not 0
    or 1."""
    initvals = [f"INITVAL_{i:02X}" for i in range(64)]
    return f"""
module DP16KD({bits("DIA", 18)}, {bits("ADA", 14)}, CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
              {bits("DOA", 18)}, {bits("DIB", 18)}, {bits("ADB", 14)}, CEB, OCEB, CLKB, WEB,
              RSTB, CSB2, CSB1, CSB0, {bits("DOB", 18)});
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
{_RAM_RESET_PARAMETERS}\
{"".join(f"  parameter [319:0] {p} = 320'h0;{chr(10)}" for p in initvals)}\
  input {bits("DIA", 18)}, {bits("ADA", 14)}, CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0;
  input {bits("DIB", 18)}, {bits("ADB", 14)}, CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0;
  output {bits("DOA", 18)}, {bits("DOB", 18)};
  localparam W = DATA_WIDTH_A;
  localparam S = W == 18 ? 4 : W == 9 ? 3 : W == 4 ? 2 : W == 2 ? 1 : 0;
  localparam PER = W < 9 ? 8 / W : 1;   // words per byte below 9 bits
  wire [17:0] dia = {{{bits("DIA", 18)}}};
  wire [13:0] ada = {{{bits("ADA", 14)}}};
  wire [13:0] adb = {{{bits("ADB", 14)}}};
  wire [13:0] wa = ada >> S;
  wire [13:0] rb = adb >> S;
  wire [17:0] mask = (18'd1 << W) - 1;
  reg [8:0] mem [0:2047];
  reg [17:0] latch_a, out_a, latch_b, out_b;
  integer r;
  initial
    for (r = 0; r < 16; r = r + 1) begin
{"".join(f"      mem[{32 * i} + 2 * r] = {p}[20 * r +: 9];{chr(10)}"
         f"      mem[{32 * i + 1} + 2 * r] = {p}[20 * r + 9 +: 9];{chr(10)}"
         for i, p in enumerate(initvals))}\
    end
  // The word at address a: two bytes, one, or a field of one.
  function [17:0] word(input [13:0] a);
    word = W == 18 ? {{mem[2 * a + 1], mem[2 * a]}} : W == 9 ? {{9'b0, mem[a]}}
           : (mem[a / PER] >> (a % PER * W)) & mask;
  endfunction
  wire supported = DATA_WIDTH_A == DATA_WIDTH_B && (W == 1 || W == 2 || W == 4 || W == 9 ||
                   W == 18) && (REGMODE_A == "NOREG" || REGMODE_A == "OUTREG") &&
                   (REGMODE_B == "NOREG" || REGMODE_B == "OUTREG") && RESETMODE == "SYNC" &&
                   CSDECODE_A == "0b000" && CSDECODE_B == "0b000" &&
                   {{CSA2, CSA1, CSA0, CSB2, CSB1, CSB0, WEB}} === 7'b0 &&
                   (CEA === 1'b0 || CEA === 1'b1) && (CEB === 1'b0 || CEB === 1'b1) &&
                   (OCEA === 1'b0 || OCEA === 1'b1) && (OCEB === 1'b0 || OCEB === 1'b1) &&
                   (RSTA === 1'b0 || RSTA === 1'b1) && (RSTB === 1'b0 || RSTB === 1'b1);
  always @(posedge CLKA) begin
    if (CEA && WEA) begin
      if (W == 18) begin
        if (ada[0]) mem[2 * wa] <= dia[8:0];
        if (ada[1]) mem[2 * wa + 1] <= dia[17:9];
      end else if (W == 9)
        mem[wa] <= dia[8:0];
      else
        mem[wa / PER] <= mem[wa / PER] & ~(mask << (wa % PER * W)) |
                         (dia & mask) << (wa % PER * W);
    end
    if (RSTA) latch_a <= 0;
    else if (CEA) latch_a <= WEA ? 18'bx : word(wa);
    if (RSTA) out_a <= 0;
    else if (OCEA) out_a <= latch_a;
  end
  always @(posedge CLKB) begin
    if (RSTB) latch_b <= 0;
    else if (CEB) latch_b <= CEA && WEA && wa == rb ? 18'bx : word(rb);
    if (RSTB) out_b <= 0;
    else if (OCEB) out_b <= latch_b;
  end
  assign {{{bits("DOA", 18)}}} = !supported ? 18'bx : REGMODE_A == "OUTREG" ? out_a : latch_a;
  assign {{{bits("DOB", 18)}}} = !supported ? 18'bx : REGMODE_B == "OUTREG" ? out_b : latch_b;
endmodule
"""


def pdpw16kd_model():
    """The PDPW16KD as :class:`fhe_hw.lib.bram.RegisteredRAM` uses it with ``wide`` (Lattice
    TN1264, ECP5 sysMEM: the block RAM's pseudo-dual-port mode): 512 words of 36 bits, written
    at ``ADW[8:0]`` with ``DI[35:0]`` at a ``CLKW`` edge with ``CEW`` (all four byte enables
    set), read at the word address ``ADR[13:5]`` into a latch at a ``CLKR`` edge with
    ``CER``, x when that edge writes the word read (undefined on the device); ``REGMODE =
    "OUTREG"`` adds the output register (``OCER``); the synchronous ``RST`` clears the latch
    and the register. The outputs are x for any other use: widths other than 36, byte enables
    not all set, chip selects, an asynchronous reset, a clock enable that is not 0 or 1."""
    return f"""
module PDPW16KD({bits("DI", 36)}, {bits("ADW", 9)}, {bits("BE", 4)}, CEW, CLKW, CSW2, CSW1,
                CSW0, {bits("ADR", 14)}, {bits("DO", 36)}, CER, OCER, CLKR, CSR2, CSR1, CSR0,
                RST);
  parameter DATA_WIDTH_W = 36;
  parameter DATA_WIDTH_R = 36;
  parameter REGMODE = "NOREG";
  parameter CSDECODE_W = "0b000";
  parameter CSDECODE_R = "0b000";
{_RAM_RESET_PARAMETERS}\
  input {bits("DI", 36)}, {bits("ADW", 9)}, {bits("BE", 4)}, CEW, CLKW, CSW2, CSW1, CSW0;
  input {bits("ADR", 14)}, CER, OCER, CLKR, CSR2, CSR1, CSR0, RST;
  output {bits("DO", 36)};
  wire [35:0] di = {{{bits("DI", 36)}}};
  wire [8:0] wa = {{{bits("ADW", 9)}}};
  wire [8:0] ra = {{{bits("ADR", 14)}}} >> 5;
  reg [35:0] mem [0:511];
  reg [35:0] latch, out;
  wire supported = DATA_WIDTH_W == 36 && DATA_WIDTH_R == 36 &&
                   (REGMODE == "NOREG" || REGMODE == "OUTREG") && RESETMODE == "SYNC" &&
                   CSDECODE_W == "0b000" && CSDECODE_R == "0b000" &&
                   {{{bits("BE", 4)}}} === 4'b1111 &&
                   {{CSW2, CSW1, CSW0, CSR2, CSR1, CSR0}} === 6'b0 &&
                   (CEW === 1'b0 || CEW === 1'b1) && (CER === 1'b0 || CER === 1'b1) &&
                   (OCER === 1'b0 || OCER === 1'b1) && (RST === 1'b0 || RST === 1'b1);
  always @(posedge CLKW)
    if (CEW) mem[wa] <= di;
  always @(posedge CLKR) begin
    if (RST) latch <= 0;
    else if (CER) latch <= CEW && wa == ra ? 36'bx : mem[ra];
    if (RST) out <= 0;
    else if (OCER) out <= latch;
  end
  assign {{{bits("DO", 36)}}} = !supported ? 36'bx : REGMODE == "OUTREG" ? out : latch;
endmodule
"""
