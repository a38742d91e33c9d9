"""The serial polynomial multiplier and serial integer multipliers of
[Mig16] §III-A2 (Fig. 2): a schoolbook product of two sub-polynomials of
``leaf`` coefficients (degree 4 in the paper), fully parallel so that one leaf pair enters every
``leaf·digits`` cycles, built from ``leaf`` serial integer multipliers of ``digits`` DSPs each
(5 x 5 = 25 multipliers of 27 x 27 bits in the paper).

Data flow (one frame = one leaf = ``leaf`` coefficient-times of ``digits`` cycles):

1. Operand b arrives digit-serially and is shifted into a register; at the end of the frame the
   whole leaf (b_0 .. b_{leaf-1}) moves to a bank that stays for the next frame. Operand a is
   delayed by one frame (a block-RAM FIFO) so that it streams against that bank. When
   pipelined, integer multiplier j sees a through a chain of j + 1 registers, j cycles late,
   and switches its part of the bank j cycles late; its products are realigned before step 3.
2. In cycle d of coefficient-time i, integer multiplier j forms the row a_{i,d}·b_j on its
   ``digits`` digit multipliers (:func:`fhe_hw.model.karatsuba.digit_products`, row d =
   cycle d), each a tiled :class:`~fhe_hw.arith.pipeline.Multiplier`: 18 x 18-bit tile
   products in registered DSP blocks (:class:`~fhe_hw.arith.dsp.TileProduct`) summed by a
   registered adder tree, and accumulates it least significant digit first:
   u ← (u >> digit_bits) + row, each low digit being final. u is kept in carry-save form (two
   vectors and 4:2 compressors, no carry chain); each cycle a ``digit_bits`` adder resolves the
   lowest digit of the previous u and feeds its carry into the compressors. After ``digits``
   cycles the coefficient product a_i·b_j is complete in carry-save form and is resolved
   chunk-serially (one ``chunk_bits`` adder with a carry flip-flop).
3. The products leave chunk-serially (``chunk_bits`` per cycle, ``digits`` chunks) into a
   window of ``leaf`` accumulators in which product a_i·b_j lands on c_{i+j}: the window shifts
   by one coefficient every coefficient-time, so c_i leaves complete after step i and the
   upper half c_leaf .. c_{2leaf-2} after the last step. All additions are chunk-serial.
4. Delay taps re-order the coefficients into output beats (c_2b, c_2b+1): the product leaves on
   two lanes, one beat per coefficient-time, ``leaf`` beats per frame (the last lane 1 is 0).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from ..arith.dsp import DSP_WIDTH
from ..arith.pipeline import Multiplier, Stages
from ..component import Component
from ..lib.delay import delay_line
from ..params import check_bool, require_int
from .serial import Timing

__all__ = ["SerialPolyMultiplier", "beat_delay"]

#: Registers of a digit multiplier (a tiled :class:`~fhe_hw.arith.pipeline.Multiplier` of 18 x
#: 18-bit tiles, one MULT18X18D each), by ``pipelined``: for digits of 19 to 36 bits (four
#: tiles) the DSPs' operand and product registers and one register per adder-tree level, or
#: the product register and one adder-tree register (the Multiplier places them for other
#: tile counts).
MULTIPLIER_STAGES = {True: 4, False: 2}


def beat_delay(leaf):
    """Coefficient-times E between a serial polynomial multiplier's accumulation and its output
    beats: c_k is complete after accumulation step min(k, leaf-1), and beat b (c_2b, c_2b+1)
    leaves at step b + E."""
    require_int("leaf", leaf, minimum=1)
    return max(0, max(min(k, leaf - 1) - k // 2 for k in range(2 * leaf - 1)))


class SerialPolyMultiplier(Component):
    """Schoolbook product of ``leaf``-coefficient polynomials on digit-serial operands.

    Latency :meth:`latency_of` cycles from a frame's first input digit to its first output
    chunk. ``leaf·digits`` multipliers of ``digit_bits`` x ``digit_bits`` bits. Lock-step: the
    ports carry a digit or chunk every cycle, without ``valid``.

    Parameters
    ----------
    leaf, digits, digit_bits : int
        Coefficients of the sub-polynomials, digits per coefficient and their width.
    chunk_bits : int
        Output chunk width; the products are exact modulo 2^(digits·chunk_bits).
    period, time : int
        The engine's schedule period and the label of the input; frames start at ``time`` +
        multiples of ``leaf·digits``.
    pipelined : bool
        Default ``True``: the DSPs' operand registers and a second adder-tree register in
        each digit multiplier (:data:`MULTIPLIER_STAGES`) and a register between the product's
        chunk-serial resolution and the accumulation window and one after the window, so that
        no path has more than one carry chain and no chain feeds the re-ordering taps, and the
        a digit reaches digit multiplier q through a chain of q + 1 registers instead of one
        register driving all ``leaf·digits`` of them; ``False``: the a digit is broadcast, the
        tile products are summed in one stage and the two chunk adders are chained.

    Attributes
    ----------
    a, b : In(digit_bits)
        One digit of each operand per cycle, coefficients in ascending order, digits least
        significant first.
    z : Out(chunk_bits).array(2)
        Two lanes; beat b of a frame carries c_2b and c_2b+1 as ``digits`` chunks, least
        significant first.
    enable : In(1), init 1
        The clock enable the engine applies to the datapath by an ``EnableInserter``, which
        does not reach the DSP primitives: they take it here.
    """

    def __init__(self, leaf, digits, digit_bits, chunk_bits, period, time, *, pipelined=True):
        self.leaf, self.digits, self.digit_bits = leaf, digits, digit_bits
        self.chunk_bits, self.period, self.time = chunk_bits, period, time
        self.pipelined = check_bool("pipelined", pipelined)
        super().__init__({"a": In(digit_bits), "b": In(digit_bits),
                          "z": Out(chunk_bits).array(2), "enable": In(1, init=1)})

    @staticmethod
    def row_delay_of(pipelined=True):
        """Cycles from an a digit leaving the operand FIFO to the first digit multiplier's
        product: the fan-out register and :data:`MULTIPLIER_STAGES`."""
        return 1 + MULTIPLIER_STAGES[check_bool("pipelined", pipelined)]

    @staticmethod
    def latency_of(leaf, digits, pipelined=True):
        """One frame of operand buffering, :meth:`row_delay_of`, ``digits`` cycles of
        accumulation, when ``pipelined`` the ``leaf·digits - 1`` cycles of the a fan-out
        chain, the resolution register and the register after the accumulation window,
        ``beat_delay(leaf)`` coefficient-times of re-ordering, the output register."""
        return (leaf * digits + SerialPolyMultiplier.row_delay_of(pipelined) + digits
                + int(pipelined) * (leaf * digits + 1) + beat_delay(leaf) * digits + 1)

    @property
    def latency(self):
        return self.latency_of(self.leaf, self.digits, self.pipelined)

    def elaborate(self, platform):
        m = Module()
        leaf, D = self.leaf, self.digits
        t = Timing(m, self.period)
        row_time = self.time + leaf * D + self.row_delay_of(self.pipelined)
        acc_time = row_time + D + self.pipelined * leaf * D
        products = self._products(m, t, row_time)
        outs = self._window(m, t, products, acc_time)
        self._reorder(m, t, outs, acc_time)
        return m

    def _products(self, m, t, row_time):
        """Steps 1 and 2 (see the module docstring): the operand buffers and the ``leaf``
        serial integer multipliers; returns each one's coefficient product, chunk-serially
        (label ``acc_time``).

        b is shifted in serial-to-parallel, a delayed by one frame. Each digit multiplier gets
        a copy of the a digit (one shared fan-out register, or its own link of the chain when
        pipelined: digit multiplier q = j·digits + e then works q cycles behind the first, so
        its b digit changes q cycles later, when that digit has reached the oldest position of
        the shift register) and forms the digit product on a tiled Multiplier
        (:data:`MULTIPLIER_STAGES` registers). When pipelined the digit products of integer
        multiplier j are realigned to skew j·digits + digits - 1 and its coefficient products
        to the last one's. The lock-step datapath has no valid to carry along."""
        leaf, D, db = self.leaf, self.digits, self.digit_bits
        S, P = leaf * D, self.pipelined
        shift = Signal(S * db)
        m.d.sync += shift.eq(Cat(shift[db:], self.b))
        a = delay_line(m, self.a, S, name="a_fifo")
        products = []
        a_copy = a
        for j in range(leaf):
            digit_products = []
            for e in range(D):
                q = j * D + e
                a_next = Signal(db, name=f"a{j}_{e}")
                m.d.sync += a_next.eq(a_copy if P else a)
                a_copy = a_next
                b_digit = Signal(db, name=f"b{j}_{e}")
                with m.If(t.phase(self.time + 1 + P * q, S) == S - 1):
                    lo = (q - P * q) * db
                    m.d.sync += b_digit.eq(shift[lo:lo + db])
                st = Stages(m, Const(1), clock_enable=self.enable)
                p = Multiplier(db, db, MULTIPLIER_STAGES[P], chunk=DSP_WIDTH,
                               tiled=True).build(st, a_copy, b_digit)
                digit_products.append(delay_line(m, p, P * (D - 1 - e), name=f"skew{j}_{e}"))
            row_end = row_time + P * (j * D + D - 1)
            product = self._accumulate(m, t, j, digit_products, row_end)
            products.append(delay_line(m, product, P * (leaf - 1 - j) * D, name=f"align{j}"))
        return products

    def _window(self, m, t, products, acc_time):
        """Step 3, the accumulation window: c_{i+j} += a_i·b_j, chunk-serially; returns the
        ``leaf`` window outputs (label ``acc_time``)."""
        leaf, D, k = self.leaf, self.digits, self.chunk_bits
        last_step = t.phase(acc_time, leaf * D) >= (leaf - 1) * D
        window = [Signal(D * k, name=f"window{j}") for j in range(leaf - 1)]
        outs = []
        for j in range(leaf):
            if j < leaf - 1:
                outs.append(t.serial_add(window[j][:k], products[j], acc_time, D,
                                         name=f"carry{j}"))
            else:
                outs.append(products[j])
        for j in range(leaf - 1):
            m.d.sync += window[j].eq(Cat(window[j][k:], Mux(last_step, 0, outs[j + 1])))
        return outs

    def _reorder(self, m, t, outs, acc_time):
        """Step 4: the coefficients re-ordered into the beats (c_2b, c_2b+1) of ``z`` through
        delay taps, when pipelined from a register of the window's sums (its carry chains end
        there)."""
        leaf, D = self.leaf, self.digits
        if self.pipelined:
            outs = delay_line(m, outs, 1, name="window_out")
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
                prev = delay_line(m, prev, (dl - prev_delay) * D, name=f"tap{src}_{dl}")
                prev_delay = dl
                taps[src, dl] = prev
        beat = t.index(acc_time + E * D + int(self.pipelined), D, leaf)
        with m.Switch(beat):
            for b in range(leaf):
                with m.Case(b):
                    for lane in range(2):
                        c = 2 * b + lane
                        value = taps[sources[c]] if c in sources else 0
                        m.d.sync += self.z[lane].eq(value)

    def _accumulate(self, m, t, j, digit_products, row_end):
        """Integer multiplier j's accumulation u ← (u >> digit_bits) + row in carry-save form
        and the chunk-serial resolution of each coefficient product (see the module
        docstring); returns the product's current chunk (label ``row_time + digits``, plus
        one when ``pipelined``). ``t``: the datapath's :class:`Timing`; this multiplier's
        rows end at ``row_end``, from where its phase of ``digits`` cycles starts."""
        D, db, k = self.digits, self.digit_bits, self.chunk_bits
        first, last = t.flag(row_end, D), t.flag(row_end, D, D - 1)
        even = Cat(*digit_products[0::2])
        odd = Cat(*digit_products[1::2])
        # u = sum + carry. Both are non-negative and their sum, the value u of the plain
        # accumulation, is below 2^(digit_bits·(digits+1)), so each fits that width. The lowest
        # digit of the previous u is resolved here; its carry enters the compressors at the
        # weight of the previous u's second digit, where the odd digit products have zeros.
        width = db * (D + 1)
        u_sum, u_carry = Signal(width, name=f"u_sum{j}"), Signal(width, name=f"u_carry{j}")
        low_digit = u_sum[:db] + u_carry[:db]
        carry_in = Mux(first, 0, low_digit[db])
        s1, c1 = _compress(Mux(first, 0, u_sum[db:]), Mux(first, 0, u_carry[db:]), even)
        s2, c2 = _compress(s1, c1, Cat(carry_in, Const(0, db - 1), odd))
        m.d.sync += [u_sum.eq(s2), u_carry.eq(c2)]
        # digit d-1 is resolved in cycle d: after the last cycle the product is the resolved
        # digits 0 .. D-2 and the carry-save rest, as two D·chunk_bits vectors.
        if D > 2:
            low = Signal(db * (D - 2), name=f"low{j}")
            m.d.sync += low.eq(Cat(low[db:], low_digit[:db]))
            resolved = Cat(low, low_digit[:db])
        elif D == 2:
            resolved = low_digit[:db]
        else:
            resolved = Const(0, 0)
        ser_sum = Signal(D * k, name=f"ser_sum{j}")
        ser_carry = Signal(D * k, name=f"ser_carry{j}")
        with m.If(last):
            m.d.sync += [ser_sum.eq(Cat(resolved, s2)),
                         ser_carry.eq(Cat(Const(0, len(resolved)), c2))]
        with m.Else():
            m.d.sync += [ser_sum.eq(ser_sum >> k), ser_carry.eq(ser_carry >> k)]
        chunk = t.serial_add(ser_sum[:k], ser_carry[:k], row_end, D, name=f"resolve{j}")
        if not self.pipelined:
            return chunk
        reg = Signal(k, name=f"product{j}")
        m.d.sync += reg.eq(chunk)
        return reg


def _compress(a, b, c):
    """3:2 carry-save compression: (sum, carry) with sum + carry = a + b + c exactly."""
    return a ^ b ^ c, ((a & b) | (a & c) | (b & c)) << 1
