"""Word-level Montgomery modular multiplier whose modulus is a run-time operand:
[Kir25] §3.2.1, Algorithm 7.

The RNS engines of 003 (§3.3, §4.1) multiply modulo a different prime for every residue
polynomial; one :class:`~fhe_hw.arith.ModMul` per modulus would cost l (or k) multipliers per
lane. Algorithm 7 needs only q_H = q >> w as an operand of its (r−w)×w round products when every
modulus satisfies q ≡ 1 (mod 2^w), so one multiplier serves every modulus of a set: the modulus
travels with the operands and each round multiplies by the run-time q_H. The round, its bounds and
the final subtractions are those of :mod:`.montgomery` (shared functions, not a copy).

All moduli share the word w and the operand width r, hence R = 2^(w·⌈r/w⌉): a constant c is
pre-scaled once per modulus with :meth:`DynamicModMul.premultiply` (c·R mod q) so that
a·premultiply(c, q) comes out as a·c mod q.

With ``deep=True`` (the default) the rounds and final subtractions are the fast pipeline of
:mod:`.montgomery` (:func:`~.montgomery.deep_round` with the run-time q_H as the DSP tiles'
second operand, :func:`~.montgomery.deep_corrections` with the run-time q); ``deep=False``
does a round (negation, DSP, addition) per register.
"""

from dataclasses import dataclass, field

from amaranth import Module, unsigned

from ..params import check_bool, require_int
from ..plan import Plan
from .modadd import operand_layout
from .montgomery import (
    conditional_subtract,
    deep_corrections,
    deep_round,
    deep_round_latency,
    montgomery_bounds,
    montgomery_corrections,
    montgomery_round,
)
from .pipeline import FixedLatencyUnit, Multiplier, Stages, check_stages

__all__ = ["DynamicModMul", "DynamicModMulPlan", "common_montgomery_word", "two_adicity"]

#: Widest word chosen by default: the q_H × T̃ product fits one 18x18 DSP column.
MAX_AUTO_WORD = 17


def two_adicity(q):
    """The largest v with 2^v | q − 1."""
    return ((q - 1) & -(q - 1)).bit_length() - 1


def common_montgomery_word(moduli, word=None):
    """The Montgomery word w shared by ``moduli``: ``word`` if given (validated), else the
    largest w <= 17 with q ≡ 1 (mod 2^w) for every q. Raises ``ValueError`` when a modulus is
    even or w would be 0 or not below the moduli's width."""
    moduli = tuple(moduli)
    width = max(q.bit_length() for q in moduli)
    for q in moduli:
        if q < 3 or q % 2 == 0:
            raise ValueError(f"moduli must be odd and at least 3 for Montgomery reduction, "
                             f"not {q!r}")
    if word is None:
        word = min(MAX_AUTO_WORD, *(two_adicity(q) for q in moduli))
        if word < 1:
            raise ValueError("moduli must share a Montgomery word w >= 1 with q ≡ 1 (mod 2^w)")
    require_int("word", word, minimum=1)
    if word >= width:
        raise ValueError(f"word must be smaller than the {width}-bit moduli, not {word!r}")
    for q in moduli:
        if q % (1 << word) != 1:
            raise ValueError(f"every modulus must satisfy q ≡ 1 (mod 2^word) for word = {word}; "
                             f"{q} mod 2^{word} = {q % (1 << word)} (choose NTT primes "
                             f"q ≡ 1 mod 2^{word})")
    return word


@dataclass(frozen=True)
class DynamicModMulPlan(Plan):
    """The parameters of :class:`DynamicModMul` and what they derive, without building it.
    Engines that only need a multiplier's latency or constants use it.

    Parameters
    ----------
    moduli : iterable of int
        The moduli q may take; odd, q ≡ 1 mod 2^word. Stored sorted, without repeats.
    word : int or None
        w; default the largest w <= 17 all moduli allow (:func:`common_montgomery_word`);
        stored resolved.
    width : int or None
        r; default the widest modulus; stored resolved.
    mult_stages : int
        Registers of the r×r multiplier (default 4).
    tiled : bool
        The r×r multiplier in 17-bit tiles, one DSP per partial product with its registers in
        the DSP on an ECP5 (default True; see :class:`~fhe_hw.arith.pipeline.Multiplier`).
    deep : bool
        The fast rounds of the module docstring (default True).
    tile_reg : bool
        A fabric register after each DSP tile's product, before the r×r multiplier's adder tree,
        tiled only: one register more than ``mult_stages`` (at least 1 then; default False;
        see :class:`~fhe_hw.arith.pipeline.Multiplier`).

    Attributes
    ----------
    nu : int
        ν = ⌈r/w⌉, the rounds.
    bounds : tuple of int
        The exclusive bounds of T before the rounds and after each, for the largest q_H.
    corrections : int
        The most final subtractions any modulus of the set needs for products up to 2^(2r).
    """

    moduli: tuple
    word: int | None = None
    width: int | None = field(default=None, kw_only=True)
    mult_stages: int = field(default=4, kw_only=True)
    tiled: bool = field(default=True, kw_only=True)
    deep: bool = field(default=True, kw_only=True)
    tile_reg: bool = field(default=False, kw_only=True)
    nu: int = field(init=False, repr=False, compare=False)
    bounds: tuple = field(init=False, repr=False, compare=False)
    corrections: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        moduli = self.moduli
        if isinstance(moduli, int) or not moduli:
            raise ValueError(f"moduli must be a non-empty sequence of integers, not {moduli!r}")
        moduli = tuple(sorted({require_int("modulus", q) for q in moduli}))
        w = common_montgomery_word(moduli, self.word)
        r = max(q.bit_length() for q in moduli)
        r = r if self.width is None else require_int("width", self.width, minimum=r)
        check_stages("mult_stages", self.mult_stages)
        check_bool("tiled", self.tiled)
        check_bool("deep", self.deep)
        check_bool("tile_reg", self.tile_reg)
        if self.tile_reg and not (self.tiled and self.mult_stages >= 1):
            raise ValueError(f"tile_reg needs tiled=True and mult_stages >= 1, not "
                             f"tiled={self.tiled!r}, mult_stages={self.mult_stages!r}")
        nu = -(-r // w)
        q_high = max(q >> w for q in moduli)
        bounds = montgomery_bounds(w, nu, q_high, 1 << (2 * r))
        corrections = max(
            montgomery_corrections(montgomery_bounds(w, nu, q >> w, 1 << (2 * r))[-1], q)
            for q in moduli)
        self._set(moduli=moduli, word=w, width=r, nu=nu, bounds=tuple(bounds),
                  corrections=corrections)

    @property
    def latency(self):
        if self.deep:
            # q_H = q >> w of the widest modulus is the DSP tiles' run-time operand.
            q_high_width = self.width - self.word
            return (self.multiplier_stages
                    + self.nu * deep_round_latency(q_high_width, self.word) + 2)
        return self.multiplier_stages + self.nu + self.corrections

    @property
    def multiplier_stages(self):
        """The r×r multiplier's registers: ``mult_stages``, one more with ``tile_reg``."""
        return self.mult_stages + self.tile_reg

    @property
    def R(self):
        """The Montgomery factor 2^(w·ν) shared by all moduli."""
        return 1 << (self.word * self.nu)

    def output_scale(self, q):
        """s in o = a·b·s mod q: R^-1 mod q."""
        return pow(self.R, -1, q)

    def premultiply(self, constant, q):
        """The value to feed as ``b`` so that the output is constant·a mod q: constant·R mod q."""
        if q not in self.moduli:
            raise ValueError(f"q must be one of the unit's moduli {self.moduli}, not {q!r}")
        return constant * self.R % q


class DynamicModMul(FixedLatencyUnit):
    """a·b·R^-1 mod q with q a run-time operand from a fixed set of moduli ([Kir25] Algorithm 7).

    Parameters
    ----------
    plan : DynamicModMulPlan
        Or the arguments of one (``DynamicModMul(moduli, 13, mult_stages=3)``).

    Attributes
    ----------
    i : In(stream.Signature(...)), always ready
        ``{a, b, q}``, r bits each, LSB-first; any a, b < 2^r, q one of ``moduli``.
    o : Out(stream.Signature(unsigned(r))), always ready
        a·b·R^-1 mod q with R = 2^(w·ν), ν = ⌈r/w⌉; one result per cycle.
    latency : int
        ``mult_stages + ν·deep_round_latency + 2`` (deep; 3 or 4 registers per round, 2 for
        the subtractions) or ``mult_stages + ν + corrections`` (one round and one final
        subtraction per register); ``corrections`` is the most any modulus of the set needs
        for products up to 2^(2r). The plan gives it without building.

    Raises
    ------
    ValueError
        On an empty set, a modulus that is even, wider than r or not ≡ 1 (mod 2^w).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = DynamicModMulPlan.coerce(*args, **kw)
        self._latency = plan.latency
        super().__init__(operand_layout(plan.width, "a", "b", "q"), unsigned(plan.width))

    @property
    def moduli(self):
        return self.plan.moduli

    @property
    def word(self):
        return self.plan.word

    @property
    def width(self):
        return self.plan.width

    @property
    def nu(self):
        return self.plan.nu

    @property
    def corrections(self):
        return self.plan.corrections

    @property
    def R(self):
        """The Montgomery factor 2^(w·ν) shared by all moduli."""
        return self.plan.R

    def output_scale(self, q):
        """s in o = a·b·s mod q: R^-1 mod q."""
        return self.plan.output_scale(q)

    def premultiply(self, constant, q):
        """The value to feed as ``b`` so that the output is constant·a mod q: constant·R mod q."""
        return self.plan.premultiply(constant, q)

    def elaborate(self, platform):
        m = Module()
        p = self.plan
        w, r = p.word, p.width
        st = Stages(m, self.i.valid)
        st.ride(q=self.i.payload.q)
        t = Multiplier(r, r, p.multiplier_stages, tiled=p.tiled, tile_reg=p.tile_reg).build(
            st, self.i.payload.a, self.i.payload.b)
        if p.deep:
            for bound in p.bounds[1:]:
                t = deep_round(st, t, st["q"][w:], r - w, w)[:(bound - 1).bit_length()]
            t = deep_corrections(st, t, st["q"], p.corrections, r)
        else:
            for bound in p.bounds[1:]:
                t, = st.cut(montgomery_round(t, st["q"][w:], w)[:(bound - 1).bit_length()])
            bound, q_min, q_max = p.bounds[-1], min(p.moduli), max(p.moduli)
            for _ in range(p.corrections):
                t, = st.cut(conditional_subtract(t, st["q"], max(r, (bound - q_min - 1)
                                                                 .bit_length())))
                bound = max(q_max, bound - q_min)
        self._output(m, st, t[:r])
        return m
