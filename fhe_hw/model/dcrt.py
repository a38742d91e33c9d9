"""Golden model of OpenFHE's RNS polynomial (``DCRTPoly``): a polynomial of ring degree n mod
x^n + 1 held as L *towers* (limbs), tower j its residues mod its own prime q_j, stored
tower-major (tower 0's n coefficients, then tower 1's ...), as OpenFHE keeps it.

OpenFHE's ``SwitchFormat`` turns every tower from coefficient to evaluation form with the
negacyclic NTT of that tower's prime and the root OpenFHE picks for it (the ``"openfhe"``
convention of :func:`fhe_hw.params.convention_root`), and back. In fhe_hw's terms, a tower's
forward transform is :func:`fhe_hw.model.ntt.ntt_radix2` (negacyclic, natural order in,
bit-reversed out: OpenFHE's ``ForwardTransformToBitReverse``), its inverse the same function's
inverse. A product in evaluation form is the point-wise product of each tower mod its prime.

OpenFHE's ``ExpandCRTBasis`` extends a polynomial in coefficient form from the base Q of its
towers to Q ∪ B: each coefficient's residues give one integer X in [0, Q) by the Chinese
remainder theorem, ``SwitchCRTBasis`` takes its centred representative (X − Q when 2X >= Q) mod
each prime of B, and those towers follow Q's (:func:`dcrt_extend`).

The tests check this model against plain big integers (the schoolbook negacyclic product of
each tower) and against OpenFHE's own words (``tests/test_openfhe_interop.py``).
"""

from ..params import RNSBase, ntt_params
from .ntt import ntt_radix2

__all__ = ["tower_params", "dcrt_ntt", "dcrt_pointwise", "dcrt_product", "schoolbook_product",
           "dcrt_extend"]


def tower_params(n, primes):
    """The :class:`~fhe_hw.params.NTTParams` of each tower: the negacyclic n-point transform mod
    that tower's prime with OpenFHE's root."""
    return [ntt_params(q, n, negacyclic=True, root="openfhe") for q in primes]


def _towers(name, towers, primes):
    towers = [list(t) for t in towers]
    if len(towers) != len(primes):
        raise ValueError(f"{name} must have one tower per prime ({len(primes)}), not "
                         f"{len(towers)}")
    for j, (t, q) in enumerate(zip(towers, primes)):
        if any(not 0 <= v < q for v in t):
            raise ValueError(f"{name}[{j}] must hold residues mod {q}")
    return towers


def dcrt_ntt(towers, primes, inverse=False):
    """Each tower's negacyclic NTT (``inverse``: its inverse) mod its prime, OpenFHE's
    ``SwitchFormat`` of a ``DCRTPoly`` (coefficient to evaluation form; ``inverse``: back)."""
    towers = _towers("towers", towers, primes)
    n = len(towers[0])
    return [ntt_radix2(t, params, inverse, negacyclic=True)
            for t, params in zip(towers, tower_params(n, primes))]


def dcrt_pointwise(a, b, primes):
    """The point-wise product of two ``DCRTPoly`` in evaluation form, tower by tower."""
    a, b = _towers("a", a, primes), _towers("b", b, primes)
    return [[x * y % q for x, y in zip(s, t)] for s, t, q in zip(a, b, primes)]


def dcrt_product(a, b, primes, *, b_evaluated=False):
    """a·b mod x^n + 1 in every tower, as the product unit computes it: the forward transforms
    of a and b (of a only when ``b_evaluated``: b is already in evaluation form, as OpenFHE
    keeps keys), the point-wise product, the inverse transform."""
    b_eval = b if b_evaluated else dcrt_ntt(b, primes)
    return dcrt_ntt(dcrt_pointwise(dcrt_ntt(a, primes), b_eval, primes), primes, inverse=True)


def schoolbook_product(a, b, primes):
    """a·b mod x^n + 1 in every tower by the O(n^2) definition (what :func:`dcrt_product` is
    checked against)."""
    out = []
    for s, t, q in zip(_towers("a", a, primes), _towers("b", b, primes), primes):
        n, acc = len(s), [0] * len(s)
        for i, x in enumerate(s):
            for j, y in enumerate(t):
                k = i + j
                acc[k % n] += x * y if k < n else -x * y
        out.append([v % q for v in acc])
    return out


def dcrt_extend(towers, primes, targets):
    """The polynomial of ``towers`` (mod ``primes``, coefficient form) extended to the base
    ``primes`` + ``targets``: its towers, then for each target prime p the centred lift of every
    coefficient mod p (OpenFHE's ``ExpandCRTBasis`` with the exact ``SwitchCRTBasis``)."""
    towers = _towers("towers", towers, primes)
    RNSBase(tuple(primes) + tuple(targets))       # checks the primes pairwise coprime
    q = RNSBase(tuple(primes))
    lifts = []
    for c in range(len(towers[0])):
        x = q.reconstruct([t[c] for t in towers])
        lifts.append(x - q.Q if 2 * x >= q.Q else x)
    return towers + [[v % p for v in lifts] for p in targets]
