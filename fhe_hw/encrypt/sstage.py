"""CMNT's S stage ([Cao14] eq. 1, factored as in :func:`fhe_hw.model.bigint.cmnt_encrypt`):
S_i = Σ_j B_ij·A_j1 in the integer domain, one word (``lanes`` digits) of A_j1 per cycle,
into RAM slots that the forward transforms read.

Per term i: the θ words B_i0 .. B_i(θ-1) are read into registers (θ cycles); then for each
word w of the A_j1 and each j (θ·key_words cycles) lane t adds B_ij·A_j1[w·lanes + t] to its
sample; after the last j the word's samples enter a
:class:`~fhe_hw.largeint.CarryResolver`, followed by s_words - key_words zero beats that
flush the carries; the resolver's digits are S_i's words, written to slot i mod 2. A term
starts once the feeder has read the slot's previous term (``fed`` >= i - 1); ``produced``
counts the terms written.

Timing: a term issues θ + θ·key_words + (s_words - key_words) cycles after its start; its
last word is written :attr:`SStageUnit.WRITE_LATENCY` cycles after its last issue.
"""

from amaranth import Array, Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import wrap_inc
from ..bigint.ram import read_port_signature, write_port_signature
from ..component import Component
from ..largeint.carry import CarryResolver

__all__ = ["SStageUnit", "SStageSequencer"]


class SStageUnit(Component):
    """The S stage of :class:`~fhe_hw.encrypt.TransformEncrypt` for
    :class:`~fhe_hw.encrypt.program.SStage` ``cfg``, words of ``lanes`` d-bit digits.

    Ports: ``start`` (one cycle: run the θ terms), ``fed`` (terms the feeder has read),
    ``produced`` (terms written), ``rd`` / ``wr`` (RAM ports, :mod:`fhe_hw.bigint.ram`). A
    :class:`SStageSequencer` issues the RAM reads; the datapath behind it multiplies,
    accumulates and resolves the carries."""

    #: an issue cycle's sample enters the resolver 3 cycles later (read, product, sum); the
    #: resolver adds 5
    WRITE_LATENCY = 3 + CarryResolver.LATENCY

    def __init__(self, cfg, lanes, digit_bits, addr_width):
        self._cfg, self._L, self._d = cfg, lanes, digit_bits
        width = lanes * digit_bits
        terms = range(cfg.terms + 1)
        self._acc_bits = cfg.coeff_bits + digit_bits + cfg.terms.bit_length()
        super().__init__({"start": In(1), "fed": In(terms), "produced": Out(terms),
                          "rd": Out(read_port_signature(addr_width, width)),
                          "wr": Out(write_port_signature(addr_width, width))})

    @staticmethod
    def term_cycles(cfg):
        """Issue cycles of one term: θ loads, θ·key_words products, the flush beats."""
        return cfg.terms + cfg.terms * cfg.key_words + cfg.s_words - cfg.key_words

    def elaborate(self, platform):
        m = Module()
        c, L, d = self._cfg, self._L, self._d
        m.submodules.resolver = res = CarryResolver(L, d, coeff_bits=self._acc_bits,
                                                    beats=c.s_words)
        m.submodules.sequencer = seq = SStageSequencer(c, len(self.rd.addr))
        m.d.comb += [seq.start.eq(self.start), seq.fed.eq(self.fed),
                     self.rd.addr.eq(seq.rd_addr), self.rd.en.eq(seq.rd_en)]
        sample, zero, acc = self._samples(m, seq)
        # cycle +3: a word's samples (or a flush beat) into the resolver
        m.d.comb += [res.i.valid.eq(sample), res.o.ready.eq(1)]
        m.d.comb += [res.i.payload[t].eq(Mux(zero, 0, a)) for t, a in enumerate(acc)]
        self._write(m, res)
        return m

    def _samples(self, m, seq):
        """The datapath after ``seq``'s issue cycles: cycle +1, the read data (B_ij into its
        register, or the products); cycle +2, the samples accumulate over j. Returns (a
        word's samples or a flush beat enter the resolver, the beat is a flush beat, the
        ``lanes`` samples), the flags of cycle +3."""
        c, L, d, th = self._cfg, self._L, self._d, self._cfg.terms
        breg = Array(Signal(c.coeff_bits, name=f"b{k}") for k in range(th))
        load1, mac1, zero1, first1, last1 = (Signal(name=f"{n}1") for n in
                                             ("load", "mac", "zero", "first", "last"))
        j1 = Signal.like(seq.j)
        m.d.sync += [load1.eq(seq.load), mac1.eq(seq.mac), zero1.eq(seq.zero),
                     first1.eq(seq.j == 0), last1.eq(seq.j == th - 1), j1.eq(seq.j)]
        with m.If(load1):
            m.d.sync += breg[j1].eq(self.rd.data[:c.coeff_bits])
        digits = [self.rd.data[t * d:(t + 1) * d] for t in range(L)]
        prod = [Signal(c.coeff_bits + d, name=f"prod{t}") for t in range(L)]
        m.d.sync += [p.eq(breg[j1] * x) for p, x in zip(prod, digits)]
        mac2, first2, sample2, zero2 = Signal(), Signal(), Signal(), Signal()
        m.d.sync += [mac2.eq(mac1), first2.eq(first1), sample2.eq((mac1 & last1) | zero1),
                     zero2.eq(zero1)]
        acc = [Signal(self._acc_bits, name=f"acc{t}") for t in range(L)]
        with m.If(mac2):
            m.d.sync += [a.eq(Mux(first2, 0, a) + p) for a, p in zip(acc, prod)]
        sample3, zero3 = Signal(), Signal()
        m.d.sync += [sample3.eq(sample2), zero3.eq(zero2)]
        return sample3, zero3, acc

    def _write(self, m, res):
        """The resolver's digits: S_i's words into slot i mod 2; ``produced`` counts them."""
        c = self._cfg
        beat = Signal(range(c.s_words))
        produced = self.produced
        slot = Mux(produced[0], c.slots[1], c.slots[0])
        m.d.comb += [self.wr.en.eq(res.o.valid), self.wr.addr.eq(slot + beat),
                     self.wr.data.eq(res.o.payload)]
        with m.If(self.start):
            m.d.sync += produced.eq(0)
        with m.If(res.o.valid):
            m.d.sync += beat.eq(wrap_inc(beat, c.s_words - 1))
            with m.If(beat == c.s_words - 1):
                m.d.sync += produced.eq(produced + 1)


class SStageSequencer(Component):
    """The controller of :class:`SStageUnit`: the issue cycles of its θ terms, for
    :class:`~fhe_hw.encrypt.program.SStage` ``cfg`` and RAM addresses of ``addr_width`` bits.

    Per term, once ``fed`` allows it: θ loads (B_i0 .. B_i(θ-1)), θ·key_words products (word w
    of each A_j1 in turn), then s_words - key_words flush beats.

    Ports: ``start`` (in, one cycle: run the θ terms), ``fed`` (in, terms the feeder has read);
    ``rd_addr``, ``rd_en`` (out: this cycle's RAM read); ``load``, ``mac``, ``zero`` (out: the
    kind of this cycle's issue, at most one high) and ``j`` (out: the term index j of a load or
    a product)."""

    def __init__(self, cfg, addr_width):
        self._cfg = cfg
        super().__init__({"start": In(1), "fed": In(range(cfg.terms + 1)),
                          "rd_addr": Out(addr_width), "rd_en": Out(1),
                          "load": Out(1), "mac": Out(1), "zero": Out(1),
                          "j": Out(range(cfg.terms))})

    def elaborate(self, platform):
        m = Module()
        c = self._cfg
        th, kw, zeros = c.terms, c.key_words, c.s_words - c.key_words
        aw = len(self.rd_addr)
        term = Signal(range(th + 1))
        j = self.j
        w = Signal(range(kw))
        zc = Signal(range(zeros + 1))
        baddr, aaddr, wbase = Signal(aw), Signal(aw), Signal(aw)
        with m.FSM(name="sstage"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [term.eq(0), baddr.eq(c.b_addr)]
                    m.next = "WAIT"
            with m.State("WAIT"):
                with m.If(term == th):
                    m.next = "IDLE"
                with m.Elif(term < self.fed + 2):
                    m.d.sync += [j.eq(0), w.eq(0), wbase.eq(c.a_addr), aaddr.eq(c.a_addr)]
                    m.next = "LOAD"
            with m.State("LOAD"):
                m.d.comb += [self.load.eq(1), self.rd_addr.eq(baddr), self.rd_en.eq(1)]
                m.d.sync += [baddr.eq(baddr + 1), j.eq(j + 1)]
                with m.If(j == th - 1):
                    m.d.sync += j.eq(0)
                    m.next = "MAC"
            with m.State("MAC"):
                m.d.comb += [self.mac.eq(1), self.rd_addr.eq(aaddr), self.rd_en.eq(1)]
                m.d.sync += [j.eq(j + 1), aaddr.eq(aaddr + kw)]
                with m.If(j == th - 1):
                    m.d.sync += [j.eq(0), wbase.eq(wbase + 1), aaddr.eq(wbase + 1), w.eq(w + 1)]
                    with m.If(w == kw - 1):
                        if zeros:
                            m.d.sync += zc.eq(zeros)
                            m.next = "ZERO"
                        else:
                            m.d.sync += term.eq(term + 1)
                            m.next = "WAIT"
            if zeros:
                with m.State("ZERO"):
                    m.d.comb += self.zero.eq(1)
                    m.d.sync += zc.eq(zc - 1)
                    with m.If(zc == 1):
                        m.d.sync += term.eq(term + 1)
                        m.next = "WAIT"
        return m
