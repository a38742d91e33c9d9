"""Memory-streamed word-serial arithmetic: the super-size accumulation module of
[Cao13] §4 Fig. 6(ii) ("a general d-bit width accumulation operation, which is
interleaved with the memory reading/writing operations") and the super-size subtraction module
of Fig. 6(iii) ("a successively applied d-bit subtraction operation, but a memory read/write
interface is added to extend its bit width") that finishes the super-size Barrett reduction
(Step-4: y1 = x - p2, y2 = y1 - A0 and a signal telling which one is the result).
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, enum, stream
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..params import require_int
from .ram import memory_members

__all__ = ["WordALU", "ALUOp", "alu_cycles"]


class ALUOp(enum.Enum, shape=2):
    #: dst = a + (b << shift), shift 0 or 1 bit (Fig. 6(ii); shift 1 doubles the product)
    ADD = 0
    #: dst = a - b; flag ``ge`` := (a - b - c >= 0) (Fig. 6(iii): y1 and the sign of y2)
    SUB = 1
    #: dst = a - (ge ? b : 0): writes the selected one of y1, y2 in place
    SUBSEL = 2


def alu_cycles(words):
    """Cycles of one operation over ``words`` words, command to done beat inclusive: n + 3."""
    return words + 3


class WordALU(Component):
    """Word-serial add/subtract over the shared RAM ([Cao13] Fig. 6(ii)/(iii)).

    Parameters: ``bus_width`` d, ``addr_width``, ``max_words`` (longest operation).

    Ports: ``i`` — stream of ``{op, a_addr, a_len, b_addr, b_len, c_addr, c_len, dst, n,
    shift}``: the operation runs over words 0..n-1, operand words at or past their ``*_len``
    read as zero (so an operand can be shorter than the result, or absent with len 0);
    ``o`` — one beat (payload: the ``ge`` flag) per operation; ``rd_x``/``rd_y``/``rd_z`` read
    a/b/c, ``wr`` writes dst (:mod:`fhe_hw.bigint.ram`). dst may equal a (in place): word w is
    read before it is written. Cycles :func:`alu_cycles`; one word per cycle.
    """

    def __init__(self, bus_width, addr_width, max_words):
        self.check(bus_width, addr_width, max_words)
        self._d, self._aw, self._max = bus_width, addr_width, max_words
        lw = max_words.bit_length()
        a, lw_ = unsigned(addr_width), unsigned(lw)
        self._layout = data.StructLayout({
            "op": ALUOp, "a_addr": a, "a_len": lw_, "b_addr": a, "b_len": lw_,
            "c_addr": a, "c_len": lw_, "dst": a, "n": lw_, "shift": 1})
        super().__init__({"i": In(stream.Signature(self._layout)),
                          "o": Out(stream.Signature(unsigned(1))),
                          **memory_members(addr_width, bus_width)})

    @staticmethod
    def check(bus_width, addr_width, max_words):
        """Raise the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        require_int("bus_width", bus_width, minimum=2)
        require_int("addr_width", addr_width, minimum=1)
        require_int("max_words", max_words, minimum=1)

    @property
    def command_layout(self):
        return self._layout

    def cycles(self, words):
        return alu_cycles(words)

    def elaborate(self, platform):
        m = Module()
        d = self._d
        cmd = Signal(self._layout)
        run, done, ge = Signal(), Signal(), Signal()
        w = Signal(self._max.bit_length() + 1)
        live = Signal()                 # stage 2 holds a word
        m.d.comb += [self.i.ready.eq(~run & ~live & ~done), self.o.valid.eq(done),
                     self.o.payload.eq(ge)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += done.eq(0)
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [cmd.eq(self.i.payload), run.eq(self.i.payload.n != 0), w.eq(0)]
            with m.If(self.i.payload.n == 0):
                m.d.sync += done.eq(1)
        with m.If(run):
            m.d.sync += w.eq(w + 1)
            with m.If(w == cmd.n - 1):
                m.d.sync += run.eq(0)
        ports = (self.rd_x, self.rd_y, self.rd_z)
        lens = (cmd.a_len, cmd.b_len, cmd.c_len)
        addrs = (cmd.a_addr, cmd.b_addr, cmd.c_addr)
        got = []
        for port, ln, ad in zip(ports, lens, addrs):
            en = Signal()
            m.d.comb += [port.en.eq(run & (w < ln)), port.addr.eq(ad + w)]
            m.d.sync += en.eq(port.en)
            got.append(Mux(en, port.data, 0))
        a, b, c = got
        # stage 2: data back, one carry/borrow chain per cycle, write registered
        first, last = Signal(), Signal()
        m.d.sync += [live.eq(run), first.eq(run & (w == 0)), last.eq(run & (w == cmd.n - 1))]
        dst = Signal.like(cmd.dst)
        m.d.sync += dst.eq(cmd.dst + w)
        c1, top = Signal(), Signal()    # the result chain's carry/borrow, b's msb
        c1_in = Mux(first, Mux(cmd.op == ALUOp.ADD, 0, 1), c1)  # subtraction: a + ~b + 1
        b_sh = Mux(cmd.shift, Cat(Mux(first, 0, top), b[:d - 1]), b)
        sub_b = Mux(cmd.op == ALUOp.SUBSEL, Mux(ge, b, 0), b)
        s1 = Signal(d + 1)
        with m.Switch(cmd.op):
            with m.Case(ALUOp.ADD):
                m.d.comb += s1.eq(a + b_sh + c1_in)
            with m.Default():
                m.d.comb += s1.eq(a + (~sub_b)[:d] + c1_in)
        # SUB's flag: a - b - c = a + ~b + ~c + 2 in one chain beside the result's, the three
        # words compressed to two first (so the flag costs one adder, not two in a row); the
        # carry between words is 0, 1 or 2, kept as two bits k1 + k2
        nb, nc = (~b)[:d], (~c)[:d]
        k1, k2 = Signal(), Signal()
        t = Signal(d + 2)
        m.d.comb += t.eq((a ^ nb ^ nc) + Cat(Mux(first, 1, k1), (a & nb) | (a & nc) | (nb & nc))
                         + Mux(first, 1, k2))
        m.d.sync += self.wr.en.eq(0)
        with m.If(live):
            m.d.sync += [self.wr.en.eq(1), self.wr.addr.eq(dst), self.wr.data.eq(s1[:d]),
                         c1.eq(s1[d]), k1.eq(t[d + 1]), k2.eq(t[d + 1] | t[d]),
                         top.eq(b[d - 1])]
            with m.If(last):
                m.d.sync += done.eq(1)
                with m.If(cmd.op == ALUOp.SUB):
                    m.d.sync += ge.eq(t[d + 1])
        return m
