// OpenFHE's RNS base conversions on chosen inputs, for tests/test_openfhe_convert.py, which
// compiles this file against the openfhe wheel's libOPENFHEcore (fhe_hw.bench.openfhe.build)
// and requires fhe_hw's base-conversion hardware to give the same words.
//
// Usage:
//   openfhe_convert primes N BITS COUNT   OpenFHE's LastPrime(BITS, 2N) and the COUNT - 1
//                                         PreviousPrime(., 2N) below it, largest first:
//                                         {"primes": [...]}
//   openfhe_convert convert N L K < in    in: L source primes, K target primes, then N lines of
//                                         L residues (coefficient c's x mod q_i); out:
//                                         {"exact": [[...N...] per target prime],
//                                          "approx": [[...N...] per target prime]}
// "exact" is DCRTPoly::SwitchCRTBasis (HPS: the centred lift, alpha from a double-precision
// sum), "approx" DCRTPoly::ApproxSwitchCRTBasis (fast base conversion), both with the tables
// OpenFHE's BFV parameters precompute (CRTTables of fhe_hw/bench/openfhe_common.h).

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lattice/lat-hal.h"
#include "math/nbtheory.h"
#include "openfhe_common.h"

using namespace lbcrypto;
using namespace fhe_hw;

namespace {

std::string primes(size_t n, uint32_t bits, size_t count) {
    std::vector<uint64_t> out{LastPrime<NativeInteger>(bits, 2 * n).ConvertToInt<uint64_t>()};
    while (out.size() < count)
        out.push_back(PreviousPrime<NativeInteger>(NativeInteger(out.back()), 2 * n).ConvertToInt<uint64_t>());
    return "{\"primes\":" + list(out) + "}";
}

// The limbs of x as a JSON list of lists.
std::string json(const DCRTPoly& x) {
    std::ostringstream out;
    out << '[';
    for (size_t j = 0; j < x.GetNumOfElements(); ++j)
        out << (j ? "," : "") << list(values(x.GetElementAtIndex(j)));
    out << ']';
    return out.str();
}

std::string convert(size_t n, size_t l, size_t k, std::istream& in) {
    std::vector<uint64_t> q(l), p(k);
    for (auto& v : q)
        in >> v;
    for (auto& v : p)
        in >> v;
    std::vector<std::vector<uint64_t>> x(l, std::vector<uint64_t>(n));
    for (size_t c = 0; c < n; ++c)
        for (size_t i = 0; i < l; ++i)
            in >> x[i][c];
    if (!in)
        throw std::runtime_error("short input: expected the primes and N lines of L residues");
    CRTTables tables(n, q, p);
    DCRTPoly residues(tables.source, Format::COEFFICIENT, true);
    for (size_t i = 0; i < l; ++i)
        residues.SetElementAtIndex(i, poly(tables.source->GetParams()[i], x[i]));
    return "{\"exact\":" + json(tables.exact(residues)) + ",\"approx\":" + json(tables.approx(residues)) + "}";
}

}  // namespace

int main(int argc, char** argv) {
    std::string kind = argc > 1 ? argv[1] : "";
    if (!((kind == "primes" || kind == "convert") && argc == 5)) {
        std::cerr << "usage: openfhe_convert primes N BITS COUNT | convert N L K < residues" << std::endl;
        return 2;
    }
    size_t n = std::strtoull(argv[2], nullptr, 10);
    size_t a = std::strtoull(argv[3], nullptr, 10), b = std::strtoull(argv[4], nullptr, 10);
    try {
        std::cout << (kind == "primes" ? primes(n, a, b) : convert(n, a, b, std::cin)) << std::endl;
    }
    catch (const std::exception& e) {
        std::cerr << "openfhe_convert: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
