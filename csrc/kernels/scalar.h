/* scalar.h: the scalar meaning of every op in ops.def, written once.
 *
 * Each op is a family of `static inline` functions cpn_<op>_<suffix>(a[, b]) per dtype, usable from
 * C and from CUDA (CPN_HD is __host__ __device__ under nvcc), so the CPU tests check the arithmetic
 * the GPU runs.  Semantics are NumPy's: Python-style floor division and remainder (npy_divmod),
 * shifts past the width give 0 (or -1), integer division by zero gives 0, NaN propagates through
 * maximum/minimum, complex numbers order lexicographically.  Signed overflow wraps (-fwrapv).
 *
 * float16 and complex are host-only here (_Float16 and C99 complex); the CUDA backend brings
 * their device forms. */
#ifndef CPN_SCALAR_H
#define CPN_SCALAR_H

#ifndef __CUDACC_RTC__ /* NVRTC (cuda/codegen.c) has the math built in and its own int types */
#include <math.h>
#include <stdint.h>
#endif
#ifndef __CUDACC__
#include <complex.h>
#endif

#ifdef __CUDACC__
#define CPN_HD __host__ __device__
#define _Bool bool /* C's boolean type under C++ */
#else
#define CPN_HD
#endif
#define CPN_SI static inline CPN_HD

/* Type lists.  M(suffix, type) or, for math, M(suffix, type, compute type, libm suffix). */
#define CPN_SINT_LIST(M) M(i8, int8_t) M(i16, int16_t) M(i32, int32_t) M(i64, int64_t)
#define CPN_UINT_LIST(M) M(u8, uint8_t) M(u16, uint16_t) M(u32, uint32_t) M(u64, uint64_t)
#ifdef __CUDACC__
#define CPN_REAL_LIST(M) M(f32, float, float, f) M(f64, double, double, )
#define CPN_CPLX_LIST(M)
#else
#define CPN_REAL_LIST(M) M(f16, _Float16, float, f) M(f32, float, float, f) M(f64, double, double, )
#define CPN_CPLX_LIST(M) M(c64, float _Complex, float, f) M(c128, double _Complex, double, )
#endif

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
#define CPN_DEF_CPLX_ARITH(S, T, ...)                                  \
    CPN_SI T cpn_add_##S(T a, T b) { return a + b; }                   \
    CPN_SI T cpn_subtract_##S(T a, T b) { return a - b; }              \
    CPN_SI T cpn_negative_##S(T a) { return -a; }                      \
    CPN_SI T cpn_positive_##S(T a) { return +a; }
CPN_SINT_LIST(CPN_DEF_ARITH)
CPN_UINT_LIST(CPN_DEF_ARITH)
CPN_REAL_LIST(CPN_DEF_ARITH)
CPN_CPLX_LIST(CPN_DEF_CPLX_ARITH)

/* ---- integers -------------------------------------------------------------------------------- */
#define CPN_DEF_INT_COMMON(S, T)                                                          \
    CPN_SI T cpn_maximum_##S(T a, T b) { return a >= b ? a : b; }                         \
    CPN_SI T cpn_minimum_##S(T a, T b) { return a <= b ? a : b; }                         \
    CPN_SI T cpn_bitwise_and_##S(T a, T b) { return a & b; }                              \
    CPN_SI T cpn_bitwise_or_##S(T a, T b) { return a | b; }                               \
    CPN_SI T cpn_bitwise_xor_##S(T a, T b) { return a ^ b; }                              \
    CPN_SI T cpn_invert_##S(T a) { return (T)~a; }                                        \
    CPN_SI T cpn_floor_##S(T a) { return a; }                                             \
    CPN_SI T cpn_ceil_##S(T a) { return a; }                                              \
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
    }
#define CPN_DEF_UINT(S, T)                                                                \
    CPN_DEF_INT_COMMON(S, T)                                                              \
    CPN_SI T cpn_absolute_##S(T a) { return a; }                                          \
    CPN_SI T cpn_right_shift_##S(T a, T b)                                                \
    {                                                                                     \
        return (uint64_t)b < 8 * sizeof(T) ? (T)(a >> b) : (T)0;                          \
    }                                                                                     \
    CPN_SI T cpn_floor_divide_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }        \
    CPN_SI T cpn_remainder_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }
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
    CPN_SI W cpn_divmod_##S(W a, W b, W *mod)                                             \
    {                                                                                     \
        W m = fmod##LS(a, b);                                                             \
        if (!b) {                                                                         \
            *mod = m;                                                                     \
            return a / b;                                                                 \
        }                                                                                 \
        W div = (a - m) / b;                                                              \
        if (m) {                                                                          \
            if ((b < 0) != (m < 0)) {                                                     \
                m += b;                                                                   \
                div -= (W)1.0;                                                            \
            }                                                                             \
        } else {                                                                          \
            m = copysign##LS((W)0, b);                                                    \
        }                                                                                 \
        W fl;                                                                             \
        if (div) {                                                                        \
            fl = floor##LS(div);                                                          \
            if (div - fl > (W)0.5) fl += (W)1.0;                                          \
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
        return (T)cpn_divmod_##S((W)a, (W)b, &m);                                         \
    }                                                                                     \
    CPN_SI T cpn_remainder_##S(T a, T b)                                                  \
    {                                                                                     \
        W m;                                                                              \
        if (!b) return (T)fmod##LS((W)a, (W)b);                                           \
        cpn_divmod_##S((W)a, (W)b, &m);                                                   \
        return (T)m;                                                                      \
    }
CPN_REAL_LIST(CPN_DEF_REAL)

/* ---- complex: lexicographic order, NaN-propagating maximum/minimum --------------------------
 * Multiply, divide (Smith's algorithm), square, power and absolute follow NumPy's loops exactly
 * (not C's Annex G forms), so results match NumPy bit for bit.  CPX(S) builds a value. */
#ifndef __CUDACC__
#define CPN_CPX_c64(r, i) CMPLXF(r, i)
#define CPN_CPX_c128(r, i) CMPLX(r, i)
#define CPN_DEF_CPLX(S, T, R, LS)                                                         \
    /* NumPy's order: a NaN in either imaginary part makes a real-part comparison false. */  \
    CPN_SI _Bool cpn_less_##S(T a, T b)                                                   \
    {                                                                                     \
        R ar = creal##LS(a), ai = cimag##LS(a), br = creal##LS(b), bi = cimag##LS(b);     \
        return (ar < br && ai == ai && bi == bi) || (ar == br && ai < bi);                \
    }                                                                                     \
    CPN_SI _Bool cpn_less_equal_##S(T a, T b)                                             \
    {                                                                                     \
        R ar = creal##LS(a), ai = cimag##LS(a), br = creal##LS(b), bi = cimag##LS(b);     \
        return (ar < br && ai == ai && bi == bi) || (ar == br && ai <= bi);               \
    }                                                                                     \
    CPN_SI _Bool cpn_greater_##S(T a, T b) { return cpn_less_##S(b, a); }                 \
    CPN_SI _Bool cpn_greater_equal_##S(T a, T b) { return cpn_less_equal_##S(b, a); }     \
    CPN_SI _Bool cpn_equal_##S(T a, T b) { return a == b; }                               \
    CPN_SI _Bool cpn_not_equal_##S(T a, T b) { return a != b; }                           \
    CPN_SI _Bool cpn_cnan_##S(T a) { return isnan(creal##LS(a)) || isnan(cimag##LS(a)); } \
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
        R ar = creal##LS(a), ai = cimag##LS(a), br = creal##LS(b), bi = cimag##LS(b);     \
        return CPN_CPX_##S(ar * br - ai * bi, ar * bi + ai * br);                         \
    }                                                                                     \
    CPN_SI T cpn_divide_##S(T a, T b)                                                     \
    {                                                                                     \
        R ar = creal##LS(a), ai = cimag##LS(a), br = creal##LS(b), bi = cimag##LS(b);     \
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
        R ar = creal##LS(a), ai = cimag##LS(a);                                           \
        return CPN_CPX_##S(ar * ar - ai * ai, ar * ai + ai * ar);                         \
    }                                                                                     \
    CPN_SI T cpn_reciprocal_##S(T a)                                                      \
    {                                                                                     \
        R ar = creal##LS(a), ai = cimag##LS(a);                                           \
        if (fabs##LS(ai) <= fabs##LS(ar)) {                                               \
            R r = ai / ar, d = ar + ai * r;                                               \
            return CPN_CPX_##S((R)1 / d, -r / d);                                         \
        }                                                                                 \
        R r = ar / ai, d = ar * r + ai;                                                   \
        return CPN_CPX_##S(r / d, (R)-1 / d);                                             \
    }                                                                                     \
    /* max(|re|, |im|) * sqrt(fma(r, r, 1)), r = min/max: NumPy's vectorised hypot. */     \
    CPN_SI R cpn_absolute_##S(T a)                                                        \
    {                                                                                     \
        R re = fabs##LS(creal##LS(a)), im = fabs##LS(cimag##LS(a));                       \
        if (isinf(re) || isinf(im)) return (R)INFINITY;                                   \
        if (isnan(re) || isnan(im)) return (R)NAN;                                        \
        R big = re > im ? re : im, small = re > im ? im : re;                             \
        if (big == 0) return 0;                                                           \
        R r = small / big;                                                                \
        return sqrt##LS(fma##LS(r, r, (R)1)) * big;                                       \
    }                                                                                     \
    /* NumPy's npy_cpow: exact small integer powers by repeated squaring. */              \
    CPN_SI T cpn_power_##S(T a, T b)                                                      \
    {                                                                                     \
        R ar = creal##LS(a), ai = cimag##LS(a), br = creal##LS(b), bi = cimag##LS(b);     \
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
        return cpow##LS(a, b);                                                            \
    }                                                                                     \
    CPN_SI T cpn_sqrt_##S(T a) { return csqrt##LS(a); }                                   \
    CPN_SI T cpn_exp_##S(T a) { return cexp##LS(a); }                                     \
    CPN_SI T cpn_log_##S(T a) { return clog##LS(a); }                                     \
    CPN_SI T cpn_sin_##S(T a) { return csin##LS(a); }                                     \
    CPN_SI T cpn_cos_##S(T a) { return ccos##LS(a); }                                     \
    CPN_SI T cpn_tanh_##S(T a) { return ctanh##LS(a); }
CPN_CPLX_LIST(CPN_DEF_CPLX)
#define CPN_DEF_CPLX_MUL(S, T, R, LS) \
    CPN_SI T cpn_multiply_##S(T a, T b) { return cpn_cmul_##S(a, b); }
CPN_CPLX_LIST(CPN_DEF_CPLX_MUL)
#endif

#endif
