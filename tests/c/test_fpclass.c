/* test_fpclass.c: fpclass.h's rules against what the CPU loops actually raise.
 *
 * For every element-wise op the device runs (one output, inputs of the loop dtype; two outputs
 * and ldexp's int64 exponent in test_two_out) on float32 and float64, every float -> device dtype cast, and every integer division, over a grid of
 * special values (signed zeros, the smallest subnormal, the smallest normal, +-1, +-2, the
 * largest finite values, the infinities, NaN...), the CPU loop runs on one element with the
 * status flags cleared; what it raised (fetestexcept) plus what it found itself (ctx.fpe) must
 * equal the classification of its inputs and result; a float -> integer cast must also give the
 * value cpn_fpc_cvt emulates (the device's conversions saturate; NumPy's x86 ones do not).  The operands have stride 0, so the loops
 * are scalar.h's (the arithmetic the device runs), not vmath.c's vector overrides for contiguous
 * operands: those scan their results for NumPy's cases and agree with these rules except for
 * logaddexp/logaddexp2, whose scan misses the 'invalid' of a NaN input and the overflow of
 * x - y that NumPy (and the scalar loops) report -- a host departure, not the device's.
 * Underflow is masked out: fpclass.h does not classify it (documented there).  No expected
 * values are written here: the CPU loops are the reference. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpclass.h"
#include "kernels.h"

#include "check.h"

static unsigned hw_flags(void)
{
    int e = fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_INVALID);
    return (e & FE_DIVBYZERO ? CPN_FPE_DIVIDE : 0u) | (e & FE_OVERFLOW ? CPN_FPE_OVERFLOW : 0u) |
           (e & FE_INVALID ? CPN_FPE_INVALID : 0u);
}

#define NGRID 20
static void grid(enum cpn_dtype dt, double *g)
{
    const int f = dt == CPN_DTYPE_FLOAT32;
    const double v[NGRID] = {0.0, -0.0, f ? FLT_TRUE_MIN : DBL_TRUE_MIN, f ? FLT_MIN : DBL_MIN, 1.0, -1.0,
                             2.0, -2.0, 0.5, 3.5, -3.5, 100.0, -1000.0,
                             f ? FLT_MAX : DBL_MAX, f ? -FLT_MAX : -DBL_MAX, INFINITY, -INFINITY, NAN,
                             1e30, -1e-30};
    memcpy(g, v, sizeof v);
}

/* Run `fn` on one element: inputs a (and b), output into out (16 bytes). */
static unsigned run(cpn_loop_fn fn, int nin, enum cpn_dtype dt, double a, double b, char *out)
{
    float fa = (float)a, fb = (float)b;
    char *args[3];
    const int64_t st[3] = {0, 0, 0};
    args[0] = dt == CPN_DTYPE_FLOAT32 ? (char *)&fa : (char *)&a;
    args[1] = nin == 2 ? (dt == CPN_DTYPE_FLOAT32 ? (char *)&fb : (char *)&b) : out;
    args[2] = out;
    struct cpn_kctx ctx = {0};
    feclearexcept(FE_ALL_EXCEPT);
    fn(args, st, 1, &ctx);
    unsigned f = hw_flags() | ctx.fpe;
    feclearexcept(FE_ALL_EXCEPT);
    return f & ~(unsigned)CPN_FPE_UNDERFLOW;
}

static double as_double(enum cpn_dtype dt, const char *p)
{
    if (dt == CPN_DTYPE_FLOAT32) {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

static int mismatches_shown;
static void report(const char *what, enum cpn_dtype dt, double a, double b, unsigned got, unsigned want)
{
    if (mismatches_shown++ < 100000)
        printf("MISMATCH %s %s a=%g b=%g: CPU loop raised %#x, fpclass.h says %#x\n", what,
               cpn_dtype_name(dt), a, b, got, want);
}

static void test_ops(void)
{
    const enum cpn_dtype fdts[] = {CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT64};
    int cases = 0;
    for (int code = 0; code < CPN_OP_COUNT; code++) {
        const struct cpn_op_info *info = cpn_op_info((enum cpn_opcode)code);
        if (info->nout != 1 || info->nin > 2 || info->in1 != CPN_RESULT_SAME) continue;
        for (int d = 0; d < 2; d++) {
            enum cpn_dtype dt = fdts[d];
            if (!((info->dtypes >> dt) & 1u)) continue;
            if (cpn_op_out_dtype((enum cpn_opcode)code, 0, dt) != dt) continue;   /* bool results: SILENT */
            cpn_loop_fn fn = cpn_kernel_elementwise((enum cpn_opcode)code, dt);
            CHECK(fn != NULL);
            if (!fn) continue;
            const int kind = cpn_fpc_kind_of(code, dt, dt);
            double g[NGRID];
            grid(dt, g);
            for (int i = 0; i < NGRID; i++)
                for (int j = 0; j < (info->nin == 2 ? NGRID : 1); j++) {
                    char out[16];
                    double a = g[i], b = info->nin == 2 ? g[j] : 0.0;
                    unsigned got = run(fn, info->nin, dt, a, b, out);
                    if (kind == CPN_FPC_NONE) got = 0;   /* SILENT: the executor ignores the flags */
                    unsigned want = cpn_fpe_classify(kind, a, b, as_double(dt, out));
                    if (got != want) report(info->name, dt, a, b, got, want);
                    CHECK(got == want);
                    cases++;
                }
        }
    }
    printf("ops: %d cases\n", cases);
}

/* The other forms the device runs (cuda/codegen.c): two outputs (divmod, modf, frexp) report
 * the op's rule on output 0 plus, for a float output 1 (divmod's remainder, modf's integral
 * part), the ARITH rule on it; ldexp (an int64 exponent) the ARITH rule on its result. */
static void test_two_out(void)
{
    const enum cpn_dtype fdts[] = {CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT64};
    const int64_t exps[] = {0, 1, -1, 2, 100, -100, 127, 128, -149, -150, 1023, 1024, -1074, -1075,
                            2000, -2000, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN};
    const int nexp = (int)(sizeof exps / sizeof exps[0]);
    int cases = 0;
    for (int code = 0; code < CPN_OP_COUNT; code++) {
        const struct cpn_op_info *info = cpn_op_info((enum cpn_opcode)code);
        if (info->nout != 2 && info->in1 == CPN_RESULT_SAME) continue;
        for (int d = 0; d < 2; d++) {
            const enum cpn_dtype dt = fdts[d];
            if (!((info->dtypes >> dt) & 1u)) continue;
            cpn_loop_fn fn = cpn_kernel_elementwise((enum cpn_opcode)code, dt);
            CHECK(fn != NULL);
            if (!fn) continue;
            const int kind = cpn_fpc_kind_of(code, dt, dt);
            const enum cpn_dtype dt1 = info->nout == 2 ? cpn_op_out_dtype((enum cpn_opcode)code, 1, dt) : CPN_DTYPE_BOOL;
            double g[NGRID];
            grid(dt, g);
            const bool i64 = info->in1 == CPN_RESULT_I64;
            for (int i = 0; i < NGRID; i++)
                for (int j = 0; j < (i64 ? nexp : info->nin == 2 ? NGRID : 1); j++) {
                    char out0[16] = {0}, out1[16] = {0};
                    double a = g[i], b = i64 ? (double)exps[j] : info->nin == 2 ? g[j] : 0.0;
                    float fa = (float)a, fb = (float)b;
                    int64_t n = i64 ? exps[j] : 0;
                    char *args[4];
                    const int64_t st[4] = {0, 0, 0, 0};
                    int na = 0;
                    args[na++] = dt == CPN_DTYPE_FLOAT32 ? (char *)&fa : (char *)&a;
                    if (i64) args[na++] = (char *)&n;
                    else if (info->nin == 2) args[na++] = dt == CPN_DTYPE_FLOAT32 ? (char *)&fb : (char *)&b;
                    args[na++] = out0;
                    args[na++] = out1;
                    struct cpn_kctx ctx = {0};
                    feclearexcept(FE_ALL_EXCEPT);
                    fn(args, st, 1, &ctx);
                    unsigned got = (hw_flags() | ctx.fpe) & ~(unsigned)CPN_FPE_UNDERFLOW;
                    feclearexcept(FE_ALL_EXCEPT);
                    unsigned want = cpn_fpe_classify(kind, a, b, as_double(dt, out0));
                    if (info->nout == 2 && cpn_dtype_class(dt1) == CPN_CLASS_FLOAT)
                        want |= cpn_fpe_classify(CPN_FPC_ARITH, a, b, as_double(dt, out1));
                    if (got != want) report(info->name, dt, a, b, got, want);
                    CHECK(got == want);
                    cases++;
                }
        }
    }
    printf("two outputs and ldexp: %d cases\n", cases);
}

static void test_casts(void)
{
    const enum cpn_dtype fdts[] = {CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT64};
    const double extra[] = {127.9, -128.9, 255.5, 65535.5, 2147483647.0, -2147483648.0, 2147483648.0,
                            -2147483649.5, 4294967296.0, 9.3e18, -9.3e18, 9.223372036854775807e18,
                            1.8e19, 1.9e19, -1.0e19};
    int cases = 0;
    for (int d = 0; d < 2; d++)
        for (int to = 0; to < CPN_DTYPE_COUNT; to++) {
            enum cpn_dtype from = fdts[d];
            if (to == CPN_DTYPE_FLOAT16 || to == CPN_DTYPE_COMPLEX64 || to == CPN_DTYPE_COMPLEX128) continue;
            cpn_loop_fn fn = cpn_kernel_cast(from, (enum cpn_dtype)to);
            const int kind = cpn_fpc_kind_of(-1, from, (enum cpn_dtype)to);
            double g[NGRID + 15];
            grid(from, g);
            memcpy(g + NGRID, extra, sizeof extra);
            for (int i = 0; i < NGRID + 15; i++) {
                char out[16];
                double a = from == CPN_DTYPE_FLOAT32 ? (double)(float)g[i] : g[i];
                unsigned got = run(fn, 1, from, a, 0, out);
                if (kind >= CPN_FPC_CAST_I32) {   /* the device's conversion gives the CPU's value */
                    int64_t v = cpn_fpc_cvt(kind, a);
                    char emu[16];
                    cpn_loop_fn narrow = cpn_kernel_cast(CPN_DTYPE_INT64, (enum cpn_dtype)to);
                    char *nargs[2] = {(char *)&v, emu};
                    const int64_t nst[2] = {0, 0};
                    struct cpn_kctx nctx = {0};
                    narrow(nargs, nst, 1, &nctx);   /* int64 -> target: truncation */
                    const size_t sz = cpn_dtype_size((enum cpn_dtype)to);
                    if (memcmp(emu, out, sz)) {
                        if (mismatches_shown++ < 100000)
                            printf("MISMATCH cast %s -> %s of %g: value differs\n", cpn_dtype_name(from),
                                   cpn_dtype_name((enum cpn_dtype)to), a);
                    }
                    CHECK(!memcmp(emu, out, sz));
                }
                unsigned want = kind >= CPN_FPC_CAST_I32 ? cpn_fpe_cast(kind, a)
                              : to == CPN_DTYPE_FLOAT32 || to == CPN_DTYPE_FLOAT64
                                  ? cpn_fpe_classify(kind, a, 0, as_double((enum cpn_dtype)to, out))
                                  : 0u;
                if (got != want) report(cpn_dtype_name((enum cpn_dtype)to), from, a, 0, got, want);
                CHECK(got == want);
                cases++;
            }
        }
    printf("casts: %d cases\n", cases);
}

/* Integer division: the loops' own findings (ctx.fpe). */
#define INTDIV_CASES(S, T, MIN, MAX, SIGNED)                                                     \
    do {                                                                                          \
        const T vals[] = {(T)0, (T)1, (T)-1, (T)7, (T)-7, (T)(MIN), (T)(MAX)};                   \
        cpn_loop_fn fn = cpn_kernel_elementwise((enum cpn_opcode)code, S);                       \
        const int quot = SIGNED && (info->flags & CPN_OPF_QUOTIENT);                              \
        for (int i = 0; i < 7; i++)                                                               \
            for (int j = 0; j < 7; j++) {                                                         \
                T a = vals[i], b = vals[j], o = 0;                                                \
                char *args[3] = {(char *)&a, (char *)&b, (char *)&o};                             \
                const int64_t st[3] = {0, 0, 0};                                                  \
                struct cpn_kctx ctx = {0};                                                        \
                fn(args, st, 1, &ctx);                                                            \
                unsigned want = cpn_fpe_intdiv((int64_t)a, (int64_t)b, quot, (int64_t)(MIN));     \
                if (ctx.fpe != want) report(info->name, S, (double)a, (double)b, ctx.fpe, want);  \
                CHECK(ctx.fpe == want);                                                           \
                cases++;                                                                          \
            }                                                                                     \
    } while (0)

static void test_intdiv(void)
{
    int cases = 0;
    for (int code = 0; code < CPN_OP_COUNT; code++) {
        const struct cpn_op_info *info = cpn_op_info((enum cpn_opcode)code);
        if (!(info->flags & CPN_OPF_INTDIV) || info->nout != 1) continue;
        if ((info->dtypes >> CPN_DTYPE_INT8) & 1u) {
            INTDIV_CASES(CPN_DTYPE_INT8, int8_t, INT8_MIN, INT8_MAX, 1);
            INTDIV_CASES(CPN_DTYPE_INT16, int16_t, INT16_MIN, INT16_MAX, 1);
            INTDIV_CASES(CPN_DTYPE_INT32, int32_t, INT32_MIN, INT32_MAX, 1);
            INTDIV_CASES(CPN_DTYPE_INT64, int64_t, INT64_MIN, INT64_MAX, 1);
        }
        if ((info->dtypes >> CPN_DTYPE_UINT8) & 1u) {
            INTDIV_CASES(CPN_DTYPE_UINT8, uint8_t, 0, UINT8_MAX, 0);
            INTDIV_CASES(CPN_DTYPE_UINT32, uint32_t, 0, UINT32_MAX, 0);
            INTDIV_CASES(CPN_DTYPE_UINT64, uint64_t, 0, UINT64_MAX, 0);
        }
    }
    printf("integer division: %d cases\n", cases);
}

int main(void)
{
    test_ops();
    test_two_out();
    test_casts();
    test_intdiv();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
