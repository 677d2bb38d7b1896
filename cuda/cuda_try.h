/* cuda_try.h: CUDA_TRY(expr), the one way the CUDA backend's C files check a CUDA runtime call:
 * a failure returns CPN_ERR_DEVICE with the call, CUDA's reason, the file and the line.  Local. */
#ifndef CPN_CUDA_TRY_H
#define CPN_CUDA_TRY_H

#include <cuda_runtime_api.h>

#include "status.h"

#define CUDA_TRY(expr)                                                                       \
    do {                                                                                     \
        cudaError_t cpn_cuda_err_ = (expr);                                                  \
        if (cpn_cuda_err_ != cudaSuccess)                                                    \
            return cpn_error(CPN_ERR_DEVICE, "cupynum: %s failed: %s (%s:%d)", #expr,        \
                             cudaGetErrorString(cpn_cuda_err_), __FILE__, __LINE__);         \
    } while (0)

#endif
