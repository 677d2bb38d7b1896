/* philox.h: Philox4x32-10 (Salmon et al., SC'11) and the conversions to uniform and normal
 * doubles, written once for the CPU loops (random.c) and the device kernels (cuda/): CPN_HD.
 *
 * Element i of stream `stream` under key `seed` is the block of counter (i, stream); so a value
 * depends only on (seed, stream, i), whatever the device, thread count or partitioning.  Uniform
 * draws use integer arithmetic and two exactly rounded double operations (compiled without FMA
 * contraction on the device), so CPU and GPU draw bitwise the same numbers; normal draws go
 * through log/cos/sqrt, whose device versions (and the CPU loop's SLEEF ones, random.c) may
 * differ from these in the last places. */
#ifndef CPN_PHILOX_H
#define CPN_PHILOX_H

#ifndef __CUDACC_RTC__
#include <math.h>
#include <stdint.h>
#endif

#ifdef __CUDACC__
#define CPN_PHILOX_HD static inline __host__ __device__
#else
#define CPN_PHILOX_HD static inline
#endif

#define CPN_PHILOX_M0 0xD2511F53u
#define CPN_PHILOX_M1 0xCD9E8D57u
#define CPN_PHILOX_W0 0x9E3779B9u
#define CPN_PHILOX_W1 0xBB67AE85u

CPN_PHILOX_HD void cpn_philox_round(uint32_t *c, const uint32_t *k)
{
    uint64_t p0 = (uint64_t)CPN_PHILOX_M0 * c[0], p1 = (uint64_t)CPN_PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
}

/* Ten rounds on counter c (in place) with key (k0, k1). */
CPN_PHILOX_HD void cpn_philox10(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint32_t k[2] = {k0, k1};
    for (int r = 0; r < 10; r++) {
        if (r) { k[0] += CPN_PHILOX_W0; k[1] += CPN_PHILOX_W1; }
        cpn_philox_round(c, k);
    }
}

/* 53 random bits to [0, 1), as NumPy's random_standard_uniform does from two 32-bit words;
 * through int32 (the shifted words fit): a conversion the CPU compiler vectorises. */
CPN_PHILOX_HD double cpn_philox_unit(uint32_t a, uint32_t b)
{
    return ((double)(int32_t)(a >> 5) * 67108864.0 + (double)(int32_t)(b >> 6)) / 9007199254740992.0;
}

/* The counter block of element idx of (seed, stream). */
CPN_PHILOX_HD void cpn_philox_block(uint64_t seed, uint64_t stream, uint64_t idx, uint32_t c[4])
{
    c[0] = (uint32_t)idx; c[1] = (uint32_t)(idx >> 32);
    c[2] = (uint32_t)stream; c[3] = (uint32_t)(stream >> 32);
    cpn_philox10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Element idx of a uniform draw on [lo, hi): two uniforms per block, element idx from words
 * 2h, 2h + 1 (h = idx & 1) of the block of counter idx >> 1. */
CPN_PHILOX_HD double cpn_philox_uniform(uint64_t seed, uint64_t stream, uint64_t idx, double lo, double hi)
{
    uint32_t c[4];
    cpn_philox_block(seed, stream, idx >> 1, c);
    const int h = (int)(idx & 1) * 2;
    return lo + (hi - lo) * cpn_philox_unit(c[h], c[h + 1]);
}

/* Element idx of a normal draw (Box-Muller on (0, 1] x [0, 1): one normal per element). */
CPN_PHILOX_HD double cpn_philox_normal(uint64_t seed, uint64_t stream, uint64_t idx, double loc, double scale)
{
    uint32_t c[4];
    cpn_philox_block(seed, stream, idx, c);
    double u1 = 1.0 - cpn_philox_unit(c[0], c[1]), u2 = cpn_philox_unit(c[2], c[3]);
    return loc + scale * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

/* ---- every distribution: element idx of a draw of `dist` with parameters (p0, p1) --------------
 * Rejection samplers stay counter-based: attempt a of element idx is the block of counter
 * (idx, stream ^ a << 56), so a value depends on (seed, stream, idx) alone, never on neighbours or
 * on the partition.  Streams are below 2**56 (cupynum/random/ numbers them); attempts a < 256.
 * Samplers that compose others (beta, negative binomial, noncentral chi-square, t) give each
 * part its own range of attempts (CPN_PHILOX_PART). */
#define CPN_PHILOX_PART 64          /* attempts per part */
#define CPN_PHILOX_PI 3.141592653589793

CPN_PHILOX_HD void cpn_philox_sub(uint64_t seed, uint64_t stream, uint64_t idx, unsigned a, uint32_t c[4],
                                  const uint32_t *b0)
{
    if (a == 0 && b0) {   /* attempt 0's block, computed already (random.c's vector loop) */
        c[0] = b0[0]; c[1] = b0[1]; c[2] = b0[2]; c[3] = b0[3];
        return;
    }
    cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
}

/* (0, 1): 53 bits and a half. */
CPN_PHILOX_HD double cpn_philox_open(uint32_t a, uint32_t b)
{
    return ((double)(int32_t)(a >> 5) * 67108864.0 + (double)(int32_t)(b >> 6) + 0.5) / 9007199254740992.0;
}

/* (0, 1) from one word. */
CPN_PHILOX_HD double cpn_philox_open32(uint32_t a)
{
    return ((double)a + 0.5) / 4294967296.0;
}

/* A standard normal from words 0, 1 (radius, 53 bits) and 2 (angle, 32 bits). */
CPN_PHILOX_HD double cpn_philox_bm3(const uint32_t c[4])
{
    double u1 = 1.0 - cpn_philox_unit(c[0], c[1]), u2 = cpn_philox_open32(c[2]);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A standard exponential from words 0 and 1. */
CPN_PHILOX_HD double cpn_philox_exp(const uint32_t c[4])
{
    return -log1p(-cpn_philox_unit(c[0], c[1]));
}

/* Standard gamma (Marsaglia-Tsang; shape < 1 through shape + 1 and a uniform power) over
 * attempts [base, base + CPN_PHILOX_PART). */
CPN_PHILOX_HD double cpn_philox_gamma_from(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base,
                                           double k, unsigned from, const uint32_t *b0);

CPN_PHILOX_HD double cpn_philox_gamma(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base, double k,
                                 const uint32_t *b0)
{
    return cpn_philox_gamma_from(seed, stream, idx, base, k, 0, b0);
}

/* ... from attempt `from` on (the earlier ones rejected: random.c's vector loop tried them). */
CPN_PHILOX_HD double cpn_philox_gamma_from(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base,
                                           double k, unsigned from, const uint32_t *b0)
{
    uint32_t c[4];
    if (k <= 0.0) return 0.0;
    if (k == 1.0) {
        cpn_philox_sub(seed, stream, idx, base, c, b0);
        return cpn_philox_exp(c);
    }
    double boost = 1.0;
    if (k < 1.0) {   /* the last attempt of the part is the uniform's */
        cpn_philox_sub(seed, stream, idx, base + CPN_PHILOX_PART - 1, c, b0);
        boost = pow(cpn_philox_open(c[0], c[1]), 1.0 / k);
        k += 1.0;
    }
    double d = k - 1.0 / 3.0, cc = 1.0 / sqrt(9.0 * d), v = 1.0;
    for (unsigned a = from; a < CPN_PHILOX_PART - 1; a++) {
        cpn_philox_sub(seed, stream, idx, base + a, c, b0);
        double x = cpn_philox_bm3(c);
        v = 1.0 + cc * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        double u = cpn_philox_open32(c[3]), x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) break;
        if (log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) break;
    }
    return d * (v > 0.0 ? v : 1.0) * boost;
}

/* Poisson over attempts [base, base + CPN_PHILOX_PART): inversion below 10 (one uniform),
 * PTRS (Hormann 1993) above. */
CPN_PHILOX_HD double cpn_philox_poisson(uint64_t seed, uint64_t stream, uint64_t idx, unsigned base, double lam,
                                 const uint32_t *b0)
{
    uint32_t c[4];
    if (lam <= 0.0) return 0.0;
    if (lam < 10.0) {
        cpn_philox_sub(seed, stream, idx, base, c, b0);
        double u = cpn_philox_unit(c[0], c[1]), p = exp(-lam), f = p;
        double k = 0.0;
        while (u > f) {
            k += 1.0;
            p *= lam / k;
            f += p;
            if (p < 1e-17 && k > lam) break;   /* the rest of the mass is below rounding */
        }
        return k;
    }
    double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    double k = floor(lam);
    for (unsigned t = 0; t < CPN_PHILOX_PART; t++) {
        cpn_philox_sub(seed, stream, idx, base + t, c, b0);
        double U = cpn_philox_unit(c[0], c[1]) - 0.5, V = cpn_philox_open(c[2], c[3]);
        double us = 0.5 - fabs(U);
        k = floor((2.0 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return k;
        if (k < 0.0 || (us < 0.013 && V > us)) continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1.0))
            return k;
    }
    return k < 0.0 ? 0.0 : k;
}

/* Binomial(n, p): inversion below n * min(p, 1-p) = 10, BTRS (Hormann 1993) above. */
CPN_PHILOX_HD double cpn_philox_binomial(uint64_t seed, uint64_t stream, uint64_t idx, double n, double p,
                                 const uint32_t *b0)
{
    uint32_t c[4];
    if (n <= 0.0 || p <= 0.0) return 0.0;
    if (p >= 1.0) return n;
    double q = p > 0.5 ? 1.0 - p : p, k = 0.0;
    if (n * q < 10.0) {
        cpn_philox_sub(seed, stream, idx, 0, c, b0);
        double u = cpn_philox_unit(c[0], c[1]), r = q / (1.0 - q), pk = exp(n * log1p(-q)), f = pk;
        while (u > f && k < n) {
            pk *= (n - k) / (k + 1.0) * r;
            k += 1.0;
            f += pk;
            if (pk < 1e-17 && k > n * q) break;   /* the rest of the mass is below rounding */
        }
    } else {
        double spq = sqrt(n * q * (1.0 - q)), b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * q;
        double cc = n * q + 0.5, alpha = (2.83 + 5.1 / b) * spq, vr = 0.92 - 4.2 / b;
        double m = floor((n + 1.0) * q), lpq = log(q / (1.0 - q));
        double h = lgamma(m + 1.0) + lgamma(n - m + 1.0);
        k = m;
        for (unsigned t = 0; t < 4 * CPN_PHILOX_PART; t++) {
            cpn_philox_sub(seed, stream, idx, t, c, b0);
            double U = cpn_philox_unit(c[0], c[1]) - 0.5, V = cpn_philox_open(c[2], c[3]);
            double us = 0.5 - fabs(U), kk = floor((2.0 * a / us + b) * U + cc);
            if (kk < 0.0 || kk > n) continue;
            if (us >= 0.07 && V <= vr) { k = kk; break; }
            double lv = log(V * alpha / (a / (us * us) + b));
            if (lv <= h - lgamma(kk + 1.0) - lgamma(n - kk + 1.0) + (kk - m) * lpq) { k = kk; break; }
        }
    }
    return p > 0.5 ? n - k : k;
}

/* Hypergeometric by inversion outward from the mode (the support's order is fixed, so exact). */
CPN_PHILOX_HD double cpn_philox_hypergeom(uint64_t seed, uint64_t stream, uint64_t idx, double g, double b, double s,
                                 const uint32_t *b0)
{
    uint32_t c[4];
    double kmin = s - b > 0.0 ? s - b : 0.0, kmax = s < g ? s : g;
    if (kmin >= kmax) return kmin;
    double m = floor((s + 1.0) * (g + 1.0) / (g + b + 2.0));
    if (m < kmin) m = kmin;
    if (m > kmax) m = kmax;
    double lp = lgamma(g + 1.0) - lgamma(m + 1.0) - lgamma(g - m + 1.0) + lgamma(b + 1.0) -
                lgamma(s - m + 1.0) - lgamma(b - s + m + 1.0) - lgamma(g + b + 1.0) +
                lgamma(s + 1.0) + lgamma(g + b - s + 1.0);
    cpn_philox_sub(seed, stream, idx, 0, c, b0);
    double u = cpn_philox_unit(c[0], c[1]), pm = exp(lp);
    if (u < pm) return m;
    u -= pm;
    double lo = m, hi = m, plo = pm, phi = pm;
    while (lo > kmin || hi < kmax) {
        if (lo > kmin) {
            plo *= lo * (b - s + lo) / ((g - lo + 1.0) * (s - lo + 1.0));
            lo -= 1.0;
            if (u < plo) return lo;
            u -= plo;
        }
        if (hi < kmax) {
            phi *= (g - hi) * (s - hi) / ((hi + 1.0) * (b - s + hi + 1.0));
            hi += 1.0;
            if (u < phi) return hi;
            u -= phi;
        }
        if (plo < 1e-300 && phi < 1e-300) break;
    }
    return m;
}

/* 64 bits times r (< 2**64): the high and low words of the product. */
CPN_PHILOX_HD void cpn_philox_mul64(uint64_t x, uint64_t r, uint64_t *hi, uint64_t *lo)
{
    uint64_t x0 = (uint32_t)x, x1 = x >> 32, r0 = (uint32_t)r, r1 = r >> 32;
    uint64_t p00 = x0 * r0, p01 = x0 * r1, p10 = x1 * r0, p11 = x1 * r1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | (uint32_t)p00;
}

/* An integer in [0, r), 1 <= r <= 2**53: Lemire's multiply with rejection.  For r <= 2**32,
 * four per block: attempt 0 of element idx is word idx & 3 of the block of counter idx >> 2
 * (x0, when the caller has it, else computed here), times r in 32 bits; for larger r, two per
 * block: words 2h, 2h + 1 (h = idx & 1) of the block of idx >> 1 as 64 bits.  A rejected element
 * goes on with attempts a >= 1, the blocks of counter (idx, stream ^ a << 56), word by word (or
 * pair by pair); the chance of running out is below 2**-128. */
CPN_PHILOX_HD double cpn_philox_integer_from(uint64_t seed, uint64_t stream, uint64_t idx, uint64_t r,
                                            uint64_t x0, int have_x0)
{
    uint32_t c[4];
    if (r <= 4294967296ull) {
        if (!have_x0) {
            cpn_philox_block(seed, stream, idx >> 2, c);
            x0 = c[idx & 3];
        }
        const uint32_t t = (uint32_t)((4294967296ull - r) % r);   /* 2**32 mod r */
        uint64_t m = x0 * r;
        if ((uint32_t)m >= t) return (double)(m >> 32);
        for (unsigned a = 1; a < CPN_PHILOX_PART; a++) {
            cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
            for (int j = 0; j < 4; j++) {
                m = (uint64_t)c[j] * r;
                if ((uint32_t)m >= t) return (double)(m >> 32);
            }
        }
        return (double)(m >> 32);
    }
    if (!have_x0) {
        cpn_philox_block(seed, stream, idx >> 1, c);
        const int h = (int)(idx & 1) * 2;
        x0 = (uint64_t)c[h] | (uint64_t)c[h + 1] << 32;
    }
    uint64_t hi, lo, t = (0 - r) % r;   /* 2**64 mod r */
    cpn_philox_mul64(x0, r, &hi, &lo);
    if (lo >= t) return (double)hi;
    for (unsigned a = 1; a < CPN_PHILOX_PART; a++) {
        cpn_philox_block(seed, stream ^ ((uint64_t)a << 56), idx, c);
        for (int h = 0; h < 2; h++) {
            cpn_philox_mul64((uint64_t)c[2 * h] | (uint64_t)c[2 * h + 1] << 32, r, &hi, &lo);
            if (lo >= t) return (double)hi;
        }
    }
    return (double)hi;
}

CPN_PHILOX_HD double cpn_philox_integer(uint64_t seed, uint64_t stream, uint64_t idx, double rd)
{
    return cpn_philox_integer_from(seed, stream, idx, (uint64_t)rd, 0, 0);
}

CPN_PHILOX_HD double cpn_philox_draw_b(int dist, uint64_t seed, uint64_t stream, uint64_t idx, double p0,
                                      double p1, const uint32_t *b0)
{
    uint32_t c[4];
    switch (dist) {
    case 0: /* UNIFORM */
        return cpn_philox_uniform(seed, stream, idx, p0, p1);
    case 1: /* NORMAL */
        return cpn_philox_normal(seed, stream, idx, p0, p1);
    case 3: /* INTEGER */
        return cpn_philox_integer(seed, stream, idx, p0);   /* its own blocks, not b0 */
    case 5: /* GAMMA */
        return p1 * cpn_philox_gamma(seed, stream, idx, 0, p0, b0);
    case 6: /* POISSON */
        return cpn_philox_poisson(seed, stream, idx, 0, p0, b0);
    case 7: /* BINOMIAL */
        return cpn_philox_binomial(seed, stream, idx, p0, p1, b0);
    case 17: { /* GEOMETRIC */
        if (p0 >= 1.0) return 1.0;
        cpn_philox_sub(seed, stream, idx, 0, c, b0);
        double k = ceil(log1p(-cpn_philox_unit(c[0], c[1])) / log1p(-p0));
        return k < 1.0 ? 1.0 : k;
    }
    case 18: { /* LOGSERIES (Kemp) */
        double r = log1p(-p0);
        for (unsigned a = 0; a < CPN_PHILOX_PART; a++) {
            cpn_philox_sub(seed, stream, idx, a, c, b0);
            double V = cpn_philox_open(c[0], c[1]);
            if (V >= p0) return 1.0;
            double q = -expm1(r * cpn_philox_open(c[2], c[3]));
            if (V <= q * q) {
                double res = floor(1.0 + log(V) / log(q));
                if (res < 1.0) continue;
                return res;
            }
            return V >= q ? 1.0 : 2.0;
        }
        return 1.0;
    }
    case 19: { /* ZIPF */
        double am1 = p0 - 1.0, b = pow(2.0, am1);
        for (unsigned a = 0; a < 4 * CPN_PHILOX_PART; a++) {
            cpn_philox_sub(seed, stream, idx, a, c, b0);
            double U = 1.0 - cpn_philox_unit(c[0], c[1]), V = cpn_philox_unit(c[2], c[3]);
            double X = floor(pow(U, -1.0 / am1));
            if (X > 9.2e18 || X < 1.0) continue;
            double T = pow(1.0 + 1.0 / X, am1);
            if (V * X * (T - 1.0) / (b - 1.0) <= T / b) return X;
        }
        return 1.0;
    }
    case 20: { /* VONMISES (Best-Fisher) */
        double kappa = p1, s;
        if (kappa < 1e-8) {
            cpn_philox_sub(seed, stream, idx, 0, c, b0);
            return CPN_PHILOX_PI * (2.0 * cpn_philox_unit(c[0], c[1]) - 1.0);
        }
        if (kappa > 1e6) {
            cpn_philox_sub(seed, stream, idx, 0, c, b0);
            double res = p0 + sqrt(1.0 / kappa) * cpn_philox_bm3(c);
            double md = fmod(fabs(res) + CPN_PHILOX_PI, 2.0 * CPN_PHILOX_PI) - CPN_PHILOX_PI;
            return res < 0.0 ? -md : md;
        }
        if (kappa < 1e-5) {
            s = 1.0 / kappa + kappa;
        } else {
            double r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa), rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
            s = (1.0 + rho * rho) / (2.0 * rho);
        }
        double W = 1.0;
        for (unsigned a = 0; a < 4 * CPN_PHILOX_PART; a++) {
            cpn_philox_sub(seed, stream, idx, a, c, b0);
            double z = cos(CPN_PHILOX_PI * cpn_philox_unit(c[0], c[1]));
            W = (1.0 + s * z) / (s + z);
            double Y = kappa * (s - W), V = cpn_philox_open32(c[2]);
            if (Y * (2.0 - Y) - V >= 0.0 || log(Y / V) + 1.0 - Y >= 0.0) break;
        }
        double res = acos(W);
        if (c[3] < 0x80000000u) res = -res;
        res += p0;
        double md = fmod(fabs(res) + CPN_PHILOX_PI, 2.0 * CPN_PHILOX_PI) - CPN_PHILOX_PI;
        return res < 0.0 ? -md : md;
    }
    case 21: { /* STUDENT_T: N / sqrt(G(df/2) / (df/2)) */
        cpn_philox_sub(seed, stream, idx, 2 * CPN_PHILOX_PART, c, b0);
        double g = cpn_philox_gamma(seed, stream, idx, 0, 0.5 * p0, b0);
        return sqrt(0.5 * p0) * cpn_philox_bm3(c) / sqrt(g);
    }
    case 22: { /* WALD */
        cpn_philox_sub(seed, stream, idx, 0, c, b0);
        double y = cpn_philox_bm3(c), mu2l = p0 / (2.0 * p1);
        y = p0 * y * y;
        double x = p0 + mu2l * (y - sqrt(4.0 * p1 * y + y * y));
        return cpn_philox_open32(c[3]) <= p0 / (p0 + x) ? x : p0 * p0 / x;
    }
    case 23: { /* BETA: Johnk for a, b <= 1, a ratio of gammas otherwise */
        if (p0 <= 1.0 && p1 <= 1.0) {
            for (unsigned a = 0; a < 4 * CPN_PHILOX_PART; a++) {
                cpn_philox_sub(seed, stream, idx, a, c, b0);
                double U = cpn_philox_open(c[0], c[1]), V = cpn_philox_open(c[2], c[3]);
                double X = pow(U, 1.0 / p0), Y = pow(V, 1.0 / p1), s = X + Y;
                if (s <= 1.0) {
                    if (s > 0.0) return X / s;
                    double lx = log(U) / p0, ly = log(V) / p1, lm = lx > ly ? lx : ly;
                    lx -= lm;
                    ly -= lm;
                    return exp(lx - log(exp(lx) + exp(ly)));
                }
            }
            return p0 / (p0 + p1);
        }
        double x = cpn_philox_gamma(seed, stream, idx, 0, p0, b0);
        double y = cpn_philox_gamma(seed, stream, idx, CPN_PHILOX_PART, p1, b0);
        return x / (x + y);
    }
    case 24: { /* NEGBINOMIAL: Poisson of Gamma(n, (1-p)/p) */
        double y = cpn_philox_gamma(seed, stream, idx, 0, p0, b0) * ((1.0 - p1) / p1);
        return cpn_philox_poisson(seed, stream, idx, CPN_PHILOX_PART, y, b0);
    }
    case 25: { /* NCCHISQ */
        if (p1 == 0.0) return 2.0 * cpn_philox_gamma(seed, stream, idx, 0, 0.5 * p0, b0);
        if (p0 > 1.0) {
            cpn_philox_sub(seed, stream, idx, 2 * CPN_PHILOX_PART, c, b0);
            double chi = 2.0 * cpn_philox_gamma(seed, stream, idx, 0, 0.5 * (p0 - 1.0), b0);
            double n = cpn_philox_bm3(c) + sqrt(p1);
            return chi + n * n;
        }
        double i = cpn_philox_poisson(seed, stream, idx, 2 * CPN_PHILOX_PART, 0.5 * p1, b0);
        return 2.0 * cpn_philox_gamma(seed, stream, idx, 0, 0.5 * p0 + i, b0);
    }
    case 26: { /* HYPERGEOM */
        double g = floor(p0 / 4194304.0), b = floor(p1 / 512.0);
        double s = (p0 - g * 4194304.0) * 512.0 + (p1 - b * 512.0);
        return cpn_philox_hypergeom(seed, stream, idx, g, b, s, b0);
    }
    default:
        break;
    }
    cpn_philox_sub(seed, stream, idx, 0, c, b0);
    switch (dist) {
    case 2: /* UNIT24 */
        return (double)(c[0] >> 8) / 16777216.0;
    case 4: /* EXPONENTIAL */
        return p0 * cpn_philox_exp(c);
    case 8: /* CAUCHY */
        return tan(CPN_PHILOX_PI * (cpn_philox_open(c[0], c[1]) - 0.5));
    case 9: { /* LOGISTIC */
        double u = cpn_philox_open(c[0], c[1]);
        return p0 + p1 * log(u / (1.0 - u));
    }
    case 10: /* GUMBEL */
        return p0 - p1 * log(-log(cpn_philox_open(c[0], c[1])));
    case 11: { /* LAPLACE */
        double u = cpn_philox_open(c[0], c[1]);
        return u >= 0.5 ? p0 - p1 * log(2.0 - u - u) : p0 + p1 * log(u + u);
    }
    case 12: /* PARETO */
        return expm1(cpn_philox_exp(c) / p0);
    case 13: /* POWER */
        return pow(-expm1(-cpn_philox_exp(c)), 1.0 / p0);
    case 14: /* RAYLEIGH */
        return p0 * sqrt(2.0 * cpn_philox_exp(c));
    case 15: /* WEIBULL */
        return p0 == 0.0 ? 0.0 : pow(cpn_philox_exp(c), 1.0 / p0);
    case 16: /* LOGNORMAL */
        return exp(p0 + p1 * cpn_philox_bm3(c));
    case 27: { /* TRIANGULAR on [0, 1], mode p0 */
        double u = cpn_philox_unit(c[0], c[1]);
        return u <= p0 ? sqrt(u * p0) : 1.0 - sqrt((1.0 - u) * (1.0 - p0));
    }
    default:
        return 0.0;
    }
}

CPN_PHILOX_HD double cpn_philox_draw(int dist, uint64_t seed, uint64_t stream, uint64_t idx, double p0, double p1)
{
    return cpn_philox_draw_b(dist, seed, stream, idx, p0, p1, 0);
}
#endif
