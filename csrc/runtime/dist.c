/* dist.c: owner computes, over tiled stores.
 *
 * Element-wise ops and casts take the box path: this rank computes the part of the output view
 * that lands in its output tile (the work box, a box of view indices); for each input view the
 * image of that box is the store box it needs, and the pieces of it that other ranks own are
 * exchanged with non-blocking point-to-point messages.  Receives and sends are posted first, the
 * interior of the work box (whose inputs are all local) is computed while they fly, then the
 * border.  What moves where is the op's plan, cached by the op's signature.  On a device backend
 * with a device transport the same plan runs on the tiles' device copies: packing, messages and
 * computing go through the transport (transport.h: the host's or the device backend's), so halos
 * move device to device.  Reductions reduce locally (on a device backend on the device, the
 * transport's reduce_region) and combine the per-rank
 * partials in rank order on the host (the same bytes on every rank).
 * 2-D matrix products of whole stores go to summa.c (row and column panels to their owners).
 * Anything else (other matrix products, views through flat aliases, reshapes that split a dimension
 * of the output) is computed on gathered copies and the results are scattered back: correct,
 * not fast.  Inputs that alias the output are read into buffers before anything is written, so
 * `a[1:] += a[:-1]` reads the old values everywhere. */
#include "dist.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "comm.h"
#include "kernels.h"
#include "partition.h"
#include "exec.h"
#include "stats.h"
#include "store.h"
#include "samplesort.h"
#include "scalapack.h"
#include "summa.h"
#include "distfft.h"
#include "distselect.h"
#include "distscan.h"
#include "distroute.h"
#include "flatroute.h"
#include "transport.h"

#define box cpn_dist_box   /* dist.h's box: view or store index ranges [lo, hi) per dimension */

static int64_t box_count(const struct box *b, int n)
{
    int64_t c = 1;
    for (int d = 0; d < n; d++) c *= b->hi[d] > b->lo[d] ? b->hi[d] - b->lo[d] : 0;
    return c;
}

static bool box_intersect(const struct box *a, const struct box *b, int n, struct box *out)
{
    bool ok = true;
    for (int d = 0; d < n; d++) {
        out->lo[d] = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
        out->hi[d] = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
        if (out->hi[d] <= out->lo[d]) ok = false;
    }
    return ok;
}

static void dense_strides(const struct box *b, int n, int64_t *st)
{
    int64_t s = 1;
    for (int d = n - 1; d >= 0; d--) {
        st[d] = s;
        s *= b->hi[d] - b->lo[d];
    }
}

static void tile_of(const struct cpn_store *s, int rank, struct box *b)
{
    cpn_store_tile_box(s, rank, b->lo, b->hi);
}

/* Box r (store indices) from src (its box's lower corner slo, element strides src_st) to dst (dlo,
 * dst_st) with transport t. */
static enum cpn_status tcopy(const struct cpn_transport_i *t, int n, const struct box *r, size_t item, char *dst,
                             const int64_t *dlo, const int64_t *dst_st, const char *src, const int64_t *slo,
                             const int64_t *src_st)
{
    int64_t ext[CPN_MAXDIM], doff = 0, soff = 0;
    for (int d = 0; d < n; d++) {
        ext[d] = r->hi[d] - r->lo[d];
        if (ext[d] <= 0) return CPN_OK;
        doff += (r->lo[d] - dlo[d]) * dst_st[d];
        soff += (r->lo[d] - slo[d]) * src_st[d];
    }
    return t->copy_region(n, ext, item, dst + doff * (int64_t)item, dst_st, src + soff * (int64_t)item, src_st);
}

/* Copy store region r between two host buffers, each holding a store box starting at *lo with
 * element strides *st. */
static void copy_region(int n, const struct box *r, size_t item, char *dst, const int64_t *dlo,
                        const int64_t *dst_st, const char *src, const int64_t *slo,
                        const int64_t *src_st)
{
    (void)tcopy(cpn_transport_host(), n, r, item, dst, dlo, dst_st, src, slo, src_st);   /* cannot fail */
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The view indices whose elements lie in store box t.  Returns 1 (box in *w), 0 (none) or -1 when
 * the set is not a box (two view dimensions walk one store dimension). */
static int preimage_split(const struct cpn_view *v, const struct box *t, struct box *w);

static int preimage(const struct cpn_view *v, const struct box *t, struct box *w)
{
    int walked[CPN_MAXDIM] = {0};
    for (int i = 0; i < v->ndim; i++)
        if (v->sdim[i] >= 0 && walked[v->sdim[i]]++) return preimage_split(v, t, w);
    for (int d = 0; d < v->store->ndim; d++)
        if (!walked[d] && (v->off[d] < t->lo[d] || v->off[d] >= t->hi[d])) return 0;
    for (int i = 0; i < v->ndim; i++) {
        int64_t n = v->shape[i], lo = 0, hi = n;
        int d = v->sdim[i];
        if (d >= 0) {
            int64_t s = v->step[i], o = v->off[d];
            if (s > 0) {
                lo = -floor_div(o - t->lo[d], s);   /* ceil((t.lo - o) / s) */
                hi = -floor_div(o - t->hi[d], s);
            } else {
                int64_t a = -s;
                lo = floor_div(o - t->hi[d], a) + 1;
                hi = floor_div(o - t->lo[d], a) + 1;
            }
            if (lo < 0) lo = 0;
            if (hi > n) hi = n;
        }
        w->lo[i] = lo;
        w->hi[i] = hi;
        if (hi <= lo) return 0;
    }
    return 1;
}

/* preimage of a view of a 1-D store whose dimensions all walk it (an n-d reshape of a 1-D
 * array: arange(n).reshape(r, c) and its slices, the rows of a selection) at positive steps,
 * each row of the first dimension ahead of the next (a row's elements within [start, start +
 * ext], ext below the row step): a box when no row straddles an edge of the tile's range
 * (whole rows, full along the other dimensions), else -1. */
/* The rows [*a, *b) of such a view whose elements lie in range t of its 1-D store (row 0 starts
 * at off, row x at off + x s0 and spans ext past its start); false when a row straddles an
 * edge of t. */
static bool split_rows(int64_t off, int64_t s0, int64_t ext, int64_t n, const struct box *t, int64_t *a, int64_t *b)
{
    *a = -floor_div(off - t->lo[0], s0);          /* the first row starting at or past t.lo */
    *b = -floor_div(off - t->hi[0], s0);
    *a = *a < 0 ? 0 : *a > n ? n : *a;
    *b = *b < 0 ? 0 : *b > n ? n : *b;
    if (*a > 0 && off + (*a - 1) * s0 + ext >= t->lo[0]) return false;
    if (*b > *a && off + (*b - 1) * s0 + ext >= t->hi[0]) return false;
    return true;
}

static int preimage_split(const struct cpn_view *v, const struct box *t, struct box *w)
{
    if (v->store->ndim != 1 || v->ndim < 2) return -1;
    int64_t ext = 0;                              /* the span of a row past its first element */
    for (int i = 1; i < v->ndim; i++) {
        if (v->shape[i] == 0) return 0;
        if (v->shape[i] == 1 || v->sdim[i] < 0) continue;
        if (v->sdim[i] != 0 || v->step[i] <= 0) return -1;
        ext += v->step[i] * (v->shape[i] - 1);
    }
    const int64_t n = v->shape[0], off = v->off[0];
    if (n == 0) return 0;
    if (n > 1 && (v->sdim[0] != 0 || v->step[0] <= ext)) return -1;
    const int64_t s0 = n > 1 ? v->step[0] : ext + 1;
    int64_t a, b;
    /* every rank decides alike (the callers choose a path by their own tile): a box only when
     * no rank's tile cuts a row */
    if (v->store->tiled)
        for (int q = 0; q < cpn_partition_ranks(); q++) {
            struct box tq;
            tile_of(v->store, q, &tq);
            if (!split_rows(off, s0, ext, n, &tq, &a, &b)) return -1;
        }
    if (!split_rows(off, s0, ext, n, t, &a, &b)) return -1;
    if (b <= a) return 0;
    w->lo[0] = a;
    w->hi[0] = b;
    for (int i = 1; i < v->ndim; i++) {
        w->lo[i] = 0;
        w->hi[i] = v->shape[i];
    }
    return 1;
}

/* The store box the view reads for view-index box w (non-empty). */
static void image(const struct cpn_view *v, const struct box *w, struct box *need)
{
    for (int d = 0; d < v->store->ndim; d++) need->lo[d] = need->hi[d] = v->off[d];
    for (int i = 0; i < v->ndim; i++) {
        int d = v->sdim[i];
        if (d < 0) continue;
        int64_t a = v->step[i] * w->lo[i], b = v->step[i] * (w->hi[i] - 1);
        need->lo[d] += a < b ? a : b;
        need->hi[d] += a < b ? b : a;
    }
    for (int d = 0; d < v->store->ndim; d++) need->hi[d] += 1;
}

/* Origin pointer and byte strides of view v restricted to view-index box r, in a buffer holding
 * store box [blo, ...) with element strides bst. */
static char *region_layout(const struct cpn_view *v, const struct box *r, char *buf, const int64_t *blo,
                           const int64_t *bst, int64_t *byte_strides)
{
    const struct cpn_store *s = v->store;
    int64_t item = (int64_t)cpn_dtype_size(s->dtype), off = 0;
    int64_t pos[CPN_MAXDIM];
    for (int d = 0; d < s->ndim; d++) pos[d] = v->off[d];
    for (int i = 0; i < v->ndim; i++) {
        if (v->sdim[i] >= 0) pos[v->sdim[i]] += v->step[i] * r->lo[i];
        byte_strides[i] = v->sdim[i] < 0 ? 0 : v->step[i] * bst[v->sdim[i]] * item;
    }
    for (int d = 0; d < s->ndim; d++) off += (pos[d] - blo[d]) * bst[d];
    return buf + off * item + (v->part == 2 ? item / 2 : 0);
}

/* ---- plans ---------------------------------------------------------------------------------- */

struct piece {
    int rank;
    struct box box;
};

struct in_plan {
    bool view;          /* false: an inline scalar */
    bool buffered;      /* read through buffer copies (remote pieces or aliasing) */
    bool aliased;       /* the output's store: one copy of all of `need`, taken before any
                         * write; otherwise (remote pieces) a region whose image lies in the
                         * local tile reads it in place and the others read copies of their
                         * images only (struct exec_bufs) */
    bool has_interior;  /* the preimage of the local part is a box */
    struct box need;    /* store box read (when the work box is non-empty) */
    struct box local;   /* the part of `need` held here */
    int nrecv, nsend;
    struct piece *recv, *send;
};

struct plan {
    uint64_t hash;
    size_t keylen;
    unsigned char *key;
    bool work;                   /* this rank computes something */
    struct box w;                /* the work box (view indices of the output) */
    bool interior;               /* wint is valid and non-empty */
    struct box wint;
    struct in_plan in[CPN_OP_MAXIN];
    int refs;                    /* exchanges in flight that read it (a fused run holds several) */
    bool evicted;                /* replaced in the cache while referenced: freed at the last unref */
};

#define PLAN_SLOTS 4096
static struct plan *plans[PLAN_SLOTS];

struct keybuf {
    unsigned char *p;
    size_t n, cap;
};

static void key_put(struct keybuf *k, const void *data, size_t n)
{
    if (k->n + n > k->cap) return;   /* caller sizes the buffer */
    memcpy(k->p + k->n, data, n);
    k->n += n;
}

static void key_view(struct keybuf *k, const struct cpn_view *v)
{
    int32_t hdr[4] = {v ? v->ndim : -1, v ? v->part : 0, v ? (int32_t)v->dtype : 0,
                      v ? v->store->ndim : 0};
    key_put(k, hdr, sizeof hdr);
    if (!v) return;
    const struct cpn_store *s = v->store;
    key_put(k, v->shape, (size_t)v->ndim * sizeof v->shape[0]);
    key_put(k, v->sdim, (size_t)v->ndim * sizeof v->sdim[0]);
    key_put(k, v->step, (size_t)v->ndim * sizeof v->step[0]);
    key_put(k, v->off, (size_t)s->ndim * sizeof v->off[0]);
    key_put(k, s->shape, (size_t)s->ndim * sizeof s->shape[0]);
    int32_t t = s->tiled;
    key_put(k, &t, sizeof t);
    if (s->tiled) {
        int64_t nsp = 0;
        for (int d = 0; d < s->ndim; d++) nsp += s->grid[d] + 1;
        key_put(k, s->grid, (size_t)s->ndim * sizeof s->grid[0]);
        key_put(k, s->rank_stride, (size_t)s->ndim * sizeof s->rank_stride[0]);
        key_put(k, s->splits, (size_t)nsp * sizeof(int64_t));
    }
}

static size_t key_size(const struct cpn_view *v)
{
    if (!v) return 16;
    int64_t nsp = 0;
    for (int d = 0; d < v->store->ndim; d++) nsp += v->store->grid[d] + 1;
    return 16 + 4 * (size_t)v->ndim * 8 + 4 * (size_t)v->store->ndim * 8 + (size_t)nsp * 8 + 64;
}

/* Which inputs share the output's store: the aliasing that forces a buffer.  Part of the key. */
static void op_key(const struct cpn_op *op, struct keybuf *k)
{
    int32_t hdr[4] = {op->kind, op->nin, 0, 0};
    key_put(k, hdr, sizeof hdr);
    key_view(k, op->out[0]);
    for (int i = 0; i < op->nin; i++) {
        key_view(k, op->in[i]);
        int32_t alias = op->in[i] && cpn_store_root(op->in[i]->store) == cpn_store_root(op->out[0]->store);
        key_put(k, &alias, sizeof alias);
    }
}

/* FNV-1a over 8-byte words (then the tail bytes): a swe step looks up ~1,800 keys of a few
 * hundred bytes, and the byte-wise multiply chain was most of plan_get's 3.6% of its time. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    h ^= h >> 33;   /* the high bits into the low ones: the cache slot is h % PLAN_SLOTS */
    h *= 0xff51afd7ed558ccdull;
    return h ^ h >> 33;
}

static void plan_free(struct plan *p)
{
    if (!p) return;
    for (int i = 0; i < CPN_OP_MAXIN; i++) {
        cpn_free(p->in[i].recv);
        cpn_free(p->in[i].send);
    }
    cpn_free(p->key);
    cpn_free(p);
}

/* The cache drops plan p: freed now, or by the last exchange still reading it (two ops of one
 * fused run whose keys share a slot: the second's plan_get replaces the first's plan while the
 * first's exchange is in flight). */
static void plan_evict(struct plan *p)
{
    if (p && p->refs > 0) p->evicted = true;
    else plan_free(p);
}

static void plan_unref(const struct plan *cp)
{
    struct plan *p = (struct plan *)cp;
    if (--p->refs == 0 && p->evicted) plan_free(p);
}

/* Build the box plan of an element-wise op; NULL with *expressible = false when the op must take
 * the gather path. */
static struct plan *plan_build(const struct cpn_op *op, bool *expressible)
{
    const struct cpn_view *out = op->out[0];
    const struct cpn_store *so = out->store;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    *expressible = false;
    struct plan *p = cpn_alloc(sizeof *p);
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    struct box t;
    tile_of(so, me, &t);
    int rc = preimage(out, &t, &p->w);
    if (rc < 0) {
        plan_free(p);
        return NULL;
    }
    p->work = rc > 0;
    /* Every rank's work box, for the send side. */
    struct box *wq = cpn_alloc((size_t)P * sizeof *wq);
    bool *wq_ok = cpn_alloc((size_t)P * sizeof *wq_ok);
    if (!wq || !wq_ok) goto oom;
    for (int q = 0; q < P; q++) {
        struct box tq;
        tile_of(so, q, &tq);
        wq_ok[q] = preimage(out, &tq, &wq[q]) > 0;
    }
    bool interior_ok = p->work;
    struct box wint = p->w;
    for (int k = 0; k < op->nin; k++) {
        const struct cpn_view *v = op->in[k];
        struct in_plan *ip = &p->in[k];
        if (!v) continue;
        ip->view = true;
        const struct cpn_store *s = v->store;
        const int n = s->ndim;
        /* The output's store through another view: read from a copy taken before any write.
         * The very view the op writes (q[inner] += dt * k) is read element by element before
         * each element is written, as in one process: in place. */
        bool aliased = cpn_store_root(s) == cpn_store_root(so) && !cpn_view_same(v, out);
        struct box mine;
        tile_of(s, me, &mine);
        ip->recv = cpn_alloc((size_t)P * sizeof *ip->recv);
        ip->send = cpn_alloc((size_t)P * sizeof *ip->send);
        if (!ip->recv || !ip->send) goto oom;
        if (p->work) {
            image(v, &p->w, &ip->need);
            box_intersect(&ip->need, &mine, n, &ip->local);
            if (s->tiled)
                for (int r = 0; r < P; r++) {
                    struct box tr, piece;
                    if (r == me) continue;
                    tile_of(s, r, &tr);
                    if (box_intersect(&ip->need, &tr, n, &piece)) ip->recv[ip->nrecv++] = (struct piece){r, piece};
                }
            ip->buffered = aliased || ip->nrecv > 0;
            ip->aliased = aliased;
            if (ip->nrecv > 0) {
                /* Interior: the work indices whose input elements are held here. */
                struct box pw;
                int prc = preimage(v, &mine, &pw);
                if (prc < 0) interior_ok = false;
                else if (prc == 0 || !box_intersect(&wint, &pw, out->ndim, &wint)) interior_ok = false;
            }
        }
        if (s->tiled)
            for (int q = 0; q < P; q++) {
                struct box nq, piece;
                if (q == me || !wq_ok[q]) continue;
                image(v, &wq[q], &nq);
                if (box_intersect(&nq, &mine, n, &piece)) ip->send[ip->nsend++] = (struct piece){q, piece};
            }
    }
    p->interior = interior_ok && out->ndim > 0;
    p->wint = wint;
    cpn_free(wq);
    cpn_free(wq_ok);
    *expressible = true;
    return p;
oom:
    cpn_free(wq);
    cpn_free(wq_ok);
    plan_free(p);
    return NULL;
}

/* The cached plan of `op`, building it on a miss.  NULL: not expressible (or OOM, with the
 * status in *st). */
static struct plan *plan_get(const struct cpn_op *op, enum cpn_status *st)
{
    *st = CPN_OK;
    size_t cap = 64 + key_size(op->out[0]);
    for (int i = 0; i < op->nin; i++) cap += key_size(op->in[i]) + 8;
    struct keybuf k = {cpn_alloc(cap), 0, cap};
    if (!k.p) {
        *st = CPN_ERR_NOMEM;
        return NULL;
    }
    op_key(op, &k);
    uint64_t h = fnv1a(k.p, k.n);
    struct plan **slot = &plans[h % PLAN_SLOTS];
    if (*slot && (*slot)->hash == h && (*slot)->keylen == k.n && !memcmp((*slot)->key, k.p, k.n)) {
        cpn_free(k.p);
        cpn_stats.plan_hits++;
        return *slot;
    }
    bool expressible;
    struct plan *p = plan_build(op, &expressible);
    if (!p) {
        cpn_free(k.p);
        if (expressible) *st = CPN_ERR_NOMEM;
        return NULL;
    }
    p->hash = h;
    p->key = k.p;
    p->keylen = k.n;
    plan_evict(*slot);
    *slot = p;
    cpn_stats.plans_cached++;
    return p;
}

int cpn_dist_plan_info(const struct cpn_op *op, struct cpn_plan_info *info)
{
    bool expressible;
    memset(info, 0, sizeof *info);
    struct plan *p = plan_build(op, &expressible);
    if (!p) return expressible ? CPN_ERR_NOMEM : 0;
    info->work = p->work;
    memcpy(info->wlo, p->w.lo, sizeof info->wlo);
    memcpy(info->whi, p->w.hi, sizeof info->whi);
    for (int k = 0; k < op->nin; k++) {
        const struct in_plan *ip = &p->in[k];
        info->nrecv[k] = ip->nrecv < CPN_PLAN_INFO_MAX ? ip->nrecv : CPN_PLAN_INFO_MAX;
        info->nsend[k] = ip->nsend < CPN_PLAN_INFO_MAX ? ip->nsend : CPN_PLAN_INFO_MAX;
        for (int j = 0; j < info->nrecv[k]; j++) {
            info->recv[k][j].rank = ip->recv[j].rank;
            memcpy(info->recv[k][j].lo, ip->recv[j].box.lo, sizeof info->recv[k][j].lo);
            memcpy(info->recv[k][j].hi, ip->recv[j].box.hi, sizeof info->recv[k][j].hi);
        }
        for (int j = 0; j < info->nsend[k]; j++) {
            info->send[k][j].rank = ip->send[j].rank;
            memcpy(info->send[k][j].lo, ip->send[j].box.lo, sizeof info->send[k][j].lo);
            memcpy(info->send[k][j].hi, ip->send[j].box.hi, sizeof info->send[k][j].hi);
        }
    }
    plan_free(p);
    return 1;
}

/* ---- the box path ---------------------------------------------------------------------------- */

/* The transport the box path runs with (transport.h): the active backend's device transport when
 * asked for and it has one, else the host transport.  The plan is the same. */
static const struct cpn_transport_i *transport_for(bool device)
{
    const struct cpn_backend_i *be = cpn_backend_active();
    return device && be->device && be->transport ? be->transport : cpn_transport_host();
}

struct exec_bufs {
    char *tile[CPN_OP_MAXIN];          /* the inputs' tiles (host or device copies) */
    char *buf[CPN_OP_MAXIN];           /* aliased inputs: a copy of the whole need box */
    char **rbuf[CPN_OP_MAXIN];         /* other buffered inputs: per region a copy of its image,
                                        * NULL where the image lies in the local tile */
    char **recv[CPN_OP_MAXIN];         /* staging per received piece */
    char **send[CPN_OP_MAXIN];
};

struct xchg;
static char *input_layout(struct xchg *x, int k, int j, int64_t *byte_strides);

/* Compute region j of the exchange's regions (view indices of the output) into obase. */
static enum cpn_status compute_region(struct xchg *x, int j, char *obase, struct cpn_fpreport *fp);

/* An op's exchange in flight: its input buffers, staging, and the posted messages. */
struct xchg {
    const struct cpn_op *op;
    const struct plan *p;
    const struct cpn_transport_i *t;
    int nreg;                          /* the regions the op is computed in (the caller's) */
    const struct box *reg;
    const struct cpn_store *snap;      /* a root written over region 0 first (xchg_begin) */
    struct exec_bufs eb;
    struct cpn_msg *recvs, *sends;
    void *handle;
};

/* The store box input k reads over region j, and whether it needs a copy (some of it is held by
 * other ranks); false for an empty region. */
static bool region_need(const struct xchg *x, int k, int j, struct box *need)
{
    const struct cpn_view *v = x->op->in[k];
    const struct box *r = &x->reg[j];
    for (int i = 0; i < v->ndim; i++)
        if (r->hi[i] <= r->lo[i]) return false;
    image(v, r, need);
    struct box mine;
    tile_of(v->store, cpn_partition_rank(), &mine);
    for (int d = 0; d < v->store->ndim; d++)
        if (need->lo[d] < mine.lo[d] || need->hi[d] > mine.hi[d]) return true;
    return false;
}

/* The store box input k reads over region j; false for an empty region. */
static bool region_image(const struct xchg *x, int k, int j, struct box *need)
{
    const struct box *r = &x->reg[j];
    for (int i = 0; i < x->op->in[k]->ndim; i++)
        if (r->hi[i] <= r->lo[i]) return false;
    image(x->op->in[k], r, need);
    return true;
}

static void xchg_free(struct xchg *x)
{
    if (!x->p) return;   /* freed already (or never begun) */
    if (x->handle) x->t->xchg_wait(x->handle);
    x->handle = NULL;
    for (int k = 0; k < CPN_OP_MAXIN; k++) {
        const struct in_plan *ip = &x->p->in[k];
        if (!ip->view) continue;
        const struct cpn_store *s = x->op->in[k]->store;
        const int n = s->ndim;
        size_t item = cpn_dtype_size(s->dtype);
        size_t bufn = (size_t)box_count(&ip->need, n) * item;
        if (x->eb.buf[k]) x->t->release(x->eb.buf[k], bufn ? bufn : 1);
        if (x->eb.rbuf[k])
            for (int j = 0; j < x->nreg; j++) {
                struct box need;
                if (x->eb.rbuf[k][j] && region_image(x, k, j, &need))
                    x->t->release(x->eb.rbuf[k][j], (size_t)box_count(&need, n) * item);
            }
        if (x->eb.recv[k])
            for (int j = 0; j < ip->nrecv; j++)
                if (x->eb.recv[k][j]) x->t->release(x->eb.recv[k][j], (size_t)box_count(&ip->recv[j].box, n) * item);
        if (x->eb.send[k])
            for (int j = 0; j < ip->nsend; j++)
                if (x->eb.send[k][j]) x->t->release(x->eb.send[k][j], (size_t)box_count(&ip->send[j].box, n) * item);
        cpn_free(x->eb.rbuf[k]);
        cpn_free(x->eb.recv[k]);
        cpn_free(x->eb.send[k]);
    }
    cpn_free(x->recvs);
    cpn_free(x->sends);
    memset(&x->eb, 0, sizeof x->eb);
    x->recvs = x->sends = NULL;
    plan_unref(x->p);
    x->p = NULL;
}

/* Pack and post the op's sends and receives, then copy the local parts of its buffered inputs
 * (before anything is written): an aliased input's whole need box, another buffered input's
 * image of each region that reaches beyond the local tile (the border rows of a stencil, not its
 * tile).  The op is computed in the `nreg` regions `reg` (view indices of the output, covering the
 * work box; the caller's array, read until xchg_free).  On failure x still needs xchg_free. */
static enum cpn_status xchg_begin(struct xchg *x, const struct cpn_op *op, const struct plan *p,
                                  const struct cpn_transport_i *t, int nreg, const struct box *reg,
                                  const struct cpn_store *snap)
{
    memset(x, 0, sizeof *x);
    x->snap = snap;
    x->op = op;
    x->p = p;
    ((struct plan *)p)->refs++;   /* released by xchg_free */
    x->t = t;
    x->nreg = p->work ? nreg : 0;
    x->reg = reg;
    struct exec_bufs *eb = &x->eb;
    /* The inputs' tiles, made current where the op runs (on the device: before the output's, so
     * an output sharing their store sees them).  A store without a buffer that nothing packs or
     * copies is fetched when a region reads it in place (input_layout): a fused run's
     * temporaries, kept in registers, are never allocated. */
    for (int k = 0; k < op->nin; k++) {
        const struct cpn_store *s = op->in[k] ? op->in[k]->store : NULL;
        if (s && (s->data || s->dev || p->in[k].nsend > 0 || p->in[k].buffered) &&
            !(eb->tile[k] = t->tile(op->in[k]->store)))
            return CPN_ERR_NOMEM;
    }
    int nr = 0, ns = 0;
    for (int k = 0; k < op->nin; k++) {
        nr += p->in[k].nrecv;
        ns += p->in[k].nsend;
    }
    x->recvs = cpn_alloc((size_t)(nr + 1) * sizeof *x->recvs);
    x->sends = cpn_alloc((size_t)(ns + 1) * sizeof *x->sends);
    if (!x->recvs || !x->sends) return CPN_ERR_NOMEM;
    nr = ns = 0;
    for (int k = 0; k < op->nin; k++) {
        const struct in_plan *ip = &p->in[k];
        if (!ip->view) continue;
        const struct cpn_store *s = op->in[k]->store;
        const int n = s->ndim;
        size_t item = cpn_dtype_size(s->dtype);
        eb->recv[k] = cpn_alloc((size_t)(ip->nrecv + 1) * sizeof(char *));
        eb->send[k] = cpn_alloc((size_t)(ip->nsend + 1) * sizeof(char *));
        if (!eb->recv[k] || !eb->send[k]) return CPN_ERR_NOMEM;
        memset(eb->recv[k], 0, (size_t)(ip->nrecv + 1) * sizeof(char *));
        memset(eb->send[k], 0, (size_t)(ip->nsend + 1) * sizeof(char *));
        for (int j = 0; j < ip->nrecv; j++) {
            size_t bytes = (size_t)box_count(&ip->recv[j].box, n) * item;
            eb->recv[k][j] = t->alloc(bytes);
            if (!eb->recv[k][j]) return CPN_ERR_NOMEM;
            x->recvs[nr++] = (struct cpn_msg){ip->recv[j].rank, k, eb->recv[k][j], bytes};
        }
        const char *tile = eb->tile[k];
        for (int j = 0; j < ip->nsend; j++) {
            const struct box *b = &ip->send[j].box;
            size_t bytes = (size_t)box_count(b, n) * item;
            int64_t pst[CPN_MAXDIM];
            eb->send[k][j] = t->alloc(bytes);
            if (!eb->send[k][j]) return CPN_ERR_NOMEM;
            dense_strides(b, n, pst);
            CPN_TRY(tcopy(t, n, b, item, eb->send[k][j], b->lo, pst, tile, s->tlo, s->tstride));
            x->sends[ns++] = (struct cpn_msg){ip->send[j].rank, k, eb->send[k][j], bytes};
        }
    }
    enum cpn_status st = t->xchg_post(nr, x->recvs, ns, x->sends, &x->handle);
    if (st != CPN_OK) return st;
    for (int k = 0; k < op->nin && p->work; k++) {
        const struct in_plan *ip = &p->in[k];
        const bool snap_k = ip->view && snap && cpn_store_root(op->in[k]->store) == snap;
        if (!ip->view || (!ip->buffered && !snap_k)) continue;
        const struct cpn_store *s = op->in[k]->store;
        size_t item = cpn_dtype_size(s->dtype);
        int64_t bst[CPN_MAXDIM];
        struct box chk, mine;
        if (ip->buffered && ip->aliased) {
            size_t bytes = (size_t)box_count(&ip->need, s->ndim) * item;
            eb->buf[k] = t->alloc(bytes ? bytes : 1);
            if (!eb->buf[k]) return CPN_ERR_NOMEM;
            dense_strides(&ip->need, s->ndim, bst);
            if (box_intersect(&ip->local, &ip->need, s->ndim, &chk) || s->ndim == 0)
                CPN_TRY(tcopy(t, s->ndim, &ip->local, item, eb->buf[k], ip->need.lo, bst, eb->tile[k],
                              s->tlo, s->tstride));
            continue;
        }
        eb->rbuf[k] = cpn_alloc((size_t)(x->nreg + 1) * sizeof(char *));
        if (!eb->rbuf[k]) return CPN_ERR_NOMEM;
        memset(eb->rbuf[k], 0, (size_t)(x->nreg + 1) * sizeof(char *));
        tile_of(s, cpn_partition_rank(), &mine);
        for (int j = 0; j < x->nreg; j++) {
            struct box need;
            /* a region reading remote pieces; one after region 0 of an input that reads `snap` */
            if (!region_need(x, k, j, &need) && !(snap_k && j > 0 && region_image(x, k, j, &need)))
                continue;
            eb->rbuf[k][j] = t->alloc((size_t)box_count(&need, s->ndim) * item);
            if (!eb->rbuf[k][j]) return CPN_ERR_NOMEM;
            dense_strides(&need, s->ndim, bst);
            if (box_intersect(&need, &mine, s->ndim, &chk))
                CPN_TRY(tcopy(t, s->ndim, &chk, item, eb->rbuf[k][j], need.lo, bst, eb->tile[k], s->tlo,
                              s->tstride));
        }
    }
    return CPN_OK;
}

/* Wait for the op's messages and unpack the received pieces into its input buffers. */
static enum cpn_status xchg_end(struct xchg *x)
{
    enum cpn_status st = x->t->xchg_wait(x->handle);
    x->handle = NULL;
    if (st != CPN_OK) return st;
    const struct cpn_op *op = x->op;
    const struct plan *p = x->p;
    for (int k = 0; k < op->nin && p->work; k++) {
        const struct in_plan *ip = &p->in[k];
        if (!ip->view || !ip->buffered) continue;
        const struct cpn_store *s = op->in[k]->store;
        size_t item = cpn_dtype_size(s->dtype);
        int64_t bst[CPN_MAXDIM], pst[CPN_MAXDIM];
        if (ip->aliased) {
            dense_strides(&ip->need, s->ndim, bst);
            for (int j = 0; j < ip->nrecv; j++) {
                dense_strides(&ip->recv[j].box, s->ndim, pst);
                CPN_TRY(tcopy(x->t, s->ndim, &ip->recv[j].box, item, x->eb.buf[k], ip->need.lo, bst,
                              x->eb.recv[k][j], ip->recv[j].box.lo, pst));
            }
            continue;
        }
        for (int r = 0; r < x->nreg; r++) {
            struct box need, piece;
            if (!x->eb.rbuf[k][r] || !region_need(x, k, r, &need)) continue;
            dense_strides(&need, s->ndim, bst);
            for (int j = 0; j < ip->nrecv; j++) {
                if (!box_intersect(&need, &ip->recv[j].box, s->ndim, &piece)) continue;
                dense_strides(&ip->recv[j].box, s->ndim, pst);
                CPN_TRY(tcopy(x->t, s->ndim, &piece, item, x->eb.rbuf[k][r], need.lo, bst,
                              x->eb.recv[k][j], ip->recv[j].box.lo, pst));
            }
        }
    }
    return CPN_OK;
}

/* Origin and byte strides of op input k over region j: a copy (aliased inputs, regions reaching
 * beyond the local tile) or the tile itself (NULL when its buffer cannot be allocated). */
static char *input_layout(struct xchg *x, int k, int j, int64_t *byte_strides)
{
    const struct cpn_view *v = x->op->in[k];
    const struct in_plan *ip = &x->p->in[k];
    const struct cpn_store *s = v->store;
    const struct box *r = &x->reg[j];
    int64_t bst[CPN_MAXDIM];
    if (ip->buffered && ip->aliased) {
        dense_strides(&ip->need, s->ndim, bst);
        return region_layout(v, r, x->eb.buf[k], ip->need.lo, bst, byte_strides);
    }
    struct box need;
    if (x->eb.rbuf[k] && x->eb.rbuf[k][j] && region_image(x, k, j, &need)) {
        dense_strides(&need, s->ndim, bst);
        return region_layout(v, r, x->eb.rbuf[k][j], need.lo, bst, byte_strides);
    }
    if (!x->eb.tile[k] && !(x->eb.tile[k] = x->t->tile(v->store))) return NULL;
    return region_layout(v, r, x->eb.tile[k], s->tlo, s->tstride, byte_strides);
}

static enum cpn_status compute_region(struct xchg *x, int j, char *obase, struct cpn_fpreport *fp)
{
    const struct cpn_op *op = x->op;
    const struct cpn_view *out = op->out[0];
    const struct box *r = &x->reg[j];
    int64_t strides[CPN_MAXARGS][CPN_MAXDIM], ext[CPN_MAXDIM];
    char *ptr[CPN_MAXARGS];
    for (int i = 0; i < out->ndim; i++) {
        ext[i] = r->hi[i] - r->lo[i];
        if (ext[i] <= 0) return CPN_OK;
    }
    for (int k = 0; k < op->nin; k++) {
        if (!op->in[k]) {
            ptr[k] = (char *)op->scalar[k].bytes;
            for (int i = 0; i < out->ndim; i++) strides[k][i] = 0;
            continue;
        }
        if (!(ptr[k] = input_layout(x, k, j, strides[k]))) return CPN_ERR_NOMEM;
    }
    ptr[op->nin] = region_layout(out, r, obase, out->store->tlo, out->store->tstride, strides[op->nin]);
    const int64_t *st[CPN_MAXARGS];
    for (int k = 0; k <= op->nin; k++) st[k] = strides[k];
    return x->t->compute_region(op, ptr, out->ndim, ext, st, fp);
}

int cpn_dist_regions(int ndim, const struct box *w, const struct box *in, struct box *out)
{
    if (!in) {
        out[0] = *w;
        return 1;
    }
    int n = 0;
    out[n++] = *in;
    struct box rest = *w;
    for (int d = 0; d < ndim; d++) {
        struct box lo = rest, hi = rest;
        lo.hi[d] = in->lo[d];
        hi.lo[d] = in->hi[d];
        if (box_count(&lo, ndim) > 0) out[n++] = lo;
        if (box_count(&hi, ndim) > 0) out[n++] = hi;
        rest.lo[d] = in->lo[d];
        rest.hi[d] = in->hi[d];
    }
    return n;
}

static enum cpn_status exec_box(const struct cpn_op *op, const struct plan *p, struct cpn_fpreport *fp)
{
    const struct cpn_view *out = op->out[0];
    if (!cpn_op_loop(op)) return CPN_ERR_TYPE;
    const struct cpn_transport_i *dt = cpn_backend_active()->transport;
    const struct cpn_transport_i *t = transport_for(dt && dt->region_supported(op));
    /* Make sure every buffer exists (a rank with no work still sends); on the device the inputs'
     * copies are made current first, so an output sharing their store sees them. */
    char *obase = t->device ? NULL : cpn_op_output_buffer(op);
    if (!t->device && !obase) return CPN_ERR_NOMEM;
    /* The interior (every input local) is computed while the messages fly, the border after. */
    struct box reg[CPN_DIST_MAXREG];
    const bool interior = p->work && p->interior;
    int nreg = p->work ? cpn_dist_regions(out->ndim, &p->w, interior ? &p->wint : NULL, reg) : 0;
    struct xchg x;
    enum cpn_status st = xchg_begin(&x, op, p, t, nreg, reg, NULL);
    if (st != CPN_OK) goto done;
    if (t->device && !(obase = cpn_store_device_data(out->store, true, cpn_op_overwrites(op)))) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    if (interior) st = compute_region(&x, 0, obase, fp);
    enum cpn_status st2 = xchg_end(&x);   /* completed even after a failure: the peers wait */
    if (st == CPN_OK) st = st2;
    for (int j = interior ? 1 : 0; j < nreg && st == CPN_OK; j++) st = compute_region(&x, j, obase, fp);
done:
    xchg_free(&x);
    return st;
}

/* ---- fused runs over aligned tiles -------------------------------------------------------------- */

struct cpn_dist_xchg {
    struct xchg x;
};

/* Can the box plans address store s by its own tiling?  A root, or a flat alias tiled as its
 * root's rows (store.h): its tile is the root's buffer. */
static bool boxable(const struct cpn_store *s) { return !s->root || s->tiled; }

static bool box_path(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_ELEMENTWISE && op->kind != CPN_OPK_CAST) return false;
    if (op->nout != 1 || cpn_dist_op_is_local(op) || !boxable(op->out[0]->store)) return false;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && !boxable(op->in[i]->store)) return false;
    return true;
}

int cpn_dist_run_info(const struct cpn_op *op, struct cpn_dist_work *w, enum cpn_status *st)
{
    *st = CPN_OK;
    if (!box_path(op)) return 0;
    const struct plan *p = plan_get(op, st);
    if (!p) return 0;
    memset(w, 0, sizeof *w);
    w->work = p->work;
    if (p->work) {
        memcpy(w->lo, p->w.lo, sizeof w->lo);
        memcpy(w->hi, p->w.hi, sizeof w->hi);
    }
    /* Where every input is local: the plan's interior when some input receives pieces, the whole
     * work box when none does, nothing when the receiving inputs leave no box. */
    bool recv = false;
    for (int k = 0; k < op->nin; k++) {
        w->moves[k] = p->in[k].nrecv > 0 || p->in[k].nsend > 0;
        w->buffered[k] = p->in[k].buffered;
        recv |= p->in[k].nrecv > 0;
    }
    w->interior = p->work && (!recv || p->interior);
    if (w->interior) w->in = recv ? p->wint : p->w;
    return 1;
}

enum cpn_status cpn_dist_xchg_begin(const struct cpn_op *op, bool device, int nreg,
                                    const struct box *reg, const struct cpn_store *snap,
                                    struct cpn_dist_xchg **out)
{
    *out = NULL;
    enum cpn_status st;
    const struct plan *p = plan_get(op, &st);
    if (!p) return st != CPN_OK ? st : cpn_error(CPN_ERR_INTERNAL, "fused op without a box plan");
    struct cpn_dist_xchg *x = cpn_alloc(sizeof *x);
    if (!x) return CPN_ERR_NOMEM;
    *out = x;
    return xchg_begin(&x->x, op, p, transport_for(device), nreg, reg, snap);
}

enum cpn_status cpn_dist_xchg_end(struct cpn_dist_xchg *x) { return x ? xchg_end(&x->x) : CPN_OK; }

void cpn_dist_xchg_free(struct cpn_dist_xchg *x)
{
    if (!x) return;
    xchg_free(&x->x);
    cpn_free(x);
}

char *cpn_dist_xchg_input(struct cpn_dist_xchg *x, int k, int j, int64_t *byte_strides)
{
    return input_layout(&x->x, k, j, byte_strides);
}

char *cpn_dist_tile_layout(const struct cpn_view *v, const int64_t *wlo, char *base,
                           int64_t *byte_strides)
{
    struct box r;
    memcpy(r.lo, wlo, (size_t)v->ndim * sizeof *wlo);
    return region_layout(v, &r, base, v->store->tlo, v->store->tstride, byte_strides);
}

/* ---- gathering whole stores ------------------------------------------------------------------- */

/* Fill `full` (C order, whole store) with every rank's tile.  Collective. */
static enum cpn_status gather_store(const struct cpn_store *s, char *full)
{
    const int P = cpn_partition_ranks();
    const int n = s->ndim;
    size_t item = cpn_dtype_size(s->dtype);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    if (!counts) return CPN_ERR_NOMEM;
    size_t total = 0;
    for (int r = 0; r < P; r++) {
        struct box b;
        tile_of(s, r, &b);
        counts[r] = (size_t)box_count(&b, n) * item;
        total += counts[r];
    }
    char *all = cpn_alloc(total ? total : 1);
    const char *mine = cpn_store_data((struct cpn_store *)s);
    enum cpn_status st = all && mine ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK) st = cpn_comm_allgatherv(mine, all, counts);
    if (st == CPN_OK) {
        size_t off = 0;
        for (int r = 0; r < P; r++) {
            struct box b;
            int64_t pst[CPN_MAXDIM];
            tile_of(s, r, &b);
            dense_strides(&b, n, pst);
            if (counts[r]) copy_region(n, &b, item, full, (int64_t[CPN_MAXDIM]){0}, s->stride, all + off, b.lo, pst);
            off += counts[r];
        }
    }
    cpn_free(all);
    cpn_free(counts);
    return st;
}

/* A replicated copy of tiled root `s` with every rank's data. */
static struct cpn_store *shadow_of(const struct cpn_store *s, enum cpn_status *st)
{
    struct cpn_store *sh = cpn_store_new_replicated(s->dtype, s->ndim, s->shape);
    if (!sh) { *st = CPN_ERR_NOMEM; return NULL; }
    char *full = cpn_store_data_for_overwrite(sh);
    *st = full ? gather_store(s, full) : CPN_ERR_NOMEM;
    if (*st != CPN_OK) { cpn_store_release(sh); return NULL; }
    return sh;
}

/* The same map as v, onto `root` (a store shaped like v's root) or its flat alias `*flat` (made
 * once per root, so that views of one flat alias stay views of one store: an element-wise op
 * writing the very view it reads needs no temporary). */
static struct cpn_view *rebase(const struct cpn_view *v, struct cpn_store *root,
                               struct cpn_store **flat)
{
    struct cpn_store *target = root, *other = NULL;
    if (v->store->root && v->store->dtype != root->dtype) {
        /* through a flat alias in another dtype (ndarray.view of another size): its own */
        if (!(target = other = cpn_store_flat_alias_as(root, v->store->dtype))) return NULL;
    } else if (v->store->root) {
        if (!*flat) *flat = cpn_store_flat_alias(root);
        if (!*flat) return NULL;
        target = *flat;
    }
    struct cpn_view *r = cpn_view_new_dims(target, v->ndim > v->store->ndim ? v->ndim : v->store->ndim);
    cpn_store_release(other);   /* the view holds it */
    if (!r) return NULL;
    r->dtype = v->dtype;
    r->part = v->part;
    r->readonly = v->readonly;
    r->ndim = v->ndim;
    for (int i = 0; i < v->ndim; i++) {
        r->shape[i] = v->shape[i];
        r->sdim[i] = v->sdim[i];
        r->step[i] = v->step[i];
    }
    for (int d = 0; d < v->store->ndim; d++) r->off[d] = v->off[d];
    return r;
}

/* Compute on gathered copies, then keep this rank's tiles of the outputs. */
static enum cpn_status exec_gathered(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    struct cpn_store *roots[CPN_OP_MAXIN + CPN_OP_MAXOUT], *shadows[CPN_OP_MAXIN + CPN_OP_MAXOUT];
    struct cpn_store *flats[CPN_OP_MAXIN + CPN_OP_MAXOUT] = {0};
    int nroots = 0;
    enum cpn_status st = CPN_OK;
    struct cpn_op local = *op;
    const struct cpn_view *views[CPN_OP_MAXIN + CPN_OP_MAXOUT];
    int nv = 0;
    for (int i = 0; i < op->nin; i++) if (op->in[i]) views[nv++] = op->in[i];
    for (int i = 0; i < op->nout; i++) views[nv++] = op->out[i];
    for (int i = 0; i < nv; i++) {
        struct cpn_store *r = cpn_store_root(views[i]->store);
        bool seen = false;
        for (int j = 0; j < nroots; j++) seen |= roots[j] == r;
        if (seen) continue;
        roots[nroots] = r;
        shadows[nroots] = NULL;
        if (r->tiled) {
            shadows[nroots] = shadow_of(r, &st);
            if (st != CPN_OK) { nroots++; goto done; }
        }
        nroots++;
    }
    for (int i = 0; i < op->nin; i++) local.in[i] = NULL;
    for (int i = 0; i < op->nout; i++) local.out[i] = NULL;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? op->nout : op->nin;
        for (int i = 0; i < n; i++) {
            const struct cpn_view *v = pass ? op->out[i] : op->in[i];
            if (!v) continue;
            struct cpn_store *sh = NULL, **flat = NULL;
            for (int j = 0; j < nroots; j++)
                if (roots[j] == cpn_store_root(v->store)) sh = shadows[j], flat = &flats[j];
            struct cpn_view *nvw;
            if (sh) {
                nvw = rebase(v, sh, flat);
                if (!nvw) { st = CPN_ERR_NOMEM; goto done; }
            } else {
                nvw = (struct cpn_view *)v;
                cpn_view_retain(nvw);
            }
            if (pass) local.out[i] = nvw; else local.in[i] = nvw;
        }
    }
    st = cpn_op_execute_local(&local, fp);
    for (int i = 0; st == CPN_OK && i < op->nout; i++) {
        struct cpn_store *r = cpn_store_root(op->out[i]->store);
        if (!r->tiled) continue;
        struct cpn_store *sh = NULL;
        for (int j = 0; j < nroots; j++) if (roots[j] == r) sh = shadows[j];
        char *tile = cpn_store_data(r);
        /* the shadow's current copy may be on the device (the local execution ran there) */
        const char *shd = tile ? cpn_store_data(sh) : NULL;
        if (!shd) { st = CPN_ERR_NOMEM; break; }
        struct box b;
        tile_of(r, cpn_partition_rank(), &b);
        copy_region(r->ndim, &b, cpn_dtype_size(r->dtype), tile, r->tlo, r->tstride, shd,
                    (int64_t[CPN_MAXDIM]){0}, r->stride);
    }
done:
    for (int i = 0; i < op->nin; i++) cpn_view_release(local.in[i]);
    for (int i = 0; i < op->nout; i++) cpn_view_release(local.out[i]);
    for (int j = 0; j < nroots; j++) cpn_store_release(flats[j]);
    for (int j = 0; j < nroots; j++) cpn_store_release(shadows[j]);
    return st;
}

/* ---- reads through untiled flat aliases ------------------------------------------------------- */

/* The C-order flat range [a, b) of a store of shape sh (n >= 1 dimensions, none empty) as at most
 * 2n - 1 boxes, in flat order: each the most whole trailing blocks that fit from a. */
static int range_boxes(int n, const int64_t *sh, int64_t a, int64_t b, struct box *out)
{
    int64_t st[CPN_MAXDIM], s = 1;
    for (int d = n - 1; d >= 0; d--) {
        st[d] = s;
        s *= sh[d];
    }
    int nb = 0;
    while (a < b) {
        int j = n - 1;   /* the dimension walked: those after it are whole */
        while (j > 0 && a % (st[j] * sh[j]) == 0 && a + st[j] * sh[j] <= b) j--;
        int64_t parent = st[j] * sh[j], end = (a / parent + 1) * parent;
        if (end > b) end = a + (b - a) / st[j] * st[j];
        struct box *x = &out[nb++];
        for (int d = 0; d < n; d++) {
            int64_t c = a / st[d] % sh[d];
            x->lo[d] = d > j ? 0 : c;
            x->hi[d] = d > j ? sh[d] : d == j ? c + (end - a) / st[j] : c + 1;
        }
        a = end;
    }
    return nb;
}

#define FLAT_TAG 0x5f1a

/* The elements of [a, b) (flat indices of tiled root r) that lie in box `held` (a rank's tile of
 * r), box by box in flat order: counted; with `src` (this rank's tile, held == its box) packed
 * densely into dst; with `packed` (a message of them) placed into dst at flat index - a. */
static int64_t range_pieces(const struct cpn_store *r, int64_t a, int64_t b, const struct box *held,
                            const char *src, const char *packed, char *dst)
{
    struct box bx[2 * CPN_MAXDIM];
    const int nb = range_boxes(r->ndim, r->shape, a, b, bx);
    const size_t item = cpn_dtype_size(r->dtype);
    int64_t count = 0;
    for (int i = 0; i < nb; i++) {
        struct box x;
        if (!box_intersect(&bx[i], held, r->ndim, &x)) continue;
        int64_t pst[CPN_MAXDIM], f = 0;
        dense_strides(&x, r->ndim, pst);
        for (int d = 0; d < r->ndim; d++) f += x.lo[d] * r->stride[d];
        char *at = dst ? dst + (f - a) * (int64_t)item : NULL;
        if (src && packed == NULL && dst && held)   /* pack */
            copy_region(r->ndim, &x, item, dst + count * (int64_t)item, x.lo, pst, src, r->tlo, r->tstride);
        else if (packed)                             /* place a received message */
            copy_region(r->ndim, &x, item, at, x.lo, r->stride, packed + count * (int64_t)item, x.lo, pst);
        count += box_count(&x, r->ndim);
    }
    return count;
}

/* Place this rank's own elements of [a, b) from its tile of r into dst at flat index - a. */
static void range_local(const struct cpn_store *r, int64_t a, int64_t b, const struct box *mine,
                        const char *tile, char *dst)
{
    struct box bx[2 * CPN_MAXDIM];
    const int nb = range_boxes(r->ndim, r->shape, a, b, bx);
    const size_t item = cpn_dtype_size(r->dtype);
    for (int i = 0; i < nb; i++) {
        struct box x;
        if (!box_intersect(&bx[i], mine, r->ndim, &x)) continue;
        int64_t f = 0;
        for (int d = 0; d < r->ndim; d++) f += x.lo[d] * r->stride[d];
        copy_region(r->ndim, &x, item, dst + (f - a) * (int64_t)item, x.lo, r->stride, tile, r->tlo, r->tstride);
    }
}

/* The elements per index of dimension 0 of t when t's tiles are row slabs (cut along dimension 0
 * only: each tile the flat range [lo0 * rows, hi0 * rows)); -1 otherwise. */
static int64_t flat_rows(const struct cpn_store *t)
{
    int64_t row = 1;
    for (int d = 1; d < t->ndim; d++) {
        if (t->tiled && t->grid[d] > 1) return -1;
        row *= t->shape[d];
    }
    return row;
}

/* A tiled copy, of `shape` in row slabs (1-D: as cpn_store_new tiles it), of the elements
 * [off, off + size) that untiled flat alias `a` (of tiled root r, same dtype) sees: rank q's
 * tile, a flat range of the copy, receives from each rank the elements of that rank's tile of r
 * in that range (a few boxes each), so each element moves once, to one rank, instead of the
 * whole root to every rank.  NULL with CPN_ERR_UNSUPPORTED when the copy would not be tiled so.
 * Collective. */
static struct cpn_store *flat_copy(const struct cpn_store *a, int64_t off, int ndim, const int64_t *shape,
                                   enum cpn_status *st)
{
    struct cpn_store *r = cpn_store_root(a);
    struct cpn_store *t = ndim == 1 ? cpn_store_new(a->dtype, 1, shape) : cpn_store_new_slabs(a->dtype, ndim, shape, 0);
    *st = t ? CPN_OK : CPN_ERR_NOMEM;
    if (t && (!t->tiled || flat_rows(t) < 0)) *st = CPN_ERR_UNSUPPORTED;
    if (*st != CPN_OK) {
        cpn_store_release(t);
        return NULL;
    }
    const int64_t row = flat_rows(t);
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    const size_t item = cpn_dtype_size(a->dtype);
    char *rtile = cpn_store_data(r), *ttile = cpn_store_data_for_overwrite(t);
    struct cpn_msg *msgs = cpn_alloc((size_t)2 * P * sizeof *msgs);
    char **bufs = cpn_alloc((size_t)2 * P * sizeof *bufs);
    if (!rtile || !ttile || !msgs || !bufs) *st = CPN_ERR_NOMEM;
    int ns = 0, nr = 0;
    struct box mine, tq;
    tile_of(r, me, &mine);
    if (bufs) memset(bufs, 0, (size_t)2 * P * sizeof *bufs);
    for (int q = 0; q < P && *st == CPN_OK; q++) {
        struct box rq;
        tile_of(t, q, &tq);
        tile_of(r, q, &rq);
        if (q == me) {   /* mine from me: straight into the copy's tile */
            range_local(r, off + tq.lo[0] * row, off + tq.hi[0] * row, &mine, rtile, ttile);
            continue;
        }
        int64_t n = range_pieces(r, off + tq.lo[0] * row, off + tq.hi[0] * row, &mine, NULL, NULL, NULL);
        if (n > 0) {   /* q's range, from my tile */
            if (!(bufs[ns] = cpn_alloc((size_t)n * item))) { *st = CPN_ERR_NOMEM; break; }
            (void)range_pieces(r, off + tq.lo[0] * row, off + tq.hi[0] * row, &mine, rtile, NULL, bufs[ns]);
            msgs[ns] = (struct cpn_msg){q, FLAT_TAG, bufs[ns], (size_t)n * item};
            ns++;
        }
        struct box tm;
        tile_of(t, me, &tm);
        n = range_pieces(r, off + tm.lo[0] * row, off + tm.hi[0] * row, &rq, NULL, NULL, NULL);
        if (n > 0) {   /* my range, from q's tile */
            if (!(bufs[P + nr] = cpn_alloc((size_t)n * item))) { *st = CPN_ERR_NOMEM; break; }
            msgs[P + nr] = (struct cpn_msg){q, FLAT_TAG, bufs[P + nr], (size_t)n * item};
            nr++;
        }
    }
    void *h = NULL;
    enum cpn_status pst = cpn_comm_post(*st == CPN_OK ? nr : 0, msgs ? msgs + P : NULL,
                                        *st == CPN_OK ? ns : 0, msgs, &h);
    enum cpn_status wst = cpn_comm_wait(h);
    if (*st == CPN_OK) *st = pst != CPN_OK ? pst : wst;
    if (*st == CPN_OK) {
        struct box tm;
        tile_of(t, me, &tm);
        for (int j = 0; j < nr; j++) {
            struct box rq;
            tile_of(r, msgs[P + j].peer, &rq);
            (void)range_pieces(r, off + tm.lo[0] * row, off + tm.hi[0] * row, &rq, NULL, bufs[P + j], ttile);
        }
    }
    if (bufs)
        for (int i = 0; i < 2 * P; i++) cpn_free(bufs[i]);
    cpn_free(bufs);
    cpn_free(msgs);
    if (*st != CPN_OK) {
        cpn_store_release(t);
        return NULL;
    }
    return t;
}

/* An element-wise op whose inputs read untiled flat aliases of tiled roots (a ravel of a
 * column-split or 2 x 2 tiled array) and whose output the box plans address: each such input
 * read from its flat copy (flat_copy), then the box path.  CPN_ERR_UNSUPPORTED when it does not
 * apply (the caller gathers).  Collective: every rank decides alike. */
static enum cpn_status exec_flat_copies(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    if (op->nout != 1 || !boxable(op->out[0]->store)) return CPN_ERR_UNSUPPORTED;
    int nflat = 0;
    for (int i = 0; i < op->nin; i++) {
        const struct cpn_store *s = op->in[i] ? op->in[i]->store : NULL;
        if (!s || boxable(s)) continue;
        if (s->ndim != 1 || s->dtype != s->root->dtype || !s->root->tiled || s->root->ndim < 1)
            return CPN_ERR_UNSUPPORTED;
        nflat++;
    }
    if (!nflat) return CPN_ERR_UNSUPPORTED;
    struct cpn_op local = *op;
    struct cpn_view *nv[CPN_OP_MAXIN] = {0};
    enum cpn_status st = CPN_OK;
    for (int i = 0; i < op->nin && st == CPN_OK; i++) {
        const struct cpn_view *v = op->in[i];
        if (!v || boxable(v->store)) continue;
        /* A C-order range of the alias (a reshape of it): a copy of that shape in row slabs,
         * read whole; any other view: a 1-D copy of the whole alias, read through the view. */
        bool range = v->ndim >= 1 && !v->part;
        int64_t cst = 1;
        for (int k = v->ndim - 1; k >= 0 && range; k--) {
            range = v->shape[k] == 1 || (v->sdim[k] == 0 && v->step[k] == cst);
            cst *= v->shape[k];
        }
        struct cpn_store *t = NULL;
        /* A strided view no larger than a tile's worth of its root (a diagonal): only its
         * elements, each from its owner (flatroute.c), laid out like the output where the
         * shapes agree. */
        bool routed = !range && cpn_flatroute_applies(v, false) &&
                      cpn_view_size(v) * cpn_partition_ranks() <= cpn_store_root(v->store)->size;
        if (routed) {
            const struct cpn_view *o = op->out[0];
            bool like = o->ndim == v->ndim;
            for (int k = 0; k < v->ndim && like; k++) like = o->shape[k] == v->shape[k];
            struct cpn_store *r = cpn_store_root(v->store);
            t = like ? cpn_store_new_like(r->dtype, v->ndim, v->shape, o) : cpn_store_new(r->dtype, v->ndim, v->shape);
            if (!t) { st = CPN_ERR_NOMEM; break; }
            if ((st = cpn_flatroute_exchange(v, t, true)) != CPN_OK) { cpn_store_release(t); break; }
        }
        for (int j = 0; j < i && !t && !range; j++)   /* one whole copy per alias store */
            if (nv[j] && op->in[j]->store == v->store && nv[j]->store->ndim == 1 &&
                nv[j]->store->size == v->store->size)
                t = nv[j]->store;
        if (t && !routed) cpn_store_retain(t);
        else if (!t && !(t = range ? flat_copy(v->store, v->off[0], v->ndim, v->shape, &st)
                             : flat_copy(v->store, 0, 1, &v->store->size, &st)))
            break;
        struct cpn_view *w = cpn_view_new_dims(t, v->ndim);
        cpn_store_release(t);
        if (!w) { st = CPN_ERR_NOMEM; break; }
        w->dtype = v->dtype;
        w->part = v->part;
        w->readonly = v->readonly;
        w->ndim = v->ndim;
        for (int k = 0; k < v->ndim; k++) {
            w->shape[k] = v->shape[k];
            w->sdim[k] = range || routed ? k : v->sdim[k];
            w->step[k] = range || routed ? 1 : v->step[k];
        }
        if (!range && !routed) w->off[0] = v->off[0];
        nv[i] = w;
        local.in[i] = w;
    }
    if (st == CPN_OK) {
        struct plan *p = plan_get(&local, &st);
        if (p) st = exec_box(&local, p, fp);
        else if (st == CPN_OK) st = exec_gathered(&local, fp);
    }
    for (int i = 0; i < op->nin; i++) cpn_view_release(nv[i]);
    return st;
}

/* An element-wise op writing a strided view of an untiled flat alias (fill_diagonal's
 * a.flat[::n+1] = v of a matrix tiled as a 2 x 2 grid, a resize's flat writes): computed into a
 * new store of the view's shape (tiled like an operand of that shape, so the op itself moves
 * nothing), then each element sent to the owner of its place in the root (flatroute.c), where
 * the gathered path moved the whole root to every rank.  CPN_ERR_UNSUPPORTED when the view is
 * not routable.  Collective. */
static enum cpn_status exec_flat_write(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *v = op->out[0];
    if (op->nout != 1 || boxable(v->store) || !cpn_flatroute_applies(v, true)) return CPN_ERR_UNSUPPORTED;
    const struct cpn_view *like = NULL;
    bool plain = true;
    for (int i = 0; i < op->nin; i++) {
        const struct cpn_view *u = op->in[i];
        if (!u) continue;
        plain &= boxable(u->store);
        bool same = boxable(u->store) && u->ndim == v->ndim && !like;
        for (int k = 0; k < v->ndim && same; k++) same = u->shape[k] == v->shape[k] && (u->sdim[k] >= 0 || u->shape[k] == 1);
        if (same) like = u;
    }
    struct cpn_store *t = like ? cpn_store_new_like(v->dtype, v->ndim, v->shape, like)
                               : cpn_store_new(v->dtype, v->ndim, v->shape);
    struct cpn_view *w = t ? cpn_view_new(t) : NULL;
    cpn_store_release(t);
    if (!w) return CPN_ERR_NOMEM;
    struct cpn_op local = *op;
    local.out[0] = w;
    enum cpn_status st = CPN_OK;
    if (plain) {
        struct plan *p = plan_get(&local, &st);
        if (p) st = exec_box(&local, p, fp);
        else if (st == CPN_OK) st = exec_gathered(&local, fp);
    } else if ((st = exec_flat_copies(&local, fp)) == CPN_ERR_UNSUPPORTED) {
        st = exec_gathered(&local, fp);
    }
    if (st == CPN_OK) st = cpn_flatroute_exchange(v, w->store, false);
    cpn_view_release(w);
    return st;
}

/* ---- reductions, generators ------------------------------------------------------------------ */

/* A full reduction of a 1-D view through the flat alias of a tiled root (a diagonal: trace):
 * the view's element j is the root's element of C index off + j * step, so this rank's part is
 * the elements that lie in its tile, reduced run by run (consecutive j whose tile addresses
 * advance by one stride) into `part`.  Only exec_reduce's partials then move. */
static bool flat_reducible(const struct cpn_op *op)
{
    const struct cpn_view *in = op->in[0];
    const struct cpn_store *s = in->store;
    return s->root && s->root->tiled && s->dtype == s->root->dtype && s->ndim == 1 && in->ndim == 1 && in->sdim[0] == 0 &&
           (op->axes & 1) && cpn_view_size(op->out[0]) == 1;
}

static enum cpn_status reduce_flat(const struct cpn_op *op, char *part, struct cpn_fpreport *fp)
{
    const struct cpn_view *in = op->in[0];
    struct cpn_store *root = cpn_store_root(in->store);
    int64_t ritem = (int64_t)cpn_dtype_size(root->dtype), len = in->shape[0];
    char *hb = cpn_transport_host()->tile(root), tmp[32];
    if (!hb && root->tsize) return CPN_ERR_NOMEM;
    if (in->part == 2) hb += ritem / 2;
    cpn_loop_fn combine = cpn_kernel_elementwise(op->code, op->out[0]->dtype);
    bool first = true;
    int64_t cnt = 0, start = 0, prev = 0, st = 0;
    for (int64_t j = 0; j <= len; j++) {
        int64_t o = -1;
        if (j < len) {
            int64_t f = in->off[0] + j * in->step[0];
            o = 0;
            for (int d = root->ndim - 1; d >= 0 && o >= 0; d--) {
                int64_t c = f % root->shape[d];
                f /= root->shape[d];
                o = c < root->tlo[d] || c >= root->thi[d] ? -1 : o + (c - root->tlo[d]) * root->tstride[d];
            }
        }
        if (o >= 0 && (cnt == 1 || (cnt > 1 && o - prev == st))) {
            st = o - prev;
            prev = o;
            cnt++;
            continue;
        }
        if (cnt > 0) {   /* reduce the run [start, start + cnt * st) */
            int64_t ext = cnt, ist = st * ritem, ost = 0;
            enum cpn_status rs = cpn_kernel_reduce(op->code, in->dtype, op->out[0]->dtype, hb + start * ritem, 1,
                                                   &ext, &ist, 1, first ? part : tmp, &ost, NULL, fp);
            if (rs != CPN_OK) return rs;
            if (!first) {
                char *args[3] = {part, tmp, part};
                int64_t cst[3] = {0, 0, 0};
                combine(args, cst, 1, NULL);
            }
            first = false;
        }
        cnt = o >= 0;
        start = prev = o;
    }
    return CPN_OK;
}

/* A replicated result of B bytes from P partials: gathering every partial on every rank receives
 * (P - 1) B per rank.  From RS_MIN_BYTES on and 3 ranks, the ranks instead each take one P-th of
 * the positions (an all-to-all of the partials' pieces), combine it in rank order (the same
 * order, so the same values) and gather the combined pieces: 2 (P - 1) / P B per rank.  The
 * floating-point flags each rank's combining raised ride on its piece, so every rank reports
 * the same ones. */
#define RS_MIN_BYTES 8192
#define RS_TAG 0x5c47

static enum cpn_status combine_scattered(const struct cpn_op *op, const char *part, char *all, int64_t nout,
                                         size_t item, cpn_loop_fn combine, char *dst,
                                         struct cpn_fpreport *fp)
{
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    const int64_t lo = nout * me / P, len = nout * (me + 1) / P - lo, maxlen = (nout + P - 1) / P;
    int64_t *soff = cpn_alloc((size_t)P * 4 * sizeof *soff);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    const size_t piece = (size_t)maxlen * item + 16;   /* values, then the flags (4 bytes) */
    char *mine = cpn_alloc(piece), *pieces = cpn_alloc((size_t)P * piece);
    enum cpn_status st = soff && counts && mine && pieces ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK) {
        int64_t *sbytes = soff + P, *roff = soff + 2 * P, *rbytes = soff + 3 * P;
        for (int q = 0; q < P; q++) {
            const int64_t a = nout * q / P, b = nout * (q + 1) / P;
            soff[q] = a * (int64_t)item;
            sbytes[q] = (b - a) * (int64_t)item;
            roff[q] = q * len * (int64_t)item;
            rbytes[q] = len * (int64_t)item;
        }
        st = cpn_comm_alltoallv(RS_TAG, part, soff, sbytes, all, roff, rbytes);
    }
    if (st == CPN_OK) {
        cpn_kernel_fpe_clear();
        const int64_t cst[3] = {(int64_t)item, (int64_t)item, (int64_t)item};
        for (int r = 1; r < P && len; r++) {
            char *args[3] = {all, all + (size_t)r * (size_t)len * item, all};
            combine(args, cst, len, NULL);
        }
        if (op->iparam[0] && len) {   /* the initial value enters once, not once per rank */
            char *args[3] = {(char *)op->scalar[1].bytes, all, all};
            const int64_t ist[3] = {0, (int64_t)item, (int64_t)item};
            combine(args, ist, len, NULL);
        }
        const uint32_t flags = cpn_kernel_fpe_status();
        memcpy(mine, all, (size_t)len * item);
        memcpy(mine + (size_t)len * item, &flags, sizeof flags);
        for (int q = 0; q < P; q++)
            counts[q] = (size_t)(nout * (q + 1) / P - nout * q / P) * item + sizeof flags;
        st = cpn_comm_allgatherv(mine, pieces, counts);
    }
    if (st == CPN_OK) {
        uint32_t any = 0;
        size_t at = 0;
        for (int q = 0; q < P; q++) {
            const size_t vb = counts[q] - sizeof any;
            uint32_t f;
            memcpy(dst + (size_t)(nout * q / P) * item, pieces + at, vb);
            memcpy(&f, pieces + at + vb, sizeof f);
            any |= f;
            at += counts[q];
        }
        cpn_fpreport_add(fp, any, 0);
    }
    cpn_free(soff);
    cpn_free(counts);
    cpn_free(mine);
    cpn_free(pieces);
    return st;
}

/* Every rank's partial `part` of full or axis reduction op (op->out[0]'s size and dtype)
 * combined in rank order into `dst` on every rank (`all`: P partials' room).  Collective. */
static enum cpn_status combine_partials(const struct cpn_op *op, const char *part, char *all, char *dst,
                                        struct cpn_fpreport *fp)
{
    const int P = cpn_partition_ranks();
    const enum cpn_dtype acc = op->out[0]->dtype;
    const size_t item = cpn_dtype_size(acc);
    const int64_t nout = cpn_view_size(op->out[0]);
    const size_t bytes = (size_t)nout * item;
    cpn_loop_fn combine = cpn_kernel_elementwise(op->code, acc);
    if (P >= 3 && bytes >= RS_MIN_BYTES) return combine_scattered(op, part, all, nout, item, combine, dst, fp);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    if (!counts) return CPN_ERR_NOMEM;
    for (int r = 0; r < P; r++) counts[r] = bytes;
    enum cpn_status st = cpn_comm_allgatherv(part, all, counts);
    cpn_free(counts);
    if (st != CPN_OK) return st;
    /* Combine in rank order: the same result on every rank. */
    cpn_kernel_fpe_clear();   /* every rank combines alike: the same flags everywhere */
    for (int r = 1; r < P && nout; r++) {
        char *args[3] = {all, all + (size_t)r * bytes, all};
        int64_t cst[3] = {(int64_t)item, (int64_t)item, (int64_t)item};
        combine(args, cst, nout, NULL);
    }
    if (op->iparam[0] && nout) {   /* the initial value enters once, not once per rank */
        char *args[3] = {(char *)op->scalar[1].bytes, all, all};
        int64_t cst[3] = {0, (int64_t)item, (int64_t)item};
        combine(args, cst, nout, NULL);
    }
    cpn_fpreport_add(fp, cpn_kernel_fpe_status(), 0);
    memcpy(dst, all, bytes);
    return CPN_OK;
}

bool cpn_dist_reduce_local(const struct cpn_view *in, uint64_t axes, const struct cpn_view *out, int lead)
{
    const struct cpn_store *s = in->store, *os = out->store;
    if (!os->tiled || os->root || !cpn_view_is_whole(out) || s->root || !s->tiled || in->part ||
        in->dtype != s->dtype || out->ndim != os->ndim || lead > out->ndim)
        return false;
    for (int q = 0; q < cpn_partition_ranks(); q++) {
        struct box t, b, to;
        tile_of(s, q, &t);
        tile_of(os, q, &to);
        const int r = preimage(in, &t, &b);
        bool oempty = false;
        for (int k = 0; k < os->ndim; k++) oempty |= to.hi[k] <= to.lo[k];
        if (r < 0 || (r == 0 && !oempty) || (r > 0 && oempty)) return false;
        for (int k = 0; r > 0 && k < lead; k++)   /* leading result dimensions (quantiles): whole */
            if (to.lo[k] != 0 || to.hi[k] != os->shape[k]) return false;
        for (int d = 0, k = lead; r > 0 && d < in->ndim; d++) {
            if (axes >> d & 1) {
                if (b.lo[d] != 0 || b.hi[d] != in->shape[d]) return false;
            } else {
                if (b.lo[d] != to.lo[k] || b.hi[d] != to.hi[k]) return false;
                k++;
            }
        }
    }
    return true;
}

/* A reduction whose result is tiled like the kept part of its input, no tile cutting a reduced
 * axis (cpn_dist_reduce_local): each rank reduces its own lanes into its own tile of the result
 * (the one-process kernel, which starts each accumulator as NumPy's); nothing moves. */
static enum cpn_status reduce_local(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    struct cpn_store *s = in->store, *os = out->store;
    struct box t, w;
    tile_of(s, cpn_partition_rank(), &t);
    if (preimage(in, &t, &w) <= 0 || os->tsize == 0) return CPN_OK;
    const enum cpn_dtype acc = out->dtype;
    const size_t item = cpn_dtype_size(acc);
    char *dst = cpn_store_data_for_overwrite(os);
    if (!dst) return CPN_ERR_NOMEM;
    int64_t ist[CPN_MAXDIM], ext[CPN_MAXDIM], ost[CPN_MAXDIM];
    for (int d = 0; d < in->ndim; d++) ext[d] = w.hi[d] - w.lo[d];
    for (int k = 0; k < os->ndim; k++) ost[k] = os->tstride[k] * (int64_t)item;
    /* a tile current on the device is reduced there (only the result comes over), unless an
     * initial value is given: the one-process loop on the host then starts each accumulator at
     * it, as NumPy's (the tile downloaded if it is current only on the device) */
    const struct cpn_transport_i *dt = transport_for(true);
    if (!op->iparam[0] && dt->device && dt->reduce_region && s->dev && s->dev_state != CPN_WHERE_HOST) {
        char *db = dt->tile(s);
        if (!db) return CPN_ERR_NOMEM;
        /* the device folds into the result as into exec_reduce's partial: from the identity */
        for (int64_t i = 0; i < os->tsize; i++) cpn_op_combine_identity((enum cpn_opcode)op->code, acc, dst + i * (int64_t)item);
        enum cpn_status st = dt->reduce_region(op, region_layout(in, &w, db, s->tlo, s->tstride, ist), in->ndim, ext,
                                               ist, dst, ost, fp);
        if (st != CPN_ERR_UNSUPPORTED) return st;
    }
    char *hb = cpn_transport_host()->tile(s);
    if (!hb) return CPN_ERR_NOMEM;
    return cpn_kernel_reduce((enum cpn_opcode)op->code, in->dtype, acc, region_layout(in, &w, hb, s->tlo, s->tstride, ist),
                             in->ndim, ext, ist, op->axes, dst, ost, op->iparam[0] ? op->scalar[1].bytes : NULL, fp);
}

static enum cpn_status exec_reduce(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    const struct cpn_store *s = in->store;
    /* Partials combine only for the ops the table says combine (ops.def's reduce column); other
     * ops (subtract, bitwise...) reduce on the gathered input. */
    bool fast = cpn_op_combines((enum cpn_opcode)op->code), flat = fast && flat_reducible(op);
    if (fast && out->store->tiled && cpn_dist_reduce_local(in, op->axes, out, 0)) return reduce_local(op, fp);
    if (!fast || (!boxable(s) && !flat) || out->store->tiled || !cpn_view_is_contiguous(out))
        return exec_gathered(op, fp);
    const int P = cpn_partition_ranks();
    struct box t, w;
    int rc = 0;
    if (!flat) {
        tile_of(s, cpn_partition_rank(), &t);
        rc = preimage(in, &t, &w);
    }
    if (rc < 0) return exec_gathered(op, fp);
    enum cpn_dtype acc = out->dtype;
    size_t item = cpn_dtype_size(acc);
    int64_t nout = cpn_view_size(out);
    size_t bytes = (size_t)nout * item;
    char *part = cpn_alloc(bytes ? bytes : 1), *all = cpn_alloc((size_t)P * bytes + 1);
    char *dst = cpn_store_data_for_overwrite(out->store);
    enum cpn_status st = CPN_OK;
    if (!part || !all || !dst) { st = CPN_ERR_NOMEM; goto done; }
    for (int64_t i = 0; i < nout; i++) cpn_op_combine_identity((enum cpn_opcode)op->code, acc, part + i * (int64_t)item);
    if (flat && (st = reduce_flat(op, part, fp)) != CPN_OK) goto done;
    if (rc > 0) {
        int64_t ist[CPN_MAXDIM], ext[CPN_MAXDIM], ost[CPN_MAXDIM], kept_st[CPN_MAXDIM];
        /* Output strides over the kept dimensions, and the origin of w's kept part. */
        int nk = 0;
        for (int d = 0; d < in->ndim; d++) {
            ext[d] = w.hi[d] - w.lo[d];
            if (!(op->axes >> d & 1)) nk++;
        }
        int64_t acc_st = (int64_t)item, opos = 0;
        for (int d = in->ndim - 1, k = nk - 1; d >= 0; d--) {
            if (op->axes >> d & 1) continue;
            kept_st[k] = acc_st;
            opos += w.lo[d] * acc_st;
            acc_st *= in->shape[d];
            k--;
        }
        for (int k = 0; k < nk; k++) ost[k] = kept_st[k];
        /* A tile current on the device is reduced there; only the partial comes over (a tile
         * current only on the host is reduced there, not uploaded for it). */
        const struct cpn_transport_i *dt = transport_for(true);
        st = CPN_ERR_UNSUPPORTED;
        if (dt->device && dt->reduce_region && s->dev && s->dev_state != CPN_WHERE_HOST) {
            char *db = dt->tile((struct cpn_store *)s);
            if (!db) { st = CPN_ERR_NOMEM; goto done; }
            st = dt->reduce_region(op, region_layout(in, &w, db, s->tlo, s->tstride, ist), in->ndim, ext, ist,
                                   part + opos, ost, fp);
        }
        if (st == CPN_ERR_UNSUPPORTED) {
            const struct cpn_transport_i *ht = cpn_transport_host();
            char *hb = ht->tile((struct cpn_store *)s);
            if (!hb) { st = CPN_ERR_NOMEM; goto done; }
            st = ht->reduce_region(op, region_layout(in, &w, hb, s->tlo, s->tstride, ist), in->ndim, ext, ist,
                                   part + opos, ost, fp);
        }
        if (st != CPN_OK) goto done;
    }
    st = combine_partials(op, part, all, dst, fp);
done:
    cpn_free(part);
    cpn_free(all);
    return st;
}

enum cpn_status cpn_dist_reduce_combine(const struct cpn_op *op, const char *part, struct cpn_fpreport *fp)
{
    const struct cpn_view *out = op->out[0];
    const size_t bytes = (size_t)cpn_view_size(out) * cpn_dtype_size(out->dtype);
    char *all = cpn_alloc((size_t)cpn_partition_ranks() * bytes + 1);
    char *dst = cpn_store_data_for_overwrite(out->store);
    enum cpn_status st = all && dst ? combine_partials(op, part, all, dst, fp) : CPN_ERR_NOMEM;
    cpn_free(all);
    return st;
}

/* Histogram counts of a tiled 1-D store walked whole: each rank counts its tile, the partial
 * counts are gathered and added in rank order (integers: exact, NumPy's counts).  Weighted sums
 * keep NumPy's block order only on the gathered input, so they are computed there. */
static enum cpn_status exec_histogram(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *in = op->in[0], *ev = op->in[2], *out = op->out[0];
    const struct cpn_store *s = in->store;
    bool whole = !s->root && !in->part && in->dtype == s->dtype && in->ndim == 1 && in->sdim[0] == 0 &&
                 in->step[0] == 1 && in->off[0] == 0 && in->shape[0] == s->shape[0];
    if (!whole || !s->tiled || (op->nin > 1 && op->in[1]) || ev->store->root ||
        cpn_store_root(out->store)->tiled || !cpn_view_is_contiguous(out))
        return exec_gathered(op, fp);
    const int P = cpn_partition_ranks();
    const int64_t nb = cpn_view_size(out);
    struct box t;
    tile_of(s, cpn_partition_rank(), &t);
    int64_t est[CPN_MAXDIM], eoff;
    cpn_view_byte_layout(ev, est, &eoff);
    const int64_t mine = t.hi[0] > t.lo[0] ? t.hi[0] - t.lo[0] : 0;
    const char *tile = mine ? cpn_store_data((struct cpn_store *)s) : NULL;
    /* the edges (few) are gathered when they are tiled */
    enum cpn_status est_ = CPN_OK;
    struct cpn_store *eshadow = ev->store->tiled ? shadow_of(ev->store, &est_) : NULL;
    if (est_ != CPN_OK) return est_;
    const char *edges = cpn_store_data(eshadow ? eshadow : ev->store);
    char *part = cpn_alloc((size_t)nb * 8 + 1), *all = cpn_alloc((size_t)(P * nb) * 8 + 1);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    char *dst = cpn_store_data_for_overwrite(out->store);
    enum cpn_status st = (tile || !mine) && edges && part && all && counts && dst ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK) {
        struct cpn_hist_args h = {
            .dt = in->dtype, .uniform = op->iparam[0] != 0, .x = tile, .xs = (int64_t)cpn_dtype_size(in->dtype),
            .n = mine, .edges = edges + eoff, .es = est[0], .nbins = nb,
            .first = op->dparam[0], .last = op->dparam[1], .denom = op->dparam[2],
        };
        st = cpn_kernel_histogram(&h, part, 8);
    }
    for (int r = 0; st == CPN_OK && r < P; r++) counts[r] = (size_t)nb * 8;
    if (st == CPN_OK) st = cpn_comm_allgatherv(part, all, counts);
    if (st == CPN_OK) {
        int64_t *o = (int64_t *)dst;
        for (int64_t k = 0; k < nb; k++) o[k] = 0;
        for (int r = 0; r < P; r++)
            for (int64_t k = 0; k < nb; k++) o[k] += ((const int64_t *)all)[r * nb + k];
    }
    cpn_free(part);
    cpn_free(all);
    cpn_free(counts);
    cpn_store_release(eshadow);
    return st;
}

#define BINCOUNT_TAG 0xb1c0

static int row_part(const struct cpn_view *v, int q, struct box *w);

/* BINCOUNT of a 1-D index split in ranges of its elements (weights split alike): the same sums
 * as one process's (histogram.c: chunks of the input, each summed in index order, the chunk
 * sums added in chunk order).  Each rank sums the chunks or pieces of chunks in its range; a
 * chunk cut by a rank boundary is continued by the next rank from the previous one's running
 * sums (nbins values a message), so its order is index order; the rank holding a chunk's last
 * element shares its sums (one allgather of the finished chunks) and every rank adds them in
 * chunk order.  Unweighted counts are exact in any order: each rank's counts, added.  Bytes:
 * O(nbins) a rank boundary plus the chunks' sums, never the index.  Collective. */
static enum cpn_status exec_bincount(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *iv = op->in[0], *wv = op->nin > 1 ? op->in[1] : NULL, *out = op->out[0];
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    if (!iv->store->tiled || cpn_store_root(out->store)->tiled || !cpn_view_is_contiguous(out) ||
        (wv && !wv->store->tiled))
        return exec_gathered(op, fp);
    int64_t *lo = cpn_alloc((size_t)P * 2 * sizeof *lo);
    if (!lo) return CPN_ERR_NOMEM;
    int64_t *hi = lo + P;
    struct box w = {{0}, {0}}, ww = {{0}, {0}};
    for (int q = 0; q < P; q++) {
        struct box b, c;
        const int r = row_part(iv, q, &b), rw = wv ? row_part(wv, q, &c) : r;
        if (r < 0 || rw != r || (wv && r == 1 && (c.lo[0] != b.lo[0] || c.hi[0] != b.hi[0]))) {
            cpn_free(lo);
            return exec_gathered(op, fp);
        }
        lo[q] = r == 1 ? b.lo[0] : 0;
        hi[q] = r == 1 ? b.hi[0] : 0;
        if (q == me && r == 1) {
            w = b;
            if (wv) ww = c;
        }
    }
    const int64_t n = iv->shape[0], nb = out->shape[0], mlo = lo[me], mhi = hi[me];
    const int64_t per = cpn_kernel_bincount_chunk(n, nb);
    const size_t hb = (size_t)nb * 8;
    enum cpn_status st = CPN_OK;
    int64_t ist[CPN_MAXDIM], wst[CPN_MAXDIM];
    const char *ip = NULL, *wp = NULL;
    if (mhi > mlo) {
        char *id = cpn_store_data(iv->store), *wd = wv ? cpn_store_data(wv->store) : NULL;
        if (!id || (wv && !wd)) st = CPN_ERR_NOMEM;
        else {
            ip = region_layout(iv, &w, id, iv->store->tlo, iv->store->tstride, ist);
            if (wv) wp = region_layout(wv, &ww, wd, wv->store->tlo, wv->store->tstride, wst);
        }
    }
    /* the ranks holding element k: the previous and next pieces of a cut chunk */
    int prev = -1, next = -1;
    for (int q = 0; q < P; q++) {
        if (mlo > 0 && hi[q] > lo[q] && lo[q] <= mlo - 1 && mlo - 1 < hi[q]) prev = q;
        if (mhi < n && hi[q] > lo[q] && lo[q] <= mhi && mhi < hi[q]) next = q;
    }
    /* the chunks this rank finishes (holds their last element), and every rank's count of them */
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    int64_t *first = cpn_alloc((size_t)P * sizeof *first);
    if (!counts || !first) st = CPN_ERR_NOMEM;
    int64_t nfin = 0, total = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        int64_t f = 0, c0 = -1;
        if (!wv && hi[q] > lo[q]) {              /* exact counts: a rank's range is its own chunk */
            f = 1;
            c0 = total;
        }
        for (int64_t c = hi[q] > lo[q] ? lo[q] / per : 0; wv && hi[q] > lo[q] && c * per < hi[q]; c++) {
            const int64_t end = (c + 1) * per < n ? (c + 1) * per : n;
            if (end - 1 >= lo[q] && end - 1 < hi[q]) {
                if (c0 < 0) c0 = c;
                f++;
            }
        }
        counts[q] = (size_t)f * hb;
        first[q] = c0;
        total += f;
        if (q == me) nfin = f;
    }
    char *fin = st == CPN_OK ? cpn_alloc((size_t)nfin * hb + 1) : NULL, *run = st == CPN_OK ? cpn_alloc(hb + 1) : NULL;
    char *all = st == CPN_OK ? cpn_alloc((size_t)total * hb + 1) : NULL;
    if (st == CPN_OK && (!fin || !run || !all)) st = CPN_ERR_NOMEM;
    {   /* a rank that failed here would leave its neighbours waiting in the pipeline: all agree */
        int64_t ok = st == CPN_OK;
        const enum cpn_status cs = cpn_comm_allreduce_min(&ok);
        if (st == CPN_OK && cs != CPN_OK) st = cs;
        else if (st == CPN_OK && !ok) st = cpn_error(CPN_ERR_NOMEM, "bincount: another rank ran out of memory");
    }
    if (st == CPN_OK) memset(fin, 0, (size_t)nfin * hb);
    /* my chunks: the one cut at my end first (its running sums go on to the next rank), then
     * those inside, then the one cut at my start (continued from the previous rank's sums) */
    void *h = NULL;
    if (st == CPN_OK && !wv && mhi > mlo) cpn_kernel_bincount_add(ip, ist[0], NULL, 0, 0, mhi - mlo, fin, 8);
    const int64_t cfirst = mhi > mlo ? mlo / per : 0, clast = mhi > mlo && wv ? (mhi - 1) / per : -1;
    const bool cut_in = mhi > mlo && cfirst * per < mlo, cut_out = mhi > mlo && mhi < n && (clast + 1) * per > mhi;
    for (int pass = 0; st == CPN_OK && pass < 3; pass++)
        for (int64_t c = cfirst; st == CPN_OK && c <= clast; c++) {
            const bool in = c == cfirst && cut_in, outc = c == clast && cut_out;
            if ((pass == 0) != (outc && !in) || (pass == 2) != in) continue;
            const int64_t a = c * per > mlo ? c * per : mlo, e = (c + 1) * per < mhi ? (c + 1) * per : mhi;
            char *acc = outc ? run : fin + (c - (first[me] >= 0 ? first[me] : 0)) * (int64_t)hb;
            if (in) {
                struct cpn_msg r = {.peer = prev, .tag = BINCOUNT_TAG, .buf = acc, .bytes = hb};
                void *rh = NULL;
                st = prev < 0 ? cpn_error(CPN_ERR_INTERNAL, "bincount: no rank before %lld", (long long)mlo)
                              : cpn_comm_post(1, &r, 0, NULL, &rh);
                if (rh) {
                    enum cpn_status wt = cpn_comm_wait(rh);
                    if (st == CPN_OK) st = wt;
                }
            } else if (outc) {
                memset(acc, 0, hb);
            }
            if (st == CPN_OK)
                cpn_kernel_bincount_add(ip, ist[0], wp, wv ? wst[0] : 0, a - mlo, e - mlo, acc, 8);
            if (st == CPN_OK && outc) {
                struct cpn_msg s1 = {.peer = next, .tag = BINCOUNT_TAG, .buf = acc, .bytes = hb};
                st = next < 0 ? cpn_error(CPN_ERR_INTERNAL, "bincount: no rank after %lld", (long long)mhi)
                              : cpn_comm_post(0, NULL, 1, &s1, &h);
            }
        }
    if (h) {
        enum cpn_status wt = cpn_comm_wait(h);
        if (st == CPN_OK) st = wt;
    }
    if (st == CPN_OK) st = cpn_comm_allgatherv(fin, all, counts);
    char *dst = st == CPN_OK ? cpn_store_data_for_overwrite(out->store) : NULL;
    if (st == CPN_OK && !dst) st = CPN_ERR_NOMEM;
    if (st == CPN_OK) {
        /* the chunks' sums in chunk order (allgatherv lays them in rank order) */
        memset(dst, 0, hb);
        for (int64_t c = 0, done = 0; done < total; c++)
            for (int q = 0, off = 0; q < P; off += (int)(counts[q] / hb), q++) {
                if (first[q] < 0 || c < first[q] || c >= first[q] + (int64_t)(counts[q] / hb)) continue;
                const char *hc = all + (size_t)(off + (c - first[q])) * hb;
                if (wv)
                    for (int64_t k = 0; k < nb; k++) ((double *)dst)[k] += ((const double *)hc)[k];
                else
                    for (int64_t k = 0; k < nb; k++) ((int64_t *)dst)[k] += ((const int64_t *)hc)[k];
                done++;
            }
    }
    cpn_free(fin);
    cpn_free(run);
    cpn_free(all);
    cpn_free(counts);
    cpn_free(first);
    cpn_free(lo);
    return st;
}

/* Generators: each rank fills its tile; values depend on the global element index only. */
static enum cpn_status exec_generate(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *out = op->out[0];
    struct cpn_store *s = out->store;
    if (s->root || !cpn_view_is_contiguous(out)) return exec_gathered(op, fp);
    char *tile = cpn_store_data_for_overwrite(s);
    if (!tile) return CPN_ERR_NOMEM;
    const int n = s->ndim;
    size_t item = cpn_dtype_size(s->dtype);
    int64_t ext[CPN_MAXDIM] = {0}, rows = 1;
    for (int d = 0; d < n; d++) {
        ext[d] = s->thi[d] - s->tlo[d];
        if (ext[d] <= 0) return CPN_OK;
        if (d < n - 1) rows *= ext[d];
    }
    int64_t len = n ? ext[n - 1] : 1;
    for (int64_t row = 0; row < rows; row++) {
        int64_t q = row, first = 0, loff = 0;
        for (int d = n - 2; d >= 0; d--) {
            int64_t i = q % ext[d];
            q /= ext[d];
            first += (s->tlo[d] + i) * s->stride[d];
            loff += i * s->tstride[d];
        }
        if (n) first += s->tlo[n - 1];
        char *dst = tile + loff * (int64_t)item;
        if (op->kind == CPN_OPK_RANDOM)
            cpn_kernel_random_to((enum cpn_random_dist)op->code, s->dtype, (uint64_t)op->iparam[0],
                                 (uint64_t)op->iparam[1], dst, first, len, op->dparam[0],
                                 op->dparam[1], op->iparam[2]);
        else
            cpn_kernel_arange(s->dtype, dst, first, len, op->dparam[0], op->dparam[1],
                              op->iparam[0], op->iparam[1]);
    }
    return CPN_OK;
}

/* Draws with per-element parameters (RANDOM with inputs): owner computes, nothing moves.  Each
 * parameter is a view of a replicated store (any view: broadcasts read in place) or the whole of
 * a store tiled as the output (the module lays the output out like it); anything else is
 * gathered.  The decision reads global layouts only, so every rank takes the same path. */
static bool random_p_aligned(const struct cpn_view *v, const struct cpn_store *o)
{
    const struct cpn_store *r = cpn_store_root(v->store);
    if (!r->tiled) return true;
    if (v->store->root || !cpn_view_is_contiguous(v) || !cpn_view_covers_store(v) ||
        v->store->ndim != o->ndim)
        return false;
    for (int d = 0; d < o->ndim; d++)
        if (v->store->shape[d] != o->shape[d]) return false;
    for (int q = 0; q < cpn_partition_ranks(); q++) {
        struct box a, b;
        tile_of(v->store, q, &a);
        tile_of(o, q, &b);
        for (int d = 0; d < o->ndim; d++)
            if (box_count(&b, o->ndim) && (a.lo[d] != b.lo[d] || a.hi[d] != b.hi[d])) return false;
    }
    return true;
}

static enum cpn_status exec_random_p(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *out = op->out[0];
    struct cpn_store *s = out->store;
    bool direct = !s->root && cpn_view_is_contiguous(out) && s->dtype == CPN_DTYPE_FLOAT64;
    for (int k = 0; direct && k < op->nin; k++) direct = !op->in[k] || random_p_aligned(op->in[k], s);
    if (!direct) return exec_gathered(op, fp);
    char *tile = cpn_store_data_for_overwrite(s);
    if (!tile) return CPN_ERR_NOMEM;
    const int n = s->ndim;
    int64_t ext[CPN_MAXDIM] = {0}, rows = 1;
    for (int d = 0; d < n; d++) {
        ext[d] = s->thi[d] - s->tlo[d];
        if (ext[d] <= 0) return CPN_OK;
        if (d < n - 1) rows *= ext[d];
    }
    /* per parameter: the address of the tile's first element and byte strides over the tile */
    const char *base[2] = {(const char *)&op->dparam[0], (const char *)&op->dparam[1]};
    int64_t bst[2][CPN_MAXDIM] = {{0}};
    for (int k = 0; k < 2 && k < op->nin; k++) {
        const struct cpn_view *v = op->in[k];
        if (!v) continue;
        if (!cpn_store_root(v->store)->tiled) {
            int64_t voff;
            const char *o = cpn_view_origin(v);
            if (!o) return CPN_ERR_NOMEM;
            cpn_view_byte_layout(v, bst[k], &voff);
            for (int d = 0; d < n; d++) o += s->tlo[d] * bst[k][d];
            base[k] = o;
        } else {
            base[k] = cpn_store_data(v->store);
            if (!base[k]) return CPN_ERR_NOMEM;
            for (int d = 0; d < n; d++) bst[k][d] = v->store->tstride[d] * 8;
        }
    }
    for (int64_t row = 0; row < rows; row++) {
        int64_t q = row, first = 0, loff = 0, poff[2] = {0, 0};
        for (int d = n - 2; d >= 0; d--) {
            int64_t i = q % ext[d];
            q /= ext[d];
            first += (s->tlo[d] + i) * s->stride[d];
            loff += i * s->tstride[d];
            poff[0] += i * bst[0][d];
            poff[1] += i * bst[1][d];
        }
        if (n) first += s->tlo[n - 1];
        cpn_kernel_random_p((enum cpn_random_dist)op->code, (uint64_t)op->iparam[0], (uint64_t)op->iparam[1],
                            (double *)tile + loff, first, n ? ext[n - 1] : 1,
                            (const double *)(base[0] + poff[0]), n ? bst[0][n - 1] / 8 : 0,
                            (const double *)(base[1] + poff[1]), n ? bst[1][n - 1] / 8 : 0);
    }
    return CPN_OK;
}

/* ---- random permutations ----------------------------------------------------------------------
 * Row i of the input goes to row pi(i) of the output (kernels.h struct cpn_perm), both tiled
 * alike; the ranks whose tiles span the same columns (dimensions 1...) form a group whose row
 * ranges tile dimension 0, and rows move within groups.  Each rank computes pi of its rows, sorts them by destination
 * (the destinations' owners hold ascending ranges, so this groups them by owner too) and sends
 * each owner its rows in that order, nothing else: one all-to-all of the rows.  A receiver
 * computes pi's inverse of its own rows, so it knows whose row each one is, and takes the rows
 * from each sender in its ascending order -- the order they were sent in. */
#define PERM_TAG 0x9e57

static int perm_pair_cmp(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/* The rank whose rows [lo, hi) hold row j: `order` lists the ranks with rows by ascending lo. */
static int perm_owner(const int64_t *lo, const int *order, int nown, int64_t j)
{
    int a = 0, b = nown - 1;
    while (a < b) {
        int c = (a + b + 1) / 2;
        if (lo[order[c]] <= j) a = c;
        else b = c - 1;
    }
    return order[a];
}

static enum cpn_status exec_permute(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *iv = op->in[0], *ov = op->out[0];
    const struct cpn_store *is = iv->store;
    struct cpn_store *os = ov->store;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank(), n = os->ndim;
    bool ok = n >= 1 && !is->root && !os->root && is->tiled && os->tiled && cpn_view_is_contiguous(iv) &&
              cpn_view_covers_store(iv) && cpn_view_is_contiguous(ov) && is->ndim == n;
    int64_t *lo = cpn_alloc((size_t)P * 2 * sizeof *lo), *hi = lo ? lo + P : NULL;
    int *order = cpn_alloc((size_t)P * sizeof *order);
    if (!lo || !order) {
        cpn_free(lo);
        cpn_free(order);
        return CPN_ERR_NOMEM;
    }
    /* This rank's group: the ranks whose tiles span the same columns (dimensions 1...), their
     * rows ranges of dimension 0; every group's must tile [0, n) for the rows to move within it */
    struct box *tb = ok ? cpn_alloc((size_t)P * sizeof *tb) : NULL;
    if (ok && !tb) {
        cpn_free(lo);
        cpn_free(order);
        return CPN_ERR_NOMEM;
    }
    for (int q = 0; ok && q < P; q++) {
        struct box a;
        tile_of(is, q, &a);
        tile_of(os, q, &tb[q]);
        for (int d = 0; d < n; d++) ok &= a.lo[d] == tb[q].lo[d] && a.hi[d] == tb[q].hi[d];
    }
    int nown = 0;
    for (int g = 0; ok && g < P; g++) {
        if (box_count(&tb[g], n) == 0) continue;
        int cnt = 0;
        int64_t rows = 0;
        for (int q = 0; q < P; q++) {
            bool same = box_count(&tb[q], n) > 0;
            for (int d = 1; same && d < n; d++) same = tb[q].lo[d] == tb[g].lo[d] && tb[q].hi[d] == tb[g].hi[d];
            if (!same) continue;
            order[cnt++] = q;
            rows += tb[q].hi[0] - tb[q].lo[0];
        }
        /* disjoint ranges (tiles do not overlap) adding up to n: they tile [0, n) */
        ok &= rows == os->shape[0];
        if (g == me) nown = cnt;
    }
    if (ok && box_count(&tb[me], n) > 0) {   /* this rank's group again, in `order` */
        int cnt = 0;
        for (int q = 0; q < P; q++) {
            bool same = box_count(&tb[q], n) > 0;
            for (int d = 1; same && d < n; d++) same = tb[q].lo[d] == tb[me].lo[d] && tb[q].hi[d] == tb[me].hi[d];
            if (same) order[cnt++] = q;
        }
    }
    for (int q = 0; ok && q < P; q++) {
        lo[q] = tb[q].lo[0];
        hi[q] = box_count(&tb[q], n) > 0 ? tb[q].hi[0] : tb[q].lo[0];
    }
    cpn_free(tb);
    if (!ok) {
        cpn_free(lo);
        cpn_free(order);
        return exec_gathered(op, fp);
    }
    for (int a = 1; a < nown; a++)   /* by ascending lo: a handful of ranks */
        for (int b = a; b > 0 && lo[order[b - 1]] > lo[order[b]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    size_t row = (size_t)cpn_dtype_size(os->dtype);   /* a row of this rank's tile */
    for (int d = 1; d < n; d++) row *= (size_t)(os->thi[d] > os->tlo[d] ? os->thi[d] - os->tlo[d] : 0);
    const int64_t mine = hi[me] - lo[me];
    struct cpn_perm pm;
    if (cpn_perm_init(&pm, (uint64_t)op->iparam[0], (uint64_t)op->iparam[1], os->shape[0]) < 0) {
        cpn_free(lo);
        cpn_free(order);
        return CPN_ERR_NOMEM;
    }
    int64_t *pairs = cpn_alloc((size_t)(mine ? mine : 1) * 2 * sizeof *pairs);
    int64_t *soff = cpn_alloc((size_t)P * 4 * sizeof *soff), *sbytes = soff ? soff + P : NULL,
            *roff = soff ? soff + 2 * P : NULL, *rbytes = soff ? soff + 3 * P : NULL;
    int *src = cpn_alloc((size_t)(mine ? mine : 1) * sizeof *src);
    char *sbuf = cpn_alloc(mine * row + 1), *rbuf = cpn_alloc(mine * row + 1);
    const char *in = mine ? cpn_store_data((struct cpn_store *)is) : NULL;
    char *out = cpn_store_data_for_overwrite(os);
    enum cpn_status st = pairs && soff && src && sbuf && rbuf && (in || !mine) && out ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK) {
        for (int q = 0; q < P; q++) sbytes[q] = rbytes[q] = 0;
#pragma omp parallel for schedule(static) if (mine > 16384)
        for (int64_t i = 0; i < mine; i++) {
            pairs[2 * i] = cpn_perm_apply(&pm, lo[me] + i, 0);
            pairs[2 * i + 1] = i;
        }
        qsort(pairs, (size_t)mine, 2 * sizeof *pairs, perm_pair_cmp);
#pragma omp parallel for schedule(static) if (mine > 16384)
        for (int64_t k = 0; k < mine; k++) memcpy(sbuf + k * row, in + pairs[2 * k + 1] * row, row);
        for (int64_t k = 0; k < mine; k++) sbytes[perm_owner(lo, order, nown, pairs[2 * k])] += (int64_t)row;
#pragma omp parallel for schedule(static) if (mine > 16384)
        for (int64_t j = 0; j < mine; j++) src[j] = perm_owner(lo, order, nown, cpn_perm_apply(&pm, lo[me] + j, 1));
        for (int64_t j = 0; j < mine; j++) rbytes[src[j]] += (int64_t)row;
        int64_t so = 0, ro = 0;
        for (int q = 0; q < P; q++) {
            soff[q] = so;
            roff[q] = ro;
            so += sbytes[q];
            ro += rbytes[q];
        }
        st = cpn_comm_alltoallv(PERM_TAG, sbuf, soff, sbytes, rbuf, roff, rbytes);
    }
    if (st == CPN_OK)
        for (int64_t j = 0; j < mine; j++) {
            memcpy(out + j * row, rbuf + roff[src[j]], row);
            roff[src[j]] += (int64_t)row;
        }
    cpn_perm_free(&pm);
    cpn_free(pairs);
    cpn_free(soff);
    cpn_free(src);
    cpn_free(sbuf);
    cpn_free(rbuf);
    cpn_free(lo);
    cpn_free(order);
    return st;
}

/* ---- selections: compaction (a[mask], nonzero) and integer-index gathers ----------------------
 * Issue #15: data moves in proportion to what is selected.  A view split over ranks along its
 * first dimension only (each rank's elements a C-order range of the view's) is compacted by each
 * rank on its own tile; the ranks' counts are shared (O(ranks) bytes: every rank learns the
 * exclusive prefix of the counts in the view's order) and each rank sends its packed part to the
 * owners of the result's tiles it lands in.  Where the grid cuts a later dimension too (2x2),
 * a rank's part is a box of C-order runs, and the counts are allgathered per run
 * (select_boxes).  Any other layout takes the gathered path. */
#define SELECT_TAG 0x5e1c

/* row_part of an n-d view v (n > 1) of a 1-D tiled flat alias, whose rank tile is flat range t:
 * where v is C-contiguous (every dimension walks the alias, row-major steps), its elements are
 * the flat range [off, off + size) and the part is a row range when the tile cuts that range
 * between rows of v.  Local. */
static int alias_row_part(const struct cpn_view *v, const struct box *t, struct box *w)
{
    int64_t step = 1, size = 1;
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->sdim[i] != 0 || (v->shape[i] > 1 && v->step[i] != step)) return -1;
        step *= v->shape[i];
    }
    for (int i = 0; i < v->ndim; i++) size *= v->shape[i];
    const int64_t off = v->off[0];
    const int64_t a = t->lo[0] > off ? t->lo[0] : off, b = t->hi[0] < off + size ? t->hi[0] : off + size;
    if (b <= a) return 0;                         /* also every empty view */
    const int64_t block = size / v->shape[0];     /* elements a row of v */
    if ((a - off) % block || (b - off) % block) return -1;
    w->lo[0] = (a - off) / block;
    w->hi[0] = (b - off) / block;
    for (int i = 1; i < v->ndim; i++) {
        w->lo[i] = 0;
        w->hi[i] = v->shape[i];
    }
    return 1;
}

/* Rank q's part of view v (the view-index box of its elements in q's tile of v's store): 1 with
 * *w when it is a range of v's first dimension (full along the others), 0 when q holds none of v,
 * -1 when the part is not such a range.  v's store may be a tiled flat alias in its root's dtype
 * (the merged axes of several index arrays over a root cut in row slabs): its tile is the root's
 * tile buffer.  Local (a pure function of the tiling). */
static int row_part(const struct cpn_view *v, int q, struct box *w)
{
    const struct cpn_store *s = v->store;
    /* an alias of a replicated root is replicated too (its bytes are the root's on every
     * rank); an untiled alias of a tiled root has no rows to give */
    if ((s->root && ((!s->tiled && cpn_store_root(s)->tiled) || s->dtype != s->root->dtype)) ||
        v->part || v->ndim < 1 || v->dtype != s->dtype)
        return -1;
    if (!s->tiled) {
        for (int i = 0; i < v->ndim; i++) {
            w->lo[i] = 0;
            w->hi[i] = v->shape[i];
        }
        return q == cpn_partition_rank() ? 1 : 0;   /* replicated: each rank its own copy */
    }
    struct box t;
    tile_of(s, q, &t);
    if (s->root && v->ndim > 1) return alias_row_part(v, &t, w);
    int r = preimage(v, &t, w);
    if (r <= 0) return r;
    for (int i = 1; i < v->ndim; i++)
        if (w->lo[i] != 0 || w->hi[i] != v->shape[i]) return -1;
    return 1;
}

/* The columns [lo, hi) and rows [rlo, rhi) of rank q's tile of a result store of `nrows` rows
 * (a 1-D store: one row; else a 2-D (nrows, total) store); an untiled store: all of it. */
static void result_tile(const struct cpn_store *os, int q, int64_t *rlo, int64_t *rhi, int64_t *lo, int64_t *hi)
{
    struct box t;
    if (!os->tiled) {
        *rlo = 0;
        *rhi = os->ndim == 1 ? 1 : os->shape[0];
        *lo = 0;
        *hi = os->shape[os->ndim - 1];
        return;
    }
    tile_of(os, q, &t);
    if (os->ndim == 1) {
        *rlo = 0;
        *rhi = 1;
        *lo = t.lo[0];
        *hi = t.hi[0];
    } else {
        *rlo = t.lo[0];
        *rhi = t.hi[0];
        *lo = t.lo[1];
        *hi = t.hi[1];
    }
}

static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }

/* The selected elements, in their runs: rank q's part of the view is nruns[q] runs (maximal
 * C-order ranges of the view inside its tile), run k of rank q (all-runs index base[q] + k)
 * holds cnt[base[q] + k] selected elements, which land at result columns [pos, pos + cnt) with
 * pos = pos[base[q] + k].  This rank's packed part `mine` holds its runs back to back, `nrows`
 * rows of `c` items (row d at d * c).  Every rank knows every run's count and position, so a
 * message carries values only. */
struct runs {
    const int64_t *nruns, *base, *cnt, *pos;
};

/* Bytes of rank q's runs that land in the result tile of rank p (columns [lo, hi), `rows`
 * rows).  Local. */
static size_t runs_overlap(const struct runs *R, int q, int64_t lo, int64_t hi, int64_t rows, size_t item)
{
    size_t n = 0;
    for (int64_t k = R->base[q]; k < R->base[q] + R->nruns[q]; k++) {
        const int64_t a = imax(lo, R->pos[k]), b = imin(hi, R->pos[k] + R->cnt[k]);
        if (b > a) n += (size_t)(b - a);
    }
    return n * (size_t)rows * item;
}

/* Place every rank's packed runs into the result store os, each rank writing its tile: one
 * message per pair of ranks, values only, packed row by row and run by run on both sides.
 * Collective. */
static enum cpn_status place_runs(struct cpn_store *os, int nrows, size_t item, const char *mine, int64_t c,
                                  const struct runs *R)
{
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    char *tile = cpn_store_data_for_overwrite(os);
    if (!tile && os->size) return CPN_ERR_NOMEM;
    const int64_t ts0 = os->tstride[0], ts1 = os->ndim > 1 ? os->tstride[1] : 1;
    const int64_t tlo0 = os->tiled ? os->tlo[0] : 0, tlo1 = os->tiled && os->ndim > 1 ? os->tlo[1] : 0;
    int64_t mrlo, mrhi, mlo, mhi;
    result_tile(os, me, &mrlo, &mrhi, &mlo, &mhi);
    /* element (d, g) of the result in this rank's tile; a tile's last dimension is contiguous */
#define AT(d, g) (tile + (os->ndim == 1 ? ((g) - tlo0) * ts0 : ((d) - tlo0) * ts0 + ((g) - tlo1) * ts1) * (int64_t)item)
    size_t sbytes = 0, rbytes = 0;
    for (int q = 0; q < P; q++) {
        if (q == me) continue;
        int64_t rlo, rhi, lo, hi;
        result_tile(os, q, &rlo, &rhi, &lo, &hi);
        sbytes += runs_overlap(R, me, lo, hi, rhi - rlo, item);
        rbytes += runs_overlap(R, q, mlo, mhi, mrhi - mrlo, item);
    }
    char *sbuf = cpn_alloc(sbytes + 1), *rbuf = cpn_alloc(rbytes + 1);
    struct cpn_msg *sends = cpn_alloc((size_t)P * sizeof *sends), *recvs = cpn_alloc((size_t)P * sizeof *recvs);
    enum cpn_status st = sbuf && rbuf && sends && recvs ? CPN_OK : CPN_ERR_NOMEM;
    int ns = 0, nr = 0;
    size_t so = 0, ro = 0;
    const int64_t k0 = R->base[me], k1 = k0 + R->nruns[me];
    for (int q = 0; st == CPN_OK && q < P; q++) {
        int64_t rlo, rhi, lo, hi;
        result_tile(os, q, &rlo, &rhi, &lo, &hi);
        const size_t n0 = so;
        for (int64_t d = rlo; d < rhi; d++)
            for (int64_t k = k0, at = 0; k < k1; at += R->cnt[k], k++) {
                const int64_t a = imax(lo, R->pos[k]), b = imin(hi, R->pos[k] + R->cnt[k]);
                if (b <= a) continue;
                const char *src = mine + (d * c + at + a - R->pos[k]) * (int64_t)item;
                if (q == me) memcpy(AT(d, a), src, (size_t)(b - a) * item);
                else {
                    memcpy(sbuf + so, src, (size_t)(b - a) * item);
                    so += (size_t)(b - a) * item;
                }
            }
        if (q != me && so > n0)
            sends[ns++] = (struct cpn_msg){.peer = q, .tag = SELECT_TAG, .buf = sbuf + n0, .bytes = so - n0};
        const size_t n = q == me ? 0 : runs_overlap(R, q, mlo, mhi, mrhi - mrlo, item);
        if (n) {
            recvs[nr++] = (struct cpn_msg){.peer = q, .tag = SELECT_TAG, .buf = rbuf + ro, .bytes = n};
            ro += n;
        }
    }
    void *h = NULL;
    if (st == CPN_OK && (ns || nr)) st = cpn_comm_post(nr, recvs, ns, sends, &h);
    if (h) {
        enum cpn_status w = cpn_comm_wait(h);
        if (st == CPN_OK) st = w;
    }
    ro = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        if (q == me) continue;
        for (int64_t d = mrlo; d < mrhi; d++)
            for (int64_t k = R->base[q]; k < R->base[q] + R->nruns[q]; k++) {
                const int64_t a = imax(mlo, R->pos[k]), b = imin(mhi, R->pos[k] + R->cnt[k]);
                if (b <= a) continue;
                memcpy(AT(d, a), rbuf + ro, (size_t)(b - a) * item);
                ro += (size_t)(b - a) * item;
            }
    }
#undef AT
    cpn_free(sbuf);
    cpn_free(rbuf);
    cpn_free(sends);
    cpn_free(recvs);
    return st;
}

/* The runs of view-index box w of a view of shape `shape` (n dims): *dstar is the last dimension
 * along which w is not whole (0 when w is all of the view); the box is one C-order range of the
 * view per index of its dimensions before *dstar.  Returns the number of runs, *len the length
 * of each.  Local. */
static int64_t box_runs(int n, const int64_t *shape, const struct box *w, int *dstar, int64_t *len)
{
    int ds = 0;
    for (int i = n - 1; i >= 0; i--)
        if (w->lo[i] != 0 || w->hi[i] != shape[i]) { ds = i; break; }
    int64_t runs = 1, l = w->hi[ds] - w->lo[ds];
    for (int i = 0; i < ds; i++) runs *= w->hi[i] - w->lo[i];
    for (int i = ds + 1; i < n; i++) l *= shape[i];
    *dstar = ds;
    *len = l;
    return runs;
}

/* The C-order index in the view of the first element of run k of box w (box_runs' dstar). */
static int64_t run_start(int n, const int64_t *shape, const struct box *w, int ds, int64_t k)
{
    int64_t idx[CPN_MAXDIM], lin = 0;
    for (int i = ds - 1; i >= 0; i--) {
        const int64_t e = w->hi[i] - w->lo[i];
        idx[i] = w->lo[i] + k % e;
        k /= e;
    }
    idx[ds] = w->lo[ds];
    for (int i = ds + 1; i < n; i++) idx[i] = 0;
    for (int i = 0; i < n; i++) lin = lin * shape[i] + idx[i];
    return lin;
}

struct run_key {
    int64_t start, at;
};

static int run_key_cmp(const void *a, const void *b)
{
    const int64_t x = ((const struct run_key *)a)->start, y = ((const struct run_key *)b)->start;
    return (x > y) - (x < y);
}

/* Rank q's part of view v of a tiled root store as a box of view indices (preimage of q's
 * tile): 1 with *w, 0 when q holds none of v, -1 when it is not a box or v is not a plain
 * element view (a component, a broadcast along a store dimension).  Local. */
static int box_part(const struct cpn_view *v, int q, struct box *w)
{
    const struct cpn_store *s = v->store;
    if (s->root || !s->tiled || v->part || v->ndim < 1 || v->dtype != s->dtype) return -1;
    for (int i = 0; i < v->ndim; i++)
        if (v->sdim[i] >= 0 && v->step[i] == 0) return -1;
    struct box t;
    tile_of(s, q, &t);
    return preimage(v, &t, w);
}

bool cpn_dist_row_parts(const struct cpn_view *v)
{
    const int P = cpn_partition_ranks();
    for (int q = 0; q < P; q++) {
        struct box b;
        if (row_part(v, q, &b) < 0) return false;
    }
    return true;
}

bool cpn_dist_parts_match(const struct cpn_view *a, const struct cpn_view *b)
{
    const int P = cpn_partition_ranks();
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    for (int q = 0; q < P; q++) {
        struct box x, y;
        const int ra = box_part(a, q, &x), rb = box_part(b, q, &y);
        if (ra < 0 || ra != rb) return false;
        for (int i = 0; ra == 1 && i < a->ndim; i++)
            if (x.lo[i] != y.lo[i] || x.hi[i] != y.hi[i]) return false;
    }
    return true;
}

/* exec_select where the ranks' parts are boxes but not ranges of rows (a grid that cuts a later
 * dimension: 2x2 on 4 ranks).  Each rank's box is a set of runs (C-order ranges of the view);
 * each rank compacts its box in C order and counts its selected elements per run; one allgather
 * of those counts (each in the fewest bytes that hold the longest run: O(ranks x rows of a
 * tile) bytes) tells every rank where every run lands in the result, and the values go
 * straight to the owners of those positions.  Collective. */
static enum cpn_status select_boxes(const struct cpn_op *op, const struct box *parts, const int *has)
{
    const bool compact = op->kind == CPN_OPK_COMPACT;
    const struct cpn_view *m = compact ? op->in[1] : op->in[0], *x = compact ? op->in[0] : NULL;
    struct cpn_store *os = op->out[0]->store;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank(), nd = m->ndim;
    int64_t *nruns = cpn_alloc((size_t)(2 * P + 1) * sizeof *nruns), *base = nruns ? nruns + P : NULL;
    if (!nruns) return CPN_ERR_NOMEM;
    int *ds = cpn_alloc((size_t)P * sizeof *ds);
    int64_t lmax = 0, total_runs = 0;
    for (int q = 0; ds && q < P; q++) {
        int64_t len = 0;
        nruns[q] = has[q] ? box_runs(nd, m->shape, &parts[q], &ds[q], &len) : 0;
        base[q] = total_runs;
        total_runs += nruns[q];
        lmax = imax(lmax, len);
    }
    base[P] = total_runs;
    /* a count in the fewest bytes that hold the longest run: 1 byte for runs under 256 */
    const int width = lmax < 256 ? 1 : lmax < 65536 ? 2 : lmax < ((int64_t)1 << 32) ? 4 : 8;
    int64_t *cnt = cpn_alloc((size_t)total_runs * 2 * sizeof *cnt + 8), *pos = cnt ? cnt + total_runs : NULL;
    unsigned char *enc = cpn_alloc((size_t)total_runs * (size_t)width + 1);
    size_t *sizes = cpn_alloc((size_t)P * sizeof *sizes);
    struct run_key *keys = cpn_alloc((size_t)total_runs * sizeof *keys + 1);
    enum cpn_status st = ds && cnt && enc && sizes && keys ? CPN_OK : CPN_ERR_NOMEM;
    const struct box *w = &parts[me];
    int64_t shape[CPN_MAXDIM], mst[CPN_MAXDIM], xst[CPN_MAXDIM], c = 0;
    const char *mp = NULL, *xp = NULL;
    if (st == CPN_OK && has[me]) {
        for (int i = 0; i < nd; i++) shape[i] = w->hi[i] - w->lo[i];
        char *md = cpn_store_data(m->store), *xd = x ? cpn_store_data(x->store) : NULL;
        if (!md || (x && !xd)) st = CPN_ERR_NOMEM;
        else {
            mp = region_layout(m, w, md, m->store->tlo, m->store->tstride, mst);
            if (x) xp = region_layout(x, w, xd, x->store->tlo, x->store->tstride, xst);
            /* per run: the box's dimensions before dstar fixed, the rest of the box */
            const int d0 = ds[me];
            for (int64_t k = 0; k < nruns[me]; k++) {
                const char *p = mp;
                for (int64_t i = d0 - 1, r = k; i >= 0; i--) {
                    p += (r % shape[i]) * mst[i];
                    r /= shape[i];
                }
                const int64_t ck = cpn_kernel_count_true(nd - d0, shape + d0, p, mst + d0);
                c += ck;
                for (int b = 0; b < width; b++)
                    enc[(base[me] + k) * width + b] = (unsigned char)((uint64_t)ck >> (8 * b));
            }
        }
    }
    for (int q = 0; st == CPN_OK && q < P; q++) sizes[q] = (size_t)(nruns[q] * width);
    if (st == CPN_OK) {
        /* the allgather reads this rank's counts from their place in enc */
        unsigned char *mineenc = cpn_alloc(sizes[me] + 1);
        if (!mineenc) st = CPN_ERR_NOMEM;
        else {
            memcpy(mineenc, enc + base[me] * width, sizes[me]);
            st = cpn_comm_allgatherv(mineenc, enc, sizes);
            cpn_free(mineenc);
        }
    }
    /* every run's count and start, the runs in the view's C order, exclusive prefix: positions */
    int64_t total = 0;
    for (int q = 0; st == CPN_OK && q < P; q++)
        for (int64_t k = 0; k < nruns[q]; k++) {
            uint64_t v = 0;
            for (int b = 0; b < width; b++) v |= (uint64_t)enc[(base[q] + k) * width + b] << (8 * b);
            cnt[base[q] + k] = (int64_t)v;
            keys[base[q] + k] = (struct run_key){run_start(nd, m->shape, &parts[q], ds[q], k), base[q] + k};
        }
    if (st == CPN_OK) qsort(keys, (size_t)total_runs, sizeof *keys, run_key_cmp);
    for (int64_t r = 0; st == CPN_OK && r < total_runs; r++) {
        pos[keys[r].at] = total;
        total += cnt[keys[r].at];
    }
    if (st == CPN_OK && total != op->iparam[0])
        st = cpn_error(CPN_ERR_INTERNAL, "selection: %lld true elements, %lld expected",
                       (long long)total, (long long)op->iparam[0]);
    const int nrows = compact ? 1 : nd;
    const size_t item = compact ? cpn_dtype_size(op->out[0]->dtype) : 8;
    char *mine = st == CPN_OK ? cpn_alloc((size_t)(nrows * c) * item + 1) : NULL;
    if (st == CPN_OK && !mine) st = CPN_ERR_NOMEM;
    if (st == CPN_OK && c) {
        if (compact) {
            st = cpn_kernel_compact(item, nd, shape, xp, xst, mp, mst, mine, c);
        } else {
            st = cpn_kernel_nonzero(nd, shape, mp, mst, (int64_t *)mine, c);
            for (int d = 0; st == CPN_OK && d < nd; d++)
                for (int64_t j = 0; j < c; j++) ((int64_t *)mine)[d * c + j] += w->lo[d];
        }
    }
    struct runs R = {nruns, base, cnt, pos};
    if (st == CPN_OK) st = place_runs(os, nrows, item, mine, c, &R);
    cpn_free(mine);
    cpn_free(nruns);
    cpn_free(ds);
    cpn_free(cnt);
    cpn_free(enc);
    cpn_free(sizes);
    cpn_free(keys);
    return st;
}

/* COMPACT (x = in[0] where in[1]) and NONZERO (indices of in[0]'s true elements). */
static enum cpn_status exec_select(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const bool compact = op->kind == CPN_OPK_COMPACT;
    const struct cpn_view *m = compact ? op->in[1] : op->in[0], *x = compact ? op->in[0] : NULL;
    const struct cpn_view *ov = op->out[0];
    struct cpn_store *os = ov->store;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    /* a replicated mask (every rank holds all of it: X[labels == k] with a short label vector,
     * or broadcast along X's rows) selects from a partitioned x on x's own parts */
    const bool mrep = x && x->store->tiled && !m->store->tiled && !cpn_store_root(m->store)->tiled;
    if (os->root || !cpn_view_is_contiguous(ov) || cpn_view_size(ov) != os->size ||
        os->ndim != (compact ? 1 : 2) || (!m->store->tiled && !mrep))
        return exec_gathered(op, fp);
    /* every rank decides the same: each rank's part a range of rows, the same for x and m */
    int64_t *lo0 = cpn_alloc((size_t)P * 5 * sizeof *lo0);
    if (!lo0) return CPN_ERR_NOMEM;
    int64_t *cnt = lo0 + P, *off = lo0 + 2 * P, *nruns = lo0 + 3 * P, *base = lo0 + 4 * P;
    struct box w = {{0}, {0}};
    bool have = false, rows = true;
    for (int q = 0; rows && q < P; q++) {
        struct box bm, bx;
        int rm = mrep ? row_part(x, q, &bm) : row_part(m, q, &bm);
        int rx = x ? row_part(x, q, &bx) : rm;
        if (rm < 0 || rx != rm || (x && rm == 1 && (bx.lo[0] != bm.lo[0] || bx.hi[0] != bm.hi[0])) ||
            (x && !x->store->tiled)) {
            rows = false;
            break;
        }
        lo0[q] = rm == 1 ? bm.lo[0] : -1;
        if (q == me && rm == 1) {
            w = bm;
            have = true;
        }
    }
    if (!rows) {
        /* a grid that cuts a later dimension: the parts are boxes, each a set of runs */
        cpn_free(lo0);
        struct box *parts = cpn_alloc((size_t)P * sizeof *parts);
        int *has = cpn_alloc((size_t)P * sizeof *has);
        bool boxes = parts && has;
        for (int q = 0; boxes && q < P; q++) {
            struct box bx;
            const int rm = box_part(mrep ? x : m, q, &parts[q]), rx = x ? box_part(x, q, &bx) : rm;
            boxes = rm >= 0 && rx == rm;
            for (int i = 0; boxes && x && rm == 1 && i < m->ndim; i++)
                boxes = bx.lo[i] == parts[q].lo[i] && bx.hi[i] == parts[q].hi[i];
            has[q] = rm == 1;
        }
        enum cpn_status st = !parts || !has ? CPN_ERR_NOMEM : boxes ? select_boxes(op, parts, has)
                                                                   : exec_gathered(op, fp);
        cpn_free(parts);
        cpn_free(has);
        return st;
    }
    const int nd = m->ndim, nrows = compact ? 1 : nd;
    const size_t item = compact ? cpn_dtype_size(ov->dtype) : 8;
    int64_t shape[CPN_MAXDIM], mst[CPN_MAXDIM], xst[CPN_MAXDIM];
    const char *mp = NULL, *xp = NULL;
    int64_t c = 0;
    enum cpn_status st = CPN_OK;
    if (have) {
        for (int i = 0; i < nd; i++) shape[i] = w.hi[i] - w.lo[i];
        char *md = cpn_store_data(m->store), *xd = x ? cpn_store_data(x->store) : NULL;
        if (!md || (x && !xd)) st = CPN_ERR_NOMEM;
        else {
            mp = region_layout(m, &w, md, m->store->tlo, m->store->tstride, mst);
            if (x) xp = region_layout(x, &w, xd, x->store->tlo, x->store->tstride, xst);
            c = cpn_kernel_count_true(nd, shape, mp, mst);
        }
    }
    /* every rank's count (O(ranks) bytes), then the exclusive prefix in the view's row order */
    size_t *sizes = cpn_alloc((size_t)P * sizeof *sizes);
    if (!sizes && st == CPN_OK) st = CPN_ERR_NOMEM;
    for (int q = 0; st == CPN_OK && q < P; q++) sizes[q] = sizeof(int64_t);
    if (st == CPN_OK) st = cpn_comm_allgatherv(&c, cnt, sizes);
    cpn_free(sizes);
    int64_t total = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        off[q] = 0;
        for (int r = 0; r < P; r++)
            if (lo0[r] >= 0 && (lo0[r] < lo0[q] || (lo0[r] == lo0[q] && r < q))) off[q] += cnt[r];
        total += cnt[q];
        /* one run a rank: its part is one C-order range of the view */
        nruns[q] = lo0[q] >= 0;
        base[q] = q;
        if (!nruns[q]) cnt[q] = 0;
    }
    if (st == CPN_OK && total != op->iparam[0])
        st = cpn_error(CPN_ERR_INTERNAL, "selection: %lld true elements, %lld expected",
                       (long long)total, (long long)op->iparam[0]);
    char *mine = st == CPN_OK ? cpn_alloc((size_t)(nrows * c) * item + 1) : NULL;
    if (st == CPN_OK && !mine) st = CPN_ERR_NOMEM;
    if (st == CPN_OK && c) {
        if (compact) {
            st = cpn_kernel_compact(item, nd, shape, xp, xst, mp, mst, mine, c);
        } else {
            st = cpn_kernel_nonzero(nd, shape, mp, mst, (int64_t *)mine, c);
            for (int d = 0; st == CPN_OK && d < nd; d++)
                for (int64_t j = 0; j < c; j++) ((int64_t *)mine)[d * c + j] += w.lo[d];
        }
    }
    /* every rank takes part in the exchange, also one whose part failed (peers wait for it) */
    struct runs R = {nruns, base, cnt, off};
    if (st == CPN_OK) st = place_runs(os, nrows, item, mine, c, &R);
    cpn_free(mine);
    cpn_free(lo0);
    return st;
}

/* The element case of GATHER and SCATTER: x a 1-D unit-step view of the untiled flat alias (in
 * its root's dtype) of a root tiled on a grid that cuts its rows too (a[i, j] on a 2x2 grid: the
 * merged index names single elements).  Each element has one owner; element_owner gives it.
 * Local (a pure function of the tilings). */
static bool element_case(const struct cpn_view *x)
{
    const struct cpn_store *s = x->store, *r = s->root;
    return x->ndim == 1 && r && !s->tiled && r->tiled && s->dtype == r->dtype && x->dtype == s->dtype &&
           !x->part && x->sdim[0] == 0 && x->step[0] == 1;
}

/* The owner of flat element k of root r among the P rank tiles `tiles`, and in *local the
 * element's offset in that tile (C order within the tile, as the tile buffer holds it); -1
 * where no tile holds it.  Local. */
static int element_owner(const struct cpn_store *r, const struct box *tiles, int P, int64_t k, int64_t *local)
{
    int64_t c[CPN_MAXDIM];
    for (int d = r->ndim - 1; d >= 0; d--) {
        c[d] = k % r->shape[d];
        k /= r->shape[d];
    }
    for (int q = 0; q < P; q++) {
        const struct box *t = &tiles[q];
        bool in = true;
        for (int d = 0; d < r->ndim && in; d++) in = c[d] >= t->lo[d] && c[d] < t->hi[d];
        if (!in) continue;
        int64_t off = 0;
        for (int d = 0; d < r->ndim; d++) off = off * (t->hi[d] - t->lo[d]) + (c[d] - t->lo[d]);
        *local = off;
        return q;
    }
    return -1;
}

/* Every rank's tile of root r (P boxes, the caller frees), or NULL on OOM.  Local. */
static struct box *rank_tiles(const struct cpn_store *r, int P)
{
    struct box *t = cpn_alloc((size_t)P * sizeof *t);
    for (int q = 0; t && q < P; q++) tile_of(r, q, &t[q]);
    return t;
}

/* Whether exec_gather can route: the index is a tiled int64 store whose rows on every rank are
 * that rank's result rows.  Depends on tilings only, so every rank decides alike.  Local. */
static bool gather_index_aligned(const struct cpn_view *iv, const struct cpn_store *os, const int64_t *olo,
                                 const int64_t *ohi, int P)
{
    if (!os->tiled || !iv->store->tiled || iv->ndim != 1 || iv->dtype != CPN_DTYPE_INT64) return false;
    for (int q = 0; q < P; q++) {
        struct box b;
        const int r = row_part(iv, q, &b);
        if (r < 0 || (r == 1 && (b.lo[0] != olo[q] || b.hi[0] != ohi[q])) || (r == 0 && olo[q] != ohi[q]))
            return false;
    }
    return true;
}

/* exec_gather where the index is tiled as the result (gather_index_aligned): each rank sends the
 * source rows its own result rows need to their owners (8 bytes a row) and gets the rows back,
 * so no rank reads more of the index than its own part and the bytes sent do not grow with the
 * rank count.  lo0/hi0: each rank's source rows; olo/ohi: its result rows; w: this rank's source
 * rows, `have` whether it holds any.  Collective. */
static enum cpn_status gather_routed(const struct cpn_op *op, const int64_t *lo0, const int64_t *hi0,
                                     const int64_t *olo, const int64_t *ohi, const struct box *w, bool have,
                                     const struct box *tiles)
{
    const struct cpn_view *x = op->in[0], *iv = op->in[1], *ov = op->out[0];
    struct cpn_store *os = ov->store;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    const int64_t n = x->shape[0], mloc = ohi[me] - olo[me];
    const size_t item = cpn_dtype_size(x->dtype);
    int64_t block = 1;
    for (int d = 1; d < x->ndim; d++) block *= x->shape[d];
    const size_t bbytes = (size_t)block * item;
    int64_t *cnt = cpn_alloc((size_t)(P + 1) * (size_t)P * sizeof *cnt), *off = cpn_alloc((size_t)(7 * P + 1) * 8);
    int64_t *req = cpn_alloc((size_t)mloc * 8 + 8), *order = cpn_alloc((size_t)mloc * 8 + 8);
    int *own = cpn_alloc((size_t)mloc * sizeof *own + 1);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    int64_t *rreq = NULL;
    char *sbuf = NULL, *rbuf = NULL;
    enum cpn_status st = cnt && off && req && order && own && counts ? CPN_OK : CPN_ERR_NOMEM;
    /* per[0..P): rows asked of each rank, per[P]: a bad index seen (sent with the counts, so every
     * rank fails alike) */
    int64_t *per = off, *soff = off + P + 1, *sb = soff + P, *roff = sb + P, *rb = roff + P, *fill = rb + P,
            *rcnt = fill + P;
    const char *ix = NULL;
    int64_t ixs = 0;
    if (st == CPN_OK && mloc) {
        struct box b;
        int64_t lst[CPN_MAXDIM];
        char *d = cpn_store_data(iv->store);
        row_part(iv, me, &b);
        if (!d) st = CPN_ERR_NOMEM;
        else ix = region_layout(iv, &b, d, iv->store->tlo, iv->store->tstride, lst);
        ixs = lst[0];
    }
    for (int q = 0; st == CPN_OK && q <= P; q++) per[q] = 0;
    for (int64_t j = 0; st == CPN_OK && j < mloc; j++) {
        int64_t k = *(const int64_t *)(ix + j * ixs);
        if (k < 0) k += n;
        own[j] = -1;
        req[j] = k;
        if (tiles && k >= 0 && k < n)       /* the element case: the offset in the owner's tile */
            own[j] = element_owner(x->store->root, tiles, P, x->off[0] + k, &req[j]);
        for (int q = 0; !tiles && k >= 0 && k < n && q < P; q++)
            if (k >= lo0[q] && k < hi0[q]) { own[j] = q; break; }
        if (own[j] < 0) per[P] = 1;
        else per[own[j]]++;
    }
    if (st == CPN_OK) {
        for (int q = 0; q < P; q++) counts[q] = (size_t)(P + 1) * sizeof *cnt;
        st = cpn_comm_allgatherv(per, cnt, counts);   /* cnt[q * (P + 1) + b]: q asks b for rows */
    }
    for (int q = 0; st == CPN_OK && q < P; q++)
        if (cnt[q * (P + 1) + P]) st = cpn_error(CPN_ERR_INDEX, "gather: an index is out of bounds for size %lld", (long long)n);
    int64_t nsend = 0, nrecv = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        rcnt[q] = cnt[q * (P + 1) + me];
        fill[q] = nsend;
        soff[q] = nsend * 8;
        sb[q] = per[q] * 8;
        nsend += per[q];
        roff[q] = nrecv * 8;
        rb[q] = rcnt[q] * 8;
        nrecv += rcnt[q];
    }
    if (st == CPN_OK) {
        rreq = cpn_alloc((size_t)nrecv * 8 + 8);
        sbuf = cpn_alloc((size_t)nrecv * bbytes + (size_t)mloc * 8 + 1);
        rbuf = cpn_alloc((size_t)mloc * bbytes + 1);
        if (!rreq || !sbuf || !rbuf) st = CPN_ERR_NOMEM;
    }
    if (st == CPN_OK) {
        /* the requests in owner order; order[at]: the result row of request at */
        int64_t *sreq = (int64_t *)(sbuf + (size_t)nrecv * bbytes);
        for (int64_t j = 0; j < mloc; j++) {
            const int64_t at = fill[own[j]]++;
            order[at] = j;
            sreq[at] = req[j];
        }
        st = cpn_comm_alltoallv(SELECT_TAG + 3, (const char *)sreq, soff, sb, (char *)rreq, roff, rb);
    }
    /* the owner's side: the asked rows of its tile, in the order asked */
    if (st == CPN_OK && nrecv && block) {
        int64_t lshape[CPN_MAXDIM], lst[CPN_MAXDIM];
        char *xd = have ? cpn_store_data(x->store) : NULL;
        if (!xd) st = have ? CPN_ERR_NOMEM : cpn_error(CPN_ERR_INTERNAL, "gather: rows asked of a rank without any");
        if (st == CPN_OK && tiles) {        /* the tile's elements in order */
            lshape[0] = w->hi[0];
            lst[0] = (int64_t)item;
            st = cpn_kernel_gather(item, 1, lshape, xd, lst, (const char *)rreq, 8, nrecv, sbuf);
        } else if (st == CPN_OK) {
            const char *lp = region_layout(x, w, xd, x->store->tiled ? x->store->tlo : (int64_t[CPN_MAXDIM]){0},
                                           x->store->tstride, lst);
            for (int d = 0; d < x->ndim; d++) lshape[d] = w->hi[d] - w->lo[d];
            for (int64_t i = 0; i < nrecv; i++) rreq[i] -= w->lo[0];
            st = cpn_kernel_gather(item, x->ndim, lshape, lp, lst, (const char *)rreq, 8, nrecv, sbuf);
        }
    }
    /* the rows back: what q asked returns to q, in its order */
    for (int q = 0; st == CPN_OK && q < P; q++) {
        soff[q] = soff[q] / 8 * (int64_t)bbytes;
        sb[q] = per[q] * (int64_t)bbytes;
        roff[q] = roff[q] / 8 * (int64_t)bbytes;
        rb[q] = rcnt[q] * (int64_t)bbytes;
    }
    if (st == CPN_OK) st = cpn_comm_alltoallv(SELECT_TAG + 4, sbuf, roff, rb, rbuf, soff, sb);
    if (st == CPN_OK && mloc && block) {
        char *tile = cpn_store_data_for_overwrite(os);
        const int64_t tlo0 = os->tlo[0], ts0 = os->tstride[0];
        if (!tile) st = CPN_ERR_NOMEM;
        for (int64_t at = 0; tile && at < mloc; at++)
            memcpy(tile + (olo[me] + order[at] - tlo0) * ts0 * (int64_t)item, rbuf + (size_t)at * bbytes, bbytes);
    }
    cpn_free(cnt);
    cpn_free(off);
    cpn_free(req);
    cpn_free(order);
    cpn_free(own);
    cpn_free(counts);
    cpn_free(rreq);
    cpn_free(sbuf);
    cpn_free(rbuf);
    return st;
}

/* GATHER (out[j] = x[idx[j]]) of a view split along its first dimension: every rank reads the
 * index (bytes in proportion to len(idx)), and each owner of source rows sends the rows each
 * result tile needs straight to its owner (bytes in proportion to the rows selected). */
static enum cpn_status exec_gather(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *x = op->in[0], *iv = op->in[1], *ov = op->out[0];
    struct cpn_store *os = ov->store;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    if (os->root || !cpn_view_is_contiguous(ov) || cpn_view_size(ov) != os->size || os->ndim != x->ndim)
        return exec_gathered(op, fp);
    int64_t *lo0 = cpn_alloc((size_t)P * 4 * sizeof *lo0);
    if (!lo0) return CPN_ERR_NOMEM;
    int64_t *hi0 = lo0 + P, *olo = lo0 + 2 * P, *ohi = lo0 + 3 * P;
    struct box w = {{0}, {0}};
    bool have = false;
    /* the element case: rank q's "rows" are the elements of its tile, in tile order */
    struct box *tiles = element_case(x) ? rank_tiles(x->store->root, P) : NULL;
    const bool elem = tiles != NULL;
    for (int q = 0; q < P; q++) {
        struct box b = {{0}, {0}};
        int r = elem ? 1 : row_part(x, q, &b);
        if (elem) b.hi[0] = box_count(&tiles[q], x->store->root->ndim);
        bool rows = true;
        if (os->tiled) {
            struct box t;
            tile_of(os, q, &t);
            for (int d = 1; d < os->ndim; d++) rows &= t.hi[d] <= t.lo[d] || (t.lo[d] == 0 && t.hi[d] == os->shape[d]);
            olo[q] = t.lo[0];
            ohi[q] = t.hi[0] > t.lo[0] ? t.hi[0] : t.lo[0];
            for (int d = 1; d < os->ndim; d++) if (t.hi[d] <= t.lo[d]) ohi[q] = olo[q];
        } else {
            olo[q] = 0;
            ohi[q] = os->shape[0];
        }
        if (r < 0 || !rows) {
            cpn_free(lo0);
            cpn_free(tiles);
            return exec_gathered(op, fp);
        }
        lo0[q] = r == 1 ? b.lo[0] : 0;
        hi0[q] = r == 1 ? b.hi[0] : 0;
        if (q == me && r == 1) {
            w = b;
            have = true;
        }
    }
    if (gather_index_aligned(iv, os, olo, ohi, P)) {
        enum cpn_status st = gather_routed(op, lo0, hi0, olo, ohi, &w, have, tiles);
        cpn_free(lo0);
        cpn_free(tiles);
        return st;
    }
    const int64_t m = iv->shape[0], n = x->shape[0];
    const size_t item = cpn_dtype_size(x->dtype);
    int64_t block = 1;
    for (int d = 1; d < x->ndim; d++) block *= x->shape[d];
    const size_t bbytes = (size_t)block * item;
    int64_t *idx = cpn_alloc((size_t)m * 8 + 8);
    int *own = cpn_alloc((size_t)m * sizeof *own + 1);
    enum cpn_status st = idx && own ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK) st = cpn_dist_read(iv, (char *)idx, (int64_t[CPN_MAXDIM]){8});
    for (int64_t j = 0; st == CPN_OK && j < m; j++) {
        int64_t k = idx[j] < 0 ? idx[j] + n : idx[j];
        if (k < 0 || k >= n) {
            st = cpn_error(CPN_ERR_INDEX, "gather: an index is out of bounds for size %lld", (long long)n);
            break;
        }
        idx[j] = k;
        own[j] = -1;
        if (elem) own[j] = element_owner(x->store->root, tiles, P, x->off[0] + k, &idx[j]);
        for (int q = 0; !elem && q < P; q++)
            if (k >= lo0[q] && k < hi0[q]) { own[j] = q; break; }
        if (own[j] < 0) st = cpn_error(CPN_ERR_INTERNAL, "gather: no owner of row %lld", (long long)k);
    }
    cpn_free(tiles);
    /* the local source rows: shape (rows, rest), its layout in the tile */
    int64_t lshape[CPN_MAXDIM], lst[CPN_MAXDIM];
    const char *lp = NULL;
    if (st == CPN_OK && have && block) {
        char *xd = cpn_store_data(x->store);
        if (!xd) st = CPN_ERR_NOMEM;
        else if (elem) {            /* the tile's elements in order, indexed by idx[j] */
            lp = xd;
            lshape[0] = w.hi[0];
            lst[0] = (int64_t)item;
        } else {
            lp = region_layout(x, &w, xd, x->store->tiled ? x->store->tlo : (int64_t[CPN_MAXDIM]){0},
                               x->store->tstride, lst);
            for (int d = 0; d < x->ndim; d++) lshape[d] = w.hi[d] - w.lo[d];
        }
    }
    char *tile = st == CPN_OK ? cpn_store_data_for_overwrite(os) : NULL;
    if (st == CPN_OK && !tile && os->size) st = CPN_ERR_NOMEM;
    const int64_t tlo0 = os->tiled ? os->tlo[0] : 0, ts0 = os->tstride[0];
    /* counts: rows this rank sends to q, and receives from q */
    size_t sn = 0, rn = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        if (q == me) continue;
        for (int64_t j = olo[q]; j < ohi[q]; j++) sn += own[j] == me;
        for (int64_t j = olo[me]; j < ohi[me]; j++) rn += own[j] == q;
    }
    int64_t *lidx = st == CPN_OK ? cpn_alloc((size_t)(sn + (size_t)(ohi[me] - olo[me]) + 1) * 8) : NULL;
    char *sbuf = st == CPN_OK ? cpn_alloc(sn * bbytes + 1) : NULL, *rbuf = st == CPN_OK ? cpn_alloc(rn * bbytes + 1) : NULL;
    struct cpn_msg *sends = cpn_alloc((size_t)P * sizeof *sends), *recvs = cpn_alloc((size_t)P * sizeof *recvs);
    if (st == CPN_OK && (!lidx || !sbuf || !rbuf || !sends || !recvs)) st = CPN_ERR_NOMEM;
    int ns = 0, nr = 0;
    size_t so = 0, ro = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        if (q == me) {
            /* this rank's own rows of its own result tile */
            int64_t c = 0;
            for (int64_t j = olo[q]; j < ohi[q]; j++)
                if (own[j] == me) lidx[c++] = idx[j] - w.lo[0];
            char *tmp = c && block ? cpn_alloc((size_t)c * bbytes) : NULL;
            if (c && block && !tmp) { st = CPN_ERR_NOMEM; break; }
            if (c && block) st = cpn_kernel_gather(item, x->ndim, lshape, lp, lst, (const char *)lidx, 8, c, tmp);
            c = 0;
            for (int64_t j = olo[q]; st == CPN_OK && block && j < ohi[q]; j++)
                if (own[j] == me) memcpy(tile + (j - tlo0) * ts0 * (int64_t)item, tmp + (c++) * (int64_t)bbytes, bbytes);
            cpn_free(tmp);
            continue;
        }
        int64_t c = 0;
        /* a replicated source: every rank has every row and takes its own (no messages) */
        for (int64_t j = olo[q]; (x->store->tiled || elem) && j < ohi[q]; j++)
            if (own[j] == me) lidx[c++] = idx[j] - w.lo[0];
        if (c && block) {
            st = cpn_kernel_gather(item, x->ndim, lshape, lp, lst, (const char *)lidx, 8, c, sbuf + so);
            sends[ns++] = (struct cpn_msg){.peer = q, .tag = SELECT_TAG + 1, .buf = sbuf + so, .bytes = (size_t)c * bbytes};
            so += (size_t)c * bbytes;
        }
        c = 0;
        for (int64_t j = olo[me]; j < ohi[me]; j++) c += own[j] == q;
        if (c && block) {
            recvs[nr++] = (struct cpn_msg){.peer = q, .tag = SELECT_TAG + 1, .buf = rbuf + ro, .bytes = (size_t)c * bbytes};
            ro += (size_t)c * bbytes;
        }
    }
    void *h = NULL;
    if (st == CPN_OK && (ns || nr)) st = cpn_comm_post(nr, recvs, ns, sends, &h);
    if (h) {
        enum cpn_status wt = cpn_comm_wait(h);
        if (st == CPN_OK) st = wt;
    }
    /* unpack: the rows from rank q arrive in result order; q's block starts where its message does */
    if (st == CPN_OK && nr) {
        size_t *cur = cpn_alloc((size_t)P * sizeof *cur);
        if (!cur) st = CPN_ERR_NOMEM;
        for (int k = 0; cur && k < P; k++) cur[k] = (size_t)-1;
        for (int k = 0; cur && k < nr; k++) cur[recvs[k].peer] = (size_t)((char *)recvs[k].buf - rbuf);
        for (int64_t j = olo[me]; cur && j < ohi[me]; j++) {
            int q = own[j];
            if (q == me) continue;
            memcpy(tile + (j - tlo0) * ts0 * (int64_t)item, rbuf + cur[q], bbytes);
            cur[q] += bbytes;
        }
        cpn_free(cur);
    }
    cpn_free(lidx);
    cpn_free(sbuf);
    cpn_free(rbuf);
    cpn_free(sends);
    cpn_free(recvs);
    cpn_free(idx);
    cpn_free(own);
    cpn_free(lo0);
    return st;
}

/* SCATTER's last step on one rank: the c rows abuf (packed, in index order) applied at the rows
 * lidx of the destination rows dp (shape dshape, byte strides dst_): written (last wins) or, with
 * an op (ufunc.at), accumulated.  Local. */
static enum cpn_status scatter_apply_rows(const struct cpn_op *op, const int64_t *dshape, char *dp, const int64_t *dst_,
                                          const char *abuf, const int64_t *lidx, int64_t c, struct cpn_fpreport *fp)
{
    const struct cpn_view *dv = op->out[0];
    const size_t item = cpn_dtype_size(dv->dtype);
    int64_t ast[CPN_MAXDIM], s = (int64_t)item;
    for (int d = dv->ndim - 1; d >= 0; d--) {
        ast[d] = s;
        s *= d ? dshape[d] : c;
    }
    enum cpn_status st;
    if (op->iparam[0]) {
        cpn_loop_fn fn = cpn_kernel_elementwise_scalar(op->code, op->dtype);   /* one row at a time: the plain loop */
        struct cpn_kctx ctx = {0};
        st = fn ? cpn_kernel_scatter_apply(cpn_kernel_at_loop(op->code, op->dtype), fn, (int)op->iparam[0], item, dv->ndim, dshape, dp, dst_, abuf, ast,
                                           (const char *)lidx, 8, c, &ctx)
                : CPN_ERR_TYPE;
        cpn_fpreport_add(fp, ctx.hw, ctx.fpe);
        if (st == CPN_OK && ctx.err) st = cpn_op_loop_error(op);
    } else {
        st = cpn_kernel_scatter(item, dv->ndim, dshape, dp, dst_, abuf, ast, (const char *)lidx, 8, c);
    }
    return st;
}

/* Whether exec_scatter can route: the index is a tiled 1-D int64 store whose part on every rank
 * is that rank's range of value rows [vlo, vhi).  Depends on tilings only, so every rank decides
 * alike.  Local. */
static bool scatter_index_aligned(const struct cpn_view *iv, const struct cpn_view *v, const int64_t *vlo,
                                  const int64_t *vhi, int P)
{
    if (!iv->store->tiled || !v->store->tiled || iv->ndim != 1 || iv->dtype != CPN_DTYPE_INT64) return false;
    for (int q = 0; q < P; q++) {
        struct box b;
        const int r = row_part(iv, q, &b);
        const int64_t lo = r == 1 ? b.lo[0] : 0, hi = r == 1 ? b.hi[0] : 0;
        if (r < 0 || ((hi > lo || vhi[q] > vlo[q]) && (lo != vlo[q] || hi != vhi[q]))) return false;
    }
    return true;
}

/* exec_scatter where the index lies like the values (scatter_index_aligned): each rank reads its
 * own part of the index only and sends each of its value rows, with the row's place in its
 * owner's rows (or, in the element case, tile), to that owner (cpn_route_rows, distroute.c),
 * which applies what arrives in index order: the senders ordered by their ranges (vlo).  lo0/hi0:
 * every rank's destination rows (tiles: the element case's rank tiles instead); w/have: this
 * rank's; vw/vhave: its value rows.  Collective. */
static enum cpn_status scatter_routed(const struct cpn_op *op, struct cpn_fpreport *fp, const int64_t *lo0,
                                      const int64_t *hi0, const int64_t *vlo, const struct box *tiles,
                                      const struct box *w, bool have, const struct box *vw, bool vhave)
{
    const struct cpn_view *v = op->in[0], *iv = op->in[1], *dv = op->out[0];
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    const int64_t n = dv->shape[0], mloc = vhave ? vw->hi[0] - vw->lo[0] : 0;
    const size_t item = cpn_dtype_size(dv->dtype);
    int64_t block = 1;
    for (int d = 1; d < dv->ndim; d++) block *= dv->shape[d];
    const size_t bbytes = (size_t)block * item;
    int *own = cpn_alloc((size_t)mloc * sizeof *own + 1);
    int64_t *lidx = cpn_alloc((size_t)mloc * 16 + 8), *seq = lidx ? lidx + mloc : NULL, *ridx = NULL;
    char *rows = cpn_alloc((size_t)mloc * bbytes + 1), *rrows = NULL;
    enum cpn_status st = own && lidx && rows ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK && mloc) {
        struct box b;
        int64_t lst[CPN_MAXDIM], vshape[CPN_MAXDIM], vst[CPN_MAXDIM];
        char *id = cpn_store_data(iv->store), *vd = block ? cpn_store_data(v->store) : NULL;
        if (!id || (block && !vd)) st = CPN_ERR_NOMEM;
        else if (row_part(iv, me, &b) != 1) st = cpn_error(CPN_ERR_INTERNAL, "scatter: the index part is not the values'");
        if (st == CPN_OK) {
            const char *ix = region_layout(iv, &b, id, iv->store->tlo, iv->store->tstride, lst);
            for (int64_t j = 0; j < mloc; j++) {
                int64_t k = *(const int64_t *)(ix + j * lst[0]);
                if (k < 0) k += n;
                own[j] = -1;
                lidx[j] = 0;
                seq[j] = j;
                if (k < 0 || k >= n) continue;           /* the owners' counts carry the error */
                if (tiles) own[j] = element_owner(dv->store->root, tiles, P, dv->off[0] + k, &lidx[j]);
                for (int q = 0; !tiles && q < P; q++)
                    if (k >= lo0[q] && k < hi0[q]) {
                        own[j] = q;
                        lidx[j] = k - lo0[q];
                        break;
                    }
            }
        }
        if (st == CPN_OK && block) {                     /* this rank's value rows, packed */
            const char *vp = region_layout(v, vw, vd, v->store->tlo, v->store->tstride, vst);
            for (int d = 0; d < v->ndim; d++) vshape[d] = vw->hi[d] - vw->lo[d];
            st = cpn_kernel_gather(item, v->ndim, vshape, vp, vst, (const char *)seq, 8, mloc, rows);
        }
    }
    /* every rank takes part in the exchange, also one whose part failed (peers wait for it) */
    int64_t c = 0;
    enum cpn_status rt = cpn_route_rows(st == CPN_OK ? mloc : 0, own, lidx, rows, bbytes, vlo, SELECT_TAG + 5,
                                        &c, &ridx, &rrows);
    if (st == CPN_OK) st = rt;
    if (st == CPN_OK && c && block) {
        int64_t dshape[CPN_MAXDIM], dst_[CPN_MAXDIM];
        char *dd = have ? cpn_store_data(dv->store) : NULL, *dp = dd;
        if (!dd) st = have ? CPN_ERR_NOMEM : cpn_error(CPN_ERR_INTERNAL, "scatter: rows sent to a rank without any");
        else if (tiles) {                                /* the tile's elements in order */
            dshape[0] = w->hi[0];
            dst_[0] = (int64_t)item;
        } else {
            dp = region_layout(dv, w, dd, dv->store->tlo, dv->store->tstride, dst_);
            for (int d = 0; d < dv->ndim; d++) dshape[d] = w->hi[d] - w->lo[d];
        }
        if (st == CPN_OK) st = scatter_apply_rows(op, dshape, dp, dst_, rrows, ridx, c, fp);
    }
    cpn_free(own);
    cpn_free(lidx);
    cpn_free(rows);
    cpn_free(ridx);
    cpn_free(rrows);
    return st;
}

/* SCATTER (dst[idx[j]] = v[j] in order; with iparam[0] the op applied, ufunc.at) into a view
 * split along its first dimension: every rank reads the index; each rank sends the value rows it
 * holds to the owners of their destination rows, which apply them in index order (NumPy's last
 * wins, or the accumulation) on their own tiles. */
static enum cpn_status exec_scatter(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_view *v = op->in[0], *iv = op->in[1], *dv = op->out[0];
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    /* the element case (as exec_gather's): rank q's rows are the elements of its tile */
    const bool elem = element_case(dv);
    if ((!dv->store->tiled && !elem) || v->ndim != dv->ndim) return exec_gathered(op, fp);
    int64_t *lo0 = cpn_alloc((size_t)P * 4 * sizeof *lo0);
    struct box *tiles = elem ? rank_tiles(dv->store->root, P) : NULL;
    if (!lo0 || (elem && !tiles)) {
        cpn_free(lo0);
        cpn_free(tiles);
        return CPN_ERR_NOMEM;
    }
    int64_t *hi0 = lo0 + P, *vlo = lo0 + 2 * P, *vhi = lo0 + 3 * P;
    struct box w = {{0}, {0}}, vw = {{0}, {0}};
    bool have = false, vhave = false;
    for (int q = 0; q < P; q++) {
        struct box b = {{0}, {0}}, c;
        int r = elem ? 1 : row_part(dv, q, &b), rv = row_part(v, q, &c);
        if (elem) b.hi[0] = box_count(&tiles[q], dv->store->root->ndim);
        if (r < 0 || rv < 0) {
            cpn_free(lo0);
            cpn_free(tiles);
            return exec_gathered(op, fp);
        }
        lo0[q] = r == 1 ? b.lo[0] : 0;
        hi0[q] = r == 1 ? b.hi[0] : 0;
        vlo[q] = rv == 1 ? c.lo[0] : 0;
        vhi[q] = rv == 1 ? c.hi[0] : 0;
        if (q == me && r == 1) { w = b; have = true; }
        if (q == me && rv == 1) { vw = c; vhave = true; }
    }
    if (scatter_index_aligned(iv, v, vlo, vhi, P)) {
        enum cpn_status st = scatter_routed(op, fp, lo0, hi0, vlo, tiles, &w, have, &vw, vhave);
        cpn_free(tiles);
        cpn_free(lo0);
        return st;
    }
    const int64_t m = iv->shape[0], n = dv->shape[0];
    const size_t item = cpn_dtype_size(dv->dtype);
    int64_t block = 1;
    for (int d = 1; d < dv->ndim; d++) block *= dv->shape[d];
    const size_t bbytes = (size_t)block * item;
    int64_t *idx = cpn_alloc((size_t)m * 8 + 8);
    int *own = cpn_alloc((size_t)m * sizeof *own + 1), *vown = cpn_alloc((size_t)m * sizeof *vown + 1);
    enum cpn_status st = idx && own && vown ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK) st = cpn_dist_read(iv, (char *)idx, (int64_t[CPN_MAXDIM]){8});
    for (int64_t j = 0; st == CPN_OK && j < m; j++) {
        int64_t k = idx[j] < 0 ? idx[j] + n : idx[j];
        if (k < 0 || k >= n) {
            st = cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld", (long long)n);
            break;
        }
        idx[j] = k;
        own[j] = vown[j] = -1;
        if (elem) own[j] = element_owner(dv->store->root, tiles, P, dv->off[0] + k, &idx[j]);
        for (int q = 0; q < P; q++) {
            if (!elem && own[j] < 0 && k >= lo0[q] && k < hi0[q]) own[j] = q;
            if (vown[j] < 0 && j >= vlo[q] && j < vhi[q]) vown[j] = q;
        }
        if (own[j] < 0 || vown[j] < 0) st = cpn_error(CPN_ERR_INTERNAL, "scatter: no owner of row %lld", (long long)k);
    }
    cpn_free(tiles);
    /* local layouts: the destination rows and the value rows this rank holds */
    int64_t dshape[CPN_MAXDIM], dst_[CPN_MAXDIM], vshape[CPN_MAXDIM], vst[CPN_MAXDIM];
    char *dp = NULL;
    const char *vp = NULL;
    if (st == CPN_OK && block) {
        char *dd = have ? cpn_store_data(dv->store) : NULL, *vd = vhave ? cpn_store_data(v->store) : NULL;
        if ((have && !dd) || (vhave && !vd)) st = CPN_ERR_NOMEM;
        if (st == CPN_OK && have && elem) {     /* the tile's elements in order */
            dp = dd;
            dshape[0] = w.hi[0];
            dst_[0] = (int64_t)item;
        } else if (st == CPN_OK && have) {
            dp = region_layout(dv, &w, dd, dv->store->tlo, dv->store->tstride, dst_);
            for (int d = 0; d < dv->ndim; d++) dshape[d] = w.hi[d] - w.lo[d];
        }
        if (st == CPN_OK && vhave) {
            vp = region_layout(v, &vw, vd, v->store->tiled ? v->store->tlo : (int64_t[CPN_MAXDIM]){0},
                               v->store->tstride, vst);
            for (int d = 0; d < v->ndim; d++) vshape[d] = vw.hi[d] - vw.lo[d];
        }
    }
    /* rows this rank sends (its value rows for other owners) and applies (all rows it owns) */
    size_t sn = 0, an = 0;
    for (int64_t j = 0; st == CPN_OK && j < m; j++) {
        sn += vown[j] == me && own[j] != me;
        an += own[j] == me;
    }
    int64_t *lidx = st == CPN_OK ? cpn_alloc((sn + an + 1) * 8) : NULL;
    char *sbuf = st == CPN_OK ? cpn_alloc(sn * bbytes + 1) : NULL;
    char *abuf = st == CPN_OK ? cpn_alloc(an * bbytes + 1) : NULL, *rbuf = st == CPN_OK ? cpn_alloc(an * bbytes + 1) : NULL;
    struct cpn_msg *sends = cpn_alloc((size_t)P * sizeof *sends), *recvs = cpn_alloc((size_t)P * sizeof *recvs);
    size_t *rstart = cpn_alloc((size_t)P * sizeof *rstart);
    if (st == CPN_OK && (!lidx || !sbuf || !abuf || !rbuf || !sends || !recvs || !rstart)) st = CPN_ERR_NOMEM;
    int ns = 0, nr = 0;
    size_t so = 0, ro = 0;
    for (int q = 0; st == CPN_OK && block && q < P; q++) {
        if (q == me) continue;
        int64_t c = 0;
        /* replicated values: every owner has them all (no messages) */
        for (int64_t j = vlo[me]; vhave && v->store->tiled && j < vhi[me]; j++)
            if (own[j] == q) lidx[c++] = j - vw.lo[0];
        if (c) {
            st = cpn_kernel_gather(item, v->ndim, vshape, vp, vst, (const char *)lidx, 8, c, sbuf + so);
            sends[ns++] = (struct cpn_msg){.peer = q, .tag = SELECT_TAG + 2, .buf = sbuf + so, .bytes = (size_t)c * bbytes};
            so += (size_t)c * bbytes;
        }
        c = 0;
        for (int64_t j = vlo[q]; j < vhi[q]; j++) c += own[j] == me;
        rstart[q] = ro;
        if (c) {
            recvs[nr++] = (struct cpn_msg){.peer = q, .tag = SELECT_TAG + 2, .buf = rbuf + ro, .bytes = (size_t)c * bbytes};
            ro += (size_t)c * bbytes;
        }
    }
    void *h = NULL;
    if (st == CPN_OK && (ns || nr)) st = cpn_comm_post(nr, recvs, ns, sends, &h);
    if (h) {
        enum cpn_status wt = cpn_comm_wait(h);
        if (st == CPN_OK) st = wt;
    }
    /* this rank's rows in index order: local values gathered, received ones in arrival order */
    int64_t c = 0;
    for (int64_t j = 0; st == CPN_OK && block && j < m; j++) {
        if (own[j] != me) continue;
        int q = vown[j];
        if (q == me) {
            int64_t l = j - vw.lo[0];
            st = cpn_kernel_gather(item, v->ndim, vshape, vp, vst, (const char *)&l, 8, 1, abuf + c * (int64_t)bbytes);
        } else {
            memcpy(abuf + c * (int64_t)bbytes, rbuf + rstart[q], bbytes);
            rstart[q] += bbytes;
        }
        lidx[c++] = idx[j] - w.lo[0];
    }
    if (st == CPN_OK && block && c) st = scatter_apply_rows(op, dshape, dp, dst_, abuf, lidx, c, fp);
    cpn_free(lidx);
    cpn_free(sbuf);
    cpn_free(abuf);
    cpn_free(rbuf);
    cpn_free(sends);
    cpn_free(recvs);
    cpn_free(rstart);
    cpn_free(idx);
    cpn_free(own);
    cpn_free(vown);
    cpn_free(lo0);
    return st;
}

/* ---- entry points ------------------------------------------------------------------------------ */

bool cpn_dist_op_is_local(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store)->tiled) return false;
    for (int i = 0; i < op->nout; i++)
        if (cpn_store_root(op->out[i]->store)->tiled) return false;
    return true;
}

enum cpn_status cpn_dist_execute(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    if (cpn_dist_op_is_local(op)) return cpn_op_execute_local(op, fp);
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
    case CPN_OPK_CAST: {
        /* The box executor plans one output; two-output ops take the gathered path. */
        bool plain = op->nout == 1 && boxable(op->out[0]->store);
        for (int i = 0; i < op->nin; i++) plain &= !op->in[i] || boxable(op->in[i]->store);
        if (plain) {
            enum cpn_status st;
            struct plan *p = plan_get(op, &st);
            if (p) return exec_box(op, p, fp);
            if (st != CPN_OK) return st;
        } else {
            enum cpn_status st = exec_flat_copies(op, fp);
            if (st == CPN_ERR_UNSUPPORTED) st = exec_flat_write(op, fp);
            if (st != CPN_ERR_UNSUPPORTED) return st;
        }
        return exec_gathered(op, fp);
    }
    case CPN_OPK_REDUCE: return exec_reduce(op, fp);
    /* SUMMA reports no floating-point findings (BLAS raises none NumPy reports either) */
    case CPN_OPK_MATMUL:
        if (cpn_summa_inner_applies(op)) return cpn_summa_inner_execute(op);
        return cpn_summa_applies(op) ? cpn_summa_execute(op) : exec_gathered(op, fp);
    case CPN_OPK_RANDOM:
        if (op->nin) return exec_random_p(op, fp);
        return exec_generate(op, fp);
    case CPN_OPK_ARANGE: return exec_generate(op, fp);
    case CPN_OPK_HISTOGRAM: return exec_histogram(op, fp);
    case CPN_OPK_BINCOUNT: return exec_bincount(op, fp);
    case CPN_OPK_QUANTILE:
        if (cpn_distselect_applies(op)) return cpn_distselect_execute(op);
        return cpn_distselect_lanes_applies(op) ? cpn_distselect_lanes_execute(op) : exec_gathered(op, fp);
    case CPN_OPK_PERMUTE: return exec_permute(op, fp);
    /* scans: a pipeline along the axis, each rank continuing from its predecessor */
    case CPN_OPK_SCAN: return cpn_distscan_applies(op) ? cpn_distscan_execute(op, fp) : exec_gathered(op, fp);
    case CPN_OPK_COMPACT:
    case CPN_OPK_NONZERO: return exec_select(op, fp);
    case CPN_OPK_GATHER: return exec_gather(op, fp);
    case CPN_OPK_SCATTER: return exec_scatter(op, fp);
    case CPN_OPK_SORT: {
        enum cpn_status st = cpn_samplesort_execute(op);
        return st == CPN_ERR_UNSUPPORTED ? exec_gathered(op, fp) : st;
    }
    case CPN_OPK_SEARCHSORTED: {
        enum cpn_status st = cpn_searchsorted_dist_execute(op);
        return st == CPN_ERR_UNSUPPORTED ? exec_gathered(op, fp) : st;
    }
    case CPN_OPK_UNIQUE: {
        enum cpn_status st = cpn_unique_dist_execute(op);
        return st == CPN_ERR_UNSUPPORTED ? exec_gathered(op, fp) : st;
    }
    /* cholesky and solve of a partitioned matrix: ScaLAPACK, not a gathered copy; a stack tiled
     * along its batch: each rank's own matrices */
    case CPN_OPK_LAPACK:
        if (cpn_scalapack_applies(op)) return cpn_scalapack_execute(op);
        return cpn_lapack_batch_applies(op) ? cpn_lapack_batch_execute(op) : exec_gathered(op, fp);
    case CPN_OPK_FFT: return cpn_distfft_applies(op) ? cpn_distfft_execute(op) : exec_gathered(op, fp);
    default: return exec_gathered(op, fp);
    }
}

/* v's elements from src (byte strides vst) into dst (byte strides dst_strides). */
static void copy_out(const struct cpn_view *v, char *src, const int64_t *vst, char *dst,
                     const int64_t *dst_strides)
{
    int64_t strides[2][CPN_MAXDIM];
    for (int i = 0; i < v->ndim; i++) {
        strides[0][i] = vst[i];
        strides[1][i] = dst_strides[i];
    }
    char *ptr[2] = {src, dst};
    struct cpn_kctx ctx = {0};
    cpn_iterate(cpn_kernel_cast(v->dtype, v->dtype), 2, ptr, v->ndim, v->shape, strides, &ctx);
}

enum cpn_status cpn_dist_read(const struct cpn_view *v, char *dst, const int64_t *dst_strides)
{
    /* a tiled flat alias is read by its own tiles (its tile buffer is its root's) */
    const struct cpn_store *r = boxable(v->store) ? v->store : cpn_store_root(v->store);
    int64_t vst[CPN_MAXDIM], voff;
    char *src = NULL, *tmp = NULL;
    enum cpn_status st = CPN_OK;
    if (cpn_view_size(v) == 0) return CPN_OK;
    int64_t lo = 0, hi = 0;
    if (!r->tiled) {
        cpn_view_byte_layout(v, vst, &voff);
        lo = voff;
        hi = voff + (int64_t)cpn_dtype_size(v->dtype);
        for (int d = 0; d < v->ndim; d++) {
            int64_t reach = (v->shape[d] - 1) * vst[d];
            if (reach < 0) lo += reach;
            else hi += reach;
        }
    }
    /* The current copy is on the device, or the store is virtual and the view spans a few of its
     * elements (x[-1] of a draw): only the bytes the view spans are brought back or computed
     * (cpn_store_read_bytes), and a virtual store stays virtual. */
    if (!r->tiled && (cpn_store_device_only(r) || cpn_store_reads_virtual(r, lo, hi - lo))) {
        tmp = cpn_alloc((size_t)(hi - lo));
        if (!tmp) return CPN_ERR_NOMEM;
        st = cpn_store_read_bytes(r, lo, hi - lo, tmp);
        if (st != CPN_OK) goto done;
        src = tmp + (voff - lo);
    } else if (!r->tiled) {
        src = cpn_view_origin(v);
        if (!src) return CPN_ERR_NOMEM;
        cpn_view_byte_layout(v, vst, &voff);
    } else if (r->tiled && v->store->root && cpn_flatroute_applies(v, false) &&
               cpn_view_size(v) * cpn_partition_ranks() <= cpn_store_root(v->store)->size) {
        /* A strided view of a flat alias (a diagonal), tiled or not: its elements only, each
         * owner's sent to every rank (flatroute.c), read from that replicated copy; the
         * footprint (or the root) would be most of the array. */
        struct cpn_store *t = cpn_store_new_replicated(r->dtype, v->ndim, v->shape);
        struct cpn_view *w = t ? cpn_view_new(t) : NULL;
        cpn_store_release(t);
        if (!w) return CPN_ERR_NOMEM;
        w->dtype = v->dtype;
        w->part = v->part;
        st = cpn_flatroute_exchange(v, w->store, true);
        src = st == CPN_OK ? cpn_view_origin(w) : NULL;
        if (st == CPN_OK && !src) st = CPN_ERR_NOMEM;
        if (st == CPN_OK) {
            cpn_view_byte_layout(w, vst, &voff);
            copy_out(v, src, vst, dst, dst_strides);
        }
        cpn_view_release(w);
        return st;
    } else if (!boxable(v->store)) {
        /* Through an untiled flat alias: gather the whole root, read with the global layout. */
        tmp = cpn_alloc((size_t)r->size * cpn_dtype_size(r->dtype));
        if (!tmp) return CPN_ERR_NOMEM;
        st = gather_store(r, tmp);
        if (st != CPN_OK) goto done;
        cpn_view_byte_layout(v, vst, &voff);
        src = tmp + voff;
    } else {
        /* Only the footprint of the view moves. */
        const int P = cpn_partition_ranks(), n = r->ndim;
        size_t item = cpn_dtype_size(r->dtype);
        struct box f, mine;
        cpn_view_footprint(v, f.lo, f.hi);
        for (int d = 0; d < n; d++) f.hi[d] += 1;
        size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
        int64_t fst[CPN_MAXDIM], pst[CPN_MAXDIM];
        tmp = cpn_alloc((size_t)box_count(&f, n) * item);
        char *all = tmp ? cpn_alloc((size_t)box_count(&f, n) * item) : NULL, *piece = NULL;
        if (!counts || !tmp || !all) {
            cpn_free(counts);
            cpn_free(all);
            st = CPN_ERR_NOMEM;
            goto done;
        }
        for (int q = 0; q < P; q++) {
            struct box t, x;
            tile_of(r, q, &t);
            counts[q] = box_intersect(&f, &t, n, &x) || n == 0 ? (size_t)box_count(&x, n) * item : 0;
            if (n == 0) counts[q] = q == 0 ? item : 0;
        }
        tile_of(r, cpn_partition_rank(), &mine);
        struct box x;
        bool have = box_intersect(&f, &mine, n, &x);
        size_t mybytes = counts[cpn_partition_rank()];
        piece = cpn_alloc(mybytes ? mybytes : 1);
        const char *tile = piece ? cpn_store_data((struct cpn_store *)r) : NULL;
        if (!tile) {
            st = CPN_ERR_NOMEM;
        } else {
            if (have) {
                dense_strides(&x, n, pst);
                copy_region(n, &x, item, piece, x.lo, pst, tile, r->tlo, r->tstride);
            }
            st = cpn_comm_allgatherv(piece, all, counts);
        }
        if (st == CPN_OK) {
            dense_strides(&f, n, fst);
            size_t off = 0;
            for (int q = 0; q < P; q++) {
                struct box t, y;
                tile_of(r, q, &t);
                if (counts[q] && box_intersect(&f, &t, n, &y)) {
                    dense_strides(&y, n, pst);
                    copy_region(n, &y, item, tmp, f.lo, fst, all + off, y.lo, pst);
                }
                off += counts[q];
            }
            struct box whole;
            for (int i = 0; i < v->ndim; i++) {
                whole.lo[i] = 0;
                whole.hi[i] = v->shape[i];
            }
            src = region_layout(v, &whole, tmp, f.lo, fst, vst);
        }
        cpn_free(piece);
        cpn_free(all);
        cpn_free(counts);
        if (st != CPN_OK) goto done;
    }
    copy_out(v, src, vst, dst, dst_strides);
done:
    cpn_free(tmp);
    return st;
}

enum cpn_status cpn_dist_scatter(struct cpn_store *s, const void *full)
{
    char *tile = cpn_store_data_for_overwrite(s);
    if (!tile) return CPN_ERR_NOMEM;
    if (!s->tiled) {
        memcpy(tile, full, (size_t)s->size * cpn_dtype_size(s->dtype));
        return CPN_OK;
    }
    struct box b;
    tile_of(s, cpn_partition_rank(), &b);
    copy_region(s->ndim, &b, cpn_dtype_size(s->dtype), tile, s->tlo, s->tstride, full,
                (int64_t[CPN_MAXDIM]){0}, s->stride);
    return CPN_OK;
}
