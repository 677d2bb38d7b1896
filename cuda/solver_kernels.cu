/* solver_kernels.cu: the small kernels around solver.c's cuSOLVER calls (solver.h): strided 2-D
 * copies (a row-major operand into cuSOLVER's column-major scratch and the results back, the
 * transposes included), zeroing a triangle (cholesky's other triangle, qr's R), an identity
 * (inv's right-hand side), LAPACK's info into the op's float64 aux row, and slogdet's sign and
 * log|det| from an LU factor, each written as lapack.c computes it on the host.
 *
 * Elements are float64 or complex128 (item 8 or 16 bytes), moved as 64-bit words.  Every entry
 * queues on `stream`; with CPN_CUB_HOST (reduce.h) it runs the same element functions as host
 * loops on host memory instead (tests/c/test_cusolver.c: everything but cuSOLVER and the
 * launches, checked without a GPU). */
#include <cmath>
#include <cstdint>

#include "solver.h"

namespace {

constexpr int kBlock = 256;

inline unsigned grid_for(int64_t n)
{
    int64_t b = (n + kBlock - 1) / kBlock;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

__host__ __device__ __forceinline__ void copy_item(char *d, const char *s, size_t item)
{
    for (size_t w = 0; w < item / 8; w++) ((uint64_t *)d)[w] = ((const uint64_t *)s)[w];
}

/* Element t of an r x c copy, the dimension whose destination stride is smaller walked fastest
 * (coalesced writes). */
__host__ __device__ __forceinline__ void copy_one(int64_t t, int64_t r, int64_t c, size_t item, const char *src,
                                                  int64_t s0, int64_t s1, char *dst, int64_t d0, int64_t d1)
{
    int64_t i, j;
    if ((d1 < 0 ? -d1 : d1) <= (d0 < 0 ? -d0 : d0)) {
        i = t / c;
        j = t % c;
    } else {
        j = t / r;
        i = t % r;
    }
    copy_item(dst + i * d0 + j * d1, src + i * s0 + j * s1, item);
}

__global__ void k_copy(int64_t r, int64_t c, size_t item, const char *src, int64_t s0, int64_t s1, char *dst,
                       int64_t d0, int64_t d1)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < r * c; t += (int64_t)gridDim.x * blockDim.x)
        copy_one(t, r, c, item, src, s0, s1, dst, d0, d1);
}

__host__ __device__ __forceinline__ void zero_one(int64_t t, int64_t c, size_t item, char *a, int64_t s0,
                                                  int64_t s1, bool lower)
{
    const int64_t i = t / c, j = t % c;
    if (lower ? i > j : i < j)
        for (size_t w = 0; w < item / 8; w++) ((uint64_t *)(a + i * s0 + j * s1))[w] = 0;
}

__global__ void k_zero(int64_t r, int64_t c, size_t item, char *a, int64_t s0, int64_t s1, bool lower)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < r * c; t += (int64_t)gridDim.x * blockDim.x)
        zero_one(t, c, item, a, s0, s1, lower);
}

__host__ __device__ __forceinline__ void identity_one(int64_t t, int64_t n, bool cplx, double *a)
{
    const int64_t i = t % n, j = t / n;
    if (cplx) {
        a[2 * t] = i == j ? 1.0 : 0.0;
        a[2 * t + 1] = 0.0;
    } else {
        a[t] = i == j ? 1.0 : 0.0;
    }
}

__global__ void k_identity(int64_t n, bool cplx, double *a)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n * n; t += (int64_t)gridDim.x * blockDim.x)
        identity_one(t, n, cplx, a);
}

__host__ __device__ __forceinline__ void info_one(const int *info, int ninfo, double *aux)
{
    int v = 0;
    for (int k = 0; k < ninfo && !v; k++) v = info[k];
    aux[0] = v;
}

__global__ void k_info(const int *info, int ninfo, double *aux) { info_one(info, ninfo, aux); }

/* lapack.c's CPN_LA_SLOGDET case on the factor of getrf: a singular factor (info > 0) gives sign
 * 0 and -inf with info 0; a pivot other than its own row flips the sign; the diagonal's signs
 * (complex: phases) multiply in, log|d| sums, in the host's order. */
__host__ __device__ __forceinline__ void slogdet_one(int64_t n, bool cplx, const double *lu, const int *ipiv,
                                                     const int *infop, double *sign, double *aux)
{
    int info = *infop;
    double logdet = 0, sr = 1, si = 0;
    if (info > 0) {
        sr = 0;
        logdet = -INFINITY;
        info = 0;
    } else if (!info) {
        for (int64_t i = 0; i < n; i++) {
            if (ipiv[i] != i + 1) {
                sr = -sr;
                si = -si;
            }
            if (cplx) {
                const double re = lu[2 * (i + i * n)], im = lu[2 * (i + i * n) + 1], ab = hypot(re, im);
                const double nr = (sr * re - si * im) / ab, ni = (sr * im + si * re) / ab;
                sr = nr;
                si = ni;
                logdet += log(ab);
            } else {
                const double v = lu[i + i * n];
                if (v < 0) sr = -sr;
                logdet += log(fabs(v));
            }
        }
    }
    sign[0] = sr;
    if (cplx) sign[1] = si;
    aux[0] = info;
    aux[1] = logdet;
}

__global__ void k_slogdet(int64_t n, bool cplx, const double *lu, const int *ipiv, const int *info, double *sign,
                          double *aux)
{
    slogdet_one(n, cplx, lu, ipiv, info, sign, aux);
}

}   // namespace

extern "C" {

cudaError_t cpn_la_copy(int64_t r, int64_t c, size_t item, const char *src, int64_t s0, int64_t s1, char *dst,
                        int64_t d0, int64_t d1, cudaStream_t stream)
{
    if (r <= 0 || c <= 0) return cudaSuccess;
    if (stream == CPN_CUB_HOST) {
        for (int64_t t = 0; t < r * c; t++) copy_one(t, r, c, item, src, s0, s1, dst, d0, d1);
        return cudaSuccess;
    }
    k_copy<<<grid_for(r * c), kBlock, 0, stream>>>(r, c, item, src, s0, s1, dst, d0, d1);
    return cudaGetLastError();
}

cudaError_t cpn_la_zero_triangle(int64_t r, int64_t c, size_t item, char *a, int64_t s0, int64_t s1, int lower,
                                 cudaStream_t stream)
{
    if (r <= 0 || c <= 0) return cudaSuccess;
    if (stream == CPN_CUB_HOST) {
        for (int64_t t = 0; t < r * c; t++) zero_one(t, c, item, a, s0, s1, lower != 0);
        return cudaSuccess;
    }
    k_zero<<<grid_for(r * c), kBlock, 0, stream>>>(r, c, item, a, s0, s1, lower != 0);
    return cudaGetLastError();
}

cudaError_t cpn_la_identity(int64_t n, int cplx, double *a, cudaStream_t stream)
{
    if (stream == CPN_CUB_HOST) {
        for (int64_t t = 0; t < n * n; t++) identity_one(t, n, cplx != 0, a);
        return cudaSuccess;
    }
    k_identity<<<grid_for(n * n), kBlock, 0, stream>>>(n, cplx != 0, a);
    return cudaGetLastError();
}

cudaError_t cpn_la_info(const int *info, int ninfo, double *aux, cudaStream_t stream)
{
    if (stream == CPN_CUB_HOST) {
        info_one(info, ninfo, aux);
        return cudaSuccess;
    }
    k_info<<<1, 1, 0, stream>>>(info, ninfo, aux);
    return cudaGetLastError();
}

cudaError_t cpn_la_slogdet(int64_t n, int cplx, const double *lu, const int *ipiv, const int *info, double *sign,
                           double *aux, cudaStream_t stream)
{
    if (stream == CPN_CUB_HOST) {
        slogdet_one(n, cplx != 0, lu, ipiv, info, sign, aux);
        return cudaSuccess;
    }
    k_slogdet<<<1, 1, 0, stream>>>(n, cplx != 0, lu, ipiv, info, sign, aux);
    return cudaGetLastError();
}

}   // extern "C"
