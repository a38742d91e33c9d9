// The parts the C++ programs compiled against OpenFHE share: the benchmark beside this file and
// the interop programs of tests/interop. fhe_hw/bench/openfhe.py's build() puts this folder on
// the include path (and this file in the build's key).
//
//   list(v)          a vector as a JSON list
//   uniform(rng,n,q) n uniform residues mod q, value = rng() % q
//   poly(params,v)   a NativePoly holding the values v (coefficient form unless told)
//   values(p)        a NativePoly's values
//   CRTTables        the precomputed tables DCRTPoly's base conversions take, computed from the
//                    source primes q_1..q_l and target primes p_1..p_k as OpenFHE's BFV
//                    parameters compute them (CryptoParametersBFVRNS::PrecomputeCRTTables):
//                    [(Q/q_i)^-1]_{q_i} with its Shoup precomputation, [Q/q_i]_{p_j}
//                    (SwitchCRTBasis takes it as [j][i], ApproxSwitchCRTBasis as [i][j]),
//                    [alpha*Q]_{p_j} for alpha = 0..l, floor(2^128 / p_j) (Barrett) and 1.0/q_i;
//                    exact() is SwitchCRTBasis (HPS: the centred lift, alpha from a
//                    double-precision sum), approx() ApproxSwitchCRTBasis (fast base conversion)

#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lattice/lat-hal.h"

namespace fhe_hw {

using namespace lbcrypto;

template <typename T>
std::string list(const std::vector<T>& v) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < v.size(); ++i)
        out << (i ? "," : "") << v[i];
    out << ']';
    return out.str();
}

inline std::vector<uint64_t> uniform(std::mt19937_64& rng, size_t n, uint64_t q) {
    std::vector<uint64_t> out(n);
    for (auto& v : out)
        v = rng() % q;
    return out;
}

inline NativePoly poly(const std::shared_ptr<ILNativeParams>& params, const std::vector<uint64_t>& values,
                       Format format = Format::COEFFICIENT) {
    NativeVector vec(values.size(), params->GetModulus());
    for (size_t i = 0; i < values.size(); ++i)
        vec[i] = NativeInteger(values[i]);
    NativePoly p(params, format);
    p.SetValues(std::move(vec), format);
    return p;
}

inline std::vector<uint64_t> values(const NativePoly& p) {
    std::vector<uint64_t> out;
    for (size_t i = 0; i < p.GetLength(); ++i)
        out.push_back(p[i].ConvertToInt<uint64_t>());
    return out;
}

inline uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % m);
}

inline uint64_t powmod(uint64_t a, uint64_t e, uint64_t m) {
    uint64_t r = 1 % m;
    for (; e; e >>= 1, a = mulmod(a, a, m))
        if (e & 1)
            r = mulmod(r, a, m);
    return r;
}

// prod_{i != skip} q_i mod m (skip = q.size(): the whole product Q).
inline uint64_t prod_mod(const std::vector<uint64_t>& q, size_t skip, uint64_t m) {
    uint64_t r = 1 % m;
    for (size_t i = 0; i < q.size(); ++i)
        if (i != skip)
            r = mulmod(r, q[i] % m, m);
    return r;
}

struct CRTTables {
    std::shared_ptr<ILDCRTParams<BigInteger>> source, target;
    std::vector<NativeInteger> qhat_inv, qhat_inv_precon;
    std::vector<double> q_inv;
    std::vector<std::vector<NativeInteger>> qhat_mod_p_ji, qhat_mod_p_ij, alpha_q_mod_p;
    std::vector<DoubleNativeInt> barrett_mu;

    // Ring degree n; source primes q, target primes p.
    CRTTables(size_t n, const std::vector<uint64_t>& q, const std::vector<uint64_t>& p)
        : qhat_inv(q.size()),
          qhat_inv_precon(q.size()),
          q_inv(q.size()),
          qhat_mod_p_ji(p.size(), std::vector<NativeInteger>(q.size())),
          qhat_mod_p_ij(q.size(), std::vector<NativeInteger>(p.size())),
          alpha_q_mod_p(q.size() + 1, std::vector<NativeInteger>(p.size())),
          barrett_mu(p.size()) {
        size_t l = q.size(), k = p.size();
        std::vector<NativeInteger> qn(q.begin(), q.end()), pn(p.begin(), p.end());
        source = std::make_shared<ILDCRTParams<BigInteger>>(2 * n, qn);
        target = std::make_shared<ILDCRTParams<BigInteger>>(2 * n, pn);
        for (size_t i = 0; i < l; ++i) {
            qhat_inv[i]        = NativeInteger(powmod(prod_mod(q, i, q[i]), q[i] - 2, q[i]));
            qhat_inv_precon[i] = qhat_inv[i].PrepModMulConst(qn[i]);
            q_inv[i]           = 1.0 / static_cast<double>(q[i]);
        }
        for (size_t j = 0; j < k; ++j) {
            for (size_t i = 0; i < l; ++i)
                qhat_mod_p_ji[j][i] = qhat_mod_p_ij[i][j] = NativeInteger(prod_mod(q, i, p[j]));
            uint64_t big_q = prod_mod(q, l, p[j]);
            for (size_t a = 0; a <= l; ++a)
                alpha_q_mod_p[a][j] = NativeInteger(mulmod(a, big_q, p[j]));
            barrett_mu[j] = ~static_cast<DoubleNativeInt>(0) / p[j];  // floor(2^128 / p_j), p_j odd
        }
    }

    DCRTPoly exact(const DCRTPoly& x) const {
        return x.SwitchCRTBasis(target, qhat_inv, qhat_inv_precon, qhat_mod_p_ji, alpha_q_mod_p, barrett_mu, q_inv);
    }

    DCRTPoly approx(const DCRTPoly& x) const {
        return x.ApproxSwitchCRTBasis(source, target, qhat_inv, qhat_inv_precon, qhat_mod_p_ij, barrett_mu);
    }
};

}  // namespace fhe_hw
