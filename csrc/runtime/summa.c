/* summa.c: C = A @ B on partitioned 2-D stores, SUMMA's communication (van de Geijn and Watts).
 *
 * Owner computes: the rank owning tile C[I, J] of the output needs the row panel A[I, :] and the
 * column panel B[:, J].  With the near-square process grid of partition.c (A, B and C of one
 * shape share it) those panels are held by the ranks of the same process row (A) and process
 * column (B), so every rank sends its A tile along its process row and its B tile along its
 * process column: 2 n^2 / sqrt(p) elements received per rank for n x n operands, SUMMA's volume,
 * instead of the 2 n^2 (p - 1) / p of gathering both operands.  The pieces are computed from the
 * tilings alone (pure functions of shapes and rank count: no negotiation) and move as
 * point-to-point messages (comm.h); the products of the received panels are local gemms
 * (kernels.h's matmul: BLAS) into this rank's tile of C.  Any tilings work (the operands' grids
 * may differ): the pieces are box intersections.
 *
 * The inner dimension is walked in panel steps cut where A's columns or B's rows change owner:
 * at each step the owner of an A tile sends its piece of the step's panel to the ranks of its
 * process row that need it, the owner of a B tile to those of its process column, and every rank
 * adds the product of the two panels it received into its C tile (the first step writes it:
 * BLAS beta 0, then 1).  The next step's messages are posted before this step's product, so they
 * fly while it computes; two steps' panels are held at a time.  float16 takes one step (NumPy
 * rounds the float32 sum once per element).
 *
 * Taken when the operands are whole 2-D root stores seen directly or transposed (`a.T`), or whole
 * 1-D stores seen as a column or a row (matmul's vector operands), and the output is a tiled
 * whole 2-D root store; otherwise dist.c's gather path computes the product.
 *
 * Before it, the inner path (end of file): operands cut along the inner dimension only, alike
 * (`x @ x.T` of a wide x: cov), multiply as each rank's own partial product, the m x n partials
 * gathered and added in rank order, when the output is replicated or the partials cost less than
 * SUMMA's panels. */
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

/* A 2-D root store seen whole, directly or transposed (perm[i] is the store dimension of view
 * dimension i; *vd = -1), or a 1-D root store seen whole as a column (k, 1) or a row (1, k), as
 * matmul's 1-d operands are (perm is the identity: the operand's rectangles are in view
 * coordinates, the store's dimension is view dimension *vd). */
static bool whole(const struct cpn_view *v, int *perm, int *vd)
{
    const struct cpn_store *s = v->store;
    if (s->root || v->part || v->ndim != 2 || (s->ndim != 2 && s->ndim != 1)) return false;
    *vd = -1;
    if (s->ndim == 1) {
        if (v->off[0]) return false;
        for (int i = 0; i < 2; i++) {
            if (v->sdim[i] == 0 && *vd < 0 && v->step[i] == 1 && v->shape[i] == s->shape[0])
                *vd = i;
            else if (v->sdim[i] >= 0 || v->shape[i] != 1)
                return false;
        }
        perm[0] = 0, perm[1] = 1;
        return *vd >= 0;
    }
    if (v->off[0] || v->off[1]) return false;
    for (int i = 0; i < 2; i++) {
        int d = v->sdim[i];
        if (d < 0 || d > 1 || v->step[i] != 1 || v->shape[i] != s->shape[d]) return false;
        perm[i] = d;
    }
    return perm[0] != perm[1];
}

/* Rank's tile of a store in the operand's rectangle coordinates (vd as whole() sets it). */
static void tile_rect(const struct cpn_store *s, int vd, int rank, struct rect *r)
{
    if (vd < 0) {
        cpn_store_tile_box(s, rank, r->lo, r->hi);
        return;
    }
    int64_t lo, hi;
    cpn_store_tile_box(s, rank, &lo, &hi);
    r->lo[vd] = lo, r->hi[vd] = hi;
    r->lo[1 - vd] = 0, r->hi[1 - vd] = 1;
}

/* One operand: its store, view-to-store permutation, and this rank's panel (a dense rectangle of
 * the store, C order). */
struct operand {
    struct cpn_store *s;
    int perm[2], vd;
    struct rect need;   /* this rank's panel, store coordinates */
    char *panel;
};

/* The panel rank `r` needs of operand x at one step: view rows (which = 0) or columns
 * (which = 1) [lo, hi) of its C tile, the inner dimension [klo, khi). */
static void panel_of(const struct operand *x, int which, int64_t lo, int64_t hi, int64_t klo, int64_t khi,
                     struct rect *out)
{
    int d = x->perm[which], o = x->perm[1 - which];
    out->lo[d] = lo, out->hi[d] = hi;
    out->lo[o] = klo, out->hi[o] = khi;
}

/* One panel step in flight: both operands' panels, messages and the request handle. */
struct step {
    struct operand x[2];
    struct cpn_msg *recvs, *sends;
    struct rect *rrect;   /* what each receive holds (store coordinates of its operand) */
    int *rwhich;
    int nrecv, nsend;
    void *handle;
};

/* Plan and pack operand x's messages of this step: what this rank receives into its panel
 * (x->need) and what it sends of its tile to every other rank r (needs[r]).  The local piece is
 * copied directly. */
static enum cpn_status plan_operand(struct operand *x, int which, const struct rect *needs, struct step *t)
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
    tile_rect(s, x->vd, me, &mine);
    /* the tile's row length (C order): a column's rows are single elements */
    int64_t tw = x->vd < 0 ? s->tstride[0] : x->vd == 0 ? 1 : mine.hi[1] - mine.lo[1];
    if (rect_meet(&mine, &x->need, &piece))
        copy_rect(&piece, item, x->panel, x->need.lo, pw, tile, mine.lo, tw);
    if (!s->tiled) return CPN_OK;   /* replicated: the whole operand is here, and on every rank */
    for (int r = 0; r < p; r++) {
        if (r == me) continue;
        struct rect theirs;
        tile_rect(s, x->vd, r, &theirs);
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

static void step_free(struct step *t)
{
    for (int j = 0; t->recvs && j < t->nrecv; j++) cpn_free(t->recvs[j].buf);
    for (int j = 0; t->sends && j < t->nsend; j++) cpn_free(t->sends[j].buf);
    cpn_free(t->x[0].panel);
    cpn_free(t->x[1].panel);
    cpn_free(t->recvs);
    cpn_free(t->sends);
    cpn_free(t->rrect);
    cpn_free(t->rwhich);
    memset(t, 0, sizeof *t);
}

/* Post the messages of inner-dimension step [klo, khi): every rank's panels are the rows (A)
 * and columns (B) of its C tile over that range. */
static enum cpn_status step_begin(struct step *t, const struct cpn_op *op, int64_t klo, int64_t khi,
                                  struct rect *needs)
{
    const struct cpn_store *cs = op->out[0]->store;
    int me = cpn_partition_rank(), p = cpn_partition_ranks();
    memset(t, 0, sizeof *t);
    t->x[0].s = op->in[0]->store;
    t->x[1].s = op->in[1]->store;
    whole(op->in[0], t->x[0].perm, &t->x[0].vd);
    whole(op->in[1], t->x[1].perm, &t->x[1].vd);
    t->recvs = cpn_alloc(sizeof(struct cpn_msg) * 2 * (size_t)p);
    t->sends = cpn_alloc(sizeof(struct cpn_msg) * 2 * (size_t)p);
    t->rrect = cpn_alloc(sizeof(struct rect) * 2 * (size_t)p);
    t->rwhich = cpn_alloc(sizeof(int) * 2 * (size_t)p);
    if (!t->recvs || !t->sends || !t->rrect || !t->rwhich) return CPN_ERR_NOMEM;
    for (int r = 0; r < p; r++) {
        struct rect ct;
        tile_rect(cs, -1, r, &ct);
        panel_of(&t->x[0], 0, ct.lo[0], ct.hi[0], klo, khi, &needs[r]);
        panel_of(&t->x[1], 1, ct.lo[1], ct.hi[1], klo, khi, &needs[p + r]);
    }
    t->x[0].need = needs[me];
    t->x[1].need = needs[p + me];
    for (int k = 0; k < 2; k++) CPN_TRY(plan_operand(&t->x[k], k, needs + k * p, t));
    return cpn_comm_post(t->nrecv, t->recvs, t->nsend, t->sends, &t->handle);
}

/* Complete a step's messages and unpack the received pieces into its panels. */
static enum cpn_status step_end(struct step *t)
{
    enum cpn_status st = cpn_comm_wait(t->handle);
    t->handle = NULL;
    if (st != CPN_OK) return st;
    for (int j = 0; j < t->nrecv; j++) {
        struct operand *o = &t->x[t->rwhich[j]];
        const struct rect *r = &t->rrect[j];
        copy_rect(r, cpn_dtype_size(o->s->dtype), o->panel, o->need.lo, o->need.hi[1] - o->need.lo[1],
                  t->recvs[j].buf, r->lo, r->hi[1] - r->lo[1]);
    }
    return CPN_OK;
}

/* The panel steps: the inner dimension cut where A's columns or B's rows are cut between
 * ranks (so each step's panel piece comes from one rank per process row / column).  float16
 * takes one step: NumPy rounds its float32 sum once. */
static int step_cuts(const struct cpn_op *op, int64_t k, int64_t *cuts, int max)
{
    int n = 0;
    cuts[n++] = 0;
    if (op->dtype != CPN_DTYPE_FLOAT16) {
        for (int w = 0; w < 2; w++) {
            const struct cpn_view *v = op->in[w];
            const struct cpn_store *s = v->store;
            if (!s->tiled) continue;
            int d = v->sdim[w == 0 ? 1 : 0];   /* the store dimension of the inner view dimension */
            if (d < 0) continue;                /* a unit dimension: nothing to cut */
            const int64_t *sp = s->splits;
            for (int e = 0; e < d; e++) sp += s->grid[e] + 1;
            for (int c = 1; c < s->grid[d] && n < max - 1; c++) {
                bool seen = false;
                for (int q = 0; q < n; q++) seen |= cuts[q] == sp[c];
                if (!seen && sp[c] > 0 && sp[c] < k) cuts[n++] = sp[c];
            }
        }
    }
    cuts[n++] = k;
    for (int a = 1; a < n; a++)   /* sort (a handful of cuts) */
        for (int b = a; b > 0 && cuts[b - 1] > cuts[b]; b--) {
            int64_t tmp = cuts[b];
            cuts[b] = cuts[b - 1];
            cuts[b - 1] = tmp;
        }
    return n - 1;
}

bool cpn_summa_applies(const struct cpn_op *op)
{
    int pa[2], pb[2], pc[2], va, vb, vc;
    if (op->kind != CPN_OPK_MATMUL || op->nin != 2 || op->nout != 1) return false;
    const struct cpn_view *c = op->out[0];
    return whole(op->in[0], pa, &va) && whole(op->in[1], pb, &vb) && whole(c, pc, &vc) && vc < 0 && pc[0] == 0 &&
           c->store->tiled && op->in[0]->store->dtype == op->dtype &&
           op->in[1]->store->dtype == op->dtype && c->store->dtype == op->dtype;
}

enum cpn_status cpn_summa_execute(const struct cpn_op *op)
{
    const struct cpn_view *av = op->in[0];
    struct cpn_store *cs = op->out[0]->store;
    int me = cpn_partition_rank(), p = cpn_partition_ranks();
    size_t item = cpn_dtype_size(op->dtype);
    int64_t k = av->shape[1];
    enum { MAX_CUTS = 64 };
    int64_t cuts[MAX_CUTS];
    int nsteps = step_cuts(op, k, cuts, MAX_CUTS);
    struct rect ct;
    tile_rect(cs, -1, me, &ct);
    int64_t m = ct.hi[0] - ct.lo[0], n = ct.hi[1] - ct.lo[1];
    struct step t[2] = {0};
    enum cpn_status st = CPN_OK;
    struct rect *needs = cpn_alloc(sizeof(struct rect) * 2 * (size_t)p);
    char *c = m > 0 && n > 0 ? cpn_store_data_for_overwrite(cs) : NULL;
    if (!needs || (m > 0 && n > 0 && !c)) {
        cpn_free(needs);
        return CPN_ERR_NOMEM;
    }
    int64_t cst[2] = {cs->tstride[0] * (int64_t)item, cs->tstride[1] * (int64_t)item};
    /* Step s + 1's messages fly while step s's panels are multiplied. */
    st = step_begin(&t[0], op, cuts[0], cuts[1], needs);
    for (int s = 0; s < nsteps && st == CPN_OK; s++) {
        struct step *cur = &t[s & 1], *next = &t[(s + 1) & 1];
        if (s + 1 < nsteps) st = step_begin(next, op, cuts[s + 1], cuts[s + 2], needs);
        if (st == CPN_OK) st = step_end(cur);
        if (st == CPN_OK && m > 0 && n > 0) {
            /* Byte strides of the panels seen as the view's (rows, columns). */
            int64_t as[2], bs[2];
            for (int i = 0; i < 2; i++) {
                const struct operand *o = &cur->x[0];
                as[i] = (o->perm[i] == 0 ? o->need.hi[1] - o->need.lo[1] : 1) * (int64_t)item;
                o = &cur->x[1];
                bs[i] = (o->perm[i] == 0 ? o->need.hi[1] - o->need.lo[1] : 1) * (int64_t)item;
            }
            int64_t kk = cuts[s + 1] - cuts[s];
            st = s == 0 ? cpn_kernel_matmul(op->dtype, 0, NULL, cur->x[0].panel, as, cur->x[1].panel, bs, c,
                                            cst, m, kk, n)
                        : cpn_kernel_matmul_add(op->dtype, cur->x[0].panel, as, cur->x[1].panel, bs, c, cst,
                                                m, kk, n);
        }
        step_free(cur);
    }
    for (int i = 0; i < 2; i++) {
        if (t[i].handle) cpn_comm_wait(t[i].handle);
        step_free(&t[i]);
    }
    cpn_free(needs);
    return st;
}

/* ---- products over the inner dimension: partial sums ------------------------------------------ */

/* The inner range [*klo, *khi) of rank r's tile of operand x (view dim kd the inner one; perm and
 * vd as whole() sets them) when the tile holds the whole of the other dimension (or nothing);
 * false otherwise. */
static bool inner_range(const struct cpn_view *x, const int *perm, int vd, int kd, int r, int64_t *klo,
                        int64_t *khi)
{
    int64_t lo[2], hi[2];
    cpn_store_tile_box(x->store, r, lo, hi);
    if (vd >= 0) {   /* a 1-D store seen as a row or column: its one dimension the inner one */
        *klo = lo[0], *khi = hi[0] > lo[0] ? hi[0] : lo[0];
        return vd == kd;
    }
    const int ks = perm[kd], os = perm[1 - kd];
    if (hi[0] <= lo[0] || hi[1] <= lo[1]) {
        *klo = *khi = 0;
        return true;
    }
    if (lo[os] != 0 || hi[os] != x->store->shape[os]) return false;
    *klo = lo[ks], *khi = hi[ks];
    return true;
}

bool cpn_summa_inner_applies(const struct cpn_op *op)
{
    int pa[2], pb[2], pc[2], va, vb, vc;
    if (op->kind != CPN_OPK_MATMUL || op->nin != 2 || op->nout != 1) return false;
    const struct cpn_view *a = op->in[0], *b = op->in[1], *c = op->out[0];
    const enum cpn_dtype dt = op->dtype;
    if (dt != CPN_DTYPE_FLOAT32 && dt != CPN_DTYPE_FLOAT64 && dt != CPN_DTYPE_COMPLEX64 && dt != CPN_DTYPE_COMPLEX128)
        return false;
    if (!whole(a, pa, &va) || !whole(b, pb, &vb) || !whole(c, pc, &vc) || vc >= 0 ||
        pc[0] != 0 || !a->store->tiled || !b->store->tiled || a->store->dtype != dt || b->store->dtype != dt ||
        c->store->dtype != dt)
        return false;
    /* the partial products' m n per rank against SUMMA's panels of A and B ((m + n) k / P) */
    const int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
    if (c->store->tiled && m * n * cpn_partition_ranks() > (m + n) * k) return false;
    for (int r = 0; r < cpn_partition_ranks(); r++) {
        int64_t alo, ahi, blo, bhi;
        if (!inner_range(a, pa, va, 1, r, &alo, &ahi) || !inner_range(b, pb, vb, 0, r, &blo, &bhi) || alo != blo ||
            ahi != bhi)
            return false;
    }
    return true;
}

enum cpn_status cpn_summa_inner_execute(const struct cpn_op *op)
{
    const struct cpn_view *a = op->in[0], *b = op->in[1];
    struct cpn_store *as = a->store, *bs = b->store, *cs = op->out[0]->store;
    int pa[2], pb[2], pc[2], va, vb, vc;
    whole(a, pa, &va);
    whole(b, pb, &vb);
    whole(op->out[0], pc, &vc);
    const int me = cpn_partition_rank(), P = cpn_partition_ranks();
    const size_t item = cpn_dtype_size(op->dtype);
    const int64_t m = a->shape[0], n = b->shape[1];
    const size_t bytes = (size_t)(m * n) * item;
    int64_t klo = 0, khi = 0;
    inner_range(a, pa, va, 1, me, &klo, &khi);
    char *all = cpn_alloc((size_t)P * bytes + 1), *part = cpn_alloc(bytes + 1);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    int64_t tlo[2], thi[2];
    cpn_store_tile_box(cs, me, tlo, thi);
    const bool mine = thi[0] > tlo[0] && thi[1] > tlo[1];
    char *c = mine ? cpn_store_data_for_overwrite(cs) : NULL;
    enum cpn_status st = all && part && counts && (c || !mine) ? CPN_OK : CPN_ERR_NOMEM;
    int64_t cst[2] = {n * (int64_t)item, (int64_t)item};
    if (st == CPN_OK && bytes) {
        memset(part, 0, bytes);   /* no inner elements here: the identity */
        if (khi > klo) {
            const char *ad = cpn_store_data(as), *bd = cpn_store_data(bs);
            if (!ad || !bd) st = CPN_ERR_NOMEM;
            /* the tiles as the view's (rows, columns): store dim perm[i] has tile stride tstride */
            int64_t ast[2], bst[2];
            for (int i = 0; i < 2; i++) {   /* a 1-D store: its stride on view dim vd, 0 on the other */
                ast[i] = va >= 0 ? (i == va ? as->tstride[0] : 0) : as->tstride[pa[i]];
                bst[i] = vb >= 0 ? (i == vb ? bs->tstride[0] : 0) : bs->tstride[pb[i]];
                ast[i] *= (int64_t)item;
                bst[i] *= (int64_t)item;
            }
            if (st == CPN_OK) st = cpn_kernel_matmul(op->dtype, 0, NULL, ad, ast, bd, bst, part, cst, m, khi - klo, n);
        }
    }
    for (int r = 0; counts && r < P; r++) counts[r] = bytes;
    /* every rank takes part in the exchange, also one whose part failed */
    enum cpn_status gs = counts && all && part ? cpn_comm_allgatherv(part, all, counts) : CPN_ERR_NOMEM;
    if (st == CPN_OK) st = gs;
    if (st == CPN_OK && bytes) {
        /* added in rank order: the same bits on every rank */
        cpn_loop_fn add = cpn_kernel_elementwise(CPN_OP_ADD, op->dtype);
        int64_t s3[3] = {(int64_t)item, (int64_t)item, (int64_t)item};
        for (int r = 1; r < P; r++) {
            char *args[3] = {all, all + (size_t)r * bytes, all};
            add(args, s3, m * n, NULL);
        }
        /* this rank's tile of the output (all of it when replicated), (m, n) direct */
        int64_t lo[2], hi[2];
        cpn_store_tile_box(cs, me, lo, hi);
        for (int64_t i = lo[0]; i < hi[0] && hi[1] > lo[1]; i++)
            memcpy(c + (i - lo[0]) * cs->tstride[0] * (int64_t)item, all + (size_t)(i * n + lo[1]) * item,
                   (size_t)(hi[1] - lo[1]) * item);
    }
    cpn_free(all);
    cpn_free(part);
    cpn_free(counts);
    return st;
}
