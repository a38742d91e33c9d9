"""The plan of :class:`~fhe_hw.ntt.four_step_stream.StreamingFourStepNTT`: its sizes, the bank
maps of its four buffers, the per-lane indices of every pass, the twiddle ROMs and the control
rules, from which :func:`control_cycles` counts the exact cycles. Pure Python: the engine
evaluates the same index formulas on Amaranth values (they use only +, shifts, masks and
xors), and the tests check the maps' conflict freedom for every size.

The transform ([Wang13] §IV-C, eqs 7–8, generalised): n = n1·m² over 2^64 - 2^32 + 1 with a
primitive n-th root ω_n (default :func:`~fhe_hw.params.wang_huang_root` (n)), ω_m = ω_n^(n/m)
and ω_n1 = ω_n^(m²) (powers of two: the shift units' rotations), input index i = a + n1·(a2 + m·b2),
output index k + m²·k1' with k = k2 + m·k1:

* P1, per block a (the m² inputs a + n1·b) and a2: y[a][a2][k2] = Σ_b2 x_i·ω_m^(b2·k2);
* P2, per block a and k2: Y_a[k2 + m·k1] = Σ_a2 (y[a][a2][k2]·ω_m²^(a2·k2))·ω_m^(a2·k1);
* P3 (n1 > 1), per k: X[k + m²·k1'] = Σ_a (Y_a[k]·ω_n^(a·k))·ω_n1^(a·k1').

P1 and P2 run on one m-point shift unit at ``lanes`` samples per beat (``inner_units`` = 1) or
each on its own (2), P3 on n1-point shift units. Each pass reads one buffer and writes the
next: B0 (the input, written by the load), B1 (P1 to P2, one block), B2 (P2 to P3, or to the
unload when n1 = 1) and B3 (P3 to the unload). Every buffer is ``lanes`` banks; lane j of an
access goes to bank j XOR a fold that is the same for the whole beat, so each access touches
every bank once.
"""

from dataclasses import dataclass
from functools import cached_property

from ..params import SOLINAS64, require_int, require_power_of_two, wang_huang_root

__all__ = ["FourStepPlan", "control_cycles", "control_trace", "spaced_trace", "pass_latencies"]


def _log2(x):
    return x.bit_length() - 1


@dataclass(frozen=True)
class FourStepPlan:
    """Sizes and index maps for n = n1·m² points at ``lanes`` samples per beat (m = ``inner_n``:
    2 to 64, n1: 1 to 64, lanes: 1 to m, all powers of two), with P1 and P2 on one m-point unit
    (``inner_units`` = 1) or on one each (2); ``ValueError``/``TypeError`` otherwise. ``omega``: the
    transform's primitive n-th root and ``psi`` the negacyclic twist's primitive 2n-th root
    (ψ^2 = ω; default: the Wang–Huang family's, :func:`~fhe_hw.params.wang_huang_root`); the
    engine checks them (:func:`~fhe_hw.params.solinas_ntt_params`)."""

    inner_n: int
    n1: int
    lanes: int
    inner_units: int = 1
    omega: int = None
    psi: int = None

    def __post_init__(self):
        require_power_of_two("inner_n", self.inner_n, minimum=2, maximum=64)
        require_power_of_two("n1", self.n1, maximum=64)
        require_power_of_two("lanes", self.lanes, maximum=self.inner_n)
        require_int("inner_units", self.inner_units, minimum=1, maximum=2)

    # --- sizes ---------------------------------------------------------------------------------

    @property
    def n(self):
        return self.n1 * self.inner_n * self.inner_n

    @property
    def unit_passes(self):
        """The passes each m-unit runs, 0 for P1 and 1 for P2: ((0, 1),) with one m-unit,
        ((0,), (1,)) with two."""
        return ((0, 1),) if self.inner_units == 1 else ((0,), (1,))

    @property
    def beats(self):
        """Beats of one pass over all n words (and of the load and the unload)."""
        return self.n // self.lanes

    @property
    def m_beats(self):
        """Beats of one m-point transform."""
        return self.inner_n // self.lanes

    @property
    def block_beats(self):
        """Beats of one P1 or P2 job (a block of m² words)."""
        return self.inner_n * self.inner_n // self.lanes

    @property
    def outer_lanes(self):
        """Lanes of one n1-point transform in a P3 beat: min(n1, lanes)."""
        return min(self.n1, self.lanes)

    @property
    def groups(self):
        """n1-point transforms side by side in a P3 beat: max(1, lanes / n1)."""
        return max(1, self.lanes // self.n1)

    @property
    def outer_beats(self):
        """Beats of one n1-point transform: max(1, n1 / lanes)."""
        return max(1, self.n1 // self.lanes)

    def storage_bits(self):
        """Bits of memory of the engine: ``{"ram": the four buffers' two slots each (B3 only
        when n1 > 1), "rom": the P2 and P3 twiddle ROMs}`` (64-bit words; the output FIFO's
        few beats are flip-flops)."""
        block = self.inner_n * self.inner_n
        words = 2 * self.n + 2 * block + 2 * self.n + (2 * self.n if self.n1 > 1 else 0)
        return {"ram": 64 * words,
                "rom": 64 * (self.inner_n * self.inner_n + (self.n if self.n1 > 1 else 0))}

    # --- bank maps: bank(index) and address(index) of each buffer ------------------------------

    def _low(self, v):
        return v & (self.lanes - 1)

    def bank0(self, i):
        """B0 (the input x_i): i's low bits XOR the b2 bits the P1 lanes vary."""
        return self._low(i ^ (i >> _log2(self.n1 * self.inner_n)))

    def address0(self, i):
        return i >> _log2(self.lanes)

    def bank1(self, y):
        """B1 (y = a2·m + k2 of one block): (a2 XOR k2)'s low bits."""
        return self._low(y ^ (y >> _log2(self.inner_n)))

    def address1(self, y):
        return y >> _log2(self.lanes)

    def bank2(self, z):
        """B2 (z = a·m² + k2 + m·k1): k1's low bits, XOR k2's when the unload reads it (n1 = 1),
        else XOR a's low bits placed above the P3 transforms of a beat."""
        lm = _log2(self.inner_n)
        if self.n1 == 1:
            return self._low(z ^ (z >> lm))
        a = (z >> (2 * lm)) & (self.outer_lanes - 1)
        return self._low((z >> lm) ^ (a << _log2(self.groups)))

    def address2(self, z):
        if self.n1 == 1:
            return z >> _log2(self.lanes)
        lm = _log2(self.inner_n)
        return ((z >> (lm + _log2(self.lanes))) << lm) | (z & (self.inner_n - 1))

    def bank3(self, x):
        """B3 (x = k + m²·k1', the output index): x's low bits XOR the P3 group bits (k1's low
        bits) XOR k1''s low bits placed above them."""
        lm = _log2(self.inner_n)
        k1p = (x >> (2 * lm)) & (self.outer_lanes - 1)
        return self._low(x ^ ((x >> lm) & (self.groups - 1)) ^ (k1p << _log2(self.groups)))

    def address3(self, x):
        return x >> _log2(self.lanes)

    # --- per-lane indices of each access (j: the lane, an int or an Amaranth value) -----------

    def load_index(self, t, j):
        """Load beat t: x_(t·lanes + j)."""
        return (t << _log2(self.lanes)) + j

    def p1_read_index(self, a, a2, c, j):
        """P1 beat c of the transform (a, a2): b2 = c·lanes + j."""
        b2 = (c << _log2(self.lanes)) + j
        return a + (a2 << _log2(self.n1)) + (b2 << _log2(self.n1 * self.inner_n))

    def p1_write_index(self, a2, c, j):
        """P1 output beat c of (a, a2): k2 = c·lanes + j."""
        return (a2 << _log2(self.inner_n)) + (c << _log2(self.lanes)) + j

    def p2_read_index(self, k2, c, j):
        """P2 beat c of the transform (a, k2): a2 = c·lanes + j."""
        return (((c << _log2(self.lanes)) + j) << _log2(self.inner_n)) + k2

    def p2_write_index(self, a, k2, c, j):
        """P2 output beat c of (a, k2): k1 = c·lanes + j."""
        lm = _log2(self.inner_n)
        return (a << (2 * lm)) + k2 + (((c << _log2(self.lanes)) + j) << lm)

    def _p3_fields(self, s, c, j):
        """P3 beat (s, c), lane j -> (k, outer index a or k1'). With n1 <= lanes, s = (k2, h)
        and lane j = a·groups + u holds transform k = k2 + m·(h·groups + u); with n1 > lanes,
        s = k and lane j of beat c holds a = c·lanes + j."""
        lm, lg = _log2(self.inner_n), _log2(self.groups)
        if self.n1 <= self.lanes:
            k2, h = s
            u, outer = j & (self.groups - 1), j >> lg
            return k2 + (((h << lg) + u) << lm), outer
        return s, (c << _log2(self.lanes)) + j

    def p3_read_index(self, s, c, j):
        k, a = self._p3_fields(s, c, j)
        return (a << (2 * _log2(self.inner_n))) + k

    def p3_write_index(self, s, c, j):
        k, k1p = self._p3_fields(s, c, j)
        return k + (k1p << (2 * _log2(self.inner_n)))

    def unload_index(self, t, j):
        """Unload beat t: X_(t·lanes + j), natural order (from B3, or B2 when n1 = 1)."""
        return (t << _log2(self.lanes)) + j

    def m_step(self, beat):
        """Beat ``beat`` of a P1 or P2 job: (its transform's q = a2 or k2, the beat c in it)."""
        return beat >> _log2(self.m_beats), beat & (self.m_beats - 1)

    def p3_step(self, beat):
        """Beat ``beat`` of a P3 pass: (s, c) with s = (k2, h) when n1 <= lanes, else k."""
        if self.n1 <= self.lanes:
            per_k2 = self.inner_n // self.groups
            return (beat >> _log2(per_k2), beat & (per_k2 - 1)), 0
        return beat >> _log2(self.outer_beats), beat & (self.outer_beats - 1)

    def p3_steps(self):
        """The P3 beats in issue order: (s, c) pairs, n/lanes of them."""
        return [self.p3_step(b) for b in range(self.beats)]

    # --- twiddles ------------------------------------------------------------------------------

    @cached_property
    def root(self):
        """ω_n, the transform's primitive n-th root."""
        return wang_huang_root(self.n) if self.omega is None else self.omega

    @cached_property
    def twist_root(self):
        """ψ, the negacyclic twist's primitive 2n-th root."""
        return wang_huang_root(2 * self.n) if self.psi is None else self.psi

    def unit_root(self, points):
        """ω_n^(n/points): the root of the points-point shift unit (m for P1 and P2, n1 for
        P3)."""
        return pow(self.root, self.n // points, SOLINAS64)

    @cached_property
    def _roots(self):
        return self.root, pow(self.root, -1, SOLINAS64)

    def p2_twiddle(self, k2, c, j, inverse=False):
        """ω_m²^(±a2·k2) for a2 = c·lanes + j."""
        w = pow(self._roots[inverse], self.n1, SOLINAS64)
        return pow(w, (c * self.lanes + j) * k2, SOLINAS64)

    def p1_twist(self, a, beat, j):
        """ψ^i (ψ = ω_2n) for the input x_i that lane j of P1 job a reads at its beat ``beat``:
        the negacyclic forward twist."""
        q, c = self.m_step(beat)
        return pow(self.twist_root, self.p1_read_index(a, q, c, j), SOLINAS64)

    def unload_twist(self, t, j):
        """ψ^-i for the output X_i of unload beat t, lane j: the negacyclic inverse twist."""
        return pow(self.twist_root, -self.unload_index(t, j), SOLINAS64)

    def p3_twiddle(self, s, c, j, inverse=False):
        """ω_n^(±a·k) for the lane's transform k and input a."""
        k, a = self._p3_fields(s, c, j)
        return pow(self._roots[inverse], a * k, SOLINAS64)


def control_cycles(plan, mul_latency, transforms=1, *, twist_latency=0):
    """Exact cycles of ``transforms`` back-to-back transforms from the first input transfer to
    the last output transfer (input always valid, output always ready), by stepping the
    engine's control registers (see :mod:`fhe_hw.ntt.four_step_stream`) one cycle at a time.
    ``twist_latency``: cycles the unload path adds (the inverse negacyclic twist's ModMul)."""
    return control_trace(plan, mul_latency, transforms, twist_latency=twist_latency)["cycles"]


def control_trace(plan, mul_latency, transforms=1, *, twist_latency=0):
    """:func:`control_cycles` with a mark of the first transform: ``{"cycles", "in_banks"}``;
    ``in_banks`` counts from its first P1 read to the last write of
    its last pass (P3, or P2 when n1 = 1), both included: the transform with its data
    already in the banks, as [Wang13] counts its 12,500 cycles."""
    require_int("transforms", transforms, minimum=1)
    return _ControlModel(plan, mul_latency, twist_latency).run(transforms)


def spaced_trace(plan, mul_latency, starts, *, twist_latency=0):
    """The engine with transform t's input offered from cycle ``starts[t]`` (then one beat
    per cycle) and its output always ready: ``{"unload_starts": the cycle each transform's
    unload reads its first beat, "stalls": cycles an offered first beat waited for a free
    B0 slot}``. Transforms whose unload starts keep the spacing of their inputs, with no stall,
    each see the engine as if alone."""
    return _ControlModel(plan, mul_latency, twist_latency).run(len(starts), list(starts))


def pass_latencies(plan, mul_latency):
    """(m-unit, P3): cycles from a beat's read issue to the cycle its result is written: the
    bank read 1, the crossbar register 1, the twiddle multiplier, the shift unit (its beats
    per transform + 6) and the write register 1."""
    return (3 + mul_latency + plan.m_beats + 6, 3 + mul_latency + plan.outer_beats + 6)


class _ControlModel:
    """The engine's control registers without the data: the load, the m-units' job choice
    (one unit: P2 first, else P1; two: P1 on one, P2 on the other), P3 and the unload, each
    buffer with two slots, an occupancy count (fills started minus drains finished, at most 2)
    and a full flag per slot (set when the fill's last write is done, cleared with its
    drain's last read). Decisions read the
    registers as they were at the start of the cycle; a decided job issues from the next.

    A cycle in which nothing starts, ends, fills or drains (every job only counts down) is
    followed by more of them until a job's count, the load's beat, a scheduled fill or an
    offered input reaches its next event: :meth:`run` steps over those cycles at once
    (``skip``; ``skip=False`` steps each, the reference the tests compare with)."""

    def __init__(self, plan, mul_latency, twist_latency):
        self.p, self.twist = plan, twist_latency
        self.lat_m, self.lat_3 = pass_latencies(plan, mul_latency)
        self.units = plan.unit_passes

    def _m_unit(self, cur, s, u, kinds, cycle, clear, commit, occ_delta, marks):
        """One cycle of m-unit ``u``, which runs the jobs of ``kinds``."""
        p, outer = self.p, self.p.n1 > 1
        job = cur["m"][u]
        free = job is None
        if job is not None:
            kind, (tslot, a, bslot), left = job
            marks.setdefault("first_read", cycle)
            s["m"][u] = (kind, (tslot, a, bslot), left - 1) if left > 1 else None
            if left == 1:
                free = True
                if kind == "P1":
                    commit(cycle + self.lat_m, 1, bslot)
                    if a == p.n1 - 1:
                        clear(0, tslot)
                else:
                    clear(1, bslot)
                    if a == p.n1 - 1:
                        commit(cycle + self.lat_m, 2, tslot)
                        if not outer:
                            marks.setdefault("last_write", cycle + self.lat_m)
        if not free:
            return
        tslot, a, bslot = cur["p2"]
        if 1 in kinds and cur["full"][1][bslot] and (a != 0 or cur["occ"][2] < 2):
            occ_delta[2] += a == 0
            s["m"][u] = ("P2", cur["p2"], p.block_beats)
            s["p2"] = self._advance(cur["p2"])
            return
        tslot, a, bslot = cur["p1"]
        if 0 in kinds and cur["full"][0][tslot] and cur["occ"][1] < 2:
            occ_delta[1] += 1
            s["m"][u] = ("P1", cur["p1"], p.block_beats)
            s["p1"] = self._advance(cur["p1"])

    def run(self, transforms, starts=None, *, skip=True):
        """Step the engine for ``transforms``; ``starts``: the cycle from which each
        transform's input is offered (default: back to back), then one beat per cycle;
        ``skip``: step over runs of quiet cycles at once (the same result)."""
        s = {"full": [[False, False] for _ in range(4)], "occ": [0, 0, 0, 0],
             "in_beat": 0, "in_slot": 0, "loaded": 0,
             "m": [None] * len(self.units),
             "p1": (0, 0, 0), "p2": (0, 0, 0),                  # (transform slot, a, B1 slot)
             "p3": None, "p3_slot": 0, "u": None, "u_slot": 0}
        commits, cycle, marks = {}, 0, {}
        tally = {"issued": 0, "last_read": None, "unload_starts": [], "stalls": 0}
        while tally["issued"] < transforms * self.p.beats:
            cur = s
            s = {k: (v if not isinstance(v, list) else [list(x) if isinstance(x, list) else x
                                                        for x in v]) for k, v in cur.items()}
            occ_delta = [0, 0, 0, 0]
            events = []
            clear = self._clearer(s, occ_delta, events)
            commit = self._committer(commits, events)
            self._load(cur, s, cycle, commit, occ_delta, tally, starts, transforms)
            # the m-unit(s): one takes P2 when its block is ready, else P1; or one each
            for u, kinds in enumerate(self.units):
                self._m_unit(cur, s, u, kinds, cycle, clear, commit, occ_delta, marks)
            if self.p.n1 > 1:
                self._p3(cur, s, cycle, clear, commit, occ_delta, marks)
            self._unload(cur, s, cycle, clear, tally)
            # end of the cycle: occupancies, and the fills whose last write is this cycle
            s["occ"] = [o + d for o, d in zip(cur["occ"], occ_delta)]
            for buf, slot in commits.pop(cycle, []):
                events.append(buf)
                s["full"][buf][slot] = True
            cycle += 1
            if skip and not events and self._quiet(cur, s):
                cycle += self._skip(s, cycle, commits, starts, transforms, tally)
        # read -> data -> register (-> the twist's ModMul) -> FIFO write -> output transfer
        return {"cycles": tally["last_read"] + 3 + self.twist + 1,
                "in_banks": marks["last_write"] - marks["first_read"] + 1,
                "unload_starts": tally["unload_starts"], "stalls": tally["stalls"]}

    def _load(self, cur, s, cycle, commit, occ_delta, tally, starts, transforms):
        """One cycle of the load: a beat when a transform's input is offered (from its start
        cycle) and, for its first beat, B0 has a free slot; a stall when it has none."""
        offered = cur["loaded"] < transforms and (
            starts is None or cur["in_beat"] != 0 or cycle >= starts[cur["loaded"]])
        if offered and cur["in_beat"] == 0 and cur["occ"][0] == 2:
            tally["stalls"] += 1
        if offered and (cur["in_beat"] != 0 or cur["occ"][0] < 2):
            if cur["in_beat"] == 0:
                occ_delta[0] += 1
            s["in_beat"] = cur["in_beat"] + 1
            if s["in_beat"] == self.p.beats:
                commit(cycle + 1, 0, cur["in_slot"])
                s["in_beat"], s["in_slot"] = 0, cur["in_slot"] ^ 1
                s["loaded"] = cur["loaded"] + 1

    def _p3(self, cur, s, cycle, clear, commit, occ_delta, marks):
        """One cycle of P3 (n1 > 1): it drains B2's next full slot into B3 when B3 has a free
        slot."""
        free = cur["p3"] is None
        if cur["p3"] is not None:
            slot, left = cur["p3"]
            s["p3"] = (slot, left - 1) if left > 1 else None
            if left == 1:
                free = True
                clear(2, slot)
                commit(cycle + self.lat_3, 3, slot)
                marks.setdefault("last_write", cycle + self.lat_3)
        if free and cur["full"][2][cur["p3_slot"]] and cur["occ"][3] < 2:
            occ_delta[3] += 1
            s["p3"] = (cur["p3_slot"], self.p.beats)
            s["p3_slot"] = cur["p3_slot"] ^ 1

    def _unload(self, cur, s, cycle, clear, tally):
        """One cycle of the unload: a read of each beat of B3's (B2's when n1 = 1) next full
        slot."""
        ubuf = 3 if self.p.n1 > 1 else 2
        free = cur["u"] is None
        if cur["u"] is not None:
            slot, left = cur["u"]
            tally["issued"] += 1
            tally["last_read"] = cycle
            s["u"] = (slot, left - 1) if left > 1 else None
            if left == 1:
                free = True
                clear(ubuf, slot)
        if free and cur["full"][ubuf][cur["u_slot"]]:
            tally["unload_starts"].append(cycle + 1)
            s["u"] = (cur["u_slot"], self.p.beats)
            s["u_slot"] = cur["u_slot"] ^ 1

    def _skip(self, s, cycle, commits, starts, transforms, tally):
        """Step state ``s`` over the quiet cycles from ``cycle`` on (:meth:`_quiet_cycles`):
        every job's count, the unload's reads and the load's beat (or its stalls) advance by
        their number, which is returned."""
        k = self._quiet_cycles(s, cycle, commits, starts, transforms)
        if k <= 0:
            return 0
        s["m"] = [None if job is None else (*job[:-1], job[-1] - k) for job in s["m"]]
        for key in ("p3", "u"):
            if s[key] is not None:
                s[key] = (*s[key][:-1], s[key][-1] - k)
        if s["u"] is not None:
            tally["issued"] += k
            tally["last_read"] = cycle + k - 1
        if s["loaded"] < transforms:
            if s["in_beat"]:
                s["in_beat"] += k
            elif starts is None or cycle >= starts[s["loaded"]]:
                tally["stalls"] += k     # offered, both B0 slots taken
        return k

    @staticmethod
    def _clearer(state, occ_delta, events):
        """clear(buf, slot): a drain's last read, at the end of this cycle."""
        def clear(buf, slot):
            events.append(buf)
            state["full"][buf][slot] = False
            occ_delta[buf] -= 1
        return clear

    @staticmethod
    def _committer(commits, events):
        """commit(at, buf, slot): the fill's last write happens in cycle ``at``."""
        def commit(at, buf, slot):
            events.append(buf)
            commits.setdefault(at, []).append((buf, slot))
        return commit

    @staticmethod
    def _quiet(cur, s):
        """Whether the cycle from ``cur`` to ``s`` decided nothing: no job started or ended
        and every register a decision reads is unchanged (fills and drains are checked by the
        caller)."""
        if any(cur[k] != s[k] for k in ("full", "occ", "p1", "p2", "p3_slot", "u_slot",
                                        "loaded", "in_slot")):
            return False
        return all((a is None) == (b is None)
                   for a, b in [*zip(cur["m"], s["m"]), (cur["p3"], s["p3"]),
                                (cur["u"], s["u"])])

    def _quiet_cycles(self, s, cycle, commits, starts, transforms):
        """How many cycles from ``cycle`` on (state ``s``) repeat the quiet cycle before: up to
        the one in which a job's count ends, the load's last beat, a scheduled fill or an
        input offered from its start cycle."""
        bound = [min(commits) - cycle] if commits else []
        bound += [job[-1] - 1 for job in (*s["m"], s["p3"], s["u"]) if job is not None]
        if s["loaded"] < transforms:
            if s["in_beat"]:
                bound.append(self.p.beats - 1 - s["in_beat"])
            elif starts is not None and cycle < starts[s["loaded"]]:
                bound.append(starts[s["loaded"]] - cycle)
            elif s["occ"][0] < 2:
                return 0            # an offered first beat starts a fill
        return min(bound) if bound else 0

    def _advance(self, position):
        tslot, a, bslot = position
        a = (a + 1) % self.p.n1
        return (tslot ^ (a == 0), a, bslot ^ 1)
