"""Kawamura et al. recursive base extension on a Cox-Rower architecture:
[Kir25] §2.5.1.3 (Algorithm 3, eqs 2.10–2.18) and §4.1.1 (Figs 4.1–4.2,
Tables 4.1–4.2, N·(l+1) iterations in Table 4.5).

Per coefficient the Rowers first compute ξ_i = a_{q_i}·|Q̂_i^-1|_{q_i} mod q_i in parallel (one
iteration), then for s = 0..l-1 the ξ_s are broadcast one per iteration: the Cox unit adds
TRUNC(ξ_s)/2^r — the ρ most significant of the r bits of ξ_s — to its ρ-bit fraction σ
(σ_{-1} = δ) and its carry out is α_{s}; every Rower j accumulates
ξ_s·|Q̂_s|_{p_j} + α_{s}·|−Q|_{p_j} modulo p_j (Line 10). The Cox accumulator is bit-exact with
:func:`fhe_hw.model.rns.kawamura_steps`; parameters outside the error bound are refused by
:meth:`fhe_hw.params.KawamuraConstants.build`.

FPGA adaptation (§4.1.1.2: "we would have to use pipelined adders and modular multipliers"):
each Rower has a pipelined run-time-modulus Montgomery multiplier (its modulus is q_i in the ξ
iteration and p_j in the others), a modular adder for the α term and a modular accumulator
(2 modular adders per Rower, Table 4.2). Iterations run in frames of l + 1 cycles: slot 0 takes a
new coefficient's ξ multiplications, the other l slots broadcast the ξ_s of the coefficient
whose ξ came out of the multipliers most recently (held in a shift register), so the multiplier
latency is hidden and a coefficient completes every l + 1 cycles.

The Cox-Rower needs all l residues of a coefficient at once (§4.1.1.1), so this engine streams
coefficients, not residue polynomials: one input beat holds the l source residues of one
coefficient, one output beat its k target residues. The whole datapath stalls (clock enable)
while the output cannot move.
"""

from dataclasses import dataclass, field
from fractions import Fraction
from math import log2

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith import ModAdd
from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from ..arith.pipeline import deep_param
from ..cliargs import fraction
from ..component import Component
from ..lib.delay import delay
from ..lib.stream import stall_on_backpressure
from ..model import rns as model
from ..params import KawamuraConstants
from ..plan import param
from .common import lanes, wrap_inc
from .plan import BaseConversionPlan

__all__ = ["Kawamura", "KawamuraPlan"]


@dataclass(frozen=True)
class KawamuraPlan(BaseConversionPlan):
    """The parameters of :class:`Kawamura` and what they derive, without building it.

    Parameters
    ----------
    prime_bits, n, source_limbs, target_limbs, word, mult_stages, prime_n, source_primes, \
target_primes
        As :class:`~fhe_hw.rns.plan.BaseConversionPlan`; the generated source base is the l
        largest primes (r bits, close to 2^r, as the error bound wants).
    rho : int
        ρ, the bits of ξ kept by TRUNC.
    delta : Fraction, int, float or None
        δ, the Cox unit's initial offset, rounded up to ρ fractional bits; default 1/8, or
        1/2 when centred.
    centred : bool
        δ = 1/2: α rounded to nearest, so that the output is the centred lift of every
        0 <= X < Q, X − Q when 2X >= Q, as OpenFHE's ``SwitchCRTBasis`` returns it, except
        ⌈Q/2⌉ <= X < Q/2 + D (:attr:`Kawamura.centred_window`).
    deep : bool
        The multipliers' deep rounds, one carry chain per register: the default, a faster
        clock for a longer fill; False: one round per register.

    Attributes
    ----------
    source, target, width
        As :class:`~fhe_hw.rns.plan.BaseConversionPlan`.
    constants : KawamuraConstants
        The Cox-Rower's constants; refuses l·(ε_Q + λ_Q) > δ (1/2 when centred) or δ >= 1
        ([Kir25] eqs 2.17–2.18).
    multiplier : DynamicModMulPlan
        The Rowers' multipliers.
    """

    rho: int = param(16, help="bits of xi kept by TRUNC", range=(1, None))
    delta: object = param(None, parse=fraction, help="initial Cox offset, e.g. 1/8 (default "
                          "1/8; 1/2 with --centred true)")
    centred: bool = param(False, help="alpha rounded to nearest: the centred lift (X - Q when "
                          "2X >= Q) as OpenFHE's SwitchCRTBasis, exact except within D above "
                          "Q/2 (docs/rns.md) (true/false)")
    deep: bool = deep_param()
    constants: KawamuraConstants = field(init=False, repr=False, compare=False)
    multiplier: DynamicModMulPlan = field(init=False, repr=False, compare=False)

    _source_high = True

    def __post_init__(self):
        super().__post_init__()
        delta = self.delta
        if delta is None and not self.centred:
            delta = Fraction(1, 8)
        c = KawamuraConstants.build(self.source, self.target, self.rho, delta,
                                    centred=self.centred)
        # The multiplier latency adds to the engine's fill only.
        self._set(constants=c, multiplier=self._multiplier(self.source + self.target,
                                                           self.deep))

    @property
    def latency(self):
        """Cycles from a coefficient's input transfer to its output transfer: the ξ product, l
        broadcast iterations (skipping one ξ slot unless the multiplier latency is a multiple
        of l + 1), the last product, the α adder, the accumulator and the skid buffer."""
        lm, l = self.multiplier.latency, len(self.source)
        last = lm + l + (0 if lm % (l + 1) == 0 else 1)
        return last + lm + 3

    def cycles(self):
        """Exact cycles from the first input transfer to the last output transfer for N
        coefficients with always-valid input and always-ready output:
        (N − 1)·(l + 1) + :attr:`~KawamuraPlan.latency` + 1 = N·(l+1) + (latency − l)."""
        return (self.n - 1) * (len(self.source) + 1) + self.latency + 1

    def describe(self):
        bases = super().describe()
        if self.centred:
            c = self.constants
            share = c.centred_distance / c.source.Q
            bases["centred lift"] = (f"(X - Q if 2X >= Q) mod p_j, exact except for "
                                     f"ceil(Q/2) <= X < Q/2 + D, D = l(eps + lambda)Q = "
                                     f"2^{log2(share):.2f} Q")
        return bases


class Kawamura(Component):
    """Cox-Rower base extension ([Kir25] Algorithm 3, §4.1.1) of N coefficients.

    Parameters: a :class:`KawamuraPlan` or its arguments (``prime_bits``, ``n``,
    ``source_limbs``, ``target_limbs``, ``rho``, ``delta``, ``centred``; keywords ``word``,
    ``mult_stages``, ``deep``, ``prime_n``, ``source_primes``, ``target_primes``): l source
    moduli (r bits, close to 2^r), k target moduli, N coefficients per conversion, ρ, δ.

    Ports: ``i`` — stream of ``data.ArrayLayout(r, l)``: the residues (a_{q_0}, ...,
    a_{q_{l-1}}) of one coefficient, 0 <= A < :attr:`max_input` (Q when centred); ``o`` —
    ``data.ArrayLayout(r, k)``: its residues a_{p_j}. r is the widest modulus. One
    coefficient per l + 1 cycles.

    Cycles: :meth:`cycles` = N·(l+1) (Table 4.5) + a constant fill/drain latency.
    Arithmetic: max(l, k) Rowers: that many run-time-modulus multipliers and 2·k modular adders,
    plus the Cox unit's ρ-bit adder.

    Raises (through the plan) ``ValueError`` when l·(ε_Q + λ_Q) > δ (1/2 when centred) or
    δ >= 1 ([Kir25] eqs 2.17–2.18), for non-coprime moduli, N not a power of two, or moduli
    without a common Montgomery word.
    """

    def __init__(self, *args, **kw):
        self.plan = p = KawamuraPlan.coerce(*args, **kw)
        self._source, self._target, self._n, self._c = p.source, p.target, p.n, p.constants
        self._width, self._proto = p.width, p.multiplier
        super().__init__({
            "i": In(stream.Signature(data.ArrayLayout(self._width, len(p.source)))),
            "o": Out(stream.Signature(data.ArrayLayout(self._width, len(p.target)))),
        })

    @property
    def source(self):
        return self._source

    @property
    def target(self):
        return self._target

    @property
    def n(self):
        return self._n

    @property
    def constants(self):
        return self._c

    @property
    def rho(self):
        return self._c.rho

    @property
    def delta(self):
        return self._c.delta

    @property
    def word(self):
        return self._proto.word

    @property
    def width(self):
        return self._width

    @property
    def multiplier_latency(self):
        return self._proto.latency

    @property
    def centred(self):
        return self._c.centred

    @property
    def max_input(self):
        """Exclusive bound on the inputs: (1 − δ)·Q, below which they extend exactly; Q when
        centred."""
        return self._c.max_input

    @property
    def centred_window(self):
        """Centred: the inputs ⌈Q/2⌉ <= X < Q/2 + D whose output may be X mod p_j instead of
        (X − Q) mod p_j (docs/rns.md)."""
        return self._c.centred_window

    @property
    def rowers(self):
        return max(len(self._source), len(self._target))

    @property
    def arithmetic_units(self):
        return {"MM": self.rowers, "MA": 2 * len(self._target), "A": 1}

    def paper_iterations(self):
        """[Kir25] Table 4.5: N·(l+1)."""
        return model.iterations_cox_rower(self._n, len(self._source))

    @property
    def latency(self):
        """:attr:`KawamuraPlan.latency`."""
        return self.plan.latency

    def cycles(self):
        """:meth:`KawamuraPlan.cycles`: exact cycles of N coefficients."""
        return self.plan.cycles()

    def elaborate(self, platform):
        m, core = Module(), Module()
        c, mul, r = self._c, self._proto, self._width
        l, k, lm, rho = len(self._source), len(self._target), mul.latency, c.rho

        # slot 0 of each frame (xi_slot) as a register: slot == 0 a cycle ahead
        slot, xi_slot = Signal(range(l + 1)), Signal(init=1)
        core.d.sync += [slot.eq(wrap_inc(slot, l)), xi_slot.eq(slot == l)]
        accept = Signal()
        m.d.comb += accept.eq(self.i.valid & self.i.ready)

        # ξ shift register (broadcast order ξ_0, ξ_1, ...) and its fill level
        sr = [Signal(r, name=f"xi{s}") for s in range(l)]
        left = Signal(range(l + 1))
        s_idx = Signal(range(l + 1))
        core.d.comb += s_idx.eq(l - left)
        consume = Signal()
        core.d.comb += consume.eq(~xi_slot & (left != 0))
        xi_back, _ = delay(core, lm, accept)
        left_next = Mux(xi_back, l, Mux(consume, left - 1, left))

        # Cox unit (Lines 5, 7–9): ρ-bit σ, carry out = α_{s}
        sigma, total = Signal(rho), Signal(rho + 1)
        top = sr[0][c.r - rho:c.r]
        core.d.comb += total.eq(Mux(s_idx == 0, c.delta_fixed, sigma) + top)
        with core.If(consume):
            core.d.sync += sigma.eq(total[:rho])
        alpha = total[rho]

        # Rowers: multipliers (ξ iteration modulo q_i, broadcast iterations modulo p_j)
        muls = []
        inputs = lanes(self.i.payload.as_value(), r, l)
        for x in range(self.rowers):
            core.submodules[f"mul{x}"] = unit = DynamicModMul(mul.moduli, mul.word, width=r,
                                                              mult_stages=mul.mult_stages,
                                                              deep=mul.deep)
            muls.append(unit)
            qx = self._source[x] if x < l else self._source[0]
            px = self._target[x] if x < k else self._target[0]
            c1 = mul.premultiply(c.Q_hat_inv[x], qx) if x < l else 0
            c2 = Array(Const(mul.premultiply(c.Q_hat_mod_p[x][s], px) if x < k and s < l else 0, r)
                       for s in range(l + 1))
            # the constant operand is a register beside the Rower, loaded with the next
            # cycle's constant, so that no broadcast counter and table precede the multiplier
            const = Signal(r, name=f"const{x}", init=c1)
            core.d.sync += const.eq(Mux(slot == l, c1, c2[l - left_next]))
            core.d.comb += [
                unit.i.valid.eq(Mux(xi_slot, accept & (x < l), consume & (x < k))),
                unit.i.payload.a.eq(Mux(xi_slot, inputs[x] if x < l else 0, sr[0])),
                unit.i.payload.b.eq(const),
                unit.i.payload.q.eq(Mux(xi_slot, qx, px)),
            ]
        pv, pt = delay(core, lm, consume, alpha=alpha, first=s_idx == 0, last=s_idx == l - 1)
        core.d.sync += left.eq(left_next)
        with core.If(consume):
            core.d.sync += [sr[s].eq(sr[s + 1]) for s in range(l - 1)]
        with core.If(xi_back):
            core.d.sync += [sr[s].eq(muls[s].o.payload) for s in range(l)]

        # Rower accumulators (Line 10): y_j += ξ_s·|Q̂_s|_{p_j} + α_{s}·|−Q|_{p_j} (mod p_j)
        v2, t2 = delay(core, 1, pv, first=pt["first"], last=pt["last"])
        out_valid, out_data, results = Signal(), Signal(r * k), []
        for j, p in enumerate(self._target):
            pw = p.bit_length()
            core.submodules[f"add_alpha{j}"] = add_a = ModAdd(p)
            core.submodules[f"add_acc{j}"] = add_y = ModAdd(p, pipelined=False)
            acc = Signal(pw, name=f"y{j}")
            core.d.comb += [add_a.i.valid.eq(pv), add_a.i.payload.a.eq(muls[j].o.payload[:pw]),
                            add_a.i.payload.b.eq(Mux(pt["alpha"], c.minus_Q_mod_p[j], 0)),
                            add_y.i.valid.eq(v2), add_y.i.payload.a.eq(acc),
                            add_y.i.payload.b.eq(add_a.o.payload)]
            new = Mux(t2["first"], add_a.o.payload, add_y.o.payload)
            with core.If(v2):
                core.d.sync += acc.eq(new)
            results.append(new)
        core.d.sync += out_valid.eq(v2 & t2["last"])
        with core.If(v2 & t2["last"]):
            core.d.sync += out_data.eq(Cat(*(Cat(v, Const(0, r - len(v))) for v in results)))
        advance = stall_on_backpressure(m, core, out_valid, out_data, self.o)
        m.d.comb += self.i.ready.eq(advance & xi_slot)
        return m

