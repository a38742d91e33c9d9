"""Formal proofs (Yosys SAT via YoWASP) that the multiplier-free reducers equal x mod p for every
input, and that the proof machinery does fail, with a genuine counterexample, on a wrong unit."""

import pytest
from amaranth import Module, Mux, unsigned

from fhe_hw.arith.pipeline import FixedLatencyUnit
from fhe_hw.arith.special import SpecialReducer
from fhe_hw.sim.formal import prove, prove_solinas_reducer, prove_special_reducer, special_quotient


# The 33-bit proof in the fast suite, the 65-bit one (three times longer) in the slow suite.
@pytest.mark.parametrize("m", [33, pytest.param(65, marks=pytest.mark.slow)])
def test_special_reducer_equals_x_mod_p_for_every_input(m):
    proof = prove_special_reducer(m)
    assert proof.proved, proof.log[-2000:]
    assert proof.counterexample is None


@pytest.mark.slow
def test_solinas_reducer_equals_x_mod_p_for_every_input():
    """The 128-bit input space of the Solinas reducer (half a minute of SMT) in the slow suite;
    the fast suite proves the special reducer above and simulates the Solinas reducer's edge
    values (tests/test_arith_reducers.py) and its sky130 netlist (tests/test_asic_gatesim.py)."""
    proof = prove_solinas_reducer()
    assert proof.proved, proof.log[-2000:]


class _PaperSpecialSelect(FixedLatencyUnit):
    """[Cao14] Fig. 3b as drawn: y1 + p if y1 < 0, else y1 (a 2→1 selection), combinational."""

    def __init__(self, m):
        self.m, self._latency = m, 0
        super().__init__(unsigned(2 * m), unsigned(m))

    def elaborate(self, platform):
        mod, m, x = Module(), self.m, self.i.payload
        y1 = x[:m - 1] + x[2 * m - 2:] - x[m - 1:2 * m - 2]
        mod.d.comb += [self.o.payload.eq(Mux(y1 < 0, y1 + (1 << (m - 1)) + 1, y1)[:m]),
                       self.o.valid.eq(self.i.valid)]
        return mod


def _paper_select(x, m):
    p = (1 << (m - 1)) + 1
    y1 = (x & ((1 << (m - 1)) - 1)) + (x >> (2 * m - 2)) - ((x >> (m - 1)) & ((1 << (m - 1)) - 1))
    return (y1 + p if y1 < 0 else y1) % (1 << m)


def test_paper_two_way_select_fails_over_all_inputs_with_a_real_counterexample():
    m = 33
    p = (1 << (m - 1)) + 1
    proof = prove(_PaperSpecialSelect(m), p, lambda x: special_quotient(x, m), slack=(-1, 0))
    assert not proof.proved
    x = proof.counterexample
    assert 0 <= x < 1 << (2 * m)
    assert _paper_select(x, m) != x % p


def test_paper_two_way_select_is_exact_for_products_of_reduced_operands():
    m = 33
    p = (1 << (m - 1)) + 1
    proof = prove(_PaperSpecialSelect(m), p, lambda x: special_quotient(x, m), slack=(-1, 0),
                  assume=lambda x: x <= (p - 1) ** 2)
    assert proof.proved, proof.log[-2000:]


def test_prove_rejects_a_pipelined_unit():
    with pytest.raises(ValueError, match="unit must be combinational"):
        prove(SpecialReducer(33), (1 << 32) + 1, lambda x: special_quotient(x, 33))
