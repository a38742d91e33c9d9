"""Checks that stay checks: the package has no ``assert`` statement (``python -O`` removes
them), so every check of a parameter, a plan or a simulation raises an exception with a
message."""

import ast
import os
from pathlib import Path

import pytest

import fhe_hw
from fhe_hw.sim import SimulationMismatch, check_cycles
from fhe_hw.sim.pysim import LatencyMismatch, StreamProtocolError

PACKAGE = Path(fhe_hw.__file__).resolve().parent


def _sources():
    """Every .py file of the package, boards and asic included (links inside it)."""
    return sorted(Path(folder, name) for folder, _, names in os.walk(PACKAGE, followlinks=True)
                  for name in names if name.endswith(".py"))


def _asserts(path):
    """The lines of ``path`` that hold an assert statement, at any depth."""
    tree = ast.parse(path.read_text(), str(path))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]


def test_the_scan_reads_the_package_and_its_linked_folders():
    names = {path.relative_to(PACKAGE).parts[0] for path in _sources()}
    assert {"sim", "ntt", "boards", "asic", "cli.py"} <= names


def test_the_scan_finds_a_nested_assert(tmp_path):
    source = tmp_path / "unit.py"
    source.write_text("def f(x):\n    if x:\n        assert x > 0, 'positive'\n")
    assert _asserts(source) == [3]


def test_no_assert_statement_in_the_package():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}"
             for path in _sources() for line in _asserts(path)]
    assert not found, "assert statements (python -O removes them; raise instead): " + \
        ", ".join(found)


def test_simulation_failures_are_one_exception_and_no_assertion_error():
    assert issubclass(LatencyMismatch, SimulationMismatch)
    assert issubclass(StreamProtocolError, SimulationMismatch)
    assert not issubclass(SimulationMismatch, AssertionError)
    check_cycles("shift-ntt", 10, 10)
    with pytest.raises(SimulationMismatch, match=r"^shift-ntt: 11 simulated cycles, "
                                                  r"cycles\(\) says 10$"):
        check_cycles("shift-ntt", 11, 10)
