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

from ..params import check_bool, require_int
from .core import KaratsubaEngine
from .multiplier import carrier_digits, decode_products, encode_operands
from .schedule import (
    MAX_COEFF_BITS,
    MAX_DIGIT_BITS,
    MAX_LEAF,
    MAX_RECURSIONS,
    MAX_WORDS,
    KaratsubaPlan,
)

__all__ = ["KaratsubaRelinearizer"]


class KaratsubaRelinearizer(KaratsubaEngine):
    """Σ_{i<words} C[i]·γ[i] for groups of ``words`` polynomial pairs of ``size =
    leaf·2^recursions`` coefficients, exact over the integers.

    Parameters: ``recursions`` (>= 1), ``words`` (ℓ >= 1, products per group), ``leaf``
    (default 5), ``coeff_bits`` (bits of the key coefficients, default 125), ``word_bits`` (bits
    of the word coefficients, default 27 = w), ``digit_bits`` (default 27), keyword ``digits``
    (carrier; default the fewest that fit max(coeff_bits, word_bits) + recursions bits),
    keyword ``pipelined`` (default ``True``, as :class:`~fhe_hw.karatsuba.KaratsubaMultiplier`:
    4 + leaf·digits + r cycles of latency more than ``False``).

    Ports: ``i`` — stream of ``{"c": digit, "gamma": digit}``, the pairs (C[0], γ[0]), (C[1],
    γ[1]), ... of a group one after the other, each coefficient as ``digits`` beats, least
    significant digit first (:meth:`input_beats`); ``o`` — ``size`` beats of two lanes of
    ``output_bits`` per group (coefficients 2b, 2b + 1 of the sum; :meth:`products`).
    ``output_bits`` bounds words·size·(2^word_bits - 1)·(2^coeff_bits - 1).

    Timing: one group every ``words·period`` cycles; :meth:`cycles`. Resources as the
    multiplier: :attr:`multipliers` digit multipliers.

    Raises ``TypeError``/``ValueError`` for non-integer or out-of-range parameters, or when
    max(coeff_bits, word_bits) + recursions does not fit the carrier.
    """

    _a_name, _b_name = "c", "gamma"

    def __init__(self, recursions, words, leaf=5, coeff_bits=125, word_bits=27, digit_bits=27, *,
                 digits=None, pipelined=True):
        plan = self._plan_of(recursions, words, leaf, coeff_bits, word_bits, digit_bits, digits,
                             pipelined)
        self._coeff_bits, self._word_bits = coeff_bits, word_bits
        super().__init__(plan)

    @staticmethod
    def _plan_of(recursions, words, leaf, coeff_bits, word_bits, digit_bits, digits, pipelined):
        """The :class:`~fhe_hw.karatsuba.schedule.KaratsubaPlan`; raises
        ``ValueError``/``TypeError`` for refused parameters."""
        require_int("recursions", recursions, minimum=1, maximum=MAX_RECURSIONS)
        require_int("words", words, minimum=1, maximum=MAX_WORDS)
        require_int("leaf", leaf, minimum=1, maximum=MAX_LEAF)
        require_int("coeff_bits", coeff_bits, minimum=1, maximum=MAX_COEFF_BITS)
        require_int("word_bits", word_bits, minimum=1, maximum=MAX_COEFF_BITS)
        require_int("digit_bits", digit_bits, minimum=1, maximum=MAX_DIGIT_BITS)
        check_bool("pipelined", pipelined)
        digits = carrier_digits(max(coeff_bits, word_bits), recursions, digit_bits, digits)
        return KaratsubaPlan(recursions, leaf, word_bits, coeff_bits, digit_bits, digits,
                             words=words, pipelined=pipelined)

    @staticmethod
    def latency_of(recursions, words, leaf=5, coeff_bits=125, word_bits=27, digit_bits=27, *,
                   digits=None, pipelined=True):
        """:attr:`latency` of the relinearizer with these parameters without building it;
        raises the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        return KaratsubaEngine.latency_from(KaratsubaRelinearizer._plan_of(
            recursions, words, leaf, coeff_bits, word_bits, digit_bits, digits, pipelined))

    @staticmethod
    def cycles_of(recursions, words, leaf=5, coeff_bits=125, word_bits=27, digit_bits=27, *,
                  digits=None, pipelined=True, groups=1):
        """:meth:`cycles` of the relinearizer with these parameters without building it."""
        plan = KaratsubaRelinearizer._plan_of(recursions, words, leaf, coeff_bits, word_bits,
                                              digit_bits, digits, pipelined)
        require_int("groups", groups, minimum=1)
        return KaratsubaEngine.cycles_from(plan, KaratsubaEngine.latency_from(plan),
                                           groups * words)

    recursions = property(lambda self: self._plan.recursions)
    words = property(lambda self: self._plan.words)
    leaf = property(lambda self: self._plan.leaf)
    coeff_bits = property(lambda self: self._coeff_bits)
    word_bits = property(lambda self: self._word_bits)
    digit_bits = property(lambda self: self._plan.digit_bits)
    digits = property(lambda self: self._plan.digits)
    size = property(lambda self: self._plan.size, doc="coefficients per operand polynomial")
    period = property(lambda self: self._plan.period, doc="cycles between word products")
    pipelined = property(lambda self: self._plan.pipelined)

    @property
    def multipliers(self):
        """digit_bits x digit_bits multipliers: 2^(r-1)·leaf·digits."""
        return self._plan.multipliers

    def cycles(self, groups=1):
        """Cycles from the first input transfer to the last output transfer for ``groups``
        groups with always-valid input and always-ready output:
        (groups·words - 1)·period + latency + (size - 1)·digits + 1."""
        require_int("groups", groups, minimum=1)
        return self.cycles_from(self._plan, self.latency, groups * self.words)

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
        return encode_operands(pairs, self.size, self._word_bits, self._coeff_bits,
                               self.digit_bits, self.digits, names=("c", "gamma"))

    def products(self, beats):
        """The accumulated products (2·size - 1 coefficients each) carried by ``o`` beats."""
        return decode_products(beats, self.size)
