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

Targets side by side (``parallel_targets``, folded, beyond the thesis): a Post-Sum item is a
row of every target slot, α computed once for it and μ' of each slot on that slot's own
multipliers (idle while the folded engine outputs), so a pass's outputs take N/TP beats of
t·TP words instead of t·N/TP beats of TP words; no multiplier more.

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
selected by registers (a reading Sum item at the read stage), never by the issue decision;
with several target slots each slot bank's read row is a register of its own, selected a
cycle early, so that no selection shares a clock period with the wire to a bank across the
die and the bank's read-write compare.
The accumulation reads its bank through a fabric register of its own, which a first residue's
item clears through the register's synchronous reset (the ``first`` flag never meets the carry
chain); with several target slots, the Post-Sum's word of its slot is a register of
the banks' block-RAM outputs, selected a cycle ahead. The issue credit's "room left" and the
output gate are registers, and the folded engine's hold meets the input handshake only in
front of ``i.ready``'s register. The output queue (:class:`~fhe_hw.lib.stream.CreditQueue`) has
no level check on its write, since the credit guarantees room, and drains into a skid buffer
(:class:`~fhe_hw.lib.stream.SkidBuffer`) behind which the gate holds ``o``: the queue's read depends
on registers only, never on ``o.ready``; with the targets side by side the two are a
:class:`~fhe_hw.lib.stream.GroupedQueue`, a queue and a buffer per target slot, each with its
own control, so that no clock enable spans the die to the far slots' words. None of this adds
a cycle where N/TP hides the pipeline (:attr:`hidden_latency_rows`); below it, the constants'
register adds one to the Sum's latency and the skid buffer one to the output's.
"""

from dataclasses import dataclass, field
from math import ceil

from amaranth import Module
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out, connect

from ..arith.montgomery_dyn import DynamicModMulPlan
from ..arith.pipeline import tile_reg_param
from ..component import Component, FixedRun
from ..lib.stream import CreditQueue, GroupedQueue, SkidBuffer
from ..model import rns as model
from ..params import ShenoyKumaresanConstants
from ..plan import StreamPlan, param
from .common import MAX_N, MAX_RESIDUES, check_choice, check_ring, polynomial_beats
from .crt_bank import READ_LATENCY
from .crt_control import FUSED_LATENCY, CRTControl, queue_depth
from .crt_datapath import CRTDatapath
from .plan import BaseConversionPlan, check_primes

__all__ = ["CRTBaseExtension", "CRTBaseExtensionPlan", "ShenoyKumaresan", "ShenoyKumaresanPlan",
           "ARCHITECTURES"]

ARCHITECTURES = ("folded", "pipelined")

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
    tile_reg : bool
        The multipliers' fabric register after each DSP tile's product, one cycle more each
        (default False; :class:`~fhe_hw.arith.montgomery_dyn.DynamicModMulPlan`).
    parallel_targets : bool
        A pass's t target residue polynomials leave side by side: beat x of a pass holds row
        x of slot 0, then row x of slot 1, and so on (t·lanes words), so a pass's outputs take
        R beats, not t·R; the Post-Sum computes every slot of a row at once, on the stage-B
        multipliers of every slot (folded only; t must divide k). The sink then takes t·lanes
        words a cycle, each target residue polynomial into its own memory (default False).

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
    tile_reg: bool = tile_reg_param()
    parallel_targets: bool = param(
        False, help="a pass's target residues side by side on o, targets_per_pass x lanes "
        "words a beat (folded; targets_per_pass must divide k; true/false, default false)",
        cli_default=None, kw_only=True)
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
        if self.parallel_targets and (self.architecture != "folded" or k % t):
            raise ValueError(f"parallel_targets needs architecture='folded' and "
                             f"targets_per_pass dividing k = {k}, not "
                             f"{self.architecture!r} with targets_per_pass = {t}")
        moduli = self.source + self.target + self._redundant_moduli()
        mul = self._multiplier(moduli, self._deep_rounds(moduli), tile_reg=self.tile_reg)
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

    #: The redundant residue polynomial rides beside the last source one (Shenoy–Kumaresan's
    #: ``parallel_redundant``).
    _redundant_beside = False

    #: The Post-Sum follows each row of the last source residue without multipliers
    #: (Shenoy–Kumaresan's ``fused_post_sum``).
    _fused = False

    @property
    def redundant_tower(self):
        """Whether the redundant residue polynomial follows the source ones on ``i`` in beats
        of its own (Shenoy–Kumaresan without ``parallel_redundant``)."""
        return self._redundant_path and not self._redundant_beside

    @property
    def input_residues(self):
        """Residue polynomials (of N/lanes beats) per pass: l, plus the redundant one for
        Shenoy–Kumaresan unless it rides beside the last source one."""
        return len(self.source) + int(self.redundant_tower)

    @property
    def input_lanes(self):
        """Words of an input beat: ``lanes``, twice that with ``parallel_redundant`` (the
        redundant residue's row above the source residue's)."""
        return self.lanes * (1 + int(self._redundant_beside))

    def source_beats(self, polys, redundant=None):
        """The beats of ``i`` for one conversion: the l source residue polynomials (each N
        coefficients, q_0 first), and for Shenoy–Kumaresan the ``redundant`` one, P times.
        With ``parallel_redundant`` the redundant residue's row x rides in the upper
        ``lanes`` words of the last source residue's beat x (zeros above the other ones)."""
        if self._redundant_path != (redundant is not None):
            raise ValueError("redundant: Shenoy–Kumaresan takes the redundant residue "
                             "polynomial, fast base conversion none")
        if not self._redundant_beside:
            return polynomial_beats(list(polys) + ([redundant] if self.redundant_tower else []),
                                    self.lanes) * self.passes
        high = ([[0] * self.lanes] * ((len(polys) - 1) * self.rows)
                + polynomial_beats([redundant], self.lanes))
        return [low + up for low, up in zip(polynomial_beats(polys, self.lanes), high,
                                            strict=True)] * self.passes

    @property
    def input_beats(self):
        """Input beats of one conversion: P·(l [+ 1])·N/lanes."""
        return self.passes * self.input_residues * self.rows

    @property
    def output_slots(self):
        """Target residue polynomials side by side in an output beat: t with
        ``parallel_targets``, else 1."""
        return self.targets_per_pass if self.parallel_targets else 1

    @property
    def side_by_side(self):
        """Whether an output beat holds several targets (``output_slots`` > 1): the hardware
        of ``parallel_targets``, which with t = 1 builds the engine without it."""
        return self.output_slots > 1

    @property
    def output_beats(self):
        """Output beats of one conversion: k·N/lanes, or P·N/lanes with
        ``parallel_targets``."""
        return len(self.target) // self.output_slots * self.rows

    def target_beats(self, polys):
        """The k target residue polynomials (each N coefficients, p_0 first) as the beats of
        ``o``: N/lanes beats each, or with ``parallel_targets`` each pass's t side by side."""
        t, tp = self.output_slots, self.lanes
        return [[c for poly in polys[j:j + t] for c in poly[x:x + tp]]
                for j in range(0, len(polys), t) for x in range(0, self.n, tp)]

    def target_polynomials(self, beats):
        """Inverse of :meth:`target_beats`: the k target residue polynomials of ``o``'s
        beats."""
        t, tp, R = self.output_slots, self.lanes, self.rows
        polys = []
        for start in range(0, len(beats), R):
            rows = beats[start:start + R]
            polys += [[c for beat in rows for c in beat[s * tp:(s + 1) * tp]] for s in range(t)]
        return polys

    @property
    def arithmetic_units(self):
        """Modular multipliers (MM) and modular adders/subtracters (MA) instantiated."""
        t, tp = self.targets_per_pass, self.lanes
        if not self._redundant_path:
            return {"MM": (t + 1) * tp, "MA": t * tp, "A": 0}
        mm = (t + 2 if self.architecture == "folded" else t + 4) * tp
        return {"MM": mm, "MA": (t + 3) * tp, "A": 0}

    @property
    def banks(self):
        """The engine's banks of N words (:class:`~fhe_hw.rns.crt_bank.AccumulatorBank`):
        one per target slot, and for Shenoy–Kumaresan acc_l and a_ql."""
        return self.targets_per_pass + 2 * int(self._redundant_path)

    @property
    def hidden_latency_rows(self):
        """Smallest N/lanes for which :meth:`cycles` has no pipeline fill/drain term."""
        return self.acc_latency + self.issue_latency + self.out_latency

    def pass_offset(self):
        """O: cycles from a pass's first input transfer to its first output transfer (always
        valid input, always ready output) = (input beats of the pass) + E, with
        E = max(0, accumulate latency + Post-Sum latency − R) for Shenoy–Kumaresan (0 when
        N/lanes is large enough to hide the pipeline) and the whole latency for fast base
        conversion and for Shenoy–Kumaresan with ``parallel_redundant``, whose outputs need
        the last residue's accumulations (the folded Post-Sum borrows the Sum's
        multipliers). With ``fused_post_sum`` a row's output follows its last accumulation:
        (l − 1)·N/TP + accumulate latency + :data:`FUSED_LATENCY` + output latency."""
        if self._fused:
            return (len(self.source) - 1) * self.rows + self.acc_latency + FUSED_LATENCY + \
                self.out_latency
        lat = self.acc_latency + self.issue_latency + self.out_latency
        if self.redundant_tower:
            return len(self.source) * self.rows + max(self.rows, lat)
        return len(self.source) * self.rows + lat

    def cycles(self):
        """Exact cycles of one conversion from the first input transfer to the last output
        transfer, with always-valid input and always-ready output.

        Folded: P·O + k·N/TP (each pass: its input, then its t·N/TP outputs; the next pass's
        input starts after the last output); with ``parallel_targets`` P·O + P·N/TP (a pass's
        outputs side by side). Pipelined (t = 1): (P − 1)·Δ + O + N/TP with pass
        spacing Δ = max(input beats of a pass, l·N/TP + accumulate latency + 1). For
        N/TP ≥ accumulate + Post-Sum latency (:attr:`hidden_latency_rows`) this is exactly
        [Kir25] Table 4.5: l·(N(l+1)/TP + N/TP) folded, N(l+1)l/TP + N/TP pipelined (k = l).
        With ``fused_post_sum`` (one pass) O + N/TP = l·N/TP + the latency.
        """
        O, R, P, k = self.pass_offset(), self.rows, self.passes, len(self.target)
        if self._fused:
            return O + R
        if self.architecture == "folded":
            return P * O + k // self.output_slots * R
        l = len(self.source)
        inputs = self.input_residues * R
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
    parallel_redundant : bool
        The redundant residue polynomial rides beside the last source one on ``i``: beats of
        2·lanes words, the redundant residue's row x above the last source residue's row x
        (:meth:`source_beats`), so that a pass takes l·N/lanes input beats, not (l + 1)·N/lanes;
        the Post-Sum then follows the Sum's pipeline instead of overlapping the redundant
        residue (:meth:`pass_offset`). Folded only (default False).
    fused_post_sum : bool
        The Post-Sum of row x right behind the last source residue's row x, on the
        accumulations' sums as they are written, with no multiplier: α ≤ l for a redundant
        residue of A or of its centred lift, so ms = acc_l − a_ql is matched against its l + 1
        possible values α·Q mod q_l and α·Q mod p_j is a constant of the match
        (:meth:`alpha_table`). The outputs then stream while the last source residue streams
        in: one conversion is l·N/lanes + latency cycles, and conversions follow each other
        without a hold. Needs ``parallel_redundant``, ``parallel_targets`` and
        ``targets_per_pass`` = k ≥ 2 (default False).

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
    parallel_redundant: bool = param(
        False, help="the redundant residue beside the last source residue on i, 2 x lanes "
        "words a beat (folded; true/false, default false)", cli_default=None, kw_only=True)
    fused_post_sum: bool = param(
        False, help="the Post-Sum right behind each row of the last source residue, alpha "
        "matched against its l + 1 values, no multiplier (needs parallel_redundant, "
        "parallel_targets and targets_per_pass = k >= 2; true/false, default false)",
        cli_default=None, kw_only=True)
    redundant: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.parallel_redundant and self.architecture != "folded":
            raise ValueError(f"parallel_redundant needs architecture='folded', not "
                             f"{self.architecture!r}")
        k = len(self.target)
        if self.fused_post_sum and not (self.parallel_redundant and self.parallel_targets
                                        and self.targets_per_pass == k >= 2):
            raise ValueError(f"fused_post_sum needs parallel_redundant, parallel_targets and "
                             f"targets_per_pass = k >= 2 (one pass), not "
                             f"parallel_redundant={self.parallel_redundant}, "
                             f"parallel_targets={self.parallel_targets}, targets_per_pass="
                             f"{self.targets_per_pass} with k = {k}")

    @property
    def _fused(self):
        return self.fused_post_sum

    def alpha_table(self):
        """The fused Post-Sum's tables ([Kir25] Algorithm 2, lines 4-6, for α = 0..l, the
        values α takes when the redundant residue is A's or its centred lift's):
        ``(|α·Q|_{q_l} for each α, [|α·Q|_{p_j} for each α] for each target p_j)``. The
        engine matches ms = acc_l − a_ql against the first and subtracts the second's entry;
        an ms that matches none (a redundant residue of neither) counts as α = 0."""
        Q, alphas = self.constants.source.Q, range(len(self.source) + 1)
        return (tuple(a * Q % self.redundant for a in alphas),
                [tuple(a * Q % pj for a in alphas) for pj in self.target])

    @property
    def _redundant_beside(self):
        return self.parallel_redundant

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
        return self.n // self.lanes >= self._hidden_rows(
            self._multiplier(moduli, tile_reg=self.tile_reg).latency)

    @staticmethod
    def _hidden_rows(lm):
        """:attr:`hidden_latency_rows` with multiplier latency ``lm``."""
        return _acc_latency_of(lm) + _issue_latency_of(lm) + _OUT_LATENCY

    def describe(self):
        return {**super().describe(), "redundant modulus q_l": self.redundant}


def _acc_latency_of(lm):
    """Accept -> bank write of a Sum item (see :class:`~fhe_hw.rns.crt_datapath.CRTDatapath`):
    stage 0, the constants' register, two multipliers, the bank read (READ_LATENCY: registered
    port, output register, fabric register), the sum register."""
    return READ_LATENCY + 3 + 2 * lm


def _issue_latency_of(lm):
    """Shenoy–Kumaresan's Post-Sum issue -> queue write (see
    :class:`~fhe_hw.rns.crt_datapath.CRTDatapath`)."""
    return READ_LATENCY + 2 + 2 * lm


class CRTBaseExtension(FixedRun, Component):
    """Shared Sum / Post-Sum engine of :class:`ShenoyKumaresan` and
    :class:`~fhe_hw.rns.fast_base_conv.FastBaseConversion` (see the module docstring); takes
    the engine's plan (:attr:`plan_class`) or its arguments.

    Streams: ``i`` — ``data.ArrayLayout(r, lanes)`` beats, P times the source residue
    polynomials (q_0 first, N/lanes beats each, coefficient c in row c // lanes, lane
    c % lanes), followed in each pass by the redundant residue polynomial when there is one;
    ``o`` — the same layout, the target residue polynomials p_0, p_1, ..., p_{k-1}, N/lanes
    beats each; with ``parallel_targets``, ``data.ArrayLayout(r, t·lanes)``, a pass's t
    target residue polynomials side by side (:meth:`CRTBaseExtensionPlan.target_beats`).
    r is the widest modulus.
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
        layout = data.ArrayLayout(self._width, p.input_lanes)
        out = data.ArrayLayout(self._width, p.lanes * p.output_slots)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(out))})

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

    input_residues = property(lambda self: self.plan.input_residues,
                              doc=CRTBaseExtensionPlan.input_residues.__doc__)

    arithmetic_units = property(lambda self: self.plan.arithmetic_units,
                                doc=CRTBaseExtensionPlan.arithmetic_units.__doc__)

    def pass_offset(self):
        """:meth:`CRTBaseExtensionPlan.pass_offset`."""
        return self.plan.pass_offset()

    def cycles(self):
        """:meth:`CRTBaseExtensionPlan.cycles`: exact cycles of one conversion."""
        return self.plan.cycles()

    # --- hardware ------------------------------------------------------------------------------

    def elaborate(self, platform):
        """The controller (:class:`~fhe_hw.rns.crt_control.CRTControl`), the datapath
        (:class:`~fhe_hw.rns.crt_datapath.CRTDatapath`), and the output queue
        (:class:`~fhe_hw.lib.stream.CreditQueue`) draining into a skid buffer
        (:class:`~fhe_hw.lib.stream.SkidBuffer`) behind the controller's gate. The queue drains
        whenever the buffer has room, so that its read (the credit, the queue's level, the
        controller's output counters) depends on registers only, never on ``o.ready`` or the
        gate; the gate holds the buffer's output instead. The buffer has the pass's first beats
        ready when the gate opens, so ``o`` sees them as early as it would see the queue's
        without the buffer. With the targets side by side the queue and the buffer are a
        :class:`~fhe_hw.lib.stream.GroupedQueue` (a pair per target slot)."""
        m = Module()
        m.submodules.control = ctl = CRTControl(self.plan)
        m.submodules.datapath = dp = CRTDatapath(self.plan)
        # side by side, the wide queue in LUTs, cut into a group per target slot (the last one
        # with the pass's last flag that its beats carry), each with its own control: one
        # queue's clock enables spanned the die from the buffer's state to the slots' words
        side = self.plan.side_by_side
        words = self._width * self._tp * self.plan.output_slots
        if side:
            slot = self._width * self._tp
            m.submodules.queue = queue = GroupedQueue(
                [slot] * (self.plan.output_slots - 1) + [slot + 1], queue_depth(self.plan),
                distributed=True)
        else:
            m.submodules.queue = queue = CreditQueue(words, queue_depth(self.plan))
            m.submodules.out_skid = skid = SkidBuffer(data.StructLayout({
                "beat": self.o.payload.shape(), "last": 1}))
        connect(m, ctl.beat, dp.beat)
        connect(m, ctl.issue, dp.issue)
        connect(m, dp.written, ctl.written)
        connect(m, dp.result, queue.i)
        m.d.comb += [ctl.i_valid.eq(self.i.valid), self.i.ready.eq(ctl.i_ready),
                     dp.data.eq(self.i.payload.as_value())]
        if side:
            m.d.comb += [self.o.valid.eq(queue.o.valid & ctl.gate),
                         self.o.payload.eq(queue.o.payload[:words]),
                         queue.o.ready.eq(self.o.ready & ctl.gate),
                         ctl.pass_out.eq(self.o.valid & self.o.ready & queue.o.payload[words])]
            # the queue's reads reach the credit through a register here, beside the queue,
            # and another in the controller (crt_control.LATE_CREDIT)
            m.d.sync += ctl.q_xfer.eq(queue.read)
            return m
        m.d.comb += [skid.i.valid.eq(queue.o.valid), queue.o.ready.eq(skid.i.ready),
                     skid.i.payload.beat.eq(queue.o.payload),
                     skid.i.payload.last.eq(ctl.q_last),
                     ctl.q_xfer.eq(skid.i.valid & skid.i.ready),
                     self.o.valid.eq(skid.o.valid & ctl.gate),
                     self.o.payload.eq(skid.o.payload.beat),
                     skid.o.ready.eq(self.o.ready & ctl.gate),
                     ctl.pass_out.eq(self.o.valid & self.o.ready & skid.o.payload.last)]
        return m


class ShenoyKumaresan(CRTBaseExtension):
    """Shenoy–Kumaresan base extension of polynomial residues ([Kir25] Algorithm 2, §3.3).

    Parameters: a :class:`ShenoyKumaresanPlan`, or its arguments (``prime_bits``, ``n``,
    ``source_limbs``, ``target_limbs``, ``lanes``, ``architecture``, ``targets_per_pass``;
    keywords ``word``, ``mult_stages``, ``prime_n``, ``source_primes``, ``target_primes``,
    ``redundant_prime``, ``tile_reg``, ``parallel_targets``, ``parallel_redundant``,
    ``fused_post_sum``): the
    source base q_0..q_{l-1}, the target base p_0..p_{k-1} and the redundant q_l > l, pairwise
    coprime, all odd with q ≡ 1 (mod 2^word); N (a power of two);
    TP = ``lanes`` (a power of two <= N); ``architecture`` (``"folded"``, Fig. 3.5, or
    ``"pipelined"``, Fig. 3.4); t = ``targets_per_pass`` target residues per pass over the
    source (folded only beyond 1; the thesis's design is t = 1); ``parallel_targets``: a
    pass's t targets side by side on ``o`` (folded, t dividing k); ``parallel_redundant``:
    the redundant residue beside the last source residue on ``i`` (folded);
    ``fused_post_sum``: the Post-Sum right behind each row of the last source residue, α
    matched against 0..l, no multiplier (with both and one pass;
    :class:`ShenoyKumaresanPlan`).

    Ports: ``i`` — stream of ``data.ArrayLayout(r, lanes)`` beats: per pass, the l source
    residue polynomials (q_0 first) then the redundant one (q_l), N/TP beats each (coefficient
    c in row c // TP, lane c % TP), with ``parallel_redundant`` 2·lanes words a beat, the
    redundant residue's rows above the last source residue's
    (:meth:`ShenoyKumaresanPlan.source_beats`); a conversion is P = ⌈k/t⌉ passes, so the host
    streams the source P times (as the thesis re-reads it from HBM for every target residue).
    ``o`` — the target residue polynomials p_0..p_{k-1} in the same layout (with
    ``parallel_targets`` t·lanes words a beat, :meth:`ShenoyKumaresanPlan.target_beats`). The
    engine extends the integer the redundant residues pin: A mod p_j given A mod q_l, and the
    centred lift (A − Q when 2A >= Q, OpenFHE's ``SwitchCRTBasis``) given the centred lift's
    residue (docs/rns.md).

    Cycles: :meth:`cycles` (= [Kir25] Table 4.5 when N/TP >= :attr:`hidden_latency_rows`).
    Arithmetic: :attr:`arithmetic_units` ((t+2)·TP multipliers folded, (t+4)·TP pipelined,
    (t+3)·TP modular adders/subtracters; Table 3.2 for t = 1). Memory: t + 2 banks of N words
    (acc per target slot, acc_l, a_ql; Fig. 3.7) and the Table 3.1 constants in two ROMs.

    Raises (through the plan) ``ValueError`` for non-coprime moduli, q_l <= l, N or TP not a
    power of two, TP > N, moduli without a common Montgomery word, ``targets_per_pass`` outside
    1..k (or > 1 pipelined), ``parallel_targets`` pipelined or with t not dividing k,
    ``parallel_redundant`` pipelined, ``fused_post_sum`` without ``parallel_redundant``,
    ``parallel_targets`` and ``targets_per_pass`` = k >= 2, an unknown architecture.
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
        on a shared port — what ``targets_per_pass = k`` approaches; with
        ``parallel_targets`` N·(l+1+k/t)/TP, t target residues in each output beat; with
        ``parallel_redundant`` l instead of l + 1."""
        outputs = len(self._target) // self.plan.output_slots
        return (self.plan.input_residues + outputs) * self._rows
