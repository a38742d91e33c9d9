"""The controller of the Sum / Post-Sum engine
(:class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension`): the input counters and handshake,
the Post-Sum issue schedule with its credit, and the output gate (the scheduling of the
:mod:`~fhe_hw.rns.shenoy_kumaresan` module docstring). Its datapath is
:class:`~fhe_hw.rns.crt_datapath.CRTDatapath`.

Every decision is a register whose next value is picked late from comparisons of registers
(for each way the counters may move), so that no comparator lies between a register and the
enables it drives: ``i_ready``, the Post-Sum's "redundant row arrived" and "room left", and
the output gate.
"""

from types import SimpleNamespace

from amaranth import Const, Module, Mux, Signal
from amaranth.lib.wiring import In, Out, Signature

from ..component import Component
from ..lib.stream import CreditQueue, credit_room
from .common import wrap_inc

#: Registers of the fused Post-Sum (``fused_post_sum``) from the last accumulation's sum to the
#: output queue's write: ms, the match of α, its copy per target slot, α·Q mod p_j, the
#: difference.
FUSED_LATENCY = 5

__all__ = ["CRTControl", "beat_signature", "issue_signature", "WRITTEN", "queue_depth",
           "FUSED_LATENCY"]

#: A bank write of the Sum Process (from the datapath's side): ``valid``, ``last`` (the pass's
#: last accumulation) and ``par`` (its pass's parity).
WRITTEN = Signature({"valid": Out(1), "last": Out(1), "par": Out(1)})


def beat_signature(plan):
    """The input beat's control (from the controller's side), valid in the cycle of the
    transfer: ``sum`` (a source beat transfers), its ``row``, ``first`` (of the pass's first
    residue polynomial), ``last`` (the pass's last source beat) and ``par`` (the pass's
    parity); ``red`` (a beat with a redundant row transfers: the redundant residue
    polynomial's, or with ``parallel_redundant`` the last source one's); the Sum ROM's
    addresses ``rom_now`` (the residue polynomial's) and ``rom_next`` (the following one's) and
    ``starts`` (a transfer that ends a residue polynomial, so the next beat starts one)."""
    addr = range(plan.passes * len(plan.source) + 1)
    return Signature({"sum": Out(1), "row": Out(range(plan.rows)), "first": Out(1),
                      "last": Out(1), "par": Out(1), "red": Out(1), "rom_now": Out(addr),
                      "rom_next": Out(addr), "starts": Out(1)})


def issue_signature(plan):
    """A Post-Sum issue (from the controller's side): ``valid``, the ``row``, the target
    ``slot`` and the pass (``pass_``); with the targets side by side also ``last``, the
    pass's last row (its output beat ends the pass)."""
    last = {"last": Out(1)} if plan.side_by_side else {}
    return Signature({"valid": Out(1), "row": Out(range(plan.rows)),
                      "slot": Out(range(plan.targets_per_pass)),
                      "pass_": Out(range(plan.passes)), **last})


def queue_depth(plan):
    """The output queue's depth, the issue credit: a Post-Sum issue at c is read from the queue
    at c + issue latency + the queue's latency at the earliest, and its credit is back for the
    issue decision of the cycle after; two beats more keep the Post-Sum issuing every cycle.
    With the targets side by side a read reaches the credit :data:`LATE_CREDIT` cycles later,
    through registers at both ends of its wire, and the queue is deeper by as much. With
    ``fused_post_sum`` the credit is taken by the last source residue's input transfers, an
    accumulate latency and :data:`FUSED_LATENCY` ahead of the
    queue's write."""
    late = LATE_CREDIT if plan.side_by_side else 0
    ahead = plan.acc_latency + FUSED_LATENCY if plan._fused else plan.issue_latency
    return ahead + CreditQueue.LATENCY + 2 + late


#: Cycles by which a queue read reaches the issue credit with the targets side by side: a
#: register beside the queue (the engine's ``q_xfer``) and one in the controller
#: (:func:`~fhe_hw.lib.stream.credit_room`'s ``late``).
LATE_CREDIT = 2


class CRTControl(Component):
    """The controller of :class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension`; takes the
    engine's plan.

    Ports:

    * ``i_valid`` (in), ``i_ready`` (out, a register; with ``fused_post_sum`` the output
      queue's credit room, a register, gated low in the first cycle after reset): the
      engine's input handshake.
    * ``beat`` (out, :func:`beat_signature`): the transferring beat's place in the schedule.
    * ``issue`` (out, :func:`issue_signature`): a Post-Sum item, one (slot, row) per cycle
      (with ``parallel_targets`` a row of every slot, ``slot`` 0) once its pass's
      accumulations are written (and for Shenoy–Kumaresan its redundant row has arrived) and
      the output queue has room.
    * ``written`` (in, :data:`WRITTEN`): the datapath's bank writes.
    * ``q_xfer`` (in): a read of the output queue (with the targets side by side, a cycle
      late, from a register beside the queue); ``q_last`` (out): the beat read ends its pass
      (with the targets side by side unused: ``issue.last`` travels with the row).
    * ``pass_out`` (in): the transfer at ``o`` of a pass's last beat; ``gate`` (out, a
      register): ``o`` may transfer (the pass's input is complete).
    """

    def __init__(self, plan):
        self._plan = plan
        super().__init__({"i_valid": In(1), "i_ready": Out(1), "beat": Out(beat_signature(plan)),
                          "issue": Out(issue_signature(plan)), "written": In(WRITTEN),
                          "q_xfer": In(1), "q_last": Out(1), "pass_out": In(1), "gate": Out(1)})

    @property
    def _sizes(self):
        p = self._plan
        P, t, l, slots = p.passes, p.targets_per_pass, len(p.source), p.output_slots
        # t: the Post-Sum items (and output rows) of a row per pass, 1 with the slots side by
        # side; last_t: those of the last pass; tower: the redundant residue polynomial in
        # beats of its own (beside the last source one, its rows arrive with that one's)
        return SimpleNamespace(R=p.rows, P=P, t=t // slots, l=l, sk=p._redundant_path,
                               tower=p.redundant_tower, n_res=p.input_residues,
                               last_t=min(t, len(p.target) - (P - 1) * t) // slots)

    def elaborate(self, platform):
        m = Module()
        inp = self._input_counters(m)
        if self._plan._fused:
            self._fused(m, inp)
            return m
        ps = self._issue_counters(m)
        self._handshake(m, inp, ps)
        self._issue(m, inp, ps)
        self._output(m, inp)
        return m

    def _input_counters(self, m):
        """The input counters (row, residue polynomial, Sum ROM address, pass sequence number)
        and their values after a transfer; drives ``beat``."""
        z = self._sizes
        R, P, l, n_res, tower = z.R, z.P, z.l, z.n_res, z.tower
        in_row, in_res = Signal(range(R)), Signal(range(n_res))
        # The Sum ROM address pass·l + residue as a counter (no multiplier before the ROM), and
        # beside it, a register too, the address after this residue polynomial: the ROM reads
        # both (its two ports), so that its output register holds the word of a residue
        # polynomial's first beat in time (see the datapath's constants).
        def following(addr, res):
            return Mux(res == n_res - 1,
                       Mux(addr == P * l - 1 + int(tower), 0, addr + 1 - int(tower)), addr + 1)
        in_addr = Signal(range(P * l + 1))
        after = Signal(range(P * l + 1), init=int(n_res > 1 or P > 1))  # following(0, 0)
        in_seq = Signal(2)  # pass sequence number
        accept = Signal()
        m.d.comb += accept.eq(self.i_valid & self.i_ready)
        # The counters after an input transfer (registers only: the row's next value and the
        # comparison of the row with its end are registers beside it)
        in_row_next = Signal(range(R), init=1 % R, name="in_row_next")
        in_row_last = Signal(init=R == 1, name="in_row_last")
        res_first, res_last = Signal(init=1), Signal(init=n_res == 1)
        pass_end = res_last & in_row_last
        moved = {"row": in_row_next, "res": Mux(in_row_last, wrap_inc(in_res, n_res - 1), in_res),
                 "first": Mux(in_row_last, res_last, res_first),
                 "seq": Mux(pass_end, in_seq + 1, in_seq)}
        with m.If(accept):
            m.d.sync += [in_row.eq(in_row_next), in_row_next.eq(wrap_inc(in_row_next, R - 1)),
                         in_row_last.eq(in_row_next == R - 1),
                         in_res.eq(moved["res"]), in_seq.eq(moved["seq"])]
            with m.If(in_row_last):
                m.d.sync += [in_addr.eq(after), after.eq(following(after, moved["res"])),
                             res_first.eq(res_last),
                             res_last.eq(in_res == n_res - 2 if n_res > 1 else 1)]
        b = self.beat
        m.d.comb += [b.sum.eq(accept & (in_res < l)), b.row.eq(in_row), b.first.eq(res_first),
                     b.last.eq((in_res == l - 1) & in_row_last), b.par.eq(in_seq[0]),
                     b.red.eq(accept & res_last), b.rom_now.eq(in_addr), b.rom_next.eq(after),
                     b.starts.eq(accept & in_row_last)]
        return SimpleNamespace(accept=accept, seq=in_seq, pass_end=pass_end, moved=moved,
                               now={"row": in_row, "res": in_res, "first": res_first,
                                    "seq": in_seq})

    def _fused(self, m, inp):
        """``fused_post_sum``: no Post-Sum issue and no hold, the gate always open; the last
        source residue's transfers take the output queue's credit, and ``i_ready`` is the
        credit's room (a register) from the second cycle after reset on."""
        started = Signal()
        m.d.sync += started.eq(1)
        room = credit_room(m, self.beat.red, self.q_xfer, queue_depth(self._plan))
        m.d.comb += [self.i_ready.eq(room & started), self.gate.eq(1)]

    def _issue_counters(self, m):
        """The Post-Sum counters (row, target slot, pass, pass sequence number) and their
        values after an issue; drives ``issue``'s row, slot and pass."""
        z = self._sizes
        R, P, t = z.R, z.P, z.t
        row, slot, pass_ = Signal(range(R)), Signal(range(t)), Signal(range(P))
        seq = Signal(2)  # pass sequence number
        row_next = Signal(range(R), init=1 % R, name="ps_row_next")
        row_last = Signal(init=R == 1, name="ps_row_last")

        def last_slot(slot, pass_):
            return slot == Mux(pass_ == P - 1, z.last_t, t) - 1
        done = last_slot(slot, pass_) & row_last
        moved = {"row": row_next,
                 "slot": Mux(row_last, Mux(last_slot(slot, pass_), 0, slot + 1), slot),
                 "pass": Mux(done, wrap_inc(pass_, P - 1), pass_),
                 "seq": Mux(done, seq + 1, seq)}
        with m.If(self.issue.valid):
            m.d.sync += [row.eq(row_next), row_next.eq(wrap_inc(row_next, R - 1)),
                         row_last.eq(row_next == R - 1), slot.eq(moved["slot"]),
                         pass_.eq(moved["pass"]), seq.eq(moved["seq"])]
        m.d.comb += [self.issue.row.eq(row), self.issue.slot.eq(slot),
                     self.issue.pass_.eq(pass_)]
        if self._plan.side_by_side:
            m.d.comb += self.issue.last.eq(done)
        return SimpleNamespace(row=row, row_next=row_next, row_last=row_last, par=seq[0],
                               done=done, moved=moved, last_slot=last_slot,
                               now={"row": row, "slot": slot, "pass": pass_, "seq": seq})

    def _handshake(self, m, inp, ps):
        """``i_ready``: a residue polynomial other than the first reads the banks, so it waits
        for the previous pass's Post-Sum to finish issuing; the first only writes and may follow
        the Post-Sum's last slot row by row. Folded, the input is also held from the pass's last
        input transfer to its last output transfer."""
        def guard(i, p):
            same = (i["seq"] - p["seq"])[:2] == 0
            return Mux(i["first"],
                       same | (ps.last_slot(p["slot"], p["pass"]) & (p["row"] > i["row"])), same)
        # i_ready is a register: its next value is the guard of the counters' next values, the
        # guard of each way they may move (registers only) picked by the transfer and the
        # issue late, so that no comparator lies between i_ready and the counters' enables.
        # Its reset value 0 keeps the engine from taking input in the first cycle after reset:
        # the Sum ROM's word of a beat is read a cycle before the beat, and the reset cleared
        # that cycle's read.
        issue = self.issue.valid
        held = Mux(issue, guard(inp.now, ps.moved), guard(inp.now, ps.now))  # no transfer
        following = Mux(inp.accept, Mux(issue, guard(inp.moved, ps.moved),
                                        guard(inp.moved, ps.now)), held)
        # Folded: held (in_hold) from the pass's last input transfer to its last output
        # transfer (pass_out). While held, i_ready is low, so no transfer happens and only
        # pass_out can raise it; while not held, no pass has its outputs pending and only the
        # pass's last input transfer can hold it. The output side (pass_out, by the skid
        # buffer) and the input side (the transfer) thus meet only at the last multiplexer,
        # next to i_ready, whatever the placer does with the two ends.
        in_hold = Signal()
        hold_set = inp.accept & inp.pass_end if self._plan.architecture == "folded" else Const(0)
        m.d.sync += [self.i_ready.eq(Mux(in_hold, self.pass_out & held, ~hold_set & following)),
                     in_hold.eq(Mux(self.pass_out, 0, hold_set | in_hold))]

    def _issue(self, m, inp, ps):
        """The issue decision: the pass's accumulations written (``acc_done`` per pass parity),
        for Shenoy–Kumaresan its redundant row arrived (``red_rows`` per parity, and
        ``red_ahead``), and room in the output queue (the credit)."""
        z = self._sizes
        issue = self.issue.valid
        acc_done = [Signal(name=f"acc_done{b}") for b in range(2)]
        red_rows = [Signal(range(z.R + 1), name=f"red_rows{b}") for b in range(2)]
        inc = [self.beat.red & (inp.seq[0] == b) for b in range(2)]  # a redundant row arrives
        if z.sk:
            for b in range(2):
                with m.If(inc[b]):
                    m.d.sync += red_rows[b].eq(red_rows[b] + 1)
        ready_row = Mux(ps.par, acc_done[1], acc_done[0])
        if z.sk:
            # red_ahead = (red_rows[par] > row) as a register: its next value compares
            # registers only (for each way the counters may move) and the row arrival and
            # the issue select late, so no comparator lies between them and the issue
            red_ahead = Signal()

            def ahead(b, row, above):  # red_rows[b] (+1 if a row arrives now) > row
                return Mux(inc[b], red_rows[b] >= row, red_rows[b] > above)
            after = [Mux(ps.row_last, ahead(b, 0, 0), ahead(b, ps.row_next, ps.row_next))
                     for b in range(2)]
            m.d.sync += red_ahead.eq(Mux(
                issue, Mux(ps.done, Mux(ps.par, ahead(0, 0, 0), ahead(1, 0, 0)),
                           Mux(ps.par, after[1], after[0])),
                Mux(ps.par, ahead(1, ps.row, ps.row), ahead(0, ps.row, ps.row))))
            ready_row &= red_ahead
        # room in the output queue as a register, no comparator before the issue
        room = credit_room(m, issue, self.q_xfer, queue_depth(self._plan),
                           late=self._plan.side_by_side)
        m.d.comb += issue.eq(ready_row & room)
        with m.If(issue & ps.done):
            for b in range(2):  # free this parity for the pass after next
                with m.If(ps.par == b):
                    m.d.sync += acc_done[b].eq(0)
                    if z.sk:
                        m.d.sync += red_rows[b].eq(0)
        w = self.written
        for b in range(2):  # the pass's last accumulation marks its parity ready
            with m.If(w.valid & w.last & (w.par == b)):
                m.d.sync += acc_done[b].eq(1)

    def _output(self, m, inp):
        """The output counters of queue reads (``q_last`` tags the pass's last beat), the pass
        sequence number of ``o`` (a pass ends with the transfer of its last beat,
        ``pass_out``) and the gate: a register, its next value from the counters' next values,
        open while a pass's input is complete and its outputs are not."""
        z = self._sizes
        R, P, t = z.R, z.P, z.t
        gate_next = Mux(inp.accept, inp.moved["seq"], inp.seq)[:2]
        if self._plan.side_by_side:  # the pass's last beat carries its flag (issue.last)
            seq = Signal(2)
            m.d.sync += self.gate.eq(gate_next != Mux(self.pass_out, seq + 1, seq)[:2])
            with m.If(self.pass_out):
                m.d.sync += seq.eq(seq + 1)
            return
        row, slot, pass_ = Signal(range(R)), Signal(range(t)), Signal(range(P))
        seq = Signal(2)
        last = (row == R - 1) & (slot == Mux(pass_ == P - 1, z.last_t, t) - 1)
        m.d.comb += self.q_last.eq(last)
        m.d.sync += self.gate.eq(gate_next != Mux(self.pass_out, seq + 1, seq)[:2])
        with m.If(self.q_xfer):
            m.d.sync += row.eq(wrap_inc(row, R - 1))
            with m.If(row == R - 1):
                m.d.sync += slot.eq(Mux(last, 0, slot + 1))
            with m.If(last):
                m.d.sync += pass_.eq(wrap_inc(pass_, P - 1))
        with m.If(self.pass_out):
            m.d.sync += seq.eq(seq + 1)
