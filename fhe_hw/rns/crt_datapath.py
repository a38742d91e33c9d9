"""The datapath of the Sum / Post-Sum engine
(:class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension`, see the
:mod:`~fhe_hw.rns.shenoy_kumaresan` module docstring): the Sum ROM and stage 0, the Sum
Process's multipliers and accumulation into the banks
(:class:`~fhe_hw.rns.crt_bank.AccumulatorBank`), and the Post-Sum Process (Shenoy–Kumaresan)
or the banks' read-out (fast base conversion). Its controller is
:class:`~fhe_hw.rns.crt_control.CRTControl`.
"""

from dataclasses import replace
from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from ..arith.modadd import add_select, sub_parallel
from ..arith.montgomery_dyn import DynamicModMul
from ..arith.pipeline import KEEP
from ..component import Component
from ..lib.delay import delay
from ..lib.rom import Rom
from .common import lanes
from .crt_bank import READ_LATENCY, AccumulatorBank
from .crt_control import WRITTEN, beat_signature, issue_signature

__all__ = ["CRTDatapath"]


class CRTDatapath(Component):
    """The datapath of :class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension`; takes the
    engine's plan.

    Ports:

    * ``data`` (in): the input beat's payload, TP lanes of r bits (with ``parallel_redundant``
      2·TP, the redundant residue's row above).
    * ``beat`` (in, :func:`~fhe_hw.rns.crt_control.beat_signature`) and ``issue`` (in,
      :func:`~fhe_hw.rns.crt_control.issue_signature`): the controller's schedule.
    * ``written`` (out, :data:`~fhe_hw.rns.crt_control.WRITTEN`): the Sum Process's bank
      writes, ``last`` on the pass's last accumulation.
    * ``result`` (out, an always-ready stream): an issued target row (with
      ``parallel_targets`` the row of every slot, slot 0 in the low lanes, and above them
      the issue's ``last``), the plan's ``issue_latency`` cycles after its issue.
    """

    def __init__(self, plan):
        self._plan = p = plan
        self._sk, self._folded = p._redundant_path, p.architecture == "folded"
        self._r, self._tp, self._t = p.width, p.lanes, p.targets_per_pass
        self._lm = p.multiplier.latency
        self._par = p.side_by_side  # every slot of a row at once (parallel_targets)
        self._beside = p._redundant_beside  # the redundant row above (parallel_redundant)
        self._fused = p._fused  # the Post-Sum behind the last accumulation (fused_post_sum)
        super().__init__({"data": In(p.width * p.input_lanes), "beat": In(beat_signature(p)),
                          "issue": In(issue_signature(p)), "written": Out(WRITTEN),
                          "result": Out(stream.Signature(
                              p.width * p.lanes * p.output_slots + int(self._par),
                              always_ready=True))})

    # --- constants ---------------------------------------------------------------------------

    def _sum_rom_rows(self):
        p = self._plan
        c, mul, t, target = p.constants, p.multiplier, self._t, p.target
        rows = []
        for n in range(p.passes):
            for i, q in enumerate(p.source):
                row = {"c1": mul.premultiply(c.Q_hat_inv[i], q), "qi": q}
                if self._sk:
                    row["c3"] = mul.premultiply(c.Q_hat_mod_ql[i], p.redundant)
                for s in range(t):
                    j = n * t + s
                    pj = target[j if j < len(target) else 0]
                    row[f"c2_{s}"] = (mul.premultiply(c.Q_hat_mod_p[j][i], pj)
                                      if j < len(target) else 0)
                    row[f"p_{s}"] = pj
                rows.append(row)
        return rows

    def _post_rom_rows(self):
        """The Post-Sum ROM: p_j and |Q|_{p_j} per (pass, slot), or with ``parallel_targets``
        a row per pass holding every slot's (``p_s``, ``c5_s``)."""
        p = self._plan
        rows = []
        for n in range(p.passes):
            for s in range(self._t):
                j = min(n * self._t + s, len(p.target) - 1)
                pj = p.target[j]
                rows.append({"p": pj, "c5": p.multiplier.premultiply(p.constants.Q_mod_p[j], pj)})
        if not self._par:
            return rows
        t = self._t
        return [{f"{key}_{s}": row[key] for s, row in enumerate(rows[n * t:(n + 1) * t])
                 for key in ("p", "c5")} for n in range(p.passes)]

    # --- hardware ------------------------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        s = self._sum_stages(m)
        banks = [self._bank(m, f"acc_p{x}") for x in range(self._t)]
        # A Sum item that reads (not the first residue's) never meets a Post-Sum read (see the
        # module docstring), so the read addresses are selected by registers alone.
        s.reads = s.b_valid & ~s.b["first"]
        if self._fused:
            post = self._fused_banks(m, s)
        else:
            post = self._post_sum(m, s, banks) if self._sk else self._read_out(m, banks)
        self._stage_b_operands(m, s, post)
        riders = {key: s.b[key] for key in ("row", "first", "last", "par")}
        if self._fused:
            riders["fin"] = s.b["fin"]
        written, sums = None, []
        for x, bank in enumerate(banks):
            m.d.comb += bank.r_addr.eq(self._read_row(m, f"acc_p{x}", s, post))
            *written, summed = self._accumulate(m, f"p{x}", bank, s.b_valid, riders,
                                                [u.o.payload for u in s.mul_p[x]],
                                                s.b[f"p_{x}"])
            sums.append(summed)
        if self._sk:
            *_, sum_l = self._accumulate(m, "l", post.bank_l, s.b_valid, riders,
                                         [u.o.payload for u in s.mul_l], self._plan.redundant)
        w_valid, w = written
        m.d.comb += [self.written.valid.eq(w_valid), self.written.last.eq(w["last"]),
                     self.written.par.eq(w["par"])]
        if self._fused:
            self._fused_post_sum(m, w_valid & w["fin"], w["last"], sums, sum_l, post.red)
        return m

    @property
    def _early_rows(self):
        """Whether each slot bank's read row is a register of its own, selected a cycle early
        (Shenoy–Kumaresan with several target slots, whose banks spread across the die):
        :meth:`_read_row`."""
        return self._sk and self._t > 1

    def _read_row(self, m, name, s, post):
        """The read row of slot bank ``name``: a reading Sum item's row (stage B), else the
        Post-Sum's. With :attr:`_early_rows`, a kept register of the bank's own, selected from
        the stage before, so that the selection and the wire to a bank across the die do not
        share a clock period with the bank's read-write compare."""
        if not self._early_rows:
            return Mux(s.reads, s.b["row"], post.row)
        row = Signal.like(s.b["row"], name=f"{name}_row", attrs=KEEP)
        m.d.sync += row.eq(s.b_early["row"] if self._fused else
                           Mux(s.reads_early, s.b_early["row"], post.row_early))
        return row

    def _mul(self, m, name):
        m.submodules[name] = unit = DynamicModMul(replace(self._plan.multiplier, width=self._r))
        return unit

    def _bank(self, m, name):
        m.submodules[name] = bank = AccumulatorBank(self._r * self._tp, self._plan.rows)
        return bank

    @staticmethod
    def _drive(m, unit, valid, a, b, q):
        m.d.comb += [unit.i.valid.eq(valid), unit.i.payload.a.eq(a), unit.i.payload.b.eq(b),
                     unit.i.payload.q.eq(q)]

    def _constants(self, m):
        """The Sum ROM's word of the beat in stage 1. The ROM's output register is the block
        RAM's (no block-RAM clock-to-out before the multipliers' DSP inputs): a word read at c
        is there at c + 2, and the beat accepted at c - 1 is in stage 0 at c, so port 0
        (``rom_now``) serves it unless the beat accepted at c - 2 ended a residue polynomial;
        then port 1 (``rom_next``, read at c - 2) does. The selected word is registered once
        more (stage 1, the beat beside it) before it fans out to the multipliers, so that the
        selection and the wire across the die to the farthest DSP do not share a clock period:
        stage A's modulus and constant in a kept copy per lane (each placed by its lane's
        multiplier), the stage-B constants once (their delay line runs beside stage A).
        Returns (the stage-B constants, the per-lane ones)."""
        sum_rom = Rom(m, "sum_rom", self._sum_rom_rows(), self._r, output_reg=True, read_ports=2)
        now, ahead = sum_rom.read(self.beat.rom_now, 0), sum_rom.read(self.beat.rom_next, 1)
        began, began_q = Signal(), Signal()
        m.d.sync += [began.eq(self.beat.starts), began_q.eq(began)]
        selected = {key: Mux(began_q, ahead[key], now[key]) for key in now}
        consts = {key: Signal(len(now[key]), name=f"const_{key}") for key in now
                  if key not in ("c1", "qi")}
        lane_consts = [{key: Signal(len(now[key]), name=f"const_{key}_{x}", attrs=KEEP)
                        for key in ("c1", "qi")} for x in range(self._tp)]
        m.d.sync += [sig.eq(selected[key])
                     for group in (consts, *lane_consts) for key, sig in group.items()]
        return consts, lane_consts

    def _sum_stages(self, m):
        """Stage 0 registers the beat while the Sum ROM is read; stage A: μ_q =
        a·|Q̂_i^-1|_{q_i} mod q_i; stage B's multipliers (μ_{p_j,i} per slot and μ_{q_l,i}),
        whose operands :meth:`_stage_b_operands` drives. Returns the stages' outputs."""
        r, tp, t, lm = self._r, self._tp, self._t, self._lm
        consts, lane_consts = self._constants(m)
        s0_valid, s0_data = Signal(), Signal(r * tp)
        s0 = {"row": Signal.like(self.beat.row), "first": Signal(), "last": Signal(),
              "par": Signal()}
        source = self.data[:r * tp] if self._beside else self.data
        m.d.sync += [s0_valid.eq(self.beat.sum), s0_data.eq(source),
                     s0["row"].eq(self.beat.row), s0["first"].eq(self.beat.first),
                     s0["last"].eq(self.beat.last), s0["par"].eq(self.beat.par)]
        if self._fused:  # a beat of the last source residue: its rows leave after its sums
            s0["fin"] = Signal()
            m.d.sync += s0["fin"].eq(self.beat.red)
        s1_valid, s1 = delay(m, 1, s0_valid, data=s0_data, **s0)
        mul_a = [self._mul(m, f"mul_q{x}") for x in range(tp)]
        for unit, a, c in zip(mul_a, lanes(s1["data"], r, tp), lane_consts):
            self._drive(m, unit, s1_valid, a, c["c1"], c["qi"])
        a_valid, a = delay(m, lm, s1_valid, **{key: s1[key] for key in s0}, **consts)
        mul_p = [[self._mul(m, f"mul_p{s}_{x}") for x in range(tp)] for s in range(t)]
        mul_l = [self._mul(m, f"mul_l{x}") for x in range(tp)] if self._sk else []
        b_riders = {**{key: a[key] for key in s0}, **{f"p_{s}": a[f"p_{s}"] for s in range(t)}}
        out = SimpleNamespace(mu_q=[unit.o.payload for unit in mul_a], a_valid=a_valid, a=a,
                              mul_p=mul_p, mul_l=mul_l)
        if self._early_rows:
            # stage B a cycle early too, for the banks' own read rows (_read_row)
            early_valid, out.b_early = delay(m, lm - 1, a_valid, **b_riders)
            out.reads_early = early_valid & ~out.b_early["first"]
            out.b_valid, out.b = delay(m, 1, early_valid, **out.b_early)
        else:
            out.b_valid, out.b = delay(m, lm, a_valid, **b_riders)
        return out

    def _post_sum(self, m, s, banks):
        """Shenoy–Kumaresan's Post-Sum Process, per issued (slot, row): at c read acc_l and
        a_ql; c+2: ms = acc_l − a_ql (registered); c+3: α = ms·|Q^-1|_{q_l}; c+3+Lm: μ' =
        α·|Q|_{p_j} mod p_j (the Post-Sum ROM read at c, its data at c+1); the slot's bank row
        is read at c+1+2Lm — the same offset from its start as a Sum item's read, so the two
        never meet on a read port — and arrives with μ' at c+3+2Lm; a_{p_j} = acc − μ'
        (registered) goes to ``result``. Folded, α and μ' borrow the multipliers of q_l and of
        slot 0; with ``parallel_targets`` an issue is a row of every slot, μ' of slot s on slot
        s's multipliers, subtracted from slot s's bank word (its fabric register). Returns the
        operands of the borrowed multipliers and the banks' read row."""
        p, r, tp, lm, issue = self._plan, self._r, self._tp, self._lm, self.issue
        q_l = p.redundant
        bank_l, red_mem = self._redundant_banks(m, issue.row,
                                                Mux(s.reads, s.b["row"], issue.row))
        post = Rom(m, "post_rom", self._post_rom_rows(), r).read(
            issue.pass_ if self._par else issue.pass_ * self._t + issue.slot)
        last = {"last": issue.last} if self._par else {}
        p1_valid, p1 = delay(m, READ_LATENCY + 1, issue.valid, row=issue.row, slot=issue.slot,
                             **last)
        qw = q_l.bit_length()
        ms = [Signal(qw, name=f"ms{x}") for x in range(tp)]  # registered
        m.d.sync += [ms[x].eq(sub_parallel(a, b, q_l, qw)) for x, (a, b) in enumerate(
            zip(lanes(bank_l.r_data, r, tp), lanes(red_mem.r_data, r, tp)))]
        mul_alpha = (s.mul_l if self._folded
                     else [self._mul(m, f"mul_alpha{x}") for x in range(tp)])
        alpha = [unit.o.payload for unit in mul_alpha]
        post_d = delay(m, READ_LATENCY, Const(0, 1), **post)[1]
        p2_valid, p2 = delay(m, lm, p1_valid, **p1, **post_d)
        mul_mu = s.mul_p[0] if self._folded else [self._mul(m, f"mul_mu{x}") for x in range(tp)]
        # side by side, μ' of every slot on its own stage-B multipliers
        mu_prime = ([Cat(*(unit.o.payload for unit in units)) for units in s.mul_p]
                    if self._par else Cat(*(unit.o.payload for unit in mul_mu)))
        row_delay = 2 * lm + 1 - READ_LATENCY - 1
        row_early = None
        if self._early_rows:
            early_valid, early = delay(m, row_delay - 1, p1_valid, row=p1["row"])
            row_early = early["row"]
            row = delay(m, 1, early_valid, row=row_early)[1]["row"]
        else:
            row = delay(m, row_delay, p1_valid, row=p1["row"])[1]["row"]
        if self._par:
            # every slot: its bank's word (a fabric register beside the bank) − its μ'
            p3_valid, p3 = delay(m, lm, p2_valid, last=p2["last"],
                                 **{f"p_{x}": p2[f"p_{x}"] for x in range(self._t)})
            slots = [(bank.r_data, mu_prime[x], p3[f"p_{x}"]) for x, bank in enumerate(banks)]
        else:
            p3_valid, p3 = delay(m, lm, p2_valid, p=p2["p"], slot=p2["slot"])
            slots = [(self._read_slot(m, banks, delay(m, lm - 1, p2_valid,
                                                      slot=p2["slot"])[1]["slot"]),
                      mu_prime, p3["p"])]
        out_lanes = Signal(r * tp * len(slots))  # registered
        m.d.sync += out_lanes.eq(Cat(*(
            sub_parallel(a, b, q, r)
            for acc_out, mu, q in slots
            for a, b in zip(lanes(acc_out, r, tp), lanes(mu, r, tp)))))
        p4_valid, p4 = delay(m, 1, p3_valid, **({"last": p3["last"]} if self._par else {}))
        m.d.comb += [self.result.valid.eq(p4_valid),
                     self.result.payload.eq(Cat(out_lanes, *p4.values()))]
        return SimpleNamespace(row=row, row_early=row_early, bank_l=bank_l, ms=ms, alpha=alpha,
                               mul_alpha=mul_alpha, mul_mu=mul_mu, p1_valid=p1_valid,
                               p2_valid=p2_valid, p2=p2,
                               c4=p.multiplier.premultiply(p.constants.Q_inv_mod_ql, q_l))

    def _redundant_banks(self, m, red_row, l_row):
        """acc_l and a_ql (Shenoy–Kumaresan), read at ``l_row`` and ``red_row``; a_ql written
        as the redundant residue's rows arrive: the beat, or beside the last source residue
        its upper lanes (``parallel_redundant``)."""
        r, tp = self._r, self._tp
        bank_l, red_mem = self._bank(m, "acc_l"), self._bank(m, "a_ql")
        data = self.data[r * tp:] if self._beside else self.data
        m.d.comb += [red_mem.w_addr.eq(self.beat.row), red_mem.w_data.eq(data),
                     red_mem.w_en.eq(self.beat.red), red_mem.r_addr.eq(red_row),
                     bank_l.r_addr.eq(l_row)]
        return bank_l, red_mem

    def _fused_banks(self, m, s):
        """``fused_post_sum``: acc_l and a_ql, both read at the row of the Sum item in stage B
        (a_ql written as its row arrives, beside the last source residue's), so that a_ql's
        word arrives with acc_l's."""
        bank_l, red_mem = self._redundant_banks(m, s.b["row"], s.b["row"])
        red = Signal(self._r * self._tp, name="a_ql_word")  # with acc_l's sum (write stage)
        m.d.sync += red.eq(red_mem.r_data)
        return SimpleNamespace(bank_l=bank_l, red=red)

    def _fused_post_sum(self, m, valid, last, sums, sum_l, red):
        """``fused_post_sum``: the Post-Sum of a row of the last source residue from its sums
        as they are written (``sums`` per slot, ``sum_l``) and its redundant row ``red``,
        :data:`~fhe_hw.rns.crt_control.FUSED_LATENCY` registers to ``result``: ms = acc_l −
        a_ql (mod q_l); the match of ms against α·Q mod q_l for α = 0..l (one bit per α); a
        copy of the match per target slot (only these bits cross to the slots, wherever the
        placer puts them); α·Q mod p_j, a constant of the slot's copy (0 when nothing
        matches); a_{p_j} = (acc_j − α·Q) mod p_j. Each stage has at most one wire that may
        cross the die, from a register."""
        p, r, tp = self._plan, self._r, self._tp
        q_l = p.redundant
        qw = q_l.bit_length()
        ql_table, p_tables = p.alpha_table()
        ms = [Signal(qw, name=f"ms{x}") for x in range(tp)]
        m.d.sync += [ms[x].eq(sub_parallel(a, b, q_l, qw)) for x, (a, b) in enumerate(
            zip(lanes(sum_l, r, tp), lanes(red, r, tp)))]
        v1, d1 = delay(m, 1, valid, last=last, sums=Cat(*sums))
        match = [Signal(len(ql_table), name=f"alpha{x}") for x in range(tp)]
        m.d.sync += [match[x].eq(Cat(*(ms[x] == c for c in ql_table))) for x in range(tp)]
        v2, d2 = delay(m, 1, v1, **d1)
        copies = [[Signal(len(ql_table), name=f"alpha{x}_slot{s}", attrs=KEEP)
                   for x in range(tp)] for s in range(self._t)]
        m.d.sync += [copies[s][x].eq(match[x]) for s in range(self._t) for x in range(tp)]
        v3, d3 = delay(m, 1, v2, **d2)
        mu = [[Signal(r, name=f"mu{x}_slot{s}") for x in range(tp)] for s in range(self._t)]
        m.d.sync += [mu[s][x].eq(_select(copies[s][x], table, r))
                     for s, table in enumerate(p_tables) for x in range(tp)]
        v4, d4 = delay(m, 1, v3, **d3)
        out = Signal(r * tp * self._t, name="fused_out")
        m.d.sync += out.eq(Cat(*(
            sub_parallel(a, b, pj, r)
            for s, pj in enumerate(p.target)
            for a, b in zip(lanes(d4["sums"][s * r * tp:(s + 1) * r * tp], r, tp), mu[s]))))
        v5, d5 = delay(m, 1, v4, last=d4["last"])
        m.d.comb += [self.result.valid.eq(v5), self.result.payload.eq(Cat(out, d5["last"]))]

    def _read_out(self, m, banks):
        """Fast base conversion's output: the issued slot's bank row (with
        ``parallel_targets`` every slot's), to ``result``
        :data:`~fhe_hw.rns.crt_bank.READ_LATENCY` cycles after the issue."""
        issue = self.issue
        if self._par:
            valid, d = delay(m, READ_LATENCY, issue.valid, last=issue.last)
            m.d.comb += [self.result.valid.eq(valid), self.result.payload.eq(
                Cat(*(bank.r_data for bank in banks), d["last"]))]
            return SimpleNamespace(row=issue.row)
        slot_early = delay(m, READ_LATENCY - 1, issue.valid, slot=issue.slot)[1]["slot"]
        m.d.comb += [self.result.valid.eq(delay(m, READ_LATENCY, issue.valid)[0]),
                     self.result.payload.eq(self._read_slot(m, banks, slot_early))]
        return SimpleNamespace(row=issue.row)

    def _stage_b_operands(self, m, s, post):
        """Stage B's (and the Post-Sum's) multiplier operands; in folded mode the Post-Sum
        borrows mul_l (α) and slot 0's (μ'; every slot's with ``parallel_targets``)."""
        for x_s in range(self._t):
            for x, unit in enumerate(s.mul_p[x_s]):
                ops = [s.a_valid, s.mu_q[x], s.a[f"c2_{x_s}"], s.a[f"p_{x_s}"]]
                if self._sk and self._folded and not self._fused and (x_s == 0 or self._par):
                    v, key = post.p2_valid, f"_{x_s}" if self._par else ""
                    ops = [s.a_valid | v, Mux(v, post.alpha[x], s.mu_q[x]),
                           Mux(v, post.p2["c5" + key], ops[2]), Mux(v, post.p2["p" + key], ops[3])]
                self._drive(m, unit, *ops)
        if not self._sk:
            return
        q_l = self._plan.redundant
        for x in range(self._tp):
            if self._fused:
                self._drive(m, s.mul_l[x], s.a_valid, s.mu_q[x], s.a["c3"], q_l)
            elif self._folded:
                v = post.p1_valid
                self._drive(m, s.mul_l[x], s.a_valid | v, Mux(v, post.ms[x], s.mu_q[x]),
                            Mux(v, post.c4, s.a["c3"]), q_l)
            else:
                self._drive(m, s.mul_l[x], s.a_valid, s.mu_q[x], s.a["c3"], q_l)
                self._drive(m, post.mul_alpha[x], post.p1_valid, post.ms[x], post.c4, q_l)
                self._drive(m, post.mul_mu[x], post.p2_valid, post.alpha[x], post.p2["c5"],
                            post.p2["p"])

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
        write-stage (valid, riders) and the sum written (a register)."""
        r, tp = self._r, self._tp
        v1, d1 = delay(m, READ_LATENCY, valid, mu=Cat(*mu),
                       mu_q=Cat(*((x - q)[:r + 1] for x in mu)), **riders)
        fin = {"fin": d1["fin"]} if "fin" in riders else {}
        v2, d2 = delay(m, 1, v1, row=d1["row"], last=d1["last"], par=d1["par"], **fin)
        summed = Signal(r * tp, name=f"sum_{name}")
        if self._plan.rows >= READ_LATENCY + 2:
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
        return v2, d2, summed

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


def _select(match, table, width):
    """The entry of ``table`` whose bit of ``match`` is set (at most one is), 0 if none: an OR
    of the entries, each gated by its bit."""
    word = Const(0, width)
    for bit, entry in zip(match, table, strict=True):
        if entry:
            word = word | Mux(bit, Const(entry, width), 0)
    return word
