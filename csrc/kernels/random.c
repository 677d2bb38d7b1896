/* random.c: counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
 *
 * The value of element i of a draw depends only on (seed, stream, i): counter = (i, stream),
 * key = seed.  So a seeded program draws the same array whatever the partitioning, thread count
 * or device: the distribution and CUDA backends evaluate the same function.
 *
 * Uniform draws have an AVX2 path (8 counters per vector; the 32x32->64 products of a round via
 * _mm256_mul_epu32 on the even and the odd lanes) and an AVX-512 one (8 blocks per vector, each
 * word in the low half of a 64-bit lane), compiled with
 * target attributes and taken only after a runtime check of the CPU; the baseline loop stays for
 * other CPUs, for the tails, and as the reference the vector paths must equal bit for bit
 * (tests/c/test_queue.c, test_backend.c).  Both
 * convert words to doubles exactly (27 + 26 bits through int32) and apply lo + span * u with
 * separate multiply and add (no FMA), so they round identically.
 *
 * Every other distribution (philox.h's cpn_philox_draw) runs a chunk at a time: the chunk's
 * attempt-0 blocks from the same AVX2 rounds, then the header's samplers on them (further attempts
 * computed there); the normal is the header's ziggurat with an AVX2 fast path (bitwise the
 * header's); exponential and gamma's first attempt use SLEEF's vector log/cos/log1p
 * (within a few ULP of the header's libm values; each element through the same vector code, so
 * still independent of where a chunk or tile begins).  Outputs of 16 MB or more are written with
 * streaming stores, fenced once per thread (NT_MIN_BYTES). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpn_config.h"
#include "kernels.h"
#include "philox.h"
#include "vmath.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CPN_PHILOX_AVX2 1
#include <immintrin.h>
#if CPN_HAVE_SLEEF
/* sleef.h declares its 512-bit functions only when __AVX512F__ is defined (vmath.c's device) */
#define CPN_RANDOM_SLEEF512 1
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512dq,avx512bw,avx512vl")
#include <sleef.h>
#pragma GCC pop_options
#endif
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

/* Baseline uniform loop over elements [first, first + n): element i is half i & 1 of the block
 * of counter i >> 1 (philox.h's cpn_philox_uniform). */
static void uniform_scalar(uint32_t k0, uint32_t k1, uint64_t stream, double *out, int64_t first,
                           int64_t n, double lo, double span)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t idx = (uint64_t)(first + i) >> 1;
        uint32_t c[4] = {(uint32_t)idx, (uint32_t)(idx >> 32), (uint32_t)stream,
                         (uint32_t)(stream >> 32)};
        philox(c, k0, k1);
        const int h = (int)((first + i) & 1) * 2;
        out[i] = lo + span * to_unit(c[h], c[h + 1]);
    }
}

#ifdef CPN_PHILOX_AVX2
/* FMA for exact sums only (c_std=c11: the compiler contracts nothing itself) */
#define AVX2_FN __attribute__((target("avx2,fma")))

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

/* Words (w0, w1) and (w2, w3) of 8 blocks to 16 uniforms lo + span * u, interleaved (element
 * 2j from block j's first pair, 2j + 1 from its second), stored at out. */
AVX2_FN static inline __m256d unit4(__m128i a, __m128i b, __m256d vlo, __m256d vspan, int unit)
{
    const __m256d two26 = _mm256_set1_pd(67108864.0), inv53 = _mm256_set1_pd(1.0 / 9007199254740992.0);
    /* a * 2**26 + b < 2**53: exact, so one fused rounding is no rounding */
    __m256d u = _mm256_fmadd_pd(_mm256_cvtepi32_pd(a), two26, _mm256_cvtepi32_pd(b));
    u = _mm256_mul_pd(u, inv53);   /* exact: a power of two, as the baseline's division */
    /* [0, 1): 0 + 1 * u is u (u >= 0, no -0) */
    return unit ? u : _mm256_add_pd(vlo, _mm256_mul_pd(vspan, u));
}

AVX2_FN static inline void store_unit16(__m256i w0, __m256i w1, __m256i w2, __m256i w3, __m256d vlo,
                                        __m256d vspan, double *out, int nt, int unit)
{
    __m256i a = _mm256_srli_epi32(w0, 5), b = _mm256_srli_epi32(w1, 6);
    __m256i c = _mm256_srli_epi32(w2, 5), d = _mm256_srli_epi32(w3, 6);
    for (int h = 0; h < 2; h++) {
        __m128i ah = h ? _mm256_extracti128_si256(a, 1) : _mm256_castsi256_si128(a);
        __m128i bh = h ? _mm256_extracti128_si256(b, 1) : _mm256_castsi256_si128(b);
        __m128i ch = h ? _mm256_extracti128_si256(c, 1) : _mm256_castsi256_si128(c);
        __m128i dh = h ? _mm256_extracti128_si256(d, 1) : _mm256_castsi256_si128(d);
        __m256d u0 = unit4(ah, bh, vlo, vspan, unit), u1 = unit4(ch, dh, vlo, vspan, unit);
        __m256d x = _mm256_unpacklo_pd(u0, u1), y = _mm256_unpackhi_pd(u0, u1);
        if (nt) {   /* out 32-byte aligned; a large draw: past the caches, no read for ownership */
            _mm256_stream_pd(out + 8 * h, _mm256_permute2f128_pd(x, y, 0x20));
            _mm256_stream_pd(out + 8 * h + 4, _mm256_permute2f128_pd(x, y, 0x31));
        } else {
            _mm256_storeu_pd(out + 8 * h, _mm256_permute2f128_pd(x, y, 0x20));
            _mm256_storeu_pd(out + 8 * h + 4, _mm256_permute2f128_pd(x, y, 0x31));
        }
    }
}

/* Blocks [fb, fb + nb), nb a multiple of 8, to elements [2 fb, 2 (fb + nb)) at out.  Four
 * vectors of counters are in flight at once: a round is a chain of multiply, blend and xor
 * latencies that one vector cannot hide. */
AVX2_FN static void uniform_avx2(uint32_t k0, uint32_t k1, uint64_t stream, double *out,
                                 int64_t fb, int64_t nb, double lo, double span, int nt)
{
    enum { V = 4 };
    const __m256i m0 = _mm256_set1_epi32((int)PHILOX_M0), m1 = _mm256_set1_epi32((int)PHILOX_M1);
    const __m256i s0 = _mm256_set1_epi32((int)(uint32_t)stream);
    const __m256i s1 = _mm256_set1_epi32((int)(uint32_t)(stream >> 32));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256d vlo = _mm256_set1_pd(lo), vspan = _mm256_set1_pd(span);
    const int unit = lo == 0.0 && span == 1.0;
    __m256i key0[10], key1[10];
    for (int r = 0; r < 10; r++) {
        key0[r] = _mm256_set1_epi32((int)(k0 + (uint32_t)r * PHILOX_W0));
        key1[r] = _mm256_set1_epi32((int)(k1 + (uint32_t)r * PHILOX_W1));
    }
    int64_t i = 0;
    for (; i + 8 * V <= nb; i += 8 * V) {
        __m256i c0[V], c1[V], c2[V], c3[V];
        for (int v = 0; v < V; v++) {
            counters8((uint64_t)(fb + i + 8 * v), lane, &c0[v], &c1[v]);
            c2[v] = s0;
            c3[v] = s1;
        }
        for (int r = 0; r < 10; r++) {
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
        for (int v = 0; v < V; v++)
            store_unit16(c0[v], c1[v], c2[v], c3[v], vlo, vspan, out + 2 * (i + 8 * v), nt, unit);
    }
    for (; i < nb; i += 8) {
        __m256i c0, c1, c2 = s0, c3 = s1;
        counters8((uint64_t)(fb + i), lane, &c0, &c1);
        for (int r = 0; r < 10; r++) {
            __m256i hi0, lo0, hi1, lo1;
            mulhilo8(c0, m0, &hi0, &lo0);
            mulhilo8(c2, m1, &hi1, &lo1);
            c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), key0[r]);
            c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), key1[r]);
            c1 = lo1;
            c3 = lo0;
        }
        store_unit16(c0, c1, c2, c3, vlo, vspan, out + 2 * i, nt, unit);
    }
    /* non-temporal stores are fenced once, when the thread's share is done (nt_fence) */
}

/* The four words of the blocks of elements [first, first + n), n a multiple of 8, into
 * w[j * ld + i] (word j of element i). */
AVX2_FN static inline void round8(__m256i *c0, __m256i *c1, __m256i *c2, __m256i *c3, __m256i m0,
                                   __m256i m1, __m256i k0, __m256i k1)
{
    __m256i hi0, lo0, hi1, lo1;
    mulhilo8(*c0, m0, &hi0, &lo0);
    mulhilo8(*c2, m1, &hi1, &lo1);
    *c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, *c1), k0);
    *c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, *c3), k1);
    *c1 = lo1;
    *c3 = lo0;
}

/* Word j of block i to w[j * ld + i], or, ld == 0, to w[4 * i + j] (the blocks in order). */
AVX2_FN static inline void store_blocks8(uint32_t *w, int64_t ld, int64_t i, __m256i c0, __m256i c1,
                                         __m256i c2, __m256i c3)
{
    if (ld) {
        _mm256_storeu_si256((__m256i *)(w + i), c0);
        _mm256_storeu_si256((__m256i *)(w + ld + i), c1);
        _mm256_storeu_si256((__m256i *)(w + 2 * ld + i), c2);
        _mm256_storeu_si256((__m256i *)(w + 3 * ld + i), c3);
        return;
    }
    __m256i a = _mm256_unpacklo_epi32(c0, c1), b = _mm256_unpacklo_epi32(c2, c3);   /* lanes 0,1 | 4,5 */
    __m256i c = _mm256_unpackhi_epi32(c0, c1), d = _mm256_unpackhi_epi32(c2, c3);   /* lanes 2,3 | 6,7 */
    __m256i l04 = _mm256_unpacklo_epi64(a, b), l15 = _mm256_unpackhi_epi64(a, b);
    __m256i l26 = _mm256_unpacklo_epi64(c, d), l37 = _mm256_unpackhi_epi64(c, d);
    uint32_t *o = w + 4 * i;
    _mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(l04, l15, 0x20));
    _mm256_storeu_si256((__m256i *)(o + 8), _mm256_permute2x128_si256(l26, l37, 0x20));
    _mm256_storeu_si256((__m256i *)(o + 16), _mm256_permute2x128_si256(l04, l15, 0x31));
    _mm256_storeu_si256((__m256i *)(o + 24), _mm256_permute2x128_si256(l26, l37, 0x31));
}

AVX2_FN static void blocks_avx2(uint32_t k0, uint32_t k1, uint64_t stream, int64_t first, int64_t n,
                                uint32_t *w, int64_t ld)
{
    const __m256i m0 = _mm256_set1_epi32((int)PHILOX_M0), m1 = _mm256_set1_epi32((int)PHILOX_M1);
    const __m256i s0 = _mm256_set1_epi32((int)(uint32_t)stream);
    const __m256i s1 = _mm256_set1_epi32((int)(uint32_t)(stream >> 32));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i key0[10], key1[10];
    for (int r = 0; r < 10; r++) {
        key0[r] = _mm256_set1_epi32((int)(k0 + (uint32_t)r * PHILOX_W0));
        key1[r] = _mm256_set1_epi32((int)(k1 + (uint32_t)r * PHILOX_W1));
    }
    enum { V = 4 };   /* four vectors in flight, as uniform_avx2 */
    int64_t i = 0;
    for (; i + 8 * V <= n; i += 8 * V) {
        __m256i c0[V], c1[V], c2[V], c3[V];
        for (int v = 0; v < V; v++) {
            counters8((uint64_t)(first + i + 8 * v), lane, &c0[v], &c1[v]);
            c2[v] = s0;
            c3[v] = s1;
        }
        for (int r = 0; r < 10; r++)
            for (int v = 0; v < V; v++) round8(&c0[v], &c1[v], &c2[v], &c3[v], m0, m1, key0[r], key1[r]);
        for (int v = 0; v < V; v++) store_blocks8(w, ld, i + 8 * v, c0[v], c1[v], c2[v], c3[v]);
    }
    for (; i < n; i += 8) {
        __m256i a0, a1, a2 = s0, a3 = s1;
        counters8((uint64_t)(first + i), lane, &a0, &a1);
        for (int r = 0; r < 10; r++) round8(&a0, &a1, &a2, &a3, m0, m1, key0[r], key1[r]);
        store_blocks8(w, ld, i, a0, a1, a2, a3);
    }
}

/* Lemire's hi and the rejection test of n 32-bit words x times r (r < 2**32): out[i] =
 * (x[i] * r) >> 32; returns whether some (x[i] * r) mod 2**32 < t (those elements redrawn by
 * the caller).  n a multiple of 8. */
AVX2_FN static int lemire32_avx2(const uint32_t *x, int64_t n, uint32_t r, uint32_t t, double *out)
{
    const __m256i vr = _mm256_set1_epi32((int)r), bias = _mm256_set1_epi32((int)0x80000000u);
    const __m256i vt = _mm256_xor_si256(_mm256_set1_epi32((int)t), bias);
    const __m256d two31 = _mm256_set1_pd(2147483648.0);
    __m256i bad = _mm256_setzero_si256();
    for (int64_t i = 0; i < n; i += 8) {
        __m256i hi, lo;
        mulhilo8(_mm256_loadu_si256((const __m256i *)(x + i)), vr, &hi, &lo);
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(vt, _mm256_xor_si256(lo, bias)));
        hi = _mm256_xor_si256(hi, bias);   /* unsigned to double: signed + 2**31, exact */
        _mm256_storeu_pd(out + i, _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(hi)), two31));
        _mm256_storeu_pd(out + i + 4, _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(hi, 1)), two31));
    }
    return !_mm256_testz_si256(bad, bad);
}

/* lemire32_avx2 into int64: out[i] = off + (x[i] * r >> 32), modulo 2**64 (uint64 the same
 * bits). */
AVX2_FN static int lemire32_avx2_i64(const uint32_t *x, int64_t n, uint32_t r, uint32_t t, uint64_t off,
                                     int64_t *out, int nt)
{
    const __m256i vr = _mm256_set1_epi32((int)r), bias = _mm256_set1_epi32((int)0x80000000u);
    const __m256i vt = _mm256_xor_si256(_mm256_set1_epi32((int)t), bias);
    const __m256i voff = _mm256_set1_epi64x((long long)off);
    __m256i bad = _mm256_setzero_si256();
    for (int64_t i = 0; i < n; i += 8) {
        __m256i hi, lo;
        mulhilo8(_mm256_loadu_si256((const __m256i *)(x + i)), vr, &hi, &lo);
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(vt, _mm256_xor_si256(lo, bias)));
        __m256i v0 = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(hi)), voff);
        __m256i v1 = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(hi, 1)), voff);
        if (nt) {   /* as store_unit16 */
            _mm256_stream_si256((__m256i *)(out + i), v0);
            _mm256_stream_si256((__m256i *)(out + i + 4), v1);
        } else {
            _mm256_storeu_si256((__m256i *)(out + i), v0);
            _mm256_storeu_si256((__m256i *)(out + i + 4), v1);
        }
    }
    /* the caller fences before it rewrites rejected elements (ordinary stores after streaming
     * ones to the same lines) and when the thread's share is done */
    return !_mm256_testz_si256(bad, bad);
}

/* ---- AVX-512: the same rounds sixteen counters per vector --------------------------------------
 * Where the CPU has AVX-512 (F, DQ, BW, VL) the Philox rounds run on 16 lanes: a uniform draw is
 * bound by the rounds (a draw in cache costs what one past it does), so twice the lanes is most
 * of the gain.  The 32x32->64 products are _mm512_mul_epu32 on the even and the odd lanes as on
 * AVX2, the halves regrouped by a masked pair swap (one shuffle) instead of a shift and a blend.
 * The words are the scalar ones bit for bit, and the conversion is the AVX2 path's (exact). */
#define AVX512_FN __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))

/* hi and lo 32-bit halves of m * a for 16 lanes. */
AVX512_FN static inline void mulhilo16(__m512i a, __m512i m, __m512i *hi, __m512i *lo)
{
    __m512i even = _mm512_mul_epu32(a, m);                          /* lanes 0,2,..: lo, hi */
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);    /* lanes 1,3,..: lo, hi */
    /* hi: even lanes take the upper word of `even`, odd lanes keep `odd`'s upper word;
     * lo: odd lanes take the lower word of `odd`, even lanes keep `even`'s lower word */
    *hi = _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_CDAB);
    *lo = _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
}

AVX512_FN static inline void round16(__m512i *c0, __m512i *c1, __m512i *c2, __m512i *c3, __m512i m0,
                                     __m512i m1, __m512i k0, __m512i k1)
{
    __m512i hi0, lo0, hi1, lo1;
    mulhilo16(*c0, m0, &hi0, &lo0);
    mulhilo16(*c2, m1, &hi1, &lo1);
    *c0 = _mm512_ternarylogic_epi32(hi1, *c1, k0, 0x96);   /* hi1 ^ c1 ^ k0 */
    *c2 = _mm512_ternarylogic_epi32(hi0, *c3, k1, 0x96);
    *c1 = lo1;
    *c3 = lo0;
}

/* Counters for elements idx .. idx + 15 of the stream. */
AVX512_FN static inline void counters16(uint64_t idx, __m512i *c0, __m512i *c1)
{
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    if ((uint32_t)idx <= 0xFFFFFFFFu - 15u) {   /* the high word is the same in all lanes */
        *c0 = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)idx), lane);
        *c1 = _mm512_set1_epi32((int)(uint32_t)(idx >> 32));
    } else {
        uint32_t w0[16], w1[16];
        for (int l = 0; l < 16; l++) {
            w0[l] = (uint32_t)(idx + (uint64_t)l);
            w1[l] = (uint32_t)((idx + (uint64_t)l) >> 32);
        }
        *c0 = _mm512_loadu_si512(w0);
        *c1 = _mm512_loadu_si512(w1);
    }
}

/* 8 uniforms from the 27- and 26-bit parts a, b (unit4's arithmetic). */
AVX512_FN static inline __m512d unit8(__m256i a, __m256i b, __m512d vlo, __m512d vspan, int unit)
{
    const __m512d two26 = _mm512_set1_pd(67108864.0), inv53 = _mm512_set1_pd(1.0 / 9007199254740992.0);
    __m512d u = _mm512_fmadd_pd(_mm512_cvtepi32_pd(a), two26, _mm512_cvtepi32_pd(b));   /* exact */
    u = _mm512_mul_pd(u, inv53);
    return unit ? u : _mm512_add_pd(vlo, _mm512_mul_pd(vspan, u));
}

/* ---- uniform draws on AVX-512: one Philox word per 64-bit lane ---------------------------------
 * _mm512_mul_epu32 reads only the low 32 bits of each 64-bit lane, so a vector holding each word
 * of 8 blocks in the low halves of its lanes needs no masking nor regrouping: a round is, per
 * word pair, the product (its low half is the new word, its high half the garbage the next
 * product ignores), the high half moved down (a shift or a dword swap: one each, so the two ports
 * share them) and one ternary-logic xor with the key.  6 instructions for 8 blocks, against 12
 * plus register copies (merge-masked shuffles destroy their source) for 16 blocks in 32-bit lanes.
 * The upper halves of the words hold garbage until the conversion, which reads the low halves
 * only (a product by 2**21 and a 32-bit shift). */

/* One round on 8 blocks in 64-bit lanes (philox.h's cpn_philox_round). */
AVX512_FN static inline void round8q(__m512i *c0, __m512i *c1, __m512i *c2, __m512i *c3, __m512i m0,
                                     __m512i m1, __m512i k0, __m512i k1)
{
    __m512i p0 = _mm512_mul_epu32(*c0, m0), p1 = _mm512_mul_epu32(*c2, m1);
    *c0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), *c1, k0, 0x96);   /* hi1 ^ c1 ^ k0 */
    *c2 = _mm512_ternarylogic_epi64(_mm512_shuffle_epi32(p0, _MM_PERM_CDAB), *c3, k1, 0x96);
    *c1 = p1;
    *c3 = p0;
}

/* The uniforms of word pairs (a, b) of 8 blocks (low halves of the lanes): (a >> 5) * 2**26 +
 * (b >> 6) as one 53-bit integer, then a double (exact) times 2**-53: cpn_philox_unit's value.
 * a * 2**21 is exact in 64 bits, so its bits 26 and up are (a >> 5) << 26 and zeros above bit 52;
 * below bit 26 the 32-bit shift of b is b >> 6 (its garbage is above bit 31). */
AVX512_FN static inline __m512d unit8q(__m512i a, __m512i b, __m512d vlo, __m512d vspan, int unit)
{
    const __m512i two21 = _mm512_set1_epi64((long long)1 << 21), top = _mm512_set1_epi64(-((long long)1 << 26));
    const __m512d inv53 = _mm512_set1_pd(1.0 / 9007199254740992.0);
    __m512i v = _mm512_ternarylogic_epi64(_mm512_mul_epu32(a, two21), _mm512_srli_epi32(b, 6), top,
                                          0xE4);   /* top ? a * 2**21 : b >> 6 */
    __m512d u = _mm512_mul_pd(_mm512_cvtepi64_pd(v), inv53);
    /* [0, 1): 0 + 1 * u is u (u >= 0, no -0); otherwise a multiply and an add, as the baseline */
    return unit ? u : _mm512_add_pd(vlo, _mm512_mul_pd(vspan, u));
}

/* 16 uniforms of 8 blocks, element 2j from block j's first pair, 2j + 1 from its second. */
AVX512_FN static inline void store_unit16q(__m512i w0, __m512i w1, __m512i w2, __m512i w3, __m512d vlo,
                                           __m512d vspan, double *out, int nt, int unit)
{
    const __m512i lo8 = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    const __m512i hi8 = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    __m512d u0 = unit8q(w0, w1, vlo, vspan, unit), u1 = unit8q(w2, w3, vlo, vspan, unit);
    __m512d x = _mm512_permutex2var_pd(u0, lo8, u1), y = _mm512_permutex2var_pd(u0, hi8, u1);
    if (nt) {   /* out 64-byte aligned, a large draw: past the caches, no read for ownership */
        _mm512_stream_pd(out, x);
        _mm512_stream_pd(out + 8, y);
    } else {
        _mm512_storeu_pd(out, x);
        _mm512_storeu_pd(out + 8, y);
    }
}

/* uniform_avx2 on AVX-512: blocks [fb, fb + nb), nb a multiple of 8, to elements [2 fb, 2 (fb +
 * nb)) at out; eight vectors of 8 blocks in flight (a round's chain is a product, a shift and a
 * xor, about 7 cycles: three vectors' work; eight measured 7% faster than four, despite a few
 * spills).  The loop is bound by the two vector ports: 6 instructions per 8 blocks a round and
 * 10 more per 16 doubles for the conversion and interleave.  The counters are 64-bit lanes, so
 * their carry into the high word needs no special case. */
AVX512_FN static void uniform_avx512(uint32_t k0, uint32_t k1, uint64_t stream, double *out,
                                     int64_t fb, int64_t nb, double lo, double span, int nt)
{
    enum { V = 8 };
    const __m512i m0 = _mm512_set1_epi64(PHILOX_M0), m1 = _mm512_set1_epi64(PHILOX_M1);
    const __m512i s0 = _mm512_set1_epi64((uint32_t)stream), s1 = _mm512_set1_epi64(stream >> 32);
    const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    const __m512d vlo = _mm512_set1_pd(lo), vspan = _mm512_set1_pd(span);
    const int unit = lo == 0.0 && span == 1.0;
    uint32_t key0[10], key1[10];
    for (int r = 0; r < 10; r++) {
        key0[r] = k0 + (uint32_t)r * PHILOX_W0;
        key1[r] = k1 + (uint32_t)r * PHILOX_W1;
    }
    int64_t i = 0;
    for (; i + 8 * V <= nb; i += 8 * V) {
        __m512i c0[V], c1[V], c2[V], c3[V];
        for (int v = 0; v < V; v++) {
            c0[v] = _mm512_add_epi64(_mm512_set1_epi64(fb + i + 8 * v), lane);
            c1[v] = _mm512_srli_epi64(c0[v], 32);
            c2[v] = s0;
            c3[v] = s1;
        }
        for (int r = 0; r < 10; r++) {
            /* broadcast operands of the xors: the keys take no registers */
            const __m512i kr0 = _mm512_set1_epi32((int)key0[r]), kr1 = _mm512_set1_epi32((int)key1[r]);
            for (int v = 0; v < V; v++) round8q(&c0[v], &c1[v], &c2[v], &c3[v], m0, m1, kr0, kr1);
        }
        for (int v = 0; v < V; v++)
            store_unit16q(c0[v], c1[v], c2[v], c3[v], vlo, vspan, out + 2 * (i + 8 * v), nt, unit);
    }
    for (; i < nb; i += 8) {
        __m512i c0 = _mm512_add_epi64(_mm512_set1_epi64(fb + i), lane), c1 = _mm512_srli_epi64(c0, 32);
        __m512i c2 = s0, c3 = s1;
        for (int r = 0; r < 10; r++)
            round8q(&c0, &c1, &c2, &c3, m0, m1, _mm512_set1_epi32((int)key0[r]),
                    _mm512_set1_epi32((int)key1[r]));
        store_unit16q(c0, c1, c2, c3, vlo, vspan, out + 2 * i, nt, unit);
    }
}

/* Lemire integers below r < 2**32 into int64, from the rounds above without staging the words:
 * blocks [fb, fb + nb) (nb a multiple of 8) give elements [4 fb, 4 (fb + nb)), element 4j + q
 * word q of block j, written as off + (word * r >> 32) modulo 2**64 (lemire32_avx2_i64's
 * values).  The product by r reads the low halves only, like the rounds; the four words' results
 * are transposed to element order (unpacks, then 128-bit lane shuffles).  Returns whether some
 * (word * r) mod 2**32 < t: the caller then redoes those blocks through the staged path, which
 * redraws the rejected elements. */
AVX512_FN static int lemire_i64_avx512(uint32_t k0, uint32_t k1, uint64_t stream, int64_t fb, int64_t nb,
                                       uint32_t r, uint32_t t, uint64_t off, int64_t *out, int nt)
{
    enum { V = 8 };   /* 8: 0.56 ns an element in cache; 4: 0.78, 12: 0.76 */
    const __m512i m0 = _mm512_set1_epi64(PHILOX_M0), m1 = _mm512_set1_epi64(PHILOX_M1);
    const __m512i s0 = _mm512_set1_epi64((uint32_t)stream), s1 = _mm512_set1_epi64(stream >> 32);
    const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    const __m512i vr = _mm512_set1_epi64(r), vt = _mm512_set1_epi32((int)t);
    const __m512i voff = _mm512_set1_epi64((long long)off);
    uint32_t key0[10], key1[10];
    for (int q = 0; q < 10; q++) {
        key0[q] = k0 + (uint32_t)q * PHILOX_W0;
        key1[q] = k1 + (uint32_t)q * PHILOX_W1;
    }
    __mmask16 bad = 0;
    for (int64_t i = 0; i < nb; i += 8 * V) {
        const int nv = nb - i >= 8 * V ? V : (int)((nb - i) / 8);
        __m512i c0[V], c1[V], c2[V], c3[V];
        for (int v = 0; v < V; v++) {   /* all V computed, only nv stored (as blocks_avx512) */
            c0[v] = _mm512_add_epi64(_mm512_set1_epi64(fb + i + 8 * v), lane);
            c1[v] = _mm512_srli_epi64(c0[v], 32);
            c2[v] = s0;
            c3[v] = s1;
        }
        for (int q = 0; q < 10; q++) {
            const __m512i kr0 = _mm512_set1_epi32((int)key0[q]), kr1 = _mm512_set1_epi32((int)key1[q]);
            for (int v = 0; v < V; v++) round8q(&c0[v], &c1[v], &c2[v], &c3[v], m0, m1, kr0, kr1);
        }
        for (int v = 0; v < nv; v++) {
            __m512i y[4], w[4] = {c0[v], c1[v], c2[v], c3[v]};
            for (int q = 0; q < 4; q++) {
                __m512i p = _mm512_mul_epu32(w[q], vr);
                bad |= _mm512_mask_cmplt_epu32_mask(0x5555, p, vt);   /* the low halves */
                y[q] = _mm512_add_epi64(_mm512_srli_epi64(p, 32), voff);
            }
            /* per 128-bit lane L: a = (y0, y1) of block 2L, b of block 2L + 1; c, d: (y2, y3) */
            __m512i a = _mm512_unpacklo_epi64(y[0], y[1]), b = _mm512_unpackhi_epi64(y[0], y[1]);
            __m512i c = _mm512_unpacklo_epi64(y[2], y[3]), d = _mm512_unpackhi_epi64(y[2], y[3]);
            __m512i ac0 = _mm512_shuffle_i64x2(a, c, 0x44), bd0 = _mm512_shuffle_i64x2(b, d, 0x44);
            __m512i ac1 = _mm512_shuffle_i64x2(a, c, 0xEE), bd1 = _mm512_shuffle_i64x2(b, d, 0xEE);
            __m512i o[4] = {_mm512_shuffle_i64x2(ac0, bd0, 0x88), _mm512_shuffle_i64x2(ac0, bd0, 0xDD),
                            _mm512_shuffle_i64x2(ac1, bd1, 0x88), _mm512_shuffle_i64x2(ac1, bd1, 0xDD)};
            int64_t *dst = out + 4 * (i + 8 * v);
            for (int h = 0; h < 4; h++) {
                if (nt)
                    _mm512_stream_si512((void *)(dst + 8 * h), o[h]);
                else
                    _mm512_storeu_si512(dst + 8 * h, o[h]);
            }
        }
    }
    return bad != 0;
}

/* blocks_avx2 on 16 lanes (n a multiple of 16): word j of block i to w[j * ld + i], or, ld == 0,
 * to w[4 * i + j]. */
AVX512_FN static void blocks_avx512(uint32_t k0, uint32_t k1, uint64_t stream, int64_t first, int64_t n,
                                    uint32_t *w, int64_t ld)
{
    enum { V = 4 };
    const __m512i m0 = _mm512_set1_epi32((int)PHILOX_M0), m1 = _mm512_set1_epi32((int)PHILOX_M1);
    const __m512i s0 = _mm512_set1_epi32((int)(uint32_t)stream);
    const __m512i s1 = _mm512_set1_epi32((int)(uint32_t)(stream >> 32));
    __m512i key0[10], key1[10];
    for (int r = 0; r < 10; r++) {
        key0[r] = _mm512_set1_epi32((int)(k0 + (uint32_t)r * PHILOX_W0));
        key1[r] = _mm512_set1_epi32((int)(k1 + (uint32_t)r * PHILOX_W1));
    }
    for (int64_t i = 0; i < n; i += 16 * V) {
        const int nv = n - i >= 16 * V ? V : (int)((n - i) / 16);
        __m512i c0[V], c1[V], c2[V], c3[V];
        for (int v = 0; v < V; v++) {   /* all V computed (cheap), only nv stored */
            counters16((uint64_t)(first + i + 16 * v), &c0[v], &c1[v]);
            c2[v] = s0;
            c3[v] = s1;
        }
        for (int r = 0; r < 10; r++)
            for (int v = 0; v < V; v++) round16(&c0[v], &c1[v], &c2[v], &c3[v], m0, m1, key0[r], key1[r]);
        for (int v = 0; v < nv; v++) {
            const int64_t j = i + 16 * v;
            if (ld) {
                _mm512_storeu_si512(w + j, c0[v]);
                _mm512_storeu_si512(w + ld + j, c1[v]);
                _mm512_storeu_si512(w + 2 * ld + j, c2[v]);
                _mm512_storeu_si512(w + 3 * ld + j, c3[v]);
                continue;
            }
            /* the blocks in order: a 4x4 transpose of words within each 128-bit lane, then of
             * the lanes */
            __m512i a = _mm512_unpacklo_epi32(c0[v], c1[v]), b = _mm512_unpacklo_epi32(c2[v], c3[v]);
            __m512i c = _mm512_unpackhi_epi32(c0[v], c1[v]), d = _mm512_unpackhi_epi32(c2[v], c3[v]);
            /* lane k of l0..l3: blocks 4k, 4k + 1, 4k + 2, 4k + 3 */
            __m512i l0 = _mm512_unpacklo_epi64(a, b), l1 = _mm512_unpackhi_epi64(a, b);
            __m512i l2 = _mm512_unpacklo_epi64(c, d), l3 = _mm512_unpackhi_epi64(c, d);
            __m512i t0 = _mm512_shuffle_i32x4(l0, l1, 0x44), t1 = _mm512_shuffle_i32x4(l2, l3, 0x44);
            __m512i t2 = _mm512_shuffle_i32x4(l0, l1, 0xEE), t3 = _mm512_shuffle_i32x4(l2, l3, 0xEE);
            uint32_t *o = w + 4 * j;
            _mm512_storeu_si512(o, _mm512_shuffle_i32x4(t0, t1, 0x88));        /* blocks 0-3 */
            _mm512_storeu_si512(o + 16, _mm512_shuffle_i32x4(t0, t1, 0xDD));   /* 4-7 */
            _mm512_storeu_si512(o + 32, _mm512_shuffle_i32x4(t2, t3, 0x88));   /* 8-11 */
            _mm512_storeu_si512(o + 48, _mm512_shuffle_i32x4(t2, t3, 0xDD));   /* 12-15 */
        }
    }
}

#define UNIFORM_CHUNK 4096

/* -1: not decided; 0: baseline; 1: AVX2 (and FMA); 2: AVX-512 too (F, DQ, BW, VL). */
static int simd_mode = -1;

static int use_avx2(void)
{
    if (simd_mode < 0) simd_mode = cpn_kernel_cpu_level();
    return simd_mode;
}

static int use_avx512(void) { return use_avx2() >= 2; }

#ifdef CPN_RANDOM_SLEEF512
/* SLEEF's 8-lane log, cos and log1p over arrays, the tail through a masked vector.  SLEEF's u10
 * functions are deterministic across its vector extensions (the "finz" variants vmath.c's
 * 4-lane calls resolve to): the same bits as the AVX2 kernels (test_backend.c compares the
 * draws at both levels), so a draw's values do not depend on which the CPU has. */
#define V512_KERNEL(NAME, FN)                                                                 \
    AVX512_FN static void NAME(const double *a, double *o, int64_t n)                        \
    {                                                                                         \
        int64_t i = 0;                                                                        \
        for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, FN(_mm512_loadu_pd(a + i)));      \
        if (i < n) {                                                                          \
            __mmask8 m = (__mmask8)((1u << (n - i)) - 1);                                     \
            __m512d x = _mm512_mask_loadu_pd(_mm512_set1_pd(0.5), m, a + i);                  \
            _mm512_mask_storeu_pd(o + i, m, FN(x));                                           \
        }                                                                                     \
    }
V512_KERNEL(log_512, Sleef_logd8_u10avx512f)
V512_KERNEL(cos_512, Sleef_cosd8_u10avx512f)

/* Exponential draws from words (w0, w1) of n blocks: out[i] = p0 * -log1p(-u), u the block's
 * uniform: draw_chunk's arithmetic (the same bits), 8 lanes a step without the staging arrays. */
AVX512_FN static void exponential_512(const uint32_t *w0, const uint32_t *w1, int64_t n, double p0,
                                      double *out)
{
    const __m512d vp0 = _mm512_set1_pd(p0), neg = _mm512_set1_pd(-0.0), zero = _mm512_setzero_pd();
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 m = n - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1);
        __m256i a = _mm256_srli_epi32(_mm256_maskz_loadu_epi32(m, w0 + i), 5);
        __m256i b = _mm256_srli_epi32(_mm256_maskz_loadu_epi32(m, w1 + i), 6);
        __m512d u = unit8(a, b, zero, zero, 1);
        __m512d l = Sleef_log1pd8_u10avx512f(_mm512_xor_pd(u, neg));
        _mm512_mask_storeu_pd(out + i, m, _mm512_mul_pd(vp0, _mm512_xor_pd(l, neg)));
    }
}
#endif

AVX2_FN static void zig_avx2(uint64_t seed, uint64_t stream, int64_t first, const uint32_t *x,
                             int64_t n, double p0, double p1, double *out);

/* philox.h's cpn_philox_zig four elements at a time (the words of element i at x[2 i], x[2 i + 1]):
 * the 64 bits as one lane, u's 52 bits to a double through the exponent of 2**52 (exact), the two
 * table entries loaded together, the same multiplies as the header's; lanes that fail the fast test
 * are redone by the header's slow part.  n a multiple of 4. */
AVX2_FN static void zig_avx2(uint64_t seed, uint64_t stream, int64_t first, const uint32_t *x,
                             int64_t n, double p0, double p1, double *out)
{
    const __m256i e52 = _mm256_set1_epi64x(0x4330000000000000ll), sgn = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    const __m256d two52 = _mm256_set1_pd(4503599627370496.0), inv52 = _mm256_set1_pd(1.0 / 4503599627370496.0);
    const __m256d vp0 = _mm256_set1_pd(p0), vp1 = _mm256_set1_pd(p1);
    for (int64_t i = 0; i < n; i += 4) {
        __m256i q = _mm256_loadu_si256((const __m256i *)(x + 2 * i));
        /* (x[l], x[l + 1]) of each lane: one 16-byte load each, transposed (cheaper than
         * gathers) */
        const double *t0 = cpn_zig_x + (x[2 * i] & 255u), *t1 = cpn_zig_x + (x[2 * i + 2] & 255u);
        const double *t2 = cpn_zig_x + (x[2 * i + 4] & 255u), *t3 = cpn_zig_x + (x[2 * i + 6] & 255u);
        __m256d a = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(t0)), _mm_loadu_pd(t2), 1);
        __m256d b = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(t1)), _mm_loadu_pd(t3), 1);
        __m256d xl = _mm256_unpacklo_pd(a, b), xn = _mm256_unpackhi_pd(a, b);
        __m256d u = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(q, 12), e52)), two52);
        __m256d z = _mm256_mul_pd(_mm256_mul_pd(u, inv52), xl);
        int ok = _mm256_movemask_pd(_mm256_cmp_pd(z, xn, _CMP_LT_OQ));
        z = _mm256_xor_pd(z, _mm256_castsi256_pd(_mm256_and_si256(_mm256_slli_epi64(q, 55), sgn)));
        _mm256_storeu_pd(out + i, _mm256_add_pd(vp0, _mm256_mul_pd(vp1, z)));
        if (ok != 15)
            for (int k = 0; k < 4; k++)
                if (!(ok >> k & 1))
                    out[i + k] = p0 + p1 * cpn_philox_zig_slow(seed, stream, (uint64_t)(first + i + k),
                                                               x[2 * (i + k)], x[2 * (i + k) + 1]);
    }
}
#endif

int cpn_kernel_random_set_simd(int level)
{
#ifdef CPN_PHILOX_AVX2
    int was = use_avx2(), cpu = cpn_kernel_cpu_level();
    simd_mode = level < 0 ? 0 : level < cpu ? level : cpu;
    return was;
#else
    (void)level;
    return 0;
#endif
}

/* ---- non-temporal stores ------------------------------------------------------------------------
 * A draw whose output reaches NT_MIN_BYTES writes it with streaming stores (no read for
 * ownership, past the caches: the lead measured 800 MB written in 18-20 ms so against 49 ms with
 * ordinary stores, and reading it back afterwards costs the same either way).  Below, ordinary
 * stores: a smaller output is read back from the cache.  Each thread fences its streaming stores
 * once, when its share is done (nt_fence inside the parallel region), so the writes of one chunk
 * overlap the rounds of the next. */
#define NT_MIN_BYTES ((int64_t)16 << 20)

static inline void nt_fence(void)
{
#ifdef CPN_PHILOX_AVX2
    _mm_sfence();
#endif
}

#ifdef CPN_PHILOX_AVX2
AVX512_FN static void stream_copy_512(char *d, const char *s, int64_t bytes)
{
    for (int64_t i = 0; i < bytes; i += 64) _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512(s + i));
}

AVX2_FN static void stream_copy_256(char *d, const char *s, int64_t bytes)
{
    for (int64_t i = 0; i < bytes; i += 32)
        _mm256_stream_si256((__m256i *)(d + i), _mm256_loadu_si256((const __m256i *)(s + i)));
}
#endif

/* n 8-byte elements from src (a chunk in cache) to dst: ordinary stores up to dst's first 64-byte
 * boundary and after its last, streaming ones between (the caller fences). */
static void stream_copy(void *dst, const void *src, int64_t n)
{
    char *d = dst;
    const char *s = src;
    int64_t bytes = 8 * n, head = (int64_t)((64 - ((uintptr_t)d & 63)) & 63);
    if (head > bytes) head = bytes;
    memcpy(d, s, (size_t)head);
    int64_t body = (bytes - head) & ~(int64_t)63;
#ifdef CPN_PHILOX_AVX2
    if (use_avx512())
        stream_copy_512(d + head, s + head, body);
    else if (use_avx2())
        stream_copy_256(d + head, s + head, body);
    else
#endif
        memcpy(d + head, s + head, (size_t)body);
    memcpy(d + head + body, s + head + body, (size_t)(bytes - head - body));
}

/* Uniform draws for [first, first + n) on the calling thread: an odd first element and the
 * tail element by element, the whole blocks between by the vector loop.  nt: streaming stores
 * (the caller fences): the vector loop's first element must be even (a block's two uniforms) and
 * its stores 64-byte aligned, so the head grows to the boundary where the parities agree; where
 * they cannot (an odd element on every boundary), the chunk is drawn in cache and copied. */
static void uniform_block(uint32_t k0, uint32_t k1, uint64_t stream, double *out, int64_t first,
                          int64_t n, double lo, double span, int nt)
{
#ifdef CPN_PHILOX_AVX2
    if (use_avx2() && n >= 17) {
        const int w = use_avx512() ? 64 : 32;   /* the vector stores' alignment */
        int64_t head = first & 1, nb;
        if (nt) {
            const int64_t to = (int64_t)((w - ((uintptr_t)out & (w - 1))) & (w - 1));
            if (to % 8 || (to / 8 & 1) != head) {   /* no boundary on an even element */
                double tmp[UNIFORM_CHUNK];
                for (int64_t b = 0; b < n; b += UNIFORM_CHUNK) {
                    const int64_t len = n - b < UNIFORM_CHUNK ? n - b : UNIFORM_CHUNK;
                    uniform_block(k0, k1, stream, tmp, first + b, len, lo, span, 0);
                    stream_copy(out + b, tmp, len);
                }
                return;
            }
            if (to / 8 + 16 <= n) head = to / 8;
            else nt = 0;
        }
        nb = ((n - head) >> 1) & ~(int64_t)7;
        uniform_scalar(k0, k1, stream, out, first, head, lo, span);
        if (w == 64)
            uniform_avx512(k0, k1, stream, out + head, (first + head) >> 1, nb, lo, span, nt);
        else
            uniform_avx2(k0, k1, stream, out + head, (first + head) >> 1, nb, lo, span, nt);
        int64_t done = head + 2 * nb;
        uniform_scalar(k0, k1, stream, out + done, first + done, n - done, lo, span);
        return;
    }
#endif
    uniform_scalar(k0, k1, stream, out, first, n, lo, span);
}

/* ---- every other distribution: blocks a chunk at a time, then the transform ------------------
 * The chunk's attempt-0 blocks come from the vector loop (bitwise the scalar ones); the transform
 * is philox.h's cpn_philox_draw_b, which computes further attempts itself.  Normal and
 * exponential draws take SLEEF's vector log/cos/log1p where the CPU has them (vmath.h): every
 * element goes through the same vector code (SLEEF pads tails), so a value still does not depend
 * on where a chunk or a tile begins. */
#define RCHUNK 512

typedef void (*vfn1)(const double *, double *, int64_t);
static vfn1 v_log, v_cos, v_log1p;
static int v_state = -1;   /* -1: not looked up; 0: none; 1: SLEEF */

static int vector_math(void)
{
    if (v_state < 0) {
        int nin;
        void (*f64)(void), (*f32)(void);
        int ok = cpn_vmath_kernel("log", &nin, &f64, &f32) == 0;
        v_log = ok ? (vfn1)f64 : NULL;
        ok = ok && cpn_vmath_kernel("cos", &nin, &f64, &f32) == 0;
        v_cos = ok ? (vfn1)f64 : NULL;
        ok = ok && cpn_vmath_kernel("log1p", &nin, &f64, &f32) == 0;
        v_log1p = ok ? (vfn1)f64 : NULL;
        v_state = ok;
    }
    return v_state;
}

/* The blocks of counters [first, first + n): word j of block i at w[j * ld + i], or, ld == 0,
 * at w[4 * i + j]. */
static void blocks_ld(uint32_t k0, uint32_t k1, uint64_t stream, int64_t first, int64_t n, uint32_t *w,
                      int64_t ld)
{
    int64_t done = 0;
#ifdef CPN_PHILOX_AVX2
    if (use_avx512()) {
        done = n & ~(int64_t)15;
        blocks_avx512(k0, k1, stream, first, done, w, ld);
    }
    if (use_avx2() && (n - done) >= 8) {
        blocks_avx2(k0, k1, stream, first + done, 8, ld ? w + done : w + 4 * done, ld);
        done += 8;
    }
#endif
    for (int64_t i = done; i < n; i++) {
        uint64_t idx = (uint64_t)(first + i);
        uint32_t c[4] = {(uint32_t)idx, (uint32_t)(idx >> 32), (uint32_t)stream,
                         (uint32_t)(stream >> 32)};
        philox(c, k0, k1);
        for (int j = 0; j < 4; j++) w[ld ? j * ld + i : 4 * i + j] = c[j];
    }
}

static void blocks(uint32_t k0, uint32_t k1, uint64_t stream, int64_t first, int64_t n, uint32_t *w)
{
    blocks_ld(k0, k1, stream, first, n, w, RCHUNK);
}

/* Lemire draws in [0, r), r <= 2**53 (philox.h's cpn_philox_integer_from), of elements
 * [first, first + n): to out as doubles, or, out == NULL, to out64 as off + value modulo 2**64
 * (int64 or uint64: the same bits; the same values as the doubles). */
static void integer_chunk_w(uint64_t seed, uint64_t stream, double *out, int64_t *out64, uint64_t off,
                            int64_t first, int64_t n, uint64_t r, int big);

/* integer_chunk_w, where the CPU has AVX-512 and rejections are rare (below 2**-12 an element),
 * int64 output and ranges below 2**32: the whole blocks from the rounds straight to the output
 * (lemire_i64_avx512), the partial blocks at the ends and any chunk with a rejection through the
 * staged path. */
static void integer_chunk(uint64_t seed, uint64_t stream, double *out, int64_t *out64, uint64_t off,
                          int64_t first, int64_t n, uint64_t r, int big)
{
#ifdef CPN_PHILOX_AVX2
    const uint32_t t = r && r < 4294967296ull ? (uint32_t)((4294967296ull - r) % r) : 0;
    if (out64 && use_avx512() && r && r < 4294967296ull && t < (1u << 20)) {
        const int64_t head = (4 - (first & 3)) & 3, nb = n > head ? ((n - head) >> 2) & ~(int64_t)7 : 0;
        if (nb) {
            int64_t *body = out64 + head;
            const int nt = big && ((uintptr_t)body & 63) == 0;
            integer_chunk_w(seed, stream, NULL, out64, off, first, head, r, 0);
            if (lemire_i64_avx512((uint32_t)seed, (uint32_t)(seed >> 32), stream, (first + head) >> 2, nb,
                                  (uint32_t)r, t, off, body, nt)) {
                if (nt) nt_fence();   /* before ordinary stores to the same lines */
                integer_chunk_w(seed, stream, NULL, body, off, first + head, 4 * nb, r, 0);
            }
            const int64_t done = head + 4 * nb;
            integer_chunk_w(seed, stream, NULL, out64 + done, off, first + done, n - done, r, 0);
            return;
        }
    }
#endif
    integer_chunk_w(seed, stream, out, out64, off, first, n, r, big);
}

static void integer_chunk_w(uint64_t seed, uint64_t stream, double *out, int64_t *out64, uint64_t off,
                            int64_t first, int64_t n, uint64_t r, int big)
{
    if (n <= 0) return;
    uint32_t w[4 * RCHUNK];
    const int per = r <= 4294967296ull ? 4 : 2;   /* elements per block */
    const int64_t fb = first / per, nb = (first + n - 1) / per - fb + 1;
    blocks_ld((uint32_t)seed, (uint32_t)(seed >> 32), stream, fb, nb, w, 0);
#define PUT(i, v) (out ? (void)(out[i] = (double)(v)) : (void)(out64[i] = (int64_t)(off + (uint64_t)(v))))
    if (per == 4) {   /* element g is word g - 4 fb: a loop the compiler vectorises */
        const uint32_t t = (uint32_t)((4294967296ull - r) % r), *x = w + (first - 4 * fb);
        uint32_t bad = 0;
        int64_t i = 0;
#ifdef CPN_PHILOX_AVX2
        if (use_avx2() && r < 4294967296ull) {
            const int nt = big && ((uintptr_t)out64 & 31) == 0;
            i = n & ~(int64_t)7;
            bad = (uint32_t)(out ? lemire32_avx2(x, i, (uint32_t)r, t, out)
                                 : lemire32_avx2_i64(x, i, (uint32_t)r, t, off, out64, nt));
            if (nt && bad) nt_fence();   /* before ordinary stores to the same lines */
        }
#endif
        for (; i < n; i++) {
            const uint64_t m = (uint64_t)x[i] * r;
            PUT(i, m >> 32);
            bad |= (uint32_t)m < t;
        }
        if (bad)
            for (int64_t i = 0; i < n; i++)
                if ((uint32_t)((uint64_t)x[i] * r) < t)
                    PUT(i, (uint64_t)cpn_philox_integer_from(seed, stream, (uint64_t)(first + i), r, x[i], 1));
        return;
    }
    const uint32_t *x = w + 2 * (first - 2 * fb);   /* element g: words 2 (g - 2 fb), + 1 */
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)x[2 * i] | (uint64_t)x[2 * i + 1] << 32, hi, lo;
        cpn_philox_mul64(v, r, &hi, &lo);
        /* hi < r <= 2**53; lo >= r implies lo >= 2**64 mod r */
        PUT(i, lo >= r ? hi : (uint64_t)cpn_philox_integer_from(seed, stream, (uint64_t)(first + i), r, v, 1));
    }
#undef PUT
}

static void draw_chunk(int dist, uint64_t seed, uint64_t stream, double *out, int64_t first,
                       int64_t n, double p0, double p1)
{
    uint32_t w[4 * RCHUNK];
    double a[RCHUNK], b[RCHUNK];
    if (dist == CPN_RANDOM_INTEGER) {
        integer_chunk(seed, stream, out, NULL, 0, first, n, (uint64_t)p0, 0);
        return;
    }
    if (dist == CPN_RANDOM_NORMAL) {   /* philox.h's ziggurat, two normals per block */
        const int64_t fb = first >> 1, nb = ((first + n - 1) >> 1) - fb + 1;
        blocks_ld((uint32_t)seed, (uint32_t)(seed >> 32), stream, fb, nb, w, 0);
        const uint32_t *x = w + 2 * (first - 2 * fb);   /* element g: words 2 (g - 2 fb), + 1 */
        int64_t i = 0;
#ifdef CPN_PHILOX_AVX2
        if (use_avx2()) {
            i = n & ~(int64_t)3;
            zig_avx2(seed, stream, first, x, i, p0, p1, out);
        }
#endif
        for (; i < n; i++)
            out[i] = p0 + p1 * cpn_philox_zig(seed, stream, (uint64_t)(first + i), x[2 * i], x[2 * i + 1]);
        return;
    }
    blocks((uint32_t)seed, (uint32_t)(seed >> 32), stream, first, n, w);
    const uint32_t *w0 = w, *w1 = w + RCHUNK, *w2 = w + 2 * RCHUNK, *w3 = w + 3 * RCHUNK;
    const int vm = vector_math();
    vfn1 vlog = v_log, vcos = v_cos;
#ifdef CPN_RANDOM_SLEEF512
    if (vm && use_avx512()) {
        if (dist == CPN_RANDOM_EXPONENTIAL) {
            exponential_512(w0, w1, n, p0, out);
            return;
        }
        vlog = log_512;
        vcos = cos_512;
    }
#endif
    if (dist == CPN_RANDOM_EXPONENTIAL && vm) {
        for (int64_t i = 0; i < n; i++) a[i] = -to_unit(w0[i], w1[i]);
        v_log1p(a, a, n);
        for (int64_t i = 0; i < n; i++) out[i] = p0 * -a[i];
        return;
    }
    if (dist == CPN_RANDOM_GAMMA && p0 > 1.0 && vm) {
        /* attempt 0's normal through the vector log/cos, the acceptance here; a rejected
         * element continues from attempt 1 in philox.h */
        const double d = p0 - 1.0 / 3.0, cc = 1.0 / sqrt(9.0 * d);
        for (int64_t i = 0; i < n; i++) {
            a[i] = 1.0 - to_unit(w0[i], w1[i]);
            b[i] = 6.283185307179586 * cpn_philox_open32(w2[i]);
        }
        vlog(a, a, n);
        vcos(b, b, n);
        for (int64_t i = 0; i < n; i++) {
            double x = sqrt(-2.0 * a[i]) * b[i], v = 1.0 + cc * x;
            if (v > 0.0) {
                v = v * v * v;
                double u = cpn_philox_open32(w3[i]), x2 = x * x;
                if (u < 1.0 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) {
                    out[i] = p1 * (d * v);
                    continue;
                }
            }
            out[i] = p1 * cpn_philox_gamma_from(seed, stream, (uint64_t)(first + i), 0, p0, 1, NULL);
        }
        return;
    }
    if ((dist == CPN_RANDOM_POISSON && p0 > 0.0 && p0 < 10.0) ||
        (dist == CPN_RANDOM_BINOMIAL && p0 > 0.0 && p1 > 0.0 && p1 < 1.0 &&
         p0 * (p1 > 0.5 ? 1.0 - p1 : p1) < 10.0)) {
        /* philox.h's inversion walks, their cumulative sums tabulated once per call (the same
         * additions in the same order, so the same values), then a search per element */
        enum { TAB = 256 };
        const int bin = dist == CPN_RANDOM_BINOMIAL;
        const double q = bin ? (p1 > 0.5 ? 1.0 - p1 : p1) : 0.0, r = bin ? q / (1.0 - q) : 0.0;
        double F[TAB], pk = bin ? exp(p0 * log1p(-q)) : exp(-p0), f = pk, k = 0.0;
        int K = 0;
        F[0] = f;
        for (;;) {
            if (bin) {
                if (!(k < p0)) break;
                pk *= (p0 - k) / (k + 1.0) * r;
                k += 1.0;
                f += pk;
                F[++K] = f;
                if (pk < 1e-17 && k > p0 * q) break;
            } else {
                k += 1.0;
                pk *= p0 / k;
                f += pk;
                F[++K] = f;
                if (pk < 1e-17 && k > p0) break;
            }
            if (K == TAB - 1) {
                K = -1;   /* too long a table: the per-element walk */
                break;
            }
        }
        if (K >= 0 && K + 8 > TAB) K = -1;
        if (K >= 0) {
            for (int t = K; t < K + 8; t++) F[t] = 2.0;   /* above any u: never counted */
            for (int64_t i = 0; i < n; i++) {
                double u = to_unit(w0[i], w1[i]);
                /* F increases, so the count of F[t] < u (t < K) is the first t with u <= F[t];
                 * counted eight at a time (F is padded with 2.0), stopping at a partial eight */
                int j = 0;
                for (int t = 0; t < K; t += 8) {
                    int c = 0;
                    for (int l = 0; l < 8; l++) c += u > F[t + l];
                    j += c;
                    if (c < 8) break;
                }
                out[i] = bin && p1 > 0.5 ? p0 - j : j;
            }
            return;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        uint32_t c[4] = {w0[i], w1[i], w2[i], w3[i]};
        out[i] = cpn_philox_draw_b(dist, seed, stream, (uint64_t)(first + i), p0, p1, c);
    }
}

void cpn_kernel_random(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                       int64_t first, int64_t n, double lo, double hi)
{
    const uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    const double span = hi - lo;
    const int nt = 8 * n >= NT_MIN_BYTES;
    if (dist == CPN_RANDOM_UNIFORM) {
        if (n <= 16384) {   /* a fused block, or a small draw: no parallel region */
            uniform_block(k0, k1, stream, out, first, n, lo, span, 0);
            return;
        }
        int64_t nchunks = (n + UNIFORM_CHUNK - 1) / UNIFORM_CHUNK;
#pragma omp parallel
        {
#pragma omp for schedule(static) nowait
            for (int64_t c = 0; c < nchunks; c++) {
                int64_t b = c * UNIFORM_CHUNK, len = n - b < UNIFORM_CHUNK ? n - b : UNIFORM_CHUNK;
                uniform_block(k0, k1, stream, out + b, first + b, len, lo, span, nt);
            }
            if (nt) nt_fence();
        }
        return;
    }
    int64_t nchunks = (n + RCHUNK - 1) / RCHUNK;
    if (n <= 4096) {   /* a fused block, or a small draw: no parallel region (an if(0) one still
                        * ends on libgomp's barrier, a futex wake a block) */
        for (int64_t c = 0; c < nchunks; c++) {
            int64_t b = c * RCHUNK, len = n - b < RCHUNK ? n - b : RCHUNK;
            draw_chunk((int)dist, seed, stream, out + b, first + b, len, lo, hi);
        }
        return;
    }
#pragma omp parallel
    {
        /* dynamic: rejection samplers and inversion walks cost unevenly */
#pragma omp for schedule(dynamic, 4) nowait
        for (int64_t c = 0; c < nchunks; c++) {
            int64_t b = c * RCHUNK, len = n - b < RCHUNK ? n - b : RCHUNK;
            if (nt) {   /* drawn in cache, streamed out */
                double tmp[RCHUNK];
                draw_chunk((int)dist, seed, stream, tmp, first + b, len, lo, hi);
                stream_copy(out + b, tmp, len);
            } else {
                draw_chunk((int)dist, seed, stream, out + b, first + b, len, lo, hi);
            }
        }
        if (nt) nt_fence();
    }
}

void cpn_kernel_random_to(enum cpn_random_dist dist, enum cpn_dtype dt, uint64_t seed, uint64_t stream,
                          void *out, int64_t first, int64_t n, double p0, double p1, int64_t off)
{
    if (dt == CPN_DTYPE_FLOAT64) {
        cpn_kernel_random(dist, seed, stream, (double *)out, first, n, p0, p1);
        return;
    }
    CPN_ASSERT(dist == CPN_RANDOM_INTEGER && (dt == CPN_DTYPE_INT64 || dt == CPN_DTYPE_UINT64));
    int64_t nchunks = (n + RCHUNK - 1) / RCHUNK;
    const int nt = 8 * n >= NT_MIN_BYTES;
#pragma omp parallel if (n > 16384)
    {
#pragma omp for schedule(static) nowait
        for (int64_t c = 0; c < nchunks; c++) {
            int64_t b = c * RCHUNK, len = n - b < RCHUNK ? n - b : RCHUNK;
            integer_chunk(seed, stream, NULL, (int64_t *)out + b, (uint64_t)off, first + b, len, (uint64_t)p0,
                          nt);
        }
        if (nt) nt_fence();
    }
}

/* Per-element parameters: philox.h's draw of element first + i with parameters p0[i * s0],
 * p1[i * s1] (element strides; 0 repeats one value), the generic path of draw_chunk, so a value
 * depends on (seed, stream, index, its parameters) only. */
static void param_chunk(int dist, uint64_t seed, uint64_t stream, double *out, int64_t first,
                        int64_t n, const double *p0, int64_t s0, const double *p1, int64_t s1)
{
    uint32_t w[4 * RCHUNK];
    blocks((uint32_t)seed, (uint32_t)(seed >> 32), stream, first, n, w);
    const uint32_t *w0 = w, *w1 = w + RCHUNK, *w2 = w + 2 * RCHUNK, *w3 = w + 3 * RCHUNK;
    for (int64_t i = 0; i < n; i++) {
        uint32_t c[4] = {w0[i], w1[i], w2[i], w3[i]};
        out[i] = cpn_philox_draw_b(dist, seed, stream, (uint64_t)(first + i), p0[i * s0], p1[i * s1],
                                   c);
    }
}

void cpn_kernel_random_p(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                         int64_t first, int64_t n, const double *p0, int64_t s0, const double *p1,
                         int64_t s1)
{
    int64_t nchunks = (n + RCHUNK - 1) / RCHUNK;
    const int nt = 8 * n >= NT_MIN_BYTES;
#pragma omp parallel if (n > 4096)
    {
#pragma omp for schedule(dynamic, 4) nowait
        for (int64_t c = 0; c < nchunks; c++) {
            int64_t b = c * RCHUNK, len = n - b < RCHUNK ? n - b : RCHUNK;
            if (nt) {   /* as cpn_kernel_random */
                double tmp[RCHUNK];
                param_chunk((int)dist, seed, stream, tmp, first + b, len, p0 + b * s0, s0, p1 + b * s1, s1);
                stream_copy(out + b, tmp, len);
            } else {
                param_chunk((int)dist, seed, stream, out + b, first + b, len, p0 + b * s0, s0, p1 + b * s1,
                            s1);
            }
        }
        if (nt) nt_fence();
    }
}

/* ---- a counter-based bijection of [0, n) (random permutations) ----------------------------------
 * A balanced Feistel network of CPN_PERM_ROUNDS rounds on 2h bits (2**2h >= n, so under 4n), its
 * round function a 64-bit finalizer (splitmix64's) of the half plus a round key from Philox
 * (key, stream); values >= n walk the cycle (applied again) until they fall in [0, n).  The walk
 * keeps it a bijection of [0, n), and its inverse walks the inverse network.  Up to
 * CPN_PERM_TABLE elements, a Fisher-Yates shuffle of Philox integers instead, tabulated (the
 * Feistel network's permutations of a few elements are not uniform enough).  12 rounds: with 6,
 * the permutations of 5 to 8 elements were measurably far from uniform (5 to 14 sigma in a
 * chi-squared test over all n! of them). */
static uint64_t perm_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int cpn_perm_init(struct cpn_perm *p, uint64_t seed, uint64_t stream, int64_t n)
{
    int b = 0;
    while (b < 62 && ((int64_t)1 << b) < n) b++;
    p->n = n;
    p->h = (b + 1) / 2;
    p->mask = ((uint64_t)1 << p->h) - 1;
    p->fwd = p->inv = NULL;
    for (int r = 0; r < CPN_PERM_ROUNDS; r += 2) {
        uint32_t c[4];
        cpn_philox_block(seed, stream, (uint64_t)r, c);
        p->rk[r] = (uint64_t)c[0] | (uint64_t)c[1] << 32;
        p->rk[r + 1] = (uint64_t)c[2] | (uint64_t)c[3] << 32;
    }
    if (n > CPN_PERM_TABLE || n < 2) return 0;
    /* Fisher-Yates: position k (from the top) takes the element at a place drawn in [0, k],
     * Lemire's integer of counter k, uniform over the n! orders */
    p->fwd = malloc((size_t)n * 2 * sizeof *p->fwd);
    if (!p->fwd) return -1;
    p->inv = p->fwd + n;
    for (int64_t i = 0; i < n; i++) p->inv[i] = i;
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t j = (int64_t)cpn_philox_integer(seed, stream, (uint64_t)k, (double)(k + 1)), t = p->inv[k];
        p->inv[k] = p->inv[j];
        p->inv[j] = t;
    }
    for (int64_t q = 0; q < n; q++) p->fwd[p->inv[q]] = q;
    return 0;
}

void cpn_perm_free(struct cpn_perm *p)
{
    free(p->fwd);
    p->fwd = p->inv = NULL;
}

int64_t cpn_perm_apply(const struct cpn_perm *p, int64_t i, int inverse)
{
    const int h = p->h;
    const uint64_t m = p->mask;
    uint64_t x = (uint64_t)i;
    if (p->fwd) return inverse ? p->inv[i] : p->fwd[i];
    if (h == 0) return i;
    do {
        uint64_t l = x >> h, r = x & m;
        if (!inverse) {
            for (int k = 0; k < CPN_PERM_ROUNDS; k++) {
                uint64_t t = l ^ (perm_mix(r + p->rk[k]) & m);
                l = r;
                r = t;
            }
        } else {
            for (int k = CPN_PERM_ROUNDS - 1; k >= 0; k--) {
                uint64_t t = r ^ (perm_mix(l + p->rk[k]) & m);
                r = l;
                l = t;
            }
        }
        x = l << h | r;
    } while (x >= (uint64_t)p->n);
    return (int64_t)x;
}

int cpn_kernel_permute(uint64_t seed, uint64_t stream, const char *in, char *out, int64_t n, size_t row)
{
    struct cpn_perm p;
    if (cpn_perm_init(&p, seed, stream, n) < 0) return -1;
#pragma omp parallel for schedule(static) if (n > 16384)
    for (int64_t i = 0; i < n; i++)
        memcpy(out + (size_t)cpn_perm_apply(&p, i, 0) * row, in + (size_t)i * row, row);
    cpn_perm_free(&p);
    return 0;
}
