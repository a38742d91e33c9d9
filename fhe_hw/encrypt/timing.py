"""Exact cycle counts of :class:`~fhe_hw.encrypt.TransformEncrypt`: its control, one event per
job, pass and inverse, in the order the hardware takes them (pure Python, no simulation).

The forward and inverse engines are used only in the regime where each transform passes as if
alone: jobs start at least :func:`lone_spacing` cycles apart (checked on the engine's own
control model, :func:`~fhe_hw.ntt.four_step_plan.spaced_trace`), each transform's input is
n/lanes beats in a row, and its output is never held back — the model raises
``RuntimeError`` if a schedule would hold it (a MAC slot still in use). A transform whose
first input transfer is at cycle F then has its output beats at F + Lo + b, b < n/lanes,
Lo = (the engine's one-transform cycles) - n/lanes.
"""

from dataclasses import dataclass
from functools import cache

from ..bigint.wordalu import alu_cycles
from ..largeint.carry import CarryResolver
from ..ntt.four_step_plan import spaced_trace
from .sstage import SStageUnit
from .sums import MAC_WRITE_LATENCY

__all__ = ["lone_spacing", "EngineTiming", "program_cycles", "spacings"]

#: transforms checked by :func:`lone_spacing`
_CHECKED = 4


@cache
def lone_spacing(engine):
    """The least spacing s (a multiple of n/(8·lanes) above the engine's back-to-back
    increment) at which transforms started s cycles apart keep that spacing at the unload
    and never wait for the load: each passes the engine of plan ``engine``
    (:class:`~fhe_hw.ntt.StreamingFourStepNTTPlan`) as if alone."""
    plan, latency = engine.four_step, engine.mul_latency
    beats = plan.beats
    s = max(beats, engine.cycles(2) - engine.cycles())
    while True:
        trace = spaced_trace(plan, latency, [t * s for t in range(_CHECKED)])
        u = trace["unload_starts"]
        if trace["stalls"] == 0 and all(u[t] - u[0] == t * s for t in range(_CHECKED)):
            return s
        s += max(1, beats // 8)


@dataclass(frozen=True)
class EngineTiming:
    """The constants of one configuration: beats per transform ``B``, the forward and inverse
    engines' first-input-to-first-output ``lo_forward`` / ``lo_inverse``, their
    :func:`lone_spacing` and the ModMul's latency."""

    beats: int
    lo_forward: int
    lo_inverse: int
    spacing_forward: int
    spacing_inverse: int
    mul_latency: int

    @classmethod
    def of(cls, forward, inverse):
        """The constants of the engines of plans ``forward`` and ``inverse``
        (:class:`~fhe_hw.ntt.StreamingFourStepNTTPlan`, one transform size)."""
        beats = forward.input_beats
        return cls(beats, forward.cycles() - beats, inverse.cycles() - beats,
                   lone_spacing(forward), lone_spacing(inverse), forward.mul_latency)


def spacings(program, t):
    """Each sum's job spacing: the engine's lone spacing, and at least passes·n/lanes so that
    the MAC keeps up with the transforms."""
    return [max(t.spacing_forward, s.passes_per_job * t.beats) for s in program.sums]


def _sum_cycles(program, t, index, spacing, a, trace):
    """The cycle at which the done beat of sum ``index`` (command transfer at cycle ``a``)
    is visible; appends the forward inputs' first transfers to ``trace`` (unless None).

    Without the S stage every job waits only for the one before: job j's command is read at
    r_j = a + 3 + j·D, D = max(B + 1, spacing - 1) + 1, and as spacing ≥ passes·B
    (:func:`spacings`) the MAC's first pass of job j waits for that job's spectrum, so the
    last pass is a closed form (:func:`_walk_jobs` steps the same rules job by job, as it
    must with the S stage)."""
    s, B = program.sums[index], t.beats
    if s.s_stage:
        final = _walk_jobs(program, s, t, spacing, a, trace)
    else:
        jobs, passes = len(s.jobs), s.passes_per_job
        step = max(B + 1, spacing - 1) + 1
        if passes * B > step:
            raise RuntimeError(f"{passes} passes of {B} beats per job would make the MAC fall "
                               f"behind transforms {step} cycles apart: raise the spacing")
        if trace is not None:
            trace.extend(a + 4 + j * step for j in range(jobs))
        # the last job's spectrum is ready at r + 1 + Lo + B; its passes follow back to back
        final = a + 3 + (jobs - 1) * step + 1 + t.lo_forward + B + 1 + passes * B - 1
    return _inverses_done(s, t, a, final)


def _walk_jobs(program, s, t, spacing, a, trace):
    """The cycle of the MAC's last beat of sum ``s`` of ``program``, job by job (the S
    stage's writes, the feeder, the forward engine and the MAC passes)."""
    B = t.beats
    # S stage: the cycle each term's last word is written
    written = []
    if s.s_stage:
        cfg = program.s_stage
        per = SStageUnit.term_cycles(cfg)
        wait = a + 1
    # feeder and engine
    starts, x_ready = [], []
    fed_visible = []                 # cycle from which the feeder has read term t
    e = a + 2
    prev = None
    term = 0
    for job in s.jobs:
        if s.s_stage and len(written) <= term:
            i = len(written)
            u = wait if i < 2 else max(wait, fed_visible[i - 2])
            last = u + per
            written.append(last + SStageUnit.WRITE_LATENCY)
            wait = last + 1
        u = e
        if prev is not None:
            u = max(u, prev + spacing - 1)
        if s.s_stage:
            u = max(u, written[term] + 1)
        r = u + 1
        starts.append(r + 1)
        x_ready.append(r + 1 + t.lo_forward + B)
        if job.term_last:
            fed_visible.append(r + B)
            term += 1
        prev, e = r, r + B + 1
    if trace is not None:
        trace.extend(starts)
    # MAC
    job_of = [j for j in range(len(s.jobs)) for _ in range(s.passes_per_job)]
    last_pass = {}
    p = None
    for job in job_of:
        p = max(a + 2, x_ready[job]) + 1 if p is None else max(p + B, x_ready[job] + 1)
        last_pass[job] = p
    for j in range(2, len(s.jobs)):
        if starts[j] + t.lo_forward < last_pass[j - 2] + 1:
            raise RuntimeError(f"job {j}: the engine's output would wait for the X buffer, which "
                               f"this timing model does not cover: raise the spacing")
    return p + B - 1


def _inverses_done(s, t, a, final):
    """The cycle at which the done beat of sum ``s`` is visible after the MAC's last beat at
    ``final``: the accumulators through the inverse engine and the carries."""
    B = t.beats
    if not s.inverses:
        return final + 3
    macs_done = final + t.mul_latency + MAC_WRITE_LATENCY
    u = max(a + 2, macs_done)
    r = None
    for _ in s.inverses:
        r = u + 1 if r is None else max(u, r + t.spacing_inverse - 1) + 1
        u = r + B + 1
    return r + 1 + t.lo_inverse + B - 1 + CarryResolver.LATENCY + 1


def program_cycles(program, t, ops, *, trace=None):
    """Cycles of one program (``ops``): from the start transfer on ``i`` to the done transfer
    on ``o``, both included. ``trace`` (a list), if given, gets every sum's forward first
    input transfers."""
    sp = spacings(program, t)
    cycle = 1                                        # FETCH of the first operation
    for op in ops:
        a = cycle + 1                                # ISSUE: the command's transfer
        if op[0] == "sum":
            done = _sum_cycles(program, t, op[1], sp[op[1]], a, trace)
        else:
            done = a + alu_cycles(op[2]["n"]) - 1
        cycle = done + 1
    return cycle + 1
