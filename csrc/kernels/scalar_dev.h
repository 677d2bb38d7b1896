/* scalar_dev.h: the device forms of float16 and complex for scalar.h (included by it).
 *
 * The host keeps C's _Float16 and C99 _Complex (GCC's code for them is what the CPU loops and
 * their bitwise comparisons with NumPy were built on); CUDA C++ has neither, so the device uses
 * types of the same memory layout, and scalar.h's definitions are written once over both:
 *
 *   cpn_half   float16 as its IEEE bits, converting to and from float (cvt.rn on the device,
 *              round-to-nearest-even in software in nvcc's host pass) and computing in float, so
 *              a result is the float result rounded once, as NumPy's half loops do.  C++ only.
 *   cpn_c64, cpn_c128   {re, im} structs.  Arithmetic, order, absolute, power's integer path,
 *              sign, expm1, log1p, log2/log10 and exp2 are scalar.h's shared definitions.  The
 *              functions NumPy takes from C99 (cexp, clog, csqrt, csin, ccos, ctan, csinh, ccosh,
 *              ctanh, cpow) are written here from NumPy's own fallbacks (npy_math_complex.c.src,
 *              FreeBSD msun's special-value handling), the inverse ones (casin, cacos, catan,
 *              casinh, cacosh, catanh) from Kahan's formulas with C99 Annex G's special values:
 *              CPN_DEF_SCPLX_FN below, plain C over any struct with .re/.im, so a host C test
 *              (tests/c/test_scalar_dev.c) checks them against the C99 functions the CPU loops
 *              call.
 *
 * Every function is CPN_SI (scalar.h): static inline, __host__ __device__ under nvcc/NVRTC. */
#ifndef CPN_SCALAR_DEV_H
#define CPN_SCALAR_DEV_H

/* ---- float16 bits: software conversions (the host pass of nvcc, and the host test) ---------- */
CPN_SI uint32_t cpn_f32_bits(float f)
{
    union { float f; uint32_t u; } c;
    c.f = f;
    return c.u;
}
CPN_SI uint64_t cpn_f64_bits(double f)
{
    union { double f; uint64_t u; } c;
    c.f = f;
    return c.u;
}
CPN_SI float cpn_half_bits_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    if (e == 0x1fu) u = s | 0x7f800000u | (m << 13);           /* infinity, NaN (payload kept) */
    else if (e) u = s | ((e + 112u) << 23) | (m << 13);
    else if (!m) u = s;
    else {                                                      /* subnormal: normalise */
        e = 113u;
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        u = s | (e << 23) | ((m & 0x3ffu) << 13);
    }
    union { uint32_t u; float f; } c;
    c.u = u;
    return c.f;
}
/* Round-to-nearest-even of the magnitude bits a (of a float or double with the given mantissa
 * width), already known to lie in half's normal or subnormal range. */
#define CPN_HALF_ROUND(U, a, MANT, BIAS)                                                  \
    do {                                                                                  \
        if ((a) >= ((U)(BIAS - 14) << MANT)) {  /* normal half: rebias, drop bits */      \
            U r_ = (a) - ((U)(BIAS - 15) << MANT), h_ = r_ >> (MANT - 10);                \
            U rem_ = r_ & (((U)1 << (MANT - 10)) - 1), mid_ = (U)1 << (MANT - 11);        \
            if (rem_ > mid_ || (rem_ == mid_ && (h_ & 1))) h_++;                          \
            return (uint16_t)(s | h_);                                                    \
        }                                                                                 \
        {   /* subnormal half: units of 2^-24 */                                          \
            U e_ = (a) >> MANT, m_ = ((a) & (((U)1 << MANT) - 1)) | ((U)1 << MANT);       \
            U sh_ = (U)(BIAS + MANT - 24) - e_;                                          \
            U h_ = m_ >> sh_, rem_ = m_ & (((U)1 << sh_) - 1), mid_ = (U)1 << (sh_ - 1);  \
            if (rem_ > mid_ || (rem_ == mid_ && (h_ & 1))) h_++;                          \
            return (uint16_t)(s | h_);                                                    \
        }                                                                                 \
    } while (0)
CPN_SI uint16_t cpn_float_to_half_bits(float f)
{
    uint32_t u = cpn_f32_bits(f), s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return (uint16_t)(s | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u));
    if (a >= 0x477ff000u) return (uint16_t)(s | 0x7c00u);     /* >= 65520: infinity */
    if (a <= 0x33000000u) return (uint16_t)s;                 /* <= 2^-25: zero (a tie at 2^-25) */
    CPN_HALF_ROUND(uint32_t, a, 23, 127);
}
CPN_SI uint16_t cpn_double_to_half_bits(double d)
{
    uint64_t u = cpn_f64_bits(d), a = u & 0x7fffffffffffffffull;
    uint64_t s = (u >> 48) & 0x8000u;
    if (a >= 0x7ff0000000000000ull)
        return (uint16_t)(s | 0x7c00u | (a > 0x7ff0000000000000ull ? 0x200u | ((a >> 42) & 0x3ffu) : 0u));
    if (a >= 0x40effe0000000000ull) return (uint16_t)(s | 0x7c00u);
    if (a <= 0x3e60000000000000ull) return (uint16_t)s;
    CPN_HALF_ROUND(uint64_t, a, 52, 1023);
}

/* ---- complex as structs: NumPy's formulas for the functions C99 provides on the host -------- *
 * S: suffix, T: the struct type, R: its part type, LS: libm suffix.  Needs cpn_mk_##S(re, im).
 * BIG selects the double (1) or float (0) thresholds. */
#define CPN_SCPLX_K(R, dbl, flt) ((R)(sizeof(R) == 8 ? (dbl) : (flt)))
#define CPN_DEF_SCPLX_FN(S, T, R, LS)                                                     \
    /* m 2^ex t with one rounding: t scaled into the normal range first (exactly). */       \
    CPN_SI R cpn_scale_##S(R m, int ex, R t)                                              \
    {                                                                                     \
        const int prec = sizeof(R) == 8 ? 53 : 24;                                        \
        if (fabs##LS(t) < CPN_SCPLX_K(R, 2.2250738585072014e-308, 1.1754943508222875e-38f)) \
            return ldexp##LS(m * ldexp##LS(t, prec), ex - prec);                          \
        return ldexp##LS(m * t, ex);                                                      \
    }                                                                                     \
    /* exp(x) * (cos y + i sin y) 2^expt for x past exp's overflow: exp(x - k ln2) 2^k. */  \
    CPN_SI T cpn_ldexp_cexp_##S(R x, R y, int expt)                                       \
    {                                                                                     \
        const int k = sizeof(R) == 8 ? 1799 : 235;                                        \
        const R kln2 = CPN_SCPLX_K(R, 1246.97177782734161156, 162.88958740f);             \
        int ex = 0;                                                                       \
        R m = frexp##LS(exp##LS(x - kln2), &ex);                                          \
        ex += k + expt;                                                                   \
        return cpn_mk_##S(cpn_scale_##S(m, ex, cos##LS(y)), cpn_scale_##S(m, ex, sin##LS(y))); \
    }                                                                                     \
    CPN_SI T cpn_sexp_##S(T z)                                                            \
    {                                                                                     \
        R x = z.re, y = z.im;                                                             \
        if (y == 0) return cpn_mk_##S(exp##LS(x), y);                                     \
        if (x == 0) return cpn_mk_##S(cos##LS(y), sin##LS(y));                            \
        if (!isfinite(y)) {                                                               \
            if (!isinf(x)) return cpn_mk_##S(y - y, y - y);                               \
            if (x < 0) return cpn_mk_##S(0, 0);                                           \
            return cpn_mk_##S(x, y - y);                                                  \
        }                                                                                 \
        if (x > CPN_SCPLX_K(R, 709.782712893384, 88.7228394f) && x < CPN_SCPLX_K(R, 1455.0, 193.0f))       \
            return cpn_ldexp_cexp_##S(x, y, 0);                                           \
        R e = exp##LS(x);                                                                 \
        return cpn_mk_##S(e * cos##LS(y), e * sin##LS(y));                                \
    }                                                                                     \
    /* NumPy's npy_clog: scaled near overflow and underflow, log1p near |z| = 1. */       \
    CPN_SI T cpn_slog_##S(T z)                                                            \
    {                                                                                     \
        const R tmax = CPN_SCPLX_K(R, 1.7976931348623157e308, 3.4028234663852886e38f);    \
        const R tmin = CPN_SCPLX_K(R, 2.2250738585072014e-308, 1.1754943508222875e-38f);  \
        const int prec = sizeof(R) == 8 ? 53 : 24;                                        \
        R ax = fabs##LS(z.re), ay = fabs##LS(z.im), rr;                                   \
        if (ax > tmax / 4 || ay > tmax / 4) {                                             \
            rr = log##LS(hypot##LS(ax / 2, ay / 2)) + (R)CPN_LN2;                         \
        } else if (ax < tmin && ay < tmin) {                                              \
            if (ax > 0 || ay > 0)                                                         \
                rr = log##LS(hypot##LS(ldexp##LS(ax, prec), ldexp##LS(ay, prec))) -      \
                     (R)prec * (R)CPN_LN2;                                                \
            else                                                                          \
                rr = -(R)INFINITY;                                                        \
        } else {                                                                          \
            R h = hypot##LS(ax, ay);                                                      \
            if ((R)0.71 <= h && h <= (R)1.73) {                                           \
                R am = ax > ay ? ax : ay, an = ax > ay ? ay : ax;                         \
                rr = log1p##LS((am - 1) * (am + 1) + an * an) / 2;                        \
            } else {                                                                      \
                rr = log##LS(h);                                                          \
            }                                                                             \
        }                                                                                 \
        return cpn_mk_##S(rr, atan2##LS(z.im, z.re));                                     \
    }                                                                                     \
    /* npy_csqrt: Algorithm 312 (CACM 10, 1967) with the special cases of C99 Annex G, the  \
     * scalings of FreeBSD's s_csqrt.c; in double for both types (as FreeBSD's csqrtf).  */ \
    CPN_SI T cpn_ssqrt_##S(T z)                                                           \
    {                                                                                     \
        double a = z.re, b = z.im, t, scale = 1, re, im;                                  \
        if (a == 0 && b == 0) return cpn_mk_##S(0, z.im);                                 \
        if (isinf(b)) return cpn_mk_##S((R)INFINITY, z.im);                               \
        if (isnan(a)) return cpn_mk_##S(z.re, (R)((b - b) / (b - b)));                    \
        if (isinf(a)) {                                                                   \
            if (signbit(a)) return cpn_mk_##S((R)fabs(b - b), (R)copysign(a, b));         \
            return cpn_mk_##S(z.re, (R)copysign(b - b, b));                               \
        }                                                                                 \
        if (fabs(a) >= 0x1.a827999fcef32p+1022 || fabs(b) >= 0x1.a827999fcef32p+1022) {  \
            if (fabs(a) >= 0x1p-1020) a *= 0.25;                                          \
            if (fabs(b) >= 0x1p-1020) b *= 0.25;                                          \
            scale = 2;                                                                    \
        }                                                                                 \
        if (fabs(a) < 2.2250738585072014e-308 && fabs(b) < 2.2250738585072014e-308) {     \
            a *= 0x1p54;                                                                  \
            b *= 0x1p54;                                                                  \
            scale = 0x1p-27;                                                              \
        }                                                                                 \
        if (a >= 0) {                                                                     \
            t = sqrt((a + hypot(a, b)) * 0.5);                                            \
            re = scale * t;                                                               \
            im = scale * b / (2 * t);                                                     \
        } else {                                                                          \
            t = sqrt((-a + hypot(a, b)) * 0.5);                                           \
            re = scale * fabs(b) / (2 * t);                                               \
            im = copysign(scale * t, b);                                                  \
        }                                                                                 \
        return cpn_mk_##S((R)re, (R)im);                                                  \
    }                                                                                     \
    /* npy_csinh / npy_ccosh (FreeBSD s_csinh.c, s_ccosh.c). */                           \
    CPN_SI T cpn_ssinh_##S(T z)                                                           \
    {                                                                                     \
        R x = z.re, y = z.im, ax = fabs##LS(x);                                           \
        if (isfinite(x) && isfinite(y)) {                                                 \
            if (y == 0) return cpn_mk_##S(sinh##LS(x), y);                                \
            if (ax < CPN_SCPLX_K(R, 22.0, 9.0f))                                          \
                return cpn_mk_##S(sinh##LS(x) * cos##LS(y), cosh##LS(x) * sin##LS(y));    \
            if (ax < CPN_SCPLX_K(R, 709.782712893384, 88.7228394f)) {                                      \
                R h = exp##LS(ax) * (R)0.5;                                               \
                return cpn_mk_##S(copysign##LS(h, x) * cos##LS(y), h * sin##LS(y));       \
            }                                                                             \
            if (ax < CPN_SCPLX_K(R, 1455.0, 193.0f)) {                                    \
                T w = cpn_ldexp_cexp_##S(ax, y, -1);                                      \
                return cpn_mk_##S(w.re * copysign##LS((R)1, x), w.im);                    \
            }                                                                             \
            R h = (R)INFINITY * x;                                                        \
            return cpn_mk_##S(h * cos##LS(y), h * h * sin##LS(y));                        \
        }                                                                                 \
        if (x == 0) return cpn_mk_##S(x, y - y);                                          \
        if (y == 0) return cpn_mk_##S(x, y);                                              \
        if (isfinite(x)) return cpn_mk_##S(y - y, y - y);                                 \
        if (isinf(x)) {                                                                   \
            if (!isfinite(y)) return cpn_mk_##S(x, y - y);                                \
            return cpn_mk_##S(x * cos##LS(y), (R)INFINITY * sin##LS(y));                  \
        }                                                                                 \
        return cpn_mk_##S((x * x) * (y - y), (x + x) * (y - y));                          \
    }                                                                                     \
    CPN_SI T cpn_scosh_##S(T z)                                                           \
    {                                                                                     \
        R x = z.re, y = z.im, ax = fabs##LS(x);                                           \
        if (isfinite(x) && isfinite(y)) {                                                 \
            if (y == 0) return cpn_mk_##S(cosh##LS(x), x * y);                            \
            if (ax < CPN_SCPLX_K(R, 22.0, 9.0f))                                          \
                return cpn_mk_##S(cosh##LS(x) * cos##LS(y), sinh##LS(x) * sin##LS(y));    \
            if (ax < CPN_SCPLX_K(R, 709.782712893384, 88.7228394f)) {                                      \
                R h = exp##LS(ax) * (R)0.5;                                               \
                return cpn_mk_##S(h * cos##LS(y), copysign##LS(h, x) * sin##LS(y));       \
            }                                                                             \
            if (ax < CPN_SCPLX_K(R, 1455.0, 193.0f)) {                                    \
                T w = cpn_ldexp_cexp_##S(ax, y, -1);                                      \
                return cpn_mk_##S(w.re, w.im * copysign##LS((R)1, x));                    \
            }                                                                             \
            R h = (R)INFINITY * x;                                                        \
            return cpn_mk_##S(h * h * cos##LS(y), h * sin##LS(y));                        \
        }                                                                                 \
        if (x == 0) return cpn_mk_##S(y - y, x * copysign##LS((R)0, y));                  \
        if (y == 0) return cpn_mk_##S(x * x, copysign##LS((R)0, x) * y);                  \
        if (isfinite(x)) return cpn_mk_##S(y - y, x * (y - y));                           \
        if (isinf(x)) {                                                                   \
            if (!isfinite(y)) return cpn_mk_##S(x * x, x * (y - y));                      \
            return cpn_mk_##S((x * x) * cos##LS(y), x * sin##LS(y));                      \
        }                                                                                 \
        return cpn_mk_##S((x * x) * (y - y), (x + x) * (y - y));                          \
    }                                                                                     \
    /* npy_ctanh (FreeBSD s_ctanh.c, Kahan's algorithm). */                               \
    CPN_SI T cpn_stanh_##S(T z)                                                           \
    {                                                                                     \
        R x = z.re, y = z.im;                                                             \
        if (isnan(x)) return cpn_mk_##S(x, y == 0 ? y : x * y);                           \
        if (isinf(x))                                                                     \
            return cpn_mk_##S(copysign##LS((R)1, x),                                      \
                              copysign##LS((R)0, isinf(y) ? y : sin##LS(y) * cos##LS(y))); \
        if (!isfinite(y)) return cpn_mk_##S(x != 0 ? y - y : x, y - y);                   \
        if (fabs##LS(x) >= CPN_SCPLX_K(R, 22.0, 11.0f)) {                                 \
            R e = exp##LS(-fabs##LS(x));                                                  \
            return cpn_mk_##S(copysign##LS((R)1, x), 4 * sin##LS(y) * cos##LS(y) * e * e); \
        }                                                                                 \
        R t = tan##LS(y), beta = 1 + t * t, s = sinh##LS(x), rho = sqrt##LS(1 + s * s);   \
        R denom = 1 + beta * s * s;                                                       \
        return cpn_mk_##S((beta * rho * s) / denom, t / denom);                           \
    }                                                                                     \
    /* sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz) */                      \
    CPN_SI T cpn_ssin_##S(T z)                                                            \
    {                                                                                     \
        T w = cpn_ssinh_##S(cpn_mk_##S(-z.im, z.re));                                     \
        return cpn_mk_##S(w.im, -w.re);                                                   \
    }                                                                                     \
    CPN_SI T cpn_scos_##S(T z) { return cpn_scosh_##S(cpn_mk_##S(-z.im, z.re)); }         \
    CPN_SI T cpn_stan_##S(T z)                                                            \
    {                                                                                     \
        T w = cpn_stanh_##S(cpn_mk_##S(-z.im, z.re));                                     \
        return cpn_mk_##S(w.im, -w.re);                                                   \
    }                                                                                     \
    /* The inverse functions: Kahan's formulas ("Branch cuts for complex elementary        \
     * functions", 1987) through csqrt, C99 Annex G's values for infinite and NaN parts. */ \
    CPN_SI T cpn_sasinh_##S(T z)                                                          \
    {                                                                                     \
        const R pi2 = (R)(CPN_PI / 2);                                                    \
        R x = z.re, y = z.im;                                                             \
        if (isinf(x)) {                                                                   \
            if (isnan(y)) return z;                                                       \
            return cpn_mk_##S(x, copysign##LS(isinf(y) ? (R)(CPN_PI / 4) : (R)0, y));     \
        }                                                                                 \
        if (isinf(y)) {                                                                   \
            if (isnan(x)) return cpn_mk_##S(y, x);                                        \
            return cpn_mk_##S(copysign##LS((R)INFINITY, x), copysign##LS(pi2, y));        \
        }                                                                                 \
        if (isnan(x)) return cpn_mk_##S(x, y == 0 ? y : x);                               \
        if (isnan(y)) return cpn_mk_##S(y, y);                                            \
        if (fabs##LS(x) > CPN_SCPLX_K(R, 1e150, 1e18f) || fabs##LS(y) > CPN_SCPLX_K(R, 1e150, 1e18f)) { \
            T l = cpn_slog_##S(cpn_mk_##S(fabs##LS(x), fabs##LS(y)));  /* log 2|z|, odd */    \
            return cpn_mk_##S(copysign##LS(l.re + (R)CPN_LN2, x), copysign##LS(l.im, y));  \
        }                                                                                 \
        /* asinh z = -i asin(iz); asin w = atan2(re w, re(s1 s2)) + i asinh(im(conj(s1) s2)), \
         * s1 = sqrt(1 - w), s2 = sqrt(1 + w), w = iz = -y + ix */                         \
        T s1 = cpn_ssqrt_##S(cpn_mk_##S(1 + y, -x)), s2 = cpn_ssqrt_##S(cpn_mk_##S(1 - y, x)); \
        R a = atan2##LS(-y, s1.re * s2.re - s1.im * s2.im);                               \
        R b = asinh##LS(s1.re * s2.im - s1.im * s2.re);                                   \
        return cpn_mk_##S(b, -a);                                                         \
    }                                                                                     \
    CPN_SI T cpn_sasin_##S(T z)                                                           \
    {                                                                                     \
        T w = cpn_sasinh_##S(cpn_mk_##S(-z.im, z.re));                                    \
        return cpn_mk_##S(w.im, -w.re);                                                   \
    }                                                                                     \
    CPN_SI T cpn_sacos_##S(T z)                                                           \
    {                                                                                     \
        const R pi2 = (R)(CPN_PI / 2);                                                    \
        R x = z.re, y = z.im;                                                             \
        if (isinf(y)) {                                                                   \
            if (isnan(x)) return cpn_mk_##S(x, -y);                                       \
            if (isinf(x)) return cpn_mk_##S(x < 0 ? (R)(3 * CPN_PI / 4) : (R)(CPN_PI / 4), -y); \
            return cpn_mk_##S(pi2, -y);                                                   \
        }                                                                                 \
        if (isinf(x)) {                                                                   \
            if (isnan(y)) return cpn_mk_##S(y, x);                                        \
            return cpn_mk_##S(x < 0 ? (R)CPN_PI : (R)0, -copysign##LS((R)INFINITY, y));   \
        }                                                                                 \
        if (isnan(x)) return cpn_mk_##S(x, x);                                            \
        if (isnan(y)) return cpn_mk_##S(x == 0 ? pi2 : y, y);                             \
        if (fabs##LS(x) > CPN_SCPLX_K(R, 1e150, 1e18f) || fabs##LS(y) > CPN_SCPLX_K(R, 1e150, 1e18f)) { \
            R l = cpn_slog_##S(z).re + (R)CPN_LN2;   /* acos z = arg z - i log 2z */        \
            return cpn_mk_##S(atan2##LS(fabs##LS(y), x), -copysign##LS(l, y));            \
        }                                                                                 \
        /* acos z = 2 atan2(re s1, re s2) + i asinh(im(conj(s2) s1)), s1 = sqrt(1 - z),    \
         * s2 = sqrt(1 + z) */                                                            \
        T s1 = cpn_ssqrt_##S(cpn_mk_##S(1 - x, -y)), s2 = cpn_ssqrt_##S(cpn_mk_##S(1 + x, y)); \
        return cpn_mk_##S(2 * atan2##LS(s1.re, s2.re), asinh##LS(s2.re * s1.im - s2.im * s1.re)); \
    }                                                                                     \
    /* acosh z = +-i acos z, the sign making the real part non-negative */                \
    CPN_SI T cpn_sacosh_##S(T z)                                                          \
    {                                                                                     \
        T w = cpn_sacos_##S(z);                                                           \
        return cpn_mk_##S(fabs##LS(w.im), copysign##LS(w.re, z.im));                      \
    }                                                                                     \
    /* atanh on |x|, |y| (odd in both): re = log1p(4x / ((1-x)^2 + y^2)) / 4, or for huge  \
     * |z| x / |z|^2, or near z = 1 the difference of logs; im = atan2(2y, (1-x)(1+x) - y^2) / 2 */ \
    CPN_SI T cpn_satanh_##S(T z)                                                          \
    {                                                                                     \
        const R pi2 = (R)(CPN_PI / 2);                                                    \
        R x = z.re, y = z.im;                                                             \
        if (isinf(y)) return cpn_mk_##S(copysign##LS((R)0, x), copysign##LS(pi2, y));     \
        if (isinf(x)) return cpn_mk_##S(copysign##LS((R)0, x), isnan(y) ? y : copysign##LS(pi2, y)); \
        if (isnan(x)) return cpn_mk_##S(x, x);                                            \
        if (isnan(y)) return cpn_mk_##S(x == 0 ? x : y, y);                               \
        R ax = fabs##LS(x), ay = fabs##LS(y), re, im;                                     \
        if (ax > CPN_SCPLX_K(R, 1e150, 1e18f) || ay > CPN_SCPLX_K(R, 1e150, 1e18f)) {     \
            R hx = ax / 2, h = hypot##LS(hx, ay / 2);   /* |z| / 2: no overflow */          \
            re = (hx / h) / h / 2;                                                        \
            im = pi2;                                                                     \
        } else {                                                                          \
            R d = (1 - ax) * (1 - ax) + ay * ay;                                          \
            if (d < (R)1e-8)                                                              \
                re = (log##LS(hypot##LS(1 + ax, ay)) - log##LS(hypot##LS(1 - ax, ay))) / 2; \
            else                                                                          \
                re = log1p##LS(4 * ax / d) / 4;                                           \
            im = atan2##LS(2 * ay, (1 - ax) * (1 + ax) - ay * ay) / 2;                    \
        }                                                                                 \
        return cpn_mk_##S(copysign##LS(re, x), copysign##LS(im, y));                      \
    }                                                                                     \
    CPN_SI T cpn_satan_##S(T z)                                                           \
    {                                                                                     \
        T w = cpn_satanh_##S(cpn_mk_##S(-z.im, z.re));                                    \
        return cpn_mk_##S(w.im, -w.re);                                                   \
    }                                                                                     \
    /* C's cpow as glibc writes it: exp(b log a). */                                      \
    CPN_SI T cpn_spow_##S(T a, T b)                                                       \
    {                                                                                     \
        T l = cpn_slog_##S(a);                                                            \
        return cpn_sexp_##S(cpn_mk_##S(b.re * l.re - b.im * l.im, b.re * l.im + b.im * l.re)); \
    }

#ifdef __CUDACC__
/* ---- the device types ----------------------------------------------------------------------- */
struct cpn_half {
    uint16_t bits;
    cpn_half() = default;
#ifdef __CUDA_ARCH__
    CPN_HD cpn_half(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f)); }
    CPN_HD cpn_half(double d) { asm("cvt.rn.f16.f64 %0, %1;" : "=h"(bits) : "d"(d)); }
    CPN_HD operator float() const
    {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
        return f;
    }
#else
    CPN_HD cpn_half(float f) : bits(cpn_float_to_half_bits(f)) {}
    CPN_HD cpn_half(double d) : bits(cpn_double_to_half_bits(d)) {}
    CPN_HD operator float() const { return cpn_half_bits_to_float(bits); }
#endif
    /* Integers through double: exact up to 2^53, and anything larger overflows half anyway. */
    CPN_HD cpn_half(int x) : cpn_half((double)x) {}
    CPN_HD cpn_half(unsigned x) : cpn_half((double)x) {}
    CPN_HD cpn_half(long x) : cpn_half((double)x) {}
    CPN_HD cpn_half(unsigned long x) : cpn_half((double)x) {}
    CPN_HD cpn_half(long long x) : cpn_half((double)x) {}
    CPN_HD cpn_half(unsigned long long x) : cpn_half((double)x) {}
};
CPN_SI uint16_t cpn_half_bits(cpn_half h) { return h.bits; }
CPN_SI cpn_half cpn_half_from_bits(uint16_t u)
{
    cpn_half h;
    h.bits = u;
    return h;
}

/* Natural alignment (4 and 8 bytes), as NumPy's complex arrays may have. */
typedef struct { float re, im; } cpn_c64;
typedef struct { double re, im; } cpn_c128;
CPN_SI cpn_c64 cpn_mk_c64(float re, float im)
{
    cpn_c64 z;
    z.re = re;
    z.im = im;
    return z;
}
CPN_SI cpn_c128 cpn_mk_c128(double re, double im)
{
    cpn_c128 z;
    z.re = re;
    z.im = im;
    return z;
}
CPN_DEF_SCPLX_FN(c64, cpn_c64, float, f)
CPN_DEF_SCPLX_FN(c128, cpn_c128, double, )

/* Conversions for generated casts (cuda/codegen.c): to complex from anything (the real value
 * becomes the real part); from complex, the real part (NumPy's unsafe cast) or, to bool,
 * whether either part is non-zero. */
template <typename T> CPN_SI cpn_c64 cpn_to_c64(T x) { return cpn_mk_c64((float)x, 0.0f); }
CPN_SI cpn_c64 cpn_to_c64(cpn_c64 x) { return x; }
CPN_SI cpn_c64 cpn_to_c64(cpn_c128 x) { return cpn_mk_c64((float)x.re, (float)x.im); }
template <typename T> CPN_SI cpn_c128 cpn_to_c128(T x) { return cpn_mk_c128((double)x, 0.0); }
CPN_SI cpn_c128 cpn_to_c128(cpn_c64 x) { return cpn_mk_c128(x.re, x.im); }
CPN_SI cpn_c128 cpn_to_c128(cpn_c128 x) { return x; }
#endif

#endif
