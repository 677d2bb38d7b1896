/* flatroute.c: strided views of untiled flat aliases, moved element by element to their owners.
 *
 * A view whose two dimensions walk different store dimensions at once (a diagonal: (i, i)) or a
 * strided flat write (fill_diagonal: a.flat[::n+1]) is expressed on the root's flat alias, which
 * is not tiled when the root is cut along more than its first dimension (a 2 x 2 grid).  Reading
 * or writing such a view used to gather the whole root.  Here the view's element J (C order of
 * the view) is element off + sum J_k step_k of the root's flat order: every rank enumerates the
 * view's elements once per pass, finds each one's owner in the root (its tile by the split
 * points) and its holder in a store t of the view's shape, and only the elements whose owner and
 * holder differ move, in one message per pair of ranks, packed in the view's order on both
 * sides.  So a diagonal read moves at most the diagonal, never the matrix.
 *
 * Work per rank is in proportion to the view (each rank walks all of it to learn what it sends
 * and receives), which is why dist.c routes only views no larger than a tile's worth of the root
 * for reads; writes otherwise gather the whole root, so they are always routed. */
#include "flatroute.h"

#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "partition.h"
#include "store.h"
#include "view.h"

enum { TAG_ROUTE = 0x5f1b };

bool cpn_flatroute_applies(const struct cpn_view *v, bool write)
{
    const struct cpn_store *s = v->store, *r = cpn_store_root(s);
    if (!s->root || !r->tiled || s->ndim != 1 || s->dtype != r->dtype || r->ndim < 1) return false;
    if (write && v->part) return false;
    for (int i = 0; i < v->ndim; i++) {
        if (v->sdim[i] > 0) return false;
        if (write && v->sdim[i] < 0 && v->shape[i] > 1) return false;
        if (write && v->sdim[i] == 0 && v->step[i] == 0 && v->shape[i] > 1) return false;
    }
    return true;
}

/* The rank owning index c of tiled root store s (its tile found by the split points). */
static int owner_of(const struct cpn_store *s, const int64_t *c)
{
    const int64_t *sp = s->splits;
    int64_t q = 0;
    for (int d = 0; d < s->ndim; d++) {
        int p = 0;
        while (p + 1 < s->grid[d] && c[d] >= sp[p + 1]) p++;
        q += p * s->rank_stride[d];
        sp += s->grid[d] + 1;
    }
    return (int)q;
}

/* Element offset of index c in this rank's buffer of s (its tile, or all of a replicated s). */
static int64_t tile_offset(const struct cpn_store *s, const int64_t *c)
{
    int64_t o = 0;
    for (int d = 0; d < s->ndim; d++) o += (c[d] - s->tlo[d]) * s->tstride[d];
    return o;
}

/* One step of the walk over v's elements in C order: J the view index, c the root index of its
 * element.  Returns false after the last. */
struct walk {
    const struct cpn_view *v;
    const struct cpn_store *r;
    int64_t J[CPN_MAXDIM], c[CPN_MAXDIM], left;
};

static void walk_root_index(struct walk *w)
{
    int64_t f = w->v->off[0];
    for (int i = 0; i < w->v->ndim; i++)
        if (w->v->sdim[i] == 0) f += w->J[i] * w->v->step[i];
    for (int d = w->r->ndim - 1; d >= 0; d--) {
        w->c[d] = f % w->r->shape[d];
        f /= w->r->shape[d];
    }
}

static void walk_start(struct walk *w, const struct cpn_view *v)
{
    w->v = v;
    w->r = cpn_store_root(v->store);
    w->left = cpn_view_size(v);
    memset(w->J, 0, sizeof w->J);
    if (w->left > 0) walk_root_index(w);
}

static bool walk_next(struct walk *w)
{
    if (--w->left <= 0) return false;
    for (int i = w->v->ndim - 1; i >= 0; i--) {
        if (++w->J[i] < w->v->shape[i]) break;
        w->J[i] = 0;
    }
    walk_root_index(w);
    return true;
}

/* For element (J, c): the rank its value comes from and, for a single receiver, the rank it
 * goes to (-1: every rank, a replicated t filled from the owner). */
static void ends(const struct cpn_store *r, const struct cpn_store *t, bool to_t, const struct walk *w,
                 int *from, int *to)
{
    int o = owner_of(r, w->c);
    int h = t->tiled ? owner_of(t, w->J) : -1;
    if (to_t) {
        *from = o;
        *to = h;
    } else {
        *from = h >= 0 ? h : o;   /* a replicated t: the owner holds the value itself */
        *to = o;
    }
}

enum cpn_status cpn_flatroute_exchange(const struct cpn_view *v, struct cpn_store *t, bool to_t)
{
    struct cpn_store *r = cpn_store_root(v->store);
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    const size_t item = cpn_dtype_size(r->dtype);
    if (cpn_view_size(v) == 0) return CPN_OK;
    char *rtile = cpn_store_data(r);
    char *ttile = to_t ? cpn_store_data_for_overwrite(t) : cpn_store_data(t);
    int64_t *cnt = cpn_alloc((size_t)4 * P * sizeof *cnt);
    struct cpn_msg *msgs = cpn_alloc((size_t)2 * P * sizeof *msgs);
    if (!rtile || !ttile || !cnt || !msgs) {
        cpn_free(cnt);
        cpn_free(msgs);
        return CPN_ERR_NOMEM;
    }
    int64_t *scount = cnt, *rcount = cnt + P, *spos = cnt + 2 * P, *rpos = cnt + 3 * P;
    memset(cnt, 0, (size_t)4 * P * sizeof *cnt);
    struct walk w;
    int from, to;
    /* counts per peer */
    walk_start(&w, v);
    do {
        ends(r, t, to_t, &w, &from, &to);
        if (from == me) {
            if (to < 0) {
                for (int q = 0; q < P; q++) scount[q] += q != me;
            } else if (to != me) {
                scount[to]++;
            }
        } else if (to == me || to < 0) {
            rcount[from]++;
        }
    } while (walk_next(&w));
    int64_t stot = 0, rtot = 0;
    for (int q = 0; q < P; q++) {
        spos[q] = stot;
        rpos[q] = rtot;
        stot += scount[q];
        rtot += rcount[q];
    }
    char *sbuf = cpn_alloc((size_t)stot * item + 1), *rbuf = cpn_alloc((size_t)rtot * item + 1);
    enum cpn_status st = sbuf && rbuf ? CPN_OK : CPN_ERR_NOMEM;
    /* pack what leaves, copy what stays */
    walk_start(&w, v);
    do {
        if (st != CPN_OK) break;
        ends(r, t, to_t, &w, &from, &to);
        if (from != me) continue;
        const char *val = to_t ? rtile + tile_offset(r, w.c) * (int64_t)item
                               : ttile + tile_offset(t, w.J) * (int64_t)item;
        if (to == me || to < 0)
            memcpy(to_t ? ttile + tile_offset(t, w.J) * (int64_t)item : rtile + tile_offset(r, w.c) * (int64_t)item,
                   val, item);
        for (int q = 0; q < P; q++)
            if (q != me && (to == q || to < 0)) memcpy(sbuf + (spos[q]++) * (int64_t)item, val, item);
    } while (walk_next(&w));
    int ns = 0, nr = 0;
    for (int q = 0; q < P; q++) {
        if (scount[q]) {
            msgs[ns++] = (struct cpn_msg){q, TAG_ROUTE, sbuf + (spos[q] - scount[q]) * (int64_t)item,
                                          (size_t)scount[q] * item};
        }
    }
    for (int q = 0; q < P; q++) {
        if (rcount[q])
            msgs[P + nr++] = (struct cpn_msg){q, TAG_ROUTE, rbuf + rpos[q] * (int64_t)item, (size_t)rcount[q] * item};
    }
    void *h = NULL;
    enum cpn_status pst = cpn_comm_post(st == CPN_OK ? nr : 0, msgs + P, st == CPN_OK ? ns : 0, msgs, &h);
    enum cpn_status wst = cpn_comm_wait(h);
    if (st == CPN_OK) st = pst != CPN_OK ? pst : wst;
    /* place what arrived, in the same order it was packed */
    if (st == CPN_OK && rtot) {
        walk_start(&w, v);
        do {
            ends(r, t, to_t, &w, &from, &to);
            if (from == me || !(to == me || to < 0)) continue;
            char *dst = to_t ? ttile + tile_offset(t, w.J) * (int64_t)item : rtile + tile_offset(r, w.c) * (int64_t)item;
            memcpy(dst, rbuf + (rpos[from]++) * (int64_t)item, item);
        } while (walk_next(&w));
    }
    cpn_free(sbuf);
    cpn_free(rbuf);
    cpn_free(cnt);
    cpn_free(msgs);
    return st;
}
