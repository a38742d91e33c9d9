"""CMNT and CNT encryption on number-theoretic transforms ([Cao14] eq. 1, [Cao13] eq. 2 with
[Wang13]'s transforms): :class:`TransformEncrypt`, its programs
(:mod:`fhe_hw.encrypt.program`), sum engine (:mod:`fhe_hw.encrypt.sums`), S stage
(:mod:`fhe_hw.encrypt.sstage`) and exact cycle counts (:mod:`fhe_hw.encrypt.timing`). The
golden model is :mod:`fhe_hw.model.transform_encrypt`; the block-schoolbook engines of
:mod:`fhe_hw.bigint` stay as the papers' reference.

The unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`): its command-line
options come from the plan's fields."""

from ..units import register
from .unit import ENCRYPTION, KEY_PREPARATION, TransformEncrypt, TransformEncryptPlan

__all__ = ["TransformEncrypt", "TransformEncryptPlan", "KEY_PREPARATION", "ENCRYPTION"]

register("transform-encrypt", plan=TransformEncryptPlan, component=TransformEncrypt,
         description="CMNT or CNT encryption through 2^64-2^32+1 transforms: key spectra "
         "prepared once, transform-domain sums, super-size Barrett on the same engines "
         "([Cao14] eq. 1, [Cao13] eq. 2, [Wang13])")
