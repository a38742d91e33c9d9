"""Verilator co-simulation of :class:`~fhe_hw.encrypt.TransformEncrypt`
(:mod:`fhe_hw.sim.cosim`): random keys and messages, each prepared and encrypted through the
generated Verilog, the ciphertext against Python's ``%`` and the golden model, the cycles
against ``cycles()``. ``tools/cosim_encrypt.py`` runs it (the toy groups by default)."""

import random
import time

from ..model.bigint import group_sizes, random_cmnt_instance, random_cnt_instance
from ..model.transform_encrypt import encrypt
from ..sim import SimulationMismatch, check_cycles
from . import ENCRYPTION, KEY_PREPARATION, TransformEncrypt
from .run import run_encryptions

__all__ = ["cosim_encrypt", "python_ciphertext"]


def python_ciphertext(scheme, inst):
    """The ciphertext by Python's integers and ``%`` ([Cao14] eq. 1, [Cao13] eq. 2)."""
    if scheme == "cnt":
        total = sum(b * x for b, x in zip(inst.b_list, inst.x_list))
        return (inst.M + 2 * inst.R + 2 * total) % inst.x0
    theta = len(inst.B)
    total = sum(inst.B[i][j] * inst.A0_list[i] * inst.A1_list[j]
                for i in range(theta) for j in range(theta))
    return (inst.M + 2 * inst.R + 2 * total) % inst.A0


def cosim_encrypt(scheme="cmnt", group="toy", *, lanes=8, inner_n=64, inner_units=2,
                  encryptions=3, seed=1, opt="-O1", split=None, jobs=2, log=print):
    """``encryptions`` random instances (each with its own key) through one Verilator build.
    Returns a result dict; raises :class:`~fhe_hw.sim.SimulationMismatch` on a wrong
    ciphertext or a cycle count other than ``cycles()``."""
    unit = TransformEncrypt(scheme, group, lanes=lanes, inner_n=inner_n,
                            inner_units=inner_units)
    sizes = group_sizes(scheme, group)
    rng = random.Random(f"{seed}:{scheme}:{sizes}:{lanes}")
    make = random_cmnt_instance if scheme == "cmnt" else random_cnt_instance
    instances = [make(sizes, rng) for _ in range(encryptions)]
    t = time.monotonic()
    runs = run_encryptions(unit, instances, backend="verilator", opt=opt, split=split, jobs=jobs,
                           unit_name=f"transform-encrypt-{scheme}")
    seconds = time.monotonic() - t
    key_cycles, cycles = unit.cycles(KEY_PREPARATION), unit.cycles(ENCRYPTION)
    for k, (inst, run) in enumerate(zip(instances, runs)):
        want = python_ciphertext(scheme, inst)
        if not run.ciphertext == want == encrypt(scheme, inst, unit.plan.encrypt_plan):
            raise SimulationMismatch(f"{scheme} {group}: encryption {k} differs from Python's % "
                                     f"(seed {seed})")
        check_cycles(f"{scheme} {group}: key preparation {k}", run.key_cycles, key_cycles)
        check_cycles(f"{scheme} {group}: encryption {k}", run.cycles, cycles)
    p = unit.plan.encrypt_plan
    log(f"transform-encrypt {scheme} {group}: d={p.digit_bits}, n={p.n}, lanes={lanes}, "
        f"inner_units={inner_units}: {encryptions} encryptions equal Python's %; key preparation "
        f"{key_cycles} and encryption {cycles} cycles (= cycles()); build and runs "
        f"{seconds:.0f} s")
    return {"test": "transform-encrypt", "scheme": scheme, "group": str(group),
            "digit_bits": p.digit_bits, "n": p.n, "lanes": lanes, "inner_units": inner_units,
            "encryptions": encryptions, "key_cycles": key_cycles, "cycles": cycles,
            "expected_cycles": cycles, "seconds": round(seconds)}
