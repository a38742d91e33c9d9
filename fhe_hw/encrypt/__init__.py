"""CMNT and CNT encryption on number-theoretic transforms ([Cao14] eq. 1, [Cao13] eq. 2 with
[Wang13]'s transforms): :class:`TransformEncrypt`, its programs
(:mod:`fhe_hw.encrypt.program`), sum engine (:mod:`fhe_hw.encrypt.sums`), S stage
(:mod:`fhe_hw.encrypt.sstage`) and exact cycle counts (:mod:`fhe_hw.encrypt.timing`). The
golden model is :mod:`fhe_hw.model.transform_encrypt`; the block-schoolbook engines of
:mod:`fhe_hw.bigint` stay as the papers' reference."""

from .unit import ENCRYPTION, KEY_PREPARATION, TransformEncrypt

__all__ = ["TransformEncrypt", "KEY_PREPARATION", "ENCRYPTION"]
