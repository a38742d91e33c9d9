"""Behavioural Verilog models of the ECP5 primitives the units instantiate on an ECP5
(Yosys's ``cells_sim.v`` declares them as black boxes only), for the Icarus tests of their
ECP5 forms. Each models the primitive as the units use it and gives x for any other use."""


def mult18x18d_model():
    """The MULT18X18D as the tiles use it (Lattice TN1267, sysDSP): unsigned A x B, the operands
    registered when REG_INPUTA_CLK/REG_INPUTB_CLK name CLK0 and the product when
    REG_OUTPUT_CLK does, with CE0 and the synchronous RST0 (which clears the registers whatever
    CE0 is). The product is x for any other use (signed operands, cascade inputs, a clock
    enable that is not 0 or 1, other modes)."""
    bits = lambda name, n: ", ".join(f"{name}{k}" for k in reversed(range(n)))  # noqa: E731
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
    """The DP16KD as :class:`~fhe_hw.arith.bram.RegisteredRAM` uses it (Lattice TN1264, ECP5
    sysMEM; address bits as Yosys's ``brams_map_16kd.v`` drives them): port A writes, port B
    reads, both of ``DATA_WIDTH`` w in 1, 2, 4, 9, 18 bits. A port's word address is
    ``AD[13:s]`` with s = 0, 1, 2, 3, 4 for w = 1, 2, 4, 9, 18, its data ``DI/DO[w-1:0]``; at
    w = 18, ``ADA0``/``ADA1`` enable the low and high 9-bit bytes of a write. A write happens
    at a clock edge with ``CEA`` and ``WEA``; a read (``CEB``) latches the addressed word, x
    when port A writes the same word at that edge (undefined on the device); ``REGMODE_B =
    "OUTREG"`` adds the output register (``OCEB``), which the synchronous ``RSTB`` clears,
    whatever ``OCEB`` is. The output is x for any other use: different widths, port B
    writing, chip selects, an asynchronous reset, port A's output register, a clock enable
    that is not 0 or 1."""
    def bits(name, n):
        return ", ".join(f"{name}{k}" for k in reversed(range(n)))
    return f"""
module DP16KD({bits("DIA", 18)}, {bits("ADA", 14)}, CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
              {bits("DOA", 18)}, {bits("DIB", 18)}, {bits("ADB", 14)}, CEB, OCEB, CLKB, WEB,
              RSTB, CSB2, CSB1, CSB0, {bits("DOB", 18)});
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter GSR = "ENABLED";
  input {bits("DIA", 18)}, {bits("ADA", 14)}, CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0;
  input {bits("DIB", 18)}, {bits("ADB", 14)}, CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0;
  output {bits("DOA", 18)}, {bits("DOB", 18)};
  localparam W = DATA_WIDTH_B;
  localparam S = W == 18 ? 4 : W == 9 ? 3 : W == 4 ? 2 : W == 2 ? 1 : 0;
  wire [17:0] dia = {{{bits("DIA", 18)}}};
  wire [13:0] ada = {{{bits("ADA", 14)}}};
  wire [13:0] adb = {{{bits("ADB", 14)}}};
  wire [13:0] wa = ada >> S;
  wire [13:0] ra = adb >> S;
  wire [17:0] be = W == 18 ? {{{{9{{ada[1]}}}}, {{9{{ada[0]}}}}}} : {{18{{1'b1}}}};
  reg [17:0] mem [0:16383];
  reg [17:0] latch, out;
  wire supported = DATA_WIDTH_A == DATA_WIDTH_B && (W == 1 || W == 2 || W == 4 || W == 9 ||
                   W == 18) && REGMODE_A == "NOREG" &&
                   (REGMODE_B == "NOREG" || REGMODE_B == "OUTREG") && RESETMODE == "SYNC" &&
                   CSDECODE_A == "0b000" && CSDECODE_B == "0b000" &&
                   {{CSA2, CSA1, CSA0, CSB2, CSB1, CSB0, WEB, RSTA}} === 8'b0 &&
                   (CEA === 1'b0 || CEA === 1'b1) && (CEB === 1'b0 || CEB === 1'b1) &&
                   (OCEB === 1'b0 || OCEB === 1'b1);
  wire [17:0] mask = (18'd1 << W) - 1;
  always @(posedge CLKA)
    if (CEA && WEA)
      mem[wa] <= (mem[wa] & ~(be & mask)) | (dia & be & mask);
  always @(posedge CLKB) begin
    if (RSTB) latch <= 0;
    else if (CEB)
      latch <= CEA && WEA && wa == ra ? 18'bx : mem[ra] & mask;
    if (RSTB) out <= 0;
    else if (OCEB) out <= latch;
  end
  assign {{{bits("DOB", 18)}}} = !supported ? 18'bx : REGMODE_B == "OUTREG" ? out : latch;
  assign {{{bits("DOA", 18)}}} = 18'bx;
endmodule
"""
