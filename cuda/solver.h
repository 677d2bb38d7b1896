/* solver.h: numpy.linalg's factorizations (the LAPACK op) on the device with cuSOLVER's dense API
 * (solver.c), loaded with dlopen on first use so that a CUDA build imports where libcusolver is
 * absent (the op then runs on the host); the small kernels around the calls (solver_kernels.cu).
 * csrc/runtime/devlapack.h says which ops.  Local. */
#ifndef CPN_CUDA_SOLVER_H
#define CPN_CUDA_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "reduce.h"   /* CPN_CUB_HOST */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- solver_kernels.cu: queued on `stream`; with CPN_CUB_HOST, host loops on host memory.
 * Elements of `item` bytes (8 or 16), strides in bytes.  Each returns the launch's error. */

/* dst[i*d0 + j*d1] = src[i*s0 + j*s1] for i < r, j < c. */
cudaError_t cpn_la_copy(int64_t r, int64_t c, size_t item, const char *src, int64_t s0, int64_t s1, char *dst,
                        int64_t d0, int64_t d1, cudaStream_t stream);
/* a[i*s0 + j*s1] = 0 for i > j (lower) or i < j, i < r, j < c. */
cudaError_t cpn_la_zero_triangle(int64_t r, int64_t c, size_t item, char *a, int64_t s0, int64_t s1, int lower,
                                 cudaStream_t stream);
/* a = the n x n identity (contiguous; complex128 when cplx, else float64). */
cudaError_t cpn_la_identity(int64_t n, int cplx, double *a, cudaStream_t stream);
/* aux[0] = the first non-zero of info[0..ninfo) (0 if none), as a double. */
cudaError_t cpn_la_info(const int *info, int ninfo, double *aux, cudaStream_t stream);
/* slogdet of the n x n column-major getrf factor lu with 1-based pivots ipiv and getrf's *info:
 * sign[0] (and sign[1], the imaginary part, when cplx), aux[0] = info (0 for a singular
 * matrix: sign 0, aux[1] = -inf), aux[1] = log|det| (lapack.c's CPN_LA_SLOGDET, same order). */
cudaError_t cpn_la_slogdet(int64_t n, int cplx, const double *lu, const int *ipiv, const int *info, double *sign,
                           double *aux, cudaStream_t stream);

#ifdef __cplusplus
}
#else

#include "backend.h"
#include "status.h"

/* The cuSOLVER entry points solver.c calls (float64 'D' and complex128 'Z' of the legacy dense
 * API), typed from cusolverDn.h itself so that a declaration cannot drift from the library's;
 * solver.c fills them with dlsym (no link-time dependency). */
#define CPN_CUSOLVER_FUNCS(X)                                                                    \
    X(cusolverDnCreate) X(cusolverDnSetStream)                                                   \
    X(cusolverDnDgetrf_bufferSize) X(cusolverDnZgetrf_bufferSize)                                \
    X(cusolverDnDgetrf) X(cusolverDnZgetrf) X(cusolverDnDgetrs) X(cusolverDnZgetrs)              \
    X(cusolverDnDpotrf_bufferSize) X(cusolverDnZpotrf_bufferSize)                                \
    X(cusolverDnDpotrf) X(cusolverDnZpotrf)                                                      \
    X(cusolverDnDgeqrf_bufferSize) X(cusolverDnZgeqrf_bufferSize)                                \
    X(cusolverDnDgeqrf) X(cusolverDnZgeqrf)                                                      \
    X(cusolverDnDorgqr_bufferSize) X(cusolverDnZungqr_bufferSize)                                \
    X(cusolverDnDorgqr) X(cusolverDnZungqr)                                                      \
    X(cusolverDnDsyevd_bufferSize) X(cusolverDnZheevd_bufferSize)                                \
    X(cusolverDnDsyevd) X(cusolverDnZheevd)                                                      \
    X(cusolverDnDgesvd_bufferSize) X(cusolverDnZgesvd_bufferSize)                                \
    X(cusolverDnDgesvd) X(cusolverDnZgesvd)

struct cpn_cusolver_api {
#define CPN_CUSOLVER_MEMBER(f) __typeof__(f) *f;
    CPN_CUSOLVER_FUNCS(CPN_CUSOLVER_MEMBER)
#undef CPN_CUSOLVER_MEMBER
};

/* The LAPACK op (what cpn_devlapack_supported accepts) with cuSOLVER on `stream`, b's operands
 * bound to device buffers: per matrix of the batch, the results in out[0]'s row and info (and
 * eigenvalues, singular values, logdet) in aux's, as lapack.c writes them.  CPN_ERR_UNSUPPORTED
 * (nothing written) for other ops or without libcusolver; CPN_ERR_NOMEM without workspace. */
enum cpn_status cpn_cuda_lapack(const struct cpn_bound_op *b, cudaStream_t stream);

/* Use `api` instead of libcusolver from now on (tests/c/test_cusolver.c: LAPACK behind
 * cuSOLVER's signatures, run with stream CPN_CUB_HOST on host memory).  Not for production. */
void cpn_cuda_solver_use(const struct cpn_cusolver_api *api);

#endif

#endif
