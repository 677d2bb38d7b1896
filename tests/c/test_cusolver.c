/* test_cusolver.c: the CUDA backend's factorizations (cuda/solver.c, solver_kernels.cu) without a
 * GPU.
 *
 * cpn_cuda_lapack with stream CPN_CUB_HOST runs the LAPACK op through the device path's own code
 * -- devlapack.h's coverage, solver.c's scratch layout, transposing copies, routine sequence,
 * wide-svd transposition, info and slogdet kernels (solver_kernels.cu as host loops) -- on host
 * memory, with cuSOLVER's entry points replaced (cpn_cuda_solver_use) by shims of the same
 * signatures over the host LAPACK (column-major, as cuSOLVER).  Every routine the device takes
 * (solve, inv, slogdet, cholesky lower/upper, qr in its four modes, eigh/eigvalsh lower/upper, svd
 * full/reduced/values) over float64 and complex128 x square, tall, wide, 1x1 and batched shapes x
 * contiguous, transposed and reversed-strided operands is compared with the CPU kernel
 * (lapack.c) on the same inputs: info exactly, the results to 1e-12 relative (svd: the singular
 * values, and U S Vh = A with orthonormal U and Vh, since gesvd and the host's gesdd, and the
 * transposed factorization of a wide matrix, may choose other signs); singular and not positive
 * definite inputs report the host's info.  Only cuSOLVER itself and the launches are unchecked. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "cpn_config.h"
#include "devlapack.h"
#include "kernels.h"
#include "solver.h"
#include "store.h"
#include "view.h"

#include "check.h"

/* ---- cuSOLVER's entry points over the host LAPACK --------------------------------------------- */

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define LAPACK(name) CAT(CPN_BLAS_PREFIX, name)
typedef int lint;
void LAPACK(dgetrf_)(const lint *, const lint *, double *, const lint *, lint *, lint *);
void LAPACK(zgetrf_)(const lint *, const lint *, void *, const lint *, lint *, lint *);
void LAPACK(dgetrs_)(const char *, const lint *, const lint *, const double *, const lint *, const lint *, double *,
                     const lint *, lint *, size_t);
void LAPACK(zgetrs_)(const char *, const lint *, const lint *, const void *, const lint *, const lint *, void *,
                     const lint *, lint *, size_t);
void LAPACK(dpotrf_)(const char *, const lint *, double *, const lint *, lint *, size_t);
void LAPACK(zpotrf_)(const char *, const lint *, void *, const lint *, lint *, size_t);
void LAPACK(dgeqrf_)(const lint *, const lint *, double *, const lint *, double *, double *, const lint *, lint *);
void LAPACK(zgeqrf_)(const lint *, const lint *, void *, const lint *, void *, void *, const lint *, lint *);
void LAPACK(dorgqr_)(const lint *, const lint *, const lint *, double *, const lint *, const double *, double *,
                     const lint *, lint *);
void LAPACK(zungqr_)(const lint *, const lint *, const lint *, void *, const lint *, const void *, void *,
                     const lint *, lint *);
void LAPACK(dsyevd_)(const char *, const char *, const lint *, double *, const lint *, double *, double *,
                     const lint *, lint *, const lint *, lint *, size_t, size_t);
void LAPACK(zheevd_)(const char *, const char *, const lint *, void *, const lint *, double *, void *, const lint *,
                     double *, const lint *, lint *, const lint *, lint *, size_t, size_t);
void LAPACK(dgesvd_)(const char *, const char *, const lint *, const lint *, double *, const lint *, double *,
                     double *, const lint *, double *, const lint *, double *, const lint *, lint *, size_t, size_t);
void LAPACK(zgesvd_)(const char *, const char *, const lint *, const lint *, void *, const lint *, double *, void *,
                     const lint *, void *, const lint *, void *, const lint *, double *, lint *, size_t, size_t);

#define OK CUSOLVER_STATUS_SUCCESS
typedef cusolverDnHandle_t H;
typedef cuDoubleComplex Z;

static char fill_c(cublasFillMode_t u) { return u == CUBLAS_FILL_MODE_UPPER ? 'U' : 'L'; }
/* A workspace LAPACK sized by its own query (the shims ignore cuSOLVER's: its sizes are cuSOLVER's
 * business, and the shims' bufferSize answer 1, so that the scratch solver.c carves is what the
 * routines see). */
static void *wk(double q, size_t item, lint *lw)
{
    *lw = q < 1 ? 1 : (lint)q;
    return malloc((size_t)*lw * item);
}

static cusolverStatus_t s_create(H *h) { *h = (H)(uintptr_t)1; return OK; }
static cusolverStatus_t s_stream(H h, cudaStream_t s) { (void)h; (void)s; return OK; }
static cusolverStatus_t s_getrf_bs_d(H h, int m, int n, double *a, int lda, int *lw) { *lw = 1; return OK; }
static cusolverStatus_t s_getrf_bs_z(H h, int m, int n, Z *a, int lda, int *lw) { *lw = 1; return OK; }
static cusolverStatus_t s_getrf_d(H h, int m, int n, double *a, int lda, double *w, int *ipiv, int *info)
{
    LAPACK(dgetrf_)(&m, &n, a, &lda, ipiv, info);
    return OK;
}
static cusolverStatus_t s_getrf_z(H h, int m, int n, Z *a, int lda, Z *w, int *ipiv, int *info)
{
    LAPACK(zgetrf_)(&m, &n, a, &lda, ipiv, info);
    return OK;
}
static cusolverStatus_t s_getrs_d(H h, cublasOperation_t t, int n, int nrhs, const double *a, int lda,
                                  const int *ipiv, double *b, int ldb, int *info)
{
    LAPACK(dgetrs_)(t == CUBLAS_OP_N ? "N" : "T", &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
    return OK;
}
static cusolverStatus_t s_getrs_z(H h, cublasOperation_t t, int n, int nrhs, const Z *a, int lda, const int *ipiv,
                                  Z *b, int ldb, int *info)
{
    LAPACK(zgetrs_)(t == CUBLAS_OP_N ? "N" : "T", &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
    return OK;
}
static cusolverStatus_t s_potrf_bs_d(H h, cublasFillMode_t u, int n, double *a, int lda, int *lw)
{
    *lw = 1;
    return OK;
}
static cusolverStatus_t s_potrf_bs_z(H h, cublasFillMode_t u, int n, Z *a, int lda, int *lw)
{
    *lw = 1;
    return OK;
}
static cusolverStatus_t s_potrf_d(H h, cublasFillMode_t u, int n, double *a, int lda, double *w, int lw, int *info)
{
    char c = fill_c(u);
    LAPACK(dpotrf_)(&c, &n, a, &lda, info, 1);
    return OK;
}
static cusolverStatus_t s_potrf_z(H h, cublasFillMode_t u, int n, Z *a, int lda, Z *w, int lw, int *info)
{
    char c = fill_c(u);
    LAPACK(zpotrf_)(&c, &n, a, &lda, info, 1);
    return OK;
}
static cusolverStatus_t s_geqrf_bs_d(H h, int m, int n, double *a, int lda, int *lw) { *lw = 1; return OK; }
static cusolverStatus_t s_geqrf_bs_z(H h, int m, int n, Z *a, int lda, int *lw) { *lw = 1; return OK; }
static cusolverStatus_t s_geqrf_d(H h, int m, int n, double *a, int lda, double *tau, double *w0, int lw0, int *info)
{
    double q;
    lint lw = -1;
    LAPACK(dgeqrf_)(&m, &n, a, &lda, tau, &q, &lw, info);
    double *w = wk(q, sizeof *w, &lw);
    LAPACK(dgeqrf_)(&m, &n, a, &lda, tau, w, &lw, info);
    free(w);
    return OK;
}
static cusolverStatus_t s_geqrf_z(H h, int m, int n, Z *a, int lda, Z *tau, Z *w0, int lw0, int *info)
{
    double complex q;
    lint lw = -1;
    LAPACK(zgeqrf_)(&m, &n, a, &lda, tau, &q, &lw, info);
    void *w = wk(creal(q), 16, &lw);
    LAPACK(zgeqrf_)(&m, &n, a, &lda, tau, w, &lw, info);
    free(w);
    return OK;
}
static cusolverStatus_t s_orgqr_bs_d(H h, int m, int n, int k, const double *a, int lda, const double *t, int *lw)
{
    *lw = 1;
    return OK;
}
static cusolverStatus_t s_ungqr_bs_z(H h, int m, int n, int k, const Z *a, int lda, const Z *t, int *lw)
{
    *lw = 1;
    return OK;
}
static cusolverStatus_t s_orgqr_d(H h, int m, int n, int k, double *a, int lda, const double *tau, double *w0,
                                  int lw0, int *info)
{
    double q;
    lint lw = -1;
    LAPACK(dorgqr_)(&m, &n, &k, a, &lda, tau, &q, &lw, info);
    double *w = wk(q, sizeof *w, &lw);
    LAPACK(dorgqr_)(&m, &n, &k, a, &lda, tau, w, &lw, info);
    free(w);
    return OK;
}
static cusolverStatus_t s_ungqr_z(H h, int m, int n, int k, Z *a, int lda, const Z *tau, Z *w0, int lw0, int *info)
{
    double complex q;
    lint lw = -1;
    LAPACK(zungqr_)(&m, &n, &k, a, &lda, tau, &q, &lw, info);
    void *w = wk(creal(q), 16, &lw);
    LAPACK(zungqr_)(&m, &n, &k, a, &lda, tau, w, &lw, info);
    free(w);
    return OK;
}
static cusolverStatus_t s_syevd_bs_d(H h, cusolverEigMode_t j, cublasFillMode_t u, int n, const double *a, int lda,
                                     const double *w, int *lw)
{
    *lw = 1;
    return OK;
}
static cusolverStatus_t s_heevd_bs_z(H h, cusolverEigMode_t j, cublasFillMode_t u, int n, const Z *a, int lda,
                                     const double *w, int *lw)
{
    *lw = 1;
    return OK;
}
static cusolverStatus_t s_syevd_d(H h, cusolverEigMode_t j, cublasFillMode_t u, int n, double *a, int lda,
                                  double *ev, double *w0, int lw0, int *info)
{
    char jz = j == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', up = fill_c(u);
    double q;
    lint lw = -1, iq, liw = -1;
    LAPACK(dsyevd_)(&jz, &up, &n, a, &lda, ev, &q, &lw, &iq, &liw, info, 1, 1);
    double *w = wk(q, sizeof *w, &lw);
    liw = iq < 1 ? 1 : iq;
    lint *iw = malloc(sizeof(lint) * (size_t)liw);
    LAPACK(dsyevd_)(&jz, &up, &n, a, &lda, ev, w, &lw, iw, &liw, info, 1, 1);
    free(w);
    free(iw);
    return OK;
}
static cusolverStatus_t s_heevd_z(H h, cusolverEigMode_t j, cublasFillMode_t u, int n, Z *a, int lda, double *ev,
                                  Z *w0, int lw0, int *info)
{
    char jz = j == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N', up = fill_c(u);
    double complex q;
    double rq;
    lint lw = -1, lrw = -1, iq, liw = -1;
    LAPACK(zheevd_)(&jz, &up, &n, a, &lda, ev, &q, &lw, &rq, &lrw, &iq, &liw, info, 1, 1);
    void *w = wk(creal(q), 16, &lw);
    double *rw = wk(rq, sizeof(double), &lrw);
    liw = iq < 1 ? 1 : iq;
    lint *iw = malloc(sizeof(lint) * (size_t)liw);
    LAPACK(zheevd_)(&jz, &up, &n, a, &lda, ev, w, &lw, rw, &lrw, iw, &liw, info, 1, 1);
    free(w);
    free(rw);
    free(iw);
    return OK;
}
static cusolverStatus_t s_gesvd_bs_d(H h, int m, int n, int *lw) { *lw = 1; return OK; }
static cusolverStatus_t s_gesvd_bs_z(H h, int m, int n, int *lw) { *lw = 1; return OK; }
static cusolverStatus_t s_gesvd_d(H h, signed char ju, signed char jv, int m, int n, double *a, int lda, double *s,
                                  double *u, int ldu, double *vt, int ldvt, double *w0, int lw0, double *rw,
                                  int *info)
{
    if (m < n) return CUSOLVER_STATUS_INVALID_VALUE;   /* cuSOLVER's restriction, kept */
    char cu = (char)ju, cv = (char)jv;
    double q;
    lint lw = -1;
    LAPACK(dgesvd_)(&cu, &cv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &q, &lw, info, 1, 1);
    double *w = wk(q, sizeof *w, &lw);
    LAPACK(dgesvd_)(&cu, &cv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, &lw, info, 1, 1);
    free(w);
    return OK;
}
static cusolverStatus_t s_gesvd_z(H h, signed char ju, signed char jv, int m, int n, Z *a, int lda, double *s, Z *u,
                                  int ldu, Z *vt, int ldvt, Z *w0, int lw0, double *rw0, int *info)
{
    if (m < n) return CUSOLVER_STATUS_INVALID_VALUE;
    char cu = (char)ju, cv = (char)jv;
    double complex q;
    lint lw = -1;
    double *rw = malloc(sizeof(double) * (size_t)(5 * n + 1));
    LAPACK(zgesvd_)(&cu, &cv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &q, &lw, rw, info, 1, 1);
    void *w = wk(creal(q), 16, &lw);
    LAPACK(zgesvd_)(&cu, &cv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, w, &lw, rw, info, 1, 1);
    free(w);
    free(rw);
    return OK;
}

static const struct cpn_cusolver_api shims = {
    .cusolverDnCreate = s_create, .cusolverDnSetStream = s_stream,
    .cusolverDnDgetrf_bufferSize = s_getrf_bs_d, .cusolverDnZgetrf_bufferSize = s_getrf_bs_z,
    .cusolverDnDgetrf = s_getrf_d, .cusolverDnZgetrf = s_getrf_z,
    .cusolverDnDgetrs = s_getrs_d, .cusolverDnZgetrs = s_getrs_z,
    .cusolverDnDpotrf_bufferSize = s_potrf_bs_d, .cusolverDnZpotrf_bufferSize = s_potrf_bs_z,
    .cusolverDnDpotrf = s_potrf_d, .cusolverDnZpotrf = s_potrf_z,
    .cusolverDnDgeqrf_bufferSize = s_geqrf_bs_d, .cusolverDnZgeqrf_bufferSize = s_geqrf_bs_z,
    .cusolverDnDgeqrf = s_geqrf_d, .cusolverDnZgeqrf = s_geqrf_z,
    .cusolverDnDorgqr_bufferSize = s_orgqr_bs_d, .cusolverDnZungqr_bufferSize = s_ungqr_bs_z,
    .cusolverDnDorgqr = s_orgqr_d, .cusolverDnZungqr = s_ungqr_z,
    .cusolverDnDsyevd_bufferSize = s_syevd_bs_d, .cusolverDnZheevd_bufferSize = s_heevd_bs_z,
    .cusolverDnDsyevd = s_syevd_d, .cusolverDnZheevd = s_heevd_z,
    .cusolverDnDgesvd_bufferSize = s_gesvd_bs_d, .cusolverDnZgesvd_bufferSize = s_gesvd_bs_z,
    .cusolverDnDgesvd = s_gesvd_d, .cusolverDnZgesvd = s_gesvd_z,
};

/* ---- operands ------------------------------------------------------------------------------------ */

static uint64_t rnd_state = 42;
static double urand(void)
{
    rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rnd_state >> 11) / 9007199254740992.0 * 2 - 1;
}

/* A view (nd dims, `shape`) of dtype dt in a store of its own: layout 0 C-contiguous, 1 the
 * transpose of a store with the last two dimensions swapped, 2 every other element of a store
 * twice as long along the last dimension, reversed. */
static struct cpn_view *make(enum cpn_dtype dt, int nd, const int64_t *shape, int layout)
{
    int64_t sh[CPN_MAXDIM] = {0};
    int perm[CPN_MAXDIM];
    for (int d = 0; d < nd; d++) {
        sh[d] = shape[d];
        perm[d] = d;
    }
    if (layout == 1) {
        sh[nd - 2] = shape[nd - 1];
        sh[nd - 1] = shape[nd - 2];
        perm[nd - 2] = nd - 1;
        perm[nd - 1] = nd - 2;
    }
    if (layout == 2) sh[nd - 1] *= 2;
    struct cpn_store *s = cpn_store_new(dt, nd, sh);
    struct cpn_view *v = cpn_view_new(s), *r = NULL;
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= sh[d];
    memset(cpn_store_data(s), 0x5A, (size_t)n * cpn_dtype_size(dt));
    cpn_store_release(s);
    if (layout == 1) CHECK(cpn_view_transpose(v, perm, &r) == CPN_OK);
    if (layout == 2) CHECK(cpn_view_slice(v, nd - 1, sh[nd - 1] - 1, -2, shape[nd - 1], &r) == CPN_OK);
    if (!r) return v;
    cpn_view_release(v);
    return r;
}

static char *at(const struct cpn_view *v, int64_t i)
{
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    for (int d = v->ndim - 1; d >= 0; d--) {
        off += (i % v->shape[d]) * st[d];
        i /= v->shape[d];
    }
    return (char *)cpn_store_data(v->store) + off;
}

static double complex get(const struct cpn_view *v, int64_t i)
{
    const char *p = at(v, i);
    return v->dtype == CPN_DTYPE_COMPLEX128 ? *(const double complex *)p : *(const double *)p;
}

static void put(struct cpn_view *v, int64_t i, double complex x)
{
    char *p = at(v, i);
    if (v->dtype == CPN_DTYPE_COMPLEX128) *(double complex *)p = x;
    else *(double *)p = creal(x);
}

enum kind { K_RANDOM, K_SPD, K_HERM, K_SINGULAR, K_INDEFINITE };

/* Fill each (m x n) matrix of v: random; Hermitian positive definite (B B^H + n I); Hermitian;
 * singular (two equal rows); or indefinite (-I). */
static void fill(struct cpn_view *v, enum kind k)
{
    const int nd = v->ndim;
    const int64_t m = v->shape[nd - 2], n = v->shape[nd - 1], mat = m * n, count = cpn_view_size(v) / (mat ? mat : 1);
    const bool cplx = v->dtype == CPN_DTYPE_COMPLEX128;
    double complex *r = malloc(sizeof *r * (size_t)(mat ? mat : 1));
    for (int64_t t = 0; t < count; t++) {
        for (int64_t i = 0; i < mat; i++) r[i] = urand() + (cplx ? urand() * I : 0);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex x = r[i * n + j];
                if (k == K_SPD) {
                    x = i == j ? n : 0;
                    for (int64_t l = 0; l < n; l++) x += r[i * n + l] * conj(r[j * n + l]);
                } else if (k == K_HERM) {
                    x = (r[i * n + j] + conj(r[j * n + i])) / 2;
                } else if (k == K_SINGULAR && i == m - 1 && m > 1) {
                    x = r[j];
                } else if (k == K_INDEFINITE) {
                    x = i == j ? -1 : 0;
                }
                put(v, t * mat + i * n + j, x);
            }
    }
    free(r);
}

/* The op's operands bound to their host buffers (as the executor binds them). */
static void bind(struct cpn_bound_arg *b, const struct cpn_view *v)
{
    int64_t off;
    cpn_view_byte_layout(v, b->st, &off);
    b->ptr = (char *)cpn_store_data(v->store) + off;
    b->ndim = v->ndim;
    b->shape = v->shape;
}

/* ---- one case --------------------------------------------------------------------------------------- */

static int64_t checked;

static double maxabs_diff(const double complex *a, const double complex *b, int64_t n)
{
    double d = 0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, cabs(a[i] - b[i]));
    return d;
}

/* out row t as complex values */
static void row(const struct cpn_view *v, int64_t t, int64_t len, double complex *dst)
{
    for (int64_t i = 0; i < len; i++) dst[i] = get(v, t * v->shape[v->ndim - 1] + i);
}

/* svd of matrix t: s equal, U S Vh = A, U^H U = I, Vh Vh^H = I. */
static void check_svd(const struct cpn_view *a, int64_t t, const double complex *o, const double *xs,
                      const double *hs, int64_t m, int64_t n, bool full, bool uv, const char *what)
{
    const int64_t k = m < n ? m : n, ucols = full ? m : k, vrows = full ? n : k;
    double e = 0, scale = 1;
    for (int64_t i = 0; i < k; i++) {
        e = fmax(e, fabs(xs[1 + i] - hs[1 + i]));
        scale = fmax(scale, fabs(hs[1 + i]));
    }
    if (uv) {
        const double complex *U = o, *V = o + m * ucols;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double complex x = 0;
                for (int64_t l = 0; l < k; l++) x += U[i * ucols + l] * xs[1 + l] * V[l * n + j];
                e = fmax(e, cabs(x - get(a, t * m * n + i * n + j)));
            }
        for (int64_t i = 0; i < ucols; i++)
            for (int64_t j = 0; j < ucols; j++) {
                double complex x = 0;
                for (int64_t l = 0; l < m; l++) x += conj(U[l * ucols + i]) * U[l * ucols + j];
                e = fmax(e, cabs(x - (i == j)));
            }
        for (int64_t i = 0; i < vrows; i++)
            for (int64_t j = 0; j < vrows; j++) {
                double complex x = 0;
                for (int64_t l = 0; l < n; l++) x += V[i * n + l] * conj(V[j * n + l]);
                e = fmax(e, cabs(x - (i == j)));
            }
    }
    CHECK(e <= 1e-12 * scale * (double)(m + n));
    if (e > 1e-12 * scale * (double)(m + n) && failures < 20) printf("  %s: svd off by %g\n", what, e);
}

static void run(int code, enum cpn_dtype dt, int nd, const int64_t *shape, int layout, int64_t p0, int64_t p1,
                enum kind kind)
{
    const int64_t m = shape[nd - 2], n = shape[nd - 1], k = m < n ? m : n, nrhs = 3;
    int64_t L = 1, naux = 1;
    switch (code) {
    case CPN_LA_SOLVE: L = n * nrhs; break;
    case CPN_LA_INV: L = n * n; break;
    case CPN_LA_SLOGDET: naux = 2; break;
    case CPN_LA_CHOLESKY: L = n * n; break;
    case CPN_LA_QR:
        L = p0 == CPN_QR_RAW        ? m * n + k
            : p0 == CPN_QR_R        ? k * n
            : p0 == CPN_QR_COMPLETE ? m * m + m * n
                                    : m * k + k * n;
        break;
    case CPN_LA_EIGH: L = p1 ? n * n : 1; naux = 1 + n; break;
    case CPN_LA_SVD: L = p1 ? (p0 ? m * m + n * n : m * k + k * n) : 1; naux = 1 + k; break;
    default: break;
    }
    char what[160];
    snprintf(what, sizeof what, "routine %d %s shape %lldx%lld nd %d layout %d p %lld %lld kind %d", code,
             cpn_dtype_name(dt), (long long)m, (long long)n, nd, layout, (long long)p0, (long long)p1, kind);
    struct cpn_view *a = make(dt, nd, shape, layout), *bv = NULL;
    fill(a, kind);
    if (code == CPN_LA_SOLVE) {
        int64_t bs[CPN_MAXDIM];
        memcpy(bs, shape, sizeof(int64_t) * (size_t)nd);
        bs[nd - 1] = nrhs;
        bv = make(dt, nd, bs, layout);
        fill(bv, K_RANDOM);
    }
    int64_t os[CPN_MAXDIM], xs_[CPN_MAXDIM];
    memcpy(os, shape, sizeof(int64_t) * (size_t)(nd - 2));
    memcpy(xs_, shape, sizeof(int64_t) * (size_t)(nd - 2));
    os[nd - 2] = L;
    xs_[nd - 2] = naux;
    struct cpn_view *out[2] = {make(dt, nd - 1, os, 0), make(dt, nd - 1, os, 0)};
    struct cpn_view *aux[2] = {make(CPN_DTYPE_FLOAT64, nd - 1, xs_, 0), make(CPN_DTYPE_FLOAT64, nd - 1, xs_, 0)};
    struct cpn_op op = {.kind = CPN_OPK_LAPACK, .code = code, .dtype = dt, .nin = bv ? 2 : 1, .nout = 2};
    op.in[0] = a;
    op.in[1] = bv;
    op.iparam[0] = p0;
    op.iparam[1] = p1;
    for (int w = 0; w < 2; w++) {   /* w = 0: the device path on host memory; 1: the CPU kernel */
        op.out[0] = out[w];
        op.out[1] = aux[w];
        CHECK(cpn_devlapack_supported(&op));
        struct cpn_bound_op b;
        memset(&b, 0, sizeof b);
        b.op = &op;
        bind(&b.in[0], a);
        if (bv) bind(&b.in[1], bv);
        bind(&b.out[0], out[w]);
        bind(&b.out[1], aux[w]);
        struct cpn_fpreport fp = {0};
        enum cpn_status st = w == 0 ? cpn_cuda_lapack(&b, CPN_CUB_HOST) : cpn_cpu_backend()->compute(&b, &fp);
        if (st != CPN_OK) printf("FAIL %s (%s): %s\n", what, w ? "cpu" : "device", cpn_error_message());
        CHECK(st == CPN_OK);
    }
    int64_t count = 1;
    for (int d = 0; d < nd - 2; d++) count *= shape[d];
    double complex *o0 = malloc(sizeof *o0 * (size_t)L), *o1 = malloc(sizeof *o1 * (size_t)L);
    double *x0 = malloc(sizeof *x0 * (size_t)naux), *x1 = malloc(sizeof *x1 * (size_t)naux);
    for (int64_t t = 0; t < count; t++) {
        row(out[0], t, L, o0);
        row(out[1], t, L, o1);
        for (int64_t i = 0; i < naux; i++) {
            x0[i] = creal(get(aux[0], t * naux + i));
            x1[i] = creal(get(aux[1], t * naux + i));
        }
        CHECK(x0[0] == x1[0]);   /* info */
        if (x0[0] != x1[0] && failures < 20) printf("  %s: info %g, host %g\n", what, x0[0], x1[0]);
        checked++;
        if (x1[0] != 0) continue;   /* the rest unspecified */
        if (code == CPN_LA_SVD) {
            check_svd(a, t, o0, x0, x1, m, n, p0 != 0, p1 != 0, what);
            continue;
        }
        double scale = 1, e = 0;
        const bool outs = code != CPN_LA_EIGH || p1;
        for (int64_t i = 0; outs && i < L; i++) scale = fmax(scale, cabs(o1[i]));
        for (int64_t i = 1; i < naux; i++) scale = fmax(scale, fabs(x1[i]));
        if (outs) e = maxabs_diff(o0, o1, L);
        for (int64_t i = 1; i < naux; i++)
            e = fmax(e, x0[i] == x1[i] ? 0 : fabs(x0[i] - x1[i]));   /* -inf == -inf */
        CHECK(e <= 1e-12 * scale);
        if (e > 1e-12 * scale && failures < 20) printf("  %s: off by %g (scale %g)\n", what, e, scale);
    }
    free(o0);
    free(o1);
    free(x0);
    free(x1);
    cpn_view_release(a);
    if (bv) cpn_view_release(bv);
    for (int w = 0; w < 2; w++) {
        cpn_view_release(out[w]);
        cpn_view_release(aux[w]);
    }
}

static const int64_t shapes[][5] = {
    {2, 1, 1}, {2, 4, 4}, {2, 9, 9}, {2, 7, 4}, {2, 4, 7}, {2, 1, 5}, {2, 5, 1}, {3, 3, 5, 5}, {4, 2, 3, 4, 4},
    {3, 2, 6, 3}, {3, 2, 3, 6},
};
#define NSH (int)(sizeof shapes / sizeof shapes[0])

int main(void)
{
    cpn_cuda_solver_use(&shims);
    const enum cpn_dtype dts[] = {CPN_DTYPE_FLOAT64, CPN_DTYPE_COMPLEX128};
    for (int di = 0; di < 2; di++)
        for (int s = 0; s < NSH; s++)
            for (int layout = 0; layout < 3; layout++) {
                const enum cpn_dtype dt = dts[di];
                const int nd = (int)shapes[s][0];
                const int64_t *sh = &shapes[s][1];
                const bool square = sh[nd - 2] == sh[nd - 1];
                for (int mode = CPN_QR_REDUCED; mode <= CPN_QR_RAW; mode++)
                    run(CPN_LA_QR, dt, nd, sh, layout, mode, 0, K_RANDOM);
                for (int f = 0; f < 2; f++) run(CPN_LA_SVD, dt, nd, sh, layout, f, 1, K_RANDOM);
                run(CPN_LA_SVD, dt, nd, sh, layout, 0, 0, K_RANDOM);
                if (!square) continue;
                run(CPN_LA_SOLVE, dt, nd, sh, layout, 0, 0, K_RANDOM);
                run(CPN_LA_INV, dt, nd, sh, layout, 0, 0, K_RANDOM);
                run(CPN_LA_SLOGDET, dt, nd, sh, layout, 0, 0, K_RANDOM);
                for (int up = 0; up < 2; up++) {
                    run(CPN_LA_CHOLESKY, dt, nd, sh, layout, up, 0, K_SPD);
                    run(CPN_LA_EIGH, dt, nd, sh, layout, up, 1, K_HERM);
                    run(CPN_LA_EIGH, dt, nd, sh, layout, up, 0, K_HERM);
                    run(CPN_LA_CHOLESKY, dt, nd, sh, layout, up, 0, K_INDEFINITE);
                }
                run(CPN_LA_SOLVE, dt, nd, sh, layout, 0, 0, K_SINGULAR);
                run(CPN_LA_INV, dt, nd, sh, layout, 0, 0, K_SINGULAR);
                run(CPN_LA_SLOGDET, dt, nd, sh, layout, 0, 0, K_SINGULAR);
            }
    /* what stays on the host: eig, lstsq, single precision (the op from numpy.linalg computes in
     * double); a positive control first */
    const int64_t sq[2] = {4, 4}, one = 16;
    struct cpn_view *a = make(CPN_DTYPE_FLOAT64, 2, sq, 0), *o = make(CPN_DTYPE_FLOAT64, 1, &one, 0);
    struct cpn_op op = {.kind = CPN_OPK_LAPACK, .code = CPN_LA_CHOLESKY, .dtype = CPN_DTYPE_FLOAT64, .nin = 1,
                        .nout = 2};
    op.in[0] = a;
    op.out[0] = op.out[1] = o;
    CHECK(cpn_devlapack_supported(&op));
    op.code = CPN_LA_EIG;
    CHECK(!cpn_devlapack_supported(&op));
    op.code = CPN_LA_LSTSQ;
    CHECK(!cpn_devlapack_supported(&op));
    op.code = CPN_LA_CHOLESKY;
    op.dtype = CPN_DTYPE_FLOAT32;
    CHECK(!cpn_devlapack_supported(&op));
    cpn_view_release(a);
    cpn_view_release(o);
    printf("%lld matrices compared, %d failures\n", (long long)checked, failures);
    return failures != 0;
}
