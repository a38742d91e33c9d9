"""RNS base extension ([Kir25]): Shenoy–Kumaresan folded and pipelined with a
multi-target variant, fast base conversion, Kawamura Cox-Rower and mixed-radix (iterative,
pipelined); each a (plan, component) pair (:class:`BaseConversionPlan` holds what the four
share: the ring and the bases), registered as the `fhe-hw generate` / `fhe-hw synth` entries
(``shenoy-kumaresan``, ``fast-base-conversion``, ``kawamura``, ``mixed-radix``, built on
:func:`default_bases` NTT primes or on the user's ``--source-primes`` and
``--target-primes``). The large Verilator co-simulations are the submodule
:mod:`fhe_hw.rns.cosim` (:func:`~.cosim.cosim_base_extension`; default N = 2^16, l = 17,
TP = 32 lanes, 60-bit primes: [Kir25] Tables 4.6, 4.10), run by ``tools/cosim_rns.py``;
importing this package loads no simulator.

Stream interfaces:

* :class:`ShenoyKumaresan`, :class:`FastBaseConversion` (the thesis's polynomial streaming,
  [Kir25] §3.4): ``i`` and ``o`` carry ``data.ArrayLayout(r, lanes)`` beats, one residue
  polynomial at a time, N/TP beats each (TP = ``lanes``; coefficient c in beat c // TP, lane
  c % TP). Input per pass: q_0, q_1, ..., q_{l-1}, then the redundant q_l
  (Shenoy–Kumaresan); a conversion is ⌈k / targets_per_pass⌉ passes over the source. Output:
  p_0, ..., p_{k-1}.
* :class:`Kawamura`, :class:`MixedRadix` need all residues of a coefficient at once (003
  §4.1.1.1, §4.1.2.2): ``i`` carries ``data.ArrayLayout(r, l)`` (one coefficient's source
  residues), ``o`` ``data.ArrayLayout(r, k)``; N beats each.
"""

from ..units import register
from .common import beats_to_polynomials, default_bases, polynomial_beats
from .fast_base_conv import FastBaseConversion, FastBaseConversionPlan
from .kawamura import Kawamura, KawamuraPlan
from .mixed_radix import MixedRadix, MixedRadixPlan
from .plan import BaseConversionPlan
from .shenoy_kumaresan import CRTBaseExtension, ShenoyKumaresan, ShenoyKumaresanPlan

__all__ = ["ShenoyKumaresan", "FastBaseConversion", "Kawamura", "MixedRadix",
           "CRTBaseExtension", "BaseConversionPlan", "ShenoyKumaresanPlan",
           "FastBaseConversionPlan", "KawamuraPlan", "MixedRadixPlan", "default_bases",
           "polynomial_beats", "beats_to_polynomials"]

register("shenoy-kumaresan", plan=ShenoyKumaresanPlan, component=ShenoyKumaresan,
         description="Shenoy-Kumaresan base extension ([Kir25] Alg. 2, §3.3)")
register("fast-base-conversion", plan=FastBaseConversionPlan, component=FastBaseConversion,
         description="fast base conversion ([Kir25] Alg. 1)")
register("kawamura", plan=KawamuraPlan, component=Kawamura,
         description="Kawamura Cox-Rower base extension ([Kir25] Alg. 3, §4.1.1)")
register("mixed-radix", plan=MixedRadixPlan, component=MixedRadix,
         description="Garner mixed-radix base extension ([Kir25] Alg. 4, §4.1.2)")
