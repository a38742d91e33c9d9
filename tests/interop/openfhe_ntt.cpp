// OpenFHE's negacyclic NTTs on seeded inputs, for tests/test_openfhe_interop.py, which compiles
// this file against the openfhe wheel's libOPENFHEcore (fhe_hw.bench.openfhe.build) and
// requires fhe_hw's NTT hardware to give the same words.
//
// Usage (one configuration per process: OpenFHE caches its twiddle tables per modulus for the
// whole process and then ignores a root passed later):
//   openfhe_ntt native N BITS SEED        NativePoly mod q = LastPrime(BITS, 2N)
//   openfhe_ntt dcrt N BITS LIMBS [PRIME_N] SEED
//                                         DCRTPoly of ring degree N over LastPrime(BITS, 2M) and
//                                         the LIMBS - 1 PreviousPrime(., 2M) below it, M = PRIME_N
//                                         (a power of two >= N; default N): the towers of fhe_hw's
//                                         poly units with prime_n = M
// OpenFHE picks every prime and root itself (ILNativeParams(2N, q), ILDCRTParams(2N, moduli):
// RootOfUnity). Inputs are uniform residues from mt19937_64(SEED), value = rng() % q.
//
// Output: one JSON object on stdout, keys "n" and "limbs", a list of one object per limb (one
// for native) with:
//   "q", "psi"                the limb's prime and the root of unity OpenFHE chose for it
//   native: "a" (coefficients), "a_eval" (a after SwitchFormat: COEFFICIENT -> EVALUATION),
//           "e" (evaluation-form values), "e_coef" (e after SwitchFormat: EVALUATION ->
//           COEFFICIENT)
//   dcrt:   "a", "b" (coefficients), "a_eval", "b_eval" (each DCRTPoly after SwitchFormat),
//           "ab_eval" (a_eval * b_eval), "ab" (that product after SwitchFormat back)

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lattice/lat-hal.h"
#include "math/nbtheory.h"
#include "openfhe_common.h"

using namespace lbcrypto;
using namespace fhe_hw;

namespace {

std::mt19937_64 rng;

std::string head(const std::shared_ptr<ILNativeParams>& params) {
    std::ostringstream out;
    out << "{\"q\":" << params->GetModulus().ConvertToInt<uint64_t>()
        << ",\"psi\":" << params->GetRootOfUnity().ConvertToInt<uint64_t>();
    return out.str();
}

std::string native(size_t n, uint32_t bits) {
    auto q      = LastPrime<NativeInteger>(bits, 2 * n);
    auto params = std::make_shared<ILNativeParams>(2 * n, q);
    auto a      = uniform(rng, n, q.ConvertToInt<uint64_t>());
    auto e      = uniform(rng, n, q.ConvertToInt<uint64_t>());
    auto x      = poly(params, a, Format::COEFFICIENT);
    auto y      = poly(params, e, Format::EVALUATION);
    x.SwitchFormat();
    y.SwitchFormat();
    std::ostringstream out;
    out << head(params) << ",\"a\":" << list(a) << ",\"a_eval\":" << list(values(x))
        << ",\"e\":" << list(e) << ",\"e_coef\":" << list(values(y)) << "}";
    return out.str();
}

std::string dcrt(size_t n, uint32_t bits, size_t limbs, size_t prime_n) {
    std::vector<NativeInteger> moduli{LastPrime<NativeInteger>(bits, 2 * prime_n)};
    while (moduli.size() < limbs)
        moduli.push_back(PreviousPrime<NativeInteger>(moduli.back(), 2 * prime_n));
    auto params = std::make_shared<ILDCRTParams<BigInteger>>(2 * n, moduli);
    DCRTPoly a(params, Format::COEFFICIENT, true), b(params, Format::COEFFICIENT, true);
    std::vector<std::vector<uint64_t>> ca, cb;
    for (size_t i = 0; i < limbs; ++i) {
        auto limb = params->GetParams()[i];
        ca.push_back(uniform(rng, n, moduli[i].ConvertToInt<uint64_t>()));
        cb.push_back(uniform(rng, n, moduli[i].ConvertToInt<uint64_t>()));
        a.SetElementAtIndex(i, poly(limb, ca.back(), Format::COEFFICIENT));
        b.SetElementAtIndex(i, poly(limb, cb.back(), Format::COEFFICIENT));
    }
    a.SwitchFormat();
    b.SwitchFormat();
    DCRTPoly ab = a * b;
    DCRTPoly ab_coef(ab);
    ab_coef.SwitchFormat();
    std::ostringstream out;
    for (size_t i = 0; i < limbs; ++i) {
        out << (i ? "," : "") << head(params->GetParams()[i]) << ",\"a\":" << list(ca[i])
            << ",\"b\":" << list(cb[i]) << ",\"a_eval\":" << list(values(a.GetElementAtIndex(i)))
            << ",\"b_eval\":" << list(values(b.GetElementAtIndex(i)))
            << ",\"ab_eval\":" << list(values(ab.GetElementAtIndex(i)))
            << ",\"ab\":" << list(values(ab_coef.GetElementAtIndex(i))) << "}";
    }
    return out.str();
}

}  // namespace

int main(int argc, char** argv) {
    std::string kind = argc > 1 ? argv[1] : "";
    if (!((kind == "native" && argc == 5) || (kind == "dcrt" && (argc == 6 || argc == 7)))) {
        std::cerr << "usage: openfhe_ntt native N BITS SEED | dcrt N BITS LIMBS [PRIME_N] SEED"
                  << std::endl;
        return 2;
    }
    size_t n      = std::strtoull(argv[2], nullptr, 10);
    uint32_t bits = std::strtoul(argv[3], nullptr, 10);
    size_t prime_n = argc == 7 ? std::strtoull(argv[5], nullptr, 10) : n;
    if (prime_n < n || (prime_n & (prime_n - 1))) {
        std::cerr << "openfhe_ntt: PRIME_N must be a power of two >= N = " << n << ", not "
                  << argv[5] << std::endl;
        return 2;
    }
    rng.seed(std::strtoull(argv[argc - 1], nullptr, 10));
    std::cout << "{\"n\":" << n << ",\"limbs\":["
              << (kind == "native" ? native(n, bits)
                                   : dcrt(n, bits, std::strtoull(argv[4], nullptr, 10), prime_n))
              << "]}" << std::endl;
    return 0;
}
