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
from types import SimpleNamespace

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith import ModAdd
from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from ..arith.pipeline import deep_param
from ..cliargs import fraction
from ..component import Component
from ..lib.delay import delay
from ..model import rns as model
from ..params import KawamuraConstants
from ..plan import param
from .common import core_signature, lanes, stalled_core, wrap_inc
from .plan import BaseConversionPlan

__all__ = ["Kawamura", "KawamuraPlan", "CoxRowerCore"]


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
        m = Module()
        stalled_core(m, CoxRowerCore(self.plan), self.i, self.o)
        return m


class CoxRowerCore(Component):
    """The Cox-Rower datapath and its frame control (:class:`Kawamura`, see the module
    docstring); takes a :class:`KawamuraPlan`. It takes a coefficient (``i_ready``) in slot 0
    of each frame of l + 1 cycles and runs under the engine's clock enable
    (:func:`~fhe_hw.rns.common.stalled_core`).

    Ports: :func:`~fhe_hw.rns.common.core_signature`, one coefficient's l source residues in
    (r bits each), its k target residues out.
    """

    def __init__(self, plan):
        self._plan, self._c, self._proto, self._r = plan, plan.constants, plan.multiplier, \
            plan.width
        self._l, self._k = len(plan.source), len(plan.target)
        super().__init__(core_signature(plan.width * self._l, plan.width * self._k))

    def elaborate(self, platform):
        m = Module()
        f = self._frame(m)
        alpha = self._cox(m, f)
        muls = self._rowers(m, f)
        pv, pt = delay(m, self._proto.latency, f.consume, alpha=alpha, first=f.s_idx == 0,
                       last=f.s_idx == self._l - 1)
        m.d.sync += f.left.eq(f.left_next)
        with m.If(f.consume):
            m.d.sync += [f.sr[s].eq(f.sr[s + 1]) for s in range(self._l - 1)]
        with m.If(f.xi_back):
            m.d.sync += [f.sr[s].eq(muls[s].o.payload) for s in range(self._l)]
        self._accumulators(m, pv, pt, muls)
        m.d.comb += self.i_ready.eq(f.xi_slot)
        return m

    def _frame(self, m):
        """The frame's slot counter (slot 0, ``xi_slot``, as a register: slot == 0 a cycle
        ahead), the ξ shift register ``sr`` (broadcast order ξ_0, ξ_1, ...) with its fill level
        ``left`` and the broadcast iteration ``s_idx``; ``consume``: a broadcast iteration;
        ``xi_back``: a coefficient's ξ leave the multipliers."""
        l = self._l
        slot, xi_slot = Signal(range(l + 1)), Signal(init=1)
        m.d.sync += [slot.eq(wrap_inc(slot, l)), xi_slot.eq(slot == l)]
        sr = [Signal(self._r, name=f"xi{s}") for s in range(l)]
        left, s_idx, consume = Signal(range(l + 1)), Signal(range(l + 1)), Signal()
        m.d.comb += [s_idx.eq(l - left), consume.eq(~xi_slot & (left != 0))]
        xi_back, _ = delay(m, self._proto.latency, self.i_valid)
        return SimpleNamespace(slot=slot, xi_slot=xi_slot, sr=sr, left=left, s_idx=s_idx,
                               consume=consume, xi_back=xi_back,
                               left_next=Mux(xi_back, l, Mux(consume, left - 1, left)))

    def _cox(self, m, f):
        """The Cox unit (Lines 5, 7–9): ρ-bit σ; returns its carry out, α_s."""
        c, rho = self._c, self._c.rho
        sigma, total = Signal(rho), Signal(rho + 1)
        top = f.sr[0][c.r - rho:c.r]
        m.d.comb += total.eq(Mux(f.s_idx == 0, c.delta_fixed, sigma) + top)
        with m.If(f.consume):
            m.d.sync += sigma.eq(total[:rho])
        return total[rho]

    def _rowers(self, m, f):
        """The Rowers' multipliers: the ξ iteration modulo q_i, the broadcast iterations
        modulo p_j. Returns them."""
        c, mul, r, l, k = self._c, self._proto, self._r, self._l, self._k
        source, target = self._plan.source, self._plan.target
        muls = []
        inputs = lanes(self.i_data, r, l)
        for x in range(max(l, k)):
            m.submodules[f"mul{x}"] = unit = DynamicModMul(mul.moduli, mul.word, width=r,
                                                           mult_stages=mul.mult_stages,
                                                           deep=mul.deep)
            muls.append(unit)
            qx = source[x] if x < l else source[0]
            px = target[x] if x < k else target[0]
            c1 = mul.premultiply(c.Q_hat_inv[x], qx) if x < l else 0
            c2 = Array(Const(mul.premultiply(c.Q_hat_mod_p[x][s], px) if x < k and s < l else 0, r)
                       for s in range(l + 1))
            # the constant operand is a register beside the Rower, loaded with the next
            # cycle's constant, so that no broadcast counter and table precede the multiplier
            const = Signal(r, name=f"const{x}", init=c1)
            m.d.sync += const.eq(Mux(f.slot == l, c1, c2[l - f.left_next]))
            m.d.comb += [
                unit.i.valid.eq(Mux(f.xi_slot, self.i_valid & (x < l), f.consume & (x < k))),
                unit.i.payload.a.eq(Mux(f.xi_slot, inputs[x] if x < l else 0, f.sr[0])),
                unit.i.payload.b.eq(const),
                unit.i.payload.q.eq(Mux(f.xi_slot, qx, px)),
            ]
        return muls

    def _accumulators(self, m, pv, pt, muls):
        """The Rower accumulators (Line 10): y_j += ξ_s·|Q̂_s|_{p_j} + α_s·|−Q|_{p_j}
        (mod p_j); the coefficient's last iteration's sums are the output beat."""
        c, r = self._c, self._r
        v2, t2 = delay(m, 1, pv, first=pt["first"], last=pt["last"])
        results = []
        for j, p in enumerate(self._plan.target):
            pw = p.bit_length()
            m.submodules[f"add_alpha{j}"] = add_a = ModAdd(p)
            m.submodules[f"add_acc{j}"] = add_y = ModAdd(p, pipelined=False)
            acc = Signal(pw, name=f"y{j}")
            m.d.comb += [add_a.i.valid.eq(pv), add_a.i.payload.a.eq(muls[j].o.payload[:pw]),
                         add_a.i.payload.b.eq(Mux(pt["alpha"], c.minus_Q_mod_p[j], 0)),
                         add_y.i.valid.eq(v2), add_y.i.payload.a.eq(acc),
                         add_y.i.payload.b.eq(add_a.o.payload)]
            new = Mux(t2["first"], add_a.o.payload, add_y.o.payload)
            with m.If(v2):
                m.d.sync += acc.eq(new)
            results.append(new)
        m.d.sync += self.o_valid.eq(v2 & t2["last"])
        with m.If(v2 & t2["last"]):
            m.d.sync += self.o_data.eq(Cat(*(Cat(v, Const(0, r - len(v))) for v in results)))
