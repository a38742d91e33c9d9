"""Golden models of RNS base extension, after [Kir25] (Kırbıyık):

* §2.5.1.1 Algorithm 1, fast base conversion (eq. 2.6);
* §2.5.1.2 Algorithm 2, Shenoy–Kumaresan (eqs 2.7–2.9), split as in §3.3 into the Sum Process
  (steps 1–3) and the Post-Sum Process (steps 4–7);
* §2.5.1.3 Algorithm 3, Kawamura et al. recursive base extension (eqs 2.10–2.18), with σ kept
  as the Cox unit of §4.1.1.2 keeps it: a ρ-bit fixed-point fraction whose carry is α_{s};
* §2.5.2 Algorithm 4, Garner's mixed-radix conversion (eqs 2.19–2.31);
* §4.1.3 Table 4.5 cost formulas (memory terms, arithmetic units, iterations; Table 4.6).

Layout: the per-integer functions take the source residues ``(a_{q_0}, ..., a_{q_{l-1}})`` of
one integer A and return its target residues ``(a_{p_0}, ..., a_{p_{k-1}})``.
:func:`extend_polynomial` applies one of them to polynomials stored residue-major,
``polys[i][c]`` = coefficient c of the residue polynomial modulo q_i, because the thesis streams
one residue polynomial of N coefficients at a time (§3.4); its result has the same layout.
All constants come from :mod:`fhe_hw.params`.
"""

from dataclasses import dataclass

from fhe_hw.params import require_int, require_power_of_two

__all__ = [
    "fast_base_conversion", "modular_products", "ShenoyKumaresanSteps",
    "shenoy_kumaresan_steps", "shenoy_kumaresan", "shenoy_kumaresan_matched",
    "trunc", "KawamuraSteps", "kawamura_steps", "kawamura", "MixedRadixSteps",
    "mixed_radix_steps", "mixed_radix", "extend_polynomial", "ARCHITECTURES",
    "iterations_sk_pipelined", "iterations_sk_folded", "iterations_cox_rower",
    "iterations_mrc_pipelined", "iterations_mrc_iterative", "arithmetic_units", "memory_terms",
]


def _check_residues(name, residues, moduli):
    moduli = tuple(moduli)
    if (not isinstance(residues, (tuple, list)) or len(residues) != len(moduli)
            or not all(isinstance(a, int) and not isinstance(a, bool) and 0 <= a < q
                       for a, q in zip(residues, moduli, strict=True))):
        raise ValueError(f"{name} must be {len(moduli)} integers with 0 <= a_i < q_i for "
                         f"moduli {moduli}, not {residues!r}")
    return tuple(residues)


def _sum_process(residues, source, Q_hat_inv, targets, Q_hat_mod_t):
    """Steps 1–3 of Algorithms 1 and 2 (the Sum Process of §3.3) onto the moduli ``targets``.
    Returns (μ_{q_i}, μ_{t,i} indexed [t][i], a'_t)."""
    mu_q = tuple(a * c % q for a, c, q in zip(residues, Q_hat_inv, source, strict=True))
    mu_t = tuple(tuple(m * c % t for m, c in zip(mu_q, row, strict=True))
                 for t, row in zip(targets, Q_hat_mod_t, strict=True))
    return mu_q, mu_t, tuple(sum(row) % t for t, row in zip(targets, mu_t, strict=True))


def fast_base_conversion(residues, consts):
    """[Kir25] Algorithm 1 (eq. 2.6): a'_{p_j} = |Σ_i |a_{q_i}·Q̂_i^-1|_{q_i}·Q̂_i|_{p_j}.

    ``consts`` is a :class:`~fhe_hw.params.FastBaseConversionConstants`. The −α·Q term of
    eq. 2.5 is skipped, so for 0 ≤ A < Q the result is |A + α·Q|_{p_j} with 0 ≤ α < l, not
    |A|_{p_j}. Raises ``ValueError`` if ``residues`` are not l values below their moduli.
    """
    residues = _check_residues("residues", residues, consts.source)
    return _sum_process(residues, consts.source, consts.Q_hat_inv, consts.target,
                        consts.Q_hat_mod_p)[2]


def modular_products(method, l, k):
    """Modular products per coefficient of a conversion from l to k residues:
    ``"fast"`` (:func:`fast_base_conversion`): l for μ_{q_i} and l for each of the k targets;
    ``"shenoy-kumaresan"`` (:func:`shenoy_kumaresan_steps`): the same with q_l as one more
    target, 1 for α and k for α·|Q|_{p_j}."""
    require_int("l", l, minimum=1)
    require_int("k", k, minimum=1)
    if method == "fast":
        return l * (k + 1)
    if method == "shenoy-kumaresan":
        return l * (k + 2) + 1 + k
    raise ValueError(f"method must be fast or shenoy-kumaresan, not {method!r}")


@dataclass(frozen=True)
class ShenoyKumaresanSteps:
    """Intermediate values of [Kir25] Algorithm 2, by step; ``[j][i]`` = target j, source i."""

    mu_q: tuple        # step 1: μ_{q_i}
    mu_p: tuple        # step 2: μ_{p_j,i}, [j][i]
    mu_ql: tuple       # step 2: μ_{q_l,i}
    a_p_prime: tuple   # step 3: a'_{p_j}
    a_ql_prime: int    # step 3: a'_{q_l}
    ms: int            # step 4: ms_{q_l}
    alpha: int         # step 5: μ'_{q_l} = α
    mu_p_prime: tuple  # step 6: μ'_{p_j}
    a_p: tuple         # step 7: a_{p_j}, the result


def shenoy_kumaresan_steps(residues, redundant_residue, consts):
    """[Kir25] Algorithm 2 step by step; returns :class:`ShenoyKumaresanSteps`.

    ``residues`` are a_{q_i}, ``redundant_residue`` is a_{q_l} = |A|_{q_l}, ``consts`` a
    :class:`~fhe_hw.params.ShenoyKumaresanConstants`. Exact for 0 ≤ A < Q: α < l < q_l, so
    |α|_{q_l} = α (eq. 2.9). The q_l path of the Sum Process is one more target of Algorithm 1.
    More generally the result is |Z|_{p_j} for the Z ≡ A (mod Q) in [−Q, Q) whose residue
    ``redundant_residue`` is (α + 1 <= l < q_l): given the centred lift's, A − Q when 2A ≥ Q,
    the centred lift's, as OpenFHE's ``SwitchCRTBasis`` (docs/rns.md).
    Raises ``ValueError`` on residues out of range.
    """
    residues = _check_residues("residues", residues, consts.source)
    ql = consts.redundant
    (a_ql,) = _check_residues("redundant_residue", [redundant_residue], [ql])
    P = consts.target
    mu_q, mu_t, sums = _sum_process(residues, consts.source, consts.Q_hat_inv, (*P, ql),
                                    (*consts.Q_hat_mod_p, consts.Q_hat_mod_ql))
    *a_p_prime, a_ql_prime = sums
    ms = (a_ql_prime - a_ql) % ql
    alpha = ms * consts.Q_inv_mod_ql % ql
    mu_p_prime = tuple(alpha * c % p for c, p in zip(consts.Q_mod_p, P, strict=True))
    a_p = tuple((s - m) % p for s, m, p in zip(a_p_prime, mu_p_prime, P, strict=True))
    return ShenoyKumaresanSteps(mu_q, mu_t[:-1], mu_t[-1], tuple(a_p_prime), a_ql_prime, ms,
                                alpha, mu_p_prime, a_p)


def shenoy_kumaresan(residues, redundant_residue, consts):
    """[Kir25] Algorithm 2: the target residues a_{p_j} (see :func:`shenoy_kumaresan_steps`)."""
    return shenoy_kumaresan_steps(residues, redundant_residue, consts).a_p


def shenoy_kumaresan_matched(residues, redundant_residue, consts):
    """[Kir25] Algorithm 2 with step 5 by a match, as the fused Post-Sum computes it
    (``fused_post_sum``): α is the k in 0..l with k·Q mod q_l = ms, or 0 if there is none, and
    a_{p_j} = (a'_{p_j} − α·Q) mod p_j. Equal to :func:`shenoy_kumaresan` whenever Algorithm 2's
    α is at most l (a redundant residue of A or of its centred lift; q_l > l makes k unique);
    for any other redundant residue the result is a'_{p_j}."""
    steps = shenoy_kumaresan_steps(residues, redundant_residue, consts)
    big_q, ql = consts.source.Q, consts.redundant
    alpha = next((k for k in range(len(residues) + 1) if k * big_q % ql == steps.ms), 0)
    return tuple((s - alpha * big_q) % p
                 for s, p in zip(steps.a_p_prime, consts.target, strict=True))


def trunc(xi, r, rho):
    """[Kir25] Algorithm 3, TRUNC(ξ, r, ρ): ξ ∧ ((1…1)_{[r-1:0]} ≪ (r − ρ)), i.e. the r-bit ξ with
    its r − ρ least significant bits cleared."""
    return xi & (((1 << r) - 1) << (r - rho))


@dataclass(frozen=True)
class KawamuraSteps:
    """Intermediate values of [Kir25] Algorithm 3. σ values are ρ-bit fixed-point fractions
    (integers in [0, 2^ρ), value σ/2^ρ); ``y`` is y_{j,l-1} before the reduction of line 12."""

    xi: tuple          # line 4: ξ_{q_s}
    sigma: tuple       # line 9: σ_s after removing α_{s}
    alpha_bits: tuple  # line 8: α_{s} ∈ {0, 1}
    y: tuple           # line 10: y_{j,l-1}
    a_p: tuple         # line 12: a_{p_j}

    @property
    def alpha(self):
        return sum(self.alpha_bits)


def kawamura_steps(residues, consts):
    """[Kir25] Algorithm 3 step by step in the Cox unit's integer fixed point; returns
    :class:`KawamuraSteps`.

    ``consts`` is a :class:`~fhe_hw.params.KawamuraConstants`. σ_{-1} = δ is
    ``consts.delta_fixed`` (δ rounded up to ρ fractional bits); TRUNC(ξ)/2^r in that format is
    ξ ≫ (r − ρ), so line 7 is a ρ-bit addition whose carry out is α_{s} (lines 8–9). Exact for
    0 ≤ A < ``consts.max_input`` when δ is a multiple of 2^-ρ (otherwise the bound is
    (1 − delta_fixed/2^ρ)·Q, see eqs 2.15–2.18). The paper indexes y from 0 and ends at
    y_{j,n}; here y starts at 0 before s = 0 and the result is y_{j,l-1} mod p_j.
    Raises ``ValueError`` on residues out of range.
    """
    residues = _check_residues("residues", residues, consts.source)
    r, rho = consts.r, consts.rho
    xi = tuple(a * c % q for a, c, q in zip(residues, consts.Q_hat_inv, consts.source, strict=True))
    sigma, sigmas, bits = consts.delta_fixed, [], []
    y = [0] * len(consts.target)
    for s, x in enumerate(xi):
        sigma += trunc(x, r, rho) >> (r - rho)
        bit = sigma >> rho
        sigma -= bit << rho
        sigmas.append(sigma)
        bits.append(bit)
        y = [y_j + x * row[s] + bit * mq
             for y_j, row, mq in zip(y, consts.Q_hat_mod_p, consts.minus_Q_mod_p, strict=True)]
    a_p = tuple(y_j % p for y_j, p in zip(y, consts.target, strict=True))
    return KawamuraSteps(xi, tuple(sigmas), tuple(bits), tuple(y), a_p)


def kawamura(residues, consts):
    """[Kir25] Algorithm 3: the target residues a_{p_j} (see :func:`kawamura_steps`)."""
    return kawamura_steps(residues, consts).a_p


@dataclass(frozen=True)
class MixedRadixSteps:
    """Intermediate values of [Kir25] Algorithm 4."""

    digits: tuple  # b_s: A = Σ_s b_s·Π_{i<s} q_i, 0 ≤ b_s < q_s (eq. 2.19)
    theta: tuple   # θ_{p_j} after the last iteration, = |−A·Q^-1|_{p_j}
    above: tuple   # centred: after digit s, whether Σ_{t<=s} b_t·Π_{i<t} q_i exceeds the same
    #                digits of (Q − 1)/2; the last is 2A >= Q. () unless centred
    a_p: tuple     # line 8: a_{p_j}


def mixed_radix_steps(residues, consts):
    """[Kir25] Algorithm 4 (Garner) step by step; returns :class:`MixedRadixSteps`.

    ``consts`` is a :class:`~fhe_hw.params.MixedRadixConstants` (source moduli ascending,
    eq. 2.30, so b_s < q_s < q_u and line 4 needs one conditional correction in hardware, as
    eq. 2.31 assumes; line 6 subtracts b_s < q_s modulo p_j, which needs the same single
    correction only if p_j > q_s, the target order of eq. 2.30). Exact for every 0 ≤ A < Q.

    With ``consts.centred`` the result is the centred lift's, |A − C·Q|_{p_j} =
    |Q|_{p_j}·(−θ_j − C) with C = [2A ≥ Q]: the digits b_s, least significant first, compare
    with those of (Q − 1)/2, h_s = (q_s − 1)/2 (``consts.half_digits``), as C_s = [b_s > h_s −
    C_{s−1}] (C_{−1} = 0: b_s > h_s, or b_s = h_s and the lower digits above), C = C_{l−1}.
    Raises ``ValueError`` on residues out of range.
    """
    b = list(_check_residues("residues", residues, consts.source))
    qs = consts.source
    theta = [0] * len(consts.target)
    above = []
    for s in range(len(qs)):
        for u in range(s + 1, len(qs)):
            b[u] = (b[u] - b[s]) * consts.q_inv[s][u] % qs[u]
        theta = [(t - b[s]) * inv[s] % p
                 for t, inv, p in zip(theta, consts.q_inv_mod_p, consts.target, strict=True)]
        if consts.centred:
            above.append(b[s] > consts.half_digits[s] - (above[-1] if above else 0))
    c = above[-1] if above else 0
    a_p = tuple(q * (-t - c) % p
                for q, t, p in zip(consts.Q_mod_p, theta, consts.target, strict=True))
    return MixedRadixSteps(tuple(b), tuple(theta), tuple(above), a_p)


def mixed_radix(residues, consts):
    """[Kir25] Algorithm 4: the target residues a_{p_j} (see :func:`mixed_radix_steps`)."""
    return mixed_radix_steps(residues, consts).a_p


def extend_polynomial(convert, residue_polys, consts, redundant_poly=None):
    """Apply ``convert`` (one of the four algorithms above) to each coefficient.

    ``residue_polys[i][c]`` is coefficient c of the residue polynomial modulo q_i (residue-major,
    one residue polynomial streamed at a time, [Kir25] §3.4); ``redundant_poly[c]`` the q_l residues
    that :func:`shenoy_kumaresan` needs (``None`` for the others). Returns ``target[j][c]``.
    Raises ``ValueError`` unless all polynomials have the same number N ≥ 1 of coefficients.
    """
    polys = [tuple(p) for p in residue_polys]
    extra = [] if redundant_poly is None else [tuple(redundant_poly)]
    lengths = {len(p) for p in polys + extra}
    if len(lengths) != 1 or 0 in lengths:
        raise ValueError(f"residue_polys and redundant_poly must have the same number N >= 1 of "
                         f"coefficients, not lengths {sorted(lengths)}")
    columns = zip(zip(*polys, strict=True), *extra, strict=True)
    return tuple(zip(*(convert(list(col), *rest, consts) for col, *rest in columns), strict=True))


# --- Table 4.5: costs of the architectures (k = l) --------------------------------------------

ARCHITECTURES = ("sk_pipelined", "sk_folded", "cox_rower", "mrc_pipelined", "mrc_iterative")


def _check_n_l(n, l):
    require_power_of_two("n", n)
    require_int("l", l, minimum=1)


def _check_tp(tp, n=None):
    require_power_of_two("tp", tp)
    if n is not None and tp > n:
        raise ValueError(f"tp must be at most n = {n}, not {tp!r}")


def iterations_sk_pipelined(n, l, tp):
    """Table 4.5: N·(l+1)·l/TP + N/TP — k = l Sum Processes of N·(l+1)/TP iterations each
    (§3.3.2) with the Post-Sum Processes overlapped, except the last one of N/TP."""
    _check_n_l(n, l)
    _check_tp(tp, n)
    return n // tp * ((l + 1) * l + 1)


def iterations_sk_folded(n, l, tp):
    """Table 4.5: l·(N·(l+1)/TP + N/TP) — Sum and Post-Sum Processes run in turn (§3.3.3)."""
    _check_n_l(n, l)
    _check_tp(tp, n)
    return l * (n // tp) * (l + 2)


def iterations_cox_rower(n, l):
    """Table 4.5: N·(l+1) — one coefficient per l + 1 iterations (§4.1.1.3)."""
    _check_n_l(n, l)
    return n * (l + 1)


def iterations_mrc_pipelined(n, l):
    """Table 4.5: N — outer loop of Algorithm 4 unrolled, one coefficient per iteration."""
    _check_n_l(n, l)
    return n


def iterations_mrc_iterative(n, l):
    """Table 4.5: N·(l+1) — inner loop unrolled, l + 1 iterations per coefficient (§4.1.2)."""
    _check_n_l(n, l)
    return n * (l + 1)


def _check_arch(arch):
    if arch not in ARCHITECTURES:
        raise ValueError(f"arch must be one of {', '.join(ARCHITECTURES)}, not {arch!r}")


def arithmetic_units(arch, l, tp=None):
    """Table 4.5 (Tables 3.2, 4.2, 4.4): modular multipliers, modular adders (subtracters
    counted alike) and plain adders as ``{"MM": .., "MA": .., "A": ..}``. ``tp`` is needed by
    the Shenoy–Kumaresan architectures only. Cox-Rower: Table 4.5 prints 2·MA but Table 4.2 and
    §4.1.1.2 give two modular adders per Rower, i.e. 2·l; we follow Table 4.2."""
    _check_arch(arch)
    require_int("l", l, minimum=1)
    if arch.startswith("sk_"):
        _check_tp(tp)
        return {"MM": (5 if arch == "sk_pipelined" else 3) * tp, "MA": 4 * tp, "A": 0}
    if arch == "cox_rower":
        return {"MM": l, "MA": 2 * l, "A": 1}
    if arch == "mrc_pipelined":
        return {"MM": (l + 1) * l // 2 + 1, "MA": (l + 1) * l // 2, "A": 0}
    return {"MM": l, "MA": l, "A": 0}


def memory_terms(arch, l, k=None):
    """Number of precomputed terms stored (Tables 3.1, 4.1, 4.3) for l source and k target
    residues; ``k`` defaults to l, which gives the Memory column of Table 4.5."""
    _check_arch(arch)
    require_int("l", l, minimum=1)
    k = l if k is None else require_int("k", k, minimum=1)
    if arch.startswith("sk_"):
        return l + l * k + l + 1 + k
    if arch == "cox_rower":
        return l + l * k + k
    return l * (l - 1) // 2 + l * k + k
