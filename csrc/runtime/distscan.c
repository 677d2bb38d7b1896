/* distscan.c: inclusive scans (cumsum, cumprod, ufunc.accumulate: CPN_OPK_SCAN) of tiled stores,
 * without gathering.
 *
 * NumPy's scan is sequential along its axis (out[i] = op(out[i-1], in[i])), so a float scan
 * keeps NumPy's results bit for bit only when every element continues from the element before
 * it.  The ranks whose tiles share their extents off the axis form a chain along it, in the
 * order of their tiles; the scan is a pipeline down each chain: the input is first copied into
 * the output store (a same-dtype cast through dist.c: owner computes, only the pieces whose
 * owner changes move -- nothing when the input is the output's tiling), then each rank waits
 * for the last slice (the carry) of its predecessor, combines it with its first slice
 * (op(carry, in), NumPy's operand order), scans its tile in place from there and sends its own
 * last slice on.  Bytes sent per rank: one slice of its tile across the axis (nothing along an
 * axis no tile cuts: each rank scans its own lanes).  The ranks of a chain run one after the
 * other (the scan is sequential); different chains run side by side.  Collective. */
#include "distscan.h"

#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "dist.h"
#include "kernels.h"
#include "partition.h"
#include "stats.h"
#include "store.h"
#include "view.h"

enum { TAG_CARRY = 22 };

static bool box_empty(int n, const int64_t *lo, const int64_t *hi)
{
    for (int d = 0; d < n; d++)
        if (hi[d] <= lo[d]) return true;
    return false;
}

/* The rank of the non-empty tile of s that ends (along `axis`) where [lo, hi) starts, with the
 * same extents off the axis (next = false); or the one that starts where it ends (next = true).
 * -1 when there is none. */
static int neighbour(const struct cpn_store *s, int axis, const int64_t *lo, const int64_t *hi, bool next)
{
    const int P = cpn_partition_ranks();
    for (int r = 0; r < P; r++) {
        int64_t rlo[CPN_MAXDIM], rhi[CPN_MAXDIM];
        cpn_store_tile_box(s, r, rlo, rhi);
        if (box_empty(s->ndim, rlo, rhi)) continue;
        bool same = next ? rlo[axis] == hi[axis] : rhi[axis] == lo[axis];
        for (int d = 0; d < s->ndim && same; d++)
            if (d != axis) same = rlo[d] == lo[d] && rhi[d] == hi[d];
        if (same) return r;
    }
    return -1;
}

bool cpn_distscan_applies(const struct cpn_op *op)
{
    const struct cpn_view *ov = op->out[0], *iv = op->in[0];
    return op->nin == 1 && op->nout == 1 && iv && cpn_view_is_whole(ov) && ov->store->tiled &&
           iv->dtype == ov->dtype && (int)op->iparam[0] >= 0 && (int)op->iparam[0] < ov->ndim;
}

enum cpn_status cpn_distscan_execute(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    struct cpn_store *os = op->out[0]->store;
    const enum cpn_dtype dt = os->dtype;
    const int n = os->ndim, axis = (int)op->iparam[0];
    const size_t item = cpn_dtype_size(dt);

    /* The input into the output's tiles: owner computes, nothing moves when tiled alike. */
    struct cpn_op copy = {.kind = CPN_OPK_CAST, .dtype = dt, .nin = 1, .nout = 1, .fpmode = op->fpmode,
                          .site = op->site};
    copy.in[0] = op->in[0];
    copy.out[0] = op->out[0];
    enum cpn_status st = cpn_dist_execute(&copy, fp);
    if (st != CPN_OK) return st;

    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM], shape[CPN_MAXDIM], bst[CPN_MAXDIM];
    cpn_store_tile_box(os, cpn_partition_rank(), lo, hi);
    if (box_empty(n, lo, hi)) return CPN_OK;
    const int prev = neighbour(os, axis, lo, hi, false), next = neighbour(os, axis, lo, hi, true);
    int64_t slice = 1;   /* elements of one slice of the tile across the axis */
    for (int d = 0; d < n; d++) {
        shape[d] = hi[d] - lo[d];
        bst[d] = os->tstride[d] * (int64_t)item;
        if (d != axis) slice *= shape[d];
    }
    char *tile = cpn_store_data(os);
    /* the carry, dense in C order over the slice's dimensions */
    char *carry = prev >= 0 || next >= 0 ? cpn_alloc((size_t)slice * item) : NULL;
    if (!tile || ((prev >= 0 || next >= 0) && !carry)) {
        cpn_free(carry);
        return CPN_ERR_NOMEM;
    }
    /* The slice's shape and strides: the tile's with the axis dropped (at least one dimension). */
    int64_t sshape[CPN_MAXDIM], tst[CPN_MAXARGS][CPN_MAXDIM], cst[CPN_MAXDIM];
    int sd = 0;
    for (int d = 0; d < n; d++)
        if (d != axis) {
            sshape[sd] = shape[d];
            tst[0][sd] = bst[d];
            sd++;
        }
    if (sd == 0) sshape[sd++] = 1, tst[0][0] = 0;
    for (int64_t d = sd - 1, s = (int64_t)item; d >= 0; d--) {
        cst[d] = s;
        s *= sshape[d];
    }
    struct cpn_kctx ctx = {0};
    if (prev >= 0) {
        struct cpn_msg m = {.peer = prev, .tag = TAG_CARRY, .buf = carry, .bytes = (size_t)slice * item};
        void *h = NULL;
        st = cpn_comm_post(1, &m, 0, NULL, &h);
        if (st == CPN_OK) st = cpn_comm_wait(h);
        if (st == CPN_OK) {
            /* first slice = op(carry, first slice), as NumPy's step from the element before */
            cpn_loop_fn loop = cpn_kernel_elementwise(op->code, dt);
            int64_t st3[CPN_MAXARGS][CPN_MAXDIM];
            for (int d = 0; d < sd; d++) st3[0][d] = cst[d], st3[1][d] = tst[0][d], st3[2][d] = tst[0][d];
            char *p[3] = {carry, tile, tile};
            if (!loop) st = cpn_error(CPN_ERR_TYPE, "no accumulate for %s", cpn_op_info(op->code)->name);
            else cpn_iterate(loop, 3, p, sd, sshape, st3, &ctx);
        }
    }
    if (st == CPN_OK) {
        cpn_fpreport_add(fp, ctx.hw, ctx.fpe);
        if (ctx.err) st = cpn_op_data_error(op->code);
    }
    /* scan the tile in place from its (continued) first slice */
    if (st == CPN_OK) st = cpn_kernel_scan(op->code, dt, tile, bst, tile, bst, n, shape, axis, fp);
    if (next >= 0) {
        /* the last slice on to the successor, packed dense; sent after a local error too, so
         * that the successor does not wait for ever (it computes a result that is not read:
         * the error is raised here) */
        struct cpn_kctx cc = {0};
        int64_t st2[CPN_MAXARGS][CPN_MAXDIM];
        for (int d = 0; d < sd; d++) st2[0][d] = tst[0][d], st2[1][d] = cst[d];
        char *p[2] = {tile + (shape[axis] - 1) * bst[axis], carry};
        cpn_iterate(cpn_kernel_cast(dt, dt), 2, p, sd, sshape, st2, &cc);
        struct cpn_msg m = {.peer = next, .tag = TAG_CARRY, .buf = carry, .bytes = (size_t)slice * item};
        void *h = NULL;
        enum cpn_status sst = cpn_comm_post(0, NULL, 1, &m, &h);
        if (sst == CPN_OK) sst = cpn_comm_wait(h);
        if (st == CPN_OK) st = sst;
    }
    cpn_free(carry);
    if (st == CPN_OK) cpn_stats.scans_dist++;
    return st;
}
