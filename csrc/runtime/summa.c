/* summa.c: C = A @ B on partitioned 2-D stores, SUMMA's communication (van de Geijn and Watts).
 *
 * Owner computes: the rank owning tile C[I, J] of the output needs the row panel A[I, :] and the
 * column panel B[:, J].  With the near-square process grid of partition.c (A, B and C of one
 * shape share it) those panels are held by the ranks of the same process row (A) and process
 * column (B), so every rank sends its A tile along its process row and its B tile along its
 * process column: 2 n^2 / sqrt(p) elements received per rank for n x n operands, SUMMA's volume,
 * instead of the 2 n^2 (p - 1) / p of gathering both operands.  The pieces are computed from the
 * tilings alone (pure functions of shapes and rank count: no negotiation), posted at once as
 * point-to-point messages (comm.h), and the product of the received panels is one local gemm
 * (kernels.h's matmul: BLAS) into this rank's tile of C.  Any tilings work (the operands' grids
 * may differ): the pieces are box intersections.
 *
 * This is SUMMA with one panel step covering the whole inner dimension: the bytes on the wire are
 * SUMMA's, the panel memory is that of the whole row and column panels (2 n^2 / sqrt(p)
 * elements), and there is no overlap of messages with computing across steps.
 *
 * Taken when the operands are whole 2-D root stores seen directly or transposed (`a.T`) and the
 * output is a tiled whole 2-D root store; otherwise dist.c's gather path computes the product. */
#include "summa.h"

#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "kernels.h"
#include "partition.h"
#include "store.h"
#include "view.h"

enum { TAG_A = 0, TAG_B = 1 };

struct rect {
    int64_t lo[2], hi[2];   /* in store dimensions */
};

static int64_t rect_count(const struct rect *r)
{
    int64_t a = r->hi[0] - r->lo[0], b = r->hi[1] - r->lo[1];
    return a > 0 && b > 0 ? a * b : 0;
}

static bool rect_meet(const struct rect *a, const struct rect *b, struct rect *out)
{
    for (int d = 0; d < 2; d++) {
        out->lo[d] = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
        out->hi[d] = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
    }
    return rect_count(out) > 0;
}

/* Copy rectangle r between buffers holding rectangles at *dlo / *slo with row lengths (elements)
 * dw / sw (C order). */
static void copy_rect(const struct rect *r, size_t item, char *dst, const int64_t *dlo, int64_t dw,
                      const char *src, const int64_t *slo, int64_t sw)
{
    int64_t rows = r->hi[0] - r->lo[0];
    size_t len = (size_t)(r->hi[1] - r->lo[1]) * item;
    for (int64_t i = 0; i < rows; i++) {
        int64_t y = r->lo[0] + i;
        memcpy(dst + ((y - dlo[0]) * dw + (r->lo[1] - dlo[1])) * (int64_t)item,
               src + ((y - slo[0]) * sw + (r->lo[1] - slo[1])) * (int64_t)item, len);
    }
}

/* A 2-D root store seen whole, directly or transposed: perm[i] is the store dimension of view
 * dimension i. */
static bool whole(const struct cpn_view *v, int *perm)
{
    const struct cpn_store *s = v->store;
    if (s->root || v->part || v->ndim != 2 || s->ndim != 2 || v->off[0] || v->off[1]) return false;
    for (int i = 0; i < 2; i++) {
        int d = v->sdim[i];
        if (d < 0 || d > 1 || v->step[i] != 1 || v->shape[i] != s->shape[d]) return false;
        perm[i] = d;
    }
    return perm[0] != perm[1];
}

static void tile_rect(const struct cpn_store *s, int rank, struct rect *r)
{
    cpn_store_tile_box(s, rank, r->lo, r->hi);
}

/* One operand: its store, view-to-store permutation, and this rank's panel (a dense rectangle of
 * the store, C order). */
struct operand {
    struct cpn_store *s;
    int perm[2];
    struct rect need;   /* this rank's panel, store coordinates */
    char *panel;
};

/* The panel rank `r` needs of operand x, whose view rows (which = 0) or columns (which = 1) are
 * restricted to [lo, hi) and the other view dimension taken whole. */
static void panel_of(const struct operand *x, int which, int64_t lo, int64_t hi, struct rect *out)
{
    int d = x->perm[which], o = x->perm[1 - which];
    out->lo[d] = lo, out->hi[d] = hi;
    out->lo[o] = 0, out->hi[o] = x->s->shape[o];
}

struct traffic {
    struct cpn_msg *recvs, *sends;
    struct rect *rrect;   /* what each receive holds (store coordinates of its operand) */
    int *rwhich;
    int nrecv, nsend;
};

/* Plan and pack operand x's messages: what this rank receives into its panel (need) and sends of
 * its tile to every other rank r (needs[r]).  The local piece is copied directly. */
static enum cpn_status plan_operand(struct operand *x, int which, const struct rect *needs, struct traffic *t)
{
    struct cpn_store *s = x->s;
    size_t item = cpn_dtype_size(s->dtype);
    int me = cpn_partition_rank(), p = cpn_partition_ranks();
    int64_t pw = x->need.hi[1] - x->need.lo[1];
    int64_t count = rect_count(&x->need);
    x->panel = cpn_alloc((size_t)(count ? count : 1) * item);
    if (!x->panel) return CPN_ERR_NOMEM;
    const char *tile = cpn_store_data(s);
    if (!tile) return CPN_ERR_NOMEM;
    struct rect mine, piece;
    tile_rect(s, me, &mine);
    int64_t tw = s->tstride[0];   /* the tile's row length: C order */
    if (rect_meet(&mine, &x->need, &piece))
        copy_rect(&piece, item, x->panel, x->need.lo, pw, tile, mine.lo, tw);
    if (!s->tiled) return CPN_OK;   /* replicated: the whole operand is here, and on every rank */
    for (int r = 0; r < p; r++) {
        if (r == me) continue;
        struct rect theirs;
        tile_rect(s, r, &theirs);
        if (rect_meet(&theirs, &x->need, &piece)) {
            size_t bytes = (size_t)rect_count(&piece) * item;
            char *buf = cpn_alloc(bytes);
            if (!buf) return CPN_ERR_NOMEM;
            t->rrect[t->nrecv] = piece;
            t->rwhich[t->nrecv] = which;
            t->recvs[t->nrecv++] = (struct cpn_msg){r, which ? TAG_B : TAG_A, buf, bytes};
        }
        if (rect_meet(&mine, &needs[r], &piece)) {
            size_t bytes = (size_t)rect_count(&piece) * item;
            char *buf = cpn_alloc(bytes);
            if (!buf) return CPN_ERR_NOMEM;
            copy_rect(&piece, item, buf, piece.lo, piece.hi[1] - piece.lo[1], tile, mine.lo, tw);
            t->sends[t->nsend++] = (struct cpn_msg){r, which ? TAG_B : TAG_A, buf, bytes};
        }
    }
    return CPN_OK;
}

bool cpn_summa_applies(const struct cpn_op *op)
{
    int pa[2], pb[2], pc[2];
    if (op->kind != CPN_OPK_MATMUL || op->nin != 2 || op->nout != 1) return false;
    const struct cpn_view *c = op->out[0];
    return whole(op->in[0], pa) && whole(op->in[1], pb) && whole(c, pc) && pc[0] == 0 &&
           c->store->tiled && op->in[0]->store->dtype == op->dtype &&
           op->in[1]->store->dtype == op->dtype && c->store->dtype == op->dtype;
}

enum cpn_status cpn_summa_execute(const struct cpn_op *op)
{
    const struct cpn_view *av = op->in[0], *bv = op->in[1], *cv = op->out[0];
    struct cpn_store *cs = cv->store;
    int me = cpn_partition_rank(), p = cpn_partition_ranks();
    struct operand x[2] = {{.s = av->store}, {.s = bv->store}};
    whole(av, x[0].perm);
    whole(bv, x[1].perm);
    size_t item = cpn_dtype_size(op->dtype);
    enum cpn_status st = CPN_OK;
    void *handle = NULL;
    struct rect *needs = cpn_alloc(sizeof(struct rect) * 2 * (size_t)p);
    struct traffic t = {
        .recvs = cpn_alloc(sizeof(struct cpn_msg) * 2 * (size_t)p),
        .sends = cpn_alloc(sizeof(struct cpn_msg) * 2 * (size_t)p),
        .rrect = cpn_alloc(sizeof(struct rect) * 2 * (size_t)p),
        .rwhich = cpn_alloc(sizeof(int) * 2 * (size_t)p),
    };
    if (!needs || !t.recvs || !t.sends || !t.rrect || !t.rwhich) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    /* Every rank's panels: rows of its C tile from A, columns of its C tile from B. */
    for (int r = 0; r < p; r++) {
        struct rect ct;
        tile_rect(cs, r, &ct);
        panel_of(&x[0], 0, ct.lo[0], ct.hi[0], &needs[r]);
        panel_of(&x[1], 1, ct.lo[1], ct.hi[1], &needs[p + r]);
    }
    x[0].need = needs[me];
    x[1].need = needs[p + me];
    for (int k = 0; k < 2 && st == CPN_OK; k++) st = plan_operand(&x[k], k, needs + k * p, &t);
    if (st == CPN_OK) st = cpn_comm_post(t.nrecv, t.recvs, t.nsend, t.sends, &handle);
    if (st == CPN_OK) st = cpn_comm_wait(handle);
    if (st != CPN_OK) goto done;
    for (int j = 0; j < t.nrecv; j++) {
        struct operand *o = &x[t.rwhich[j]];
        const struct rect *r = &t.rrect[j];
        copy_rect(r, item, o->panel, o->need.lo, o->need.hi[1] - o->need.lo[1], t.recvs[j].buf, r->lo,
                  r->hi[1] - r->lo[1]);
    }
    {
        struct rect ct;
        tile_rect(cs, me, &ct);
        int64_t m = ct.hi[0] - ct.lo[0], n = ct.hi[1] - ct.lo[1], k = av->shape[1];
        if (m > 0 && n > 0) {
            char *c = cpn_store_data_for_overwrite(cs);
            if (!c) {
                st = CPN_ERR_NOMEM;
                goto done;
            }
            /* Byte strides of the panels seen as the view's (rows, columns). */
            int64_t as[2], bs[2], cst[2] = {cs->tstride[0] * (int64_t)item, cs->tstride[1] * (int64_t)item};
            for (int i = 0; i < 2; i++) {
                const struct operand *o = &x[0];
                int64_t w = o->need.hi[1] - o->need.lo[1];
                as[i] = (o->perm[i] == 0 ? w : 1) * (int64_t)item;
                o = &x[1];
                w = o->need.hi[1] - o->need.lo[1];
                bs[i] = (o->perm[i] == 0 ? w : 1) * (int64_t)item;
            }
            st = cpn_kernel_matmul(op->dtype, 0, NULL, x[0].panel, as, x[1].panel, bs, c, cst, m, k, n);
        }
    }
done:
    for (int j = 0; t.recvs && j < t.nrecv; j++) cpn_free(t.recvs[j].buf);
    for (int j = 0; t.sends && j < t.nsend; j++) cpn_free(t.sends[j].buf);
    cpn_free(x[0].panel);
    cpn_free(x[1].panel);
    cpn_free(needs);
    cpn_free(t.recvs);
    cpn_free(t.sends);
    cpn_free(t.rrect);
    cpn_free(t.rwhich);
    return st;
}
