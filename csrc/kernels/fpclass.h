/* fpclass.h: the floating-point errors NumPy's loops report for one element, from the element's
 * inputs and result alone, for code that has no status flags to read (the generated CUDA kernels
 * of cuda/codegen.c: a GPU raises nothing the host can see).
 *
 * The CPU loops raise the IEEE status flags (read with fenv, kernels.h) or find the cases
 * themselves (vmath.c, integer division); this header states the same outcomes as rules on
 * values, per kind of op (enum cpn_fpc_kind; ops.def's fpc column gives each op's, cpn_fpc_kind_of
 * reads it and maps casts):
 *   - invalid:    a NaN result from non-NaN inputs (inf - inf, 0 * inf, sqrt(-1), fmod(x, 0)...);
 *   - divide:     an infinite result from finite inputs at the op's pole (x / 0, x // 0,
 *                 reciprocal(0), log(0), log2/log10(0), log1p(-1), arctanh(+-1), power(0, b<0));
 *   - overflow:   an infinite result from finite inputs anywhere else;
 *   - the ops whose loops compute intermediates that raise flags of their own (found by the
 *                 test, each NumPy's own formula): floor_divide's overflowing quotient is also
 *                 invalid (npy_divmod's div - floor(div) is inf - inf); logaddexp/logaddexp2 are
 *                 invalid at any NaN input (an ordered comparison of x - y) and overflow where
 *                 x - y does (in the dtype: the result is finite); nextafter overflows stepping
 *                 from the largest finite value to an infinity (b infinite); spacing of an
 *                 infinity is a NaN without 'invalid';
 *   - casts:      float -> narrower float is the overflow rule; float -> integer is invalid where
 *                 the conversion instruction the CPU loop compiles to is (NaN, infinities and
 *                 values outside the range it converts through: int32 for the narrow integer
 *                 types, int64 for int64 and uint32, [-2^63, 2^64) for uint64); float -> bool
 *                 reports nothing;
 *   - two outputs (divmod, modf, frexp): the op's kind classifies output 0 (divmod's quotient
 *                 as floor_divide), the ARITH rule a float output 1 (divmod's remainder, modf's
 *                 integral part; frexp's int32 exponent reports nothing); ldexp is ARITH on its
 *                 result (the exponent converted to double);
 *   - integer division (INTDIV ops): divide by zero at b == 0, overflow at MIN // -1
 *                 (cpn_fpe_intdiv; these go to the loops' own findings, not the status flags).
 * Not classified: underflow (the flag depends on whether a tiny result was rounded, which the
 * values alone do not tell; the device never reports it), and the ops whose loops NumPy keeps
 * silent (ops.def's SILENT).  tests/c/test_fpclass.c checks every rule against the flags the CPU
 * loops raise over a grid of special values; the departures it allows are listed there.
 *
 * Bits are kernels.h's CPN_FPE_* values.  C and CUDA (CPN_HD); NVRTC sees only the rules, the
 * op mapping is host C. */
#ifndef CPN_FPCLASS_H
#define CPN_FPCLASS_H

#include "scalar.h"

/* The kinds up to CPN_FPC_LAE32 are the values of ops.def's fpc column (op.h's enum
 * cpn_op_fpc, LAE: LAE32 or LAE64 by dtype); which op has which is said there. */
enum cpn_fpc_kind {
    CPN_FPC_NONE,      /* nothing to report */
    CPN_FPC_ARITH,     /* invalid and overflow; no pole */
    CPN_FPC_DIV,       /* pole at b == 0 (divide) */
    CPN_FPC_FLOORDIV,  /* pole at b == 0; an overflowing quotient is also invalid */
    CPN_FPC_RECIP,     /* pole at a == 0 (reciprocal, log, log2, log10) */
    CPN_FPC_LOG1P,     /* pole at a == -1 */
    CPN_FPC_ATANH,     /* poles at a == +-1 */
    CPN_FPC_POW,       /* pole at a == 0 (power, float_power) */
    CPN_FPC_NEXTAFTER, /* overflow from a finite a; NaN only from NaN */
    CPN_FPC_SPACING,   /* overflow from a finite a; NaN only from NaN or an infinity, silently */
    CPN_FPC_LAE32,     /* logaddexp, logaddexp2 on float32 */
    CPN_FPC_LAE64,     /* logaddexp, logaddexp2 on float64 */
    CPN_FPC_CAST_I32,  /* float -> int8, uint8, int16, uint16, int32 */
    CPN_FPC_CAST_I64,  /* float -> int64, uint32 */
    CPN_FPC_CAST_U64,  /* float -> uint64 */
    CPN_FPC_COUNT
};

/* The CPN_FPE_* bit values (kernels.h), for NVRTC which does not see kernels.h. */
#define CPN_FPC_DIVIDE 1u
#define CPN_FPC_OVERFLOW 2u
#define CPN_FPC_INVALID 8u

CPN_SI int cpn_fpc_isnan(double x) { return x != x; }
CPN_SI int cpn_fpc_isinf(double x) { return x == (double)INFINITY || x == -(double)INFINITY; }
CPN_SI int cpn_fpc_finite(double x) { return !cpn_fpc_isnan(x) && !cpn_fpc_isinf(x); }

/* What an element-wise op of kind `kind` reports for inputs a, b (b = 0 for unary ops) and
 * result r, all exactly converted to double (float32 values convert exactly, so the classes
 * zero, +-1, infinite and NaN are kept). */
CPN_SI unsigned cpn_fpe_classify(int kind, double a, double b, double r)
{
    if (kind == CPN_FPC_NONE || kind >= CPN_FPC_CAST_I32) return 0;
    if (kind == CPN_FPC_LAE32 || kind == CPN_FPC_LAE64) {
        if (cpn_fpc_isnan(a) || cpn_fpc_isnan(b)) return CPN_FPC_INVALID;
        const double d = kind == CPN_FPC_LAE32 ? (double)((float)a - (float)b) : a - b;
        return cpn_fpc_finite(a) && cpn_fpc_finite(b) && cpn_fpc_isinf(d) ? CPN_FPC_OVERFLOW : 0u;
    }
    if (kind == CPN_FPC_NEXTAFTER || kind == CPN_FPC_SPACING)
        return cpn_fpc_isinf(r) && cpn_fpc_finite(a) ? CPN_FPC_OVERFLOW : 0u;
    if (cpn_fpc_isnan(r)) return cpn_fpc_isnan(a) || cpn_fpc_isnan(b) ? 0u : CPN_FPC_INVALID;
    if (!cpn_fpc_isinf(r) || !cpn_fpc_finite(a) || !cpn_fpc_finite(b)) return 0;
    int pole = 0;
    switch (kind) {
    case CPN_FPC_DIV: pole = b == 0; break;
    case CPN_FPC_FLOORDIV:
        if (b != 0) return CPN_FPC_OVERFLOW | CPN_FPC_INVALID;
        pole = 1;
        break;
    case CPN_FPC_RECIP: pole = a == 0; break;
    case CPN_FPC_LOG1P: pole = a == -1; break;
    case CPN_FPC_ATANH: pole = a == 1 || a == -1; break;
    case CPN_FPC_POW: pole = a == 0; break;
    default: break;
    }
    return pole ? CPN_FPC_DIVIDE : CPN_FPC_OVERFLOW;
}

/* What a float -> integer cast of kind `kind` reports for a. */
CPN_SI unsigned cpn_fpe_cast(int kind, double a)
{
    double lo, hi;   /* the open range that converts without 'invalid' */
    switch (kind) {
    case CPN_FPC_CAST_I32: lo = -2147483649.0; hi = 2147483648.0; break;
    case CPN_FPC_CAST_I64: lo = -9223372036854777856.0; hi = 9223372036854775808.0; break;
    case CPN_FPC_CAST_U64: lo = -9223372036854777856.0; hi = 18446744073709551616.0; break;
    default: return 0;
    }
    return a > lo && a < hi ? 0u : CPN_FPC_INVALID;
}

/* The value of a float -> integer conversion of kind `kind` as the CPU loop computes it (x86-64:
 * cvttsd2si through int32 for the narrow types, int64 for int64/uint32, GCC's split at 2^63 for
 * uint64; NaN and out-of-range values give the "integer indefinite" MIN), before truncation to
 * the target type: what NumPy's casts give on x86-64 (its scalar loops; for values outside the
 * target's range NumPy's SIMD loop bodies may give others, so those values have no one answer).
 * The device's own conversions saturate instead, so generated casts call this (cuda/codegen.c). */
CPN_SI int64_t cpn_fpc_cvt_i64(double a)
{
    return a > -9223372036854777856.0 && a < 9223372036854775808.0 ? (int64_t)a
                                                                     : (int64_t)(0 - 9223372036854775807LL - 1);
}
CPN_SI int64_t cpn_fpc_cvt(int kind, double a)
{
    switch (kind) {
    case CPN_FPC_CAST_I32:
        return a > -2147483649.0 && a < 2147483648.0 ? (int64_t)(int32_t)a : (int64_t)(-2147483647 - 1);
    case CPN_FPC_CAST_U64:
        if (a < 9223372036854775808.0 || a != a) return cpn_fpc_cvt_i64(a);
        return (int64_t)((uint64_t)cpn_fpc_cvt_i64(a - 9223372036854775808.0) ^ 0x8000000000000000ull);
    default:
        return cpn_fpc_cvt_i64(a);
    }
}

/* What an integer division (ops.def's INTDIV) reports: b == 0 divides by zero; with `quot` (a
 * signed quotient) MIN // -1 overflows, `min` being the dtype's MIN. */
CPN_SI unsigned cpn_fpe_intdiv(int64_t a, int64_t b, int quot, int64_t min)
{
    if (b == 0) return CPN_FPC_DIVIDE;
    return quot && b == -1 && a == min ? CPN_FPC_OVERFLOW : 0u;
}

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)   /* host C: the op table */
#include "op.h"

_Static_assert(CPN_FPC_NONE == (int)CPN_OPFPC_NONE && CPN_FPC_ARITH == (int)CPN_OPFPC_ARITH &&
                   CPN_FPC_DIV == (int)CPN_OPFPC_DIV && CPN_FPC_FLOORDIV == (int)CPN_OPFPC_FLOORDIV &&
                   CPN_FPC_RECIP == (int)CPN_OPFPC_RECIP && CPN_FPC_LOG1P == (int)CPN_OPFPC_LOG1P &&
                   CPN_FPC_ATANH == (int)CPN_OPFPC_ATANH && CPN_FPC_POW == (int)CPN_OPFPC_POW &&
                   CPN_FPC_NEXTAFTER == (int)CPN_OPFPC_NEXTAFTER &&
                   CPN_FPC_SPACING == (int)CPN_OPFPC_SPACING && CPN_FPC_LAE32 == (int)CPN_OPFPC_LAE,
               "ops.def's fpc values are fpclass.h's kinds");

/* The kind of element-wise op `code` (-1: a cast from float dtype `from` to `to`), for a float
 * loop dtype: ops.def's fpc column (SILENT ops report nothing: fpc NONE). */
static inline int cpn_fpc_kind_of(int code, enum cpn_dtype from, enum cpn_dtype to)
{
    if (code < 0) {
        if (from == to) return CPN_FPC_NONE;
        switch (to) {
        case CPN_DTYPE_BOOL: return CPN_FPC_NONE;
        case CPN_DTYPE_INT8: case CPN_DTYPE_UINT8: case CPN_DTYPE_INT16: case CPN_DTYPE_UINT16:
        case CPN_DTYPE_INT32: return CPN_FPC_CAST_I32;
        case CPN_DTYPE_INT64: case CPN_DTYPE_UINT32: return CPN_FPC_CAST_I64;
        case CPN_DTYPE_UINT64: return CPN_FPC_CAST_U64;
        default: return CPN_FPC_ARITH;   /* to a float: overflow when narrowing */
        }
    }
    if (code >= CPN_OP_COUNT) return CPN_FPC_NONE;
    const int kind = (int)cpn_op_info((enum cpn_opcode)code)->fpc;
    return kind == CPN_FPC_LAE32 && from != CPN_DTYPE_FLOAT32 ? CPN_FPC_LAE64 : kind;
}
#endif

#endif
