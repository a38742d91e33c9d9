// OpenFHE's lattice layer timed on this machine: the CPU baseline of fhe_hw's report.
// fhe_hw/bench/openfhe.py compiles this file against the openfhe wheel's libOPENFHEcore, runs
// it and checks every result it prints against Python big integers before reporting a time.
//
// Usage: openfhe_bench SEED WARMUP REPEAT SAMPLES < plan
//
// The plan has one case per line (the caller chooses the moduli):
//   ntt   N q psi                   forward negacyclic NTT of one residue (NativePoly::SwitchFormat)
//   mul   N q psi                   a*b mod (x^N + 1, q): two forward NTTs, pointwise, inverse NTT
//   exact N l k q_1..q_l p_1..p_k   DCRTPoly::SwitchCRTBasis (HPS), l -> k limbs
//   fast  N l k q_1..q_l p_1..p_k   DCRTPoly::ApproxSwitchCRTBasis, l -> k limbs
// psi is a primitive 2N-th root of unity mod q. Inputs are uniform residues from
// mt19937_64(SEED), coefficient form.
//
// Output, JSON lines on stdout:
//   {"kind": "info", ...}               OpenMP's thread counts as the library sees them
//   {"kind": "check", "op", "n", ...}   one run's inputs and outputs at SAMPLES spread indices
//                                       (NTT and product inputs whole), written before timing
//   {"kind": "time", "op", "n", "runs": [seconds, ...]}   REPEAT timed runs after WARMUP runs
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

std::vector<uint64_t> at(const NativePoly& p, const std::vector<size_t>& idx) {
    std::vector<uint64_t> out;
    for (auto i : idx)
        out.push_back(p[i].ConvertToInt<uint64_t>());
    return out;
}

// ntt and mul: one residue mod q with psi a primitive 2N-th root.
void transform(const std::string& op, std::istream& line, size_t samples, int warmup, int repeat) {
    size_t n;
    uint64_t q, psi;
    line >> n >> q >> psi;
    auto params = std::make_shared<ILNativeParams>(2 * n, NativeInteger(q), NativeInteger(psi));
    auto idx    = spread(n, samples);
    std::ostringstream head;
    head << "\"op\":\"" << op << "\",\"n\":" << n;
    std::ostringstream check;
    check << "{\"kind\":\"check\"," << head.str() << ",\"q\":" << q << ",\"psi\":" << psi;
    auto a = uniform(rng, n, q);
    auto x = poly(params, a);
    NativePoly y, z;
    if (op == "ntt") {
        y = x;
        y.SwitchFormat();
        check << ",\"input\":" << list(a) << ",\"index\":" << list(idx) << ",\"output\":" << list(at(y, idx)) << "}";
        std::cout << check.str() << std::endl;
        time_runs(head.str(), warmup, repeat, [&] { y = x; }, [&] { y.SwitchFormat(); });
        return;
    }
    auto b  = uniform(rng, n, q);
    auto xb = poly(params, b);
    auto product = [&] {
        y.SwitchFormat();
        z.SwitchFormat();
        y *= z;
        y.SwitchFormat();
    };
    y = x;
    z = xb;
    product();
    check << ",\"a\":" << list(a) << ",\"b\":" << list(b) << ",\"index\":" << list(idx)
          << ",\"output\":" << list(at(y, idx)) << "}";
    std::cout << check.str() << std::endl;
    time_runs(
        head.str(), warmup, repeat,
        [&] {
            y = x;
            z = xb;
        },
        product);
}

// exact and fast: DCRTPoly's base conversions with the tables OpenFHE's BFV/CKKS parameters hold
// (CRTTables, computed from the moduli).
void base_conversion(const std::string& op, std::istream& line, size_t samples, int warmup, int repeat) {
    size_t n, l, k;
    line >> n >> l >> k;
    std::vector<uint64_t> q(l), p(k);
    for (auto& v : q)
        line >> v;
    for (auto& v : p)
        line >> v;
    CRTTables tables(n, q, p);

    DCRTPoly x(tables.source, Format::COEFFICIENT, true);
    std::vector<std::vector<uint64_t>> residues;
    for (size_t i = 0; i < l; ++i) {
        residues.push_back(uniform(rng, n, q[i]));
        x.SetElementAtIndex(i, poly(tables.source->GetParams()[i], residues.back()));
    }
    auto convert = [&] { return op == "exact" ? tables.exact(x) : tables.approx(x); };
    auto y   = convert();
    auto idx = spread(n, samples);
    std::ostringstream head, check;
    head << "\"op\":\"" << op << "\",\"n\":" << n << ",\"l\":" << l << ",\"k\":" << k;
    check << "{\"kind\":\"check\"," << head.str() << ",\"source\":" << list(q) << ",\"target\":" << list(p)
          << ",\"index\":" << list(idx) << ",\"input\":[";
    for (size_t s = 0; s < idx.size(); ++s) {
        std::vector<uint64_t> col;
        for (size_t i = 0; i < l; ++i)
            col.push_back(residues[i][idx[s]]);
        check << (s ? "," : "") << list(col);
    }
    check << "],\"output\":[";
    for (size_t s = 0; s < idx.size(); ++s) {
        std::vector<uint64_t> col;
        for (size_t j = 0; j < k; ++j)
            col.push_back(y.GetElementAtIndex(j)[idx[s]].ConvertToInt<uint64_t>());
        check << (s ? "," : "") << list(col);
    }
    check << "]}";
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
            transform(op, line, samples, warmup, repeat);
        else if (op == "exact" || op == "fast")
            base_conversion(op, line, samples, warmup, repeat);
        else {
            std::cerr << "openfhe_bench: unknown case '" << op << "'" << std::endl;
            return 2;
        }
    }
    return 0;
}
