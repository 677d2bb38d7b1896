/* test_scalar_dev.c: scalar_dev.h's device forms of float16 and complex, built on the host.
 *
 * The GPU cannot be run here, so the arithmetic the device gets for float16 and complex is
 * checked on the host against what the CPU loops compute (which the Python suite compares with
 * NumPy):
 *   - float16 conversions (the software ones of nvcc's host pass, whose rounding the device's
 *     cvt.rn instructions share): every half to float, and floats and doubles around every
 *     half-way point, against C's _Float16 conversions;
 *   - the struct-complex functions (CPN_DEF_SCPLX_FN: exp, log, sqrt, sin, cos, tan, sinh, cosh,
 *     tanh, the inverse arcsin, arccos, arctan, arcsinh, arccosh, arctanh; pow on a smaller
 *     grid), instantiated for test structs, against scalar.h's host functions
 *     (cpn_exp_c128, ... over C99's cexp, ...) on a grid of special values: signed zeros,
 *     subnormals, values near exp's overflow, huge values, infinities and NaN, then random
 *     values of every magnitude and values near the branch points +-1, +-i.  NaN must match
 *     NaN and infinities exactly; finite parts agree within a few ulp (the formulas are
 *     NumPy's/FreeBSD's, C99's are glibc's: both within an ulp or two of the exact value).
 *     Where C99 leaves a sign unspecified the comparison says so. */
#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scalar.h"

#include "check.h"

typedef struct { float re, im; } tc64;
typedef struct { double re, im; } tc128;
static inline tc64 cpn_mk_t64(float re, float im) { return (tc64){re, im}; }
static inline tc128 cpn_mk_t128(double re, double im) { return (tc128){re, im}; }
CPN_DEF_SCPLX_FN(t64, tc64, float, f)
CPN_DEF_SCPLX_FN(t128, tc128, double, )

/* ---- float16 ------------------------------------------------------------------------------- */

static uint16_t hbits(_Float16 h)
{
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

static int same_half(uint16_t got, uint16_t want)
{
    if ((want & 0x7c00u) == 0x7c00u && (want & 0x3ffu)) return (got & 0x7c00u) == 0x7c00u && (got & 0x3ffu);
    return got == want;
}

static void test_half(void)
{
    int bad = 0;
    for (uint32_t u = 0; u < 0x10000u; u++) {   /* every half to float, and back */
        _Float16 h;
        uint16_t b = (uint16_t)u;
        memcpy(&h, &b, 2);
        float f = cpn_half_bits_to_float(b), want = (float)h;
        if (isnan(want) ? !isnan(f) : memcmp(&f, &want, 4) != 0) bad++;
        if (!same_half(cpn_float_to_half_bits(f), b)) bad++;
        if (!same_half(cpn_double_to_half_bits((double)f), b)) bad++;
        /* around the half-way point to the next half: below, at, above (ties to even) */
        uint16_t nb = (uint16_t)(b + 1);
        _Float16 hn;
        memcpy(&hn, &nb, 2);
        if (isnan(want) || isinf(want) || isnan((float)hn)) continue;
        double mid = ((double)h + (double)hn) / 2;
        double probes[] = {mid, nextafter(mid, 0), nextafter(mid, 2 * mid), mid * (1 + 0x1p-30)};
        for (int k = 0; k < 4; k++) {
            double d = probes[k];
            if (cpn_double_to_half_bits(d) != hbits((_Float16)d)) bad++;
            float fl = (float)d;
            if (cpn_float_to_half_bits(fl) != hbits((_Float16)fl)) bad++;
        }
    }
    /* the overflow threshold and huge values */
    double edges[] = {65504.0, 65519.99, 65520.0, 65536.0, 1e10, 1e300, 0x1p-25, 0x1p-26, 0x1.0000001p-25};
    for (int k = 0; k < (int)(sizeof edges / sizeof edges[0]); k++)
        for (int s = -1; s <= 1; s += 2) {
            double d = s * edges[k];
            if (cpn_double_to_half_bits(d) != hbits((_Float16)d)) bad++;
            if (cpn_float_to_half_bits((float)d) != hbits((_Float16)(float)d)) bad++;
        }
    if (bad) printf("float16 conversions: %d mismatches\n", bad);
    CHECK(bad == 0);
}

/* ---- complex ------------------------------------------------------------------------------- */

static int mismatches, compared;

/* One part: NaN for NaN, equal infinities, zeros of the same sign (unless `anysign`; an underflow
 * may round to the smallest subnormal instead), else within `ulps` units of the host's value. */
static int part_ok(double got, double want, double ulp_of_one, int ulps, int anysign)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want || (anysign && got == -want);
    /* relative, or a few of the smallest subnormals where the result underflows */
    double tol = fabs(want) * ulp_of_one * ulps, tiny = ulp_of_one > 0x1p-30 ? 0x1p-149 : 0x1p-1074;
    if (want == 0) return fabs(got) <= tiny * ulps && (anysign || signbit(got) == signbit(want));
    return fabs(got - want) <= tol || fabs(got - want) <= tiny * ulps;
}

#define CMP(S, T, HT, R, fname, got, want, x, y, ulps, anysign)                           \
    do {                                                                                  \
        compared++;                                                                       \
        const R eps_ = sizeof(R) == 8 ? 0x1p-52 : 0x1p-23;                                \
        if (!part_ok((got).re, CPN_RE_##S(want), eps_, ulps, anysign) ||                  \
            !part_ok((got).im, CPN_IM_##S(want), eps_, ulps, anysign)) {                  \
            if (mismatches < 30)                                                          \
                printf("%s_%s(%a, %a): device form (%a, %a), host (%a, %a)\n", fname, #S, \
                       (double)(x), (double)(y), (double)(got).re, (double)(got).im,      \
                       (double)CPN_RE_##S(want), (double)CPN_IM_##S(want));               \
            mismatches++;                                                                 \
        }                                                                                 \
    } while (0)

/* C99 leaves the sign of some parts unspecified (Annex G: "the sign of the ... part of the
 * result is unspecified"): zero or infinite parts computed from an infinite or NaN input. */
static int unspecified(double x, double y) { return !isfinite(x) || !isfinite(y); }

#define SWEEP(S, TS, T, R, vals)                                                          \
    do {                                                                                  \
        const int n_ = (int)(sizeof vals / sizeof vals[0]);                               \
        for (int i = 0; i < n_; i++)                                                      \
            for (int j = 0; j < n_; j++) {                                                \
                R x = (R)vals[i], y = (R)vals[j];                                         \
                T z = CPN_CPX_##S(x, y);                                                  \
                const int u_ = unspecified(x, y);                    \
                CMP(S, T, T, R, "exp", cpn_sexp_##TS(cpn_mk_##TS(x, y)), cpn_exp_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "log", cpn_slog_##TS(cpn_mk_##TS(x, y)), cpn_log_##S(z), x, y, 4, 0); \
                CMP(S, T, T, R, "sqrt", cpn_ssqrt_##TS(cpn_mk_##TS(x, y)), cpn_sqrt_##S(z), x, y, 4, 0); \
                CMP(S, T, T, R, "sinh", cpn_ssinh_##TS(cpn_mk_##TS(x, y)), cpn_sinh_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "cosh", cpn_scosh_##TS(cpn_mk_##TS(x, y)), cpn_cosh_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "tanh", cpn_stanh_##TS(cpn_mk_##TS(x, y)), cpn_tanh_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "sin", cpn_ssin_##TS(cpn_mk_##TS(x, y)), cpn_sin_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "cos", cpn_scos_##TS(cpn_mk_##TS(x, y)), cpn_cos_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "tan", cpn_stan_##TS(cpn_mk_##TS(x, y)), cpn_tan_##S(z), x, y, 4, u_); \
                CMP(S, T, T, R, "arcsinh", cpn_sasinh_##TS(cpn_mk_##TS(x, y)), cpn_arcsinh_##S(z), x, y, 8, u_); \
                CMP(S, T, T, R, "arcsin", cpn_sasin_##TS(cpn_mk_##TS(x, y)), cpn_arcsin_##S(z), x, y, 8, u_); \
                CMP(S, T, T, R, "arccos", cpn_sacos_##TS(cpn_mk_##TS(x, y)), cpn_arccos_##S(z), x, y, 8, u_); \
                CMP(S, T, T, R, "arccosh", cpn_sacosh_##TS(cpn_mk_##TS(x, y)), cpn_arccosh_##S(z), x, y, 8, u_); \
                CMP(S, T, T, R, "arctanh", cpn_satanh_##TS(cpn_mk_##TS(x, y)), cpn_arctanh_##S(z), x, y, 8, u_); \
                CMP(S, T, T, R, "arctan", cpn_satan_##TS(cpn_mk_##TS(x, y)), cpn_arctan_##S(z), x, y, 8, u_); \
            }                                                                             \
    } while (0)

static void pow_ok(double re, double im, double _Complex want, double eps)
{
    compared++;
    double wr = creal(want), wi = cimag(want), m = fmax(fabs(wr), fabs(wi)), tol = 64 * eps * m;
    bool ok = isfinite(m) ? fabs(re - wr) <= tol && fabs(im - wi) <= tol
                          : part_ok(re, wr, eps, 64, 0) && part_ok(im, wi, eps, 64, 0);
    if (!ok) {
        if (mismatches < 30) printf("pow: device form (%a, %a), host (%a, %a)\n", re, im, wr, wi);
        mismatches++;
    }
}

static void test_complex(void)
{
    static const double v128[] = {0.0, -0.0, 0x1p-1074, -1e-310, 1e-300, 1e-20, 0.5, -0.75, 1.0,
                                  -1.0, 1.5, 2.0, -3.25, 10.0, -21.5, 30.0, 100.0, -300.0, 709.5,
                                  720.0, -800.0, 1400.0, 1e4, 1e300, -1e308, 1.7e308, INFINITY,
                                  -INFINITY, NAN};
    static const double v64[] = {0.0, -0.0, 0x1p-149, -1e-40, 1e-30, 1e-10, 0.5, -0.75, 1.0, -1.0,
                                 1.5, 2.0, -3.25, 10.0, -21.5, 30.0, 88.5, -95.0, 150.0, 1e4,
                                 1e30, -3e38, INFINITY, -INFINITY, NAN};
    SWEEP(c128, t128, cpn_c128, double, v128);
    SWEEP(c64, t64, cpn_c64, float, v64);
    /* random points of every magnitude, and near the branch points +-1, +-i */
    static double r128[64];
    static float r64[64];
    uint64_t st = 12345;
    for (int k = 0; k < 64; k++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(st >> 11) * 0x1p-53, m = k < 48 ? ldexp(0.5 + u, (int)(st % 120) - 60)
                                                          : 1 + ldexp(u, -(int)(st % 40));
        r128[k] = (st >> 7) & 1 ? -m : m;
        r64[k] = (float)r128[k];
    }
    SWEEP(c128, t128, cpn_c128, double, r128);
    SWEEP(c64, t64, cpn_c64, float, r64);
    /* pow: C's cpow (glibc: exp(b log a)) for finite operands of moderate size, where neither
     * form loses more than exp's amplification of log's rounding: within 64 ulp of |a ** b|
     * (a part much smaller than the other carries the other's absolute error). */
    static const double pv[] = {0.0, -0.0, 0.25, -0.5, 1.0, -1.5, 2.5, -3.0, 7.25};
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++)
            for (int k = 0; k < 9; k++)
                for (int l = 0; l < 9; l++) {
                    if (pv[i] == 0 && pv[j] == 0) continue;   /* 0 ** b: npy_cpow's own cases */
                    cpn_c128 a = CPN_CPX_c128(pv[i], pv[j]), b = CPN_CPX_c128(pv[k], pv[l]);
                    tc128 r = cpn_spow_t128(cpn_mk_t128(pv[i], pv[j]), cpn_mk_t128(pv[k], pv[l]));
                    pow_ok(r.re, r.im, cpow(a, b), 0x1p-52);
                    cpn_c64 af = CPN_CPX_c64((float)pv[i], (float)pv[j]);
                    cpn_c64 bf = CPN_CPX_c64((float)pv[k], (float)pv[l]);
                    tc64 rf = cpn_spow_t64(cpn_mk_t64((float)pv[i], (float)pv[j]),
                                           cpn_mk_t64((float)pv[k], (float)pv[l]));
                    cpn_c64 wf = cpowf(af, bf);
                    pow_ok(rf.re, rf.im, CMPLX(crealf(wf), cimagf(wf)), 0x1p-23);
                }
    printf("complex device forms: %d of %d results differ\n", mismatches, compared);
    CHECK(mismatches == 0);
}

int main(void)
{
    test_half();
    test_complex();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
