"""Large Verilator co-simulations of the RNS base-extension engines ([Kir25]
§4.3, Table 4.10: N = 2^16, l = 17, 60-bit primes, TP = 32), through :mod:`fhe_hw.sim.cosim`.

:func:`cosim_base_extension` builds one engine, streams N random coefficients (with the edge
values A = 0 and A = Q − 1, or for Kawamura A = 0, 1 and values just below its bound
(1 − δ)·Q) and checks every target residue against exact CRT arithmetic (A mod p_j; fast base
conversion: the exact integer Σ_i |a_i·Q̂_i^-1|_{q_i}·Q̂_i = A + α·Q with 0 <= α < l, mod p_j)
and the first ``model_coefficients`` against :mod:`fhe_hw.model.rns`. ``tools/cosim_rns.py``
is the command line.
"""

import random
import time
from fractions import Fraction

from ..model import rns as model
from ..params import RNSBase
from ..sim import SimulationMismatch, cosim
from .fast_base_conv import FastBaseConversion
from .kawamura import Kawamura
from .mixed_radix import MixedRadix
from .shenoy_kumaresan import ShenoyKumaresan

__all__ = ["ENGINES", "POLYNOMIAL", "make_engine", "cosim_base_extension",
           "cosim_shenoy_kumaresan"]

ENGINES = ("shenoy-kumaresan", "fast-base-conversion", "kawamura", "mixed-radix")

#: The engines that stream residue polynomials, ``lanes`` coefficients per beat, P passes
#: over the source; the others take one coefficient's residues per beat.
POLYNOMIAL = ("shenoy-kumaresan", "fast-base-conversion")

#: The engines' boolean options and the engines each applies to.
FLAGS = {"tile_reg": POLYNOMIAL, "parallel_targets": POLYNOMIAL,
         "parallel_redundant": ("shenoy-kumaresan",), "fused_post_sum": ("shenoy-kumaresan",)}


def make_engine(engine, n, source_limbs, target_limbs, lanes, prime_bits, architecture=None,
                targets_per_pass=1, *, rho=16, delta=None, prime_n=None, **flags):
    """Build ``engine`` (one of :data:`ENGINES`) on :func:`~fhe_hw.rns.default_bases` primes
    (``prime_n``: the primes' NTT size, default the engine's). ``architecture`` ``None`` picks
    the engine's default; ``lanes``/``targets_per_pass`` apply to the polynomial-streaming
    engines, each of ``flags`` (keywords of :data:`FLAGS`, default False) to its engines
    (ValueError for the others), ``rho``/``delta`` to Kawamura (δ default 1/8)."""
    common = {"prime_bits": prime_bits, "n": n, "source_limbs": source_limbs,
              "target_limbs": target_limbs}
    arch = {} if architecture is None else {"architecture": architecture}
    if prime_n is not None:
        common["prime_n"] = prime_n
    for flag, value in flags.items():
        if flag not in FLAGS:
            raise TypeError(f"make_engine() got an unexpected keyword argument {flag!r}")
        if value:
            if engine not in FLAGS[flag]:
                raise ValueError(f"{flag} applies to {' and '.join(FLAGS[flag])}, not {engine}")
            arch[flag] = True
    if engine == "shenoy-kumaresan":
        return ShenoyKumaresan(**common, lanes=lanes, targets_per_pass=targets_per_pass, **arch)
    if engine == "fast-base-conversion":
        return FastBaseConversion(**common, lanes=lanes, targets_per_pass=targets_per_pass,
                                  **arch)
    if engine == "kawamura":
        return Kawamura(**common, rho=rho, delta=Fraction(1, 8) if delta is None else delta)
    if engine == "mixed-radix":
        return MixedRadix(**common, **arch)
    raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")


def _values(engine, unit, rng):
    n = unit.n
    if engine == "kawamura":
        top = unit.max_input
        edges = [0, 1, top - 1, top - 2] + [top - 1 - rng.randrange(top >> 8) for _ in range(4)]
        return (edges + [rng.randrange(top) for _ in range(n)])[:n]
    Q = RNSBase(unit.source).Q
    return ([0, Q - 1] + [rng.randrange(Q) for _ in range(n)])[:n]


def _fbc_exact(unit, values):
    """Per coefficient the exact integer A + α·Q that fast base conversion reduces."""
    c, base = unit.constants, RNSBase(unit.source)
    Q, l = base.Q, len(unit.source)
    out = []
    for a in values:
        s = sum(a % q * inv % q * qh for q, inv, qh in
                zip(unit.source, c.Q_hat_inv, base.Q_hat, strict=True))
        if s % Q != a or not 0 <= (s - a) // Q < l:
            raise RuntimeError(f"fast base conversion: A + α·Q with α = {(s - a) // Q} is not "
                               f"the bound 0 <= α < l = {l} for A = {a}")
        out.append(s)
    return out


def cosim_base_extension(engine="shenoy-kumaresan", n=2**16, source_limbs=17, target_limbs=None,
                         lanes=32, prime_bits=60, architecture=None, targets_per_pass=1, *,
                         seed=1, workdir=None, model_coefficients=256, valid_prob=1.0,
                         ready_prob=1.0, opt="-O3", log=print, prime_n=None, **flags):
    """Co-simulate ``engine`` (default: [Kir25] Table 4.10's OpenFHE set, N = 2^16,
    l = k = 17, TP = 32 lanes, 60-bit primes) with Verilator and check it (see the module
    docstring).

    Returns a dict: measured ``cycles``, ``expected_cycles`` (the engine's ``cycles()``, only
    comparable when ``valid_prob = ready_prob = 1``), ``paper_iterations`` ([Kir25] Table 4.5; for
    fast base conversion ``None``), ``multipliers``, build/run seconds and the parameters.
    Raises :class:`~fhe_hw.sim.SimulationMismatch` on a mismatch (seed and first mismatching
    coefficient given). ``prime_n`` and the ``flags`` (:data:`FLAGS`) go to
    :func:`make_engine`.
    """
    l = source_limbs
    k = l if target_limbs is None else target_limbs
    t0 = time.time()
    unit = make_engine(engine, n, l, k, lanes, prime_bits, architecture, targets_per_pass,
                       prime_n=prime_n, **flags)
    flags = {flag: bool(flags.get(flag)) for flag in FLAGS}
    sim = cosim.build(unit, engine, workdir, seed=seed, opt=opt)
    t_build = time.time() - t0
    rng = random.Random(seed)
    values = _values(engine, unit, rng)
    polys = [[a % q for a in values] for q in unit.source]
    polynomial = engine in POLYNOMIAL
    if polynomial:
        red = [a % unit.redundant for a in values] if engine == "shenoy-kumaresan" else None
        beats = unit.plan.source_beats(polys, red)
        n_out = unit.output_beats
    else:
        beats = [list(col) for col in zip(*polys, strict=True)]
        n_out = n
    arch = "cox-rower" if engine == "kawamura" else unit.architecture
    shown_lanes = lanes if polynomial else "-"
    shown = "".join(f" {name}" for name, on in flags.items() if on)
    log(f"{engine} cosim: N={n} l={l} k={k} lanes={shown_lanes} "
        f"{prime_bits}-bit {arch} t={targets_per_pass}{shown}: "
        f"built in {t_build:.0f} s, {len(beats)} input beats")
    t1 = time.time()
    run = sim.run({"i": beats}, {"o": n_out}, valid_prob=valid_prob, ready_prob=ready_prob)
    t_run = time.time() - t1
    if polynomial:
        got = unit.plan.target_polynomials(run.outputs["o"])
    else:
        got = [list(col) for col in zip(*run.outputs["o"], strict=True)]
    exact = _fbc_exact(unit, values) if engine == "fast-base-conversion" else values
    for j, p in enumerate(unit.target):
        want = [a % p for a in exact]
        if got[j] != want:
            c = next(c for c in range(n) if got[j][c] != want[c])
            raise SimulationMismatch(f"{engine} target p_{j}: first mismatch at coefficient "
                                     f"{c} (seed {seed}, A = {values[c]}): expected "
                                     f"{want[c]}, got {got[j][c]}")
    c = unit.constants
    for x in range(min(n, model_coefficients)):
        col = [poly[x] for poly in polys]
        if engine == "shenoy-kumaresan":
            want = model.shenoy_kumaresan(col, values[x] % unit.redundant, c)
        elif engine == "fast-base-conversion":
            want = model.fast_base_conversion(col, c)
        elif engine == "kawamura":
            want = model.kawamura(col, c)
        else:
            want = model.mixed_radix(col, c)
        if tuple(got[j][x] for j in range(k)) != want:
            raise SimulationMismatch(f"{engine}: model mismatch at coefficient {x} (seed {seed})")
    paper = None if engine == "fast-base-conversion" else unit.paper_iterations()
    result = {"engine": engine, "n": n, "source_limbs": l, "target_limbs": k, "lanes": lanes,
              "prime_bits": prime_bits, "architecture": arch,
              "targets_per_pass": targets_per_pass, "prime_n": unit.plan.prime_n,
              **flags, "valid_prob": valid_prob,
              "ready_prob": ready_prob, "cycles": run.cycles, "expected_cycles": unit.cycles(),
              "paper_iterations": paper, "multipliers": unit.arithmetic_units["MM"],
              "build_seconds": round(t_build, 1), "run_seconds": round(t_run, 1)}
    log(f"  cycles {run.cycles} (cycles() {unit.cycles()}, Table 4.5 {paper}), "
        f"run {t_run:.1f} s")
    return result


def cosim_shenoy_kumaresan(n=2**16, source_limbs=17, target_limbs=None, lanes=32, prime_bits=60,
                           architecture="folded", targets_per_pass=1, **kwargs):
    """:func:`cosim_base_extension` of :class:`~fhe_hw.rns.ShenoyKumaresan` (default: the
    Table 4.10 set, folded)."""
    return cosim_base_extension("shenoy-kumaresan", n, source_limbs, target_limbs, lanes,
                                prime_bits, architecture, targets_per_pass, **kwargs)
