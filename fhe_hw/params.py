"""Parameters shared by the golden models and the hardware: moduli, roots of unity, RNS bases
and every precomputed constant.

Everything here is computed in Python at elaboration time. The same functions feed the models in
:mod:`fhe_hw.model` and the hardware generators, so constants cannot drift apart.

Sources (``../shared/papers``):

* [Cao14] §2.2 (Integer-FFT parameters, condition on b), Table 2 (the four
  Integer-FFT moduli), Algorithm 2 (Barrett constants α, β).
* [Kir25] eq. 2.2 (NTT-friendly primes q ≡ 1 mod 2N), Algorithms 1–4 and
  Tables 3.1, 4.1, 4.3 (CRT precomputations), eqs 2.15–2.18 (Kawamura error bound), Algorithm 7
  (word-level Montgomery).

Number theory (primality, factorisation, generators) comes from SymPy; modular inverses from
Python's ``pow(x, -1, m)``.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from math import gcd, prod

import sympy

from .cliargs import parse_integer

__all__ = [
    "Modulus", "MODULI", "get_modulus", "modulus_spec", "parse_integer", "NTTParams", "ntt_params",
    "solinas_ntt_params",
    "ROOT_CONVENTIONS", "smallest_primitive_root", "convention_root", "wang_huang_root",
    "shift_exponent",
    "b_bound_holds", "max_digit_bits", "check_digit_bits",
    "require_power_of_two", "require_int", "check_bool", "ntt_primes",
    "openfhe_primes", "check_coprime",
    "RNSBase", "FastBaseConversionConstants", "ShenoyKumaresanConstants",
    "KawamuraConstants", "MixedRadixConstants",
    "BarrettConstants", "barrett_constants", "MontgomeryConstants", "montgomery_constants",
]


# --- small validation helpers -----------------------------------------------------------------

def require_int(name, value, *, minimum=None, maximum=None):
    """Return ``value`` if it is an ``int`` (not ``bool``) in ``[minimum, maximum]``; raise
    otherwise."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, not {value!r}")
    return value


def check_bool(name, value):
    """Return ``value`` if it is a ``bool``; raise ``TypeError`` otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {value!r}")
    return value


def require_power_of_two(name, value, *, minimum=1, maximum=None):
    """Return ``value`` if it is a power of two in ``[minimum, maximum]``; raise ``ValueError``
    otherwise."""
    require_int(name, value)
    if value < 1 or value & (value - 1):
        raise ValueError(f"{name} must be a power of two, not {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be a power of two of at least {minimum}, not {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, not {value!r}")
    return value


# --- moduli -------------------------------------------------------------------------------------

#: Composite moduli up to this many bits are factored completely (well under a second).
FACTOR_BITS = 100

@dataclass(frozen=True)
class Modulus:
    """An NTT / Integer-FFT modulus.

    ``value`` is the modulus p; ``name`` its registered name (or ``None``); ``root_base`` the
    element from which primitive roots are derived ([Cao14] Table 2's ω column): for a prime p a
    primitive k-th root is ``root_base ** ((p - 1) // k)``; for the Fermat-type composites
    2^(m-1)+1 the base is 2, which has exact order 2(m-1), and the k-th root is
    ``2 ** (2(m-1) // k)`` so twiddles stay shifts. ``table_k`` and ``table_b`` are the FFT size
    and digit width that [Cao14] Table 2 uses with this modulus.
    """

    value: int
    name: str = None
    root_base: int = None
    table_k: int = None
    table_b: int = None

    def __post_init__(self):
        require_int("modulus", self.value)
        if self.value < 3:
            raise ValueError(f"modulus must be at least 3, not {self.value!r}")
        if self.value % 2 == 0:
            raise ValueError(f"modulus must be odd, not {self.value!r}")

    def __int__(self):
        return self.value

    def __str__(self):
        return f"{self.name} ({self.value:#x})" if self.name else str(self.value)

    @property
    def bits(self):
        """m: the bit length of p ([Cao14] Table 2's m column)."""
        return self.value.bit_length()

    @cached_property
    def factors(self):
        """Prime factorisation ``{q_i: e_i}`` of p. A composite p is factored completely up to
        :data:`FACTOR_BITS` bits (under a second); above that only small prime factors are
        divided out, and a composite cofactor raises ``ValueError`` rather than searching for
        minutes."""
        if sympy.isprime(self.value):
            return {self.value: 1}
        if self.value.bit_length() <= FACTOR_BITS:
            return dict(sympy.factorint(self.value))
        found = sympy.factorint(self.value, limit=1 << 16, use_rho=False, use_pm1=False,
                                use_ecm=False)
        rest = [q for q in found if not sympy.isprime(q)]
        if rest:
            raise ValueError(f"modulus must be prime, or composite with all but one prime factor "
                             f"below 2^16, when it has more than {FACTOR_BITS} bits; "
                             f"{self.value} leaves a composite factor of {rest[0].bit_length()} "
                             f"bits")
        return {int(q): e for q, e in found.items()}

    @property
    def is_prime(self):
        return sympy.isprime(self.value)

    @property
    def is_special(self):
        """True when p = 2^(m-1) + 1 ([Cao14] §3.3, Fig. 3b)."""
        return self.value == (1 << (self.bits - 1)) + 1

    @property
    def is_solinas64(self):
        """True when p = 2^64 - 2^32 + 1 ([Cao14] Fig. 3c, [Wang13] eq. 3)."""
        return self.value == SOLINAS64

    @property
    def kind(self):
        """``"special"``, ``"solinas"`` or ``"general"``: which reducer suits this modulus."""
        if self.is_special:
            return "special"
        if self.is_solinas64:
            return "solinas"
        return "general"

    def max_k(self):
        """Largest power of two dividing q_i - 1 for every prime factor q_i of p."""
        return min(1 << (((q - 1) & -(q - 1)).bit_length() - 1) for q in self.factors)

    def check_k(self, k, name="k"):
        """Raise ``ValueError`` unless k is a power of two dividing q_i - 1 for every prime q_i | p
        ([Cao14] §2.2); the message calls k ``name``."""
        require_power_of_two(name, k, minimum=2)
        for q in sorted(self.factors):
            if (q - 1) % k:
                raise ValueError(
                    f"{name} must divide q - 1 for every prime factor q of the modulus "
                    f"{self.value}; {name} = {k} does not divide {q} - 1 = {q - 1}")
        return k

    def require_prime(self, what="modulus"):
        if not self.is_prime:
            raise ValueError(f"{what} must be prime, not the composite {self.value} = "
                             + " * ".join(f"{q}^{e}" if e > 1 else str(q)
                                          for q, e in sorted(self.factors.items())))
        return self

    def root_of_unity(self, k):
        """A primitive (principal) k-th root of unity ω modulo p.

        Named moduli derive ω from ``root_base`` as [Cao14] Table 2 does; a plain prime uses its
        smallest generator. The result is checked: ω^k = 1 and ω^(k/2) - 1 is a unit mod p, which
        makes ω principal so that the inverse transform exists even for composite p.
        """
        self.check_k(k)
        p = self.value
        if self.is_special and self.root_base in (None, 2) and (2 * (self.bits - 1)) % k == 0:
            w = pow(2, 2 * (self.bits - 1) // k, p)
        elif self.is_prime:
            g = self.root_base if self.root_base is not None else sympy.primitive_root(p)
            w = pow(g, (p - 1) // k, p)
        else:
            # CRT-combine a primitive k-th root modulo each prime power factor.
            parts = []
            for q, e in self.factors.items():
                qe = q ** e
                g = sympy.primitive_root(qe)
                parts.append((pow(g, (q - 1) * q ** (e - 1) // k, qe), qe))
            w = int(sympy.ntheory.modular.crt([m for _, m in parts], [r for r, _ in parts])[0])
        if pow(w, k, p) != 1 or gcd(pow(w, k // 2, p) - 1, p) != 1:
            raise ValueError(f"root_base {self.root_base!r} does not give a primitive {k}-th root "
                             f"of unity modulo {p}")
        return w


SOLINAS64 = (1 << 64) - (1 << 32) + 1

#: The four Integer-FFT moduli of [Cao14] Table 2, by name.
MODULI = {
    "fermat32": Modulus((1 << 32) + 1, "fermat32", root_base=2, table_k=64, table_b=8),
    "fermat64": Modulus((1 << 64) + 1, "fermat64", root_base=2, table_k=128, table_b=24),
    "solinas64": Modulus(SOLINAS64, "solinas64", root_base=7, table_k=128, table_b=28),
    "general32": Modulus((1 << 32) - (1 << 20) + 1, "general32", root_base=17, table_k=64,
                         table_b=12),
}


def get_modulus(spec):
    """Return a :class:`Modulus` for a registered name, a string of ASCII decimal digits or
    ``0x`` hex (:func:`modulus_spec`), an int or a ``Modulus``."""
    if isinstance(spec, Modulus):
        return spec
    if isinstance(spec, str):
        spec = modulus_spec(spec)
    if isinstance(spec, str):
        return MODULI[spec]
    if isinstance(spec, int) and not isinstance(spec, bool):
        for m in MODULI.values():
            if m.value == spec:
                return m
        return Modulus(spec)
    raise TypeError(f"modulus must be a name, an integer or a Modulus, not {spec!r}")


def modulus_spec(text):
    """A modulus as written on a command line or in a data file: a name of :data:`MODULI`
    (returned as it is) or an integer in ASCII decimal digits or ``0x`` hex (returned as an
    ``int``, so that what is recorded is the value, not the text); ``ValueError`` otherwise."""
    if text in MODULI:
        return text
    try:
        return parse_integer(text)
    except ValueError:
        raise ValueError(f"modulus must be one of {', '.join(MODULI)} or an integer (ASCII "
                         f"decimal digits or 0x hex), not {text!r}") from None


modulus_spec.__name__ = "modulus"   # argparse: "invalid modulus value: ..."


# --- Integer-FFT / NTT parameters ---------------------------------------------------------------

def b_bound_holds(p, k, b):
    """[Cao14] §2.2: digits of b bits fit when k·(2^b - 1)^2 / 2 < p."""
    return k * ((1 << b) - 1) ** 2 < 2 * int(p)


def max_digit_bits(p, k):
    """The largest b with k·(2^b - 1)^2 / 2 < p."""
    b = 0
    while b_bound_holds(p, k, b + 1):
        b += 1
    return b


def check_digit_bits(p, k, b):
    require_int("b", b, minimum=1, maximum=int(p).bit_length())
    if not b_bound_holds(p, k, b):
        raise ValueError(f"b must satisfy k(2^b-1)^2/2 < p; b = {b} is too large for k = {k} and "
                         f"p = {int(p)} (largest is {max_digit_bits(p, k)})")
    return b


#: The root-of-unity conventions of :func:`ntt_params` (``root=``), by name.
ROOT_CONVENTIONS = {
    "generator": "g^((q-1)/k) for the modulus's generator g: its root_base, else the smallest "
                 "generator (fhe_hw's default; [Cao14] Table 2's roots for the named moduli)",
    "openfhe": "the smallest primitive k-th root of unity mod q, as OpenFHE's RootOfUnity "
               "chooses it (ILNativeParams(2n, q) takes the smallest primitive 2n-th root psi); "
               "prime moduli only",
    "wang-huang": "[Wang13]'s family over solinas64 (2^64 - 2^32 + 1) only: omega_64 = 8, "
                  "omega_16 = 4096, anchored at the 128th root 2^25 - 2^73 (the four-step "
                  "units' default)",
}


def _check_convention(root):
    if root not in ROOT_CONVENTIONS:
        raise ValueError(f"root must be one of {', '.join(ROOT_CONVENTIONS)}, not {root!r}")
    return root


@cache
def _smallest_primitive_root(p, order):
    r = pow(sympy.primitive_root(p), (p - 1) // order, p)
    best, x, r2 = r, r, r * r % p
    for _ in range(order // 2 - 1):      # r^3, r^5, ...: every primitive order-th root
        x = x * r2 % p
        best = min(best, x)
    return best


def smallest_primitive_root(modulus, order):
    """The smallest primitive ``order``-th root of unity modulo the prime ``modulus`` (``order``
    a power of two dividing q - 1): OpenFHE's ``RootOfUnity(order, q)``, which takes one
    primitive root r and returns the least of r^j over the j coprime to ``order`` (here the odd
    j). Raises ``ValueError`` for a composite modulus or an order that does not divide q - 1."""
    m = get_modulus(modulus)
    if not m.is_prime:
        raise ValueError(f"root openfhe needs a prime modulus (OpenFHE's RootOfUnity), not the "
                         f"composite {m.value}")
    m.check_k(order)
    return _smallest_primitive_root(m.value, order)


_MAX_SOLINAS_ORDER = 1 << 32                        # p - 1 = 2^32·(2^32 - 1)
_ROOT_128 = ((1 << 25) - (1 << 73)) % SOLINAS64     # a square root of 8


@cache
def wang_huang_root(n):
    """ω_n, a primitive n-th root of unity mod p = 2^64 - 2^32 + 1 for n a power of two up to
    2^32, from one consistent family: ω_n^(n/m) = ω_m, anchored at ω_128 = 2^25 - 2^73, so
    ω_64 = 8 and ω_16 = 4096 ([Wang13] §III-B) and the composite transforms (eqs 7–8) agree with
    them (the convention ``root="wang-huang"``). Raises ``ValueError`` for another n."""
    require_int("n", n, minimum=1)
    if n & (n - 1) or n > _MAX_SOLINAS_ORDER:
        raise ValueError(f"n must be a power of two of at most 2^32, not {n!r}")
    top = pow(MODULI["solinas64"].root_base, (SOLINAS64 - 1) // _MAX_SOLINAS_ORDER, SOLINAS64)
    z = pow(top, _MAX_SOLINAS_ORDER // 128, SOLINAS64)          # a primitive 128th root
    t = next(t for t in range(1, 128, 2) if pow(z, t, SOLINAS64) == _ROOT_128)
    return pow(top, t * (_MAX_SOLINAS_ORDER // n), SOLINAS64)


def shift_exponent(omega):
    """e in [0, 192) with 2^e ≡ ω (mod 2^64 - 2^32 + 1): a shift-only unit multiplies by ω with
    a rotation of e bits (2 has order 192). Every root of unity of order up to 64 has one, as
    the primitive 64th roots are the odd powers of 8 = 2^3, so every primitive n-th root's
    power of order m ≤ 64 does; ``ValueError`` for a value that is no power of two."""
    require_int("omega", omega, minimum=0)
    for e in range(192):
        if pow(2, e, SOLINAS64) == omega:
            return e
    raise ValueError(f"omega must be a power of two mod 2^64 - 2^32 + 1 for a shift-only unit, "
                     f"not {omega}")


def convention_root(modulus, order, root="generator"):
    """The primitive ``order``-th root of unity that the convention ``root``
    (:data:`ROOT_CONVENTIONS`) picks modulo ``modulus``."""
    root = _check_convention(root)
    if root == "openfhe":
        return smallest_primitive_root(modulus, order)
    m = get_modulus(modulus)
    if root == "wang-huang":
        if not m.is_solinas64:
            raise ValueError(f"root wang-huang is [Wang13]'s family over 2^64 - 2^32 + 1 "
                             f"(solinas64), not modulo {m.value}")
        m.check_k(order)
        return wang_huang_root(order)
    return m.root_of_unity(order)


def _check_root(name, value, p, order):
    """``value`` if it is a primitive (principal) ``order``-th root of unity mod p: value^(order/2)
    ≡ -1 (for ψ), or value^order ≡ 1 with value^(order/2) - 1 a unit (for ω); raise otherwise."""
    require_int(name, value)
    half = order // 2
    if name == "psi":
        ok, rule = 0 < value < p and pow(value, half, p) == p - 1, f"psi^{half} ≡ -1"
    else:
        ok = 0 < value < p and pow(value, order, p) == 1 and gcd(pow(value, half, p) - 1, p) == 1
        rule = f"omega^{order} ≡ 1 and omega^{half} - 1 invertible"
    if not ok:
        raise ValueError(f"{name} must be a primitive {order}-th root of unity mod q = {p} "
                         f"(an integer in [1, q) with {rule}), not {value}")
    return value


@dataclass(frozen=True)
class NTTParams:
    """A validated k-point transform modulo p: ω, ω^-1, k^-1 and, when 2k | q_i - 1 for all
    prime factors, ψ (a primitive 2k-th root with ψ^2 = ω) for the negacyclic transform."""

    modulus: Modulus
    k: int
    omega: int
    omega_inv: int
    k_inv: int
    psi: int = None
    psi_inv: int = None

    @property
    def p(self):
        return self.modulus.value

    @property
    def log_k(self):
        return self.k.bit_length() - 1


def ntt_params(modulus, k, *, negacyclic=False, root=None, psi=None, omega=None):
    """Validate (modulus, k) and return :class:`NTTParams`.

    The transform's root is ψ (``negacyclic=True``: a primitive 2k-th root, and ω = ψ^2, so that
    the cyclic and negacyclic transforms of the same parameters agree) or ω (a primitive k-th
    root). It is ``psi`` or ``omega`` when given (checked: ``ValueError`` naming it unless it is
    primitive of that order), else the one the convention ``root`` picks
    (:data:`ROOT_CONVENTIONS`; default ``"generator"``, what fhe_hw has always used)."""
    m = get_modulus(modulus)
    m.check_k(k)
    p = m.value
    name, given, other = ("psi", psi, omega) if negacyclic else ("omega", omega, psi)
    if other is not None:
        kind = "cyclic" if negacyclic else "negacyclic"
        raise ValueError(f"{'omega' if negacyclic else 'psi'} is the root of a {kind} transform; "
                         f"this one takes {name}")
    if given is not None and root is not None:
        raise ValueError(f"root must be left out when {name} is given (it picks {name})")
    root = _check_convention("generator" if root is None else root)
    order = 2 * k if negacyclic else k
    if negacyclic and m.max_k() < 2 * k:
        raise ValueError(f"k must satisfy 2k | q - 1 for every prime factor q of {p} for a "
                         f"negacyclic transform; k = {k} is too large (largest is "
                         f"{m.max_k() // 2})")
    w = _check_root(name, given, p, order) if given is not None else \
        convention_root(m, order, root)
    psi_inv = None
    if negacyclic:
        psi, psi_inv, omega = w, pow(w, -1, p), w * w % p
    else:
        omega = w
    return NTTParams(m, k, omega, pow(omega, -1, p), pow(k, -1, p), psi, psi_inv)


def solinas_ntt_params(n, *, negacyclic=False, root=None, psi=None, omega=None):
    """:func:`ntt_params` of the n-point transform over 2^64 - 2^32 + 1 of the shift-only
    engines (the four-step NTTs, :class:`~fhe_hw.ntt.ShiftNTT`), whose root defaults to the
    convention ``"wang-huang"`` ([Wang13]'s ω_64 = 8). Every primitive root is accepted: its
    powers of order up to 64, which the shift units multiply by, are powers of two
    (:func:`shift_exponent`)."""
    if (root, psi, omega) == (None, None, None):
        root = "wang-huang"
    return ntt_params(SOLINAS64, n, negacyclic=negacyclic, root=root, psi=psi, omega=omega)


# --- NTT-friendly prime bases -------------------------------------------------------------------

def ntt_primes(bits, n, count, *, exclude=()):
    """``count`` distinct primes q of exactly ``bits`` bits with q ≡ 1 (mod 2n) ([Kir25] eq. 2.2),
    returned in ascending order.

    The primes are the largest such below 2^bits, which keeps them close to 2^r as Kawamura's
    error bound wants ([Kir25] eq. 2.17). ``exclude`` removes primes already used by another base.
    """
    require_int("bits", bits, minimum=2)
    require_power_of_two("n", n)
    require_int("count", count, minimum=1)
    step = 2 * n
    q = ((1 << bits) - 1) // step * step + 1
    if q >= 1 << bits:
        q -= step
    found = []
    excluded = set(int(e) for e in exclude)
    while len(found) < count:
        if q < 1 << (bits - 1):
            raise ValueError(f"bits = {bits} has only {len(found)} primes q ≡ 1 mod 2n for "
                             f"n = {n}; asked for count = {count}")
        if q not in excluded and sympy.isprime(q):
            found.append(q)
        q -= step
    return sorted(found)


def openfhe_primes(bits, n, count):
    """The ``count`` primes OpenFHE gives a ``DCRTPoly`` of ring degree ``n`` whose towers are
    ``bits`` wide, in its tower order: ``LastPrime(bits, 2n)``, the largest prime q ≡ 1 (mod 2n)
    below 2^bits, then each ``PreviousPrime(q, 2n)`` below it. The same primes as
    :func:`ntt_primes`, descending."""
    return tuple(reversed(ntt_primes(bits, n, count)))


# --- RNS bases and CRT precomputations ([Kir25] Tables 3.1, 4.1, 4.3)
# -------------------------------

def check_coprime(name, moduli):
    """Raise ``ValueError`` naming ``name`` and the first two of ``moduli`` that share a
    factor, unless they are pairwise coprime."""
    for i, a in enumerate(moduli):
        for b in moduli[i + 1:]:
            if gcd(a, b) != 1:
                raise ValueError(f"{name} must be pairwise coprime; {a} and {b} share the factor "
                                 f"{gcd(a, b)}")


@dataclass(frozen=True)
class RNSBase:
    """An RNS base Q = {q_0, ..., q_{l-1}} of pairwise coprime moduli (003 Theorem 2.1)."""

    moduli: tuple

    def __post_init__(self):
        if not isinstance(self.moduli, (tuple, list)) or not self.moduli:
            raise ValueError(f"moduli must be a non-empty sequence, not {self.moduli!r}")
        for q in self.moduli:
            require_int("RNS modulus", q, minimum=2)
        object.__setattr__(self, "moduli", tuple(int(q) for q in self.moduli))
        check_coprime("RNS moduli", self.moduli)

    def __len__(self):
        return len(self.moduli)

    def __iter__(self):
        return iter(self.moduli)

    def __getitem__(self, i):
        return self.moduli[i]

    @cached_property
    def Q(self):
        return prod(self.moduli)

    @cached_property
    def Q_hat(self):
        """Q̂_i = Q / q_i."""
        return tuple(self.Q // q for q in self.moduli)

    @cached_property
    def Q_hat_inv(self):
        """|Q̂_i^-1|_{q_i}."""
        return tuple(pow(qh % q, -1, q) for qh, q in zip(self.Q_hat, self.moduli))

    @property
    def word_bits(self):
        """r: the bit width of the widest modulus."""
        return max(q.bit_length() for q in self.moduli)

    def residues(self, a):
        """The residues of the integer ``a`` in this base."""
        return tuple(a % q for q in self.moduli)

    def reconstruct(self, residues):
        """Exact CRT reconstruction ([Kir25] eq. 2.4) of the integer in [0, Q)."""
        return sum(r * qhi % q * qh for r, qhi, q, qh in
                   zip(residues, self.Q_hat_inv, self.moduli, self.Q_hat)) % self.Q


def _as_base(name, moduli):
    if isinstance(moduli, RNSBase):
        return moduli
    try:
        return RNSBase(tuple(moduli))
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def _check_disjoint(source, target):
    check_coprime("source and target moduli", tuple(source) + tuple(target))


@dataclass(frozen=True)
class FastBaseConversionConstants:
    """[Kir25] Algorithm 1 precomputations: |Q̂_i^-1|_{q_i} and |Q̂_i|_{p_j}."""

    source: RNSBase
    target: RNSBase
    Q_hat_inv: tuple    # [i]
    Q_hat_mod_p: tuple  # [j][i]

    @classmethod
    def build(cls, source, target):
        source, target = _as_base("source", source), _as_base("target", target)
        _check_disjoint(source, target)
        return cls(source, target, source.Q_hat_inv,
                   tuple(tuple(qh % p for qh in source.Q_hat) for p in target))


@dataclass(frozen=True)
class ShenoyKumaresanConstants:
    """[Kir25] Algorithm 2 / Table 3.1 precomputations for source Q, redundant q_l and target P.

    ``Q_hat_inv[i]`` = |Q̂_i^-1|_{q_i} (l terms), ``Q_hat_mod_p[j][i]`` = |Q̂_i|_{p_j} (l·k),
    ``Q_hat_mod_ql[i]`` = |Q̂_i|_{q_l} (l), ``Q_inv_mod_ql`` = |Q^-1|_{q_l} (1),
    ``Q_mod_p[j]`` = |Q|_{p_j} (k).
    """

    source: RNSBase
    target: RNSBase
    redundant: int
    Q_hat_inv: tuple
    Q_hat_mod_p: tuple
    Q_hat_mod_ql: tuple
    Q_inv_mod_ql: int
    Q_mod_p: tuple

    @classmethod
    def build(cls, source, target, redundant):
        source, target = _as_base("source", source), _as_base("target", target)
        _check_disjoint(source, target)
        require_int("redundant", redundant, minimum=2)
        if redundant <= len(source):
            raise ValueError(f"redundant modulus q_l must be greater than l = {len(source)} "
                             f"([Kir25] §2.5.1.2), not {redundant!r}")
        check_coprime("source, target and redundant moduli",
                       tuple(source) + tuple(target) + (redundant,))
        ql = redundant
        return cls(source, target, ql, source.Q_hat_inv,
                   tuple(tuple(qh % p for qh in source.Q_hat) for p in target),
                   tuple(qh % ql for qh in source.Q_hat),
                   pow(source.Q % ql, -1, ql),
                   tuple(source.Q % p for p in target))

    @property
    def term_counts(self):
        """Number of stored terms per Table 3.1 row."""
        l, k = len(self.source), len(self.target)
        return {"Q_hat_inv": l, "Q_hat_mod_p": l * k, "Q_hat_mod_ql": l, "Q_inv_mod_ql": 1,
                "Q_mod_p": k}


@dataclass(frozen=True)
class KawamuraConstants:
    """[Kir25] Algorithm 3 / Table 4.1 precomputations and the error-bound check (eqs 2.15–2.18).

    r is the bit width of the source moduli (division by q_i approximated by 2^r), ρ (``rho``)
    the number of most significant bits of ξ kept by TRUNC, δ (``delta``, a ``Fraction`` in
    [0, 1), rounded up to a multiple of 2^-ρ as the Cox unit's ρ-bit accumulator holds it) the
    initial offset. ``epsilon`` = ε_Q = max (2^r - q_i)/2^r and ``lam`` = λ_Q, the
    worst case of (ξ - TRUNC(ξ))/q_i = (2^(r-ρ) - 1)/q_i. Construction requires
    l·(ε_Q + λ_Q) ≤ δ < 1 (Kawamura et al. 2000, Theorem 1, as restated in [Kir25] §2.5.1.3);
    base extension is then exact for 0 ≤ A < (1 - δ)·Q (``max_input``).

    ``centred=True`` (δ = 1/2, ``delta`` omitted or 1/2) rounds α to nearest instead: the result
    is then the centred lift of every 0 ≤ X < Q (X, or X − Q when 2X ≥ Q) mod p_j, as OpenFHE's
    ``SwitchCRTBasis`` returns it, except for ⌈Q/2⌉ ≤ X < Q/2 + D with D = l·(ε_Q + λ_Q)·Q
    (:attr:`centred_distance`), where it is X or X − Q mod p_j (docs/rns.md proves it). The
    check is the same, l·(ε_Q + λ_Q) ≤ 1/2.
    """

    source: RNSBase
    target: RNSBase
    r: int
    rho: int
    delta: Fraction
    epsilon: Fraction
    lam: Fraction
    Q_hat_inv: tuple
    Q_hat_mod_p: tuple
    minus_Q_mod_p: tuple
    centred: bool = False

    @classmethod
    def build(cls, source, target, rho, delta=None, *, centred=False):
        source, target = _as_base("source", source), _as_base("target", target)
        _check_disjoint(source, target)
        r = source.word_bits
        require_int("rho", rho, minimum=1)
        if rho > r:
            raise ValueError(f"rho must be at most r = {r} bits, not {rho!r}")
        check_bool("centred", centred)
        if centred:
            if delta is not None and delta != Fraction(1, 2):
                raise ValueError(f"delta must be 1/2 (or left out) with centred, not {delta}")
            delta = Fraction(1, 2)
        elif delta is None:
            raise TypeError("delta must be given unless centred is true")
        if isinstance(delta, float):
            delta = Fraction(delta).limit_denominator(1 << 64)
        if not isinstance(delta, (int, Fraction)) or isinstance(delta, bool):
            raise TypeError(f"delta must be a Fraction, int or float, not {delta!r}")
        delta = Fraction(delta)
        if not 0 <= delta < 1:
            raise ValueError(f"delta must be in [0, 1), not {delta}")
        l = len(source)
        epsilon = max(Fraction((1 << r) - q, 1 << r) for q in source)
        lam = max(Fraction((1 << (r - rho)) - 1, q) for q in source)
        bound = l * (epsilon + lam)
        if not bound <= delta:
            raise ValueError(
                f"Kawamura error bound violated: l·(ε_Q + λ_Q) = {float(bound):.6g} must be at "
                f"most delta = {float(delta):.6g} < 1 (l = {l}, r = {r}, rho = {rho}, "
                f"ε_Q = {float(epsilon):.3g}, λ_Q = {float(lam):.3g}); use moduli closer to 2^r, "
                f"a larger rho or a larger delta")
        # The Cox unit holds δ as a ρ-bit fraction: snap δ up to that grid (keeps the bound).
        delta = Fraction(-((-delta.numerator << rho) // delta.denominator), 1 << rho)
        if delta >= 1:
            raise ValueError(f"delta must be at most 1 - 2^-rho = {1 - Fraction(1, 1 << rho)} "
                             f"once rounded up to rho = {rho} fractional bits")
        return cls(source, target, r, rho, delta, epsilon, lam, source.Q_hat_inv,
                   tuple(tuple(qh % p for qh in source.Q_hat) for p in target),
                   tuple(-source.Q % p for p in target), centred)

    @property
    def max_input(self):
        """Exclusive bound on the inputs: (1 - δ)·Q, as an integer ceiling, below which they
        extend exactly; Q in the centred mode (every input, see :attr:`centred_window`)."""
        bound = self.source.Q if self.centred else (1 - self.delta) * self.source.Q
        return -((-bound.numerator) // bound.denominator)

    @property
    def centred_distance(self):
        """D = l·(ε_Q + λ_Q)·Q (a ``Fraction``): in the centred mode the result is the centred
        lift of every X except ⌈Q/2⌉ ≤ X < Q/2 + D."""
        return len(self.source) * (self.epsilon + self.lam) * self.source.Q

    @property
    def centred_window(self):
        """``range`` of the inputs X whose centred-mode result may be X mod p_j instead of the
        centred lift (X − Q) mod p_j: ⌈Q/2⌉ ≤ X < Q/2 + D; empty outside the centred mode."""
        if not self.centred:
            return range(0)
        Q, end = self.source.Q, self.source.Q / Fraction(2) + self.centred_distance
        return range((Q + 1) // 2, -((-end.numerator) // end.denominator))

    @property
    def delta_fixed(self):
        """δ as a ρ-bit fixed-point integer (the Cox unit's initial accumulator); δ is stored
        already rounded up to that grid, so this is exact."""
        return int(self.delta * (1 << self.rho))


@dataclass(frozen=True)
class MixedRadixConstants:
    """[Kir25] Algorithm 4 / Table 4.3 precomputations: ``q_inv[s][u]`` = |q_s^-1|_{q_u} for s < u,
    ``q_inv_mod_p[j][s]`` = |q_s^-1|_{p_j}, ``Q_mod_p[j]`` = |Q|_{p_j}. The source moduli must
    be in ascending order ([Kir25] eq. 2.30).

    ``centred=True``: the conversion returns the centred lift (X, or X − Q when 2X >= Q) mod
    p_j, as OpenFHE's ``SwitchCRTBasis``; ``half_digits[s]`` = (q_s − 1)/2 are the mixed-radix
    digits of (Q − 1)/2, with which the digits of X compare (docs/rns.md).
    """

    source: RNSBase
    target: RNSBase
    q_inv: tuple
    q_inv_mod_p: tuple
    Q_mod_p: tuple
    centred: bool = False

    @property
    def half_digits(self):
        """(q_s − 1)/2: the mixed-radix digits of (Q − 1)/2 = Σ_s (q_s − 1)/2·Π_{i<s} q_i."""
        return tuple((q - 1) // 2 for q in self.source)

    @classmethod
    def build(cls, source, target, *, centred=False):
        source, target = _as_base("source", source), _as_base("target", target)
        _check_disjoint(source, target)
        check_bool("centred", centred)
        if centred and source.Q % 2 == 0:
            raise ValueError(f"centred needs odd source moduli (Q odd, no tie at Q/2), not "
                             f"{tuple(source)!r}")
        if any(a >= b for a, b in zip(source, source[1:])):
            raise ValueError(f"source moduli must be in ascending order for mixed-radix "
                             f"conversion ([Kir25] eq. 2.30), not {tuple(source)!r}")
        qs = tuple(source)
        return cls(source, target,
                   tuple(tuple(pow(qs[s], -1, qs[u]) if u > s else None for u in range(len(qs)))
                         for s in range(len(qs))),
                   tuple(tuple(pow(q, -1, p) for q in qs) for p in target),
                   tuple(source.Q % p for p in target), centred)


# --- Barrett ([Cao14] Algorithm 2)
# ------------------------------------------------------------------

@dataclass(frozen=True)
class BarrettConstants:
    """[Cao14] Algorithm 2: p of m bits, inputs of 2m bits, σ̂ = ⌊⌊x/2^(m+β)⌋·μ / 2^(α-β)⌋ with
    μ = ⌊2^(m+α)/p⌋. With β < -2 and α > m one final subtraction suffices (Dhem)."""

    p: int
    m: int
    alpha: int
    beta: int
    mu: int

    @property
    def mu_bits(self):
        return self.mu.bit_length()


def barrett_constants(modulus, alpha=None, beta=None):
    """Barrett constants for ``modulus``; α defaults to m + 4 and β to -4 ([Cao14] §3.3)."""
    p = int(get_modulus(modulus))
    m = p.bit_length()
    alpha = m + 4 if alpha is None else require_int("alpha", alpha, maximum=4 * m)
    beta = -4 if beta is None else require_int("beta", beta)
    if alpha <= m:
        raise ValueError(f"alpha must be greater than m = {m} ([Cao14] Algorithm 2), not {alpha!r}")
    if beta >= -2:
        raise ValueError(f"beta must be less than -2 ([Cao14] Algorithm 2), not {beta!r}")
    if m + beta < 0:
        raise ValueError(f"beta must be at least -m = {-m}, not {beta!r}")
    return BarrettConstants(p, m, alpha, beta, (1 << (m + alpha)) // p)


# --- word-level Montgomery ([Kir25] Algorithm 7)
# -----------------------------------------------------

@dataclass(frozen=True)
class MontgomeryConstants:
    """[Kir25] Algorithm 7 (Mert et al. 2020): q of r bits with q ≡ 1 (mod 2^w), ν = ⌈r/w⌉ rounds,
    q_H = q >> w. The reduction returns a·2^(-wν) mod q; ``R`` = 2^(wν)."""

    q: int
    r: int
    word: int
    nu: int
    q_high: int
    R: int
    R_mod_q: int
    R2_mod_q: int
    R_inv: int

    def to_montgomery(self, a):
        """a·R mod q: pre-scale a constant so that a Montgomery product returns a plain one."""
        return a * self.R_mod_q % self.q


def montgomery_constants(modulus, word):
    q = int(get_modulus(modulus))
    require_int("word", word, minimum=1)
    r = q.bit_length()
    if word >= r:
        raise ValueError(f"word must be smaller than the {r}-bit modulus, not {word!r}")
    if q % (1 << word) != 1:
        raise ValueError(f"modulus must satisfy q ≡ 1 (mod 2^word) for word = {word}; "
                         f"{q} mod 2^{word} = {q % (1 << word)}")
    nu = -(-r // word)
    R = 1 << (word * nu)
    return MontgomeryConstants(q, r, word, nu, q >> word, R, R % q, R * R % q, pow(R, -1, q))
