"""Fast base conversion of polynomial residues: [Kir25] §2.5.1.1, Algorithm 1
(eq. 2.6) — the Sum Process of §3.3 without the redundant residue and the Post-Sum correction.

The result is a'_{p_j} = |Σ_i |a_{q_i}·Q̂_i^-1|_{q_i}·Q̂_i|_{p_j} = |A + α·Q|_{p_j} with
0 <= α < l (the −α·Q term of eq. 2.5 is skipped), not |A|_{p_j}: the error is the integer α·Q,
which schemes such as BEHZ tolerate or remove later. The engine is
:class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension` with the q_l path left out; its output
stage just reads the accumulator banks.
"""

from dataclasses import dataclass

from ..arith.pipeline import deep_param
from ..params import FastBaseConversionConstants
from .shenoy_kumaresan import CRTBaseExtension, CRTBaseExtensionPlan

__all__ = ["FastBaseConversion", "FastBaseConversionPlan"]


@dataclass(frozen=True)
class FastBaseConversionPlan(CRTBaseExtensionPlan):
    """The parameters of :class:`FastBaseConversion` and what they derive, without building it.

    Parameters
    ----------
    prime_bits, n, source_limbs, target_limbs, word, mult_stages, prime_n, source_primes, \
target_primes, lanes, architecture, targets_per_pass
        As :class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtensionPlan` (without the redundant
        prime).
    deep : bool
        The multipliers' deep rounds, one carry chain per register (default True; a shallow
        round puts a negation, a combinational MULT18X18D and a 40-bit add in one cycle). The
        engine never hides the multiplier's latency, so each pass's offset grows by twice the
        deep rounds' extra registers (its two multipliers are in series).

    Attributes
    ----------
    source, target, width, constants, multiplier, rows, passes, acc_latency, issue_latency, \
out_latency
        As :class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtensionPlan`; ``constants`` are
        :class:`~fhe_hw.params.FastBaseConversionConstants`.
    """

    deep: bool = deep_param()

    _redundant_path = False

    def _set_bases(self, source, target):
        super()._set_bases(source, target)
        self._set(constants=FastBaseConversionConstants.build(source, target))

    def _deep_rounds(self, moduli):
        return self.deep


class FastBaseConversion(CRTBaseExtension):
    """Fast base conversion ([Kir25] Algorithm 1) of polynomial residues.

    Parameters: a :class:`FastBaseConversionPlan` or its arguments, as
    :class:`~fhe_hw.rns.ShenoyKumaresan`'s without ``redundant_prime`` and with ``deep``.

    Ports: ``i`` — ``data.ArrayLayout(r, lanes)`` beats, per pass the l source residue
    polynomials (q_0 first, N/lanes beats each); P = ⌈k/t⌉ passes. ``o`` — the k polynomials
    a'_{p_j} = ``|A + α·Q|_{p_j}`` (p_0 first), same layout.

    Cycles: :meth:`cycles`; a pass's outputs need its last residue's accumulations, so each pass
    adds the accumulate + read latency (:meth:`pass_offset`) to its l·N/lanes input beats.
    Arithmetic: (t + 1)·lanes multipliers, t·lanes modular adders.

    Raises ``ValueError`` as :class:`~fhe_hw.rns.ShenoyKumaresan` (without the q_l checks).
    """

    plan_class = FastBaseConversionPlan

    @property
    def error_bound(self):
        """l: outputs are |A + α·Q|_{p_j} with 0 <= α < l."""
        return len(self._source)
