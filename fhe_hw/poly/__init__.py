"""RNS polynomials as OpenFHE holds them (``DCRTPoly``: towers, each mod its own prime) and their
`fhe-hw generate` entries: the transform of every tower through one engine per tower, and the
product of two polynomials on those transforms.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`).
"""

from ..units import register
from .ntt import RNSPolyNTT, RNSPolyNTTPlan
from .product import RNSPolyProduct, RNSPolyProductPlan

__all__ = ["RNSPolyNTT", "RNSPolyNTTPlan", "RNSPolyProduct", "RNSPolyProductPlan"]

register("rns-poly-ntt", plan=RNSPolyNTTPlan, component=RNSPolyNTT,
         description="NTT of an RNS polynomial (OpenFHE's DCRTPoly): L towers, one streaming "
         "NTT engine each, OpenFHE's primes and roots")
register("rns-poly-product", plan=RNSPolyProductPlan, component=RNSPolyProduct,
         description="product of two RNS polynomials (OpenFHE's DCRTPoly a*b): forward NTTs, "
         "point-wise run-time-modulus ModMuls, inverse NTT, one engine per tower each")
