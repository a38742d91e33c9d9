"""Karatsuba-r polynomial multiplier: [Mig16] §III (Fig. 2, Fig. 4), §III-A1..3,
§III-B, with the bounds and schedule of :mod:`fhe_hw.model.karatsuba`.

See :class:`KaratsubaMultiplier`. The paper's configuration is ``KaratsubaMultiplier(3,
coeff_bits=131)``: 125-bit coefficients after the 6 software recursions of §III-D have grown to
131 bits, and with 3 more additions in hardware they need 134 of the 135 carrier bits.
"""

from ..params import check_bool, get_modulus, require_int
from .core import KaratsubaEngine
from .schedule import (
    MAX_COEFF_BITS,
    MAX_DIGIT_BITS,
    MAX_DIGITS,
    MAX_LEAF,
    MAX_RECURSIONS,
    KaratsubaPlan,
)

__all__ = ["KaratsubaMultiplier", "carrier_digits", "encode_operands", "decode_products"]


def carrier_digits(bits, recursions, digit_bits, digits=None):
    """Digits of the carrier for ``bits``-bit operands after ``recursions`` pre-computation
    additions: ``digits`` if given (checked), else the fewest that fit. Raises ``ValueError``
    if ``bits + recursions`` exceeds ``digits·digit_bits``."""
    need = bits + recursions
    if digits is None:
        digits = -(-need // digit_bits)
        if digits > MAX_DIGITS:
            raise ValueError(f"digit_bits must be at least {-(-need // MAX_DIGITS)} for "
                             f"coeff_bits + recursions = {need} (at most {MAX_DIGITS} digits "
                             f"per carrier), not {digit_bits}")
        return digits
    require_int("digits", digits, minimum=1, maximum=MAX_DIGITS)
    if need > digits * digit_bits:
        raise ValueError(f"coeff_bits + recursions = {need} must fit the carrier of digits * "
                         f"digit_bits = {digits * digit_bits} bits (the pre-computation adds "
                         f"{recursions} bits), not exceed it")
    return digits


def encode_operands(pairs, size, a_bits, b_bits, digit_bits, digits, names=("p", "q")):
    """Input beats for a list of (a, b) polynomial pairs of ``size`` coefficients: one digit of
    each per beat, coefficients in ascending order, digits least significant first. Raises
    ``ValueError`` if a polynomial has the wrong length or a coefficient is out of range."""
    mask = (1 << digit_bits) - 1
    beats = []
    for a, b in pairs:
        for name, poly, bits in ((names[0], a, a_bits), (names[1], b, b_bits)):
            if not isinstance(poly, (list, tuple)) or len(poly) != size:
                raise ValueError(f"{name} must be a list of size = {size} coefficients, "
                                 f"not {len(poly) if isinstance(poly, (list, tuple)) else poly!r}")
            bad = [c for c in poly if not (isinstance(c, int) and 0 <= c < 1 << bits)]
            if bad:
                raise ValueError(f"{name} must have coefficients in [0, 2**{bits}), not "
                                 f"{bad[:3]}")
        for x, y in zip(a, b):
            for d in range(digits):
                shift = d * digit_bits
                beats.append({names[0]: x >> shift & mask, names[1]: y >> shift & mask})
    return beats


def decode_products(beats, size):
    """Products (2·size - 1 coefficients each) from output beats of two lanes."""
    if len(beats) % size:
        raise ValueError(f"beats must be a multiple of size = {size}, not {len(beats)}")
    products = []
    for start in range(0, len(beats), size):
        coeffs = [c for beat in beats[start:start + size] for c in beat]
        products.append(coeffs[:2 * size - 1])
    return products


class KaratsubaMultiplier(KaratsubaEngine):
    """Product of two polynomials of ``size = leaf·2^recursions`` coefficients with
    ``recursions`` Karatsuba recursions in hardware ([Mig16] §III): exact over the integers, or
    modulo ``modulus``.

    Parameters
    ----------
    recursions : int
        r >= 1: Karatsuba-r; 2^(r-1) serial polynomial multipliers.
    leaf : int
        Coefficients of the schoolbook sub-polynomials (default 5 = ρ + 1).
    coeff_bits : int
        Bits of the input coefficients (default 125).
    digit_bits : int
        Width of the datapath and of the DSP multipliers (default 27).
    modulus : int or None
        If given, output coefficients are reduced modulo q by folds and a Barrett reducer
        (:class:`~fhe_hw.karatsuba.reduce.WideBarrettReducer`).
    digits : int or None
        Digits per coefficient carrier (default the fewest that fit; 5 in the paper, 135
        bits); ``coeff_bits + recursions`` must fit.
    mult_stages : int
        Multiplier pipelining of the reducer (default 4).
    pipelined : bool
        The registers that keep every path of the datapath to one carry chain or one DSP (a
        register of the operand digits between the input FIFO and the pre-computation, a
        fan-out chain of the a digit through the leaf·digits digit multipliers, the DSPs'
        operand registers, a second adder-tree stage, the resolution of each leaf product, the
        accumulation window's sums, a register between the two subtractions of each
        post-computation): 4 + leaf·digits + r cycles of latency more than ``False``, the same
        period (default True).

    Attributes
    ----------
    i : In(stream.Signature(StructLayout({"p": digit_bits, "q": digit_bits})))
        One digit of P and of Q per beat: coefficient j is beats j·digits .. j·digits +
        digits - 1, least significant digit first; products follow each other
        (:meth:`input_beats`).
    o : Out(stream.Signature(ArrayLayout(output_bits, 2)))
        The 2·size - 1 product coefficients as ``size`` beats (c_2b, c_2b+1), the two output
        channels of §III; the last lane 1 is 0 (:meth:`products`).
    output_bits : int
        The exact product bound size·(2^coeff_bits - 1)^2 in bits, or the modulus's bits.
    latency : int
        Cycles from a product's first input transfer to its first output beat
        (:meth:`latency_of` without building).
    period : int
        Cycles between products: ``schedule.period·leaf·digits`` (size·digits for r >= 3, the
        paper's "fully pipelined" rate; 1.5x and 1.25x that for r = 1, 2, whose leaves need
        more multiplier slots than the input lasts). :meth:`cycles` gives the exact count for
        a batch.
    multipliers : int
        Digit multipliers: 100·2^(r-3) for the paper's leaf and digits (plus the reducer's
        when a modulus is given).

    Raises
    ------
    TypeError
        For non-integer parameters.
    ValueError
        For recursions < 1, leaf < 1, coefficients that do not fit the carrier after r
        additions, or a bad modulus.
    """

    _a_name, _b_name = "p", "q"

    def __init__(self, recursions, leaf=5, coeff_bits=125, digit_bits=27, modulus=None, *,
                 digits=None, mult_stages=4, pipelined=True):
        plan, modulus = self._plan_of(recursions, leaf, coeff_bits, digit_bits, modulus, digits,
                                      pipelined)
        self._modulus = modulus
        self._coeff_bits = coeff_bits
        super().__init__(plan, modulus=modulus, mult_stages=mult_stages)

    @staticmethod
    def _plan_of(recursions, leaf, coeff_bits, digit_bits, modulus, digits, pipelined):
        """The :class:`~fhe_hw.karatsuba.schedule.KaratsubaPlan` and the integer modulus;
        raises ``ValueError``/``TypeError`` for refused parameters."""
        require_int("recursions", recursions, minimum=1, maximum=MAX_RECURSIONS)
        require_int("leaf", leaf, minimum=1, maximum=MAX_LEAF)
        require_int("coeff_bits", coeff_bits, minimum=1, maximum=MAX_COEFF_BITS)
        require_int("digit_bits", digit_bits, minimum=1, maximum=MAX_DIGIT_BITS)
        check_bool("pipelined", pipelined)
        digits = carrier_digits(coeff_bits, recursions, digit_bits, digits)
        if modulus is not None:
            modulus = int(get_modulus(modulus))
        return KaratsubaPlan(recursions, leaf, coeff_bits, coeff_bits, digit_bits, digits,
                             pipelined=pipelined), modulus

    @staticmethod
    def latency_of(recursions, leaf=5, coeff_bits=125, digit_bits=27, modulus=None, *,
                   digits=None, mult_stages=4, pipelined=True):
        """:attr:`latency` of the multiplier with these parameters without building it; raises
        the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        plan, modulus = KaratsubaMultiplier._plan_of(recursions, leaf, coeff_bits, digit_bits,
                                                     modulus, digits, pipelined)
        return KaratsubaEngine.latency_from(plan, modulus, mult_stages)

    @staticmethod
    def cycles_of(recursions, leaf=5, coeff_bits=125, digit_bits=27, modulus=None, *,
                  digits=None, mult_stages=4, pipelined=True, products=1):
        """:meth:`cycles` of the multiplier with these parameters without building it."""
        plan, modulus = KaratsubaMultiplier._plan_of(recursions, leaf, coeff_bits, digit_bits,
                                                     modulus, digits, pipelined)
        require_int("products", products, minimum=1)
        return KaratsubaEngine.cycles_from(
            plan, KaratsubaEngine.latency_from(plan, modulus, mult_stages), products)

    recursions = property(lambda self: self._plan.recursions)
    leaf = property(lambda self: self._plan.leaf)
    coeff_bits = property(lambda self: self._coeff_bits)
    digit_bits = property(lambda self: self._plan.digit_bits)
    digits = property(lambda self: self._plan.digits)
    modulus = property(lambda self: self._modulus)
    pipelined = property(lambda self: self._plan.pipelined)
    size = property(lambda self: self._plan.size, doc="coefficients per operand polynomial")
    period = property(lambda self: self._plan.period, doc="cycles between products")
    schedule = property(lambda self: self._plan.schedule, doc="the pre-crossbar schedule")

    @property
    def lines(self):
        """Serial polynomial multipliers (2^(r-1))."""
        return self._plan.schedule.lines

    @property
    def multipliers(self):
        """digit_bits x digit_bits multipliers of the Karatsuba datapath: 2^(r-1)·leaf·digits,
        the model's :func:`~fhe_hw.model.karatsuba.hardware_multipliers`."""
        return self._plan.multipliers

    def cycles(self, products=1):
        """Cycles from the first input transfer to the last output transfer for ``products``
        products with always-valid input and always-ready output:
        (products - 1)·period + latency + (size - 1)·digits + 1."""
        require_int("products", products, minimum=1)
        return self.cycles_from(self._plan, self.latency, products)

    def input_beats(self, pairs):
        """The ``i`` beats for a list of (P, Q) pairs (see the class docstring)."""
        return encode_operands(pairs, self.size, self._coeff_bits, self._coeff_bits,
                               self.digit_bits, self.digits)

    def products(self, beats):
        """The products (lists of 2·size - 1 coefficients) carried by ``o`` beats."""
        return decode_products(beats, self.size)
