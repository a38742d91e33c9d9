"""Test vectors of the super-size engines (see :mod:`fhe_hw.sim.vectors`). They run with their RAM
(:class:`~fhe_hw.bigint.ram.RAMHarness`): the output stream carries, per command, the unit's
cycle count (which must equal its ``cycles()``), its ``o`` flag and the result region of the
RAM, which must hold the golden model's value."""

from ..model.bigint import (
    EncryptionSizes,
    cmnt_encrypt,
    cnt_encrypt,
    random_cmnt_instance,
    random_cnt_instance,
    supersize_barrett_constants,
    supersize_barrett_steps,
)
from ..sim.vectors import Vectors, register_vectors
from .ram import RAMHarness, to_words

__all__ = ["DEMO"]

#: An n = 8 transform over 2^64 + 1 with 24-bit digits and words (kb/2d = 4), as in the engine
#: tests.
_SMALL_MULT = {"modulus": "fermat64", "n": 8, "digit_bits": 24, "bus_width": 24}
#: The sequencer engines' small configurations: their multiplier an n = 8 transform over
#: 2^32 + 1 with 12-bit digits and words (kb/2d = 4 again; half the conversion time of the
#: 64-bit one, whose engines the engine tests run).
_ENGINE_MULT = {"modulus": "fermat32", "n": 8, "digit_bits": 12, "bus_width": 12}


#: The demo's big-integer product: a reduced Integer-FFT multiplier (n = 8 over 2^64 + 1).
DEMO = [("integer-fft-mul", "n=8, fermat64, 3x2 words",
         {**_SMALL_MULT, "max_bits": 96, "addr_width": 8})]


def _harness(ram, dump):
    return lambda unit: RAMHarness(unit, len(ram), ram, dump)


@register_vectors("integer-fft-mul", small={"max_bits": 96, "addr_width": 8})
def _multiplier_vectors(unit, rng, count):
    """Up to four products of 3-word by 2-word operands (the first all ones, then
    ``min(count, 3)`` random), all written to one product region; per command the cycle count,
    flag 0 and x·y."""
    d, xw, yw = unit.bus_width, 3, 2
    pairs = [((1 << d * xw) - 1, (1 << d * yw) - 1)]
    pairs += [(rng.getrandbits(d * xw), rng.getrandbits(d * yw))
              for _ in range(min(max(count, 1), 3))]
    pw = unit.product_words(xw, yw)
    ram, commands, z = [], [], (xw + yw) * len(pairs)
    for n, (x, y) in enumerate(pairs):
        ram += to_words(x, d, xw) + to_words(y, d, yw)
        commands.append(unit.command(n * (xw + yw), xw, n * (xw + yw) + xw, yw, z))
    ram += [0] * pw
    out = [w for x, y in pairs for w in [unit.cycles(xw, yw), 0, *to_words(x * y, d, pw)]]
    return Vectors({"i": commands}, {"o": out}, None, _harness(ram, (z, pw)))


def _engine(unit, ram, value, flag):
    """One run of a sequencer engine on ``ram``: its cycles, ``flag`` and region Y = value."""
    addr, words = unit.program.regions["Y"]
    out = [unit.cycles(), int(flag), *to_words(value, unit.program.d, words)]
    return Vectors({"i": [0]}, {"o": out}, None, _harness(ram, (addr, words)))


@register_vectors("supersize-barrett", small={"gamma": 100, **_ENGINE_MULT})
def _barrett_vectors(unit, rng, count):
    """x mod A0 for a random γ-bit odd A0 and the largest x (all ones); the flag is the
    subtraction module's select (y2 ≥ 0)."""
    gamma, x_bits = unit.gamma, unit.x_bits
    A0 = rng.getrandbits(gamma) | 1 << (gamma - 1) | 1
    x = (1 << x_bits) - 1
    steps = supersize_barrett_steps(x, supersize_barrett_constants(A0, x_bits, unit.program.d))
    return _engine(unit, unit.ram_image(x, A0), steps.y, steps.y2 >= 0)


@register_vectors("cmnt-encrypt", small={"group": EncryptionSizes(10, 12, 80, 2),
                                         **_ENGINE_MULT})
def _cmnt_vectors(unit, rng, count):
    """One CMNT encryption of random inputs, against :func:`fhe_hw.model.bigint.cmnt_encrypt`."""
    inst = random_cmnt_instance(unit.sizes, rng)
    steps = cmnt_encrypt(*inst, schedule=unit.schedule, config=unit.multiplier.config, steps=True)
    return _engine(unit, unit.ram_image(*inst), steps.y, steps.y2 >= 0)


@register_vectors("cnt-encrypt", small={"group": EncryptionSizes(30, 30, 90, 2),
                                        **_ENGINE_MULT})
def _cnt_vectors(unit, rng, count):
    """One CNT encryption of random inputs, against :func:`fhe_hw.model.bigint.cnt_encrypt`."""
    inst = random_cnt_instance(unit.sizes, rng)
    steps = cnt_encrypt(*inst, config=unit.multiplier.config, steps=True)
    return _engine(unit, unit.ram_image(*inst), steps.y, steps.y2 >= 0)
