"""Memory-based streaming NTT engine for n = 16 ... 65536: [Cao14] §3.2 (the
radix-2 transform built from the unified Fig. 2 butterfly, k^-1 folded into the last inverse
stage) run in place over banked memory with P butterflies per cycle; [Wang13]
§III–IV (the memory-based 4096- and 65536-point engines of Figs 3–4, p = 2^64 - 2^32 + 1). The
four-step engine of [Wang13] eqs 7–8 is :class:`~fhe_hw.ntt.FourStepNTT`; the bank map, schedule and
cycle count used here are the pure functions of :mod:`fhe_hw.ntt.schedule`.

Architecture
------------
The n coefficients live in B = 2P banks (:class:`~fhe_hw.lib.bram.RegisteredRAM`, one write
and one read port each, depth n/B). A transform is three phases:

1. *load*: n/lanes input beats, ``lanes`` coefficients each, are written in index order;
2. *compute*: log2 n stages; a stage issues n/(2P) cycles of P butterflies (reading 2P
   coefficients, one per bank, and writing the 2P results back in place to the same bank and
   address ``Butterfly.latency + 2 + D + W`` cycles later: memory read, the D =
   ``read_stages`` - 1 registers after the banks, the crossbar register, the butterfly, the
   W = ``write_stages`` registers on the write-back path), then idles that many cycles so that
   the next stage reads only finished results;
3. *unload*: n/lanes output beats in index order, through an output FIFO that absorbs
   back-pressure (reads are issued only against free FIFO credits).

Data order and twiddles are those of :func:`fhe_hw.model.ntt.ntt_radix2`: forward takes natural
order and returns the bit-reversed spectrum, the inverse the reverse, so a polynomial product
needs no reordering. The negacyclic forward transform has ψ merged into its twiddles (the
"pre-twist" costs nothing). The negacyclic inverse runs Gentleman–Sande butterflies with ψ^-1
merged into theirs (:func:`fhe_hw.model.ntt.negacyclic_inverse_gs`, OpenFHE's form): no
post-multiplication, and k^-1 folded into its last stage (the butterflies' up-multipliers) or,
with ``scaled=False``, left to the caller (a product folds it into its point-wise constant).
The twiddle ROM is built from the model's functions (:func:`~fhe_hw.model.ntt.stage_twiddles`,
:func:`~fhe_hw.model.ntt.gs_table`).

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
``cycles = 2·n/lanes + log2(n)·(n/(2P) + Butterfly.latency + 2 + D + W) + 3 + R``,
with R = ``read_stages``, D = max(R - 1, 0) and W = ``write_stages`` (:func:`cycles`).
Throughput: one transform every ``2·n/lanes + log2(n)·(n/(2P) + Butterfly.latency + 2 + D +
W)`` cycles (the next load starts as soon as the last output read has been issued).

Read pipeline (``read_stages`` R, 0 to 4, default 3), its registers in the order they are
added:

1. the bank read addresses and read enables (R >= 1): the address generation (stage and
   counter decoding) then ends in a register, not in the block RAM's address set-up (nor, with
   Yosys's ``Memory`` map before the banks were RegisteredRAMs, in its read-old comparator).
   Reads and the write-backs derived from them move together, so this register adds no drain.
   Before it, the read addresses are registers too, beside the control, computed a cycle
   ahead (from a second counter one ahead of the compute counter, and as constants per stage
   for a stage's first cycle), so that the address decoding and the wire to the address
   registers by the block RAMs are two paths, not one (at every R; no cycle is added);
2. each bank's output (R >= 2): the bank's own output register
   (:class:`~fhe_hw.lib.bram.RegisteredRAM`: on the ECP5 the DP16KD's, ``REGMODE_B =
   "OUTREG"``, which Yosys 0.70's memory map never sets; the bank keeps read-old semantics
   with its write registered before the block RAM and a bypass after the output register).
   The banks read only for issued butterflies and unload beats (``r_en``: the DP16KD's
   ``CEB``), and the tests check that none of those reads meets a write of its word;
3. the read network between its pair swaps and its position permutation (R >= 3);
4. a fabric register right after each bank's output and bypass (R = 4), which the placer puts
   beside its block RAM: where the banks are spread over the device's block-RAM rows and the
   read network sits in one place (the 30-bit engine at P = 8), the wire from a block RAM to
   the network otherwise meets the swaps in one period.

Write-back pipeline (``write_stages`` W, 0 or 1, default 1): the butterflies' results after the
write-back permutation (W = 1), before its pair swaps and the load multiplexer. On the ECP5 at
P = 4 the permutation and the swaps with their wires across the die were the critical path
from the butterflies' output registers to the banks' registered write data; the register adds
one cycle to every stage's drain. Loading enters after it and is not delayed.

A read issued at cycle c reaches the banks at c + min(R, 1), leaves them one cycle later and
is in the crossbar register (the butterflies' registered operands) at c + 2 + R. The twiddle
ROM's address is delayed to match and its output registered (R >= 2: the ROM's own output
register, :class:`~fhe_hw.lib.bram.RegisteredROM`, the DP16KD's on the ECP5). Every added
register is written before it is read: its contents reach an output or a bank only under a
valid bit that starts at 0 on reset.

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

from collections import namedtuple
from dataclasses import dataclass, field

from amaranth import Array, Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from ..arith.pipeline import (
    KEEP,
    fabric_rounds_param,
    karatsuba_param,
    modulus_param,
    mult_stages_param,
    tile_reg_param,
    tiled_param,
)
from ..component import Component, FixedRun
from ..lib.bram import PDPW16KD_DEPTH, PDPW16KD_WIDTH, RegisteredRAM, RegisteredROM
from ..lib.delay import register_delay
from ..model.ntt import gs_table, stage_pairs, stage_twiddles
from ..params import (
    Modulus,
    NTTParams,
    get_modulus,
    ntt_params,
    require_int,
    require_power_of_two,
)
from ..plan import StreamPlan, param
from .butterfly import Butterfly, ButterflyPlan, ram_delays_param
from .roots import omega_param, psi_param, root_description, root_param
from .schedule import (
    MAX_N,
    MAX_READ_STAGES,
    MAX_WRITE_STAGES,
    MIN_N,
    READ_STAGES,
    WRITE_STAGES,
    bank_of,
    compute_cycles,
    crossbar_bank,
    crossbar_position,
    cycles,
    period,
    stage_window,
    twiddle_index,
)

__all__ = ["StreamingNTT", "StreamingNTTPlan", "output_fifo", "shared_twiddle_rom",
           "wide_banks_param"]

#: A butterfly's twiddle port on a shared ROM (``shared_twiddles``): its address and word.
_TwiddlePort = namedtuple("_TwiddlePort", "r_addr r_data")

#: The phases of :class:`StreamingNTT`'s control.
_LOAD, _COMPUTE, _UNLOAD = 0, 1, 2


def wide_banks_param():
    """The plan field ``wide_banks`` (default False; left out of a generated file's header
    unless given, like ``karatsuba``)."""
    return param(False, help="each bank in one PDPW16KD with 36-bit ports on an ECP5, not two "
                 "DP16KDs (banks of at most 512 words of at most 36 bits; true/false, default "
                 "false)", cli_default=None, kw_only=True)


@dataclass(frozen=True)
class StreamingNTTPlan(StreamPlan):
    """The parameters of :class:`StreamingNTT` and what they derive.

    Parameters
    ----------
    n : int
        The transform size, a power of two from 16 to 65536.
    modulus : str, int or Modulus
        With a primitive n-th root (a 2n-th for ``negacyclic``).
    butterflies : int
        P, butterflies per cycle: a power of two, at most n/2.
    lanes : int or None
        Coefficients per stream beat: a power of two, at most 2P; default None: 2P.
    negacyclic : bool
        The transform mod x^n + 1.
    inverse : bool
        The inverse transform (n^-1 folded in unless ``scaled`` is False).
    scaled : bool
        The inverse's n^-1 (default True); False: the inverse's output is n times the
        transform's, for a caller that folds n^-1 into a constant of its own, and its
        butterflies have no up-multiplier.
    shared_twiddles : bool
        Negacyclic only: the engine has no twiddle ROM of its own but reads, through its
        ``tw_addr``/``tw_data`` ports, a ROM outside it that holds the forward transform's
        table ψ^brv(a) (:func:`shared_twiddle_rom`: one ROM, through its two ports, for a
        forward and an inverse engine of one prime). The inverse then reads ψ^-brv(a) as
        -ψ^(n - brv(a)): its address a becomes brv(n - brv(a)) and its butterflies subtract the
        other way round (``negated``); it must be unscaled (``scaled=False``). Default False.
    registered_valid : bool
        ``o.valid`` straight from a register (:func:`output_fifo`), for a unit that
        multiplexes several engines' outputs: the same stream, cycle for cycle, one flip-flop
        more (default False).
    mult_stages : int or None
        Registers in every :class:`~fhe_hw.arith.ModMul` 's multiplier (the butterflies';
        default None, ModMul's own).
    tiled : bool
        ModMul's tiled multipliers (default True).
    wide_banks : bool
        Each bank as one ``wide`` :class:`~fhe_hw.lib.bram.RegisteredRAM` on an ECP5 (one
        PDPW16KD with 36-bit ports instead of two DP16KDs at 18 bits; banks of n/(2P) <= 512
        words of at most 36 bits; default False).
    read_stages : int
        Registers on the read path, 0 to 4 (default 3): the read addresses, which add one
        cycle to the unload, then each bank's output, the read network's middle and a fabric
        register after each bank, which add one cycle to every stage's drain and to the
        unload (see the module docstring); 0 is the engine before they were added.
    write_stages : int
        A register on the write-back path, 0 or 1 (default 1), which adds one cycle to every
        stage's drain.
    karatsuba : bool
        Each ModMul's operand multiplier as one level of Karatsuba, 12 MULT18X18D instead of
        16 for solinas64 (default False).
    tile_reg : bool
        Each ModMul's fabric register after every DSP tile's product, before its adder tree
        (default False; see :class:`~fhe_hw.arith.ModMulPlan`).
    fabric_rounds : bool
        Each Montgomery ModMul's rounds without DSPs (default False; see
        :class:`~fhe_hw.arith.ModMulPlan`).
    ram_delays : bool
        Each butterfly's delay line beside its multiplier in a memory, not registers (default
        False; see :class:`~fhe_hw.ntt.ButterflyPlan`); not for a scaled inverse, whose
        butterflies have the up-multiplier instead.
    ping_pong : bool
        Two sets of 2P banks (default False): while one set computes, the other unloads the
        previous transform and loads the next, so that back to back a transform takes its
        compute phase alone (:meth:`period`); one transform takes one cycle more
        (:meth:`cycles`: a set's load ends a cycle before it may start computing).
        Needs the compute phase at least as long as a load and an unload (2·n/lanes cycles).
    root : str or None
        The root-of-unity convention (:func:`fhe_hw.params.ntt_params`; default
        ``generator``), unless ``psi`` (negacyclic) or ``omega`` (cyclic) gives the root.
    psi, omega : int or None
        The root itself.
    reducer : str
        The ModMuls' reducer (default ``auto``).
    moduli : tuple of int or None
        An engine shared by several primes (RNS towers): its transforms take them in turn, the
        t-th mod ``moduli[t mod S]`` (S of them, ``modulus`` the first), each with its roots
        of the ``root`` convention; the butterflies' ModMuls take the modulus at run time
        (:class:`~fhe_hw.ntt.ButterflyPlan`'s ``moduli``: run-time-modulus Montgomery
        multipliers, every prime ≡ 1 mod 2^w for one word w, all of one width) and the
        twiddle ROM holds the S tables, S·n words. Negacyclic only; not with ``ping_pong``,
        ``shared_twiddles``, ``karatsuba``, ``fabric_rounds``, ``ram_delays`` or ``psi``/
        ``omega``. Default None: ``modulus`` alone, its constants fixed at generation.

    Attributes
    ----------
    modulus_resolved : Modulus
        The modulus.
    roots : NTTParams
        The roots the engine computes with (with ``moduli``, the first's).
    moduli_roots : tuple of NTTParams
        With ``moduli``, each one's roots, in their order; else ``(roots,)``.
    lanes_resolved : int
        The coefficients per beat in use.
    butterfly : ButterflyPlan
        The butterflies' plan: Gentleman–Sande for the negacyclic inverse, else Fig. 2; with
        the up-multiplier for a scaled inverse.
    butterfly_latency : int
        The butterflies' latency.
    """

    n: int = param(help="transform size (power of two, 16..65536)", cli_default=1024)
    modulus: object = modulus_param(default="solinas64")
    butterflies: int = param(1, help="butterflies per cycle P (power of two)", kw_only=True)
    lanes: int | None = param(None, help="coefficients per stream beat (default 2P)",
                              kw_only=True)
    negacyclic: bool = param(False, help="transform mod x^n + 1", kw_only=True)
    inverse: bool = param(False, help="inverse transform (n^-1 folded in)", kw_only=True)
    # cli_default None: left out of a generated file's header unless given.
    scaled: bool = param(True, help="the inverse's n^-1 (true/false, default true); false: the "
                         "output n times the inverse, no up-multipliers", cli_default=None,
                         kw_only=True)
    shared_twiddles: bool = field(default=False, kw_only=True)
    registered_valid: bool = field(default=False, kw_only=True)
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    wide_banks: bool = wide_banks_param()
    read_stages: int = param(READ_STAGES, help="registers on the read path: 0, 1 (read "
                             "addresses), 2 (and the bank outputs), 3 (and the read network's "
                             "middle) or 4 (and a fabric register after each bank)",
                             range=(0, MAX_READ_STAGES), kw_only=True)
    write_stages: int = param(WRITE_STAGES, help="registers on the write-back path: 0 or 1 (the "
                              "permuted butterfly results)", range=(0, MAX_WRITE_STAGES),
                              kw_only=True)
    karatsuba: bool = karatsuba_param()
    tile_reg: bool = tile_reg_param()
    fabric_rounds: bool = fabric_rounds_param()
    ram_delays: bool = ram_delays_param()
    # cli_default None: left out of a generated file's header unless given.
    ping_pong: bool = param(False, help="two sets of banks: one computes while the other "
                            "unloads the last transform and loads the next (true/false, default "
                            "false; twice the banks)", cli_default=None, kw_only=True)
    root: str | None = root_param()
    psi: int | None = psi_param()
    omega: int | None = omega_param()
    reducer: str = field(default="auto", kw_only=True)
    moduli: tuple | None = field(default=None, kw_only=True)
    modulus_resolved: Modulus = field(init=False, repr=False, compare=False)
    roots: NTTParams = field(init=False, repr=False, compare=False)
    moduli_roots: tuple = field(init=False, repr=False, compare=False)
    lanes_resolved: int = field(init=False, repr=False, compare=False)
    butterfly: ButterflyPlan = field(init=False, repr=False, compare=False)
    butterfly_latency: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        n, butterflies = self.n, self.butterflies
        require_power_of_two("n", n)
        if not MIN_N <= n <= MAX_N:
            raise ValueError(f"n must be between {MIN_N} and {MAX_N}, not {n!r}")
        require_power_of_two("butterflies", butterflies)
        if butterflies > n // 2:
            raise ValueError(f"butterflies must be at most n/2 = {n // 2}, not {butterflies!r}")
        lanes = 2 * butterflies if self.lanes is None else self.lanes
        require_power_of_two("lanes", lanes)
        if lanes > 2 * butterflies:
            raise ValueError(f"lanes must be at most 2·butterflies = {2 * butterflies} (one "
                             f"coefficient per bank per cycle), not {lanes!r}")
        mod = get_modulus(self.modulus)
        if self.wide_banks and (n // (2 * butterflies) > PDPW16KD_DEPTH
                                or mod.bits > PDPW16KD_WIDTH):
            raise ValueError(f"wide_banks needs banks of at most {PDPW16KD_DEPTH} words "
                             f"(n/(2·butterflies) = {n // (2 * butterflies)}) of at most "
                             f"{PDPW16KD_WIDTH} bits ({mod.bits})")
        try:
            roots = ntt_params(mod, n, negacyclic=self.negacyclic)
        except ValueError as e:
            order = 2 * n if self.negacyclic else n
            kind = " (negacyclic)" if self.negacyclic else ""
            raise ValueError(f"modulus must have a primitive {order}-th root of unity for n = "
                             f"{n}{kind}, not {mod}: {e}") from None
        if (self.root, self.psi, self.omega) != (None, None, None):
            roots = ntt_params(mod, n, negacyclic=self.negacyclic, root=self.root,
                               psi=self.psi, omega=self.omega)
        if not self.scaled and not self.inverse:
            raise ValueError("scaled=False applies to the inverse only, not with inverse=False")
        if self.shared_twiddles and not self.negacyclic:
            raise ValueError("shared_twiddles needs a negacyclic transform")
        if self.shared_twiddles and self.inverse and self.scaled:
            raise ValueError("shared_twiddles needs scaled=False for the inverse (the forward "
                             "table has no n^-1 to fold into the last stage)")
        if self.ram_delays and self.inverse and self.scaled:
            raise ValueError("ram_delays needs butterflies without the up-multiplier: not "
                             "with inverse=True and scaled=True")
        moduli_roots = (roots,) if self.moduli is None else self._moduli_roots(mod)
        butterfly = ButterflyPlan(mod, scale_up=self.inverse and self.scaled,
                                  form="gs" if self.inverse and self.negacyclic else "ct",
                                  negated=self.shared_twiddles and self.inverse,
                                  reducer=self.reducer, mult_stages=self.mult_stages,
                                  tiled=self.tiled, karatsuba=self.karatsuba,
                                  tile_reg=self.tile_reg, fabric_rounds=self.fabric_rounds,
                                  ram_delays=self.ram_delays,
                                  **({} if self.moduli is None else {"moduli": self.moduli}))
        self._set(modulus_resolved=mod, roots=roots, moduli_roots=moduli_roots,
                  lanes_resolved=lanes, butterfly=butterfly,
                  butterfly_latency=butterfly.latency)
        if self.ping_pong and 2 * (n // lanes) > self.compute_cycles():
            raise ValueError(f"ping_pong needs the compute phase ({self.compute_cycles()} "
                             f"cycles) at least as long as a load and an unload (2·n/lanes = "
                             f"{2 * (n // lanes)}): more lanes")

    def _moduli_roots(self, mod):
        """``moduli`` checked against the engine options they do not take, and each one's roots
        (the butterflies' plan refuses the multiplier options they do not take)."""
        if isinstance(self.moduli, (int, str)) or not hasattr(self.moduli, "__iter__") \
                or not self.moduli:
            raise TypeError(f"moduli must be a non-empty sequence of primes, not "
                            f"{self.moduli!r}")
        moduli = tuple(require_int("moduli", q, minimum=3) for q in self.moduli)
        if moduli[0] != mod.value:
            raise ValueError(f"moduli must start with modulus {mod.value}, not {moduli!r}")
        if not self.negacyclic:
            raise ValueError("moduli needs a negacyclic transform")
        for name in ("ping_pong", "shared_twiddles"):
            if getattr(self, name):
                raise ValueError(f"moduli does not apply with {name}")
        if (self.psi, self.omega) != (None, None):
            raise ValueError("moduli takes the root convention (root), not psi or omega")
        roots = []
        for q in moduli:
            try:
                roots.append(ntt_params(q, self.n, negacyclic=True, root=self.root))
            except (ValueError, TypeError) as e:
                raise ValueError(f"moduli: {q} has no primitive {2 * self.n}-th root of "
                                 f"unity: {e}") from None
        return tuple(roots)

    @property
    def input_beats(self):
        """Beats of one transform on ``i`` (and on ``o``): n / lanes."""
        return self.n // self.lanes_resolved

    output_beats = input_beats

    def cycles(self):
        """Exact cycles of one transform, first input to last output
        (:func:`~fhe_hw.ntt.schedule.cycles`; one more with ``ping_pong``)."""
        return cycles(self.n, self.butterflies, lanes=self.lanes_resolved,
                      butterfly_latency=self.butterfly_latency, read_stages=self.read_stages,
                      write_stages=self.write_stages, ping_pong=self.ping_pong)

    def period(self):
        """Cycles from one transform's first input to the next one's, back to back
        (:func:`~fhe_hw.ntt.schedule.period`; with ``ping_pong``, :meth:`compute_cycles`)."""
        return period(self.n, self.butterflies, lanes=self.lanes_resolved,
                      butterfly_latency=self.butterfly_latency, read_stages=self.read_stages,
                      write_stages=self.write_stages, ping_pong=self.ping_pong)

    def compute_cycles(self):
        """Cycles of one transform's compute phase (:func:`~fhe_hw.ntt.schedule.compute_cycles`):
        its stages and their drains."""
        return compute_cycles(self.n, self.butterflies, butterfly_latency=self.butterfly_latency,
                              read_stages=self.read_stages, write_stages=self.write_stages)

    def describe(self):
        """The root of unity of the transform."""
        return root_description(self.roots)


# --- Amaranth helpers -------------------------------------------------------------------------

def _xorfold(value, width, b):
    """bank_of() of an Amaranth value of ``width`` bits."""
    out = Const(0, b)
    for lo in range(0, width, b):
        out = out ^ value[lo:min(lo + b, width)]
    return out


def _fold(c, w, log_n, b):
    """The fold of compute counter ``c`` in a stage whose window starts at bit ``w``: the
    bank bits of c's word index with zeros in the window."""
    return _xorfold(Cat(c[:w], Const(0, b), c[w:]), log_n, b)


def _window_index(c, w, cf, x, b):
    """The word index at compute counter ``c`` in a stage whose window starts at bit ``w``
    (fold ``cf``, :func:`_fold`) of the word in bank ``x``: c's bits around the window, x XOR
    the fold rotated into it."""
    return Cat(c[:w], (x ^ cf).rotate_right(w % b), c[w:])


def output_fifo(m, o, width, latency, want, registered_valid=False):
    """The unload end of an engine: a FIFO driving stream ``o`` and issue credits. Returns
    (``go``: a read may be issued this cycle, given ``want``; the FIFO, whose ``w_en``/``w_data``
    the caller drives ``latency`` cycles after ``go``). Depth latency + 2 sustains one beat per
    cycle when ``o`` is always ready; the credits (beats issued and not yet sent) never exceed
    the depth, so no beat is lost under back-pressure. With ``registered_valid``, ``o.valid``
    is a register that holds whether the FIFO is not empty, computed from its next level,
    rather than a comparison of its level: the same value in every cycle, with no logic
    between the register and ``o.valid``."""
    depth = latency + 2
    m.submodules.out_fifo = fifo = SyncFIFO(width=width, depth=depth)
    credit = Signal(range(depth + 1))
    go, sent = Signal(), Signal()
    m.d.comb += [go.eq(want & (credit < depth)), sent.eq(o.valid & o.ready),
                 o.payload.eq(fifo.r_data), fifo.r_en.eq(o.ready)]
    if registered_valid:
        not_empty = Signal()
        m.d.sync += not_empty.eq(fifo.level + (fifo.w_en & fifo.w_rdy) - sent != 0)
        m.d.comb += o.valid.eq(not_empty)
    else:
        m.d.comb += o.valid.eq(fifo.r_rdy)
    m.d.sync += credit.eq(credit + go - sent)
    return go, fifo


def _read_split(read_stages):
    """(the read address register: 0 or 1, the data registers after the banks: 0 to 3) of
    ``read_stages``; the address register is the first to be added."""
    return min(read_stages, 1), max(read_stages - 1, 0)


def _domain(registered):
    return "sync" if registered else "comb"


def _xor_swap(words, x):
    """out[k] = words[k ^ x] for a b-bit signal x: b levels of pair swaps, level j exchanging
    the words whose indices differ in bit j when x[j] is set."""
    for j in range(len(x)):
        words = [Mux(x[j], words[k ^ (1 << j)], words[k]) for k in range(len(words))]
    return words


def _permute(words, u_hot, index):
    """out[p] = words[index(p, v)] for the stage's u = v, given as ``u_hot`` with bit v set (a
    register: no decoder between it and the multiplexers it fans out to); positions whose
    source does not depend on u are plain wires."""
    b = len(words).bit_length() - 1
    out = []
    for p in range(len(words)):
        choice = words[index(p, 0)]
        for v in range(1, b):
            if index(p, v) != index(p, 0):
                choice = Mux(u_hot[v], words[index(p, v)], choice)
        out.append(choice)
    return out


class _Control(Component):
    """The control of :class:`StreamingNTT`: the phase (load n/lanes beats, log2 n compute
    stages of C = n/(2P) issue cycles and ``gap`` drain cycles each, unload n/lanes beats), the
    load/unload beat, the compute stage and counter.

    ``state``, ``beat`` and the phase flags are registers whose next values (``state_next``,
    ``beat_next``) the state machine computes, so that the write-back network's swap can be a
    register too (:meth:`StreamingNTT._write_pipeline`): it fans out to B·m multiplexers per
    level. ``stage`` is log2(n) - 1 outside the compute phase (from reset, and the last stage
    does not advance it), so that its successor is the first stage; ``cc1`` always holds
    ``cc`` + 1.

    Parameters: n, P (butterflies), lanes, log_n, gap. Attributes: ``C``, ``CL`` (n/lanes
    beats), ``log_c`` (log2 C). Ports in: ``load_go``, ``unload_go`` (a load or unload beat
    this cycle), ``last_beat`` (the beat is the transform's last). Ports out: ``state``
    (:data:`_LOAD`, :data:`_COMPUTE` or :data:`_UNLOAD`), ``state_next``, ``loading``,
    ``unloading`` (the phase flags), ``beat``, ``stage``, ``cc``, ``cc1``, ``stage_ends`` (the
    stage's last cycle, drain included), ``issue`` (a compute cycle that issues
    butterflies).
    """

    def __init__(self, n, P, lanes, log_n, *, gap):
        self.C, self.CL, self.log_c = n // (2 * P), n // lanes, log_n - P.bit_length()
        self._log_n, self._gap = log_n, gap
        span = self.C + gap
        super().__init__({"load_go": In(1), "unload_go": In(1), "last_beat": In(1),
                          "state": Out(2, init=_LOAD), "state_next": Out(2),
                          "loading": Out(1, init=1), "unloading": Out(1),
                          "beat": Out(range(self.CL)),
                          "stage": Out(range(log_n), init=log_n - 1), "cc": Out(range(span)),
                          "cc1": Out(range(1, span + 1), init=1), "stage_ends": Out(1),
                          "issue": Out(1)})

    def elaborate(self, platform):
        m = Module()
        state, state_next, beat = self.state, self.state_next, self.beat
        stage, cc, cc1 = self.stage, self.cc, self.cc1
        beat_next = Signal(range(self.CL))
        m.d.comb += [state_next.eq(state), beat_next.eq(beat),
                     self.stage_ends.eq(cc == self.C + self._gap - 1),
                     self.issue.eq((state == _COMPUTE) & (cc < self.C))]
        m.d.sync += [state.eq(state_next), beat.eq(beat_next),
                     self.loading.eq(state_next == _LOAD),
                     self.unloading.eq(state_next == _UNLOAD)]
        with m.Switch(state):
            with m.Case(_LOAD):
                with m.If(self.load_go):
                    m.d.comb += beat_next.eq(beat + 1)
                    with m.If(self.last_beat):
                        m.d.comb += [beat_next.eq(0), state_next.eq(_COMPUTE)]
                        m.d.sync += [stage.eq(0), cc.eq(0), cc1.eq(1)]
            with m.Case(_COMPUTE):
                m.d.sync += [cc.eq(cc1), cc1.eq(cc1 + 1)]
                with m.If(self.stage_ends):
                    m.d.sync += [cc.eq(0), cc1.eq(1)]
                    with m.If(stage == self._log_n - 1):
                        m.d.comb += state_next.eq(_UNLOAD)
                    with m.Else():
                        m.d.sync += stage.eq(stage + 1)
            with m.Case(_UNLOAD):
                with m.If(self.unload_go):
                    m.d.comb += beat_next.eq(beat + 1)
                    with m.If(self.last_beat):
                        m.d.comb += [beat_next.eq(0), state_next.eq(_LOAD)]
        return m


class _PingPongControl(Component):
    """The control of :class:`StreamingNTT` with ``ping_pong``: two sets of banks, one with the
    compute side (``cset``), the other with the input and output side; they change places
    (``swap``) when the compute side is idle and the other side is between transfers.

    The compute side runs log2 n stages of C = n/(2P) issue cycles and ``gap`` drain cycles
    each (``computing``; ``stage``, ``cc``, ``cc1`` as in :class:`_Control`) and then holds
    the result (``full``). The other side unloads a result (``unloading``) then loads the next
    transform (``loading``) and holds it (``loaded``, a cycle after its last beat). They swap
    at the end of a cycle in which the compute side finishes or is idle and the other side's
    set is loaded, or holds no beat of a load while a result waits (the input is then not
    ready, ``load_ready``): a loaded set starts computing, a result starts unloading. So back to
    back each swap comes as the last stage ends, with the next transform loaded: one transform
    per compute phase, when it is at least as long as a load and an unload; the first
    transform starts computing a cycle after its load.

    Parameters: n, P (butterflies), lanes, log_n, gap. Attributes: ``C``, ``CL`` (n/lanes
    beats), ``log_c``. Ports in: ``load_go``, ``unload_go``. Ports out: ``load_ready`` (the
    input may give a beat), ``cset`` (the compute side's set), ``computing``, ``loading``,
    ``unloading``, ``beat``, ``stage``, ``cc``, ``cc1``, ``stage_ends``, ``issue``.
    """

    def __init__(self, n, P, lanes, log_n, *, gap):
        self.C, self.CL, self.log_c = n // (2 * P), n // lanes, log_n - P.bit_length()
        self._log_n, self._gap = log_n, gap
        span = self.C + gap
        super().__init__({"load_go": In(1), "unload_go": In(1), "load_ready": Out(1),
                          "cset": Out(1), "computing": Out(1), "loading": Out(1, init=1),
                          "unloading": Out(1), "beat": Out(range(self.CL)),
                          "stage": Out(range(log_n), init=log_n - 1), "cc": Out(range(span)),
                          "cc1": Out(range(1, span + 1), init=1), "stage_ends": Out(1),
                          "issue": Out(1)})

    def elaborate(self, platform):
        m = Module()
        stage, cc, cc1, beat = self.stage, self.cc, self.cc1, self.beat
        full, loaded = Signal(), Signal()
        # Registers that hold the comparisons the swap needs (beat == CL - 1, beat == 0,
        # stage == log2 n - 1; stage_ends is one too), and no handshake in its cone: with them
        # computed in the swap's cycle, and the input's valid in it, its cone was seven LUTs
        # deep after a wire from the input's slice, the engine's critical path on the
        # ECP5-85F. So a set whose load has just ended swaps a cycle later, and the input
        # waits while a result does and no beat of a load has come.
        last_beat, first_beat = Signal(init=self.CL == 1), Signal(init=1)
        last_stage = Signal(init=1)
        done = self.computing & self.stage_ends & last_stage
        hold = first_beat & (full | done)
        swap = Signal()
        m.d.comb += [self.issue.eq(self.computing & (cc < self.C)),
                     self.load_ready.eq(self.loading & ~hold),
                     swap.eq((~self.computing | done) & (loaded | (self.loading & hold))
                             & (full | done | loaded))]
        with m.If(self.computing):
            m.d.sync += [cc.eq(cc1), cc1.eq(cc1 + 1),
                         self.stage_ends.eq(cc1 == self.C + self._gap - 1)]
            with m.If(self.stage_ends):
                m.d.sync += [cc.eq(0), cc1.eq(1), self.stage_ends.eq(0)]
                with m.If(last_stage):
                    m.d.sync += self.computing.eq(0)
                with m.Else():
                    m.d.sync += [stage.eq(stage + 1), last_stage.eq(stage == self._log_n - 2)]
        with m.If(self.load_go | self.unload_go):
            m.d.sync += [beat.eq(Mux(last_beat, 0, beat + 1)), first_beat.eq(last_beat),
                         last_beat.eq(beat == (self.CL - 2) % self.CL)]
        with m.If(swap):
            m.d.sync += [self.cset.eq(~self.cset), self.computing.eq(loaded), full.eq(0),
                         loaded.eq(0), self.unloading.eq(full | done),
                         self.loading.eq(~(full | done))]
            with m.If(loaded):
                m.d.sync += [stage.eq(0), last_stage.eq(0)]
        with m.Else():
            m.d.sync += full.eq(full | done)
            with m.If(self.load_go & last_beat):
                m.d.sync += [self.loading.eq(0), loaded.eq(1)]
            with m.If(self.unload_go & last_beat):
                m.d.sync += [self.unloading.eq(0), self.loading.eq(1)]
        return m


class StreamingNTT(FixedRun, Component):
    """Memory-based in-place radix-2 NTT with P butterflies per cycle ([Cao14] §3.2, [Wang13] §IV).
    The four-step engine for solinas64 is :class:`~fhe_hw.ntt.FourStepNTT`.

    The cycles of a transform are :meth:`cycles` (:func:`~fhe_hw.ntt.schedule.cycles`; the
    plan's, without building the engine). Storage: 2P banks of n/(2P) words (:attr:`banks`), one
    twiddle ROM of n words with P read ports; on an ECP5 all of them DP16KDs with their own output
    register (:mod:`fhe_hw.lib.bram`), at most 16384 words each: ``ValueError`` when
    elaborated for one with n above that (n = 32768 and 65536, which would not fit the
    LFE5U-85F's block RAM anyway: the twiddle ROM and the banks alone are 4n·64 bits).

    Parameters
    ----------
    plan : StreamingNTTPlan
        Or the arguments of one (``StreamingNTT(1024, "solinas64", butterflies=4)``).

    Attributes
    ----------
    tw_addr, tw_data : data.ArrayLayout(unsigned(log2 n), P), data.ArrayLayout(unsigned(m), P)
        With ``shared_twiddles`` only: butterfly q's twiddle address (out) and, the ROM's
        latency later, its word (in), from :func:`shared_twiddle_rom`.
    i, o : stream.Signature(data.ArrayLayout(unsigned(m), lanes))
        m = modulus bits, n/lanes beats per transform, coefficients in index order (lane 0
        first). Forward: natural order in, bit-reversed spectrum out; inverse: the reverse,
        scaled by n^-1 unless ``scaled`` is False (exactly :func:`fhe_hw.model.ntt.ntt_radix2`
        with :attr:`params`, from :func:`fhe_hw.params.ntt_params`; n times it unscaled).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = StreamingNTTPlan.coerce(*args, **kw)
        mod, lanes, n, butterflies = plan.modulus_resolved, plan.lanes_resolved, plan.n, \
            plan.butterflies
        self._read_stages, self._write_stages = plan.read_stages, plan.write_stages
        self._negacyclic, self._inverse, self._params = plan.negacyclic, plan.inverse, plan.roots
        self._mod, self._n, self._p, self._lanes = mod, n, butterflies, lanes
        self._bfs = [Butterfly(plan.butterfly) for _ in range(butterflies)]
        # The banks; the output register (read_stages >= 2) is the RAM's own.
        self._banks = [RegisteredRAM(mod.bits, n // (2 * butterflies),
                                     output_reg=_read_split(plan.read_stages)[1] >= 1,
                                     wide=plan.wide_banks)
                       for _ in range(2 * butterflies * (1 + plan.ping_pong))]
        layout = data.ArrayLayout(unsigned(mod.bits), lanes)
        ports = {"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))}
        if plan.shared_twiddles:
            ports.update(tw_addr=Out(data.ArrayLayout(unsigned(plan.roots.log_k), butterflies)),
                         tw_data=In(data.ArrayLayout(unsigned(mod.bits), butterflies)))
        super().__init__(ports)

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
    def read_stages(self):
        """Registers on the read path (0 to 4): the read addresses, the bank outputs, the read
        network's middle, a fabric register after each bank."""
        return self._read_stages

    @property
    def write_stages(self):
        """Registers on the write-back path (0 or 1): the permuted butterfly results."""
        return self._write_stages

    @property
    def butterfly_latency(self):
        """Latency of the butterflies."""
        return self._bfs[0].latency

    def cycles(self):
        """Exact cycles of one transform, first input to last output (the plan's
        :meth:`~StreamingNTTPlan.cycles`)."""
        return self.plan.cycles()

    @property
    def banks(self):
        """The 2P banks, :class:`~fhe_hw.lib.bram.RegisteredRAM`\\ s of n/(2P) words (their
        ports are driven when the engine is elaborated)."""
        return self._banks

    def twiddle_rom(self, params=None):
        """The twiddle ROM (before ``premultiply``) of the roots ``params`` (default
        :attr:`params`; with ``moduli``, one of the plan's ``moduli_roots``): entry
        :func:`~fhe_hw.ntt.schedule.twiddle_index` holds ω_down of the butterflies of that
        stage and block, taken from :func:`~fhe_hw.model.ntt.stage_twiddles`; the negacyclic
        inverse's is :func:`~fhe_hw.model.ntt.gs_table`, which its stages index the same way
        (``gs``)."""
        params = self._params if params is None else params
        n, log_n, inv, neg = self._n, params.log_k, self._inverse, self._negacyclic
        if inv and neg:
            return gs_table(params, self.plan.scaled)
        rom = [0] * n
        for s in range(log_n):
            for (up, _), (_, w_down) in zip(stage_pairs(s, n, inv),
                                            stage_twiddles(s, params, inv, neg,
                                                           self.plan.scaled)):
                idx = twiddle_index(s, up, log_n, inv)
                if rom[idx] not in (0, w_down):
                    raise RuntimeError(f"twiddle_index({s}, {up}) = {idx} holds two twiddles, "
                                       f"{rom[idx]} and {w_down}")
                rom[idx] = w_down
        return rom

    # --- elaborate and its parts -----------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        banks, tw_ports = self._memories(m)
        if self.plan.ping_pong:
            self._ping_pong(m, banks, tw_ports)
            return m
        m.submodules.control = ctl = _Control(self._n, self._p, self._lanes,
                                              self._params.log_k, gap=self._drain)
        slot = None if self.plan.moduli is None else \
            Signal(range(len(self.plan.moduli)), name="slot")
        xsw, usel, last = self._issue(m, ctl.stage, ctl.cc[:ctl.log_c], tw_ports, slot)
        rd_addr = self._read_address_registers(m, ctl, ctl.state != _COMPUTE)
        fold, beat_addr, load_go, unload_go, fifo = self._beats(m, ctl, banks, rd_addr, xsw,
                                                                usel)
        crossbar, outs = self._butterflies(m, [bank.r_data for bank in banks], tw_ports,
                                           ctl.issue, last, xsw, usel, slot)
        last_beat, load_next, fold_next = self._next_beat(m, ctl, load_go, unload_go, fold)
        if slot is not None:
            # The next transform's modulus, once this one's last beat has been read: no
            # butterfly is in flight then, and the next compute phase is a load away.
            with m.If(ctl.unloading & unload_go & last_beat):
                m.d.sync += slot.eq(Mux(slot == len(self.plan.moduli) - 1, 0, slot + 1))
        wen, waddr, wsw, wu = self._write_pipeline(m, ctl.issue, rd_addr, xsw, usel,
                                                   load_next, fold_next)
        self._bank_writes(m, banks, outs, wen, waddr, wsw, wu,
                          ctl.loading, load_go, fold, beat_addr)
        self._unload(m, unload_go, crossbar, fifo)
        m.d.comb += [ctl.load_go.eq(load_go), ctl.unload_go.eq(unload_go),
                     ctl.last_beat.eq(last_beat)]
        return m

    def _ping_pong(self, m, banks, tw_ports):
        """``ping_pong``: the compute side (issue, read network, butterflies, write-back
        network) on set ``cset`` of the two sets of 2P banks, and the loads and unloads on the
        other set through networks of their own (:class:`_PingPongControl`): a beat of
        ``lanes`` consecutive indices goes to and comes from banks lane ^ fold, one level of
        pair swaps per bank bit. The compute side's read data and writes select their set with
        ``cset`` delayed as the read and the write-back are; the unload's words, in a register
        per bank after the banks, leave through the output FIFO 2 + ``read_stages`` cycles
        after their read, as without it."""
        log_n, P, lanes = self._params.log_k, self._p, self._lanes
        B, b, log_lanes = 2 * P, P.bit_length(), lanes.bit_length() - 1
        a, d = _read_split(self._read_stages)
        m.submodules.control = ctl = _PingPongControl(self._n, P, lanes, log_n, gap=self._drain)
        sets = [banks[:B], banks[B:]]
        xsw, usel, last = self._issue(m, ctl.stage, ctl.cc[:ctl.log_c], tw_ports)
        rd_addr = self._read_address_registers(m, ctl, ~ctl.computing)
        load_go = Signal()
        m.d.comb += [self.i.ready.eq(ctl.load_ready), load_go.eq(self.i.valid & ctl.load_ready)]
        unload_go, fifo = output_fifo(m, self.o, self._mod.bits * lanes, 2 + self._read_stages,
                                      ctl.unloading, self.plan.registered_valid)
        # The beat's fold in a register, the next beat's taken as the beat advances: the
        # swaps of the load and the banks' write enables then start at a flip-flop (the fold
        # computed from the beat beside the control, then its wire across the die to the
        # banks' write registers, was the routed critical path).
        beat_addr = self._beat_bank(ctl.beat)[1]
        fold = Signal(b, name="beat_fold")
        with m.If(load_go | unload_go):
            m.d.sync += fold.eq(self._beat_bank((ctl.beat + 1)[:len(ctl.beat)])[0])
        for s, bank_set in enumerate(sets):
            mine = ctl.cset == s
            for k, bank in enumerate(bank_set):
                m.d[_domain(a)] += [bank.r_addr.eq(Mux(mine, rd_addr[k], beat_addr)),
                                    bank.r_en.eq(Mux(mine, ctl.issue, unload_go))]
        # the set whose words a read brings: cset when the read was issued
        rset = register_delay(m, ctl.cset, a + 1 + min(d, 1), "rset")
        words = [Mux(rset, w1.r_data, w0.r_data) for w0, w1 in zip(*sets)]
        crossbar, outs = self._butterflies(m, words, tw_ports, ctl.issue, last, xsw, usel)
        wen, waddr, wsw, wu = self._write_pipeline(m, ctl.issue, rd_addr, xsw, usel, None, None)
        wdata = _xor_swap(self._permuted(m, outs, wu), wsw)
        wset = register_delay(m, ctl.cset, self._write_depth, "wset")   # as wen
        lanes_in = [self.i.payload[j] if j < lanes else Const(0, self._mod.bits)
                    for j in range(B)]
        load_data = _xor_swap(lanes_in, fold)
        for s, bank_set in enumerate(sets):
            for k, bank in enumerate(bank_set):
                lane = Const(k, b) ^ fold                   # the input lane for this bank
                computed = Signal(name=f"computed{s}_{k}")
                m.d.comb += computed.eq(wen & (wset == s))
                m.d.comb += [bank.w_en.eq(computed | (load_go & (ctl.cset != s)
                                                      & (lane[log_lanes:] == 0))),
                             bank.w_addr.eq(Mux(computed, waddr[k], beat_addr)),
                             bank.w_data.eq(Mux(computed, wdata[k], load_data[k]))]
        # the unload: the other set's words in a register per bank (beside the banks: the
        # output FIFO may sit across the die), then lane j from bank j ^ fold, registered
        unload_words = register_delay(m, [Mux(rset, w0.r_data, w1.r_data)
                                          for w0, w1 in zip(*sets)], 1, "unload_word")
        fold_r = register_delay(m, fold, a + 2 + min(d, 1), "unload_fold")
        out = register_delay(m, _xor_swap(unload_words, fold_r)[:lanes], d - min(d, 1),
                             "unload_lane")
        m.d.comb += [fifo.w_en.eq(register_delay(m, unload_go, 2 + self._read_stages,
                                                 "unload")),
                     fifo.w_data.eq(Cat(*out))]
        m.d.comb += [ctl.load_go.eq(load_go), ctl.unload_go.eq(unload_go)]

    @property
    def _drain(self):
        """The idle cycles after each stage's issue (the ``gap`` of the controls): the
        butterflies, the read path after the banks and the write-back register."""
        return self.butterfly_latency + 2 + _read_split(self._read_stages)[1] + \
            self._write_stages

    @property
    def _write_depth(self):
        """Cycles from a butterfly's issue to its write-back reaching the banks' write ports
        (:meth:`_write_pipeline`)."""
        return 2 + self._read_stages + self.butterfly_latency + self._write_stages

    def _beat_bank(self, beat):
        """(the fold, the bank address) of ``beat``, a beat of ``lanes`` consecutive indices:
        lane j is in bank j ^ fold at that address."""
        b, log_lanes = self._p.bit_length(), self._lanes.bit_length() - 1
        beat_idx = Cat(Const(0, log_lanes), beat)          # index of lane 0
        return _xorfold(beat_idx, self._params.log_k, b), beat_idx[b:]

    def _read_address_registers(self, m, ctl, idle):
        """The bank read addresses, registers beside the control, computed a cycle ahead:
        within a stage from cc1, and the first cycle of the next stage (of stage 0 outside the
        compute phase, ``idle``) as constants per stage. Computed from cc in the same cycle, the
        address decoding and the wire to the banks' address registers by the block RAMs were one
        path (P = 4's critical path, 8.33 ns); computed from cc's next value, its increment and
        the decoding were (P = 1, 7.50 ns)."""
        within = self._read_addresses(m, ctl.stage, ctl.cc1[:ctl.log_c], "within")
        first = self._read_addresses(m, ctl.stage, Const(0, ctl.log_c), "first", ahead=1)
        rd_addr = [Signal(range(ctl.C), name=f"rd_addr{k}") for k in range(2 * self._p)]
        m.d.sync += [r.eq(Mux(idle | ctl.stage_ends, f, w))
                     for r, f, w in zip(rd_addr, first, within)]
        return rd_addr

    def _beats(self, m, ctl, banks, rd_addr, xsw, usel):
        """Load and unload addressing (a beat is ``lanes`` consecutive indices), the input
        handshake, the unload's output FIFO and credits, and the banks' read ports (compute
        reads or unload beats). Returns (the beat's fold, its bank address, load_go,
        unload_go, the FIFO)."""
        fold, beat_addr = self._beat_bank(ctl.beat)
        with m.If(ctl.unloading):
            # Unloading reuses the read crossbar: position j holds lane j, from bank j ^ fold.
            m.d.comb += [xsw.eq(fold), usel.eq(1)]
        load_go = Signal()
        m.d.comb += [self.i.ready.eq(ctl.loading), load_go.eq(self.i.valid & self.i.ready)]

        # Unload credits: beats issued and not yet taken from the output FIFO.
        unload_go, fifo = output_fifo(m, self.o, self._mod.bits * self._lanes,
                                      2 + self._read_stages, ctl.unloading,
                                      self.plan.registered_valid)

        a = _read_split(self._read_stages)[0]
        for k, bank in enumerate(banks):
            # Only the reads whose words are used: the block RAM leaves a read of the address
            # written in the same cycle undefined, and the others may meet a load's writes.
            m.d[_domain(a)] += [bank.r_addr.eq(Mux(ctl.unloading, beat_addr, rd_addr[k])),
                                bank.r_en.eq(ctl.issue | unload_go)]
        return fold, beat_addr, load_go, unload_go, fifo

    def _next_beat(self, m, ctl, load_go, unload_go, fold):
        """What the write swap register needs of the next cycle: whether this beat is the last
        (``last_beat``), whether the next cycle loads (``load_next``) and the next beat's fold
        (``fold_next``). Returns them in that order."""
        n, lanes, CL = self._n, self._lanes, ctl.CL
        b = self._p.bit_length()
        beat = ctl.beat
        # The next beat's fold (fold_next) and whether this beat is the last come from
        # registers beside beat (the fold of beat + 1, beat == CL - 1) and the handshakes, a few
        # LUTs: they end at the write swap register, which sits beside the write network it
        # fans out to, far from this control (beat -> beat + 1 -> its fold -> that register,
        # with its wire, was P = 4's critical path, 9.36 ns).
        last_beat = Signal(init=CL == 1)
        fold_after = Signal(b, init=bank_of(lanes % n, b))
        go = load_go | unload_go              # beat_next = beat + go (mod CL)
        m.d.sync += [last_beat.eq(Mux(go, beat == (CL - 2) % CL, beat == CL - 1)),
                     fold_after.eq(Mux(go, *(self._beat_bank(beat + k)[0] for k in (2, 1))))]
        # The handshake here comes from a copy of the loading flag, inverted so that Yosys
        # does not merge it back: the flag itself sits among the input lanes' multiplexers it
        # fans out to, and its wire to the input handshake then the one to the write swap
        # register were P = 4's critical path (8.51 ns, 5.73 ns of it wire).
        not_loading = Signal(name="not_loading", attrs=KEEP)
        m.d.sync += not_loading.eq(ctl.state_next != _LOAD)
        load_go_w = self.i.valid & ~not_loading
        fold_next = Mux(load_go_w | unload_go, fold_after, fold)
        # state_next == LOAD from the phase flags alone: the compute counter, which decides
        # COMPUTE -> UNLOAD, cannot make the next cycle a load, and with it in the cone this
        # was the critical path (cc -> state_next -> the write swap register, 11.0 ns).
        load_next = Signal()
        m.d.comb += load_next.eq(Mux(~not_loading, ~(load_go_w & last_beat),
                                     ctl.unloading & unload_go & last_beat))
        return last_beat, load_next, fold_next

    def _memories(self, m):
        """Storage: the 2P banks (:class:`~fhe_hw.lib.bram.RegisteredRAM`) and the twiddle
        ROM's P read ports (:class:`~fhe_hw.lib.bram.RegisteredROM`, one per butterfly; its
        output register, ``read_stages`` >= 2, is the block RAM's own on the ECP5)."""
        for k, bank in enumerate(self._banks):
            m.submodules[f"bank{k}"] = bank
        if self.plan.shared_twiddles:
            return self._banks, [_TwiddlePort(self.tw_addr[q], self.tw_data[q])
                                 for q in range(self._p)]
        rom = RegisteredROM(self._mod.bits, self.twiddle_words(), read_ports=self._p,
                            output_reg=self.twiddle_output_reg)
        m.submodules.twiddles = rom
        return self._banks, rom.ports

    def twiddle_words(self):
        """The words of the engine's twiddle ROM: :meth:`twiddle_rom` as the butterflies take
        them (``premultiply``); with ``moduli``, each one's table in turn (n words each)."""
        if self.plan.moduli is None:
            return [self._bfs[0].premultiply(w) for w in self.twiddle_rom()]
        return [self._bfs[0].premultiply(w, r.p) for r in self.plan.moduli_roots
                for w in self.twiddle_rom(r)]

    @property
    def twiddle_output_reg(self):
        """Whether the twiddle ROM registers its words once more (``read_stages`` >= 2)."""
        return _read_split(self._read_stages)[1] >= 1

    def _read_addresses(self, m, stage, c, name, ahead=0):
        """The bank read addresses of compute cycle c of stage ``stage`` + ``ahead`` (mod
        log2 n; constants per stage): bank k reads the word whose index has c's bits around
        the stage's window, bank bits k XOR the fold of c, rotated into the window."""
        P, log_n, inverse = self._p, self._params.log_k, self._inverse
        b, B, C = P.bit_length(), 2 * P, self._n // (2 * P)
        rd_addr = [Signal(range(C), name=f"rd_addr{k}_{name}") for k in range(B)]
        with m.Switch(stage):
            for s0 in range(log_n):
                with m.Case(s0):
                    _, w = stage_window((s0 + ahead) % log_n, log_n, b, inverse)
                    cf = _fold(c, w, log_n, b)
                    for k in range(B):
                        m.d.comb += rd_addr[k].eq(_window_index(c, w, cf, Const(k, b), b)[b:])
        return rd_addr

    def _issue(self, m, stage, c, tw_ports, slot=None):
        """Compute issue of cycle c of ``stage`` besides the bank addresses
        (:meth:`_read_addresses`): the twiddle ROM's addresses and the crossbars' controls.
        Returns (xsw, the swap of the crossbars' XOR networks: only bit u, set to the fold's
        bit u, as a butterfly's two banks differ in bank bit u; usel, the crossbars'
        permutation u, one-hot; whether this is the last stage)."""
        P, log_n, inverse = self._p, self._params.log_k, self._inverse
        b = P.bit_length()
        tw_addr = [Signal(range(self._n), name=f"tw_addr{q}") for q in range(P)]
        xsw, usel = Signal(b), Signal(b)
        last = Signal()
        with m.Switch(stage):
            for s in range(log_n):
                with m.Case(s):
                    t, w = stage_window(s, log_n, b, inverse)
                    u = t % b
                    cf = _fold(c, w, log_n, b)
                    m.d.comb += [xsw.eq(cf[u] << u), usel.eq(1 << u), last.eq(s == log_n - 1)]
                    for q in range(P):
                        k_up = Const(crossbar_bank(2 * q, u), b) | xsw
                        up = _window_index(c, w, cf, k_up, b)
                        if self._negacyclic and inverse:    # twiddle_index(..., gs=True)
                            block = up[s + 1:]
                        else:
                            block = up[:s] if inverse else up[log_n - s:]
                        m.d.comb += tw_addr[q].eq(Cat(block, Const(1, 1)))
        if self.plan.shared_twiddles and inverse:
            # ψ^-brv(a) = -ψ^(n - brv(a)): the forward table's word brv(n - brv(a)).
            for q in range(P):
                mapped = Signal(log_n, name=f"tw_addr{q}_shared")
                m.d.comb += mapped.eq((self._n - tw_addr[q][::-1])[:log_n][::-1])
                tw_addr[q] = mapped
        if slot is not None:
            # with moduli: the slot's table, n words after the previous one's
            tw_addr = [Cat(t, slot) for t in tw_addr]
        a, d = _read_split(self._read_stages)
        for q in range(P):
            m.d.comb += tw_ports[q].r_addr.eq(register_delay(m, tw_addr[q], a + max(d - 1, 0),
                                                             f"tw_addr{q}"))
        return xsw, usel, last

    def _butterflies(self, m, words, tw_ports, issue, last, xsw, usel, slot=None):
        """Read stage: the bank outputs (``words``), the bank output registers (``read_stages``
        >= 2), the read network's pair swaps (after a fabric register with ``read_stages`` = 4),
        its middle register (``read_stages`` >= 3), its position
        permutation and the crossbar register (the butterflies' registered operands), which
        holds the words of a read issued at cycle c at c + 2 + ``read_stages``; the twiddle
        ROM's words arrive with them (its address delayed in :meth:`_issue`, its output
        register the ROM's own with ``read_stages`` >= 2). Returns (the crossbar register,
        position 2q + x; the butterfly outputs, in the same order)."""
        a, d = _read_split(self._read_stages)
        near = max(d - 2, 0)    # read_stages = 4: a fabric register right after each bank
        words = register_delay(m, words, near, "bank_q")  # after the RAMs' output registers
        words = _xor_swap(words, register_delay(m, xsw, a + 1 + min(d, 1) + near, "xsw"))
        words = register_delay(m, words, min(d, 2) - min(d, 1), "swapped")
        pos = _permute(words, register_delay(m, usel, a + 1 + d, "usel"), crossbar_bank)
        last_d = register_delay(m, last, a + 1 + d, "last")
        issue_x = register_delay(m, issue, a + 2 + d, "issue")
        outs = []
        bf0 = self._bfs[0]
        if slot is None:
            w_one, w_last = bf0.premultiply(1), bf0.premultiply(self._params.k_inv)
        else:
            # with moduli: the slot's prime and its constants (the slot is steady while the
            # butterflies work)
            def of_slot(word):
                return Array(Const(word(r), self._mod.bits) for r in self.plan.moduli_roots)[slot]
            modulus = of_slot(lambda r: r.p)
            w_one = of_slot(lambda r: bf0.premultiply(1, r.p))
            w_last = of_slot(lambda r: bf0.premultiply(r.k_inv, r.p))
        crossbar = []                      # the crossbar register, position 2q + x
        for q, bf in enumerate(self._bfs):
            m.submodules[f"bf{q}"] = bf
            x = bf.i.payload
            # The butterfly's operands are registered (the crossbar register).
            m.d.sync += [x.up.eq(pos[2 * q]), x.down.eq(pos[2 * q + 1]),
                         x.w_down.eq(tw_ports[q].r_data)]
            if slot is not None:
                m.d.sync += x.q.eq(modulus)
            m.d.comb += bf.i.valid.eq(issue_x)
            if bf.scale_up:
                m.d.sync += x.w_up.eq(Mux(last_d, w_last, w_one))
            crossbar += [x.up, x.down]
            outs += [bf.o.payload.up, bf.o.payload.down]
        return crossbar, outs

    def _write_pipeline(self, m, wen, waddr, wsw, wu, load_next, fold_next):
        """The write-back control: the issue, bank addresses and crossbar settings delayed to
        the butterfly outputs (issue -> read -> crossbar register -> butterfly). The last swap
        register is the write-back network's control: the fold of the next beat when the next
        cycle loads (``load_next``; None: loading does not use the network), else the compute
        swap. Returns the delayed
        (wen, waddr, wsw, wu); the permutation ``wu`` is the butterflies' (it comes before the
        ``write_stages`` register), the others are the banks'."""
        depth_w = self._write_depth
        depth_u = depth_w - self._write_stages
        B, C = 2 * self._p, self._n // (2 * self._p)
        for d in range(depth_w):
            wen_r, wsw_r = Signal(name=f"wen_d{d}"), Signal(len(wsw), name=f"wsw_d{d}")
            nxt_a = [Signal(range(C), name=f"waddr{k}_d{d}") for k in range(B)]
            if d == depth_w - 1 and load_next is not None:
                wsw = Mux(load_next, fold_next, wsw)
            m.d.sync += [wen_r.eq(wen), wsw_r.eq(wsw)]
            m.d.sync += [a.eq(a0) for a, a0 in zip(nxt_a, waddr)]
            wen, waddr, wsw = wen_r, nxt_a, wsw_r
            if d < depth_u:
                wu_r = Signal.like(wu, name=f"wu_d{d}")
                m.d.sync += wu_r.eq(wu)
                wu = wu_r
        return wen, waddr, wsw, wu

    def _bank_writes(self, m, banks, outs, wen, waddr, wsw, wu, loading, load_go, fold,
                     beat_addr):
        """The bank write ports through the write-back crossbar, for the butterfly results
        (``wen``) or the input beat being loaded. Loading shares the crossbar: input lane k'
        takes the place of what the bank-side permutation puts at k', and the swap is the
        beat's fold, so bank k gets lane k ^ fold."""
        lanes, b = self._lanes, self._p.bit_length()
        log_lanes = lanes.bit_length() - 1
        lanes_in = self.i.payload
        perm = self._permuted(m, outs, wu)
        perm = [Mux(loading, lanes_in[j], v) if j < lanes else v for j, v in enumerate(perm)]
        wdata = _xor_swap(perm, wsw)
        for k, bank in enumerate(banks):
            lane = Const(k, b) ^ fold                       # the input lane for this bank
            m.d.comb += bank.w_data.eq(wdata[k])
            with m.If(wen):
                m.d.comb += [bank.w_en.eq(1), bank.w_addr.eq(waddr[k])]
            with m.Else():
                m.d.comb += [bank.w_en.eq(load_go & (lane[log_lanes:] == 0)),
                             bank.w_addr.eq(beat_addr)]

    def _permuted(self, m, outs, wu):
        """The butterflies' results through the write-back permutation ``wu``, then the
        ``write_stages`` register."""
        perm = _permute(outs, wu, crossbar_position)
        if self._write_stages:
            # Written before it is read: it reaches a bank only under wen, 0 from reset.
            perm = register_delay(m, perm, 1, "permuted")
        return perm

    def _unload(self, m, unload_go, crossbar, fifo):
        """Unload: banks to lanes through the read crossbar (its register holds lane j at
        position j 2 + ``read_stages`` cycles after the read is issued), then the output
        FIFO."""
        lane_valid = register_delay(m, unload_go, 2 + self._read_stages, "unload")
        m.d.comb += [fifo.w_en.eq(lane_valid), fifo.w_data.eq(Cat(*crossbar[:self._lanes]))]


def shared_twiddle_rom(m, name, engines, *, wide=False):
    """One twiddle ROM for ``engines`` (:class:`StreamingNTT` with ``shared_twiddles``, of one
    n, prime, root, reducer and ``read_stages``; the first a forward one, whose table the ROM
    holds), added to ``m`` as ``name`` and connected to each engine's ``tw_addr`` and
    ``tw_data``: P read ports per engine, two per block-RAM copy
    (:class:`~fhe_hw.lib.bram.RegisteredROM`), so a forward and an inverse engine with one
    butterfly each share one copy.

    With ``wide``, the ROM holds P twiddles per word (n/P words of P·m bits, entry a in lane
    a mod P of word a // P) and each engine reads it through one port: the P twiddles an engine
    reads in one cycle always lie in one such word (forward, and the inverse's mapped addresses
    alike; the tests check every cycle of :func:`~fhe_hw.ntt.schedule.schedule`), so the word
    of butterfly 0's address serves all P, each taking its lane by its address's low bits,
    delayed as the ROM's read. A forward and an inverse engine with P butterflies each then
    share one copy (two ports), not P. ``ValueError`` when the engines differ or the first is
    an inverse, or with ``wide`` when the engines' P differ. Returns the ROM."""
    first = engines[0]
    if first.inverse or not all(e.plan.shared_twiddles for e in engines):
        raise ValueError("engines must have shared_twiddles, the first a forward engine")
    key = lambda e: (e.n, e.plan.roots, e.plan.reducer, e.plan.mult_stages,  # noqa: E731
                     e.plan.tiled, e.plan.karatsuba, e.plan.tile_reg, e.plan.fabric_rounds,
                     e.twiddle_output_reg)
    if any(key(e) != key(first) for e in engines):
        raise ValueError("engines sharing a twiddle ROM must have one n, prime, root, "
                         "multiplier and read_stages")
    bits, words = first.plan.modulus_resolved.bits, first.twiddle_words()
    if not wide:
        rom = RegisteredROM(bits, words, read_ports=sum(e.butterflies for e in engines),
                            output_reg=first.twiddle_output_reg)
        m.submodules[name] = rom
        ports = iter(rom.ports)
        for engine in engines:
            for q in range(engine.butterflies):
                port = next(ports)
                m.d.comb += [port.r_addr.eq(engine.tw_addr[q]),
                             engine.tw_data[q].eq(port.r_data)]
        return rom
    P = first.butterflies
    if any(e.butterflies != P for e in engines):
        raise ValueError("engines sharing a wide twiddle ROM must have one P")
    log_p = P.bit_length() - 1
    rom = RegisteredROM(bits * P, [sum(w << (r * bits) for r, w in enumerate(words[a:a + P]))
                                   for a in range(0, len(words), P)],
                        read_ports=len(engines), output_reg=first.twiddle_output_reg)
    m.submodules[name] = rom
    for e, (engine, port) in enumerate(zip(engines, rom.ports)):
        m.d.comb += port.r_addr.eq(engine.tw_addr[0][log_p:])
        for q in range(P):
            lane = register_delay(m, engine.tw_addr[q][:log_p], rom.latency,
                                  f"{name}_lane{e}_{q}")
            m.d.comb += engine.tw_data[q].eq(port.r_data.word_select(lane, bits))
    return rom
