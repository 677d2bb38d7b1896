/* sort.h: numpy.sort / numpy.argsort along one axis on the device with CUB's radix sort (sort.cu),
 * and the executor's entry for the op (sort_op.c).  The layouts, dtype codes and CPN_CUB_HOST are
 * reduce.h's. */
#ifndef CPN_CUDA_SORT_H
#define CPN_CUDA_SORT_H

#include "reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sort each of the nrows rows of len elements (dtype dt: bool, integers, float32, float64) read
 * through `il` (rows outer, the sorted positions inner), stably by sort.c's order keys, into
 * `ol`: the sorted elements (their own bits) or, with `arg`, their int64 indices within the row.
 * nrows * len must be below 2^31.  Queued on `stream` (CPN_CUB_HOST: on host memory, in order).
 * Returns cudaSuccess, cudaErrorMemoryAllocation or the failing call's error. */
cudaError_t cpn_cub_sort(int dt, int arg, const char *in, const struct cpn_cub_layout *il, int64_t nrows,
                         int64_t len, char *out, const struct cpn_cub_layout *ol, cudaStream_t stream);

#ifdef __cplusplus
}

struct cpn_op;
#else
#include "opsem.h"
/* The SORT op (what cpn_devsort_supported accepts) through cpn_cub_sort on `stream`. */
enum cpn_status cpn_cuda_sort_op(const struct cpn_op *op, cudaStream_t stream);
#endif

#endif
