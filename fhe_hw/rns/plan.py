"""The parameters the four RNS base-extension plans share: the ring, the two bases (generated
NTT primes or the user's) and the run-time-modulus multipliers' settings, validated once in
:class:`BaseConversionPlan`; each engine's plan (:class:`~.shenoy_kumaresan.ShenoyKumaresanPlan`,
:class:`~.fast_base_conv.FastBaseConversionPlan`, :class:`~.kawamura.KawamuraPlan`,
:class:`~.mixed_radix.MixedRadixPlan`) derives from it."""

from dataclasses import dataclass, field, fields

from ..arith.montgomery_dyn import DynamicModMulPlan
from ..arith.pipeline import MAX_STAGES
from ..cliargs import int_list
from ..params import check_coprime, ntt_primes, require_power_of_two
from ..plan import Plan, param
from .common import MAX_BITS, MAX_N, MAX_RESIDUES, check_ring, default_bases

__all__ = ["BaseConversionPlan", "DEFAULT_MULT_STAGES", "check_primes"]

#: Registers in each run-time-modulus multiplier when ``mult_stages`` is None:
#: :class:`~fhe_hw.arith.montgomery_dyn.DynamicModMulPlan`'s default.
DEFAULT_MULT_STAGES = next(f.default for f in fields(DynamicModMulPlan)
                           if f.name == "mult_stages")


def check_primes(name, primes):
    """``primes`` (a sequence of odd ints of 2 to :data:`MAX_BITS` bits, at most
    :data:`MAX_RESIDUES`) as a tuple; ``ValueError``/``TypeError`` naming ``name``."""
    if isinstance(primes, (int, str)) or not hasattr(primes, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers, not {primes!r}")
    primes = tuple(primes)
    if not 1 <= len(primes) <= MAX_RESIDUES:
        raise ValueError(f"{name} must have 1 to {MAX_RESIDUES} primes, not {len(primes)}")
    for q in primes:
        if not isinstance(q, int) or isinstance(q, bool):
            raise TypeError(f"{name} must be integers, not {q!r}")
        if not 3 <= q < 1 << MAX_BITS or q % 2 == 0:
            raise ValueError(f"{name} must be odd integers from 3 to 2^{MAX_BITS} - 1 "
                             f"(Montgomery reduction), not {q}")
    return primes


@dataclass(frozen=True)
class BaseConversionPlan(Plan):
    """What the RNS base extensions share: the ring and the bases they convert between.

    Parameters
    ----------
    prime_bits : int
        Bit width of the generated NTT primes (:func:`~fhe_hw.rns.default_bases`), 8 to
        :data:`~fhe_hw.rns.common.MAX_BITS`.
    n : int
        Ring degree N, a power of two up to :data:`~fhe_hw.rns.common.MAX_N`: the
        coefficients of one conversion, and the generated primes are 1 mod 2N.
    source_limbs, target_limbs : int
        l and k, the residues of the generated source and target bases (1 to
        :data:`~fhe_hw.rns.common.MAX_RESIDUES`).
    word : int or None
        The Montgomery word w shared by all moduli; default the largest w <= 17 they allow.
    mult_stages : int or None
        Registers in each run-time-modulus multiplier; default None:
        :data:`DEFAULT_MULT_STAGES` (each engine's plan says where it differs).
    prime_n : int or None
        The generated primes are 1 mod 2·prime_n (default ``n``): a larger power of two allows
        a wider Montgomery word, fewer rounds and DSPs.
    source_primes, target_primes : sequence of int or None
        The user's bases (both or neither; odd, below 2^:data:`~fhe_hw.rns.common.MAX_BITS`,
        pairwise coprime), e.g. OpenFHE's; they replace ``prime_bits``, ``source_limbs``,
        ``target_limbs`` and ``prime_n``. Stored as tuples.

    Attributes
    ----------
    source, target : tuple of int
        The bases converted from and to, each ascending when generated.
    width : int
        r, the bits of the widest modulus (the lane width).
    """

    prime_bits: int = param(32, help="bit width of the NTT primes (ntt_primes)",
                            range=(8, MAX_BITS))
    n: int = param(1024, help="ring degree N (primes are 1 mod 2N)", range=(1, MAX_N))
    source_limbs: int = param(4, help="residues of the source base (l)",
                              range=(1, MAX_RESIDUES))
    target_limbs: int = param(4, help="residues of the target base (k)",
                              range=(1, MAX_RESIDUES))
    word: int | None = param(None, help="Montgomery word (default: largest <= 17 the primes "
                             "allow)", kw_only=True)
    mult_stages: int | None = param(
        None, help=f"registers per multiplier (default: {DEFAULT_MULT_STAGES}, the run-time-"
        f"modulus multiplier's)", range=(0, MAX_STAGES), kw_only=True)
    prime_n: int | None = param(None, help="primes are 1 mod 2*prime-n (default n); a larger "
                                "prime-n allows a wider Montgomery word, fewer rounds and DSPs",
                                range=(1, MAX_N), kw_only=True)
    source_primes: tuple | None = param(
        None, parse=int_list, help="the source base q_0,...,q_(l-1), e.g. OpenFHE's (with "
        "--target-primes; replaces --prime-bits, --source-limbs, --target-limbs, --prime-n; "
        "default: none, the bases those choose)", kw_only=True)
    target_primes: tuple | None = param(
        None, parse=int_list, help="the target base p_0,...,p_(k-1) (with --source-primes; "
        "default: none, the bases --prime-bits, --source-limbs, --target-limbs choose)",
        kw_only=True)
    source: tuple = field(init=False, repr=False, compare=False)
    target: tuple = field(init=False, repr=False, compare=False)
    width: int = field(init=False, repr=False, compare=False)

    #: Generated bases: the source the l largest primes (Kawamura's bound wants them close to
    #: 2^r) instead of the l smallest.
    _source_high = False

    def __post_init__(self):
        super().__post_init__()
        check_ring(self.n)
        if self.prime_n is not None:
            require_power_of_two("prime_n", self.prime_n, maximum=MAX_N)
        if (self.source_primes is None) != (self.target_primes is None):
            given, missing = (("target_primes", "source_primes") if self.source_primes is None
                              else ("source_primes", "target_primes"))
            raise ValueError(f"{missing} must be given too when {given} is")
        if self.source_primes is not None:
            self._set(source_primes=check_primes("source_primes", self.source_primes),
                      target_primes=check_primes("target_primes", self.target_primes))
        self._set_bases(*self._bases(self._redundant_request()))

    def _redundant_request(self):
        """The ``redundant`` argument of :meth:`_bases`: None, no redundant prime."""
        return None

    def _set_bases(self, source, target):
        self._set(source=source, target=target,
                  width=max(q.bit_length() for q in source + target))

    def _bases(self, redundant=None):
        """``(source, target)``, with ``redundant`` also the redundant prime: True for the
        default one (the generated base's largest, or with the user's bases the largest prime
        ≡ 1 mod 2n of their widest prime's bits not in them), an int for the user's. The user's
        bases are checked pairwise coprime (with the redundant prime)."""
        if self.source_primes is None:
            bases = default_bases(self.prime_bits, self.prime_n or self.n, self.source_limbs,
                                  self.target_limbs, redundant=redundant is not None,
                                  source_high=self._source_high)
            if isinstance(redundant, bool) or redundant is None:
                return bases
            return (*bases[:2], redundant)
        source, target = self.source_primes, self.target_primes
        if redundant is True:
            bits = max(q.bit_length() for q in source + target)
            redundant = ntt_primes(bits, self.n, 1, exclude=source + target)[0]
        extra = () if redundant is None else (redundant,)
        check_coprime(f"source_primes and target_primes{' and redundant_prime' * bool(extra)}",
                      source + target + extra)
        return (source, target, *extra)

    def _multiplier(self, moduli, deep=True, mult_stages=None, tile_reg=False):
        """The plan of the engine's run-time-modulus multipliers for ``moduli``: ``mult_stages``
        registers (default the plan's, None: :data:`DEFAULT_MULT_STAGES`), a register after
        each DSP tile with ``tile_reg``."""
        stages = self.mult_stages if mult_stages is None else mult_stages
        return DynamicModMulPlan(moduli, self.word, deep=deep, tile_reg=tile_reg,
                                 mult_stages=DEFAULT_MULT_STAGES if stages is None else stages)

    def describe(self):
        """``{label: value}``: the bases the engine is built for (``fhe-hw generate``'s
        header)."""
        bases = {"source base (l residues)": list(self.source),
                 "target base (k residues)": list(self.target)}
        if self.source_primes is not None:
            bases["bases from"] = ("source_primes, target_primes (prime_bits, source_limbs, "
                                   "target_limbs, prime_n unused)")
        return bases
