"""The exact base extension of a whole RNS polynomial, Q → Q ∪ B, as OpenFHE computes it: each
coefficient's centred lift from its L towers mod Q (OpenFHE's ``SwitchCRTBasis``) reduced mod
each of K new primes, appended to the polynomial as K more towers (``ExpandCRTBasis``: the towers
of Q, then those of B).

Layout
------
The polynomial streams in and out tower-major, as OpenFHE stores it and as
:class:`~fhe_hw.poly.RNSPolyNTT` and :class:`~fhe_hw.poly.RNSPolyProduct` stream it: ``lanes``
coefficients of one tower per beat, n/lanes beats per tower; L towers in, L + K out (the L
unchanged, then the K of B). By default Q is OpenFHE's L primes of ``prime_bits`` bits for the
ring ``prime_n`` (:func:`~fhe_hw.params.openfhe_primes`) and B the K primes OpenFHE takes after
them (the next PreviousPrime's), as its BFV parameters extend Q.

Engine
------
A conversion needs a coefficient's L residues together, the stream brings them a tower at a time:
each tower is written into its own memory (n/lanes words of ``lanes`` coefficients), then the
coefficients are read across all L memories at once, one per cycle, into a
:class:`~fhe_hw.rns.MixedRadix` engine with the centred lift (Garner's mixed radix, [Kir25]
Algorithm 4; exactly OpenFHE's lift: docs/rns.md), whose K residues per coefficient are written
lane by lane into K more memories, whose towers then stream out. Q's towers leave as they
arrive: each beat is stored and passed on to ``o`` through the output register, so ``o``
carries Q's towers while they load and B's after the conversion. Every memory's read word goes
through a register beside its block RAM (the read ports have no output register of their own;
without it, a read crossed the die into the engine's operand or the multiplexer of the
towers' words in one cycle), then into the engine's operand register or, the emitted
tower's, into the output register. One polynomial at a time: load, convert, emit, in turn (a
second set of memories would let the next polynomial load while this one converts).

Cycles
------
With the input always valid and the output always ready, one polynomial takes
``L·n/lanes + C + 6 + K·n/lanes`` cycles from its first input transfer to its last output
transfer, C the conversion engine's :meth:`~fhe_hw.rns.MixedRadixPlan.cycles`: three cycles
take the first coefficient from its read to the engine (the read, the register after the
memory, the operand register) and three start the emission of B (the read, that register,
the output register). The next polynomial's first input transfer follows the last output
transfer: ``polys`` polynomials take ``polys`` times that.
"""

from dataclasses import dataclass, field

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..cliargs import int_list
from ..component import Component, FixedRun
from ..ntt.schedule import MAX_N, MIN_N
from ..params import check_coprime, require_int, require_power_of_two
from ..plan import StreamPlan, param
from ..rns import MixedRadix, MixedRadixPlan
from ..rns.common import MAX_RESIDUES
from ..rns.plan import check_primes
from .ntt import MAX_PRIME_BITS, MIN_PRIME_BITS, TowerBeats, openfhe_towers

__all__ = ["RNSPolyExtend", "RNSPolyExtendPlan"]

#: The conversion engine's architectures.
ARCHITECTURES = ("iterative", "pipelined")


@dataclass(frozen=True)
class RNSPolyExtendPlan(TowerBeats, StreamPlan):
    """The parameters of :class:`RNSPolyExtend` and what they derive.

    Parameters
    ----------
    n : int
        The ring degree, a power of two from 16 to 65536.
    limbs : int
        L, the polynomial's towers (the base Q), 1 to :data:`~fhe_hw.poly.ntt.MAX_TOWERS`
        (default 4).
    target_limbs : int
        K, the towers added (the base B), 1 to :data:`~fhe_hw.poly.ntt.MAX_TOWERS` (default 4).
    prime_bits : int
        The width of OpenFHE's primes (default 30), 14 to 60.
    prime_n : int or None
        The primes are OpenFHE's for this ring degree (default ``n``).
    primes, target_primes : sequence of int or None
        Q's towers q_0, ..., q_(L-1) in tower order and B's p_0, ..., p_(K-1), pairwise
        coprime, both or neither (they replace ``limbs``, ``target_limbs``, ``prime_bits`` and
        ``prime_n``); default None: OpenFHE's L + K primes, Q the first L.
    lanes : int
        Coefficients per stream beat, a power of two dividing n (default 2).
    architecture : str
        The conversion engine's, ``"iterative"`` (default: l − 1 + k multipliers, (l + 1)·N
        cycles) or ``"pipelined"`` (l(l − 1)/2 + k(l + 1) multipliers, N cycles).

    Attributes
    ----------
    towers : tuple of int
        Q's primes in tower order.
    targets : tuple of int
        B's primes in tower order.
    width : int
        The bits of a coefficient on the streams: the widest prime's.
    conversion : MixedRadixPlan
        The centred mixed-radix engine from Q (ascending, as it takes it) to B.
    """

    n: int = param(help="ring degree N (power of two, 16..65536)", cli_default=4096,
                   range=(MIN_N, MAX_N))
    limbs: int = param(4, help="towers L of the polynomial, the base Q (replaced by --primes)",
                       range=(1, MAX_RESIDUES), kw_only=True)
    target_limbs: int = param(4, help="towers K added, the base B (replaced by "
                              "--target-primes)", range=(1, MAX_RESIDUES), kw_only=True)
    prime_bits: int = param(30, help="bits of OpenFHE's primes: LastPrime, then PreviousPrime "
                            "(replaced by --primes)", range=(MIN_PRIME_BITS, MAX_PRIME_BITS),
                            kw_only=True)
    prime_n: int | None = param(None, help="the primes are OpenFHE's for this ring degree, 1 mod "
                                "2*prime-n (default n) (replaced by --primes)",
                                range=(MIN_N, 1 << 17), kw_only=True)
    primes: tuple | None = param(None, parse=int_list, help="Q's primes q_0,...,q_(L-1) in "
                                 "tower order (default: none, OpenFHE's first L for --limbs, "
                                 "--prime-bits and --prime-n); with --target-primes",
                                 kw_only=True)
    target_primes: tuple | None = param(None, parse=int_list, help="B's primes p_0,...,"
                                        "p_(K-1) (default: none, OpenFHE's K after Q's); with "
                                        "--primes", kw_only=True)
    lanes: int = param(2, help="coefficients per stream beat (power of two dividing n)",
                       range=(1, MAX_N), kw_only=True)
    architecture: str = param("iterative", help="the conversion engine: iterative or "
                              "pipelined", kw_only=True)
    towers: tuple = field(init=False, repr=False, compare=False)
    targets: tuple = field(init=False, repr=False, compare=False)
    width: int = field(init=False, repr=False, compare=False)
    conversion: MixedRadixPlan = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        require_power_of_two("n", self.n)
        require_power_of_two("lanes", self.lanes)
        if self.lanes > self.n:
            raise ValueError(f"lanes must be at most n = {self.n}, not {self.lanes}")
        if self.architecture not in ARCHITECTURES:
            raise ValueError(f"architecture must be one of {', '.join(ARCHITECTURES)}, not "
                             f"{self.architecture!r}")
        towers, targets = self._bases()
        self._set(towers=towers, targets=targets,
                  width=max(q.bit_length() for q in towers + targets))
        self._set(conversion=MixedRadixPlan(
            n=self.n, source_primes=tuple(sorted(towers)), target_primes=targets,
            architecture=self.architecture, centred=True))

    def _bases(self):
        if (self.primes is None) != (self.target_primes is None):
            given, missing = (("target_primes", "primes") if self.primes is None
                              else ("primes", "target_primes"))
            raise ValueError(f"{missing} must be given too when {given} is")
        if self.primes is None:
            primes = openfhe_towers(self.n, self.prime_bits, self.prime_n,
                                    self.limbs + self.target_limbs, "limbs + target_limbs")
            return primes[:self.limbs], primes[self.limbs:]
        towers = check_primes("primes", self.primes)
        targets = check_primes("target_primes", self.target_primes)
        for name, base in (("primes", towers), ("target_primes", targets)):
            if max(base) >= 1 << MAX_PRIME_BITS:
                raise ValueError(f"{name} must be below 2^{MAX_PRIME_BITS}, not {max(base)}")
        check_coprime("primes and target_primes", towers + targets)
        self._set(primes=towers, target_primes=targets)
        return towers, targets

    @property
    def lanes_resolved(self):
        """The coefficients per beat: ``lanes`` (as :class:`~fhe_hw.poly.ntt.TowersPlan`
        names it; :class:`~fhe_hw.poly.ntt.TowerBeats` counts the beats with it)."""
        return self.lanes

    @property
    def output_beats(self):
        """Beats of one polynomial on ``o``: (L + K)·n / lanes."""
        return (len(self.towers) + len(self.targets)) * self.tower_beats

    def cycles(self, polys=1):
        """Exact cycles of ``polys`` polynomials back to back, first input transfer to last
        output transfer, input always valid and output always ready (module docstring)."""
        require_int("polys", polys, minimum=1)
        one = self.input_beats + self.conversion.cycles() + 6 + len(self.targets) * self.tower_beats
        return polys * one

    def describe(self):
        """Q's and B's primes."""
        return {"primes": ",".join(map(str, self.towers)),
                "target primes": ",".join(map(str, self.targets))}


class RNSPolyExtend(FixedRun, Component):
    """The exact base extension Q → Q ∪ B of an L-tower RNS polynomial in OpenFHE's layout
    (module docstring).

    Parameters
    ----------
    plan : RNSPolyExtendPlan
        Or the arguments of one (``RNSPolyExtend(64, limbs=3, target_limbs=2)``).

    Attributes
    ----------
    i : In(stream.Signature(data.ArrayLayout(width, lanes)))
        The polynomial's L towers, tower-major, ``lanes`` coefficients of one tower per beat,
        each residue below its tower's prime.
    o : Out(stream.Signature(data.ArrayLayout(width, lanes)))
        Its L + K towers in the same layout: Q's unchanged, then B's.
    cycles : method
        The plan's ``cycles(polys)``.
    """

    def __init__(self, *args, **kw):
        self.plan = p = RNSPolyExtendPlan.coerce(*args, **kw)
        layout = data.ArrayLayout(p.width, p.lanes)
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(layout))})

    n = property(lambda self: self.plan.n)
    towers = property(lambda self: self.plan.towers)
    targets = property(lambda self: self.plan.targets)
    lanes = property(lambda self: self.plan.lanes)

    def cycles(self, polys=1):
        """The plan's ``cycles(polys)``: ``polys`` polynomials back to back."""
        return self.plan.cycles(polys)

    def elaborate(self, platform):
        p = self.plan
        m = Module()
        m.submodules.convert = convert = MixedRadix(p.conversion)
        L, K, W, T, r = len(p.towers), len(p.targets), p.lanes, p.tower_beats, p.width
        word = unsigned(W * r)

        loads = [_memory(m, f"tower{j}", word, T) for j in range(L)]
        results = [_memory(m, f"target{t}", word, T, granularity=r) for t in range(K)]

        beat = Signal(range(T))                  # the beat of the tower loaded or emitted
        tower = Signal(range(L + K + 1))         # the tower loaded or emitted
        issued = Signal(range(p.n + 1))          # coefficients read for the conversion
        converted = Signal(range(p.n + 1))       # coefficients whose residues are written
        read = Signal()                          # a word read, on the read ports
        tag = Signal(range(max(W, L + K)))       # ... its coefficient's lane or beat's tower
        held = Signal()                          # a coefficient's residues in ``operand``
        operand = Signal(data.ArrayLayout(r, L))  # ... in the engine's (ascending) order
        converting, emitting = Signal(), Signal()
        last_beat = beat == T - 1

        # Every memory is read at the same address: the coefficients' word while converting,
        # the emitted beat's while emitting; the read ports, the registers after them and the
        # operand or output register advance together (the stages of one pipeline).
        read_addr = Signal(range(T))
        advance = Signal()
        for _, port in loads + results:
            m.d.comb += [port.addr.eq(read_addr), port.en.eq(advance)]
        on_hold, hold_tag, words = _hold(m, advance, (read, tag), loads + results)

        with m.If(advance & converting):
            m.d.sync += held.eq(on_hold)
            for i, j in enumerate(p.towers.index(q) for q in p.conversion.source):
                m.d.sync += operand[i].eq(words[j].word_select(hold_tag, r))
        m.d.comb += [convert.i.payload.eq(operand), convert.i.valid.eq(held),
                     convert.o.ready.eq(1)]
        _write_results(m, results, convert.o, converted, W)
        out_free, out_valid, out_payload = out = _output_register(m, self.o)
        with m.If(emitting):
            m.d.comb += [out_valid.eq(on_hold), out_payload.eq(words[hold_tag])]

        with m.FSM():
            with m.State("LOAD"):
                took = _store_and_pass(m, self.i, loads, (tower, beat), out)
                with m.If(took):
                    m.d.sync += beat.eq(beat + 1)
                    with m.If(last_beat):
                        m.d.sync += [beat.eq(0), tower.eq(tower + 1)]
                        with m.If(tower == L - 1):
                            m.d.sync += [issued.eq(0), converted.eq(0)]
                            m.next = "CONVERT"
            with m.State("CONVERT"):
                m.d.comb += [converting.eq(1), advance.eq(~held | convert.i.ready),
                             read_addr.eq(issued // W)]
                with m.If(advance):
                    m.d.sync += [read.eq(issued < p.n), tag.eq(issued % W if W > 1 else 0)]
                    with m.If(issued < p.n):
                        m.d.sync += issued.eq(issued + 1)
                with m.If(convert.o.valid):
                    m.d.sync += converted.eq(converted + 1)
                    with m.If(converted == p.n - 1):
                        m.next = "EMIT"
            with m.State("EMIT"):
                # (tower, beat) is the next beat to read; tower = L + K: all read, and the
                # last beat is on o when the read ports and their registers hold none
                done = self.o.valid & self.o.ready & (tower == L + K) & ~read & ~on_hold
                m.d.comb += [emitting.eq(1), advance.eq(out_free),
                             read_addr.eq(beat)]
                with m.If(advance):
                    m.d.sync += [read.eq(tower < L + K), tag.eq(tower)]
                    with m.If(tower < L + K):
                        m.d.sync += beat.eq(beat + 1)
                        with m.If(last_beat):
                            m.d.sync += [beat.eq(0), tower.eq(tower + 1)]
                with m.If(done):
                    m.d.sync += [beat.eq(0), tower.eq(0)]
                    m.next = "LOAD"
        return m


def _memory(m, name, shape, depth, granularity=None):
    """A memory of ``depth`` words of ``shape`` added to ``m``: (its write port, with
    ``granularity``, and its synchronous read port)."""
    mem = Memory(shape=shape, depth=depth, init=[])
    m.submodules[name] = mem
    return mem.write_port(granularity=granularity), mem.read_port()


def _output_register(m, o):
    """The output register ``o`` (``valid``, ``payload``): it takes its next beat whenever it is
    empty or its beat leaves. Returns (that condition, the next beat's valid and payload, comb
    signals: an input beat while loading, none while converting, a read word while
    emitting)."""
    free = ~o.valid | o.ready
    valid, payload = Signal(), Signal(o.payload.shape())
    with m.If(free):
        m.d.sync += [o.valid.eq(valid), o.payload.eq(payload)]
    return free, valid, payload


def _store_and_pass(m, i, loads, at, out):
    """Each beat taken from ``i`` written into the memory of ``loads`` of its tower and passed
    on through the output register, ``out`` = (free, next valid, next payload) of
    :func:`_output_register` (Q's towers leave as they are stored); ``at`` = (the beat's
    tower, its beat in the tower). Returns the comb signal: a beat taken."""
    tower, beat = at
    free, valid, payload = out
    took = Signal()
    m.d.comb += [i.ready.eq(free), took.eq(i.valid & i.ready),
                 valid.eq(i.valid), payload.eq(i.payload)]
    for j, (write, _) in enumerate(loads):
        m.d.comb += [write.addr.eq(beat), write.data.eq(i.payload),
                     write.en.eq(took & (tower == j))]
    return took


def _hold(m, advance, read, memories):
    """The register after each read port of ``memories``, beside its block RAM (the ports have
    no output register of their own), advancing with ``advance``; ``read`` = (a word read on
    the ports, its tag) goes along. Returns (the registers' valid, their tag, their words)."""
    valid, tag = read
    words = Signal(data.ArrayLayout(len(memories[0][1].data), len(memories)))
    held_valid, held_tag = Signal(), Signal.like(tag)
    with m.If(advance):
        m.d.sync += [words[k].eq(port.data) for k, (_, port) in enumerate(memories)]
        m.d.sync += [held_valid.eq(valid), held_tag.eq(tag)]
    return held_valid, held_tag, words


def _write_results(m, results, out, converted, lanes):
    """Each target residue of the conversion's output ``out`` into its memory of ``results``:
    coefficient ``converted`` at word converted // lanes, lane converted % lanes."""
    lane = Signal(range(lanes))
    m.d.comb += lane.eq(converted % lanes if lanes > 1 else 0)
    for t, (write, _) in enumerate(results):
        m.d.comb += [write.addr.eq(converted // lanes),
                     write.data.eq(Cat(*[out.payload[t]] * lanes)),
                     write.en.eq(Mux(out.valid, 1 << lane, 0))]
