"""RNS polynomials as OpenFHE holds them (``DCRTPoly``: towers, each mod its own prime) and their
`fhe-hw generate` entries: the transform of every tower through one engine per tower (or
fewer engines taking the towers in turn), the
product of two polynomials on those transforms, and the exact extension of a polynomial's base
Q to Q ∪ B.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`).
"""

from ..units import register
from .extend import RNSPolyExtend, RNSPolyExtendPlan
from .ntt import RNSPolyNTT, RNSPolyNTTPlan
from .product import RNSPolyProduct, RNSPolyProductPlan

__all__ = ["RNSPolyNTT", "RNSPolyNTTPlan", "RNSPolyProduct", "RNSPolyProductPlan",
           "RNSPolyExtend", "RNSPolyExtendPlan"]

register("rns-poly-ntt", plan=RNSPolyNTTPlan, component=RNSPolyNTT,
         description="NTT of an RNS polynomial (OpenFHE's DCRTPoly): L towers, one streaming "
         "NTT engine each (or E taking them in turn), OpenFHE's primes and roots")
register("rns-poly-product", plan=RNSPolyProductPlan, component=RNSPolyProduct,
         description="product of two RNS polynomials (OpenFHE's DCRTPoly a*b): forward NTTs, "
         "point-wise run-time-modulus ModMuls, inverse NTT, one engine per tower each")
register("rns-poly-extend", plan=RNSPolyExtendPlan, component=RNSPolyExtend,
         description="exact base extension of an RNS polynomial (OpenFHE's DCRTPoly, Q to Q "
         "and B): the centred lift of SwitchCRTBasis, mixed radix")
