"""Edits of generated Verilog text shared by the simulators."""

import re

__all__ = ["without_zero_memories"]

# A memory's initialisation as Yosys writes it: one `name[i] = value;` per word.
_MEM_INIT = re.compile(r"^\s*initial begin\n((?:\s*\S+\[\d+\] = [^;]+;\n)+)\s*end\n", re.MULTILINE)
_ZERO = re.compile(r"= \d+'h0+;")


def without_zero_memories(verilog):
    """``verilog`` without the initialisation of the memories that start all zero (the
    constant ones, ROMs, keep theirs)."""
    def memory(match):
        lines = match.group(1).strip().splitlines()
        return "" if all(_ZERO.search(line) for line in lines) else match.group(0)
    return _MEM_INIT.sub(memory, verilog)
