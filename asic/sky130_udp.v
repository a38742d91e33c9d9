// Functional definitions of the user-defined primitives that the sky130_fd_sc_hd cell models
// instantiate when compiled with FUNCTIONAL and without USE_POWER_PINS. The PDK ships them in
// a separate primitives file that a minimal PDK copy may lack; these are written from the
// cells' documented behaviour (written for fhe_hw, not copied from the PDK) and serve
// gate-level simulation in fhe_hw.asic.gatesim only.

primitive sky130_fd_sc_hd__udp_dff$P (Q, D, CLK);
    output Q; reg Q; input D, CLK;
    table
    //  D  CLK : Q : Q+
        0  (01) : ? : 0;
        1  (01) : ? : 1;
        ?  (?0) : ? : -;
        *   ?   : ? : -;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_dff$PR (Q, D, CLK, RESET);
    output Q; reg Q; input D, CLK, RESET;
    table
    //  D  CLK  RESET : Q : Q+
        ?   ?     1   : ? : 0;
        ?   ?   (10)  : ? : -;
        0  (01)   0   : ? : 0;
        1  (01)   0   : ? : 1;
        ?  (?0)   0   : ? : -;
        *   ?     0   : ? : -;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_dff$PS (Q, D, CLK, SET);
    output Q; reg Q; input D, CLK, SET;
    table
    //  D  CLK   SET : Q : Q+
        ?   ?     1  : ? : 1;
        ?   ?   (10) : ? : -;
        0  (01)   0  : ? : 0;
        1  (01)   0  : ? : 1;
        ?  (?0)   0  : ? : -;
        *   ?     0  : ? : -;
    endtable
endprimitive

// Rising-edge flip-flop with active-high set and reset (reset wins).
primitive sky130_fd_sc_hd__udp_dff$NSR (Q, SET, RESET, CLK, D);
    output Q; reg Q; input SET, RESET, CLK, D;
    table
    //  SET RESET CLK  D : Q : Q+
         ?    1    ?   ? : ? : 0;
         1    0    ?   ? : ? : 1;
         ?  (10)   ?   ? : ? : -;
       (10)   0    ?   ? : ? : -;
         0    0  (01)  0 : ? : 0;
         0    0  (01)  1 : ? : 1;
         0    0  (?0)  ? : ? : -;
         0    0    ?   * : ? : -;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_dlatch$P (Q, D, GATE);
    output Q; reg Q; input D, GATE;
    table
    //  D GATE : Q : Q+
        0   1  : ? : 0;
        1   1  : ? : 1;
        ?   0  : ? : -;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_dlatch$lP (Q, D, GATE);
    output Q; reg Q; input D, GATE;
    table
    //  D GATE : Q : Q+
        0   1  : ? : 0;
        1   1  : ? : 1;
        ?   0  : ? : -;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_dlatch$PR (Q, D, GATE, RESET);
    output Q; reg Q; input D, GATE, RESET;
    table
    //  D GATE RESET : Q : Q+
        ?   ?    1   : ? : 0;
        0   1    0   : ? : 0;
        1   1    0   : ? : 1;
        ?   0    0   : ? : -;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_mux_2to1 (X, A0, A1, S);
    output X; input A0, A1, S;
    table
    // A0 A1 S : X
        0  ?  0 : 0;
        1  ?  0 : 1;
        ?  0  1 : 0;
        ?  1  1 : 1;
        0  0  ? : 0;
        1  1  ? : 1;
    endtable
endprimitive

primitive sky130_fd_sc_hd__udp_mux_2to1_N (Y, A0, A1, S);
    output Y; input A0, A1, S;
    table
    // A0 A1 S : Y
        0  ?  0 : 1;
        1  ?  0 : 0;
        ?  0  1 : 1;
        ?  1  1 : 0;
        0  0  ? : 1;
        1  1  ? : 0;
    endtable
endprimitive

module sky130_fd_sc_hd__udp_mux_4to2 (X, A0, A1, A2, A3, S0, S1);
    output X;
    input A0, A1, A2, A3, S0, S1;
    assign X = S1 ? (S0 ? A3 : A2) : (S0 ? A1 : A0);
endmodule
