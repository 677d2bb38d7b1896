/* fft.h: the fft op on the device with cuFFT (fft.c), loaded with dlopen on first use so that a
 * CUDA build imports where libcufft is absent (transforms then run on the host).  Local. */
#ifndef CPN_CUDA_FFT_H
#define CPN_CUDA_FFT_H

#include <cuda_runtime_api.h>

#include "opsem.h"
#include "status.h"

/* out[0] = the transform of in[0] (csrc/runtime/devfft.h says which layouts) on `stream`, device
 * buffers via store.c, scaled by dparam[0].  CPN_ERR_UNSUPPORTED (nothing written) for other
 * layouts, or without libcufft. */
enum cpn_status cpn_cuda_fft(const struct cpn_op *op, cudaStream_t stream);

#endif
