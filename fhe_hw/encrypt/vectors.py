"""Test vectors of :class:`~fhe_hw.encrypt.TransformEncrypt` (see :mod:`fhe_hw.sim.vectors`): it
runs with its RAM and key memory (:class:`~fhe_hw.encrypt.run.WithKeyMemory` in a
:class:`~fhe_hw.bigint.ram.RAMHarness` with host writes); per command the output stream carries
the cycle count (which must equal ``cycles()``), the select flag and region Y, which after the
encryption must hold the golden model's ciphertext."""

from ..bigint.ram import RAMHarness, to_words
from ..model.bigint import EncryptionSizes, random_cmnt_instance, random_cnt_instance
from ..model.transform_encrypt import encrypt_steps
from ..sim.vectors import Vectors, register_vectors
from . import ENCRYPTION, KEY_PREPARATION
from .run import WithKeyMemory, host_beats

__all__ = ["DEMO"]

_SMALL = {"group": EncryptionSizes(12, 20, 200, 2), "lanes": 2, "inner_n": 4}

#: The demo's encryption: a scaled-down CMNT group on 16-point transforms of inner_n = 4.
DEMO = [("transform-encrypt", "cmnt 12,20,200,2, inner_n=4, 2 lanes",
         {"scheme": "cmnt", **_SMALL})]


@register_vectors("transform-encrypt", small={"scheme": "cnt", "lanes": 2, "inner_n": 2,
                                              "max_n": 8, "group": EncryptionSizes(40, 40, 150, 2)})
def _encrypt_vectors(unit, rng, count):
    """One key preparation and one encryption of random inputs, against
    :func:`fhe_hw.model.transform_encrypt.encrypt_steps`. ``count`` is unused."""
    p = unit.plan.encrypt_plan
    make = random_cmnt_instance if p.scheme == "cmnt" else random_cnt_instance
    inst = make(p.sizes, rng)
    trace = encrypt_steps(p.scheme, inst, p)
    key = inst.A0 if p.scheme == "cmnt" else inst.x0
    prog = unit.program
    addr, words = prog.region("Y")
    out = [unit.cycles(KEY_PREPARATION), 0, *[0] * words,
           unit.cycles(ENCRYPTION), int(trace.y1 >= key), *to_words(trace.ciphertext,
                                                                      p.word_bits, words)]
    # region Y cleared first: the harness dumps it after the key preparation too
    clear = [{"command": 0, "write": 1, "addr": a, "data": 0} for a in range(addr, addr + words)]
    return Vectors({"i": clear + host_beats(unit, inst)}, {"o": out}, None,
                   lambda u: RAMHarness(WithKeyMemory(u), prog.regions.depth, [], (addr, words),
                                        host_writes=True))
