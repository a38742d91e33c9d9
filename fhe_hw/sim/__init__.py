"""Checking units against their models: Amaranth's simulator (:mod:`.pysim`), Verilator
(:mod:`.cosim`), Icarus Verilog from reset (:mod:`.icarus`), SAT proofs (:mod:`.formal`) and
the test vectors every family registers (:mod:`.vectors`)."""

__all__ = ["SimulationMismatch", "check_cycles"]


class SimulationMismatch(RuntimeError):
    """A simulated unit did not do what its model says: an output differs from the golden
    model, a cycle count from ``cycles()``, or a stream broke its protocol. The message names
    the unit, the first difference and the seed of the inputs."""


def check_cycles(what, simulated, expected):
    """Raise :class:`SimulationMismatch` naming ``what`` unless a run's ``simulated`` cycle
    count is the ``expected`` one of the unit's ``cycles()``."""
    if simulated != expected:
        raise SimulationMismatch(f"{what}: {simulated} simulated cycles, cycles() says "
                                 f"{expected}")
