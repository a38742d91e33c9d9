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
// sum), "approx" DCRTPoly::ApproxSwitchCRTBasis (fast base conversion). Both take precomputed
// tables; this program computes them as OpenFHE's BFV parameters do (CryptoParametersBFVRNS::
// PrecomputeCRTTables): [(Q/q_i)^-1]_{q_i} with its Shoup precomputation, [Q/q_i]_{p_j} (SwitchCRTBasis
// takes it as [j][i], ApproxSwitchCRTBasis as [i][j]), [alpha*Q]_{p_j} for alpha = 0..L,
// floor(2^128 / p_j) (Barrett) and 1.0/q_i.

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lattice/lat-hal.h"
#include "math/nbtheory.h"

using namespace lbcrypto;

namespace {

template <typename T>
std::string list(const std::vector<T>& v) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < v.size(); ++i)
        out << (i ? "," : "") << v[i];
    out << ']';
    return out.str();
}

uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % m);
}

uint64_t powmod(uint64_t a, uint64_t e, uint64_t m) {
    uint64_t r = 1 % m;
    for (; e; e >>= 1, a = mulmod(a, a, m))
        if (e & 1)
            r = mulmod(r, a, m);
    return r;
}

// prod_{i != skip} q_i mod m (skip = q.size(): the whole product Q).
uint64_t prod_mod(const std::vector<uint64_t>& q, size_t skip, uint64_t m) {
    uint64_t r = 1 % m;
    for (size_t i = 0; i < q.size(); ++i)
        if (i != skip)
            r = mulmod(r, q[i] % m, m);
    return r;
}

std::string primes(size_t n, uint32_t bits, size_t count) {
    std::vector<uint64_t> out{LastPrime<NativeInteger>(bits, 2 * n).ConvertToInt<uint64_t>()};
    while (out.size() < count)
        out.push_back(PreviousPrime<NativeInteger>(NativeInteger(out.back()), 2 * n).ConvertToInt<uint64_t>());
    return "{\"primes\":" + list(out) + "}";
}

std::vector<std::vector<uint64_t>> limbs(const DCRTPoly& x, size_t count) {
    std::vector<std::vector<uint64_t>> out;
    for (size_t j = 0; j < count; ++j) {
        const auto& limb = x.GetElementAtIndex(j);
        std::vector<uint64_t> v;
        for (size_t c = 0; c < limb.GetLength(); ++c)
            v.push_back(limb[c].ConvertToInt<uint64_t>());
        out.push_back(v);
    }
    return out;
}

std::string json(const std::vector<std::vector<uint64_t>>& polys) {
    std::ostringstream out;
    out << '[';
    for (size_t j = 0; j < polys.size(); ++j)
        out << (j ? "," : "") << list(polys[j]);
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
    std::vector<NativeInteger> qn(q.begin(), q.end()), pn(p.begin(), p.end());
    auto paramsQ = std::make_shared<ILDCRTParams<BigInteger>>(2 * n, qn);
    auto paramsP = std::make_shared<ILDCRTParams<BigInteger>>(2 * n, pn);

    std::vector<NativeInteger> qhat_inv(l), qhat_inv_precon(l);
    std::vector<double> q_inv(l);
    for (size_t i = 0; i < l; ++i) {
        qhat_inv[i]        = NativeInteger(powmod(prod_mod(q, i, q[i]), q[i] - 2, q[i]));
        qhat_inv_precon[i] = qhat_inv[i].PrepModMulConst(qn[i]);
        q_inv[i]           = 1.0 / static_cast<double>(q[i]);
    }
    std::vector<std::vector<NativeInteger>> qhat_mod_p_ji(k, std::vector<NativeInteger>(l));
    std::vector<std::vector<NativeInteger>> qhat_mod_p_ij(l, std::vector<NativeInteger>(k));
    std::vector<std::vector<NativeInteger>> alpha_q_mod_p(l + 1, std::vector<NativeInteger>(k));
    std::vector<DoubleNativeInt> barrett_mu(k);
    for (size_t j = 0; j < k; ++j) {
        for (size_t i = 0; i < l; ++i)
            qhat_mod_p_ji[j][i] = qhat_mod_p_ij[i][j] = NativeInteger(prod_mod(q, i, p[j]));
        uint64_t big_q = prod_mod(q, l, p[j]);
        for (size_t a = 0; a <= l; ++a)
            alpha_q_mod_p[a][j] = NativeInteger(mulmod(a, big_q, p[j]));
        barrett_mu[j] = ~static_cast<DoubleNativeInt>(0) / p[j];  // floor(2^128 / p_j), p_j odd
    }

    DCRTPoly poly(paramsQ, Format::COEFFICIENT, true);
    for (size_t i = 0; i < l; ++i) {
        NativeVector vec(n, qn[i]);
        for (size_t c = 0; c < n; ++c)
            vec[c] = NativeInteger(x[i][c]);
        NativePoly limb(paramsQ->GetParams()[i], Format::COEFFICIENT);
        limb.SetValues(std::move(vec), Format::COEFFICIENT);
        poly.SetElementAtIndex(i, std::move(limb));
    }
    auto exact = poly.SwitchCRTBasis(paramsP, qhat_inv, qhat_inv_precon, qhat_mod_p_ji, alpha_q_mod_p,
                                     barrett_mu, q_inv);
    auto approx = poly.ApproxSwitchCRTBasis(paramsQ, paramsP, qhat_inv, qhat_inv_precon, qhat_mod_p_ij, barrett_mu);
    return "{\"exact\":" + json(limbs(exact, k)) + ",\"approx\":" + json(limbs(approx, k)) + "}";
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
