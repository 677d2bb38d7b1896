/* select.cu: boolean selection and integer-array indexing on the device (select.h).
 *
 * Compaction (a[mask], compress, extract) and nonzero: a kernel reads the mask through its
 * strided layout into one flag per element (C order), cub::DeviceScan::ExclusiveSum turns the
 * flags into each true element's output position, and a kernel writes every true element (or its
 * index along each dimension) there: the host kernel's output (csrc/kernels/compact.c), C order,
 * exactly.
 *
 * Gather (a[idx], take): one thread per output element copies it from row idx[j] of the source
 * (negatives from the end).  Scatter (a[idx] = v, put): NumPy's assignment keeps the last value
 * of a repeated index; the (row, j) pairs are sorted by row with cub::DeviceRadixSort::SortPairs,
 * which is stable, so the last pair of each row's run is the last j, and only that j writes: no
 * two threads write one element, and the result is the host's sequential loop's.  ufunc.at of
 * the integer dtypes' add, subtract, multiply, maximum and minimum (scalar.h's functions, as the
 * CPU loops) sorts the same pairs and lets the first pair of each row's run apply the whole run
 * in j order: the CPU's order per element, so its result bit for bit; float ufunc.at (its
 * floating-point reports) and the other ops stay on the host (devselect.h).
 *
 * With stream CPN_CUB_HOST the entries run on host memory instead: the same flag, position and
 * write functions, a sequential exclusive sum, and a stable sort where the GPU runs CUB
 * (tests/c/test_cub_select.c compares them with the CPU kernels: everything but CUB and the
 * launches, checked without a GPU).  Temporaries come from the device pool and go back in stream
 * order. */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

extern "C" {
#include "alloc.h"
}
#include "scalar.h"
#include "select.h"

namespace {

#include "cub_common.cuh"

__host__ __device__ __forceinline__ void copy_bytes(char *o, const char *p, size_t item)
{
    for (size_t b = 0; b < item; b++) o[b] = p[b];
}

__host__ __device__ __forceinline__ int64_t elements(const cpn_cub_layout &l)
{
    int64_t n = 1;
    for (int d = 0; d < l.ndim; d++) n *= l.shape[d];
    return n;
}

/* Element i's flag: the mask's byte is non-zero. */
__host__ __device__ __forceinline__ int flag_of(const char *mask, const cpn_cub_layout &ml, int64_t i)
{
    return mask[offset_of(ml, i)] != 0;
}

/* Element i, true, at output position p: its value (compact) or its indices (nonzero). */
__host__ __device__ __forceinline__ void compact_one(const char *src, const cpn_cub_layout &sl, size_t item,
                                                     int64_t i, int64_t p, char *out)
{
    copy_bytes(out + p * (int64_t)item, src + offset_of(sl, i), item);
}

__host__ __device__ __forceinline__ void nonzero_one(const cpn_cub_layout &ml, int64_t i, int64_t p, int64_t count,
                                                     int64_t *out)
{
    for (int d = ml.ndim - 1; d >= 0; d--) {
        out[d * count + p] = i % ml.shape[d];
        i /= ml.shape[d];
    }
}

/* Output element t of the gather (row j = t / block, element e = t % block of it). */
__host__ __device__ __forceinline__ void gather_one(const char *src, int64_t n, int64_t st0, const cpn_cub_layout &bl,
                                                    size_t item, const char *idx, int64_t ist, int64_t block,
                                                    int64_t t, char *out)
{
    const int64_t j = t / block, e = t % block;
    int64_t k = *(const int64_t *)(idx + j * ist);
    if (k < 0) k += n;
    if (k < 0 || k >= n) return;   /* the module checked: never */
    copy_bytes(out + t * (int64_t)item, src + k * st0 + offset_of(bl, e), item);
}

/* The sort key of index j: its row in [0, n), n for an index out of bounds (never written). */
__host__ __device__ __forceinline__ uint64_t row_key(const char *idx, int64_t ist, int64_t n, int64_t j)
{
    int64_t k = *(const int64_t *)(idx + j * ist);
    if (k < 0) k += n;
    return k < 0 || k >= n ? (uint64_t)n : (uint64_t)k;
}

/* Element e of sorted pair p (row key[p], value row pos[p]) when p is its row's last pair. */
__host__ __device__ __forceinline__ void scatter_one(char *dst, int64_t n, int64_t dst_st0, const cpn_cub_layout &dl,
                                                     const char *val, int64_t val_st0, const cpn_cub_layout &vl,
                                                     size_t item, const uint64_t *key, const int *pos, int64_t m,
                                                     int64_t p, int64_t e)
{
    const uint64_t k = key[p];
    if (k >= (uint64_t)n || (p + 1 < m && key[p + 1] == k)) return;
    copy_bytes(dst + (int64_t)k * dst_st0 + offset_of(dl, e), val + (int64_t)pos[p] * val_st0 + offset_of(vl, e),
               item);
}

/* dst = op(dst, v) for one element of integer dtype dt (reduce.h's codes), with scalar.h's
 * functions: the CPU loops' arithmetic (wrapping). */
#define AT_APPLY(S, T)                                                                      \
    __host__ __device__ __forceinline__ void at_##S(int at, char *d, const char *v)        \
    {                                                                                       \
        T a, b;                                                                             \
        memcpy(&a, d, sizeof a);                                                            \
        memcpy(&b, v, sizeof b);                                                            \
        switch (at) {                                                                       \
        case CPN_CUB_AT_ADD: a = cpn_add_##S(a, b); break;                                  \
        case CPN_CUB_AT_SUB: a = cpn_subtract_##S(a, b); break;                             \
        case CPN_CUB_AT_MUL: a = cpn_multiply_##S(a, b); break;                             \
        case CPN_CUB_AT_MAX: a = cpn_maximum_##S(a, b); break;                              \
        default: a = cpn_minimum_##S(a, b); break;                                          \
        }                                                                                   \
        memcpy(d, &a, sizeof a);                                                            \
    }
CPN_SINT_LIST(AT_APPLY)
CPN_UINT_LIST(AT_APPLY)

__host__ __device__ __forceinline__ void at_apply(int dt, int at, char *d, const char *v)
{
    switch (dt) {
    case CPN_CUB_I8: at_i8(at, d, v); break;
    case CPN_CUB_U8: at_u8(at, d, v); break;
    case CPN_CUB_I16: at_i16(at, d, v); break;
    case CPN_CUB_U16: at_u16(at, d, v); break;
    case CPN_CUB_I32: at_i32(at, d, v); break;
    case CPN_CUB_U32: at_u32(at, d, v); break;
    case CPN_CUB_I64: at_i64(at, d, v); break;
    default: at_u64(at, d, v); break;
    }
}

/* ufunc.at, element e of sorted pair p when p is its row's first pair: the row's whole run, in
 * j order. */
__host__ __device__ __forceinline__ void scatter_at_one(int dt, int at, char *dst, int64_t n, int64_t dst_st0,
                                                        const cpn_cub_layout &dl, const char *val, int64_t val_st0,
                                                        const cpn_cub_layout &vl, const uint64_t *key, const int *pos,
                                                        int64_t m, int64_t p, int64_t e)
{
    const uint64_t k = key[p];
    if (k >= (uint64_t)n || (p > 0 && key[p - 1] == k)) return;
    char *d = dst + (int64_t)k * dst_st0 + offset_of(dl, e);
    const int64_t ve = offset_of(vl, e);
    for (int64_t q = p; q < m && key[q] == k; q++) at_apply(dt, at, d, val + (int64_t)pos[q] * val_st0 + ve);
}

__global__ void k_flags(const char *mask, const cpn_cub_layout ml, int *flag, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        flag[i] = flag_of(mask, ml, i);
}

__global__ void k_compact(const char *src, const cpn_cub_layout sl, size_t item, const int *flag, const int *pos,
                          int64_t n, int64_t count, char *out)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        if (flag[i] && pos[i] < count) compact_one(src, sl, item, i, pos[i], out);
}

__global__ void k_nonzero(const cpn_cub_layout ml, const int *flag, const int *pos, int64_t n, int64_t count,
                          int64_t *out)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        if (flag[i] && pos[i] < count) nonzero_one(ml, i, pos[i], count, out);
}

__global__ void k_gather(const char *src, int64_t n, int64_t st0, const cpn_cub_layout bl, size_t item,
                         const char *idx, int64_t ist, int64_t block, int64_t total, char *out)
{
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x)
        gather_one(src, n, st0, bl, item, idx, ist, block, t, out);
}

__global__ void k_keys(const char *idx, int64_t ist, int64_t n, int64_t m, uint64_t *key, int *pos)
{
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += (int64_t)gridDim.x * blockDim.x) {
        key[j] = row_key(idx, ist, n, j);
        pos[j] = (int)j;
    }
}

__global__ void k_scatter(char *dst, int64_t n, int64_t dst_st0, const cpn_cub_layout dl, const char *val,
                          int64_t val_st0, const cpn_cub_layout vl, size_t item, const uint64_t *key, const int *pos,
                          int64_t m, int64_t block)
{
    const int64_t total = m * block;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x)
        scatter_one(dst, n, dst_st0, dl, val, val_st0, vl, item, key, pos, m, t / block, t % block);
}

__global__ void k_scatter_at(int dt, int at, char *dst, int64_t n, int64_t dst_st0, const cpn_cub_layout dl,
                             const char *val, int64_t val_st0, const cpn_cub_layout vl, const uint64_t *key,
                             const int *pos, int64_t m, int64_t block)
{
    const int64_t total = m * block;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x)
        scatter_at_one(dt, at, dst, n, dst_st0, dl, val, val_st0, vl, key, pos, m, t / block, t % block);
}

/* The flags of the mask's n elements and their exclusive prefix sum, on the device. */
cudaError_t flags_and_positions(Temps &T, const char *mask, const cpn_cub_layout &ml, int64_t n, int **flag_out,
                                int **pos_out, cudaStream_t s)
{
    ALLOC(flag, int, n);
    ALLOC(pos, int, n);
    k_flags<<<grid_for(n), kBlock, 0, s>>>(mask, ml, flag, n);
    TRY(cudaGetLastError());
    size_t tb = 0;
    TRY(cub::DeviceScan::ExclusiveSum(nullptr, tb, flag, pos, (int)n, s));
    void *tmp = T.get(tb);
    if (!tmp) return cudaErrorMemoryAllocation;
    TRY(cub::DeviceScan::ExclusiveSum(tmp, tb, flag, pos, (int)n, s));
    *flag_out = flag;
    *pos_out = pos;
    return cudaSuccess;
}

/* The bits the radix sort needs for keys 0..n. */
int key_bits(int64_t n)
{
    int b = 1;
    while (b < 64 && ((uint64_t)n >> b) != 0) b++;
    return b;
}

}  // namespace

extern "C" cudaError_t cpn_cub_compact(size_t item, const char *src, const struct cpn_cub_layout *sl, const char *mask,
                                       const struct cpn_cub_layout *ml, int64_t count, char *out, cudaStream_t s)
{
    const int64_t n = elements(*ml);
    if (n == 0 || count == 0) return cudaSuccess;
    if (n > INT32_MAX) return cudaErrorInvalidValue;   /* devselect.h keeps these on the host */
    if (s == CPN_CUB_HOST) {
        for (int64_t i = 0, p = 0; i < n && p < count; i++)
            if (flag_of(mask, *ml, i)) compact_one(src, *sl, item, i, p++, out);
        return cudaSuccess;
    }
    Temps T;
    int *flag, *pos;
    TRY(flags_and_positions(T, mask, *ml, n, &flag, &pos, s));
    k_compact<<<grid_for(n), kBlock, 0, s>>>(src, *sl, item, flag, pos, n, count, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cpn_cub_nonzero(const char *mask, const struct cpn_cub_layout *ml, int64_t count, int64_t *out,
                                       cudaStream_t s)
{
    const int64_t n = elements(*ml);
    if (n == 0 || count == 0 || ml->ndim < 1) return cudaSuccess;
    if (n > INT32_MAX) return cudaErrorInvalidValue;
    if (s == CPN_CUB_HOST) {
        for (int64_t i = 0, p = 0; i < n && p < count; i++)
            if (flag_of(mask, *ml, i)) nonzero_one(*ml, i, p++, count, out);
        return cudaSuccess;
    }
    Temps T;
    int *flag, *pos;
    TRY(flags_and_positions(T, mask, *ml, n, &flag, &pos, s));
    k_nonzero<<<grid_for(n), kBlock, 0, s>>>(*ml, flag, pos, n, count, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cpn_cub_gather(size_t item, const char *src, int64_t n, int64_t st0,
                                      const struct cpn_cub_layout *bl, const char *idx, int64_t ist, int64_t m,
                                      char *out, cudaStream_t s)
{
    const int64_t block = elements(*bl), total = m * block;
    if (total == 0) return cudaSuccess;
    if (s == CPN_CUB_HOST) {
        for (int64_t t = 0; t < total; t++) gather_one(src, n, st0, *bl, item, idx, ist, block, t, out);
        return cudaSuccess;
    }
    k_gather<<<grid_for(total), kBlock, 0, s>>>(src, n, st0, *bl, item, idx, ist, block, total, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cpn_cub_scatter(int dt, int at, size_t item, char *dst, int64_t n, int64_t dst_st0,
                                       const struct cpn_cub_layout *dl, const char *val, int64_t val_st0,
                                       const struct cpn_cub_layout *vl, const char *idx, int64_t ist, int64_t m,
                                       cudaStream_t s)
{
    const int64_t block = elements(*dl);
    if (m == 0 || block == 0) return cudaSuccess;
    if (m > INT32_MAX) return cudaErrorInvalidValue;
    if (s == CPN_CUB_HOST) {   /* the same keys, a stable sort, the same last-of-run writes */
        std::vector<std::pair<uint64_t, int>> kp((size_t)m);
        for (int64_t j = 0; j < m; j++) kp[(size_t)j] = {row_key(idx, ist, n, j), (int)j};
        std::stable_sort(kp.begin(), kp.end(),
                         [](const std::pair<uint64_t, int> &a, const std::pair<uint64_t, int> &b) {
                             return a.first < b.first;
                         });
        std::vector<uint64_t> key((size_t)m);
        std::vector<int> pos((size_t)m);
        for (int64_t p = 0; p < m; p++) {
            key[(size_t)p] = kp[(size_t)p].first;
            pos[(size_t)p] = kp[(size_t)p].second;
        }
        for (int64_t p = 0; p < m; p++)
            for (int64_t e = 0; e < block; e++) {
                if (at == CPN_CUB_AT_SET)
                    scatter_one(dst, n, dst_st0, *dl, val, val_st0, *vl, item, key.data(), pos.data(), m, p, e);
                else
                    scatter_at_one(dt, at, dst, n, dst_st0, *dl, val, val_st0, *vl, key.data(), pos.data(), m, p, e);
            }
        return cudaSuccess;
    }
    Temps T;
    ALLOC(kin, uint64_t, m);
    ALLOC(kout, uint64_t, m);
    ALLOC(pin, int, m);
    ALLOC(pout, int, m);
    k_keys<<<grid_for(m), kBlock, 0, s>>>(idx, ist, n, m, kin, pin);
    TRY(cudaGetLastError());
    size_t tb = 0;
    const int bits = key_bits(n);
    TRY(cub::DeviceRadixSort::SortPairs(nullptr, tb, kin, kout, pin, pout, (int)m, 0, bits, s));
    void *tmp = T.get(tb);
    if (!tmp) return cudaErrorMemoryAllocation;
    TRY(cub::DeviceRadixSort::SortPairs(tmp, tb, kin, kout, pin, pout, (int)m, 0, bits, s));
    if (at == CPN_CUB_AT_SET)
        k_scatter<<<grid_for(m * block), kBlock, 0, s>>>(dst, n, dst_st0, *dl, val, val_st0, *vl, item, kout, pout, m,
                                                         block);
    else
        k_scatter_at<<<grid_for(m * block), kBlock, 0, s>>>(dt, at, dst, n, dst_st0, *dl, val, val_st0, *vl, kout, pout,
                                                            m, block);
    return cudaGetLastError();
}
