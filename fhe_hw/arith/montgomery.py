"""Word-level Montgomery reduction: [Kir25] §3.2.1, Algorithm 7 (Mert et al.
2020, with Tosun et al. 2024's carry trick).

For q ≡ 1 (mod 2^w), write q = q_H·2^w + 1 and T = T_H·2^w + T_L. With T̃ = -T_L mod 2^w,
T + T̃·q = 2^w·(T_H + q_H·T̃) + (T_L + T̃), and T_L + T̃ is 0 when T_L = 0 and 2^w otherwise, so
one round is T ← T_H + q_H·T̃ + carry with carry = (T_L ≠ 0) = T̃[w-1] ∨ T[w-1]: a (r-w)×w
multiplication by a constant and no full-width multiplier. ν = ⌈r/w⌉ rounds divide by
R = 2^(wν); a final conditional subtraction brings the result into [0, q).

The thesis's line 6 reads "T_H + q_H·T_L"; the derivation above (and the carry, which is only
meaningful for T̃) needs q_H·T̃, which is what the hardware and the model implement.

Pipelined with ``deep=True`` (the default), a round takes 2 + ⌈log2(t + 1)⌉ registers for t
17-bit tiles of q_H × T̃ (:func:`deep_round_latency`): T̃ and the carry (T̃ in the input registers of
the DSP tiles of q_H·T̃), the tile products (the DSPs' output registers), then the sum
T_H + carry + Σ tiles, one adder level per register, the carry entering the first addition as
its carry in. The final subtractions are done side by side: T − j·q for j = 1 … corrections in
one register, the selection of the last non-negative one in the next (:func:`deep_corrections`).
``deep=False`` keeps one register per round (negation, DSP and addition in one cycle) and one
per subtraction.

With ``fabric_rounds=True`` (pipelined and deep) a round takes no DSP: q_H is a constant, so
q_H·T̃ is a few shifted copies of T̃ added and subtracted (q_H in signed digits, its non-adjacent
form: :func:`signed_digits`). A round (:func:`fabric_round`) registers T̃, T_H and the carry
(T_L ≠ 0), then adds T_H, the carry (the first addition's carry in) and the positive digits'
copies, and beside them
the negative digits' copies, one register per adder level (as many levels as a q_H of its
width may need, so that moduli of one width share the latency), then subtracts the second
sum from the first in one more register: :func:`fabric_round_latency`. NTT-friendly primes
q = q_H·2^w + 1 near 2^r have q_H just below a power of two, so few digits.

The bound of T after every round is computed here from the input width, so the register widths
are exact and, should the last bound exceed 2q (it does not for products T < q^2, but may for
arbitrary 2r-bit inputs), further conditional subtractions are added: the unit is exact for every
2r-bit input.
"""

from dataclasses import dataclass, field

from amaranth import Cat, Const, Module, Mux, unsigned

from ..params import montgomery_constants
from ..plan import Plan, param
from .pipeline import (
    FixedLatencyUnit,
    Stages,
    add_term_lists,
    add_terms,
    deep_param,
    fabric_rounds_param,
    modulus_param,
    pipelined_param,
    tile_products,
)

__all__ = ["MontgomeryReducer", "MontgomeryReducerPlan", "montgomery_round_bounds",
           "montgomery_bounds", "montgomery_round", "montgomery_corrections",
           "conditional_subtract", "deep_round", "deep_round_latency", "deep_corrections",
           "signed_digits", "fabric_round", "fabric_round_latency"]

#: Tile width of the round products q_H × T̃ (an unsigned 17 × 17 product is one MULT18X18D).
TILE = 17


def montgomery_bounds(word, nu, q_high, input_bound):
    """Exclusive upper bounds of T before round 0 and after each of the ``nu`` rounds
    (ν + 1 values) for q_H = ``q_high``; the bounds grow with q_H, so the largest q_H of a set
    of moduli bounds them all."""
    bounds = [input_bound]
    for _ in range(nu):
        bounds.append(((bounds[-1] - 1) >> word) + q_high * ((1 << word) - 1) + 2)
    return bounds


def montgomery_round_bounds(consts, input_bound):
    """Exclusive upper bounds of T before round 0, after each round (ν + 1 values)."""
    return montgomery_bounds(consts.word, consts.nu, consts.q_high, input_bound)


def montgomery_corrections(bound, q):
    """Conditional subtractions of q that bring any T < ``bound`` into [0, q) (at least 1)."""
    return max(1, -(-bound // q) - 1)


def montgomery_round(t, q_high, word):
    """One round of Algorithm 7 (with the T̃ fix above): T_H + q_H·T̃ + carry. ``q_high`` is a
    constant (fixed modulus) or a signal (run-time modulus, :mod:`.montgomery_dyn`)."""
    t_low, t_high = t[:word], t[word:]
    t_neg = (-t_low)[:word]
    carry = t_neg[word - 1] | t[word - 1]
    return t_high + q_high * t_neg + carry


def conditional_subtract(t, q, width):
    """Lines 8–12 of Algorithm 7: T − q if T ≥ q, else T, truncated to ``width`` bits."""
    return Mux(t >= q, t - q, t)[:width]


def deep_round_latency(q_high_width, word):
    """Registers of :func:`deep_round` for a q_H of ``q_high_width`` bits and word w."""
    tiles = -(-q_high_width // TILE) * -(-word // TILE)
    return 2 + tiles.bit_length()


def deep_round(st, t, q_high, q_high_width, word):
    """One round of Algorithm 7 (T_H + q_H·T̃ + carry) over :func:`deep_round_latency`
    registers of ``st`` (module docstring); ``q_high`` is a :class:`~amaranth.hdl.Const` (fixed
    modulus) or a signal aligned with ``t`` (run-time modulus), of ``q_high_width`` bits."""
    t_low, t_high = t[:word], t[word:]
    t_neg = (-t_low)[:word]
    carry = t_neg[word - 1] | t[word - 1]
    # The bits of T_H above the product and one more only take the carry out of the sum below
    # them: they ride along, and take it at the start of the next round, beside its negation,
    # so that no carry chain runs through them here.
    split = q_high_width + word + 1
    t_high, high = t_high[:split], t_high[split:]
    tiles, (t_high, carry, high) = tile_products(st, q_high, t_neg, q_high_width, word,
                                                 chunk=TILE, along=(t_high, carry, high))
    terms = [(t_high, 0)] + tiles
    total, (high,) = add_terms(st, terms, (len(terms) - 1).bit_length(), carry=carry,
                               along=(high,))
    if not len(high):
        return total
    # T_H[:split] + q_H·T̃ + carry < 2^(split + 1): bit ``split`` is the only carry out.
    return Cat(total[:split], high + total[split])


def signed_digits(value):
    """The non-adjacent form of ``value`` > 0: ``(plus, minus)``, the shifts of its +1 and −1
    digits, ascending (value = Σ 2^plus − Σ 2^minus)."""
    plus, minus, shift = [], [], 0
    while value:
        if value & 1:
            digit = 2 - (value & 3)     # +1 for value ≡ 1 (mod 4), −1 for value ≡ 3
            (plus if digit > 0 else minus).append(shift)
            value -= digit
        value >>= 1
        shift += 1
    return plus, minus


def fabric_round_latency(q_high_width):
    """Registers of :func:`fabric_round` for any q_H of ``q_high_width`` bits, so that moduli
    of one width share a timing: T̃; the adder levels of the most signed digits such a q_H can
    have (a non-adjacent form of b bits has at most ⌈(b + 1)/2⌉), a q_H with fewer padded;
    the difference."""
    return 2 + ((q_high_width + 2) // 2).bit_length()


def fabric_round(st, t, q_high, word):
    """One round of Algorithm 7, T_H + q_H·T̃ + carry, with q_H (an int) in signed digits and
    no DSP, over :func:`fabric_round_latency` registers of ``st`` (module docstring)."""
    t_low, t_high = t[:word], t[word:]
    t_neg, carry, t_high = st.cut((-t_low)[:word], t_low.any(), t_high, enable=True)
    plus, minus = signed_digits(q_high)
    lists = [[(t_high, 0)] + [(t_neg, shift) for shift in plus],
             [(t_neg, shift) for shift in minus] or [(Const(0, 1), 0)]]
    levels = max((len(terms) - 1).bit_length() for terms in lists)
    # T_H and a digit at least: levels >= 1; the carry enters T_H's addition
    sums = add_term_lists(st, lists, levels, carry=carry)
    for _ in range(fabric_round_latency(q_high.bit_length()) - 2 - levels):
        sums = st.cut(*sums, enable=True)
    # each sum is at its list's first offset: the negative one at its lowest digit's
    low = minus[0] if minus else 0
    difference, = st.cut((sums[0] - (sums[1] << low))[:len(sums[0])], enable=True)
    return difference


def deep_corrections(st, t, q, count, width):
    """``count`` conditional subtractions of q (an int, or a signal aligned with ``t``) over
    two registers of ``st``: T − j·q for j = 0 … ``count`` side by side, then the last
    non-negative one, ``width`` bits."""
    candidates = st.cut(t, *(t - j * q for j in range(1, count + 1)), enable=True)
    result = candidates[0]
    for candidate in candidates[1:]:
        result = Mux(candidate >= 0, candidate, result)
    result, = st.cut(result[:width], enable=True)
    return result


@dataclass(frozen=True)
class MontgomeryReducerPlan(Plan):
    """The parameters of :class:`MontgomeryReducer` and what they derive.

    Parameters
    ----------
    modulus : str, int or Modulus
        q, odd, of r bits, with q ≡ 1 mod 2^word.
    word : int
        w >= 1, the bits retired per round; ν = ⌈r/w⌉ rounds.
    pipelined : bool
        Register the rounds and the final subtractions; otherwise combinational (latency 0).
    deep : bool
        The fast pipeline of the module docstring, the default: latency
        ``ν·deep_round_latency + 2``; False: one register per round and per subtraction,
        latency ``ν + corrections``. No effect when not pipelined.
    fabric_rounds : bool
        The rounds without DSPs, q_H·T̃ by shifted additions and subtractions (module
        docstring; pipelined and deep only): latency ``ν·fabric_round_latency + 2``
        (default False).

    Attributes
    ----------
    constants : MontgomeryConstants
        The constants baked into the unit (:func:`~fhe_hw.params.montgomery_constants`).
    bounds : list of int
        The exclusive bounds of T before the rounds and after each, for every 2r-bit input.
    corrections : int
        The final conditional subtractions of q: 1 when every 2r-bit input is below
        q·(R + 1), and 2 when w divides r so that larger inputs fit (products of residues
        T < q² always need one).
    """

    modulus: object = modulus_param("general32", "odd q with q = 1 mod 2^word")
    word: int = param(help="word size w", range=(1, None), cli_default=17)
    pipelined: bool = pipelined_param()
    deep: bool = deep_param()
    fabric_rounds: bool = fabric_rounds_param()
    constants: object = field(init=False, repr=False, compare=False)
    bounds: list = field(init=False, repr=False, compare=False)
    corrections: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.fabric_rounds and not (self.pipelined and self.deep):
            raise ValueError(f"fabric_rounds needs pipelined and deep, not pipelined="
                             f"{self.pipelined}, deep={self.deep}")
        c = montgomery_constants(self.modulus, self.word)
        bounds = montgomery_round_bounds(c, 1 << (2 * c.r))
        self._set(constants=c, bounds=bounds,
                  corrections=montgomery_corrections(bounds[-1], c.q))

    @property
    def latency(self):
        c = self.constants
        if not self.pipelined:
            return 0
        if self.fabric_rounds:
            return c.nu * fabric_round_latency(c.q_high.bit_length()) + 2
        if self.deep:
            return c.nu * deep_round_latency(c.q_high.bit_length(), c.word) + 2
        return c.nu + self.corrections


class MontgomeryReducer(FixedLatencyUnit):
    """T·2^(-wν) mod q for any 0 <= T < 2^(2r) ([Kir25] Algorithm 7).

    Parameters
    ----------
    plan : MontgomeryReducerPlan
        Or the arguments of one (``MontgomeryReducer("general32", 17)``).

    Attributes
    ----------
    i : In(stream.Signature(unsigned(2r))), always ready
        T.
    o : Out(stream.Signature(unsigned(r))), always ready
        The r-bit result, one per cycle.
    latency : int
        As the plan says (without building).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = MontgomeryReducerPlan.coerce(*args, **kw)
        self._latency = plan.latency
        super().__init__(unsigned(2 * plan.constants.r), unsigned(plan.constants.r))

    @property
    def modulus(self):
        return self.plan.constants.q

    @property
    def constants(self):
        """The :class:`~fhe_hw.params.MontgomeryConstants` baked into the unit."""
        return self.plan.constants

    @property
    def corrections(self):
        """Number of final conditional subtractions of q."""
        return self.plan.corrections

    def elaborate(self, platform):
        mod = Module()
        p = self.plan
        c, w = p.constants, p.constants.word
        st = Stages(mod, self.i.valid, p.pipelined)
        t = self.i.payload
        q_high = Const(c.q_high)
        if p.pipelined and p.deep:   # fabric_rounds implies both
            for bound in p.bounds[1:]:
                t = (fabric_round(st, t, c.q_high, w) if p.fabric_rounds else
                     deep_round(st, t, q_high, len(q_high), w))[:(bound - 1).bit_length()]
            t = deep_corrections(st, t, c.q, p.corrections, c.r)
        else:
            for bound in p.bounds[1:]:
                t, = st.cut(montgomery_round(t, q_high, w)[:(bound - 1).bit_length()])
            bound = p.bounds[-1]
            for _ in range(p.corrections):
                t, = st.cut(conditional_subtract(t, c.q, max(c.r, (bound - c.q - 1)
                                                              .bit_length())))
                bound = max(c.q, bound - c.q)
        self._output(mod, st, t[:c.r])
        return mod
