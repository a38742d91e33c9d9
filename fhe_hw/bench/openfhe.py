"""OpenFHE's lattice layer ([Kir25]'s CPU reference) timed on this machine, beside GMP and FLINT.

:data:`SOURCE` (``openfhe_bench.cpp``, shipped with the package, as is :data:`COMMON`,
``openfhe_common.h``, the parts it shares with the interop programs of ``tests/interop``: the
JSON lists and OpenFHE's CRT tables) is compiled with g++ against
the ``libOPENFHEcore.so.1`` of the ``openfhe`` wheel (the ``bench`` extra; the wheel is only
located with ``importlib.util.find_spec``, its Python binding is for CPython 3.10) and OpenFHE's
headers (``OPENFHE_INCLUDE``, else ``../shared/openfhe/include`` beside the checkout), into
``build/openfhe/bench-<hash>`` (:func:`fhe_hw.builddir.openfhe_dir`, keyed by the source
and the header, the compiler version and both directories). It times (:func:`cases`, each a
:class:`Case`):

* with 60-bit NTT primes (:func:`fhe_hw.params.ntt_primes`), the forward negacyclic NTT of one
  residue (``NativePoly::SwitchFormat``) at N = 4096, 16384, 65536 and the negacyclic product
  (two forward NTTs, pointwise product, inverse NTT) at N = 4096, 65536;
* whole ``DCRTPoly`` objects (:data:`DCRT_SETS`: N = 4096 with 8 towers of 30-bit primes
  q ≡ 1 mod 2^17, with 4 towers of 60-bit primes q ≡ 1 mod 2^13 and with 4 towers of 60-bit
  primes q ≡ 1 mod 2^17) on the towers the hardware of :mod:`fhe_hw.poly` is configured with,
  ``openfhe_primes(bits, prime_n, towers)`` (:func:`fhe_hw.params.openfhe_primes`: the primes
  OpenFHE picks for ring degree ``prime_n``; prime_n = 2^16 makes the ModMuls Montgomery
  ones), passed to the program, which makes
  ``ILDCRTParams(2N, moduli, roots)`` with OpenFHE's ``RootOfUnity(2N, q)`` of each, the
  smallest primitive 2N-th root: the forward NTT (``SwitchFormat`` of every tower), the product
  as OpenFHE computes it (both operands to evaluation form, pointwise, back), the product with
  one operand already in evaluation form (as OpenFHE keeps keys: one forward NTT, pointwise,
  inverse), and the exact base conversion (``SwitchCRTBasis``) of the towers Q to B, as many
  next primes of the same rule (Q → B, as a BFV product's extension does it); OpenMP spreads
  the towers over the threads;
* exact (``SwitchCRTBasis``, HPS) and fast (``ApproxSwitchCRTBasis``) base conversion at
  [Kir25]'s parameter sets N = 2^12, 4 → 4 limbs; 2^14, 7 → 7; 2^16, 17 → 17, with 60-bit
  primes.

It runs once with one thread and once with every processor this process may use
(``OMP_NUM_THREADS``: OpenFHE reads it when the library loads). Before timing, each case prints
one run's inputs and outputs at spread indices (and the primes and roots it ran with, which
must be the plan's); :func:`verify` checks them against Python big integers, tower by tower
(the NTT against :func:`fhe_hw.model.ntt.dft`, the products against the schoolbook sum, the
base conversions against the CRT reconstruction), and a case that fails gets an ``error`` row
and no time. Times are medians of the runs after a warm-up, as :class:`.timing.Timing`
rows; what cannot be measured (no wheel, no headers, no g++, a failed build or run) is one row
with an ``error`` that says what is missing and why.
"""

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

from .. import builddir
from ..flow.run import run_logged
from ..model.ntt import bit_reverse, dft
from ..params import RNSBase, ntt_params, ntt_primes, openfhe_primes, require_power_of_two
from .timing import Timing, from_runs

__all__ = ["SOURCE", "COMMON", "BITS", "NTT_SIZES", "PRODUCT_SIZES", "BASE_SETS", "DCRT_SETS",
           "OPERATIONS", "TRANSFORMS",
           "Case", "cases", "OpenFHEUnavailable", "library_dir", "include_dir", "compiler",
           "unavailable", "build",
           "thread_counts", "parse", "verify", "timings", "openfhe_baselines"]

#: The benchmark's C++ source (package data).
SOURCE = Path(__file__).with_name("openfhe_bench.cpp")
#: The header of the parts every program :func:`build` compiles may include (package data).
COMMON = Path(__file__).with_name("openfhe_common.h")
#: Bits of the primes of the one-residue NTTs and products and of the base conversions.
BITS = 60
NTT_SIZES = (4096, 16384, 65536)
PRODUCT_SIZES = (4096, 65536)
#: [Kir25]'s parameter sets (N, l): l source limbs to l target limbs.
BASE_SETS = ((4096, 4), (16384, 7), (65536, 17))
#: The DCRTPoly parameter sets (N, towers, bits of each tower's prime, prime_n): the towers are
#: ``openfhe_primes(bits, prime_n, towers)``, q ≡ 1 mod 2·prime_n, as ``fhe_hw.poly``'s units
#: with that ``prime_n`` have them (2^16 for 30 bits: Montgomery ModMuls on the ECP5).
DCRT_SETS = ((4096, 8, 30, 65536), (4096, 4, 60, 4096), (4096, 4, 60, 65536))

LIBRARY = "libOPENFHEcore.so.1"
HEADER = "lattice/lat-hal.h"
EXTRA = "install the bench extra: pip install 'fhe_hw[bench]'"
CHECKOUT = Path(__file__).resolve().parents[2]

#: What each case of the plan measures: one residue (a ``NativePoly``), a whole ``DCRTPoly`` of
#: a :data:`DCRT_SETS` set (``dcrt-``), or a base conversion (``exact``, ``dcrt-exact``: both
#: ``SwitchCRTBasis``; ``fast``).
OPERATIONS = {"ntt": "forward NTT", "mul": "negacyclic product",
              "dcrt-ntt": "DCRTPoly forward NTT", "dcrt-mul": "DCRTPoly negacyclic product",
              "dcrt-mul-eval": "DCRTPoly negacyclic product (b in evaluation form)",
              "dcrt-exact": "DCRTPoly exact base conversion to the next primes",
              "exact": "exact base conversion", "fast": "fast base conversion"}
#: The operations on a polynomial's towers (NTT and products), each checked with its roots.
TRANSFORMS = ("ntt", "mul", "dcrt-ntt", "dcrt-mul", "dcrt-mul-eval")


class OpenFHEUnavailable(Exception):
    """OpenFHE cannot be measured here; the message says what is missing and why."""


class Case(NamedTuple):
    """One benchmark case: ``op`` (a key of :data:`OPERATIONS`), ring degree ``n``, the
    ``source`` primes (one for ``ntt``/``mul``, a DCRTPoly's towers in OpenFHE's order for
    ``dcrt-``), the ``target`` primes of a base conversion, ``psi``, the primitive 2n-th
    root of unity of each source prime for an NTT or product, and for ``dcrt-`` the
    ``prime_n`` of the rule that gave the primes (q ≡ 1 mod 2·prime_n)."""

    op: str
    n: int
    source: tuple
    target: tuple = ()
    psi: tuple = ()
    prime_n: int | None = None

    @property
    def bits(self):
        """Bits of the (first) source prime."""
        return self.source[0].bit_length()

    def line(self):
        """The case as a line of the benchmark's plan (its standard input): ``op N q ψ`` for
        one residue, ``op N t q_1..q_t`` for a DCRTPoly (the program takes OpenFHE's root of
        each tower), ``op N l k q_1..q_l p_1..p_k`` for a base conversion."""
        if self.op in ("ntt", "mul"):
            return f"{self.op} {self.n} {self.source[0]} {self.psi[0]}"
        if self.op in TRANSFORMS:
            return " ".join(map(str, (self.op, self.n, len(self.source), *self.source)))
        return " ".join(map(str, (self.op, self.n, len(self.source), len(self.target),
                                  *self.source, *self.target)))

    def name(self, threads):
        """The row name: ``OpenFHE <operation> <size> (<threads> thread[s])``; a DCRTPoly's
        size names the rule of its primes."""
        if self.op in ("ntt", "mul"):
            size = f"n={self.n} mod {self.bits}-bit prime"
        elif self.prime_n is not None:
            towers = f"{len(self.source)} → {len(self.target)}" if self.target else \
                len(self.source)
            size = f"N={self.n}, {towers} towers of {self.bits}-bit primes ≡ 1 mod " \
                   f"2^{self.prime_n.bit_length()}"
        else:
            size = f"N=2^{self.n.bit_length() - 1}, {len(self.source)} → {len(self.target)} limbs"
        return f"OpenFHE {OPERATIONS[self.op]} {size} ({threads} thread{'s' * (threads != 1)})"

    def params(self, threads):
        out = {"op": self.op, "n": self.n, "bits": self.bits, "threads": threads}
        if self.op in ("ntt", "mul"):
            out["q"] = self.source[0]
        else:
            out["l"] = len(self.source)
        if self.target:
            out["k"] = len(self.target)
        if self.prime_n is not None:
            out["prime_n"] = self.prime_n
        return out


def _roots(primes, n):
    """ψ of each prime: its smallest primitive 2n-th root of unity, the one OpenFHE gives a
    ``DCRTPoly``'s towers (the convention ``root="openfhe"``). A one-residue case takes it too:
    OpenFHE keeps its NTT tables per modulus for the whole process, made with the first root
    it meets, so a case with another root for a prime another case uses (the largest 60-bit
    prime ≡ 1 mod 8192 is both the n = 4096 NTT's and a DCRTPoly tower) would be transformed
    with the first case's root."""
    return tuple(ntt_params(q, n, negacyclic=True, root="openfhe").psi for q in primes)


def cases(ntt=NTT_SIZES, products=PRODUCT_SIZES, bases=BASE_SETS, dcrt=DCRT_SETS):
    """The benchmark's cases: forward NTTs of one residue at the sizes ``ntt``, products at
    ``products`` (the largest 60-bit prime q ≡ 1 mod 2n); for each (N, towers, bits, prime_n)
    of ``dcrt``, on the towers Q = ``openfhe_primes(bits, prime_n, towers)``
    (:func:`~fhe_hw.params.openfhe_primes`, in OpenFHE's order), a DCRTPoly's forward NTT,
    product and product with one operand in evaluation form, and the exact conversion of Q to
    B, the next ``towers`` primes of the same rule; exact and fast base conversions at each
    (N, l) of ``bases``, l → l limbs: the 2l largest 60-bit primes q ≡ 1 mod 2N, the l smaller
    ones the source (as :func:`fhe_hw.rns.default_bases` splits them). Every NTT prime has the
    root :func:`_roots` gives it. ValueError for a prime_n that is not a power of two of at
    least N, or a rule with too few primes."""
    out = []
    for op, sizes in (("ntt", ntt), ("mul", products)):
        for n in sizes:
            q = ntt_primes(BITS, n, 1)[0]
            out.append(Case(op, n, (q,), psi=_roots((q,), n)))
    for n, towers, bits, prime_n in dcrt:
        require_power_of_two("prime_n", prime_n, minimum=n)
        primes = openfhe_primes(bits, prime_n, 2 * towers)
        source, target = primes[:towers], primes[towers:]
        out += [Case(op, n, source, psi=_roots(source, n), prime_n=prime_n)
                for op in ("dcrt-ntt", "dcrt-mul", "dcrt-mul-eval")]
        out.append(Case("dcrt-exact", n, source, target, prime_n=prime_n))
    for n, l in bases:
        primes = ntt_primes(BITS, n, 2 * l)
        out += [Case(op, n, tuple(primes[:l]), tuple(primes[l:])) for op in ("exact", "fast")]
    return out


# --- what the benchmark needs -------------------------------------------------------------------

def library_dir():
    """The ``lib`` folder of the installed ``openfhe`` wheel (located, never imported)."""
    spec = importlib.util.find_spec("openfhe")
    if spec is None or spec.origin is None:
        raise OpenFHEUnavailable(f"the openfhe wheel is not installed: {EXTRA}")
    lib = Path(spec.origin).resolve().parent / "lib"
    if not (lib / LIBRARY).is_file():
        raise OpenFHEUnavailable(f"the openfhe wheel at {lib.parent} has no lib/{LIBRARY}: "
                                 f"{EXTRA}")
    return lib


def include_dir():
    """OpenFHE's headers: ``OPENFHE_INCLUDE``, else ``../shared/openfhe/include`` beside the
    checkout (the wheel ships no headers)."""
    env = os.environ.get("OPENFHE_INCLUDE")
    path = Path(env) if env else CHECKOUT.parent / "shared" / "openfhe" / "include"
    if not (path / HEADER).is_file():
        where = f"OPENFHE_INCLUDE={env}" if env else f"{path} (OPENFHE_INCLUDE is not set)"
        raise OpenFHEUnavailable(f"no OpenFHE headers at {where}: set OPENFHE_INCLUDE to a "
                                 f"folder with {HEADER} (OpenFHE's src/core/include with "
                                 f"cereal's include; the wheel ships no headers)")
    return path.resolve()


def compiler():
    """(path, first line of ``--version``) of g++."""
    gxx = shutil.which("g++")
    if gxx is None:
        raise OpenFHEUnavailable("g++ is not installed: the OpenFHE baseline is a C++ program "
                                 "compiled against the wheel's library (apt-get install g++)")
    done = subprocess.run([gxx, "--version"], capture_output=True, text=True, check=True)
    return gxx, done.stdout.splitlines()[0]


def unavailable():
    """Why a program cannot be compiled against OpenFHE here (no wheel, headers or g++), or
    ``None``: the reason a test that needs OpenFHE skips with."""
    try:
        library_dir(), include_dir(), compiler()
    except OpenFHEUnavailable as e:
        return str(e)
    return None


def build(lib, include, gxx, version, source=SOURCE, prefix="bench"):
    """The executable of the C++ ``source`` (default: the benchmark) compiled against ``lib``
    and ``include``, with :data:`COMMON`'s folder on the include path: reused from
    :func:`~fhe_hw.builddir.openfhe_dir` (``prefix``-<hash>) when that key's build is
    there, else compiled (``compile.log`` beside it)."""
    key = {"source": hashlib.sha256(source.read_bytes()).hexdigest(),
           "common": hashlib.sha256(COMMON.read_bytes()).hexdigest(), "compiler": version,
           "library": str(lib), "include": str(include)}
    out = builddir.openfhe_dir(key, prefix)
    exe = out / source.stem
    if exe.is_file():
        return exe
    out.mkdir(parents=True, exist_ok=True)
    log = out / "compile.log"
    print(f"fhe_hw: OpenFHE: compiling {source.name} with g++ (log: {log})", flush=True)
    partial = out / f"{source.stem}.{os.getpid()}"
    cmd = [gxx, "-O3", "-std=c++17", "-fopenmp", f"-I{include}", f"-I{COMMON.parent}",
           str(source), f"-L{lib}",
           f"-l:{LIBRARY}", f"-Wl,-rpath,{lib}", "-o", str(partial)]
    if run_logged(cmd, Path.cwd(), log, "g++", check=False):
        first = next((x for x in log.read_text(errors="replace").splitlines() if "error" in x),
                     "no error line")
        raise OpenFHEUnavailable(f"g++ could not compile {source.name} against {include} "
                                 f"({first.strip()}; log: {log})")
    (out / "key.json").write_text(json.dumps(key, indent=2) + "\n")
    os.replace(partial, exe)
    return exe


def thread_counts():
    """(1, every processor this process may use), or (1,) on one processor."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1
    return (1,) if count == 1 else (1, count)


# --- one run ---------------------------------------------------------------------------------

def _run(exe, plan, threads, seed, warmup, repeat, samples):
    """The benchmark's standard output, run with ``threads`` OpenMP threads (kept beside the
    executable as ``run-<threads>.jsonl``)."""
    record = exe.parent / f"run-{threads}.jsonl"
    print(f"fhe-hw report: OpenFHE: running {exe.name} with {threads} thread(s) (output: "
          f"{record})", flush=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    try:
        done = subprocess.run([str(exe), str(seed), str(warmup), str(repeat), str(samples)],
                              input="".join(c.line() + "\n" for c in plan), capture_output=True,
                              text=True, env=env, timeout=1800)
    except subprocess.TimeoutExpired:
        raise OpenFHEUnavailable(f"{exe} did not finish in 30 min with {threads} thread(s)") \
            from None
    record.write_text(done.stdout)
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise OpenFHEUnavailable(f"{exe} failed with {threads} thread(s): {tail.strip()}")
    return done.stdout


def parse(text):
    """The benchmark's JSON lines as dicts (each with ``kind`` info, check or time); ValueError
    naming the first line that is not one."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict) or record.get("kind") not in ("info", "check", "time"):
            raise ValueError(f"line {number} of the OpenFHE benchmark's output is not a JSON "
                             f"object of kind info, check or time: {line[:80]!r}")
        out.append(record)
    return out


# --- checks against Python big integers ------------------------------------------------------

def _mismatch(what, index, want, got):
    bad = [(i, w, g) for i, w, g in zip(index, want, got) if w != g]
    if len(want) != len(got):
        return f"{what}: {len(got)} outputs for {len(want)} indices"
    if bad:
        i, w, g = bad[0]
        return f"{what}: {len(bad)} of {len(want)} checked outputs differ, first at index {i}: " \
               f"expected {w}, got {g}"
    return None


def _residues(values, moduli):
    """Whether ``values`` is a list of ints, one below each of ``moduli``."""
    return isinstance(values, list) and len(values) == len(moduli) and \
        all(isinstance(v, int) and 0 <= v < m for v, m in zip(values, moduli))


def _check_towers(case, check, keys, reference):
    """None when, in every tower t of ``case``, the outputs equal ``reference(q_t, ψ_t, index,
    *inputs)`` (``check[key][t]`` for each of ``keys``: n residues mod q_t), else what differs
    first."""
    lists = [check[key] for key in keys + ("output",)]
    if not all(isinstance(v, list) and len(v) == len(case.source) for v in lists):
        return f"{', '.join(keys + ('output',))}: not one list per tower ({len(case.source)})"
    for t, (q, psi, *inputs, output) in enumerate(zip(case.source, case.psi, *lists)):
        if not all(_residues(x, [q] * case.n) for x in inputs):
            return f"tower {t}: the {' and '.join(keys)} are not n residues mod {q}"
        wrong = _mismatch(f"{OPERATIONS[case.op]}, tower {t} (q = {q})", check["index"],
                          reference(q, psi, check["index"], *inputs), output)
        if wrong:
            return wrong
    return None


def _ntt(q, psi, index, a):
    """Position i of the evaluation form holds a(ψ^(2j+1)), j = bit-reversal of i: the cyclic
    DFT (:func:`~fhe_hw.model.ntt.dft`) of a_i·ψ^i at ω = ψ², bit-reversed."""
    twisted, w = [], 1
    for v in a:
        twisted.append(v * w % q)
        w = w * psi % q
    bits = len(twisted).bit_length() - 1
    return dft(twisted, q, psi * psi % q, [bit_reverse(i, bits) for i in index])


def _product(q, psi, index, a, b):
    """c_k = Σ_{i ≤ k} a_i·b_(k-i) − Σ_{i > k} a_i·b_(n+k-i) mod q (schoolbook, per index)."""
    n = len(a)
    return [(sum(a[i] * b[k - i] for i in range(k + 1))
             - sum(a[i] * b[n + k - i] for i in range(k + 1, n))) % q for k in index]


def _check_ntt(case, check):
    return _check_towers(case, check, ("input",), _ntt)


def _check_mul(case, check):
    return _check_towers(case, check, ("input", "b"), _product)


def _check_base(case, check):
    """Exact (HPS): X's centred representative (in [-Q/2, Q/2)) mod each p_j; OpenFHE finds the
    multiple of Q from a double-precision sum, so within 2^-40·Q of Q/2 either neighbour passes.
    Fast: X + αQ mod each p_j for one α with 0 ≤ α < l (the sum Σ [x_i·(Q/q_i)^-1]_(q_i)·Q/q_i
    is below l·Q)."""
    l, index, base = len(case.source), check["index"], RNSBase(case.source)
    if not len(index) == len(check["input"]) == len(check["output"]):
        return "index, input and output lists differ in length"
    for i, x, y in zip(index, check["input"], check["output"]):
        if not (_residues(x, case.source) and _residues(y, case.target)):
            return f"index {i}: not {l} input and {len(case.target)} output residues"
        big_x, big_q = base.reconstruct(x), base.Q
        if case.op != "fast":
            centred = big_x - big_q if 2 * big_x >= big_q else big_x
            ok = [centred, big_x + big_x - big_q - centred] \
                if abs(2 * big_x - big_q) < big_q >> 40 else [centred]
        else:
            ok = [big_x + alpha * big_q for alpha in range(l)]
        if not any(y == [v % p for p in case.target] for v in ok):
            want = "the centred representative" if case.op != "fast" else \
                f"X + αQ for one α in [0, {l})"
            return f"{OPERATIONS[case.op]}: index {i} (X = {big_x}): got {y}, expected " \
                   f"{want} mod each target prime"
    return None


_CHECKS = {"ntt": _check_ntt, "mul": _check_mul, "dcrt-ntt": _check_ntt, "dcrt-mul": _check_mul,
           "dcrt-mul-eval": _check_mul, "dcrt-exact": _check_base, "exact": _check_base,
           "fast": _check_base}


def verify(case, check, samples):
    """None when ``check`` (the benchmark's check record of ``case``: one run's inputs and
    outputs at ``samples`` spread indices, all of them when n is smaller) is right, else what is
    wrong."""
    expect = {"source": list(case.source)}
    expect.update({"psi": list(case.psi)} if case.op in TRANSFORMS else
                  {"target": list(case.target)})
    for key, value in expect.items():
        if check.get(key) != value:
            return f"the check ran with {key} = {check.get(key)}, the plan had {value}"
    index = check.get("index")
    if not isinstance(index, list) or len(index) != min(samples, case.n) or \
            not all(isinstance(i, int) and 0 <= i < case.n for i in index):
        return f"the check has no list of {min(samples, case.n)} indices below {case.n}"
    try:
        return _CHECKS[case.op](case, check)
    except (KeyError, TypeError, IndexError) as e:
        return f"malformed check record ({type(e).__name__}: {e})"


# --- rows ------------------------------------------------------------------------------------

def _in_order(records, kind, plan):
    """The ``kind`` record of each case of ``plan`` (the benchmark prints them in the plan's
    order, so two cases of one size, such as towers of two prime rules, each get their own), or
    None where there is none or it names another operation or size."""
    found = [r for r in records if r.get("kind") == kind]
    return [r if r.get("op") == case.op and r.get("n") == case.n and
            r.get("l", 1) == len(case.source) else None
            for case, r in zip(plan, found + [{}] * (len(plan) - len(found)))]


def timings(plan, records, threads, library, samples, repeat):
    """One :class:`Timing` per case of ``plan`` from the parsed ``records`` of a run with
    ``threads`` threads; a case whose result is wrong, or whose check or times are missing, gets
    an ``error`` (and its ``params``) instead of a time."""
    info = next((r for r in records if r["kind"] == "info"), {})
    seen = info.get("library_threads")
    rows = []
    for case, check, timed in zip(plan, _in_order(records, "check", plan),
                                  _in_order(records, "time", plan)):
        name = case.name(threads)
        if seen != threads:
            error = f"OpenFHE ran with {seen} thread(s), not {threads} (it reads " \
                    f"OMP_NUM_THREADS when the library loads)"
        elif check is None:
            error = "the benchmark printed no check of its result: not timed"
        else:
            wrong = verify(case, check, samples)
            runs = timed.get("runs") if timed else None
            if wrong:
                error = f"wrong result, not timed: {wrong}"
            elif not isinstance(runs, list) or len(runs) != repeat or \
                    not all(isinstance(t, (int, float)) and t > 0 for t in runs):
                error = f"the benchmark printed no {repeat} positive run times"
            else:
                rows.append(from_runs(name, library, case.params(threads), runs))
                continue
        rows.append(Timing(name=name, params=case.params(threads), error=error))
    return rows


def openfhe_baselines(repeat=None, *, plan=None, threads=None, seed=1, warmup=2, samples=16):
    """Every case of ``plan`` (default :func:`cases`) with each thread count of ``threads``
    (default :func:`thread_counts`): ``repeat`` timed runs (default 11) after ``warmup``, checked
    first at ``samples`` spread indices. A list of :class:`Timing`; one row with an ``error``
    when OpenFHE cannot be measured here."""
    repeat = 11 if repeat is None else repeat
    try:
        lib, include, (gxx, version) = library_dir(), include_dir(), compiler()
        exe = build(lib, include, gxx, version)
    except OpenFHEUnavailable as e:
        return [Timing(name="OpenFHE", error=str(e))]
    plan = cases() if plan is None else plan
    library = f"OpenFHE {importlib.metadata.version('openfhe')} (libOPENFHEcore; {version})"
    rows = []
    for t in thread_counts() if threads is None else threads:
        try:
            records = parse(_run(exe, plan, t, seed, warmup, repeat, samples))
        except (OpenFHEUnavailable, ValueError) as e:
            rows.append(Timing(name=f"OpenFHE ({t} thread{'s' * (t != 1)})", error=str(e)))
            continue
        rows += timings(plan, records, t, library, samples, repeat)
    return rows
