"""Word-level Montgomery reduction: [Kir25] §3.2.1, Algorithm 7 (Mert et al.
2020, with Tosun et al. 2024's carry trick).

For q ≡ 1 (mod 2^w), write q = q_H·2^w + 1 and T = T_H·2^w + T_L. With T̃ = -T_L mod 2^w,
T + T̃·q = 2^w·(T_H + q_H·T̃) + (T_L + T̃), and T_L + T̃ is 0 when T_L = 0 and 2^w otherwise, so
one round is T ← T_H + q_H·T̃ + carry with carry = (T_L ≠ 0) = T̃[w-1] ∨ T[w-1]: a (r-w)×w
multiplication by a constant and no full-width multiplier. ν = ⌈r/w⌉ rounds divide by
R = 2^(wν); a final conditional subtraction brings the result into [0, q).

The thesis's line 6 reads "T_H + q_H·T_L"; the derivation above (and the carry, which is only
meaningful for T̃) needs q_H·T̃, which is what the hardware and the model implement.

The bound of T after every round is computed here from the input width, so the register widths
are exact and, should the last bound exceed 2q (it does not for products T < q^2, but may for
arbitrary 2r-bit inputs), further conditional subtractions are added: the unit is exact for every
2r-bit input.
"""

from amaranth import Const, Module, Mux, unsigned

from ..params import montgomery_constants
from .modadd import check_bool
from .pipeline import FixedLatencyUnit, Stages

__all__ = ["MontgomeryReducer", "montgomery_round_bounds", "montgomery_bounds",
           "montgomery_round", "montgomery_corrections", "conditional_subtract"]


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


class MontgomeryReducer(FixedLatencyUnit):
    """T·2^(-wν) mod q for any 0 <= T < 2^(2r) ([Kir25] Algorithm 7).

    Parameters: ``modulus`` (odd q of r bits with q ≡ 1 mod 2^word), ``word`` (w), ``pipelined``
    (register every round and every final subtraction).

    Ports: ``i`` — always-ready stream of the 2r-bit T; ``o`` — always-ready stream of the r-bit
    result. Latency ``nu + corrections`` when pipelined, else 0. ``corrections`` is 1 when every
    2r-bit input is below q·(R + 1), and 2 when w divides r so that larger inputs fit (products
    of residues T < q² always need one). One result per cycle.
    """

    def __init__(self, modulus, word, *, pipelined=True):
        self._latency = self.latency_of(modulus, word, pipelined=pipelined)
        self._c, self._bounds, self._corrections = self._derive(modulus, word)
        self._pipelined = pipelined
        super().__init__(unsigned(2 * self._c.r), unsigned(self._c.r))

    @staticmethod
    def _derive(modulus, word):
        """The constants, the round bounds for every 2r-bit input and the corrections."""
        c = montgomery_constants(modulus, word)
        bounds = montgomery_round_bounds(c, 1 << (2 * c.r))
        return c, bounds, montgomery_corrections(bounds[-1], c.q)

    @staticmethod
    def latency_of(modulus, word, *, pipelined=True):
        """The :attr:`latency` of ``MontgomeryReducer(modulus, word, pipelined=pipelined)``
        without building it; raises the constructor's ``ValueError``/``TypeError`` for refused
        parameters."""
        c, _, corrections = MontgomeryReducer._derive(modulus, word)
        return (c.nu + corrections) if check_bool("pipelined", pipelined) else 0

    @property
    def modulus(self):
        return self._c.q

    @property
    def constants(self):
        """The :class:`~fhe_hw.params.MontgomeryConstants` baked into the unit."""
        return self._c

    @property
    def corrections(self):
        """Number of final conditional subtractions of q."""
        return self._corrections

    def elaborate(self, platform):
        mod = Module()
        c, w = self._c, self._c.word
        st = Stages(mod, self.i.valid, self._pipelined)
        t = self.i.payload
        for bound in self._bounds[1:]:
            t, = st.cut(montgomery_round(t, Const(c.q_high), w)[:(bound - 1).bit_length()])
        bound = self._bounds[-1]
        for _ in range(self._corrections):
            t, = st.cut(conditional_subtract(t, c.q, max(c.r, (bound - c.q - 1).bit_length())))
            bound = max(c.q, bound - c.q)
        mod.d.comb += [self.o.payload.eq(t[:c.r]), self.o.valid.eq(st.valid)]
        return mod
