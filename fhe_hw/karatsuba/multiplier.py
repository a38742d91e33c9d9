"""Karatsuba-r polynomial multiplier: [Mig16] §III (Fig. 2, Fig. 4), §III-A1..3,
§III-B, with the bounds and schedule of :mod:`fhe_hw.model.karatsuba`.

See :class:`KaratsubaMultiplier`. The paper's configuration is ``KaratsubaMultiplier(3,
coeff_bits=131)``: 125-bit coefficients after the 6 software recursions of §III-D have grown to
131 bits, and with 3 more additions in hardware they need 134 of the 135 carrier bits.
"""

from dataclasses import dataclass, field

from ..params import get_modulus, parse_integer, require_int
from ..plan import Plan, param
from .core import KaratsubaEngine
from .schedule import (
    MAX_COEFF_BITS,
    MAX_DIGIT_BITS,
    MAX_DIGITS,
    MAX_LEAF,
    MAX_RECURSIONS,
    KaratsubaLayout,
)

__all__ = ["KaratsubaMultiplier", "KaratsubaMultiplierPlan", "carrier_digits",
           "encode_operands", "decode_products"]


def optional_int(text):
    """An integer (ASCII decimal digits or 0x hex), or ``none`` for the default."""
    if str(text).lower() in ("", "none"):
        return None
    return parse_integer(text)


optional_int.__name__ = "integer"     # argparse: "invalid integer value: 'x'"


# The plan fields that KaratsubaRelinearizerPlan shares.

def recursions_param():
    """The plan field ``recursions`` (required in Python, 3 on the command line)."""
    return param(help="Karatsuba recursions in hardware (1..5)", range=(1, MAX_RECURSIONS),
                 cli_default=3)


def leaf_param():
    """The plan field ``leaf`` (default 5)."""
    return param(5, help="coefficients of the schoolbook sub-polynomials", range=(1, MAX_LEAF))


def digit_bits_param():
    """The plan field ``digit_bits`` (default 27)."""
    return param(27, help="datapath / DSP multiplier width", range=(1, MAX_DIGIT_BITS))


def digits_param():
    """The plan field ``digits`` (default None: the fewest that fit)."""
    return param(None, help="digits per coefficient carrier (default: fit)", parse=optional_int,
                 range=(1, MAX_DIGITS), kw_only=True)


def pipelined_param():
    """The plan field ``pipelined`` (default True)."""
    return param(True, help="registers that keep each path to one carry chain (true/false)",
                 kw_only=True)


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


@dataclass(frozen=True)
class KaratsubaMultiplierPlan(Plan):
    """The parameters of :class:`KaratsubaMultiplier` and what they derive.

    Parameters
    ----------
    recursions : int
        r, 1 to 5: Karatsuba-r; 2^(r-1) serial polynomial multipliers.
    leaf : int
        Coefficients of the schoolbook sub-polynomials (default 5 = ρ + 1).
    coeff_bits : int
        Bits of the input coefficients (default 125).
    digit_bits : int
        Width of the datapath and of the DSP multipliers (default 27).
    modulus : int, str or None
        If given, output coefficients are reduced modulo q by folds and a Barrett reducer
        (:class:`~fhe_hw.karatsuba.reduce.WideBarrettReducer`).
    digits : int or None
        Digits per coefficient carrier (default the fewest that fit; 5 in the paper, 135
        bits); ``coeff_bits + recursions`` must fit.
    mult_stages : int
        Multiplier pipelining of the reducer (default 4).
    pipelined : bool
        The registers that keep every path of the datapath to one carry chain or one DSP
        (see :class:`KaratsubaMultiplier`; default True).

    Attributes
    ----------
    layout : KaratsubaLayout
        The engine's schedule, widths and time labels.
    q : int or None
        The modulus as an integer.
    latency : int
        Cycles from a product's first input transfer to its first output beat.
    """

    recursions: int = recursions_param()
    leaf: int = leaf_param()
    coeff_bits: int = param(125, help="input coefficient bits", range=(1, MAX_COEFF_BITS))
    digit_bits: int = digit_bits_param()
    modulus: object = param(None, help="reduce outputs mod q (integer; default: none, no "
                            "reduction)", parse=optional_int)
    digits: int | None = digits_param()
    mult_stages: int = field(default=4, kw_only=True)
    pipelined: bool = pipelined_param()
    layout: KaratsubaLayout = field(init=False, repr=False, compare=False)
    q: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        digits = carrier_digits(self.coeff_bits, self.recursions, self.digit_bits, self.digits)
        q = None if self.modulus is None else int(get_modulus(self.modulus))
        self._set(layout=KaratsubaLayout(self.recursions, self.leaf, self.coeff_bits,
                                         self.coeff_bits, self.digit_bits, digits,
                                         pipelined=self.pipelined), q=q)
        KaratsubaEngine.latency_from(self.layout, q, self.mult_stages)     # the reducer's checks

    @property
    def latency(self):
        """Cycles from a product's first input transfer to its first output beat (always-valid
        input, always-ready output): :meth:`KaratsubaEngine.latency_from
        <fhe_hw.karatsuba.core.KaratsubaEngine.latency_from>`."""
        return KaratsubaEngine.latency_from(self.layout, self.q, self.mult_stages)

    def cycles(self, products=1):
        """Cycles from the first input transfer to the last output transfer for ``products``
        products with always-valid input and always-ready output:
        (products - 1)·period + latency + (size - 1)·digits + 1."""
        require_int("products", products, minimum=1)
        return KaratsubaEngine.cycles_from(self.layout, self.latency, products)


class KaratsubaMultiplier(KaratsubaEngine):
    """Product of two polynomials of ``size = leaf·2^recursions`` coefficients with
    ``recursions`` Karatsuba recursions in hardware ([Mig16] §III): exact over the integers, or
    modulo ``modulus``.

    Parameters
    ----------
    plan : KaratsubaMultiplierPlan
        Or the arguments of one (``KaratsubaMultiplier(3, coeff_bits=131)``). Its
        ``pipelined`` selects the registers that keep every path of the datapath to one carry
        chain or one DSP (a register of the operand digits between the input FIFO and the
        pre-computation, a fan-out chain of the a digit through the leaf·digits digit
        multipliers, the DSPs' operand registers, a second adder-tree stage, the resolution of
        each leaf product, the accumulation window's sums, a register between the two
        subtractions of each post-computation): 4 + leaf·digits + r cycles of latency more than
        ``False``, the same period (default True).

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
        Cycles from a product's first input transfer to its first output beat (the plan's,
        without building).
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

    def __init__(self, *args, **kw):
        self.plan = p = KaratsubaMultiplierPlan.coerce(*args, **kw)
        super().__init__(p.layout, modulus=p.q, mult_stages=p.mult_stages)

    recursions = property(lambda self: self.plan.recursions)
    leaf = property(lambda self: self.plan.leaf)
    coeff_bits = property(lambda self: self.plan.coeff_bits)
    digit_bits = property(lambda self: self.plan.digit_bits)
    digits = property(lambda self: self.plan.layout.digits)
    modulus = property(lambda self: self.plan.q)
    pipelined = property(lambda self: self.plan.pipelined)
    size = property(lambda self: self.plan.layout.size,
                    doc="coefficients per operand polynomial")
    period = property(lambda self: self.plan.layout.period, doc="cycles between products")
    schedule = property(lambda self: self.plan.layout.schedule, doc="the pre-crossbar schedule")

    @property
    def lines(self):
        """Serial polynomial multipliers (2^(r-1))."""
        return self.plan.layout.schedule.lines

    @property
    def multipliers(self):
        """digit_bits x digit_bits multipliers of the Karatsuba datapath: 2^(r-1)·leaf·digits,
        the model's :func:`~fhe_hw.model.karatsuba.hardware_multipliers`."""
        return self.plan.layout.multipliers

    def cycles(self, products=1):
        """Cycles from the first input transfer to the last output transfer for ``products``
        products with always-valid input and always-ready output:
        (products - 1)·period + latency + (size - 1)·digits + 1."""
        return self.plan.cycles(products)

    def input_beats(self, pairs):
        """The ``i`` beats for a list of (P, Q) pairs (see the class docstring)."""
        return encode_operands(pairs, self.size, self.coeff_bits, self.coeff_bits,
                               self.digit_bits, self.digits)

    def products(self, beats):
        """The products (lists of 2·size - 1 coefficients) carried by ``o`` beats."""
        return decode_products(beats, self.size)
