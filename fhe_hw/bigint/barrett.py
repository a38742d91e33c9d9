"""Super-size Barrett reduction: [Cao13] §4, eqs (9)–(11), Steps 1–4 and
Fig. 6(iii), on one Integer-FFT multiplier (Fig. 6(i)).

With the constants of :func:`fhe_hw.model.bigint.supersize_barrett_constants` (γ = bits of A0,
β and α chosen so that (γ+β)/d and (α-β)/d are whole word addresses, eqs 10–11):

* Step-1: μ = ⌊2^(γ+α)/A0⌋ is pre-computed by the host and stored in the RAM;
* Step-2: σ = x_high·μ, reading x from word address (γ+β)/d (multiplier pass 1);
* Step-3: p2 = σ̂·A0, reading σ from word address (α-β)/d (multiplier pass 2);
* Step-4: the subtraction module streams y1 = x - p2 into the result region while it forms the
  sign of y2 = y1 - A0 (three read ports: x, p2, A0); a second streamed pass writes y1 - A0 in
  place when y2 >= 0, else y1 - 0, so the cycle count does not depend on the data. Only the
  low ⌈γ/d⌉ + 1 words are computed: 0 <= y1 < 2·A0 (Dhem), the higher words cancel.
"""

from dataclasses import dataclass, field

from ..arith.pipeline import mult_stages_param
from ..model.bigint import supersize_barrett_constants, supersize_barrett_shifts
from ..params import require_int
from ..plan import param
from .multiplier import MAX_OPERAND_BITS, bus_width_field, digit_bits_field, modulus_field, n_field
from .sequencer import (
    Sequencer,
    SequencerPlan,
    SequencerProgram,
    ram_image,
    region_value,
    words_for,
)
from .wordalu import ALUOp

__all__ = ["SuperSizeBarrett", "SuperSizeBarrettPlan", "program_barrett"]


def program_barrett(program, x_name, x_bits, gamma, prefix=""):
    """Append the reduction of region ``x_name`` (x < 2^x_bits) modulo the γ-bit region
    ``A0`` (μ in region ``MU``) to ``program``; the result goes to region ``prefix + "Y"``.
    Returns (α, β)."""
    d = program.d
    alpha, beta = supersize_barrett_shifts(gamma, x_bits, d)
    x_addr, x_words = program.regions[x_name]
    a0_addr, a0_words = program.regions["A0"]
    mu_addr, mu_words = program.regions["MU"]
    x_words = min(x_words, words_for(x_bits, d))
    xh_off = (gamma + beta) // d
    xh_words = x_words - xh_off
    sig = program.region(prefix + "SIG", program.product_words(xh_words, mu_words))
    sh_off = (alpha - beta) // d
    # σ̂ <= x/A0 < 2^(x_bits - γ + 1)
    sh_words = min(words_for(x_bits - gamma + 2, d), program.regions[prefix + "SIG"][1] - sh_off)
    p2 = program.region(prefix + "P2", program.product_words(sh_words, a0_words))
    n = a0_words + 1
    y = program.region(prefix + "Y", n)
    program.mul(x_addr + xh_off, xh_words, mu_addr, mu_words, sig)               # Step-2
    program.mul(sig + sh_off, sh_words, a0_addr, a0_words, p2)                    # Step-3
    p2_words = program.regions[prefix + "P2"][1]
    program.alu(ALUOp.SUB, n, dst=y, a=(x_addr, x_words), b=(p2, p2_words),       # Step-4
                c=(a0_addr, a0_words))
    program.alu(ALUOp.SUBSEL, n, dst=y, a=(y, n), b=(a0_addr, a0_words))
    return alpha, beta


@dataclass(frozen=True)
class SuperSizeBarrettPlan(SequencerPlan):
    """The parameters of :class:`SuperSizeBarrett` and what they derive.

    Parameters
    ----------
    gamma : int
        Bits of the modulus A0, more than the bus width d ([Cao13] eq. 10).
    x_bits : int or None
        Bits of the input x, at least γ; default 2γ (stored resolved).
    modulus, n, digit_bits, bus_width, mult_stages
        The multiplier's (:class:`~fhe_hw.bigint.multiplier.IntegerFFTMultiplierPlan`).

    Attributes
    ----------
    alpha, beta : int
        The shifts of eqs (10)–(11) (:func:`fhe_hw.model.bigint.supersize_barrett_shifts`).
    program : SequencerProgram
        Regions X, A0, MU, SIG, P2, Y and the four operations of Steps 2–4.
    multiplier : IntegerFFTMultiplierPlan
        The plan of the multiplier that runs it.
    """

    gamma: int = param(help="bits of the modulus A0", cli_default=4096,
                       range=(2, MAX_OPERAND_BITS))
    x_bits: int | None = param(None, help="bits of the input (default 2*gamma)")
    modulus: object = modulus_field()
    n: int | None = n_field()
    digit_bits: int | None = digit_bits_field()
    bus_width: int | None = bus_width_field()
    mult_stages: int | None = mult_stages_param()
    alpha: int = field(init=False, repr=False, compare=False)
    beta: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        cfg = self.block_config()
        d, gamma = cfg.d, self.gamma
        if gamma <= d:
            raise ValueError(f"gamma must be more than d = {d} bits ([Cao13] eq. 10), "
                             f"not {gamma!r}")
        x_bits = 2 * gamma if self.x_bits is None else require_int(
            "x_bits", self.x_bits, minimum=gamma, maximum=2 * MAX_OPERAND_BITS)
        program = SequencerProgram(d, cfg.words)
        program.region("X", words_for(x_bits, d))
        program.region("A0", words_for(gamma, d))
        alpha, beta = supersize_barrett_shifts(gamma, x_bits, d)
        program.region("MU", words_for(alpha + 2, d))
        program_barrett(program, "X", x_bits, gamma)
        self._set(x_bits=x_bits, alpha=alpha, beta=beta)
        self._sequence(program)


class SuperSizeBarrett(Sequencer):
    """x mod A0 for x < 2^x_bits and an A0 of exactly ``gamma`` bits ([Cao13] §4), with two passes
    through one :class:`~fhe_hw.bigint.IntegerFFTMultiplier` and the streamed subtraction.

    Parameters: a :class:`SuperSizeBarrettPlan`, or its arguments. Sizes are generate-time:
    they fix the RAM layout (:attr:`program`: regions X, MU, A0, SIG, P2, Y) and the ROM
    program. Ports as :class:`~fhe_hw.bigint.sequencer.Sequencer`: start on ``i``, done on
    ``o``; the host loads :meth:`ram_image` and reads :meth:`result`. :meth:`cycles` is exact.
    """

    def __init__(self, *args, **kw):
        super().__init__(SuperSizeBarrettPlan.coerce(*args, **kw))

    @property
    def gamma(self):
        return self.plan.gamma

    @property
    def x_bits(self):
        return self.plan.x_bits

    def ram_image(self, x, A0):
        """RAM words holding x, A0 and μ (Step-1), for an A0 of exactly γ bits."""
        if require_int("A0", A0, minimum=1).bit_length() != self.gamma:
            raise ValueError(f"A0 must have exactly gamma = {self.gamma} bits, not "
                             f"{A0.bit_length()}")
        if require_int("x", x, minimum=0) >> self.x_bits:
            raise ValueError(f"x must be less than 2^x_bits = 2^{self.x_bits}, not a "
                             f"{x.bit_length()}-bit value")
        c = supersize_barrett_constants(A0, self.x_bits, self.program.d)
        return ram_image(self.program, {"X": x, "A0": A0, "MU": c.mu})

    def result(self, ram):
        """x mod A0 read from the region Y of ``ram`` (the RAM words after the run)."""
        return region_value(self.program, ram, "Y")
