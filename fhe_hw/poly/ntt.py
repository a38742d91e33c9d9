"""The NTT of a whole RNS polynomial (OpenFHE's ``DCRTPoly``): L towers, each mod its own prime,
through one :class:`~fhe_hw.ntt.StreamingNTT` engine per tower.

Layout and roots
----------------
The polynomial streams in tower-major order, as OpenFHE stores it: tower 0's n coefficients
(``lanes`` per beat, index order), then tower 1's, and so on; the transform streams out in the
same order. Tower j is transformed mod its prime q_j with the root OpenFHE picks for it (the
``"openfhe"`` convention), negacyclic: forward, natural order in and bit-reversed out, as
OpenFHE's ``SwitchFormat`` to evaluation form leaves it; the inverse the reverse
(:func:`fhe_hw.model.dcrt.dcrt_ntt`). By default the primes are those OpenFHE gives a
``DCRTPoly`` of ``limbs`` towers of ``prime_bits`` bits (:func:`fhe_hw.params.openfhe_primes`).

Engines
-------
Engine j holds tower j: its ModMuls reduce mod q_j with constants fixed at generation time and
its twiddles are in its own ROM (n words), so no constant is loaded at run time and the engines
share nothing but the input and output streams. One engine per tower is what fills a device
with local engines; with ``engine_count`` E below L, fewer engines serve more towers: engine e
takes towers e, e + E, e + 2E, ... in turn, its ModMuls Montgomery's with the modulus an
operand (:class:`~fhe_hw.arith.montgomery_dyn.DynamicModMul`, every prime ≡ 1 mod 2^w for one
word w) and its ROM one table per tower it takes, n words each, all still fixed at generation
(:class:`~fhe_hw.ntt.StreamingNTTPlan`'s ``moduli``). All engines use one reducer (``auto``: the one
:func:`~fhe_hw.arith.modmul.choose_reducer` picks for every prime, Barrett where they differ), so
their timing is the same when their primes have the same width.

With ``parallel_towers`` the towers stream side by side instead: beat k of a polynomial holds
coefficients k·lanes ... (k + 1)·lanes - 1 of tower 0, then of tower 1, and so on
(:meth:`RNSPolyNTTPlan.stream_beats`).

Overlap
-------
Tower-major, the input stream feeds the engines in turn: while tower j loads, towers 0 ... j-1
compute, and the output stream drains them in the same turn. Side by side, every engine loads
and unloads at once, in lockstep: the engines share the handshakes and start equal from reset,
so tower 0's ``ready`` and ``valid`` stand for every engine's.

Each engine transforms in place in its banks (load, compute, unload); it takes the next
polynomial's tower when it has issued the last read of its unload
(:mod:`fhe_hw.ntt.streaming`). A second set of banks per engine (ping-pong) would let an
engine load while it computes; this unit has one set.

With ``skid``, a :class:`~fhe_hw.lib.stream.SkidBuffer` sits before and after each engine, so
that the streams' valid and ready reach an engine's control through a register: without it,
the ECP5-85F's critical path ran from one engine's load state to the input ready at the ports
and back to that engine's load control (two wires across the die in one cycle). A tower then
enters and leaves its engine a cycle later, and the slice before a busy engine takes the
tower's first two beats.

Side by side with the slices, ``spread_handshakes`` keeps the streams' handshakes from spanning
the die: the input slices capture their payload without ``valid`` (only each tower's valid
registers see the input's), and one slice gathers the engines' outputs at ``o`` in place of
their own output slices, its ``ready`` a register copy per engine
(:class:`~fhe_hw.lib.stream.SkidBuffer`'s ``spread``), so only that slice sees the output's
``ready``.

Cycles
------
:meth:`RNSPolyNTTPlan.cycles` follows the schedule tower by tower: with always-valid input and
always-ready output, tower j of polynomial k starts loading when the input has delivered the
towers before it and its engine is free, and unloads after its own transform and the previous
tower's unload. For equal towers that is ``(L - 1)·n/lanes + S`` for one polynomial, S the
engine's :meth:`~fhe_hw.ntt.StreamingNTTPlan.cycles`, and one polynomial every
``max(L·n/lanes, T)`` after, T the engine's :meth:`~fhe_hw.ntt.StreamingNTTPlan.period`.
Side by side the towers are one engine: one polynomial in S cycles, one every T after; with
``ping_pong`` T is the engine's compute phase alone, its loads and unloads on the other set of
banks.
"""

from dataclasses import dataclass, field

from amaranth import Array, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out, connect, flipped

from ..arith.modmul import choose_reducer
from ..arith.pipeline import (
    fabric_rounds_param,
    karatsuba_param,
    mult_stages_param,
    tile_reg_param,
    tiled_param,
)
from ..cliargs import int_list
from ..component import Component, FixedRun
from ..lib.stream import SkidBuffer
from ..ntt.butterfly import ram_delays_param
from ..ntt.schedule import (
    MAX_N,
    MAX_READ_STAGES,
    MAX_WRITE_STAGES,
    MIN_N,
    READ_STAGES,
    WRITE_STAGES,
)
from ..ntt.streaming import StreamingNTT, StreamingNTTPlan, wide_banks_param
from ..params import openfhe_primes, require_int, require_power_of_two
from ..plan import StreamPlan, param
from ..rns.common import MAX_RESIDUES, beats_to_polynomials, polynomial_beats
from ..rns.plan import check_primes

__all__ = ["RNSPolyNTT", "RNSPolyNTTPlan", "TowersPlan", "TowersComponent", "TowerBeats",
           "openfhe_towers", "tower_turn", "beat_count", "MAX_TOWERS", "MAX_PRIME_BITS"]

#: The reducers an engine of any NTT prime can use.
REDUCERS = ("auto", "barrett", "montgomery")
#: Most towers of one polynomial (as many as a base of the RNS engines).
MAX_TOWERS = MAX_RESIDUES
#: Widest prime (OpenFHE's native integers are 64 bits; its NTT primes at most 60).
MAX_PRIME_BITS = 60
#: Narrowest generated prime.
MIN_PRIME_BITS = 14


def _tower_schedule(period, span, beats, arrivals, skid=False, towers=None):
    """The cycle at which each tower starts to leave (in ``arrivals``' order: polynomial by
    polynomial, tower by tower) when tower j of each polynomial can start loading at
    ``arrivals[...]`` (and not before the previous tower has loaded), through engines with
    ``period[e]`` (T) and ``span[e]`` (S) cycles, tower j in engine j mod E of the E =
    ``len(period)`` engines (``towers`` per polynomial, default E), ``beats`` per tower: the
    recurrence of the module docstring. With ``skid``, a two-beat register slice before and
    after each engine: a tower reaches its engine a cycle later and leaves it a cycle later,
    and the slice before a busy engine takes the tower's first two beats."""
    towers = len(period) if towers is None else towers
    free = [0] * len(period)
    next_in = out_end = 0
    starts = []
    for k, arrival in enumerate(arrivals):
        j = k % towers % len(period)
        offer = max(arrival, next_in)
        start = max(offer + skid, free[j])
        next_in = offer + beats if skid and beats <= 2 else \
            max(offer + beats, start + beats - skid)
        ready = start + span[j] - beats + skid
        out_start = max(ready, out_end)
        out_end = out_start + beats
        free[j] = start + period[j] + (out_start - ready)
        starts.append(out_start)
    return starts


def openfhe_towers(n, prime_bits, prime_n, count, what="limbs"):
    """OpenFHE's first ``count`` primes of ``prime_bits`` bits for the ring ``prime_n`` (default
    ``n``), in its tower order (:func:`~fhe_hw.params.openfhe_primes`); ``ValueError`` for a
    ring that is not a power of two at least n, or when there are fewer such primes, naming
    ``what`` (the parameters whose sum ``count`` is)."""
    ring = n if prime_n is None else prime_n
    require_power_of_two("prime_n", ring)
    if ring < n:
        raise ValueError(f"prime_n must be at least n = {n}, not {ring}")
    try:
        return openfhe_primes(prime_bits, ring, count)
    except ValueError as e:
        raise ValueError(f"{what} must be at most the primes of prime_bits = {prime_bits} bits "
                         f"that are 1 mod {2 * ring}: {e}") from None


class TowerBeats:
    """The beats of a plan whose polynomials stream tower-major: ``n`` coefficients per tower,
    ``lanes_resolved`` per beat, ``towers`` the input's."""

    @property
    def tower_beats(self):
        """Beats of one tower on ``i`` and on ``o``: n / lanes."""
        return self.n // self.lanes_resolved

    @property
    def input_beats(self):
        """Beats of one polynomial on ``i``: L·n / lanes."""
        return len(self.towers) * self.tower_beats

    @property
    def output_towers(self):
        """Towers of one polynomial on ``o``: its ``output_beats`` over a tower's beats."""
        return self.output_beats // self.tower_beats

    @property
    def beat_lanes(self):
        """Coefficients per beat of the streams: ``lanes_resolved``."""
        return self.lanes_resolved

    def stream_beats(self, polys):
        """The beats of ``polys`` (each a list of towers of n residues) back to back on a
        stream of this plan: tower-major (:func:`~fhe_hw.rns.common.polynomial_beats`)."""
        return polynomial_beats([t for poly in polys for t in poly], self.lanes_resolved)

    def stream_polynomials(self, beats):
        """Inverse of :meth:`stream_beats` for the output stream: the polynomials (each a list
        of ``output_towers`` towers) in ``beats``."""
        flat = beats_to_polynomials(beats, self.n, self.lanes_resolved)
        out = self.output_towers
        return [flat[p:p + out] for p in range(0, len(flat), out)]


@dataclass(frozen=True)
class TowersPlan(TowerBeats, StreamPlan):
    """What the RNS polynomial units share: the ring, the towers and their engines' settings.

    Parameters
    ----------
    n : int
        The ring degree, a power of two from 16 to 65536 (the engine's range).
    limbs : int
        L, the towers, 1 to :data:`MAX_TOWERS` (default 4); one engine each.
    prime_bits : int
        The width of OpenFHE's primes (default 30), 14 to :data:`MAX_PRIME_BITS`.
    prime_n : int or None
        The primes are OpenFHE's for this ring degree (default ``n``): q ≡ 1 (mod 2·prime_n).
        A larger power of two gives primes whose ModMuls are Montgomery's with a 17-bit word
        (prime_n >= 2^16), which takes fewer DSPs than Barrett's.
    primes : sequence of int or None
        The towers' primes q_0, ..., q_(L-1), each ≡ 1 (mod 2n) and distinct (they replace
        ``limbs``, ``prime_bits`` and ``prime_n``); default None:
        :func:`~fhe_hw.params.openfhe_primes` (``prime_bits``, ``prime_n``, ``limbs``).
    butterflies, lanes, mult_stages, tiled, karatsuba, tile_reg, wide_banks, read_stages
    write_stages
        Each engine's (:class:`~fhe_hw.ntt.StreamingNTTPlan`); ``lanes`` is also the beat
        of the streams.
    reducer : str
        The engines' reducer (default ``auto``: one for all towers).
    fabric_rounds : bool
        The engines' Montgomery rounds without DSPs (:class:`~fhe_hw.arith.ModMulPlan`;
        default False): with OpenFHE's 30-bit primes for ``prime_n`` = 2^16 a ModMul takes the
        4 MULT18X18D of its product, not 6, so twice the butterflies fit the ECP5-85F.
    ram_delays : bool
        The engines' butterflies' delay lines in memories, not registers
        (:class:`~fhe_hw.ntt.ButterflyPlan`; default False): at 60 bits a butterfly's is 60 bits
        times its ModMul's latency; not for an inverse with ``scaled``.
    skid : bool
        A :class:`~fhe_hw.lib.stream.SkidBuffer` on each engine's input and output (default
        False): the streams' ready and valid then reach an engine through a register, not in
        the same cycle as the engine's own control.

    Attributes
    ----------
    towers : tuple of int
        The primes in tower order.
    width : int
        The bits of a coefficient on the streams: the widest prime's.
    lanes_resolved : int
        The coefficients per beat.
    """

    n: int = param(help="ring degree N (power of two, 16..65536)", cli_default=4096,
                   range=(MIN_N, MAX_N))
    limbs: int = param(4, help="towers L, one engine each (replaced by --primes)",
                       range=(1, MAX_TOWERS), kw_only=True)
    prime_bits: int = param(30, help="bits of OpenFHE's primes: LastPrime, then PreviousPrime "
                            "(replaced by --primes)", range=(MIN_PRIME_BITS, MAX_PRIME_BITS),
                            kw_only=True)
    prime_n: int | None = param(None, help="the primes are OpenFHE's for this ring degree, 1 mod "
                                "2*prime-n (default n); 65536: Montgomery ModMuls, fewer DSPs "
                                "(replaced by --primes)", range=(MIN_N, 1 << 17), kw_only=True)
    primes: tuple | None = param(None, parse=int_list, help="the towers' primes q_0,...,"
                                 "q_(L-1), each 1 mod 2N (default: none, OpenFHE's for "
                                 "--limbs, --prime-bits and --prime-n)", kw_only=True)
    butterflies: int = param(1, help="butterflies per cycle P of each engine (power of two)",
                             range=(1, MAX_N // 2), kw_only=True)
    lanes: int | None = param(None, help="coefficients per stream beat (default 2P)",
                              range=(1, MAX_N), kw_only=True)
    mult_stages: int | None = mult_stages_param()
    tiled: bool = tiled_param()
    karatsuba: bool = karatsuba_param()
    tile_reg: bool = tile_reg_param()
    wide_banks: bool = wide_banks_param()
    read_stages: int = param(READ_STAGES, help="registers on each engine's read path (0..4)",
                             range=(0, MAX_READ_STAGES), kw_only=True)
    write_stages: int = param(WRITE_STAGES, help="registers on each engine's write-back path "
                              "(0 or 1)", range=(0, MAX_WRITE_STAGES), kw_only=True)
    reducer: str = param("auto", help="the engines' reducer: auto (one for every prime), "
                         "barrett, montgomery", kw_only=True)
    fabric_rounds: bool = fabric_rounds_param()
    ram_delays: bool = ram_delays_param()
    # cli_default None: left out of a generated file's header (and the tables' cache keys)
    # unless given, like karatsuba.
    skid: bool = param(False, help="a register slice on each engine's input and output stream "
                       "(true/false, default false): no path from one engine to the streams' "
                       "ports and back in a cycle; a tower enters and leaves its engine a "
                       "cycle later", cli_default=None, kw_only=True)
    towers: tuple = field(init=False, repr=False, compare=False)
    width: int = field(init=False, repr=False, compare=False)
    lanes_resolved: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        require_power_of_two("n", self.n)
        if self.reducer not in REDUCERS:
            raise ValueError(f"reducer must be one of {', '.join(REDUCERS)}, not "
                             f"{self.reducer!r}")
        towers = self._towers()
        self._set(towers=towers, width=max(q.bit_length() for q in towers))
        self._set(lanes_resolved=self.engine_plans()[0].lanes_resolved)

    def engine_plans(self, inverse=False, **extra):
        """The :class:`~fhe_hw.ntt.StreamingNTTPlan` of each tower's engine, forward or
        ``inverse``: negacyclic, OpenFHE's root, one reducer for all (``auto``: the one
        :func:`~fhe_hw.arith.modmul.choose_reducer` picks for every prime, else Barrett);
        ``extra``: the engine plans' ``scaled``, ``shared_twiddles``, ``registered_valid`` and
        ``ping_pong``."""
        reducer = self.reducer
        if reducer == "auto":
            kinds = {choose_reducer(q) for q in self.towers}
            reducer = kinds.pop() if len(kinds) == 1 else "barrett"
        engines = []
        for j, q in enumerate(self.towers):
            try:
                engines.append(StreamingNTTPlan(
                    self.n, q, butterflies=self.butterflies, lanes=self.lanes, negacyclic=True,
                    inverse=inverse, mult_stages=self.mult_stages, tiled=self.tiled,
                    karatsuba=self.karatsuba, tile_reg=self.tile_reg, wide_banks=self.wide_banks,
                    read_stages=self.read_stages,
                    write_stages=self.write_stages, root="openfhe", reducer=reducer,
                    fabric_rounds=self.fabric_rounds, ram_delays=self.ram_delays, **extra))
            except ValueError as e:
                if not str(e).startswith("modulus"):
                    raise
                what = f"primes[{j}] = {q}" if self.primes is not None else f"tower {j} ({q})"
                raise ValueError(f"{what}: {e}") from None
        return tuple(engines)

    def _towers(self):
        if self.primes is None:
            return openfhe_towers(self.n, self.prime_bits, self.prime_n, self.limbs)
        primes = check_primes("primes", self.primes)
        for q in primes:
            if q >= 1 << MAX_PRIME_BITS or q % (2 * self.n) != 1:
                raise ValueError(f"primes must be 1 mod 2n = {2 * self.n} and below "
                                 f"2^{MAX_PRIME_BITS}, not {q}")
        if len(set(primes)) != len(primes):
            raise ValueError(f"primes must be distinct, not {primes!r}")
        self._set(primes=primes)
        return primes

    output_beats = TowerBeats.input_beats

    def describe(self):
        """The towers' primes."""
        return {"primes": ",".join(map(str, self.towers))}


@dataclass(frozen=True)
class RNSPolyNTTPlan(TowersPlan):
    """The parameters of :class:`RNSPolyNTT` (those of :class:`TowersPlan` and ``inverse``)
    and what they derive.

    Parameters
    ----------
    inverse : bool
        The inverse transform (evaluation to coefficient form).
    scaled : bool
        The inverse's n^-1 (default True; the engines' ``scaled``): False leaves the output n
        times the inverse, for a unit that folds n^-1 into a constant of its own.
    shared_twiddles : bool
        The engines read their twiddles through their ``tw_addr``/``tw_data`` ports from ROMs
        outside the unit (default False; the engines' ``shared_twiddles``, for a unit that
        gives a forward and an inverse engine of one tower one ROM).
    registered_valid : bool
        Each engine's output ``valid`` straight from a register (default False; the engines'
        ``registered_valid``): the output multiplexer of the towers then starts at registers,
        for a unit whose next stage is across the die.
    parallel_towers : bool
        The towers side by side on the streams (default False: tower-major): a beat carries
        ``lanes`` coefficients of every tower, tower 0's first, so that every engine loads and
        unloads at once and one polynomial takes one engine's cycles. The engines then run in
        lockstep, and every tower's engine must have the same cycles and period (the primes
        one width).
    spread_handshakes : bool
        With ``parallel_towers`` and ``skid`` (default False): no net of the streams'
        handshakes spans the die to every tower's slices. The input slices' payload registers
        take no valid (:class:`~fhe_hw.lib.stream.SkidBuffer`'s ``spread``), so the input's
        ``valid`` reaches each tower's two valid registers only; and one slice at the output
        gathers the engines' beats in place of their own output slices, its ``ready`` a
        register copy per engine, so the output's ``ready`` reaches that slice only, and the
        engines' output ``valid`` comes from a register (``registered_valid``). The cycles are
        the slices' (the gathering slice is the engines' output slice).
    ping_pong : bool
        With ``parallel_towers``: each engine with two sets of banks (default False; the
        engines' ``ping_pong``), so that while one set computes, the other unloads the previous
        polynomial and loads the next: back to back, a polynomial takes an engine's compute
        phase, not its loads and unloads too; twice the banks.
    engine_count : int or None
        E, the engines, 1 to L (default None: L, one per tower). Below L, tower-major only:
        engine e takes towers e, e + E, ... in turn, with run-time-modulus Montgomery ModMuls
        and a ROM of one n-word table per tower it takes (module docstring); not with
        ``parallel_towers``, ``ping_pong``, ``shared_twiddles``, ``karatsuba``,
        ``fabric_rounds``, ``ram_delays`` or a Barrett ``reducer``.

    Attributes
    ----------
    engines : tuple of StreamingNTTPlan
        The engines: each tower's, or with ``engine_count`` E below L, engine e's (its
        ``moduli`` towers e, e + E, ...).
    """

    inverse: bool = param(False, help="inverse transform (evaluation to coefficient form)",
                          kw_only=True)
    scaled: bool = field(default=True, kw_only=True)
    shared_twiddles: bool = field(default=False, kw_only=True)
    registered_valid: bool = field(default=False, kw_only=True)
    # cli_default None, as skid: left out of a generated file's header unless given.
    parallel_towers: bool = param(False, help="the towers side by side on the streams "
                                  "(true/false, default false: tower-major): a beat holds "
                                  "lanes coefficients of every tower, the engines load at "
                                  "once", cli_default=None, kw_only=True)
    # cli_default None, as parallel_towers.
    spread_handshakes: bool = param(False, help="with parallel_towers and skid: the input "
                                    "slices' payloads take no valid, and one slice at the "
                                    "output gathers the engines, its ready a register per "
                                    "engine (true/false, default false)", cli_default=None,
                                    kw_only=True)
    # cli_default None, as parallel_towers.
    ping_pong: bool = param(False, help="with parallel_towers: two sets of banks per engine, "
                            "one computes while the other unloads and loads (true/false, default "
                            "false)", cli_default=None, kw_only=True)
    # cli_default None, as parallel_towers.
    engine_count: int | None = param(None, help="engines E, 1 to the towers L (default L, one "
                                     "per tower); below L each takes towers e, e + E, ... in "
                                     "turn, tower-major, with run-time-modulus Montgomery "
                                     "ModMuls", cli_default=None, kw_only=True)
    engines: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.spread_handshakes and not (self.parallel_towers and self.skid):
            raise ValueError("spread_handshakes needs parallel_towers and skid")
        if self.ping_pong and not self.parallel_towers:
            raise ValueError("ping_pong needs parallel_towers (tower-major, a tower's load "
                             "already overlaps the other towers' transforms)")
        if self.engine_count is not None:
            require_int("engine_count", self.engine_count, minimum=1,
                        maximum=len(self.towers))
        if self.engine_count is not None and self.engine_count < len(self.towers):
            engines = self._shared_engine_plans(self.engine_count)
        else:
            engines = self.engine_plans(self.inverse, scaled=self.scaled,
                                        shared_twiddles=self.shared_twiddles,
                                        registered_valid=self.registered_valid
                                        or self.spread_handshakes, ping_pong=self.ping_pong)
        if self.parallel_towers and len({(e.cycles(), e.period()) for e in engines}) > 1:
            raise ValueError(f"parallel_towers needs one timing for every tower's engine "
                             f"(their primes of one width), not the towers' "
                             f"{', '.join(str(q.bit_length()) for q in self.towers)} bits")
        self._set(engines=engines)

    def _shared_engine_plans(self, count):
        """``engine_count`` below L: engine e's plan, the towers e, e + E, ... its moduli."""
        # ping_pong needs parallel_towers; the engines' plans refuse the options the shared
        # engines do not take
        if self.parallel_towers:
            raise ValueError(f"engine_count below the towers ({len(self.towers)}) needs "
                             f"tower-major streams, not parallel_towers")
        engines = []
        for e in range(count):
            try:
                engines.append(StreamingNTTPlan(
                    self.n, self.towers[e], butterflies=self.butterflies, lanes=self.lanes,
                    negacyclic=True, inverse=self.inverse, scaled=self.scaled,
                    mult_stages=self.mult_stages, tiled=self.tiled, karatsuba=self.karatsuba,
                    tile_reg=self.tile_reg, wide_banks=self.wide_banks,
                    read_stages=self.read_stages, write_stages=self.write_stages,
                    root="openfhe", reducer=self.reducer, fabric_rounds=self.fabric_rounds,
                    ram_delays=self.ram_delays, registered_valid=self.registered_valid,
                    shared_twiddles=self.shared_twiddles, moduli=self.towers[e::count]))
            except ValueError as err:
                raise ValueError(f"engine_count = {count} (engines shared by towers, "
                                 f"run-time moduli): {err}") from None
        return tuple(engines)

    @property
    def input_beats(self):
        """Beats of one polynomial on ``i``: n / lanes with ``parallel_towers``, else
        L·n / lanes."""
        return self.tower_beats * (1 if self.parallel_towers else len(self.towers))

    output_beats = input_beats

    @property
    def output_towers(self):
        """Towers of one polynomial on ``o``: L."""
        return len(self.towers)

    @property
    def beat_lanes(self):
        """Coefficients per beat of the streams: L·lanes with ``parallel_towers``, else
        lanes."""
        return self.lanes_resolved * (len(self.towers) if self.parallel_towers else 1)

    def stream_beats(self, polys):
        """The beats of ``polys`` back to back: with ``parallel_towers`` beat k of a
        polynomial is coefficients k·lanes ... (k + 1)·lanes - 1 of tower 0, then of tower 1,
        and so on; else tower-major."""
        if not self.parallel_towers:
            return super().stream_beats(polys)
        lanes = self.lanes_resolved
        return [[c for t in poly for c in t[x:x + lanes]] for poly in polys
                for x in range(0, self.n, lanes)]

    def stream_polynomials(self, beats):
        """Inverse of :meth:`stream_beats`: the polynomials in ``beats``."""
        if not self.parallel_towers:
            return super().stream_polynomials(beats)
        lanes, per = self.lanes_resolved, self.tower_beats
        polys = [beats[x:x + per] for x in range(0, len(beats), per)]
        return [[[c for beat in poly for c in beat[j * lanes:(j + 1) * lanes]]
                 for j in range(len(self.towers))] for poly in polys]

    def schedule(self, polys=1, arrivals=None):
        """The cycle at which each tower of ``polys`` polynomials back to back starts to leave
        on ``o`` (polynomial by polynomial, tower by tower; with ``parallel_towers`` each
        polynomial, whose towers leave together), the first input at cycle 0 and the output
        always ready; the towers' (polynomials') first beats offered at ``arrivals`` (default:
        the input always valid)."""
        engines = self.engines[:1] if self.parallel_towers else self.engines
        towers = 1 if self.parallel_towers else len(self.towers)
        arrivals = [0] * (polys * towers) if arrivals is None else list(arrivals)
        spans = [e.cycles() for e in engines]
        periods = [e.period() for e in engines]
        return _tower_schedule(periods, spans, self.tower_beats, arrivals, self.skid, towers)

    def cycles(self, polys=1):
        """Exact cycles of ``polys`` polynomials back to back, first input transfer to last
        output transfer, input always valid and output always ready (:meth:`schedule`)."""
        return self.schedule(polys)[-1] + self.tower_beats


class TowersComponent(FixedRun, Component):
    """What the RNS polynomial units' Components share: ``n``, ``towers`` and ``lanes`` from
    the plan (a :class:`TowersPlan`), and :meth:`cycles`, the plan's."""

    @property
    def n(self):
        return self.plan.n

    @property
    def towers(self):
        return self.plan.towers

    @property
    def lanes(self):
        return self.plan.lanes_resolved

    def cycles(self, polys=1):
        """The plan's ``cycles(polys)``: ``polys`` polynomials back to back."""
        return self.plan.cycles(polys)


class RNSPolyNTT(TowersComponent):
    """The forward (or inverse) NTT of an L-tower RNS polynomial in OpenFHE's layout, one
    :class:`~fhe_hw.ntt.StreamingNTT` engine per tower, or E (``engine_count``) taking the
    towers in turn (module docstring).

    Parameters
    ----------
    plan : RNSPolyNTTPlan
        Or the arguments of one (``RNSPolyNTT(64, limbs=3)``).

    Attributes
    ----------
    i, o : stream.Signature(data.ArrayLayout(unsigned(width), beat_lanes))
        One polynomial is L·n/lanes beats, tower-major, coefficients in index order within a
        tower (lane 0 first); with ``parallel_towers``, n/lanes beats of L·lanes words, the
        towers side by side (:meth:`RNSPolyNTTPlan.stream_beats`). width is the widest
        prime's bits. Polynomials follow back to back.
    """

    def __init__(self, *args, **kw):
        self.plan = plan = RNSPolyNTTPlan.coerce(*args, **kw)
        self._engines = [StreamingNTT(e) for e in plan.engines]
        layout = data.ArrayLayout(unsigned(plan.width), plan.beat_lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    @property
    def engines(self):
        """The engines, in order: tower j's is ``engines[j % E]``."""
        return list(self._engines)

    def elaborate(self, platform):
        m = Module()
        parallel, towers, beats = self.plan.parallel_towers, len(self._engines), \
            self.plan.tower_beats
        if not parallel:
            count = len(self.plan.towers)
            in_tower = tower_turn(m, "in", count, beats, self.i.valid & self.i.ready)
            out_tower = tower_turn(m, "out", count, beats, self.o.valid & self.o.ready)
            if towers < count:
                # engine_count: tower j's turn is engine j mod E's
                turn = Array(Const(j % towers, range(towers)) for j in range(count))
                in_tower, out_tower = turn[in_tower], turn[out_tower]
        spread = self.plan.spread_handshakes
        if spread:
            m.submodules.gather = gather = SkidBuffer(self.o.payload.shape(), spread=towers)
            connect(m, gather.o, flipped(self.o))
        for j, engine in enumerate(self._engines):
            sink, source = self._tower_ends(m, j, engine)
            if spread:
                self._side_by_side(m, j, sink, source, gather.i, gather.ready_copies[j])
            elif parallel:
                self._side_by_side(m, j, sink, source, self.o, self.o.ready)
            else:
                self._in_turn(m, sink, source, in_tower == j, out_tower == j)
        return m

    def _tower_ends(self, m, j, engine):
        """Engine j in ``m``, with its slices when ``skid``; returns the (sink, source) of its
        tower's streams."""
        m.submodules[f"tower{j}"] = engine
        if not self.plan.skid:
            return engine.i, engine.o
        if self.plan.spread_handshakes:
            # the gathering slice is every engine's output slice
            m.submodules[f"tower{j}_in"] = into = SkidBuffer(engine.i.payload.shape(), spread=1)
            connect(m, into.o, engine.i)
            return into.i, engine.o
        m.submodules[f"tower{j}_in"] = into = SkidBuffer(engine.i.payload.shape())
        m.submodules[f"tower{j}_out"] = out = SkidBuffer(engine.o.payload.shape())
        connect(m, into.o, engine.i)
        connect(m, engine.o, out.i)
        return into.i, out.o

    def _side_by_side(self, m, j, sink, source, out, ready):
        """``parallel_towers``: engine j takes its lanes of each beat and gives its lanes of
        each beat of ``out`` (``o``, or the gathering slice's input), its output taking
        ``ready``. The engines run in lockstep (one timing, the same handshakes from reset), so
        tower 0's ``ready`` and ``valid`` speak for all, and no handshake gathers the towers'
        from across the die."""
        lanes = self.lanes
        m.d.comb += [sink.valid.eq(self.i.valid), source.ready.eq(ready)]
        m.d.comb += [sink.payload[k].eq(self.i.payload[j * lanes + k]) for k in range(lanes)]
        m.d.comb += [out.payload[j * lanes + k].eq(source.payload[k]) for k in range(lanes)]
        if j == 0:
            m.d.comb += [self.i.ready.eq(sink.ready), out.valid.eq(source.valid)]

    def _in_turn(self, m, sink, source, here_in, here_out):
        """Tower-major: the input feeds the engines in turn (this one ``here_in``), and the
        output drains them in the same turn (``here_out``)."""
        m.d.comb += [sink.valid.eq(self.i.valid & here_in),
                     source.ready.eq(self.o.ready & here_out)]
        m.d.comb += [sink.payload[k].eq(self.i.payload[k]) for k in range(self.lanes)]
        with m.If(here_in):
            m.d.comb += self.i.ready.eq(sink.ready)
        with m.If(here_out):
            m.d.comb += self.o.valid.eq(source.valid)
            m.d.comb += [self.o.payload[k].eq(source.payload[k]) for k in range(self.lanes)]


def beat_count(m, name, beats, step):
    """A counter of the beats of a run of ``beats`` beats, advanced by ``step`` and again from 0
    after the last; returns the count (the beat that ``step`` moves)."""
    count = Signal(range(beats), name=name)
    with m.If(step):
        m.d.sync += count.eq(Mux(count == beats - 1, 0, count + 1))
    return count


def tower_turn(m, name, towers, beats, step):
    """The tower whose turn it is on a stream of ``towers`` towers of ``beats`` beats, in turn
    and again from tower 0: a (tower, beat) counter advanced by ``step``; returns the tower."""
    tower = Signal(range(towers), name=f"{name}_tower")
    beat = Signal(range(beats), name=f"{name}_beat")
    with m.If(step):
        m.d.sync += beat.eq(beat + 1)
        with m.If(beat == beats - 1):
            m.d.sync += [beat.eq(0), tower.eq(tower + 1)]
            with m.If(tower == towers - 1):
                m.d.sync += tower.eq(0)
    return tower
