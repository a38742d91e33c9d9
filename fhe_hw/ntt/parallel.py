"""The radix-2 fully parallel FFT/IFFT: [Cao14] §3.2 and Fig. 2 ("there are
log2 k butterfly stages for a k-point FFT, and each butterfly stage is composed of k/2 parallel
butterfly units"), with the twiddles baked in as constants.

Every butterfly of the pipeline has a fixed twiddle, so its multiplier multiplies by a constant
(:class:`~fhe_hw.ntt.butterfly.Butterfly` with ``twiddle=``): for the special moduli
2^32 + 1 / 2^64 + 1 with ω = 2 ([Cao14] Table 2) every twiddle is a power of two and the multiplier
is a rotation ("each m-bit multiplier in a butterfly is implemented using a bit-shift
operation", [Cao14] §3.2); over 2^64 - 2^32 + 1 every power of a primitive 128th root is 2^a or
2^a + 2^b, so the 128-point transform is shift-and-add as well ([Wang13] §III-B); for the
general modulus 2^32 - 2^20 + 1 the twiddles go to constant-operand modular multipliers.
The inverse transform folds k^-1 into the twiddles of its last stage ([Cao14] §3.2:
ω̂^-1 = (kω)^-1), which is the only stage with an x_up multiplier.

Twiddles, butterfly pairs and data order come from :mod:`fhe_hw.model.ntt`
(:func:`~fhe_hw.model.ntt.stage_pairs`, :func:`~fhe_hw.model.ntt.stage_twiddles`,
:func:`~fhe_hw.model.ntt.negacyclic_post_twiddles`), the functions the golden model
:func:`~fhe_hw.model.ntt.ntt_radix2` runs on: the forward transform takes natural order and
gives the bit-reversed spectrum, the inverse the reverse.
"""

from amaranth import Module
from amaranth.lib import data

from ..arith.modadd import check_bool
from ..arith.pipeline import FixedLatencyUnit, check_mult_stages
from ..model.ntt import negacyclic_post_twiddles, stage_pairs, stage_twiddles
from ..params import ntt_params, require_int
from .butterfly import Butterfly
from .shift import MULTIPLIERS, ConstMul

__all__ = ["ParallelNTT", "parallel_ntt_cycles"]


def parallel_ntt_cycles(latency, transforms=1):
    """Cycles from the first input to the last output of ``transforms`` transforms, both
    included, fed one per cycle into a pipeline of ``latency``: ``transforms + latency``."""
    require_int("latency", latency, minimum=0)
    require_int("transforms", transforms, minimum=1)
    return transforms + latency


class ParallelNTT(FixedLatencyUnit):
    """Fully parallel pipelined k-point NTT ([Cao14] §3.2): log2 k stages of k/2 constant-twiddle
    butterflies, one transform per cycle.

    Parameters: ``k`` (power of two >= 2 dividing q - 1 for each prime q | p; [Cao14] Table 2 uses
    64 for fermat32 and general32, 128 for fermat64 and solinas64); ``modulus`` (name, int or
    :class:`~fhe_hw.params.Modulus`); ``inverse`` (bool); ``negacyclic`` (bool: transform mod
    x^k + 1, needs 2k | q - 1); ``mult_stages``/``reducer`` (for constant-operand ModMuls);
    ``multiplier`` (``"auto"``: shifts where the twiddle allows, ``"shift"``: shifts or
    ``ValueError``, ``"modmul"``: multipliers only — see :class:`~fhe_hw.ntt.shift.ConstMul`);
    the root of unity: ``psi`` (negacyclic) or ``omega`` (cyclic) given, else the convention
    ``root`` picks (``"generator"``, the default, or ``"openfhe"``:
    :func:`fhe_hw.params.ntt_params`).

    Ports: ``i`` — always-ready stream of ``data.ArrayLayout(m, k)``, element i = a[i] of the
    model's input list (natural order forward, bit-reversed spectrum inverse), each in [0, p);
    ``o`` — always-ready stream of the same layout with the model's output list
    (:func:`fhe_hw.model.ntt.ntt_radix2` with :attr:`params`, from
    ``ntt_params(modulus, k, negacyclic=..., root=..., psi=..., omega=...)``).

    Latency: the sum of the stage latencies (butterfly: twiddle multiplier + 1, + 2 in the
    inverse's last stage, which has the x_up multiplier, see :class:`Butterfly`; a stage's
    butterflies are padded to the slowest of them), plus the post-multiplication by
    k^-1·ψ^-i for the negacyclic inverse; :attr:`stage_latencies` lists them. Throughput one
    transform per cycle; :meth:`cycles`. Raises ``ValueError``/``TypeError`` for bad parameters.
    """

    def __init__(self, k, modulus, *, inverse=False, negacyclic=False, mult_stages=None,
                 reducer="auto", multiplier="auto", root=None, psi=None, omega=None):
        params, latencies = self._plan(k, modulus, inverse, negacyclic, mult_stages, reducer,
                                       multiplier, dict(root=root, psi=psi, omega=omega))
        self._params, self._stage_latencies = params, latencies
        self._latency = sum(latencies)
        self._inverse, self._negacyclic, self._multiplier = inverse, negacyclic, multiplier
        kw = dict(multiplier=multiplier, mult_stages=mult_stages, reducer=reducer)
        self._stages = []                 # per stage: [(up index, down index, Butterfly)]
        for s in range(params.log_k):
            pairs = stage_pairs(s, k, inverse)
            twiddles = stage_twiddles(s, params, inverse, negacyclic)
            units = [Butterfly(params.modulus, twiddle=wd, twiddle_up=wu, mult_latency=latencies[s]
                               - Butterfly.add_latency(wu is not None), **kw)
                     for wu, wd in twiddles]
            self._stages.append([(i, j, u) for (i, j), u in zip(pairs, units)])
        self._post = []
        if inverse and negacyclic:
            self._post = [ConstMul(params.modulus, c, latency=latencies[-1], **kw)
                          for c in negacyclic_post_twiddles(params)]
        layout = data.ArrayLayout(params.modulus.bits, k)
        super().__init__(layout, layout)

    @staticmethod
    def _plan(k, modulus, inverse, negacyclic, mult_stages, reducer, multiplier, roots):
        """The :class:`~fhe_hw.params.NTTParams` and the stage latencies (each stage's
        butterflies padded to the slowest; the negacyclic inverse's post-multiplication last);
        raises ``ValueError``/``TypeError`` for refused parameters."""
        require_int("k", k)
        check_bool("inverse", inverse)
        check_bool("negacyclic", negacyclic)
        check_mult_stages(mult_stages)
        if multiplier not in MULTIPLIERS:
            raise ValueError(f"multiplier must be one of {', '.join(MULTIPLIERS)}, "
                             f"not {multiplier!r}")
        params = ntt_params(modulus, k, negacyclic=negacyclic, **roots)
        kw = dict(multiplier=multiplier, mult_stages=mult_stages, reducer=reducer)
        latencies = [max(Butterfly.latency_of(params.modulus, twiddle=wd, twiddle_up=wu, **kw)
                         for wu, wd in stage_twiddles(s, params, inverse, negacyclic))
                     for s in range(params.log_k)]
        if inverse and negacyclic:
            latencies.append(max(ConstMul.latency_of(params.modulus, c, **kw)
                                 for c in negacyclic_post_twiddles(params)))
        return params, latencies

    @staticmethod
    def latency_of(k, modulus, *, inverse=False, negacyclic=False, mult_stages=None,
                   reducer="auto", multiplier="auto", root=None, psi=None, omega=None):
        """The :attr:`latency` of the ParallelNTT with these parameters without building it;
        raises the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        return sum(ParallelNTT._plan(k, modulus, inverse, negacyclic, mult_stages, reducer,
                                     multiplier, dict(root=root, psi=psi, omega=omega))[1])

    @staticmethod
    def cycles_of(k, modulus, *, transforms=1, **params):
        """:meth:`cycles` of the ParallelNTT with these parameters without building it."""
        latency = ParallelNTT.latency_of(k, modulus, **params)
        return parallel_ntt_cycles(latency, transforms)

    @property
    def k(self):
        return self._params.k

    @property
    def modulus(self):
        return self._params.p

    @property
    def params(self):
        """The :class:`~fhe_hw.params.NTTParams` (ω, k^-1, ψ) the twiddles come from."""
        return self._params

    @property
    def inverse(self):
        return self._inverse

    @property
    def negacyclic(self):
        return self._negacyclic

    @property
    def stage_latencies(self):
        """Latency of each butterfly stage (and of the negacyclic post-multiplication)."""
        return list(self._stage_latencies)

    @property
    def multiplier_kinds(self):
        """How many twiddle multipliers are shifts and how many ModMuls:
        ``{"shift": n, "modmul": n}`` (constant-1 multipliers count as their kind)."""
        kinds = {"shift": 0, "modmul": 0}
        for stage in self._stages:
            for _, _, u in stage:
                for kind in u.multiplier_kinds:
                    kinds[kind] += 1
        for u in self._post:
            kinds[u.kind] += 1
        return kinds

    def cycles(self, transforms=1):
        """:func:`parallel_ntt_cycles` of this unit: ``transforms + latency``."""
        return parallel_ntt_cycles(self._latency, transforms)

    def elaborate(self, platform):
        m = Module()
        values = [self.i.payload[n] for n in range(self.k)]
        valid = self.i.valid
        for s, stage in enumerate(self._stages):
            out = list(values)
            for n, (i, j, unit) in enumerate(stage):
                m.submodules[f"s{s}_bf{n}"] = unit
                m.d.comb += [unit.i.payload.up.eq(values[i]), unit.i.payload.down.eq(values[j]),
                             unit.i.valid.eq(valid)]
                out[i], out[j] = unit.o.payload.up, unit.o.payload.down
            values, valid = out, stage[0][2].o.valid
        for n, unit in enumerate(self._post):
            m.submodules[f"post{n}"] = unit
            m.d.comb += [unit.i.payload.eq(values[n]), unit.i.valid.eq(valid)]
        if self._post:
            values, valid = [u.o.payload for u in self._post], self._post[0].o.valid
        m.d.comb += [self.o.payload[n].eq(v) for n, v in enumerate(values)]
        m.d.comb += self.o.valid.eq(valid)
        return m
