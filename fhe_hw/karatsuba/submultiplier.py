"""The serial polynomial multiplier and serial integer multipliers of
[Mig16] §III-A2 (Fig. 2): a schoolbook product of two sub-polynomials of
``leaf`` coefficients (degree 4 in the paper), fully parallel so that one leaf pair enters every
``leaf·digits`` cycles, built from ``leaf`` serial integer multipliers of ``digits`` DSPs each
(5 x 5 = 25 multipliers of 27 x 27 bits in the paper).

Data flow (one frame = one leaf = ``leaf`` coefficient-times of ``digits`` cycles):

1. Operand b arrives digit-serially and is shifted into a register; at the end of the frame the
   whole leaf (b_0 .. b_{leaf-1}) moves to a bank that stays for the next frame. Operand a is
   delayed by one frame (a block-RAM FIFO) so that it streams against that bank.
2. In cycle d of coefficient-time i, integer multiplier j forms the row a_{i,d}·b_j on its
   ``digits`` DSPs (:func:`fhe_hw.model.karatsuba.digit_products`, row d = cycle d),
   pipelined and registered, and accumulates it least significant digit first:
   u ← (u >> digit_bits) + row, each low digit being final. After ``digits`` cycles the
   coefficient product a_i·b_j is complete.
3. The products leave chunk-serially (``chunk_bits`` per cycle, ``digits`` chunks) into a
   window of ``leaf`` accumulators in which product a_i·b_j lands on c_{i+j}: the window shifts
   by one coefficient every coefficient-time, so c_i leaves complete after step i and the
   upper half c_leaf .. c_{2leaf-2} after the last step. All additions are chunk-serial.
4. Delay taps re-order the coefficients into output beats (c_2b, c_2b+1): the product leaves on
   two lanes, one beat per coefficient-time, ``leaf`` beats per frame (the last lane 1 is 0).
"""

from amaranth import Cat, Elaboratable, Module, Mux, Signal

from ..params import require_int
from .serial import Timing, delay, serial_add

__all__ = ["SerialPolyMultiplier", "beat_delay", "TILE_BITS"]

# Width of one DSP block's multiplier (ECP5 MULT18X18D, Xilinx DSP48 column): a digit multiplier
# of digit_bits x digit_bits is ⌈digit_bits/18⌉^2 tiles (4 for 27 bits; on a device with native
# 27 x 27 DSPs, as the paper's Intel FPGAs, one would set it to 27).
TILE_BITS = 18


def beat_delay(leaf):
    """Coefficient-times E between a serial polynomial multiplier's accumulation and its output
    beats: c_k is complete after accumulation step min(k, leaf-1), and beat b (c_2b, c_2b+1)
    leaves at step b + E."""
    require_int("leaf", leaf, minimum=1)
    return max(0, max(min(k, leaf - 1) - k // 2 for k in range(2 * leaf - 1)))


class SerialPolyMultiplier(Elaboratable):
    """Schoolbook product of ``leaf``-coefficient polynomials on digit-serial operands.

    Parameters: ``leaf``, ``digits``, ``digit_bits``, ``chunk_bits`` (output chunk width; the
    products are exact modulo 2^(digits·chunk_bits)), ``period`` and ``time`` (the engine's
    schedule period and the label of the input; frames start at ``time`` + multiples of
    ``leaf·digits``).

    Ports: ``a``, ``b`` (in: one digit of each operand per cycle, coefficients in ascending
    order, digits least significant first); ``z`` (out: two lanes of ``chunk_bits``; beat b of a
    frame carries c_2b and c_2b+1 as ``digits`` chunks, least significant first). Latency
    :meth:`latency_of` cycles from a frame's first input digit to its first output chunk.
    ``leaf·digits`` multipliers of ``digit_bits`` x ``digit_bits`` bits.
    """

    def __init__(self, leaf, digits, digit_bits, chunk_bits, period, time):
        self.leaf, self.digits, self.digit_bits = leaf, digits, digit_bits
        self.chunk_bits, self.period, self.time = chunk_bits, period, time
        self.a, self.b = Signal(digit_bits), Signal(digit_bits)
        self.z = [Signal(chunk_bits, name="z0"), Signal(chunk_bits, name="z1")]

    @staticmethod
    def latency_of(leaf, digits):
        """One frame of operand buffering, the operand fan-out register, the tile and digit
        product registers, the row register, ``digits`` cycles of accumulation,
        ``beat_delay(leaf)`` coefficient-times of re-ordering, the output register."""
        return leaf * digits + 4 + digits + beat_delay(leaf) * digits + 1

    @property
    def latency(self):
        return self.latency_of(self.leaf, self.digits)

    def elaborate(self, platform):
        m = Module()
        leaf, D, db, k = self.leaf, self.digits, self.digit_bits, self.chunk_bits
        S = leaf * D
        t = Timing(m, self.period)

        # 1. operand buffers: b serial-to-parallel, a delayed by one frame.
        shift = Signal(S * db)
        bank = Signal(S * db)
        incoming = Cat(shift[db:], self.b)
        m.d.sync += shift.eq(incoming)
        # the bank changes one cycle after the frame's last digit, when the a digits (behind
        # their fan-out register) start streaming against it.
        with m.If(t.phase(self.time + 1, S) == S - 1):
            m.d.sync += bank.eq(shift)
        a = delay(m, self.a, S, name="a_fifo")

        # 2. serial integer multipliers: rows on `digits` DSPs, LSD-first accumulation. Every
        # digit multiplier gets its own copy of the a digit (fan-out register), forms its
        # TILE_BITS x TILE_BITS tile products in one registered stage (one DSP block each, with
        # nothing between the DSP and its output register) and sums them in the next.
        row_time = self.time + S + 4
        d = t.phase(row_time, D)
        products = []
        for j in range(leaf):
            digit_products = []
            for e in range(D):
                a_copy = Signal(db, name=f"a{j}_{e}")
                m.d.sync += a_copy.eq(a)
                b_digit = bank[(j * D + e) * db:(j * D + e + 1) * db]
                tiles = []
                for lo_a in range(0, db, TILE_BITS):
                    for lo_b in range(0, db, TILE_BITS):
                        tile = a_copy[lo_a:lo_a + TILE_BITS] * b_digit[lo_b:lo_b + TILE_BITS]
                        reg = Signal(len(tile), name=f"tile{j}_{e}_{lo_a}_{lo_b}")
                        m.d.sync += reg.eq(tile)
                        tiles.append(reg << (lo_a + lo_b))
                p = Signal(2 * db, name=f"dsp{j}_{e}")
                m.d.sync += p.eq(sum(tiles))
                digit_products.append(p)
            row = Signal(db * (D + 1), name=f"row{j}")
            even = Cat(*digit_products[0::2])
            odd = Cat(*digit_products[1::2])
            m.d.sync += row.eq(even + (odd << db))
            u = Signal(db * (D + 1), name=f"u{j}")
            low = Signal(db * (D - 1), name=f"low{j}")
            u_next = Mux(d == 0, 0, u >> db) + row
            m.d.sync += u.eq(u_next)
            if D > 1:
                m.d.sync += low.eq(Cat(low[db:], u_next[:db]))
            ser = Signal(D * k, name=f"ser{j}")
            with m.If(d == D - 1):
                m.d.sync += ser.eq(Cat(low, u_next))
            with m.Else():
                m.d.sync += ser.eq(ser >> k)
            products.append(ser[:k])

        # 3. the accumulation window: c_{i+j} += a_i·b_j, chunk-serially.
        acc_time = row_time + D
        first = t.phase(acc_time, D) == 0
        last_step = t.phase(acc_time, S) >= (leaf - 1) * D
        window = [Signal(D * k, name=f"window{j}") for j in range(leaf - 1)]
        outs = []
        for j in range(leaf):
            head = window[j][:k] if j < leaf - 1 else 0
            if j < leaf - 1:
                outs.append(serial_add(m, head, products[j], first, name=f"carry{j}"))
            else:
                outs.append(products[j])
        for j in range(leaf - 1):
            m.d.sync += window[j].eq(Cat(window[j][k:], Mux(last_step, 0, outs[j + 1])))

        # 4. re-order the coefficients into beats (c_2b, c_2b+1) through delay taps.
        E = beat_delay(leaf)
        sources = {}
        for c in range(2 * leaf - 1):
            src = 0 if c < leaf - 1 else c - (leaf - 1)
            sources[c] = (src, c // 2 + E - min(c, leaf - 1))
        taps = {}
        for src in sorted({s for s, _ in sources.values()}):
            delays = sorted({dl for s, dl in sources.values() if s == src})
            prev, prev_delay = outs[src], 0
            for dl in delays:
                prev = delay(m, prev, (dl - prev_delay) * D, name=f"tap{src}_{dl}")
                prev_delay = dl
                taps[src, dl] = prev
        beat = t.index(acc_time + E * D, D, leaf)
        with m.Switch(beat):
            for b in range(leaf):
                with m.Case(b):
                    for lane in range(2):
                        c = 2 * b + lane
                        value = taps[sources[c]] if c in sources else 0
                        m.d.sync += self.z[lane].eq(value)
        return m
