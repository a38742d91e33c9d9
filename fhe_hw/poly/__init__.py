"""RNS polynomials as OpenFHE holds them (``DCRTPoly``: towers, each mod its own prime) and their
`fhe-hw generate` entries: the transform of every tower through one engine per tower.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`).
"""

from ..units import register
from .ntt import RNSPolyNTT, RNSPolyNTTPlan

__all__ = ["RNSPolyNTT", "RNSPolyNTTPlan"]

register("rns-poly-ntt", plan=RNSPolyNTTPlan, component=RNSPolyNTT,
         description="NTT of an RNS polynomial (OpenFHE's DCRTPoly): L towers, one streaming "
         "NTT engine each, OpenFHE's primes and roots")
