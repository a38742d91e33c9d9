"""Fast base conversion of polynomial residues: [Kir25] §2.5.1.1, Algorithm 1
(eq. 2.6) — the Sum Process of §3.3 without the redundant residue and the Post-Sum correction.

The result is a'_{p_j} = |Σ_i |a_{q_i}·Q̂_i^-1|_{q_i}·Q̂_i|_{p_j} = |A + α·Q|_{p_j} with
0 <= α < l (the −α·Q term of eq. 2.5 is skipped), not |A|_{p_j}: the error is the integer α·Q,
which schemes such as BEHZ tolerate or remove later. The engine is
:class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension` with the q_l path left out; its output
stage just reads the accumulator banks.
"""

from ..params import check_bool
from .shenoy_kumaresan import CRTBaseExtension

__all__ = ["FastBaseConversion"]


class FastBaseConversion(CRTBaseExtension):
    """Fast base conversion ([Kir25] Algorithm 1) of polynomial residues.

    Parameters: ``source``, ``target`` (pairwise coprime, odd, q ≡ 1 mod 2^word), ``n`` (N),
    ``tp`` (TP lanes), ``architecture`` (``"folded"``: a pass's outputs after its input, no
    overlap; ``"pipelined"``: the next pass's input overlaps the outputs), ``targets_per_pass``
    (t, folded only beyond 1), ``word``, ``mult_stages`` — as
    :class:`~fhe_hw.rns.ShenoyKumaresan`; ``deep`` (default True): the multipliers' deep
    rounds, one carry chain per register (a shallow round puts a negation, a combinational
    MULT18X18D and a 40-bit add in one cycle). The engine never hides the multiplier's
    latency, so each pass's offset grows by twice the deep rounds' extra registers (its two
    multipliers are in series).

    Ports: ``i`` — ``data.ArrayLayout(r, tp)`` beats, per pass the l source residue polynomials
    (q_0 first, N/TP beats each); P = ⌈k/t⌉ passes. ``o`` — the k polynomials a'_{p_j}
    = ``|A + α·Q|_{p_j}`` (p_0 first), same layout.

    Cycles: :meth:`cycles`; a pass's outputs need its last residue's accumulations, so each pass
    adds the accumulate + read latency (:meth:`pass_offset`) to its l·N/TP input beats.
    Arithmetic: (t + 1)·TP multipliers, t·TP modular adders.

    Raises ``ValueError`` as :class:`~fhe_hw.rns.ShenoyKumaresan` (without the q_l checks).
    """

    _redundant_path = False

    def __init__(self, source, target, n, tp, architecture="folded", targets_per_pass=1, *,
                 word=None, mult_stages=4, deep=True):
        super().__init__(source, target, None, n, tp, architecture, targets_per_pass,
                         word=word, mult_stages=mult_stages, deep=check_bool("deep", deep))

    @staticmethod
    def latency_of(source, target, n, tp, architecture="folded", targets_per_pass=1, *,
                   word=None, mult_stages=4, deep=True):
        """``None``: a stream engine, timed by :meth:`cycles_of`. Raises the constructor's
        ``ValueError``/``TypeError`` for refused parameters without building anything."""
        FastBaseConversion._plan(source, target, None, n, tp, architecture, targets_per_pass,
                                 word, mult_stages, check_bool("deep", deep))

    @staticmethod
    def cycles_of(source, target, n, tp, architecture="folded", targets_per_pass=1, *,
                  word=None, mult_stages=4, deep=True):
        """:meth:`cycles` of the engine with these parameters without building it."""
        return FastBaseConversion._cycles(FastBaseConversion._plan(
            source, target, None, n, tp, architecture, targets_per_pass, word, mult_stages,
            check_bool("deep", deep)))

    @property
    def error_bound(self):
        """l: outputs are |A + α·Q|_{p_j} with 0 <= α < l."""
        return len(self._source)
