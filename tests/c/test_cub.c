/* test_cub.c: the CUDA backend's reductions, scans and argmax/argmin (cuda/reduce.cu through
 * cuda/reduce_op.c), without a GPU.
 *
 * cpn_cuda_reduce_op_host runs an op through the device path's own code -- devreduce.h's plan,
 * reduce_op.c's layouts (kept positions outer, merged dimensions), reduce.cu's conversions to the
 * work type, operators, starting values and stores -- on host memory, folding each row in order
 * where the GPU runs CUB.  Every op x dtype x accumulator x axes x layout the device covers is
 * compared with the CPU kernels (cpn_kernel_reduce / _scan / _argreduce).  The data are small
 * integers and halves, so float sums and products are exact in any order and every comparison
 * is exact (NaN equal to NaN). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "devreduce.h"
#include "kernels.h"
#include "reduce.h"
#include "store.h"
#include "view.h"

#include "check.h"

static const enum cpn_dtype dts[] = {
    CPN_DTYPE_BOOL, CPN_DTYPE_INT8, CPN_DTYPE_UINT8, CPN_DTYPE_INT16, CPN_DTYPE_UINT16,
    CPN_DTYPE_INT32, CPN_DTYPE_UINT32, CPN_DTYPE_INT64, CPN_DTYPE_UINT64, CPN_DTYPE_FLOAT32,
    CPN_DTYPE_FLOAT64};
#define NDT (int)(sizeof dts / sizeof dts[0])

static const double pattern[] = {1, -2, 0.5, 3, -1, 2, -0.5, 0, 1.5, 2, -1, 1};
#define NPAT (int)(sizeof pattern / sizeof pattern[0])

static int64_t checked;

/* Element i of a store of dtype dt set from double v (integers: truncated toward zero; unsigned
 * wrap). */
static void put(char *p, enum cpn_dtype dt, double v)
{
    int64_t iv = (int64_t)(v < 0 ? -floor(-v) : floor(v));
    switch (dt) {
    case CPN_DTYPE_BOOL: *(_Bool *)p = v != 0; break;
    case CPN_DTYPE_INT8: *(int8_t *)p = (int8_t)iv; break;
    case CPN_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)iv; break;
    case CPN_DTYPE_INT16: *(int16_t *)p = (int16_t)iv; break;
    case CPN_DTYPE_UINT16: *(uint16_t *)p = (uint16_t)iv; break;
    case CPN_DTYPE_INT32: *(int32_t *)p = (int32_t)iv; break;
    case CPN_DTYPE_UINT32: *(uint32_t *)p = (uint32_t)iv; break;
    case CPN_DTYPE_INT64: *(int64_t *)p = iv; break;
    case CPN_DTYPE_UINT64: *(uint64_t *)p = (uint64_t)iv; break;
    case CPN_DTYPE_FLOAT32: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
    }
}

static bool same(const char *a, const char *b, enum cpn_dtype dt)
{
    if (dt == CPN_DTYPE_FLOAT32) {
        float x = *(const float *)a, y = *(const float *)b;
        return x == y || (isnan(x) && isnan(y));
    }
    if (dt == CPN_DTYPE_FLOAT64) {
        double x = *(const double *)a, y = *(const double *)b;
        return x == y || (isnan(x) && isnan(y));
    }
    return !memcmp(a, b, cpn_dtype_size(dt));
}

/* A 3-d input of dtype dt, shape (3, 4, 5), laid out by `layout`: 0 C-contiguous, 1 transposed
 * from a (5, 3, 4) store, 2 every other element of a larger store, reversed along dim 1. */
static struct cpn_view *make_input(enum cpn_dtype dt, int layout, int seed, bool nan)
{
    int64_t shape[3] = {3, 4, 5};
    struct cpn_store *s;
    struct cpn_view *v;
    if (layout == 1) {
        int64_t sh[3] = {5, 3, 4};
        s = cpn_store_new(dt, 3, sh);
        struct cpn_view *r = cpn_view_new(s);
        int perm[3] = {1, 2, 0};
        CHECK(cpn_view_transpose(r, perm, &v) == CPN_OK);
        cpn_view_release(r);
    } else if (layout == 2) {
        int64_t sh[3] = {3, 8, 10};
        s = cpn_store_new(dt, 3, sh);
        struct cpn_view *r = cpn_view_new(s), *a;
        CHECK(cpn_view_slice(r, 1, 7, -2, 4, &a) == CPN_OK);
        CHECK(cpn_view_slice(a, 2, 0, 2, 5, &v) == CPN_OK);
        cpn_view_release(r);
        cpn_view_release(a);
    } else {
        s = cpn_store_new(dt, 3, shape);
        v = cpn_view_new(s);
    }
    char *base = cpn_store_data(s);
    int64_t st[3], off;
    cpn_view_byte_layout(v, st, &off);
    for (int64_t i = 0; i < 60; i++) {
        char *p = base + off + (i / 20) * st[0] + (i / 5 % 4) * st[1] + (i % 5) * st[2];
        double x = pattern[(i * 7 + seed) % NPAT];
        if (nan && (i == 13 || i == 22 || i == 41) && (dt == CPN_DTYPE_FLOAT32 || dt == CPN_DTYPE_FLOAT64)) x = NAN;
        put(p, dt, x);
    }
    cpn_store_release(s);   /* the view holds it */
    return v;
}

/* A fresh output view of `ndim` dims `shape`: contiguous, or (strided) every other element of a
 * larger store along its last dimension, reversed. */
static struct cpn_view *make_output(enum cpn_dtype dt, int ndim, const int64_t *shape, bool strided)
{
    int64_t sh[CPN_MAXDIM];
    memcpy(sh, shape, (size_t)ndim * sizeof *sh);
    if (strided && ndim > 0) sh[ndim - 1] *= 2;
    struct cpn_store *s = cpn_store_new(dt, ndim, sh);
    struct cpn_view *v = cpn_view_new(s), *r;
    cpn_store_release(s);
    memset(cpn_store_data(s), 0x5A, (size_t)cpn_view_size(v) * cpn_dtype_size(dt));
    if (!strided || ndim == 0) return v;
    CHECK(cpn_view_slice(v, ndim - 1, sh[ndim - 1] - 1, -2, shape[ndim - 1], &r) == CPN_OK);
    cpn_view_release(v);
    return r;
}

/* Compare the views a and b (same shape, dtype dt) element by element. */
static void compare(const struct cpn_view *a, const struct cpn_view *b, enum cpn_dtype dt, const char *what)
{
    int64_t sa[CPN_MAXDIM], sb[CPN_MAXDIM], oa, ob;
    cpn_view_byte_layout(a, sa, &oa);
    cpn_view_byte_layout(b, sb, &ob);
    const char *pa = (const char *)cpn_store_data(a->store) + oa, *pb = (const char *)cpn_store_data(b->store) + ob;
    int64_t n = cpn_view_size(a);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t q = i, da = 0, db = 0;
        for (int d = a->ndim - 1; d >= 0; d--) {
            da += (q % a->shape[d]) * sa[d];
            db += (q % a->shape[d]) * sb[d];
            q /= a->shape[d];
        }
        if (!same(pa + da, pb + db, dt)) bad++;
    }
    checked++;
    if (bad) printf("FAIL %s: %d of %lld differ\n", what, bad, (long long)n);
    CHECK(bad == 0);
}

static void in_layout(const struct cpn_view *v, int64_t *st, char **p)
{
    int64_t off;
    cpn_view_byte_layout(v, st, &off);
    *p = (char *)cpn_store_data(v->store) + off;
}

static void run_reduce(enum cpn_opkind kind, int code, enum cpn_dtype in_dt, enum cpn_dtype acc_dt, uint64_t axes,
                       int layout, bool strided_out, const union cpn_scalar *initial)
{
    struct cpn_view *in = make_input(in_dt, layout, (int)axes + code, true);
    int64_t oshape[CPN_MAXDIM];
    int ond = 0;
    for (int d = 0; d < 3; d++)
        if (!(axes >> d & 1)) oshape[ond++] = in->shape[d];
    enum cpn_dtype odt = kind == CPN_OPK_ARGREDUCE ? CPN_DTYPE_INT64 : acc_dt;
    struct cpn_view *out = make_output(odt, ond, oshape, strided_out), *ref = make_output(odt, ond, oshape, false);
    struct cpn_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.code = code;
    op.dtype = in_dt;
    op.nin = 1;
    op.nout = 1;
    op.in[0] = in;
    op.out[0] = out;
    op.axes = axes;
    if (initial) {
        op.iparam[0] = 1;
        op.scalar[1] = *initial;
    }
    char what[160];
    snprintf(what, sizeof what, "%s %s %s->%s axes %llu layout %d%s%s", kind == CPN_OPK_ARGREDUCE ? "arg" : "reduce",
             cpn_op_info(code)->name, cpn_dtype_name(in_dt), cpn_dtype_name(acc_dt), (unsigned long long)axes, layout,
             strided_out ? " strided out" : "", initial ? " initial" : "");
    CHECK(cpn_devred_plan(&op, NULL));
    struct cpn_fpreport fp = {0};
    enum cpn_status st = cpn_cuda_reduce_op_host(&op, &fp);
    if (st != CPN_OK) printf("FAIL %s: %s\n", what, cpn_error_message());
    CHECK(st == CPN_OK);
    int64_t ist[CPN_MAXDIM], rst[CPN_MAXDIM];
    char *ip, *rp;
    in_layout(in, ist, &ip);
    in_layout(ref, rst, &rp);
    if (kind == CPN_OPK_ARGREDUCE)
        st = cpn_kernel_argreduce(code, in_dt, ip, 3, in->shape, ist, axes, rp, rst);
    else
        st = cpn_kernel_reduce(code, in_dt, acc_dt, ip, 3, in->shape, ist, axes, rp, rst,
                               initial ? initial->bytes : NULL, NULL);
    CHECK(st == CPN_OK);
    compare(out, ref, odt, what);
    cpn_view_release(in);
    cpn_view_release(out);
    cpn_view_release(ref);
}

static void run_scan(int code, enum cpn_dtype dt, int axis, int layout, bool strided_out)
{
    struct cpn_view *in = make_input(dt, layout, axis + code, true);
    struct cpn_view *out = make_output(dt, 3, in->shape, strided_out), *ref = make_output(dt, 3, in->shape, false);
    struct cpn_op op;
    memset(&op, 0, sizeof op);
    op.kind = CPN_OPK_SCAN;
    op.code = code;
    op.dtype = dt;
    op.nin = 1;
    op.nout = 1;
    op.in[0] = in;
    op.out[0] = out;
    op.iparam[0] = axis;
    char what[160];
    snprintf(what, sizeof what, "scan %s %s axis %d layout %d%s", cpn_op_info(code)->name, cpn_dtype_name(dt), axis,
             layout, strided_out ? " strided out" : "");
    CHECK(cpn_devred_plan(&op, NULL));
    struct cpn_fpreport fp = {0};
    enum cpn_status st = cpn_cuda_reduce_op_host(&op, &fp);
    if (st != CPN_OK) printf("FAIL %s: %s\n", what, cpn_error_message());
    CHECK(st == CPN_OK);
    int64_t ist[CPN_MAXDIM], rst[CPN_MAXDIM];
    char *ip, *rp;
    in_layout(in, ist, &ip);
    in_layout(ref, rst, &rp);
    CHECK(cpn_kernel_scan(code, dt, ip, ist, rp, rst, 3, in->shape, axis, NULL) == CPN_OK);
    compare(out, ref, dt, what);
    cpn_view_release(in);
    cpn_view_release(out);
    cpn_view_release(ref);
}

static const int codes[] = {CPN_OP_ADD, CPN_OP_MULTIPLY, CPN_OP_MAXIMUM, CPN_OP_MINIMUM};

static void test_reductions(void)
{
    for (int t = 0; t < NDT; t++)
        for (int c = 0; c < 4; c++)
            for (uint64_t axes = 1; axes < 8; axes++)
                for (int layout = 0; layout < 3; layout++)
                    run_reduce(CPN_OPK_REDUCE, codes[c], dts[t], dts[t], axes, layout, layout == 2, NULL);
    /* accumulators other than the input dtype: NumPy's defaults and dtype= (wrapping, casts) */
    static const enum cpn_dtype pairs[][2] = {
        {CPN_DTYPE_BOOL, CPN_DTYPE_INT64}, {CPN_DTYPE_INT8, CPN_DTYPE_INT64}, {CPN_DTYPE_UINT16, CPN_DTYPE_UINT64},
        {CPN_DTYPE_INT32, CPN_DTYPE_INT8}, {CPN_DTYPE_INT64, CPN_DTYPE_UINT8}, {CPN_DTYPE_INT16, CPN_DTYPE_FLOAT64},
        {CPN_DTYPE_UINT64, CPN_DTYPE_FLOAT32}, {CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT64},
        {CPN_DTYPE_FLOAT64, CPN_DTYPE_FLOAT32}, {CPN_DTYPE_FLOAT64, CPN_DTYPE_BOOL}, {CPN_DTYPE_INT32, CPN_DTYPE_BOOL}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        for (int c = 0; c < 4; c++)
            for (uint64_t axes = 1; axes < 8; axes += 2)
                run_reduce(CPN_OPK_REDUCE, codes[c], pairs[k][0], pairs[k][1], axes, 1, true, NULL);
    /* any / all as logical_or / logical_and into bool */
    for (uint64_t axes = 1; axes < 8; axes++) {
        run_reduce(CPN_OPK_REDUCE, CPN_OP_LOGICAL_OR, CPN_DTYPE_BOOL, CPN_DTYPE_BOOL, axes, 2, false, NULL);
        run_reduce(CPN_OPK_REDUCE, CPN_OP_LOGICAL_AND, CPN_DTYPE_BOOL, CPN_DTYPE_BOOL, axes, 0, true, NULL);
    }
    /* initial values */
    union cpn_scalar init;
    for (int t = 0; t < NDT; t++)
        for (int c = 0; c < 4; c++) {
            memset(&init, 0, sizeof init);
            put((char *)init.bytes, dts[t], c == 1 ? -2.0 : 2.5);
            run_reduce(CPN_OPK_REDUCE, codes[c], dts[t], dts[t], 2, 0, false, &init);
            run_reduce(CPN_OPK_REDUCE, codes[c], dts[t], dts[t], 5, 2, true, &init);
        }
}

static void test_argreductions(void)
{
    for (int t = 0; t < NDT; t++)
        for (int c = 2; c < 4; c++)
            for (uint64_t axes = 1; axes < 8; axes++)
                for (int layout = 0; layout < 3; layout++)
                    run_reduce(CPN_OPK_ARGREDUCE, codes[c], dts[t], dts[t], axes, layout, layout == 1, NULL);
}

static void test_scans(void)
{
    for (int t = 0; t < NDT; t++)
        for (int c = 0; c < 4; c++)
            for (int axis = 0; axis < 3; axis++)
                for (int layout = 0; layout < 3; layout++)
                    run_scan(codes[c], dts[t], axis, layout, layout != 1);
}

/* What the device declines, the plan declines (the host runs it). */
static void test_plan_declines(void)
{
    int64_t shape[2] = {3, 4}, empty[2] = {0, 4};
    struct cpn_store *s16 = cpn_store_new(CPN_DTYPE_FLOAT16, 2, shape), *sc = cpn_store_new(CPN_DTYPE_COMPLEX128, 2, shape);
    struct cpn_store *sf = cpn_store_new(CPN_DTYPE_FLOAT64, 2, shape), *se = cpn_store_new(CPN_DTYPE_FLOAT64, 2, empty);
    struct cpn_store *si = cpn_store_new(CPN_DTYPE_INT32, 1, shape + 1), *sf1 = cpn_store_new(CPN_DTYPE_FLOAT64, 1, shape + 1);
    struct cpn_view *v16 = cpn_view_new(s16), *vc = cpn_view_new(sc), *vf = cpn_view_new(sf), *ve = cpn_view_new(se);
    struct cpn_view *vi = cpn_view_new(si), *vf1 = cpn_view_new(sf1);
    struct cpn_op op;
    memset(&op, 0, sizeof op);
    op.kind = CPN_OPK_REDUCE;
    op.code = CPN_OP_ADD;
    op.nin = op.nout = 1;
    op.axes = 1;
    op.in[0] = vf;
    op.out[0] = vf1;
    struct cpn_devred_plan pl;
    CHECK(cpn_devred_plan(&op, &pl) && pl.op == CPN_DRO_ADD && pl.work == CPN_DRW_F64);
    op.out[0] = vi;                       /* float -> int accumulator */
    CHECK(!cpn_devred_plan(&op, NULL));
    struct cpn_fpreport none = {0};
    CHECK(cpn_cuda_reduce_op_host(&op, &none) == CPN_ERR_UNSUPPORTED);
    op.out[0] = vf1;
    op.code = CPN_OP_BITWISE_OR;
    CHECK(!cpn_devred_plan(&op, NULL));
    op.code = CPN_OP_ADD;
    op.in[0] = v16;
    CHECK(!cpn_devred_plan(&op, NULL));
    op.in[0] = vc;
    CHECK(!cpn_devred_plan(&op, NULL));
    op.in[0] = ve;                        /* empty */
    CHECK(!cpn_devred_plan(&op, NULL));
    op.in[0] = vf;
    op.code = CPN_OP_LOGICAL_OR;          /* into float64: not bool */
    CHECK(!cpn_devred_plan(&op, NULL));
    op.kind = CPN_OPK_SCAN;
    op.code = CPN_OP_ADD;
    op.out[0] = vf;
    op.iparam[0] = 2;                     /* no such axis */
    CHECK(!cpn_devred_plan(&op, NULL));
    op.iparam[0] = 1;
    CHECK(cpn_devred_plan(&op, &pl) && pl.work == CPN_DRW_F64);
    cpn_view_release(v16);
    cpn_view_release(vc);
    cpn_view_release(vf);
    cpn_view_release(ve);
    cpn_view_release(vi);
    cpn_view_release(vf1);
    cpn_store_release(s16);
    cpn_store_release(sc);
    cpn_store_release(sf);
    cpn_store_release(se);
    cpn_store_release(si);
    cpn_store_release(sf1);
}

int main(void)
{
    test_plan_declines();
    test_reductions();
    test_argreductions();
    test_scans();
    printf("%lld comparisons, %d device variants\n", (long long)checked, cpn_cub_variant_count());
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
