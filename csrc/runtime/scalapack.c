/* scalapack.c: cholesky, solve, inv, det/slogdet, eigh/eigvalsh, qr, svd, lstsq and eig/eigvals
 * of a partitioned matrix on ScaLAPACK (pdpotrf/pzpotrf, pdgesv/pzgesv, pdgetrf+pdgetri/pz*, pdgetrf,
 * pdsyevd/pzheevd, pdgeqrf+pdorgqr/pz*, pdgesvd/pzgesvd; lstsq: p?gesvd then p?gemm, gelsd's
 * minimum-norm answer; eig: p?gehrd, p?lahqr, pzunmhr, pztrevc) instead of gathering it.  slogdet combines each rank's diagonal entries of the LU factor
 * (log |d| summed, signs and pivot swaps counted, or complex phases summed) over the ranks in
 * rank order; eigh's eigenvalues are on every rank, its vectors go back as a result matrix.
 *
 * The operand's tiles (partition.c's block tiling over its near-square process grid, uneven
 * split points) are redistributed into ScaLAPACK's 2-D block-cyclic layout on a BLACS grid of
 * the same shape (rank r is BLACS process (r / pc, r % pc), "Row" order), with block size
 * nb = min(64, ceil(n / max(pr, pc))): one message per pair of ranks that share elements, the
 * pieces computed from the layouts alone on both sides (every global nb x nb block a rank owns,
 * met with each tile box, in the same order), so no rank negotiates.  The factorization runs in
 * place; the result goes back the same way into the op's packed output (a 1-D store of n * n or
 * n * k elements, tiled or replicated) and LAPACK's info (maximum over the ranks) into aux.  The
 * exchange's bytes and messages are counted in runtime_stats() (comm.c); ScaLAPACK's own
 * messages are MPI calls of the library and are not.
 *
 * Taken for an unbatched float64/complex128 op (numpy.linalg computes in double) whose matrix
 * is a whole 2-D root store, tiled, seen directly; otherwise dist.c's gathered path runs it. */
#include "scalapack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "cpn_config.h"
#include "kernels.h"
#include "partition.h"
#include "store.h"
#include "view.h"

#if CPN_HAVE_SCALAPACK && CPN_HAVE_MPI

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desc,
              int *info, size_t);
void pzpotrf_(const char *uplo, const int *n, void *a, const int *ia, const int *ja, const int *desc,
              int *info, size_t);
void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia, const int *ja, const int *desca,
             int *ipiv, double *b, const int *ib, const int *jb, const int *descb, int *info);
void pzgesv_(const int *n, const int *nrhs, void *a, const int *ia, const int *ja, const int *desca,
             int *ipiv, void *b, const int *ib, const int *jb, const int *descb, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              int *ipiv, int *info);
void pzgetrf_(const int *m, const int *n, void *a, const int *ia, const int *ja, const int *desca,
              int *ipiv, int *info);
void pdgetri_(const int *n, double *a, const int *ia, const int *ja, const int *desca, const int *ipiv,
              double *work, const int *lwork, int *iwork, const int *liwork, int *info);
void pzgetri_(const int *n, void *a, const int *ia, const int *ja, const int *desca, const int *ipiv,
              void *work, const int *lwork, int *iwork, const int *liwork, int *info);
void pdsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, double *w, double *z, const int *iz, const int *jz, const int *descz,
              double *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t);
void pzheevd_(const char *jobz, const char *uplo, const int *n, void *a, const int *ia, const int *ja,
              const int *desca, double *w, void *z, const int *iz, const int *jz, const int *descz,
              void *work, const int *lwork, double *rwork, const int *lrwork, int *iwork,
              const int *liwork, int *info, size_t, size_t);

void pdgeqrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              double *tau, double *work, const int *lwork, int *info);
void pzgeqrf_(const int *m, const int *n, void *a, const int *ia, const int *ja, const int *desca,
              void *tau, void *work, const int *lwork, int *info);
void pdorgqr_(const int *m, const int *n, const int *k, double *a, const int *ia, const int *ja,
              const int *desca, const double *tau, double *work, const int *lwork, int *info);
void pzungqr_(const int *m, const int *n, const int *k, void *a, const int *ia, const int *ja,
              const int *desca, const void *tau, void *work, const int *lwork, int *info);
void pdgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a, const int *ia,
              const int *ja, const int *desca, double *s, double *u, const int *iu, const int *ju,
              const int *descu, double *vt, const int *ivt, const int *jvt, const int *descvt, double *work,
              const int *lwork, int *info, size_t, size_t);
void pzgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, void *a, const int *ia,
              const int *ja, const int *desca, double *s, void *u, const int *iu, const int *ju,
              const int *descu, void *vt, const int *ivt, const int *jvt, const int *descvt, void *work,
              const int *lwork, double *rwork, int *info, size_t, size_t);

void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca, const double *b, const int *ib,
             const int *jb, const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void pzgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const void *alpha,
             const void *a, const int *ia, const int *ja, const int *desca, const void *b, const int *ib,
             const int *jb, const int *descb, const void *beta, void *c, const int *ic, const int *jc,
             const int *descc);

void pdgehrd_(const int *n, const int *ilo, const int *ihi, double *a, const int *ia, const int *ja,
              const int *desca, double *tau, double *work, const int *lwork, int *info);
void pzgehrd_(const int *n, const int *ilo, const int *ihi, void *a, const int *ia, const int *ja,
              const int *desca, void *tau, void *work, const int *lwork, int *info);
void pzunmhr_(const char *side, const char *trans, const int *m, const int *n, const int *ilo, const int *ihi,
              const void *a, const int *ia, const int *ja, const int *desca, const void *tau, void *c,
              const int *ic, const int *jc, const int *descc, void *work, const int *lwork, int *info, size_t,
              size_t);
void pzlaset_(const char *uplo, const int *m, const int *n, const void *alpha, const void *beta, void *a,
              const int *ia, const int *ja, const int *desca, size_t);
void pdlahqr_(const int *wantt, const int *wantz, const int *n, const int *ilo, const int *ihi, double *a,
              const int *desca, double *wr, double *wi, const int *iloz, const int *ihiz, double *z,
              const int *descz, double *work, const int *lwork, int *iwork, const int *ilwork, int *info);
void pzlahqr_(const int *wantt, const int *wantz, const int *n, const int *ilo, const int *ihi, void *a,
              const int *desca, void *w, const int *iloz, const int *ihiz, void *z, const int *descz,
              void *work, const int *lwork, int *iwork, const int *ilwork, int *info);
void pztrevc_(const char *side, const char *howmny, const int *select, const int *n, void *t, const int *desct,
              void *vl, const int *descvl, void *vr, const int *descvr, const int *mm, int *m, void *work,
              double *rwork, int *info, size_t, size_t);

enum { TAG_IN = 40, TAG_OUT = 41 };

/* A 2-D root store seen whole and directly. */
static bool whole_2d(const struct cpn_view *v)
{
    const struct cpn_store *s = v->store;
    if (s->root || v->part || v->ndim != 2 || s->ndim != 2 || v->off[0] || v->off[1]) return false;
    for (int i = 0; i < 2; i++)
        if (v->sdim[i] != i || v->step[i] != 1 || v->shape[i] != s->shape[i]) return false;
    return true;
}

static bool whole_1d(const struct cpn_view *v)
{
    const struct cpn_store *s = v->store;
    return !s->root && !v->part && v->ndim == 1 && s->ndim == 1 && !v->off[0] && v->sdim[0] == 0 &&
           v->step[0] == 1 && v->shape[0] == s->shape[0];
}

/* A 1-D root store seen whole as one m x 1 column (lstsq's vector b, reshaped): its tiles are
 * the column's row ranges, laid out as a 2-D store's would be. */
static bool column_of_1d(const struct cpn_view *v)
{
    const struct cpn_store *s = v->store;
    return !s->root && !v->part && v->ndim == 2 && s->ndim == 1 && v->shape[1] == 1 && !v->off[0] &&
           v->sdim[0] == 0 && v->step[0] == 1 && v->shape[0] == s->shape[0];
}

bool cpn_scalapack_applies(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_LAPACK) return false;
    if (op->code != CPN_LA_CHOLESKY && op->code != CPN_LA_SOLVE && op->code != CPN_LA_INV &&
        op->code != CPN_LA_SLOGDET && op->code != CPN_LA_EIGH && op->code != CPN_LA_QR && op->code != CPN_LA_SVD &&
        op->code != CPN_LA_LSTSQ && op->code != CPN_LA_EIG)
        return false;
    if (op->dtype != CPN_DTYPE_FLOAT64 && op->dtype != CPN_DTYPE_COMPLEX128) return false;
    if (cpn_comm_size() < 2) return false;
    const char *e = getenv("CUPYNUM_SCALAPACK");
    if (e && e[0] == '0') return false;
    const struct cpn_view *a = op->in[0];
    if (!a || !whole_2d(a) || !a->store->tiled || a->shape[0] < 1 || a->shape[1] < 1) return false;
    if (a->shape[0] > (1 << 30) || a->shape[1] > (1 << 30)) return false;
    const int64_t m = a->shape[0], n = a->shape[1];
    if (op->code == CPN_LA_QR) {
        /* p?geqrf + p?orgqr/p?ungqr: Q of m x min(m, n) (complete is that when m <= n) and R;
         * raw's Fortran-order h and complete's m x m Q of a tall matrix stay on LAPACK */
        const int64_t mode = op->iparam[0];
        if (mode == CPN_QR_RAW || (mode == CPN_QR_COMPLETE && m > n)) return false;
    } else if (op->code == CPN_LA_SVD) {
        /* p?gesvd computes U m x min(m, n) and VT min(m, n) x n only: full_matrices of a
         * non-square matrix stays on LAPACK */
        if (op->iparam[1] && op->iparam[0] && m != n) return false;
    } else if (op->code == CPN_LA_LSTSQ) {
        /* gelsd's cutoff is rcond * s[0] for 0 < rcond < 1 and its own eps otherwise: those stay
         * on LAPACK */
        if (!(op->dparam[0] > 0 && op->dparam[0] < 1)) return false;
        if (op->nin < 2 || !op->in[1] || !(whole_2d(op->in[1]) || column_of_1d(op->in[1])) ||
            op->in[1]->shape[0] != m || op->in[1]->shape[1] < 1 || op->in[1]->shape[1] > (1 << 30))
            return false;
    } else if (m != n) {
        return false;
    }
    if (op->code == CPN_LA_SOLVE && (op->nin < 2 || !op->in[1] || !whole_2d(op->in[1]) ||
                                     op->in[1]->shape[1] < 1))
        return false;
    return op->nout == 2 && whole_1d(op->out[0]) && whole_1d(op->out[1]);
}

/* ---- the block-cyclic layout ------------------------------------------------------------------ */

struct bc {
    int pr, pc, nb;
    int64_t m, n;    /* global rows, columns */
};

/* The local (column-major, leading dimension lld) offset of global (i, j) on its owner. */
static int64_t local_index(const struct bc *L, int64_t i, int64_t j, int64_t lld)
{
    int64_t li = (i / ((int64_t)L->nb * L->pr)) * L->nb + i % L->nb;
    int64_t lj = (j / ((int64_t)L->nb * L->pc)) * L->nb + j % L->nb;
    return li + lj * lld;
}

/* The 2-D tile box rank q holds of store s (a replicated store: only the rank itself "holds"
 * it for the exchange, so each rank fills its blocks from its own copy). */
static bool box2(const struct cpn_store *s, int q, int me, int64_t *lo, int64_t *hi)
{
    if (!s->tiled && q != me) return false;
    cpn_store_tile_box(s, q, lo, hi);
    if (s->ndim == 1) {   /* a column (column_of_1d) */
        lo[1] = 0;
        hi[1] = 1;
    }
    return lo[0] < hi[0] && lo[1] < hi[1];
}

/* Elements of the 2-D box [lo, hi) that BLACS process `dst` owns, visited block by block (row-
 * major blocks, row-major inside); fn(i, j0, j1) per row segment.  Returns the count. */
typedef void (*seg_fn)(void *ctx, int64_t i, int64_t j0, int64_t j1);
static int64_t walk_box(const struct bc *L, int dst, const int64_t *lo, const int64_t *hi, seg_fn fn, void *ctx)
{
    int64_t count = 0, nb = L->nb;
    int dr = dst / L->pc, dc = dst % L->pc;
    for (int64_t I = lo[0] / nb; I * nb < hi[0]; I++) {
        if (I % L->pr != dr) continue;
        for (int64_t J = lo[1] / nb; J * nb < hi[1]; J++) {
            if (J % L->pc != dc) continue;
            int64_t i0 = I * nb > lo[0] ? I * nb : lo[0], i1 = (I + 1) * nb < hi[0] ? (I + 1) * nb : hi[0];
            int64_t j0 = J * nb > lo[1] ? J * nb : lo[1], j1 = (J + 1) * nb < hi[1] ? (J + 1) * nb : hi[1];
            for (int64_t i = i0; i < i1; i++) {
                if (fn) fn(ctx, i, j0, j1);
                count += j1 - j0;
            }
        }
    }
    return count;
}

/* Elements of rows [0, m) x [0, n) owned by BLACS process `src` whose flat index i * n + j lies
 * in [flo, fhi), visited block by block; fn per row segment. */
static int64_t walk_flat(const struct bc *L, int src, int64_t flo, int64_t fhi, seg_fn fn, void *ctx)
{
    if (flo >= fhi) return 0;
    int64_t lo[2] = {flo / L->n, 0}, hi[2] = {(fhi - 1) / L->n + 1, L->n};
    int64_t count = 0, nb = L->nb;
    int sr = src / L->pc, sc = src % L->pc;
    for (int64_t I = lo[0] / nb; I * nb < hi[0]; I++) {
        if (I % L->pr != sr) continue;
        for (int64_t J = 0; J * nb < L->n; J++) {
            if (J % L->pc != sc) continue;
            int64_t i0 = I * nb > lo[0] ? I * nb : lo[0], i1 = (I + 1) * nb < hi[0] ? (I + 1) * nb : hi[0];
            for (int64_t i = i0; i < i1; i++) {
                int64_t j0 = J * nb, j1 = (J + 1) * nb < L->n ? (J + 1) * nb : L->n;
                int64_t a = i * L->n + j0, b = i * L->n + j1;
                if (a < flo) a = flo;
                if (b > fhi) b = fhi;
                if (a >= b) continue;
                if (fn) fn(ctx, i, a - i * L->n, b - i * L->n);
                count += b - a;
            }
        }
    }
    return count;
}

struct mover {
    const struct bc *L;
    size_t item;
    char *cur;                      /* the message buffer, advancing */
    char *tile;                     /* the store's local tile (C order) */
    int64_t tlo[2], tw;             /* its box origin and row length (2-D) / first flat index */
    char *local;                    /* the block-cyclic local array */
    int64_t lld;
    int zero;                       /* cholesky: 1 zero j > i (lower), 2 zero j < i (upper) */
};

static void pack_tile(void *c, int64_t i, int64_t j0, int64_t j1)
{
    struct mover *m = c;
    size_t len = (size_t)(j1 - j0) * m->item;
    memcpy(m->cur, m->tile + ((i - m->tlo[0]) * m->tw + (j0 - m->tlo[1])) * (int64_t)m->item, len);
    m->cur += len;
}

static void unpack_local(void *c, int64_t i, int64_t j0, int64_t j1)
{
    struct mover *m = c;
    for (int64_t j = j0; j < j1; j++) {
        memcpy(m->local + local_index(m->L, i, j, m->lld) * (int64_t)m->item, m->cur, m->item);
        m->cur += m->item;
    }
}

static void pack_local(void *c, int64_t i, int64_t j0, int64_t j1)
{
    struct mover *m = c;
    for (int64_t j = j0; j < j1; j++) {
        if ((m->zero == 1 && j > i) || (m->zero == 2 && j < i)) memset(m->cur, 0, m->item);
        else memcpy(m->cur, m->local + local_index(m->L, i, j, m->lld) * (int64_t)m->item, m->item);
        m->cur += m->item;
    }
}

static void unpack_flat(void *c, int64_t i, int64_t j0, int64_t j1)
{
    struct mover *m = c;
    size_t len = (size_t)(j1 - j0) * m->item;
    memcpy(m->tile + (i * m->L->n + j0 - m->tlo[0]) * (int64_t)m->item, m->cur, len);
    m->cur += len;
}

/* The 2-D store s's tiles into the block-cyclic local array.  Collective. */
static enum cpn_status scatter_in(const struct bc *L, struct cpn_store *s, char *local, int64_t lld)
{
    const int P = cpn_comm_size(), me = cpn_comm_rank();
    const size_t item = cpn_dtype_size(s->dtype);
    struct cpn_msg *recvs = cpn_alloc(sizeof *recvs * (size_t)P), *sends = cpn_alloc(sizeof *sends * (size_t)P);
    char **rbuf = cpn_alloc(sizeof *rbuf * (size_t)P);
    enum cpn_status st = CPN_OK;
    int nr = 0, ns = 0;
    if (rbuf)
        for (int q = 0; q < P; q++) rbuf[q] = NULL;
    if (!recvs || !sends || !rbuf) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    int64_t mlo[2], mhi[2];
    bool mine = box2(s, me, me, mlo, mhi);
    char *tile = cpn_store_data(s);
    struct mover mv = {.L = L, .item = item, .tile = tile, .tlo = {mlo[0], mlo[1]}, .tw = mhi[1] - mlo[1],
                       .local = local, .lld = lld};
    for (int q = 0; q < P; q++) {
        rbuf[q] = NULL;
        int64_t lo[2], hi[2];
        /* what q sends me */
        if (q != me && box2(s, q, me, lo, hi)) {
            int64_t cnt = walk_box(L, me, lo, hi, NULL, NULL);
            if (cnt) {
                rbuf[q] = cpn_alloc((size_t)cnt * item);
                if (!rbuf[q]) {
                    st = CPN_ERR_NOMEM;
                    goto done;
                }
                recvs[nr++] = (struct cpn_msg){.peer = q, .tag = TAG_IN, .buf = rbuf[q], .bytes = (size_t)cnt * item};
            }
        }
        /* what I send q */
        if (q != me && mine && s->tiled) {   /* a replicated store: every rank has its own copy */
            int64_t cnt = walk_box(L, q, mlo, mhi, NULL, NULL);
            if (cnt) {
                char *buf = cpn_alloc((size_t)cnt * item);
                if (!buf) {
                    st = CPN_ERR_NOMEM;
                    goto done;
                }
                mv.cur = buf;
                walk_box(L, q, mlo, mhi, pack_tile, &mv);
                sends[ns++] = (struct cpn_msg){.peer = q, .tag = TAG_IN, .buf = buf, .bytes = (size_t)cnt * item};
            }
        }
    }
    void *h;
    st = cpn_comm_post(nr, recvs, ns, sends, &h);
    if (st == CPN_OK) {
        /* my own elements, while the messages fly */
        if (mine) {
            int64_t cnt = walk_box(L, me, mlo, mhi, NULL, NULL);
            char *buf = cnt ? cpn_alloc((size_t)cnt * item) : NULL;
            if (cnt && !buf) st = CPN_ERR_NOMEM;
            else if (cnt) {
                mv.cur = buf;
                walk_box(L, me, mlo, mhi, pack_tile, &mv);
                mv.cur = buf;
                walk_box(L, me, mlo, mhi, unpack_local, &mv);
            }
            cpn_free(buf);
        }
        enum cpn_status w = cpn_comm_wait(h);
        if (st == CPN_OK) st = w;
    }
    for (int q = 0; st == CPN_OK && q < P; q++) {
        int64_t lo[2], hi[2];
        if (rbuf[q] && box2(s, q, me, lo, hi)) {
            mv.cur = rbuf[q];
            walk_box(L, me, lo, hi, unpack_local, &mv);
        }
    }
done:
    for (int k = 0; sends && k < ns; k++) cpn_free(sends[k].buf);
    for (int q = 0; rbuf && q < P; q++) cpn_free(rbuf[q]);
    cpn_free(rbuf);
    cpn_free(recvs);
    cpn_free(sends);
    return st;
}

/* A rank's tile [lo, hi) of the packed output seen as flat indices of the m x n result that
 * starts at `base` in it: the part inside the result, relative to it (empty: lo >= hi). */
static void result_window(const struct bc *L, int64_t base, int64_t *lo, int64_t *hi)
{
    *lo = *lo - base > 0 ? *lo - base : 0;
    *hi = *hi - base < L->m * L->n ? *hi - base : L->m * L->n;
}

/* The block-cyclic local array into the 1-D store `out` (flat index base + i * n + j, C order:
 * the packed output holds Q then R, or U then VT).  Collective. */
static enum cpn_status gather_out(const struct bc *L, const char *local, int64_t lld, struct cpn_store *out,
                                  int zero, int64_t base)
{
    const int P = cpn_comm_size(), me = cpn_comm_rank();
    const size_t item = cpn_dtype_size(out->dtype);
    struct cpn_msg *recvs = cpn_alloc(sizeof *recvs * (size_t)P), *sends = cpn_alloc(sizeof *sends * (size_t)P);
    char **rbuf = cpn_alloc(sizeof *rbuf * (size_t)P);
    enum cpn_status st = CPN_OK;
    int nr = 0, ns = 0;
    if (rbuf)
        for (int q = 0; q < P; q++) rbuf[q] = NULL;
    if (!recvs || !sends || !rbuf) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    int64_t flo, fhi;
    cpn_store_tile_box(out, me, &flo, &fhi);
    char *tile = cpn_store_data_for_overwrite(out);
    /* the tile's first element, as a flat index of the result (negative: before it) */
    struct mover mv = {.L = L, .item = item, .tile = tile, .tlo = {flo - base, 0}, .local = (char *)local,
                       .lld = lld, .zero = zero};
    result_window(L, base, &flo, &fhi);
    for (int q = 0; q < P; q++) {
        rbuf[q] = NULL;
        if (q == me) continue;
        int64_t cnt = walk_flat(L, q, flo, fhi, NULL, NULL);   /* q's blocks in my range */
        if (cnt) {
            rbuf[q] = cpn_alloc((size_t)cnt * item);
            if (!rbuf[q]) {
                st = CPN_ERR_NOMEM;
                goto done;
            }
            recvs[nr++] = (struct cpn_msg){.peer = q, .tag = TAG_OUT, .buf = rbuf[q], .bytes = (size_t)cnt * item};
        }
        int64_t qlo, qhi;
        cpn_store_tile_box(out, q, &qlo, &qhi);
        result_window(L, base, &qlo, &qhi);
        cnt = walk_flat(L, me, qlo, qhi, NULL, NULL);          /* my blocks in q's range */
        if (cnt) {
            char *buf = cpn_alloc((size_t)cnt * item);
            if (!buf) {
                st = CPN_ERR_NOMEM;
                goto done;
            }
            mv.cur = buf;
            walk_flat(L, me, qlo, qhi, pack_local, &mv);
            sends[ns++] = (struct cpn_msg){.peer = q, .tag = TAG_OUT, .buf = buf, .bytes = (size_t)cnt * item};
        }
    }
    void *h;
    st = cpn_comm_post(nr, recvs, ns, sends, &h);
    if (st == CPN_OK) {
        int64_t cnt = walk_flat(L, me, flo, fhi, NULL, NULL);
        char *buf = cnt ? cpn_alloc((size_t)cnt * item) : NULL;
        if (cnt && !buf) st = CPN_ERR_NOMEM;
        else if (cnt) {
            mv.cur = buf;
            walk_flat(L, me, flo, fhi, pack_local, &mv);
            mv.cur = buf;
            walk_flat(L, me, flo, fhi, unpack_flat, &mv);
        }
        cpn_free(buf);
        enum cpn_status w = cpn_comm_wait(h);
        if (st == CPN_OK) st = w;
    }
    for (int q = 0; st == CPN_OK && q < P; q++) {
        if (rbuf[q]) {
            mv.cur = rbuf[q];
            walk_flat(L, q, flo, fhi, unpack_flat, &mv);
        }
    }
done:
    for (int k = 0; sends && k < ns; k++) cpn_free(sends[k].buf);
    for (int q = 0; rbuf && q < P; q++) cpn_free(rbuf[q]);
    cpn_free(rbuf);
    cpn_free(recvs);
    cpn_free(sends);
    return st;
}

/* The BLACS context of a pr x pc grid over every rank (made once per shape). */
static int blacs_context(int pr, int pc)
{
    static int cached_pr, cached_pc, ctxt = -1;
    if (ctxt >= 0 && cached_pr == pr && cached_pc == pc) return ctxt;
    int me, np;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    cached_pr = pr;
    cached_pc = pc;
    return ctxt;
}

/* A (LU-factored by p?getrf, pivots ipiv) replaced by its inverse: p?getri after its workspace
 * query.  Local to ScaLAPACK's grid (its own messages). */
static enum cpn_status invert(bool real, int N, char *A, const int *desca, const int *ipiv, int *info)
{
    const int one = 1, query = -1;
    double wq[2] = {0, 0};
    int iq = 0;
    if (real) pdgetri_(&N, (double *)A, &one, &one, desca, ipiv, wq, &query, &iq, &query, info);
    else pzgetri_(&N, A, &one, &one, desca, ipiv, wq, &query, &iq, &query, info);
    if (*info) return CPN_OK;
    int lwork = (int)wq[0] + 1, liwork = iq > 1 ? iq : 1;
    char *work = cpn_alloc((size_t)lwork * (real ? 8 : 16));
    int *iwork = cpn_alloc(sizeof(int) * (size_t)liwork);
    enum cpn_status st = CPN_OK;
    if (!work || !iwork) st = CPN_ERR_NOMEM;
    else if (real) pdgetri_(&N, (double *)A, &one, &one, desca, ipiv, (double *)work, &lwork, iwork, &liwork, info);
    else pzgetri_(&N, A, &one, &one, desca, ipiv, work, &lwork, iwork, &liwork, info);
    cpn_free(work);
    cpn_free(iwork);
    return st;
}

/* Eigenvalues W (every rank) and eigenvectors Z (block-cyclic as A) of the Hermitian A
 * (triangle uplo), by p?syevd / p?heevd.  Their workspace queries undercount what p?ormtr needs
 * on some grids (2 x 2: "PDORMTR parameter 16 had an illegal value", and wrong vectors with info
 * 0), so the sizes are the larger of the query and the documented minimums (np x nq the local
 * array, nb the block) plus p?ormtr's (np + nq + nb) * nb. */
static enum cpn_status eigh(bool real, char uplo, int N, char *A, const int *desca, double *W, char *Z,
                            int *info, int64_t np, int64_t nq, int64_t nb)
{
    const int one = 1, query = -1;
    const char jobz = 'V';
    double wq[2] = {0, 0}, rq[2] = {0, 0};
    int iq = 0;
    if (real) pdsyevd_(&jobz, &uplo, &N, (double *)A, &one, &one, desca, W, (double *)Z, &one, &one, desca, wq, &query, &iq, &query, info, 1, 1);
    else pzheevd_(&jobz, &uplo, &N, A, &one, &one, desca, W, Z, &one, &one, desca, wq, &query, rq, &query, &iq, &query, info, 1, 1);
    if (*info) return CPN_OK;
    const int64_t n = N, ormtr = (np + nq + nb) * nb;
    int64_t lw = (int64_t)wq[0] + 1, lrw = (int64_t)rq[0] + 1, liw = iq > 1 ? iq : 1;
    if (real) {
        int64_t tri = 3 * n + (nb * (np + 1) > 3 * nb ? nb * (np + 1) : 3 * nb);
        int64_t docs = (1 + 6 * n + 2 * np * nq > tri ? 1 + 6 * n + 2 * np * nq : tri) + 2 * n;
        if (docs > lw) lw = docs;
    } else {
        if (n + ormtr > lw) lw = n + ormtr;
        if (1 + 9 * n + 3 * np * nq > lrw) lrw = 1 + 9 * n + 3 * np * nq;
    }
    lw += ormtr;
    if (7 * n + 8 * 64 + 2 > liw) liw = 7 * n + 8 * 64 + 2;
    if (lw > INT32_MAX || lrw > INT32_MAX) return cpn_error(CPN_ERR_UNSUPPORTED, "eigh: ScaLAPACK workspace too large");
    int lwork = (int)lw, lrwork = (int)lrw, liwork = (int)liw;
    char *work = cpn_alloc((size_t)lwork * (real ? 8 : 16));
    double *rwork = real ? NULL : cpn_alloc(sizeof(double) * (size_t)lrwork);
    int *iwork = cpn_alloc(sizeof(int) * (size_t)liwork);
    enum cpn_status st = CPN_OK;
    if (!work || !iwork || (!real && !rwork)) st = CPN_ERR_NOMEM;
    else if (real) pdsyevd_(&jobz, &uplo, &N, (double *)A, &one, &one, desca, W, (double *)Z, &one, &one, desca, (double *)work, &lwork, iwork, &liwork, info, 1, 1);
    else pzheevd_(&jobz, &uplo, &N, A, &one, &one, desca, W, Z, &one, &one, desca, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
    cpn_free(work);
    cpn_free(rwork);
    cpn_free(iwork);
    return st;
}

/* slogdet from the LU factors: each rank takes the diagonal elements it owns (log |d| summed, the
 * sign of d times -1 per row swap), the ranks' partials are gathered and combined in rank order
 * (so every rank agrees bit for bit) into out[0] (the sign, in the op's dtype) and aux[1]
 * (logdet).  A complex sign is the phase: the angles are summed.  singular: 0 and -inf. */
static enum cpn_status slogdet_out(const struct cpn_op *op, bool real, const struct bc *L, const char *A,
                                   int64_t lld, const int *ipiv, int myr, int myc, bool singular)
{
    const int P = cpn_comm_size();
    const size_t item = real ? 8 : 16;
    double part[3] = {0, 0, 0};   /* log|d| sum, angle sum (complex) or negative count, zero seen */
    for (int64_t i = 0; i < L->m && !singular; i++) {
        const int64_t I = i / L->nb;
        if ((int)(I % L->pr) != myr || (int)(I % L->pc) != myc) continue;
        const char *e = A + local_index(L, i, i, lld) * (int64_t)item;
        const int64_t li = (I / L->pr) * L->nb + i % L->nb;   /* the local row of i */
        const bool swapped = ipiv[li] != i + 1;
        if (real) {
            double v = *(const double *)e;
            if (v == 0) part[2] = 1;
            part[0] += log(fabs(v));
            part[1] += (v < 0) + swapped;
        } else {
            double re = ((const double *)e)[0], im = ((const double *)e)[1], ab = hypot(re, im);
            if (ab == 0) part[2] = 1;
            part[0] += log(ab);
            part[1] += atan2(im, re) + (swapped ? M_PI : 0);
        }
    }
    double *all = cpn_alloc(sizeof part * (size_t)P);
    size_t *counts = cpn_alloc(sizeof(size_t) * (size_t)P);
    if (!all || !counts) {
        cpn_free(all);
        cpn_free(counts);
        return CPN_ERR_NOMEM;
    }
    for (int r = 0; r < P; r++) counts[r] = sizeof part;
    enum cpn_status st = cpn_comm_allgatherv(part, all, counts);
    double logdet = 0, ang = 0, zero = singular;
    for (int r = 0; st == CPN_OK && r < P; r++) {
        logdet += all[3 * r];
        ang += all[3 * r + 1];
        zero += all[3 * r + 2];
    }
    cpn_free(all);
    cpn_free(counts);
    if (st != CPN_OK) return st;
    double sr, si = 0;
    if (zero) {
        sr = 0;
        logdet = -INFINITY;
    } else if (real) {
        sr = fmod(ang, 2.0) != 0 ? -1.0 : 1.0;
    } else {
        sr = cos(ang);
        si = sin(ang);
    }
    struct cpn_store *o = op->out[0]->store, *x = op->out[1]->store;
    int64_t lo, hi;
    cpn_store_tile_box(o, cpn_comm_rank(), &lo, &hi);
    if (lo <= 0 && hi > 0) {
        char *d = cpn_store_data(o);
        if (!d) return CPN_ERR_NOMEM;
        ((double *)d)[0] = sr;
        if (!real) ((double *)d)[1] = si;
    }
    cpn_store_tile_box(x, cpn_comm_rank(), &lo, &hi);
    if (lo <= 1 && hi > 1) {
        double *d = cpn_store_data(x);
        if (!d) return CPN_ERR_NOMEM;
        d[1 - lo] = logdet;
    }
    return CPN_OK;
}

/* LAPACK's info agreed by every rank: the largest (an illegal argument, negative, counts as
 * largest of all). */
static enum cpn_status agree_info(int *info)
{
    int64_t neg = -(int64_t)(*info < 0 ? 1 << 30 : *info);
    enum cpn_status st = cpn_comm_allreduce_min(&neg);
    if (st == CPN_OK) *info = (int)-neg;
    return st;
}

/* aux: info at [0], then values[0..n) at [1..n] when given (eigh's, svd's), each rank its tile. */
static enum cpn_status write_aux(const struct cpn_op *op, int info, const double *values, int64_t n)
{
    struct cpn_store *x = op->out[1]->store;
    int64_t lo, hi;
    cpn_store_tile_box(x, cpn_comm_rank(), &lo, &hi);
    if (hi <= lo) return CPN_OK;
    double *xd = cpn_store_data(x);
    if (!xd) return CPN_ERR_NOMEM;
    if (lo <= 0) xd[-lo] = info;
    for (int64_t i = lo > 1 ? lo : 1; values && i < hi && i <= n; i++) xd[i - lo] = values[i - 1];
    return CPN_OK;
}

/* A work array of lw elements of `item` bytes, lw the larger of the query and `floor`. */
static char *workspace(const double *query, int64_t floor, size_t item, int *lwork)
{
    int64_t lw = (int64_t)query[0] + 1;
    if (floor > lw) lw = floor;
    if (lw > INT32_MAX) return NULL;
    *lwork = (int)lw;
    return cpn_alloc((size_t)lw * item);
}

/* The m x n layout of op's matrix: the BLACS grid of partition.c's grid shape, block nb. */
static struct bc layout_of(int64_t m, int64_t n, int *ctxt, int *myr, int *myc)
{
    int grid[2];
    int64_t shape[2] = {m, n};
    cpn_partition_grid(2, shape, cpn_comm_size(), grid);
    const int pr = grid[0], pc = grid[1], mx = pr > pc ? pr : pc;
    const int64_t big = m > n ? m : n;
    int nb = (int)((big + mx - 1) / mx);
    if (nb > 64) nb = 64;
    if (nb < 1) nb = 1;
    *ctxt = blacs_context(pr, pc);
    int npr, npc;
    Cblacs_gridinfo(*ctxt, &npr, &npc, myr, myc);
    CPN_ASSERT(npr == pr && npc == pc && *myr * pc + *myc == cpn_comm_rank());
    return (struct bc){.pr = pr, .pc = pc, .nb = nb, .m = m, .n = n};
}

/* A descriptor of an m x n matrix on layout L's grid: its local rows (lld) and columns. */
static void describe(const struct bc *L, int ctxt, int myr, int myc, int64_t m, int64_t n, int *desc,
                     int *lld, int *cols)
{
    const int M = (int)m, N = (int)n, zero = 0;
    int info = 0, rows = numroc_(&M, &L->nb, &myr, &zero, &L->pr);
    *cols = numroc_(&N, &L->nb, &myc, &zero, &L->pc);
    *lld = rows > 1 ? rows : 1;
    descinit_(desc, &M, &N, &L->nb, &L->nb, &zero, &zero, &ctxt, lld, &info);
}

static size_t local_bytes(int lld, int cols, size_t item)
{
    return (size_t)lld * (size_t)(cols > 0 ? cols : 1) * item;
}

/* qr (reduced, r, and complete of a wide or square matrix) by p?geqrf then p?orgqr/p?ungqr, and
 * svd (values, or U m x k and VT k x n, k = min(m, n)) by p?gesvd, of an m x n matrix.  The
 * packed output is as the LAPACK kernel's: Q (m x k) then R (k x n), or R alone; U then VT.
 * R is gathered from the factor's upper triangle before p?orgqr overwrites it with Q.  aux:
 * info, then (svd) the singular values, which p?gesvd leaves on every rank. */
static enum cpn_status qr_svd(const struct cpn_op *op)
{
    const int64_t m = op->in[0]->shape[0], n = op->in[0]->shape[1], k = m < n ? m : n;
    const size_t item = cpn_dtype_size(op->dtype);
    const bool real = op->dtype == CPN_DTYPE_FLOAT64;
    int ctxt, myr, myc;
    struct bc La = layout_of(m, n, &ctxt, &myr, &myc);
    int desca[9], lld, locc;
    describe(&La, ctxt, myr, myc, m, n, desca, &lld, &locc);
    const int M = (int)m, N = (int)n, K = (int)k, one = 1, query = -1;
    const int64_t nb = La.nb, box = nb * (lld + locc + nb);   /* p?geqrf's, p?orgqr's minimum */
    int info = 0, lwork = 0;
    char *A = cpn_alloc(local_bytes(lld, locc, item)), *tau = NULL, *work = NULL, *U = NULL, *VT = NULL;
    double *S = NULL, *rwork = NULL, wq[2] = {0, 0};
    enum cpn_status st = A ? scatter_in(&La, op->in[0]->store, A, lld) : CPN_ERR_NOMEM;
    if (st != CPN_OK) goto done;
    if (op->code == CPN_LA_QR) {
        const int64_t mode = op->iparam[0];
        if (!(tau = cpn_alloc((size_t)(locc + nb) * item))) goto nomem;
        if (real) pdgeqrf_(&M, &N, (double *)A, &one, &one, desca, (double *)tau, wq, &query, &info);
        else pzgeqrf_(&M, &N, A, &one, &one, desca, tau, wq, &query, &info);
        if (!info && !(work = workspace(wq, box, item, &lwork))) goto nomem;
        if (!info && real) pdgeqrf_(&M, &N, (double *)A, &one, &one, desca, (double *)tau, (double *)work, &lwork, &info);
        else if (!info) pzgeqrf_(&M, &N, A, &one, &one, desca, tau, work, &lwork, &info);
        if ((st = agree_info(&info)) != CPN_OK || info) goto aux;
        /* R: the first k rows, zero below the diagonal, after Q's m * k elements */
        struct bc Lr = {.pr = La.pr, .pc = La.pc, .nb = La.nb, .m = k, .n = n};
        st = gather_out(&Lr, A, lld, op->out[0]->store, 2, mode == CPN_QR_R ? 0 : m * k);
        if (st != CPN_OK || mode == CPN_QR_R) goto aux;
        cpn_free(work);
        work = NULL;
        if (real) pdorgqr_(&M, &K, &K, (double *)A, &one, &one, desca, (double *)tau, wq, &query, &info);
        else pzungqr_(&M, &K, &K, A, &one, &one, desca, tau, wq, &query, &info);
        if (!info && !(work = workspace(wq, box, item, &lwork))) goto nomem;
        if (!info && real) pdorgqr_(&M, &K, &K, (double *)A, &one, &one, desca, (double *)tau, (double *)work, &lwork, &info);
        else if (!info) pzungqr_(&M, &K, &K, A, &one, &one, desca, tau, work, &lwork, &info);
        if ((st = agree_info(&info)) != CPN_OK || info) goto aux;
        struct bc Lq = {.pr = La.pr, .pc = La.pc, .nb = La.nb, .m = m, .n = k};
        st = gather_out(&Lq, A, lld, op->out[0]->store, 0, 0);
        goto aux;
    }
    /* svd */
    const bool uv = op->iparam[1] != 0;
    const char job = uv ? 'V' : 'N';
    int descu[9], descvt[9], lldu, ucols, lldvt, vtcols;
    describe(&La, ctxt, myr, myc, m, k, descu, &lldu, &ucols);
    describe(&La, ctxt, myr, myc, k, n, descvt, &lldvt, &vtcols);
    S = cpn_alloc(sizeof(double) * (size_t)k);
    U = cpn_alloc(uv ? local_bytes(lldu, ucols, item) : item);
    VT = cpn_alloc(uv ? local_bytes(lldvt, vtcols, item) : item);
    const int64_t sizeb = m > n ? m : n;
    double rq[2] = {0, 0};
    if (!real) rwork = cpn_alloc(sizeof(double) * (size_t)(1 + 4 * sizeb));
    if (!S || !U || !VT || (!real && !rwork)) goto nomem;
    if (real) pdgesvd_(&job, &job, &M, &N, (double *)A, &one, &one, desca, S, (double *)U, &one, &one, descu, (double *)VT, &one, &one, descvt, wq, &query, &info, 1, 1);
    else pzgesvd_(&job, &job, &M, &N, A, &one, &one, desca, S, U, &one, &one, descu, VT, &one, &one, descvt, wq, &query, rq, &info, 1, 1);
    /* the documented minimum is what the query returns; room for p?gebrd's blocking on top */
    if (!info && !(work = workspace(wq, (int64_t)wq[0] + box + 2 * sizeb + 64, item, &lwork))) goto nomem;
    if (!info && real) pdgesvd_(&job, &job, &M, &N, (double *)A, &one, &one, desca, S, (double *)U, &one, &one, descu, (double *)VT, &one, &one, descvt, (double *)work, &lwork, &info, 1, 1);
    else if (!info) pzgesvd_(&job, &job, &M, &N, A, &one, &one, desca, S, U, &one, &one, descu, VT, &one, &one, descvt, work, &lwork, rwork, &info, 1, 1);
    if ((st = agree_info(&info)) != CPN_OK || info || !uv) goto aux;
    struct bc Lu = {.pr = La.pr, .pc = La.pc, .nb = La.nb, .m = m, .n = k};
    struct bc Lv = {.pr = La.pr, .pc = La.pc, .nb = La.nb, .m = k, .n = n};
    st = gather_out(&Lu, U, lldu, op->out[0]->store, 0, 0);
    if (st == CPN_OK) st = gather_out(&Lv, VT, lldvt, op->out[0]->store, 0, m * k);
aux:
    if (st == CPN_OK) st = write_aux(op, info, op->code == CPN_LA_SVD && !info ? S : NULL, k);
    goto done;
nomem:
    st = CPN_ERR_NOMEM;
done:
    cpn_free(A);
    cpn_free(tau);
    cpn_free(work);
    cpn_free(U);
    cpn_free(VT);
    cpn_free(S);
    cpn_free(rwork);
    return st;
}

/* A global row's index among the local rows of its owner (block-cyclic over pr rows). */
static int64_t global_row(const struct bc *L, int myr, int64_t li)
{
    return (li / L->nb) * L->nb * L->pr + (int64_t)myr * L->nb + li % L->nb;
}

static int64_t global_col(const struct bc *L, int myc, int64_t lj)
{
    return (lj / L->nb) * L->nb * L->pc + (int64_t)myc * L->nb + lj % L->nb;
}

/* lstsq as gelsd answers it, from p?gesvd's A = U diag(s) VT: rank = the number of s[i] >
 * rcond * s[0], x = VT^H diag(1/s[:rank], 0...) U^H b (the minimum-norm solution; two p?gemm),
 * and, when rank == n < m, the residuals |b - A x|^2 per column (each rank's partial column sums
 * allgathered and added in rank order, so every rank writes the same values).  aux as the
 * kernel's: info, rank, s (k), residuals (nrhs; zero where NumPy reports none).  Collective. */
static enum cpn_status lstsq(const struct cpn_op *op)
{
    const int64_t m = op->in[0]->shape[0], n = op->in[0]->shape[1], k = m < n ? m : n;
    const int64_t nrhs = op->in[1]->shape[1];
    const size_t item = cpn_dtype_size(op->dtype);
    const bool real = op->dtype == CPN_DTYPE_FLOAT64;
    const double rcond = op->dparam[0];
    int ctxt, myr, myc;
    struct bc La = layout_of(m, n, &ctxt, &myr, &myc);
    struct bc Lb = La, Lc = La, Lx = La;
    Lb.m = m, Lb.n = nrhs;
    Lc.m = k, Lc.n = nrhs;
    Lx.m = n, Lx.n = nrhs;
    int desca[9], descb[9], descc[9], descx[9], descu[9], descvt[9];
    int lld, locc, lldb, locb, lldc, locc2, lldx, locx, lldu, ucols, lldvt, vtcols;
    describe(&La, ctxt, myr, myc, m, n, desca, &lld, &locc);
    describe(&La, ctxt, myr, myc, m, nrhs, descb, &lldb, &locb);
    describe(&La, ctxt, myr, myc, k, nrhs, descc, &lldc, &locc2);
    describe(&La, ctxt, myr, myc, n, nrhs, descx, &lldx, &locx);
    describe(&La, ctxt, myr, myc, m, k, descu, &lldu, &ucols);
    describe(&La, ctxt, myr, myc, k, n, descvt, &lldvt, &vtcols);
    const int M = (int)m, N = (int)n, K = (int)k, NR = (int)nrhs, one = 1, query = -1;
    const bool resid = m > n;   /* the residuals may be reported: A is kept for b - A x */
    int info = 0, lwork = 0;
    const int64_t sizeb = m > n ? m : n, box = (int64_t)La.nb * (lld + locc + La.nb);
    char *A = cpn_alloc(local_bytes(lld, locc, item)), *A0 = NULL, *B = cpn_alloc(local_bytes(lldb, locb, item));
    char *C = cpn_alloc(local_bytes(lldc, locc2, item)), *X = cpn_alloc(local_bytes(lldx, locx, item));
    char *U = cpn_alloc(local_bytes(lldu, ucols, item)), *VT = cpn_alloc(local_bytes(lldvt, vtcols, item));
    char *work = NULL;
    double *S = cpn_alloc(sizeof(double) * (size_t)k), *rwork = NULL, *aux = NULL, *part = NULL, *all = NULL;
    size_t *counts = NULL;
    double wq[2] = {0, 0}, rq[2] = {0, 0};
    const int P = cpn_comm_size();
    enum cpn_status st = CPN_OK;
    if (!A || !B || !C || !X || !U || !VT || !S) goto nomem;
    if (!real && !(rwork = cpn_alloc(sizeof(double) * (size_t)(1 + 4 * sizeb)))) goto nomem;
    if (!(aux = cpn_alloc(sizeof(double) * (size_t)(2 + k + nrhs)))) goto nomem;
    memset(aux, 0, sizeof(double) * (size_t)(2 + k + nrhs));
    if ((st = scatter_in(&La, op->in[0]->store, A, lld)) != CPN_OK) goto done;
    if ((st = scatter_in(&Lb, op->in[1]->store, B, lldb)) != CPN_OK) goto done;
    if (resid) {
        if (!(A0 = cpn_alloc(local_bytes(lld, locc, item)))) goto nomem;
        memcpy(A0, A, local_bytes(lld, locc, item));
    }
    const char job = 'V';
    if (real) pdgesvd_(&job, &job, &M, &N, (double *)A, &one, &one, desca, S, (double *)U, &one, &one, descu, (double *)VT, &one, &one, descvt, wq, &query, &info, 1, 1);
    else pzgesvd_(&job, &job, &M, &N, A, &one, &one, desca, S, U, &one, &one, descu, VT, &one, &one, descvt, wq, &query, rq, &info, 1, 1);
    if (!info && !(work = workspace(wq, (int64_t)wq[0] + box + 2 * sizeb + 64, item, &lwork))) goto nomem;
    if (!info && real) pdgesvd_(&job, &job, &M, &N, (double *)A, &one, &one, desca, S, (double *)U, &one, &one, descu, (double *)VT, &one, &one, descvt, (double *)work, &lwork, &info, 1, 1);
    else if (!info) pzgesvd_(&job, &job, &M, &N, A, &one, &one, desca, S, U, &one, &one, descu, VT, &one, &one, descvt, work, &lwork, rwork, &info, 1, 1);
    /* info k + 1: p?gesvd found the ranks' singular values differing (in the last bits: an
     * exactly rank-deficient matrix's zeros); every rank takes rank 0's below, so the rank and
     * the scaling agree */
    if (info == k + 1) info = 0;
    if ((st = agree_info(&info)) != CPN_OK) goto done;
    aux[0] = info;
    if (info) goto write;
    {
        all = cpn_alloc(sizeof(double) * (size_t)k * (size_t)P);
        counts = cpn_alloc(sizeof(size_t) * (size_t)P);
        if (!all || !counts) goto nomem;
        for (int q = 0; q < P; q++) counts[q] = sizeof(double) * (size_t)k;
        if ((st = cpn_comm_allgatherv(S, all, counts)) != CPN_OK) goto done;
        memcpy(S, all, sizeof(double) * (size_t)k);
        cpn_free(all);
        cpn_free(counts);
        all = NULL;
        counts = NULL;
    }
    int64_t rank = 0;
    while (rank < k && S[rank] > rcond * S[0]) rank++;
    aux[1] = (double)rank;
    for (int64_t i = 0; i < k; i++) aux[2 + i] = S[i];
    const double d1[2] = {1, 0}, d0[2] = {0, 0}, dm1[2] = {-1, 0};
    const char tr = real ? 'T' : 'C', nt = 'N';
    /* C = U^H b (k x nrhs), its row i scaled by 1 / s[i] below the rank and zeroed above */
    if (real) pdgemm_(&tr, &nt, &K, &NR, &M, d1, (double *)U, &one, &one, descu, (double *)B, &one, &one, descb, d0, (double *)C, &one, &one, descc);
    else pzgemm_(&tr, &nt, &K, &NR, &M, d1, U, &one, &one, descu, B, &one, &one, descb, d0, C, &one, &one, descc);
    const int zero = 0, crows = numroc_(&K, &La.nb, &myr, &zero, &La.pr);
    for (int64_t li = 0; li < crows; li++) {
        const int64_t i = global_row(&Lc, myr, li);
        const double f = i < rank ? 1 / S[i] : 0;
        for (int64_t lj = 0; lj < locc2; lj++) {
            double *e = (double *)(C + (size_t)(li + lj * lldc) * item);
            e[0] *= f;
            if (!real) e[1] *= f;
        }
    }
    /* x = VT^H C (n x nrhs) */
    if (real) pdgemm_(&tr, &nt, &N, &NR, &K, d1, (double *)VT, &one, &one, descvt, (double *)C, &one, &one, descc, d0, (double *)X, &one, &one, descx);
    else pzgemm_(&tr, &nt, &N, &NR, &K, d1, VT, &one, &one, descvt, C, &one, &one, descc, d0, X, &one, &one, descx);
    if ((st = gather_out(&Lx, X, lldx, op->out[0]->store, 0, 0)) != CPN_OK) goto done;
    if (resid && rank == n) {
        /* b - A x in B, then each rank's column sums of |.|^2 over its rows */
        if (real) pdgemm_(&nt, &nt, &M, &NR, &N, dm1, (double *)A0, &one, &one, desca, (double *)X, &one, &one, descx, d1, (double *)B, &one, &one, descb);
        else pzgemm_(&nt, &nt, &M, &NR, &N, dm1, A0, &one, &one, desca, X, &one, &one, descx, d1, B, &one, &one, descb);
        part = cpn_alloc(sizeof(double) * (size_t)nrhs);
        all = cpn_alloc(sizeof(double) * (size_t)nrhs * (size_t)P);
        counts = cpn_alloc(sizeof(size_t) * (size_t)P);
        if (!part || !all || !counts) goto nomem;
        memset(part, 0, sizeof(double) * (size_t)nrhs);
        const int brows = numroc_(&M, &La.nb, &myr, &zero, &La.pr);
        for (int64_t lj = 0; lj < locb; lj++) {
            const int64_t j = global_col(&Lb, myc, lj);
            double r = 0;
            for (int64_t li = 0; li < brows; li++) {
                const double *e = (const double *)(B + (size_t)(li + lj * lldb) * item);
                r += e[0] * e[0] + (real ? 0 : e[1] * e[1]);
            }
            part[j] = r;
        }
        for (int q = 0; q < P; q++) counts[q] = sizeof(double) * (size_t)nrhs;
        if ((st = cpn_comm_allgatherv(part, all, counts)) != CPN_OK) goto done;
        for (int q = 0; q < P; q++)
            for (int64_t j = 0; j < nrhs; j++) aux[2 + k + j] += all[(size_t)q * (size_t)nrhs + (size_t)j];
    }
write:;
    /* aux: each rank its tile of the 2 + k + nrhs values */
    struct cpn_store *x = op->out[1]->store;
    int64_t lo, hi;
    cpn_store_tile_box(x, cpn_comm_rank(), &lo, &hi);
    if (hi > lo) {
        double *xd = cpn_store_data(x);
        if (!xd) goto nomem;
        for (int64_t i = lo; i < hi && i < 2 + k + nrhs; i++) xd[i - lo] = aux[i];
    }
    goto done;
nomem:
    st = CPN_ERR_NOMEM;
done:
    cpn_free(A);
    cpn_free(A0);
    cpn_free(B);
    cpn_free(C);
    cpn_free(X);
    cpn_free(U);
    cpn_free(VT);
    cpn_free(S);
    cpn_free(work);
    cpn_free(rwork);
    cpn_free(aux);
    cpn_free(part);
    cpn_free(all);
    cpn_free(counts);
    return st;
}

/* v[0..n) replaced by rank 0's values on every rank (ScaLAPACK's replicated outputs, such as
 * eigenvalues, may differ in the last bits between ranks; every rank decides alike on them).
 * Collective. */
static enum cpn_status rank0s(double *v, int64_t n)
{
    const int P = cpn_comm_size();
    double *all = cpn_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * (size_t)P);
    size_t *counts = cpn_alloc(sizeof(size_t) * (size_t)P);
    enum cpn_status st = CPN_ERR_NOMEM;
    if (all && counts) {
        for (int q = 0; q < P; q++) counts[q] = sizeof(double) * (size_t)n;
        st = cpn_comm_allgatherv(v, all, counts);
        if (st == CPN_OK) memcpy(v, all, sizeof(double) * (size_t)n);
    }
    cpn_free(all);
    cpn_free(counts);
    return st;
}

/* Zero the entries of the n x n block-cyclic local array below the first subdiagonal (p?gehrd
 * leaves its reflectors there; the Hessenberg QR is given H alone). */
static void hessenberg_only(const struct bc *L, char *A, int64_t lld, int64_t rows, int64_t cols, int myr,
                            int myc, size_t item)
{
    for (int64_t lj = 0; lj < cols; lj++) {
        const int64_t j = global_col(L, myc, lj);
        for (int64_t li = 0; li < rows; li++)
            if (global_row(L, myr, li) > j + 1) memset(A + (size_t)(li + lj * lld) * item, 0, item);
    }
}

/* The complex eigenproblem of the n x n block-cyclic A (complex128, overwritten): p?gehrd to
 * Hessenberg, Q = p?unmhr applied to the identity (Z), the Schur form T = Z^H A Z by p?lahqr
 * (eigenvalues W on every rank), the eigenvectors of T back-transformed by Z (p?trevc, 'B'),
 * then each column normalized as zgeev does (unit 2-norm, its largest entry real; the column
 * sums and maxima are each rank's partials, allgathered and combined in rank order, so every
 * rank scales alike).  Z (n x n, as A) always holds the Schur vectors, so eigvals rounds as eig
 * does; the eigenvectors only with `vectors`.  W: rank 0's, on every rank.  Local to ScaLAPACK's grid, plus one
 * allgather: Collective. */
static enum cpn_status complex_eig(const struct bc *L, int myr, int myc, char *A, const int *desca,
                                   int64_t lld, int64_t locc, double *W, char *Z, bool vectors, int *info)
{
    const int N = (int)L->n, one = 1, query = -1, zero = 0;
    const int64_t n = L->n, nb = L->nb, rows = numroc_(&N, &L->nb, &myr, &zero, &L->pr);
    const int64_t floor = 8 * n + 4 * nb * (lld + locc + nb) + 64;
    char *tau = cpn_alloc((size_t)(locc + nb + n) * 16), *work = NULL;
    int *iwork = NULL, lwork = 0;
    double wq[4] = {0, 0, 0, 0}, *rwork = NULL, *part = NULL, *all = NULL;
    size_t *counts = NULL;
    enum cpn_status st = CPN_OK;
    const size_t bytes = local_bytes((int)lld, (int)locc, 16);
    char *A0 = vectors ? cpn_alloc(bytes) : NULL, *T = vectors ? cpn_alloc(bytes) : NULL;
    if (!tau || (vectors && (!A0 || !T))) goto nomem;
    if (vectors) memcpy(A0, A, bytes);
    pzgehrd_(&N, &one, &N, A, &one, &one, desca, tau, wq, &query, info);
    if (*info) goto out;
    if (!(work = workspace(wq, floor, 16, &lwork))) goto nomem;
    pzgehrd_(&N, &one, &N, A, &one, &one, desca, tau, work, &lwork, info);
    if (*info) goto out;
    {   /* Q, the Schur vectors' start: always, so eigvals rounds as eig does */
        const double z0[2] = {0, 0}, z1[2] = {1, 0};
        pzlaset_("A", &N, &N, z0, z1, Z, &one, &one, desca, 1);
        cpn_free(work);
        work = NULL;
        pzunmhr_("L", "N", &N, &N, &one, &N, A, &one, &one, desca, tau, Z, &one, &one, desca, wq, &query, info, 1, 1);
        if (*info) goto out;
        if (!(work = workspace(wq, floor, 16, &lwork))) goto nomem;
        pzunmhr_("L", "N", &N, &N, &one, &N, A, &one, &one, desca, tau, Z, &one, &one, desca, work, &lwork, info, 1, 1);
        if (*info) goto out;
    }
    hessenberg_only(L, A, lld, rows, locc, myr, myc, 16);
    {
        const int wantt = 1, wantz = 1;
        int ilwork = 0, iq = 0;
        cpn_free(work);
        work = NULL;
        pzlahqr_(&wantt, &wantz, &N, &one, &N, A, desca, W, &one, &N, Z, desca, wq, &query, &iq, &query, info);
        ilwork = iq > 0 ? iq : 0;
        ilwork = ilwork < 4 * (int)n + 64 ? 4 * (int)n + 64 : ilwork;
        if (*info) goto out;
        if (!(work = workspace(wq, floor, 16, &lwork)) || !(iwork = cpn_alloc(sizeof(int) * (size_t)ilwork)))
            goto nomem;
        pzlahqr_(&wantt, &wantz, &N, &one, &N, A, desca, W, &one, &N, Z, desca, work, &lwork, iwork, &ilwork, info);
        if ((st = agree_info(info)) != CPN_OK || *info) goto out;   /* every rank, before a collective */
        if ((st = rank0s(W, 2 * n)) != CPN_OK || !vectors) goto out;
    }
    /* T = Z^H A Z from the matrix itself, its strictly lower part zeroed: p?lahqr's own update
     * of the Schur form's upper part was seen wrong (T[0, 1] of [[0, -1], [1, 0]] on 2 ranks,
     * while Z was right), so only its Z is trusted */
    {
        const double d1[2] = {1, 0}, d0[2] = {0, 0};
        pzgemm_("N", "N", &N, &N, &N, d1, A0, &one, &one, desca, Z, &one, &one, desca, d0, T, &one, &one, desca);
        pzgemm_("C", "N", &N, &N, &N, d1, Z, &one, &one, desca, T, &one, &one, desca, d0, A, &one, &one, desca);
        for (int64_t lj = 0; lj < locc; lj++) {
            const int64_t j = global_col(L, myc, lj);
            for (int64_t li = 0; li < rows; li++)
                if (global_row(L, myr, li) > j) memset(A + (size_t)(li + lj * lld) * 16, 0, 16);
        }
    }
    /* eigenvectors of T, back-transformed: T x = w x, then Z x */
    cpn_free(work);
    const int64_t lw = 2 * (lld > n ? lld : n) + 2 * n + 64;
    work = cpn_alloc((size_t)lw * 16);
    rwork = cpn_alloc(sizeof(double) * (size_t)lw);
    if (!work || !rwork) goto nomem;
    int m = 0;
    pztrevc_("R", "B", NULL, &N, A, desca, NULL, desca, Z, desca, &N, &m, work, rwork, info, 1, 1);
    if ((st = agree_info(info)) != CPN_OK || *info) goto out;
    /* zgeev's normalization: per column the sum of |v|^2, the largest |v|^2, its row and entry */
    const int P = cpn_comm_size();
    part = cpn_alloc(sizeof(double) * 5 * (size_t)n);
    all = cpn_alloc(sizeof(double) * 5 * (size_t)n * (size_t)P);
    counts = cpn_alloc(sizeof(size_t) * (size_t)P);
    if (!part || !all || !counts) goto nomem;
    for (int64_t j = 0; j < n; j++) {
        part[5 * j] = 0;
        part[5 * j + 1] = -1;
    }
    for (int64_t lj = 0; lj < locc; lj++) {
        const int64_t j = global_col(L, myc, lj);
        double *c = part + 5 * j;
        for (int64_t li = 0; li < rows; li++) {
            const double *e = (const double *)(Z + (size_t)(li + lj * lld) * 16);
            const double a2 = e[0] * e[0] + e[1] * e[1];
            const int64_t i = global_row(L, myr, li);
            c[0] += a2;
            if (a2 > c[1] || (a2 == c[1] && i < c[2])) {
                c[1] = a2;
                c[2] = (double)i;
                c[3] = e[0];
                c[4] = e[1];
            }
        }
    }
    for (int q = 0; q < P; q++) counts[q] = sizeof(double) * 5 * (size_t)n;
    if ((st = cpn_comm_allgatherv(part, all, counts)) != CPN_OK) goto out;
    for (int64_t j = 0; j < n; j++) {
        double sum = 0, best = -1, row = 0, re = 1, im = 0;
        for (int q = 0; q < P; q++) {
            const double *c = all + ((size_t)q * (size_t)n + (size_t)j) * 5;
            sum += c[0];
            if (c[1] > best || (c[1] == best && c[2] < row)) {
                best = c[1];
                row = c[2];
                re = c[3];
                im = c[4];
            }
        }
        part[5 * j] = sum;
        part[5 * j + 2] = row;
        part[5 * j + 3] = re;
        part[5 * j + 4] = im;
    }
    for (int64_t lj = 0; lj < locc; lj++) {
        const int64_t j = global_col(L, myc, lj);
        const double *c = part + 5 * j;
        const double nrm = sqrt(c[0]), ab = hypot(c[3], c[4]);
        if (nrm == 0 || ab == 0) continue;
        /* scale by conj(v_k) / |v_k| / |v| */
        const double fr = c[3] / ab / nrm, fi = -c[4] / ab / nrm;
        for (int64_t li = 0; li < rows; li++) {
            double *e = (double *)(Z + (size_t)(li + lj * lld) * 16);
            const double r = e[0] * fr - e[1] * fi, i = e[0] * fi + e[1] * fr;
            e[0] = r;
            e[1] = global_row(L, myr, li) == (int64_t)c[2] ? 0 : i;
        }
    }
    goto out;
nomem:
    st = CPN_ERR_NOMEM;
out:
    cpn_free(tau);
    cpn_free(A0);
    cpn_free(T);
    cpn_free(work);
    cpn_free(iwork);
    cpn_free(rwork);
    cpn_free(part);
    cpn_free(all);
    cpn_free(counts);
    return st;
}

/* The eigenvalues of the real n x n block-cyclic A (overwritten): p?gehrd, then p?lahqr without
 * the Schur form; wr, wi on every rank, a real eigenvalue's wi exactly 0 (as dgeev's). */
static enum cpn_status real_eigvals(const struct bc *L, int myr, int myc, double *A, const int *desca,
                                    int64_t lld, int64_t locc, double *wr, double *wi, int *info)
{
    const int N = (int)L->n, one = 1, query = -1, zero = 0, no = 0;
    const int64_t n = L->n, nb = L->nb, rows = numroc_(&N, &L->nb, &myr, &zero, &L->pr);
    const int64_t floor = 8 * n + 4 * nb * (lld + locc + nb) + 64;
    double *tau = cpn_alloc(sizeof(double) * (size_t)(locc + nb + n)), wq[4] = {0, 0, 0, 0};
    char *work = NULL;
    int *iwork = NULL, lwork = 0;
    enum cpn_status st = CPN_OK;
    if (!tau) return CPN_ERR_NOMEM;
    pdgehrd_(&N, &one, &N, A, &one, &one, desca, tau, wq, &query, info);
    if (*info) goto out;
    if (!(work = workspace(wq, floor, 8, &lwork))) goto nomem;
    pdgehrd_(&N, &one, &N, A, &one, &one, desca, tau, (double *)work, &lwork, info);
    if (*info) goto out;
    hessenberg_only(L, (char *)A, lld, rows, locc, myr, myc, 8);
    cpn_free(work);
    work = NULL;
    /* p?lahqr has no workspace query: its documented 3n + max(2 lld + 2 locc, 7 ceil(n / nb)) is
     * below the floor */
    int ilwork = 4 * (int)n + 64;
    wq[0] = 0;
    if (!(work = workspace(wq, floor, 8, &lwork)) || !(iwork = cpn_alloc(sizeof(int) * (size_t)ilwork))) goto nomem;
    pdlahqr_(&no, &no, &N, &one, &N, A, desca, wr, wi, &one, &N, A, desca, (double *)work, &lwork, iwork, &ilwork, info);
    if ((st = agree_info(info)) == CPN_OK && !*info && (st = rank0s(wr, n)) == CPN_OK) st = rank0s(wi, n);
    goto out;
nomem:
    st = CPN_ERR_NOMEM;
out:
    cpn_free(tau);
    cpn_free(work);
    cpn_free(iwork);
    return st;
}

/* Z's columns in the order of the real path's eigenvalues (wr + i wi): each takes the nearest
 * unused eigenvalue of the complex path's W (its column of Z), Z replaced by Z P for that
 * permutation (p?gemm; products by 1 and sums with 0, so the columns move exactly).
 * Collective. */
static enum cpn_status reorder(const struct bc *L, int myr, int myc, const int *desca, int64_t lld,
                               int64_t locc, const double *W, const double *wr, const double *wi, char *Z)
{
    const int64_t n = L->n;
    const int N = (int)n, one = 1, zero = 0;
    const int rows = numroc_(&N, &L->nb, &myr, &zero, &L->pr);
    int64_t *perm = cpn_alloc(sizeof(int64_t) * (size_t)n);
    bool *used = cpn_alloc(sizeof(bool) * (size_t)n);
    const size_t bytes = local_bytes((int)lld, (int)locc, 16);
    char *Pm = cpn_alloc(bytes), *out = cpn_alloc(bytes);
    enum cpn_status st = CPN_OK;
    if (!perm || !used || !Pm || !out) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    memset(used, 0, sizeof(bool) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        int64_t best = -1;
        double bd = 0;
        for (int64_t j = 0; j < n; j++) {
            if (used[j]) continue;
            const double d = hypot(W[2 * j] - wr[i], W[2 * j + 1] - wi[i]);
            if (best < 0 || d < bd) {
                best = j;
                bd = d;
            }
        }
        used[best] = true;
        perm[i] = best;
    }
    memset(Pm, 0, bytes);
    for (int64_t lj = 0; lj < locc; lj++) {
        const int64_t i = global_col(L, myc, lj);   /* column i of the result is column perm[i] of Z */
        for (int64_t li = 0; li < rows; li++)
            if (global_row(L, myr, li) == perm[i]) ((double *)Pm)[2 * (li + lj * lld)] = 1;
    }
    const double d1[2] = {1, 0}, d0[2] = {0, 0};
    pzgemm_("N", "N", &N, &N, &N, d1, Z, &one, &one, desca, Pm, &one, &one, desca, d0, out, &one, &one, desca);
    memcpy(Z, out, bytes);
done:
    cpn_free(perm);
    cpn_free(used);
    cpn_free(Pm);
    cpn_free(out);
    return st;
}

/* eig / eigvals of a partitioned n x n matrix: the packed output (complex128) is w (n) then V
 * (n x n, row-major), as the kernel's.  A complex matrix: complex_eig.  A real one: its
 * eigenvalues by real_eigvals (exact conjugate pairs, real ones with zero imaginary part, which
 * is how NumPy and cupynum's _linalg tell a real result); with vectors the complex path runs on
 * the matrix as complex too and its vectors are put in the real path's order (reorder), so eig's
 * w is eigvals' exactly and pairs with V.  aux: info.  Collective. */
static enum cpn_status eig(const struct cpn_op *op)
{
    const int64_t n = op->in[0]->shape[0];
    const bool real = op->dtype == CPN_DTYPE_FLOAT64, vec = op->iparam[1] != 0;
    int ctxt, myr, myc;
    struct bc La = layout_of(n, n, &ctxt, &myr, &myc);
    if (La.nb < 6) La.nb = 6;   /* p?lahqr's smallest block (HBL >= 5; p?hseqr's 6) */
    int desca[9], lld, locc, info = 0;
    describe(&La, ctxt, myr, myc, n, n, desca, &lld, &locc);
    const size_t cbytes = local_bytes(lld, locc, 16);
    char *A = cpn_alloc(local_bytes(lld, locc, real ? 8 : 16)), *C = NULL, *Z = NULL;
    double *W = cpn_alloc(sizeof(double) * 2 * (size_t)n), *wr = NULL, *wi = NULL;
    enum cpn_status st = CPN_OK;
    if (!A || !W) goto nomem;
    if ((st = scatter_in(&La, op->in[0]->store, A, lld)) != CPN_OK) goto done;
    if ((!real || vec) && !(Z = cpn_alloc(cbytes))) goto nomem;
    if (real) {
        if (vec) {   /* the matrix as complex, before the real reduction overwrites it */
            if (!(C = cpn_alloc(cbytes))) goto nomem;
            for (size_t i = 0; i < (size_t)lld * (size_t)(locc > 0 ? locc : 1); i++) {
                ((double *)C)[2 * i] = ((const double *)A)[i];
                ((double *)C)[2 * i + 1] = 0;
            }
        }
        wr = cpn_alloc(sizeof(double) * (size_t)n);
        wi = cpn_alloc(sizeof(double) * (size_t)n);
        if (!wr || !wi) goto nomem;
        if ((st = real_eigvals(&La, myr, myc, (double *)A, desca, lld, locc, wr, wi, &info)) != CPN_OK) goto done;
        if ((st = agree_info(&info)) != CPN_OK || info) goto aux;
        for (int64_t i = 0; i < n; i++) {
            W[2 * i] = wr[i];
            W[2 * i + 1] = wi[i];
        }
        if (vec) {
            double *Wc = cpn_alloc(sizeof(double) * 2 * (size_t)n);
            if (!Wc) goto nomem;
            st = complex_eig(&La, myr, myc, C, desca, lld, locc, Wc, Z, true, &info);
            if (st == CPN_OK) st = agree_info(&info);
            if (st == CPN_OK && !info) st = reorder(&La, myr, myc, desca, lld, locc, Wc, wr, wi, Z);
            cpn_free(Wc);
            if (st != CPN_OK) goto done;
            if (info) goto aux;
        }
    } else {
        if ((st = complex_eig(&La, myr, myc, A, desca, lld, locc, W, Z, vec, &info)) != CPN_OK) goto done;
        if ((st = agree_info(&info)) != CPN_OK || info) goto aux;
    }
    /* w: each rank its part of [0, n) of the packed output; V after it */
    {
        struct cpn_store *o = op->out[0]->store;
        int64_t lo, hi;
        cpn_store_tile_box(o, cpn_comm_rank(), &lo, &hi);
        if (lo < n && hi > lo) {
            double *d = cpn_store_data(o);
            if (!d) goto nomem;
            for (int64_t i = lo; i < hi && i < n; i++) {
                d[2 * (i - lo)] = W[2 * i];
                d[2 * (i - lo) + 1] = W[2 * i + 1];
            }
        }
        if (vec && (st = gather_out(&La, Z, lld, o, 0, n)) != CPN_OK) goto done;
    }
aux:
    if (st == CPN_OK) st = write_aux(op, info, NULL, 0);
    goto done;
nomem:
    st = CPN_ERR_NOMEM;
done:
    cpn_free(A);
    cpn_free(C);
    cpn_free(Z);
    cpn_free(W);
    cpn_free(wr);
    cpn_free(wi);
    return st;
}

enum cpn_status cpn_scalapack_execute(const struct cpn_op *op)
{
    if (op->code == CPN_LA_EIG) return eig(op);
    if (op->code == CPN_LA_LSTSQ) return lstsq(op);
    if (op->code == CPN_LA_QR || op->code == CPN_LA_SVD) return qr_svd(op);
    const int64_t n = op->in[0]->shape[0];
    const int64_t k = op->code == CPN_LA_SOLVE ? op->in[1]->shape[1] : 0;
    const size_t item = cpn_dtype_size(op->dtype);
    int ctxt, myr, myc;
    struct bc La = layout_of(n, n, &ctxt, &myr, &myc);
    const int pr = La.pr, pc = La.pc, nb = La.nb;
    const int N = (int)n, K = (int)k, one = 1;
    int desca[9], descb[9], lld, locc, info = 0;
    describe(&La, ctxt, myr, myc, n, n, desca, &lld, &locc);
    const int locr = lld;   /* >= the local rows; ipiv's length is locr + nb */
    enum cpn_status st = CPN_OK;
    char *A = cpn_alloc(local_bytes(lld, locc, item)), *B = NULL;
    int *ipiv = NULL;
    double *W = NULL;   /* eigh: the eigenvalues, on every rank */
    char *Z = NULL;     /* eigh: the eigenvectors, block-cyclic as A */
    if (!A) return CPN_ERR_NOMEM;
    st = scatter_in(&La, op->in[0]->store, A, lld);
    struct bc Lb = {.pr = pr, .pc = pc, .nb = nb, .m = n, .n = k};
    int locbc = 0;
    if (st == CPN_OK && op->code == CPN_LA_SOLVE) {
        int lldb;
        describe(&La, ctxt, myr, myc, n, k, descb, &lldb, &locbc);
        B = cpn_alloc(local_bytes(lldb, locbc, item));
        ipiv = cpn_alloc(sizeof(int) * (size_t)(locr + nb));
        if (!B || !ipiv) st = CPN_ERR_NOMEM;
        else st = scatter_in(&Lb, op->in[1]->store, B, lld);
    }
    if (st != CPN_OK) goto done;
    info = 0;
    const bool real = op->dtype == CPN_DTYPE_FLOAT64;
    if (op->code == CPN_LA_CHOLESKY) {
        const char uplo = op->iparam[0] ? 'U' : 'L';
        if (real) pdpotrf_(&uplo, &N, (double *)A, &one, &one, desca, &info, 1);
        else pzpotrf_(&uplo, &N, A, &one, &one, desca, &info, 1);
    } else if (op->code == CPN_LA_SOLVE) {
        if (real) pdgesv_(&N, &K, (double *)A, &one, &one, desca, ipiv, (double *)B, &one, &one, descb, &info);
        else pzgesv_(&N, &K, A, &one, &one, desca, ipiv, B, &one, &one, descb, &info);
    } else if (op->code == CPN_LA_INV || op->code == CPN_LA_SLOGDET) {
        if (!(ipiv = cpn_alloc(sizeof(int) * (size_t)(locr + nb)))) {
            st = CPN_ERR_NOMEM;
            goto done;
        }
        if (real) pdgetrf_(&N, &N, (double *)A, &one, &one, desca, ipiv, &info);
        else pzgetrf_(&N, &N, A, &one, &one, desca, ipiv, &info);
        if (op->code == CPN_LA_INV && !info) st = invert(real, N, A, desca, ipiv, &info);
        if (op->code == CPN_LA_SLOGDET) {
            /* a singular matrix (info > 0) has determinant 0: sign 0, logdet -inf, as the kernel */
            if (info > 0) info = 0;
            if (st == CPN_OK) st = slogdet_out(op, real, &La, A, lld, ipiv, myr, myc, info != 0);
        }
    } else {   /* CPN_LA_EIGH: pdsyevd/pzheevd compute vectors always (no 'N' in ScaLAPACK) */
        W = cpn_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        Z = cpn_alloc((size_t)lld * (size_t)(locc > 0 ? locc : 1) * item);
        if (!W || !Z) {
            st = CPN_ERR_NOMEM;
            goto done;
        }
        st = eigh(real, op->iparam[0] ? 'U' : 'L', N, A, desca, W, Z, &info, locr, locc, nb);
    }
    if (st != CPN_OK) goto done;
    /* info: the largest over the ranks (positive: not positive definite / singular) */
    if ((st = agree_info(&info)) != CPN_OK) goto done;
    if (!info) {
        if (op->code == CPN_LA_CHOLESKY) st = gather_out(&La, A, lld, op->out[0]->store, op->iparam[0] ? 2 : 1, 0);
        else if (op->code == CPN_LA_SOLVE) st = gather_out(&Lb, B, lld, op->out[0]->store, 0, 0);
        else if (op->code == CPN_LA_INV) st = gather_out(&La, A, lld, op->out[0]->store, 0, 0);
        else if (op->code == CPN_LA_EIGH && op->iparam[1]) st = gather_out(&La, Z, lld, op->out[0]->store, 0, 0);
    }
    if (st == CPN_OK) st = write_aux(op, info, op->code == CPN_LA_EIGH && !info ? W : NULL, n);
done:
    cpn_free(A);
    cpn_free(B);
    cpn_free(ipiv);
    cpn_free(W);
    cpn_free(Z);
    return st;
}

#else

bool cpn_scalapack_applies(const struct cpn_op *op)
{
    (void)op;
    return false;
}

enum cpn_status cpn_scalapack_execute(const struct cpn_op *op)
{
    (void)op;
    return cpn_error(CPN_ERR_INTERNAL, "cupynum was built without ScaLAPACK");
}

#endif


/* ---- batched owner computes (any build: no library beyond LAPACK) ------------------------------- */

static bool whole_root(const struct cpn_view *v)
{
    const struct cpn_store *s = v->store;
    if (s->root || v->part || v->ndim != s->ndim || v->dtype != s->dtype) return false;
    for (int i = 0; i < v->ndim; i++)
        if (v->sdim[i] != i || v->step[i] != 1 || v->off[i] != 0 || v->shape[i] != s->shape[i]) return false;
    return true;
}

/* s tiled along its first nb dimensions only, each rank's box there the same as ref's. */
static bool batch_tiled_as(const struct cpn_store *s, const struct cpn_store *ref, int nb)
{
    if (!s->tiled || s->ndim < nb) return false;
    for (int d = nb; d < s->ndim; d++)
        if (s->grid[d] > 1) return false;
    const int P = cpn_comm_size();
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM], rlo[CPN_MAXDIM], rhi[CPN_MAXDIM];
    for (int r = 0; r < P; r++) {
        cpn_store_tile_box(s, r, lo, hi);
        cpn_store_tile_box(ref, r, rlo, rhi);
        for (int d = 0; d < nb; d++)
            if (lo[d] != rlo[d] || hi[d] != rhi[d]) return false;
    }
    return true;
}

const struct cpn_store *cpn_lapack_batch_source(const struct cpn_view *a, const struct cpn_view *b)
{
    const int nd = a->ndim, nb = nd - 2;
    if (cpn_comm_size() < 2 || nb < 1 || !whole_root(a)) return NULL;
    const struct cpn_store *s = a->store;
    if (!batch_tiled_as(s, s, nb)) return NULL;
    /* b tiled alike, or replicated (small): each rank reads its own matrices' right-hand sides */
    if (b && (!whole_root(b) || b->ndim != nd || (b->store->tiled && !batch_tiled_as(b->store, s, nb))))
        return NULL;
    return s;
}

bool cpn_lapack_batch_wants_slabs(const struct cpn_view *a)
{
    const int nb = a->ndim - 2;
    if (cpn_comm_size() < 2 || nb < 1 || !whole_root(a) || !a->store->tiled || a->shape[0] < 2) return false;
    return !batch_tiled_as(a->store, a->store, nb);
}

bool cpn_lapack_batch_applies(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_LAPACK || op->nout != 2 || op->nin < 1 || !op->in[0]) return false;
    const struct cpn_view *a = op->in[0], *b = op->nin > 1 ? op->in[1] : NULL;
    const struct cpn_store *s = cpn_lapack_batch_source(a, b);
    if (!s) return false;
    const int nb = a->ndim - 2;
    for (int i = 0; i < 2; i++) {
        const struct cpn_view *o = op->out[i];
        if (!whole_root(o) || o->ndim != nb + 1 || !batch_tiled_as(o->store, s, nb)) return false;
        for (int d = 0; d < nb; d++)
            if (o->shape[d] != a->shape[d]) return false;
    }
    return true;
}

/* C-contiguous byte strides of a box of extents ext. */
static void box_strides(int nd, const int64_t *ext, size_t item, int64_t *st)
{
    int64_t acc = (int64_t)item;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = acc;
        acc *= ext[d] > 0 ? ext[d] : 1;
    }
}

static void tile_extents(const struct cpn_store *s, int64_t *ext)
{
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
    cpn_store_tile_box(s, cpn_comm_rank(), lo, hi);
    for (int d = 0; d < s->ndim; d++) ext[d] = hi[d] - lo[d];
}

enum cpn_status cpn_lapack_batch_execute(const struct cpn_op *op)
{
    const struct cpn_view *a = op->in[0], *b = op->nin > 1 ? op->in[1] : NULL;
    struct cpn_store *as = a->store, *bs = b ? b->store : NULL;
    struct cpn_store *os = op->out[0]->store, *xs = op->out[1]->store;
    const int nb = a->ndim - 2;
    int64_t ae[CPN_MAXDIM], be[CPN_MAXDIM], oe[CPN_MAXDIM], xe[CPN_MAXDIM];
    int64_t ast[CPN_MAXDIM], bst[CPN_MAXDIM], ost[CPN_MAXDIM], xst[CPN_MAXDIM];
    tile_extents(as, ae);
    tile_extents(os, oe);
    tile_extents(xs, xe);
    int64_t count = 1;
    for (int d = 0; d < nb; d++) count *= ae[d];
    if (count <= 0) return CPN_OK;   /* this rank holds no matrix */
    box_strides(nb + 2, ae, cpn_dtype_size(a->dtype), ast);
    box_strides(nb + 1, oe, cpn_dtype_size(os->dtype), ost);
    box_strides(nb + 1, xe, cpn_dtype_size(xs->dtype), xst);
    const char *A = cpn_store_data(as), *B = NULL;
    if (!A) return CPN_ERR_NOMEM;
    if (bs) {
        tile_extents(bs, be);
        box_strides(nb + 2, be, cpn_dtype_size(b->dtype), bst);
        if (!(B = cpn_store_data(bs))) return CPN_ERR_NOMEM;
        if (!bs->tiled) {   /* replicated: this rank's matrices start at its tile's corner */
            int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
            cpn_store_tile_box(as, cpn_comm_rank(), lo, hi);
            for (int d = 0; d < nb; d++) B += lo[d] * bst[d];
        }
    }
    char *O = cpn_store_data_for_overwrite(os);
    double *X = cpn_store_data_for_overwrite(xs);
    if (!O || !X) return CPN_ERR_NOMEM;
    struct cpn_lapack_args la = {
        .code = op->code, .dt = op->dtype, .nb = nb, .bshape = oe, .a = A, .as = ast, .b = B,
        .bs = bs ? bst : NULL, .m = ae[nb], .n = ae[nb + 1], .nrhs = bs ? be[nb + 1] : 0, .out = O,
        .os = ost, .aux = X, .xs = xst, .p = {op->iparam[0], op->iparam[1]}, .rcond = op->dparam[0],
    };
    return cpn_kernel_lapack(&la);
}
