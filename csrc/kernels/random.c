/* random.c: counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
 *
 * The value of element i of a draw depends only on (seed, stream, i): counter = (i, stream),
 * key = seed.  So a seeded program draws the same array whatever the partitioning, thread count
 * or device: the distribution and CUDA backends evaluate the same function. */
#include <math.h>

#include "kernels.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline void philox_round(uint32_t *c, const uint32_t *k)
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0], p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
}

static inline void philox(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint32_t k[2] = {k0, k1};
    for (int r = 0; r < 10; r++) {
        if (r) { k[0] += PHILOX_W0; k[1] += PHILOX_W1; }
        philox_round(c, k);
    }
}

void cpn_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    for (int i = 0; i < 4; i++) out[i] = ctr[i];
    philox(out, key[0], key[1]);
}

/* 53 random bits to [0, 1), as NumPy's random_standard_uniform does from two 32-bit words. */
static inline double to_unit(uint32_t a, uint32_t b)
{
    /* Through int32 (the shifted words fit): a conversion the compiler vectorises. */
    return ((double)(int32_t)(a >> 5) * 67108864.0 + (double)(int32_t)(b >> 6)) / 9007199254740992.0;
}

void cpn_kernel_random(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                       int64_t first, int64_t n, double lo, double hi)
{
    const uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    const double span = hi - lo;
    if (dist == CPN_RANDOM_UNIFORM) {
        /* A branch-free loop of its own, so that the compiler vectorises the Philox rounds. */
#pragma omp parallel for simd schedule(static) if (n > 16384)
        for (int64_t i = 0; i < n; i++) {
            uint64_t idx = (uint64_t)(first + i);
            uint32_t c[4] = {(uint32_t)idx, (uint32_t)(idx >> 32), (uint32_t)stream,
                             (uint32_t)(stream >> 32)};
            philox(c, k0, k1);
            out[i] = lo + span * to_unit(c[0], c[1]);
        }
        return;
    }
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) {
        uint64_t idx = (uint64_t)(first + i);
        uint32_t c[4] = {(uint32_t)idx, (uint32_t)(idx >> 32), (uint32_t)stream,
                         (uint32_t)(stream >> 32)};
        philox(c, k0, k1);
        /* Box-Muller on (0, 1] x [0, 1): one normal per element keeps i -> value pure. */
        double u1 = 1.0 - to_unit(c[0], c[1]), u2 = to_unit(c[2], c[3]);
        out[i] = lo + hi * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}
