/* test_cub_fpe.c: the floating-point reports of the device's reductions and scans (cuda/reduce.cu)
 * against the status flags the CPU kernels raise, without a GPU.
 *
 * cpn_cuda_reduce_op_host runs a watched op through reduce.cu's own classification (the functions
 * its gather and scatter kernels call) on host memory and ORs the findings into the report it is
 * given; the CPU kernels (cpn_kernel_reduce / _scan) raise the status flags NumPy's
 * loops raise.  Every row of 3 values drawn from a set of special values (zeros, ones, values
 * whose sum or product overflows, values that overflow the float64 -> float32 accumulator cast,
 * infinities, NaN, tiny values) is reduced and scanned with add and multiply on float32, float64
 * and float64 -> float32, also with special starting values, and the two sets of flags are
 * compared.  Underflow is not compared (the device never reports it).  The departures the
 * rules allow (reduce.cu): a reduce row holding a NaN reports nothing the CPU does not (the CPU
 * reports what its order raised before the NaN), one holding an infinity may miss an overflow
 * among its finite values; they are counted, and nothing else may differ.  Rows of 3 are folded
 * sequentially by both (NumPy's pairwise sum folds fewer than 8 values in order), so the results,
 * and hence the flags, are the same computation -- except for a product with a starting value,
 * which NumPy multiplies in first and CUB last: those whose values differ are counted, not
 * compared. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "devreduce.h"
#include "kernels.h"
#include "reduce.h"
#include "store.h"
#include "view.h"

#include "check.h"

#define REPORTED (CPN_FPE_DIVIDE | CPN_FPE_OVERFLOW | CPN_FPE_INVALID)
#define ROW 3

static int64_t compared, departures, reordered;

/* The special values of a float dtype (float64 -> float32 adds values beyond float32's range). */
static int specials(enum cpn_dtype dt, bool cast, double *v)
{
    const double big = dt == CPN_DTYPE_FLOAT32 && !cast ? 0.75 * FLT_MAX : 0.75 * DBL_MAX;
    const double tiny = dt == CPN_DTYPE_FLOAT32 && !cast ? 1e-30 : 1e-200;
    int n = 0;
    v[n++] = 0.0;
    v[n++] = -0.0;
    v[n++] = 1.0;
    v[n++] = -1.5;
    v[n++] = big;
    v[n++] = -big;
    v[n++] = tiny;
    v[n++] = INFINITY;
    v[n++] = -INFINITY;
    v[n++] = NAN;
    if (cast) {
        v[n++] = 1e300;   /* finite in float64, overflows in float32 */
        v[n++] = 2.0 * FLT_MAX;
    }
    return n;
}

static void put(char *p, enum cpn_dtype dt, double x)
{
    if (dt == CPN_DTYPE_FLOAT32) *(float *)p = (float)x;
    else *(double *)p = x;
}

static bool finite_row(const double *x, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

/* The flags of one watched op run by the device path (host mode), and by the CPU kernels. */
static unsigned device_flags(struct cpn_op *op)
{
    struct cpn_fpreport fp = {0};
    enum cpn_status st = cpn_cuda_reduce_op_host(op, &fp);
    if (st != CPN_OK) printf("FAIL: %s\n", cpn_error_message());
    CHECK(st == CPN_OK);
    CHECK(fp.sw == 0 && !fp.dev);
    return fp.hw & REPORTED;
}

static unsigned cpu_flags(const struct cpn_fpreport *fp) { return (fp->hw | fp->sw) & REPORTED; }

static void check_flags(const char *what, const double *x, int n, const double *init, unsigned dev, unsigned cpu,
                        bool reduce)
{
    compared++;
    if (dev == cpu) return;
    bool nan = false, nonfinite = !finite_row(x, n) || (init && !isfinite(*init));
    for (int i = 0; i < n; i++) nan |= isnan(x[i]);
    nan |= init && isnan(*init);
    /* reduce.cu's departures: a row with a NaN reports no more than the CPU (which reports what
     * came before the NaN in its order), one with an infinity may miss an overflow */
    const unsigned missed = cpu & ~dev;
    if (reduce && !(dev & ~cpu) && (nan || (nonfinite && missed == CPN_FPE_OVERFLOW))) {
        departures++;
        return;
    }
    printf("FAIL %s [%g %g %g]%s%g: device %#x, CPU %#x\n", what, x[0], x[1], x[2], init ? " initial " : "",
           init ? *init : 0.0, dev, cpu);
    CHECK(dev == cpu);
}

static void run(int code, enum cpn_dtype in_dt, enum cpn_dtype acc_dt)
{
    double v[16];
    const int nv = specials(acc_dt, in_dt != acc_dt, v);
    int64_t shape[1] = {ROW};
    struct cpn_store *si = cpn_store_new(in_dt, 1, shape), *so = cpn_store_new(acc_dt, 0, shape);
    struct cpn_store *ss = cpn_store_new(acc_dt, 1, shape), *sr = cpn_store_new(acc_dt, 1, shape);
    struct cpn_view *in = cpn_view_new(si), *out = cpn_view_new(so), *scan = cpn_view_new(ss);
    char *ip = cpn_store_data(si), *op_ = cpn_store_data(so), *sp = cpn_store_data(ss), *rp = cpn_store_data(sr);
    const size_t isz = cpn_dtype_size(in_dt);
    int64_t ist[1] = {(int64_t)isz}, ost[1] = {0}, sst[1] = {(int64_t)cpn_dtype_size(acc_dt)};
    char what[96];
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++)
            for (int c = 0; c < nv; c++) {
                const double x[ROW] = {v[a], v[b], v[c]};
                for (int i = 0; i < ROW; i++) put(ip + i * isz, in_dt, x[i]);
                struct cpn_op op;
                memset(&op, 0, sizeof op);
                op.kind = CPN_OPK_REDUCE;
                op.code = code;
                op.dtype = acc_dt;
                op.fpmode = 1;   /* watched: divide warns */
                op.nin = op.nout = 1;
                op.in[0] = in;
                op.out[0] = out;
                op.axes = 1;
                CHECK(cpn_devred_plan(&op, NULL));
                /* reduce, without and with each special starting value (rows of the first 4) */
                for (int k = -1; k < (a < 4 ? nv : 0); k++) {
                    union cpn_scalar init;
                    memset(&init, 0, sizeof init);
                    op.iparam[0] = k >= 0;
                    if (k >= 0) {
                        put((char *)init.bytes, acc_dt, v[k]);
                        op.scalar[1] = init;
                    }
                    const unsigned dev = device_flags(&op);
                    const double got = acc_dt == CPN_DTYPE_FLOAT32 ? *(float *)op_ : *(double *)op_;
                    struct cpn_fpreport fp = {0};
                    CHECK(cpn_kernel_reduce(code, in_dt, acc_dt, ip, 1, shape, ist, 1, rp, ost,
                                            k >= 0 ? init.bytes : NULL, &fp) == CPN_OK);
                    const unsigned cpu = cpu_flags(&fp);
                    const double want = acc_dt == CPN_DTYPE_FLOAT32 ? *(float *)rp : *(double *)rp;
                    if (!(got == want || (isnan(got) && isnan(want)))) {
                        /* NumPy multiplies the start in first, CUB (and its emulation) last:
                         * where that order matters (an overflow), values and flags differ */
                        CHECK(code == CPN_OP_MULTIPLY && k >= 0);
                        reordered++;
                        continue;
                    }
                    snprintf(what, sizeof what, "reduce %s %s->%s", cpn_op_info(code)->name, cpn_dtype_name(in_dt),
                             cpn_dtype_name(acc_dt));
                    check_flags(what, x, ROW, k >= 0 ? &v[k] : NULL, dev, cpu, true);
                }
                if (in_dt != acc_dt) continue;
                /* scan */
                memset(&op, 0, sizeof op);
                op.kind = CPN_OPK_SCAN;
                op.code = code;
                op.dtype = acc_dt;
                op.fpmode = 1;
                op.nin = op.nout = 1;
                op.in[0] = in;
                op.out[0] = scan;
                op.iparam[0] = 0;
                CHECK(cpn_devred_plan(&op, NULL));
                const unsigned dev = device_flags(&op);
                struct cpn_fpreport fp = {0};
                CHECK(cpn_kernel_scan(code, acc_dt, ip, ist, rp, sst, 1, shape, 0, &fp) == CPN_OK);
                const unsigned cpu = cpu_flags(&fp);
                for (int i = 0; i < ROW; i++) {   /* the same values, so the same computation */
                    const double g = acc_dt == CPN_DTYPE_FLOAT32 ? ((float *)sp)[i] : ((double *)sp)[i];
                    const double w = acc_dt == CPN_DTYPE_FLOAT32 ? ((float *)rp)[i] : ((double *)rp)[i];
                    CHECK(g == w || (isnan(g) && isnan(w)));
                }
                snprintf(what, sizeof what, "scan %s %s", cpn_op_info(code)->name, cpn_dtype_name(acc_dt));
                check_flags(what, x, ROW, NULL, dev, cpu, false);
            }
    cpn_view_release(in);
    cpn_view_release(out);
    cpn_view_release(scan);
    cpn_store_release(si);
    cpn_store_release(so);
    cpn_store_release(ss);
    cpn_store_release(sr);
}

/* An op that is not watched (no error mode) hands nothing over. */
static void test_unwatched(void)
{
    int64_t shape[1] = {2};
    struct cpn_store *si = cpn_store_new(CPN_DTYPE_FLOAT64, 1, shape), *so = cpn_store_new(CPN_DTYPE_FLOAT64, 0, shape);
    struct cpn_view *in = cpn_view_new(si), *out = cpn_view_new(so);
    double *x = (double *)cpn_store_data(si);
    x[0] = x[1] = DBL_MAX;
    struct cpn_op op;
    memset(&op, 0, sizeof op);
    op.kind = CPN_OPK_REDUCE;
    op.code = CPN_OP_ADD;
    op.dtype = CPN_DTYPE_FLOAT64;
    op.nin = op.nout = 1;
    op.in[0] = in;
    op.out[0] = out;
    op.axes = 1;
    CHECK(device_flags(&op) == 0);
    op.fpmode = 1;
    CHECK(device_flags(&op) == CPN_FPE_OVERFLOW);
    cpn_view_release(in);
    cpn_view_release(out);
    cpn_store_release(si);
    cpn_store_release(so);
}

int main(void)
{
    test_unwatched();
    static const int codes[] = {CPN_OP_ADD, CPN_OP_MULTIPLY};
    for (int c = 0; c < 2; c++) {
        run(codes[c], CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT32);
        run(codes[c], CPN_DTYPE_FLOAT64, CPN_DTYPE_FLOAT64);
        run(codes[c], CPN_DTYPE_FLOAT64, CPN_DTYPE_FLOAT32);
    }
    printf("%lld flag comparisons, %lld allowed departures, %lld products with a start in another order\n",
           (long long)compared, (long long)departures, (long long)reordered);
    CHECK(compared > 0);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
