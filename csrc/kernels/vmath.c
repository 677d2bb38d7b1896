/* vmath.c: vectorized transcendentals on SLEEF's AVX2+FMA functions (and, for the functions and
 * dtypes of VMATH_MVEC on an AVX-512 CPU, glibc's libmvec), and the loop overrides that the
 * element-wise table hands out for contiguous float32/float64 operands.
 *
 * The file is compiled for the baseline ISA; every function that touches 256-bit vectors carries
 * __attribute__((target("avx2,fma"))) and is reached only after a runtime check of the CPU
 * (cpn_vmath_backend), so the library still runs on a CPU without AVX2.
 *
 * Accuracy: SLEEF's 1.0-ULP (u10) variants throughout (hypot: 0.5 ULP; sqrt: the correctly
 * rounded instruction), so results are within 2 ULP of NumPy's glibc-backed loops; logaddexp and
 * logaddexp2 are NumPy's formula over u10 exp/log1p (within 4 ULP).  The libmvec rows are
 * within 1-2 ULP of NumPy's results, most of their float32 rows NumPy's bits (NumPy uses SVML,
 * from which libmvec derives).
 *
 * Floating-point errors: SLEEF and libmvec raise spurious status flags and miss real ones, so
 * each override saves MXCSR, runs the kernel block by block, scans each block's results for values
 * NumPy reports (NaN from non-NaN inputs: invalid; infinity from finite inputs: divide by zero at
 * a pole, overflow elsewhere; a tiny result of exp/exp2/power: underflow), restores MXCSR and
 * ORs what it found into ctx->fpe.  The scan is one vectorised pass over a cache-hot block;
 * the per-element classification runs only on blocks holding such a value. */
#include "vmath.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "cpn_config.h"
#include "scalar.h"

#if CPN_HAVE_SLEEF && defined(__x86_64__) && defined(__GNUC__)
#define VM_BUILT 1
#include <immintrin.h>
/* sleef.h declares its 256-bit functions only when __AVX__ is defined: compile the vector part of
 * this file for AVX2+FMA (the pragma defines the macros); the dispatch at the end is baseline. */
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include <sleef.h>
#else
#define VM_BUILT 0
#endif

/* The ops of ops.def that use the vector kernels: VMATH(ENUM, fn, nin).  One row per op; a new
 * op with a kernel in CPN_VMATH_FUNCS needs only its row here. */
#define VMATH_HOOKS(VMATH)                                                                    \
    VMATH(SQRT, sqrt, 1) VMATH(EXP, exp, 1) VMATH(LOG, log, 1) VMATH(SIN, sin, 1)            \
    VMATH(COS, cos, 1) VMATH(TANH, tanh, 1) VMATH(POWER, power, 2) VMATH(EXP2, exp2, 1)      \
    VMATH(EXPM1, expm1, 1) VMATH(LOG2, log2, 1) VMATH(LOG10, log10, 1)                       \
    VMATH(LOG1P, log1p, 1) VMATH(TAN, tan, 1) VMATH(ARCSIN, arcsin, 1)                       \
    VMATH(ARCCOS, arccos, 1) VMATH(ARCTAN, arctan, 1) VMATH(SINH, sinh, 1)                   \
    VMATH(COSH, cosh, 1) VMATH(ARCSINH, arcsinh, 1) VMATH(ARCCOSH, arccosh, 1)               \
    VMATH(ARCTANH, arctanh, 1) VMATH(CBRT, cbrt, 1) VMATH(ARCTAN2, arctan2, 2)               \
    VMATH(HYPOT, hypot, 2) VMATH(LOGADDEXP, logaddexp, 2) VMATH(LOGADDEXP2, logaddexp2, 2)

#if VM_BUILT

#define VM_TARGET __attribute__((target("avx2,fma")))
#define VM512_TARGET __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl")))

/* ---- the raw kernels ------------------------------------------------------------------------ */

/* Full vectors, then the tail through a padded buffer (its padding is computed and dropped). */
#define KERNEL_1(FN, S, T, VT, W, LOAD, STORE, VFN)                                          \
    KERNEL_1_ON(VM_TARGET, sk_##FN##_##S, T, W, LOAD, STORE, VFN)
#define KERNEL_1_ON(TARGET, NAME, T, W, LOAD, STORE, VFN)                                     \
    static TARGET void NAME(const T *a, T *o, int64_t n)                                      \
    {                                                                                         \
        int64_t i = 0;                                                                        \
        for (; i + W <= n; i += W) STORE(o + i, VFN(LOAD(a + i)));                            \
        if (i < n) {                                                                          \
            T ta[W], to[W];                                                                   \
            for (int k = 0; k < W; k++) ta[k] = (T)0.5;                                       \
            memcpy(ta, a + i, (size_t)(n - i) * sizeof(T));                                   \
            STORE(to, VFN(LOAD(ta)));                                                         \
            memcpy(o + i, to, (size_t)(n - i) * sizeof(T));                                   \
        }                                                                                     \
    }

#define KERNEL_2(FN, S, T, VT, W, LOAD, STORE, VFN)                                          \
    KERNEL_2_ON(VM_TARGET, sk_##FN##_##S, T, W, LOAD, STORE, VFN)
#define KERNEL_2_ON(TARGET, NAME, T, W, LOAD, STORE, VFN)                                     \
    static TARGET void NAME(const T *a, const T *b, T *o, int64_t n)                          \
    {                                                                                         \
        int64_t i = 0;                                                                        \
        for (; i + W <= n; i += W) STORE(o + i, VFN(LOAD(a + i), LOAD(b + i)));               \
        if (i < n) {                                                                          \
            T ta[W], tb[W], to[W];                                                            \
            for (int k = 0; k < W; k++) ta[k] = tb[k] = (T)0.5;                               \
            memcpy(ta, a + i, (size_t)(n - i) * sizeof(T));                                   \
            memcpy(tb, b + i, (size_t)(n - i) * sizeof(T));                                   \
            STORE(to, VFN(LOAD(ta), LOAD(tb)));                                               \
            memcpy(o + i, to, (size_t)(n - i) * sizeof(T));                                   \
        }                                                                                     \
    }

/* SLEEF's domain is narrower than NumPy's for a few functions (sinh/cosh overflow early,
 * asinh/acosh/log1p lose huge arguments): lanes with |x| > LIM are recomputed by libm. */
#define KERNEL_1L(FN, S, T, VT, W, LOAD, STORE, VFN, ABSGT, LIM, SCALAR)                     \
    static VM_TARGET void sk_##FN##_##S(const T *a, T *o, int64_t n)                          \
    {                                                                                         \
        int64_t i = 0;                                                                        \
        for (; i + W <= n; i += W) {                                                          \
            VT x = LOAD(a + i);                                                               \
            STORE(o + i, VFN(x));                                                             \
            if (ABSGT(x, LIM))                                                                \
                for (int k = 0; k < W; k++)                                                   \
                    if (fabs((double)a[i + k]) > LIM) o[i + k] = SCALAR(a[i + k]);            \
        }                                                                                     \
        for (; i < n; i++) {                                                                  \
            T t[W], r[W];                                                                     \
            for (int k = 0; k < W; k++) t[k] = a[i];                                          \
            STORE(r, VFN(LOAD(t)));                                                           \
            o[i] = fabs((double)a[i]) > LIM ? SCALAR(a[i]) : r[0];                            \
        }                                                                                     \
    }
static VM_TARGET int absgt_d4(__m256d x, double lim)
{
    __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    return _mm256_movemask_pd(_mm256_cmp_pd(ax, _mm256_set1_pd(lim), _CMP_GT_OQ));
}
static VM_TARGET int absgt_f8(__m256 x, double lim)
{
    __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    return _mm256_movemask_ps(_mm256_cmp_ps(ax, _mm256_set1_ps((float)lim), _CMP_GT_OQ));
}
#define K1L(FN, VD, VF, LIMD, LIMF, SD, SF)                                                   \
    KERNEL_1L(FN, f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, VD, absgt_d4,   \
              LIMD, SD)                                                                       \
    KERNEL_1L(FN, f32, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, VF, absgt_f8,     \
              LIMF, SF)

#define K1(FN, VD, VF)                                                                        \
    KERNEL_1(FN, f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, VD)              \
    KERNEL_1(FN, f32, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, VF)
#define K2(FN, VD, VF)                                                                        \
    KERNEL_2(FN, f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, VD)              \
    KERNEL_2(FN, f32, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, VF)

/* NumPy's logaddexp: x == y gives x + log 2 (also for infinities); otherwise
 * max + log1p(exp(-|x - y|)); NaN propagates through the difference. */
static VM_TARGET __m256d logaddexp_d4(__m256d x, __m256d y)
{
    __m256d d = _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_sub_pd(x, y));
    __m256d mx = _mm256_max_pd(x, y);
    __m256d r = _mm256_add_pd(mx, Sleef_log1pd4_u10avx2(Sleef_expd4_u10avx2(_mm256_xor_pd(d, _mm256_set1_pd(-0.0)))));
    r = _mm256_blendv_pd(r, _mm256_add_pd(x, _mm256_set1_pd(0.693147180559945309417232121458176568)),
                         _mm256_cmp_pd(x, y, _CMP_EQ_OQ));
    /* max_pd returns y when x is NaN: keep NaN from the difference. */
    return _mm256_blendv_pd(r, _mm256_add_pd(x, y), _mm256_cmp_pd(x, y, _CMP_UNORD_Q));
}
static VM_TARGET __m256 logaddexp_f8(__m256 x, __m256 y)
{
    __m256 d = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(x, y));
    __m256 mx = _mm256_max_ps(x, y);
    __m256 r = _mm256_add_ps(mx, Sleef_log1pf8_u10avx2(Sleef_expf8_u10avx2(_mm256_xor_ps(d, _mm256_set1_ps(-0.0f)))));
    r = _mm256_blendv_ps(r, _mm256_add_ps(x, _mm256_set1_ps(0.693147180559945309417232121458176568f)),
                         _mm256_cmp_ps(x, y, _CMP_EQ_OQ));
    return _mm256_blendv_ps(r, _mm256_add_ps(x, y), _mm256_cmp_ps(x, y, _CMP_UNORD_Q));
}
/* NumPy's logaddexp2: x == y gives x + 1; otherwise max + log2(e) * log1p(exp2(-|x - y|)). */
static VM_TARGET __m256d logaddexp2_d4(__m256d x, __m256d y)
{
    __m256d d = _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_sub_pd(x, y));
    __m256d mx = _mm256_max_pd(x, y);
    __m256d l = Sleef_log1pd4_u10avx2(Sleef_exp2d4_u10avx2(_mm256_xor_pd(d, _mm256_set1_pd(-0.0))));
    __m256d r = _mm256_fmadd_pd(l, _mm256_set1_pd(1.442695040888963407359924681001892137), mx);
    r = _mm256_blendv_pd(r, _mm256_add_pd(x, _mm256_set1_pd(1.0)), _mm256_cmp_pd(x, y, _CMP_EQ_OQ));
    return _mm256_blendv_pd(r, _mm256_add_pd(x, y), _mm256_cmp_pd(x, y, _CMP_UNORD_Q));
}
static VM_TARGET __m256 logaddexp2_f8(__m256 x, __m256 y)
{
    __m256 d = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(x, y));
    __m256 mx = _mm256_max_ps(x, y);
    __m256 l = Sleef_log1pf8_u10avx2(Sleef_exp2f8_u10avx2(_mm256_xor_ps(d, _mm256_set1_ps(-0.0f))));
    __m256 r = _mm256_fmadd_ps(l, _mm256_set1_ps(1.442695040888963407359924681001892137f), mx);
    r = _mm256_blendv_ps(r, _mm256_add_ps(x, _mm256_set1_ps(1.0f)), _mm256_cmp_ps(x, y, _CMP_EQ_OQ));
    return _mm256_blendv_ps(r, _mm256_add_ps(x, y), _mm256_cmp_ps(x, y, _CMP_UNORD_Q));
}

K1(exp, Sleef_expd4_u10avx2, Sleef_expf8_u10avx2)
K1(exp2, Sleef_exp2d4_u10avx2, Sleef_exp2f8_u10avx2)
K1(expm1, Sleef_expm1d4_u10avx2, Sleef_expm1f8_u10avx2)
K1(log, Sleef_logd4_u10avx2, Sleef_logf8_u10avx2)
K1(log2, Sleef_log2d4_u10avx2, Sleef_log2f8_u10avx2)
K1(log10, Sleef_log10d4_u10avx2, Sleef_log10f8_u10avx2)
K1L(log1p, Sleef_log1pd4_u10avx2, Sleef_log1pf8_u10avx2, 1e306, 1e37, log1p, log1pf)
K1(sin, Sleef_sind4_u10avx2, Sleef_sinf8_u10avx2)
K1(cos, Sleef_cosd4_u10avx2, Sleef_cosf8_u10avx2)
K1(tan, Sleef_tand4_u10avx2, Sleef_tanf8_u10avx2)
K1(arcsin, Sleef_asind4_u10avx2, Sleef_asinf8_u10avx2)
K1(arccos, Sleef_acosd4_u10avx2, Sleef_acosf8_u10avx2)
K1(arctan, Sleef_atand4_u10avx2, Sleef_atanf8_u10avx2)
K1L(sinh, Sleef_sinhd4_u10avx2, Sleef_sinhf8_u10avx2, 709.0, 88.0, sinh, sinhf)
K1L(cosh, Sleef_coshd4_u10avx2, Sleef_coshf8_u10avx2, 709.0, 88.0, cosh, coshf)
K1(tanh, Sleef_tanhd4_u10avx2, Sleef_tanhf8_u10avx2)
K1L(arcsinh, Sleef_asinhd4_u10avx2, Sleef_asinhf8_u10avx2, 1e150, 1e18, asinh, asinhf)
K1L(arccosh, Sleef_acoshd4_u10avx2, Sleef_acoshf8_u10avx2, 1e150, 1e18, acosh, acoshf)
K1(arctanh, Sleef_atanhd4_u10avx2, Sleef_atanhf8_u10avx2)
K1(cbrt, Sleef_cbrtd4_u10avx2, Sleef_cbrtf8_u10avx2)
K1(sqrt, _mm256_sqrt_pd, _mm256_sqrt_ps)
K2(arctan2, Sleef_atan2d4_u10avx2, Sleef_atan2f8_u10avx2)
K2(hypot, Sleef_hypotd4_u05avx2, Sleef_hypotf8_u05avx2)
K2(logaddexp, logaddexp_d4, logaddexp_f8)
K2(logaddexp2, logaddexp2_d4, logaddexp2_f8)

/* power on AVX-512 where the CPU has it (vm_usable sets cpu_avx512): SLEEF's AVX2 pow is its
 * double-double algorithm four lanes at a time, 8.5 ns an element on this EPYC (NumPy's AVX-512
 * loop: 1.5 ns); the 512-bit build of the same algorithm takes 3.3 ns and gives the same bits
 * (checked over 4M float64 and 8M float32 random bit patterns, NaN and infinities included).
 * sleef.h declares its 512-bit functions only under __AVX512F__, which this file's pragma does
 * not define: the two prototypes are declared here, under that ISA. */
static int cpu_avx512 = -1;
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f")
__m512d Sleef_powd8_u10avx512f(__m512d, __m512d);
__m512 Sleef_powf16_u10avx512f(__m512, __m512);
#pragma GCC pop_options
KERNEL_2_ON(VM512_TARGET, sk_power512_f64, double, 8, _mm512_loadu_pd, _mm512_storeu_pd,
            Sleef_powd8_u10avx512f)
KERNEL_2_ON(VM512_TARGET, sk_power512_f32, float, 16, _mm512_loadu_ps, _mm512_storeu_ps,
            Sleef_powf16_u10avx512f)
K2(power256, Sleef_powd4_u10avx2, Sleef_powf8_u10avx2)
#define POWER(S, T)                                                                           \
    static void sk_power_##S(const T *a, const T *b, T *o, int64_t n)                         \
    {                                                                                         \
        (cpu_avx512 > 0 ? sk_power512_##S : sk_power256_##S)(a, b, o, n);                     \
    }
POWER(f64, double)
POWER(f32, float)

/* ---- glibc's libmvec (AVX-512) where it beats SLEEF ---------------------------------------------
 * libmvec is SVML-derived, and NumPy 2.x uses SVML on AVX-512 CPUs for most of these functions,
 * so the same algorithms give NumPy's bits (or nearly).  Measured on this EPYC on one thread
 * (docs/architecture.md, "Vectorized transcendentals": times, and differing elements and largest
 * ULP distance from NumPy over random ranges, random bit patterns and special values): a row
 * here is a function and dtype where libmvec's 8-/16-lane form is faster than SLEEF's kernel
 * and at least as close to NumPy (no more differing elements, no larger ULP distance), except
 * float64 power, where libmvec differs by 1 ULP from NumPy more often than SLEEF's double-double
 * pow but SLEEF returns inf (and so reports overflow) for DBL_MAX ** (1 - 2^-53): libmvec's
 * largest distance is 1 ULP against SLEEF's overflow, at 2.1 ns an element against 3.2.
 * Lanes outside libmvec's fast domain (NaN, infinities, huge or tiny arguments) go to glibc's
 * scalar function inside libmvec, so its results hold over the whole range without the libm
 * fix-ups the SLEEF kernels need.  Used only where the CPU has AVX-512 (cpu_avx512; the vector
 * ABI passes zmm registers).  VMATH_MVEC(X): X(name, dtype, nin, libm name).  random.c's normal
 * and exponential draws use the float64 log, cos and log1p kernels: a row for one of them changes
 * those streams' bits. */
#if CPN_HAVE_MVEC
#define VMATH_MVEC(X)                                                                         \
    X(tanh, f64, 1, tanh) X(arcsinh, f64, 1, asinh) X(arccosh, f64, 1, acosh)                 \
    X(power, f64, 2, pow)                                                                     \
    X(exp2, f32, 1, exp2) X(expm1, f32, 1, expm1) X(log2, f32, 1, log2)                       \
    X(log10, f32, 1, log10) X(log1p, f32, 1, log1p) X(tan, f32, 1, tan)                       \
    X(arcsin, f32, 1, asin) X(arccos, f32, 1, acos) X(arctan, f32, 1, atan)                   \
    X(sinh, f32, 1, sinh) X(cosh, f32, 1, cosh) X(tanh, f32, 1, tanh)                         \
    X(arcsinh, f32, 1, asinh) X(arccosh, f32, 1, acosh) X(cbrt, f32, 1, cbrt)                 \
    X(arctan2, f32, 2, atan2)

/* The vector-ABI names: _ZGVeN8v_<f> (8 doubles), _ZGVeN16v_<f>f (16 floats); vv: two args. */
#define MV_SYM_f64_1(F) _ZGVeN8v_##F
#define MV_SYM_f64_2(F) _ZGVeN8vv_##F
#define MV_SYM_f32_1(F) _ZGVeN16v_##F##f
#define MV_SYM_f32_2(F) _ZGVeN16vv_##F##f
#define MV_DECL_f64_1(F) __m512d MV_SYM_f64_1(F)(__m512d);
#define MV_DECL_f64_2(F) __m512d MV_SYM_f64_2(F)(__m512d, __m512d);
#define MV_DECL_f32_1(F) __m512 MV_SYM_f32_1(F)(__m512);
#define MV_DECL_f32_2(F) __m512 MV_SYM_f32_2(F)(__m512, __m512);
#define MV_DECL(FN, S, NIN, F) MV_DECL_##S##_##NIN(F)
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f")
VMATH_MVEC(MV_DECL)
#pragma GCC pop_options

/* per dtype: element type, lanes, load and store */
#define MV_VEC_f64 double, 8, _mm512_loadu_pd, _mm512_storeu_pd
#define MV_VEC_f32 float, 16, _mm512_loadu_ps, _mm512_storeu_ps
#define MV_KERNEL_ON(NIN, NAME, ...) KERNEL_##NIN##_ON(VM512_TARGET, NAME, __VA_ARGS__)
#define MV_KERNEL(FN, S, NIN, F) MV_KERNEL_ON(NIN, mk_##FN##_##S, MV_VEC_##S, MV_SYM_##S##_##NIN(F))
VMATH_MVEC(MV_KERNEL)
#endif

/* mvec_tbl[VMF_<name>][dtype]: the libmvec kernel of a function (dtype 0: float32, 1: float64),
 * or NULL (SLEEF's is used). */
enum vm_func {
#define VMF(FN, NIN) VMF_##FN,
    CPN_VMATH_FUNCS(VMF)
#undef VMF
    VMF_COUNT
};
#define VM_DT_f32 0
#define VM_DT_f64 1
#if CPN_HAVE_MVEC
static void (*const mvec_tbl[VMF_COUNT][2])(void) = {
#define MV_ROW(FN, S, NIN, F) [VMF_##FN][VM_DT_##S] = (void (*)(void))mk_##FN##_##S,
    VMATH_MVEC(MV_ROW)
#undef MV_ROW
};
#else
static void (*const mvec_tbl[VMF_COUNT][2])(void);
#endif

/* The public raw kernels: libmvec's where it has a row and the CPU has AVX-512, else SLEEF's. */
#define PUBLIC_1(FN, S, T)                                                                    \
    void cpn_vmath_##FN##_##S(const T *a, T *o, int64_t n)                                    \
    {                                                                                         \
        void (*m)(void) = cpu_avx512 > 0 ? mvec_tbl[VMF_##FN][VM_DT_##S] : NULL;              \
        if (m) ((void (*)(const T *, T *, int64_t))m)(a, o, n);                               \
        else sk_##FN##_##S(a, o, n);                                                          \
    }
#define PUBLIC_2(FN, S, T)                                                                    \
    void cpn_vmath_##FN##_##S(const T *a, const T *b, T *o, int64_t n)                        \
    {                                                                                         \
        void (*m)(void) = cpu_avx512 > 0 ? mvec_tbl[VMF_##FN][VM_DT_##S] : NULL;              \
        if (m) ((void (*)(const T *, const T *, T *, int64_t))m)(a, b, o, n);                 \
        else sk_##FN##_##S(a, b, o, n);                                                       \
    }
#define PUBLIC(FN, NIN) PUBLIC_##NIN(FN, f64, double) PUBLIC_##NIN(FN, f32, float)
CPN_VMATH_FUNCS(PUBLIC)
#undef PUBLIC

/* ---- finding NumPy's floating-point errors in results --------------------------------------- */

/* How a function's infinities and tiny results are classified. */
enum vm_class {
    VMC_PLAIN,      /* infinity from finite inputs: overflow */
    VMC_POLE0,      /* log, log2, log10: infinity at a == 0 is a division by zero */
    VMC_POLEM1,     /* log1p: at a == -1 */
    VMC_POLE1,      /* arctanh: at |a| == 1 */
    VMC_EXP,        /* exp, exp2: a tiny result underflowed */
    VMC_POW,        /* power: pole at a == 0, a zero result from a != 0 underflowed */
    VMC_ATAN2,      /* arctan2: a zero result from a != 0 underflowed */
};
#define VMC_exp VMC_EXP
#define VMC_exp2 VMC_EXP
#define VMC_expm1 VMC_PLAIN
#define VMC_log VMC_POLE0
#define VMC_log2 VMC_POLE0
#define VMC_log10 VMC_POLE0
#define VMC_log1p VMC_POLEM1
#define VMC_sin VMC_PLAIN
#define VMC_cos VMC_PLAIN
#define VMC_tan VMC_PLAIN
#define VMC_arcsin VMC_PLAIN
#define VMC_arccos VMC_PLAIN
#define VMC_arctan VMC_PLAIN
#define VMC_sinh VMC_PLAIN
#define VMC_cosh VMC_PLAIN
#define VMC_tanh VMC_PLAIN
#define VMC_arcsinh VMC_PLAIN
#define VMC_arccosh VMC_PLAIN
#define VMC_arctanh VMC_POLE1
#define VMC_cbrt VMC_PLAIN
#define VMC_sqrt VMC_PLAIN
#define VMC_arctan2 VMC_ATAN2
#define VMC_hypot VMC_PLAIN
#define VMC_logaddexp VMC_PLAIN
#define VMC_logaddexp2 VMC_PLAIN
#define VMC_power VMC_POW

#define BLOCK 512

/* A block is inspected element by element only when it holds a NaN, an infinity, a zero or a
 * subnormal (glibc, hence NumPy, reports underflow for subnormal results of every function). */
#define SCAN(S, T, TMIN, TMAX)                                                                \
    static VM_TARGET unsigned scan_##S(int cls, const T *a, const T *b, const T *o, int64_t n) \
    {                                                                                         \
        int odd = 0;                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                     \
            T r = o[i] < 0 ? -o[i] : o[i];                                                    \
            odd |= !(r <= TMAX) | (r < TMIN);                                                 \
        }                                                                                     \
        if (!odd) return 0;                                                                   \
        unsigned f = 0;                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                     \
            T x = a[i], y = b ? b[i] : (T)0, r = o[i];                                        \
            int innan = isnan(x) || isnan(y), infin = isfinite(x) && isfinite(y);             \
            if (isnan(r)) {                                                                   \
                if (!innan) f |= CPN_FPE_INVALID;                                             \
            } else if (!infin) {   /* power's pole at 0 ** -inf reports as 0 ** -1 does */   \
                if (cls == VMC_POW && x == 0 && y < 0) f |= CPN_FPE_DIVIDE;                    \
                continue;                                                                     \
            } else if (isinf(r)) {                                                            \
                int pole = (cls == VMC_POLE0 && x == 0) || (cls == VMC_POLEM1 && x == -1) ||  \
                           (cls == VMC_POLE1 && (x == 1 || x == -1)) ||                       \
                           (cls == VMC_POW && x == 0);                                        \
                f |= pole ? CPN_FPE_DIVIDE : CPN_FPE_OVERFLOW;                                \
            } else if (r != 0 ? (r < 0 ? -r : r) < TMIN                                       \
                              : cls == VMC_EXP || ((cls == VMC_POW || cls == VMC_ATAN2) && x != 0)) { \
                f |= CPN_FPE_UNDERFLOW;                                                       \
            }                                                                                 \
        }                                                                                     \
        return f;                                                                             \
    }
SCAN(f64, double, DBL_MIN, DBL_MAX)
SCAN(f32, float, FLT_MIN, FLT_MAX)

static int overlaps(const void *a, const void *o, size_t bytes)
{
    const char *x = a, *y = o;
    return x < y + bytes && y < x + bytes;
}

/* Run a unary kernel over contiguous a -> o in blocks, scanning each block's results. */
#define RUN(S, T)                                                                             \
    static VM_TARGET void run1_##S(void (*k)(const T *, T *, int64_t), int cls, const T *a,    \
                                   T *o, int64_t n, struct cpn_kctx *ctx)                     \
    {                                                                                         \
        unsigned csr = _mm_getcsr(), f = 0;                                                   \
        T ta[BLOCK];                                                                          \
        for (int64_t i = 0; i < n; i += BLOCK) {                                              \
            int64_t m = n - i < BLOCK ? n - i : BLOCK;                                        \
            const T *pa = a + i;                                                              \
            if (overlaps(pa, o + i, (size_t)m * sizeof(T))) pa = memcpy(ta, pa, (size_t)m * sizeof(T)); \
            k(pa, o + i, m);                                                                  \
            f |= scan_##S(cls, pa, NULL, o + i, m);                                           \
        }                                                                                     \
        _mm_setcsr(csr);                                                                      \
        if (f) __atomic_fetch_or(&ctx->fpe, f, __ATOMIC_RELAXED);                              \
    }                                                                                         \
    /* Binary: an operand of stride 0 (a broadcast scalar) is expanded into a block once. */  \
    static VM_TARGET void run2_##S(void (*k)(const T *, const T *, T *, int64_t), int cls,     \
                                   const T *a, int64_t sa, const T *b, int64_t sb, T *o,      \
                                   int64_t n, struct cpn_kctx *ctx)                           \
    {                                                                                         \
        unsigned csr = _mm_getcsr(), f = 0;                                                   \
        T ta[BLOCK], tb[BLOCK];                                                               \
        if (!sa) for (int j = 0; j < BLOCK; j++) ta[j] = a[0];                                \
        if (!sb) for (int j = 0; j < BLOCK; j++) tb[j] = b[0];                                \
        for (int64_t i = 0; i < n; i += BLOCK) {                                              \
            int64_t m = n - i < BLOCK ? n - i : BLOCK;                                        \
            size_t bytes = (size_t)m * sizeof(T);                                             \
            const T *pa = sa ? a + i : ta, *pb = sb ? b + i : tb;                             \
            if (sa && overlaps(pa, o + i, bytes)) pa = memcpy(ta, pa, bytes);                 \
            if (sb && overlaps(pb, o + i, bytes)) pb = memcpy(tb, pb, bytes);                 \
            k(pa, pb, o + i, m);                                                              \
            f |= scan_##S(cls, pa, pb, o + i, m);                                             \
        }                                                                                     \
        _mm_setcsr(csr);                                                                      \
        if (f) __atomic_fetch_or(&ctx->fpe, f, __ATOMIC_RELAXED);                              \
    }
RUN(f64, double)
RUN(f32, float)

/* ---- the loop overrides --------------------------------------------------------------------- */

#define WRAP_1(E, FN, S, T, DT)                                                               \
    static void vloop_##FN##_##S(char **args, const int64_t *st, int64_t n,                   \
                                 struct cpn_kctx *ctx)                                        \
    {                                                                                         \
        if (st[0] != sizeof(T) || st[1] != sizeof(T)) {                                       \
            cpn_kernel_elementwise_scalar(CPN_OP_##E, DT)(args, st, n, ctx);                  \
            return;                                                                           \
        }                                                                                     \
        run1_##S(cpn_vmath_##FN##_##S, VMC_##FN, (const T *)args[0], (T *)args[1], n, ctx);    \
    }
#define WRAP_2(E, FN, S, T, DT)                                                               \
    static void vloop_##FN##_##S(char **args, const int64_t *st, int64_t n,                   \
                                 struct cpn_kctx *ctx)                                        \
    {                                                                                         \
        if ((st[0] != sizeof(T) && st[0] != 0) || (st[1] != sizeof(T) && st[1] != 0) ||      \
            st[2] != sizeof(T)) {                                                             \
            cpn_kernel_elementwise_scalar(CPN_OP_##E, DT)(args, st, n, ctx);                  \
            return;                                                                           \
        }                                                                                     \
        run2_##S(cpn_vmath_##FN##_##S, VMC_##FN, (const T *)args[0], st[0],                   \
                 (const T *)args[1], st[1], (T *)args[2], n, ctx);                            \
    }
#define WRAP(E, FN, NIN)                                                                      \
    WRAP_##NIN(E, FN, f64, double, CPN_DTYPE_FLOAT64)                                         \
    WRAP_##NIN(E, FN, f32, float, CPN_DTYPE_FLOAT32)
VMATH_HOOKS(WRAP)
#undef WRAP

/* ---- comparisons -----------------------------------------------------------------------------
 * Memory-bound, but the compiler's packing of double masks into bools costs more than the loads:
 * compare 4 (8) lanes, take the sign-bit mask and write its bits as bytes through a table.  Quiet
 * predicates (NaN: false, != true) as C's operators; comparisons report no errors (fperr.c). */
#define VMATH_CMP(X)                                                                          \
    X(EQUAL, equal, ==, _CMP_EQ_OQ) X(NOT_EQUAL, not_equal, !=, _CMP_NEQ_UQ)                  \
    X(LESS, less, <, _CMP_LT_OQ) X(LESS_EQUAL, less_equal, <=, _CMP_LE_OQ)                    \
    X(GREATER, greater, >, _CMP_GT_OQ) X(GREATER_EQUAL, greater_equal, >=, _CMP_GE_OQ)

static const uint32_t mask_bytes[16] = {
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00010101,
    0x01000000, 0x01000001, 0x01000100, 0x01000101, 0x01010000, 0x01010001, 0x01010100, 0x01010101,
};

/* SA, SB: 1 when the operand is an array, 0 when it is a broadcast scalar (compile-time). */
#define CMP_BODY(FN, OPC, PRED, SA, SB)                                                       \
    do {                                                                                      \
        int64_t i = 0;                                                                        \
        if (f64) {                                                                            \
            const double *a = pa, *b = pb;                                                    \
            __m256d ca = _mm256_set1_pd(a[0]), cb = _mm256_set1_pd(b[0]);                     \
            for (; i + 4 <= n; i += 4) {                                                      \
                __m256d x = SA ? _mm256_loadu_pd(a + i) : ca, y = SB ? _mm256_loadu_pd(b + i) : cb; \
                uint32_t w = mask_bytes[_mm256_movemask_pd(_mm256_cmp_pd(x, y, PRED))];       \
                memcpy(o + i, &w, 4);                                                         \
            }                                                                                 \
            for (; i < n; i++) o[i] = a[SA ? i : 0] OPC b[SB ? i : 0];                        \
        } else {                                                                              \
            const float *a = pa, *b = pb;                                                     \
            __m256 ca = _mm256_set1_ps(a[0]), cb = _mm256_set1_ps(b[0]);                      \
            for (; i + 8 <= n; i += 8) {                                                      \
                __m256 x = SA ? _mm256_loadu_ps(a + i) : ca, y = SB ? _mm256_loadu_ps(b + i) : cb; \
                int m = _mm256_movemask_ps(_mm256_cmp_ps(x, y, PRED));                        \
                uint32_t w[2] = {mask_bytes[m & 15], mask_bytes[m >> 4]};                     \
                memcpy(o + i, w, 8);                                                          \
            }                                                                                 \
            for (; i < n; i++) o[i] = a[SA ? i : 0] OPC b[SB ? i : 0];                        \
        }                                                                                     \
    } while (0)

/* Where the CPU has AVX-512 (BW, VL), 32 lanes a round: four (two) compares into mask registers,
 * their 32 bits written as 32 bytes by one masked store.  Reading 10^7 float64 against a scalar
 * on one thread: 5.9 ms against 6.7-7.0 ms for the AVX2 loop (its table lookups and 4-byte
 * stores), the same as NumPy's own AVX-512 loop: the compare of `a[a > t] = 0` is most of its
 * time. */
#define CMP512_BODY(FN, OPC, PRED, SA, SB)                                                    \
    do {                                                                                      \
        int64_t i = 0;                                                                        \
        const __m256i one = _mm256_set1_epi8(1);                                              \
        if (f64) {                                                                            \
            const double *a = pa, *b = pb;                                                    \
            __m512d ca = _mm512_set1_pd(a[0]), cb = _mm512_set1_pd(b[0]);                     \
            for (; i + 32 <= n; i += 32) {                                                    \
                uint32_t m = 0;                                                               \
                for (int q = 0; q < 4; q++) {                                                 \
                    __m512d x = SA ? _mm512_loadu_pd(a + i + 8 * q) : ca;                     \
                    __m512d y = SB ? _mm512_loadu_pd(b + i + 8 * q) : cb;                     \
                    m |= (uint32_t)_mm512_cmp_pd_mask(x, y, PRED) << (8 * q);                 \
                }                                                                             \
                _mm256_storeu_si256((__m256i *)(o + i), _mm256_maskz_mov_epi8(m, one));       \
            }                                                                                 \
            for (; i < n; i++) o[i] = a[SA ? i : 0] OPC b[SB ? i : 0];                        \
        } else {                                                                              \
            const float *a = pa, *b = pb;                                                     \
            __m512 ca = _mm512_set1_ps(a[0]), cb = _mm512_set1_ps(b[0]);                      \
            for (; i + 32 <= n; i += 32) {                                                    \
                uint32_t m = 0;                                                               \
                for (int q = 0; q < 2; q++) {                                                 \
                    __m512 x = SA ? _mm512_loadu_ps(a + i + 16 * q) : ca;                     \
                    __m512 y = SB ? _mm512_loadu_ps(b + i + 16 * q) : cb;                     \
                    m |= (uint32_t)_mm512_cmp_ps_mask(x, y, PRED) << (16 * q);                \
                }                                                                             \
                _mm256_storeu_si256((__m256i *)(o + i), _mm256_maskz_mov_epi8(m, one));       \
            }                                                                                 \
            for (; i < n; i++) o[i] = a[SA ? i : 0] OPC b[SB ? i : 0];                        \
        }                                                                                     \
    } while (0)

/* One comparison function of the operands' kinds (array or broadcast scalar), from BODY. */
#define CMP_FUNC(NAME, TARGET, BODY, FN, OPC, PRED)                                           \
    static TARGET void NAME(int f64, const void *pa, int sa, const void *pb, int sb, _Bool *o, \
                            int64_t n)                                                        \
    {                                                                                         \
        if (sa && sb) BODY(FN, OPC, PRED, 1, 1);                                              \
        else if (sa) BODY(FN, OPC, PRED, 1, 0);                                               \
        else if (sb) BODY(FN, OPC, PRED, 0, 1);                                               \
        else BODY(FN, OPC, PRED, 0, 0);                                                       \
    }

#define CMP_KERNEL(E, FN, OPC, PRED)                                                          \
    CMP_FUNC(cmp_##FN, VM_TARGET, CMP_BODY, FN, OPC, PRED)                                    \
    CMP_FUNC(cmp512_##FN, VM512_TARGET, CMP512_BODY, FN, OPC, PRED)                           \
    static void cloop_##FN(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx,    \
                           int f64)                                                           \
    {                                                                                         \
        int64_t w = f64 ? 8 : 4;                                                              \
        if ((st[0] != w && st[0] != 0) || (st[1] != w && st[1] != 0) || st[2] != 1) {         \
            enum cpn_dtype dt = f64 ? CPN_DTYPE_FLOAT64 : CPN_DTYPE_FLOAT32;                  \
            cpn_kernel_elementwise_scalar(CPN_OP_##E, dt)(args, st, n, ctx);                  \
            return;                                                                           \
        }                                                                                     \
        (cpu_avx512 > 0 ? cmp512_##FN : cmp_##FN)(f64, args[0], st[0] != 0, args[1], st[1] != 0, \
                                                  (_Bool *)args[2], n);                       \
    }                                                                                         \
    static void cloop_##FN##_f64(char **args, const int64_t *st, int64_t n,                   \
                                 struct cpn_kctx *ctx)                                        \
    {                                                                                         \
        cloop_##FN(args, st, n, ctx, 1);                                                      \
    }                                                                                         \
    static void cloop_##FN##_f32(char **args, const int64_t *st, int64_t n,                   \
                                 struct cpn_kctx *ctx)                                        \
    {                                                                                         \
        cloop_##FN(args, st, n, ctx, 0);                                                      \
    }
VMATH_CMP(CMP_KERNEL)

/* ---- float64 remainder by a scalar -----------------------------------------------------------
 * NumPy's remainder (npy_divmod) starts from fmod, which libm computes bit by bit: 40 ns an
 * element for `x % 1.0`.  For a finite divisor b of moderate size and |a| < 2^52 |b|, fmod(a, b)
 * is a - q b with q = trunc(a / b): the rounded quotient is q or (rounding up across an integer)
 * one too far from zero, which the sign of the exactly computed a - q b (one FMA: the true value
 * is representable) reveals, and one more FMA corrects.  |a| < |b| needs no division (fmod is
 * a), which also keeps a / b from underflowing.  NumPy's adjustment follows (a zero takes b's
 * sign, a remainder of the other sign than b gets b added), so results are the same bits as the
 * scalar loop; the arithmetic done raises no status flag that loop would not (the quotient lies
 * in [1, 2^52)).  Other elements (NaN, infinities, |a| >= 2^52 |b|) take the scalar function. */
static VM_TARGET void rem_f64_by_scalar(const double *a, double b, double *o, int64_t n)
{
    const __m256d vb = _mm256_set1_pd(b), absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    const __m256d vab = _mm256_set1_pd(fabs(b)), lim = _mm256_set1_pd(fabs(b) * 0x1p52);
    const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    const __m256d bneg = _mm256_cmp_pd(vb, zero, _CMP_LT_OQ);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = _mm256_loadu_pd(a + i), ax = _mm256_and_pd(x, absmask);
        __m256d small = _mm256_cmp_pd(ax, vab, _CMP_LT_OQ);                  /* fmod is x */
        __m256d fast = _mm256_andnot_pd(small, _mm256_cmp_pd(ax, lim, _CMP_LT_OQ));
        __m256d ok = _mm256_or_pd(small, fast);                               /* NaN: neither */
        __m256d xs = _mm256_blendv_pd(vb, x, fast);                           /* b elsewhere */
        __m256d q = _mm256_round_pd(_mm256_div_pd(xs, vb), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m256d r = _mm256_fnmadd_pd(q, vb, xs);
        __m256d xneg = _mm256_cmp_pd(xs, zero, _CMP_LT_OQ), rneg = _mm256_cmp_pd(r, zero, _CMP_LT_OQ);
        __m256d over = _mm256_and_pd(_mm256_xor_pd(rneg, xneg),               /* q one too far */
                                     _mm256_cmp_pd(r, zero, _CMP_NEQ_OQ));
        __m256d q1 = _mm256_sub_pd(q, _mm256_or_pd(one, _mm256_and_pd(q, _mm256_set1_pd(-0.0))));
        r = _mm256_blendv_pd(r, _mm256_fnmadd_pd(q1, vb, xs), over);
        r = _mm256_blendv_pd(_mm256_blendv_pd(zero, r, fast), x, small);      /* fmod(a, b) */
        __m256d rz = _mm256_cmp_pd(r, zero, _CMP_EQ_OQ);
        __m256d rn = _mm256_cmp_pd(r, zero, _CMP_LT_OQ);
        __m256d add = _mm256_andnot_pd(rz, _mm256_xor_pd(rn, bneg));          /* signs differ */
        __m256d m = _mm256_blendv_pd(r, _mm256_add_pd(r, vb), add);
        m = _mm256_blendv_pd(m, _mm256_and_pd(vb, _mm256_set1_pd(-0.0)), rz);  /* copysign(0, b) */
        int okm = _mm256_movemask_pd(ok);
        if (okm != 15) {   /* (a may be o: keep the inputs of the lanes left to the scalar path) */
            double xa[4];
            _mm256_storeu_pd(xa, x);
            _mm256_storeu_pd(o + i, m);
            for (int j = 0; j < 4; j++)
                if (!(okm >> j & 1)) o[i + j] = cpn_remainder_f64(xa[j], b);
        } else {
            _mm256_storeu_pd(o + i, m);
        }
    }
    for (; i < n; i++) o[i] = cpn_remainder_f64(a[i], b);
}

static void rloop_remainder_f64(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx)
{
    double b = *(const double *)args[1];
    double ab = fabs(b);
    if (st[0] != sizeof(double) || st[1] != 0 || st[2] != sizeof(double) || !(ab >= 0x1p-900) ||
        !(ab <= 0x1p900) || (args[0] != args[2] && args[2] > args[0] - 32 && args[2] < args[0] + n * 8)) {
        cpn_kernel_elementwise_scalar(CPN_OP_REMAINDER, CPN_DTYPE_FLOAT64)(args, st, n, ctx);
        return;
    }
    rem_f64_by_scalar((const double *)args[0], b, (double *)args[2], n);
}

/* signbit: the sign-bit mask of 4 (8) lanes is the answer itself, written as bytes the same way
 * (NaNs included: their sign bit, as NumPy's).  Reports nothing. */
static VM_TARGET void signbit_kernel(int f64, const void *pa, _Bool *o, int64_t n)
{
    int64_t i = 0;
    if (f64) {
        const double *a = pa;
        for (; i + 4 <= n; i += 4) {
            uint32_t w = mask_bytes[_mm256_movemask_pd(_mm256_loadu_pd(a + i))];
            memcpy(o + i, &w, 4);
        }
        for (; i < n; i++) o[i] = signbit(a[i]) != 0;
    } else {
        const float *a = pa;
        for (; i + 8 <= n; i += 8) {
            int m = _mm256_movemask_ps(_mm256_loadu_ps(a + i));
            uint32_t w[2] = {mask_bytes[m & 15], mask_bytes[m >> 4]};
            memcpy(o + i, w, 8);
        }
        for (; i < n; i++) o[i] = signbit(a[i]) != 0;
    }
}
static void sloop_signbit(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx, int f64)
{
    if (st[0] != (f64 ? 8 : 4) || st[1] != 1) {
        enum cpn_dtype dt = f64 ? CPN_DTYPE_FLOAT64 : CPN_DTYPE_FLOAT32;
        cpn_kernel_elementwise_scalar(CPN_OP_SIGNBIT, dt)(args, st, n, ctx);
        return;
    }
    signbit_kernel(f64, args[0], (_Bool *)args[1], n);
}
static void sloop_signbit_f64(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx)
{
    sloop_signbit(args, st, n, ctx, 1);
}
static void sloop_signbit_f32(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx)
{
    sloop_signbit(args, st, n, ctx, 0);
}

/* absolute of complex: scalar.h's cpn_absolute (max * sqrt(fma(r, r, 1)), r = min / max; two
 * zeros 0; an infinite part inf) on 4 lanes, the same operations in the same order, so the
 * values are the scalar loop's bit for bit.  Contiguous operands; others take the scalar loop.
 * Reports nothing (the op is SILENT). */
static VM_TARGET __m256d cabs4(__m256d re, __m256d im)
{
    const __m256d sign = _mm256_set1_pd(-0.0), inf = _mm256_set1_pd(INFINITY);
    re = _mm256_andnot_pd(sign, re);
    im = _mm256_andnot_pd(sign, im);
    __m256d gt = _mm256_cmp_pd(re, im, _CMP_GT_OQ);
    __m256d big = _mm256_blendv_pd(im, re, gt), small = _mm256_blendv_pd(re, im, gt);
    __m256d r = _mm256_div_pd(small, big);
    __m256d v = _mm256_mul_pd(_mm256_sqrt_pd(_mm256_fmadd_pd(r, r, _mm256_set1_pd(1.0))), big);
    __m256d zero = _mm256_and_pd(_mm256_cmp_pd(big, _mm256_setzero_pd(), _CMP_EQ_OQ),
                                 _mm256_cmp_pd(small, _mm256_setzero_pd(), _CMP_EQ_OQ));
    v = _mm256_andnot_pd(zero, v);
    __m256d isinf = _mm256_or_pd(_mm256_cmp_pd(re, inf, _CMP_EQ_OQ), _mm256_cmp_pd(im, inf, _CMP_EQ_OQ));
    return _mm256_blendv_pd(v, inf, isinf);
}
static VM_TARGET void cabs_c128(const double *a, double *o, int64_t n)
{
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = _mm256_loadu_pd(a + 2 * i), y = _mm256_loadu_pd(a + 2 * i + 4);
        __m256d v = cabs4(_mm256_unpacklo_pd(x, y), _mm256_unpackhi_pd(x, y));   /* lanes 0 2 1 3 */
        _mm256_storeu_pd(o + i, _mm256_permute4x64_pd(v, 0xD8));
    }
    for (; i < n; i++) {
        __m256d v = cabs4(_mm256_set1_pd(a[2 * i]), _mm256_set1_pd(a[2 * i + 1]));
        o[i] = _mm256_cvtsd_f64(v);
    }
}
static void cloop_absolute_c128(char **args, const int64_t *st, int64_t n, struct cpn_kctx *ctx)
{
    if (st[0] != 16 || st[1] != 8) {
        cpn_kernel_elementwise_scalar(CPN_OP_ABSOLUTE, CPN_DTYPE_COMPLEX128)(args, st, n, ctx);
        return;
    }
    cabs_c128((const double *)args[0], (double *)args[1], n);
}

#pragma GCC pop_options

static const cpn_loop_fn vloop_table[CPN_OP_COUNT][2] = {
#define CROW(E, FN, OPC, PRED) [CPN_OP_##E] = {cloop_##FN##_f32, cloop_##FN##_f64},
    VMATH_CMP(CROW)
#undef CROW
    [CPN_OP_SIGNBIT] = {sloop_signbit_f32, sloop_signbit_f64},
#define ROW(E, FN, NIN) [CPN_OP_##E] = {vloop_##FN##_f32, vloop_##FN##_f64},
    VMATH_HOOKS(ROW)
#undef ROW
    [CPN_OP_REMAINDER] = {NULL, rloop_remainder_f64},
};

static int cpu_ok = -1;

static int vm_usable(void)
{
    if (cpu_ok < 0) {
        cpu_ok = cpn_kernel_cpu_level() >= 1;
        cpu_avx512 = cpn_kernel_cpu_level() >= 2;
    }
    return cpu_ok;
}

cpn_loop_fn cpn_vmath_loop(enum cpn_opcode code, enum cpn_dtype dt)
{
    if ((unsigned)code >= CPN_OP_COUNT || !vm_usable()) return NULL;
    if (dt == CPN_DTYPE_FLOAT32) return vloop_table[code][0];
    if (dt == CPN_DTYPE_FLOAT64) return vloop_table[code][1];
    if (dt == CPN_DTYPE_COMPLEX128 && code == CPN_OP_ABSOLUTE) return cloop_absolute_c128;
    return NULL;
}

const char *cpn_vmath_backend(void)
{
    if (!vm_usable()) return "scalar: CPU lacks AVX2/FMA";
    return CPN_HAVE_MVEC && cpu_avx512 > 0 ? "sleef-avx2+libmvec-avx512" : "sleef-avx2";
}

int cpn_vmath_kernel(const char *name, int *nin, void (**f64)(void), void (**f32)(void))
{
    if (!vm_usable()) return -1;
#define ENTRY(FN, NIN)                                                                        \
    if (!strcmp(name, #FN)) {                                                                 \
        *nin = NIN;                                                                           \
        *f64 = (void (*)(void))cpn_vmath_##FN##_f64;                                          \
        *f32 = (void (*)(void))cpn_vmath_##FN##_f32;                                          \
        return 0;                                                                             \
    }
    CPN_VMATH_FUNCS(ENTRY)
#undef ENTRY
    return -1;
}

#else /* !VM_BUILT */

cpn_loop_fn cpn_vmath_loop(enum cpn_opcode code, enum cpn_dtype dt)
{
    (void)code;
    (void)dt;
    return NULL;
}

const char *cpn_vmath_backend(void) { return "scalar: built without SLEEF"; }

int cpn_vmath_kernel(const char *name, int *nin, void (**f64)(void), void (**f32)(void))
{
    (void)name, (void)nin, (void)f64, (void)f32;
    return -1;
}

#endif
