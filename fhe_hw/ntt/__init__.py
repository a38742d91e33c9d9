"""NTT engines ([Cao14] §3.2, [Wang13] §III–IV) and their `fhe-hw generate` entries."""

from ..arith import KARATSUBA_OPTION, MULT_STAGES_OPTION, TILED_OPTION
from ..cliargs import int_in
from ..params import ROOT_CONVENTIONS, modulus_spec, ntt_params, solinas_ntt_params
from ..units import Option, parse_bool, register
from .butterfly import Butterfly
from .four_step import FourStepNTT, four_step_mul_latency, four_step_ntt_cycles
from .four_step_stream import StreamingFourStepNTT, four_step_stream_cycles, four_step_stream_plan
from .parallel import ParallelNTT
from .schedule import READ_STAGES, WRITE_STAGES
from .shift import ConstMul, RingNormaliser, ShiftMul, ShiftNTT
from .streaming import StreamingNTT, streaming_config, streaming_ntt_cycles

__all__ = ["StreamingNTT", "FourStepNTT", "StreamingFourStepNTT", "Butterfly", "ParallelNTT",
           "ShiftNTT", "ShiftMul", "ConstMul", "RingNormaliser"]


_CONVENTIONS = " or ".join(ROOT_CONVENTIONS)
_PSI = Option("psi", int_in(1), None, "negacyclic: the primitive root of unity of order twice "
              "the size to use instead of --root (default: none, --root applies)")
_OMEGA = Option("omega", int_in(1), None, "cyclic: the primitive root of unity of the size's "
                "order to use instead of --root (default: none, --root applies)")

#: The root of unity of the radix-2 NTT units (:func:`fhe_hw.params.ntt_params`).
ROOT_OPTIONS = (
    Option("root", str, None, f"root-of-unity convention: {_CONVENTIONS} (default generator: "
           "g^((q-1)/order) for the modulus's generator g; openfhe: the smallest primitive "
           "root, as OpenFHE's RootOfUnity; wang-huang: solinas64 only, the four-step "
           "units' roots)"),
    _PSI, _OMEGA,
)

#: The root of unity of the shift-only units over 2^64 - 2^32 + 1
#: (:func:`fhe_hw.params.solinas_ntt_params`): every primitive root, as its powers that the
#: shift units multiply by are powers of two.
_SOLINAS_ROOT = Option("root", str, None, f"root-of-unity convention: {_CONVENTIONS} (default "
                       "wang-huang: [Wang13]'s omega_64 = 8, omega_16 = 4096; generator: "
                       "7^((p-1)/order); openfhe: the smallest primitive root, OpenFHE's rule "
                       "applied to 2^64 - 2^32 + 1)")


def _root_of(size, resolve=ntt_params, modulus=True):
    """Unit describe contract of an NTT unit whose transform size is the parameter ``size``:
    the root of unity it computes with (``resolve``: :func:`fhe_hw.params.ntt_params`, or
    :func:`~fhe_hw.params.solinas_ntt_params` with ``modulus=False``)."""
    def describe(params):
        args = (params["modulus"], params[size]) if modulus else (params[size],)
        p = resolve(*args, negacyclic=params.get("negacyclic", False),
                    **{key: params[key] for key in ("root", "psi", "omega") if key in params})
        return {"root of unity": f"psi = {p.psi}" if p.psi is not None else f"omega = {p.omega}"}
    return describe


def _stream_engine_latency(check):
    """Unit latency contract of a stream engine: ``None`` once ``check(**params)`` accepts the
    parameters (it raises for the ones the engine refuses)."""
    def latency(**params):
        check(**params)
        return None
    return latency


def _one_transform_cycles(cycles_of):
    """Unit cycles contract of a transform engine: ``cycles_of(**params)`` for one transform
    (the only run it describes, so it takes no keywords)."""
    def cycles(params):
        return cycles_of(**params)
    return cycles


register("butterfly", "unified FFT/IFFT butterfly, run-time or constant (shift) twiddles "
         "([Cao14] Fig. 2)",
         Option("modulus", modulus_spec, "solinas64", "modulus name or integer"),
         Option("scale-up", parse_bool, False, "include the x_up*w_up multiplier"),
         MULT_STAGES_OPTION,
         Option("twiddle", int, None, "constant w_down (default: run-time twiddles)"),
         Option("twiddle-up", int, None, "constant w_up (with --twiddle; default: none, no "
                "up-multiplier)"),
         Option("multiplier", str, "auto", "constant twiddles: auto, shift or modmul"),
         TILED_OPTION,
         Option("fast-add", parse_bool, True, "x_up -/+ p registered before the add/sub: one "
                "carry chain each (one cycle more with --scale-up) (true/false)"),
         Option("tile", int, None, "run-time twiddles: the ModMul's multiplier slice width, "
                "2..18 bits (default 17; narrower suits an ASIC)"),
         KARATSUBA_OPTION, latency=Butterfly.latency_of)(Butterfly)

register("parallel-ntt", "fully parallel radix-2 k-point NTT, constant twiddles ([Cao14] §3.2)",
         Option("k", int, 64, "transform size (power of two)"),
         Option("modulus", modulus_spec, "fermat32", "modulus name or integer"),
         Option("inverse", parse_bool, False, "inverse transform (k^-1 folded in)"),
         Option("negacyclic", parse_bool, False, "transform mod x^k + 1"),
         MULT_STAGES_OPTION,
         Option("multiplier", str, "auto", "twiddle multipliers: auto, shift or modmul"),
         *ROOT_OPTIONS,
         latency=ParallelNTT.latency_of,
         describe=_root_of("k"),
         cycles=lambda params, transforms=1: ParallelNTT.cycles_of(**params,
                                                                  transforms=transforms),
         )(ParallelNTT)

register("shift-ntt", "Wang-Huang shift-only radix-64/16 unit over 2^64-2^32+1 ([Wang13] §IV-A/B)",
         Option("points", int, 64, "transform size: 64 or 16 (also 2..32)"),
         Option("lanes", int, None, "samples per beat (default 8 for 64 points, else points)"),
         Option("inverse", parse_bool, False, "inverse transform (points^-1 folded in)"),
         _SOLINAS_ROOT, _OMEGA,
         latency=ShiftNTT.latency_of,
         describe=_root_of("points", solinas_ntt_params, modulus=False),
         cycles=lambda params, transforms=1: ShiftNTT.cycles_of(**params, transforms=transforms),
         )(ShiftNTT)

register("ntt", "memory-based streaming NTT, n = 16..65536, P butterflies "
         "([Cao14] §3.2, [Wang13] §IV)",
         Option("n", int, 1024, "transform size (power of two, 16..65536)"),
         Option("modulus", modulus_spec, "solinas64", "modulus name or integer"),
         Option("butterflies", int, 1, "butterflies per cycle P (power of two)"),
         Option("lanes", int, None, "coefficients per stream beat (default 2P)"),
         Option("negacyclic", parse_bool, False, "transform mod x^n + 1"),
         Option("inverse", parse_bool, False, "inverse transform (n^-1 folded in)"),
         MULT_STAGES_OPTION, TILED_OPTION,
         Option("read-stages", int, READ_STAGES,
                "registers on the read path: 0, 1 (read addresses), 2 (and the bank "
                "outputs), 3 (and the read network's middle) or 4 (and a fabric register "
                "after each bank)"),
         Option("write-stages", int, WRITE_STAGES,
                "registers on the write-back path: 0 or 1 (the permuted butterfly results)"),
         KARATSUBA_OPTION, *ROOT_OPTIONS, latency=_stream_engine_latency(streaming_config),
         cycles=_one_transform_cycles(streaming_ntt_cycles),
         describe=_root_of("n"))(StreamingNTT)

register("four-step-ntt", "four-step NTT over 2^64-2^32+1 with shift-only radix-64/16 units, "
         "n = 4096 or 65536 ([Wang13] eqs 7-8, Figs 3-4)",
         Option("n", int, 4096, "transform size: 4096 or 65536"),
         Option("inverse", parse_bool, False, "inverse transform (n^-1 folded in)"),
         MULT_STAGES_OPTION, TILED_OPTION, _SOLINAS_ROOT, _OMEGA,
         latency=_stream_engine_latency(four_step_mul_latency),
         cycles=_one_transform_cycles(four_step_ntt_cycles),
         describe=_root_of("n", solinas_ntt_params, modulus=False))(FourStepNTT)

register("four-step-stream", "streaming four-step NTT over 2^64-2^32+1, n = n1*m^2, lanes "
         "samples per cycle, transforms back to back ([Wang13] eqs 7-8, Figs 3-4)",
         Option("n", int, 4096, "transform size n1*m^2 (4096 = 64^2, 65536 = 16*64^2)"),
         Option("lanes", int, 16, "samples per cycle (a power of two up to m)"),
         Option("m", int, 64, "inner shift unit size (power of two, 2..64)"),
         Option("m-units", int, 1, "m-point units: 1 (P1 and P2 share it) or 2 (one each: "
                "about n/lanes fewer cycles per transform)"),
         Option("inverse", parse_bool, False, "inverse transform (n^-1 folded in)"),
         Option("negacyclic", parse_bool, False, "transform mod x^n + 1 (forward: x_i*psi^i "
                "in P1's twiddles; inverse: psi^-i on the unload)"),
         MULT_STAGES_OPTION, TILED_OPTION, _SOLINAS_ROOT, _PSI, _OMEGA,
         latency=_stream_engine_latency(four_step_stream_plan),
         describe=_root_of("n", solinas_ntt_params, modulus=False),
         cycles=lambda params, transforms=1: four_step_stream_cycles(**params,
                                                                     transforms=transforms),
         )(StreamingFourStepNTT)
