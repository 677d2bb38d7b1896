/* distselect.c: median, percentile, quantile (and the nan- variants) of a whole partitioned
 * store (CPN_OPK_QUANTILE over every dimension under distribution), by a distributed selection
 * of the order statistics the results read.
 *
 *   1. each rank copies its tile's non-NaN values and sorts them (the order keys of sort.c; its
 *      first NaN in C order noted);
 *   2. one allgather of each rank's count, key range and first NaN: the lane's length m, and
 *      whether the result is NaN (a NaN without skip_nan; nothing but NaNs with it);
 *   3. the positions the results read (select.c's, from m) are found by bisection over the
 *      order keys: per round every rank counts, by binary search in its sorted part, the values
 *      at or below each candidate key, and the counts are allgathered and added (at most 64
 *      rounds of 8 bytes per position);
 *   4. the element of each found key comes from the first rank holding one, and select.c's
 *      arithmetic gives the results on every rank, each writing its tile of the output.
 * Bytes sent per rank: a few kilobytes whatever the array's size, against the (P - 1) copies of
 * its part that gathering the input sends.  The element read for a key is the lowest rank's: for
 * -0.0 and +0.0 (one key) its sign may be the other zero's where NumPy's partition would leave
 * the other (as the local introselect may).  Collective.
 *
 * Over some dimensions only (median(x, axis=0) and the like), when no tile cuts a lane (the
 * caller, cupynum/_quantile.py, first copies an input whose tiling cuts the reduced dimensions
 * into slabs along a kept one: cpn_mod_lane_slabs), each rank runs select.c's kernel on the lanes
 * of its own tile and the results (nq x its kept box) are allgathered into the output: bytes
 * sent per rank are its part of the result, nothing of the input. */
#include "distselect.h"

#include <math.h>
#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "dist.h"
#include "kernels.h"
#include "partition.h"
#include "store.h"
#include "view.h"

bool cpn_distselect_applies(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_QUANTILE || cpn_partition_ranks() < 2) return false;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    const enum cpn_dtype dt = in->dtype;
    if (!in->store->tiled || !cpn_view_is_whole(in) || dt > CPN_DTYPE_FLOAT64 || cpn_view_size(in) == 0)
        return false;
    for (int d = 0; d < in->ndim; d++)
        if (!(op->axes >> d & 1)) return false;   /* one lane: every dimension reduced */
    if (out->store->tiled && !cpn_view_is_whole(out)) return false;
    return !(op->nin > 1 && op->in[1] && op->in[1]->dtype != CPN_DTYPE_FLOAT64);
}

/* What each rank tells the others first. */
struct head {
    int64_t m;          /* its non-NaN values */
    int64_t nanpos;     /* C index of its first NaN, or -1 */
    double nanval;
    uint64_t kmin, kmax;
};

/* Values of sorted part v[0..n) (item bytes each) whose key is at most t. */
static int64_t count_le(enum cpn_dtype dt, const char *v, int64_t n, size_t item, uint64_t t)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cpn_kernel_sort_key(dt, v + (size_t)mid * item) <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* This rank's tile: its non-NaN values into buf (returned count), its first NaN (C order of the
 * tile, so the lowest C index of the store among the tile's) as a store C index and value. */
static int64_t tile_values(const struct cpn_store *s, const char *data, char *buf, int64_t *nanpos, double *nanval)
{
    const int nd = s->ndim;
    const size_t item = cpn_dtype_size(s->dtype);
    int64_t ext[CPN_MAXDIM], idx[CPN_MAXDIM] = {0}, total = 1, m = 0;
    for (int d = 0; d < nd; d++) {
        ext[d] = s->thi[d] - s->tlo[d];
        if (ext[d] <= 0) return 0;
        total *= ext[d];
    }
    *nanpos = -1;
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0;
        for (int d = 0; d < nd; d++) off += idx[d] * s->tstride[d];
        const char *p = data + off * (int64_t)item;
        double x = s->dtype == CPN_DTYPE_FLOAT16 ? (double)*(const _Float16 *)p
                 : s->dtype == CPN_DTYPE_FLOAT32 ? (double)*(const float *)p
                 : s->dtype == CPN_DTYPE_FLOAT64 ? *(const double *)p : 0.0;
        if (x != x) {
            if (*nanpos < 0) {
                int64_t g = 0;
                for (int d = 0; d < nd; d++) g = g * s->shape[d] + s->tlo[d] + idx[d];
                *nanpos = g;
                *nanval = x;
            }
        } else {
            memcpy(buf + (size_t)m * item, p, item);
            m++;
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < ext[d]) break;
            idx[d] = 0;
        }
    }
    return m;
}

/* Write the results (nq elements of out's dtype, contiguous) into this rank's part of out. */
static enum cpn_status write_out(const struct cpn_view *ov, const char *res)
{
    struct cpn_store *os = ov->store;
    const size_t item = cpn_dtype_size(ov->dtype);
    if (!os->tiled) {
        char *dst = cpn_store_data_for_overwrite(os);
        if (!dst && os->size) return CPN_ERR_NOMEM;
        if (os->size) memcpy(dst, res, (size_t)os->size * item);
        return CPN_OK;
    }
    /* a tiled output walked whole, in order: copy the tile's box (C order) */
    const int nd = os->ndim;
    int64_t ext[CPN_MAXDIM], idx[CPN_MAXDIM] = {0}, total = 1;
    for (int d = 0; d < nd; d++) {
        ext[d] = os->thi[d] - os->tlo[d];
        if (ext[d] <= 0) return CPN_OK;
        total *= ext[d];
    }
    char *dst = cpn_store_data_for_overwrite(os);
    if (!dst) return CPN_ERR_NOMEM;
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0, g = 0;
        for (int d = 0; d < nd; d++) {
            off += idx[d] * os->tstride[d];
            g = g * os->shape[d] + os->tlo[d] + idx[d];
        }
        memcpy(dst + off * (int64_t)item, res + g * (int64_t)item, item);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < ext[d]) break;
            idx[d] = 0;
        }
    }
    return CPN_OK;
}

static void store_nan(enum cpn_dtype odt, char *p, double x)
{
    if (odt == CPN_DTYPE_FLOAT16) *(_Float16 *)p = (_Float16)x;
    else if (odt == CPN_DTYPE_FLOAT32) *(float *)p = (float)x;
    else *(double *)p = x;
}

/* The QUANTILE op's settings (its iparams and output dtype), one quantile until q is read. */
static struct cpn_quantile_args quantile_args(const struct cpn_op *op)
{
    return (struct cpn_quantile_args){
        .method = (enum cpn_quantile_method)op->iparam[0],
        .skip_nan = (op->iparam[1] & CPN_QF_SKIP_NAN) != 0,
        .take = (op->iparam[1] & CPN_QF_TAKE) != 0,
        .weak = (op->iparam[1] & CPN_QF_WEAK) != 0,
        .ma_mean = (op->iparam[1] & CPN_QF_MA_MEAN) != 0,
        .gdt = (enum cpn_dtype)op->iparam[2],
        .cdt = (enum cpn_dtype)op->iparam[3],
        .odt = op->out[0]->dtype,
        .nq = 1,
    };
}

enum cpn_status cpn_distselect_execute(const struct cpn_op *op)
{
    const struct cpn_view *iv = op->in[0], *ov = op->out[0];
    struct cpn_store *is = iv->store;
    const enum cpn_dtype dt = iv->dtype;
    const size_t item = cpn_dtype_size(dt), osz = cpn_dtype_size(ov->dtype);
    const int P = cpn_partition_ranks();
    struct cpn_quantile_args qa = quantile_args(op);
    double *q = NULL;
    if (op->nin > 1 && op->in[1]) {
        qa.nq = cpn_view_size(op->in[1]);
        q = cpn_alloc((size_t)qa.nq * sizeof *q + 8);
        if (!q) return CPN_ERR_NOMEM;
        int64_t qst[CPN_MAXDIM], acc = 8;
        for (int d = op->in[1]->ndim - 1; d >= 0; d--) {
            qst[d] = acc;
            acc *= op->in[1]->shape[d];
        }
        enum cpn_status rs = cpn_dist_read(op->in[1], (char *)q, qst);   /* collective */
        if (rs != CPN_OK) {
            cpn_free(q);
            return rs;
        }
        qa.q = q;
    }
    const int64_t nq = qa.method == CPN_QM_MEDIAN ? 1 : qa.nq;
    int64_t local = 1;
    for (int d = 0; d < is->ndim; d++) local *= is->thi[d] > is->tlo[d] ? is->thi[d] - is->tlo[d] : 0;
    char *buf = cpn_alloc((size_t)local * item + 8), *sorted = cpn_alloc((size_t)local * item + 8);
    struct head *heads = cpn_alloc((size_t)P * sizeof *heads);
    int64_t *ks = cpn_alloc((size_t)(2 * nq + 2) * 3 * sizeof *ks + 8);
    char *res = cpn_alloc((size_t)nq * osz + 8), *val = cpn_alloc((size_t)(2 * nq + 2) * item + 8);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    char *flagged = cpn_alloc((size_t)P * (2 * nq + 2) * (item + 1) + 8);
    /* the bisection's counts and candidates, the records of step 4: at most 2 nq + 2 positions */
    const size_t maxk = (size_t)(2 * nq + 2), rec = item + 1;
    int64_t *cnt = cpn_alloc((size_t)P * maxk * sizeof *cnt + 8), *mine = cpn_alloc(maxk * sizeof *mine + 8);
    uint64_t *mid = cpn_alloc(maxk * sizeof *mid + 8);
    char *own = cpn_alloc(maxk * rec + 8);
    enum cpn_status st = buf && sorted && heads && ks && res && val && counts && flagged && cnt && mine && mid && own
                             ? CPN_OK : CPN_ERR_NOMEM;
    /* 1. this rank's values, sorted */
    struct head me = {0, -1, NAN, UINT64_MAX, 0};
    if (st == CPN_OK && local) {
        const char *data = cpn_store_data(is);
        if (!data) st = CPN_ERR_NOMEM;
        else me.m = tile_values(is, data, buf, &me.nanpos, &me.nanval);
        if (st == CPN_OK && me.m) {
            int64_t sh[1] = {me.m}, stv[1] = {(int64_t)item};
            st = cpn_kernel_sort(dt, false, buf, 1, sh, stv, 0, sorted, stv, 0);
            me.kmin = cpn_kernel_sort_key(dt, sorted);
            me.kmax = cpn_kernel_sort_key(dt, sorted + (size_t)(me.m - 1) * item);
        }
    }
    /* every rank takes part in every exchange below, also one whose part failed: a failed rank
     * reports nothing (m = 0) and its error is returned after */
    if (st != CPN_OK) me = (struct head){0, -1, NAN, UINT64_MAX, 0};
    /* 2. the lane's length, its NaNs */
    for (int r = 0; counts && r < P; r++) counts[r] = sizeof me;
    enum cpn_status xs = counts && heads ? cpn_comm_allgatherv(&me, heads, counts) : CPN_ERR_NOMEM;
    if (st == CPN_OK) st = xs;
    if (xs != CPN_OK || !cnt || !mine || !mid || !own || !res || !val || !flagged) goto done;   /* (OOM: no way on) */
    int64_t m = 0, nanpos = -1;
    double nanval = NAN;
    uint64_t kmin = UINT64_MAX, kmax = 0;
    for (int r = 0; r < P; r++) {
        m += heads[r].m;
        if (heads[r].m && heads[r].kmin < kmin) kmin = heads[r].kmin;
        if (heads[r].m && heads[r].kmax > kmax) kmax = heads[r].kmax;
        if (heads[r].nanpos >= 0 && (nanpos < 0 || heads[r].nanpos < nanpos)) {
            nanpos = heads[r].nanpos;
            nanval = heads[r].nanval;
        }
    }
    if (m == 0 || (nanpos >= 0 && !qa.skip_nan)) {   /* every result NaN (select.c's rule) */
        for (int64_t i = 0; res && i < nq; i++) store_nan(qa.odt, res + (size_t)i * osz, dt >= CPN_DTYPE_FLOAT16 ? nanval : NAN);
        if (st == CPN_OK) st = write_out(ov, res);
        goto done;
    }
    /* 3. the keys of the positions the results read, by bisection */
    const int nk = cpn_kernel_quantile_positions(&qa, m, ks);
    uint64_t *lo = (uint64_t *)(ks + 2 * nq + 2), *hi = lo + 2 * nq + 2;
    for (int j = 0; j < nk; j++) lo[j] = kmin, hi[j] = kmax;
    for (int r = 0; r < P; r++) counts[r] = (size_t)nk * sizeof *mine;
    for (;;) {
        bool open = false;
        for (int j = 0; j < nk; j++) open |= lo[j] < hi[j];
        if (!open) break;
        for (int j = 0; j < nk; j++) {
            mid[j] = lo[j] + (hi[j] - lo[j]) / 2;
            mine[j] = st == CPN_OK ? count_le(dt, sorted, me.m, item, mid[j]) : 0;
        }
        xs = cpn_comm_allgatherv(mine, cnt, counts);
        if (xs != CPN_OK) {
            if (st == CPN_OK) st = xs;
            break;
        }
        for (int j = 0; j < nk; j++) {
            int64_t c = 0;
            for (int r = 0; r < P; r++) c += cnt[(size_t)r * nk + j];
            if (c > ks[j]) hi[j] = mid[j];
            else lo[j] = mid[j] + 1;
        }
    }
    /* 4. each key's element from the first rank holding one */
    for (int j = 0; j < nk; j++) {
        char *o = own + (size_t)j * rec;
        memset(o, 0, rec);
        if (st != CPN_OK || !me.m) continue;
        const int64_t at = lo[j] ? count_le(dt, sorted, me.m, item, lo[j] - 1) : 0;   /* first of the key */
        if (at < me.m && cpn_kernel_sort_key(dt, sorted + (size_t)at * item) == lo[j]) {
            o[0] = 1;
            memcpy(o + 1, sorted + (size_t)at * item, item);
        }
    }
    for (int r = 0; r < P; r++) counts[r] = (size_t)nk * rec;
    xs = cpn_comm_allgatherv(own, flagged, counts);
    if (st == CPN_OK) st = xs;
    for (int j = 0; st == CPN_OK && j < nk; j++) {
        int r = 0;
        while (r < P && !flagged[((size_t)r * nk + j) * rec]) r++;
        CPN_ASSERT(r < P);
        memcpy(val + (size_t)j * item, flagged + ((size_t)r * nk + j) * rec + 1, item);
    }
    if (st == CPN_OK) {
        cpn_kernel_quantile_finish(&qa, dt, m, ks, nk, val, res);
        st = write_out(ov, res);
    }
done:
    cpn_free(own);
    cpn_free(cnt);
    cpn_free(mine);
    cpn_free(mid);
    cpn_free(q);
    cpn_free(buf);
    cpn_free(sorted);
    cpn_free(heads);
    cpn_free(ks);
    cpn_free(res);
    cpn_free(val);
    cpn_free(counts);
    cpn_free(flagged);
    return st;
}

/* ---- lanes whole on every rank --------------------------------------------------------------- */

bool cpn_distselect_lanes_applies(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_QUANTILE || cpn_partition_ranks() < 2) return false;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    const struct cpn_store *s = in->store;
    if (!s->tiled || !cpn_view_is_whole(in) || in->dtype > CPN_DTYPE_FLOAT64) return false;
    if (out->store->tiled && !cpn_dist_reduce_local(in, op->axes, out, op->nin > 1 && op->in[1])) return false;
    if (op->nin > 1 && op->in[1] && op->in[1]->dtype != CPN_DTYPE_FLOAT64) return false;
    const int P = cpn_partition_ranks();
    for (int r = 0; r < P; r++) {
        int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
        cpn_store_tile_box(s, r, lo, hi);
        bool empty = false;
        for (int d = 0; d < s->ndim; d++) empty |= hi[d] <= lo[d];
        for (int d = 0; !empty && d < s->ndim; d++)
            if (op->axes >> d & 1 && (lo[d] != 0 || hi[d] != s->shape[d])) return false;
    }
    return true;
}

/* Copy `part`, C-ordered of shape (nq, ext...), into the C-ordered result `res` of shape
 * (nq, shape...) at offset lo on the nk kept dimensions. */
static void place_box(char *res, const char *part, size_t item, int64_t nq, int nk, const int64_t *shape,
                      const int64_t *lo, const int64_t *ext)
{
    const int64_t row = nk ? ext[nk - 1] : 1;
    int64_t rows = nq;
    for (int d = 0; d < nk - 1; d++) rows *= ext[d];
    for (int64_t o = 0; o < rows; o++) {
        int64_t c[CPN_MAXDIM], rem = o;
        for (int d = nk - 2; d >= 0; d--) {
            c[d] = rem % ext[d];
            rem /= ext[d];
        }
        int64_t g = rem;   /* the quantile */
        for (int d = 0; d < nk; d++) g = g * shape[d] + lo[d] + (d < nk - 1 ? c[d] : 0);
        memcpy(res + (size_t)g * item, part + (size_t)(o * row) * item, (size_t)row * item);
    }
}

enum cpn_status cpn_distselect_lanes_execute(const struct cpn_op *op)
{
    const struct cpn_view *iv = op->in[0], *ov = op->out[0];
    struct cpn_store *is = iv->store;
    const int P = cpn_partition_ranks(), nd = is->ndim;
    const size_t item = cpn_dtype_size(iv->dtype), osz = cpn_dtype_size(ov->dtype);
    struct cpn_quantile_args qa = quantile_args(op);
    double *q = NULL;
    enum cpn_status st = CPN_OK;
    if (op->nin > 1 && op->in[1]) {
        qa.nq = cpn_view_size(op->in[1]);
        q = cpn_alloc((size_t)qa.nq * sizeof *q + 8);
        if (!q) return CPN_ERR_NOMEM;
        const int64_t qst[1] = {8};
        st = cpn_dist_read(op->in[1], (char *)q, qst);   /* collective; q is 1-D */
        if (st != CPN_OK) {
            cpn_free(q);
            return st;
        }
        qa.q = q;
    }
    const int64_t nq = qa.method == CPN_QM_MEDIAN ? 1 : qa.nq;
    /* the kept dimensions: the result's shape after nq, and each rank's box of them */
    int nk = 0;
    int64_t kshape[CPN_MAXDIM], total = nq;
    for (int d = 0; d < nd; d++)
        if (!(op->axes >> d & 1)) total *= kshape[nk++] = is->shape[d];
    int64_t *boxes = cpn_alloc((size_t)P * 2 * CPN_MAXDIM * sizeof *boxes);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    /* a replicated result is assembled whole on every rank; a tiled one is each rank's lanes */
    const bool tiled = ov->store->tiled;
    char *res = tiled ? NULL : cpn_alloc((size_t)total * osz + 8), *all = tiled ? NULL : cpn_alloc((size_t)total * osz + 8);
    if (!boxes || !counts || (!tiled && (!res || !all))) st = CPN_ERR_NOMEM;
    for (int r = 0; st == CPN_OK && r < P; r++) {
        int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM], n = nq;
        cpn_store_tile_box(is, r, lo, hi);
        int64_t *blo = boxes + (size_t)r * 2 * CPN_MAXDIM, *bext = blo + CPN_MAXDIM;
        for (int d = 0, k = 0; d < nd; d++) {
            const int64_t e = hi[d] > lo[d] ? hi[d] - lo[d] : 0;
            if (op->axes >> d & 1) {
                if (e == 0) n = 0;
                continue;
            }
            blo[k] = lo[d];
            bext[k] = e;
            n *= e;
            k++;
        }
        if (n == 0)
            for (int k = 0; k < nk; k++) bext[k] = 0;
        counts[r] = (size_t)n * osz;
    }
    /* this rank's lanes, by select.c's kernel over its tile */
    char *mine = NULL;
    const int me = cpn_partition_rank();
    if (st == CPN_OK && counts[me]) {
        int64_t shape[CPN_MAXDIM], strides[CPN_MAXDIM];
        for (int d = 0; d < nd; d++) {
            shape[d] = is->thi[d] - is->tlo[d];
            strides[d] = is->tstride[d] * (int64_t)item;
        }
        const char *data = cpn_store_data(is);
        mine = cpn_alloc(counts[me] + 8);
        st = data && mine ? cpn_kernel_quantile(&qa, iv->dtype, data, nd, shape, strides, op->axes, mine)
                          : CPN_ERR_NOMEM;
    }
    if (tiled) {
        /* the result tiled like the kept rows (cpn_dist_reduce_local): this rank's lanes are its
         * tile, C-ordered (nq, ext...) as the tile buffer is; nothing moves */
        char *dst = st == CPN_OK && counts[me] ? cpn_store_data_for_overwrite(ov->store) : NULL;
        if (st == CPN_OK && counts[me] && !dst) st = CPN_ERR_NOMEM;
        if (dst) memcpy(dst, mine, counts[me]);
    } else if (counts && all) {
        /* every rank takes part in the exchange, also one whose part failed (it sends garbage of
         * the agreed size and returns its error after) */
        char *send = mine;
        if (!send && counts[me]) send = cpn_alloc(counts[me] + 8);
        enum cpn_status xs = send || !counts[me] ? cpn_comm_allgatherv(send ? send : "", all, counts)
                                                 : CPN_ERR_NOMEM;
        if (send != mine) cpn_free(send);
        if (st == CPN_OK) st = xs;
    }
    if (st == CPN_OK && !tiled) {
        size_t at = 0;
        for (int r = 0; r < P; r++) {
            const int64_t *blo = boxes + (size_t)r * 2 * CPN_MAXDIM, *bext = blo + CPN_MAXDIM;
            if (counts[r]) place_box(res, all + at, osz, nq, nk, kshape, blo, bext);
            at += counts[r];
        }
        st = write_out(ov, res);
    }
    cpn_free(mine);
    cpn_free(q);
    cpn_free(boxes);
    cpn_free(counts);
    cpn_free(res);
    cpn_free(all);
    return st;
}
