"""Shift-only arithmetic for the NTT: [Wang13] §III-B and §IV-A/B (Wang–Huang,
p = 2^64 - 2^32 + 1) and [Cao14] §3.2 (special moduli 2^(m-1) + 1, "each
m-bit multiplier in a butterfly is implemented using a bit-shift operation").

The shift ring
--------------
For p = 2^n + 1 (n = m - 1) and for p = 2^64 - 2^32 + 1 there is a word width W with p | 2^W - 1:
W = 2n (2^n ≡ -1) and W = 192 (2^96 ≡ -1, 2^192 ≡ 1). Multiplying a W-bit word by 2^e modulo
2^W - 1 is a rotation, so x·2^e (mod p) is a rotation of x zero-extended to W bits, and sums of
such words may stay unreduced modulo 2^W - 1 until one final normalisation
(:class:`RingNormaliser`: a W-bit word -> its residue mod p, through [Cao14] Fig. 3(b)/(c)).
Because 2^(W/2) ≡ -1, -2^e = 2^(e + W/2): every constant that is ±2^a ± 2^b is a sum of at most
two rotations (:func:`shift_exponents`). Over solinas64 every power of a primitive 128th root is
of that form (2^25 - 2^73 is a square root of 8), so all twiddles of a 128-point
transform, and k^-1 = 2^-7, are shift-and-add.

Units
-----
* :class:`ShiftMul` — x·c mod p for a constant c = 2^a (+ 2^b): rotations, one addition,
  normalisation. No multiplier.
* :class:`ConstMul` — x·c mod p for any constant: :class:`ShiftMul` where it applies, else a
  :class:`~fhe_hw.arith.ModMul` with a constant operand; a delay line for c = 1.
* :class:`RingNormaliser` — (W+1)-bit ring word -> residue mod p.
* :class:`ShiftNTT` — the radix-64 / radix-16 units of [Wang13] §IV-A/B with stream interfaces.

ShiftNTT architecture ([Wang13] §IV-A, Figs 1–2)
--------------------------------------------
A = Σ_i x_i·ω^(ij) with ω = 2^(192/n): every term is x_i rotated by (192/n)·i·j bits in the
192-bit ring. The unit takes ``lanes`` samples per beat, B = n/lanes beats per transform, natural
order (beat b holds x[b·lanes .. b·lanes + lanes - 1]), and gives the n results the same way.
There are n processing elements (PE j computes A_j), in B groups of ``lanes`` PEs; group g makes
the outputs of output beat g. A PE holds its sum in carry-save form (ps, sc), as the paper's PE:
each cycle it compresses its ``lanes`` rotated samples and the fed-back (ps, sc) with 3:2
carry-save adders (full adders; the carry out of bit 191 re-enters bit 0 because 2^192 ≡ 1) down
to two words. The rotations are constant wiring: the beat-dependent factor 2^(s·lanes·b·j) is
applied by Horner's rule, rotating the fed-back pair by -s·lanes·step·j each beat and the final
pair by +(B - 1)·s·lanes·step·j (rotation commutes with the carry-save adder). Normalisation to
64 bits happens once per output (ps + sc, then :class:`RingNormaliser`).

Group g sees the input beats g cycles after group 0 (an input delay line), so exactly one group
finishes per cycle and ``lanes`` normalisers serve all n PEs: with always-valid input the unit
takes a beat every cycle and gives a beat every cycle — the paper's 64-point unit takes 8 samples
per cycle and gives one 64-point result every 8 cycles; the 16-point unit with 16 lanes one
result per cycle. The inverse (``inverse=True``) rotates the other way and log2 n bits less,
which multiplies by n^-1 = 2^-log2 n, so it too uses no multiplier (as
:func:`fhe_hw.model.ntt.shift_ntt`).

Deviation from the paper: the paper's PE adds its samples with a chain of carry-save adders
over 192-bit words; here each beat is compressed with a Wallace tree of the same 3:2 adders over
the bit columns that can be non-zero (a rotated 64-bit sample occupies 64 of the 192 columns), so
no adder has a constant-zero input and the number of adder levels per cycle grows with the
logarithm of the column height instead of with ``lanes``. The sum ps + sc is the same modulo
2^192 - 1, so the outputs equal the model's (:func:`fhe_hw.model.ntt.shift_ntt`) bit for bit;
the individual ps and sc words differ from :func:`~fhe_hw.model.ntt.shift_ntt_carry_save`.
"""

from dataclasses import dataclass, field
from functools import cache

from amaranth import Cat, Const, Elaboratable, Module, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..arith import (
    ModMul,
    ModMulPlan,
    SolinasReducer,
    SolinasReducerPlan,
    SpecialReducer,
    SpecialReducerPlan,
)
from ..arith.pipeline import KEEP, FixedLatencyUnit, Stages, check_mult_stages, wrap_inc
from ..component import Component
from ..lib.stream import stall_on_backpressure
from ..params import (
    SOLINAS64,
    NTTParams,
    get_modulus,
    require_int,
    require_power_of_two,
    shift_exponent,
    solinas_ntt_params,
)
from ..plan import StreamPlan, param
from .roots import omega_param, root_description, root_param

__all__ = ["shift_ring", "shift_exponents", "RingNormaliser", "ShiftMul", "ConstMul",
           "MULTIPLIERS", "ShiftNTT", "ShiftNTTPlan", "SHIFT_NTT_SIZES"]

#: ``multiplier=`` choices of :class:`ConstMul` (and of the constant-twiddle butterfly).
MULTIPLIERS = ("auto", "shift", "modmul")
#: Transform sizes of :class:`ShiftNTT` (ω_n = 2^(192/n) is a shift for these).
SHIFT_NTT_SIZES = (2, 4, 8, 16, 32, 64)
_WORD = 64          # ShiftNTT samples are 64-bit words (residues or not: any x < 2^64)


# --- the ring and constant decomposition -------------------------------------------------------

def shift_ring(modulus):
    """W such that p | 2^W - 1 and 2^(W/2) ≡ -1 (mod p): 2(m - 1) for p = 2^(m-1) + 1, 192 for
    p = 2^64 - 2^32 + 1; ``None`` for any other modulus (no shift-only arithmetic)."""
    mod = get_modulus(modulus)
    if mod.is_special:
        return 2 * (mod.bits - 1)
    if mod.is_solinas64:
        return 192
    return None


@cache
def _powers_of_two(p, width):
    return {pow(2, e, p): e for e in range(width)}


def shift_exponents(modulus, constant, max_terms=2):
    """Exponents (e1, e2, ...) with Σ 2^ei ≡ constant (mod p), 0 <= ei < W, at most
    ``max_terms`` of them (fewest first; ``()`` for constant ≡ 0).

    Raises ``ValueError`` when p has no shift ring (:func:`shift_ring`) or the constant is not
    such a sum; ``TypeError`` for a non-integer constant."""
    mod = get_modulus(modulus)
    require_int("constant", constant)
    require_int("max_terms", max_terms, minimum=0)
    width = shift_ring(mod)
    if width is None:
        raise ValueError(f"modulus must be 2^(m-1)+1 or 2^64-2^32+1 for shift-only "
                         f"multiplication, not {mod}")
    p, c = mod.value, constant % mod.value
    powers = _powers_of_two(p, width)
    if c == 0:
        return ()
    if c in powers and max_terms >= 1:
        return (powers[c],)
    if max_terms >= 2:
        for a in range(width):
            rest = (c - pow(2, a, p)) % p
            if rest in powers:
                return tuple(sorted((a, powers[rest])))
    raise ValueError(f"constant must be a sum of at most {max_terms} powers of two modulo {p} "
                     f"for shift-only multiplication, not {constant!r}")


def _rotate(value, amount, width):
    return value.rotate_left(amount % width)


# --- normalisation -----------------------------------------------------------------------------

class RingNormaliser(FixedLatencyUnit):
    """The residue mod p of a ring word v < 2^(W+1) ([Wang13] §IV-A: "normalization back down to 64
    bits"; W from :func:`shift_ring`).

    For p = 2^n + 1, v = T·2^(2n) + H·2^n + L ≡ L - H + T: exactly the [Cao14] Fig. 3(b)
    :class:`~fhe_hw.arith.SpecialReducer` (latency 2). For solinas64, v = v2·2^192 + H·2^96 + L
    ≡ L - H + v2; adding 2^33·p keeps it positive below 2^98 (registered), then [Cao14] Fig. 3(c)
    :class:`~fhe_hw.arith.SolinasReducer` (latency 3 in all), as :func:`fhe_hw.model.ntt.normalise`.

    Both reducers run in their shallow pipeline (``deep=False``), which these latencies and the
    shift units' documented cycle counts ([Wang13]) are built on.

    Parameters: ``modulus``, ``width`` (bits of v, 1..W+1). Ports: ``i`` — always-ready stream of
    the ``width``-bit v; ``o`` — always-ready stream of the m-bit residue. Raises ``ValueError``
    for a modulus without shift ring or a bad width.
    """

    def __init__(self, modulus, width):
        self._latency = self.latency_of(modulus, width)
        self._modulus = mod = get_modulus(modulus)
        self._ring = shift_ring(mod)
        self._width = width
        if mod.is_special:
            self._reducer = SpecialReducer(mod.bits, deep=False)
        else:
            self._reducer = SolinasReducer(mod, deep=False)
        super().__init__(unsigned(width), unsigned(mod.bits))

    @staticmethod
    def latency_of(modulus, width):
        """The :attr:`latency` of ``RingNormaliser(modulus, width)`` without building it; raises
        the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        mod = get_modulus(modulus)
        ring = shift_ring(mod)
        if ring is None:
            raise ValueError(f"modulus must be 2^(m-1)+1 or 2^64-2^32+1 for ring normalisation, "
                             f"not {mod}")
        require_int("width", width, minimum=1)
        if width > ring + 1:
            raise ValueError(f"width must be at most W + 1 = {ring + 1}, not {width!r}")
        if mod.is_special:
            return SpecialReducerPlan(mod.bits, deep=False).latency
        return 1 + SolinasReducerPlan(mod, deep=False).latency

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def width(self):
        return self._width

    def elaborate(self, platform):
        m = Module()
        m.submodules.reducer = red = self._reducer
        v = Cat(self.i.payload, Const(0, self._ring + 1 - self._width))
        if self._modulus.is_special:
            m.d.comb += [red.i.payload.eq(v), red.i.valid.eq(self.i.valid)]
        else:
            st = Stages(m, self.i.valid)
            folded = v[:96] - v[96:192] + v[192] + (SOLINAS64 << 33)
            folded, = st.cut(folded[:98])
            m.d.comb += [red.i.payload.eq(folded), red.i.valid.eq(st.valid)]
        m.d.comb += [self.o.payload.eq(red.o.payload), self.o.valid.eq(red.o.valid)]
        return m


# --- constant multiplication -------------------------------------------------------------------

class _ByConstant(FixedLatencyUnit):
    """What the constant multipliers share: the modulus p and the constant c (reduced mod p)
    they were built for."""

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def constant(self):
        return self._constant


class ShiftMul(_ByConstant):
    """x·c mod p for a constant c that is a sum of at most two powers of two mod p
    (:func:`shift_exponents`), with rotations and one addition only ([Cao14] §3.2, [Wang13] §III-B).

    Parameters: ``modulus`` (2^(m-1) + 1 or solinas64), ``constant``. Ports: ``i`` — always-ready
    stream of the m-bit x (any m-bit value; x < p in the NTTs); ``o`` — always-ready stream of
    the m-bit x·c mod p. Latency 1 (the sum of the rotated words) + :class:`RingNormaliser`
    (3 for 2^(m-1) + 1, 4 for solinas64); one product per cycle. Raises ``ValueError`` for another
    modulus or a constant that is not shift-only.
    """

    def __init__(self, modulus, constant):
        self._latency = self.latency_of(modulus, constant)
        self._modulus = mod = get_modulus(modulus)
        self._exponents = shift_exponents(mod, constant)
        self._constant = constant % mod.value
        self._ring = shift_ring(mod)
        self._normaliser = RingNormaliser(mod, self._ring + 1)
        super().__init__(unsigned(mod.bits), unsigned(mod.bits))

    @staticmethod
    def latency_of(modulus, constant):
        """The :attr:`latency` of ``ShiftMul(modulus, constant)`` without building it; raises
        the constructor's ``ValueError``/``TypeError`` for refused parameters."""
        mod = get_modulus(modulus)
        shift_exponents(mod, constant)
        return 1 + RingNormaliser.latency_of(mod, shift_ring(mod) + 1)

    @property
    def exponents(self):
        """The rotation amounts (bits) whose sum multiplies by the constant."""
        return self._exponents

    def elaborate(self, platform):
        m = Module()
        width = self._ring
        x = Cat(self.i.payload, Const(0, width - self._modulus.bits))
        total = Const(0, width + 1)
        for e in self._exponents:
            total = total + _rotate(x, e, width)
        st = Stages(m, self.i.valid)
        total, = st.cut(total[:width + 1])
        m.submodules.normalise = norm = self._normaliser
        m.d.comb += [norm.i.payload.eq(total), norm.i.valid.eq(st.valid),
                     self.o.payload.eq(norm.o.payload), self.o.valid.eq(norm.o.valid)]
        return m


class ConstMul(_ByConstant):
    """x·c mod p for a constant c and x in [0, p): a twiddle multiplier of a fully parallel NTT.

    ``multiplier``: ``"shift"`` — :class:`ShiftMul` (raises ``ValueError`` unless c is a sum of at
    most two powers of two mod p); ``"modmul"`` — a :class:`~fhe_hw.arith.ModMul` with the
    constant (pre-scaled by ``premultiply``) as its second operand, which synthesis folds into
    the multiplier; ``"auto"`` — shift where possible, else modmul. For c ≡ 1 the unit is a
    delay line of the same latency (no arithmetic). ``mult_stages``/``reducer``/``tiled`` go to
    ModMul; for c ≡ 1 no multiplier is built.
    ``latency``: pad to this many cycles (default: the natural latency of the chosen kind;
    raises ``ValueError`` if smaller) so that multipliers of different kinds can run side by side.

    Ports: ``i``/``o`` always-ready streams of m-bit values. Latency ``latency``
    (:meth:`latency_of`).
    """

    def __init__(self, modulus, constant, *, multiplier="auto", mult_stages=None, reducer="auto",
                 latency=None, tiled=True):
        self._kind, natural, self._latency = self._plan(modulus, constant, multiplier,
                                                        mult_stages, reducer, latency, tiled)
        self._modulus = mod = get_modulus(modulus)
        self._constant = c = constant % mod.value
        self._inner = None
        if c != 1:
            if self._kind == "shift":
                self._inner = ShiftMul(mod, c)
            else:
                self._inner = ModMul(mod, reducer, mult_stages=mult_stages, tiled=tiled)
        self._pad = self._latency - natural
        super().__init__(unsigned(mod.bits), unsigned(mod.bits))

    @staticmethod
    def _plan(modulus, constant, multiplier, mult_stages, reducer, latency, tiled):
        """``(kind, natural latency, latency)``; raises ``ValueError``/``TypeError`` for refused
        parameters."""
        mod = get_modulus(modulus)
        require_int("constant", constant)
        if multiplier not in MULTIPLIERS:
            raise ValueError(f"multiplier must be one of {', '.join(MULTIPLIERS)}, "
                             f"not {multiplier!r}")
        check_mult_stages(mult_stages)
        c = constant % mod.value
        shift_ok = shift_ring(mod) is not None
        if shift_ok:
            try:
                shift_exponents(mod, c)
            except ValueError:
                shift_ok = False
        if multiplier == "shift" or (multiplier == "auto" and shift_ok):
            kind, natural = "shift", ShiftMul.latency_of(mod, c)
        else:
            kind = "modmul"
            natural = ModMulPlan(mod, reducer, mult_stages=mult_stages, tiled=tiled).latency
        if latency is None:
            latency = natural
        require_int("latency", latency)
        if latency < natural:
            raise ValueError(f"latency must be at least {natural} for this multiplier, "
                             f"not {latency!r}")
        return kind, natural, latency

    @staticmethod
    def latency_of(modulus, constant, *, multiplier="auto", mult_stages=None, reducer="auto",
                   latency=None, tiled=True):
        """The :attr:`latency` of the ConstMul with these parameters without building it
        (``latency=None``: the natural latency of the chosen multiplier); raises the
        constructor's ``ValueError``/``TypeError`` for refused parameters."""
        return ConstMul._plan(modulus, constant, multiplier, mult_stages, reducer, latency,
                              tiled)[2]

    @property
    def kind(self):
        """``"shift"`` or ``"modmul"``: what computes the product."""
        return self._kind

    def elaborate(self, platform):
        m = Module()
        st = Stages(m, self.i.valid)
        st.ride(x=self.i.payload)
        if self._inner is None:         # x·1: a delay line of the multiplier's latency
            for _ in range(self._latency):
                st.cut()
            m.d.comb += [self.o.payload.eq(st["x"]), self.o.valid.eq(st.valid)]
            return m
        for _ in range(self._pad):
            st.cut()
        m.submodules.inner = inner = self._inner
        if self._kind == "shift":
            m.d.comb += inner.i.payload.eq(st["x"])
        else:
            m.d.comb += [inner.i.payload.a.eq(st["x"]),
                         inner.i.payload.b.eq(inner.premultiply(self._constant))]
        m.d.comb += [inner.i.valid.eq(st.valid),
                     self.o.payload.eq(inner.o.payload), self.o.valid.eq(inner.o.valid)]
        return m


# --- the radix-64 / radix-16 units -------------------------------------------------------------

@dataclass(frozen=True)
class ShiftNTTPlan(StreamPlan):
    """The parameters of :class:`ShiftNTT` and what they derive.

    Parameters
    ----------
    n : int
        The transform size: 2, 4, ..., 64 (the paper's units are 64 and 16).
    lanes : int or None
        Samples per beat, a power of two dividing ``n``; default None: 8 for 64 points (the
        paper's radix-64 unit), else ``n``.
    inverse : bool
        The inverse transform (n^-1 folded into the rotations).
    root : str or None
        The root-of-unity convention (:func:`~fhe_hw.params.solinas_ntt_params`; default
        ``wang-huang``, ω = 2^(192/n)), unless ``omega`` gives the root.
    omega : int or None
        Any primitive n-th root: each is 2^e for an e (:func:`~fhe_hw.params.shift_exponent`),
        so the rotations are e·i·j bits.

    Attributes
    ----------
    lanes_resolved : int
        The samples per beat in use.
    beats : int
        Beats per transform, n / lanes.
    roots : NTTParams
        The transform's ω.
    """

    n: int = param(64, help="transform size: 64 or 16 (also 2..32)")
    lanes: int | None = param(None, help="samples per beat (default 8 for 64 points, else n)")
    inverse: bool = param(False, help="inverse transform (n^-1 folded in)", kw_only=True)
    root: str | None = root_param(solinas=True)
    omega: int | None = omega_param()
    lanes_resolved: int = field(init=False, repr=False, compare=False)
    beats: int = field(init=False, repr=False, compare=False)
    roots: NTTParams = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.n not in SHIFT_NTT_SIZES:
            raise ValueError(f"n must be one of {', '.join(map(str, SHIFT_NTT_SIZES))}, "
                             f"not {self.n!r}")
        lanes = (8 if self.n == 64 else self.n) if self.lanes is None else self.lanes
        require_power_of_two("lanes", lanes)
        if lanes > self.n:
            raise ValueError(f"lanes must divide n = {self.n}, not {lanes!r}")
        self._set(lanes_resolved=lanes, beats=self.n // lanes,
                  roots=solinas_ntt_params(self.n, root=self.root, omega=self.omega))

    def cycles(self, transforms=1):
        """Exact cycles of :class:`ShiftNTT` from the first input transfer to the last output
        transfer, both included, with always-valid input and always-ready output:
        ``transforms·B + (B - 1) + 7`` with B = n/lanes beats per transform: the input beats,
        the B - 1 cycles by which the last PE group trails the first, and 7 cycles from the
        last beat's transfer to its output transfer (input register 1, PE accumulator 1,
        ps + sc 1, :class:`RingNormaliser` 3, output skid buffer 1). 64 points, 8 lanes:
        8·transforms + 14; 16 points, 16 lanes: transforms + 7."""
        require_int("transforms", transforms, minimum=1)
        return transforms * self.beats + self.beats - 1 + _PE_LATENCY

    def describe(self):
        """The root of unity of the transform."""
        return root_description(self.roots)


# input register + accumulator + (ps + sc) + normaliser (3) + skid buffer; checked in __init__
_PE_LATENCY = 1 + 1 + 1 + 3 + 1


def _full_add(a, b, c):
    return a ^ b ^ c, (a & b) | (a & c) | (b & c)


def _compress(m, columns, width, name):
    """Wallace reduction of ring columns (lists of 1-bit values, column c weighs 2^c, the carry
    out of column W - 1 goes to column 0) with 3:2 carry-save adders until every column holds
    at most two bits; returns (ps, sc) as lists of 1-bit values or None.

    The full adders of one level are evaluated together: their three inputs are gathered into
    three vectors and the sum and carry bits computed with one XOR and one majority expression
    over the vectors, so a level is a handful of netlist cells instead of five per adder (the
    per-bit form made Verilog generation of a 64-point unit take many minutes). The logic is
    the same full adders."""
    level = 0
    while any(len(col) > 2 for col in columns):
        nxt = [[] for _ in range(width)]
        triples, places = [[], [], []], []      # full-adder inputs; the adder's column
        for c, col in enumerate(columns):
            full = len(col) - len(col) % 3
            for k in range(0, full, 3):
                for operand, bit in zip(triples, col[k:k + 3]):
                    operand.append(bit)
                places.append(c)
            nxt[c].extend(col[full:])
        a, b, c_ = (Cat(*operand) for operand in triples)
        total = Signal(len(places), name=f"{name}_csa{level}_s")
        carry = Signal(len(places), name=f"{name}_csa{level}_c")
        m.d.comb += [total.eq(a ^ b ^ c_), carry.eq((a & b) | (a & c_) | (b & c_))]
        for n, c in enumerate(places):
            nxt[c].append(total[n])
            nxt[(c + 1) % width].append(carry[n])
        columns = nxt
        level += 1
    return ([col[0] if len(col) > 0 else None for col in columns],
            [col[1] if len(col) > 1 else None for col in columns])


def _word(bits):
    return Cat(*(Const(0, 1) if b is None else b for b in bits))


class _ShiftCore(Elaboratable):
    """The clock-enabled datapath of :class:`ShiftNTT`: input delay line, PE groups, output
    selection and normalisers. ``valid``/``payload`` in, registered ``o_valid``/``o_payload``
    out."""

    def __init__(self, n, lanes, inverse, step):
        self.n, self.lanes, self.inverse, self.step = n, lanes, inverse, step
        self.beats = n // lanes
        self.valid = Signal()
        self.payload = Signal(data.ArrayLayout(_WORD, lanes))
        self.o_valid = Signal()
        self.o_payload = Signal(data.ArrayLayout(_WORD, lanes))
        self.normalisers = [RingNormaliser("solinas64", 193) for _ in range(lanes)]

    def _rotations(self, j):
        """(rotation of lane l's sample, Horner rotation of the fed-back pair, final rotation)
        for PE j, in bits of the 192-bit ring (``step``: 2^step = ω)."""
        n, step = self.n, self.step
        sign, offset = (-1, n.bit_length() - 1) if self.inverse else (1, 0)
        lane = [(sign * step * l * j - offset) % 192 for l in range(self.lanes)]
        beat = sign * step * self.lanes * j
        return lane, (-beat) % 192, (beat * (self.beats - 1)) % 192

    def elaborate(self, platform):
        m = Module()
        line, first = self._delay_line(m)
        finals = [self._pe_group(m, g, line, first) for g in range(self.beats)]
        self._output(m, line, finals)
        return m

    def _delay_line(self, m):
        """The beat counter and the input delay line: group g sees the beats g + 1 cycles
        after they arrive. Returns ([(valid, first, last, x) registers per group], the
        incoming beat's first flag)."""
        beats = self.beats
        # Beat counter: which beat of the transform the incoming beat is.
        count = Signal(range(beats)) if beats > 1 else None
        if count is not None:
            with m.If(self.valid):
                m.d.sync += count.eq(wrap_inc(count, beats - 1))
        first = (count == 0) if count is not None else Const(1, 1)
        last = (count == beats - 1) if count is not None else Const(1, 1)
        line = []
        prev = (self.valid, first, last, self.payload)
        for g in range(beats):
            regs = (Signal(name=f"d{g}_valid"), Signal(name=f"d{g}_first"),
                    Signal(name=f"d{g}_last"), Signal.like(self.payload, name=f"d{g}_x"))
            m.d.sync += [r.eq(v) for r, v in zip(regs, prev)]
            line.append(regs)
            prev = regs
        return line, first

    def _pe_group(self, m, g, line, first):
        """PE group g: a PE per lane, each accumulating its output's carry-save pair over the
        beats (Horner, the fed-back pair rotated) through :func:`_compress`. Returns (done:
        the group's last beat was taken, [(ps, sc) per lane, finally rotated])."""
        beats, lanes = self.beats, self.lanes
        valid, _, glast, x = line[g]
        done = Signal(name=f"g{g}_done")
        m.d.sync += done.eq(valid & glast)
        pairs = []
        for lane_j in range(lanes):
            j = g * lanes + lane_j
            lane_rot, horner, final = self._rotations(j)
            ps = Signal(192, name=f"pe{j}_ps")
            sc = Signal(192, name=f"pe{j}_sc")
            columns = [[] for _ in range(192)]
            for ll in range(lanes):
                sample = x[ll]
                for b in range(_WORD):
                    columns[(b + lane_rot[ll]) % 192].append(sample[b])
            if beats > 1:
                # a copy of the group's first flag per PE (its own register, loaded from the
                # stage before, so the same value one cycle after reset), kept apart by the
                # keep attribute (fhe_hw.flow.synth.KEEP_COPIES; alternate reset values halve
                # the merging in flows that ignore it)
                pfirst = Signal(name=f"pe{j}_first", init=j & 1, attrs=KEEP)
                m.d.sync += pfirst.eq(line[g - 1][1] if g else first)
                keep = (~pfirst).replicate(192)
                rps = Signal(192, name=f"pe{j}_ps_fed")
                rsc = Signal(192, name=f"pe{j}_sc_fed")
                m.d.comb += [rps.eq(ps.rotate_left(horner) & keep),
                             rsc.eq(sc.rotate_left(horner) & keep)]
                for c in range(192):
                    columns[c] += [rps[c], rsc[c]]
            new_ps, new_sc = _compress(m, columns, 192, f"pe{j}")
            with m.If(valid):
                m.d.sync += [ps.eq(_word(new_ps)), sc.eq(_word(new_sc))]
            pairs.append((ps.rotate_left(final), sc.rotate_left(final)))
        return done, pairs

    def _output(self, m, line, finals):
        """Exactly one group finishes per cycle (its last beat entered the line alone): select
        it, add its pairs (ps + sc) and normalise. The masks are copies of the groups' done
        flags, one per output lane, so that no flag drives all lanes·384 gates (the flag's
        fanout had set the clock); with one group there is nothing to select, and a cycle
        without a finished group is not valid."""
        sel_valid = Signal()
        m.d.comb += sel_valid.eq(Cat(*(d for d, _ in finals)).any())
        st = Stages(m, sel_valid)
        sums = []
        for lane_j in range(self.lanes):
            if self.beats == 1:
                ps, sc = finals[0][1][lane_j]
            else:
                ps = sc = 0
                for g, (_, pairs) in enumerate(finals):
                    valid, _, glast, _ = line[g]
                    # kept apart as the first flags are; a copy's reset value only lasts
                    # while sel_valid is low
                    mask = Signal(name=f"g{g}_done_lane{lane_j}", init=lane_j & 1, attrs=KEEP)
                    m.d.sync += mask.eq(valid & glast)
                    ps = ps | (pairs[lane_j][0] & mask.replicate(192))
                    sc = sc | (pairs[lane_j][1] & mask.replicate(192))
            sums.append(ps + sc)
        sums = st.cut(*(s[:193] for s in sums))
        for lane_j, norm in enumerate(self.normalisers):
            m.submodules[f"normalise{lane_j}"] = norm
            m.d.comb += [norm.i.payload.eq(sums[lane_j]), norm.i.valid.eq(st.valid),
                         self.o_payload[lane_j].eq(norm.o.payload)]
        m.d.comb += self.o_valid.eq(self.normalisers[0].o.valid)


class ShiftNTT(Component):
    """The Wang–Huang shift-only transform over p = 2^64 - 2^32 + 1 ([Wang13] §IV-A/B, eqs 5–6):
    A_j = Σ_i x_i·ω^(ij) mod p with ω = 2^(192/n) (8 for 64 points, 4096 for 16), or the
    inverse a_i = n^-1·Σ_j A_j·ω^(-ij), using only rotations and carry-save additions.

    The unit takes one beat per cycle and gives one, one transform per n/lanes cycles (the
    paper's 64-point unit with 8 lanes: every 8 cycles; the 16-point unit with 16 lanes:
    every cycle); its cycle count is :meth:`cycles`, the plan's. The results are those of
    :func:`fhe_hw.model.ntt.shift_ntt` with ``omega=`` :attr:`root`
    (:func:`~fhe_hw.model.ntt.shift_ntt64`, :func:`~fhe_hw.model.ntt.shift_ntt16`).

    Parameters
    ----------
    plan : ShiftNTTPlan
        Or the arguments of one (``ShiftNTT(16)``, ``ShiftNTT(64, 8, inverse=True)``).

    Attributes
    ----------
    i : In(stream.Signature(data.ArrayLayout(64, lanes)))
        Beat b of a transform holds x[b·lanes + l] in lane l (natural order; any 64-bit words,
        reduced or not).
    o : Out(stream.Signature(data.ArrayLayout(64, lanes)))
        The results in natural order, each in [0, p). Both streams have backpressure:
        ``i.ready`` is low only while an output beat is waiting for ``o.ready``.
    """

    def __init__(self, *args, **kw):
        self.plan = plan = ShiftNTTPlan.coerce(*args, **kw)
        self._core = _ShiftCore(plan.n, plan.lanes_resolved, plan.inverse,
                                shift_exponent(plan.roots.omega))
        if _PE_LATENCY != 4 + self._core.normalisers[0].latency:
            raise RuntimeError(f"ShiftNTT: a normaliser's latency "
                               f"{self._core.normalisers[0].latency} does not make the "
                               f"processing element's {_PE_LATENCY} cycles")
        layout = data.ArrayLayout(_WORD, plan.lanes_resolved)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    @property
    def n(self):
        return self.plan.n

    @property
    def lanes(self):
        return self.plan.lanes_resolved

    @property
    def inverse(self):
        return self.plan.inverse

    @property
    def beats(self):
        """Beats per transform (n / lanes)."""
        return self.plan.beats

    @property
    def root(self):
        """ω, the primitive n-th root of unity the transform uses (2^(192/n) by default)."""
        return self.plan.roots.omega

    def cycles(self, transforms=1):
        """The plan's :meth:`~ShiftNTTPlan.cycles`."""
        return self.plan.cycles(transforms)

    def elaborate(self, platform):
        m = Module()
        core = self._core
        advance = stall_on_backpressure(m, core, core.o_valid, core.o_payload, self.o)
        m.d.comb += [core.valid.eq(self.i.valid & advance), core.payload.eq(self.i.payload),
                     self.i.ready.eq(advance)]
        return m
