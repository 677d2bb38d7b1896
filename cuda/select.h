/* select.h: boolean selection and integer-array indexing on the device (select.cu): compaction
 * by a mask (a[mask], compress, extract) and nonzero with a CUB exclusive prefix sum, the gather
 * (a[idx], take) and the scatter (a[idx] = v, put; integer ufunc.at) kernels; the executor's entry for the
 * COMPACT, NONZERO, GATHER and SCATTER ops (select_op.c).  The layouts and CPN_CUB_HOST are
 * reduce.h's. */
#ifndef CPN_CUDA_SELECT_H
#define CPN_CUDA_SELECT_H

#include <stddef.h>

#include "reduce.h"

/* A scatter's write: devselect.h's enum cpn_devsel_at (checked in select_op.c). */
enum cpn_cub_at { CPN_CUB_AT_SET, CPN_CUB_AT_ADD, CPN_CUB_AT_SUB, CPN_CUB_AT_MUL, CPN_CUB_AT_MAX, CPN_CUB_AT_MIN };

#ifdef __cplusplus
extern "C" {
#endif

/* out (contiguous, `count` elements of `item` bytes) = the elements of src (layout sl) where the
 * mask (bytes, non-zero true; layout ml, the same shape: n elements) is true, in C order.
 * `count` is the number of true elements (the caller counted; no slot past it is written).
 * n must be below 2^31.  Queued on `stream` (CPN_CUB_HOST: on host memory, in order).  Returns
 * cudaSuccess, cudaErrorMemoryAllocation or the failing call's error. */
cudaError_t cpn_cub_compact(size_t item, const char *src, const struct cpn_cub_layout *sl, const char *mask,
                            const struct cpn_cub_layout *ml, int64_t count, char *out, cudaStream_t stream);
/* out (int64, contiguous (ml->ndim, count)) = the indices of the mask's true elements, in C
 * order: out[d * count + j] = index along dimension d of the j-th (ml->ndim >= 1). */
cudaError_t cpn_cub_nonzero(const char *mask, const struct cpn_cub_layout *ml, int64_t count, int64_t *out,
                            cudaStream_t stream);
/* out (contiguous, m blocks of `bl`'s shape) = rows idx[j] of src: row k starts k * st0 bytes
 * from src, its elements lie at bl's offsets (bl: the trailing dimensions; ndim 0: one
 * element); idx int64 with byte stride ist, in [-n, n) (negatives from the end; the caller
 * checked them). */
cudaError_t cpn_cub_gather(size_t item, const char *src, int64_t n, int64_t st0, const struct cpn_cub_layout *bl,
                           const char *idx, int64_t ist, int64_t m, char *out, cudaStream_t stream);
/* dst's row idx[j] = val's row j (dst rows k * dst_st0 bytes apart, elements at dl's offsets;
 * val rows val_st0 apart, elements at vl's offsets, vl of dl's shape) for j = 0..m-1 in order:
 * a repeated index keeps the last row, NumPy's assignment.  The writes are one stable radix
 * sort of (row, j) pairs away: the last j of each row's run writes.  With `at` (enum
 * cpn_cub_at) other than CPN_CUB_AT_SET, ufunc.at: dst = op(dst, val's row j) for j in order,
 * dt an integer dtype code (reduce.h's), each row's run applied in j order by one thread per
 * element, as the CPU's sequential loop.  idx as for the gather; m below 2^31. */
cudaError_t cpn_cub_scatter(int dt, int at, size_t item, char *dst, int64_t n, int64_t dst_st0, const struct cpn_cub_layout *dl,
                            const char *val, int64_t val_st0, const struct cpn_cub_layout *vl, const char *idx,
                            int64_t ist, int64_t m, cudaStream_t stream);

#ifdef __cplusplus
}
#else
#include "opsem.h"
#include "status.h"
/* A COMPACT, NONZERO, GATHER or SCATTER op (what cpn_devselect_supported accepts) on the
 * device's buffers, queued on `stream`; with stream CPN_CUB_HOST on the op's host buffers
 * (tests/c/test_cub_select.c).  Local. */
enum cpn_status cpn_cuda_select_op(const struct cpn_op *op, cudaStream_t stream);
#endif

#endif
