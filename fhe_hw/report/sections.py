"""The report's sections, one function per paper table (see :mod:`.core`).

Adding a section: write ``def name(ctx) -> Part`` decorated with ``@section(paper, title,
synth_rows=...)``; import the units inside it; raise :class:`Unavailable` when a unit is
missing. Each table cites the paper file and table its paper columns come from
(:mod:`fhe_hw.tables.paper`).
"""

import inspect
import json

from .. import builddir
from ..arith.configs import MODMULS, REDUCERS
from ..arith.pipeline import MULTIPLIER_FLAGS
from ..bench.openfhe import BASE_SETS, NTT_SIZES, OPERATIONS, PRODUCT_SIZES
from ..bigint import CMNTEncryptPlan, CNTEncryptPlan, IntegerFFTMultiplierPlan
from ..bigint.configs import MULTIPLIERS, REPORT_MODMULS, REPORT_SMALL
from ..encrypt import ENCRYPTION, KEY_PREPARATION, TransformEncryptPlan
from ..flow.rows import Row, shown
from ..flow.synth import ECP5_85F_DSP, atp_area, dsp_limit, product_rate
from ..karatsuba import KaratsubaMultiplierPlan
from ..karatsuba.configs import REPORT_ROWS as KARATSUBA_ROWS
from ..largeint import LargeIntegerMultiplierPlan
from ..link import HostLinkTop
from ..model.ntt import modular_products as ntt_products
from ..model.rns import modular_products as rns_products
from ..ntt import FourStepNTTPlan, StreamingFourStepNTTPlan, StreamingNTTPlan
from ..ntt.configs import REPORT_STREAMING, STREAMING_TABLE
from ..ntt.four_step_plan import FourStepPlan, control_cycles, control_trace
from ..params import ntt_primes
from ..poly.configs import (
    EXTEND_TABLE,
    POLY_MODMULS,
    POLY_TABLE,
    PRODUCT_TABLE,
    extension_of,
    towers_of,
)
from ..rns import Kawamura, MixedRadix, ShenoyKumaresan, ShenoyKumaresanPlan, default_bases
from ..rns.configs import ITERATION_SETS, sk
from ..rns.configs import REPORT_ROWS as RNS_ROWS
from ..rns.configs import ROUTED as RNS_ROUTED
from ..rns.configs import TARGET as RNS_TARGET
from ..tables import paper as P
from ..tables.poly import modular_products as poly_products
from ..tables.poly import timing as poly_timing
from ..units import get_unit
from .core import Part, Plot, Table, Unavailable, ratio, section

SOLINAS = "solinas64"


def _slower(what, r, threshold=1.0):
    """A plain finding for ratio ``r`` = ours / paper of a time, cycles or area."""
    if r is None:
        return None
    if abs(r - 1) < 1e-9:
        return f"{what}: the same as the paper's."
    if r > threshold:
        return f"{what}: ours is {r:.4g}x the paper's (we are slower/larger)."
    return f"{what}: ours is {r:.4g}x the paper's (we are faster/smaller)."


def _find(findings, *items):
    findings.extend(i for i in items if i)


def _synth_row(row):
    """(unit, params, flow, options) of a configs row, as the report's synthesis cache and
    :meth:`Context.synth <fhe_hw.report.core.Context.synth>` take it."""
    return (row.unit, row.params, row.target, row.options)


# --- 000 / 001: integer FHE encryption ---------------------------------------------------------

#: [Cao13] Table 4's Integer-FFT configurations (k, b; d = kb/16, kb/2d = 8), from
#: fhe_hw.bigint.configs.
_BIGINT = {m: (MULTIPLIERS[m]["n"], MULTIPLIERS[m]["digit_bits"])
           for m in ("fermat32", "general32", "fermat64", "solinas64")}
#: The reduced transform that fits the LFE5U-85F's 156 MULT18X18D (the documented table's row).
_BIGINT_SMALL = _synth_row(REPORT_SMALL)
_TOY_BITS = 160_000     # φ of the toy group ([Cao14] Table 1)


def _bigint_rows():
    """The ModMul of each modulus (the DSP lower bound) and the reduced multiplier."""
    return [_synth_row(row) for row in REPORT_MODMULS] + [_BIGINT_SMALL]


@section("000", "[Cao13] Tables 4–6: super-size multiplier and CMNT encryption primitive",
         _bigint_rows)
def supersize_multiplier(ctx):

    t4, t5 = P.P000_T4.rows, P.P000_T6.rows["CMNT 2^64-2^32+1"]
    t = Table(f"Super-size multiplier, one φ × φ product at φ = {_TOY_BITS:,} bits",
              P.P000_T4.source,
              ["modulus", "k, b, d", "cycles()", "[Cao13] eq. (12)", "our DSP ≥ k·mod-mul",
               "paper DSP48E1", "paper Fmax MHz", "paper FF", "paper LUT",
               "time at paper Fmax (µs)"])
    findings = []
    for m, (k, b) in _BIGINT.items():
        # from the plan, not a built multiplier (building its k-point transforms takes minutes)
        plan = IntegerFFTMultiplierPlan(m, k, b, max_bits=_TOY_BITS)
        d = plan.config.d
        cyc, eq12 = plan.cycles(), plan.cycles_eq12()       # x = y = max_words = ⌈φ/d⌉
        mm = ctx.synth("mod-mul", {"modulus": m})
        dsp = k * mm.dsp if mm else None
        t.rows.append([m, f"{k}, {b}, {d}", cyc, eq12, dsp,
                       t4[m]["dsp"], t4[m]["fmax_mhz"], t4[m]["ff"], t4[m]["lut"],
                       cyc / t4[m]["fmax_mhz"]])
        if dsp:
            findings.append(f"{m}: the k = {k} point-wise multipliers alone need {dsp} "
                            f"MULT18X18D; the LFE5U-85F has 156, so this row is not placed "
                            f"here (no Fmax, no LUT/FF of ours).")
    t.notes += ["cycles() is the multiplier's exact count (tests tie it to simulation); it "
                "is eq. (12) with this unit's stage depths + 4 (command, block register, write "
                "register, done).",
                "Our DSP column is a lower bound from the synthesized ModMul of the same "
                "modulus, not a synthesis of the whole multiplier."]
    r = ctx.synth(*_BIGINT_SMALL)
    u = Table("The reduced multiplier that fits ECP5-85F (fermat32, k = 16, b = 14, d = 14)",
              "measured here", ["LUT", "FF", "DSP", "BRAM", "Fmax MHz",
                                "paper fermat32 (k = 64) Fmax MHz", "Fmax ours / paper"])
    u.rows.append([r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz, t4["fermat32"]["fmax_mhz"],
                   ratio(r.fmax_mhz, t4["fermat32"]["fmax_mhz"])] if r else
                  [f"no result ({ctx.why(*_BIGINT_SMALL)}); --full synthesizes it, about "
                   "20 min"] + [None] * 6)
    e = Table("CMNT encryption (toy group), cycles: ours beside [Cao13] Table 6 × Table 5 Fmax",
              f"{P.P000_T6.source}; {P.P000_T4.source}",
              ["config", "schedule", "cycles()", "paper cycles (time × Fmax)",
               "ours / paper"])
    k, b = _BIGINT["solinas64"]
    paper_cycles = round(t5["toy"] * t4["solinas64"]["fmax_mhz"] * 1e6)
    for schedule in ("paper", "factored"):
        cyc = CMNTEncryptPlan("toy", schedule, modulus="solinas64", n=k, digit_bits=b).cycles()
        e.rows.append([f"solinas64 k={k} b={b}", schedule, cyc, paper_cycles,
                       ratio(cyc, paper_cycles)])
        _find(findings, _slower(f"CMNT toy encryption cycles, {schedule} schedule",
                                ratio(cyc, paper_cycles)))
    e.notes.append("The paper's cycles are its time at its own synthesis Fmax; the θ² block "
                   "products of its order are quadratic in the blocks per operand, and we "
                   "could not reproduce 0.815 ms from eq. (12) (README, Big-integer "
                   "multiplier).")
    return Part([t, u, e], [], findings)


@section("000",
"[Cao13] Table 6 / [Cao14] Table 4: CMNT encryption time, paper hardware vs GMP here")
def cmnt_encryption(ctx):
    timings = {t["params"]["group"]: t for t in ctx.baseline("GMP CMNT") if "params" in t}
    if not timings:
        raise Unavailable("baselines disabled or gmpy2 missing (pip install -e .[bench])")
    ref = P.P000_T6.rows
    best_hw = "CMNT 2^64-2^32+1"
    t = Table("CMNT encryption ([Cao14] eq. 1), seconds", f"{P.P000_T6.source}; {P.P001_T4.source}",
              ["group", "δ, φ, θ", "paper HW (2^64-2^32+1)", "paper software [8]",
               "GMP here (median)", "runs", "paper HW / GMP here", "GMP here / paper software"])
    series = {"paper HW 2^64-2^32+1": [], "paper HW 2^32+1": [], "paper software [8]": [],
              "GMP here": []}
    findings = []
    for i, group in enumerate(("toy", "small", "medium", "large")):
        g = timings.get(group)
        ours = g["median_s"] if g else None
        p = g["params"] if g else None
        t.rows.append([group, f"{p['delta']}, {p['phi']}, {p['theta']}" if p else None,
                       ref[best_hw][group], ref["CMNT software [8]"][group], ours,
                       g["repeat"] if g else None, ratio(ref[best_hw][group], ours),
                       ratio(ours, ref["CMNT software [8]"][group])])
        x = i + 1
        series["paper HW 2^64-2^32+1"].append((x, ref[best_hw][group]))
        series["paper HW 2^32+1"].append((x, ref["CMNT 2^32+1"][group]))
        series["paper software [8]"].append((x, ref["CMNT software [8]"][group]))
        series["GMP here"].append((x, ours))
        if ours is not None:
            r = ref[best_hw][group] / ours
            findings.append(f"{group}: the paper's Virtex-7 design ({best_hw}) takes {r:.3g}x "
                            f"the time of GMP on this machine "
                            f"({'hardware faster' if r < 1 else 'GMP faster'}).")
    t.notes.append("The large group runs only with --full (19 Mbit keys).")
    t.notes.append("Our hardware's cycles for the same encryption are in the section above.")
    return Part([t], [Plot("cmnt_encryption", "CMNT encryption time (1=toy … 4=large)",
                           "group", "seconds", series, logx=False)], findings)


#: The block-schoolbook engines beside TransformEncrypt: [Cao13] Table 4's solinas64 transform,
#: CMNT with the factored schedule.
_SCHOOLBOOK = "solinas64 k=128 b=28, CMNT factored"


def _sky130_encryption_clocks():
    """{(scheme, group): MHz} of the last ``fhe-hw table encrypt-asic`` run
    (build/tables/encrypt-asic.json), or {} when it has not run."""
    path = builddir.ROOT / "tables" / "encrypt-asic.json"
    if not path.exists():
        return {}
    return {tuple(k.split()): v["fmax_mhz"] for k, v in json.loads(path.read_text()).items()}


@section("000", "CMNT and CNT encryption through transforms (fhe_hw.encrypt) beside [Cao13] "
         "Table 6 and GMP")
def transform_encryption(ctx):
    gmp = {}
    for scheme in ("CMNT", "CNT"):
        for b in ctx.baseline(f"GMP {scheme} encryption"):
            if "params" in b:
                gmp[scheme.lower(), b["params"]["group"]] = b["median_s"]
    clocks = _sky130_encryption_clocks()
    paper_mhz = P.P000_T6.extra["fmax_mhz"]
    t = Table("TransformEncrypt at 16 lanes, two m-units: one encryption",
              f"cycles() here; {P.P000_T6.source} (2^64-2^32+1 rows × its 166.45 MHz); GMP "
              "on this machine",
              ["scheme", "group", "cycles()", "key preparation cycles()", "Table 6 cycles",
               "ours / Table 6", f"block-schoolbook cycles() ({_SCHOOLBOOK})",
               "GMP here (ms)", "ms at 166.45 MHz", "GMP / ours at 166.45 MHz",
               "our sky130 estimate (MHz)", "ms at that clock", "GMP / ours at that clock"])
    findings = []
    k, b = _BIGINT["solinas64"]
    for scheme in ("cmnt", "cnt"):
        for group in ("toy", "small", "medium", "large"):
            both = TransformEncryptPlan(scheme, group, lanes=16).cycles_per_program()
            c, key = both[ENCRYPTION], both[KEY_PREPARATION]
            paper = P.table6_cycles(scheme, group)
            g = gmp.get((scheme, group))
            g_ms = g * 1e3 if g is not None else None
            at_paper = c / paper_mhz / 1e3
            mhz = clocks.get((scheme, group))
            at_ours = c / mhz / 1e3 if mhz else None
            mult = dict(modulus=SOLINAS, n=k, digit_bits=b)
            schoolbook = (CMNTEncryptPlan(group, "factored", **mult) if scheme == "cmnt" else
                          CNTEncryptPlan(group, **mult)).cycles()
            t.rows.append([scheme.upper(), group, c, key, paper, ratio(c, paper), schoolbook,
                           g_ms,
                           at_paper, ratio(g_ms, at_paper) if g_ms else None, mhz, at_ours,
                           ratio(g_ms, at_ours) if g_ms and at_ours else None])
            _find(findings, _slower(f"{scheme.upper()} {group} encryption cycles", ratio(c, paper)))
            if g_ms and at_ours:
                findings.append(f"{scheme.upper()} {group}: {at_ours:.3g} ms at our sky130 "
                                f"estimate of {mhz:.1f} MHz, {g_ms / at_ours:.3g}x GMP here "
                                f"({g_ms:.3g} ms).")
    t.notes += ["cycles() are TransformEncrypt's exact counts (tests/test_encrypt.py ties them to "
                "pysim, tools/cosim_encrypt.py to Verilator at the toy groups); the key "
                "preparation runs once per public key and is not in the encryption's time.",
                "No ECP5 time: the key spectra (14.7 Mbit for toy CMNT, 83.6 Mbit for toy CNT) do "
                "not fit the ECP5-85F's 3.7 Mbit of block RAM. The sky130 clock is the slowest "
                "block of `fhe-hw table encrypt-asic` (build/tables/encrypt-asic.json; toy and "
                "small groups, empty when that table has not run).",
                "GMP: the same encryption with Python integers on gmpy2, one core "
                "(fhe_hw.bench.baselines); the large groups only with --full."]
    return Part([t], [], findings)


#: The reducers and the mod-mul per modulus: rows of the documented reducer table
#: (fhe_hw.arith.configs).
_REDUCERS = [(row.unit, row.params) for row in REDUCERS]
_MODMULS = [(row.unit, row.params) for row in MODMULS]


def _reducer_rows():
    return [_synth_row(row) for row in REDUCERS + MODMULS]


@section("001", "[Cao14] Table 3: modular multipliers and reducers per Integer-FFT modulus (ECP5)",
         _reducer_rows)
def reducers(ctx):
    ref = P.P001_T3.rows
    t = Table("Our modular multiplier per modulus beside the paper's whole multiplier",
              P.P001_T3.source,
              ["modulus", "ours: reducer", "latency", "LUT", "FF", "DSP", "Fmax MHz",
               "paper Fmax MHz", "Fmax ours / paper", "paper LUT", "paper FF", "paper DSP"])
    findings = []
    for unit, params in _MODMULS:
        r = ctx.synth(unit, params)
        m = params["modulus"]
        reducer = get_unit(unit).build(**params).reducer
        fr = ratio(r.fmax_mhz, ref[m]["fmax_mhz"]) if r else None
        t.rows.append([ref[m]["modulus"], reducer, r.latency if r else None,
                       r.lut if r else None, r.ff if r else None, r.dsp if r else None,
                       r.fmax_mhz if r else None, ref[m]["fmax_mhz"], fr, ref[m]["lut"],
                       ref[m]["ff"], ref[m]["dsp"]])
        if fr is not None:
            findings.append(f"{ref[m]['modulus']}: our mod-mul reaches {fr:.2g}x the paper's "
                            f"Fmax ({'slower clock' if fr < 1 else 'faster clock'}; ECP5-85F "
                            f"vs Virtex-7 synthesis estimate).")
    t.notes += ["Paper resources are the whole k-point Integer-FFT multiplier (many reducers "
                "and multipliers), ours one pipelined modular multiplier, so only Fmax is "
                "compared; the paper's critical path is its point-wise multiplier ([Cao14] §4).",
                "Ours: ECP5 LFE5U-85F, nextpnr out of context, every port registered "
                "(fhe_hw.flow.synth)."]
    u = Table("Reducers alone ([Cao14] §3.3: the special and Solinas reducers need no multiplier)",
              "measured here", ["unit", "params", "latency", "LUT", "FF", "DSP", "Fmax MHz"])
    for unit, params in _REDUCERS:
        r = ctx.synth(unit, params)
        u.rows.append([unit, ", ".join(f"{k}={v}" for k, v in params.items()),
                       r.latency if r else None, r.lut if r else None, r.ff if r else None,
                       r.dsp if r else None, r.fmax_mhz if r else None])
    return Part([t, u], [], findings)


# --- 002: 64K-point NTT ------------------------------------------------------------------------

#: The documented streaming-NTT rows (fhe_hw.ntt.configs); n = 1024, P = 1 is the clock
#: estimate of the 64K-point transform.
_NTT_SYNTH = _synth_row(REPORT_STREAMING)


def _ntt_rows():
    return [_synth_row(row) for row in STREAMING_TABLE]


@section("002", "[Wang13] §V: 64K-point NTT over 2^64-2^32+1", _ntt_rows)
def ntt_64k(ctx):

    ref = P.P002_64K.rows["64K NTT"]
    n = ref["n"]
    t = Table("Cycles and time of one 65536-point NTT", P.P002_64K.source,
              ["engine", "cycles()", "paper cycles", "cycles ours / paper",
               "µs at 100 MHz (paper's clock)", "paper µs", "µs at our Fmax (n=1024, P=1)"])
    synth = ctx.synth(*_NTT_SYNTH)
    fmax = synth.fmax_mhz if synth else None
    series = {"ours (streaming, P butterflies)": [], "paper 002 (one point)": []}
    findings = []
    configs = [(f"streaming, P={p}", StreamingNTTPlan(n, SOLINAS, butterflies=p), p)
               for p in (1, 2, 4, 8, 16, 32)]
    configs.append(("four-step (ShiftNTT radix-16/64)", FourStepNTTPlan(n), None))
    for name, unit, p in configs:
        c = unit.cycles()
        t.rows.append([name, c, ref["cycles"], ratio(c, ref["cycles"]), c / 100.0,
                       ref["time_us"], c / fmax if fmax else None])
        if p:
            series["ours (streaming, P butterflies)"].append((p, c / 100.0))
        else:
            _find(findings, _slower("64K NTT cycles, four-step mode", ratio(c, ref["cycles"])))
    series["paper 002 (one point)"].append((1, ref["time_us"]))
    best = min(row[1] for row in t.rows)
    _find(findings, _slower("64K NTT cycles, our fastest configuration",
                            ratio(best, ref["cycles"])))
    t.notes += ["Paper resources (Table I): "
                f"{ref['alut']} ALUTs, {ref['regs']} registers, {ref['dsp']} DSP blocks on a "
                "Stratix-V. A 64K-point transform of 64-bit words needs 4 Mbit of RAM, more "
                "than the ECP5-85F's 3.7 Mbit of DP16KD, so we synthesize n = 1024 only and "
                "use its Fmax as the clock estimate.",
                "cycles() are the engines' exact formulas, tied to simulation by "
                "tests/test_ntt_streaming.py and tests/test_ntt_four_step.py."]
    s = Table("Streaming NTT synthesized on ECP5-85F", "measured here",
              ["n", "P", "cycles()", "LUT", "FF", "DSP", "BRAM", "Fmax MHz", "µs / transform"])
    for unit, params, *flow in _ntt_rows():
        r = ctx.synth(unit, params, *flow)
        c = StreamingNTTPlan(params["n"], SOLINAS, butterflies=params["butterflies"]).cycles()
        s.rows.append([params["n"], params["butterflies"], c, *(
            (r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz, c / r.fmax_mhz) if r else [None] * 6)])
    sw = Table("Software on this machine (median)", "measured here",
               ["baseline", "library", "median µs", "paper 002 FPGA µs",
                "paper / software"])
    for b in ctx.baseline("NumPy NTT") + ctx.baseline("FLINT negacyclic product n=65536") + \
            ctx.baseline("GMP 786432"):
        if "median_s" in b:
            us = b["median_s"] * 1e6
            sw.rows.append([b["name"], b["library"], us, ref["time_us"],
                            ratio(ref["time_us"], us)])
    four, findings_four = _four_step_and_multiplier(ctx, ref)
    findings += findings_four
    return Part([t, four, s, sw], [Plot("ntt_64k", "64K-point NTT time at 100 MHz vs "
                                        "butterflies P", "butterflies P", "µs", series)],
                findings)


def _four_step_and_multiplier(ctx, ref):
    """The streaming four-step engine's three counts at 65536 points and [Wang13]'s 768K-bit
    multiplier, at the paper's 100 MHz, beside OpenFHE's 65,536-point NTT (one thread) and
    GMP's 786,432-bit product on this machine."""
    t = Table("The streaming four-step NTT and the 786,432-bit multiplier ([Wang13] §III-A, "
              "§IV)", "cycles() here; paper 12,500 cycles with the data in the banks",
              ["unit", "lanes", "count", "cycles()", "paper cycles", "cycles ours / paper",
               "µs at 100 MHz", "CPU here", "CPU µs here", "CPU / ours at 100 MHz"])
    findings = []
    try:
        ntt = _openfhe(ctx).get(("ntt", 65536, 1, 1))
    except Unavailable:
        ntt = None
    ntt = ntt if isinstance(ntt, float) else None
    for lanes in (16, 8):
        for inner_units in (1, 2):
            plan = FourStepPlan(64, 16, lanes, inner_units)
            latency = StreamingFourStepNTTPlan(65536, lanes=lanes).mul_latency
            one = control_cycles(plan, latency)
            counts = {"first input to last output": one,
                      "data in the banks": control_trace(plan, latency)["in_banks"],
                      "per transform, back to back": control_cycles(plan, latency, 2) - one}
            for what, c in counts.items():
                r = ratio(c, ref["cycles"]) if what == "data in the banks" else None
                cpu = ntt if what != "data in the banks" else None
                t.rows.append([f"four-step-stream n=65536, inner_units={inner_units}", lanes,
                               what, c,
                               ref["cycles"] if r else None, r, c / 100.0,
                               "OpenFHE NTT 65536, 1 thread" if cpu else None, cpu,
                               ratio(cpu, c / 100.0) if cpu else None])
                if r is not None:
                    _find(findings, _slower(f"64K NTT in the banks, four-step-stream at "
                                            f"{lanes} lanes, inner_units={inner_units}", r))
    gmp = [b["median_s"] * 1e6 for b in ctx.baseline("GMP 786432") if "median_s" in b]
    for lanes in (16, 8):
        for engines, inner_units in ((2, 1), (1, 1), (2, 2), (1, 2)):
            c = LargeIntegerMultiplierPlan(lanes=lanes, engines=engines,
                                           inner_units=inner_units).cycles()
            us = c / 100.0
            g = gmp[0] if gmp else None
            config = (f"{engines} forward engine{'s' * (engines > 1)}, "
                      f"inner_units={inner_units}")
            t.rows.append([f"large-int-mul 786432 bits, {config}", lanes,
                           "first digit in to last digit out", c, None, None, us,
                           "GMP 786432 x 786432 bits" if g else None, g,
                           ratio(g, us) if g else None])
            if g and lanes == 16:
                findings.append(f"786,432-bit product, {config}, 16 lanes: {c} cycles, "
                                f"{ratio(g, us):.3g}x faster than GMP here at the paper's "
                                "100 MHz.")
    t.notes += ["cycles() are the engines' exact formulas, tied to simulation by "
                "tests/test_ntt_four_step_stream.py, tests/test_largeint_multiplier.py and the "
                "Verilator runs of docs/ntt (65,536 points at 16 and 8 lanes) and "
                "docs/results/largeint (786,432-bit products at 8 lanes).",
                "No time at our own Fmax: a 65,536-point transform of 64-bit words needs more "
                "block RAM than the ECP5-85F has, so these configurations have no measured "
                "Fmax; the 100 MHz column is the paper's clock."]
    return t, findings


# --- 003: RNS base extension -------------------------------------------------------------------

def _kawamura_delta(l):
    from fractions import Fraction
    return Fraction(1, 4) if l > 8 else Fraction(1, 8)


@section("003", "[Kir25] Table 4.6: iteration counts of the base extension architectures")
def rns_iterations(ctx):

    t = Table("Iterations (k = l, 32-bit primes)", P.P003_T4_6.source,
              ["N, TP, l", "architecture", "cycles()", "Table 4.5 formula", "paper",
               "cycles / paper"])
    findings = []
    for (n, tp, l), paper in P.P003_T4_6.rows.items():
        source, target, red = default_bases(32, n, l, l, redundant=True)
        bases = {"source_primes": source, "target_primes": target}
        sk_params = {**bases, "n": n, "lanes": tp, "redundant_prime": red}
        units = {"SK pipelined": ShenoyKumaresan(**sk_params, architecture="pipelined"),
                 "SK folded": ShenoyKumaresan(**sk_params, architecture="folded"),
                 "Cox-Rower": Kawamura(prime_bits=32, n=n, source_limbs=l, target_limbs=l,
                                       rho=16, delta=_kawamura_delta(l)),
                 "MRC pipelined": MixedRadix(**bases, n=n, architecture="pipelined"),
                 "MRC iterative": MixedRadix(**bases, n=n, architecture="iterative")}
        for arch, unit in units.items():
            c = unit.cycles()
            r = ratio(c, paper[arch])
            t.rows.append([f"2^{n.bit_length() - 1}, {tp}, {l}", arch, c,
                           unit.paper_iterations(), paper[arch], r])
            if r is not None and r > 1.01:
                findings.append(f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}, {arch}: "
                                f"{r:.3g}x the paper's iterations (pipeline fill/drain and "
                                f"I/O beats the Table 4.5 count leaves out).")
    t.notes.append("cycles() is each engine's exact first-input-to-last-output count (tied to "
                   "simulation by tests/test_rns_*.py); the formula column is the paper's "
                   "Table 4.5 count from fhe_hw.model.rns via paper_iterations().")
    return Part([t], [], findings)


def _rns_rows():
    """The documented RNS table's Shenoy–Kumaresan rows at N = 2^12, l = 30
    (fhe_hw.rns.configs.REPORT_ROWS)."""
    return [_synth_row(row) for row in RNS_ROWS]


@section("003", "[Kir25] Table 4.9: Shenoy–Kumaresan utilization, log N = 12, l = 30, 32-bit",
         _rns_rows)
def rns_utilization(ctx):

    ref = P.P003_T4_9.rows
    t = Table("SK folded/pipelined on ECP5-85F beside the paper's Alveo U280 rows",
              P.P003_T4_9.source,
              ["arch", "TP", "LUT", "FF", "DSP", "BRAM", "Fmax MHz", "CC / residue",
               "Time µs", "ATP ×10^6", "paper LUT", "paper FF", "paper DSP", "paper BRAM",
               "paper Fmax", "paper CC", "paper Time µs", "paper ATP", "CC ratio",
               "Time ratio", "ATP ratio"])
    findings, series = [], {"ours (folded)": [], "ours (pipelined)": [], "paper 003": []}
    for (bits, tp), p in ref.items():
        if bits == 32:
            series["paper 003"].append((tp, p["atp_1e6"]))
    for unit, params, *flow in _rns_rows():
        r = ctx.synth(unit, params, *flow)
        u = get_unit(unit).build(**params)
        cc = u.cycles() // len(u.target)
        time_us = cc / r.fmax_mhz if r else None
        atp = time_us * atp_area(r.lut, r.ff, r.dsp, r.bram) / 1e6 if r else None
        p = ref.get((32, params["lanes"])) if params["architecture"] == "folded" else None
        row = [params["architecture"], params["lanes"]]
        row += [r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz] if r else [None] * 5
        row += [cc, time_us, atp]
        if p:
            row += [p["lut"], p["ff"], p["dsp"], p["bram"], p["fmax_mhz"], p["cc"],
                    p["time_us"], p["atp_1e6"], ratio(cc, p["cc"]), ratio(time_us,
                                                                         p["time_us"]),
                    ratio(atp, p["atp_1e6"])]
            _find(findings, _slower(f"SK folded TP={params['lanes']} time per residue",
                                    ratio(time_us, p["time_us"])),
                  _slower(f"SK folded TP={params['lanes']} ATP", ratio(atp, p["atp_1e6"])))
        else:
            row += [None] * 11
        t.rows.append(row)
        series[f"ours ({params['architecture']})"].append((params["lanes"], atp))
    t.notes += ["CC = cycles() / k (one new residue, as the paper's Time); Time = CC / Fmax; "
                "ATP = Time·(LUT + FF/2 + 100·DSP + 300·BRAM) ([Kir25] §4.2). Paper BRAM is "
                "36-kbit BRAM36, ours 18-kbit DP16KD; paper FF and LUT are Xilinx 6-LUTs, ours "
                "ECP5 LUT4s; Fmax: Vivado on an UltraScale+ vs nextpnr on an ECP5.",
                "Paper rows exist for TP = 1, 16, 64; ratios only where TP matches."]
    return Part([t], [Plot("rns_atp", "SK ATP vs TP (log N = 12, l = 30)", "TP", "ATP ×10^6",
                           series)], findings)


@section("003", "[Kir25] Tables 4.10–4.11: base extension time at log q_i = 60, TP = 32")
def rns_openfhe(ctx):

    t = Table("SK folded, all k = l target residues, 5 ns clock (the paper's assumption)",
              f"{P.P003_T4_10.source}; {P.P003_T4_11.source}",
              ["N", "l", "cycles()", "ours µs at 5 ns", "paper µs", "ours / paper",
               "N(l+2)l/TP · 5 ns", "paper / that formula", "best OpenFHE µs",
               "ours / OpenFHE", "OpenFHE exact here µs", "ours / OpenFHE here"])
    try:
        here = _openfhe(ctx)
    except Unavailable:
        here = {}
    findings = []
    for table in (P.P003_T4_10, P.P003_T4_11):
        n = table.extra["n"]
        for l, p in table.rows.items():
            c = ShenoyKumaresanPlan(prime_bits=60, n=n, source_limbs=l, target_limbs=l,
                                    lanes=32, architecture="folded").cycles()
            us = c * 5e-3
            formula = n * (l + 2) * l / 32 * 5e-3
            r = ratio(us, p["ours_us"])
            mine = [v for key, v in here.items()
                    if key[:3] == ("exact", n, l) and isinstance(v, float)]
            best_here = min(mine) if mine else None
            t.rows.append([f"2^{n.bit_length() - 1}", l, c, us, p["ours_us"], r, formula,
                           ratio(p["ours_us"], formula), p["openfhe_best_us"],
                           ratio(us, p["openfhe_best_us"]), best_here, ratio(us, best_here)])
            _find(findings, _slower(f"N=2^{n.bit_length() - 1}, l={l} base extension time", r))
    t.notes.append("The 'paper / that formula' column shows how the paper's time relates to "
                   "its own folded count N(l+2)l/TP at 5 ns (computed here).")
    t.notes.append("OpenFHE exact here: SwitchCRTBasis measured on this machine, the faster "
                   "median of 1 and all threads (fhe_hw.bench.openfhe), at the parameter sets "
                   "it runs (N = 2^14, l = 7 and N = 2^16, l = 17).")
    return Part([t], [], findings)


# --- 004: Karatsuba ----------------------------------------------------------------------------

def _kara_rows():
    """Karatsuba-1, the documented table's row that fits (fhe_hw.karatsuba.configs)."""
    return [_synth_row(row) for row in KARATSUBA_ROWS]


@section("004", "[Mig16] Tables II–III: Karatsuba-r polynomial multiplier, n = 2560, 125 bits",
         _kara_rows)
def karatsuba(ctx):

    ref, clock = P.P004_T3.rows, P.P004_T3.extra["clock_mhz"]
    t = Table("Accelerator time of one n = 2560 product (3^(9-r) calls)",
              f"{P.P004_T3.source}; {P.P004_T2.source}",
              ["r", "multipliers 27×27", "cycles()", "µs at 250 MHz", "paper µs",
               "ours / paper", "paper Fmax MHz", "paper DSP"])
    findings, series = [], {"ours at 250 MHz": [], "paper 004": []}
    for r in (1, 2, 3, 4, 5):
        u = KaratsubaMultiplierPlan(r, coeff_bits=125 + 9 - r)
        c = u.cycles(3 ** (9 - r))
        us = c / clock
        p, p2 = ref.get(r), P.P004_T2.rows.get(r)
        rr = ratio(us, p["hw_us"]) if p else None
        t.rows.append([r, u.layout.multipliers, c, us, p["hw_us"] if p else None, rr,
                       p2["fmax_mhz"] if p2 else None, p2["dsp"] if p2 else None])
        series["ours at 250 MHz"].append((r, us))
        if p:
            series["paper 004"].append((r, p["hw_us"]))
            _find(findings, _slower(f"Karatsuba-{r} accelerator time at 250 MHz", rr))
    t.notes.append("cycles() is KaratsubaMultiplier.cycles(products), tied to simulation by "
                   "tests/test_karatsuba_multiplier.py; coeff_bits = 134 - r as in [Mig16] §III.")
    s = Table("Karatsuba-1 on ECP5-85F", "measured here",
              ["r", "LUT", "FF", "DSP", "Fmax MHz", "µs at our Fmax"])
    for unit, params, *flow in _kara_rows():
        res = ctx.synth(unit, params, *flow)
        c = get_unit(unit).cycles(params, products=3 ** 8)
        s.rows.append([1, *((res.lut, res.ff, res.dsp, res.fmax_mhz, c / res.fmax_mhz)
                            if res else [None] * 5)])
    s.notes.append("r ≥ 2 needs more than the ECP5-85F's 156 MULT18X18D (4 per 27×27).")
    parts = [t, s]
    sw = Table("FLINT on this machine vs the paper's totals", f"{P.P004_T3.source}",
               ["baseline", "median µs", "paper total r=3 µs", "paper total r=5 µs",
                "FLINT / paper r=5"])
    for b in ctx.baseline("FLINT Z[x]"):
        if "median_s" in b:
            us = b["median_s"] * 1e6
            sw.rows.append([f"{b['name']} ({b['library']})", us, ref[3]["total_us"],
                            ref[5]["total_us"], ratio(us, ref[5]["total_us"])])
            findings.append(f"FLINT's n = 2560 product here takes {us:.4g} µs, "
                            f"{us / ref[5]['total_us']:.3g}x the paper's best hardware-assisted "
                            f"total ({ref[5]['total_us']} µs).")
    parts.append(sw)
    return Part(parts, [Plot("karatsuba", "Karatsuba accelerator time vs recursions r",
                             "r", "µs", series, logx=False)], findings)


# --- software baselines ------------------------------------------------------------------------

@section("sw", "All software baselines (median of repeated runs)")
def baselines(ctx):
    rows = ctx.baseline("")
    if not rows:
        raise Unavailable("baselines disabled (--no-baselines)")
    t = Table("Baselines", "measured here",
              ["baseline", "library", "median s", "min s", "max s", "runs"])
    for b in rows:
        if "error" in b:
            t.rows.append([b["name"], b["error"], None, None, None, None])
        else:
            t.rows.append([b["name"], b["library"], b["median_s"], b["min_s"], b["max_s"],
                           b["repeat"]])
    return Part([t])


# --- CPU vs hardware ---------------------------------------------------------------------------

def _openfhe(ctx):
    """{(op, n, l, threads): OpenFHE's median in µs, or its error} from the baselines (l = 1
    for an NTT or product; for a DCRTPoly the towers, (l, bits, prime_n), as
    :func:`_poly_beside` keys them); Unavailable when none was measured."""
    rows = ctx.baseline("OpenFHE")
    if not rows:
        raise Unavailable("baselines disabled (--no-baselines)")
    if not any("params" in r for r in rows):
        raise Unavailable("; ".join(r["error"] for r in rows))
    out = {}
    for r in rows:
        if "params" in r:
            p = r["params"]
            size = (p["l"], p["bits"], p["prime_n"]) if "prime_n" in p else p.get("l", 1)
            out[p["op"], p["n"], size, p["threads"]] = \
                r["median_s"] * 1e6 if "median_s" in r else r["error"]
    return out


def _conversion_beside(unit, n, l):
    """The fastest (fewest ``cycles()``) row of the synthesized RNS tables (``rns`` and
    ``rns-side-by-side``; every row fits the ECP5-85F) for ``unit`` at N, l = k, or None."""
    rows = [r for r in RNS_ROUTED
            if r.unit == unit and (r.params["n"], r.params["source_limbs"]) == (n, l)]
    return min(rows, key=lambda r: get_unit(r.unit).cycles(r.params), default=None)


def _ntt_candidates():
    """The documented table's solinas64 streaming NTT rows at n = 4096 (OpenFHE's prime is
    60-bit): the engines beside OpenFHE's NTT, of which the fastest measured one is shown."""
    return [row for row in STREAMING_TABLE
            if row.params["modulus"] == "solinas64" and row.params["n"] == 4096]


def _fastest_ntt(ctx):
    """The row of :func:`_ntt_candidates` with the least ``cycles()`` ÷ its own measured Fmax;
    the one with the most butterflies when none has a result."""
    candidates = _ntt_candidates()
    timed = []
    for row in candidates:
        r = ctx.synth(*_synth_row(row))
        if r:
            timed.append((get_unit(row.unit).cycles(row.params) / r.fmax_mhz, row))
    if timed:
        return min(timed, key=lambda t: t[0])[1]
    return max(candidates, key=lambda row: row.params["butterflies"])


def _conversions_beside():
    """{(op, N, l): the base conversion configuration beside that OpenFHE case}: for the exact
    conversion the fastest synthesized Shenoy–Kumaresan row, else [Kir25] Table 4.6's TP
    (ITERATION_SETS); for the fast conversion the fastest synthesized fast-base-conversion
    row, else the exact one's."""
    out = {}
    for n, l in BASE_SETS:
        exact = _conversion_beside("shenoy-kumaresan", n, l)
        if exact is None:
            tp = next(t for size, t, limbs in ITERATION_SETS if (size, limbs) == (n, l))
            exact = Row("shenoy-kumaresan", sk(tp, n=n, l=l), RNS_TARGET)
        out["exact", n, l] = exact
        out["fast", n, l] = _conversion_beside("fast-base-conversion", n, l) or exact
    return out


#: Why an OpenFHE case has no configuration beside it.
_NO_PRODUCT = ("none: no product engine routed (two forward NTTs, a pointwise product, an "
               "inverse NTT)")
_NO_DCRT_PRODUCT = ("none routed: with b transformed too, rns-poly-product needs a third "
                    "engine per tower (two forward, one inverse), more MULT18X18D or block "
                    "RAM than the ECP5-85F has at one butterfly per engine (with the "
                    "Montgomery rounds in the fabric the 30-bit towers' multipliers fit, "
                    "their banks and twiddle ROMs do not); the next row, with b in evaluation "
                    "form, needs one engine less")
_NO_EVALUATED_PRODUCT = ("none routed: no rns-poly-product row of the results tables has these "
                         "towers")


def _poly_beside():
    """{(op, N, towers): the configuration (or why none) beside that OpenFHE DCRTPoly case,
    towers = (L, bits, prime_n) as the baselines name them (:func:`_openfhe`)}:
    each :data:`~fhe_hw.poly.configs.POLY_TABLE` row at its (N, towers), the
    :data:`~fhe_hw.poly.configs.PRODUCT_TABLE` rows of the same towers (b evaluated) beside the
    product with b in evaluation form, and beside the exact
    conversion to the next primes the ``rns-poly-extend`` of the same towers (K = L, the row's
    lanes): the :data:`~fhe_hw.poly.configs.EXTEND_TABLE` row where there is one, else the
    configuration alone (its cycles without a time). Beside the NTT and the product, every
    row of those towers (a list, in the table's order); beside the others, the first row's."""
    out = {}
    for row in POLY_TABLE:
        p = row.params
        key = (p["n"], (p["limbs"], p["prime_bits"], p.get("prime_n", p["n"])))
        if ("dcrt-ntt", *key) in out:
            out[("dcrt-ntt", *key)].append(row)
            continue
        out[("dcrt-ntt", *key)] = [row]
        out[("dcrt-mul", *key)] = _NO_DCRT_PRODUCT
        out[("dcrt-mul-eval", *key)] = [
            r for r in PRODUCT_TABLE if r.params["b_evaluated"] and towers_of(r.params) ==
            towers_of(p)] or _NO_EVALUATED_PRODUCT
        params = extension_of(p, get_unit(row.unit).make_plan(p).lanes_resolved)
        out[("dcrt-exact", *key)] = next(
            (r for r in EXTEND_TABLE if (r.unit, r.params) == ("rns-poly-extend", params)),
            Row("rns-poly-extend", params, row.target))
    return out


def _beside_openfhe(ntt):
    """{(op, n, l): the configuration beside that OpenFHE case, or why there is none}:
    streaming NTT row ``ntt`` (n = 4096) at each size, the conversions of
    :func:`_conversions_beside`, none for the product, the RNS polynomial NTT rows beside the
    DCRTPoly cases (:func:`_poly_beside`)."""
    out = {("ntt", n, 1): Row("ntt", {**ntt.params, "n": n}, ntt.target) for n in NTT_SIZES}
    out.update({("mul", n, 1): _NO_PRODUCT for n in PRODUCT_SIZES})
    out.update(_conversions_beside())
    out.update(_poly_beside())
    return out


def _cpu_rows():
    """The configurations beside OpenFHE that the documented tables synthesize (the others
    have no result): every NTT candidate, and the conversions."""
    documented = [_synth_row(r) for r in STREAMING_TABLE + RNS_ROUTED]
    out = [_synth_row(row) for row in
           _ntt_candidates() + POLY_TABLE + EXTEND_TABLE + PRODUCT_TABLE]
    for row in _conversions_beside().values():
        if _synth_row(row) in documented and _synth_row(row) not in out:
            out.append(_synth_row(row))
    return out


def _label(op, n, l):
    if op in ("ntt", "mul"):
        return f"{OPERATIONS[op]} n={n}"
    if op.startswith("dcrt-"):
        towers, bits, prime_n = l
        return (f"{OPERATIONS[op]} N={n}, {towers} towers of {bits}-bit primes ≡ 1 mod "
                f"2^{prime_n.bit_length()}")
    return f"{OPERATIONS[op]} N=2^{n.bit_length() - 1}, {l} → {l}"


@section("sw", "CPU vs hardware: OpenFHE on this machine beside our engines' projected time",
         _cpu_rows)
def cpu_vs_hardware(ctx):
    openfhe = _openfhe(ctx)
    threads = sorted({key[3] for key in openfhe})
    each = [f"{t} thread{'s' * (t != 1)}" for t in threads]
    t = Table("OpenFHE medians here; hardware = cycles() ÷ the Fmax of that configuration",
              "measured here",
              ["operation", *[f"OpenFHE {e} µs" for e in each], "our configuration",
               "cycles()", "Fmax MHz (ECP5-85F)", "hardware µs",
               *[f"OpenFHE {e} / hardware" for e in each]])
    findings, link = [], []
    for (op, n, l), row in _beside_openfhe(_fastest_ntt(ctx)).items():
        cpu = [openfhe.get((op, n, l, th)) for th in threads]
        if isinstance(row, str):
            t.rows.append([_label(op, n, l), *cpu, row, None, None, None,
                           *[None] * len(threads)])
            continue
        for one in row if isinstance(row, list) else [row]:
            _cpu_beside(ctx, t, findings, link, (_label(op, n, l), cpu, each), one)
    t.notes += ["OpenFHE: medians after a warm-up, 60-bit NTT primes (DCRTPoly: the towers "
                "named, the same primes as the configuration beside them), every result checked "
                "against Python big integers first (fhe_hw.bench.openfhe); OpenMP threads "
                "as named; the machine may be shared with other work.",
                "Hardware: cycles() of the named configuration ÷ the Fmax nextpnr reports for "
                "that same configuration (ECP5-85F, out of context); without that synthesis "
                "result there is no time. The NTT engine is cyclic over 2^64 − 2^32 + 1 (its "
                "negacyclic forward mode takes the same cycles()); the base conversions work "
                "on 32-bit primes. Shenoy–Kumaresan is exact; where no fast-base-conversion "
                "row is synthesized it stands beside the fast conversion (X + αQ, "
                "0 ≤ α < l) too, doing more work than OpenFHE there. With its targets side by "
                "side (parallel_targets), its output beat carries a row of every target tower "
                "(targets_per_pass × lanes words), each tower written to its own memory; with "
                "the redundant residue beside (parallel_redundant), its input beat carries the "
                "redundant residue's row above the last source tower's (2 × lanes words); with "
                "the Post-Sum fused (fused_post_sum), each row's outputs follow its last "
                "accumulation, α matched against its l + 1 values (exact for A's redundant "
                "residue or its centred lift's).",
                "Not synthesized: n = 65536 (65536 words of 64 bits need 4 Mbit of RAM, the "
                "ECP5-85F has 3.7 Mbit of DP16KD) and SK at N = 2^16, l = 17 (384 DP16KD, "
                "208 available); n = 16384 is not in the tables.",
                "RNS polynomial NTT: the polynomials are on chip (the input stream never "
                "waits); one polynomial from its first input to its last output, and one of a "
                "stream back to back (cycles(3) − cycles(2)). The host link is for checking, "
                "not for throughput: " + "; ".join(link) + ".",
                "DCRTPoly exact conversion: beside SwitchCRTBasis Q → B, rns-poly-extend of "
                "the same towers, which also streams Q's towers out (ExpandCRTBasis, Q → "
                "Q ∪ B); its cycles() only where no results table synthesizes it."]
    return Part([t], [], findings)


def _cpu_beside(ctx, t, findings, link, case, row):
    """The rows of ``t`` (and their findings) that put configuration ``row`` beside the
    OpenFHE ``case`` (its label, its medians per thread count, those counts' names): one
    operation and, for the polynomial units, one of a stream back to back; with its towers
    (or a conversion's targets) side by side, or a polynomial unit's several butterflies per
    engine or ping-pong banks, the label says so. ``link`` gains the NTT's host link time."""
    label, cpu, each = case
    side = (["towers side by side"] if row.params.get("parallel_towers") else
            ["targets side by side"] if row.params.get("parallel_targets") else [])
    if row.params.get("parallel_redundant"):
        side.append("redundant beside")
    if row.params.get("fused_post_sum"):
        side.append("Post-Sum fused")
    if row.unit in ("rns-poly-ntt", "rns-poly-product") and row.params.get("butterflies", 1) > 1:
        side.append(f"{row.params['butterflies']} butterflies per engine")
    if row.params.get("ping_pong"):
        side.append("ping-pong banks")

    def named(*more):
        return label + (f" ({', '.join(side + list(more))})" if side or more else "")
    timings = [(named(), get_unit(row.unit).cycles(row.params))]
    if row.unit in ("rns-poly-ntt", "rns-poly-product"):
        timings.append((named("one of a stream back to back"), poly_timing(row)[1]))
    if row.unit == "rns-poly-ntt":
        link.append(f"{named()}: {_link_seconds(row):.3g} s each way per polynomial over the "
                    f"host link's UART at {LINK_BAUD} baud (payload bytes only)")
    r = ctx.synth(*_synth_row(row))
    for name, cycles in timings:
        hw = cycles / r.fmax_mhz if r else None
        ratios = [ratio(c, hw) if isinstance(c, float) else None for c in cpu]
        t.rows.append([name, *cpu, f"{row.unit} {shown(row.params, _hidden(row))}",
                       cycles, r.fmax_mhz if r else ctx.why(*_synth_row(row)), hw, *ratios])
        _cpu_finding(findings, name, cpu, each, hw)


#: The host link's default baud rate (:class:`fhe_hw.link.HostLinkTop`'s).
LINK_BAUD = inspect.signature(HostLinkTop).parameters["baud"].default


def _link_seconds(row):
    """Seconds the UART host link takes to move one polynomial of ``row`` one way: its beats'
    payload bytes, 10 bits each (start and stop bits), at :data:`LINK_BAUD`."""
    plan = get_unit(row.unit).make_plan(row.params)
    payload = -(-plan.width * plan.beat_lanes // 8)
    return plan.input_beats * payload * 10 / LINK_BAUD


def _cpu_finding(findings, label, cpu, each, hw):
    """The comparison of ``hw`` µs with OpenFHE's fastest measured thread count (more threads
    than cores, or a loaded machine, can make OpenMP slower, and hardware must beat the best
    software)."""
    timed = [(c, e) for c, e in zip(cpu, each) if isinstance(c, float)]
    if hw is None or not timed:
        return
    best, who = min(timed)
    r_best = ratio(best, hw)
    findings.append(f"{label}: the projected hardware time is {r_best:.3g}x below OpenFHE's "
                    f"fastest here ({who})." if r_best > 1 else
                    f"{label}: OpenFHE's fastest here ({who}) is {1 / r_best:.3g}x faster than "
                    f"the projected hardware.")


# --- the device's limit ------------------------------------------------------------------------

def _hidden(row, *more):
    """The parameters a row's label leaves out: an RNS engine's ``prime_n`` (a detail of its
    bases) and ``more``; the polynomial NTT's towers depend on it, so it stays."""
    return more if row.unit.startswith("rns-poly") else ("prime_n", *more)


def _limit_engines():
    """(engine row, the ModMul row of its modulus, modular products of one operation, its
    cycles, what the cycles count): the streaming NTT at n = 4096, the synthesized
    Shenoy–Kumaresan and fast-base-conversion rows (one operation, first input to last
    output), and the RNS polynomial NTT rows (one polynomial, and one of a stream back to
    back). An RNS engine's ModMul is ``mod-mul`` of one prime of its base's form (same bits,
    same 2N: the same Montgomery word)."""
    out = []

    def one(row):
        return get_unit(row.unit).cycles(row.params)
    for row in STREAMING_TABLE:
        if row.params["n"] == 4096:
            # the engine's own ModMul: tiled, with Karatsuba and tile registers, as the
            # engine's are
            same = {key: True for key in ("tiled", *MULTIPLIER_FLAGS) if row.params.get(key)}
            mm = Row("mod-mul", {"modulus": row.params["modulus"], **same})
            out.append((row, mm, ntt_products(row.params["n"]), one(row), "one operation"))
    for row in RNS_ROUTED:
        if row.unit in ("shenoy-kumaresan", "fast-base-conversion"):
            p = row.params
            prime = ntt_primes(p["prime_bits"], p.get("prime_n") or p["n"], 1)[0]
            method = "fast" if row.unit == "fast-base-conversion" else "shenoy-kumaresan"
            out.append((row, Row("mod-mul", {"modulus": prime}),
                        p["n"] * rns_products(method, p["source_limbs"],
                                              p["target_limbs"]), one(row), "one operation"))
    for row, mm in zip(POLY_TABLE, POLY_MODMULS):
        products = poly_products(row)
        latency, period = poly_timing(row)
        out += [(row, mm, products, latency, "one polynomial"),
                (row, mm, products, period, "back to back")]
    return out


def _limit_rows():
    """The engines and their ModMuls."""
    rows = []
    for engine, mm, *_ in _limit_engines():
        for row in (mm, engine):
            if _synth_row(row) not in rows:
                rows.append(_synth_row(row))
    return rows


@section("sw", "The ECP5-85F's limit: DSP-bound modular products per second, and the fraction "
         "each engine reaches", _limit_rows)
def device_limit(ctx):
    t = Table(f"Limit = ⌊{ECP5_85F_DSP} / DSP per ModMul⌋ × that ModMul's Fmax; engine = "
              "products of one operation × its Fmax ÷ its cycles()", "measured here",
              ["engine", "configuration", "ModMul", "DSP / ModMul", "ModMul Fmax MHz",
               "limit Gprod/s", "engine Fmax MHz", "cycles()", "products / op",
               "engine Gprod/s", "fraction of the limit"])
    findings = []
    for engine, mm, products, cycles, counted in _limit_engines():
        m, e = (ctx.synth(*_synth_row(row)) for row in (mm, engine))
        limit = dsp_limit(m)
        rate = product_rate(products, cycles, e.fmax_mhz) if e else None
        label = f"{engine.unit} {shown(engine.params, _hidden(engine, 'modulus'))} ({counted})"
        t.rows.append([engine.unit, label, shown(mm.params), m.dsp if m else None,
                       m.fmax_mhz if m else None, limit, e.fmax_mhz if e else None, cycles,
                       products, rate, ratio(rate, limit)])
        if rate is not None and limit:
            findings.append(f"{label}: {100 * rate / limit:.2g}% of the ECP5-85F's DSP-bound "
                            f"limit ({rate:.3g} of {limit:.3g} Gprod/s).")
    t.notes += ["Products per operation from the golden models (fhe_hw.model.ntt."
                "modular_products: n/2 per stage; fhe_hw.model.rns.modular_products: per "
                "coefficient, times N), each counted against the model's own multiplications "
                "in the tests.",
                "An engine's rate is over one operation from its first input to its last "
                "output (latency included); the RNS polynomial NTT's also over one polynomial "
                "of a stream back to back (cycles(3) − cycles(2)), its products L times the "
                "NTT's; without its synthesis result (not in this run and not in a committed "
                "block) the engine columns are empty."]
    return Part([t], [], findings)
