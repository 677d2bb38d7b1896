/* random.c: counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
 *
 * The value of element i of a draw depends only on (seed, stream, i): counter = (i, stream),
 * key = seed.  So a seeded program draws the same array whatever the partitioning, thread count
 * or device: the distribution and CUDA backends evaluate the same function, philox.h. */
#include <math.h>

#include "kernels.h"
#include "philox.h"

void cpn_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    for (int i = 0; i < 4; i++) out[i] = ctr[i];
    cpn_philox10(out, key[0], key[1]);
}

void cpn_kernel_random(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                       int64_t first, int64_t n, double lo, double hi)
{
    const double span = hi - lo;
    if (dist == CPN_RANDOM_UNIFORM) {
        /* A branch-free loop of its own, so that the compiler vectorises the Philox rounds. */
#pragma omp parallel for simd schedule(static) if (n > 16384)
        for (int64_t i = 0; i < n; i++) {
            uint32_t c[4];
            cpn_philox_block(seed, stream, (uint64_t)(first + i), c);
            out[i] = lo + span * cpn_philox_unit(c[0], c[1]);
        }
        return;
    }
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++) {
        out[i] = cpn_philox_normal(seed, stream, (uint64_t)(first + i), lo, hi);
    }
}
