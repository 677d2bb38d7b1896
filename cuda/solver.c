/* solver.c: the LAPACK op on the device with cuSOLVER's dense API (see solver.h).
 *
 * cuSOLVER is loaded with dlopen on first use (as cuBLAS and cuFFT are, blas.c and fft.c), so a
 * CUDA build imports where libcusolver is absent (factorizations then run on the host); the entry
 * points are typed from cusolverDn.h (solver.h) and found with dlsym.  What it takes is
 * csrc/runtime/devlapack.h's decision (the simulated device decides with the same function).
 * The routines: getrf + getrs (solve; inv against the identity), getrf (slogdet: sign and
 * log|det| from the factor's diagonal and pivots, solver_kernels.cu), potrf (cholesky), geqrf +
 * orgqr/ungqr (qr, every mode), syevd/heevd (eigh, eigvalsh), gesvd (svd, svdvals).
 *
 * Layout: the op's operands are row-major (any strides) and cuSOLVER is column-major, so each
 * matrix is copied through a transposing copy kernel into a column-major scratch and each result
 * copied back row-major into the op's packed output -- what lapack.c does on the host, so that
 * the factor is the same matrix (not its transpose) and every routine reads the triangle NumPy
 * names; the copies are O(mn) against the factorizations' O(mn min(m, n)).  gesvd takes m >= n
 * only: a wide matrix is factored as its transpose, A^T = U' S V'^H, so A = conj(V') S U'^T: U is
 * VT'^T and Vh is U'^T (transposes in the copy back, no conjugation).
 *
 * Batches loop over the matrices (C order over the batch dimensions) on one stream, as lapack.c
 * does.  info goes into aux[0] by a kernel (the first non-zero of the routine's infos), so nothing
 * waits on the device; _linalg.py reads aux's info and raises NumPy's LinAlgError.  A failing
 * matrix's other results are unspecified, as on the host.  The scratch matrices, pivots, infos and
 * cuSOLVER's workspace are one device buffer from the backend's allocator, kept between ops and
 * grown when an op needs more (work on the one stream is ordered, so reuse is safe). */
#include "solver.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "alloc.h"
#include "cuda_try.h"
#include "devlapack.h"
#include "kernels.h"
#include "opsem.h"

static struct {
    int tried;
    bool ok;
    void *lib;
    cusolverDnHandle_t h;
    struct cpn_cusolver_api f;
    char *ws;   /* the cached workspace */
    size_t ws_bytes;
} sol;

static bool load(void)
{
    if (sol.tried) return sol.ok;
    sol.tried = 1;
    static const char *names[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so.13", "libcusolver.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !sol.lib; i++)
        sol.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!sol.lib) return false;
    bool all = true;
#define CPN_CUSOLVER_SYM(fn)                                 \
    *(void **)&sol.f.fn = dlsym(sol.lib, #fn);               \
    all = all && sol.f.fn != NULL;
    CPN_CUSOLVER_FUNCS(CPN_CUSOLVER_SYM)
#undef CPN_CUSOLVER_SYM
    if (!all || sol.f.cusolverDnCreate(&sol.h) != CUSOLVER_STATUS_SUCCESS) {
        dlclose(sol.lib);
        sol.lib = NULL;
        return false;
    }
    sol.ok = true;
    return true;
}

void cpn_cuda_solver_use(const struct cpn_cusolver_api *api)
{
    sol.tried = 1;
    sol.f = *api;
    sol.ok = sol.f.cusolverDnCreate(&sol.h) == CUSOLVER_STATUS_SUCCESS;
}

#define SOLVER_TRY(expr)                                                                       \
    do {                                                                                       \
        cusolverStatus_t cpn_sol_st_ = (expr);                                                 \
        if (cpn_sol_st_ != CUSOLVER_STATUS_SUCCESS)                                            \
            return cpn_error(CPN_ERR_DEVICE, "cupynum: %s failed (cuSOLVER status %d, %s:%d)", \
                             #expr, (int)cpn_sol_st_, __FILE__, __LINE__);                     \
    } while (0)

/* ---- the scratch: parts of one cached device buffer ---------------------------------------------- */

enum { P_F, P_G, P_H, P_VEC, P_RWORK, P_WORK, P_IPIV, P_INFO, P_COUNT };

struct scratch {
    size_t bytes[P_COUNT];
    char *p[P_COUNT];
};

static size_t round_up(size_t n) { return (n + 255) & ~(size_t)255; }

/* Carve the parts (sizes in s->bytes) out of the cached buffer, grown to fit. */
static enum cpn_status carve(struct scratch *s)
{
    size_t total = 0;
    for (int i = 0; i < P_COUNT; i++) total += round_up(s->bytes[i] ? s->bytes[i] : 1);
    if (total > sol.ws_bytes) {
        if (sol.ws) cpn_free_device(sol.ws, sol.ws_bytes);
        sol.ws = cpn_alloc_device(total);
        sol.ws_bytes = sol.ws ? total : 0;
        if (!sol.ws) return CPN_ERR_NOMEM;
    }
    size_t at = 0;
    for (int i = 0; i < P_COUNT; i++) {
        s->p[i] = sol.ws + at;
        at += round_up(s->bytes[i] ? s->bytes[i] : 1);
    }
    return CPN_OK;
}

/* ---- the op ---------------------------------------------------------------------------------------- */

enum cpn_status cpn_cuda_lapack(const struct cpn_bound_op *b, cudaStream_t stream)
{
    const struct cpn_op *op = b->op;
    if (!cpn_devlapack_supported(op) || !load()) return CPN_ERR_UNSUPPORTED;
    const bool cplx = op->dtype == CPN_DTYPE_COMPLEX128;
    const size_t item = cplx ? 16 : 8;
    const int64_t it = (int64_t)item;
    const struct cpn_bound_arg *A = &b->in[0], *B = op->nin > 1 && op->in[1] ? &b->in[1] : NULL;
    const struct cpn_bound_arg *O = &b->out[0], *X = &b->out[1];
    const int nb = O->ndim - 1;
    const int64_t m = A->shape[nb], n = A->shape[nb + 1], mn = m < n ? m : n;
    const int64_t es = O->st[nb];   /* out's element stride: one element (a packed row) */
    if (es != it || X->st[nb] != 8) return CPN_ERR_UNSUPPORTED;
    int64_t count = 1;
    for (int d = 0; d < nb; d++) count *= O->shape[d];
    if (count == 0) return CPN_OK;

    SOLVER_TRY(sol.f.cusolverDnSetStream(sol.h, stream));
    const int M = (int)m, N = (int)n, MN = (int)mn;
    const int mode = (int)op->iparam[0];
    const cublasFillMode_t uplo = op->iparam[0] ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    struct scratch s;
    memset(&s, 0, sizeof s);
    int lwork = 0, nr = 0, qc = 0;
    /* svd: the factored matrix (A, or A^T when wide: gesvd wants rows >= columns) */
    const bool tr = op->code == CPN_LA_SVD && m < n;
    const int Ms = tr ? N : M, Ns = tr ? M : N;
    const bool full = op->iparam[0] != 0, uv = op->iparam[1] != 0;
    const signed char job = uv ? (full ? 'A' : 'S') : 'N';
    const int ucs = full ? Ms : Ns;   /* svd: columns of U' */

    /* sizes, and cuSOLVER's workspace queries: they read no matrix, but are given valid device
     * pointers (the output's) rather than NULL */
    void *const any = O->ptr;
    s.bytes[P_INFO] = 2 * sizeof(int);
    switch (op->code) {
    case CPN_LA_SOLVE:
    case CPN_LA_INV:
        nr = op->code == CPN_LA_SOLVE ? (int)B->shape[nb + 1] : N;
        s.bytes[P_F] = (size_t)(n * n) * item;
        s.bytes[P_G] = (size_t)n * (size_t)nr * item;
        __attribute__((fallthrough));   /* getrf's factor, pivots and workspace */
    case CPN_LA_SLOGDET:
        s.bytes[P_F] = (size_t)(n * n) * item;
        s.bytes[P_IPIV] = (size_t)n * sizeof(int);
        if (cplx) SOLVER_TRY(sol.f.cusolverDnZgetrf_bufferSize(sol.h, N, N, any, N, &lwork));
        else SOLVER_TRY(sol.f.cusolverDnDgetrf_bufferSize(sol.h, N, N, any, N, &lwork));
        break;
    case CPN_LA_CHOLESKY:
        s.bytes[P_F] = (size_t)(n * n) * item;
        if (cplx) SOLVER_TRY(sol.f.cusolverDnZpotrf_bufferSize(sol.h, uplo, N, any, N, &lwork));
        else SOLVER_TRY(sol.f.cusolverDnDpotrf_bufferSize(sol.h, uplo, N, any, N, &lwork));
        break;
    case CPN_LA_QR: {
        /* complete mode of a tall matrix: Q is m x m, built in place over the factor */
        s.bytes[P_F] = (size_t)m * (size_t)(mode == CPN_QR_COMPLETE && m > n ? m : n) * item;
        s.bytes[P_VEC] = (size_t)mn * item;   /* tau */
        if (cplx) SOLVER_TRY(sol.f.cusolverDnZgeqrf_bufferSize(sol.h, M, N, any, M, &lwork));
        else SOLVER_TRY(sol.f.cusolverDnDgeqrf_bufferSize(sol.h, M, N, any, M, &lwork));
        if (mode == CPN_QR_REDUCED || mode == CPN_QR_COMPLETE) {
            qc = mode == CPN_QR_COMPLETE ? M : MN;
            int w2 = 0;
            if (cplx) SOLVER_TRY(sol.f.cusolverDnZungqr_bufferSize(sol.h, M, qc, MN, any, M, any, &w2));
            else SOLVER_TRY(sol.f.cusolverDnDorgqr_bufferSize(sol.h, M, qc, MN, any, M, any, &w2));
            if (w2 > lwork) lwork = w2;
        }
        break;
    }
    case CPN_LA_EIGH: {
        const cusolverEigMode_t jobz = op->iparam[1] ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
        s.bytes[P_F] = (size_t)(n * n) * item;
        s.bytes[P_VEC] = (size_t)n * 8;   /* w */
        if (cplx) SOLVER_TRY(sol.f.cusolverDnZheevd_bufferSize(sol.h, jobz, uplo, N, any, N, any, &lwork));
        else SOLVER_TRY(sol.f.cusolverDnDsyevd_bufferSize(sol.h, jobz, uplo, N, any, N, any, &lwork));
        break;
    }
    case CPN_LA_SVD:
        s.bytes[P_F] = (size_t)(m * n) * item;
        s.bytes[P_G] = uv ? (size_t)Ms * (size_t)ucs * item : item;   /* U' (Ms x ucs) */
        s.bytes[P_H] = uv ? (size_t)Ns * (size_t)Ns * item : item;    /* VT' (Ns x Ns) */
        s.bytes[P_VEC] = (size_t)mn * 8;                                 /* s */
        s.bytes[P_RWORK] = (size_t)mn * 8;   /* the unconverged superdiagonal (min(m, n) - 1) */
        if (cplx) SOLVER_TRY(sol.f.cusolverDnZgesvd_bufferSize(sol.h, Ms, Ns, &lwork));
        else SOLVER_TRY(sol.f.cusolverDnDgesvd_bufferSize(sol.h, Ms, Ns, &lwork));
        break;
    default:
        return CPN_ERR_UNSUPPORTED;
    }
    if (lwork < 1) lwork = 1;
    s.bytes[P_WORK] = (size_t)lwork * item;
    CPN_TRY(carve(&s));
    char *F = s.p[P_F], *G = s.p[P_G], *H = s.p[P_H], *vec = s.p[P_VEC], *work = s.p[P_WORK];
    double *rwork = (double *)s.p[P_RWORK];
    int *ipiv = (int *)s.p[P_IPIV], *info = (int *)s.p[P_INFO];
    /* the parts as cuSOLVER's float64 (d) and complex128 (z) arrays */
    double *Fd = (double *)F, *Gd = (double *)G, *Hd = (double *)H, *vd = (double *)vec, *wd = (double *)work;
    cuDoubleComplex *Fz = (cuDoubleComplex *)F, *Gz = (cuDoubleComplex *)G, *Hz = (cuDoubleComplex *)H;
    cuDoubleComplex *vz = (cuDoubleComplex *)vec, *wz = (cuDoubleComplex *)work;
    const struct cpn_cusolver_api *f = &sol.f;
    const cusolverDnHandle_t h = sol.h;

    for (int64_t t = 0; t < count; t++) {
        /* the offsets of matrix t (C order over the batch dimensions) */
        const char *a = A->ptr, *bb = B ? B->ptr : NULL;
        char *o = O->ptr, *x = X->ptr;
        int64_t rem = t;
        for (int d = nb - 1; d >= 0; d--) {
            const int64_t i = rem % O->shape[d];
            rem /= O->shape[d];
            a += i * A->st[d];
            if (bb) bb += i * B->st[d];
            o += i * O->st[d];
            x += i * X->st[d];
        }
        const int64_t a0 = A->st[nb], a1 = A->st[nb + 1];
        /* A into F, column-major (ld m): F[i + j*m] = A[i][j]; svd of a wide A: A^T (ld n) */
        if (tr) CUDA_TRY(cpn_la_copy(n, m, item, a, a1, a0, F, it, n * it, stream));
        else CUDA_TRY(cpn_la_copy(m, n, item, a, a0, a1, F, it, m * it, stream));
        int ninfo = 1;
        switch (op->code) {
        case CPN_LA_SOLVE:
        case CPN_LA_INV:
            if (op->code == CPN_LA_SOLVE)
                CUDA_TRY(cpn_la_copy(n, nr, item, bb, B->st[nb], B->st[nb + 1], G, it, n * it, stream));
            else CUDA_TRY(cpn_la_identity(n, cplx, Gd, stream));
            if (cplx) {
                SOLVER_TRY(f->cusolverDnZgetrf(h, N, N, Fz, N, wz, ipiv, info));
                SOLVER_TRY(f->cusolverDnZgetrs(h, CUBLAS_OP_N, N, nr, Fz, N, ipiv, Gz, N, info + 1));
            } else {
                SOLVER_TRY(f->cusolverDnDgetrf(h, N, N, Fd, N, wd, ipiv, info));
                SOLVER_TRY(f->cusolverDnDgetrs(h, CUBLAS_OP_N, N, nr, Fd, N, ipiv, Gd, N, info + 1));
            }
            ninfo = 2;
            CUDA_TRY(cpn_la_copy(n, nr, item, G, it, n * it, o, nr * es, es, stream));   /* X row-major */
            break;
        case CPN_LA_SLOGDET:
            if (cplx) SOLVER_TRY(f->cusolverDnZgetrf(h, N, N, Fz, N, wz, ipiv, info));
            else SOLVER_TRY(f->cusolverDnDgetrf(h, N, N, Fd, N, wd, ipiv, info));
            CUDA_TRY(cpn_la_slogdet(n, cplx, Fd, ipiv, info, (double *)o, (double *)x, stream));
            continue;   /* aux written */
        case CPN_LA_CHOLESKY:
            if (cplx) SOLVER_TRY(f->cusolverDnZpotrf(h, uplo, N, Fz, N, wz, lwork, info));
            else SOLVER_TRY(f->cusolverDnDpotrf(h, uplo, N, Fd, N, wd, lwork, info));
            /* the other triangle holds A's entries: zero (lapack.c's zero_triangle, column-major) */
            CUDA_TRY(cpn_la_zero_triangle(n, n, item, F, it, n * it, op->iparam[0] != 0, stream));
            CUDA_TRY(cpn_la_copy(n, n, item, F, it, n * it, o, n * es, es, stream));
            break;
        case CPN_LA_QR: {
            if (cplx) SOLVER_TRY(f->cusolverDnZgeqrf(h, M, N, Fz, M, vz, wz, lwork, info));
            else SOLVER_TRY(f->cusolverDnDgeqrf(h, M, N, Fd, M, vd, wd, lwork, info));
            if (mode == CPN_QR_RAW) {
                /* NumPy's h is the Fortran array seen in C order, (n, m); then tau */
                CUDA_TRY(cpn_la_copy(1, m * n, item, F, 0, it, o, 0, es, stream));
                CUDA_TRY(cpn_la_copy(1, mn, item, vec, 0, it, o + m * n * es, 0, es, stream));
                break;
            }
            /* R: the upper triangle of the factor's first rr rows, read before Q overwrites it */
            const int64_t rr = mode == CPN_QR_COMPLETE ? m : mn;
            char *r = mode == CPN_QR_R ? o : o + m * qc * es;
            CUDA_TRY(cpn_la_copy(rr, n, item, F, it, m * it, r, n * es, es, stream));
            CUDA_TRY(cpn_la_zero_triangle(rr, n, item, r, n * es, es, 1, stream));
            if (mode == CPN_QR_R) break;
            if (cplx) SOLVER_TRY(f->cusolverDnZungqr(h, M, qc, MN, Fz, M, vz, wz, lwork, info + 1));
            else SOLVER_TRY(f->cusolverDnDorgqr(h, M, qc, MN, Fd, M, vd, wd, lwork, info + 1));
            ninfo = 2;
            CUDA_TRY(cpn_la_copy(m, qc, item, F, it, m * it, o, qc * es, es, stream));   /* Q (m x qc) */
            break;
        }
        case CPN_LA_EIGH: {
            const cusolverEigMode_t jobz = op->iparam[1] ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
            if (cplx) SOLVER_TRY(f->cusolverDnZheevd(h, jobz, uplo, N, Fz, N, vd, wz, lwork, info));
            else SOLVER_TRY(f->cusolverDnDsyevd(h, jobz, uplo, N, Fd, N, vd, wd, lwork, info));
            CUDA_TRY(cpn_la_copy(1, n, 8, vec, 0, 8, x + 8, 0, 8, stream));   /* w into aux[1..] */
            if (op->iparam[1]) CUDA_TRY(cpn_la_copy(n, n, item, F, it, n * it, o, n * es, es, stream));
            break;
        }
        case CPN_LA_SVD: {
            /* U' (Ms x ucs, ld Ms) into G, VT' (Ns x Ns, ld Ns) into H */
            if (cplx)
                SOLVER_TRY(f->cusolverDnZgesvd(h, job, job, Ms, Ns, Fz, Ms, vd, Gz, Ms, Hz, Ns, wz, lwork, rwork,
                                               info));
            else
                SOLVER_TRY(f->cusolverDnDgesvd(h, job, job, Ms, Ns, Fd, Ms, vd, Gd, Ms, Hd, Ns, wd, lwork, rwork,
                                               info));
            CUDA_TRY(cpn_la_copy(1, mn, 8, vec, 0, 8, x + 8, 0, 8, stream));   /* s into aux[1..] */
            if (!uv) break;
            const int64_t ucols = full ? m : mn, vrows = full ? n : mn;   /* U (m x ucols), Vh (vrows x n) */
            char *vh = o + m * ucols * es;
            if (!tr) {   /* U' (ld m) and VT' (ld n) are U and Vh */
                CUDA_TRY(cpn_la_copy(m, ucols, item, G, it, m * it, o, ucols * es, es, stream));
                CUDA_TRY(cpn_la_copy(vrows, n, item, H, it, n * it, vh, n * es, es, stream));
            } else {     /* U = VT'^T (VT' m x m, ld m), Vh = U'^T (U' n x ucs, ld n) */
                CUDA_TRY(cpn_la_copy(m, ucols, item, H, m * it, it, o, ucols * es, es, stream));
                CUDA_TRY(cpn_la_copy(vrows, n, item, G, n * it, it, vh, n * es, es, stream));
            }
            break;
        }
        default:
            break;
        }
        CUDA_TRY(cpn_la_info(info, ninfo, (double *)x, stream));
    }
    return CPN_OK;
}
