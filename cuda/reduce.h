/* reduce.h: reductions, scans and argreductions on the device with CUB (reduce.cu), and the
 * executor's entry for the ops (reduce_op.c).
 *
 * A device entry reads its input through a strided layout, gathers it into a temporary buffer
 * with the kept positions (rows) outer and the reduced positions inner and contiguous, converted
 * to the work type of csrc/runtime/devreduce.h, runs one CUB reduction or scan over the rows and
 * writes the results through the output's strided layout.  Everything is queued on `stream`;
 * temporaries come from cpn_alloc_device and go back to its pool in stream order. */
#ifndef CPN_CUDA_REDUCE_H
#define CPN_CUDA_REDUCE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#define CPN_CUB_MAXDIM 32

/* Element i (C order over `shape`) lies `sum((i's index in d) * stride[d])` bytes from the
 * origin.  ndim 0 is a single element. */
struct cpn_cub_layout {
    int ndim;
    int64_t shape[CPN_CUB_MAXDIM];
    int64_t stride[CPN_CUB_MAXDIM];
};

/* The dtype codes the device entries take: enum cpn_dtype's values (reduce_op.c checks). */
enum cpn_cub_dtype {
    CPN_CUB_B, CPN_CUB_I8, CPN_CUB_U8, CPN_CUB_I16, CPN_CUB_U16, CPN_CUB_I32, CPN_CUB_U32,
    CPN_CUB_I64, CPN_CUB_U64, CPN_CUB_F32 = 10, CPN_CUB_F64 = 11
};
/* The ops and work types: devreduce.h's enum cpn_devred_op and enum cpn_devred_work (checked). */
enum cpn_cub_op { CPN_CUB_ADD, CPN_CUB_MUL, CPN_CUB_MAX, CPN_CUB_MIN };
enum cpn_cub_work { CPN_CUB_W_U64, CPN_CUB_W_I64, CPN_CUB_W_F32, CPN_CUB_W_F64 };

/* As `stream`: run on host memory, sequentially, with the device path's conversions, work types,
 * operators and starting values (a test of all but CUB and the launches; a real stream handle
 * is never this value). */
#define CPN_CUB_HOST ((cudaStream_t)(uintptr_t)1)

#ifdef __cplusplus
extern "C" {
#endif

/* out[row] = reduce `op` (enum cpn_devred_op) over row `row` of the input (nrows rows of len
 * elements, in_dt values converted to acc_dt, computed in `work`: enum cpn_devred_work), stored as
 * acc_dt.  `init`: NULL (the op's identity, or the extreme for maximum/minimum) or one value of
 * the work type that starts every row.  `fpe`: NULL, or a report word (devfpe.h's layout; device
 * memory, host memory with CPN_CUB_HOST) into which the floating-point errors NumPy's loops
 * would report are ORed (reduce.cu states the rules; for float work types).  Returns
 * cudaSuccess, cudaErrorMemoryAllocation when a temporary could not be allocated
 * (cpn_alloc_device recorded it), or the failing call's error. */
cudaError_t cpn_cub_reduce(int op, int work, int in_dt, int acc_dt, const char *in,
                           const struct cpn_cub_layout *il, int64_t nrows, int64_t len, char *out,
                           const struct cpn_cub_layout *ol, const void *init, uint32_t *fpe, cudaStream_t stream);
/* The inclusive scan of `op` along each row (nrows rows of len elements, dtype dt in and out);
 * `fpe` as for cpn_cub_reduce. */
cudaError_t cpn_cub_scan(int op, int work, int dt, const char *in, const struct cpn_cub_layout *il,
                         int64_t nrows, int64_t len, char *out, const struct cpn_cub_layout *ol,
                         uint32_t *fpe, cudaStream_t stream);
/* out[row] (int64) = the index within its row of the row's first maximum (mx) or minimum, a NaN
 * counting as the extreme (NumPy's argmax/argmin).  work: CPN_DRW_I64, _U64 or _F64. */
cudaError_t cpn_cub_argreduce(int mx, int work, int dt, const char *in, const struct cpn_cub_layout *il,
                              int64_t nrows, int64_t len, char *out, const struct cpn_cub_layout *ol,
                              cudaStream_t stream);
/* Number of device code paths reduce.cu instantiates, for the build test. */
int cpn_cub_variant_count(void);

#ifdef __cplusplus
}
#else
#include "opsem.h"
#include "status.h"
/* Run REDUCE, SCAN or ARGREDUCE op `op` on the device's buffers, queued on `stream`;
 * CPN_ERR_UNSUPPORTED, before touching any buffer, for what devreduce.h does not cover.  A
 * watched float reduction or scan (cpn_fperr_watches) reports into a device report word that
 * *fp then names (kernels.h, devfpe.h), as the generated kernels' do. */
struct cpn_fpreport;
enum cpn_status cpn_cuda_reduce_op(const struct cpn_op *op, cudaStream_t stream, struct cpn_fpreport *fp);
/* The same on the op's host buffers (stream CPN_CUB_HOST), for tests/c/test_cub.c; a watched
 * op's findings are ORed into *fp as status-flag bits (no device word). */
enum cpn_status cpn_cuda_reduce_op_host(const struct cpn_op *op, struct cpn_fpreport *fp);
#endif

#endif
