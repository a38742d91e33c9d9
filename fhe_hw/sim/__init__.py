"""Checking units against their models: Amaranth's simulator (:mod:`.pysim`), Verilator
(:mod:`.cosim`), Icarus Verilog from reset (:mod:`.icarus`), SAT proofs (:mod:`.formal`) and
the test vectors every family registers (:mod:`.vectors`)."""
