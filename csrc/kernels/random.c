/* random.c: counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
 *
 * The value of element i of a draw depends only on (seed, stream, i): counter = (i, stream),
 * key = seed.  So a seeded program draws the same array whatever the partitioning, thread count
 * or device: the distribution and CUDA backends evaluate the same function.
 *
 * Uniform draws have an AVX2 path (8 counters per vector; the 32x32->64 products of a round via
 * _mm256_mul_epu32 on the even and the odd lanes), compiled with a target attribute and taken
 * only after a runtime check of the CPU; the baseline loop stays for other CPUs, for the tails,
 * and as the reference the vector path must equal bit for bit (tests/c/test_queue.c).  Both
 * convert words to doubles exactly (27 + 26 bits through int32) and apply lo + span * u with
 * separate multiply and add (no FMA), so they round identically. */
#include <math.h>

#include "kernels.h"
#include "philox.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CPN_PHILOX_AVX2 1
#include <immintrin.h>
#endif

/* The scalar definitions are the ones the device kernels use (philox.h). */
#define PHILOX_M0 CPN_PHILOX_M0
#define PHILOX_M1 CPN_PHILOX_M1
#define PHILOX_W0 CPN_PHILOX_W0
#define PHILOX_W1 CPN_PHILOX_W1
#define philox cpn_philox10
#define to_unit cpn_philox_unit

/* philox.h's cpn_philox_draw numbers the distributions as op.h does. */
_Static_assert(CPN_RANDOM_INTEGER == 3 && CPN_RANDOM_GAMMA == 5 && CPN_RANDOM_GEOMETRIC == 17 &&
               CPN_RANDOM_TRIANGULAR == 27 && CPN_RANDOM_COUNT == 28, "philox.h's numbers");

void cpn_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    for (int i = 0; i < 4; i++) out[i] = ctr[i];
    philox(out, key[0], key[1]);
}

/* Baseline uniform loop over elements [first, first + n). */
static void uniform_scalar(uint32_t k0, uint32_t k1, uint64_t stream, double *out, int64_t first,
                           int64_t n, double lo, double span)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t idx = (uint64_t)(first + i);
        uint32_t c[4] = {(uint32_t)idx, (uint32_t)(idx >> 32), (uint32_t)stream,
                         (uint32_t)(stream >> 32)};
        philox(c, k0, k1);
        out[i] = lo + span * to_unit(c[0], c[1]);
    }
}

#ifdef CPN_PHILOX_AVX2
#define AVX2_FN __attribute__((target("avx2")))

/* hi and lo 32-bit halves of m * a for 8 lanes. */
AVX2_FN static inline void mulhilo8(__m256i a, __m256i m, __m256i *hi, __m256i *lo)
{
    __m256i even = _mm256_mul_epu32(a, m);                          /* lanes 0,2,4,6 */
    __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);    /* lanes 1,3,5,7 */
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
    *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

/* Counters for elements idx .. idx + 7 of the stream. */
AVX2_FN static inline void counters8(uint64_t idx, __m256i lane, __m256i *c0, __m256i *c1)
{
    if ((uint32_t)idx <= 0xFFFFFFFFu - 7u) {   /* the high word is the same in all lanes */
        *c0 = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)idx), lane);
        *c1 = _mm256_set1_epi32((int)(uint32_t)(idx >> 32));
    } else {
        uint32_t w0[8], w1[8];
        for (int l = 0; l < 8; l++) {
            w0[l] = (uint32_t)(idx + (uint64_t)l);
            w1[l] = (uint32_t)((idx + (uint64_t)l) >> 32);
        }
        *c0 = _mm256_loadu_si256((const __m256i *)w0);
        *c1 = _mm256_loadu_si256((const __m256i *)w1);
    }
}

/* Words 0 and 1 of 8 uniforms to lo + span * u, stored at out. */
AVX2_FN static inline void store_unit8(__m256i w0, __m256i w1, __m256d vlo, __m256d vspan, double *out)
{
    const __m256d two26 = _mm256_set1_pd(67108864.0), inv53 = _mm256_set1_pd(1.0 / 9007199254740992.0);
    __m256i a = _mm256_srli_epi32(w0, 5), b = _mm256_srli_epi32(w1, 6);
    for (int h = 0; h < 2; h++) {
        __m128i ah = h ? _mm256_extracti128_si256(a, 1) : _mm256_castsi256_si128(a);
        __m128i bh = h ? _mm256_extracti128_si256(b, 1) : _mm256_castsi256_si128(b);
        __m256d u = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(ah), two26), _mm256_cvtepi32_pd(bh));
        u = _mm256_mul_pd(u, inv53);   /* exact: a power of two, as the baseline's division */
        _mm256_storeu_pd(out + 4 * h, _mm256_add_pd(vlo, _mm256_mul_pd(vspan, u)));
    }
}

/* Elements [first, first + n), n a multiple of 8.  Two vectors of counters are in flight at once:
 * a round is a chain of multiply, blend and xor latencies that one vector cannot hide. */
AVX2_FN static void uniform_avx2(uint32_t k0, uint32_t k1, uint64_t stream, double *out,
                                 int64_t first, int64_t n, double lo, double span)
{
    enum { V = 4 };
    const __m256i m0 = _mm256_set1_epi32((int)PHILOX_M0), m1 = _mm256_set1_epi32((int)PHILOX_M1);
    const __m256i s0 = _mm256_set1_epi32((int)(uint32_t)stream);
    const __m256i s1 = _mm256_set1_epi32((int)(uint32_t)(stream >> 32));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256d vlo = _mm256_set1_pd(lo), vspan = _mm256_set1_pd(span);
    __m256i key0[10], key1[10];
    for (int r = 0; r < 10; r++) {
        key0[r] = _mm256_set1_epi32((int)(k0 + (uint32_t)r * PHILOX_W0));
        key1[r] = _mm256_set1_epi32((int)(k1 + (uint32_t)r * PHILOX_W1));
    }
    int64_t i = 0;
    for (; i + 8 * V <= n; i += 8 * V) {
        __m256i c0[V], c1[V], c2[V], c3[V];
        for (int v = 0; v < V; v++) {
            counters8((uint64_t)(first + i + 8 * v), lane, &c0[v], &c1[v]);
            c2[v] = s0;
            c3[v] = s1;
        }
        for (int r = 0; r < 9; r++) {
            for (int v = 0; v < V; v++) {
                __m256i hi0, lo0, hi1, lo1;
                mulhilo8(c0[v], m0, &hi0, &lo0);
                mulhilo8(c2[v], m1, &hi1, &lo1);
                c0[v] = _mm256_xor_si256(_mm256_xor_si256(hi1, c1[v]), key0[r]);
                c2[v] = _mm256_xor_si256(_mm256_xor_si256(hi0, c3[v]), key1[r]);
                c1[v] = lo1;
                c3[v] = lo0;
            }
        }
        for (int v = 0; v < V; v++) {   /* the last round: words 2 and 3 are not used */
            __m256i hi1, lo1;
            mulhilo8(c2[v], m1, &hi1, &lo1);
            store_unit8(_mm256_xor_si256(_mm256_xor_si256(hi1, c1[v]), key0[9]), lo1, vlo, vspan,
                        out + i + 8 * v);
        }
    }
    for (; i < n; i += 8) {
        __m256i c0, c1, c2 = s0, c3 = s1;
        counters8((uint64_t)(first + i), lane, &c0, &c1);
        for (int r = 0; r < 10; r++) {
            __m256i hi0, lo0, hi1, lo1;
            mulhilo8(c0, m0, &hi0, &lo0);
            mulhilo8(c2, m1, &hi1, &lo1);
            c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), key0[r]);
            c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), key1[r]);
            c1 = lo1;
            c3 = lo0;
        }
        store_unit8(c0, c1, vlo, vspan, out + i);
    }
}

static int simd_mode = -1;   /* -1: not decided; 0: baseline; 1: AVX2 */

static int use_avx2(void)
{
    if (simd_mode < 0) {
        __builtin_cpu_init();
        simd_mode = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return simd_mode;
}
#endif

int cpn_kernel_random_set_simd(int on)
{
#ifdef CPN_PHILOX_AVX2
    int was = use_avx2();
    __builtin_cpu_init();
    simd_mode = on && __builtin_cpu_supports("avx2");
    return was;
#else
    (void)on;
    return 0;
#endif
}

/* Uniform draws for [first, first + n) on the calling thread. */
static void uniform_block(uint32_t k0, uint32_t k1, uint64_t stream, double *out, int64_t first,
                          int64_t n, double lo, double span)
{
    int64_t done = 0;
#ifdef CPN_PHILOX_AVX2
    if (use_avx2()) {
        done = n & ~(int64_t)7;
        uniform_avx2(k0, k1, stream, out, first, done, lo, span);
    }
#endif
    uniform_scalar(k0, k1, stream, out + done, first + done, n - done, lo, span);
}

#define UNIFORM_CHUNK 4096

void cpn_kernel_random(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                       int64_t first, int64_t n, double lo, double hi)
{
    const uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    const double span = hi - lo;
    if (dist == CPN_RANDOM_UNIFORM) {
        if (n <= 16384) {   /* a fused block, or a small draw: no parallel region */
            uniform_block(k0, k1, stream, out, first, n, lo, span);
            return;
        }
        int64_t nchunks = (n + UNIFORM_CHUNK - 1) / UNIFORM_CHUNK;
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < nchunks; c++) {
            int64_t b = c * UNIFORM_CHUNK, len = n - b < UNIFORM_CHUNK ? n - b : UNIFORM_CHUNK;
            uniform_block(k0, k1, stream, out + b, first + b, len, lo, span);
        }
        return;
    }
    if (dist != CPN_RANDOM_NORMAL) {
        /* dynamic: rejection samplers and inversion walks cost unevenly */
#pragma omp parallel for schedule(dynamic, 1024) if (n > 4096)
        for (int64_t i = 0; i < n; i++)
            out[i] = cpn_philox_draw((int)dist, seed, stream, (uint64_t)(first + i), lo, hi);
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
