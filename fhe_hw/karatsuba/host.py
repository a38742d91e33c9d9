"""The software side of the hardware/software co-design: [Mig16] §III, Fig. 1,
§III-D, Table III.

Software performs the outer ``total - hw`` Karatsuba recursions (pre-computation), sends the
3^(total-hw) operand pairs of leaf·2^hw coefficients to the accelerator, which performs the
remaining ``hw`` recursions and the leaf products, and post-computes the returned products
(:func:`fhe_hw.model.karatsuba.karatsuba_split` is the model of this split). For
relinearization (§II-C) software also applies WordDecomp, pre-computes every word and key
polynomial, lets the accelerator accumulate the ℓ word products of each software leaf, and
post-computes and reduces once (:func:`fhe_hw.model.karatsuba.relinearize`).

Hardware backends (all take a batch and return the products in order):

* :class:`HardwareModel` — the golden model of the hardware part (Karatsuba-hw over the
  digit-serial leaf multiplier of §III-A2); the fast tests use it for n = 2560.
* :class:`Pysim` — :class:`~fhe_hw.karatsuba.KaratsubaMultiplier` /
  :class:`~fhe_hw.karatsuba.KaratsubaRelinearizer` in Amaranth's simulator
  (:func:`fhe_hw.sim.pysim.run_stream`); only for small batches.
* :class:`Verilator` — the same units compiled by :func:`fhe_hw.sim.cosim.build`; runs the full
  n = 2560 product and relinearization (:func:`cosim_full_product`,
  :func:`cosim_relinearize`; ``python tools/cosim_karatsuba.py``).

The accelerator's operands grow by one bit per software recursion: 125-bit coefficients reach
the hardware with 131 bits after 6 recursions, which (plus 3 hardware additions) still fit the
paper's 135-bit carrier of 5 digits.
"""

import random
import time
from functools import partial

from ..model.karatsuba import (
    hardware_cycles,
    karatsuba,
    karatsuba_postcompute,
    karatsuba_precompute,
    leaf_multiply_digits,
    reduce_poly,
    relinearize,
    schoolbook,
    word_decomp,
)
from ..params import require_int
from ..sim import cosim
from ..sim.pysim import run_stream
from .multiplier import KaratsubaMultiplier, carrier_digits
from .relin import KaratsubaRelinearizer

__all__ = ["HardwareModel", "Pysim", "Verilator", "karatsuba_product", "relinearize_split",
           "cosim_full_product", "cosim_relinearize"]


class HardwareModel:
    """Backend: the golden model of the accelerator (fhe_hw.model.karatsuba): Karatsuba-hw
    whose leaves are the digit-serial sub-multiplier of [Mig16] §III-A2
    (:func:`~fhe_hw.model.karatsuba.leaf_multiply_digits`, which also checks that every leaf
    operand fits the carrier). ``digit_serial=False`` uses plain schoolbook leaves (same
    result, about 8x faster in Python)."""

    name = "model"

    def __init__(self, digit_serial=True):
        self.digit_serial = digit_serial
        self.last_run = None

    def _leaf_multiply(self, config, bits):
        if not self.digit_serial:
            return schoolbook
        D = carrier_digits(bits, config["recursions"], config["digit_bits"], config["digits"])
        return partial(leaf_multiply_digits, digit_bits=config["digit_bits"], count=D)

    def multiply(self, config, pairs):
        leaf_mul = self._leaf_multiply(config, config["coeff_bits"])
        q = config.get("modulus")
        start = time.perf_counter()
        out = [karatsuba(a, b, config["recursions"], config["leaf"], leaf_mul) for a, b in pairs]
        if q is not None:
            out = [[c % q for c in product] for product in out]
        self.last_run = {"seconds": time.perf_counter() - start, "cycles": None}
        return out

    def multiply_accumulate(self, config, groups):
        leaf_mul = self._leaf_multiply(config, max(config["coeff_bits"], config["word_bits"]))
        start = time.perf_counter()
        out = []
        for words, keys in groups:
            prods = [karatsuba(w, k, config["recursions"], config["leaf"], leaf_mul)
                     for w, k in zip(words, keys)]
            out.append([sum(col) for col in zip(*prods)])
        self.last_run = {"seconds": time.perf_counter() - start, "cycles": None}
        return out


class _UnitBackend:
    """Backend that runs the hardware units; subclasses provide :meth:`_run`."""

    def __init__(self, valid_prob=1.0, ready_prob=1.0):
        self.valid_prob, self.ready_prob = valid_prob, ready_prob
        self.last_run = None

    def multiply(self, config, pairs):
        unit = KaratsubaMultiplier(config["recursions"], config["leaf"], config["coeff_bits"],
                                   config["digit_bits"], config.get("modulus"),
                                   digits=config["digits"])
        beats = unit.input_beats(pairs)
        run = self._timed(unit, "karatsuba", beats, unit.size * len(pairs))
        self.last_run["expected_cycles"] = unit.cycles(len(pairs))
        return unit.products(run.outputs["o"])

    def multiply_accumulate(self, config, groups):
        unit = KaratsubaRelinearizer(config["recursions"], len(groups[0][0]), config["leaf"],
                                     config["coeff_bits"], config["word_bits"],
                                     config["digit_bits"], digits=config["digits"])
        beats = unit.input_beats(groups)
        run = self._timed(unit, "karatsuba-relin", beats, unit.size * len(groups))
        self.last_run["expected_cycles"] = unit.cycles(len(groups))
        return unit.products(run.outputs["o"])

    def _timed(self, unit, name, beats, count):
        start = time.perf_counter()
        run = self._run(unit, name, beats, count)
        self.last_run = {"seconds": time.perf_counter() - start, "cycles": run.cycles}
        return run


class Pysim(_UnitBackend):
    """Backend: the hardware units in Amaranth's Python simulator."""

    name = "pysim"

    def _run(self, unit, name, beats, count):
        return run_stream(unit, {"i": beats}, {"o": count}, valid_prob=self.valid_prob,
                          ready_prob=self.ready_prob)


class Verilator(_UnitBackend):
    """Backend: the hardware units compiled with Verilator (:mod:`fhe_hw.sim.cosim`, C++ flags
    ``opt``); builds are cached by a hash of the Verilog under ``build/cosim``."""

    name = "verilator"

    def __init__(self, opt="-O3", **kw):
        super().__init__(**kw)
        self.opt = opt
        self.build_seconds = 0.0

    def _run(self, unit, name, beats, count):
        start = time.perf_counter()
        model = cosim.build(unit, name, opt=self.opt)
        self.build_seconds = time.perf_counter() - start
        return model.run({"i": beats}, {"o": count}, valid_prob=self.valid_prob,
                         ready_prob=self.ready_prob)


def _backend(backend):
    if backend is None or backend == "model":
        return HardwareModel()
    if backend == "pysim":
        return Pysim()
    if backend == "verilator":
        return Verilator()
    if hasattr(backend, "multiply"):
        return backend
    raise ValueError(f"backend must be 'model', 'pysim', 'verilator' or a backend object, "
                     f"not {backend!r}")


def _check_split(hw_recursions, total_recursions, leaf):
    require_int("total_recursions", total_recursions, minimum=1)
    require_int("hw_recursions", hw_recursions, minimum=1)
    require_int("leaf", leaf, minimum=1)
    if hw_recursions > total_recursions:
        raise ValueError(f"hw_recursions must be at most total_recursions = "
                         f"{total_recursions}, not {hw_recursions!r}")
    return total_recursions - hw_recursions


def karatsuba_product(p, q, hw_recursions=3, total_recursions=9, leaf=5, coeff_bits=125,
                      digit_bits=27, digits=5, backend=None, *, modulus=None, sign=None):
    """P·Q with ``total - hw`` recursions in software and Karatsuba-hw on ``backend``
    (``"model"``, ``"pysim"``, ``"verilator"`` or a backend object), whose carrier has
    ``digits`` digits of ``digit_bits`` (004: 5 x 27; ``None``: the fewest that fit).

    Without ``modulus`` and ``sign``: the exact product, 2n - 1 coefficients
    (n = leaf·2^total_recursions). With ``modulus`` q the accelerator reduces its outputs
    (:class:`~fhe_hw.karatsuba.KaratsubaMultiplier`'s Barrett stage) and the software
    post-computes modulo q: 2n - 1 coefficients in [0, q). With ``sign`` (+1: x^n + 1, -1:
    x^n - 1) the result is folded into n coefficients
    (:func:`~fhe_hw.model.karatsuba.reduce_poly`), modulo q when q is given.

    Raises ``ValueError`` if p or q does not have n coefficients below 2^coeff_bits, if
    coeff_bits + total_recursions exceeds the carrier, or for a bad modulus or sign."""
    sw = _check_split(hw_recursions, total_recursions, leaf)
    require_int("coeff_bits", coeff_bits, minimum=1)
    n = leaf << total_recursions
    for name, poly in (("p", p), ("q", q)):
        if not isinstance(poly, (list, tuple)) or len(poly) != n:
            got = len(poly) if isinstance(poly, (list, tuple)) else poly
            raise ValueError(f"{name} must have n = leaf * 2**total_recursions = {n} "
                             f"coefficients, not {got!r}")
        if not all(isinstance(c, int) and 0 <= c < 1 << coeff_bits for c in poly):
            raise ValueError(f"{name} must have coefficients in [0, 2**{coeff_bits})")
    if modulus is not None:
        require_int("modulus", modulus, minimum=3)
    if sign is not None and sign not in (1, -1):
        raise ValueError(f"sign must be 1 (x^n + 1), -1 (x^n - 1) or None, not {sign!r}")
    config = {"recursions": hw_recursions, "leaf": leaf, "coeff_bits": coeff_bits + sw,
              "digit_bits": digit_bits, "digits": digits, "modulus": modulus}
    carrier_digits(coeff_bits + sw, hw_recursions, digit_bits, digits)
    backend = _backend(backend)
    pairs = list(zip(karatsuba_precompute(list(p), sw), karatsuba_precompute(list(q), sw)))
    products = backend.multiply(config, pairs)
    result = karatsuba_postcompute(products, sw, leaf << hw_recursions)
    if sign is not None:
        return reduce_poly(result, n, sign, modulus)
    return result if modulus is None else [c % modulus for c in result]


def relinearize_split(c, gamma, w, q, n, hw_recursions=3, total_recursions=9, leaf=5, sign=1,
                      digit_bits=27, digits=5, backend=None):
    """Relinearization / key switching ([Mig16] §II-C eq. (1)) with the co-design split: software
    WordDecomp and ``total - hw`` pre-computation recursions of every word and key polynomial,
    the accelerator's accumulated products Σ_i C[i]·γ[i] per software leaf, one software
    post-computation and the reduction modulo (x^n + sign, q). Equals
    :func:`fhe_hw.model.karatsuba.relinearize`. Raises ``ValueError`` like it, or if the
    grown key or word coefficients exceed the carrier (``digits`` as in
    :func:`karatsuba_product`)."""
    sw = _check_split(hw_recursions, total_recursions, leaf)
    size = leaf << total_recursions
    require_int("n", n, minimum=1)
    if n > size:
        raise ValueError(f"n must be at most leaf * 2**total_recursions = {size}, not {n!r}")
    words = word_decomp(c, w, q)
    if len(words[0]) != n:
        raise ValueError(f"c must have n = {n} coefficients, not {len(words[0])}")
    if not isinstance(gamma, (list, tuple)) or len(gamma) != len(words):
        raise ValueError(f"gamma must be l = {len(words)} keys, not {len(gamma)!r}")
    for key in gamma:
        if len(key) != n or not all(isinstance(x, int) and 0 <= x < q for x in key):
            raise ValueError(f"gamma keys must have n = {n} coefficients in [0, q)")
    pad = [0] * (size - n)
    pre_c = [karatsuba_precompute(word + pad, sw) for word in words]
    pre_g = [karatsuba_precompute(list(key) + pad, sw) for key in gamma]
    groups = [([pc[leaf_index] for pc in pre_c], [pg[leaf_index] for pg in pre_g])
              for leaf_index in range(3 ** sw)]
    config = {"recursions": hw_recursions, "leaf": leaf, "digit_bits": digit_bits,
              "coeff_bits": (q - 1).bit_length() + sw, "word_bits": w + sw, "digits": digits}
    carrier_digits(max(config["coeff_bits"], config["word_bits"]), hw_recursions, digit_bits,
                   digits)
    sums = _backend(backend).multiply_accumulate(config, groups)
    return reduce_poly(karatsuba_postcompute(sums, sw, leaf << hw_recursions), n, sign, q)


def _run_summary(backend, total, ok, **extra):
    run = backend.last_run
    return {"ok": ok, **extra, "backend": backend.name, "cycles": run["cycles"],
            "expected_cycles": run["expected_cycles"],
            "projected_us_at_250MHz": run["cycles"] / 250.0,
            "build_seconds": round(backend.build_seconds, 2),
            "sim_seconds": round(run["seconds"] - backend.build_seconds, 2),
            "total_seconds": round(total, 2)}


def cosim_full_product(hw_recursions=3, total_recursions=9, seed=1, check="schoolbook",
                       opt="-O3"):
    """The product of 004 (n = 5·2^total_recursions, 2560 by default; 125-bit coefficients;
    ``hw_recursions`` in hardware) with the accelerator simulated by Verilator. Returns a dict:
    ``ok`` (equals the reference: ``"schoolbook"`` or ``"karatsuba"`` from the model),
    simulated ``cycles`` of the accelerator and the unit's ``expected_cycles``
    (:meth:`KaratsubaMultiplier.cycles`), the model's Table III ``model_hardware_cycles``
    (3^(total-hw) periods), the accelerator time at [Mig16]'s 250 MHz, and wall-clock seconds
    (Verilator build, simulation, total). Called by ``tools/cosim_karatsuba.py``."""
    rng = random.Random(seed)
    n = 5 << total_recursions
    p = [rng.getrandbits(125) for _ in range(n)]
    q = [rng.getrandbits(125) for _ in range(n)]
    backend = Verilator(opt=opt)
    start = time.perf_counter()
    got = karatsuba_product(p, q, hw_recursions, total_recursions, backend=backend)
    total = time.perf_counter() - start
    want = schoolbook(p, q) if check == "schoolbook" else karatsuba(p, q, total_recursions)
    return _run_summary(backend, total, got == want, n=n, hw_recursions=hw_recursions,
                        model_hardware_cycles=hardware_cycles(hw_recursions, total_recursions))


def cosim_relinearize(hw_recursions=3, total_recursions=9, seed=1, w=27, n=None, opt="-O3"):
    """Relinearization of a polynomial of ``n`` coefficients (default 5·2^total_recursions)
    with a 125-bit q (ℓ = 5 words of w = 27 bits) through the accelerator in Verilator,
    checked against :func:`fhe_hw.model.karatsuba.relinearize`. Returns a dict like
    :func:`cosim_full_product`."""
    rng = random.Random(seed)
    size, q = 5 << total_recursions, (1 << 125) - 159
    n = size if n is None else n
    c = [rng.randrange(q) for _ in range(n)]
    ell = len(word_decomp([0], w, q))
    gamma = [[rng.randrange(q) for _ in range(n)] for _ in range(ell)]
    backend = Verilator(opt=opt)
    start = time.perf_counter()
    got = relinearize_split(c, gamma, w, q, n, hw_recursions, total_recursions, backend=backend)
    total = time.perf_counter() - start
    want = relinearize(c, gamma, w, q, n, total_recursions)
    return _run_summary(backend, total, got == want, n=n, words=ell,
                        hw_recursions=hw_recursions)
