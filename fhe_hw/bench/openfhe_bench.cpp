// OpenFHE's lattice layer timed on this machine: the CPU baseline of fhe_hw's report.
// fhe_hw/bench/openfhe.py compiles this file against the openfhe wheel's libOPENFHEcore, runs
// it and checks every result it prints against Python big integers before reporting a time.
//
// Usage: openfhe_bench SEED WARMUP REPEAT SAMPLES < plan
//
// The plan has one case per line (the caller chooses every modulus):
//   ntt   N q psi                   forward negacyclic NTT of one residue (NativePoly::SwitchFormat)
//   mul   N q psi                   a*b mod (x^N + 1, q): two forward NTTs, pointwise, inverse NTT
//   dcrt-ntt      N t q_1..q_t      forward NTT of a whole DCRTPoly (SwitchFormat on every tower)
//   dcrt-mul      N t q_1..q_t      a*b of DCRTPolys: two forward NTTs, pointwise, inverse NTT
//   dcrt-mul-eval N t q_1..q_t      a*b with b in evaluation form before timing: one forward NTT,
//                                   pointwise, inverse NTT
//   exact N l k q_1..q_l p_1..p_k   DCRTPoly::SwitchCRTBasis (HPS), l -> k limbs
//   dcrt-exact N l k q_1..q_l p_1..p_k   the same, from a DCRTPoly's towers to the next primes
//   fast  N l k q_1..q_l p_1..p_k   DCRTPoly::ApproxSwitchCRTBasis, l -> k limbs
// psi is a primitive 2N-th root of unity mod q. A DCRTPoly's towers are
// ILDCRTParams(2N, moduli, roots) with OpenFHE's own root of each, RootOfUnity(2N, q_i).
// Inputs are uniform residues from mt19937_64(SEED), coefficient form.
//
// Output, JSON lines on stdout:
//   {"kind": "info", ...}               OpenMP's thread counts as the library sees them
//   {"kind": "check", "op", "n", ...}   one run's inputs and outputs at SAMPLES spread indices
//                                       (NTT and product inputs whole, one list per tower, with
//                                       the towers' moduli "source" and roots "psi"), written
//                                       before timing
//   {"kind": "time", "op", "n", "runs": [seconds, ...]}   REPEAT timed runs after WARMUP runs
// ("l", the number of towers or source limbs, beside "n" in both but for ntt and mul), one check
// line then one time line per case, in the plan's order.
// OpenFHE's parallel loops take their thread count from what OpenMP reports when the library
// loads (lbcrypto::ParallelControls), so the caller sets OMP_NUM_THREADS; the info line says
// what the library saw.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lattice/lat-hal.h"
#include "openfhe_common.h"

using namespace lbcrypto;
using namespace fhe_hw;

namespace {

using Clock = std::chrono::steady_clock;

std::mt19937_64 rng;

// SAMPLES (>= 2) indices spread over [0, n), the first and the last included; all when n is
// not larger.
std::vector<size_t> spread(size_t n, size_t samples) {
    std::vector<size_t> idx;
    for (size_t s = 0; s < std::min(n, samples); ++s)
        idx.push_back(samples >= n ? s : s * (n - 1) / (samples - 1));
    return idx;
}

// WARMUP runs, then REPEAT runs of fn() each after an untimed prepare(); one "time" line.
template <typename Prepare, typename Fn>
void time_runs(const std::string& head, int warmup, int repeat, Prepare prepare, Fn fn) {
    for (int i = 0; i < warmup; ++i) {
        prepare();
        fn();
    }
    std::vector<double> runs;
    for (int i = 0; i < repeat; ++i) {
        prepare();
        auto start = Clock::now();
        fn();
        runs.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::ostringstream out;
    out.precision(9);
    out << "{\"kind\":\"time\"," << head << ",\"runs\":" << list(runs) << "}";
    std::cout << out.str() << std::endl;
}

// A polynomial's residues, one row per tower.
using Rows = std::vector<std::vector<uint64_t>>;

std::string lists(const Rows& rows) {
    std::string out = "[";
    for (size_t t = 0; t < rows.size(); ++t)
        out += (t ? "," : "") + list(rows[t]);
    return out + "]";
}

// The towers of a NativePoly's parameters (one) or a DCRTPoly's; the polynomial in coefficient
// form holding rows; a polynomial's rows at the indices idx.
std::vector<std::shared_ptr<ILNativeParams>> towers(const std::shared_ptr<ILNativeParams>& params) {
    return {params};
}

std::vector<std::shared_ptr<ILNativeParams>> towers(const std::shared_ptr<ILDCRTParams<BigInteger>>& params) {
    return params->GetParams();
}

NativePoly assemble(const std::shared_ptr<ILNativeParams>& params, const Rows& rows) {
    return poly(params, rows[0]);
}

DCRTPoly assemble(const std::shared_ptr<ILDCRTParams<BigInteger>>& params, const Rows& rows) {
    DCRTPoly out(params, Format::COEFFICIENT, true);
    for (size_t t = 0; t < rows.size(); ++t)
        out.SetElementAtIndex(t, poly(params->GetParams()[t], rows[t]));
    return out;
}

std::vector<uint64_t> at(const NativePoly& p, const std::vector<size_t>& idx) {
    std::vector<uint64_t> out;
    for (auto i : idx)
        out.push_back(p[i].ConvertToInt<uint64_t>());
    return out;
}

Rows rows_at(const NativePoly& p, const std::vector<size_t>& idx) {
    return {at(p, idx)};
}

Rows rows_at(const DCRTPoly& p, const std::vector<size_t>& idx) {
    Rows out;
    for (size_t t = 0; t < p.GetNumOfElements(); ++t)
        out.push_back(at(p.GetElementAtIndex(t), idx));
    return out;
}

// The rows of residues by index: one row per index, its residues tower by tower.
Rows transpose(const Rows& rows) {
    Rows out(rows.empty() ? 0 : rows[0].size());
    for (const auto& row : rows)
        for (size_t s = 0; s < row.size(); ++s)
            out[s].push_back(row[s]);
    return out;
}

// count numbers from the plan's line.
std::vector<uint64_t> read(std::istream& line, size_t count) {
    std::vector<uint64_t> out(count);
    for (auto& v : out)
        line >> v;
    return out;
}

// Uniform residues below each tower's modulus.
Rows uniform_rows(const std::vector<uint64_t>& moduli, size_t n) {
    Rows out;
    for (auto q : moduli)
        out.push_back(uniform(rng, n, q));
    return out;
}

// kind ntt, mul or mul-eval (the product with b in evaluation form before the timed runs, as
// OpenFHE keeps keys) of a NativePoly or a DCRTPoly with the parameters params; head names the
// case in its check and time lines.
template <typename Params>
void transform(const std::string& kind, const std::string& head, const Params& params, size_t n, size_t samples,
               int warmup, int repeat) {
    std::vector<uint64_t> moduli, roots;
    for (const auto& t : towers(params)) {
        moduli.push_back(t->GetModulus().template ConvertToInt<uint64_t>());
        roots.push_back(t->GetRootOfUnity().template ConvertToInt<uint64_t>());
    }
    auto a   = uniform_rows(moduli, n);
    auto idx = spread(n, samples);
    std::ostringstream check;
    check << "{\"kind\":\"check\"," << head << ",\"source\":" << list(moduli) << ",\"psi\":" << list(roots)
          << ",\"index\":" << list(idx) << ",\"input\":" << lists(a);
    auto x = assemble(params, a);
    auto y = x;
    if (kind == "ntt") {
        y.SwitchFormat();
        check << ",\"output\":" << lists(rows_at(y, idx)) << "}";
        std::cout << check.str() << std::endl;
        time_runs(head, warmup, repeat, [&] { y = x; }, [&] { y.SwitchFormat(); });
        return;
    }
    auto b     = uniform_rows(moduli, n);
    auto xb    = assemble(params, b);
    bool ready = kind == "mul-eval";
    if (ready)
        xb.SwitchFormat();
    auto z       = xb;
    auto prepare = [&] {
        y = x;
        z = xb;
    };
    auto product = [&] {
        y.SwitchFormat();
        if (!ready)
            z.SwitchFormat();
        y *= z;
        y.SwitchFormat();
    };
    prepare();
    product();
    check << ",\"b\":" << lists(b) << ",\"output\":" << lists(rows_at(y, idx)) << "}";
    std::cout << check.str() << std::endl;
    time_runs(head, warmup, repeat, prepare, product);
}

// ntt and mul: one residue mod q with psi a primitive 2N-th root.
void native(const std::string& op, std::istream& line, size_t samples, int warmup, int repeat) {
    size_t n;
    uint64_t q, psi;
    line >> n >> q >> psi;
    std::ostringstream head;
    head << "\"op\":\"" << op << "\",\"n\":" << n;
    transform(op, head.str(), std::make_shared<ILNativeParams>(2 * n, NativeInteger(q), NativeInteger(psi)), n,
              samples, warmup, repeat);
}

// dcrt-ntt, dcrt-mul and dcrt-mul-eval: a DCRTPoly with the plan's towers, each with OpenFHE's
// root (RootOfUnity: the smallest primitive 2N-th root, the one ILDCRTParams(2N, towers, bits)
// gives the primes it picks itself).
void dcrt(const std::string& op, std::istream& line, size_t samples, int warmup, int repeat) {
    size_t n, towers;
    line >> n >> towers;
    std::vector<NativeInteger> moduli, roots;
    for (auto q : read(line, towers)) {
        moduli.emplace_back(q);
        roots.push_back(RootOfUnity<NativeInteger>(2 * n, moduli.back()));
    }
    std::ostringstream head;
    head << "\"op\":\"" << op << "\",\"n\":" << n << ",\"l\":" << towers;
    transform(op.substr(5), head.str(), std::make_shared<ILDCRTParams<BigInteger>>(2 * n, moduli, roots), n,
              samples, warmup, repeat);
}

// exact, dcrt-exact and fast: DCRTPoly's base conversions with the tables OpenFHE's BFV/CKKS
// parameters hold (CRTTables, computed from the moduli).
void base_conversion(const std::string& op, std::istream& line, size_t samples, int warmup, int repeat) {
    size_t n, l, k;
    line >> n >> l >> k;
    auto q = read(line, l);
    auto p = read(line, k);
    CRTTables tables(n, q, p);

    auto x       = assemble(tables.source, uniform_rows(q, n));
    auto convert = [&] { return op == "fast" ? tables.approx(x) : tables.exact(x); };
    auto y       = convert();
    auto idx     = spread(n, samples);
    std::ostringstream head, check;
    head << "\"op\":\"" << op << "\",\"n\":" << n << ",\"l\":" << l << ",\"k\":" << k;
    check << "{\"kind\":\"check\"," << head.str() << ",\"source\":" << list(q) << ",\"target\":" << list(p)
          << ",\"index\":" << list(idx) << ",\"input\":" << lists(transpose(rows_at(x, idx)))
          << ",\"output\":" << lists(transpose(rows_at(y, idx))) << "}";
    std::cout << check.str() << std::endl;
    time_runs(head.str(), warmup, repeat, [] {}, [&] { y = convert(); });
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5 || std::strtoull(argv[4], nullptr, 10) < 2) {
        std::cerr << "usage: openfhe_bench SEED WARMUP REPEAT SAMPLES(>=2) < plan" << std::endl;
        return 2;
    }
    rng.seed(std::strtoull(argv[1], nullptr, 10));
    int warmup     = std::atoi(argv[2]);
    int repeat     = std::atoi(argv[3]);
    size_t samples = std::strtoull(argv[4], nullptr, 10);
    std::cout << "{\"kind\":\"info\",\"omp_max_threads\":" << omp_get_max_threads()
              << ",\"library_threads\":" << OpenFHEParallelControls.GetMachineThreads()
              << ",\"omp_num_procs\":" << omp_get_num_procs() << "}" << std::endl;
    std::string text;
    while (std::getline(std::cin, text)) {
        std::istringstream line(text);
        std::string op;
        if (!(line >> op))
            continue;
        if (op == "ntt" || op == "mul")
            native(op, line, samples, warmup, repeat);
        else if (op == "dcrt-ntt" || op == "dcrt-mul" || op == "dcrt-mul-eval")
            dcrt(op, line, samples, warmup, repeat);
        else if (op == "exact" || op == "dcrt-exact" || op == "fast")
            base_conversion(op, line, samples, warmup, repeat);
        else {
            std::cerr << "openfhe_bench: unknown case '" << op << "'" << std::endl;
            return 2;
        }
    }
    return 0;
}
