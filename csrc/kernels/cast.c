/* cast.c: conversion loops between every pair of dtypes.
 *
 * C's conversions are NumPy's unsafe casts: complex to real drops the imaginary part, anything to
 * bool tests against zero (NaN is true), float to integer truncates. */
#include "kernels.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

#define CAST_LOOP(FS, FT, TS, TT)                                                         \
    static void cast_##FS##_##TS(char **args, const int64_t *st, int64_t n,               \
                                 struct cpn_kctx *ctx)                                    \
    {                                                                                     \
        (void)ctx;                                                                        \
        if (st[0] == sizeof(FT) && st[1] == sizeof(TT)) {                                 \
            const FT *a = (const FT *)args[0];                                            \
            TT *o = (TT *)args[1];                                                        \
            for (int64_t i = 0; i < n; i++) o[i] = (TT)a[i];                              \
        } else if (st[0] == 0 && st[1] == sizeof(TT)) {                                   \
            const TT v = (TT) * (const FT *)args[0];                                      \
            TT *o = (TT *)args[1];                                                        \
            for (int64_t i = 0; i < n; i++) o[i] = v;                                     \
        } else {                                                                          \
            for (int64_t i = 0; i < n; i++)                                               \
                *(TT *)(args[1] + i * st[1]) = (TT) * (const FT *)(args[0] + i * st[0]);  \
        }                                                                                 \
    }

#define EACH_TO(FE, FT, FS)                                                               \
    CAST_LOOP(FS, FT, b, _Bool) CAST_LOOP(FS, FT, i8, int8_t) CAST_LOOP(FS, FT, u8, uint8_t) \
    CAST_LOOP(FS, FT, i16, int16_t) CAST_LOOP(FS, FT, u16, uint16_t)                      \
    CAST_LOOP(FS, FT, i32, int32_t) CAST_LOOP(FS, FT, u32, uint32_t)                      \
    CAST_LOOP(FS, FT, i64, int64_t) CAST_LOOP(FS, FT, u64, uint64_t)                      \
    CAST_LOOP(FS, FT, f16, _Float16) CAST_LOOP(FS, FT, f32, float)                        \
    CAST_LOOP(FS, FT, f64, double) CAST_LOOP(FS, FT, c64, float _Complex)                 \
    CAST_LOOP(FS, FT, c128, double _Complex)
#define X(E, T, S, C) EACH_TO(E, T, S)
CPN_DTYPE_LIST(X)
#undef X

#define ROW(FS)                                                                           \
    {cast_##FS##_b, cast_##FS##_i8, cast_##FS##_u8, cast_##FS##_i16, cast_##FS##_u16,     \
     cast_##FS##_i32, cast_##FS##_u32, cast_##FS##_i64, cast_##FS##_u64, cast_##FS##_f16, \
     cast_##FS##_f32, cast_##FS##_f64, cast_##FS##_c64, cast_##FS##_c128},
static const cpn_loop_fn cast_table[CPN_DTYPE_COUNT][CPN_DTYPE_COUNT] = {
#define X(E, T, S, C) ROW(S)
    CPN_DTYPE_LIST(X)
#undef X
};
_Static_assert(sizeof cast_table / sizeof cast_table[0] == CPN_DTYPE_COUNT, "cast rows");

/* A cast to the same dtype is a copy of the bytes (the conversion is the identity on every
 * value cupynum stores): contiguous runs go through memmove, which moves a long row faster than
 * the element loop (the banded write-back and assignments `a[...] = b` are such copies). */
#define COPY_LOOP(N, T)                                                                   \
    static void copy_##N(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx) \
    {                                                                                     \
        (void)ctx;                                                                        \
        if (st[0] == N && st[1] == N) {                                                   \
            memmove(args[1], args[0], (size_t)n * N);                                     \
        } else if (st[0] == 0 && st[1] == N) {                                            \
            T v;                                                                          \
            memcpy(&v, args[0], N);                                                       \
            for (int64_t i = 0; i < n; i++) memcpy(args[1] + i * N, &v, N);               \
        } else { /* (locals: through args[] each store made the compiler reload them) */  \
            char *d = args[1];                                                            \
            const char *s = args[0];                                                      \
            const int64_t ds = st[1], ss = st[0];                                         \
            for (int64_t i = 0; i < n; i++) memmove(d + i * ds, s + i * ss, N);           \
        }                                                                                 \
    }
COPY_LOOP(1, uint8_t)
COPY_LOOP(2, uint16_t)
COPY_LOOP(4, uint32_t)
COPY_LOOP(8, uint64_t)
typedef struct { uint64_t lo, hi; } cpn_u128;
COPY_LOOP(16, cpn_u128)

int64_t cpn_kernel_copy_item(cpn_loop_fn fn)
{
    return fn == copy_1 ? 1 : fn == copy_2 ? 2 : fn == copy_4 ? 4 : fn == copy_8 ? 8 : fn == copy_16 ? 16 : 0;
}

/* ---- transposed copies ------------------------------------------------------------------------
 * `A.T.copy()`, `ascontiguousarray(A.T)`, `asfortranarray(A)`: the element loop read a column of
 * the source per destination row, one element per cache line and one scalar move per element
 * (316 x 316 float64: 38 us against NumPy's 30).  Here the destination goes in tiles of TR_TILE x
 * TR_TILE elements (a tile's source lines stay in L1 while it is written), and inside a tile
 * blocks go through registers: 4 x 4 of 8-byte elements with AVX2's unpacks and 128-bit lane
 * permutes, 4 x 4 of 4-byte ones with SSE's shuffle transpose, 8 x 8 of 2- and 1-byte ones with
 * SSE2's interleaves (baseline); 16-byte elements (one register each) and the edges move one
 * element at a time.  Only moves and shuffles: every bit pattern (NaN payloads) is kept. */
#define TR_TILE 32

#define TR_SCALAR(N)                                                                      \
    static void tr_scalar_##N(const char *s, int64_t sld, char *d, int64_t dld, int64_t i0, \
                              int64_t i1, int64_t j0, int64_t j1)                         \
    {                                                                                     \
        for (int64_t i = i0; i < i1; i++)                                                 \
            for (int64_t j = j0; j < j1; j++) memcpy(d + i * dld + j * N, s + j * sld + i * N, N); \
    }
TR_SCALAR(1)
TR_SCALAR(2)
TR_SCALAR(4)
TR_SCALAR(8)
TR_SCALAR(16)

typedef void (*tr_block_fn)(const char *s, int64_t sld, char *d, int64_t dld);

#if defined(__SSE2__)
static void tr4x4_4(const char *s, int64_t sld, char *d, int64_t dld)
{
    __m128 r0 = _mm_loadu_ps((const float *)s), r1 = _mm_loadu_ps((const float *)(s + sld));
    __m128 r2 = _mm_loadu_ps((const float *)(s + 2 * sld)), r3 = _mm_loadu_ps((const float *)(s + 3 * sld));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps((float *)d, r0);
    _mm_storeu_ps((float *)(d + dld), r1);
    _mm_storeu_ps((float *)(d + 2 * dld), r2);
    _mm_storeu_ps((float *)(d + 3 * dld), r3);
}

/* 8 x 8 blocks of 2-byte and 1-byte elements: three rounds of interleaves (SSE2). */
static void tr8x8_2(const char *s, int64_t sld, char *d, int64_t dld)
{
    __m128i r[8], a[8], b[8];
    for (int k = 0; k < 8; k++) r[k] = _mm_loadu_si128((const __m128i *)(s + k * sld));
    for (int k = 0; k < 4; k++) {
        a[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
        a[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
    }
    for (int h = 0; h < 2; h++) {   /* rows 4h .. 4h + 3 */
        b[4 * h] = _mm_unpacklo_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 1] = _mm_unpackhi_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 2] = _mm_unpacklo_epi32(a[4 * h + 1], a[4 * h + 3]);
        b[4 * h + 3] = _mm_unpackhi_epi32(a[4 * h + 1], a[4 * h + 3]);
    }
    for (int k = 0; k < 4; k++) {   /* b[k]: columns 2k, 2k + 1 of rows 0-3; b[4 + k] of rows 4-7 */
        _mm_storeu_si128((__m128i *)(d + 2 * k * dld), _mm_unpacklo_epi64(b[k], b[4 + k]));
        _mm_storeu_si128((__m128i *)(d + (2 * k + 1) * dld), _mm_unpackhi_epi64(b[k], b[4 + k]));
    }
}

static void tr8x8_1(const char *s, int64_t sld, char *d, int64_t dld)
{
    __m128i r[8], a[4], b[4];
    for (int k = 0; k < 8; k++) r[k] = _mm_loadl_epi64((const __m128i *)(s + k * sld));
    for (int k = 0; k < 4; k++) a[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
    b[0] = _mm_unpacklo_epi16(a[0], a[1]);   /* columns 0-3 of rows 0-3 */
    b[1] = _mm_unpackhi_epi16(a[0], a[1]);   /* columns 4-7 of rows 0-3 */
    b[2] = _mm_unpacklo_epi16(a[2], a[3]);
    b[3] = _mm_unpackhi_epi16(a[2], a[3]);
    for (int k = 0; k < 2; k++) {
        const __m128i lo = _mm_unpacklo_epi32(b[k], b[2 + k]), hi = _mm_unpackhi_epi32(b[k], b[2 + k]);
        _mm_storel_epi64((__m128i *)(d + 4 * k * dld), lo);
        _mm_storel_epi64((__m128i *)(d + (4 * k + 1) * dld), _mm_unpackhi_epi64(lo, lo));
        _mm_storel_epi64((__m128i *)(d + (4 * k + 2) * dld), hi);
        _mm_storel_epi64((__m128i *)(d + (4 * k + 3) * dld), _mm_unpackhi_epi64(hi, hi));
    }
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx2"))) static void tr4x4_8(const char *s, int64_t sld, char *d, int64_t dld)
{
    const __m256d r0 = _mm256_loadu_pd((const double *)s), r1 = _mm256_loadu_pd((const double *)(s + sld));
    const __m256d r2 = _mm256_loadu_pd((const double *)(s + 2 * sld));
    const __m256d r3 = _mm256_loadu_pd((const double *)(s + 3 * sld));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd((double *)d, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd((double *)(d + dld), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd((double *)(d + 2 * dld), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd((double *)(d + 3 * dld), _mm256_permute2f128_pd(t1, t3, 0x31));
}
#endif

/* Destination rows [r0, r1) of the transposed copy, tile by tile. */
static void tr_rows(int64_t item, const char *s, int64_t sld, char *d, int64_t dld, int64_t r0, int64_t r1,
                    int64_t cols)
{
    void (*sc)(const char *, int64_t, char *, int64_t, int64_t, int64_t, int64_t, int64_t) =
        item == 1 ? tr_scalar_1 : item == 2 ? tr_scalar_2 : item == 4 ? tr_scalar_4 : item == 8 ? tr_scalar_8
                                                                                             : tr_scalar_16;
    tr_block_fn blk = NULL;
    int64_t B = 4;   /* the block's edge */
#if defined(__SSE2__)
    if (item == 4) blk = tr4x4_4;
    if (item <= 2) blk = item == 2 ? tr8x8_2 : tr8x8_1, B = 8;
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (item == 8 && cpn_kernel_cpu_level() >= 1) blk = tr4x4_8;
#endif
    for (int64_t ib = r0; ib < r1; ib += TR_TILE) {
        const int64_t ie = ib + TR_TILE < r1 ? ib + TR_TILE : r1;
        for (int64_t jb = 0; jb < cols; jb += TR_TILE) {
            const int64_t je = jb + TR_TILE < cols ? jb + TR_TILE : cols;
            if (!blk) {
                sc(s, sld, d, dld, ib, ie, jb, je);
                continue;
            }
            const int64_t i4 = ib + (ie - ib) / B * B, j4 = jb + (je - jb) / B * B;
            for (int64_t i = ib; i < i4; i += B)
                for (int64_t j = jb; j < j4; j += B) blk(s + j * sld + i * item, sld, d + i * dld + j * item, dld);
            sc(s, sld, d, dld, ib, i4, j4, je);
            sc(s, sld, d, dld, i4, ie, jb, je);
        }
    }
}

void cpn_kernel_transpose_local(int64_t item, const char *src, int64_t sld, char *dst, int64_t dld,
                                int64_t rows, int64_t cols)
{
    tr_rows(item, src, sld, dst, dld, 0, rows, cols);
}

void cpn_kernel_copy_transposed(int64_t item, const char *src, int64_t sld, char *dst, int64_t dld,
                                int64_t rows, int64_t cols)
{
    struct cpn_team_timer tm = {.bucket = -1};
    const int nth = cpn_kernel_team_pick(CPN_TEAM_ELEMENTWISE, rows * cols, &tm);
    if (nth == 1) {
        tr_rows(item, src, sld, dst, dld, 0, rows, cols);
    } else {
        const int64_t ntile = (rows + TR_TILE - 1) / TR_TILE;
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int64_t t = 0; t < ntile; t++) {
            const int64_t r1 = (t + 1) * TR_TILE < rows ? (t + 1) * TR_TILE : rows;
            tr_rows(item, src, sld, dst, dld, t * TR_TILE, r1, cols);
        }
    }
    cpn_kernel_team_done(&tm);
}

/* 64-bit integers to float64: x86-64's baseline has only the one-at-a-time conversion, which made
 * the cast the larger part of `mean` of an int64 array (NumPy's reduction in float64).  Where the
 * CPU has AVX-512 DQ, contiguous runs convert 8 at a time (vcvtqq2pd/vcvtuqq2pd round as the
 * scalar instruction does: to nearest under the default MXCSR), other layouts take the loop. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CAST512(FS, FT, CVT)                                                              \
    __attribute__((target("avx512f,avx512dq"))) static void cast512_##FS##_f64(            \
        char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx)                  \
    {                                                                                     \
        if (st[0] != sizeof(FT) || st[1] != sizeof(double)) {                             \
            cast_##FS##_f64(args, st, n, ctx);                                            \
            return;                                                                       \
        }                                                                                 \
        const FT *a = (const FT *)args[0];                                                \
        double *o = (double *)args[1];                                                    \
        int64_t i = 0;                                                                    \
        for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, CVT(_mm512_loadu_si512(a + i))); \
        for (; i < n; i++) o[i] = (double)a[i];                                           \
    }
CAST512(i64, int64_t, _mm512_cvtepi64_pd)
CAST512(u64, uint64_t, _mm512_cvtepu64_pd)

static int have_avx512dq(void) { return cpn_kernel_cpu_level() >= 2; }
#endif

cpn_loop_fn cpn_kernel_cast(enum cpn_dtype from, enum cpn_dtype to)
{
    if ((unsigned)from >= CPN_DTYPE_COUNT || (unsigned)to >= CPN_DTYPE_COUNT) return NULL;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (to == CPN_DTYPE_FLOAT64 && (from == CPN_DTYPE_INT64 || from == CPN_DTYPE_UINT64) &&
        have_avx512dq())
        return from == CPN_DTYPE_INT64 ? cast512_i64_f64 : cast512_u64_f64;
#endif
    if (from == to) {
        switch (cpn_dtype_size(from)) {
        case 1: return copy_1;
        case 2: return copy_2;
        case 4: return copy_4;
        case 8: return copy_8;
        case 16: return copy_16;
        default: break;
        }
    }
    return cast_table[from][to];
}
