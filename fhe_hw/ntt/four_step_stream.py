"""Streaming four-step NTT over 2^64 - 2^32 + 1 ([Wang13] §IV-C, eqs 7–8, Figs 3–4): n = n1·m²
points (m = 64 for the paper's radix-64 unit; n1 = 1 for 4096 points, 16 for 65536), ``lanes``
samples per cycle, transforms back to back.

Architecture
------------
The passes of :mod:`fhe_hw.ntt.four_step_plan` run on three units: the load (the input stream
into buffer B0), the *m-unit* (``lanes`` twiddle :class:`~fhe_hw.arith.ModMul` and one
m-point :class:`~fhe_hw.ntt.shift.ShiftNTT`, shared by P1, B0 → B1, and P2, B1 → B2, one
block of m² words per job; with ``inner_units=2`` one such unit for P1 and one for P2), the *P3
unit* (n1 > 1: ``lanes`` twiddle ModMuls and n1-point
ShiftNTTs, B2 → B3) and the unload (B3, or B2 when n1 = 1, in natural order through an
output FIFO). Each buffer has two slots, so that a pass fills one while the next drains the
other: the load of transform t + 1 overlaps P1 and P2 of transform t, P3 of t overlaps the
m-unit's work on t + 1, and the unload of t overlaps P3 of t + 1. One m-unit is the
bottleneck: 2n/lanes cycles per transform back to back. Two m-units run P2 of a block while
P1 works on the next: about n/lanes cycles per transform back to back, and one transform
first input to last output about 4n/lanes instead of 5n/lanes (the load, P1 with P2 one block
behind, P3, the unload).

Control (registers; :func:`~fhe_hw.ntt.four_step_plan.control_cycles` steps the same rules):
each buffer counts its fills started minus drains finished (``occ``, at most 2) and marks a
slot full when the fill's last write is done; a drain's last read clears it. A unit decides
its next job from these registers when it is idle or issuing its job's last beat, and issues
the job from the next cycle, one beat per cycle: the m-unit takes P2 when its block is in B1
(and, for a transform's first block, B2 has a free slot), else P1 when its transform is in B0
and B1 has a free slot (with two m-units, each applies its own rule). Between jobs whose
inputs are ready the units do not pause.

Latency of a beat from its read to its write: bank read 1, crossbar register 1, the ModMul,
the shift unit (beats per transform + 6), write register 1
(:func:`~fhe_hw.ntt.four_step_plan.pass_latencies`).
"""

from dataclasses import dataclass, field
from typing import NamedTuple

from amaranth import Array, Cat, Const, Module, Mux, Signal, Value, unsigned
from amaranth.lib import data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..arith import ModMul, ModMulPlan
from ..arith.pipeline import mult_stages_param, tiled_param, wrap_inc
from ..component import Component, FixedRun
from ..lib.delay import register_delay
from ..lib.rom import rom_ports
from ..params import SOLINAS64, NTTParams, require_int, require_power_of_two, solinas_ntt_params
from ..plan import StreamPlan, param
from .four_step_plan import FourStepPlan, control_cycles, pass_latencies
from .roots import omega_param, psi_param, root_description, root_param
from .shift import ShiftNTT
from .streaming import output_fifo

__all__ = ["StreamingFourStepNTT", "StreamingFourStepNTTPlan", "FourStepEnginesPlan"]

_WORD = 64
_UNLOAD_LATENCY = 2          # unload read -> FIFO write (bank read, crossbar register)


@dataclass(frozen=True)
class StreamingFourStepNTTPlan(StreamPlan):
    """The parameters of :class:`StreamingFourStepNTT` and what they derive.

    Parameters
    ----------
    n : int
        n1·m², n1 a power of two from 1 to 64 (4096 and 65536 with m = 64).
    lanes : int
        Samples per beat, a power of two up to m; 16 and 8 are [Wang13]'s radix-16 and
        radix-64 rates.
    inner_n : int
        m, the inner shift unit's size, a power of two from 2 to 64; smaller values give small
        engines for tests.
    inner_units : int
        1: P1 and P2 share one m-point unit; 2: one each, twice the m-point logic for about
        n/lanes fewer cycles per transform.
    inverse : bool
        The inverse transform (n^-1 folded into the shift units).
    negacyclic : bool
        The transform mod x^n + 1 (forward: x_i·ψ^i in P1's twiddles; inverse: ψ^-i on the
        unload).
    mult_stages : int or None
        Registers in the twiddle :class:`~fhe_hw.arith.ModMul` s' multipliers.
    tiled : bool
        The twiddle ModMuls' tiled multipliers (default True).
    root : str or None
        The root-of-unity convention (:func:`~fhe_hw.params.solinas_ntt_params`; default
        ``wang-huang``), unless ``psi`` (negacyclic: a primitive 2n-th root, ω_n = ψ^2) or
        ``omega`` (cyclic: a primitive n-th root) gives the root: any such root (the twiddle
        and twist ROMs hold its powers; the shift units take its powers of order m and n1,
        which are powers of two).
    psi, omega : int or None
        The root itself.
    reducer : str
        The twiddle ModMuls' reducer (default ``auto``).

    Attributes
    ----------
    roots : NTTParams
        The transform's ω (and ψ).
    four_step : FourStepPlan
        The sizes, bank maps, index maps and twiddles
        (:class:`~fhe_hw.ntt.four_step_plan.FourStepPlan`).
    mul_latency : int
        The twiddle ModMuls' latency.
    twist_latency : int
        Cycles the inverse negacyclic twist adds to the unload: its ModMul's latency, else 0.
    """

    n: int = param(4096, help="transform size n1*m^2 (4096 = 64^2, 65536 = 16*64^2)")
    lanes: int = param(16, help="samples per cycle (a power of two up to m)", kw_only=True)
    inner_n: int = param(64, help="inner shift unit size m (power of two, 2..64)", kw_only=True)
    inner_units: int = param(1, help="m-point units: 1 (P1 and P2 share it) or 2 (one each: "
                             "about n/lanes fewer cycles per transform)", kw_only=True)
    inverse: bool = param(False, help="inverse transform (n^-1 folded in)", kw_only=True)
    negacyclic: bool = param(False, help="transform mod x^n + 1 (forward: x_i*psi^i in P1's "
                             "twiddles; inverse: psi^-i on the unload)", kw_only=True)
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    root: str | None = root_param(solinas=True)
    psi: int | None = psi_param()
    omega: int | None = omega_param()
    reducer: str = field(default="auto", kw_only=True)
    roots: NTTParams = field(init=False, repr=False, compare=False)
    four_step: FourStepPlan = field(init=False, repr=False, compare=False)
    mul_latency: int = field(init=False, repr=False, compare=False)
    twist_latency: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        n, m = self.n, self.inner_n
        require_int("n", n, minimum=1)
        require_power_of_two("inner_n", m, minimum=2, maximum=64)
        n1 = n // (m * m)
        if n % (m * m) or not 1 <= n1 <= 64 or n1 & (n1 - 1):
            raise ValueError(f"n must be n1·m² = n1·{m * m} (m = inner_n = {m}) with n1 a power "
                             f"of two from 1 to 64, not {n!r}")
        FourStepPlan(m, n1, self.lanes, self.inner_units)
        roots = solinas_ntt_params(n, negacyclic=self.negacyclic, root=self.root, psi=self.psi,
                                   omega=self.omega)
        latency = ModMulPlan("solinas64", self.reducer, mult_stages=self.mult_stages,
                             tiled=self.tiled).latency
        self._set(roots=roots, mul_latency=latency,
                  four_step=FourStepPlan(m, n1, self.lanes, self.inner_units, omega=roots.omega,
                                         psi=roots.psi),
                  twist_latency=latency if self.negacyclic and self.inverse else 0)

    @property
    def input_beats(self):
        """Beats of one transform on ``i`` (and on ``o``): n / lanes."""
        return self.four_step.beats

    output_beats = input_beats

    def cycles(self, transforms=1):
        """Exact cycles of ``transforms`` back-to-back transforms, first input transfer to last
        output transfer, input always valid and output always ready
        (:func:`~fhe_hw.ntt.four_step_plan.control_cycles`)."""
        return control_cycles(self.four_step, self.mul_latency, transforms,
                              twist_latency=self.twist_latency)

    def describe(self):
        """The root of unity of the transform."""
        return root_description(self.roots)


@dataclass(frozen=True)
class FourStepEnginesPlan(StreamPlan):
    """Base of the plans of the units built on :class:`StreamingFourStepNTT` engines
    (:class:`~fhe_hw.largeint.LargeIntegerMultiplierPlan`,
    :class:`~fhe_hw.encrypt.TransformEncryptPlan`). A subclass declares the engines' fields
    ``lanes``, ``inner_n``, ``inner_units``, ``mult_stages`` and ``tiled`` (with its own help
    and defaults), and in ``__post_init__``, once it knows the transform size n, calls
    :meth:`_set_forward`.

    Attributes
    ----------
    forward : StreamingFourStepNTTPlan
        The plan of the n-point forward engines.
    engine : FourStepPlan
        Their sizes and maps (``forward.four_step``).
    """

    forward: StreamingFourStepNTTPlan = field(init=False, repr=False, compare=False)

    def engine_params(self):
        """The keyword arguments of the engines (:class:`StreamingFourStepNTT`) but ``n`` and
        ``inverse``."""
        return dict(lanes=self.lanes, inner_n=self.inner_n, inner_units=self.inner_units,
                    mult_stages=self.mult_stages, tiled=self.tiled)

    def engine_plan(self, n, *, inverse=False):
        """The plan of an ``n``-point engine (the inverse transform with ``inverse``)."""
        return StreamingFourStepNTTPlan(n, inverse=inverse, **self.engine_params())

    def _set_forward(self, n):
        """Store :attr:`forward`, the ``n``-point forward engines' plan, and return it."""
        self._set(forward=self.engine_plan(n))
        return self.forward

    @property
    def engine(self):
        return self.forward.four_step


class _Buffer:
    """``lanes`` banks of two slots each: write and read ports, the fill/drain occupancy and
    the two full flags (registers of the engine's module)."""

    def __init__(self, m, name, lanes, slot_words):
        self.slot_words = slot_words
        self.wports, self.rports = [], []
        for k in range(lanes):
            mem = Memory(shape=unsigned(_WORD), depth=2 * slot_words, init=[])
            m.submodules[f"{name}_bank{k}"] = mem
            self.wports.append(mem.write_port())
            self.rports.append(mem.read_port())
        self.occ = Signal(range(3), name=f"{name}_occ")
        self.full = Signal(2, name=f"{name}_full")
        self.fill_start = Signal(name=f"{name}_fill_start")
        self.drain_end = Signal(name=f"{name}_drain_end")
        m.d.sync += self.occ.eq(self.occ + self.fill_start - self.drain_end)

    def address(self, slot, addr):
        return Cat(addr[:(self.slot_words - 1).bit_length()], slot)

    def mark(self, m, slot, value):
        """Set (value 1) or clear (0) the full flag of ``slot`` at the end of this cycle."""
        for s in range(2):
            with m.If(slot == s):
                m.d.sync += self.full[s].eq(value)

    def is_full(self, slot):
        return Mux(slot, self.full[1], self.full[0])


class _MJob(NamedTuple):
    """An m-unit's job (registers): ``run`` (issuing a beat), ``kind`` (0: P1, 1: P2), the
    transform's B0/B2 slot ``t``, the block ``a``, the B1 slot ``b``, the block's ``beat`` and
    ``last`` (the block's last beat)."""

    run: Value
    kind: Value
    t: Value
    a: Value
    b: Value
    beat: Value
    last: Value


class StreamingFourStepNTT(FixedRun, Component):
    """The n-point transform over 2^64 - 2^32 + 1 with a primitive n-th root ω_n (default
    ``wang_huang_root(n)``), natural order in and out, ``lanes`` samples per beat, any number of
    transforms back to back: X_k = Σ_i x_i·ω_n^(ik), negacyclic X_k = Σ_i x_i·ψ^i·ω_n^(ik)
    with ψ^2 = ω_n.

    Cycles: :meth:`cycles` (``transforms``) from the first input transfer to the last output
    transfer with input always valid and output always ready
    (:func:`~fhe_hw.ntt.four_step_plan.control_cycles`). Storage: B0, B2 (and B3 when n > m²)
    of 2n words, B1 of 2m² words; twiddle ROMs of m²/lanes (P2) and n/lanes (P3) words per
    lane.

    Parameters
    ----------
    plan : StreamingFourStepNTTPlan
        Or the arguments of one (``StreamingFourStepNTT(65536, lanes=8)``).

    Attributes
    ----------
    i, o : stream.Signature(data.ArrayLayout(unsigned(64), lanes))
        n/lanes beats per transform, word t·lanes + j in lane j of beat t; inputs in [0, p),
        outputs in [0, p).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = StreamingFourStepNTTPlan.coerce(*args, **kw)
        self._inverse, self._negacyclic = plan.inverse, plan.negacyclic
        self._twist = plan.twist_latency
        p = self._four_step = plan.four_step
        lanes, inverse = plan.lanes, plan.inverse
        self._mul_latency = plan.mul_latency

        def mul():
            return ModMul("solinas64", plan.reducer, mult_stages=plan.mult_stages,
                          tiled=plan.tiled)

        self._inner_units = [([mul() for _ in range(lanes)],
                              ShiftNTT(p.inner_n, lanes, inverse=inverse,
                                       omega=p.unit_root(p.inner_n)))
                             for _ in range(plan.inner_units)]
        self._twist_muls = [mul() for _ in range(lanes if self._twist else 0)]
        if p.n1 > 1:
            self._p3_muls = [mul() for _ in range(lanes)]
            self._p3_units = [ShiftNTT(p.n1, p.outer_lanes, inverse=inverse,
                                       omega=p.unit_root(p.n1))
                              for _ in range(p.groups)]
        layout = data.ArrayLayout(unsigned(_WORD), lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    @property
    def n(self):
        return self._four_step.n

    @property
    def lanes(self):
        return self._four_step.lanes

    @property
    def inverse(self):
        return self._inverse

    @property
    def negacyclic(self):
        return self._negacyclic

    @property
    def four_step(self):
        """The :class:`~fhe_hw.ntt.four_step_plan.FourStepPlan`: sizes, bank and index maps."""
        return self._four_step

    @property
    def modulus(self):
        return SOLINAS64

    @property
    def omega(self):
        """ω_n, the transform's root."""
        return self._four_step.root

    @property
    def psi(self):
        """ψ (negacyclic), the twist's primitive 2n-th root; else None."""
        return self._four_step.twist_root if self._negacyclic else None

    @property
    def mul_latency(self):
        return self._mul_latency

    def cycles(self, transforms=1):
        """Exact cycles of ``transforms`` back-to-back transforms, first input transfer to last
        output transfer, input always valid and output always ready (the plan's
        :meth:`~StreamingFourStepNTTPlan.cycles`)."""
        return self.plan.cycles(transforms)

    def storage_bits(self):
        """Bits of memory (:meth:`~fhe_hw.ntt.four_step_plan.FourStepPlan.storage_bits`)."""
        return self._four_step.storage_bits()

    # --- elaborate ---------------------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        p = self._four_step
        L = p.lanes
        b0 = _Buffer(m, "b0", L, p.beats)
        b1 = _Buffer(m, "b1", L, p.block_beats)
        b2 = _Buffer(m, "b2", L, p.beats)
        b3 = _Buffer(m, "b3", L, p.beats) if p.n1 > 1 else None
        self._load(m, b0)
        for u, kinds in enumerate(p.unit_passes):
            name = "m" if p.inner_units == 1 else f"m{u + 1}"
            self._m_pass(m, (b0, b1, b2), *self._inner_units[u], name, kinds)
        if b3 is not None:
            self._p3_pass(m, b2, b3)
        self._unload(m, b3 if b3 is not None else b2)
        return m

    def _lanes_to_banks(self, index_of, bank_of):
        """For an access whose lane j reads or writes index_of(j): (fold, [index of the lane
        that bank k holds, for each bank k]), lane j being in bank j ^ fold."""
        fold = Value.cast(bank_of(index_of(0)))[:max(1, self._four_step.lanes.bit_length() - 1)]
        return fold, lambda k: index_of(Const(k, len(fold)) ^ fold)

    def _load(self, m, b0):
        """Input beats into B0: registered, written the next cycle."""
        p, L = self._four_step, self._four_step.lanes
        beat = Signal(range(p.beats))
        slot = Signal()
        go = Signal()
        m.d.comb += [self.i.ready.eq((beat != 0) | (b0.occ < 2)),
                     go.eq(self.i.valid & self.i.ready),
                     b0.fill_start.eq(go & (beat == 0))]
        fold, index = self._lanes_to_banks(lambda j: p.load_index(beat, j), p.bank0)
        last = Signal()
        self._write(m, b0, go, slot, fold, index, p.address0,
                    [self.i.payload[j] for j in range(L)])
        with m.If(go):
            m.d.sync += beat.eq(wrap_inc(beat, p.beats - 1))
            with m.If(beat == p.beats - 1):
                m.d.sync += slot.eq(~slot)
        m.d.sync += last.eq(go & (beat == p.beats - 1))
        with m.If(last):
            b0.mark(m, ~slot, 1)

    def _twiddle_rom(self, m, name, words, mul):
        """A ROM of premultiplied twiddles; its read port (address now, data next cycle)."""
        port, = rom_ports(m, name, _WORD, [mul.premultiply(w) for w in words])
        return port

    def _shift_stage(self, m, muls, units, valid, words, twiddles, unit_lanes):
        """``words`` and ``twiddles`` (lists over the lanes, registered here) into the
        ModMuls, whose products feed the shift ``units``: lane j of unit u is engine lane
        ``unit_lanes(u, j)``. Returns the units' output words by engine lane."""
        L = self._four_step.lanes
        for j, mul in enumerate(muls):
            m.d.sync += [mul.i.payload.a.eq(words[j]), mul.i.payload.b.eq(twiddles[j])]
            m.d.comb += mul.i.valid.eq(valid)
        out = [None] * L
        for u, unit in enumerate(units):
            m.d.comb += [unit.i.valid.eq(muls[0].o.valid), unit.o.ready.eq(1)]
            for j in range(unit.lanes):
                lane = unit_lanes(u, j)
                m.d.comb += unit.i.payload[j].eq(muls[lane].o.payload)
                out[lane] = unit.o.payload[j]
        return out

    def _write(self, m, buf, enable, slot, fold, index, address, words):
        """Register a write beat (when ``enable``: lane j of ``words`` into bank j ^ ``fold`` at
        ``index``(k) for bank k) and drive ``buf``'s write ports with it the next cycle."""
        lanes = Array(words)
        for k, wp in enumerate(buf.wports):
            en, addr, word = Signal(), Signal.like(wp.addr), Signal(_WORD)
            m.d.sync += [en.eq(enable), addr.eq(buf.address(slot, address(index(k)))),
                         word.eq(lanes[Const(k, len(fold)) ^ fold])]
            m.d.comb += [wp.en.eq(en), wp.addr.eq(addr), wp.data.eq(word)]

    def _drain_job(self, m, src, run, advance, also=1):
        """The job control of a pass that reads all of ``src``'s next full slot, one beat in
        each cycle with ``advance`` while ``run``: it decides while idle or on its last beat
        (the slot full, and ``also``), takes the slots in turn and empties its slot after the
        last read. Returns (slot, beat, start: a job decided this cycle, end: its last beat)."""
        beats = self._four_step.beats
        slot, nxt = Signal(), Signal()
        beat = Signal(range(beats))
        end = advance & (beat == beats - 1)
        decide = ~run | end
        start = decide & src.is_full(nxt) & also
        with m.If(advance):
            m.d.sync += beat.eq(wrap_inc(beat, beats - 1))
        with m.If(decide):
            m.d.sync += run.eq(start)
            with m.If(start):
                m.d.sync += [slot.eq(nxt), nxt.eq(~nxt)]
        m.d.comb += src.drain_end.eq(end)
        with m.If(end):
            src.mark(m, slot, 0)
        return slot, beat, start, end

    def _m_pass(self, m, bufs, muls, unit, name, kinds):
        """An m-unit (``muls`` and ``unit``, submodules ``name``_...) running the ``kinds`` of
        jobs, (0, 1) or one of them: P1 (0: B0 -> B1) and P2 (1: B1 -> B2), one block each:
        its job control (:meth:`_m_jobs`), reads (:meth:`_m_reads`), twiddle stage and shift
        unit, writes (:meth:`_m_writes`)."""
        job = self._m_jobs(m, bufs, name, kinds)
        sources = self._m_reads(m, bufs, muls, job, kinds)

        def pick(sel, values):
            """The value of the job's pass: the only one, or P2's (sel = 1) or P1's."""
            return values[0] if len(values) == 1 else Mux(sel, values[1], values[0])

        L = self._four_step.lanes
        v1, kind1 = Signal(name=f"{name}_v1"), Signal(name=f"{name}_kind1")
        fold_1 = Signal(len(sources[0][0]), name=f"{name}_fold1")
        m.d.sync += [v1.eq(job.run), kind1.eq(job.kind),
                     fold_1.eq(pick(job.kind, [fold for fold, _, _ in sources]))]
        v2 = Signal(name=f"{name}_v2")
        m.d.sync += v2.eq(v1)
        read = []
        for _, buf, _ in sources:
            rd = Array(buf.rports[b].data for b in range(L))
            read.append([rd[Const(j, len(fold_1)) ^ fold_1] for j in range(L)])
        words = [pick(kind1, [r[j] for r in read]) for j in range(L)]
        twiddles = [pick(kind1, [s[2][j] for s in sources]) for j in range(L)]
        for j, mul in enumerate(muls):
            m.submodules[f"{name}_mul{j}"] = mul
        m.submodules[f"{name}_unit"] = unit
        out = self._shift_stage(m, muls, [unit], v2, words, twiddles, lambda u, j: j)
        self._m_writes(m, bufs, job, out, name, kinds)

    def _m_jobs(self, m, bufs, name, kinds):
        """The job control of an m-unit: it decides its next job (from registers only) while
        idle or on its job's last beat and issues it from the next cycle, P2 when its block is
        in B1 (and, for a transform's first block, B2 has a free slot), else P1 when its
        transform is in B0 and B1 has a free slot; P1's last block of a transform empties its
        B0 slot, P2 its B1 slot. Returns the :class:`_MJob`."""
        b0, b1, b2 = bufs
        p = self._four_step
        n1 = p.n1
        do1, do2 = 0 in kinds, 1 in kinds
        pos_p1 = [Signal(name="p1_t"), Signal(range(n1), name="p1_a"), Signal(name="p1_b")]
        pos_p2 = [Signal(name="p2_t"), Signal(range(n1), name="p2_a"), Signal(name="p2_b")]
        run = Signal(name=f"{name}_run")
        kind = Signal(name=f"{name}_kind") if do1 and do2 else Const(int(do2), 1)
        j_t, j_a, j_b = Signal(), Signal(range(n1)), Signal()
        bb = Signal(range(p.block_beats), name=f"{name}_beat")
        last = bb == p.block_beats - 1

        decide = ~run | last
        p2_ok = (b1.is_full(pos_p2[2]) & ((pos_p2[1] != 0) | (b2.occ < 2)) if do2
                 else Const(0))
        p1_ok = b0.is_full(pos_p1[0]) & (b1.occ < 2) if do1 else Const(0)
        if do2:
            m.d.comb += b2.fill_start.eq(decide & p2_ok & (pos_p2[1] == 0))
        if do1:
            m.d.comb += b1.fill_start.eq(decide & ~p2_ok & p1_ok)
        with m.If(run):
            m.d.sync += bb.eq(Mux(last, 0, bb + 1))
        with m.If(decide):
            m.d.sync += run.eq(p2_ok | p1_ok)
            for pos, ok, k in ((pos_p2, p2_ok, 1), (pos_p1, p1_ok & ~p2_ok, 0)):
                if k not in kinds:
                    continue
                with m.If(ok):
                    nxt_a = wrap_inc(pos[1], n1 - 1)
                    m.d.sync += [j_t.eq(pos[0]), j_a.eq(pos[1]), j_b.eq(pos[2]),
                                 pos[1].eq(nxt_a), pos[2].eq(~pos[2]),
                                 pos[0].eq(pos[0] ^ (pos[1] == n1 - 1))]
                    if isinstance(kind, Signal):
                        m.d.sync += kind.eq(k)
        if do1:
            p1_end = run & last & (kind == 0) & (j_a == n1 - 1)
            m.d.comb += b0.drain_end.eq(p1_end)
            with m.If(p1_end):
                b0.mark(m, j_t, 0)
        if do2:
            p2_end = run & last & (kind == 1)
            m.d.comb += b1.drain_end.eq(p2_end)
            with m.If(p2_end):
                b1.mark(m, j_b, 0)
        return _MJob(run, kind, j_t, j_a, j_b, bb, last)

    def _m_reads(self, m, bufs, muls, job, kinds):
        """An m-unit's reads: P1 from B0, P2 from B1 (each read port serves one pass); P1's
        factors are 1 (or the forward negacyclic twist), P2's the twiddles ω_m²^(a2·k2).
        Returns (fold, buffer, factors) per pass of ``kinds``, in order."""
        b0, b1, _ = bufs
        p, L = self._four_step, self._four_step.lanes
        q, c = p.m_step(job.beat)
        sources = []
        if 0 in kinds:
            fold0, idx0 = self._lanes_to_banks(lambda j: p.p1_read_index(job.a, q, c, j),
                                               p.bank0)
            for k in range(L):
                m.d.comb += b0.rports[k].addr.eq(b0.address(job.t, p.address0(idx0(k))))
            factors = [muls[0].premultiply(1)] * L
            if self._negacyclic and not self._inverse:
                for j in range(L):
                    rom = self._twiddle_rom(m, f"p1_twist{j}", [
                        p.p1_twist(a, beat, j) for a in range(p.n1)
                        for beat in range(p.block_beats)], muls[j])
                    m.d.comb += rom.addr.eq(Cat(job.beat, job.a))
                    factors[j] = rom.data
            sources.append((fold0, b0, factors))
        if 1 in kinds:
            fold1, idx1 = self._lanes_to_banks(lambda j: p.p2_read_index(q, c, j), p.bank1)
            for k in range(L):
                m.d.comb += b1.rports[k].addr.eq(b1.address(job.b, p.address1(idx1(k))))
            roms = [self._twiddle_rom(m, f"p2_twiddle{j}",
                                      [p.p2_twiddle(qq, cc, j, self._inverse)
                                       for qq in range(p.inner_n) for cc in range(p.m_beats)],
                                      muls[j]) for j in range(L)]
            for rom in roms:
                m.d.comb += rom.addr.eq(job.beat)
            sources.append((fold1, b1, [rom.data for rom in roms]))
        return sources

    def _m_writes(self, m, bufs, job, out, name, kinds):
        """An m-unit's writes: the job's fields delayed to the shift unit's output, P1's words
        into B1, P2's into B2; the last write of a block (P1) or of a transform's last block
        (P2) marks its slot full."""
        _, b1, b2 = bufs
        p = self._four_step
        delay = pass_latencies(p, self.mul_latency)[0] - 1     # the write register is the last
        wv, wkind, wt, wa, wb, wbb, wlast = (
            register_delay(m, v, delay, f"{name}_{field}") for v, field in (
                (job.run, "valid"), (job.kind, "kind"), (job.t, "t"), (job.a, "a"),
                (job.b, "b"), (job.beat, "beat"), (job.run & job.last, "last")))
        wq, wc = p.m_step(wbb)
        if 0 in kinds:
            wfold1, widx1 = self._lanes_to_banks(lambda j: p.p1_write_index(wq, wc, j),
                                                 p.bank1)
            self._write(m, b1, wv & (wkind == 0), wb, wfold1, widx1, p.address1, out)
            done1, slot1 = Signal(name=f"{name}_done1"), Signal(name=f"{name}_slot1")
            m.d.sync += [done1.eq(wv & wlast & (wkind == 0)), slot1.eq(wb)]
            with m.If(done1):
                b1.mark(m, slot1, 1)
        if 1 in kinds:
            wfold2, widx2 = self._lanes_to_banks(lambda j: p.p2_write_index(wa, wq, wc, j),
                                                 p.bank2)
            self._write(m, b2, wv & (wkind == 1), wt, wfold2, widx2, p.address2, out)
            done2, slot2 = Signal(name=f"{name}_done2"), Signal(name=f"{name}_slot2")
            m.d.sync += [done2.eq(wv & wlast & (wkind == 1) & (wa == p.n1 - 1)),
                         slot2.eq(wt)]
            with m.If(done2):
                b2.mark(m, slot2, 1)

    def _p3_pass(self, m, b2, b3):
        """P3 (n1 > 1): B2 -> B3 through the outer twiddles and n1-point shift units."""
        p, L = self._four_step, self._four_step.lanes
        run = Signal()
        slot, beat, start, end = self._drain_job(m, b2, run, run, also=b3.occ < 2)
        m.d.comb += b3.fill_start.eq(start)
        s_, c_ = p.p3_step(beat)
        fold, idx = self._lanes_to_banks(lambda j: p.p3_read_index(s_, c_, j), p.bank2)
        for k in range(L):
            m.d.comb += b2.rports[k].addr.eq(b2.address(slot, p.address2(idx(k))))
        steps = p.p3_steps()
        roms = [self._twiddle_rom(m, f"p3_twiddle{j}",
                                  [p.p3_twiddle(ss, cc, j, self._inverse) for ss, cc in steps],
                                  self._p3_muls[j]) for j in range(L)]
        for rom in roms:
            m.d.comb += rom.addr.eq(beat)
        v1, fold_1 = Signal(), Signal(len(fold))
        m.d.sync += [v1.eq(run), fold_1.eq(fold)]
        v2 = Signal()
        m.d.sync += v2.eq(v1)
        rd = Array(b2.rports[k].data for k in range(L))
        words = [rd[Const(j, len(fold_1)) ^ fold_1] for j in range(L)]
        for j, mul in enumerate(self._p3_muls):
            m.submodules[f"p3_mul{j}"] = mul
        for u, unit in enumerate(self._p3_units):
            m.submodules[f"p3_unit{u}"] = unit
        g = p.groups
        out = self._shift_stage(m, self._p3_muls, self._p3_units, v2, words,
                                [rom.data for rom in roms], lambda u, j: j * g + u)
        delay = pass_latencies(p, self.mul_latency)[1] - 1
        wv, wslot, wbeat, wlast = (register_delay(m, v, delay, f"p3_{name}") for v, name in (
            (run, "valid"), (slot, "slot"), (beat, "beat"), (end, "last")))
        ws, wc = p.p3_step(wbeat)
        wfold, widx = self._lanes_to_banks(lambda j: p.p3_write_index(ws, wc, j), p.bank3)
        self._write(m, b3, wv, wslot, wfold, widx, p.address3, out)
        done, dslot = Signal(), Signal()
        m.d.sync += [done.eq(wv & wlast), dslot.eq(wslot)]
        with m.If(done):
            b3.mark(m, dslot, 1)

    def _unload(self, m, buf):
        """Natural-order reads of B3 (or B2) into the output FIFO."""
        p, L = self._four_step, self._four_step.lanes
        bank, address = (p.bank3, p.address3) if p.n1 > 1 else (p.bank2, p.address2)
        run = Signal()
        go, fifo = output_fifo(m, self.o, _WORD * L, _UNLOAD_LATENCY + self._twist, run)
        slot, beat, _, _ = self._drain_job(m, buf, run, go)
        fold, idx = self._lanes_to_banks(lambda j: p.unload_index(beat, j), bank)
        for k in range(L):
            m.d.comb += buf.rports[k].addr.eq(buf.address(slot, address(idx(k))))
        go1, fold_1 = Signal(), Signal(len(fold))
        m.d.sync += [go1.eq(go), fold_1.eq(fold)]
        rd = Array(buf.rports[k].data for k in range(L))
        lanes = [Signal(_WORD, name=f"unload{j}") for j in range(L)]
        go2 = Signal()
        m.d.sync += [go2.eq(go1)] + [v.eq(rd[Const(j, len(fold_1)) ^ fold_1])
                                     for j, v in enumerate(lanes)]
        if not self._twist_muls:
            m.d.comb += [fifo.w_en.eq(go2), fifo.w_data.eq(Cat(*lanes))]
            return
        # the inverse negacyclic twist: X_i·ψ^-i, ψ^-i from a ROM by the unload beat
        for j, mul in enumerate(self._twist_muls):
            m.submodules[f"twist_mul{j}"] = mul
            rom = self._twiddle_rom(m, f"unload_twist{j}",
                                    [p.unload_twist(t, j) for t in range(p.beats)], mul)
            factor = Signal(_WORD, name=f"twist{j}")
            m.d.comb += rom.addr.eq(beat)
            m.d.sync += factor.eq(rom.data)
            m.d.comb += [mul.i.valid.eq(go2), mul.i.payload.a.eq(lanes[j]),
                         mul.i.payload.b.eq(factor)]
        m.d.comb += [fifo.w_en.eq(self._twist_muls[0].o.valid),
                     fifo.w_data.eq(Cat(*(mul.o.payload for mul in self._twist_muls)))]
