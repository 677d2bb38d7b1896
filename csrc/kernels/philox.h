/* philox.h: Philox4x32-10 (Salmon et al., SC'11) and the conversions to uniform and normal
 * doubles, written once for the CPU loops (random.c) and the device kernels (cuda/): CPN_HD.
 *
 * Element i of stream `stream` under key `seed` is the block of counter (i, stream); so a value
 * depends only on (seed, stream, i), whatever the device, thread count or partitioning.  Uniform
 * draws use integer arithmetic and two exactly rounded double operations (compiled without FMA
 * contraction on the device), so CPU and GPU draw bitwise the same numbers; normal draws go
 * through log/cos/sqrt, whose device versions may differ from the host's in the last place. */
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

/* Element idx of a uniform draw on [lo, hi). */
CPN_PHILOX_HD double cpn_philox_uniform(uint64_t seed, uint64_t stream, uint64_t idx, double lo, double hi)
{
    uint32_t c[4];
    cpn_philox_block(seed, stream, idx, c);
    return lo + (hi - lo) * cpn_philox_unit(c[0], c[1]);
}

/* Element idx of a normal draw (Box-Muller on (0, 1] x [0, 1): one normal per element). */
CPN_PHILOX_HD double cpn_philox_normal(uint64_t seed, uint64_t stream, uint64_t idx, double loc, double scale)
{
    uint32_t c[4];
    cpn_philox_block(seed, stream, idx, c);
    double u1 = 1.0 - cpn_philox_unit(c[0], c[1]), u2 = cpn_philox_unit(c[2], c[3]);
    return loc + scale * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

#endif
