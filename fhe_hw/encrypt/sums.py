"""The sum engine of :class:`~fhe_hw.encrypt.TransformEncrypt`: runs one
:class:`~fhe_hw.encrypt.program.Sum` per command.

Data path
---------
::

    RAM ─▶ feeder ─▶ forward NTT ─▶ X buffer ─▶ ModMuls ⊙ key spectra ─▶ (+) accumulators
     ▲        (S stage, CMNT)        (2 slots)   (or store into the key memory)     │
     └──────────── carries ◀── inverse NTT ◀── inverse feeder ◀────────────────────┘

* **Feeder**: per job, ``words`` RAM words (one beat each) then zero beats to n/lanes, into
  the forward :class:`~fhe_hw.ntt.StreamingFourStepNTT`. A job starts at least ``spacing``
  cycles after the previous one (the command's field; :func:`~fhe_hw.encrypt.timing.spacing`
  chooses it so that every transform passes the engine as if alone), and, in the CMNT sum,
  once the S stage has written its term.
* **X buffer**: the engine's output, one transform per slot; a slot is held from its last
  write until the MAC starts the job's last pass (the engine's output waits meanwhile).
* **MAC**: per pass, n/lanes beats: X buffer ⊙ key spectrum (``lanes``
  :class:`~fhe_hw.arith.ModMul`), added modulo p into an accumulator (written when
  ``first``), or the spectrum stored into the key memory (key preparation). Issue to
  accumulator write: the ModMul's latency + 3 cycles. A :class:`MacSequencer` (the
  controller, on a ROM of the passes) issues the beats.
* **Inverse feeder**: once the last MAC write is done, each accumulator (at least
  ``inverse_spacing`` cycles apart) into the inverse engine; its output goes through a
  :class:`~fhe_hw.largeint.CarryResolver` into the RAM (the first ``words`` words).

The command's done beat on ``o`` follows the last RAM write of the inverses (or the last key
store). :mod:`fhe_hw.encrypt.timing` counts its cycles.
"""

from amaranth import Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out, connect

from ..arith import ModMul
from ..arith.modadd import add_parallel
from ..bigint.ram import read_port_signature, write_port_signature
from ..component import Component
from ..largeint.carry import CarryResolver
from ..lib.delay import register_delay
from ..lib.rom import rom_ports
from ..ntt import StreamingFourStepNTT
from ..params import SOLINAS64
from ..payload import pack
from .sstage import SStageUnit

__all__ = ["SumEngine", "MacSequencer", "MAC_WRITE_LATENCY"]

_WORD = 64
#: MAC issue -> accumulator write: read 1, operand register 1, the ModMul, sum register 1
MAC_WRITE_LATENCY = 3


def _layout(**fields):
    return data.StructLayout({k: unsigned(v) if isinstance(v, int) else v
                              for k, v in fields.items()})


def _bits(count):
    return max(1, (count - 1).bit_length())


class SumEngine(Component):
    """Runs the sums of :class:`~fhe_hw.encrypt.program.Program` ``program`` (see the module).

    Parameters: ``program``; ``addr_width`` (RAM address bits); ``spacings`` (each sum's
    job spacing), ``inverse_spacing`` (cycles between inverse transforms); the engines'
    ``inner_n``, ``inner_units``, ``mult_stages``, ``tiled``. Ports: ``i`` — stream of commands
    (:attr:`command_layout`); ``o`` — one done beat per command; ``rd_x`` (S stage), ``rd_y``
    (feeder), ``wr`` — RAM ports of W = lanes·d bits;
    ``rd_key``, ``wr_key`` — the key memory (one spectrum beat of lanes·64 bits per word, read
    data one cycle after the address)."""

    def __init__(self, program, *, addr_width, spacings, inverse_spacing, inner_n=64,
                 inner_units=2, mult_stages=None, tiled=True):
        p = program.plan
        self._program, self._L, self._d, self._B = program, p.lanes, p.digit_bits, p.n // p.lanes
        kw = dict(lanes=p.lanes, inner_n=inner_n, inner_units=inner_units, mult_stages=mult_stages,
                  tiled=tiled)
        self._fwd = StreamingFourStepNTT(p.n, **kw)
        self._inv = StreamingFourStepNTT(p.n, inverse=True, **kw)
        self._muls = [ModMul("solinas64", mult_stages=mult_stages, tiled=tiled)
                      for _ in range(p.lanes)]
        self._mul_latency = self._muls[0].latency
        self._carry = CarryResolver(p.lanes, p.digit_bits, coeff_bits=_WORD, beats=self._B)
        self._sstage = (SStageUnit(program.s_stage, p.lanes, p.digit_bits, addr_width)
                        if program.s_stage else None)
        self._inverse_spacing = inverse_spacing
        self._jobs = [j for s in program.sums for j in s.jobs]
        self._passes = [q for s in program.sums for q in s.passes]
        self._inverses = [v for s in program.sums for v in s.inverses] or [None]
        sums = program.sums
        most = max(max(len(s.jobs), len(s.passes), len(s.inverses)) for s in sums)
        B = self._B
        self._job_layout = _layout(addr=addr_width, words=_bits(B + 1), term_last=1)
        self._pass_layout = _layout(spectrum=_bits(len(program.spectra)),
                                    acc=_bits(program.accumulators), first=1, store=1, last=1)
        self._inv_layout = _layout(acc=_bits(program.accumulators), dst=addr_width,
                                   words=_bits(B + 1))
        self._cmd = _layout(job_base=_bits(len(self._jobs)), jobs=_bits(most + 1),
                            pass_base=_bits(len(self._passes)), passes=_bits(most + 1),
                            inv_base=_bits(len(self._inverses)), invs=_bits(most + 1),
                            s_stage=1, spacing=_bits(max(spacings) + 2))
        self._spacings = list(spacings)
        key_aw = _bits(len(program.spectra)) + _bits(B)
        width = p.lanes * p.digit_bits
        super().__init__({
            "i": In(stream.Signature(self._cmd)), "o": Out(stream.Signature(1)),
            "rd_x": Out(read_port_signature(addr_width, width)),
            "rd_y": Out(read_port_signature(addr_width, width)),
            "wr": Out(write_port_signature(addr_width, width)),
            "rd_key": Out(read_port_signature(key_aw, _WORD * p.lanes)),
            "wr_key": Out(write_port_signature(key_aw, _WORD * p.lanes)),
        })

    @property
    def command_layout(self):
        return self._cmd

    @property
    def forward(self):
        return self._fwd

    @property
    def inverse(self):
        return self._inv

    @property
    def mul_latency(self):
        return self._mul_latency

    def commands(self):
        """The command of each sum."""
        out, j, q, v = [], 0, 0, 0
        for s, sp in zip(self._program.sums, self._spacings):
            out.append({"job_base": j, "jobs": len(s.jobs), "pass_base": q,
                        "passes": len(s.passes), "inv_base": v, "invs": len(s.inverses),
                        "s_stage": int(s.s_stage), "spacing": sp})
            j, q, v = j + len(s.jobs), q + len(s.passes), v + len(s.inverses)
        return out

    def _rom(self, m, name, layout, entries, *, read_ports=1, port_names=None):
        """The read ports of a ROM of ``entries`` packed as ``layout`` (None: a 0 word);
        :func:`~fhe_hw.lib.rom.rom_ports`."""
        words = [pack(layout, {k: int(getattr(e, k)) for k in layout.members})
                 if e is not None else 0 for e in entries]
        return rom_ports(m, name, layout.size, words, read_ports=read_ports,
                         port_names=port_names)

    def elaborate(self, platform):
        m = Module()
        fwd, inv, carry = self._fwd, self._inv, self._carry
        m.submodules.forward, m.submodules.inverse, m.submodules.carry = fwd, inv, carry
        for j, mul in enumerate(self._muls):
            m.submodules[f"mul{j}"] = mul
        cmd = self.i.payload
        start = Signal()
        busy = Signal()
        m.d.comb += [self.i.ready.eq(~busy), start.eq(self.i.valid & ~busy)]
        with m.If(start):
            m.d.sync += busy.eq(1)
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += [busy.eq(0), self.o.valid.eq(0)]
        self._feeder(m, start, cmd)
        hold, set_hold = self._capture(m)
        macs_done = self._mac(m, start, cmd, hold, set_hold)
        self._inverses_out(m, start, cmd, macs_done)
        return m

    # --- feeder ---------------------------------------------------------------------------------

    def _walk(self, m, name, *, start, base, count, spacing, may_start, sink_ready, issue,
              entry_end=lambda: None):
        """The loop shared by the feeder and the inverse feeder: on ``start``, entries ``base``
        to ``base + count - 1`` of a ROM (returned ``index`` is its address); each is read
        (FETCH), waits until ``may_start`` and ``spacing`` cycles since the previous entry's
        first beat (READY), then issues n/lanes beats, ``issue(beat)`` in each issue cycle
        (RUN; ``entry_end()`` in its last). Returns (``index``, ``valid``: the beat register
        in front of the sink, which holds while ``sink_ready`` is low)."""
        B = self._B
        index = Signal.like(base, name=f"{name}_index")
        left = Signal.like(count, name=f"{name}_left")
        top = (1 << len(spacing)) - 1
        since = Signal(len(spacing), init=top, name=f"{name}_since")
        beat = Signal(range(B), name=f"{name}_beat")
        valid = Signal(name=f"{name}_valid")
        advance = ~valid | sink_ready
        m.d.sync += since.eq(Mux(since == top, top, since + 1))
        with m.If(advance):
            m.d.sync += valid.eq(0)
        with m.FSM(name=name):
            with m.State("IDLE"):
                with m.If(start & (count != 0)):
                    m.d.sync += [index.eq(base), left.eq(count)]
                    m.next = "FETCH"
            with m.State("FETCH"):
                m.next = "READY"
            with m.State("READY"):
                with m.If(may_start & (since >= spacing - 1)):
                    m.d.sync += [since.eq(0), beat.eq(0)]
                    m.next = "RUN"
            with m.State("RUN"):
                with m.If(advance):
                    issue(beat)
                    m.d.sync += [valid.eq(1), beat.eq(beat + 1)]
                    with m.If(beat == B - 1):
                        entry_end()
                        m.d.sync += left.eq(left - 1)
                        with m.If(left == 1):
                            m.next = "IDLE"
                        with m.Else():
                            m.d.sync += index.eq(index + 1)
                            m.next = "FETCH"
        return index, valid

    def _feeder(self, m, start, cmd):
        """RAM words (the S stage's slots in the CMNT sum) into the forward engine, one job at
        a time."""
        L, d = self._L, self._d
        fwd = self._fwd
        rp, = self._rom(m, "jobs", self._job_layout, self._jobs, port_names=["rp"])
        entry = data.View(self._job_layout, rp.data)
        spacing = Signal.like(cmd.spacing)
        s_on = Signal()
        fterm, fed = Signal(16), Signal(16)         # terms fed (one counts, one for the S stage)
        word = Signal()
        produced = 0
        if self._sstage is not None:
            m.submodules.sstage = ss = self._sstage
            m.d.comb += [ss.start.eq(start & cmd.s_stage), ss.fed.eq(fed)]
            produced = ss.produced
        with m.If(start):
            m.d.sync += [spacing.eq(cmd.spacing), s_on.eq(cmd.s_stage), fterm.eq(0), fed.eq(0)]

        def issue(beat):
            w = beat < entry.words
            m.d.comb += [self.rd_y.en.eq(w), self.rd_y.addr.eq(entry.addr + beat)]
            m.d.sync += word.eq(w)

        def entry_end():
            with m.If(entry.term_last):
                m.d.sync += [fterm.eq(fterm + 1), fed.eq(fed + 1)]

        index, valid = self._walk(m, "feed", start=start, base=cmd.job_base, count=cmd.jobs,
                                  spacing=spacing, may_start=~s_on | (fterm < produced),
                                  sink_ready=fwd.i.ready, issue=issue, entry_end=entry_end)
        m.d.comb += [rp.addr.eq(index), fwd.i.valid.eq(valid)]
        for t in range(L):
            m.d.comb += fwd.i.payload[t].eq(Mux(word, self.rd_y.data[t * d:(t + 1) * d], 0))

    # --- X buffer -------------------------------------------------------------------------------

    def _capture(self, m):
        """The forward engine's output into the X buffer; returns (hold flags, the flag set this
        cycle: (slot, enable))."""
        B = self._B
        fwd = self._fwd
        self._xbuf = xbuf = Memory(shape=unsigned(_WORD * self._L), depth=2 * B, init=[])
        m.submodules.xbuf = xbuf
        wp = xbuf.write_port()
        beat = Signal(range(B))
        ws = Signal()
        hold = Signal(2)
        m.d.comb += fwd.o.ready.eq(~Mux(ws, hold[1], hold[0]))
        take = fwd.o.valid & fwd.o.ready
        m.d.comb += [wp.addr.eq(Cat(beat, ws)), wp.data.eq(fwd.o.payload.as_value()),
                     wp.en.eq(take)]
        done = take & (beat == B - 1)
        with m.If(take):
            m.d.sync += beat.eq(beat + 1)
            with m.If(beat == B - 1):
                m.d.sync += ws.eq(~ws)
        return hold, (ws, done)

    # --- MAC ------------------------------------------------------------------------------------

    def _mac(self, m, start, cmd, hold, set_hold):
        """Passes over the X buffer (:class:`MacSequencer` on the passes' ROM, then
        :meth:`_mac_datapath`); returns the register set after the last accumulator write of
        the command."""
        rp, = self._rom(m, "passes", self._pass_layout, self._passes, port_names=["rp"])
        m.submodules.mac = seq = MacSequencer(self._pass_layout, self._B, cmd.pass_base,
                                              cmd.passes)
        m.d.comb += [seq.start.eq(start), seq.base.eq(cmd.pass_base), seq.count.eq(cmd.passes),
                     seq.hold.eq(hold), rp.addr.eq(seq.rom_addr), seq.rom_data.eq(rp.data)]
        # the hold flags: set by the capture, cleared when a job's last pass starts
        ws, set_now = set_hold
        for s in range(2):
            with m.If(set_now & (ws == s)):
                m.d.sync += hold[s].eq(1)
            with m.Elif(seq.clear & (seq.slot == s)):
                m.d.sync += hold[s].eq(0)
        return self._mac_datapath(m, start, seq)

    def _mac_datapath(self, m, start, seq):
        """The MAC beats that ``seq`` (a :class:`MacSequencer`) issues: X buffer and key
        spectrum reads, then the key store or the ModMuls and the accumulators; returns the
        register set after the command's last accumulator write."""
        L, B = self._L, self._B
        cur = seq.entry
        xr = self._xbuf.read_port()
        m.d.comb += [xr.addr.eq(Cat(seq.beat, seq.slot)),
                     self.rd_key.addr.eq(Cat(seq.beat, cur.spectrum)),
                     self.rd_key.en.eq(seq.run & ~cur.store)]
        # what travels beside the data: one MAC beat's flags and its accumulator address
        tag = Signal(data.StructLayout({"valid": 1, "store": 1, "final": 1, "first": 1,
                                        "beat": len(seq.beat), "acc": len(cur.acc)}))
        m.d.comb += [tag.valid.eq(seq.run), tag.store.eq(cur.store), tag.final.eq(seq.final),
                     tag.first.eq(cur.first), tag.beat.eq(seq.beat), tag.acc.eq(cur.acc)]
        t1 = register_delay(m, tag, 1, "mac_tag")
        valid1, store1 = t1.valid, t1.store
        # +1: key store, or the ModMul operands
        spec1 = register_delay(m, cur.spectrum, 1, "mac_spectrum")
        m.d.sync += [self.wr_key.en.eq(valid1 & store1),
                     self.wr_key.addr.eq(Cat(t1.beat, spec1)),
                     self.wr_key.data.eq(xr.data)]
        mul_valid = Signal()
        m.d.sync += mul_valid.eq(valid1 & ~store1)
        for j, mul in enumerate(self._muls):
            m.d.sync += [mul.i.payload.a.eq(xr.data[_WORD * j:_WORD * (j + 1)]),
                         mul.i.payload.b.eq(self.rd_key.data[_WORD * j:_WORD * (j + 1)])]
            m.d.comb += mul.i.valid.eq(mul_valid)
        # key preparation done: the last store's write
        t2 = register_delay(m, t1, 1, "mac_tag2")
        with m.If(t2.valid & t2.store & t2.final):
            m.d.sync += self.o.valid.eq(1)
        # +1 + latency: the accumulator read; +2 + latency: the sum, written a cycle later
        self._acc = acc = Memory(shape=unsigned(_WORD * L),
                                 depth=self._program.accumulators * B, init=[])
        m.submodules.acc = acc
        arp, awp = acc.read_port(), acc.write_port()
        ta = register_delay(m, t1, self._mul_latency, "mac_tag_a")
        tb = register_delay(m, ta, 1, "mac_tag_b")
        m.d.comb += arp.addr.eq(Cat(ta.beat, ta.acc))
        sums = [add_parallel(mul.o.payload, Mux(tb.first, 0, arp.data[_WORD * j:_WORD * (j + 1)]),
                             SOLINAS64, _WORD) for j, mul in enumerate(self._muls)]
        write = tb.valid & ~tb.store
        m.d.sync += [awp.en.eq(write), awp.addr.eq(Cat(tb.beat, tb.acc)),
                     awp.data.eq(Cat(*sums))]
        macs_done = Signal()
        with m.If(start):
            m.d.sync += macs_done.eq(0)
        with m.Elif(write & tb.final):
            m.d.sync += macs_done.eq(1)
        return macs_done

    # --- inverses -------------------------------------------------------------------------------

    def _inverses_out(self, m, start, cmd, macs_done):
        """Accumulators through the inverse engine and the carries into the RAM."""
        B = self._B
        inv, carry = self._inv, self._carry
        lay = self._inv_layout
        rp, orp = self._rom(m, "inverses", lay, self._inverses, read_ports=2)
        entry = data.View(lay, rp.data)
        arp = self._acc.read_port()

        def issue(beat):
            m.d.comb += [arp.addr.eq(Cat(beat, entry.acc)), arp.en.eq(1)]

        spacing = Const(self._inverse_spacing, range(self._inverse_spacing + 2))
        index, valid = self._walk(m, "inverse", start=start, base=cmd.inv_base, count=cmd.invs,
                                  spacing=spacing, may_start=macs_done, sink_ready=inv.i.ready,
                                  issue=issue)
        m.d.comb += [rp.addr.eq(index), inv.i.valid.eq(valid), inv.i.payload.eq(arp.data)]
        connect(m, inv.o, carry.i)
        m.d.comb += carry.o.ready.eq(1)

        # the carries' words into the RAM
        oq = Signal.like(cmd.inv_base)
        o_left = Signal.like(cmd.invs)
        out = data.View(lay, orp.data)
        m.d.comb += orp.addr.eq(oq)
        obeat = Signal(range(B))
        with m.If(start):
            m.d.sync += [oq.eq(cmd.inv_base), o_left.eq(cmd.invs)]
        with m.If(carry.o.valid):
            m.d.sync += obeat.eq(obeat + 1)
            with m.If(obeat == B - 1):
                m.d.sync += [oq.eq(oq + 1), o_left.eq(o_left - 1)]
                with m.If(o_left == 1):
                    m.d.sync += self.o.valid.eq(1)
        c_en = carry.o.valid & (obeat < out.words)
        s_wr = self._sstage.wr if self._sstage is not None else None
        if s_wr is not None:
            m.d.comb += [self.rd_x.addr.eq(self._sstage.rd.addr),
                         self.rd_x.en.eq(self._sstage.rd.en),
                         self._sstage.rd.data.eq(self.rd_x.data)]
            m.d.comb += [self.wr.en.eq(c_en | s_wr.en),
                         self.wr.addr.eq(Mux(s_wr.en, s_wr.addr, out.dst + obeat)),
                         self.wr.data.eq(Mux(s_wr.en, s_wr.data, carry.o.payload.as_value()))]
        else:
            m.d.comb += [self.wr.en.eq(c_en), self.wr.addr.eq(out.dst + obeat),
                         self.wr.data.eq(carry.o.payload.as_value())]



class MacSequencer(Component):
    """The controller of the MAC of :class:`SumEngine`: walks a command's passes, ``beats`` MAC
    beats each, over the X buffer's two slots.

    Parameters: ``layout`` (a pass's ROM entry: ``spectrum``, ``acc``, ``first``, ``store``,
    ``last``), ``beats`` (n/lanes), ``base``, ``count`` (signals of the command's widths).

    Ports: ``start`` (in, one cycle: run passes ``base`` .. ``base + count - 1``); ``hold`` (in,
    per slot: the X buffer holds a transform); ``rom_addr`` (out), ``rom_data`` (in, the entry
    at the address one cycle later): the passes' ROM; ``run`` (out: a MAC beat issues),
    ``beat`` and ``slot`` (out: its X buffer address), ``entry`` (out: its pass), ``final``
    (out: the command's last beat), ``clear`` (out: a job's last pass starts, its slot is
    released). A pass starts once its slot is held (READY), and the next follows without a gap
    when its slot is held already."""

    def __init__(self, layout, beats, base, count):
        self._beats = beats
        super().__init__({"start": In(1), "base": In(len(base)), "count": In(len(count)),
                          "hold": In(2), "rom_addr": Out(len(base) + 1), "rom_data": In(layout),
                          "run": Out(1), "beat": Out(range(beats)), "slot": Out(1),
                          "entry": Out(layout), "final": Out(1), "clear": Out(1)})

    def elaborate(self, platform):
        m = Module()
        B = self._beats
        mp = Signal.like(self.base)
        left = Signal.like(self.count)
        run, k, rs, cur, nxt = self.run, self.beat, self.slot, self.entry, self.rom_data
        m.d.comb += self.rom_addr.eq(Mux(run, mp + 1, mp))

        def held(slot):
            return Mux(slot, self.hold[1], self.hold[0])

        with m.FSM(name="mac"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [mp.eq(self.base), left.eq(self.count)]
                    m.next = "FETCH"
            with m.State("FETCH"):
                m.next = "READY"
            with m.State("READY"):
                with m.If(held(rs)):
                    m.d.sync += [cur.eq(nxt), k.eq(0), run.eq(1)]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [self.clear.eq((k == 0) & cur.last),
                             self.final.eq((k == B - 1) & (left == 1))]
                m.d.sync += k.eq(k + 1)
                with m.If(k == B - 1):
                    with m.If(cur.last):
                        m.d.sync += rs.eq(~rs)
                    m.d.sync += left.eq(left - 1)
                    with m.If(left == 1):
                        m.d.sync += run.eq(0)
                        m.next = "IDLE"
                    with m.Elif(held(rs ^ cur.last)):
                        m.d.sync += [cur.eq(nxt), mp.eq(mp + 1)]
                    with m.Else():
                        m.d.sync += [mp.eq(mp + 1), run.eq(0)]
                        m.next = "READY"
        return m
