/* blas.h: matrix products on the device with cuBLAS (blas.c), loaded with dlopen on first use so
 * that a CUDA build imports where libcublas is absent (products then run on the host).  Local. */
#ifndef CPN_CUDA_BLAS_H
#define CPN_CUDA_BLAS_H

#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "opsem.h"
#include "status.h"

/* out[0] = in[0] @ in[1] (2-D, float32/float64, each operand row- or column-major with unit
 * element stride in one dimension) on `stream`, device buffers via store.c.  CPN_ERR_UNSUPPORTED
 * (nothing written) for other dtypes or layouts, or without libcublas. */
enum cpn_status cpn_cuda_matmul(const struct cpn_op *op, cudaStream_t stream);
/* x[0..n) *= alpha (float32 when single, else float64) on `stream` (cuBLAS scal); for the fft
 * op's norm= scaling.  CPN_ERR_DEVICE without libcublas. */
enum cpn_status cpn_cuda_scale(bool single, long long n, double alpha, void *x, cudaStream_t stream);

#endif
