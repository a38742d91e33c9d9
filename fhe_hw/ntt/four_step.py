"""Four-step NTT engine for 2^64 - 2^32 + 1 ([Wang13] §IV-C, eqs 7–8, Figs 3–4): n = 4096 = 64 x 64
and n = 65536 = 16 x 4096 with the shift-only :class:`~fhe_hw.ntt.shift.ShiftNTT` units.

Architecture
------------
The n words live in 8 banks (``amaranth.lib.memory``, one write and one read port each, depth
n/8) with the bank map of :func:`~fhe_hw.ntt.schedule.four_step_fields` (bank = XOR of three-bit
index fields; every access of load, column phase, twiddle + row phase, outer radix-16 phase and
unload hits 8 distinct banks). A transform is:

1. *load*: n/8 input beats of 8 words, in index order;
2. the phases of :data:`~fhe_hw.ntt.schedule.FOUR_STEP_PHASES` (4096: two phases of 64 64-point
   transforms; 65536: two phases of 1024 64-point transforms, then 4096 16-point transforms),
   issued 8 samples per cycle (:func:`~fhe_hw.ntt.schedule.four_step_position`) through one
   stage of 8 twiddle :class:`~fhe_hw.arith.ModMul` (twiddle 1 in the first phase,
   :func:`~fhe_hw.ntt.schedule.four_step_twiddle` in the others) into the ShiftNTT unit of the
   phase (64 points, 8 lanes; 16 points, 8 lanes), whose outputs are written back in place.
   Each phase waits until the previous one is written back;
3. *unload*: n/8 output beats in natural order
   (:func:`~fhe_hw.ntt.schedule.four_step_unload_position`), through an output FIFO that
   absorbs back-pressure.

The plan is :func:`~fhe_hw.ntt.schedule.four_step_schedule`, executed against the model by
:func:`~fhe_hw.ntt.schedule.run_four_step_schedule`; the output equals
:func:`~fhe_hw.model.ntt.ntt4096` / :func:`~fhe_hw.model.ntt.ntt65536`.

Cycle count (always-valid input, always-ready output), first input to last output:
:func:`~fhe_hw.ntt.schedule.four_step_cycles` = 2·n/8 + Σ over phases (T·B + L_mul + B + 9) + 3
for T transforms of B beats per phase and L_mul the twiddle ModMul's latency.
"""

from dataclasses import dataclass, field

from amaranth import Array, Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..arith import ModMul, ModMulPlan
from ..arith.pipeline import mult_stages_param, tiled_param
from ..component import Component, FixedRun
from ..lib.rom import rom_ports
from ..params import SOLINAS64, NTTParams, solinas_ntt_params
from ..plan import StreamPlan, param
from .roots import omega_param, root_description, root_param
from .schedule import (
    FOUR_STEP_LANES,
    FOUR_STEP_PHASES,
    four_step_bank,
    four_step_cycles,
    four_step_fields,
    four_step_position,
    four_step_twiddle,
    four_step_unload_position,
)
from .shift import ShiftNTT
from .streaming import output_fifo

__all__ = ["FourStepNTT", "FourStepNTTPlan"]


@dataclass(frozen=True)
class FourStepNTTPlan(StreamPlan):
    """The parameters of :class:`FourStepNTT` and what they derive.

    Parameters
    ----------
    n : int
        The transform size, 4096 or 65536.
    inverse : bool
        The inverse transform (n^-1 folded in by the shift units).
    mult_stages : int or None
        Registers in the 8 twiddle :class:`~fhe_hw.arith.ModMul` s' multipliers (default None,
        ModMul's own).
    tiled : bool
        The twiddle ModMuls' tiled multipliers (default True).
    root : str or None
        The root-of-unity convention (:func:`~fhe_hw.params.solinas_ntt_params`; default
        ``wang-huang``), unless ``omega`` gives the root.
    omega : int or None
        Any primitive n-th root: the twiddle ROMs hold its powers and the shift units take its
        powers of order 64 and 16, which are powers of two.
    reducer : str
        The twiddle ModMuls' reducer (default ``auto``).

    Attributes
    ----------
    roots : NTTParams
        The transform's ω.
    mul_latency : int
        The twiddle ModMuls' latency.
    """

    n: int = param(help="transform size: 4096 or 65536", cli_default=4096)
    inverse: bool = param(False, help="inverse transform (n^-1 folded in)", kw_only=True)
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    root: str | None = root_param(solinas=True)
    omega: int | None = omega_param()
    reducer: str = field(default="auto", kw_only=True)
    roots: NTTParams = field(init=False, repr=False, compare=False)
    mul_latency: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        four_step_fields(self.n)
        roots = solinas_ntt_params(self.n, root=self.root, omega=self.omega)
        latency = ModMulPlan("solinas64", self.reducer, mult_stages=self.mult_stages,
                             tiled=self.tiled).latency
        self._set(roots=roots, mul_latency=latency)

    @property
    def input_beats(self):
        """Beats of one transform on ``i`` (and on ``o``): n / 8."""
        return self.n // FOUR_STEP_LANES

    output_beats = input_beats

    def cycles(self):
        """Exact cycles of one transform, first input to last output
        (:func:`~fhe_hw.ntt.schedule.four_step_cycles`)."""
        return four_step_cycles(self.n, self.mul_latency)

    def describe(self):
        """The root of unity of the transform."""
        return root_description(self.roots)


class FourStepNTT(FixedRun, Component):
    """Four-step NTT over 2^64 - 2^32 + 1 for n = 4096 or 65536 ([Wang13] eqs 7–8, Figs 3–4).
    The transform is cyclic (the paper's eqs 7–8); use :class:`~fhe_hw.ntt.StreamingFourStepNTT`
    or :class:`~fhe_hw.ntt.StreamingNTT` for a negacyclic one.

    Co-simulated with Verilator against the model, with the exact cycle count, at n = 4096
    (forward and inverse, also under back-pressure, and forward with OpenFHE's rule for the
    root: a ``slow`` test) and n = 65536 (``fhe-hw table ntt-four-step``).

    Cycles: :meth:`cycles` = :func:`~fhe_hw.ntt.schedule.four_step_cycles` (n, ModMul latency),
    first input to last output with always-valid input and always-ready output: 2105 for
    n = 4096 and 41038 for n = 65536 with the default ModMul (latency 10). The next transform
    loads once the last output read has been issued. Storage: 8 banks of n/8 words, twiddle
    ROMs of 8·64·8 (4096) or 8·(64·8 + 4096·2) (65536) words.

    Parameters
    ----------
    plan : FourStepNTTPlan
        Or the arguments of one (``FourStepNTT(4096, inverse=True)``).

    Attributes
    ----------
    i, o : stream.Signature(data.ArrayLayout(unsigned(64), 8))
        n/8 beats per transform, words in natural index order (lane 0 first) in and out:
        X = ``ntt4096(x, omega=ω)`` / ``ntt65536(x, omega=ω)`` (:mod:`fhe_hw.model.ntt`,
        ω = :attr:`omega`).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = FourStepNTTPlan.coerce(*args, **kw)
        n = plan.n
        self._n, self._inverse = n, plan.inverse
        self._omega = plan.roots.omega
        self._phases = FOUR_STEP_PHASES[n]
        self._units = {pts: ShiftNTT(pts, FOUR_STEP_LANES, inverse=plan.inverse,
                                     omega=pow(self._omega, n // pts, SOLINAS64))
                       for pts in sorted({p for _, _, p in self._phases})}
        self._muls = [ModMul("solinas64", plan.reducer, mult_stages=plan.mult_stages,
                             tiled=plan.tiled)
                      for _ in range(FOUR_STEP_LANES)]
        layout = data.ArrayLayout(unsigned(64), FOUR_STEP_LANES)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    @property
    def n(self):
        return self._n

    @property
    def modulus(self):
        return SOLINAS64

    @property
    def lanes(self):
        return FOUR_STEP_LANES

    @property
    def inverse(self):
        return self._inverse

    @property
    def omega(self):
        """ω, the primitive n-th root of unity of the transform."""
        return self._omega

    @property
    def mul_latency(self):
        """Latency of the twiddle ModMuls."""
        return self._muls[0].latency

    def cycles(self):
        """Exact cycles of one transform, first input to last output (the plan's
        :meth:`~FourStepNTTPlan.cycles`)."""
        return self.plan.cycles()

    def twiddle_roms(self):
        """Per phase with twiddles, per lane: the ROM contents (premultiplied)."""
        p = SOLINAS64
        w = pow(self._omega, -1, p) if self._inverse else self._omega
        mul = self._muls[0]
        roms = {}
        for ph, (T, B, _) in enumerate(self._phases):
            if ph == 0:
                continue
            depth = (64 if ph == 1 else T) * B
            lanes = []
            for lane in range(FOUR_STEP_LANES):
                rom = [0] * depth
                for t in range(64 if ph == 1 else T):
                    for c in range(B):
                        addr, e = four_step_twiddle(self._n, ph, t, c, lane, self._inverse)
                        rom[addr] = mul.premultiply(pow(w, e, p))
                lanes.append(rom)
            roms[ph] = lanes
        return roms

    # --- elaborate and its parts -----------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        n, L = self._n, FOUR_STEP_LANES
        CL, nph = n // L, len(self._phases)
        wports, rports, tw_ports = self._memories(m)

        LOAD, RUN, DRAIN, UNLOAD = 0, 1, 2, 3
        state = Signal(2, init=LOAD)
        beat = Signal(range(CL))
        ph = Signal(range(nph))
        t = Signal(range(max(T for T, _, _ in self._phases)))
        c = Signal(range(8))
        ph_w = Signal(range(nph + 1))
        t_w = Signal.like(t)
        g_w = Signal.like(c)

        issue = Signal()
        m.d.comb += issue.eq(state == RUN)
        run_addr, fold = self._issue(m, ph, t, c, tw_ports)

        # --- load and unload addressing ---
        load_go = Signal()
        m.d.comb += [self.i.ready.eq(state == LOAD), load_go.eq(self.i.valid & self.i.ready)]
        load_fold = four_step_bank(beat << 3, n)
        unload_go, fifo = output_fifo(m, self.o, 64 * L, 2, state == UNLOAD)
        unload_fold = Signal(3)
        m.d.comb += unload_fold.eq(four_step_bank(four_step_unload_position(n, beat, 0), n))
        for k in range(L):
            lane = Const(k, 3) ^ unload_fold
            unload_addr = four_step_unload_position(n, beat, lane) >> 3
            m.d.comb += rports[k].addr.eq(Mux(state == UNLOAD, unload_addr, run_addr[k]))

        rdata = Array(p_.data for p_ in rports)
        ph_m = self._twiddle_stage(m, issue, ph, fold, rdata, tw_ports)
        out_valid, out_lanes = self._shift_units(m, ph_m)
        self._write_back(m, wports, ph_w, t_w, g_w, out_valid, out_lanes, load_go, beat,
                         load_fold)
        self._unload(m, unload_go, unload_fold, rdata, fifo)

        # --- control ---
        with m.Switch(state):
            with m.Case(LOAD):
                with m.If(load_go):
                    m.d.sync += beat.eq(beat + 1)
                    with m.If(beat == CL - 1):
                        m.d.sync += [beat.eq(0), state.eq(RUN), ph.eq(0), t.eq(0), c.eq(0),
                                     ph_w.eq(0), t_w.eq(0), g_w.eq(0)]
            with m.Case(RUN):
                m.d.sync += c.eq(c + 1)
                with m.Switch(ph):
                    for p_, (T, B, _) in enumerate(self._phases):
                        with m.Case(p_):
                            with m.If(c == B - 1):
                                m.d.sync += [c.eq(0), t.eq(t + 1)]
                                with m.If(t == T - 1):
                                    m.d.sync += [t.eq(0), state.eq(DRAIN)]
            with m.Case(DRAIN):
                with m.If(ph_w == ph + 1):
                    with m.If(ph == nph - 1):
                        m.d.sync += state.eq(UNLOAD)
                    with m.Else():
                        m.d.sync += [ph.eq(ph + 1), state.eq(RUN)]
            with m.Case(UNLOAD):
                with m.If(unload_go):
                    m.d.sync += beat.eq(beat + 1)
                    with m.If(beat == CL - 1):
                        m.d.sync += [beat.eq(0), state.eq(LOAD)]
        return m

    def _memories(self, m):
        """The 8 banks (write ports, read ports) and, per phase with twiddles, the read ports of
        its 8 twiddle ROMs."""
        wports, rports = [], []
        for k in range(FOUR_STEP_LANES):
            mem = Memory(shape=unsigned(64), depth=self._n // FOUR_STEP_LANES, init=[])
            m.submodules[f"bank{k}"] = mem
            wports.append(mem.write_port())
            rports.append(mem.read_port())
        tw_ports = {}
        for ph, lanes in self.twiddle_roms().items():
            tw_ports[ph] = []
            for lane, init in enumerate(lanes):
                tw_ports[ph] += rom_ports(m, f"twiddle{ph}_{lane}", 64, init)
        return wports, rports, tw_ports

    def _issue(self, m, ph, t, c, tw_ports):
        """Issue of beat c of transform t in phase ph: the read address of every bank, the
        twiddle ROM addresses, and the fold (bank of lane 0; lane j is in bank j ^ fold).
        Returns (read addresses, fold)."""
        n = self._n
        abits = n.bit_length() - 1 - 3
        run_addr = [Signal(abits, name=f"run_addr{k}") for k in range(FOUR_STEP_LANES)]
        fold = Signal(3)
        with m.Switch(ph):
            for p_ in range(len(self._phases)):
                with m.Case(p_):
                    m.d.comb += fold.eq(four_step_bank(four_step_position(n, p_, t, c, 0), n))
                    for k in range(FOUR_STEP_LANES):
                        lane = Const(k, 3) ^ fold
                        m.d.comb += run_addr[k].eq(four_step_position(n, p_, t, c, lane) >> 3)
                    for lane, port in enumerate(tw_ports.get(p_, [])):
                        addr, _ = four_step_twiddle(n, p_, t, c, lane)
                        m.d.comb += port.addr.eq(addr)
        return run_addr, fold

    def _twiddle_stage(self, m, issue, ph, fold, rdata, tw_ports):
        """Read, the crossbar register (banks to lanes: lane j from bank j ^ fold) and the
        twiddle ModMuls. Returns the phase delayed to the ModMul outputs."""
        issue_d, issue_dd = Signal(), Signal()
        ph_d, ph_dd = Signal.like(ph), Signal.like(ph)
        fold_d = Signal(3)
        m.d.sync += [issue_d.eq(issue), issue_dd.eq(issue_d), ph_d.eq(ph), ph_dd.eq(ph_d),
                     fold_d.eq(fold)]
        one = self._muls[0].premultiply(1)
        for lane, mul in enumerate(self._muls):
            m.submodules[f"twiddle_mul{lane}"] = mul
            tw = Const(one, 64)
            for p_, ports in tw_ports.items():
                tw = Mux(ph_d == p_, ports[lane].data, tw)
            m.d.sync += [mul.i.payload.a.eq(rdata[Const(lane, 3) ^ fold_d]),
                         mul.i.payload.b.eq(tw)]
            m.d.comb += mul.i.valid.eq(issue_dd)
        ph_m = ph_dd
        for d in range(self.mul_latency):
            nxt = Signal.like(ph, name=f"ph_m{d}")
            m.d.sync += nxt.eq(ph_m)
            ph_m = nxt
        return ph_m

    def _shift_units(self, m, ph_m):
        """The ShiftNTT units fed by the ModMuls, each in the phases of its size. Returns
        (valid, the 8 output words of whichever unit is valid)."""
        out_valid = Signal()
        out_lanes = [Signal(64, name=f"shift_out{lane}") for lane in range(FOUR_STEP_LANES)]
        valids = []
        for pts, unit in self._units.items():
            m.submodules[f"shift{pts}"] = unit
            uses = [p_ for p_, (_, _, q) in enumerate(self._phases) if q == pts]
            sel = Cat(*(ph_m == p_ for p_ in uses)).any()
            m.d.comb += [unit.i.valid.eq(self._muls[0].o.valid & sel), unit.o.ready.eq(1)]
            m.d.comb += [unit.i.payload[lane].eq(mul.o.payload)
                         for lane, mul in enumerate(self._muls)]
            valids.append(unit.o.valid)
            with m.If(unit.o.valid):
                m.d.comb += [v.eq(unit.o.payload[lane]) for lane, v in enumerate(out_lanes)]
        m.d.comb += out_valid.eq(Cat(*valids).any())
        return out_valid, out_lanes

    def _write_back(self, m, wports, ph_w, t_w, g_w, out_valid, out_lanes, load_go, beat,
                    load_fold):
        """Bank writes: the shift units' results in place (beat g_w of transform t_w of phase
        ph_w, counted here), else the input beat being loaded."""
        n = self._n
        abits = n.bit_length() - 1 - 3
        wfold = Signal(3)
        w_addr = [Signal(abits, name=f"w_addr{k}") for k in range(FOUR_STEP_LANES)]
        with m.Switch(ph_w):
            for p_ in range(len(self._phases)):
                with m.Case(p_):
                    m.d.comb += wfold.eq(four_step_bank(four_step_position(n, p_, t_w, g_w, 0),
                                                        n))
                    for k in range(FOUR_STEP_LANES):
                        lane = Const(k, 3) ^ wfold
                        m.d.comb += w_addr[k].eq(four_step_position(n, p_, t_w, g_w, lane) >> 3)
        outs = Array(out_lanes)
        ins = Array(self.i.payload)
        for k in range(FOUR_STEP_LANES):
            wp = wports[k]
            with m.If(out_valid):
                m.d.comb += [wp.en.eq(1), wp.addr.eq(w_addr[k]),
                             wp.data.eq(outs[Const(k, 3) ^ wfold])]
            with m.Else():
                m.d.comb += [wp.en.eq(load_go), wp.addr.eq(beat),
                             wp.data.eq(ins[Const(k, 3) ^ load_fold])]
        with m.If(out_valid):
            m.d.sync += g_w.eq(g_w + 1)
            with m.Switch(ph_w):
                for p_, (T, B, _) in enumerate(self._phases):
                    with m.Case(p_):
                        with m.If(g_w == B - 1):
                            m.d.sync += [g_w.eq(0), t_w.eq(t_w + 1)]
                            with m.If(t_w == T - 1):
                                m.d.sync += [t_w.eq(0), ph_w.eq(ph_w + 1)]

    def _unload(self, m, unload_go, unload_fold, rdata, fifo):
        """Unload data path: banks to lanes (lane j from bank j ^ the fold of the read), a
        register, the output FIFO."""
        ufold_d = Signal(3)
        unload_d, unload_dd = Signal(), Signal()
        m.d.sync += [ufold_d.eq(unload_fold), unload_d.eq(unload_go), unload_dd.eq(unload_d)]
        lane_data = [Signal(64, name=f"unload{lane}") for lane in range(FOUR_STEP_LANES)]
        m.d.sync += [v.eq(rdata[Const(lane, 3) ^ ufold_d])
                     for lane, v in enumerate(lane_data)]
        m.d.comb += [fifo.w_en.eq(unload_dd), fifo.w_data.eq(Cat(*lane_data))]
