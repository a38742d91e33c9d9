"""Relinearization / key switching mode of the Karatsuba accelerator:
[Mig16] §II-C eq. (1), §III ("the relinearization key ... must be sent at the
same time than the polynomial"), with :func:`fhe_hw.model.karatsuba.relinearize` as the model.

The ciphertext polynomial C is split by WordDecomp_{w,q} into ℓ word polynomials C[i]; the
engine receives each C[i] (or its software pre-computed part) beside the matching key polynomial
γ[i] on the same input stream, multiplies them with the Karatsuba-r datapath of
:class:`~fhe_hw.karatsuba.KaratsubaMultiplier`, and accumulates the ℓ products before they
leave: Σ_i C[i]·γ[i] is emitted once per group. Because the post-computation is linear, the sum
of the recombined products equals the recombination of the summed leaf products that the model
accumulates, and the software above the hardware (:mod:`fhe_hw.karatsuba.host`) post-computes
and reduces once per group, not once per word.

Deviation from 004: the paper reports the same accelerator time for relinearization as for one
product (Table III). Here a group takes ℓ product periods: each word product streams the key
polynomial's full carriers through the 27-bit input, so the key bandwidth alone needs ℓ times
the cycles of one product. The accumulator costs one period of chunk-serial storage.
"""

from dataclasses import dataclass, field

from ..params import require_int
from ..plan import Plan, param
from .core import KaratsubaEngine
from .multiplier import (
    carrier_digits,
    decode_products,
    digit_bits_param,
    digits_param,
    encode_operands,
    leaf_param,
    pipelined_param,
    recursions_param,
)
from .schedule import MAX_COEFF_BITS, MAX_WORDS, KaratsubaLayout

__all__ = ["KaratsubaRelinearizer", "KaratsubaRelinearizerPlan"]


@dataclass(frozen=True)
class KaratsubaRelinearizerPlan(Plan):
    """The parameters of :class:`KaratsubaRelinearizer` and what they derive.

    Parameters
    ----------
    recursions : int
        r, 1 to 5.
    words : int
        ℓ, word polynomials (products) per group, 1 to 64.
    leaf : int
        Coefficients of the schoolbook sub-polynomials (default 5).
    coeff_bits : int
        Bits of the key coefficients (default 125).
    word_bits : int
        Bits of the word coefficients (default 27 = w).
    digit_bits : int
        Width of the datapath and of the DSP multipliers (default 27).
    digits : int or None
        Digits per carrier (default the fewest that fit max(coeff_bits, word_bits) +
        recursions bits).
    pipelined : bool
        As :class:`~fhe_hw.karatsuba.KaratsubaMultiplier`'s: 4 + leaf·digits + r cycles of
        latency more than ``False`` (default True).

    Attributes
    ----------
    layout : KaratsubaLayout
        The engine's schedule, widths and time labels.
    latency : int
        Cycles from a group's first input transfer to its first output beat.
    """

    recursions: int = recursions_param()
    words: int = param(help="word polynomials per group (l)", range=(1, MAX_WORDS),
                       cli_default=5)
    leaf: int = leaf_param()
    coeff_bits: int = param(125, help="key coefficient bits", range=(1, MAX_COEFF_BITS))
    word_bits: int = param(27, help="word coefficient bits (w)", range=(1, MAX_COEFF_BITS))
    digit_bits: int = digit_bits_param()
    digits: int | None = digits_param()
    pipelined: bool = pipelined_param()
    layout: KaratsubaLayout = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        digits = carrier_digits(max(self.coeff_bits, self.word_bits), self.recursions,
                                self.digit_bits, self.digits)
        self._set(layout=KaratsubaLayout(self.recursions, self.leaf, self.word_bits,
                                         self.coeff_bits, self.digit_bits, digits,
                                         words=self.words, pipelined=self.pipelined))

    @property
    def latency(self):
        """Cycles from a group's first input transfer to its first output beat (always-valid
        input, always-ready output)."""
        return KaratsubaEngine.latency_from(self.layout)

    def cycles(self, groups=1):
        """Cycles from the first input transfer to the last output transfer for ``groups``
        groups with always-valid input and always-ready output:
        (groups·words - 1)·period + latency + (size - 1)·digits + 1."""
        require_int("groups", groups, minimum=1)
        return KaratsubaEngine.cycles_from(self.layout, self.latency, groups * self.words)


class KaratsubaRelinearizer(KaratsubaEngine):
    """Σ_{i<words} C[i]·γ[i] for groups of ``words`` polynomial pairs of ``size =
    leaf·2^recursions`` coefficients, exact over the integers.

    Ports: ``i`` — stream of ``{"c": digit, "gamma": digit}``, the pairs (C[0], γ[0]), (C[1],
    γ[1]), ... of a group one after the other, each coefficient as ``digits`` beats, least
    significant digit first (:meth:`input_beats`); ``o`` — ``size`` beats of two lanes of
    ``output_bits`` per group (coefficients 2b, 2b + 1 of the sum; :meth:`products`).
    ``output_bits`` bounds words·size·(2^word_bits - 1)·(2^coeff_bits - 1).

    Timing: one group every ``words·period`` cycles; :meth:`cycles`. Resources as the
    multiplier: :attr:`multipliers` digit multipliers.

    Raises ``TypeError``/``ValueError`` for non-integer or out-of-range parameters, or when
    max(coeff_bits, word_bits) + recursions does not fit the carrier.

    Parameters
    ----------
    plan : KaratsubaRelinearizerPlan
        Or the arguments of one (``KaratsubaRelinearizer(1, 2, 2, 16, 8, 8)``).
    """

    _a_name, _b_name = "c", "gamma"

    def __init__(self, *args, **kw):
        self.plan = p = KaratsubaRelinearizerPlan.coerce(*args, **kw)
        super().__init__(p.layout)

    recursions = property(lambda self: self.plan.recursions)
    words = property(lambda self: self.plan.words)
    leaf = property(lambda self: self.plan.leaf)
    coeff_bits = property(lambda self: self.plan.coeff_bits)
    word_bits = property(lambda self: self.plan.word_bits)
    digit_bits = property(lambda self: self.plan.digit_bits)
    digits = property(lambda self: self.plan.layout.digits)
    size = property(lambda self: self.plan.layout.size,
                    doc="coefficients per operand polynomial")
    period = property(lambda self: self.plan.layout.period, doc="cycles between word products")
    pipelined = property(lambda self: self.plan.pipelined)

    @property
    def multipliers(self):
        """digit_bits x digit_bits multipliers: 2^(r-1)·leaf·digits."""
        return self.plan.layout.multipliers

    def cycles(self, groups=1):
        """Cycles from the first input transfer to the last output transfer for ``groups``
        groups with always-valid input and always-ready output:
        (groups·words - 1)·period + latency + (size - 1)·digits + 1."""
        return self.plan.cycles(groups)

    def input_beats(self, groups):
        """The ``i`` beats for a list of groups, each a pair (words C[0..ℓ-1], keys
        γ[0..ℓ-1]). Raises ``ValueError`` unless every group holds ``words`` pairs of
        ``size``-coefficient polynomials with coefficients in range."""
        pairs = []
        for words, keys in groups:
            if len(words) != self.words or len(keys) != self.words:
                raise ValueError(f"each group must hold words = {self.words} word and key "
                                 f"polynomials, not {len(words)} and {len(keys)}")
            pairs.extend(zip(words, keys))
        return encode_operands(pairs, self.size, self.word_bits, self.coeff_bits,
                               self.digit_bits, self.digits, names=("c", "gamma"))

    def products(self, beats):
        """The accumulated products (2·size - 1 coefficients each) carried by ``o`` beats."""
        return decode_products(beats, self.size)
