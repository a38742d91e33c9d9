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

from ..model.bigint import block_config, supersize_barrett_constants, supersize_barrett_shifts
from ..params import require_int
from .multiplier import MAX_OPERAND_BITS
from .sequencer import Plan, Sequencer, ram_image, region_value, words_for
from .wordalu import ALUOp

__all__ = ["SuperSizeBarrett", "plan_barrett"]


def plan_barrett(plan, x_name, x_bits, gamma, prefix=""):
    """Append the reduction of region ``x_name`` (x < 2^x_bits) modulo the γ-bit region
    ``A0`` (μ in region ``MU``) to ``plan``; the result goes to region ``prefix + "Y"``.
    Returns (α, β)."""
    d = plan.d
    alpha, beta = supersize_barrett_shifts(gamma, x_bits, d)
    x_addr, x_words = plan.regions[x_name]
    a0_addr, a0_words = plan.regions["A0"]
    mu_addr, mu_words = plan.regions["MU"]
    x_words = min(x_words, words_for(x_bits, d))
    xh_off = (gamma + beta) // d
    xh_words = x_words - xh_off
    sig = plan.region(prefix + "SIG", plan.product_words(xh_words, mu_words))
    sh_off = (alpha - beta) // d
    # σ̂ <= x/A0 < 2^(x_bits - γ + 1)
    sh_words = min(words_for(x_bits - gamma + 2, d), plan.regions[prefix + "SIG"][1] - sh_off)
    p2 = plan.region(prefix + "P2", plan.product_words(sh_words, a0_words))
    n = a0_words + 1
    y = plan.region(prefix + "Y", n)
    plan.mul(x_addr + xh_off, xh_words, mu_addr, mu_words, sig)               # Step-2
    plan.mul(sig + sh_off, sh_words, a0_addr, a0_words, p2)                    # Step-3
    p2_words = plan.regions[prefix + "P2"][1]
    plan.alu(ALUOp.SUB, n, dst=y, a=(x_addr, x_words), b=(p2, p2_words),       # Step-4
             c=(a0_addr, a0_words))
    plan.alu(ALUOp.SUBSEL, n, dst=y, a=(y, n), b=(a0_addr, a0_words))
    return alpha, beta


class SuperSizeBarrett(Sequencer):
    """x mod A0 for x < 2^x_bits and an A0 of exactly ``gamma`` bits ([Cao13] §4), with two passes
    through one :class:`~fhe_hw.bigint.IntegerFFTMultiplier` and the streamed subtraction.

    Parameters: ``gamma`` (bits of A0, > d), ``x_bits`` (>= γ; default 2γ), and the
    multiplier's ``modulus``, ``k``, ``b``, ``bus_width``, ``mult_stages``. Sizes are
    generate-time: they fix the RAM layout (:attr:`plan`: regions X, MU, A0, SIG, P2, Y) and the
    ROM program. Ports as :class:`~fhe_hw.bigint.sequencer.Sequencer`: start on ``i``, done on
    ``o``; the host loads :meth:`ram_image` and reads :meth:`result`. :meth:`cycles` is exact.
    Raises ``ValueError`` for γ <= d, x_bits < γ and bad multiplier parameters.
    """

    def __init__(self, gamma, x_bits=None, modulus="solinas64", k=None, b=None,
                 bus_width=None, *, mult_stages=None):
        plan, x_bits, self._alpha, self._beta = self._make_plan(gamma, x_bits, modulus, k, b,
                                                                bus_width)
        self._gamma, self._x_bits = gamma, x_bits
        super().__init__(plan, modulus, k, b, bus_width, mult_stages=mult_stages)

    @staticmethod
    def _make_plan(gamma, x_bits, modulus, k, b, bus_width):
        """``(plan, x_bits, alpha, beta)``; raises ``ValueError``/``TypeError`` for refused
        parameters."""
        cfg = block_config(modulus, k, b, bus_width)
        d = cfg.d
        require_int("gamma", gamma, minimum=2, maximum=MAX_OPERAND_BITS)
        if gamma <= d:
            raise ValueError(f"gamma must be more than d = {d} bits ([Cao13] eq. 10), "
                             f"not {gamma!r}")
        x_bits = 2 * gamma if x_bits is None else require_int(
            "x_bits", x_bits, minimum=gamma, maximum=2 * MAX_OPERAND_BITS)
        plan = Plan(d, cfg.words)
        plan.region("X", words_for(x_bits, d))
        plan.region("A0", words_for(gamma, d))
        alpha, beta = supersize_barrett_shifts(gamma, x_bits, d)
        plan.region("MU", words_for(alpha + 2, d))
        plan_barrett(plan, "X", x_bits, gamma)
        return plan, x_bits, alpha, beta

    @staticmethod
    def latency_of(gamma, x_bits=None, modulus="solinas64", k=None, b=None, bus_width=None, *,
                   mult_stages=None):
        """``None``: a start/done engine, timed by :meth:`cycles_of`. Raises the constructor's
        ``ValueError``/``TypeError`` for refused parameters without building anything."""
        plan = SuperSizeBarrett._make_plan(gamma, x_bits, modulus, k, b, bus_width)[0]
        Sequencer._check(plan, modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def cycles_of(gamma, x_bits=None, modulus="solinas64", k=None, b=None, bus_width=None, *,
                  mult_stages=None):
        """:meth:`cycles` of the reduction with these parameters without building it."""
        plan = SuperSizeBarrett._make_plan(gamma, x_bits, modulus, k, b, bus_width)[0]
        return Sequencer.cycles_of_plan(plan, modulus, k, b, bus_width, mult_stages=mult_stages)

    @property
    def gamma(self):
        return self._gamma

    @property
    def x_bits(self):
        return self._x_bits

    def ram_image(self, x, A0):
        """RAM words holding x, A0 and μ (Step-1), for an A0 of exactly γ bits."""
        if require_int("A0", A0, minimum=1).bit_length() != self._gamma:
            raise ValueError(f"A0 must have exactly gamma = {self._gamma} bits, not "
                             f"{A0.bit_length()}")
        if require_int("x", x, minimum=0) >> self._x_bits:
            raise ValueError(f"x must be less than 2^x_bits = 2^{self._x_bits}, not a "
                             f"{x.bit_length()}-bit value")
        c = supersize_barrett_constants(A0, self._x_bits, self.plan.d)
        return ram_image(self.plan, {"X": x, "A0": A0, "MU": c.mu})

    def result(self, ram):
        """x mod A0 read from the region Y of ``ram`` (the RAM words after the run)."""
        return region_value(self.plan, ram, "Y")
