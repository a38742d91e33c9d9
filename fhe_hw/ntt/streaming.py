"""Memory-based streaming NTT engine for n = 16 ... 65536: 001_3f208c7469731276.txt §3.2 (the
radix-2 transform built from the unified Fig. 2 butterfly, k^-1 folded into the last inverse
stage) run in place over banked memory with P butterflies per cycle; 002_309e59e409b6c866.txt
§III–IV (the memory-based 4096- and 65536-point engines of Figs 3–4, p = 2^64 - 2^32 + 1).

Architecture (radix-2 mode)
---------------------------
The n coefficients live in B = 2P banks (``amaranth.lib.memory``, one write and one read port
each, depth n/B). A transform is three phases:

1. *load*: n/lanes input beats, ``lanes`` coefficients each, are written in index order;
2. *compute*: log2 n stages; a stage issues n/(2P) cycles of P butterflies (reading 2P
   coefficients, one per bank, and writing the 2P results back in place to the same bank and
   address ``Butterfly.latency + 2`` cycles later: memory read, a register after the bank
   crossbar, the butterfly), then idles ``Butterfly.latency + 2`` cycles so that the next
   stage reads only finished results;
3. *unload*: n/lanes output beats in index order, through an output FIFO that absorbs
   back-pressure (reads are issued only against free FIFO credits), with the negacyclic
   inverse's k^-1·ψ^-i post-multiplication (:func:`fhe_hw.model.ntt.negacyclic_post_twiddles`)
   on the way out.

Data order and twiddles are those of :func:`fhe_hw.model.ntt.ntt_radix2`: forward takes natural
order and returns the bit-reversed spectrum, the inverse the reverse, so a polynomial product
needs no reordering. The negacyclic forward transform has ψ merged into its twiddles (the
"pre-twist" costs nothing); its inverse post-twists each output by k^-1·ψ^-i. The twiddle ROM is
built from :func:`fhe_hw.model.ntt.stage_twiddles`, the same function the model uses.

Bank mapping (conflict freedom)
-------------------------------
Let b = log2 B and L = log2 n. Coefficient i (L bits) lives in bank ``bank_of(i)`` = the XOR of
the b-bit digits of i (i[0:b] ^ i[b:2b] ^ ...), at address ``i >> b``. (bank, address) is a
bijection: the address gives every digit but the lowest, and the bank then gives the lowest.

A butterfly of stage s pairs indices that differ in bit t (t = L-1-s forward, t = s inverse).
One cycle of stage s handles the 2P indices that agree outside the *window* of b consecutive bit
positions [w, w+b), w = min(t, L-b), which contains t; the bits outside the window come from
the cycle counter. Because bank_of is GF(2)-linear and maps bit position p to bank bit p mod b,
and b consecutive positions have distinct residues mod b, it is a bijection on the window:
the 2P indices of a cycle occupy all 2P banks, each once. Load and unload beats are ``lanes``
<= B consecutive indices (varying only in the low log2(lanes) <= b bits), so they too touch
distinct banks. :func:`schedule` gives the issue order, and the tests check both properties for
every supported (n, P).

Cycle count (always-valid input, always-ready output), first input to last output:
``cycles = 2·n/lanes + log2(n)·(n/(2P) + Butterfly.latency + 2) + 3 + post``, with post the
ModMul latency for the negacyclic inverse and 0 otherwise (:func:`cycles`). Throughput: one
transform every ``2·n/lanes + log2(n)·(n/(2P) + Butterfly.latency + 2)`` cycles (the next load
starts as soon as the last output read has been issued). The register after the crossbar keeps
block-RAM clock-to-out, the bank multiplexers and the multipliers' first DSP out of one path.

Crossbars (pair structure)
--------------------------
Both indices of a stage-s butterfly differ only in bit t, so their banks differ only in bank
bit u = t mod b, a constant of the stage; the upper index's bank has bit u equal to bit u of
the cycle's fold cf = bank_of(counter bits). Butterfly q is given the pair of banks whose other
bits are q (:func:`crossbar_bank`; :func:`schedule` lists the index pairs that this gives, and
the twiddle address is computed from them each cycle). So the read crossbar is b levels of
conditional pair swaps (only level u active, set to cf bit u) followed by a fixed-per-stage
position permutation (a u-way choice, identity for u = 0); the write-back crossbar is the same
in reverse (:func:`crossbar_position`, then the swaps). Each word travels through b 2:1
multiplexers to partners 1, 2, ... 2^(b-1) banks away instead of fanning out to a B:1
multiplexer at every position; with those, P = 4 did not route on the ECP5-85F (README).

Load and unload share these two networks: a beat of B lanes goes to banks lane ^ fold (fold =
bank_of of the beat's first index), which is the swap network with every level set from fold
and the identity permutation; unload reads position j = lane j through the read network, and
load puts input lane j where the permutation's output j would be.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..arith import ModMul
from ..arith.modadd import check_bool
from ..component import Component
from ..model.ntt import (
    negacyclic_post_twiddles,
    stage_pairs,
    stage_twiddles,
    wang_huang_params,
    wang_huang_root,
)
from ..params import get_modulus, ntt_params, require_int, require_power_of_two
from .butterfly import Butterfly

__all__ = ["StreamingNTT", "cycles", "bank_of", "address_of", "stage_window", "twiddle_index",
           "schedule", "crossbar_bank", "crossbar_position", "MIN_N", "MAX_N",
           "four_step_cycles", "four_step_fields", "four_step_bank", "four_step_schedule",
           "four_step_output_position", "four_step_position", "four_step_unload_position",
           "four_step_twiddle", "run_four_step_schedule", "FOUR_STEP_LANES",
           "FOUR_STEP_PHASES"]

MIN_N = 16
MAX_N = 65536


# --- the schedule and bank mapping (shared by the hardware and the tests) ----------------------

def bank_of(i, b):
    """Bank of coefficient i among 2^b banks: the XOR of the b-bit digits of i."""
    bank = 0
    while i:
        bank ^= i & ((1 << b) - 1)
        i >>= b
    return bank


def address_of(i, b):
    """Address of coefficient i inside its bank: i >> b."""
    return i >> b


def stage_window(s, log_n, b, inverse):
    """(t, w) of stage s: t is the bit in which a butterfly's two indices differ (L-1-s forward,
    s inverse), [w, w+b) the window of index bits that vary within one cycle."""
    t = s if inverse else log_n - 1 - s
    return t, min(t, log_n - b)


def _deposit(c, v, w, b):
    """The index whose window [w, w+b) holds v and whose other bits hold the counter c."""
    return ((c >> w) << (w + b)) | (v << w) | (c & ((1 << w) - 1))


def _insert_zero(q, pos):
    return ((q >> pos) << (pos + 1)) | (q & ((1 << pos) - 1))


def _delete_bit(k, pos):
    return ((k >> (pos + 1)) << pos) | (k & ((1 << pos) - 1))


def _rotr(v, r, b):
    return ((v >> r) | (v << (b - r))) & ((1 << b) - 1) if r else v


def crossbar_bank(p, u):
    """The bank that crossbar position p (butterfly p // 2, x = p % 2) meets when the swap at
    bank bit u is off: bit u of the bank is x, the other bits are p // 2."""
    return _insert_zero(p >> 1, u) | ((p & 1) << u)


def crossbar_position(k, u):
    """Inverse of :func:`crossbar_bank`."""
    return (_delete_bit(k, u) << 1) | ((k >> u) & 1)


def twiddle_index(s, up, log_n, inverse):
    """ROM address of the twiddle of the butterfly with upper index ``up`` in stage s: 2^s plus
    the block number (forward) or the position in the block (inverse), so every stage's
    distinct twiddles are one contiguous run of 2^s entries."""
    if inverse:
        return (1 << s) + (up & ((1 << s) - 1))
    return (1 << s) + (up >> (log_n - s))


def schedule(n, butterflies, inverse=False):
    """The compute phase as lists: one entry per stage, holding one entry per issue cycle, holding
    the P (up, down) index pairs in butterfly order. Follows the hardware exactly: butterfly q
    takes the two banks whose bits other than u are q, the upper index from bank bit u = the
    cycle's fold bit u."""
    require_power_of_two("n", n)
    log_n, b = n.bit_length() - 1, butterflies.bit_length()
    stages = []
    for s in range(log_n):
        t, w = stage_window(s, log_n, b, inverse)
        u, r = t % b, w % b
        cycles_ = []
        for c in range(n >> b):
            cf = bank_of(_deposit(c, 0, w, b), b)
            pairs = []
            for q in range(butterflies):
                k_up = crossbar_bank(2 * q + ((cf >> u) & 1), u)
                up = _deposit(c, _rotr(k_up ^ cf, r, b), w, b)
                pairs.append((up, up | (1 << t)))
            cycles_.append(pairs)
        stages.append(cycles_)
    return stages


def cycles(n, butterflies=1, *, lanes=None, butterfly_latency, post_latency=0):
    """Exact cycles from the first input transfer to the last output transfer of one transform
    with always-valid input and always-ready output: 2·n/lanes (load and unload) +
    log2(n)·(n/(2P) + butterfly_latency + 2) (stages and their pipeline drains) + 3 (memory
    read, crossbar register, output FIFO) + post_latency (the negacyclic inverse's
    post-multiplier, else 0). ``lanes`` defaults to 2P."""
    lanes = 2 * butterflies if lanes is None else lanes
    log_n = n.bit_length() - 1
    return 2 * (n // lanes) + log_n * (n // (2 * butterflies) + butterfly_latency + 2) + 3 \
        + post_latency


# --- the engine ---------------------------------------------------------------------------------

def _xorfold(value, width, b):
    """bank_of() of an Amaranth value of ``width`` bits."""
    out = Const(0, b)
    for lo in range(0, width, b):
        out = out ^ value[lo:min(lo + b, width)]
    return out


def _output_fifo(m, o, width, latency, want):
    """The unload end of an engine: a FIFO driving stream ``o`` and issue credits. Returns
    (``go``: a read may be issued this cycle, given ``want``; the FIFO, whose ``w_en``/``w_data``
    the caller drives ``latency`` cycles after ``go``). Depth latency + 2 sustains one beat per
    cycle when ``o`` is always ready; the credits (beats issued and not yet sent) never exceed
    the depth, so no beat is lost under back-pressure."""
    depth = latency + 2
    m.submodules.out_fifo = fifo = SyncFIFO(width=width, depth=depth)
    credit = Signal(range(depth + 1))
    go, sent = Signal(), Signal()
    m.d.comb += [go.eq(want & (credit < depth)), sent.eq(o.valid & o.ready),
                 o.valid.eq(fifo.r_rdy), o.payload.eq(fifo.r_data), fifo.r_en.eq(o.ready)]
    m.d.sync += credit.eq(credit + go - sent)
    return go, fifo


def _xor_swap(words, x):
    """out[k] = words[k ^ x] for a b-bit signal x: b levels of pair swaps, level j exchanging
    the words whose indices differ in bit j when x[j] is set."""
    for j in range(len(x)):
        words = [Mux(x[j], words[k ^ (1 << j)], words[k]) for k in range(len(words))]
    return words


def _permute(words, u, index):
    """out[p] = words[index(p, v)] for the stage's u = v (a signal); positions whose source does
    not depend on u are plain wires."""
    b = len(words).bit_length() - 1
    out = []
    for p in range(len(words)):
        choice = words[index(p, 0)]
        for v in range(1, b):
            if index(p, v) != index(p, 0):
                choice = Mux(u == v, words[index(p, v)], choice)
        out.append(choice)
    return out


class StreamingNTT(Component):
    """Memory-based in-place radix-2 NTT with P butterflies per cycle (001 §3.2, 002 §IV).

    Parameters: ``n`` (power of two, 16 to 65536); ``modulus`` (name, integer or Modulus with a
    primitive n-th root, a 2n-th for ``negacyclic``); ``butterflies`` P (power of two, at most
    n/2); ``lanes`` (coefficients per stream beat: a power of two, at most 2P; default 2P);
    ``negacyclic`` (transform mod x^n + 1); ``inverse``; ``mult_stages``, ``reducer`` and
    ``tiled`` (passed to every :class:`~fhe_hw.arith.ModMul`: butterflies, post-multipliers,
    four-step twiddle stage; ``tiled`` keeps the latency); ``four_step`` (solinas64 only,
    n = 4096 or 65536, lanes 8, cyclic: the 002 eqs 7–8 datapath of :class:`_FourStep` with the
    shift-only :class:`~fhe_hw.ntt.shift.ShiftNTT` units, natural order in and out, equal to
    :func:`~fhe_hw.model.ntt.ntt4096` / :func:`~fhe_hw.model.ntt.ntt65536`; cycles
    :func:`four_step_cycles`; co-simulated with Verilator against the model, with the exact
    cycle count, at n = 4096 (forward and inverse, also under back-pressure: a ``slow`` test)
    and n = 65536 (``tools/cosim_ntt.py --four-step``)).

    Ports: ``i`` and ``o`` — streams of ``data.ArrayLayout(unsigned(m), lanes)`` (m = modulus
    bits), n/lanes beats per transform, coefficients in index order (lane 0 first). Forward:
    natural order in, bit-reversed spectrum out; inverse: the reverse, scaled by n^-1 (exactly
    :func:`fhe_hw.model.ntt.ntt_radix2` with :func:`fhe_hw.params.ntt_params`).

    Cycles: :meth:`cycles` (see :func:`cycles`). Storage: 2P banks of n/(2P) words, one twiddle
    ROM of n words with P read ports, n post-twiddles for the negacyclic inverse.

    Raises ``TypeError``/``ValueError`` for a bad parameter (n not a power of two or out of
    range, P not a power of two or above n/2, lanes not a power of two or above 2P, a modulus
    without the needed root).
    """

    def __init__(self, n, modulus="solinas64", *, butterflies=1, lanes=None, negacyclic=False,
                 inverse=False, four_step=False, mult_stages=4, reducer="auto", tiled=False):
        tiled = check_bool("tiled", tiled)
        if check_bool("four_step", four_step):
            self._init_four_step(n, modulus, lanes, negacyclic, inverse, mult_stages, reducer,
                                 tiled)
            return
        self._four = None
        require_power_of_two("n", n)
        if not MIN_N <= n <= MAX_N:
            raise ValueError(f"n must be between {MIN_N} and {MAX_N}, not {n!r}")
        require_power_of_two("butterflies", butterflies)
        if butterflies > n // 2:
            raise ValueError(f"butterflies must be at most n/2 = {n // 2}, not {butterflies!r}")
        lanes = 2 * butterflies if lanes is None else lanes
        require_power_of_two("lanes", lanes)
        if lanes > 2 * butterflies:
            raise ValueError(f"lanes must be at most 2·butterflies = {2 * butterflies} (one "
                             f"coefficient per bank per cycle), not {lanes!r}")
        self._negacyclic = check_bool("negacyclic", negacyclic)
        self._inverse = check_bool("inverse", inverse)
        mod = get_modulus(modulus)
        try:
            self._params = ntt_params(mod, n, negacyclic=negacyclic)
        except ValueError as e:
            order = 2 * n if negacyclic else n
            kind = " (negacyclic)" if negacyclic else ""
            raise ValueError(f"modulus must have a primitive {order}-th root of unity for n = "
                             f"{n}{kind}, not {mod}: {e}") from None
        self._mod, self._n, self._p, self._lanes = mod, n, butterflies, lanes
        self._mult_stages = require_int("mult_stages", mult_stages, minimum=0)
        self._reducer = reducer
        self._bfs = [Butterfly(mod, scale_up=inverse and not negacyclic,
                               mult_stages=mult_stages, reducer=reducer, tiled=tiled)
                     for _ in range(butterflies)]
        self._post = [ModMul(mod, reducer, mult_stages=mult_stages, tiled=tiled)
                      for _ in range(lanes)] \
            if inverse and negacyclic else []
        layout = data.ArrayLayout(unsigned(mod.bits), lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    @property
    def n(self):
        return self._n

    @property
    def modulus(self):
        return self._mod.value

    @property
    def butterflies(self):
        return self._p

    @property
    def lanes(self):
        return self._lanes

    @property
    def input_beats(self):
        """Beats of one transform on ``i`` (and on ``o``): n / lanes."""
        return self._n // self._lanes

    output_beats = input_beats

    @property
    def negacyclic(self):
        return self._negacyclic

    @property
    def inverse(self):
        return self._inverse

    @property
    def params(self):
        """The :class:`fhe_hw.params.NTTParams` the engine computes with."""
        return self._params

    @property
    def butterfly_latency(self):
        """Latency of the butterflies (``None`` in the four-step mode, which has none)."""
        return self._bfs[0].latency if self._bfs else None

    @property
    def post_latency(self):
        """Latency of the negacyclic inverse's post-multiplier (0 when there is none)."""
        return self._post[0].latency if self._post else 0

    @property
    def four_step(self):
        return self._four is not None

    def cycles(self):
        """Exact cycles of one transform, first input to last output (see :func:`cycles`, and
        :func:`four_step_cycles` in four-step mode)."""
        if self._four is not None:
            return four_step_cycles(self._n, self._four.mul_latency)
        return cycles(self._n, self._p, lanes=self._lanes,
                      butterfly_latency=self.butterfly_latency, post_latency=self.post_latency)

    def twiddle_rom(self):
        """The twiddle ROM (before ``premultiply``): entry :func:`twiddle_index` holds ω_down of
        the butterflies of that stage and block, taken from :func:`stage_twiddles`."""
        n, log_n, inv, neg = self._n, self._params.log_k, self._inverse, self._negacyclic
        rom = [0] * n
        for s in range(log_n):
            for (up, _), (_, w_down) in zip(stage_pairs(s, n, inv),
                                            stage_twiddles(s, self._params, inv, neg)):
                idx = twiddle_index(s, up, log_n, inv)
                assert rom[idx] in (0, w_down), "twiddle_index must identify the twiddle"
                rom[idx] = w_down
        return rom

    def _init_four_step(self, n, modulus, lanes, negacyclic, inverse, mult_stages, reducer,
                        tiled):
        mod = get_modulus(modulus)
        if not mod.is_solinas64:
            raise ValueError(f"modulus must be solinas64 (2^64 - 2^32 + 1) for the four-step "
                             f"mode, not {mod}")
        require_int("n", n)
        four_step_fields(n)
        if check_bool("negacyclic", negacyclic):
            raise ValueError("negacyclic must be False in the four-step mode (002 eqs 7-8 are "
                             "cyclic), not True")
        lanes = FOUR_STEP_LANES if lanes is None else lanes
        if lanes != FOUR_STEP_LANES:
            raise ValueError(f"lanes must be {FOUR_STEP_LANES} in the four-step mode, "
                             f"not {lanes!r}")
        self._inverse = check_bool("inverse", inverse)
        self._negacyclic = False
        self._mod, self._n, self._p, self._lanes = mod, n, 1, lanes
        self._params = wang_huang_params(n)
        self._four = _FourStep(n, inverse, require_int("mult_stages", mult_stages, minimum=0),
                               reducer, tiled)
        self._bfs, self._post = [], []
        layout = data.ArrayLayout(unsigned(64), lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    def elaborate(self, platform):
        if self._four is not None:
            return self._four.elaborate(self)
        m = Module()
        n, P, lanes = self._n, self._p, self._lanes
        log_n, b = self._params.log_k, P.bit_length()
        B, C, CL = 2 * P, n // (2 * P), n // lanes
        log_lanes = lanes.bit_length() - 1
        width = self._mod.bits
        bf0 = self._bfs[0]
        lat = bf0.latency
        gap = lat + 2                      # pipeline drain between stages
        depth_w = 2 + lat                  # issue -> read -> crossbar register -> write-back

        # Storage: B banks, a twiddle ROM with one read port per butterfly.
        wports, rports = [], []
        for k in range(B):
            mem = Memory(shape=unsigned(width), depth=C, init=[])
            m.submodules[f"bank{k}"] = mem
            wports.append(mem.write_port())
            rports.append(mem.read_port())
        rom = Memory(shape=unsigned(width), depth=n,
                     init=[bf0.premultiply(w) for w in self.twiddle_rom()])
        m.submodules.twiddles = rom
        tw_ports = [rom.read_port() for _ in range(P)]

        # Control.
        LOAD, COMPUTE, UNLOAD = 0, 1, 2
        # state, beat and the phase flags are registers whose next values (state_next,
        # beat_next) the state machine computes, so that the write-back network's swap can be a
        # register too (below): it fans out to B·m multiplexers per level.
        state, state_next = Signal(2, init=LOAD), Signal(2)
        loading, unloading = Signal(init=1), Signal()
        beat, beat_next = Signal(range(CL)), Signal(range(CL))
        m.d.comb += [state_next.eq(state), beat_next.eq(beat)]
        m.d.sync += [state.eq(state_next), beat.eq(beat_next), loading.eq(state_next == LOAD),
                     unloading.eq(state_next == UNLOAD)]
        stage = Signal(range(log_n))
        cc = Signal(range(C + gap))

        # --- compute issue: per-stage address generation (constants per stage) ---
        # xsw: the swap of the crossbars' XOR networks (only bit u, set to the fold's bit u: a
        # butterfly's two banks differ in bank bit u); usel: u, the crossbars' permutation.
        issue = Signal()
        m.d.comb += issue.eq((state == COMPUTE) & (cc < C))
        c = cc[:log_n - b]
        rd_addr = [Signal(range(C), name=f"rd_addr{k}") for k in range(B)]
        xsw, usel = Signal(b), Signal(range(max(b, 2)))
        last = Signal()
        with m.Switch(stage):
            for s in range(log_n):
                with m.Case(s):
                    t, w = stage_window(s, log_n, b, self._inverse)
                    u, r = t % b, w % b
                    cf = _xorfold(Cat(c[:w], Const(0, b), c[w:]), log_n, b)
                    m.d.comb += [xsw.eq(cf[u] << u), usel.eq(u), last.eq(s == log_n - 1)]
                    for k in range(B):
                        v = (Const(k, b) ^ cf).rotate_right(r)
                        m.d.comb += rd_addr[k].eq(Cat(c[:w], v, c[w:])[b:])
                    for q in range(P):
                        k_up = Const(crossbar_bank(2 * q, u), b) | xsw
                        up = Cat(c[:w], (k_up ^ cf).rotate_right(r), c[w:])
                        block = up[:s] if self._inverse else up[log_n - s:]
                        m.d.comb += tw_ports[q].addr.eq(Cat(block, Const(1, 1)))

        # --- load / unload addressing: a beat is `lanes` consecutive indices ---
        beat_idx = Cat(Const(0, log_lanes), beat)          # index of lane 0
        fold = _xorfold(beat_idx, log_n, b)
        beat_addr = beat_idx[b:]
        with m.If(unloading):
            # Unloading reuses the read crossbar: position j holds lane j, from bank j ^ fold.
            m.d.comb += [xsw.eq(fold), usel.eq(0)]
        load_go = Signal()
        m.d.comb += [self.i.ready.eq(loading), load_go.eq(self.i.valid & self.i.ready)]

        # Unload credits: beats issued and not yet taken from the output FIFO.
        post_lat = self.post_latency
        unload_go, fifo = _output_fifo(m, self.o, width * lanes, 2 + post_lat, unloading)

        for k in range(B):
            m.d.comb += rports[k].addr.eq(Mux(unloading, beat_addr, rd_addr[k]))

        # --- read stage (one cycle later): route banks to butterflies ---
        issue_d, last_d = Signal(), Signal()
        xsw_d, usel_d = Signal.like(xsw), Signal.like(usel)
        m.d.sync += [issue_d.eq(issue), last_d.eq(last), xsw_d.eq(xsw), usel_d.eq(usel)]
        pos = _permute(_xor_swap([p.data for p in rports], xsw_d), usel_d, crossbar_bank)
        outs = []
        w_one, w_last = bf0.premultiply(1), bf0.premultiply(self._params.k_inv)
        issue_dd = Signal()
        m.d.sync += issue_dd.eq(issue_d)
        crossbar = []                      # the crossbar register, position 2q + x
        for q, bf in enumerate(self._bfs):
            m.submodules[f"bf{q}"] = bf
            x = bf.i.payload
            # The butterfly's operands are registered (the crossbar register).
            m.d.sync += [x.up.eq(pos[2 * q]), x.down.eq(pos[2 * q + 1]),
                         x.w_down.eq(tw_ports[q].data)]
            m.d.comb += bf.i.valid.eq(issue_dd)
            if bf.scale_up:
                m.d.sync += x.w_up.eq(Mux(last_d, w_last, w_one))
            crossbar += [x.up, x.down]
            outs += [bf.o.payload.up, bf.o.payload.down]

        # --- write-back: bank addresses and the swap delayed to the butterfly outputs ---
        wen, waddr, wsw, wu = issue, list(rd_addr), xsw, usel
        # The last swap register is the write-back network's control: the fold of the next
        # beat when the next cycle loads, else the compute swap.
        fold_next = _xorfold(Cat(Const(0, log_lanes), beat_next), log_n, b)
        for d in range(depth_w):
            wen_r, wsw_r, wu_r = Signal(name=f"wen_d{d}"), Signal(b, name=f"wsw_d{d}"), \
                Signal.like(usel, name=f"wu_d{d}")
            nxt_a = [Signal(range(C), name=f"waddr{k}_d{d}") for k in range(B)]
            if d == depth_w - 1:
                wsw = Mux(state_next == LOAD, fold_next, wsw)
            m.d.sync += [wen_r.eq(wen), wsw_r.eq(wsw), wu_r.eq(wu)]
            m.d.sync += [a.eq(a0) for a, a0 in zip(nxt_a, waddr)]
            wen, waddr, wsw, wu = wen_r, nxt_a, wsw_r, wu_r
        # Loading shares the write-back crossbar: input lane k' takes the place of what the
        # bank-side permutation puts at k', and the swap is the beat's fold, so bank k gets
        # lane k ^ fold.
        lanes_in = self.i.payload
        perm = _permute(outs, wu, crossbar_position)
        perm = [Mux(loading, lanes_in[j], v) if j < lanes else v for j, v in enumerate(perm)]
        wdata = _xor_swap(perm, wsw)
        for k in range(B):
            wp = wports[k]
            lane = Const(k, b) ^ fold                       # the input lane for this bank
            m.d.comb += wp.data.eq(wdata[k])
            with m.If(wen):
                m.d.comb += [wp.en.eq(1), wp.addr.eq(waddr[k])]
            with m.Else():
                m.d.comb += [wp.en.eq(load_go & (lane[log_lanes:] == 0)), wp.addr.eq(beat_addr)]

        # --- unload: banks to lanes through the read crossbar, post-twist, FIFO ---
        unload_d = Signal()
        m.d.sync += unload_d.eq(unload_go)
        unload_dd = Signal()
        m.d.sync += unload_dd.eq(unload_d)
        lane_data = crossbar[:lanes]
        out_valid = unload_dd
        if self._post:
            post = negacyclic_post_twiddles(self._params)
            mul0 = self._post[0]
            for lane, mul in enumerate(self._post):
                prom = Memory(shape=unsigned(width), depth=CL,
                              init=[mul0.premultiply(post[j * lanes + lane]) for j in range(CL)])
                m.submodules[f"post_rom{lane}"] = prom
                prp = prom.read_port()
                m.submodules[f"post{lane}"] = mul
                tw = Signal(width, name=f"post_tw{lane}")
                m.d.sync += tw.eq(prp.data)
                m.d.comb += [prp.addr.eq(beat), mul.i.payload.a.eq(lane_data[lane]),
                             mul.i.payload.b.eq(tw), mul.i.valid.eq(unload_dd)]
                lane_data[lane] = mul.o.payload
            out_valid = self._post[0].o.valid
        m.d.comb += [fifo.w_en.eq(out_valid), fifo.w_data.eq(Cat(*lane_data))]

        # --- state machine ---
        with m.Switch(state):
            with m.Case(LOAD):
                with m.If(load_go):
                    m.d.comb += beat_next.eq(beat + 1)
                    with m.If(beat == CL - 1):
                        m.d.comb += [beat_next.eq(0), state_next.eq(COMPUTE)]
                        m.d.sync += [stage.eq(0), cc.eq(0)]
            with m.Case(COMPUTE):
                m.d.sync += cc.eq(cc + 1)
                with m.If(cc == C + gap - 1):
                    m.d.sync += [cc.eq(0), stage.eq(stage + 1)]
                    with m.If(stage == log_n - 1):
                        m.d.comb += state_next.eq(UNLOAD)
            with m.Case(UNLOAD):
                with m.If(unload_go):
                    m.d.comb += beat_next.eq(beat + 1)
                    with m.If(beat == CL - 1):
                        m.d.comb += [beat_next.eq(0), state_next.eq(LOAD)]
        return m


# --- four-step schedule (002 §IV-C, eqs 7–8, Figs 3–4) -----------------------------------------
#
# The memory plan of the four-step mode for solinas64: n = 4096 = 64 x 64 and
# 65536 = 16 x 4096, in place in 8 banks, 8 samples per cycle (the radix-64 unit of 002 §IV-A
# takes 8 per cycle). It is executed here against the model (the shift transforms of
# fhe_hw.model.ntt), and is what the hardware four-step datapath follows.

FOUR_STEP_LANES = 8


def four_step_fields(n):
    """The 3-bit index fields whose XOR is the bank of index i in the four-step plan:
    n = 4096 (i = col + 64·row): i[0:3] ^ i[6:9]; n = 65536 (i = a + 16·(col + 64·row)):
    i[0:3] ^ i[4:7] ^ i[10:13]. Every access of the plan varies exactly one field (and keeps
    the others), so its 8 indices occupy the 8 banks; the address is i >> 3."""
    if n == 4096:
        return (0, 6)
    if n == 65536:
        return (0, 4, 10)
    raise ValueError(f"n must be 4096 or 65536 for the four-step mode, not {n!r}")


def four_step_bank(i, n):
    bank = 0
    for lo in four_step_fields(n):
        bank ^= (i >> lo) & (FOUR_STEP_LANES - 1)
    return bank


def _phases_4096(offset=0, stride=1, scale=1):
    """The two radix-64 phases of a 4096-point transform of y[b] = x[offset + stride·b]: y[b] at
    position offset + stride·b, b = col + 64·row. Phase 1, for each column: the 64-point
    transform over rows, written back in place (row := k2). Phase 2, for each row k2: the
    twiddle W_4096^(col·k2) = W_n^(scale·col·k2), the 64-point transform over columns, written
    in place (col := k1), leaving Y[k2 + 64·k1] at b = k1 + 64·k2."""
    pos = lambda row, col: offset + stride * (col + 64 * row)  # noqa: E731
    inner = [(64, [pos(r, col) for r in range(64)], None) for col in range(64)]
    outer = [(64, [pos(k2, col) for col in range(64)], [scale * col * k2 for col in range(64)])
             for k2 in range(64)]
    return [inner, outer]


def four_step_schedule(n):
    """The four-step plan as phases; a phase is a list of transforms ``(points, positions,
    exponents)``: read the samples at ``positions`` (sample order), multiply sample j by
    W_n^exponents[j] when ``exponents`` is not None (the one ModMul stage of eqs 7–8), apply the
    ``points``-point shift transform and write result k back to ``positions[k]``. After the
    last phase, output X[k] is at :func:`four_step_output_position` (k, n)."""
    if n == 4096:
        return _phases_4096()
    four_step_fields(n)
    # eq. 7: 16 inner 4096-point transforms of x[a + 16·b], then per k2 the twiddle
    # W_65536^(a·k2) and a 16-point transform over a, in place.
    inner = [[], []]
    for a in range(16):
        for ph, transforms in enumerate(_phases_4096(a, 16, 16)):
            inner[ph] += transforms
    b_pos = lambda k: (k >> 6) + 64 * (k & 63)  # noqa: E731  where inner output k sits
    outer = [(16, [a + 16 * b_pos(k2) for a in range(16)], [a * k2 for a in range(16)])
             for k2 in range(4096)]
    return inner + [outer]


def four_step_output_position(k, n):
    """Where output X[k] is after :func:`four_step_schedule`: 4096: k = k2 + 64·k1 at
    k1 + 64·k2; 65536: k = k2 + 4096·k1 at k1 + 16·b(k2), b(k) = (k >> 6) + 64·(k & 63)."""
    if n == 4096:
        return (k >> 6) + 64 * (k & 63)
    k2, k1 = k & 4095, k >> 12
    return k1 + 16 * ((k2 >> 6) + 64 * (k2 & 63))


def run_four_step_schedule(x, inverse=False):
    """Execute :func:`four_step_schedule` on x with the model's shift transforms and Solinas
    reduction; returns X in natural order (equal to ``ntt4096``/``ntt65536`` of x)."""
    from ..model.ntt import shift_ntt, wang_huang_root
    from ..model.reduce import solinas_reduce
    from ..params import SOLINAS64

    n = len(x)
    w = wang_huang_root(n)
    w = pow(w, -1, SOLINAS64) if inverse else w
    mem = list(x)
    for phase in four_step_schedule(n):
        for _points, positions, exponents in phase:
            samples = [mem[p] for p in positions]
            if exponents is not None:
                samples = [solinas_reduce(v * pow(w, e, SOLINAS64))
                           for v, e in zip(samples, exponents)]
            for p, v in zip(positions, shift_ntt(samples, inverse)):
                mem[p] = v
    return [mem[four_step_output_position(k, n)] for k in range(n)]


# --- four-step hardware (002 §IV-C, Figs 3–4) ----------------------------------------------------

#: Phases of the four-step mode: (transforms, beats per transform, points) per phase.
FOUR_STEP_PHASES = {4096: ((64, 8, 64), (64, 8, 64)),
                    65536: ((1024, 8, 64), (1024, 8, 64), (4096, 2, 16))}


def four_step_position(n, phase, t, c, lane):
    """Index read for ``lane`` of beat c of transform t in ``phase`` (and written with result
    8c + lane of that transform): the formulas of :func:`four_step_schedule`, written with
    shifts, masks and ors so that they take ints or Amaranth values alike."""
    if n == 4096:
        if phase == 0:      # column t, rows 8c + lane
            return t | (lane << 6) | (c << 9)
        return lane | (c << 3) | (t << 6)                  # row t, columns 8c + lane
    a = (t >> 6) & 15
    if phase == 0:          # inner column (a, col = t & 63) of x[a + 16·b]
        return a | ((t & 63) << 4) | (lane << 10) | (c << 13)
    if phase == 1:          # inner row (a, k2 = t & 63)
        return a | (lane << 4) | (c << 7) | ((t & 63) << 10)
    # outer: k2 = t, a = 8c + lane, at a + 16·b(k2), b(k) = (k >> 6) + 64·(k & 63)
    return lane | (c << 3) | (((t >> 6) & 63) << 4) | ((t & 63) << 10)


def four_step_unload_position(n, beat, lane):
    """:func:`four_step_output_position` of output 8·beat + lane, as shifts and masks."""
    if n == 4096:
        return ((beat >> 3) & 63) | (lane << 6) | ((beat & 7) << 9)
    return ((beat >> 9) & 15) | (((beat >> 3) & 63) << 4) | (lane << 10) | ((beat & 7) << 13)


def four_step_twiddle(n, phase, t, c, lane, inverse=False):
    """(ROM address, exponent e of W_n^e) of the twiddle for ``lane`` of beat c of transform t,
    or None for a phase without twiddles (the first)."""
    if phase == 0:
        return None
    if phase == 1:          # W_4096^(col·k2) = W_n^((n/4096)·col·k2)
        k2 = t & 63
        return c | (k2 << 3), (n // 4096) * (8 * c + lane) * k2
    return c | (t << 1), (8 * c + lane) * t                 # W_65536^(a·k2)


def four_step_cycles(n, mul_latency):
    """Exact cycles of the four-step mode, first input to last output (always-valid input,
    always-ready output): 2·n/8 (load, unload) + Σ over phases (T·B + mul_latency + B + 9) + 3,
    where a phase runs T transforms of B beats; per phase the drain is the read, the crossbar
    register, the twiddle ModMul, the ShiftNTT (B + 6 from its last input to its last output,
    :func:`~fhe_hw.ntt.shift.shift_ntt_cycles`), the write and two control cycles.
    4096: 1024 + 2·(512 + Lm + 17) + 3; 65536: 16384 + 2·(8192 + Lm + 17) + (8192 + Lm + 11)
    + 3."""
    four_step_fields(n)
    return 2 * (n // FOUR_STEP_LANES) + sum(t * b + mul_latency + b + 9
                                            for t, b, _ in FOUR_STEP_PHASES[n]) + 3


class _FourStep:
    """The four-step datapath of :class:`StreamingNTT` (``four_step=True``): 8 banks of n/8
    words with the bank map of :func:`four_step_fields`, the phases of :data:`FOUR_STEP_PHASES`
    issued 8 samples per cycle through one twiddle stage of 8 :class:`~fhe_hw.arith.ModMul`
    (twiddle 1 in the first phase) into the shift-only :class:`~fhe_hw.ntt.shift.ShiftNTT`
    units (64 points for 4096 and the inner 4096s of 65536; 16 points for the outer 65536
    step), whose outputs are written back in place. Each phase waits until the previous one
    is written back."""

    def __init__(self, n, inverse, mult_stages, reducer, tiled):
        from .shift import ShiftNTT

        self.n, self.inverse = n, inverse
        self.phases = FOUR_STEP_PHASES[n]
        self.units = {pts: ShiftNTT(pts, FOUR_STEP_LANES, inverse=inverse)
                      for pts in sorted({p for _, _, p in self.phases})}
        self.muls = [ModMul("solinas64", reducer, mult_stages=mult_stages, tiled=tiled)
                     for _ in range(FOUR_STEP_LANES)]
        self.mul_latency = self.muls[0].latency

    def twiddle_roms(self):
        """Per phase with twiddles, per lane: the ROM contents (premultiplied)."""
        p = get_modulus("solinas64").value
        w = wang_huang_root(self.n)
        w = pow(w, -1, p) if self.inverse else w
        mul = self.muls[0]
        roms = {}
        for ph, (T, B, _) in enumerate(self.phases):
            if ph == 0:
                continue
            depth = (64 if ph == 1 else T) * B
            lanes = []
            for lane in range(FOUR_STEP_LANES):
                rom = [0] * depth
                for t in range(64 if ph == 1 else T):
                    for c in range(B):
                        addr, e = four_step_twiddle(self.n, ph, t, c, lane, self.inverse)
                        rom[addr] = mul.premultiply(pow(w, e, p))
                lanes.append(rom)
            roms[ph] = lanes
        return roms

    def elaborate(self, engine):
        m = Module()
        n, L = self.n, FOUR_STEP_LANES
        log_n, CL, nph = n.bit_length() - 1, n // L, len(self.phases)
        fields = four_step_fields(n)
        bank_of_ = lambda pos: _xorfold_fields(pos, fields)  # noqa: E731
        abits = log_n - 3

        wports, rports = [], []
        for k in range(L):
            mem = Memory(shape=unsigned(64), depth=CL, init=[])
            m.submodules[f"bank{k}"] = mem
            wports.append(mem.write_port())
            rports.append(mem.read_port())
        tw_ports = {}
        for ph, lanes in self.twiddle_roms().items():
            tw_ports[ph] = []
            for lane, init in enumerate(lanes):
                rom = Memory(shape=unsigned(64), depth=len(init), init=init)
                m.submodules[f"twiddle{ph}_{lane}"] = rom
                tw_ports[ph].append(rom.read_port())

        LOAD, RUN, DRAIN, UNLOAD = 0, 1, 2, 3
        state = Signal(2, init=LOAD)
        beat = Signal(range(CL))
        ph = Signal(range(nph))
        t = Signal(range(max(T for T, _, _ in self.phases)))
        c = Signal(range(8))
        ph_w = Signal(range(nph + 1))
        t_w = Signal.like(t)
        g_w = Signal.like(c)

        # --- issue: read addresses per bank, twiddle addresses per lane ---
        issue = Signal()
        m.d.comb += issue.eq(state == RUN)
        run_addr = [Signal(abits, name=f"run_addr{k}") for k in range(L)]
        fold = Signal(3)
        with m.Switch(ph):
            for p_ in range(nph):
                with m.Case(p_):
                    m.d.comb += fold.eq(bank_of_(four_step_position(n, p_, t, c, 0)))
                    for k in range(L):
                        lane = Const(k, 3) ^ fold
                        m.d.comb += run_addr[k].eq(four_step_position(n, p_, t, c, lane) >> 3)
                    for lane, port in enumerate(tw_ports.get(p_, [])):
                        addr, _ = four_step_twiddle(n, p_, t, c, lane)
                        m.d.comb += port.addr.eq(addr)

        # --- load and unload addressing ---
        load_go = Signal()
        m.d.comb += [engine.i.ready.eq(state == LOAD), load_go.eq(engine.i.valid & engine.i.ready)]
        load_fold = bank_of_(beat << 3)
        unload_go, fifo = _output_fifo(m, engine.o, 64 * L, 2, state == UNLOAD)
        unload_fold = Signal(3)
        m.d.comb += unload_fold.eq(bank_of_(four_step_unload_position(n, beat, 0)))
        for k in range(L):
            lane = Const(k, 3) ^ unload_fold
            unload_addr = four_step_unload_position(n, beat, lane) >> 3
            m.d.comb += rports[k].addr.eq(Mux(state == UNLOAD, unload_addr, run_addr[k]))

        # --- read, crossbar register, twiddle ModMul ---
        issue_d, issue_dd = Signal(), Signal()
        ph_d, ph_dd = Signal.like(ph), Signal.like(ph)
        fold_d, ufold_d = Signal(3), Signal(3)
        m.d.sync += [issue_d.eq(issue), issue_dd.eq(issue_d), ph_d.eq(ph), ph_dd.eq(ph_d),
                     fold_d.eq(fold), ufold_d.eq(unload_fold)]
        rdata = Array(p_.data for p_ in rports)
        one = self.muls[0].premultiply(1)
        for lane, mul in enumerate(self.muls):
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

        # --- shift units ---
        out_valid = Signal()
        out_lanes = [Signal(64, name=f"shift_out{lane}") for lane in range(L)]
        valids = []
        for pts, unit in self.units.items():
            m.submodules[f"shift{pts}"] = unit
            uses = [p_ for p_, (_, _, q) in enumerate(self.phases) if q == pts]
            sel = Cat(*(ph_m == p_ for p_ in uses)).any()
            m.d.comb += [unit.i.valid.eq(self.muls[0].o.valid & sel), unit.o.ready.eq(1)]
            m.d.comb += [unit.i.payload[lane].eq(mul.o.payload)
                         for lane, mul in enumerate(self.muls)]
            valids.append(unit.o.valid)
            with m.If(unit.o.valid):
                m.d.comb += [v.eq(unit.o.payload[lane]) for lane, v in enumerate(out_lanes)]
        m.d.comb += out_valid.eq(Cat(*valids).any())

        # --- write-back in place (or load) ---
        wfold = Signal(3)
        w_addr = [Signal(abits, name=f"w_addr{k}") for k in range(L)]
        with m.Switch(ph_w):
            for p_ in range(nph):
                with m.Case(p_):
                    m.d.comb += wfold.eq(bank_of_(four_step_position(n, p_, t_w, g_w, 0)))
                    for k in range(L):
                        lane = Const(k, 3) ^ wfold
                        m.d.comb += w_addr[k].eq(four_step_position(n, p_, t_w, g_w, lane) >> 3)
        outs = Array(out_lanes)
        ins = Array(engine.i.payload)
        for k in range(L):
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
                for p_, (T, B, _) in enumerate(self.phases):
                    with m.Case(p_):
                        with m.If(g_w == B - 1):
                            m.d.sync += [g_w.eq(0), t_w.eq(t_w + 1)]
                            with m.If(t_w == T - 1):
                                m.d.sync += [t_w.eq(0), ph_w.eq(ph_w + 1)]

        # --- unload data path: banks to lanes, register, FIFO ---
        unload_d, unload_dd = Signal(), Signal()
        m.d.sync += [unload_d.eq(unload_go), unload_dd.eq(unload_d)]
        lane_data = [Signal(64, name=f"unload{lane}") for lane in range(L)]
        m.d.sync += [v.eq(rdata[Const(lane, 3) ^ ufold_d]) for lane, v in enumerate(lane_data)]
        m.d.comb += [fifo.w_en.eq(unload_dd), fifo.w_data.eq(Cat(*lane_data))]

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
                    for p_, (T, B, _) in enumerate(self.phases):
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


def _xorfold_fields(pos, fields):
    out = 0
    for lo in fields:
        out = out ^ ((pos >> lo) & (FOUR_STEP_LANES - 1))
    return out
