/* cast.c: conversion loops between every pair of dtypes.
 *
 * C's conversions are NumPy's unsafe casts: complex to real drops the imaginary part, anything to
 * bool tests against zero (NaN is true), float to integer truncates. */
#include "kernels.h"

#include <string.h>

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
