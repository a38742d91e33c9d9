"""Verilator co-simulation (fhe_hw.sim.cosim): a smoke test per stream kind; the large runs are in
`nox -s cosim`."""

import pytest
from amaranth import unsigned
from helpers import rng_for

from fhe_hw.arith import ModMul
from fhe_hw.lib.stream import SkidBuffer
from fhe_hw.ntt.cosim import cosim_parallel_ntt, cosim_shift_ntt
from fhe_hw.sim import cosim
from fhe_hw.sim.pysim import run_stream


def test_fixed_latency_unit_matches_python_in_verilator(tmp_path):
    unit = ModMul("solinas64")
    q = unit.modulus
    rng = rng_for("cosim-modmul")
    ins = [{"a": q - 1, "b": q - 1}] + [{"a": rng.randrange(q), "b": rng.randrange(q)}
                                        for _ in range(5000)]
    model = cosim.build(unit, "mod-mul", tmp_path)
    run = model.run({"i": ins}, {"o": len(ins)})
    assert run.outputs["o"] == [v["a"] * v["b"] % q for v in ins]
    assert run.cycles == len(ins) + unit.latency


@pytest.fixture(scope="module")
def skid_model(tmp_path_factory):
    """The skid buffer's Verilator model, built once for both runs."""
    return cosim.build(SkidBuffer(unsigned(100)), "skid", tmp_path_factory.mktemp("skid"))


@pytest.mark.parametrize("valid_prob,ready_prob", [(1, 1), (0.6, 0.4)])
def test_stream_unit_in_verilator_agrees_with_pysim(skid_model, valid_prob, ready_prob):
    beats = [rng_for("skid").getrandbits(100) for _ in range(300)]
    model = skid_model
    run = model.run({"i": beats}, {"o": len(beats)}, valid_prob=valid_prob, ready_prob=ready_prob)
    assert run.outputs["o"] == beats
    if valid_prob == 1 and ready_prob == 1:
        assert run.cycles == run_stream(SkidBuffer(unsigned(100)), {"i": beats},
                                        {"o": len(beats)}).cycles


@pytest.mark.slow
def test_shift_ntt_scenario_runs_in_verilator(tmp_path):
    """The eight-point shift NTT's Verilator model (half a minute of C++ compilation) in the
    slow suite; the fast suite simulates the same unit in pysim (tests/test_ntt_shift.py) and
    runs the parallel NTT's scenario in Verilator below."""
    result = cosim_shift_ntt(8, transforms=12, seed=3, workdir=tmp_path)
    assert result["cycles"] == result["cycles_formula"] and result["transforms"] == 12


@pytest.mark.slow
def test_parallel_ntt_scenario_runs_in_verilator(tmp_path):
    """Its C++ build in the slow suite, as the shift NTT's above; the fast suite runs the
    skid buffer's and the ModMul's Verilator models."""
    result = cosim_parallel_ntt(8, "fermat32", negacyclic=True, transforms=10, workdir=tmp_path)
    assert result["transforms"] == 10 and result["cycles"] == 10 + result["latency"]
