"""Software baselines measured on the machine that runs the report.

What a user would run instead of the hardware, with well-kept libraries:

* GMP through ``gmpy2``: big-integer products (:func:`gmp_multiply`), the CMNT encryption of
  [Cao14] eq. (1) at the four groups of [Cao14] Table 1 (:func:`gmp_cmnt_encrypt`) and the CNT
  encryption of [Cao13] eq. (2) at those of [Cao13] Table 2 (:func:`gmp_cnt_encrypt`).
* FLINT through ``python-flint``: the polynomial product of 004 (n = 2560, 125-bit
  coefficients, :func:`flint_poly_multiply`) and the negacyclic n-point product mod a 60-bit NTT
  prime (:func:`flint_negacyclic_multiply`).
* An NTT in NumPy (:func:`numpy_ntt`, radix-2, vectorised per stage, a 31-bit NTT prime so that
  products fit uint64); checked against :func:`fhe_hw.model.ntt.dft` in the tests.
* OpenFHE's NTT, negacyclic product and base conversions, a C++ program timed with 1 and all
  threads (:mod:`.openfhe`).

Each baseline builds its random inputs from a fixed seed, runs once to warm up and then
``repeat`` times, and reports the median (:func:`time_median`). A missing library raises
``ImportError`` naming the extra to install (``pip install -e .[bench]``).
"""

import os
import platform
import random
import statistics
import time
from pathlib import Path

from ..model.bigint import cmnt_group, cnt_group
from ..params import ntt_primes, require_int
from .openfhe import openfhe_baselines
from .timing import Timing, from_runs

__all__ = ["Timing", "time_median", "machine", "cpu_model", "gmp_multiply", "gmp_cmnt_encrypt",
           "gmp_cmnt_reference", "gmp_cnt_encrypt", "gmp_cnt_reference", "flint_poly_multiply",
           "flint_negacyclic_multiply", "numpy_ntt", "ntt_numpy", "run_baselines", "GROUPS"]

GROUPS = ("toy", "small", "medium", "large")


def time_median(fn, repeat=5, warmup=1):
    """Run ``fn()`` ``warmup`` times, then ``repeat`` times; (median, every run) in seconds."""
    require_int("repeat", repeat, minimum=1)
    for _ in range(warmup):
        fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), runs


def _timing(name, library, params, fn, repeat, warmup=1):
    return from_runs(name, library, params, time_median(fn, repeat, warmup)[1])


def cpu_model(cpuinfo=None):
    """The processor's model name: the first ``model name`` line of ``cpuinfo`` (the text of
    /proc/cpuinfo, read when None), else :func:`platform.processor`, else the architecture. A
    baseline's time depends on it, so a ratio to the hardware is only comparable on one
    model."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return value.strip()
    return platform.processor() or platform.machine()


def machine():
    """What ran the baselines: processor model, its logical CPUs, Python, platform."""
    return {"processor": f"{cpu_model()} ({os.cpu_count()} logical CPUs)",
            "python": platform.python_version(), "platform": platform.platform()}


def _gmpy2():
    try:
        import gmpy2
    except ImportError as e:
        raise ImportError("gmpy2 is missing: pip install -e .[bench]") from e
    return gmpy2


def _flint():
    try:
        import flint
    except ImportError as e:
        raise ImportError("python-flint is missing: pip install -e .[bench]") from e
    return flint


def gmp_multiply(bits, repeat=5, seed=1):
    """Median time of one ``bits`` x ``bits``-bit product with GMP ([Wang13]'s 786,432-bit product,
    [Cao13]'s super-size products)."""
    gmpy2 = _gmpy2()
    require_int("bits", bits, minimum=1)
    state = gmpy2.random_state(seed)
    a = gmpy2.mpz_urandomb(state, bits) | gmpy2.mpz(1) << (bits - 1)
    b = gmpy2.mpz_urandomb(state, bits) | gmpy2.mpz(1) << (bits - 1)
    return _timing(f"GMP {bits}-bit product", f"gmpy2 {gmpy2.version()}", {"bits": bits},
                   lambda: a * b, repeat)


def _cmnt_inputs(group, seed):
    """CMNT inputs of ``group`` as mpz ([Cao14] Table 1 sizes): M, R, B (θ x θ, δ bits), A_i0,
    A_j1 and A0 (exactly φ bits, A0 odd)."""
    gmpy2 = _gmpy2()
    s = cmnt_group(group)
    state = gmpy2.random_state(seed)
    rnd = random.Random(seed)
    top = gmpy2.mpz(1) << (s.key_bits - 1)

    def key():
        return gmpy2.mpz_urandomb(state, s.key_bits - 1) | top

    bound = 1 << s.noise_bits
    M, R = rnd.getrandbits(1), rnd.randrange(1 - bound, bound)
    B = [[gmpy2.mpz_urandomb(state, s.coeff_bits) for _ in range(s.count)]
         for _ in range(s.count)]
    return s, M, gmpy2.mpz(R), B, [key() for _ in range(s.count)], \
        [key() for _ in range(s.count)], key() | 1


def gmp_cmnt_reference(M, R, B, A0_list, A1_list, A0):
    """C = (M + 2R + 2·Σ_i A_i0 · Σ_j B_ij·A_j1) mod A0 ([Cao14] eq. (1), the inner sum first: θ
    products of φ x φ bits and θ² of δ x φ bits)."""
    total = 0
    for i, a_i0 in enumerate(A0_list):
        inner = 0
        for b_ij, a_j1 in zip(B[i], A1_list):
            inner += b_ij * a_j1
        total += a_i0 * inner
    return (M + 2 * R + 2 * total) % A0


def gmp_cmnt_encrypt(group, repeat=3, seed=1):
    """Median time of one CMNT encryption ([Cao14] eq. (1)) with GMP at ``group`` (toy, small,
    medium, large of [Cao14] Table 1)."""
    gmpy2 = _gmpy2()
    s, M, R, B, A0_list, A1_list, A0 = _cmnt_inputs(group, seed)
    params = {"group": group, "delta": s.coeff_bits, "rho": s.noise_bits, "phi": s.key_bits,
              "theta": s.count}
    return _timing(f"GMP CMNT encryption ({group})", f"gmpy2 {gmpy2.version()}", params,
                   lambda: gmp_cmnt_reference(M, R, B, A0_list, A1_list, A0), repeat)


def _cnt_inputs(group, seed):
    """CNT inputs of ``group`` as mpz ([Cao13] Table 2 sizes): M, R, b_i (α bits), x_i and x0
    (exactly γ bits)."""
    gmpy2 = _gmpy2()
    s = cnt_group(group)
    state = gmpy2.random_state(seed)
    rnd = random.Random(seed)
    top = gmpy2.mpz(1) << (s.key_bits - 1)
    bound = 1 << s.noise_bits
    M, R = rnd.getrandbits(1), rnd.randrange(1 - bound, bound)
    b = [gmpy2.mpz_urandomb(state, s.coeff_bits) for _ in range(s.count)]
    x = [gmpy2.mpz_urandomb(state, s.key_bits - 1) | top for _ in range(s.count)]
    return s, M, gmpy2.mpz(R), b, x, gmpy2.mpz_urandomb(state, s.key_bits - 1) | top | 1


def gmp_cnt_reference(M, R, b_list, x_list, x0):
    """c = (M + 2R + 2·Σ_i b_i·x_i) mod x0 ([Cao13] eq. (2): τ products of α x γ bits)."""
    total = 0
    for b, x in zip(b_list, x_list):
        total += b * x
    return (M + 2 * R + 2 * total) % x0


def gmp_cnt_encrypt(group, repeat=3, seed=1):
    """Median time of one CNT encryption ([Cao13] eq. (2)) with GMP at ``group`` (toy, small,
    medium, large of [Cao13] Table 2)."""
    gmpy2 = _gmpy2()
    s, M, R, b, x, x0 = _cnt_inputs(group, seed)
    params = {"group": group, "alpha": s.coeff_bits, "rho": s.noise_bits, "gamma": s.key_bits,
              "tau": s.count}
    return _timing(f"GMP CNT encryption ({group})", f"gmpy2 {gmpy2.version()}", params,
                   lambda: gmp_cnt_reference(M, R, b, x, x0), repeat)


def flint_poly_multiply(n=2560, bits=125, repeat=5, seed=1):
    """Median time of a product of two degree-(n-1) polynomials with ``bits``-bit coefficients
    in Z[x] with FLINT ([Mig16]'s n = 2560, 125-bit operands)."""
    flint = _flint()
    rnd = random.Random(seed)
    a = flint.fmpz_poly([rnd.getrandbits(bits) for _ in range(n)])
    b = flint.fmpz_poly([rnd.getrandbits(bits) for _ in range(n)])
    return _timing(f"FLINT Z[x] product n={n}, {bits}-bit", f"python-flint {flint.__version__}",
                   {"n": n, "bits": bits}, lambda: a * b, repeat)


def flint_negacyclic_multiply(n=4096, bits=60, repeat=5, seed=1):
    """Median time of a negacyclic product mod (x^n + 1, q) for a ``bits``-bit NTT prime q with
    FLINT (nmod_poly product, then the wrap-around subtraction)."""
    flint = _flint()
    q = ntt_primes(bits, n, 1)[0]
    rnd = random.Random(seed)
    a = flint.nmod_poly([rnd.randrange(q) for _ in range(n)], q)
    b = flint.nmod_poly([rnd.randrange(q) for _ in range(n)], q)

    def run():
        c = a * b
        return c.truncate(n) - c.right_shift(n)

    return _timing(f"FLINT negacyclic product n={n} mod {bits}-bit prime",
                   f"python-flint {flint.__version__}", {"n": n, "q": q}, run, repeat)


def _numpy():
    try:
        import numpy
    except ImportError as e:
        raise ImportError("numpy is missing: pip install -e .[bench]") from e
    return numpy


def ntt_numpy(a, q, omega):
    """The cyclic NTT A_j = Σ a_i ω^(ij) mod q of ``a`` (length a power of two, q < 2^32) in
    natural order, as an ``numpy.uint64`` array: bit-reversal, then log2 n vectorised radix-2
    stages."""
    np = _numpy()
    a = np.asarray(a, dtype=np.uint64)
    n = len(a)
    bits = n.bit_length() - 1
    rev = np.zeros(n, dtype=np.int64)
    for b in range(bits):
        rev |= ((np.arange(n) >> b) & 1) << (bits - 1 - b)
    x = a[rev].copy()
    q64 = np.uint64(q)
    half = 1
    while half < n:
        w = pow(omega, n // (2 * half), q)
        tw = _powers(np, w, half, q)
        x = x.reshape(-1, 2 * half)
        u, v = x[:, :half], (x[:, half:] * tw) % q64
        x = np.concatenate(((u + v) % q64, (u + q64 - v) % q64), axis=1).reshape(-1)
        half *= 2
    return x


def _powers(np, w, count, q):
    """[w^0, ..., w^(count-1)] mod q by repeated doubling of the prefix (vectorised)."""
    out = np.ones(count, dtype=np.uint64)
    filled, step = 1, w
    while filled < count:
        take = min(filled, count - filled)
        out[filled:filled + take] = (out[:take] * np.uint64(step)) % np.uint64(q)
        filled += take
        step = pow(step, 2, q)
    return out


def numpy_ntt(n=65536, repeat=5, seed=1):
    """Median time of one cyclic n-point NTT mod a 31-bit NTT prime in NumPy ([Wang13]'s 64K-point
    transform; 002 uses 2^64 - 2^32 + 1, which does not fit NumPy's uint64 products)."""
    np = _numpy()
    q = ntt_primes(31, n, 1)[0]
    omega = _root(q, n)
    rnd = random.Random(seed)
    a = np.array([rnd.randrange(q) for _ in range(n)], dtype=np.uint64)
    return _timing(f"NumPy NTT n={n} mod 31-bit prime", f"numpy {np.__version__}",
                   {"n": n, "q": q, "omega": omega}, lambda: ntt_numpy(a, q, omega), repeat)


def _root(q, n):
    """A primitive n-th root of unity mod the prime q (q ≡ 1 mod n)."""
    for g in range(2, q):
        w = pow(g, (q - 1) // n, q)
        if pow(w, n // 2, q) != 1:
            return w
    raise ValueError(f"no primitive {n}-th root mod {q}")


def run_baselines(full=False, repeat=None):
    """Every baseline the report shows: a list of :class:`Timing` (or ``{"name", "error"}``
    when a library is missing), OpenFHE's last (:func:`.openfhe.openfhe_baselines`, 11 runs
    each unless ``repeat``). ``full`` adds the large CMNT group (about 19 Mbit keys: GBs of
    traffic, seconds per run)."""
    rep = 5 if repeat is None else repeat
    jobs = [(gmp_multiply, (786_432,), {"repeat": rep})]
    jobs += [(fn, (g,), {"repeat": 3 if repeat is None else repeat})
             for fn in (gmp_cmnt_encrypt, gmp_cnt_encrypt) for g in GROUPS
             if full or g != "large"]
    jobs += [(flint_poly_multiply, (), {"repeat": rep}),
             (flint_negacyclic_multiply, (4096,), {"repeat": rep}),
             (flint_negacyclic_multiply, (65536,), {"repeat": rep}),
             (numpy_ntt, (65536,), {"repeat": rep})]
    out = []
    for fn, args, kw in jobs:
        try:
            out.append(fn(*args, **kw))
        except ImportError as e:
            out.append(Timing(name=fn.__name__, error=str(e)))
    return out + openfhe_baselines(repeat)
