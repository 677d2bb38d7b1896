/* devlapack.h: which LAPACK ops (CPN_OPK_LAPACK, kernels.h's enum cpn_lapack_routine) a device
 * solver library takes: cuSOLVER's dense API (cuda/solver.c).  The CUDA backend and the simulated
 * device (backend_sim.c) decide with this one function, so the simulated device runs exactly the
 * coverage of the GPU.
 *
 * Taken: solve, inv (getrf + getrs), slogdet (getrf), cholesky (potrf), qr in every mode (geqrf +
 * orgqr/ungqr), eigh/eigvalsh (syevd/heevd) and svd/svdvals (gesvd) of float64 and complex128
 * matrices -- the computing types numpy.linalg submits (cupynum/linalg/_linalg.py casts every
 * input dtype to them), batched along any leading dimensions, operands of any strides (the device
 * code copies each matrix into a column-major scratch as lapack.c does).  eig/eigvals and lstsq
 * stay on the host: cuSOLVER has no general eigensolver (geev) before CUDA 12.6 and no gelsd.
 * cuSOLVER's legacy dense API counts in int, so every scratch matrix (A, the right-hand sides, a
 * complete Q, a full U or Vh) must hold fewer than 2^31 elements.  Pure, Local. */
#ifndef CPN_DEVLAPACK_H
#define CPN_DEVLAPACK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels.h"
#include "opsem.h"
#include "view.h"

static inline bool cpn_devlapack_supported(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_LAPACK || op->nout != 2 || op->nin < 1 || !op->in[0] || !op->out[0] ||
        !op->out[1])
        return false;
    if (op->dtype != CPN_DTYPE_FLOAT64 && op->dtype != CPN_DTYPE_COMPLEX128) return false;
    switch (op->code) {
    case CPN_LA_SOLVE:
    case CPN_LA_INV:
    case CPN_LA_SLOGDET:
    case CPN_LA_CHOLESKY:
    case CPN_LA_EIGH:
    case CPN_LA_SVD:
        break;
    case CPN_LA_QR:
        if (op->iparam[0] < CPN_QR_REDUCED || op->iparam[0] > CPN_QR_RAW) return false;
        break;
    default:
        return false;   /* eig, lstsq: the host's LAPACK */
    }
    const struct cpn_view *a = op->in[0], *b = op->nin > 1 ? op->in[1] : NULL;
    const int nd = a->ndim;
    if (nd < 2 || op->out[0]->ndim != nd - 1 || op->out[1]->ndim != nd - 1) return false;
    if ((op->code == CPN_LA_SOLVE) != (b != NULL)) return false;
    const int64_t m = a->shape[nd - 2], n = a->shape[nd - 1], k = b ? b->shape[nd - 1] : 0;
    const int64_t mx = m > n ? m : n;
    if (m <= 0 || n <= 0 || (b && k <= 0)) return false;   /* empty: NumPy's stand-ins, never here */
    /* the largest scratch matrix: an m x m Q (qr complete) or U (svd full_matrices), else A */
    const bool square_scratch = (op->code == CPN_LA_QR && op->iparam[0] == CPN_QR_COMPLETE) ||
                                (op->code == CPN_LA_SVD && op->iparam[0]);
    if (mx >= INT32_MAX || k >= INT32_MAX || (square_scratch ? mx * mx : m * n) >= INT32_MAX ||
        n * k >= INT32_MAX)
        return false;
    return true;
}

#endif
