"""Verilator co-simulation of the RNS polynomial units (:mod:`fhe_hw.sim.cosim`): polynomials
streamed back to back through the generated Verilog of ``rns-poly-ntt`` (forward or inverse),
``rns-poly-product`` (with or without its base extension) or ``rns-poly-extend``, their words
and the simulated cycles compared with given expected words (OpenFHE's, in
``tests/test_poly_cosim.py``) and with ``cycles(polys)``.

Polynomials are lists of towers (tower j: n residues mod the unit's q_j), streamed in the
plan's layout (:meth:`~fhe_hw.poly.ntt.TowerBeats.stream_beats`); a product's inputs are (a, b)
pairs.
"""

import time
from dataclasses import dataclass

from ..ntt.cosim import Engines
from ..sim import SimulationMismatch, check_cycles
from .extend import RNSPolyExtend, RNSPolyExtendPlan
from .ntt import RNSPolyNTT, RNSPolyNTTPlan
from .product import RNSPolyProduct, RNSPolyProductPlan

__all__ = ["KINDS", "PolyRun", "cosim_poly", "check_poly"]

#: What :func:`cosim_poly` runs: the unit, its plan's class and extra keywords, its Component
#: and its input ports.
KINDS = {"forward": ("rns-poly-ntt", RNSPolyNTTPlan, {"inverse": False}, RNSPolyNTT, ("i",)),
         "inverse": ("rns-poly-ntt", RNSPolyNTTPlan, {"inverse": True}, RNSPolyNTT, ("i",)),
         "product": ("rns-poly-product", RNSPolyProductPlan, {}, RNSPolyProduct,
                     ("i_a", "i_b")),
         "extend": ("rns-poly-extend", RNSPolyExtendPlan, {}, RNSPolyExtend, ("i",))}


@dataclass(frozen=True)
class PolyRun:
    """One co-simulation: ``outputs`` (the polynomials on ``o``, each a list of towers),
    ``cycles`` (first input transfer to last output transfer) and ``expected_cycles``
    (``cycles(polys)`` of the unit's plan), ``label`` (kind and parameters), the seconds of
    the model's build (Amaranth, Verilator and the C++ compiler; 0 when it was built before)
    and of the run."""

    kind: str
    label: str
    outputs: list
    cycles: int
    expected_cycles: int
    build_seconds: float
    run_seconds: float


def cosim_poly(kind, params, polys, *, engines=None, opt="-O3", log=print):
    """Stream ``polys`` back to back through the Verilator model of ``kind`` (a key of
    :data:`KINDS`) built with ``params`` (the plan's keywords, e.g. a
    :data:`~fhe_hw.poly.configs.POLY_TABLE` row's), the input always valid and the output
    always ready; for ``"product"`` ``polys`` are (a, b) pairs. An extension's outputs (and a
    product's with ``extend_limbs``) have L + K towers. ``engines``: a
    :class:`~fhe_hw.ntt.cosim.Engines` that builds each model once (default: a new one with
    ``opt``). Returns a :class:`PolyRun`. ValueError, before anything is built, for an unknown
    ``kind``, bad ``params``, no polynomials or one that is not one n-residue list per
    tower."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    unit_name, plan_class, extra, make, ports = KINDS[kind]
    plan = plan_class(**params, **extra)
    pairs = len(ports) == 2
    if not polys:
        raise ValueError("polys must hold at least one polynomial")
    if pairs and any(len(pair) != 2 for pair in polys):
        raise ValueError("polys of a product must be (a, b) pairs")
    per_port = list(zip(*polys)) if pairs else [polys]
    n, towers = plan.n, len(plan.towers)
    for port, given in zip(ports, per_port):
        for p, poly in enumerate(given):
            if len(poly) != towers or any(len(t) != n for t in poly):
                raise ValueError(f"{port} polynomial {p} must be {towers} towers of {n} "
                                 f"residues")
    engines = engines or Engines(opt)
    built = engines.build_seconds
    unit, sim = engines.get(unit_name, lambda: make(plan), plan)
    built = engines.build_seconds - built
    inputs = {port: plan.stream_beats(given) for port, given in zip(ports, per_port)}
    beats = len(polys) * plan.output_beats
    label = f"{kind} {', '.join(f'{k}={v}' for k, v in params.items())}"
    t = time.monotonic()
    run = sim.run(inputs, {"o": beats})
    seconds = time.monotonic() - t
    outputs = plan.stream_polynomials(run.outputs["o"])
    expected = unit.cycles(len(polys))
    log(f"{label}: {len(polys)} polynomials, {run.cycles} cycles (cycles({len(polys)}) "
        f"{expected}), build {built:.0f} s, run {seconds:.2f} s")
    return PolyRun(kind, label, outputs, run.cycles, expected, round(built, 1),
                   round(seconds, 3))


def check_poly(run, want):
    """Raise :class:`~fhe_hw.sim.SimulationMismatch` unless ``run`` (a :class:`PolyRun`) gave
    the polynomials ``want`` word for word (the message names the polynomial, tower and
    coefficient of the first difference and both words) and its cycles equal
    ``cycles(polys)``; ValueError if ``want`` is not shaped as the run's output."""
    shape = [[len(t) for t in poly] for poly in run.outputs]
    if [[len(t) for t in poly] for poly in want] != shape:
        raise ValueError(f"want must be {len(shape)} polynomials of {len(shape[0])} towers of "
                         f"{shape[0][0]} words, as the run's output")
    for p, (got_poly, want_poly) in enumerate(zip(run.outputs, want)):
        for j, (got, exp) in enumerate(zip(got_poly, want_poly)):
            bad = next((i for i, (g, w) in enumerate(zip(got, exp)) if g != w), None)
            if bad is not None:
                raise SimulationMismatch(f"{run.label}: polynomial {p}, tower {j}, coefficient "
                                         f"{bad}: expected {exp[bad]}, got {got[bad]}")
    check_cycles(run.label, run.cycles, run.expected_cycles)
