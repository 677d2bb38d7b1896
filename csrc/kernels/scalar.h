/* scalar.h: the scalar meaning of every op in ops.def, written once.
 *
 * Each op is a family of `static inline` functions cpn_<op>_<suffix>(a[, b]) per dtype, usable from
 * C and from CUDA (CPN_HD is __host__ __device__ under nvcc), so the CPU tests check the arithmetic
 * the GPU runs.  Semantics are NumPy's: Python-style floor division and remainder (npy_divmod),
 * shifts past the width give 0 (or -1), integer division by zero gives 0, NaN propagates through
 * maximum/minimum, complex numbers order lexicographically.  Signed overflow wraps (-fwrapv).
 *
 * float16 and complex: on the host C's _Float16 and C99 complex; on the device (nvcc, NVRTC) types
 * of the same layout from scalar_dev.h (cpn_half computing in float; {re, im} structs).  The
 * definitions below serve both through cpn_half/cpn_c64/cpn_c128 and the CPN_RE/CPN_IM/CPN_CPX
 * accessors; only the functions C99 provides (cexp, clog, ...) have a separate device form. */
#ifndef CPN_SCALAR_H
#define CPN_SCALAR_H

#ifndef __CUDACC_RTC__ /* NVRTC (cuda/codegen.c) has the math built in and its own int types */
#include <math.h>
#include <stdint.h>
#endif
#ifndef __CUDACC__
#include <complex.h>
#include <fenv.h>
#endif

#ifdef __CUDACC__
#define CPN_HD __host__ __device__
#define _Bool bool /* C's boolean type under C++ */
#else
#define CPN_HD
#endif
#define CPN_SI static inline CPN_HD
#ifdef __CUDA_ARCH__   /* the device pass of nvcc */
#define CPN_POPCOUNT(x) __popcll(x)
#else
#define CPN_POPCOUNT(x) __builtin_popcountll(x)
#endif
/* Quiet comparisons (no invalid flag for a NaN operand), as NumPy's npy_divmod uses; the device
 * has no status flags, so plain comparisons do there. */
#ifdef __CUDACC__
#define CPN_ISLESS(a, b) ((a) < (b))
#define CPN_ISGREATER(a, b) ((a) > (b))
#else
#define CPN_ISLESS(a, b) isless(a, b)
#define CPN_ISGREATER(a, b) isgreater(a, b)
#endif
#define CPN_PI 3.141592653589793238462643383279502884
#define CPN_LN2 0.693147180559945309417232121458176568
#define CPN_LOG2E 1.442695040888963407359924681001892137
#define CPN_LOG10E 0.434294481903251827651128918916605082

#include "scalar_dev.h"
#ifndef __CUDACC__
typedef _Float16 cpn_half;
typedef float _Complex cpn_c64;
typedef double _Complex cpn_c128;
/* Parts, construction, and the C99 function `fn` (exp: cexpf, cexp) of each complex type. */
#define CPN_RE_c64(a) crealf(a)
#define CPN_IM_c64(a) cimagf(a)
#define CPN_CPX_c64(r, i) CMPLXF(r, i)
#define CPN_CF_c64(fn) c##fn##f
#define CPN_RE_c128(a) creal(a)
#define CPN_IM_c128(a) cimag(a)
#define CPN_CPX_c128(r, i) CMPLX(r, i)
#define CPN_CF_c128(fn) c##fn
#else   /* the device: scalar_dev.h's structs and NumPy-formula functions (cpn_sexp_c64, ...) */
#define CPN_RE_c64(a) ((a).re)
#define CPN_IM_c64(a) ((a).im)
#define CPN_CPX_c64(r, i) cpn_mk_c64(r, i)
#define CPN_CF_c64(fn) cpn_s##fn##_c64
#define CPN_RE_c128(a) ((a).re)
#define CPN_IM_c128(a) ((a).im)
#define CPN_CPX_c128(r, i) cpn_mk_c128(r, i)
#define CPN_CF_c128(fn) cpn_s##fn##_c128
#endif
#define CPN_NZ_c64(a) (CPN_RE_c64(a) != 0 || CPN_IM_c64(a) != 0)
#define CPN_NZ_c128(a) (CPN_RE_c128(a) != 0 || CPN_IM_c128(a) != 0)

/* Type lists.  M(suffix, type) or, for math, M(suffix, type, compute type, libm suffix). */
#define CPN_SINT_LIST(M) M(i8, int8_t) M(i16, int16_t) M(i32, int32_t) M(i64, int64_t)
#define CPN_UINT_LIST(M) M(u8, uint8_t) M(u16, uint16_t) M(u32, uint32_t) M(u64, uint64_t)
#define CPN_REAL_LIST(M) M(f16, cpn_half, float, f) M(f32, float, float, f) M(f64, double, double, )
#define CPN_CPLX_LIST(M) M(c64, cpn_c64, float, f) M(c128, cpn_c128, double, )

/* ---- bool ---------------------------------------------------------------------------------- */
CPN_SI _Bool cpn_add_b(_Bool a, _Bool b) { return a || b; }
CPN_SI _Bool cpn_multiply_b(_Bool a, _Bool b) { return a && b; }
CPN_SI _Bool cpn_maximum_b(_Bool a, _Bool b) { return a || b; }
CPN_SI _Bool cpn_minimum_b(_Bool a, _Bool b) { return a && b; }
CPN_SI _Bool cpn_bitwise_and_b(_Bool a, _Bool b) { return a && b; }
CPN_SI _Bool cpn_bitwise_or_b(_Bool a, _Bool b) { return a || b; }
CPN_SI _Bool cpn_bitwise_xor_b(_Bool a, _Bool b) { return a != b; }
CPN_SI _Bool cpn_absolute_b(_Bool a) { return a; }
CPN_SI _Bool cpn_invert_b(_Bool a) { return !a; }
CPN_SI _Bool cpn_fmax_b(_Bool a, _Bool b) { return a || b; }
CPN_SI _Bool cpn_fmin_b(_Bool a, _Bool b) { return a && b; }
CPN_SI _Bool cpn_floor_b(_Bool a) { return a; }
CPN_SI _Bool cpn_ceil_b(_Bool a) { return a; }
CPN_SI _Bool cpn_trunc_b(_Bool a) { return a; }

/* ---- logic: any value is true when non-zero (bool, integers, reals; complex below) ---------- */
#define CPN_DEF_LOGIC(S, T, ...)                                                          \
    CPN_SI _Bool cpn_logical_and_##S(T a, T b) { return a != 0 && b != 0; }              \
    CPN_SI _Bool cpn_logical_or_##S(T a, T b) { return a != 0 || b != 0; }               \
    CPN_SI _Bool cpn_logical_xor_##S(T a, T b) { return (a != 0) != (b != 0); }          \
    CPN_SI _Bool cpn_logical_not_##S(T a) { return a == 0; }
/* Exact types are never NaN or infinite. */
#define CPN_DEF_EXACT_CLASSIFY(S, T, ...)                                                 \
    CPN_SI _Bool cpn_isnan_##S(T a) { (void)a; return 0; }                               \
    CPN_SI _Bool cpn_isinf_##S(T a) { (void)a; return 0; }                               \
    CPN_SI _Bool cpn_isfinite_##S(T a) { (void)a; return 1; }
CPN_DEF_LOGIC(b, _Bool)
CPN_DEF_EXACT_CLASSIFY(b, _Bool)

/* ---- comparisons: one definition for every ordered type ------------------------------------ */
#define CPN_DEF_CMP(S, T, ...)                                         \
    CPN_SI _Bool cpn_equal_##S(T a, T b) { return a == b; }            \
    CPN_SI _Bool cpn_not_equal_##S(T a, T b) { return a != b; }        \
    CPN_SI _Bool cpn_less_##S(T a, T b) { return a < b; }              \
    CPN_SI _Bool cpn_less_equal_##S(T a, T b) { return a <= b; }       \
    CPN_SI _Bool cpn_greater_##S(T a, T b) { return a > b; }           \
    CPN_SI _Bool cpn_greater_equal_##S(T a, T b) { return a >= b; }
CPN_DEF_CMP(b, _Bool)
CPN_SINT_LIST(CPN_DEF_CMP)
CPN_UINT_LIST(CPN_DEF_CMP)
CPN_REAL_LIST(CPN_DEF_CMP)

/* ---- arithmetic shared by integers and reals ------------------------------------------------ */
#define CPN_DEF_ARITH(S, T, ...)                                       \
    CPN_SI T cpn_add_##S(T a, T b) { return a + b; }                   \
    CPN_SI T cpn_subtract_##S(T a, T b) { return a - b; }              \
    CPN_SI T cpn_multiply_##S(T a, T b) { return a * b; }              \
    CPN_SI T cpn_negative_##S(T a) { return -a; }                      \
    CPN_SI T cpn_positive_##S(T a) { return +a; }                      \
    CPN_SI T cpn_square_##S(T a) { return a * a; }
#ifndef __CUDACC__
#define CPN_DEF_CPLX_ARITH(S, T, ...)                                  \
    CPN_SI T cpn_add_##S(T a, T b) { return a + b; }                   \
    CPN_SI T cpn_subtract_##S(T a, T b) { return a - b; }              \
    CPN_SI T cpn_negative_##S(T a) { return -a; }                      \
    CPN_SI T cpn_positive_##S(T a) { return +a; }
#else   /* the same, part by part, on the device's structs */
#define CPN_DEF_CPLX_ARITH(S, T, ...)                                                     \
    CPN_SI T cpn_add_##S(T a, T b) { return CPN_CPX_##S(a.re + b.re, a.im + b.im); }      \
    CPN_SI T cpn_subtract_##S(T a, T b) { return CPN_CPX_##S(a.re - b.re, a.im - b.im); } \
    CPN_SI T cpn_negative_##S(T a) { return CPN_CPX_##S(-a.re, -a.im); }                  \
    CPN_SI T cpn_positive_##S(T a) { return a; }
#endif
CPN_SINT_LIST(CPN_DEF_ARITH)
CPN_UINT_LIST(CPN_DEF_ARITH)
CPN_REAL_LIST(CPN_DEF_ARITH)
CPN_SINT_LIST(CPN_DEF_LOGIC)
CPN_UINT_LIST(CPN_DEF_LOGIC)
CPN_REAL_LIST(CPN_DEF_LOGIC)
CPN_SINT_LIST(CPN_DEF_EXACT_CLASSIFY)
CPN_UINT_LIST(CPN_DEF_EXACT_CLASSIFY)
CPN_CPLX_LIST(CPN_DEF_CPLX_ARITH)

/* ---- integers -------------------------------------------------------------------------------- */
#define CPN_DEF_INT_COMMON(S, T)                                                          \
    CPN_SI T cpn_maximum_##S(T a, T b) { return a >= b ? a : b; }                         \
    CPN_SI T cpn_minimum_##S(T a, T b) { return a <= b ? a : b; }                         \
    CPN_SI T cpn_bitwise_and_##S(T a, T b) { return a & b; }                              \
    CPN_SI T cpn_bitwise_or_##S(T a, T b) { return a | b; }                               \
    CPN_SI T cpn_bitwise_xor_##S(T a, T b) { return a ^ b; }                              \
    CPN_SI T cpn_invert_##S(T a) { return (T)~a; }                                        \
    CPN_SI T cpn_fmax_##S(T a, T b) { return a >= b ? a : b; }                            \
    CPN_SI T cpn_fmin_##S(T a, T b) { return a <= b ? a : b; }                            \
    CPN_SI T cpn_floor_##S(T a) { return a; }                                             \
    CPN_SI T cpn_ceil_##S(T a) { return a; }                                              \
    CPN_SI T cpn_trunc_##S(T a) { return a; }                                             \
    CPN_SI T cpn_conjugate_##S(T a) { return a; }                                         \
    /* NumPy's gcd on magnitudes (so gcd(MIN, MIN) wraps to MIN), lcm = |a| / gcd * |b|. */ \
    CPN_SI T cpn_gcd_##S(T a, T b)                                                        \
    {                                                                                     \
        uint64_t x = cpn_mag_##S(a), y = cpn_mag_##S(b);                                  \
        while (x) {                                                                       \
            uint64_t t = y % x;                                                           \
            y = x;                                                                        \
            x = t;                                                                        \
        }                                                                                 \
        return (T)y;                                                                      \
    }                                                                                     \
    CPN_SI T cpn_lcm_##S(T a, T b)                                                        \
    {                                                                                     \
        uint64_t g = cpn_mag_##S(cpn_gcd_##S(a, b));                                      \
        if (!g) return 0;                                                                 \
        return (T)(cpn_mag_##S(a) / g * cpn_mag_##S(b));                                  \
    }                                                                                     \
    CPN_SI T cpn_left_shift_##S(T a, T b)                                                 \
    {                                                                                     \
        return (uint64_t)b < 8 * sizeof(T) ? (T)((uint64_t)a << (uint64_t)b) : (T)0;      \
    }                                                                                     \
    /* b >= 0 (the loop reports negative exponents); wraps on overflow as NumPy does. */  \
    CPN_SI T cpn_power_##S(T a, T b)                                                      \
    {                                                                                     \
        T r = 1;                                                                          \
        while (b > 0) {                                                                   \
            if (b & 1) r = (T)(r * a);                                                    \
            a = (T)(a * a);                                                               \
            b = (T)(b >> 1);                                                              \
        }                                                                                 \
        return r;                                                                         \
    }
#define CPN_DEF_SINT(S, T)                                                                \
    CPN_SI uint64_t cpn_mag_##S(T a) { return a < 0 ? 0 - (uint64_t)a : (uint64_t)a; }   \
    CPN_DEF_INT_COMMON(S, T)                                                              \
    CPN_SI T cpn_absolute_##S(T a) { return a < 0 ? (T)-a : a; }                          \
    CPN_SI T cpn_right_shift_##S(T a, T b)                                                \
    {                                                                                     \
        return (uint64_t)b < 8 * sizeof(T) ? (T)(a >> b) : (T)(a < 0 ? -1 : 0);           \
    }                                                                                     \
    CPN_SI T cpn_floor_divide_##S(T a, T b)                                               \
    {                                                                                     \
        if (b == 0) return 0;                                                             \
        if (b == -1) return (T)-a; /* MIN // -1 wraps to MIN, as NumPy */                 \
        T q = (T)(a / b);                                                                 \
        if ((a % b != 0) && ((a < 0) != (b < 0))) q = (T)(q - 1);                         \
        return q;                                                                         \
    }                                                                                     \
    CPN_SI T cpn_remainder_##S(T a, T b)                                                  \
    {                                                                                     \
        if (b == 0 || b == -1) return 0;                                                  \
        T r = (T)(a % b);                                                                 \
        if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);                               \
        return r;                                                                         \
    }                                                                                     \
    CPN_SI T cpn_fmod_##S(T a, T b) { return (b == 0 || b == -1) ? (T)0 : (T)(a % b); }   \
    CPN_SI T cpn_divmod_##S(T a, T b, T *r)                                               \
    {                                                                                     \
        *r = cpn_remainder_##S(a, b);                                                     \
        return cpn_floor_divide_##S(a, b);                                                \
    }                                                                                     \
    CPN_SI T cpn_sign_##S(T a) { return (T)((a > 0) - (a < 0)); }                         \
    /* NumPy computes 1.0 / a and converts: 1/0 = inf becomes MIN for 32 and 64 bits. */  \
    CPN_SI T cpn_reciprocal_##S(T a)                                                      \
    {                                                                                     \
        if (a == 1 || a == -1) return a;                                                  \
        if (a == 0 && sizeof(T) >= 4) return (T)((uint64_t)1 << (8 * sizeof(T) - 1));     \
        return 0;                                                                         \
    }                                                                                     \
    CPN_SI uint8_t cpn_bitwise_count_##S(T a) { return (uint8_t)CPN_POPCOUNT(cpn_mag_##S(a)); }
#define CPN_DEF_UINT(S, T)                                                                \
    CPN_SI uint64_t cpn_mag_##S(T a) { return a; }                                        \
    CPN_DEF_INT_COMMON(S, T)                                                              \
    CPN_SI T cpn_absolute_##S(T a) { return a; }                                          \
    CPN_SI T cpn_right_shift_##S(T a, T b)                                                \
    {                                                                                     \
        return (uint64_t)b < 8 * sizeof(T) ? (T)(a >> b) : (T)0;                          \
    }                                                                                     \
    CPN_SI T cpn_floor_divide_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }        \
    CPN_SI T cpn_remainder_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }           \
    CPN_SI T cpn_fmod_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }                \
    CPN_SI T cpn_divmod_##S(T a, T b, T *r)                                               \
    {                                                                                     \
        *r = cpn_remainder_##S(a, b);                                                     \
        return cpn_floor_divide_##S(a, b);                                                \
    }                                                                                     \
    CPN_SI T cpn_sign_##S(T a) { return (T)(a > 0); }                                     \
    CPN_SI T cpn_reciprocal_##S(T a) { return (T)(a == 1); }                              \
    CPN_SI uint8_t cpn_bitwise_count_##S(T a) { return (uint8_t)CPN_POPCOUNT(cpn_mag_##S(a)); }
CPN_SINT_LIST(CPN_DEF_SINT)
CPN_UINT_LIST(CPN_DEF_UINT)

/* ---- reals: W is the compute type (float for float16), LS the libm suffix ------------------
 * maximum/minimum return b on ties, as NumPy's SIMD loops do (maximum(-0.0, 0.0) is 0.0). */
#define CPN_DEF_REAL(S, T, W, LS)                                                         \
    CPN_SI T cpn_divide_##S(T a, T b) { return (T)((W)a / (W)b); }                   \
    CPN_SI T cpn_reciprocal_##S(T a) { return (T)((W)1 / (W)a); }                      \
    CPN_SI T cpn_maximum_##S(T a, T b) { return (a > b || isnan((W)a)) ? a : b; }         \
    CPN_SI T cpn_minimum_##S(T a, T b) { return (a < b || isnan((W)a)) ? a : b; }         \
    CPN_SI T cpn_absolute_##S(T a) { return (T)fabs##LS((W)a); }                          \
    CPN_SI T cpn_sqrt_##S(T a) { return (T)sqrt##LS((W)a); }                              \
    CPN_SI T cpn_exp_##S(T a) { return (T)exp##LS((W)a); }                                \
    CPN_SI T cpn_log_##S(T a) { return (T)log##LS((W)a); }                                \
    CPN_SI T cpn_sin_##S(T a) { return (T)sin##LS((W)a); }                                \
    CPN_SI T cpn_cos_##S(T a) { return (T)cos##LS((W)a); }                                \
    CPN_SI T cpn_tanh_##S(T a) { return (T)tanh##LS((W)a); }                              \
    CPN_SI T cpn_floor_##S(T a) { return (T)floor##LS((W)a); }                            \
    CPN_SI T cpn_ceil_##S(T a) { return (T)ceil##LS((W)a); }                              \
    CPN_SI T cpn_power_##S(T a, T b) { return (T)pow##LS((W)a, (W)b); }                   \
    /* npy_divmod: the quotient rounded toward -inf, corrected so a == q*b + r exactly. */ \
    CPN_SI W cpn_npy_divmod_##S(W a, W b, W *mod)                                             \
    {                                                                                     \
        W m = fmod##LS(a, b);                                                             \
        if (!b) {                                                                         \
            *mod = m;                                                                     \
            return a / b;                                                                 \
        }                                                                                 \
        W div = (a - m) / b;                                                              \
        if (m) {                                                                          \
            if (CPN_ISLESS(b, (W)0) != CPN_ISLESS(m, (W)0)) {                             \
                m += b;                                                                   \
                div -= (W)1.0;                                                            \
            }                                                                             \
        } else {                                                                          \
            m = copysign##LS((W)0, b);                                                    \
        }                                                                                 \
        W fl;                                                                             \
        if (div) {                                                                        \
            fl = floor##LS(div);                                                          \
            if (CPN_ISGREATER(div - fl, (W)0.5)) fl += (W)1.0;                            \
        } else {                                                                          \
            fl = copysign##LS((W)0, a / b);                                               \
        }                                                                                 \
        *mod = m;                                                                         \
        return fl;                                                                        \
    }                                                                                     \
    CPN_SI T cpn_floor_divide_##S(T a, T b)                                               \
    {                                                                                     \
        W m;                                                                              \
        if (!b) return (T)((W)a / (W)b);                                                  \
        return (T)cpn_npy_divmod_##S((W)a, (W)b, &m);                                         \
    }                                                                                     \
    CPN_SI T cpn_remainder_##S(T a, T b)                                                  \
    {                                                                                     \
        W m;                                                                              \
        if (!b) return (T)fmod##LS((W)a, (W)b);                                           \
        cpn_npy_divmod_##S((W)a, (W)b, &m);                                                   \
        return (T)m;                                                                      \
    }
CPN_REAL_LIST(CPN_DEF_REAL)

/* The rest of NumPy's float ufuncs, from libm in the compute type W (float for float16, so a
 * float16 result is the float result rounded once, as NumPy's half loops do).  Formulas that
 * NumPy writes itself (logaddexp, heaviside, sign, deg2rad) are NumPy's. */
#define CPN_DEF_REAL_MATH(S, T, W, LS)                                                    \
    CPN_SI T cpn_fmod_##S(T a, T b) { return (T)fmod##LS((W)a, (W)b); }                   \
    CPN_SI T cpn_divmod_##S(T a, T b, T *r)                                               \
    {                                                                                     \
        *r = cpn_remainder_##S(a, b);                                                     \
        return cpn_floor_divide_##S(a, b);                                                \
    }                                                                                     \
    CPN_SI T cpn_fmax_##S(T a, T b) { return (a >= b || isnan((W)b)) ? a : b; }           \
    CPN_SI T cpn_fmin_##S(T a, T b) { return (a <= b || isnan((W)b)) ? a : b; }           \
    CPN_SI T cpn_heaviside_##S(T a, T b)                                                  \
    {                                                                                     \
        if (isnan((W)a)) return (T)NAN;                                                   \
        if (a == 0) return b;                                                             \
        return (T)(a > 0 ? 1 : 0);                                                        \
    }                                                                                     \
    CPN_SI T cpn_copysign_##S(T a, T b) { return (T)copysign##LS((W)a, (W)b); }           \
    CPN_SI T cpn_ldexp_##S(T a, int64_t n)                                                \
    {                                                                                     \
        int e = n > INT32_MAX ? INT32_MAX : n < INT32_MIN ? INT32_MIN : (int)n;           \
        return (T)ldexp##LS((W)a, e);                                                     \
    }                                                                                     \
    CPN_SI T cpn_hypot_##S(T a, T b) { return (T)hypot##LS((W)a, (W)b); }                 \
    CPN_SI T cpn_arctan2_##S(T a, T b) { return (T)atan2##LS((W)a, (W)b); }               \
    CPN_SI T cpn_logaddexp_##S(T a, T b)                                                  \
    {                                                                                     \
        W x = (W)a, y = (W)b;                                                             \
        if (x == y) return (T)(x + (W)CPN_LN2); /* infinities of one sign */              \
        W d = x - y;                                                                      \
        if (d > 0) return (T)(x + log1p##LS(exp##LS(-d)));                                \
        if (d <= 0) return (T)(y + log1p##LS(exp##LS(d)));                                \
        return (T)d;                                                                      \
    }                                                                                     \
    CPN_SI T cpn_logaddexp2_##S(T a, T b)                                                 \
    {                                                                                     \
        W x = (W)a, y = (W)b;                                                             \
        if (x == y) return (T)(x + 1);                                                    \
        W d = x - y;                                                                      \
        if (d > 0) return (T)(x + (W)CPN_LOG2E * log1p##LS(exp2##LS(-d)));                \
        if (d <= 0) return (T)(y + (W)CPN_LOG2E * log1p##LS(exp2##LS(d)));                \
        return (T)d;                                                                      \
    }                                                                                     \
    CPN_SI _Bool cpn_isnan_##S(T a) { return isnan((W)a); }                               \
    CPN_SI _Bool cpn_isinf_##S(T a) { return isinf((W)a); }                               \
    CPN_SI _Bool cpn_isfinite_##S(T a) { return isfinite((W)a); }                         \
    CPN_SI _Bool cpn_signbit_##S(T a) { return signbit((W)a) != 0; }                      \
    CPN_SI T cpn_fabs_##S(T a) { return (T)fabs##LS((W)a); }                              \
    CPN_SI T cpn_sign_##S(T a)                                                            \
    {                                                                                     \
        return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;                          \
    }                                                                                     \
    CPN_SI T cpn_conjugate_##S(T a) { return a; }                                         \
    CPN_SI T cpn_trunc_##S(T a) { return (T)trunc##LS((W)a); }                            \
    CPN_SI T cpn_rint_##S(T a) { return (T)rint##LS((W)a); }                              \
    CPN_SI T cpn_modf_##S(T a, T *ip)                                                     \
    {                                                                                     \
        W i, f = modf##LS((W)a, &i);                                                      \
        *ip = (T)i;                                                                       \
        return (T)f;                                                                      \
    }                                                                                     \
    /* zeros, infinities, NaN: glibc's (x + x, exponent 0), which CUDA leaves unspecified */ \
    CPN_SI T cpn_frexp_##S(T a, int32_t *e)                                               \
    {                                                                                     \
        int x = 0;                                                                        \
        if ((W)a == 0 || !isfinite((W)a)) {                                               \
            *e = 0;                                                                       \
            return (T)((W)a + (W)a);                                                      \
        }                                                                                 \
        W m = frexp##LS((W)a, &x);                                                        \
        *e = x;                                                                           \
        return (T)m;                                                                      \
    }                                                                                     \
    CPN_SI T cpn_deg2rad_##S(T a) { return (T)((W)a * ((W)CPN_PI / (W)180)); }            \
    CPN_SI T cpn_rad2deg_##S(T a) { return (T)((W)a * ((W)180 / (W)CPN_PI)); }            \
    CPN_SI T cpn_cbrt_##S(T a) { return (T)cbrt##LS((W)a); }                              \
    CPN_SI T cpn_exp2_##S(T a) { return (T)exp2##LS((W)a); }                              \
    CPN_SI T cpn_expm1_##S(T a) { return (T)expm1##LS((W)a); }                            \
    CPN_SI T cpn_log2_##S(T a) { return (T)log2##LS((W)a); }                              \
    CPN_SI T cpn_log10_##S(T a) { return (T)log10##LS((W)a); }                            \
    CPN_SI T cpn_log1p_##S(T a) { return (T)log1p##LS((W)a); }                            \
    CPN_SI T cpn_tan_##S(T a) { return (T)tan##LS((W)a); }                                \
    CPN_SI T cpn_arcsin_##S(T a) { return (T)asin##LS((W)a); }                            \
    CPN_SI T cpn_arccos_##S(T a) { return (T)acos##LS((W)a); }                            \
    CPN_SI T cpn_arctan_##S(T a) { return (T)atan##LS((W)a); }                            \
    CPN_SI T cpn_sinh_##S(T a) { return (T)sinh##LS((W)a); }                              \
    CPN_SI T cpn_cosh_##S(T a) { return (T)cosh##LS((W)a); }                              \
    CPN_SI T cpn_arcsinh_##S(T a) { return (T)asinh##LS((W)a); }                          \
    CPN_SI T cpn_arccosh_##S(T a) { return (T)acosh##LS((W)a); }                          \
    CPN_SI T cpn_arctanh_##S(T a) { return (T)atanh##LS((W)a); }
CPN_REAL_LIST(CPN_DEF_REAL_MATH)


/* spacing, NumPy's npy_spacing on the bits: the step from a to its neighbour away from zero
 * (+smallest subnormal at either zero), NaN at the infinities, a NaN passed through (quieted);
 * "overflow" at the largest finite values (the result is an infinity) and "underflow" for
 * subnormal inputs, as NumPy reports them.  Branch-free, so the loop vectorises: each lane
 * computes every candidate on a masked operand (1.0 where the candidate does not apply), so that
 * no lane raises a flag NumPy does not, and picks its answer with bit masks (GCC, honouring
 * -ftrapping-math, turns ?: around floating-point operations into branches, which stop the
 * vectoriser). */
#ifdef __CUDA_ARCH__   /* device code: the intrinsics */
#define CPN_BITS_f64(x) ((uint64_t)__double_as_longlong(x))
#define CPN_FROM_BITS_f64(u) __longlong_as_double((long long)(u))
#define CPN_BITS_f32(x) ((uint32_t)__float_as_int(x))
#define CPN_FROM_BITS_f32(u) __int_as_float((int)(u))
#else                  /* C, and the host pass of nvcc (C++): a union */
#define CPN_DEF_BITS(S, T, U)                                                             \
    CPN_SI U CPN_BITS_##S(T x)                                                            \
    {                                                                                     \
        union { T f; U u; } c;                                                            \
        c.f = x;                                                                          \
        return c.u;                                                                       \
    }                                                                                     \
    CPN_SI T CPN_FROM_BITS_##S(U u)                                                       \
    {                                                                                     \
        union { U u; T f; } c;                                                            \
        c.u = u;                                                                          \
        return c.f;                                                                       \
    }
CPN_DEF_BITS(f64, double, uint64_t)
CPN_DEF_BITS(f32, float, uint32_t)
#endif
/* the bits of t where mask m is all ones, of f where it is zero */
#define CPN_SEL(m, t, f) (((t) & (m)) | ((f) & ~(m)))
/* S, T, unsigned and signed integers of T's width, the magnitude mask, the largest finite
 * magnitude, the exponent mask (infinity), the smallest normal, half an ulp of 1 (the largest
 * finite value plus itself times it rounds to infinity; nothing smaller does) */
#define CPN_DEF_SPACING(S, T, U, I, MAG, MAXF, EXPM, MINN, HALF_EPS)                     \
    CPN_SI T cpn_spacing_##S(T a)                                                         \
    {                                                                                     \
        const U u = CPN_BITS_##S(a), one = CPN_BITS_##S((T)1);                            \
        const I m = (I)(u & MAG);                                                         \
        const U step = (U)0 - (U)((m > 0) & (m <= (I)MAXF));                              \
        const U big = (U)0 - (U)(m == (I)MAXF), sub = (U)0 - (U)((m > 0) & (m < (I)MINN)); \
        const U zero = (U)0 - (U)(m == 0), inf = (U)0 - (U)(m == (I)EXPM);               \
        const U isn = (U)0 - (U)(m > (I)EXPM);                                            \
        const U xb = CPN_SEL(step, u, one);                                               \
        const T x = CPN_FROM_BITS_##S(xb), o = CPN_FROM_BITS_##S(CPN_SEL(big, u, one));   \
        const T s = CPN_FROM_BITS_##S(CPN_SEL(sub, u, one));                              \
        const T q = CPN_FROM_BITS_##S(CPN_SEL(isn, u, (U)0));                             \
        const T r = CPN_FROM_BITS_##S(xb + 1) - x;                                        \
        const T ov = o + o * (T)HALF_EPS;       /* overflows only at the largest finite */ \
        const T un = r + s * (T)HALF_EPS * (T)0;    /* underflows only for a subnormal */ \
        const T qn = q - q;                                                               \
        U v = CPN_SEL(big, CPN_BITS_##S(ov), CPN_BITS_##S(r));                            \
        v = CPN_SEL(sub, CPN_BITS_##S(un), v);                                            \
        v = CPN_SEL(zero, (U)1, v);                                                       \
        v = CPN_SEL(inf, CPN_BITS_##S((T)NAN), v);                                        \
        return CPN_FROM_BITS_##S(CPN_SEL(isn, CPN_BITS_##S(qn), v));                      \
    }
CPN_DEF_SPACING(f64, double, uint64_t, int64_t, 0x7fffffffffffffffull, 0x7fefffffffffffffull,
                0x7ff0000000000000ull, 0x0010000000000000ull, 0x1p-53)
CPN_DEF_SPACING(f32, float, uint32_t, int32_t, 0x7fffffffu, 0x7f7fffffu, 0x7f800000u,
                0x00800000u, 0x1p-24f)
/* nextafter, glibc's (NumPy's npy_nextafter) on the bits, branch-free as spacing: b where a == b
 * (either zero for two zeros), a + b where either is NaN (glibc's sum gives b's NaN when both
 * are, quieted), the smallest subnormal with b's sign
 * from a zero, else a's bits stepped toward b; "overflow" when the step reaches an infinity,
 * "underflow" when it lands on a subnormal or zero, or starts from a zero. */
#define CPN_DEF_NEXTAFTER(S, T, U, I, MAG, EXPM, HALF_EPS)                                  \
    CPN_SI T cpn_nextafter_##S(T a, T b)                                                  \
    {                                                                                     \
        const U ua = CPN_BITS_##S(a), ub = CPN_BITS_##S(b), sgn = ~(U)MAG;                \
        const I ma = (I)(ua & MAG), mb = (I)(ub & MAG);                                   \
        const I ka = (ua & sgn) ? -ma : ma, kb = (ub & sgn) ? -mb : mb;   /* the order */   \
        const U nan_a = (U)0 - (U)(ma > (I)EXPM), nan_b = (U)0 - (U)(mb > (I)EXPM);       \
        const U isn = nan_a | nan_b;                                                      \
        const U eq = (U)0 - (U)(ka == kb), zero = (U)0 - (U)(ma == 0);                    \
        const int up = (ua & sgn) ? kb < ka : kb > ka;    /* away from zero */            \
        const U step = ua + (up ? (U)1 : (U)0 - (U)1);                                    \
        const U r = CPN_SEL(zero, (ub & sgn) | 1, step);                                  \
        const I mr = (I)(r & MAG);                                                        \
        const U ok = ~(isn | eq);                                                         \
        const U ovf = ok & ((U)0 - (U)((mr == (I)EXPM) & (ma != (I)EXPM)));                \
        const U unf = ok & ((U)0 - (U)((mr & (I)EXPM) == 0));                             \
        const U one = CPN_BITS_##S((T)1);                                                 \
        const T o = CPN_FROM_BITS_##S(CPN_SEL(ovf, ua, one));   /* a is the largest */     \
        const T s = CPN_FROM_BITS_##S(CPN_SEL(unf, (r & sgn) | 1, one));                  \
        const T rf = CPN_FROM_BITS_##S(CPN_SEL(unf, r, (U)0));                            \
        const T qa = CPN_FROM_BITS_##S(CPN_SEL(nan_a, ua, (U)0));                         \
        const T qb = CPN_FROM_BITS_##S(CPN_SEL(nan_b, ub, (U)0));                         \
        const T ov = o + o * (T)HALF_EPS;       /* overflows only where the step did */   \
        const T un = rf + s * (T)HALF_EPS * (T)0;  /* underflows only where the step did */ \
        const T na = qa + qa, nb = qb + qb;     /* glibc's a + b: b's NaN, else a's */    \
        U v = CPN_SEL(ovf, CPN_BITS_##S(ov), r);                                          \
        v = CPN_SEL(unf, CPN_BITS_##S(un), v);                                            \
        v = CPN_SEL(eq, ub, v);                                                           \
        v = CPN_SEL(nan_a, CPN_BITS_##S(na), v);                                          \
        return CPN_FROM_BITS_##S(CPN_SEL(nan_b, CPN_BITS_##S(nb), v));                    \
    }
CPN_DEF_NEXTAFTER(f64, double, uint64_t, int64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull,
                  0x1p-53)
CPN_DEF_NEXTAFTER(f32, float, uint32_t, int32_t, 0x7fffffffu, 0x7f800000u, 0x1p-24f)
CPN_SI double cpn_float_power_f64(double a, double b) { return cpn_power_f64(a, b); }

/* float16 nextafter and spacing work on the bits, as NumPy's npy_half_nextafter and
 * npy_half_spacing do (NumPy's half spacing is always positive: the gap above |a|, or below it
 * at a power of two for negative a).  The device has no status flags to raise. */
#ifdef __CUDACC__
#define CPN_FERAISE(e) ((void)0)
#else
#define CPN_FERAISE(e) feraiseexcept(e)
CPN_SI uint16_t cpn_half_bits(_Float16 h)
{
    union { _Float16 h; uint16_t u; } c = {.h = h};
    return c.u;
}
CPN_SI _Float16 cpn_half_from_bits(uint16_t u)
{
    union { uint16_t u; _Float16 h; } c = {.u = u};
    return c.h;
}
#endif
CPN_SI cpn_half cpn_nextafter_f16(cpn_half a, cpn_half b)
{
    uint16_t x = cpn_half_bits(a), y = cpn_half_bits(b);
    if (isnan((float)a) || isnan((float)b)) return cpn_half_from_bits(0x7e00u);
    if ((float)a == (float)b) return a;
    if ((x & 0x7fffu) == 0) return cpn_half_from_bits((uint16_t)((y & 0x8000u) + 1));
    if (!(x & 0x8000u)) return cpn_half_from_bits((uint16_t)((int16_t)x > (int16_t)y ? x - 1 : x + 1));
    if (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) return cpn_half_from_bits((uint16_t)(x - 1));
    return cpn_half_from_bits((uint16_t)(x + 1));
}
CPN_SI cpn_half cpn_spacing_f16(cpn_half a)
{
    uint16_t h = cpn_half_bits(a), e = h & 0x7c00u, sig = h & 0x03ffu, r;
    if (e == 0x7c00u) {
        r = 0x7e00u;
        CPN_FERAISE(FE_INVALID);   /* NumPy's npy_half_spacing reports these two */
    } else if (h == 0x7bffu) {
        r = 0x7c00u;
        CPN_FERAISE(FE_OVERFLOW);
    }
    else if ((h & 0x8000u) && sig == 0) {
        if (e > 0x2c00u) r = (uint16_t)(e - 0x2c00u);
        else if (e > 0x0400u) r = (uint16_t)(1u << ((e >> 10) - 2));
        else r = 0x0001u;
    } else if (e > 0x2800u) r = (uint16_t)(e - 0x2800u);
    else if (e > 0x0400u) r = (uint16_t)(1u << ((e >> 10) - 1));
    else r = 0x0001u;
    return cpn_half_from_bits(r);
}

/* ---- complex: lexicographic order, NaN-propagating maximum/minimum --------------------------
 * Multiply, divide (Smith's algorithm), square, power and absolute follow NumPy's loops exactly
 * (not C's Annex G forms), so results match NumPy bit for bit.  CPX(S) builds a value. */
#define CPN_DEF_CPLX(S, T, R, LS)                                                         \
    /* NumPy's order: a NaN in either imaginary part makes a real-part comparison false. */  \
    CPN_SI _Bool cpn_less_##S(T a, T b)                                                   \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a), br = CPN_RE_##S(b), bi = CPN_IM_##S(b); \
        return (ar < br && ai == ai && bi == bi) || (ar == br && ai < bi);                \
    }                                                                                     \
    CPN_SI _Bool cpn_less_equal_##S(T a, T b)                                             \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a), br = CPN_RE_##S(b), bi = CPN_IM_##S(b); \
        return (ar < br && ai == ai && bi == bi) || (ar == br && ai <= bi);               \
    }                                                                                     \
    CPN_SI _Bool cpn_greater_##S(T a, T b) { return cpn_less_##S(b, a); }                 \
    CPN_SI _Bool cpn_greater_equal_##S(T a, T b) { return cpn_less_equal_##S(b, a); }     \
    CPN_SI _Bool cpn_equal_##S(T a, T b)                                                  \
    {                                                                                     \
        return CPN_RE_##S(a) == CPN_RE_##S(b) && CPN_IM_##S(a) == CPN_IM_##S(b);          \
    }                                                                                     \
    CPN_SI _Bool cpn_not_equal_##S(T a, T b) { return !cpn_equal_##S(a, b); }             \
    CPN_SI _Bool cpn_cnan_##S(T a) { return isnan(CPN_RE_##S(a)) || isnan(CPN_IM_##S(a)); } \
    CPN_SI T cpn_maximum_##S(T a, T b)                                                    \
    {                                                                                     \
        return (cpn_greater_equal_##S(a, b) || cpn_cnan_##S(a)) ? a : b;                  \
    }                                                                                     \
    CPN_SI T cpn_minimum_##S(T a, T b)                                                    \
    {                                                                                     \
        return (cpn_less_equal_##S(a, b) || cpn_cnan_##S(a)) ? a : b;                     \
    }                                                                                     \
    CPN_SI T cpn_cmul_##S(T a, T b)                                                       \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a), br = CPN_RE_##S(b), bi = CPN_IM_##S(b); \
        return CPN_CPX_##S(ar * br - ai * bi, ar * bi + ai * br);                         \
    }                                                                                     \
    CPN_SI T cpn_divide_##S(T a, T b)                                                     \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a), br = CPN_RE_##S(b), bi = CPN_IM_##S(b); \
        R abr = fabs##LS(br), abi = fabs##LS(bi);                                         \
        if (abr >= abi) {                                                                 \
            if (abr == 0 && abi == 0) return CPN_CPX_##S(ar / abr, ai / abi);             \
            R rat = bi / br, scl = (R)1.0 / (br + bi * rat);                              \
            return CPN_CPX_##S((ar + ai * rat) * scl, (ai - ar * rat) * scl);             \
        }                                                                                 \
        R rat = br / bi, scl = (R)1.0 / (bi + br * rat);                                  \
        return CPN_CPX_##S((ar * rat + ai) * scl, (ai * rat - ar) * scl);                 \
    }                                                                                     \
    CPN_SI T cpn_square_##S(T a)                                                          \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a);                                         \
        return CPN_CPX_##S(ar * ar - ai * ai, ar * ai + ai * ar);                         \
    }                                                                                     \
    CPN_SI T cpn_reciprocal_##S(T a)                                                      \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a);                                         \
        if (fabs##LS(ai) <= fabs##LS(ar)) {                                               \
            R r = ai / ar, d = ar + ai * r;                                               \
            return CPN_CPX_##S((R)1 / d, -r / d);                                         \
        }                                                                                 \
        R r = ar / ai, d = ar * r + ai;                                                   \
        return CPN_CPX_##S(r / d, (R)-1 / d);                                             \
    }                                                                                     \
    /* max(|re|, |im|) * sqrt(fma(r, r, 1)), r = min/max: NumPy's vectorised hypot. */     \
    /* Without branches, so that loops vectorise: a NaN part reaches r (as small) or big,  \
     * two zeros give 0, an infinite part gives inf even beside a NaN (C99's hypot). */   \
    CPN_SI R cpn_absolute_##S(T a)                                                        \
    {                                                                                     \
        R re = fabs##LS(CPN_RE_##S(a)), im = fabs##LS(CPN_IM_##S(a));                     \
        R big = re > im ? re : im, small = re > im ? im : re;                             \
        R r = small / big;                                                                \
        R v = sqrt##LS(fma##LS(r, r, (R)1)) * big;                                        \
        v = big == 0 && small == 0 ? (R)0 : v;                                            \
        return re == (R)INFINITY || im == (R)INFINITY ? (R)INFINITY : v;                  \
    }                                                                                     \
    /* NumPy's npy_cpow: exact small integer powers by repeated squaring. */              \
    CPN_SI T cpn_power_##S(T a, T b)                                                      \
    {                                                                                     \
        R ar = CPN_RE_##S(a), ai = CPN_IM_##S(a), br = CPN_RE_##S(b), bi = CPN_IM_##S(b); \
        if (br == 0 && bi == 0) return CPN_CPX_##S(1, 0);                                 \
        if (ar == 0 && ai == 0) {                                                         \
            if (br > 0) return CPN_CPX_##S(0, 0);                                         \
            return CPN_CPX_##S(NAN, NAN);                                                 \
        }                                                                                 \
        if (bi == 0 && br == (R)(int64_t)br && br > -100 && br < 100) {                   \
            int64_t n = (int64_t)br;                                                      \
            if (n == 1) return a;                                                         \
            if (n == 2) return cpn_cmul_##S(a, a);                                        \
            if (n == 3) return cpn_cmul_##S(a, cpn_cmul_##S(a, a));                       \
            int64_t m = n < 0 ? -n : n, mask = 1;                                         \
            T acc = CPN_CPX_##S(1, 0), p = a;                                             \
            for (;;) {                                                                    \
                if (m & mask) acc = cpn_cmul_##S(acc, p);                                 \
                mask <<= 1;                                                               \
                if (m < mask) break;                                                      \
                p = cpn_cmul_##S(p, p);                                                   \
            }                                                                             \
            return n < 0 ? cpn_divide_##S(CPN_CPX_##S(1, 0), acc) : acc;                  \
        }                                                                                 \
        return CPN_CF_##S(pow)(a, b);                                                     \
    }                                                                                     \
    CPN_SI T cpn_sqrt_##S(T a) { return CPN_CF_##S(sqrt)(a); }                            \
    CPN_SI T cpn_exp_##S(T a) { return CPN_CF_##S(exp)(a); }                              \
    CPN_SI T cpn_log_##S(T a) { return CPN_CF_##S(log)(a); }                              \
    CPN_SI T cpn_sin_##S(T a) { return CPN_CF_##S(sin)(a); }                              \
    CPN_SI T cpn_cos_##S(T a) { return CPN_CF_##S(cos)(a); }                              \
    CPN_SI T cpn_tanh_##S(T a) { return CPN_CF_##S(tanh)(a); }
CPN_CPLX_LIST(CPN_DEF_CPLX)
#define CPN_DEF_CPLX_MUL(S, T, R, LS) \
    CPN_SI T cpn_multiply_##S(T a, T b) { return cpn_cmul_##S(a, b); }
CPN_CPLX_LIST(CPN_DEF_CPLX_MUL)

/* The rest of NumPy's complex loops: C99's complex functions where NumPy calls them (npy_c*),
 * NumPy's own formulas for exp2, expm1, log2, log10, log1p and sign. */
#define CPN_DEF_CPLX_MATH(S, T, R, LS)                                                    \
    CPN_SI T cpn_fmax_##S(T a, T b)                                                       \
    {                                                                                     \
        return (cpn_greater_equal_##S(a, b) || cpn_cnan_##S(b)) ? a : b;                  \
    }                                                                                     \
    CPN_SI T cpn_fmin_##S(T a, T b)                                                       \
    {                                                                                     \
        return (cpn_less_equal_##S(a, b) || cpn_cnan_##S(b)) ? a : b;                     \
    }                                                                                     \
    CPN_SI _Bool cpn_logical_and_##S(T a, T b) { return CPN_NZ_##S(a) && CPN_NZ_##S(b); } \
    CPN_SI _Bool cpn_logical_or_##S(T a, T b) { return CPN_NZ_##S(a) || CPN_NZ_##S(b); }  \
    CPN_SI _Bool cpn_logical_xor_##S(T a, T b) { return (CPN_NZ_##S(a)) != (CPN_NZ_##S(b)); } \
    CPN_SI _Bool cpn_logical_not_##S(T a) { return !CPN_NZ_##S(a); }                      \
    CPN_SI _Bool cpn_isnan_##S(T a) { return cpn_cnan_##S(a); }                           \
    CPN_SI _Bool cpn_isinf_##S(T a) { return isinf(CPN_RE_##S(a)) || isinf(CPN_IM_##S(a)); } \
    CPN_SI _Bool cpn_isfinite_##S(T a)                                                    \
    {                                                                                     \
        return isfinite(CPN_RE_##S(a)) && isfinite(CPN_IM_##S(a));                        \
    }                                                                                     \
    CPN_SI T cpn_conjugate_##S(T a) { return CPN_CPX_##S(CPN_RE_##S(a), -CPN_IM_##S(a)); } \
    CPN_SI T cpn_rint_##S(T a) { return CPN_CPX_##S(rint##LS(CPN_RE_##S(a)), rint##LS(CPN_IM_##S(a))); } \
    /* NumPy 2: a / |a|; NaN when |a| is NaN or both parts are infinite. */               \
    CPN_SI T cpn_sign_##S(T a)                                                            \
    {                                                                                     \
        R re = CPN_RE_##S(a), im = CPN_IM_##S(a), m = hypot##LS(re, im);                  \
        if (isnan(m)) return CPN_CPX_##S(NAN, NAN);                                       \
        if (isinf(m)) {                                                                   \
            if (isinf(re)) {                                                              \
                if (isinf(im)) return CPN_CPX_##S(NAN, NAN);                              \
                return CPN_CPX_##S(re > 0 ? 1 : -1, 0);                                   \
            }                                                                             \
            return CPN_CPX_##S(0, im > 0 ? 1 : -1);                                       \
        }                                                                                 \
        if (m == 0) return CPN_CPX_##S(0, 0);                                             \
        return CPN_CPX_##S(re / m, im / m);                                               \
    }                                                                                     \
    CPN_SI T cpn_exp2_##S(T a)                                                            \
    {                                                                                     \
        return CPN_CF_##S(exp)(CPN_CPX_##S(CPN_RE_##S(a) * (R)CPN_LN2, CPN_IM_##S(a) * (R)CPN_LN2)); \
    }                                                                                     \
    CPN_SI T cpn_expm1_##S(T a)                                                           \
    {                                                                                     \
        R re = CPN_RE_##S(a), im = CPN_IM_##S(a), h = sin##LS(im / 2);                    \
        return CPN_CPX_##S(expm1##LS(re) * cos##LS(im) - 2 * h * h, exp##LS(re) * sin##LS(im)); \
    }                                                                                     \
    CPN_SI T cpn_log2_##S(T a)                                                            \
    {                                                                                     \
        T l = CPN_CF_##S(log)(a);                                                         \
        return CPN_CPX_##S(CPN_RE_##S(l) * (R)CPN_LOG2E, CPN_IM_##S(l) * (R)CPN_LOG2E);   \
    }                                                                                     \
    CPN_SI T cpn_log10_##S(T a)                                                           \
    {                                                                                     \
        T l = CPN_CF_##S(log)(a);                                                         \
        return CPN_CPX_##S(CPN_RE_##S(l) * (R)CPN_LOG10E, CPN_IM_##S(l) * (R)CPN_LOG10E); \
    }                                                                                     \
    CPN_SI T cpn_log1p_##S(T a)                                                           \
    {                                                                                     \
        R re = CPN_RE_##S(a) + 1, im = CPN_IM_##S(a);                                     \
        return CPN_CPX_##S(log##LS(hypot##LS(re, im)), atan2##LS(im, re));                \
    }                                                                                     \
    CPN_SI T cpn_tan_##S(T a) { return CPN_CF_##S(tan)(a); }                              \
    CPN_SI T cpn_sinh_##S(T a) { return CPN_CF_##S(sinh)(a); }                            \
    CPN_SI T cpn_cosh_##S(T a) { return CPN_CF_##S(cosh)(a); }
CPN_CPLX_LIST(CPN_DEF_CPLX_MATH)
#define CPN_DEF_CPLX_ATRIG(S, T, R, LS)                                                   \
    CPN_SI T cpn_arcsin_##S(T a) { return CPN_CF_##S(asin)(a); }                          \
    CPN_SI T cpn_arccos_##S(T a) { return CPN_CF_##S(acos)(a); }                          \
    CPN_SI T cpn_arctan_##S(T a) { return CPN_CF_##S(atan)(a); }                          \
    CPN_SI T cpn_arcsinh_##S(T a) { return CPN_CF_##S(asinh)(a); }                        \
    CPN_SI T cpn_arccosh_##S(T a) { return CPN_CF_##S(acosh)(a); }                        \
    CPN_SI T cpn_arctanh_##S(T a) { return CPN_CF_##S(atanh)(a); }
CPN_CPLX_LIST(CPN_DEF_CPLX_ATRIG)
CPN_SI cpn_c128 cpn_float_power_c128(cpn_c128 a, cpn_c128 b)
{
    return cpn_power_c128(a, b);
}

#endif
