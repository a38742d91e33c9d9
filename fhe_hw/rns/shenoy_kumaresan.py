"""Shenoy–Kumaresan base extension for polynomial residues: [Kir25] §2.5.1.2
(Algorithm 2), §3.3 (Sum and Post-Sum Processes, Fig. 3.3), §3.3.2 (fully pipelined
architecture, Fig. 3.4), §3.3.3 (folded architecture, Fig. 3.5, Table 3.1 constants, Fig. 3.7
BRAM layout, Table 3.2 arithmetic), §3.4 (one residue polynomial at a time) and Table 4.5
(iterations).

:class:`CRTBaseExtension` is the engine shared with fast base conversion ([Kir25] Algorithm 1, the
Sum Process alone, :mod:`.fast_base_conv`); :class:`ShenoyKumaresan` adds the redundant residue
q_l and the Post-Sum Process.

Data flow (TP lanes, R = N/TP rows per residue polynomial; one *pass* computes
``targets_per_pass`` = t target residues, the thesis's design is t = 1 and re-reads the source
for every target, so a conversion is P = ⌈k/t⌉ passes):

* Sum Process, per beat of source residue q_i (row x): μ_q = a·|Q̂_i^-1|_{q_i} mod q_i (TP
  multipliers, modulus q_i), then for every target slot μ_p = μ_q·|Q̂_i|_{p_j} mod p_j and
  μ_{q_l} = μ_q·|Q̂_i|_{q_l} mod q_l (broadcast constants, Fig. 3.4), accumulated into
  ``acc_j[x]`` / ``acc_l[x]`` (block-RAM banks, TP lanes per row, Fig. 3.7). The redundant
  residue polynomial goes to the ``a_ql`` bank.
* Post-Sum Process, per row x and target slot: ms = acc_l − a_ql (mod q_l), α = ms·|Q^-1|_{q_l},
  μ' = α·|Q|_{p_j} (mod p_j), a_{p_j} = acc_j − μ' (mod p_j).

Multipliers are :class:`~fhe_hw.arith.montgomery_dyn.DynamicModMul` ([Kir25] Algorithm 7 with the
modulus as an operand): the moduli change with every residue polynomial, and one run-time-modulus
multiplier per lane and role replaces one per modulus. Constants are premultiplied by R and read
from small ROMs indexed by the (pass, residue) counters. Folded (Fig. 3.5): the Post-Sum reuses
the q_l multipliers and those of target slot 0, (t + 2)·TP multipliers; pipelined (Fig. 3.4): the
Post-Sum has its own 2·TP, (t + 4)·TP in all (5·TP and 3·TP for t = 1, Table 3.2).

Scheduling. Bank reads of every item (Sum or Post-Sum) happen a fixed time after the item starts,
so the Sum and Post-Sum never compete for a read port: the Post-Sum of a pass starts once the
pass's last accumulation is written and reads row x once the redundant row x has arrived; the
next pass's first residue (which only writes) may overtake it row by row; later residues (which
read) wait for the Post-Sum to finish issuing. Post-Sum results go to an output queue whose free
space is the issue credit, so output back-pressure never stalls a fixed-latency unit; the queue
also lets the Post-Sum start while the redundant residue still streams in, and the pass's outputs
are released when its Sum Process (all input beats of the pass) is complete — the Sum and
Post-Sum Processes follow each other as in §3.3. The folded engine does not take input while it
outputs (§3.3.3: no simultaneous reads and writes on the HBM bandwidth).

Clock. Between two registers there is at most one carry chain: the accumulation adds μ and
μ − q (computed as μ enters its delay line) to the row side by side
(:func:`~fhe_hw.arith.modadd.add_select`), the Post-Sum subtracters compute a − b and
a − b + q side by side (:func:`~fhe_hw.arith.modadd.sub_parallel`), the Sum ROM address is a
counter with the address after the current residue polynomial in a register beside it, both
read by the ROM so that its word leaves through the ROM's output register
(:class:`~fhe_hw.lib.bram.RegisteredROM`, the DP16KD's own on the ECP5) in time for the
beat (the engine takes no input in the first cycle after reset, whose read the reset clears);
the selected word is registered once more before it fans out to the multipliers (stage A's
modulus and constant in a copy per lane). The
Post-Sum's "redundant row x has arrived" is a register, and the bank read addresses are
selected by registers (a reading Sum item at the read stage), never by the issue decision.
The accumulation reads its bank through a fabric register of its own, which a first residue's
item clears through the register's synchronous reset (the ``first`` flag never meets the carry
chain); with several target slots, the Post-Sum's word of its slot is a register of
the banks' block-RAM outputs, selected a cycle ahead. The issue credit's "room left" and the
output gate are registers, and the folded engine's hold meets the input handshake only in
front of ``i.ready``'s register. The output queue (:class:`~fhe_hw.lib.stream.CreditQueue`) has
no level check on its write, since the credit guarantees room, and drains into a skid buffer
(:class:`~fhe_hw.lib.stream.SkidBuffer`) behind which the gate holds ``o``: the queue's read depends
on registers only, never on ``o.ready``. None of this adds a cycle where N/TP hides the pipeline
(:attr:`hidden_latency_rows`); below it, the constants' register adds one to the Sum's latency
and the skid buffer one to the output's.
"""

from dataclasses import dataclass, field
from math import ceil
from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith.modadd import add_select, sub_parallel
from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from ..arith.pipeline import KEEP
from ..component import Component, FixedRun
from ..lib.bram import RegisteredRAM
from ..lib.delay import delay
from ..lib.rom import Rom
from ..lib.stream import CreditQueue, SkidBuffer
from ..model import rns as model
from ..params import ShenoyKumaresanConstants
from ..plan import StreamPlan, param
from .common import MAX_N, MAX_RESIDUES, check_choice, check_ring, lanes, wrap_inc
from .plan import BaseConversionPlan, check_primes

__all__ = ["CRTBaseExtension", "CRTBaseExtensionPlan", "ShenoyKumaresan", "ShenoyKumaresanPlan",
           "ARCHITECTURES"]

ARCHITECTURES = ("folded", "pipelined")

#: Cycles from a bank read address to its data: the block RAM's registered read port, its
#: output register (:class:`~fhe_hw.lib.bram.RegisteredRAM`) and a fabric register, so
#: that neither the block RAM's clock-to-out (about 6 ns on the ECP5 DP16KD without its output
#: register) nor the wire from the block-RAM row to the logic (3 ns and more) shares a clock
#: period with adder logic.
READ_LATENCY = 3
#: A beat written to the output queue (:class:`~fhe_hw.lib.stream.CreditQueue`) at w is readable
#: from w + 2 and at ``o``, through the skid buffer behind the queue, from w + 3.
_OUT_LATENCY = CreditQueue.LATENCY + 1


@dataclass(frozen=True)
class CRTBaseExtensionPlan(BaseConversionPlan, StreamPlan):
    """The parameters of the Sum / Post-Sum engine (:class:`CRTBaseExtension`) that
    :class:`ShenoyKumaresanPlan` and
    :class:`~fhe_hw.rns.fast_base_conv.FastBaseConversionPlan` share, and what they derive.

    Parameters
    ----------
    prime_bits, n, source_limbs, target_limbs, word, mult_stages, prime_n, source_primes, \
target_primes
        As :class:`~fhe_hw.rns.plan.BaseConversionPlan`.
    lanes : int
        Coefficients per beat (TP in [Kir25]), a power of two up to ``n``.
    architecture : str
        ``"folded"`` (Fig. 3.5: a pass's outputs after its input, no overlap) or
        ``"pipelined"`` (Fig. 3.4: the next pass's input overlaps the outputs).
    targets_per_pass : int
        t target residues per pass over the source, 1 to k (folded only beyond 1; the
        thesis's design is t = 1).

    Attributes
    ----------
    constants
        The constants of Table 3.1 (:class:`~fhe_hw.params.ShenoyKumaresanConstants` or
        :class:`~fhe_hw.params.FastBaseConversionConstants`).
    multiplier : DynamicModMulPlan
        The plan of every multiplier of the engine.
    rows : int
        R = N / lanes beats per residue polynomial.
    passes : int
        P = ⌈k / targets_per_pass⌉.
    acc_latency, issue_latency, out_latency : int
        Cycles from an accepted beat to its bank write, from a Post-Sum issue to its queue
        write, and from a queue write to ``o``.
    """

    lanes: int = param(4, help="coefficients per beat (TP)", range=(1, MAX_N))
    architecture: str = param("folded", help="folded or pipelined")
    targets_per_pass: int = param(1, help="target residues per pass over the source",
                                  range=(1, MAX_RESIDUES))
    constants: object = field(init=False, repr=False, compare=False)
    multiplier: DynamicModMulPlan = field(init=False, repr=False, compare=False)
    rows: int = field(init=False, repr=False, compare=False)
    passes: int = field(init=False, repr=False, compare=False)
    acc_latency: int = field(init=False, repr=False, compare=False)
    issue_latency: int = field(init=False, repr=False, compare=False)
    out_latency: int = field(init=False, repr=False, compare=False)

    #: The redundant residue q_l and the Post-Sum Process (Shenoy–Kumaresan).
    _redundant_path = True

    def __post_init__(self):
        super().__post_init__()
        check_ring(self.n, self.lanes)
        check_choice("architecture", self.architecture, ARCHITECTURES)
        k, t = len(self.target), self.targets_per_pass
        if t > k:
            raise ValueError(f"targets_per_pass must be at most k = {k}, not {t!r}")
        if self.architecture == "pipelined" and t != 1:
            raise ValueError(f"targets_per_pass must be 1 for the pipelined architecture (its "
                             f"Post-Sum overlaps the next pass's first residue polynomial), not "
                             f"{t!r}; use architecture='folded'")
        moduli = self.source + self.target + self._redundant_moduli()
        mul = self._multiplier(moduli, self._deep_rounds(moduli))
        lm = mul.latency
        self._set(multiplier=mul, rows=self.n // self.lanes, passes=ceil(k / t),
                  acc_latency=_acc_latency_of(lm),
                  issue_latency=_issue_latency_of(lm) if self._redundant_path else READ_LATENCY,
                  out_latency=_OUT_LATENCY)

    def _redundant_moduli(self):
        return ()

    def _deep_rounds(self, moduli):
        """Whether the multipliers (of ``moduli``) have the deep rounds, one carry chain per
        register."""
        raise NotImplementedError

    @property
    def input_residues(self):
        """Residue polynomials per pass: l, plus the redundant one for Shenoy–Kumaresan."""
        return len(self.source) + int(self._redundant_path)

    @property
    def input_beats(self):
        """Input beats of one conversion: P·(l [+ 1])·N/lanes."""
        return self.passes * self.input_residues * self.rows

    @property
    def output_beats(self):
        """Output beats of one conversion: k·N/lanes."""
        return len(self.target) * self.rows

    @property
    def hidden_latency_rows(self):
        """Smallest N/lanes for which :meth:`cycles` has no pipeline fill/drain term."""
        return self.acc_latency + self.issue_latency + self.out_latency

    def pass_offset(self):
        """O: cycles from a pass's first input transfer to its first output transfer (always
        valid input, always ready output) = (input beats of the pass) + E, with
        E = max(0, accumulate latency + Post-Sum latency − R) for Shenoy–Kumaresan (0 when
        N/lanes is large enough to hide the pipeline) and the whole latency for fast base
        conversion, whose outputs need the last residue's accumulations."""
        lat = self.acc_latency + self.issue_latency + self.out_latency
        if self._redundant_path:
            return len(self.source) * self.rows + max(self.rows, lat)
        return len(self.source) * self.rows + lat

    def cycles(self):
        """Exact cycles of one conversion from the first input transfer to the last output
        transfer, with always-valid input and always-ready output.

        Folded: P·O + k·N/TP (each pass: its input, then its t·N/TP outputs; the next pass's
        input starts after the last output). Pipelined (t = 1): (P − 1)·Δ + O + N/TP with pass
        spacing Δ = max(input beats of a pass, l·N/TP + accumulate latency + 1). For
        N/TP ≥ accumulate + Post-Sum latency (:attr:`hidden_latency_rows`) this is exactly
        [Kir25] Table 4.5: l·(N(l+1)/TP + N/TP) folded, N(l+1)l/TP + N/TP pipelined (k = l).
        """
        O, R, P, k = self.pass_offset(), self.rows, self.passes, len(self.target)
        if self.architecture == "folded":
            return P * O + k * R
        l = len(self.source)
        inputs = (l + int(self._redundant_path)) * R
        delta = max(inputs, l * R + self.acc_latency + 1)
        return (P - 1) * delta + O + R


@dataclass(frozen=True)
class ShenoyKumaresanPlan(CRTBaseExtensionPlan):
    """The parameters of :class:`ShenoyKumaresan` and what they derive, without building it.

    The multipliers' rounds are the deep ones (one carry chain per register: a faster clock,
    more cycles of latency) where the rows of a residue polynomial hide their latency, so that
    :meth:`cycles` is unchanged ([Kir25] Tables 4.5/4.6), the shallow ones otherwise.

    Parameters
    ----------
    prime_bits, n, source_limbs, target_limbs, word, mult_stages, prime_n, source_primes, \
target_primes, lanes, architecture, targets_per_pass
        As :class:`CRTBaseExtensionPlan`.
    redundant_prime : int or None
        The redundant modulus q_l > l, coprime to both bases; default the generated base's
        largest prime, or with the user's bases the largest prime ≡ 1 mod 2n of their widest
        prime's bits not in them.

    Attributes
    ----------
    source, target, width, constants, multiplier, rows, passes, acc_latency, issue_latency, \
out_latency
        As :class:`CRTBaseExtensionPlan`; ``constants`` are
        :class:`~fhe_hw.params.ShenoyKumaresanConstants`.
    redundant : int
        q_l, resolved.

    """

    redundant_prime: int | None = param(None, help="the redundant modulus q_l (default: the "
                                        "largest prime 1 mod 2n of the bases' bits not in "
                                        "them)", kw_only=True)
    redundant: int = field(init=False, repr=False, compare=False)

    def _redundant_request(self):
        if self.redundant_prime is None:
            return True
        return check_primes("redundant_prime", (self.redundant_prime,))[0]

    def _set_bases(self, source, target, redundant):
        self._set(source=source, target=target, redundant=redundant,
                  width=max(q.bit_length() for q in source + target + (redundant,)),
                  constants=ShenoyKumaresanConstants.build(source, target, redundant))

    def _redundant_moduli(self):
        return (self.redundant,)

    def _deep_rounds(self, moduli):
        return self.n // self.lanes >= self._hidden_rows(self._multiplier(moduli).latency)

    @staticmethod
    def _hidden_rows(lm):
        """:attr:`hidden_latency_rows` with multiplier latency ``lm``."""
        return _acc_latency_of(lm) + _issue_latency_of(lm) + _OUT_LATENCY

    def describe(self):
        return {**super().describe(), "redundant modulus q_l": self.redundant}


def _acc_latency_of(lm):
    """Accept -> bank write of a Sum item (see elaborate): stage 0, the constants' register,
    two multipliers, the bank read (READ_LATENCY: registered port, output register, fabric
    register), the sum register."""
    return READ_LATENCY + 3 + 2 * lm


def _issue_latency_of(lm):
    """Shenoy–Kumaresan's Post-Sum issue -> queue write (see elaborate)."""
    return READ_LATENCY + 2 + 2 * lm


class CRTBaseExtension(FixedRun, Component):
    """Shared Sum / Post-Sum engine of :class:`ShenoyKumaresan` and
    :class:`~fhe_hw.rns.fast_base_conv.FastBaseConversion` (see the module docstring); takes
    the engine's plan (:attr:`plan_class`) or its arguments.

    Streams: ``i`` — ``data.ArrayLayout(r, lanes)`` beats, P times the source residue
    polynomials (q_0 first, N/lanes beats each, coefficient c in row c // lanes, lane
    c % lanes), followed in each pass by the redundant residue polynomial when there is one;
    ``o`` — the same layout, the target residue polynomials p_0, p_1, ..., p_{k-1}, N/lanes
    beats each. r is the widest modulus.
    """

    #: The plan class of the engine.
    plan_class = CRTBaseExtensionPlan

    def __init__(self, *args, **kw):
        self.plan = p = self.plan_class.coerce(*args, **kw)
        self._redundant_path = p._redundant_path
        self._arch, self._c, self._source, self._target = (p.architecture, p.constants,
                                                           p.source, p.target)
        self._redundant = p.redundant if self._redundant_path else None
        self._width = p.width
        self._proto, self._word = p.multiplier, p.multiplier.word
        self._n, self._tp, self._t = p.n, p.lanes, p.targets_per_pass
        self._rows, self._passes = p.rows, p.passes
        self._acc_latency, self._issue_latency = p.acc_latency, p.issue_latency
        self._out_latency = p.out_latency
        # the issue credit: a Post-Sum issue at c is read from the queue at c + issue latency
        # + the queue's latency at the earliest, and its credit is back for the issue decision
        # of the cycle after; two beats more keep the Post-Sum issuing every cycle
        self._queue_depth = self._issue_latency + CreditQueue.LATENCY + 2
        layout = data.ArrayLayout(self._width, p.lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    # --- parameters -----------------------------------------------------------------------

    source = property(lambda self: self._source)
    target = property(lambda self: self._target)
    n = property(lambda self: self._n)
    lanes = property(lambda self: self._tp, doc="coefficients per beat (TP)")
    architecture = property(lambda self: self._arch)
    targets_per_pass = property(lambda self: self._t)
    word = property(lambda self: self._word, doc="Montgomery word w shared by all moduli")
    width = property(lambda self: self._width, doc="lane width r (bits of the widest modulus)")
    constants = property(lambda self: self._c)
    passes = property(lambda self: self._passes, doc="P = ⌈k / targets_per_pass⌉")
    rows = property(lambda self: self._rows, doc="R = N / lanes beats per residue polynomial")
    latency = property(lambda self: None, doc="None: a stream engine, timed by :meth:`cycles`")
    hidden_latency_rows = property(lambda self: self.plan.hidden_latency_rows,
                                   doc=CRTBaseExtensionPlan.hidden_latency_rows.__doc__)

    @property
    def multiplier_latency(self):
        return self._proto.latency

    def _pass_targets(self, p):
        return min(self._t, len(self._target) - p * self._t)

    input_residues = property(lambda self: self.plan.input_residues,
                              doc=CRTBaseExtensionPlan.input_residues.__doc__)

    @property
    def arithmetic_units(self):
        """Modular multipliers (MM) and modular adders/subtracters (MA) instantiated."""
        t, tp = self._t, self._tp
        if not self._redundant_path:
            return {"MM": (t + 1) * tp, "MA": t * tp, "A": 0}
        mm = (t + 2 if self._arch == "folded" else t + 4) * tp
        return {"MM": mm, "MA": (t + 3) * tp, "A": 0}

    def pass_offset(self):
        """:meth:`CRTBaseExtensionPlan.pass_offset`."""
        return self.plan.pass_offset()

    def cycles(self):
        """:meth:`CRTBaseExtensionPlan.cycles`: exact cycles of one conversion."""
        return self.plan.cycles()

    # --- constants ---------------------------------------------------------------------------

    def _sum_rom_rows(self):
        c, mul, t = self._c, self._proto, self._t
        rows = []
        for p in range(self._passes):
            for i, q in enumerate(self._source):
                row = {"c1": mul.premultiply(c.Q_hat_inv[i], q), "qi": q}
                if self._redundant_path:
                    row["c3"] = mul.premultiply(c.Q_hat_mod_ql[i], self._redundant)
                for s in range(t):
                    j = p * t + s
                    pj = self._target[j if j < len(self._target) else 0]
                    row[f"c2_{s}"] = (mul.premultiply(c.Q_hat_mod_p[j][i], pj)
                                      if j < len(self._target) else 0)
                    row[f"p_{s}"] = pj
                rows.append(row)
        return rows

    def _post_rom_rows(self):
        c, mul, t = self._c, self._proto, self._t
        rows = []
        for p in range(self._passes):
            for s in range(t):
                j = min(p * t + s, len(self._target) - 1)
                pj = self._target[j]
                row = {"p": pj}
                if self._redundant_path:
                    row["c5"] = mul.premultiply(c.Q_mod_p[j], pj)
                rows.append(row)
        return rows

    # --- hardware ------------------------------------------------------------------------------

    def _mul(self, m, name):
        unit = DynamicModMul(self._proto.moduli, self._word, width=self._width,
                             mult_stages=self._proto.mult_stages, deep=self._proto.deep)
        m.submodules[name] = unit
        return unit

    def _bank(self, m, name):
        """A bank of Fig. 3.7: N/TP rows of TP lanes, one write port (``w_en``, ``w_addr``,
        ``w_data``) and one read port (``r_addr`` → ``r_data`` :data:`READ_LATENCY` cycles
        later, the old word when the read meets a write of its row): a
        :class:`~fhe_hw.lib.bram.RegisteredRAM` (on the ECP5 the DP16KD's own output
        register) and a fabric register behind it, which the placer puts between the block
        RAM and the logic. ``ram_data`` is the word before that register (for a second
        fabric register of the accumulation's own, see :meth:`_accumulate`)."""
        m.submodules[name] = ram = RegisteredRAM(self._width * self._tp, self._rows,
                                                 output_reg=True)
        data = Signal.like(ram.r_data, name=f"{name}_q")
        m.d.sync += data.eq(ram.r_data)
        if ram.latency + 1 != READ_LATENCY:
            raise RuntimeError(f"{name}: the RAM's read latency {ram.latency} plus the fabric "
                               f"register is not READ_LATENCY = {READ_LATENCY}")
        return SimpleNamespace(w_en=ram.w_en, w_addr=ram.w_addr, w_data=ram.w_data,
                               r_addr=ram.r_addr, r_data=data, ram_data=ram.r_data)

    def _accumulate(self, m, name, bank, valid, riders, mu, q):
        """acc[row] ← μ (first residue) or (acc[row] + μ) mod q. The read was issued with
        ``valid`` (stage-B output); μ and μ − q (computed as μ enters the delay) wait
        READ_LATENCY cycles for the data, the sum is registered (one carry chain deep:
        :func:`~fhe_hw.arith.modadd.add_select`) and written in the next cycle. The
        read misses the writes of the READ_LATENCY + 1 items just ahead (the read port is not
        transparent); they can share this item's row only when N/TP < READ_LATENCY + 2, and
        then the row is forwarded from their pipeline registers. Otherwise the accumulation
        reads the bank through a fabric register of its own (beside the Post-Sum's) that a
        first residue's item clears through its synchronous reset, so that the ``first`` flag
        ends at the register and not at the adders' carry chain across the lanes. Returns the
        write-stage (valid, riders)."""
        r, tp = self._width, self._tp
        v1, d1 = delay(m, READ_LATENCY, valid, mu=Cat(*mu),
                       mu_q=Cat(*((x - q)[:r + 1] for x in mu)), **riders)
        v2, d2 = delay(m, 1, v1, row=d1["row"], last=d1["last"], par=d1["par"])
        summed = Signal(r * tp, name=f"sum_{name}")
        if self._rows >= READ_LATENCY + 2:
            first = delay(m, READ_LATENCY - 1, valid, first=riders["first"])[1]["first"]
            old = Signal(r * tp, name=f"old_{name}")
            m.d.sync += old.eq(Mux(first, 0, bank.ram_data))
        else:
            old = bank.r_data
            # the item one ahead (its sum in ``summed``) and those written since the read
            ahead = [(v2, d2["row"], summed)]
            for _ in range(READ_LATENCY):
                v, d = delay(m, 1, ahead[-1][0], row=ahead[-1][1], data=ahead[-1][2])
                ahead.append((v, d["row"], d["data"]))
            for v, row, data in reversed(ahead):  # the nearest last: it wins
                old = Mux(v & (row == d1["row"]), data, old)
            old = Mux(d1["first"], 0, old)
        m.d.sync += summed.eq(Cat(*(
            add_select(b, bq.as_signed(), a)[:r]
            for a, b, bq in zip(lanes(old, r, tp), lanes(d1["mu"], r, tp),
                                lanes(d1["mu_q"], r + 1, tp)))))
        m.d.comb += [bank.w_addr.eq(d2["row"]), bank.w_data.eq(summed), bank.w_en.eq(v2)]
        return v2, d2

    def elaborate(self, platform):
        m = Module()
        r, tp, t, R, P = self._width, self._tp, self._t, self._rows, self._passes
        l, lm = len(self._source), self._proto.latency
        sk = self._redundant_path
        folded = self._arch == "folded"
        n_res = self.input_residues
        last_t = self._pass_targets(P - 1)

        # ---- input counters and pass bookkeeping -------------------------------------------
        in_row, in_res = Signal(range(R)), Signal(range(n_res))
        # The Sum ROM address pass·l + residue as a counter (no multiplier before the ROM), and
        # beside it, a register too, the address after this residue polynomial: the ROM reads
        # both (its two ports), so that its output register holds the word of a residue
        # polynomial's first beat in time (see consts below).
        def following(addr, res):
            return Mux(res == n_res - 1, Mux(addr == P * l - 1 + int(sk), 0, addr + 1 - int(sk)),
                       addr + 1)
        in_addr = Signal(range(P * l + 1))
        after = Signal(range(P * l + 1), init=int(n_res > 1 or P > 1))  # following(0, 0)
        in_seq, ps_seq, out_seq = Signal(2), Signal(2), Signal(2)  # pass sequence numbers
        in_hold = Signal()  # folded: pass input done, waiting for its outputs
        ps_row, ps_slot, ps_pass = Signal(range(R)), Signal(range(t)), Signal(range(P))
        accept = Signal()
        m.d.comb += accept.eq(self.i.valid & self.i.ready)

        # The counters after an input transfer and after a Post-Sum issue (registers only: the
        # rows' next values and the comparisons of the counters with their ends are registers
        # beside them)
        in_row_next, ps_row_next = (Signal(range(R), init=1 % R, name=f"{x}_row_next")
                                    for x in ("in", "ps"))
        in_row_last, ps_row_last = (Signal(init=R == 1, name=f"{x}_row_last")
                                    for x in ("in", "ps"))
        res_first, res_last = Signal(init=1), Signal(init=n_res == 1)
        pass_end = res_last & in_row_last
        in_moved = {"row": in_row_next,
                    "res": Mux(in_row_last, wrap_inc(in_res, n_res - 1), in_res),
                    "first": Mux(in_row_last, res_last, res_first),
                    "seq": Mux(pass_end, in_seq + 1, in_seq)}
        in_now = {"row": in_row, "res": in_res, "first": res_first, "seq": in_seq}

        def last_slot(slot, pass_):
            return slot == Mux(pass_ == P - 1, last_t, t) - 1
        ps_last_slot = last_slot(ps_slot, ps_pass)
        ps_done = ps_last_slot & ps_row_last
        ps_moved = {"row": ps_row_next,
                    "slot": Mux(ps_row_last, Mux(ps_last_slot, 0, ps_slot + 1), ps_slot),
                    "pass": Mux(ps_done, wrap_inc(ps_pass, P - 1), ps_pass),
                    "seq": Mux(ps_done, ps_seq + 1, ps_seq)}
        ps_now = {"row": ps_row, "slot": ps_slot, "pass": ps_pass, "seq": ps_seq}

        # A residue polynomial other than the first reads the banks: it waits for the previous
        # pass's Post-Sum to finish issuing. The first only writes and may follow the Post-Sum's
        # last slot row by row.
        def guard(i, ps):
            same = (i["seq"] - ps["seq"])[:2] == 0
            return Mux(i["first"],
                       same | (last_slot(ps["slot"], ps["pass"]) & (ps["row"] > i["row"])), same)
        # i.ready is a register: its next value is the guard of the counters' next values, the
        # guard of each way they may move (registers only) picked by the transfer and the
        # issue late, so that no comparator lies between i.ready and the counters' enables.
        # Its reset value 0 keeps the engine from taking input in the first cycle after reset:
        # the Sum ROM's word of a beat is read a cycle before the beat (consts below), and the
        # reset cleared that cycle's read.
        ready = Signal()
        m.d.comb += self.i.ready.eq(ready)
        issue = Signal()
        guard_held = Mux(issue, guard(in_now, ps_moved), guard(in_now, ps_now))  # no transfer
        guard_next = Mux(accept, Mux(issue, guard(in_moved, ps_moved), guard(in_moved, ps_now)),
                         guard_held)
        # Folded: held (in_hold) from the pass's last input transfer to its last output
        # transfer (pass_out, driven with the output below). While held, ready is low, so no
        # transfer happens and only pass_out can raise ready; while not held, no pass has its
        # outputs pending and only the pass's last input transfer can hold it. The output
        # side (pass_out, by the skid buffer) and the input side (accept) thus meet only at
        # the last multiplexer, next to ready, whatever the placer does with the two ends.
        pass_out = Signal()
        hold_set = accept & pass_end if folded else Const(0)
        m.d.sync += [ready.eq(Mux(in_hold, pass_out & guard_held, ~hold_set & guard_next)),
                     in_hold.eq(Mux(pass_out, 0, hold_set | in_hold))]
        with m.If(accept):
            m.d.sync += [in_row.eq(in_row_next), in_row_next.eq(wrap_inc(in_row_next, R - 1)),
                         in_row_last.eq(in_row_next == R - 1),
                         in_res.eq(in_moved["res"]), in_seq.eq(in_moved["seq"])]
            with m.If(in_row_last):
                m.d.sync += [in_addr.eq(after), after.eq(following(after, in_moved["res"])),
                             res_first.eq(res_last),
                             res_last.eq(in_res == n_res - 2 if n_res > 1 else 1)]

        # Post-Sum readiness per pass parity: last accumulation written, redundant rows in.
        acc_done = [Signal(name=f"acc_done{b}") for b in range(2)]
        red_rows = [Signal(range(R + 1), name=f"red_rows{b}") for b in range(2)]

        # ---- Sum Process: stage 0 registers the beat while the constant ROM is read --------
        # The ROM's output register is the block RAM's (no block-RAM clock-to-out before the
        # multipliers' DSP inputs): a word read at c is there at c + 2, and the beat accepted
        # at c - 1 is in stage 0 at c, so port 0 (in_addr) serves it unless the beat accepted
        # at c - 2 ended a residue polynomial; then port 1 (after, read at c - 2) does.
        sum_rom = Rom(m, "sum_rom", self._sum_rom_rows(), r, output_reg=True, read_ports=2)
        now, ahead = sum_rom.read(in_addr, 0), sum_rom.read(after, 1)
        began, began_q = Signal(), Signal()
        m.d.sync += [began.eq(accept & in_row_last), began_q.eq(began)]
        # The selected word is registered once more (stage 1, the beat beside it) before it
        # fans out to the multipliers, so that the selection and the wire across the die to
        # the farthest DSP do not share a clock period: stage A's modulus and constant in a
        # kept copy per lane (each placed by its lane's multiplier), the stage-B constants once
        # (their delay line runs beside stage A).
        selected = {key: Mux(began_q, ahead[key], now[key]) for key in now}
        consts = {key: Signal(len(now[key]), name=f"const_{key}") for key in now
                  if key not in ("c1", "qi")}
        lane_consts = [{key: Signal(len(now[key]), name=f"const_{key}_{x}", attrs=KEEP)
                        for key in ("c1", "qi")} for x in range(tp)]
        m.d.sync += [sig.eq(selected[key])
                     for group in (consts, *lane_consts) for key, sig in group.items()]
        s0_valid, s0_data = Signal(), Signal(r * tp)
        s0 = {"row": Signal(range(R)), "first": Signal(), "last": Signal(), "par": Signal()}
        m.d.sync += [s0_valid.eq(accept & (in_res < l)), s0_data.eq(self.i.payload.as_value()),
                     s0["row"].eq(in_row), s0["first"].eq(res_first),
                     s0["last"].eq((in_res == l - 1) & in_row_last),
                     s0["par"].eq(in_seq[0])]
        s1_valid, s1 = delay(m, 1, s0_valid, data=s0_data, **s0)

        # stage A: μ_q = a·|Q̂_i^-1|_{q_i} mod q_i
        mul_a = [self._mul(m, f"mul_q{x}") for x in range(tp)]
        for unit, a, c in zip(mul_a, lanes(s1["data"], r, tp), lane_consts):
            self._drive(m, unit, s1_valid, a, c["c1"], c["qi"])
        mu_q = [unit.o.payload for unit in mul_a]
        sa_valid, sa = delay(m, lm, s1_valid, **{key: s1[key] for key in s0}, **consts)
        # stage B: μ_{p_j,i} per slot and μ_{q_l,i}
        mul_p = [[self._mul(m, f"mul_p{s}_{x}") for x in range(tp)] for s in range(t)]
        mul_l = [self._mul(m, f"mul_l{x}") for x in range(tp)] if sk else []
        sb_valid, sb = delay(m, lm, sa_valid, **{key: sa[key] for key in s0},
                             **{f"p_{s}": sa[f"p_{s}"] for s in range(t)})
        banks = [self._bank(m, f"acc_p{s}") for s in range(t)]
        # A Sum item that reads (not the first residue's) never meets a Post-Sum read (see the
        # module docstring), so the read addresses are selected by registers alone.
        sum_reads = sb_valid & ~sb["first"]

        if sk:
            q_l = self._redundant
            bank_l = self._bank(m, "acc_l")
            red_mem = self._bank(m, "a_ql")
            red_in = accept & res_last  # the redundant residue is the pass's last
            m.d.comb += [red_mem.w_addr.eq(in_row), red_mem.w_data.eq(self.i.payload.as_value()),
                         red_mem.w_en.eq(red_in)]
            for b in range(2):
                with m.If(red_in & (in_seq[0] == b)):
                    m.d.sync += red_rows[b].eq(red_rows[b] + 1)

        # ---- Post-Sum Process: issue one (slot, row) per cycle when ready and credited -----
        credit = Signal(range(self._queue_depth + 1))
        out_xfer = Signal()
        ps_par = ps_seq[0]
        ready_row = Mux(ps_par, acc_done[1], acc_done[0])
        if sk:
            # red_ahead = (red_rows[ps_par] > ps_row) as a register: its next value compares
            # registers only (for each way the counters may move) and the row arrival and
            # the issue select late, so no comparator lies between them and the issue
            red_ahead = Signal()
            inc = [red_in & (in_seq[0] == b) for b in range(2)]

            def ahead(b, row, above):  # red_rows[b] (+1 if a row arrives now) > row
                return Mux(inc[b], red_rows[b] >= row, red_rows[b] > above)
            after = [Mux(ps_row_last, ahead(b, 0, 0), ahead(b, ps_row_next, ps_row_next))
                     for b in range(2)]
            m.d.sync += red_ahead.eq(Mux(
                issue, Mux(ps_done, Mux(ps_par, ahead(0, 0, 0), ahead(1, 0, 0)),
                           Mux(ps_par, after[1], after[0])),
                Mux(ps_par, ahead(1, ps_row, ps_row), ahead(0, ps_row, ps_row))))
            ready_row &= red_ahead
        # room = (credit < depth) as a register, its next value picked late from comparisons of
        # the register credit for each way it may move, so no comparator precedes the issue
        room = Signal(init=1)
        depth = self._queue_depth
        m.d.comb += issue.eq(ready_row & room)
        m.d.sync += [credit.eq(credit + issue - out_xfer),
                     room.eq(Mux(issue, Mux(out_xfer, credit < depth, credit < depth - 1),
                                 out_xfer | (credit < depth)))]
        with m.If(issue):
            m.d.sync += [ps_row.eq(ps_row_next), ps_row_next.eq(wrap_inc(ps_row_next, R - 1)),
                         ps_row_last.eq(ps_row_next == R - 1),
                         ps_slot.eq(ps_moved["slot"]),
                         ps_pass.eq(ps_moved["pass"]), ps_seq.eq(ps_moved["seq"])]
            with m.If(ps_done):
                for b in range(2):  # free this parity for the pass after next
                    with m.If(ps_par == b):
                        m.d.sync += acc_done[b].eq(0)
                        if sk:
                            m.d.sync += red_rows[b].eq(0)
        post = Rom(m, "post_rom", self._post_rom_rows(), r).read(ps_pass * t + ps_slot)
        m.submodules.queue = queue = CreditQueue(r * tp, self._queue_depth)

        if sk:
            # c: read acc_l and a_ql; c+2: ms = acc_l − a_ql (registered); c+3: α = ms·|Q^-1|
            c4 = self._proto.premultiply(self._c.Q_inv_mod_ql, q_l)
            m.d.comb += red_mem.r_addr.eq(ps_row)
            p1_valid, p1 = delay(m, READ_LATENCY + 1, issue, row=ps_row, slot=ps_slot)
            qw = q_l.bit_length()
            ms = [Signal(qw, name=f"ms{x}") for x in range(tp)]  # registered
            m.d.sync += [ms[x].eq(sub_parallel(a, b, q_l, qw)) for x, (a, b) in enumerate(
                zip(lanes(bank_l.r_data, r, tp), lanes(red_mem.r_data, r, tp)))]
            mul_alpha = mul_l if folded else [self._mul(m, f"mul_alpha{x}") for x in range(tp)]
            alpha = [unit.o.payload for unit in mul_alpha]
            # c+3+Lm: μ' = α·|Q|_{p_j} mod p_j; the Post-Sum ROM was read at c (data at c+1)
            post_d = delay(m, READ_LATENCY, Const(0, 1), p=post["p"], c5=post["c5"])[1]
            p2_valid, p2 = delay(m, lm, p1_valid, **p1, **post_d)
            mul_mu = mul_p[0] if folded else [self._mul(m, f"mul_mu{x}") for x in range(tp)]
            mu_prime = Cat(*(unit.o.payload for unit in mul_mu))
            # acc_slot[row] is read at c+1+2Lm — the same offset from its start as a Sum item's
            # read, so the two never meet on a read port — and arrives with μ' at c+3+2Lm.
            psum_row = delay(m, 2 * lm + 1 - READ_LATENCY - 1, p1_valid, row=p1["row"])[1]["row"]
            p3_valid, p3 = delay(m, lm, p2_valid, p=p2["p"], slot=p2["slot"])
            acc_out = self._read_slot(m, banks, delay(m, lm - 1, p2_valid,
                                                      slot=p2["slot"])[1]["slot"])
            out_lanes = Signal(r * tp)  # registered
            m.d.sync += out_lanes.eq(Cat(*(
                sub_parallel(a, b, p3["p"], r)
                for a, b in zip(lanes(acc_out, r, tp), lanes(mu_prime, r, tp)))))
            p4_valid, _ = delay(m, 1, p3_valid)
            m.d.comb += [queue.i.valid.eq(p4_valid), queue.i.payload.eq(out_lanes)]
            m.d.comb += bank_l.r_addr.eq(Mux(sum_reads, sb["row"], ps_row))
        else:
            psum_row = ps_row
            p1_valid = delay(m, READ_LATENCY, issue)[0]
            slot_early = delay(m, READ_LATENCY - 1, issue, slot=ps_slot)[1]["slot"]
            m.d.comb += [queue.i.valid.eq(p1_valid),
                         queue.i.payload.eq(self._read_slot(m, banks, slot_early))]

        # ---- stage-B inputs; in folded mode the Post-Sum borrows mul_l and slot 0 ---------
        for s in range(t):
            for x, unit in enumerate(mul_p[s]):
                ops = [sa_valid, mu_q[x], sa[f"c2_{s}"], sa[f"p_{s}"]]
                if sk and folded and s == 0:
                    ops = [sa_valid | p2_valid, Mux(p2_valid, alpha[x], mu_q[x]),
                           Mux(p2_valid, p2["c5"], ops[2]), Mux(p2_valid, p2["p"], ops[3])]
                self._drive(m, unit, *ops)
        if sk:
            for x in range(tp):
                if folded:
                    self._drive(m, mul_l[x], sa_valid | p1_valid, Mux(p1_valid, ms[x], mu_q[x]),
                                Mux(p1_valid, c4, sa["c3"]), q_l)
                else:
                    self._drive(m, mul_l[x], sa_valid, mu_q[x], sa["c3"], q_l)
                    self._drive(m, mul_alpha[x], p1_valid, ms[x], c4, q_l)
                    self._drive(m, mul_mu[x], p2_valid, alpha[x], p2["c5"], p2["p"])

        # ---- accumulation into the banks ---------------------------------------------------
        riders = {key: sb[key] for key in s0}
        written = None
        for s, bank in enumerate(banks):
            m.d.comb += bank.r_addr.eq(Mux(sum_reads, sb["row"], psum_row))
            written = self._accumulate(m, f"p{s}", bank, sb_valid, riders,
                                       [u.o.payload for u in mul_p[s]], sb[f"p_{s}"])
        if sk:
            self._accumulate(m, "l", bank_l, sb_valid, riders, [u.o.payload for u in mul_l],
                             q_l)
        w_valid, w = written
        for b in range(2):  # the pass's last accumulation marks its parity ready
            with m.If(w_valid & w["last"] & (w["par"] == b)):
                m.d.sync += acc_done[b].eq(1)

        # ---- output: the queue is released once the pass's input is complete --------------
        # The queue drains into a skid buffer whenever the buffer has room, so that its read
        # (the credit, the queue's level, the counters here) depends on registers only, never
        # on ``o.ready`` or the gate; the gate holds the buffer's output instead. The buffer
        # has the pass's first beats ready when the gate opens, so ``o`` sees them as early as
        # it would see the queue's without the buffer. ``out_xfer`` is a queue read; the
        # counters here count queue reads and tag the pass's last beat, whose transfer at ``o`` ends
        # the pass (``out_seq``).
        # The gate (in_seq != out_seq) is a register, its next value from the counters' next
        # values.
        out_row, out_slot, out_pass = Signal(range(R)), Signal(range(t)), Signal(range(P))
        gate = Signal()
        out_t = Mux(out_pass == P - 1, last_t, t)
        out_last = (out_row == R - 1) & (out_slot == out_t - 1)
        m.submodules.out_skid = skid = SkidBuffer(data.StructLayout({
            "beat": self.o.payload.shape(), "last": 1}))
        m.d.comb += pass_out.eq(self.o.valid & self.o.ready & skid.o.payload.last)
        m.d.sync += gate.eq(Mux(accept, in_moved["seq"], in_seq)[:2]
                            != Mux(pass_out, out_seq + 1, out_seq)[:2])
        m.d.comb += [skid.i.valid.eq(queue.o.valid), queue.o.ready.eq(skid.i.ready),
                     skid.i.payload.beat.eq(queue.o.payload), skid.i.payload.last.eq(out_last),
                     out_xfer.eq(skid.i.valid & skid.i.ready),
                     self.o.valid.eq(skid.o.valid & gate),
                     self.o.payload.eq(skid.o.payload.beat),
                     skid.o.ready.eq(self.o.ready & gate)]
        with m.If(out_xfer):
            m.d.sync += out_row.eq(wrap_inc(out_row, R - 1))
            with m.If(out_row == R - 1):
                m.d.sync += out_slot.eq(Mux(out_last, 0, out_slot + 1))
            with m.If(out_last):
                m.d.sync += out_pass.eq(wrap_inc(out_pass, P - 1))
        with m.If(pass_out):
            m.d.sync += out_seq.eq(out_seq + 1)
        return m

    @staticmethod
    def _drive(m, unit, valid, a, b, q):
        m.d.comb += [unit.i.valid.eq(valid), unit.i.payload.a.eq(a), unit.i.payload.b.eq(b),
                     unit.i.payload.q.eq(q)]

    @staticmethod
    def _read_slot(m, banks, slot_early):
        """The word that ``banks[slot]`` reads: with one bank its ``r_data``; otherwise a
        register of the block RAMs' output registers selected by ``slot_early`` (the slot a
        cycle before the word is used), so that the selection across the banks and the logic
        behind it never share a clock period."""
        if len(banks) == 1:
            return banks[0].r_data
        out = banks[0].ram_data
        for s in range(1, len(banks)):
            out = Mux(slot_early == s, banks[s].ram_data, out)
        word = Signal.like(banks[0].r_data, name="slot_word")
        m.d.sync += word.eq(out)
        return word


class ShenoyKumaresan(CRTBaseExtension):
    """Shenoy–Kumaresan base extension of polynomial residues ([Kir25] Algorithm 2, §3.3).

    Parameters: a :class:`ShenoyKumaresanPlan`, or its arguments (``prime_bits``, ``n``,
    ``source_limbs``, ``target_limbs``, ``lanes``, ``architecture``, ``targets_per_pass``;
    keywords ``word``, ``mult_stages``, ``prime_n``, ``source_primes``, ``target_primes``,
    ``redundant_prime``): the source base q_0..q_{l-1}, the target base p_0..p_{k-1} and the
    redundant q_l > l, pairwise coprime, all odd with q ≡ 1 (mod 2^word); N (a power of two);
    TP = ``lanes`` (a power of two <= N); ``architecture`` (``"folded"``, Fig. 3.5, or
    ``"pipelined"``, Fig. 3.4); t = ``targets_per_pass`` target residues per pass over the
    source (folded only beyond 1; the thesis's design is t = 1).

    Ports: ``i`` — stream of ``data.ArrayLayout(r, lanes)`` beats: per pass, the l source
    residue polynomials (q_0 first) then the redundant one (q_l), N/TP beats each (coefficient
    c in row c // TP, lane c % TP); a conversion is P = ⌈k/t⌉ passes, so the host streams the
    source P times (as the thesis re-reads it from HBM for every target residue). ``o`` — the
    target residue polynomials p_0..p_{k-1} in the same layout. The engine extends the integer
    the redundant residues pin: A mod p_j given A mod q_l, and the centred lift (A − Q when
    2A >= Q, OpenFHE's ``SwitchCRTBasis``) given the centred lift's residue (docs/rns.md).

    Cycles: :meth:`cycles` (= [Kir25] Table 4.5 when N/TP >= :attr:`hidden_latency_rows`).
    Arithmetic: :attr:`arithmetic_units` ((t+2)·TP multipliers folded, (t+4)·TP pipelined,
    (t+3)·TP modular adders/subtracters; Table 3.2 for t = 1). Memory: t + 2 banks of N words
    (acc per target slot, acc_l, a_ql; Fig. 3.7) and the Table 3.1 constants in two ROMs.

    Raises (through the plan) ``ValueError`` for non-coprime moduli, q_l <= l, N or TP not a
    power of two, TP > N, moduli without a common Montgomery word, ``targets_per_pass`` outside
    1..k (or > 1 pipelined), an unknown architecture.
    """

    plan_class = ShenoyKumaresanPlan

    redundant = property(lambda self: self._redundant)

    def paper_iterations(self):
        """[Kir25] Table 4.5's iteration count for this architecture with k target residues:
        k·(N(l+1)/TP + N/TP) folded, k·N(l+1)/TP + N/TP pipelined (k = l in the table).
        Equal to :meth:`cycles` for t = 1 once N/TP >= :attr:`hidden_latency_rows`."""
        l, k, n, tp = len(self._source), len(self._target), self._n, self._tp
        if self._arch == "folded":
            return model.iterations_sk_folded(n, l, tp) // l * k
        return model.iterations_sk_pipelined(n, l, tp) - n // tp * (l + 1) * (l - k)

    def io_bound(self):
        """N·(l+1+k)/TP: one pass over the source and the redundant residue plus the outputs
        on a shared port — what ``targets_per_pass = k`` approaches."""
        return (len(self._source) + 1 + len(self._target)) * self._rows
