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

from dataclasses import dataclass, field

from amaranth import Module
from amaranth.lib import data

from ..arith.pipeline import FixedLatencyUnit, modulus_param, mult_stages_param
from ..model.ntt import negacyclic_post_twiddles, stage_pairs, stage_twiddles
from ..params import NTTParams, get_modulus, ntt_params, require_int
from ..plan import Plan, param
from .butterfly import Butterfly, ButterflyPlan, add_latency
from .roots import omega_param, psi_param, root_description, root_param
from .shift import MULTIPLIERS, ConstMul

__all__ = ["ParallelNTT", "ParallelNTTPlan"]


@dataclass(frozen=True)
class ParallelNTTPlan(Plan):
    """The parameters of :class:`ParallelNTT` and what they derive.

    Parameters
    ----------
    n : int
        The transform size, a power of two >= 2 dividing q - 1 for each prime q | p ([Cao14]
        Table 2 uses 64 for fermat32 and general32, 128 for fermat64 and solinas64).
    modulus : str, int or Modulus
        p.
    inverse : bool
        The inverse transform (n^-1 folded into the last stage's twiddles).
    negacyclic : bool
        The transform mod x^n + 1 (needs 2n | q - 1).
    mult_stages : int or None
        Registers in the constant-operand ModMuls' multipliers.
    multiplier : str
        ``auto`` (shifts where the twiddle allows), ``shift`` (shifts or ``ValueError``) or
        ``modmul`` (multipliers only): see :class:`~fhe_hw.ntt.shift.ConstMul`.
    root : str or None
        The root-of-unity convention (:func:`fhe_hw.params.ntt_params`; default
        ``generator``), unless ``psi`` (negacyclic) or ``omega`` (cyclic) gives the root.
    psi, omega : int or None
        The root itself.
    reducer : str
        The constant-operand ModMuls' reducer (default ``auto``).

    Attributes
    ----------
    roots : NTTParams
        ω, n^-1 and ψ the twiddles come from.
    stage_latencies : tuple of int
        Latency of each butterfly stage (its butterflies padded to the slowest), then of the
        negacyclic inverse's post-multiplication by n^-1·ψ^-i.
    """

    n: int = param(help="transform size (power of two)", cli_default=64)
    modulus: object = modulus_param("fermat32")
    inverse: bool = param(False, help="inverse transform (n^-1 folded in)", kw_only=True)
    negacyclic: bool = param(False, help="transform mod x^n + 1", kw_only=True)
    mult_stages: int | None = mult_stages_param()
    multiplier: str = param("auto", help="twiddle multipliers: auto, shift or modmul",
                            kw_only=True)
    root: str | None = root_param()
    psi: int | None = psi_param()
    omega: int | None = omega_param()
    reducer: str = field(default="auto", kw_only=True)
    roots: NTTParams = field(init=False, repr=False, compare=False)
    stage_latencies: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.multiplier not in MULTIPLIERS:
            raise ValueError(f"multiplier must be one of {', '.join(MULTIPLIERS)}, "
                             f"not {self.multiplier!r}")
        get_modulus(self.modulus).check_k(self.n, "n")
        roots = ntt_params(self.modulus, self.n, negacyclic=self.negacyclic, root=self.root,
                           psi=self.psi, omega=self.omega)
        latencies = [max(ButterflyPlan(roots.modulus, twiddle=wd, twiddle_up=wu,
                                       **self.multiplier_options).latency
                         for wu, wd in stage_twiddles(s, roots, self.inverse, self.negacyclic))
                     for s in range(roots.log_k)]
        if self.inverse and self.negacyclic:
            latencies.append(max(ConstMul.latency_of(roots.modulus, c, **self.multiplier_options)
                                 for c in negacyclic_post_twiddles(roots)))
        self._set(roots=roots, stage_latencies=tuple(latencies))

    @property
    def multiplier_options(self):
        """The keywords every twiddle multiplier takes: ``multiplier``, ``mult_stages``,
        ``reducer``."""
        return dict(multiplier=self.multiplier, mult_stages=self.mult_stages,
                    reducer=self.reducer)

    @property
    def latency(self):
        """The sum of :attr:`stage_latencies`."""
        return sum(self.stage_latencies)

    def cycles(self, transforms=1):
        """Cycles from the first input to the last output of ``transforms`` transforms, both
        included, fed one per cycle: ``transforms + latency``."""
        require_int("transforms", transforms, minimum=1)
        return transforms + self.latency

    def describe(self):
        """The root of unity the twiddles come from."""
        return root_description(self.roots)


class ParallelNTT(FixedLatencyUnit):
    """Fully parallel pipelined n-point NTT ([Cao14] §3.2): log2 n stages of n/2
    constant-twiddle butterflies, one transform per cycle.

    Parameters
    ----------
    plan : ParallelNTTPlan
        Or the arguments of one (``ParallelNTT(64, "fermat32", inverse=True)``).

    Attributes
    ----------
    i : In(stream.Signature(data.ArrayLayout(m, n))), always ready
        Element i = a[i] of the model's input list (natural order forward, bit-reversed
        spectrum inverse), each in [0, p).
    o : Out(stream.Signature(data.ArrayLayout(m, n))), always ready
        The model's output list (:func:`fhe_hw.model.ntt.ntt_radix2` with :attr:`params`).
    latency : int
        The sum of the stage latencies (butterfly: twiddle multiplier + 1, + 2 in the
        inverse's last stage, which has the x_up multiplier, see :class:`Butterfly`; a stage's
        butterflies are padded to the slowest of them), plus the post-multiplication by
        n^-1·ψ^-i for the negacyclic inverse; :attr:`stage_latencies` lists them. Throughput
        one transform per cycle; :meth:`cycles`.
    """

    def __init__(self, *args, **kw):
        self.plan = plan = ParallelNTTPlan.coerce(*args, **kw)
        params, latencies = plan.roots, plan.stage_latencies
        self._latency = plan.latency
        kw = plan.multiplier_options
        self._stages = []                 # per stage: [(up index, down index, Butterfly)]
        for s in range(params.log_k):
            pairs = stage_pairs(s, plan.n, plan.inverse)
            twiddles = stage_twiddles(s, params, plan.inverse, plan.negacyclic)
            units = [Butterfly(params.modulus, twiddle=wd, twiddle_up=wu,
                               mult_latency=latencies[s] - add_latency(wu is not None), **kw)
                     for wu, wd in twiddles]
            self._stages.append([(i, j, u) for (i, j), u in zip(pairs, units)])
        self._post = []
        if plan.inverse and plan.negacyclic:
            self._post = [ConstMul(params.modulus, c, latency=latencies[-1], **kw)
                          for c in negacyclic_post_twiddles(params)]
        layout = data.ArrayLayout(params.modulus.bits, plan.n)
        super().__init__(layout, layout)

    @property
    def n(self):
        return self.plan.n

    @property
    def modulus(self):
        return self.plan.roots.p

    @property
    def params(self):
        """The :class:`~fhe_hw.params.NTTParams` (ω, n^-1, ψ) the twiddles come from."""
        return self.plan.roots

    @property
    def inverse(self):
        return self.plan.inverse

    @property
    def negacyclic(self):
        return self.plan.negacyclic

    @property
    def stage_latencies(self):
        """Latency of each butterfly stage (and of the negacyclic post-multiplication)."""
        return list(self.plan.stage_latencies)

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
        """The plan's :meth:`~ParallelNTTPlan.cycles`: ``transforms + latency``."""
        return self.plan.cycles(transforms)

    def elaborate(self, platform):
        m = Module()
        values = [self.i.payload[n] for n in range(self.n)]
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
