"""Verilator co-simulation scenario of CMNT encryption on the Integer-FFT multiplier ([Cao13] §4–5),
run by ``python tools/cosim_bigint.py``."""

import random
import time

from ..model.bigint import cmnt_encrypt, random_cmnt_instance
from . import CMNTEncrypt
from .ram import from_words
from .run import run_harness

__all__ = ["cosim_cmnt"]


def cosim_cmnt(sizes, schedule, mult, seed=1, opt="-O2"):
    """One Verilator run of :class:`~fhe_hw.bigint.CMNTEncrypt` at group ``sizes`` with
    ``schedule`` and multiplier ``mult`` (modulus, n, digit_bits[, bus_width]) on a random instance
    (``seed``): a dict with ``ok`` (the ciphertext equals :func:`fhe_hw.model.bigint.cmnt_encrypt`
    and Python's ``%``), ``cycles`` (counted in hardware) and ``expected_cycles``
    (:meth:`CMNTEncrypt.cycles`)."""
    rng = random.Random(seed)
    inst = random_cmnt_instance(sizes, rng)
    start = time.monotonic()
    unit = CMNTEncrypt(sizes, schedule, **mult)
    y_addr, y_words = unit.program.regions["Y"]
    run = run_harness(unit, unit.ram_image(*inst), 0, (y_addr, y_words), backend="verilator",
                      unit_name=f"cmnt-{schedule}", opt=opt)
    wall = time.monotonic() - start
    d = unit.program.d
    bw = -(-sizes.coeff_bits // d)
    have = from_words(run.ram, d)
    t = time.monotonic()
    want = cmnt_encrypt(*inst, schedule=schedule, config=unit.multiplier.config)
    model_s = time.monotonic() - t
    M, R, B, A0l, A1l, A0 = inst
    theta = sizes.count
    python = (M + 2 * R + 2 * sum(B[i][j] * A0l[i] * A1l[j] for i in range(theta)
                                  for j in range(theta))) % A0
    return {"schedule": schedule, **mult, "coeff_bits": sizes.coeff_bits,
            "key_bits": sizes.key_bits, "theta": theta, "seed": seed,
            "ok": have == want == python, "cycles": run.cycles,
            # products whose operands are both longer than a B_ij (Barrett's two included)
            "expected_cycles": unit.cycles(), "big_products": sum(
                1 for op in unit.program.ops if op[0] == "mul" and min(op[2], op[4]) > bw),
            "wall_s (build + run)": round(wall, 1), "model_s": round(model_s, 1)}
