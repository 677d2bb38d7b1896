/* distfft.c: the fft op on partitioned stores (see distfft.h).
 *
 * A transform that no rank's tile cuts (the transformed dimensions whole in every tile, the
 * output tiled like the input on the others) is owner computes: each rank transforms its tile,
 * no byte moves.  Otherwise slab decomposition, as FFTW-MPI does: the data are redistributed
 * ("transposed") into slabs along a dimension the transform does not touch, every rank
 * transforms its slab, and the result is left in the output's tiling.  With no such dimension
 * (fft2/fftn over every dimension) the slabs are along the transformed dimension the shape's
 * default tiling cuts, for the others, then one all-to-all transpose into slabs along a second one
 * for it (chosen from the shape alone, so equal operands round alike in any layout).  The output
 * store is created (cpn_distfft_new_output) in the layout the last step leaves, so the result
 * moves no further; an input already in slabs moves nothing either: fft2 of a row-partitioned
 * array sends one transpose's worth of bytes per rank.  A complex transform of a partitioned
 * vector (1-D) is the four-step algorithm (four_step below): three transposes.
 *
 * A redistribution between two layouts (a box per rank) sends each rank the intersection of its
 * box with this rank's, point to point (cpn_comm_post), computed from the tilings alone on every
 * rank, so sends and receives match without negotiation.  Local buffers are C-contiguous over
 * their box (as store tiles are).  Everything here is Collective over the ranks that share the
 * op (every rank runs every op). */
#include "distfft.h"

#include <math.h>
#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "opsem.h"
#include "kernels.h"
#include "partition.h"
#include "store.h"
#include "view.h"

#define FFT_TAG 0x5ff7

/* The dimension slabs of the single-step plan are cut along: the longest one not transformed;
 * -1 when every dimension is transformed.  Pure. */
static int batch_dim(int nd, const int64_t *shape, uint64_t axes)
{
    int b = -1;
    for (int d = 0; d < nd; d++)
        if (!((axes >> d) & 1) && (b < 0 || shape[d] > shape[b])) b = d;
    return b;
}

/* The two slab dimensions of the two-step plan: the transformed dimension the default tiling of
 * the shape cuts most (the first one when none), then the longest other transformed one.  They
 * depend on the shape and the rank count alone, never on the input's own tiling: the order the
 * dimensions are transformed in (and so the rounding) is then the same for equal operands however
 * they are laid out (an input in other slabs pays one more redistribution).  Pure. */
static void two_step_dims(int nd, const int64_t *shape, uint64_t axes, int *t0, int *t1)
{
    int grid[CPN_MAXDIM];
    cpn_partition_grid(nd, shape, cpn_comm_size(), grid);
    *t0 = *t1 = -1;
    for (int d = 0; d < nd; d++)
        if (((axes >> d) & 1) && (*t0 < 0 || grid[d] > grid[*t0])) *t0 = d;
    for (int d = 0; d < nd; d++)
        if (((axes >> d) & 1) && d != *t0 && (*t1 < 0 || shape[d] > shape[*t1])) *t1 = d;
}

/* Does no tile of s cut a transformed dimension? */
static bool axes_whole(const struct cpn_store *s, uint64_t axes)
{
    for (int d = 0; d < s->ndim; d++)
        if (((axes >> d) & 1) && s->tiled && s->grid[d] > 1) return false;
    return true;
}

struct cpn_store *cpn_distfft_new_output(enum cpn_dtype dt, int nd, const int64_t *shape,
                                         const struct cpn_view *in, uint64_t axes)
{
    const struct cpn_store *r = cpn_store_root(in->store);
    if (!r->tiled || !cpn_view_is_whole(in)) return cpn_store_new(dt, nd, shape);
    if (axes_whole(r, axes)) return cpn_store_new_tiled_as(dt, nd, shape, r);
    int b = batch_dim(nd, shape, axes);
    if (b >= 0) return cpn_store_new_slabs(dt, nd, shape, b);
    int t0, t1;
    two_step_dims(nd, shape, axes, &t0, &t1);
    return t1 >= 0 ? cpn_store_new_slabs(dt, nd, shape, t1) : cpn_store_new(dt, nd, shape);
}

/* N = N1 * N2 with N1 the largest divisor of N not above its square root (1: N is prime). */
static int64_t four_step_split(int64_t n)
{
    int64_t best = 1;
    for (int64_t d = 2; d * d <= n; d++)
        if (n % d == 0) best = d;
    return best;
}

bool cpn_distfft_applies(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_FFT || op->nin != 1 || op->nout != 1 || !op->in[0]) return false;
    if (!cpn_view_is_whole(op->in[0]) || !cpn_view_is_whole(op->out[0])) return false;
    const struct cpn_store *i = op->in[0]->store, *o = op->out[0]->store;
    if (i->virt || o->virt || i == o) return false;
    if (!i->tiled && !o->tiled) return false;
    const int nd = i->ndim;
    /* a complex transform of a partitioned vector: the four-step algorithm (a composite length) */
    if (nd == 1)
        return op->code <= CPN_FFT_C2C_BACKWARD && i->tiled && four_step_split(i->shape[0]) > 1 &&
               cpn_comm_size() <= 64;
    return batch_dim(nd, i->shape, op->axes) >= 0 || op->code <= CPN_FFT_C2C_BACKWARD;
}

/* ---- layouts: a box [lo, hi) per rank -------------------------------------------------------- */

struct layout {
    int nd, ranks;
    bool replicated;   /* every rank holds the whole (only a source may be) */
    int64_t lo[CPN_MAXDIM * 64], hi[CPN_MAXDIM * 64];
};

static void layout_of_store(struct layout *L, const struct cpn_store *s, int ranks)
{
    L->nd = s->ndim;
    L->ranks = ranks;
    L->replicated = !s->tiled;
    for (int r = 0; r < ranks; r++) cpn_store_tile_box(s, r, L->lo + r * L->nd, L->hi + r * L->nd);
}

static void layout_slabs(struct layout *L, int nd, const int64_t *shape, int dim, int ranks)
{
    L->nd = nd;
    L->ranks = ranks;
    L->replicated = false;
    for (int r = 0; r < ranks; r++)
        for (int d = 0; d < nd; d++) {
            L->lo[r * nd + d] = d == dim ? shape[d] * r / ranks : 0;
            L->hi[r * nd + d] = d == dim ? shape[d] * (r + 1) / ranks : shape[d];
        }
}

static bool layout_equal(const struct layout *a, const struct layout *b)
{
    if (a->replicated != b->replicated) return false;
    size_t n = (size_t)a->ranks * (size_t)a->nd * sizeof(int64_t);
    return memcmp(a->lo, b->lo, n) == 0 && memcmp(a->hi, b->hi, n) == 0;
}

static int64_t box_size(int nd, const int64_t *lo, const int64_t *hi)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
    return n;
}

static bool intersect(int nd, const int64_t *alo, const int64_t *ahi, const int64_t *blo,
                      const int64_t *bhi, int64_t *lo, int64_t *hi)
{
    for (int d = 0; d < nd; d++) {
        lo[d] = alo[d] > blo[d] ? alo[d] : blo[d];
        hi[d] = ahi[d] < bhi[d] ? ahi[d] : bhi[d];
        if (lo[d] >= hi[d]) return false;
    }
    return true;
}

/* Copy region [rlo, rhi) between C-contiguous buffers over boxes: dst over [dlo, dhi) (NULL:
 * dst is the packed region itself), src over [slo, shi) (NULL: src is packed). */
static void copy_region(int nd, size_t es, const int64_t *rlo, const int64_t *rhi, char *dst,
                        const int64_t *dlo, const int64_t *dhi, const char *src, const int64_t *slo,
                        const int64_t *shi)
{
    int64_t dst_st[CPN_MAXDIM], src_st[CPN_MAXDIM], pst[CPN_MAXDIM], ext[CPN_MAXDIM];
    int64_t a = 1, b = 1, c = 1;
    for (int d = nd - 1; d >= 0; d--) {
        ext[d] = rhi[d] - rlo[d];
        pst[d] = c;
        c *= ext[d];
        dst_st[d] = dlo ? a : pst[d];
        src_st[d] = slo ? b : pst[d];
        if (dlo) a *= dhi[d] - dlo[d];
        if (slo) b *= shi[d] - slo[d];
    }
    int64_t idx[CPN_MAXDIM] = {0}, rows = 1;
    for (int d = 0; d < nd - 1; d++) rows *= ext[d];
    const size_t row = (size_t)ext[nd - 1] * es;
    for (int64_t r = 0; r < rows; r++) {
        int64_t doff = 0, soff = 0;
        for (int d = 0; d < nd; d++) {
            const int64_t i = d < nd - 1 ? idx[d] : 0;
            doff += (i + rlo[d] - (dlo ? dlo[d] : rlo[d])) * dst_st[d];
            soff += (i + rlo[d] - (slo ? slo[d] : rlo[d])) * src_st[d];
        }
        memcpy(dst + (size_t)doff * es, src + (size_t)soff * es, row);
        for (int d = nd - 2; d >= 0; d--) {
            if (++idx[d] < ext[d]) break;
            idx[d] = 0;
        }
    }
}

/* dst (this rank's box of layout D) = the same elements of src (this rank's box of S).
 * Collective. */
static enum cpn_status redistribute(const struct layout *S, const char *src, const struct layout *D,
                                    char *dst, size_t es)
{
    const int nd = S->nd, P = S->ranks, me = cpn_comm_rank();
    const int64_t *mylo = S->lo + me * nd, *myhi = S->hi + me * nd;
    const int64_t *dlo = D->lo + me * nd, *dhi = D->hi + me * nd;
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
    if (S->replicated) {   /* every rank already holds what it needs */
        if (intersect(nd, mylo, myhi, dlo, dhi, lo, hi)) copy_region(nd, es, lo, hi, dst, dlo, dhi, src, mylo, myhi);
        return CPN_OK;
    }
    struct cpn_msg *recvs = cpn_alloc(sizeof *recvs * (size_t)P * 2);
    if (!recvs) return CPN_ERR_NOMEM;
    struct cpn_msg *sends = recvs + P;
    int nr = 0, ns = 0;
    enum cpn_status st = CPN_OK;
    for (int r = 0; r < P && st == CPN_OK; r++) {
        if (r == me) continue;
        if (intersect(nd, S->lo + r * nd, S->hi + r * nd, dlo, dhi, lo, hi)) {
            size_t n = (size_t)box_size(nd, lo, hi) * es;
            void *b = cpn_alloc(n);
            if (!b) st = CPN_ERR_NOMEM;
            else recvs[nr++] = (struct cpn_msg){.peer = r, .tag = FFT_TAG, .buf = b, .bytes = n};
        }
        if (st == CPN_OK && intersect(nd, mylo, myhi, D->lo + r * nd, D->hi + r * nd, lo, hi)) {
            size_t n = (size_t)box_size(nd, lo, hi) * es;
            char *b = cpn_alloc(n);
            if (!b) {
                st = CPN_ERR_NOMEM;
            } else {
                copy_region(nd, es, lo, hi, b, NULL, NULL, src, mylo, myhi);
                sends[ns++] = (struct cpn_msg){.peer = r, .tag = FFT_TAG, .buf = b, .bytes = n};
            }
        }
    }
    void *h = NULL;
    if (st == CPN_OK) st = cpn_comm_post(nr, recvs, ns, sends, &h);
    if (st == CPN_OK && intersect(nd, mylo, myhi, dlo, dhi, lo, hi))   /* while they fly */
        copy_region(nd, es, lo, hi, dst, dlo, dhi, src, mylo, myhi);
    if (st == CPN_OK && h) st = cpn_comm_wait(h);
    for (int i = 0; i < nr; i++) {
        if (st == CPN_OK) {
            const int r = recvs[i].peer;
            intersect(nd, S->lo + r * nd, S->hi + r * nd, dlo, dhi, lo, hi);
            copy_region(nd, es, lo, hi, dst, dlo, dhi, recvs[i].buf, NULL, NULL);
        }
        cpn_free(recvs[i].buf);
    }
    for (int i = 0; i < ns; i++) cpn_free(sends[i].buf);
    cpn_free(recvs);
    return st;
}

/* ---- the steps --------------------------------------------------------------------------------- */

/* The transform `kind` over `axes` of the local box of layout LI (buffer in) into the local box
 * of LO (buffer out): both boxes agree on the untransformed dimensions. */
static enum cpn_status local_fft(const struct cpn_op *op, int kind, uint64_t axes, double scale,
                                 const struct layout *LI, const char *in, enum cpn_dtype idt,
                                 const struct layout *LO, char *out, enum cpn_dtype odt)
{
    const int nd = LI->nd, me = cpn_comm_rank();
    int64_t ish[CPN_MAXDIM], osh[CPN_MAXDIM], is[CPN_MAXDIM], os[CPN_MAXDIM];
    for (int d = 0; d < nd; d++) {
        ish[d] = LI->hi[me * nd + d] - LI->lo[me * nd + d];
        osh[d] = LO->hi[me * nd + d] - LO->lo[me * nd + d];
    }
    int64_t a = (int64_t)cpn_dtype_size(idt), b = (int64_t)cpn_dtype_size(odt);
    for (int d = nd - 1; d >= 0; d--) {
        is[d] = a;
        os[d] = b;
        a *= ish[d] > 0 ? ish[d] : 1;
        b *= osh[d] > 0 ? osh[d] : 1;
    }
    return cpn_kernel_fft((enum cpn_fft_kind)kind, op->dtype, nd, axes, ish, in, is, osh, out, os, scale);
}

static char *alloc_box(const struct layout *L, enum cpn_dtype dt)
{
    const int me = cpn_comm_rank();
    int64_t n = box_size(L->nd, L->lo + me * L->nd, L->hi + me * L->nd);
    return cpn_alloc((size_t)(n > 0 ? n : 1) * cpn_dtype_size(dt));
}

/* ---- a 1-D transform of a partitioned vector: the four-step algorithm --------------------------
 *
 * N = N1 * N2, x[n1 + N1 n2] seen as the N2 x N1 matrix A (row n2, column n1) and
 * X[k2 + N2 k1] = sum_n1 w_N^(n1 k2) w_N1^(n1 k1) sum_n2 A[n2][n1] w_N2^(n2 k2), w_m = e^(-+2 pi i/m):
 * A in row slabs (the vector's own chunks, moved only where its split points are not rows')
 * -> transpose into column slabs -> length-N2 transforms down the columns and the twiddles
 * w_N^(n1 k2) -> transpose back into row slabs -> length-N1 transforms along the rows give
 * Y[k2][k1] = X[k2 + N2 k1], whose local transpose is X seen as N1 x N2 in column slabs -> one
 * last transpose into its row slabs, the output vector's chunks (moved again only where the
 * output's split points are not rows').  Three all-to-all transposes, as FFTW-MPI's 1-D
 * transform. */

static void layout_rows_1d(struct layout *L, int64_t rows, int64_t width, int ranks)
{
    L->nd = 1;
    L->ranks = ranks;
    L->replicated = false;
    for (int r = 0; r < ranks; r++) {
        L->lo[r] = width * (rows * r / ranks);
        L->hi[r] = width * (rows * (r + 1) / ranks);
    }
}

/* buf (this rank's box of L, an N2 x N1 column slab) times w_N^(n1 k2), sign -1 forward. */
static void twiddle(char *buf, enum cpn_dtype cdt, const struct layout *L, int64_t N, int sign)
{
    const int me = cpn_comm_rank();
    const int64_t r0 = L->lo[me * 2], r1 = L->hi[me * 2], c0 = L->lo[me * 2 + 1], c1 = L->hi[me * 2 + 1];
    const double step = 2.0 * 3.14159265358979323846 / (double)N;
    for (int64_t k2 = r0; k2 < r1; k2++)
        for (int64_t n1 = c0; n1 < c1; n1++) {
            /* the exponent reduced modulo N exactly first, so the angle stays in [0, 2 pi) */
            const int64_t e = (int64_t)(((__int128)k2 * n1) % N);
            const double s = sin(step * (double)e) * sign, c = cos(step * (double)e);
            const int64_t i = (k2 - r0) * (c1 - c0) + (n1 - c0);
            if (cdt == CPN_DTYPE_COMPLEX64) {
                float *z = (float *)buf + 2 * i;
                const double re = z[0], im = z[1];
                z[0] = (float)(re * c - im * s);
                z[1] = (float)(re * s + im * c);
            } else {
                double *z = (double *)buf + 2 * i;
                const double re = z[0], im = z[1];
                z[0] = re * c - im * s;
                z[1] = re * s + im * c;
            }
        }
}

static enum cpn_status four_step(const struct cpn_op *op, const struct layout *LI, const char *ibuf,
                                 const struct layout *LO, char *obuf)
{
    const int P = cpn_comm_size(), me = cpn_comm_rank();
    const int64_t N = op->in[0]->store->shape[0], N1 = four_step_split(N), N2 = N / N1;
    const enum cpn_dtype cdt = op->dtype;
    const size_t es = cpn_dtype_size(cdt);
    const int kind = op->code, sign = kind == CPN_FFT_C2C_FORWARD ? -1 : 1;
    static struct layout A1, R, C, XC, XR, X1;
    layout_rows_1d(&A1, N2, N1, P);
    const int64_t ashape[2] = {N2, N1}, xshape[2] = {N1, N2};
    layout_slabs(&R, 2, ashape, 0, P);
    layout_slabs(&C, 2, ashape, 1, P);
    layout_slabs(&XC, 2, xshape, 1, P);
    layout_slabs(&XR, 2, xshape, 0, P);
    layout_rows_1d(&X1, N1, N2, P);
    enum cpn_status st = CPN_OK;
    char *a = alloc_box(&R, cdt), *c = alloc_box(&C, cdt), *c2 = alloc_box(&C, cdt), *x = alloc_box(&XR, cdt);
    if (!a || !c || !c2 || !x) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    /* the vector's chunks into whole rows of A, then columns */
    if (layout_equal(&A1, LI)) memcpy(a, ibuf, (size_t)(A1.hi[me] - A1.lo[me]) * es);
    else if ((st = redistribute(LI, ibuf, &A1, a, es)) != CPN_OK) goto done;
    if ((st = redistribute(&R, a, &C, c, es)) != CPN_OK) goto done;
    if (C.hi[me * 2 + 1] > C.lo[me * 2 + 1]) {
        if ((st = local_fft(op, kind, 1, 1.0, &C, c, cdt, &C, c2, cdt)) != CPN_OK) goto done;
        twiddle(c2, cdt, &C, N, sign);
    }
    if ((st = redistribute(&C, c2, &R, a, es)) != CPN_OK) goto done;
    /* along the rows: Y[k2][k1] in row slabs over k2, into c's bytes (as large) */
    const int64_t y0 = R.lo[me * 2], y1 = R.hi[me * 2];
    char *y = NULL;
    if (y1 > y0) {
        y = cpn_alloc((size_t)((y1 - y0) * N1) * es);
        if (!y) {
            st = CPN_ERR_NOMEM;
            goto done;
        }
        st = local_fft(op, kind, 2, op->dparam[0], &R, a, cdt, &R, y, cdt);
        /* Y's rows k2 are X's (N1 x N2) columns: the local transpose into XC's box */
        char *xc = a;   /* (N1, y1 - y0), C order, reusing a's bytes (the same count) */
        for (int64_t k2 = 0; st == CPN_OK && k2 < y1 - y0; k2++)
            for (int64_t k1 = 0; k1 < N1; k1++)
                memcpy(xc + (size_t)(k1 * (y1 - y0) + k2) * es, y + (size_t)(k2 * N1 + k1) * es, es);
        cpn_free(y);
        if (st != CPN_OK) goto done;
    }
    if ((st = redistribute(&XC, a, &XR, x, es)) != CPN_OK) goto done;
    if (layout_equal(&X1, LO)) memcpy(obuf, x, (size_t)(X1.hi[me] - X1.lo[me]) * es);
    else st = redistribute(&X1, x, LO, obuf, es);
done:
    cpn_free(a);
    cpn_free(c);
    cpn_free(c2);
    cpn_free(x);
    return st;
}

enum cpn_status cpn_distfft_execute(const struct cpn_op *op)
{
    struct cpn_store *is = op->in[0]->store, *os = op->out[0]->store;
    const int nd = is->ndim, P = cpn_comm_size();
    if (P > 64) return cpn_error(CPN_ERR_UNSUPPORTED, "fft: more than 64 ranks");
    const enum cpn_dtype idt = is->dtype, odt = os->dtype, cdt = op->dtype;
    const size_t ies = cpn_dtype_size(idt), oes = cpn_dtype_size(odt);
    const uint64_t axes = op->axes;
    const double scale = op->dparam[0];
    static struct layout LI, LO, A, B;   /* large; the executor runs one op at a time */
    layout_of_store(&LI, is, P);
    layout_of_store(&LO, os, P);
    char *ibuf = cpn_store_data(is), *obuf = cpn_op_output_buffer(op);
    if (!ibuf || !obuf) return CPN_ERR_NOMEM;
    enum cpn_status st = CPN_OK;
    char *t1 = NULL, *t2 = NULL, *t3 = NULL;

    /* owner computes: the tiles agree on the untransformed dimensions and cut no transformed one */
    bool local = !LI.replicated && !LO.replicated;
    for (int r = 0; local && r < P; r++)
        for (int d = 0; local && d < nd; d++) {
            const int k = r * nd + d;
            if ((axes >> d) & 1) local = LI.lo[k] == 0 && LI.hi[k] == is->shape[d] && LO.lo[k] == 0 && LO.hi[k] == os->shape[d];
            else local = LI.lo[k] == LO.lo[k] && LI.hi[k] == LO.hi[k];
        }
    if (local) return local_fft(op, op->code, axes, scale, &LI, ibuf, idt, &LO, obuf, odt);
    if (nd == 1) return four_step(op, &LI, ibuf, &LO, obuf);

    const int b = batch_dim(nd, is->shape, axes);
    if (b >= 0) {
        /* one step: slabs along an untransformed dimension */
        layout_slabs(&A, nd, is->shape, b, P);
        layout_slabs(&B, nd, os->shape, b, P);
        const char *in = ibuf;
        if (!layout_equal(&A, &LI)) {
            if (!(t1 = alloc_box(&A, idt))) return CPN_ERR_NOMEM;
            if ((st = redistribute(&LI, ibuf, &A, t1, ies)) != CPN_OK) goto done;
            in = t1;
        }
        const bool direct = layout_equal(&B, &LO);
        char *out = obuf;
        if (!direct && !(out = t2 = alloc_box(&B, odt))) {
            st = CPN_ERR_NOMEM;
            goto done;
        }
        if ((st = local_fft(op, op->code, axes, scale, &A, in, idt, &B, out, odt)) != CPN_OK) goto done;
        if (!direct) st = redistribute(&B, t2, &LO, obuf, oes);
        goto done;
    }

    /* two steps (complex to complex over every dimension): slabs along t0 for the others, one
     * transpose, slabs along t1 for t0 */
    int t0, tt;
    two_step_dims(nd, is->shape, axes, &t0, &tt);
    layout_slabs(&A, nd, is->shape, t0, P);
    layout_slabs(&B, nd, os->shape, tt, P);
    const size_t ces = cpn_dtype_size(cdt);
    const char *in = ibuf;
    if (!layout_equal(&A, &LI)) {
        if (!(t1 = alloc_box(&A, idt))) return CPN_ERR_NOMEM;
        if ((st = redistribute(&LI, ibuf, &A, t1, ies)) != CPN_OK) goto done;
        in = t1;
    }
    if (!(t2 = alloc_box(&A, cdt))) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    const uint64_t rest = axes & ~((uint64_t)1 << t0);
    if ((st = local_fft(op, op->code, rest, 1.0, &A, in, idt, &A, t2, cdt)) != CPN_OK) goto done;
    cpn_free(t1);
    t1 = NULL;
    if (!(t1 = alloc_box(&B, cdt))) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    if ((st = redistribute(&A, t2, &B, t1, ces)) != CPN_OK) goto done;
    const bool direct = layout_equal(&B, &LO);
    char *out = obuf;
    if (!direct && !(out = t3 = alloc_box(&B, odt))) {
        st = CPN_ERR_NOMEM;
        goto done;
    }
    if ((st = local_fft(op, op->code, (uint64_t)1 << t0, scale, &B, t1, cdt, &B, out, odt)) != CPN_OK) goto done;
    if (!direct) st = redistribute(&B, t3, &LO, obuf, oes);
done:
    cpn_free(t1);
    cpn_free(t2);
    cpn_free(t3);
    return st;
}
