"""CMNT and CNT encryption on number-theoretic transforms ([Cao14] eq. 1, [Cao13] eq. 2 with
[Wang13]'s transforms): :class:`TransformEncrypt`, its programs
(:mod:`fhe_hw.encrypt.program`), sum engine (:mod:`fhe_hw.encrypt.sums`), S stage
(:mod:`fhe_hw.encrypt.sstage`) and exact cycle counts (:mod:`fhe_hw.encrypt.timing`). The
golden model is :mod:`fhe_hw.model.transform_encrypt`; the block-schoolbook engines of
:mod:`fhe_hw.bigint` stay as the papers' reference."""

from .unit import ENCRYPTION, KEY_PREPARATION, TransformEncrypt

__all__ = ["TransformEncrypt", "KEY_PREPARATION", "ENCRYPTION"]

from ..arith import MULT_STAGES_OPTION, TILED_OPTION  # noqa: E402
from ..bigint import parse_group  # noqa: E402
from ..model.bigint import EncryptionSizes  # noqa: E402
from ..units import Option, register  # noqa: E402

register("transform-encrypt", "CMNT or CNT encryption through 2^64-2^32+1 transforms: key "
         "spectra prepared once, transform-domain sums, super-size Barrett on the same "
         "engines ([Cao14] eq. 1, [Cao13] eq. 2, [Wang13])",
         Option("scheme", str, "cmnt", "cmnt or cnt"),
         Option("group", parse_group, EncryptionSizes(12, 20, 200, 2),
                "toy/small/medium/large or coeff,noise,key,count (default 12,20,200,2, a "
                "scaled-down group, quicker to generate; the class's default is the "
                "paper's toy group, which needs --m 64)"),
         Option("lanes", int, 2, "digits per word and beat, a power of two up to m (default 2; "
                "the class's default is the paper's rate, 16)"),
         Option("m", int, 4, "the engines' inner shift unit size, a power of two 2..64 "
                "(default 4: 16-point transforms; the class's default: 64)"),
         Option("m-units", int, 2, "the engines' m-point units: 1 or 2"),
         Option("max-n", int, None, "the largest transform (default min(65536, 64*m^2))"),
         MULT_STAGES_OPTION, TILED_OPTION,
         latency=TransformEncrypt.latency_of,
         cycles=lambda params, program=ENCRYPTION: TransformEncrypt.cycles_of(
             **params, program=program),
         )(TransformEncrypt)
