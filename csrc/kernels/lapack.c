/* lapack.c: numpy.linalg's factorizations on LAPACK, one matrix of a batch at a time.
 *
 * The LAPACK is the BLAS library's own (OpenBLAS ships LAPACK; scipy-openblas32's symbols carry
 * the `scipy_` prefix: `scipy_dgesv_`), called through its Fortran interface, declared here as
 * matmul.c declares CBLAS, so that one file serves both libraries meson accepts (32-bit integers,
 * hidden string lengths at the end).  The routines are NumPy's (numpy/linalg/umath_linalg.cpp):
 * gesv (solve, inv), getrf (det, slogdet), potrf (cholesky), geqrf + orgqr/ungqr (qr), syevd/heevd
 * (eigh, eigvalsh), gesdd (svd, svdvals), geev (eig, eigvals), gelsd (lstsq).
 *
 * Each matrix is copied into a column-major buffer (blocked, any strides), factored, and its
 * results are written row-major into the op's packed output (one row of `out` per matrix, layout
 * per routine in kernels.h) and its float64 `aux` row (aux[0]: LAPACK's info; then the
 * real-valued results).  A matrix whose info is non-zero leaves the rest of its rows unspecified:
 * the caller raises LinAlgError and returns nothing. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "cpn_config.h"
#include "kernels.h"
#include "scalar.h"

#if CPN_HAVE_BLAS
#define CPN_CAT2(a, b) a##b
#define CPN_CAT(a, b) CPN_CAT2(a, b)
#define LAPACK(name) CPN_CAT(CPN_BLAS_PREFIX, name)

typedef int lint;
typedef size_t flen;   /* the hidden length of a character argument */

#define GESV(p, T) void LAPACK(p##gesv_)(const lint *, const lint *, T *, const lint *, lint *, T *, const lint *, lint *);
#define GETRF(p, T) void LAPACK(p##getrf_)(const lint *, const lint *, T *, const lint *, lint *, lint *);
#define POTRF(p, T) void LAPACK(p##potrf_)(const char *, const lint *, T *, const lint *, lint *, flen);
#define GEQRF(p, T) void LAPACK(p##geqrf_)(const lint *, const lint *, T *, const lint *, T *, T *, const lint *, lint *);
GESV(s, float) GESV(d, double) GESV(c, void) GESV(z, void)
GETRF(s, float) GETRF(d, double) GETRF(c, void) GETRF(z, void)
POTRF(s, float) POTRF(d, double) POTRF(c, void) POTRF(z, void)
GEQRF(s, float) GEQRF(d, double) GEQRF(c, void) GEQRF(z, void)
void LAPACK(sorgqr_)(const lint *, const lint *, const lint *, float *, const lint *, const float *, float *, const lint *, lint *);
void LAPACK(dorgqr_)(const lint *, const lint *, const lint *, double *, const lint *, const double *, double *, const lint *, lint *);
void LAPACK(cungqr_)(const lint *, const lint *, const lint *, void *, const lint *, const void *, void *, const lint *, lint *);
void LAPACK(zungqr_)(const lint *, const lint *, const lint *, void *, const lint *, const void *, void *, const lint *, lint *);
void LAPACK(ssyevd_)(const char *, const char *, const lint *, float *, const lint *, float *, float *, const lint *, lint *, const lint *, lint *, flen, flen);
void LAPACK(dsyevd_)(const char *, const char *, const lint *, double *, const lint *, double *, double *, const lint *, lint *, const lint *, lint *, flen, flen);
void LAPACK(cheevd_)(const char *, const char *, const lint *, void *, const lint *, float *, void *, const lint *, float *, const lint *, lint *, const lint *, lint *, flen, flen);
void LAPACK(zheevd_)(const char *, const char *, const lint *, void *, const lint *, double *, void *, const lint *, double *, const lint *, lint *, const lint *, lint *, flen, flen);
void LAPACK(sgesdd_)(const char *, const lint *, const lint *, float *, const lint *, float *, float *, const lint *, float *, const lint *, float *, const lint *, lint *, lint *, flen);
void LAPACK(dgesdd_)(const char *, const lint *, const lint *, double *, const lint *, double *, double *, const lint *, double *, const lint *, double *, const lint *, lint *, lint *, flen);
void LAPACK(cgesdd_)(const char *, const lint *, const lint *, void *, const lint *, float *, void *, const lint *, void *, const lint *, void *, const lint *, float *, lint *, lint *, flen);
void LAPACK(zgesdd_)(const char *, const lint *, const lint *, void *, const lint *, double *, void *, const lint *, void *, const lint *, void *, const lint *, double *, lint *, lint *, flen);
void LAPACK(sgeev_)(const char *, const char *, const lint *, float *, const lint *, float *, float *, float *, const lint *, float *, const lint *, float *, const lint *, lint *, flen, flen);
void LAPACK(dgeev_)(const char *, const char *, const lint *, double *, const lint *, double *, double *, double *, const lint *, double *, const lint *, double *, const lint *, lint *, flen, flen);
void LAPACK(cgeev_)(const char *, const char *, const lint *, void *, const lint *, void *, void *, const lint *, void *, const lint *, void *, const lint *, float *, lint *, flen, flen);
void LAPACK(zgeev_)(const char *, const char *, const lint *, void *, const lint *, void *, void *, const lint *, void *, const lint *, void *, const lint *, double *, lint *, flen, flen);
void LAPACK(sgelsd_)(const lint *, const lint *, const lint *, float *, const lint *, float *, const lint *, float *, const float *, lint *, float *, const lint *, lint *, lint *);
void LAPACK(dgelsd_)(const lint *, const lint *, const lint *, double *, const lint *, double *, const lint *, double *, const double *, lint *, double *, const lint *, lint *, lint *);
void LAPACK(cgelsd_)(const lint *, const lint *, const lint *, void *, const lint *, void *, const lint *, float *, const float *, lint *, void *, const lint *, float *, lint *, lint *);
void LAPACK(zgelsd_)(const lint *, const lint *, const lint *, void *, const lint *, void *, const lint *, double *, const double *, lint *, void *, const lint *, double *, lint *, lint *);

/* ---- moving matrices in and out ------------------------------------------------------------ */

/* dst[i + j*ld] = src[i*s0 + j*s1] for an r x c matrix (blocked, so that neither side strides
 * through memory one element per cache line). */
static void load_f(const char *src, int64_t s0, int64_t s1, int64_t r, int64_t c, size_t item,
                   char *dst, int64_t ld)
{
    enum { B = 32 };
    for (int64_t j0 = 0; j0 < c; j0 += B)
        for (int64_t i0 = 0; i0 < r; i0 += B) {
            int64_t j1 = j0 + B < c ? j0 + B : c, i1 = i0 + B < r ? i0 + B : r;
            for (int64_t j = j0; j < j1; j++)
                for (int64_t i = i0; i < i1; i++)
                    memcpy(dst + (size_t)(i + j * ld) * item, src + i * s0 + j * s1, item);
        }
}

/* dst[i*c + j] (row-major, contiguous) = src[i + j*ld] for an r x c column-major matrix. */
static void store_c(const char *src, int64_t ld, int64_t r, int64_t c, size_t item, char *dst)
{
    load_f(src, ld * (int64_t)item, (int64_t)item, c, r, item, dst, c);
}

/* Zero the strict upper (upper = false) or lower triangle of a column-major n x n matrix. */
static void zero_triangle(char *a, int64_t n, size_t item, bool lower_part)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            if (lower_part ? i > j : i < j) memset(a + (size_t)(i + j * n) * item, 0, item);
}

static bool is_complex(enum cpn_dtype dt) { return dt == CPN_DTYPE_COMPLEX64 || dt == CPN_DTYPE_COMPLEX128; }
static bool is_single(enum cpn_dtype dt) { return dt == CPN_DTYPE_FLOAT32 || dt == CPN_DTYPE_COMPLEX64; }

/* The real value at p (float or double, the real part of a complex). */
static double getr(const char *p, bool single) { return single ? (double)*(const float *)p : *(const double *)p; }

/* A workspace size LAPACK returned in a float or double (real part of a complex) */
static lint wsize(const char *w, bool single) { double v = getr(w, single); return v < 1 ? 1 : (lint)(v + 0.5); }

/* ---- one matrix per routine ------------------------------------------------------------------
 * `a` points at the matrix (byte strides as[0], as[1]), `b` at the right-hand side, `o` at the
 * matrix's packed output row, `x` at its aux row; `f` is a column-major scratch matrix of the
 * input's size, `work` scratch of the size asked by the routine's query (done by the caller). */

struct la {
    const struct cpn_lapack_args *p;
    enum cpn_dtype dt;
    size_t item;
    bool cplx, single;
    int64_t m, n, k;
};

#define CALL4(dt, name, ...)                                                              \
    do {                                                                                  \
        switch (dt) {                                                                     \
        case CPN_DTYPE_FLOAT32: LAPACK(s##name##_)(__VA_ARGS__); break;                     \
        case CPN_DTYPE_FLOAT64: LAPACK(d##name##_)(__VA_ARGS__); break;                     \
        case CPN_DTYPE_COMPLEX64: LAPACK(c##name##_)(__VA_ARGS__); break;                   \
        default: LAPACK(z##name##_)(__VA_ARGS__); break;                                    \
        }                                                                                 \
    } while (0)

/* The argument lists differ between real and complex (rwork), so two-form routines dispatch
 * by hand. */

static char *alloc_or(size_t n, enum cpn_status *st)
{
    char *p = cpn_alloc(n ? n : 1);
    if (!p) *st = CPN_ERR_NOMEM;
    return p;
}

/* 1 and -1 (or 0) in the dtype */
static void put_scalar(char *o, const struct la *L, double re, double im)
{
    switch (L->dt) {
    case CPN_DTYPE_FLOAT32: *(float *)o = (float)re; break;
    case CPN_DTYPE_FLOAT64: *(double *)o = re; break;
    case CPN_DTYPE_COMPLEX64: *(cpn_c64 *)o = (float)re + (float)im * I; break;
    default: *(cpn_c128 *)o = re + im * I; break;
    }
}

static void put_identity(char *f, const struct la *L, int64_t n)
{
    memset(f, 0, (size_t)(n * n) * L->item);
    for (int64_t i = 0; i < n; i++) put_scalar(f + (size_t)(i + i * n) * L->item, L, 1.0, 0.0);
}

enum cpn_status cpn_kernel_lapack(const struct cpn_lapack_args *p)
{
    const enum cpn_dtype dt = p->dt;
    struct la L = {.p = p, .dt = dt, .item = cpn_dtype_size(dt), .cplx = is_complex(dt),
                   .single = is_single(dt), .m = p->m, .n = p->n, .k = p->nrhs};
    const size_t item = L.item;
    const int64_t m = p->m, n = p->n, mn = m < n ? m : n;
    const bool single = L.single, cplx = L.cplx;
    const size_t ritem = single ? 4 : 8;   /* real element size */
    enum cpn_status st = CPN_OK;
    lint M = (lint)m, N = (lint)n, NRHS = (lint)p->nrhs, MN = (lint)mn, info = 0, lwork = -1;
    lint LDA = M > 1 ? M : 1;
    int64_t count = 1;
    for (int d = 0; d < p->nb; d++) count *= p->bshape[d];
    if (count == 0) return CPN_OK;
    cpn_kernel_blas_threads(count * m * n * mn);

    /* scratch: the matrix, a second matrix (rhs, U, V), vectors, and the routine's workspace */
    char *f = NULL, *g = NULL, *h = NULL, *vec = NULL, *vec2 = NULL, *work = NULL, *rwork = NULL;
    lint *ipiv = NULL, *iwork = NULL;
    char wq[16], rq[16];
    lint iq = 0, liwork = 0, lrwork = 0;
    int64_t gsz = 0, hsz = 0;
    const char jobv = p->p[1] ? 'V' : 'N';
    const char uplo = p->p[0] ? 'U' : 'L';
    lint ldu = 1, ldvt = 1, ucols = 0, vrows = 0;
    char jobz = 'N';

    f = alloc_or((size_t)(m * n) * item, &st);
    if (!f) goto done;
    switch (p->code) {
    case CPN_LA_SOLVE:
    case CPN_LA_INV:
        gsz = n * (p->code == CPN_LA_SOLVE ? p->nrhs : n);
        g = alloc_or((size_t)gsz * item, &st);
        ipiv = (lint *)alloc_or(sizeof(lint) * (size_t)(n + 1), &st);
        break;
    case CPN_LA_SLOGDET:
        ipiv = (lint *)alloc_or(sizeof(lint) * (size_t)(mn + 1), &st);
        break;
    case CPN_LA_CHOLESKY:
        break;
    case CPN_LA_QR: {
        vec = alloc_or((size_t)(mn + 1) * item, &st);
        /* complete mode needs an m x m Q: a larger scratch */
        if (p->p[0] == CPN_QR_COMPLETE && m > n) {
            cpn_free(f);
            f = alloc_or((size_t)(m * m) * item, &st);
        }
        if (st) goto done;
        CALL4(dt, geqrf, &M, &N, (void *)f, &LDA, (void *)vec, (void *)wq, &lwork, &info);
        lint w1 = wsize(wq, single), w2 = 1;
        if (p->p[0] == CPN_QR_REDUCED || p->p[0] == CPN_QR_COMPLETE) {
            lint qc = p->p[0] == CPN_QR_COMPLETE ? M : MN;
            switch (dt) {
            case CPN_DTYPE_FLOAT32: LAPACK(sorgqr_)(&M, &qc, &MN, (float *)f, &LDA, (float *)vec, (float *)wq, &lwork, &info); break;
            case CPN_DTYPE_FLOAT64: LAPACK(dorgqr_)(&M, &qc, &MN, (double *)f, &LDA, (double *)vec, (double *)wq, &lwork, &info); break;
            case CPN_DTYPE_COMPLEX64: LAPACK(cungqr_)(&M, &qc, &MN, f, &LDA, vec, wq, &lwork, &info); break;
            default: LAPACK(zungqr_)(&M, &qc, &MN, f, &LDA, vec, wq, &lwork, &info); break;
            }
            w2 = wsize(wq, single);
        }
        iq = w1 > w2 ? w1 : w2;
        work = alloc_or((size_t)iq * item, &st);
        gsz = m * n;   /* R is read from here after Q overwrites the factor */
        g = alloc_or((size_t)gsz * item, &st);
        break;
    }
    case CPN_LA_EIGH: {
        vec = alloc_or((size_t)(n + 1) * ritem, &st);
        if (st) goto done;
        lint lw = -1, lrw = -1, liw = -1;
        if (cplx) {
            if (single) LAPACK(cheevd_)(&jobv, &uplo, &N, f, &LDA, (float *)vec, wq, &lw, (float *)rq, &lrw, &iq, &liw, &info, 1, 1);
            else LAPACK(zheevd_)(&jobv, &uplo, &N, f, &LDA, (double *)vec, wq, &lw, (double *)rq, &lrw, &iq, &liw, &info, 1, 1);
            lrwork = wsize(rq, single);
            rwork = alloc_or((size_t)lrwork * ritem, &st);
        } else if (single) {
            LAPACK(ssyevd_)(&jobv, &uplo, &N, (float *)f, &LDA, (float *)vec, (float *)wq, &lw, &iq, &liw, &info, 1, 1);
        } else {
            LAPACK(dsyevd_)(&jobv, &uplo, &N, (double *)f, &LDA, (double *)vec, (double *)wq, &lw, &iq, &liw, &info, 1, 1);
        }
        lwork = wsize(wq, single);
        liwork = iq > 1 ? iq : 1;
        work = alloc_or((size_t)lwork * item, &st);
        iwork = (lint *)alloc_or(sizeof(lint) * (size_t)liwork, &st);
        break;
    }
    case CPN_LA_SVD: {
        const bool uv = p->p[1] != 0, full = p->p[0] != 0;
        jobz = uv ? (full ? 'A' : 'S') : 'N';
        ucols = uv ? (full ? M : MN) : 0;
        vrows = uv ? (full ? N : MN) : 0;
        ldu = M > 1 ? M : 1;
        ldvt = uv && vrows > 1 ? vrows : 1;
        gsz = uv ? m * ucols : 1;
        hsz = uv ? vrows * n : 1;
        g = alloc_or((size_t)gsz * item, &st);
        h = alloc_or((size_t)hsz * item, &st);
        vec = alloc_or((size_t)(mn + 1) * ritem, &st);
        iwork = (lint *)alloc_or(sizeof(lint) * (size_t)(8 * mn + 1), &st);
        if (st) goto done;
        if (cplx) {
            /* LAPACK's documented rwork size for jobz (3.7+) */
            int64_t mx = m > n ? m : n;
            int64_t lr = uv ? (5 * mn + 7 > 2 * mx + 2 * mn + 1 ? mn * (5 * mn + 7) : mn * (2 * mx + 2 * mn + 1))
                            : 7 * mn;
            lrwork = (lint)(lr > 1 ? lr : 1);
            rwork = alloc_or((size_t)lrwork * ritem, &st);
            if (st) goto done;
            if (single) LAPACK(cgesdd_)(&jobz, &M, &N, f, &LDA, (float *)vec, g, &ldu, h, &ldvt, wq, &lwork, (float *)rwork, iwork, &info, 1);
            else LAPACK(zgesdd_)(&jobz, &M, &N, f, &LDA, (double *)vec, g, &ldu, h, &ldvt, wq, &lwork, (double *)rwork, iwork, &info, 1);
        } else if (single) {
            LAPACK(sgesdd_)(&jobz, &M, &N, (float *)f, &LDA, (float *)vec, (float *)g, &ldu, (float *)h, &ldvt, (float *)wq, &lwork, iwork, &info, 1);
        } else {
            LAPACK(dgesdd_)(&jobz, &M, &N, (double *)f, &LDA, (double *)vec, (double *)g, &ldu, (double *)h, &ldvt, (double *)wq, &lwork, iwork, &info, 1);
        }
        lwork = wsize(wq, single);
        work = alloc_or((size_t)lwork * item, &st);
        break;
    }
    case CPN_LA_EIG: {
        /* real input: wr, wi and a real VR; complex: w and VR */
        vec = alloc_or((size_t)(2 * n + 1) * item, &st);
        gsz = p->p[1] ? n * n : 1;
        g = alloc_or((size_t)gsz * item, &st);
        if (st) goto done;
        const char nv = 'N';
        lint ldvr = p->p[1] && N > 1 ? N : 1;
        if (cplx) {
            rwork = alloc_or((size_t)(2 * n + 1) * ritem, &st);
            if (st) goto done;
            if (single) LAPACK(cgeev_)(&nv, &jobv, &N, f, &LDA, vec, NULL, &N, g, &ldvr, wq, &lwork, (float *)rwork, &info, 1, 1);
            else LAPACK(zgeev_)(&nv, &jobv, &N, f, &LDA, vec, NULL, &N, g, &ldvr, wq, &lwork, (double *)rwork, &info, 1, 1);
        } else if (single) {
            LAPACK(sgeev_)(&nv, &jobv, &N, (float *)f, &LDA, (float *)vec, (float *)vec + n, NULL, &N, (float *)g, &ldvr, (float *)wq, &lwork, &info, 1, 1);
        } else {
            LAPACK(dgeev_)(&nv, &jobv, &N, (double *)f, &LDA, (double *)vec, (double *)vec + n, NULL, &N, (double *)g, &ldvr, (double *)wq, &lwork, &info, 1, 1);
        }
        lwork = wsize(wq, single);
        work = alloc_or((size_t)lwork * item, &st);
        break;
    }
    case CPN_LA_LSTSQ: {
        const int64_t mx = m > n ? m : n;
        gsz = mx * p->nrhs;
        g = alloc_or((size_t)(gsz ? gsz : 1) * item, &st);
        vec = alloc_or((size_t)(mn + 1) * ritem, &st);
        if (st) goto done;
        lint LDB = (lint)(mx > 1 ? mx : 1), rank = 0;
        float rc32 = (float)p->rcond;
        if (cplx) {
            if (single) LAPACK(cgelsd_)(&M, &N, &NRHS, f, &LDA, g, &LDB, (float *)vec, &rc32, &rank, wq, &lwork, (float *)rq, &iq, &info);
            else LAPACK(zgelsd_)(&M, &N, &NRHS, f, &LDA, g, &LDB, (double *)vec, &p->rcond, &rank, wq, &lwork, (double *)rq, &iq, &info);
            lrwork = wsize(rq, single);
            rwork = alloc_or((size_t)lrwork * ritem, &st);
        } else if (single) {
            LAPACK(sgelsd_)(&M, &N, &NRHS, (float *)f, &LDA, (float *)g, &LDB, (float *)vec, &rc32, &rank, (float *)wq, &lwork, &iq, &info);
        } else {
            LAPACK(dgelsd_)(&M, &N, &NRHS, (double *)f, &LDA, (double *)g, &LDB, (double *)vec, &p->rcond, &rank, (double *)wq, &lwork, &iq, &info);
        }
        lwork = wsize(wq, single);
        liwork = iq > 1 ? iq : 1;
        work = alloc_or((size_t)lwork * item, &st);
        iwork = (lint *)alloc_or(sizeof(lint) * (size_t)liwork, &st);
        break;
    }
    default:
        st = cpn_error(CPN_ERR_INTERNAL, "lapack: unknown routine %d", p->code);
    }
    if (st) goto done;

    for (int64_t t = 0; t < count; t++) {
        /* the offsets of matrix t (C order over the batch dimensions) */
        const char *a = p->a, *b = p->b;
        char *o = p->out;
        double *x = p->aux;
        int64_t rem = t;
        for (int d = p->nb - 1; d >= 0; d--) {
            int64_t i = rem % p->bshape[d];
            rem /= p->bshape[d];
            a += i * p->as[d];
            if (b) b += i * p->bs[d];
            o += i * p->os[d];
            x = (double *)((char *)x + i * p->xs[d]);
        }
        const int64_t a0 = p->as[p->nb], a1 = p->as[p->nb + 1];
        load_f(a, a0, a1, m, n, item, f, m);
        info = 0;
        switch (p->code) {
        case CPN_LA_SOLVE:
        case CPN_LA_INV: {
            lint nr = p->code == CPN_LA_SOLVE ? NRHS : N;
            if (p->code == CPN_LA_SOLVE) load_f(b, p->bs[p->nb], p->bs[p->nb + 1], n, p->nrhs, item, g, n);
            else put_identity(g, &L, n);
            CALL4(dt, gesv, &N, &nr, (void *)f, &LDA, ipiv, (void *)g, &LDA, &info);
            if (!info) store_c(g, n, n, nr, item, o);
            break;
        }
        case CPN_LA_SLOGDET: {
            CALL4(dt, getrf, &M, &N, (void *)f, &LDA, ipiv, &info);
            double logdet = 0, sr = 1, si = 0;
            if (info > 0) {
                sr = 0;
                logdet = -INFINITY;
                info = 0;
            } else if (!info) {
                for (int64_t i = 0; i < n; i++) {
                    if (ipiv[i] != i + 1) {
                        sr = -sr;
                        si = -si;
                    }
                    const char *e = f + (size_t)(i + i * n) * item;
                    if (cplx) {
                        double re = getr(e, single), im = getr(e + ritem, single), ab = hypot(re, im);
                        double nr = (sr * re - si * im) / ab, ni = (sr * im + si * re) / ab;
                        sr = nr;
                        si = ni;
                        logdet += log(ab);
                    } else {
                        double v = getr(e, single);
                        if (v < 0) sr = -sr;
                        logdet += log(fabs(v));
                    }
                }
            }
            put_scalar(o, &L, sr, si);
            x[1] = logdet;
            break;
        }
        case CPN_LA_CHOLESKY: {
            CALL4(dt, potrf, &uplo, &N, (void *)f, &LDA, &info, 1);
            if (!info) {
                zero_triangle(f, n, item, p->p[0] != 0);
                store_c(f, n, n, n, item, o);
            }
            break;
        }
        case CPN_LA_QR: {
            const int mode = (int)p->p[0];
            lint lw = (lint)iq;
            CALL4(dt, geqrf, &M, &N, (void *)f, &LDA, (void *)vec, (void *)work, &lw, &info);
            if (info) break;
            if (mode == CPN_QR_RAW) {
                /* NumPy's h is the Fortran array seen in C order: (n, m), then tau */
                memcpy(o, f, (size_t)(m * n) * item);
                memcpy(o + (size_t)(m * n) * item, vec, (size_t)mn * item);
                break;
            }
            const int64_t rr = mode == CPN_QR_COMPLETE ? m : mn;   /* R's rows */
            memcpy(g, f, (size_t)(m * n) * item);
            if (mode != CPN_QR_R) {
                lint qc = mode == CPN_QR_COMPLETE ? M : MN;
                switch (dt) {
                case CPN_DTYPE_FLOAT32: LAPACK(sorgqr_)(&M, &qc, &MN, (float *)f, &LDA, (float *)vec, (float *)work, &lw, &info); break;
                case CPN_DTYPE_FLOAT64: LAPACK(dorgqr_)(&M, &qc, &MN, (double *)f, &LDA, (double *)vec, (double *)work, &lw, &info); break;
                case CPN_DTYPE_COMPLEX64: LAPACK(cungqr_)(&M, &qc, &MN, f, &LDA, vec, work, &lw, &info); break;
                default: LAPACK(zungqr_)(&M, &qc, &MN, f, &LDA, vec, work, &lw, &info); break;
                }
                if (info) break;
                store_c(f, m, m, qc, item, o);
                o += (size_t)(m * qc) * item;
            }
            /* R: the upper triangle of the factor's first rr rows (rows past m are zero) */
            for (int64_t i = 0; i < rr; i++)
                for (int64_t j = 0; j < n; j++) {
                    char *dst = o + (size_t)(i * n + j) * item;
                    if (i <= j && i < m) memcpy(dst, g + (size_t)(i + j * m) * item, item);
                    else memset(dst, 0, item);
                }
            break;
        }
        case CPN_LA_EIGH: {
            lint lw = lwork, lrw = lrwork, liw = liwork;
            if (cplx) {
                if (single) LAPACK(cheevd_)(&jobv, &uplo, &N, f, &LDA, (float *)vec, work, &lw, (float *)rwork, &lrw, iwork, &liw, &info, 1, 1);
                else LAPACK(zheevd_)(&jobv, &uplo, &N, f, &LDA, (double *)vec, work, &lw, (double *)rwork, &lrw, iwork, &liw, &info, 1, 1);
            } else if (single) {
                LAPACK(ssyevd_)(&jobv, &uplo, &N, (float *)f, &LDA, (float *)vec, (float *)work, &lw, iwork, &liw, &info, 1, 1);
            } else {
                LAPACK(dsyevd_)(&jobv, &uplo, &N, (double *)f, &LDA, (double *)vec, (double *)work, &lw, iwork, &liw, &info, 1, 1);
            }
            if (info) break;
            for (int64_t i = 0; i < n; i++) x[1 + i] = getr(vec + (size_t)i * ritem, single);
            if (p->p[1]) store_c(f, n, n, n, item, o);
            break;
        }
        case CPN_LA_SVD: {
            lint lw = lwork;
            if (cplx) {
                if (single) LAPACK(cgesdd_)(&jobz, &M, &N, f, &LDA, (float *)vec, g, &ldu, h, &ldvt, work, &lw, (float *)rwork, iwork, &info, 1);
                else LAPACK(zgesdd_)(&jobz, &M, &N, f, &LDA, (double *)vec, g, &ldu, h, &ldvt, work, &lw, (double *)rwork, iwork, &info, 1);
            } else if (single) {
                LAPACK(sgesdd_)(&jobz, &M, &N, (float *)f, &LDA, (float *)vec, (float *)g, &ldu, (float *)h, &ldvt, (float *)work, &lw, iwork, &info, 1);
            } else {
                LAPACK(dgesdd_)(&jobz, &M, &N, (double *)f, &LDA, (double *)vec, (double *)g, &ldu, (double *)h, &ldvt, (double *)work, &lw, iwork, &info, 1);
            }
            if (info) break;
            for (int64_t i = 0; i < mn; i++) x[1 + i] = getr(vec + (size_t)i * ritem, single);
            if (p->p[1]) {
                store_c(g, m, m, ucols, item, o);
                store_c(h, vrows, vrows, n, item, o + (size_t)(m * ucols) * item);
            }
            break;
        }
        case CPN_LA_EIG: {
            /* out (complex): w (n), then V (n x n) */
            const char nv = 'N';
            lint lw = lwork, ldvr = p->p[1] && N > 1 ? N : 1;
            if (cplx) {
                if (single) LAPACK(cgeev_)(&nv, &jobv, &N, f, &LDA, vec, NULL, &N, g, &ldvr, work, &lw, (float *)rwork, &info, 1, 1);
                else LAPACK(zgeev_)(&nv, &jobv, &N, f, &LDA, vec, NULL, &N, g, &ldvr, work, &lw, (double *)rwork, &info, 1, 1);
                if (info) break;
                memcpy(o, vec, (size_t)n * item);
                if (p->p[1]) store_c(g, n, n, n, item, o + (size_t)n * item);
                break;
            }
            if (single) LAPACK(sgeev_)(&nv, &jobv, &N, (float *)f, &LDA, (float *)vec, (float *)vec + n, NULL, &N, (float *)g, &ldvr, (float *)work, &lw, &info, 1, 1);
            else LAPACK(dgeev_)(&nv, &jobv, &N, (double *)f, &LDA, (double *)vec, (double *)vec + n, NULL, &N, (double *)g, &ldvr, (double *)work, &lw, &info, 1, 1);
            if (info) break;
            const size_t citem = 2 * item;
            for (int64_t i = 0; i < n; i++) {
                double wr = getr(vec + (size_t)i * item, single), wi = getr(vec + (size_t)(n + i) * item, single);
                char *dst = o + (size_t)i * citem;
                if (single) *(cpn_c64 *)dst = (float)wr + (float)wi * I;
                else *(cpn_c128 *)dst = wr + wi * I;
            }
            if (!p->p[1]) break;
            /* a complex pair's vectors are VR[:, j] +- i VR[:, j+1] */
            char *V = o + (size_t)n * citem;
            for (int64_t j = 0; j < n; j++) {
                double wi = getr(vec + (size_t)(n + j) * item, single);
                for (int64_t i = 0; i < n; i++) {
                    double re = getr(g + (size_t)(i + j * n) * item, single), im = 0;
                    if (wi > 0 && j + 1 < n) im = getr(g + (size_t)(i + (j + 1) * n) * item, single);
                    else if (wi < 0 && j > 0) {
                        re = getr(g + (size_t)(i + (j - 1) * n) * item, single);
                        im = -getr(g + (size_t)(i + j * n) * item, single);
                    }
                    char *dst = V + (size_t)(i * n + j) * citem;
                    if (single) *(cpn_c64 *)dst = (float)re + (float)im * I;
                    else *(cpn_c128 *)dst = re + im * I;
                }
            }
            break;
        }
        case CPN_LA_LSTSQ: {
            const int64_t mx = m > n ? m : n;
            lint LDB = (lint)(mx > 1 ? mx : 1), rank = 0, lw = lwork;
            float rc32 = (float)p->rcond;
            memset(g, 0, (size_t)(gsz ? gsz : 1) * item);
            load_f(b, p->bs[p->nb], p->bs[p->nb + 1], m, p->nrhs, item, g, mx);
            if (cplx) {
                if (single) LAPACK(cgelsd_)(&M, &N, &NRHS, f, &LDA, g, &LDB, (float *)vec, &rc32, &rank, work, &lw, (float *)rwork, iwork, &info);
                else LAPACK(zgelsd_)(&M, &N, &NRHS, f, &LDA, g, &LDB, (double *)vec, &p->rcond, &rank, work, &lw, (double *)rwork, iwork, &info);
            } else if (single) {
                LAPACK(sgelsd_)(&M, &N, &NRHS, (float *)f, &LDA, (float *)g, &LDB, (float *)vec, &rc32, &rank, (float *)work, &lw, iwork, &info);
            } else {
                LAPACK(dgelsd_)(&M, &N, &NRHS, (double *)f, &LDA, (double *)g, &LDB, (double *)vec, &p->rcond, &rank, (double *)work, &lw, iwork, &info);
            }
            if (info) break;
            /* aux: info, rank, s (mn), residuals (nrhs: the squared norms of rows n.. of b) */
            x[1] = rank;
            for (int64_t i = 0; i < mn; i++) x[2 + i] = getr(vec + (size_t)i * ritem, single);
            for (int64_t j = 0; j < p->nrhs; j++) {
                double r = 0;
                for (int64_t i = n; i < m; i++) {
                    const char *e = g + (size_t)(i + j * mx) * item;
                    double re = getr(e, single), im = cplx ? getr(e + ritem, single) : 0;
                    r += re * re + im * im;
                }
                x[2 + mn + j] = r;
            }
            store_c(g, mx, n, p->nrhs, item, o);
            break;
        }
        default: break;
        }
        x[0] = info;
    }
done:
    cpn_free(f);
    cpn_free(g);
    cpn_free(h);
    cpn_free(vec);
    cpn_free(vec2);
    cpn_free(work);
    cpn_free(rwork);
    cpn_free(ipiv);
    cpn_free(iwork);
    return st;
}

bool cpn_kernel_lapack_available(void) { return true; }

#else

enum cpn_status cpn_kernel_lapack(const struct cpn_lapack_args *p)
{
    (void)p;
    return cpn_error(CPN_ERR_TYPE, "cupynum was built without LAPACK");
}

bool cpn_kernel_lapack_available(void) { return false; }

#endif
