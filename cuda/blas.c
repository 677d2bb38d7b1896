/* blas.c: cuBLAS gemm for the matmul op (see blas.h).
 *
 * cuBLAS is column-major; a row-major C = A @ B is computed as C^T = B^T @ A^T, each row-major
 * operand being its transpose in column-major order with the row stride as leading dimension,
 * and a column-major operand (a transposed view) taken with op T. */
#include "blas.h"

#include <dlfcn.h>
#include <stddef.h>

#include <cublas_v2.h>

#include "opsem.h"
#include "store.h"
#include "view.h"

static struct {
    int tried;
    void *lib;
    cublasHandle_t h;
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const double *, const double *, int, const double *, int, const double *,
                            double *, int);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const float *, const float *, int, const float *, int, const float *,
                            float *, int);
    cublasStatus_t (*dscal)(cublasHandle_t, int, const double *, double *, int);
    cublasStatus_t (*sscal)(cublasHandle_t, int, const float *, float *, int);
} blas;

static bool load(void)
{
    if (blas.tried) return blas.h != NULL;
    blas.tried = 1;
    static const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !blas.lib; i++)
        blas.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!blas.lib) return false;
    *(void **)&blas.create = dlsym(blas.lib, "cublasCreate_v2");
    *(void **)&blas.set_stream = dlsym(blas.lib, "cublasSetStream_v2");
    *(void **)&blas.dgemm = dlsym(blas.lib, "cublasDgemm_v2");
    *(void **)&blas.sgemm = dlsym(blas.lib, "cublasSgemm_v2");
    *(void **)&blas.dscal = dlsym(blas.lib, "cublasDscal_v2");
    *(void **)&blas.sscal = dlsym(blas.lib, "cublasSscal_v2");
    if (!blas.create || !blas.set_stream || !blas.dgemm || !blas.sgemm || !blas.dscal || !blas.sscal || blas.create(&blas.h) != CUBLAS_STATUS_SUCCESS) {
        blas.h = NULL;
        return false;
    }
    return true;
}

/* The cuBLAS view of a row-major-indexed operand with byte strides (rs, cs): as its column-major
 * transpose (op N, ld = rs) or, when columns are contiguous, itself (op T, ld = cs). */
static bool layout(int64_t rows, int64_t cols, const int64_t *st, size_t item, cublasOperation_t *op, int *ld)
{
    int64_t rs = st[0] / (int64_t)item, cs = st[1] / (int64_t)item;
    if (st[0] % (int64_t)item || st[1] % (int64_t)item) return false;
    if (cs == 1 || cols == 1) {
        int64_t l = rows == 1 ? cols : rs;
        if (l < cols || l > 0x7fffffff) return false;
        *op = CUBLAS_OP_N;
        *ld = (int)l;
        return true;
    }
    if (rs == 1 || rows == 1) {
        int64_t l = cols == 1 ? rows : cs;
        if (l < rows || l > 0x7fffffff) return false;
        *op = CUBLAS_OP_T;
        *ld = (int)l;
        return true;
    }
    return false;
}

enum cpn_status cpn_cuda_matmul(const struct cpn_op *op, cudaStream_t stream)
{
    const struct cpn_view *a = op->in[0], *b = op->in[1], *c = op->out[0];
    if (op->dtype != CPN_DTYPE_FLOAT64 && op->dtype != CPN_DTYPE_FLOAT32) return CPN_ERR_UNSUPPORTED;
    if (!a || !b || a->ndim != 2 || b->ndim != 2 || c->ndim != 2) return CPN_ERR_UNSUPPORTED;
    int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
    if (m <= 0 || n <= 0 || k <= 0 || m > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff) return CPN_ERR_UNSUPPORTED;
    size_t item = cpn_dtype_size(op->dtype);
    int64_t as[CPN_MAXDIM], bs[CPN_MAXDIM], cs[CPN_MAXDIM], ao, bo, co;
    cpn_view_byte_layout(a, as, &ao);
    cpn_view_byte_layout(b, bs, &bo);
    cpn_view_byte_layout(c, cs, &co);
    cublasOperation_t opa, opb, opc;
    int lda, ldb, ldc;
    if (!layout(m, k, as, item, &opa, &lda) || !layout(k, n, bs, item, &opb, &ldb) ||
        !layout(m, n, cs, item, &opc, &ldc) || opc != CUBLAS_OP_N)
        return CPN_ERR_UNSUPPORTED;
    if (!load()) return CPN_ERR_UNSUPPORTED;
    char *ab = cpn_store_device_data(a->store, false, false);
    char *bb = ab ? cpn_store_device_data(b->store, false, false) : NULL;
    char *cb = bb ? cpn_store_device_data(c->store, true, cpn_op_overwrites(op)) : NULL;
    if (!cb) return CPN_ERR_NOMEM;
    if (blas.set_stream(blas.h, stream) != CUBLAS_STATUS_SUCCESS)
        return cpn_error(CPN_ERR_DEVICE, "cupynum: cublasSetStream failed");
    cublasStatus_t s;
    /* C^T (n x m) = B^T (n x k) @ A^T (k x m), all column-major */
    if (op->dtype == CPN_DTYPE_FLOAT64) {
        const double one = 1.0, zero = 0.0;
        s = blas.dgemm(blas.h, opb, opa, (int)n, (int)m, (int)k, &one, (const double *)(bb + bo), ldb,
                       (const double *)(ab + ao), lda, &zero, (double *)(cb + co), ldc);
    } else {
        const float one = 1.0f, zero = 0.0f;
        s = blas.sgemm(blas.h, opb, opa, (int)n, (int)m, (int)k, &one, (const float *)(bb + bo), ldb,
                       (const float *)(ab + ao), lda, &zero, (float *)(cb + co), ldc);
    }
    if (s != CUBLAS_STATUS_SUCCESS) return cpn_error(CPN_ERR_DEVICE, "cupynum: cuBLAS gemm failed (status %d)", (int)s);
    return CPN_OK;
}

enum cpn_status cpn_cuda_scale(bool single, long long n, double alpha, void *x, cudaStream_t stream)
{
    if (!load()) return cpn_error(CPN_ERR_DEVICE, "cupynum: the fft's scaling needs cuBLAS (libcublas not found)");
    if (blas.set_stream(blas.h, stream) != CUBLAS_STATUS_SUCCESS)
        return cpn_error(CPN_ERR_DEVICE, "cupynum: cublasSetStream failed");
    const long long chunk = 1LL << 30;   /* scal counts are int */
    for (long long at = 0; at < n; at += chunk) {
        const int m = (int)(n - at < chunk ? n - at : chunk);
        cublasStatus_t s;
        if (single) {
            const float a = (float)alpha;
            s = blas.sscal(blas.h, m, &a, (float *)x + at, 1);
        } else {
            s = blas.dscal(blas.h, m, &alpha, (double *)x + at, 1);
        }
        if (s != CUBLAS_STATUS_SUCCESS) return cpn_error(CPN_ERR_DEVICE, "cupynum: cuBLAS scal failed (status %d)", (int)s);
    }
    return CPN_OK;
}
