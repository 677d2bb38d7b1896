/* test_cub_select.c: the CUDA backend's selection and indexing (cuda/select.cu through
 * cuda/select_op.c), without a GPU.
 *
 * cpn_cuda_select_op with stream CPN_CUB_HOST runs an op through the device path's own code --
 * devselect.h's coverage, select_op.c's layouts, select.cu's flags, positions, row keys and
 * writes -- on host memory, with a sequential prefix sum and a stable sort where the GPU runs
 * CUB's scan and radix sort.  COMPACT, NONZERO, GATHER and the plain SCATTER over item sizes 1 to
 * 16 x 0- to 3-d shapes (empty ones too) x contiguous, transposed and reversed-strided layouts of
 * every operand x masks all false, all true and random x indices with negatives and repeats are
 * compared bit for bit with the CPU kernels (csrc/kernels/compact.c); a scatter compares the
 * whole destination store (nothing outside the view written, the last of repeated indices
 * kept); the integer dtypes' add/subtract/multiply/maximum/minimum.at against the CPU's
 * sequential ufunc.at loop (cpn_kernel_scatter_apply). */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "devselect.h"
#include "kernels.h"
#include "select.h"
#include "store.h"
#include "view.h"

#include "check.h"

static const enum cpn_dtype dts[] = {CPN_DTYPE_BOOL, CPN_DTYPE_INT16, CPN_DTYPE_FLOAT32, CPN_DTYPE_FLOAT64,
                                     CPN_DTYPE_COMPLEX128};
#define NDT (int)(sizeof dts / sizeof dts[0])

static int64_t checked;

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* A view of `shape` (nd dims) of dtype dt in a store of its own: layout 0 C-contiguous, 1
 * transposed (a store of the reversed shape), 2 every other element of a store twice as long
 * along the last dimension, reversed.  *sbytes: the store's size in bytes. */
static struct cpn_view *make(enum cpn_dtype dt, int nd, const int64_t *shape, int layout, int64_t *sbytes)
{
    int64_t sh[CPN_MAXDIM] = {0};
    int perm[CPN_MAXDIM];
    for (int d = 0; d < nd; d++) {
        sh[d] = layout == 1 ? shape[nd - 1 - d] : shape[d];
        perm[d] = nd - 1 - d;
    }
    if (layout == 2 && nd) sh[nd - 1] *= 2;
    struct cpn_store *s = cpn_store_new(dt, nd, sh);
    struct cpn_view *v = cpn_view_new(s), *r = NULL;
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= sh[d];
    *sbytes = n * (int64_t)cpn_dtype_size(dt);
    memset(cpn_store_data(s), 0x5A, (size_t)*sbytes);
    cpn_store_release(s);   /* the view holds it */
    if (layout == 1 && nd > 1) CHECK(cpn_view_transpose(v, perm, &r) == CPN_OK);
    if (layout == 2 && nd)
        CHECK(cpn_view_slice(v, nd - 1, sh[nd - 1] ? sh[nd - 1] - 1 : 0, -2, shape[nd - 1], &r) == CPN_OK);
    if (!r) return v;
    cpn_view_release(v);
    return r;
}

/* Element i (C order) of v. */
static char *at(const struct cpn_view *v, int64_t i)
{
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    for (int d = v->ndim - 1; d >= 0; d--) {
        off += (i % v->shape[d]) * st[d];
        i /= v->shape[d];
    }
    return (char *)cpn_store_data(v->store) + off;
}

/* Random bytes in every element of v; a bool view gets 0/1 (density: 0 none, 1 all, 2 random). */
static void fill(struct cpn_view *v, uint64_t seed, int density)
{
    const size_t item = cpn_dtype_size(v->dtype);
    for (int64_t i = 0; i < cpn_view_size(v); i++) {
        char *p = at(v, i);
        if (v->dtype == CPN_DTYPE_BOOL) *p = density == 2 ? rnd(&seed) % 3 == 0 : density;
        else for (size_t b = 0; b < item; b++) p[b] = (char)rnd(&seed);
    }
}

static struct cpn_view *make_index(int64_t m, int64_t n, int layout, uint64_t seed, int64_t *sbytes)
{
    struct cpn_view *v = make(CPN_DTYPE_INT64, 1, &m, layout ? 2 : 0, sbytes);
    for (int64_t j = 0; j < m; j++) *(int64_t *)at(v, j) = (int64_t)(rnd(&seed) % (uint64_t)(2 * n)) - n;
    return v;
}

static void run(struct cpn_op *op, const char *what)
{
    CHECK(cpn_devselect_supported(op));
    enum cpn_status st = cpn_cuda_select_op(op, CPN_CUB_HOST);
    if (st != CPN_OK) printf("FAIL %s: %s\n", what, cpn_error_message());
    CHECK(st == CPN_OK);
}

static void same(const void *a, const void *b, size_t n, const char *what)
{
    const bool eq = memcmp(a, b, n) == 0;
    CHECK(eq);
    if (!eq && failures < 10) printf("  differs: %s\n", what);
    checked++;
}

static const int64_t shapes[][4] = {{0}, {1, 7}, {1, 0}, {2, 6, 9}, {2, 5, 0}, {3, 3, 4, 5}, {1, 300}};
#define NSH (int)(sizeof shapes / sizeof shapes[0])

/* One compaction (and, for bool, nonzero of the mask): shape s, layouts sl (source) and ml (mask). */
static void compact_case(enum cpn_dtype dt, int s, int sl, int ml, int density)
{
    const int nd = (int)shapes[s][0];
    const int64_t *shape = &shapes[s][1];
    const size_t item = cpn_dtype_size(dt);
    int64_t b;
    struct cpn_view *src = make(dt, nd, shape, sl, &b), *mask = make(CPN_DTYPE_BOOL, nd, shape, ml, &b);
    fill(src, (uint64_t)(s * 31 + sl), 0);
    fill(mask, (uint64_t)(s * 7 + ml), density);
    int64_t mst[CPN_MAXDIM], sst[CPN_MAXDIM], moff, soff;
    cpn_view_byte_layout(mask, mst, &moff);
    cpn_view_byte_layout(src, sst, &soff);
    const char *mp = (const char *)cpn_store_data(mask->store) + moff;
    const char *sp = (const char *)cpn_store_data(src->store) + soff;
    const int64_t count = cpn_kernel_count_true(nd, shape, mp, mst);
    char what[120];
    snprintf(what, sizeof what, "%s nd %d layouts %d %d density %d", cpn_dtype_name(dt), nd, sl, ml, density);
    /* compact */
    struct cpn_view *out = make(dt, 1, &count, 0, &b);
    char *ref = cpn_alloc((size_t)(count * (int64_t)item + 1));
    CHECK(cpn_kernel_compact(item, nd, shape, sp, sst, mp, mst, ref, count) == CPN_OK);
    struct cpn_op op = {.kind = CPN_OPK_COMPACT, .dtype = dt, .nin = 2, .nout = 1};
    op.in[0] = src;
    op.in[1] = mask;
    op.out[0] = out;
    op.iparam[0] = count;
    run(&op, what);
    same(cpn_store_data(out->store), ref, (size_t)(count * (int64_t)item), what);
    cpn_view_release(out);
    cpn_free(ref);
    /* nonzero of the mask (ndim >= 1) */
    if (nd >= 1 && dt == CPN_DTYPE_BOOL) {
        int64_t osh[2] = {nd, count};
        struct cpn_store *os = cpn_store_new(CPN_DTYPE_INT64, 2, osh);
        struct cpn_view *ov = cpn_view_new(os);
        cpn_store_release(os);
        int64_t *r = cpn_alloc((size_t)(nd * count + 1) * sizeof *r);
        CHECK(cpn_kernel_nonzero(nd, shape, mp, mst, r, count) == CPN_OK);
        struct cpn_op nz = {.kind = CPN_OPK_NONZERO, .dtype = CPN_DTYPE_BOOL, .nin = 1, .nout = 1};
        nz.in[0] = mask;
        nz.out[0] = ov;
        nz.iparam[0] = count;
        run(&nz, what);
        same(cpn_store_data(ov->store), r, (size_t)(nd * count) * sizeof *r, what);
        cpn_view_release(ov);
        cpn_free(r);
    }
    cpn_view_release(src);
    cpn_view_release(mask);
}

static void test_compact_nonzero(void)
{
    for (int t = 0; t < NDT; t++)
        for (int s = 0; s < NSH; s++)
            for (int sl = 0; sl < 3; sl++)
                for (int ml = 0; ml < 3; ml++)
                    for (int density = 0; density < 3; density++) compact_case(dts[t], s, sl, ml, density);
}

/* One gather and one scatter: shape s, layout sl, mk indices (seed k), index layout il. */
static void gather_scatter_case(enum cpn_dtype dt, int s, int sl, int64_t mk, int k, int il)
{
    const int nd = (int)shapes[s][0];
    const int64_t *shape = &shapes[s][1], n = shape[0], m = n ? mk : 0;
    const size_t item = cpn_dtype_size(dt);
    int64_t sb, ib, block = 1;
    for (int d = 1; d < nd; d++) block *= shape[d];
    char what[120];
    snprintf(what, sizeof what, "%s nd %d n %lld layout %d m %lld idx layout %d", cpn_dtype_name(dt), nd,
             (long long)n, sl, (long long)m, il);
    struct cpn_view *src = make(dt, nd, shape, sl, &sb), *idx = make_index(m, n, il, (uint64_t)(k + s), &ib);
    fill(src, (uint64_t)(s * 13 + sl), 0);
    int64_t sst[CPN_MAXDIM], ist[1], soff, ioff;
    cpn_view_byte_layout(src, sst, &soff);
    cpn_view_byte_layout(idx, ist, &ioff);
    const char *ip = (const char *)cpn_store_data(idx->store) + ioff;
    /* gather */
    int64_t gsh[CPN_MAXDIM];
    memcpy(gsh, shape, (size_t)nd * sizeof *gsh);
    gsh[0] = m;
    struct cpn_view *out = make(dt, nd, gsh, 0, &sb);
    char *ref = cpn_alloc((size_t)(m * block * (int64_t)item + 1));
    CHECK(cpn_kernel_gather(item, nd, shape, (const char *)cpn_store_data(src->store) + soff, sst, ip,
                            ist[0], m, ref) == CPN_OK);
    struct cpn_op op = {.kind = CPN_OPK_GATHER, .dtype = dt, .nin = 2, .nout = 1};
    op.in[0] = src;
    op.in[1] = idx;
    op.out[0] = out;
    run(&op, what);
    same(cpn_store_data(out->store), ref, (size_t)(m * block * (int64_t)item), what);
    cpn_free(ref);
    /* scatter: values laid out like the source's layout, into two equal destinations */
    struct cpn_view *val = make(dt, nd, gsh, sl, &sb);
    fill(val, (uint64_t)(s * 5 + k), 0);
    int64_t db;
    struct cpn_view *dst = make(dt, nd, shape, (sl + 1) % 3, &db), *dref = make(dt, nd, shape, (sl + 1) % 3, &db);
    fill(dst, 99, 0);
    fill(dref, 99, 0);
    int64_t dst_st[CPN_MAXDIM], vst[CPN_MAXDIM], doff, voff;
    cpn_view_byte_layout(dref, dst_st, &doff);
    cpn_view_byte_layout(val, vst, &voff);
    CHECK(cpn_kernel_scatter(item, nd, shape, (char *)cpn_store_data(dref->store) + doff, dst_st,
                             (const char *)cpn_store_data(val->store) + voff, vst, ip, ist[0], m) == CPN_OK);
    struct cpn_op sc = {.kind = CPN_OPK_SCATTER, .dtype = dt, .nin = 2, .nout = 1};
    sc.in[0] = val;
    sc.in[1] = idx;
    sc.out[0] = dst;
    run(&sc, what);
    same(cpn_store_data(dst->store), cpn_store_data(dref->store), (size_t)db, what);
    cpn_view_release(val);
    cpn_view_release(dst);
    cpn_view_release(dref);
    cpn_view_release(out);
    cpn_view_release(src);
    cpn_view_release(idx);
}

static void test_gather_scatter(void)
{
    static const int64_t ms[] = {0, 1, 13, 200};
    for (int t = 0; t < NDT; t++)
        for (int s = 1; s < NSH; s++)
            for (int sl = 0; sl < 3; sl++)
                for (int k = 0; k < 4; k++)
                    for (int il = 0; il < 2; il++) gather_scatter_case(dts[t], s, sl, ms[k], k, il);
}

/* ufunc.at on the device (integer add, subtract, multiply, maximum, minimum): shape s, layout sl,
 * mk indices (repeats: every row's run applied in order) against the CPU's sequential loop. */
static void at_case(enum cpn_dtype dt, int code, int s, int sl, int64_t mk)
{
    const int nd = (int)shapes[s][0];
    const int64_t *shape = &shapes[s][1], n = shape[0], m = n ? mk : 0;
    char what[120];
    snprintf(what, sizeof what, "%s.at %s nd %d n %lld layout %d m %lld", cpn_op_info(code)->name, cpn_dtype_name(dt),
             nd, (long long)n, sl, (long long)m);
    int64_t vsh[CPN_MAXDIM], vb, db, ib;
    memcpy(vsh, shape, (size_t)nd * sizeof *vsh);
    vsh[0] = m;
    struct cpn_view *idx = make_index(m, n, 0, (uint64_t)(s + sl), &ib), *val = make(dt, nd, vsh, sl, &vb);
    struct cpn_view *dst = make(dt, nd, shape, (sl + 2) % 3, &db), *dref = make(dt, nd, shape, (sl + 2) % 3, &db);
    fill(val, (uint64_t)(s * 3 + code), 0);
    fill(dst, 77, 0);
    fill(dref, 77, 0);
    int64_t dst_st[CPN_MAXDIM], vst[CPN_MAXDIM], ist[1], doff, voff, ioff;
    cpn_view_byte_layout(dref, dst_st, &doff);
    cpn_view_byte_layout(val, vst, &voff);
    cpn_view_byte_layout(idx, ist, &ioff);
    struct cpn_kctx ctx = {0};
    CHECK(cpn_kernel_scatter_apply(cpn_kernel_at_loop(code, dt), cpn_kernel_elementwise_scalar(code, dt), 2,
                                   cpn_dtype_size(dt), nd, shape,
                                   (char *)cpn_store_data(dref->store) + doff, dst_st,
                                   (const char *)cpn_store_data(val->store) + voff, vst,
                                   (const char *)cpn_store_data(idx->store) + ioff, ist[0], m, &ctx) == CPN_OK);
    CHECK(!ctx.err);
    struct cpn_op sc = {.kind = CPN_OPK_SCATTER, .code = code, .dtype = dt, .nin = 2, .nout = 1};
    sc.in[0] = val;
    sc.in[1] = idx;
    sc.out[0] = dst;
    sc.iparam[0] = 2;
    run(&sc, what);
    same(cpn_store_data(dst->store), cpn_store_data(dref->store), (size_t)db, what);
    cpn_view_release(val);
    cpn_view_release(dst);
    cpn_view_release(dref);
    cpn_view_release(idx);
}

static void test_at(void)
{
    static const enum cpn_dtype idts[] = {CPN_DTYPE_INT8, CPN_DTYPE_UINT8, CPN_DTYPE_INT16, CPN_DTYPE_UINT32,
                                          CPN_DTYPE_INT64, CPN_DTYPE_UINT64};
    static const int codes[] = {CPN_OP_ADD, CPN_OP_SUBTRACT, CPN_OP_MULTIPLY, CPN_OP_MAXIMUM, CPN_OP_MINIMUM};
    static const int64_t ms[] = {0, 1, 13, 200};
    for (int t = 0; t < 6; t++)
        for (int c = 0; c < 5; c++)
            for (int s = 1; s < NSH; s++)
                for (int sl = 0; sl < 3; sl++)
                    for (int k = 0; k < 4; k++) at_case(idts[t], codes[c], s, sl, ms[k]);
}

/* ufunc.at of floats (their floating-point reports), of bool and of other ops stays on the host. */
static void test_declines(void)
{
    int64_t b, n = 5;
    struct cpn_view *dst = make(CPN_DTYPE_FLOAT64, 1, &n, 0, &b), *idx = make_index(3, n, 0, 1, &b);
    struct cpn_op sc = {.kind = CPN_OPK_SCATTER, .dtype = CPN_DTYPE_FLOAT64, .nin = 2, .nout = 1};
    sc.in[0] = dst;
    sc.in[1] = idx;
    sc.out[0] = dst;
    sc.iparam[0] = 2;
    sc.code = CPN_OP_ADD;
    CHECK(!cpn_devselect_supported(&sc));
    CHECK(cpn_cuda_select_op(&sc, CPN_CUB_HOST) == CPN_ERR_UNSUPPORTED);
    sc.dtype = CPN_DTYPE_INT64;
    struct cpn_view *iv = make_index(3, n, 0, 2, &b);
    sc.out[0] = sc.in[0] = iv;
    CHECK(cpn_devselect_supported(&sc));
    sc.code = CPN_OP_BITWISE_AND;
    CHECK(!cpn_devselect_supported(&sc));
    sc.code = CPN_OP_ADD;
    sc.iparam[0] = 1;   /* a one-input op's .at */
    CHECK(!cpn_devselect_supported(&sc));
    cpn_view_release(iv);
    cpn_view_release(dst);
    cpn_view_release(idx);
}

int main(void)
{
    test_compact_nonzero();
    test_gather_scatter();
    test_at();
    test_declines();
    printf("%lld comparisons\n", (long long)checked);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
