/* samplesort.c: numpy.sort / numpy.argsort of tiled stores (CPN_OPK_SORT under distribution).
 *
 * Along an axis that no tiling splits, every rank sorts the lanes of its own tile: no message.
 * Along the partitioned axis of a 1-D store (real or complex) the sort is a parallel sample sort with regular
 * sampling:
 *   1. each rank sorts its tile (values; for argsort (key, global index) pairs);
 *   2. each rank takes P evenly spaced samples of its sorted part, every rank gathers all of
 *      them (allgatherv), sorts them and takes the P - 1 splitters at ranks S/P, 2S/P, ...;
 *   3. every element goes to the rank of its bucket (one all-to-all of point-to-point
 *      messages, after an allgather of the P x P counts), each rank merges the P sorted runs it
 *      received (pairwise, in rounds);
 *   4. the result is rebalanced to the output's tiling (each rank's run of the global order is
 *      cut at the output's split points; only pieces landing on another rank move).
 * Elements are ordered by a total order refining NumPy's: (key, position), where an argsort's
 * position is the element's global index (so ties keep index order and the result is the stable
 * argsort on any rank count) and a value sort's is the position in its rank's sorted part (ties
 * are equal values, so any consistent tie-break gives NumPy's values; it keeps buckets balanced
 * when many values are equal).  Complex values are ordered by three words (ckey: NumPy's NaN
 * class, the real part's key, the imaginary part's), their argsort records carrying the value
 * (struct crec: 24 bytes).  Bytes sent per rank: at most its part in step 3 and its bucket in
 * step 4, plus P samples and P counts.  Collective. */
#include "samplesort.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "dist.h"
#include "kernels.h"
#include "partition.h"
#include "stats.h"
#include "store.h"
#include "view.h"

enum { TAG_BUCKET = 16, TAG_BALANCE = 17, TAG_RUNS = 18, TAG_INVERSE = 19, TAG_SEARCH = 20, TAG_ANSWER = 21 };

static bool same_tiling(const struct cpn_store *a, const struct cpn_store *b, int P)
{
    for (int r = 0; r < P; r++) {
        int64_t alo[CPN_MAXDIM], ahi[CPN_MAXDIM], blo[CPN_MAXDIM], bhi[CPN_MAXDIM];
        cpn_store_tile_box(a, r, alo, ahi);
        cpn_store_tile_box(b, r, blo, bhi);
        for (int d = 0; d < a->ndim; d++)
            if (alo[d] != blo[d] || ahi[d] != bhi[d]) return false;
    }
    return true;
}

static bool axis_whole(const struct cpn_store *s, int axis, int P)
{
    for (int r = 0; r < P; r++) {
        int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
        cpn_store_tile_box(s, r, lo, hi);
        bool empty = false;
        for (int d = 0; d < s->ndim; d++) empty |= hi[d] <= lo[d];
        if (!empty && (lo[axis] != 0 || hi[axis] != s->shape[axis])) return false;
    }
    return true;
}

bool cpn_samplesort_lanes_local(const struct cpn_view *const *v, int n, int axis)
{
    const int P = cpn_partition_ranks();
    int tiled = 0;
    for (int i = 0; i < n; i++) tiled += cpn_store_root(v[i]->store)->tiled;
    if (P == 1 || tiled == 0) return true;
    if (tiled < n) return false;
    for (int i = 0; i < n; i++)
        if (!cpn_view_is_whole(v[i]) || !same_tiling(v[0]->store, v[i]->store, P)) return false;
    return axis_whole(v[0]->store, axis, P);
}

/* Sort the lanes of this rank's tile (a lexsort step: through the tile of ps, tiled alike). */
static enum cpn_status sort_tiles(const struct cpn_op *op, struct cpn_store *is, struct cpn_store *ps,
                                  struct cpn_store *os)
{
    const int n = is->ndim;
    int64_t shape[CPN_MAXDIM], ist[CPN_MAXDIM], pst[CPN_MAXDIM], ost[CPN_MAXDIM];
    for (int d = 0; d < n; d++) {
        shape[d] = is->thi[d] - is->tlo[d];
        if (shape[d] <= 0) return CPN_OK;
        ist[d] = is->tstride[d] * (int64_t)cpn_dtype_size(is->dtype);
        pst[d] = ps ? ps->tstride[d] * (int64_t)sizeof(int64_t) : 0;
        ost[d] = os->tstride[d] * (int64_t)cpn_dtype_size(os->dtype);
    }
    const char *in = cpn_store_data(is), *perm = ps ? cpn_store_data(ps) : NULL;
    char *out = cpn_store_data_for_overwrite(os);
    if (!in || !out || (ps && !perm)) return CPN_ERR_NOMEM;
    if (ps) return cpn_kernel_sort_through(is->dtype, in, n, shape, ist, perm, pst, (int)op->iparam[0], out, ost);
    return cpn_kernel_sort(is->dtype, (op->iparam[1] & CPN_SORT_ARG) != 0, in, n, shape, ist,
                           (int)op->iparam[0], out, ost, 0);
}

/* The sample sort's state on this rank. */
struct ss {
    enum cpn_dtype dt;
    bool arg;
    bool cplx;          /* complex: records ordered by ckey (three words) */
    size_t rs;          /* bytes per record: the element (sort), a struct cpn_sort_pair (argsort),
                         * a struct crec (complex argsort) */
    int64_t lo;         /* global index of this rank's first element */
};

/* A complex argsort's record: the global index and the value (complex64 parts widened). */
struct crec {
    uint64_t idx;
    double re, im;
};

/* A position in the total order: the order key (real dtypes: k[2] only) and the position. */
struct skey {
    uint64_t k[3];
    uint64_t pos;
};

/* NumPy's complex order as three words: the NaN class (R + Rj, R + nanj, nan + Rj, nan + nanj),
 * then the real part's key, then the imaginary part's (a NaN part's key 0, sort.c's canonical
 * keys: -0.0 and +0.0 one key), so records with equal keys are equal values, NaNs aside. */
static void ckey(double re, double im, uint64_t *k)
{
    const bool nr = re != re, ni = im != im;
    k[0] = (uint64_t)(2 * nr + ni);
    k[1] = nr ? 0 : cpn_kernel_sort_key(CPN_DTYPE_FLOAT64, &re);
    k[2] = ni ? 0 : cpn_kernel_sort_key(CPN_DTYPE_FLOAT64, &im);
}

static void cparts(enum cpn_dtype dt, const char *p, double *re, double *im)
{
    if (dt == CPN_DTYPE_COMPLEX64) {
        *re = ((const float *)p)[0];
        *im = ((const float *)p)[1];
    } else {
        *re = ((const double *)p)[0];
        *im = ((const double *)p)[1];
    }
}

/* Record i of a sorted part as its (key, position) in the total order. */
static struct skey composite(const struct ss *S, const char *rec, int64_t i)
{
    struct skey s = {{0, 0, 0}, (uint64_t)(S->lo + i)};
    if (S->cplx) {
        double re, im;
        if (S->arg) {
            const struct crec *c = (const struct crec *)rec + i;
            re = c->re;
            im = c->im;
            s.pos = c->idx;
        } else {
            cparts(S->dt, rec + (size_t)i * S->rs, &re, &im);
        }
        ckey(re, im, s.k);
        return s;
    }
    if (S->arg) {
        const struct cpn_sort_pair p = ((const struct cpn_sort_pair *)rec)[i];
        s.k[2] = p.key;
        s.pos = p.idx;
        return s;
    }
    s.k[2] = cpn_kernel_sort_key(S->dt, rec + (size_t)i * S->rs);
    return s;
}

static int key_cmp(const uint64_t *a, const uint64_t *b)
{
    for (int w = 0; w < 3; w++)
        if (a[w] != b[w]) return a[w] < b[w] ? -1 : 1;
    return 0;
}

static bool pair_lt(struct cpn_sort_pair a, struct cpn_sort_pair b)
{
    return a.key < b.key || (a.key == b.key && a.idx < b.idx);
}

static bool skey_lt(struct skey a, struct skey b)
{
    int c = key_cmp(a.k, b.k);
    return c < 0 || (c == 0 && a.pos < b.pos);
}

static int skey_qcmp(const void *a, const void *b)
{
    const struct skey *x = a, *y = b;
    return skey_lt(*x, *y) ? -1 : skey_lt(*y, *x) ? 1 : 0;
}

/* The first record of rec[0..n) not below `s`. */
static int64_t lower_bound(const struct ss *S, const char *rec, int64_t n, struct skey s)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (skey_lt(composite(S, rec, mid), s)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The order key a value sort's parts are in (sort.c's: -0.0 below +0.0, NaNs last). */
static inline uint64_t value_key(enum cpn_dtype dt, bool flt, const char *p)
{
    if (!flt) return cpn_kernel_sort_key(dt, p);
    double d = dt == CPN_DTYPE_FLOAT16 ? (double)*(const _Float16 *)p
             : dt == CPN_DTYPE_FLOAT32 ? (double)*(const float *)p : *(const double *)p;
    if (d != d) return UINT64_MAX;
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b ^ ((uint64_t)((int64_t)b >> 63) | ((uint64_t)1 << 63));
}

/* Stable merge of records a[0..na) and b[0..nb) (each sorted) into dst. */
static void merge_two(const struct ss *S, const char *a, int64_t na, const char *b, int64_t nb, char *dst)
{
    const size_t rs = S->rs;
    int64_t i = 0, j = 0;
    if (S->cplx) {   /* by key alone, a's record first among equals (stable) */
        while (i < na && j < nb) {
            const struct skey ka = composite(S, a, i), kb = composite(S, b, j);
            const bool take_b = key_cmp(kb.k, ka.k) < 0;
            memcpy(dst, take_b ? b + (size_t)j++ * rs : a + (size_t)i++ * rs, rs);
            dst += rs;
        }
        memcpy(dst, a + (size_t)i * rs, (size_t)(na - i) * rs);
        memcpy(dst + (size_t)(na - i) * rs, b + (size_t)j * rs, (size_t)(nb - j) * rs);
        return;
    }
    if (S->arg) {
        const struct cpn_sort_pair *x = (const void *)a, *y = (const void *)b;
        struct cpn_sort_pair *o = (void *)dst;
        while (i < na && j < nb) *o++ = pair_lt(y[j], x[i]) ? y[j++] : x[i++];
        memcpy(o, x + i, (size_t)(na - i) * rs);
        memcpy(o + (na - i), y + j, (size_t)(nb - j) * rs);
        return;
    }
    const bool flt = cpn_dtype_class(S->dt) == CPN_CLASS_FLOAT;
    if (na && nb) {
        uint64_t ka = value_key(S->dt, flt, a), kb = value_key(S->dt, flt, b);
        for (;;) {
            if (kb < ka) {
                memcpy(dst, b + (size_t)j * rs, rs);
                dst += rs;
                if (++j == nb) break;
                kb = value_key(S->dt, flt, b + (size_t)j * rs);
            } else {
                memcpy(dst, a + (size_t)i * rs, rs);
                dst += rs;
                if (++i == na) break;
                ka = value_key(S->dt, flt, a + (size_t)i * rs);
            }
        }
    }
    memcpy(dst, a + (size_t)i * rs, (size_t)(na - i) * rs);
    memcpy(dst + (size_t)(na - i) * rs, b + (size_t)j * rs, (size_t)(nb - j) * rs);
}

/* The P sorted runs received (run q: len[q] records, back to back in buf) merged pairwise, in
 * rounds, ping-ponging between buf and tmp; returns the buffer holding the result.  Step 3's
 * order: what a sort of the received records gives (runs from lower ranks first among equals,
 * and a run's own order kept). */
static char *merge_runs(const struct ss *S, char *buf, char *tmp, const int64_t *len, int P)
{
    int64_t off[65];
    int nr = 0;
    off[0] = 0;
    for (int q = 0; q < P; q++)
        if (len[q]) {
            off[nr + 1] = off[nr] + len[q];
            nr++;
        }
    char *src = buf, *dst = tmp;
    while (nr > 1) {
        int k = 0;
        for (int r = 0; r < nr; r += 2) {
            if (r + 1 < nr) merge_two(S, src + (size_t)off[r] * S->rs, off[r + 1] - off[r],
                                      src + (size_t)off[r + 1] * S->rs, off[r + 2] - off[r + 1],
                                      dst + (size_t)off[r] * S->rs);
            else memcpy(dst + (size_t)off[r] * S->rs, src + (size_t)off[r] * S->rs,
                        (size_t)(off[r + 1] - off[r]) * S->rs);
            off[k + 1] = off[r + 2 < nr + 1 ? r + 2 : nr];
            k++;
        }
        nr = k;
        char *t = src;
        src = dst;
        dst = t;
    }
    return src;
}

static enum cpn_status sample_sort(const struct cpn_op *op, struct cpn_store *is, struct cpn_store *os)
{
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    struct ss S = {.dt = is->dtype, .arg = (op->iparam[1] & CPN_SORT_ARG) != 0,
                   .cplx = cpn_dtype_class(is->dtype) == CPN_CLASS_COMPLEX};
    const size_t item = cpn_dtype_size(S.dt);
    S.rs = !S.arg ? item : S.cplx ? sizeof(struct crec) : sizeof(struct cpn_sort_pair);
    int64_t lo, hi, olo, ohi;
    cpn_store_tile_box(is, me, &lo, &hi);
    cpn_store_tile_box(os, me, &olo, &ohi);
    S.lo = lo;
    const int64_t n = hi > lo ? hi - lo : 0;
    enum cpn_status st = CPN_OK;
    char *rec = NULL, *recv = NULL, *fin = NULL;
    struct skey *samples = NULL, *all = NULL;
    int64_t *bound = NULL, *cnt = NULL, *mine = NULL;
    size_t *counts = NULL;
    const char *in = n ? cpn_store_data(is) : NULL;
    char *out = cpn_store_data_for_overwrite(os);
    rec = cpn_alloc((size_t)n * S.rs + 1);
    samples = cpn_alloc((size_t)P * sizeof *samples);
    all = cpn_alloc((size_t)P * (size_t)P * sizeof *all + 1);
    counts = cpn_alloc((size_t)P * sizeof *counts);
    bound = cpn_alloc((size_t)(P + 1) * sizeof *bound);
    cnt = cpn_alloc((size_t)P * (size_t)P * sizeof *cnt);
    mine = cpn_alloc((size_t)P * 4 * sizeof *mine);
    if ((n && !in) || !out || !rec || !samples || !all || !counts || !bound || !cnt || !mine) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    /* 1. this rank's part, sorted */
    if (S.arg && S.cplx) {   /* the local stable argsort (sort.c: NumPy's order), as records */
        int64_t *perm = cpn_alloc((size_t)n * sizeof *perm + 1), bst = (int64_t)item, pst = sizeof *perm;
        if (!perm) {
            st = CPN_ERR_NOMEM;
            goto done;
        }
        st = n ? cpn_kernel_sort(S.dt, true, in, 1, &n, &bst, 0, (char *)perm, &pst, 0) : CPN_OK;
        struct crec *c = (struct crec *)rec;
        for (int64_t i = 0; st == CPN_OK && i < n; i++) {
            c[i].idx = (uint64_t)(lo + perm[i]);
            cparts(S.dt, in + (size_t)perm[i] * item, &c[i].re, &c[i].im);
        }
        cpn_free(perm);
    } else if (S.arg) {
        struct cpn_sort_pair *p = (struct cpn_sort_pair *)rec;
        for (int64_t i = 0; i < n; i++)
            p[i] = (struct cpn_sort_pair){(uint64_t)(lo + i), cpn_kernel_sort_key(S.dt, in + (size_t)i * item)};
        st = cpn_kernel_sort_pairs(p, n);
    } else if (n) {
        int64_t bst = (int64_t)item;
        st = cpn_kernel_sort(S.dt, false, in, 1, &n, &bst, 0, rec, &bst, 0);
    }
    if (st != CPN_OK) goto done;
    /* 2. samples and splitters */
    int64_t ns_me = n < P ? n : P, total = 0;
    for (int64_t j = 0; j < ns_me; j++) samples[j] = composite(&S, rec, (2 * j + 1) * n / (2 * ns_me));
    for (int r = 0; r < P; r++) {
        int64_t rlo, rhi;
        cpn_store_tile_box(is, r, &rlo, &rhi);
        int64_t nr = rhi > rlo ? rhi - rlo : 0;
        counts[r] = (size_t)(nr < P ? nr : P) * sizeof *samples;
        total += nr < P ? nr : P;
    }
    st = cpn_comm_allgatherv(samples, all, counts);
    if (st != CPN_OK) goto done;
    qsort(all, (size_t)total, sizeof *all, skey_qcmp);   /* P x P at most */
    bound[0] = 0;
    bound[P] = n;
    for (int b = 1; b < P; b++) {
        int64_t k = b * total / P;
        bound[b] = k < total ? lower_bound(&S, rec, n, all[k]) : n;
        if (bound[b] < bound[b - 1]) bound[b] = bound[b - 1];
    }
    /* 3. the buckets to their ranks */
    for (int b = 0; b < P; b++) mine[b] = bound[b + 1] - bound[b];
    for (int r = 0; r < P; r++) counts[r] = (size_t)P * sizeof *cnt;
    st = cpn_comm_allgatherv(mine, cnt, counts);   /* cnt[q * P + b]: q sends b */
    if (st != CPN_OK) goto done;
    int64_t *soff = mine + P, *sbytes = mine + 2 * P, *rbytes = mine + 3 * P;
    int64_t m = 0, roff_acc = 0;
    int64_t *roff = cpn_alloc((size_t)P * sizeof *roff);
    if (!roff) { st = CPN_ERR_NOMEM; goto done; }
    for (int b = 0; b < P; b++) {
        soff[b] = bound[b] * (int64_t)S.rs;
        sbytes[b] = (bound[b + 1] - bound[b]) * (int64_t)S.rs;
    }
    for (int q = 0; q < P; q++) {
        rbytes[q] = cnt[(int64_t)q * P + me] * (int64_t)S.rs;
        roff[q] = roff_acc;
        roff_acc += rbytes[q];
        m += cnt[(int64_t)q * P + me];
    }
    recv = cpn_alloc((size_t)roff_acc + 1);
    if (!recv) { cpn_free(roff); st = CPN_ERR_NOMEM; goto done; }
    st = cpn_comm_alltoallv(TAG_BUCKET, rec, soff, sbytes, recv, roff, rbytes);
    cpn_free(roff);
    if (st != CPN_OK) goto done;
    cpn_free(rec);
    rec = NULL;
    /* ... merged here (the P runs are each sorted); an argsort keeps only the indices */
    const size_t fs = S.arg ? sizeof(int64_t) : item;
    if (P <= 64) {
        int64_t *len = cpn_alloc((size_t)P * sizeof *len);
        fin = cpn_alloc((size_t)m * S.rs + 1);
        if (!len || !fin) { cpn_free(len); st = CPN_ERR_NOMEM; goto done; }
        for (int q = 0; q < P; q++) len[q] = cnt[(int64_t)q * P + me];
        char *res = merge_runs(&S, recv, fin, len, P);
        cpn_free(len);
        if (res != fin) {   /* the result in recv: swap, fin is what step 4 sends */
            char *t = fin;
            fin = recv;
            recv = t;
        }
        if (S.arg && S.cplx) {   /* in place, as below, over 24-byte records */
            const struct crec *c = (const struct crec *)fin;
            for (int64_t i = 0; i < m; i++) ((int64_t *)fin)[i] = (int64_t)c[i].idx;
        } else if (S.arg) {   /* in place: 8-byte indices over 16-byte pairs, front to back */
            const struct cpn_sort_pair *p = (const struct cpn_sort_pair *)fin;
            for (int64_t i = 0; i < m; i++) ((int64_t *)fin)[i] = (int64_t)p[i].idx;
        }
    } else {
        fin = cpn_alloc((size_t)m * fs + 1);
        if (!fin) { st = CPN_ERR_NOMEM; goto done; }
        if (S.arg) {
            struct cpn_sort_pair *p = (struct cpn_sort_pair *)recv;
            st = cpn_kernel_sort_pairs(p, m);
            for (int64_t i = 0; st == CPN_OK && i < m; i++) ((int64_t *)fin)[i] = (int64_t)p[i].idx;
        } else if (m) {
            int64_t bst = (int64_t)item;
            st = cpn_kernel_sort(S.dt, false, recv, 1, &m, &bst, 0, fin, &bst, 0);
        }
    }
    if (st != CPN_OK) goto done;
    /* 4. rebalance: this rank holds [start, start + m) of the global order */
    int64_t start = 0, gs = 0;
    for (int r = 0; r < P; r++) {
        int64_t mr = 0;
        for (int q = 0; q < P; q++) mr += cnt[(int64_t)q * P + r];
        int64_t tlo, thi;
        cpn_store_tile_box(os, r, &tlo, &thi);
        if (r == me) start = gs;
        /* what rank r holds that lands in my tile: recorded now, sent/received below */
        int64_t a = gs > olo ? gs : olo, z = gs + mr < ohi ? gs + mr : ohi;
        rbytes[r] = z > a ? (z - a) * (int64_t)fs : 0;
        soff[r] = z > a ? (a - olo) * (int64_t)fs : 0;   /* receive offset in my tile */
        gs += mr;
    }
    int64_t *toff = cpn_alloc((size_t)P * 2 * sizeof *toff);
    if (!toff) { st = CPN_ERR_NOMEM; goto done; }
    for (int t = 0; t < P; t++) {
        int64_t tlo, thi;
        cpn_store_tile_box(os, t, &tlo, &thi);
        int64_t a = start > tlo ? start : tlo, z = start + m < thi ? start + m : thi;
        toff[t] = z > a ? (a - start) * (int64_t)fs : 0;
        toff[P + t] = z > a ? (z - a) * (int64_t)fs : 0;
    }
    st = cpn_comm_alltoallv(TAG_BALANCE, fin, toff, toff + P, out, soff, rbytes);
    cpn_free(toff);
done:
    cpn_free(rec);
    cpn_free(recv);
    cpn_free(fin);
    cpn_free(samples);
    cpn_free(all);
    cpn_free(counts);
    cpn_free(bound);
    cpn_free(cnt);
    cpn_free(mine);
    return st;
}

enum cpn_status cpn_samplesort_execute(const struct cpn_op *op)
{
    const struct cpn_view *iv = op->in[0], *ov = op->out[0];
    const struct cpn_view *pv = op->nin > 1 ? op->in[1] : NULL;
    const int P = cpn_partition_ranks();
    struct cpn_store *is = iv->store, *os = ov->store, *ps = pv ? pv->store : NULL;
    if (!cpn_view_is_whole(iv) || !cpn_view_is_whole(ov) || !is->tiled || !os->tiled || !same_tiling(is, os, P))
        return CPN_ERR_UNSUPPORTED;
    const int axis = (int)op->iparam[0];
    if (pv) {   /* a lexsort step: lanes whole on every rank, the permutation tiled alike */
        if (!cpn_view_is_whole(pv) || !ps->tiled || !same_tiling(is, ps, P) || !axis_whole(is, axis, P))
            return CPN_ERR_UNSUPPORTED;
        cpn_stats.sorts_dist++;
        return sort_tiles(op, is, ps, os);
    }
    const bool whole = axis_whole(is, axis, P);
    /* a split lane: a 1-D store (complex runs merged pairwise: at most 64 ranks) */
    if (!whole && (is->ndim != 1 || (cpn_dtype_class(is->dtype) == CPN_CLASS_COMPLEX && P > 64)))
        return CPN_ERR_UNSUPPORTED;
    cpn_stats.sorts_dist++;
    return whole ? sort_tiles(op, is, NULL, os) : sample_sort(op, is, os);
}

/* ---- searchsorted of a partitioned sorted array ------------------------------------------------
 *
 * a is sorted and each rank's tile is one contiguous run of it, so the number of elements of a
 * below v (left; not above v, right) is the sum over the ranks of that number in each tile: each
 * rank searches its own tile for every value of v (v is read on every rank: small next to a),
 * the per-rank positions are gathered (8 bytes per value per rank) and added in rank order.
 * isin's `found` form: a value is found when some tile holds it.  a itself never moves.  When a
 * is the smaller (or replicated) and v and the output are tiled alike, a is read instead
 * (search_own_values). */
/* The sorted array small next to the values (histogram edges, isin's test elements): a is read
 * on every rank and each rank searches its own tile of v into its tile of the output, tiled
 * alike.  Nothing but a moves. */
static enum cpn_status search_own_values(const struct cpn_op *op)
{
    const struct cpn_view *av = op->in[0], *vv = op->in[1], *ov = op->out[0];
    struct cpn_store *vs = vv->store, *os = ov->store;
    const bool right = op->iparam[0] != 0, found = op->iparam[1] != 0;
    const int64_t n = av->shape[0];
    const size_t item = cpn_dtype_size(av->dtype);
    const int64_t mloc = vs->thi[0] > vs->tlo[0] ? vs->thi[0] - vs->tlo[0] : 0;
    char *sorted = cpn_alloc((size_t)n * item + 1);
    if (!sorted) return CPN_ERR_NOMEM;
    const int64_t ast = (int64_t)item;
    enum cpn_status st = cpn_dist_read(av, sorted, &ast);
    const char *vals = st == CPN_OK && mloc ? cpn_store_data(vs) : NULL;
    char *dst = st == CPN_OK && mloc ? cpn_store_data_for_overwrite(os) : NULL;
    if (st == CPN_OK && mloc && (!vals || !dst)) st = CPN_ERR_NOMEM;
    if (st == CPN_OK && mloc)
        st = cpn_kernel_searchsorted(av->dtype, sorted, (int64_t)item, NULL, 0, n, vals, (int64_t)item,
                                     mloc, dst, found ? 1 : 8, right, found);
    cpn_free(sorted);
    return st;
}

/* Both large and partitioned (isin of two big arrays): each value goes to the one rank whose tile
 * decides it -- the first non-empty tile whose last key is not below it (left, found; right:
 * above it): every tile before holds only smaller keys, every tile after only keys not below it
 * -- which searches it and sends back its position (plus the lengths of the tiles before) or
 * whether it holds it.  A value above every tile needs no message (n; not found).  Bytes sent per
 * rank: its values and their answers, plus P tile bounds and P x P counts. */
struct tile_bound {
    int64_t n;
    uint64_t last;
};

static enum cpn_status search_routed(const struct cpn_op *op)
{
    const struct cpn_view *av = op->in[0], *vv = op->in[1], *ov = op->out[0];
    struct cpn_store *as = av->store, *vs = vv->store, *os = ov->store;
    const bool right = op->iparam[0] != 0, found = op->iparam[1] != 0;
    const enum cpn_dtype dt = av->dtype;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    const size_t item = cpn_dtype_size(dt), ob = found ? 1 : 8;
    const int64_t nloc = as->thi[0] > as->tlo[0] ? as->thi[0] - as->tlo[0] : 0;
    const int64_t mloc = vs->thi[0] > vs->tlo[0] ? vs->thi[0] - vs->tlo[0] : 0;
    const char *tile = nloc ? cpn_store_data(as) : NULL, *vals = mloc ? cpn_store_data(vs) : NULL;
    char *dst = mloc ? cpn_store_data_for_overwrite(os) : NULL;
    struct tile_bound mine = {.n = nloc}, *all = cpn_alloc((size_t)P * sizeof *all);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    int64_t *w = cpn_alloc((size_t)(9 * P) * sizeof *w), *cnt = cpn_alloc((size_t)P * (size_t)P * sizeof *cnt);
    int *dest = cpn_alloc((size_t)mloc * sizeof *dest + 1);
    int64_t *order = cpn_alloc((size_t)mloc * 8 + 8);
    char *sv = cpn_alloc((size_t)mloc * item + 1), *sans = cpn_alloc((size_t)mloc * ob + 1);
    char *rv = NULL, *rans = NULL;
    enum cpn_status st = all && counts && w && cnt && dest && order && sv && sans && (tile || !nloc) &&
                                 (!mloc || (vals && dst))
                             ? CPN_OK
                             : CPN_ERR_NOMEM;
    if (st == CPN_OK && nloc) mine.last = cpn_kernel_sort_key(dt, tile + (size_t)(nloc - 1) * item);
    for (int r = 0; r < P; r++) counts[r] = sizeof mine;
    if (st == CPN_OK) st = cpn_comm_allgatherv(&mine, all, counts);
    if (st != CPN_OK) goto out;
    int64_t *before = w, *per = w + P, *soff = w + 2 * P, *sbytes = w + 3 * P, *roff = w + 4 * P,
            *rbytes = w + 5 * P, *fill = w + 6 * P;
    /* the ranks in the order of their tiles (rk), each tile's first position */
    int64_t total = 0;
    int *rk = (int *)(w + 7 * P);
    for (int r = 0; r < P; r++) {
        int64_t hi;
        cpn_store_tile_box(as, r, &before[r], &hi);
        total += all[r].n;
        per[r] = 0;
        int i = r;
        while (i > 0 && before[rk[i - 1]] > before[r]) { rk[i] = rk[i - 1]; i--; }
        rk[i] = r;
    }
    for (int64_t j = 0; j < mloc; j++) {
        const uint64_t k = cpn_kernel_sort_key(dt, vals + (size_t)j * item);
        int d = -1;
        for (int i = 0; i < P && d < 0; i++) {
            const int r = rk[i];
            if (all[r].n && (right ? all[r].last > k : all[r].last >= k)) d = r;
        }
        dest[j] = d;
        if (d >= 0) per[d]++;
    }
    for (int r = 0; r < P; r++) counts[r] = (size_t)P * sizeof *cnt;
    st = cpn_comm_allgatherv(per, cnt, counts);   /* cnt[q * P + b]: q sends b values */
    if (st != CPN_OK) goto out;
    int64_t nrecv = 0, nsend = 0;
    for (int t = 0; t < P; t++) {
        fill[t] = nsend;
        soff[t] = nsend * (int64_t)item;
        sbytes[t] = cnt[me * P + t] * (int64_t)item;
        nsend += cnt[me * P + t];
        roff[t] = nrecv * (int64_t)item;
        rbytes[t] = cnt[t * P + me] * (int64_t)item;
        nrecv += cnt[t * P + me];
    }
    for (int64_t j = 0; j < mloc; j++) {
        if (dest[j] < 0) continue;
        const int64_t at = fill[dest[j]]++;
        order[at] = j;
        memcpy(sv + (size_t)at * item, vals + (size_t)j * item, item);
    }
    rv = cpn_alloc((size_t)nrecv * item + 1);
    rans = cpn_alloc((size_t)nrecv * ob + 1);
    if (!rv || !rans) { st = CPN_ERR_NOMEM; goto out; }
    st = cpn_comm_alltoallv(TAG_SEARCH, sv, soff, sbytes, rv, roff, rbytes);
    if (st == CPN_OK && nrecv)
        st = cpn_kernel_searchsorted(dt, tile, (int64_t)item, NULL, 0, nloc, rv, (int64_t)item, nrecv, rans,
                                     (int64_t)ob, right, found);
    if (st == CPN_OK && !found)
        for (int64_t j = 0; j < nrecv; j++) ((int64_t *)rans)[j] += before[me];
    /* the answers back: what I received from q returns to q, in its order */
    for (int t = 0; t < P; t++) {
        int64_t so = roff[t] / (int64_t)item, sb = rbytes[t] / (int64_t)item, ro = soff[t] / (int64_t)item,
                rb = sbytes[t] / (int64_t)item;
        soff[t] = so * (int64_t)ob;
        sbytes[t] = sb * (int64_t)ob;
        roff[t] = ro * (int64_t)ob;
        rbytes[t] = rb * (int64_t)ob;
    }
    if (st == CPN_OK) st = cpn_comm_alltoallv(TAG_ANSWER, rans, soff, sbytes, sans, roff, rbytes);
    if (st != CPN_OK) goto out;
    for (int64_t j = 0; j < mloc; j++) {
        if (dest[j] >= 0) continue;
        if (found) ((uint8_t *)dst)[j] = 0;
        else ((int64_t *)dst)[j] = total;
    }
    for (int64_t at = 0; at < nsend; at++) memcpy(dst + (size_t)order[at] * ob, sans + (size_t)at * ob, ob);
out:
    cpn_free(all);
    cpn_free(counts);
    cpn_free(w);
    cpn_free(cnt);
    cpn_free(dest);
    cpn_free(order);
    cpn_free(sv);
    cpn_free(sans);
    cpn_free(rv);
    cpn_free(rans);
    return st;
}

enum cpn_status cpn_searchsorted_dist_execute(const struct cpn_op *op)
{
    const struct cpn_view *av = op->in[0], *vv = op->in[1], *ov = op->out[0];
    struct cpn_store *as = av->store, *os = ov->store;
    const bool right = op->iparam[0] != 0, found = op->iparam[1] != 0;
    if ((op->nin > 2 && op->in[2]) || av->ndim != 1 || ov->ndim != 1 || vv->ndim != 1 ||
        vv->dtype != av->dtype)
        return CPN_ERR_UNSUPPORTED;
    const int P = cpn_partition_ranks();
    const bool own = cpn_view_is_whole(vv) && cpn_view_is_whole(ov) && vv->store->tiled && os->tiled &&
                     same_tiling(vv->store, os, P);
    /* a read on every rank (n keys) against each rank's values and answers sent to the deciding
     * rank (about m / P of each): the shapes decide, alike on every rank */
    const int64_t na = av->shape[0], nv = vv->shape[0], isz = (int64_t)cpn_dtype_size(av->dtype);
    if (own && (!as->tiled || na * isz <= (nv / P + 1) * (isz + (found ? 1 : 8))))
        return search_own_values(op);
    /* (routing compares one-word keys: complex values take the path below) */
    if (own && cpn_view_is_whole(av) && as->ndim == 1 && cpn_dtype_class(av->dtype) != CPN_CLASS_COMPLEX)
        return search_routed(op);
    if (!cpn_view_is_whole(av) || !as->tiled || as->ndim != 1 ||
        !cpn_view_is_whole(ov))
        return CPN_ERR_UNSUPPORTED;
    const int64_t m = vv->shape[0];
    const size_t item = cpn_dtype_size(av->dtype), ob = found ? 1 : 8;
    const int64_t nloc = as->thi[0] > as->tlo[0] ? as->thi[0] - as->tlo[0] : 0;
    char *vals = cpn_alloc((size_t)m * item + 1), *part = cpn_alloc((size_t)m * ob + 1);
    char *all = cpn_alloc((size_t)P * (size_t)m * ob + 1);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    const char *tile = nloc ? cpn_store_data(as) : NULL;
    enum cpn_status st = vals && part && all && counts && (tile || !nloc) ? CPN_OK : CPN_ERR_NOMEM;
    const int64_t vst = (int64_t)item;
    if (st == CPN_OK) st = cpn_dist_read(vv, vals, &vst);
    if (st == CPN_OK)
        st = cpn_kernel_searchsorted(av->dtype, tile, (int64_t)item, NULL, 0, nloc, vals, (int64_t)item,
                                     m, part, (int64_t)ob, right, found);
    for (int r = 0; st == CPN_OK && r < P; r++) counts[r] = (size_t)m * ob;
    if (st == CPN_OK) st = cpn_comm_allgatherv(part, all, counts);
    if (st == CPN_OK) {
        const int64_t lo = os->tiled ? os->tlo[0] : 0;
        const int64_t hi = os->tiled ? (os->thi[0] > lo ? os->thi[0] : lo) : os->shape[0];
        char *dst = hi > lo ? cpn_store_data_for_overwrite(os) : NULL;
        if (hi > lo && !dst) st = CPN_ERR_NOMEM;
        for (int64_t j = lo; st == CPN_OK && j < hi; j++) {
            if (found) {
                uint8_t f = 0;
                for (int r = 0; r < P; r++) f |= ((const uint8_t *)all)[(size_t)r * (size_t)m + (size_t)j];
                ((uint8_t *)dst)[j - lo] = f != 0;
            } else {
                int64_t s = 0;
                for (int r = 0; r < P; r++) s += ((const int64_t *)all)[(size_t)r * (size_t)m + (size_t)j];
                ((int64_t *)dst)[j - lo] = s;
            }
        }
    }
    cpn_free(vals);
    cpn_free(part);
    cpn_free(all);
    cpn_free(counts);
    return st;
}

/* ---- runs of a partitioned sorted array (unique's count, values and counts) --------------------
 *
 * Each rank finds the runs of its tile; a small allgather of every rank's tile length, run count,
 * first run's length and first and last elements says which ranks' first run continues the run
 * before it (the last element of the previous non-empty rank equal to the first, as the run
 * kernel compares).  Run j of rank r is then run G_r + j of the whole, G_r the runs before r less
 * the continuations up to r; a run belongs to the rank it starts on, whose count of it adds the
 * first-run lengths of the ranks it continues into.  The count is replicated; values and counts
 * are sent from the rank that owns each run to the owner of its place in the output tiling (one
 * all-to-all; an untiled output: one allgather).  The sorted array itself never moves. */
struct run_bound {
    int64_t n, runs, first_len;
    unsigned char first[8], last[8];
};

/* unique's inverse: element i of this rank's tile of the sorted s (n elements of x) is in run
 * g0 + (its run on this rank); that run number goes to position pos[i] of the output, tiled (os).
 * Each (position, run) pair is sent to the rank owning the position: one all-to-all, after an
 * allgather of the P x P pair counts.  Bytes sent per rank: 16 per element that leaves it. */
static enum cpn_status scatter_inverse(enum cpn_dtype dt, bool nd, const char *x, int64_t n, const char *pos,
                                       int64_t g0, struct cpn_store *os, int P, int me)
{
    const size_t item = cpn_dtype_size(dt);
    int64_t *lo = cpn_alloc((size_t)(8 * P) * sizeof *lo);
    int64_t *ids = cpn_alloc((size_t)n * 8 + 8), *pairs = cpn_alloc((size_t)n * 16 + 16), *recv = NULL;
    int64_t *cnt = cpn_alloc((size_t)P * (size_t)P * sizeof *cnt);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    enum cpn_status st = lo && ids && pairs && cnt && counts ? CPN_OK : CPN_ERR_NOMEM;
    if (st != CPN_OK) goto out;
    int64_t *hi = lo + P, *fill = lo + 2 * P, *soff = lo + 3 * P, *sbytes = lo + 4 * P, *roff = lo + 5 * P,
            *rbytes = lo + 6 * P, *mine = lo + 7 * P;
    for (int t = 0; t < P; t++) {
        cpn_store_tile_box(os, t, &lo[t], &hi[t]);
        mine[t] = 0;
    }
    if (n) st = cpn_kernel_unique_sorted(dt, CPN_UNIQUE_INVERSE, nd, x, (int64_t)item, NULL, 0, n, (char *)ids, 8);
    /* the owner of each position (tiles are few: a scan of them per element); a position outside
     * the output (not from a permutation) is dropped, reported after the collectives */
    bool bad = false;
    for (int64_t i = 0; st == CPN_OK && i < n; i++) {
        const int64_t p = ((const int64_t *)pos)[i];
        int t = 0;
        while (t < P && !(p >= lo[t] && p < hi[t])) t++;
        if (t == P) { bad = true; t = me; }
        mine[t]++;
        ids[i] = (ids[i] + g0) * P + t;   /* the owner rides in the low digits until the pairs are laid out */
    }
    for (int r = 0; r < P; r++) counts[r] = (size_t)P * sizeof *cnt;
    if (st == CPN_OK) st = cpn_comm_allgatherv(mine, cnt, counts);   /* cnt[q * P + b]: q sends b */
    if (st != CPN_OK) goto out;
    int64_t nrecv = 0;
    for (int t = 0; t < P; t++) {
        soff[t] = t ? soff[t - 1] + sbytes[t - 1] : 0;
        sbytes[t] = cnt[me * P + t] * 16;
        fill[t] = soff[t] / 8;
        roff[t] = nrecv * 16;
        rbytes[t] = cnt[t * P + me] * 16;
        nrecv += cnt[t * P + me];
    }
    for (int64_t i = 0; i < n; i++) {
        const int t = (int)(ids[i] % P);
        pairs[fill[t]++] = ((const int64_t *)pos)[i];
        pairs[fill[t]++] = ids[i] / P;
    }
    recv = cpn_alloc((size_t)nrecv * 16 + 16);
    if (!recv) { st = CPN_ERR_NOMEM; goto out; }
    st = cpn_comm_alltoallv(TAG_INVERSE, (const char *)pairs, soff, sbytes, (char *)recv, roff, rbytes);
    if (st != CPN_OK || hi[me] <= lo[me]) goto out;
    int64_t *dst = (int64_t *)cpn_store_data_for_overwrite(os);
    if (!dst) { st = CPN_ERR_NOMEM; goto out; }
    for (int64_t j = 0; j < nrecv; j++)
        if (recv[2 * j] >= lo[me] && recv[2 * j] < hi[me]) dst[recv[2 * j] - lo[me]] = recv[2 * j + 1];
    if (bad) st = CPN_ERR_INDEX;
out:
    cpn_free(lo);
    cpn_free(ids);
    cpn_free(pairs);
    cpn_free(recv);
    cpn_free(cnt);
    cpn_free(counts);
    return st;
}

enum cpn_status cpn_unique_dist_execute(const struct cpn_op *op)
{
    const struct cpn_view *sv = op->in[0], *ov = op->out[0];
    struct cpn_store *ss_ = sv->store, *os = ov->store;
    const enum cpn_unique_mode mode = (enum cpn_unique_mode)op->iparam[0];
    const bool nd = op->iparam[1] != 0;
    const size_t item = cpn_dtype_size(sv->dtype);
    const struct cpn_view *pv = op->nin > 1 ? op->in[1] : NULL;
    const bool presorted = op->iparam[2] != 0, posmode = mode == CPN_UNIQUE_INDEX || mode == CPN_UNIQUE_INVERSE;
    const int P = cpn_partition_ranks(), me = cpn_partition_rank();
    if ((pv && !presorted) || (posmode && !pv) || !cpn_view_is_whole(sv) || !ss_->tiled || sv->ndim != 1 || item > 8 ||
        cpn_dtype_class(sv->dtype) == CPN_CLASS_COMPLEX ||
        (pv && (!cpn_view_is_whole(pv) || !same_tiling(ss_, pv->store, P))) ||
        (mode != CPN_UNIQUE_COUNT && (!cpn_view_is_whole(ov) || ov->ndim != 1)) ||
        (mode == CPN_UNIQUE_INVERSE && !os->tiled))
        return CPN_ERR_UNSUPPORTED;
    const enum cpn_dtype dt = sv->dtype;
    const int64_t n = ss_->thi[0] > ss_->tlo[0] ? ss_->thi[0] - ss_->tlo[0] : 0;
    const char *x = n ? cpn_store_data(ss_) : NULL;
    struct run_bound mine = {.n = n};
    struct run_bound *all = cpn_alloc((size_t)P * sizeof *all);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    int64_t *G = cpn_alloc((size_t)(3 * P + 2) * sizeof *G);
    char *loc = NULL, *lcnt = NULL;
    enum cpn_status st = all && counts && G && (x || !n) ? CPN_OK : CPN_ERR_NOMEM;
    if (st == CPN_OK && n) {
        st = cpn_kernel_unique(dt, CPN_UNIQUE_COUNT, nd, x, (int64_t)item, NULL, 0, n, (char *)&mine.runs, 8);
        lcnt = cpn_alloc((size_t)mine.runs * 8 + 1);
        if (st == CPN_OK && !lcnt) st = CPN_ERR_NOMEM;
        if (st == CPN_OK)
            st = cpn_kernel_unique(dt, CPN_UNIQUE_COUNTS, nd, x, (int64_t)item, NULL, 0, n, lcnt, 8);
        if (st == CPN_OK) {
            mine.first_len = ((const int64_t *)lcnt)[0];
            memcpy(mine.first, x, item);
            memcpy(mine.last, x + (size_t)(n - 1) * item, item);
        }
    }
    for (int r = 0; st == CPN_OK && r < P; r++) counts[r] = sizeof mine;
    if (st == CPN_OK) st = cpn_comm_allgatherv(&mine, all, counts);
    if (st != CPN_OK) goto done;
    /* joins, run offsets G[r], owned ranges [G[P+1+r], G[2P+1+r]) */
    int64_t *own_lo = G + P + 1, *own_hi = G + 2 * P + 1;
    int64_t before = 0, joins = 0, prev = -1;
    bool *join = cpn_alloc((size_t)P * sizeof *join);
    if (!join) { st = CPN_ERR_NOMEM; goto done; }
    for (int r = 0; r < P; r++) {
        join[r] = false;
        if (all[r].n && prev >= 0) {
            unsigned char pair[16];
            int64_t c = 0;
            memcpy(pair, all[prev].last, item);
            memcpy(pair + item, all[r].first, item);
            cpn_kernel_unique(dt, CPN_UNIQUE_COUNT, nd, (const char *)pair, (int64_t)item, NULL, 0, 2,
                              (char *)&c, 8);
            join[r] = c == 1;
        }
        if (all[r].n) prev = r;
        joins += join[r];
        G[r] = before - joins;
        own_lo[r] = G[r] + join[r];
        own_hi[r] = G[r] + all[r].runs;
        if (own_hi[r] < own_lo[r]) own_hi[r] = own_lo[r];
        before += all[r].runs;
    }
    const int64_t k = before - joins;
    if (mode == CPN_UNIQUE_INVERSE) {
        cpn_free(join);
        st = scatter_inverse(dt, nd, x, n, n ? cpn_store_data(pv->store) : NULL, G[me], os, P, me);
        goto done;
    }
    if (mode == CPN_UNIQUE_COUNT) {
        cpn_free(join);
        char *dst = cpn_store_data_for_overwrite(os);
        if (!dst) { st = CPN_ERR_NOMEM; goto done; }
        if (!os->tiled || os->thi[0] > os->tlo[0]) memcpy(dst, &k, 8);
        goto done;
    }
    /* this rank's owned runs: values, or counts with the continuations added to the last */
    const int64_t nown = own_hi[me] - own_lo[me], j0 = join[me];
    const size_t es = mode == CPN_UNIQUE_VALUES ? item : 8;
    loc = cpn_alloc((size_t)nown * es + 1);
    if (!loc) { cpn_free(join); st = CPN_ERR_NOMEM; goto done; }
    if ((mode == CPN_UNIQUE_VALUES || mode == CPN_UNIQUE_INDEX) && n) {
        /* a run's first element (its first position) is on the rank the run starts on */
        char *v = cpn_alloc((size_t)mine.runs * es + 1);
        if (!v) { cpn_free(join); st = CPN_ERR_NOMEM; goto done; }
        st = cpn_kernel_unique_sorted(dt, mode, nd, x, (int64_t)item, pv ? cpn_store_data(pv->store) : NULL, 8, n, v,
                                      (int64_t)es);
        memcpy(loc, v + (size_t)j0 * es, (size_t)nown * es);
        cpn_free(v);
    } else if (nown) {
        memcpy(loc, lcnt + (size_t)j0 * 8, (size_t)nown * 8);
        int64_t add = 0;
        for (int q = me + 1; q < P; q++) {
            if (!all[q].n) continue;
            if (!join[q]) break;
            add += all[q].first_len;
            if (all[q].runs > 1) break;
        }
        ((int64_t *)loc)[nown - 1] += add;
    }
    cpn_free(join);
    if (st != CPN_OK) goto done;
    char *dst = cpn_store_data_for_overwrite(os);
    if (!dst && !(os->tiled && os->thi[0] <= os->tlo[0])) { st = CPN_ERR_NOMEM; goto done; }
    if (!os->tiled) {
        for (int r = 0; r < P; r++) counts[r] = (size_t)(own_hi[r] - own_lo[r]) * es;
        st = k ? cpn_comm_allgatherv(loc, dst, counts) : CPN_OK;
        goto done;
    }
    /* the output's tiling: what of my runs lands in rank t's tile, what of rank q's in mine */
    int64_t *off = cpn_alloc((size_t)(4 * P) * sizeof *off);
    if (!off) { st = CPN_ERR_NOMEM; goto done; }
    int64_t *sbytes = off + P, *roff = off + 2 * P, *rbytes = off + 3 * P;
    int64_t olo, ohi;
    cpn_store_tile_box(os, me, &olo, &ohi);
    for (int t = 0; t < P; t++) {
        int64_t tlo, thi;
        cpn_store_tile_box(os, t, &tlo, &thi);
        int64_t a = own_lo[me] > tlo ? own_lo[me] : tlo, z = own_hi[me] < thi ? own_hi[me] : thi;
        off[t] = z > a ? (a - own_lo[me]) * (int64_t)es : 0;
        sbytes[t] = z > a ? (z - a) * (int64_t)es : 0;
        a = own_lo[t] > olo ? own_lo[t] : olo;
        z = own_hi[t] < ohi ? own_hi[t] : ohi;
        roff[t] = z > a ? (a - olo) * (int64_t)es : 0;
        rbytes[t] = z > a ? (z - a) * (int64_t)es : 0;
    }
    st = cpn_comm_alltoallv(TAG_RUNS, loc, off, sbytes, dst, roff, rbytes);
    cpn_free(off);
done:
    cpn_free(all);
    cpn_free(counts);
    cpn_free(G);
    cpn_free(loc);
    cpn_free(lcnt);
    return st;
}
