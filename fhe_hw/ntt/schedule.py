"""Pure-Python schedules, bank maps, addresses and cycle counts of the memory-based NTT engines
(:class:`~fhe_hw.ntt.StreamingNTT`, :class:`~fhe_hw.ntt.FourStepNTT`). They build no hardware:
the engines evaluate the same formulas on Amaranth values (the functions written with shifts,
masks and xors take ints or Amaranth values alike), the tests check their conflict freedom and
the unit timing contracts use the cycle counts.

Radix-2 engine ([Cao14] §3.2, [Wang13] §IV): coefficient i of an n-point transform lives in bank
:func:`bank_of` (i, b) of 2^b banks at address :func:`address_of` (i, b); :func:`schedule` is
the compute phase's issue order, :func:`crossbar_bank`/:func:`crossbar_position` the
pair-structured crossbars, :func:`twiddle_index` the twiddle ROM address and :func:`cycles` the
exact cycle count (see :mod:`fhe_hw.ntt.streaming`).

Four-step engine ([Wang13] §IV-C, eqs 7–8, Figs 3–4): the memory plan for solinas64 with
n = 4096 = 64 x 64 and 65536 = 16 x 4096, in place in 8 banks, 8 samples per cycle (the
radix-64 unit of [Wang13] §IV-A takes 8 per cycle). :func:`four_step_schedule` is the plan,
:func:`run_four_step_schedule` executes it against the model's shift transforms, and
:func:`four_step_position`, :func:`four_step_unload_position`, :func:`four_step_twiddle` are
the addresses the hardware issues; :func:`four_step_cycles` its exact cycle count (see
:mod:`fhe_hw.ntt.four_step`).
"""

from ..model.ntt import shift_ntt, wang_huang_root
from ..model.reduce import solinas_reduce
from ..params import SOLINAS64, require_power_of_two

__all__ = ["MIN_N", "MAX_N", "bank_of", "address_of", "stage_window", "crossbar_bank",
           "crossbar_position", "twiddle_index", "schedule", "cycles", "period", "compute_cycles",
           "READ_STAGES", "MAX_READ_STAGES", "WRITE_STAGES", "MAX_WRITE_STAGES", "FOUR_STEP_LANES",
           "FOUR_STEP_PHASES", "four_step_fields", "four_step_bank", "four_step_schedule",
           "four_step_output_position", "run_four_step_schedule", "four_step_position",
           "four_step_unload_position", "four_step_twiddle", "four_step_cycles"]

MIN_N = 16
MAX_N = 65536
#: Registers on the radix-2 engine's read path, in the order they are added (the read
#: addresses, each bank's output, the read network between its pair swaps and its position
#: permutation): the default and the most it accepts.
READ_STAGES = 3
MAX_READ_STAGES = 4
#: Registers on its write-back path (between the write-back permutation and the pair swaps):
#: the default and the most it accepts.
WRITE_STAGES = 1
MAX_WRITE_STAGES = 1


# --- radix-2 engine: bank mapping, schedule, cycles -----------------------------------------------

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


def twiddle_index(s, up, log_n, inverse, gs=False):
    """ROM address of the twiddle of the butterfly with upper index ``up`` in stage s: 2^s plus
    the block number (forward) or the position in the block (inverse), so every stage's
    distinct twiddles are one contiguous run of 2^s entries; with ``gs`` (the Gentleman–Sande
    negacyclic inverse, :func:`fhe_hw.model.ntt.gs_table`), n/2^(s+1) plus the block number."""
    if gs:
        return (1 << (log_n - s - 1)) + (up >> (s + 1))
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


def cycles(n, butterflies=1, *, lanes=None, butterfly_latency, read_stages=READ_STAGES,
           write_stages=WRITE_STAGES, ping_pong=False):
    """Exact cycles from the first input transfer to the last output transfer of one transform
    with always-valid input and always-ready output: 2·n/lanes (load and unload) +
    log2(n)·(n/(2P) + butterfly_latency + 2 + D + W) (stages and their pipeline drains) +
    3 + read_stages (memory read, the read path's registers, crossbar register, output FIFO).
    ``lanes`` defaults to 2P; ``read_stages`` (:data:`READ_STAGES` by default) is the number
    of registers on the read path: the first registers the bank read addresses, which delays
    reads and write-backs alike and so adds no drain, the others (D = read_stages - 1 of them)
    sit after the banks and lengthen every stage's drain; the W = ``write_stages`` registers
    (:data:`WRITE_STAGES` by default) on the write-back path lengthen every stage's drain
    too. With ``ping_pong`` (two sets of banks, the engine's ``ping_pong``) one cycle more: a
    set's load ends a cycle before it may start computing."""
    return period(n, butterflies, lanes=lanes, butterfly_latency=butterfly_latency,
                  read_stages=read_stages, write_stages=write_stages) + 3 + read_stages + \
        ping_pong


def period(n, butterflies=1, *, lanes=None, butterfly_latency, read_stages=READ_STAGES,
           write_stages=WRITE_STAGES, ping_pong=False):
    """Cycles from one transform's first input transfer to the next one's, back to back
    (always-valid input, always-ready output): 2·n/lanes (load and unload) +
    :func:`compute_cycles`. The next load starts once the last output read has been issued, so
    :func:`cycles` is this plus the read path and the output FIFO. With ``ping_pong`` (two sets
    of banks, the engine's ``ping_pong``) the load and unload overlap the compute phase of the
    other set, and the period is :func:`compute_cycles` alone."""
    lanes = 2 * butterflies if lanes is None else lanes
    compute = compute_cycles(n, butterflies, butterfly_latency=butterfly_latency,
                             read_stages=read_stages, write_stages=write_stages)
    return compute + (0 if ping_pong else 2 * (n // lanes))


def compute_cycles(n, butterflies=1, *, butterfly_latency, read_stages=READ_STAGES,
                   write_stages=WRITE_STAGES):
    """Cycles of one transform's compute phase: log2(n)·(n/(2P) + butterfly_latency + 2 + D +
    W), its stages and their drains (D = max(read_stages - 1, 0), W = write_stages)."""
    log_n = n.bit_length() - 1
    drain = butterfly_latency + 2 + max(read_stages - 1, 0) + write_stages
    return log_n * (n // (2 * butterflies) + drain)


# --- four-step engine: the plan ([Wang13] §IV-C, eqs 7–8, Figs 3–4)
# ------------------------------------

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
    """Bank of index i in the four-step plan: the XOR of the :func:`four_step_fields` of i (an
    int, or an Amaranth value for the hardware's bank fold)."""
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


def run_four_step_schedule(x, inverse=False, omega=None):
    """Execute :func:`four_step_schedule` on x with the model's shift transforms and Solinas
    reduction; returns X in natural order (equal to ``ntt4096``/``ntt65536`` of x with the same
    ``omega``, default ``wang_huang_root(n)``)."""
    n = len(x)
    omega = wang_huang_root(n) if omega is None else omega
    w = pow(omega, -1, SOLINAS64) if inverse else omega
    mem = list(x)
    for phase in four_step_schedule(n):
        for points, positions, exponents in phase:
            samples = [mem[p] for p in positions]
            if exponents is not None:
                samples = [solinas_reduce(v * pow(w, e, SOLINAS64))
                           for v, e in zip(samples, exponents)]
            unit_root = pow(omega, n // points, SOLINAS64)
            for p, v in zip(positions, shift_ntt(samples, inverse, unit_root)):
                mem[p] = v
    return [mem[four_step_output_position(k, n)] for k in range(n)]


# --- four-step engine: hardware addresses and cycles ----------------------------------------------

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
    :meth:`~fhe_hw.ntt.shift.ShiftNTTPlan.cycles`), the write and two control cycles.
    4096: 1024 + 2·(512 + Lm + 17) + 3; 65536: 16384 + 2·(8192 + Lm + 17) + (8192 + Lm + 11)
    + 3."""
    four_step_fields(n)
    return 2 * (n // FOUR_STEP_LANES) + sum(t * b + mul_latency + b + 9
                                            for t, b, _ in FOUR_STEP_PHASES[n]) + 3

