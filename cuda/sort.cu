/* sort.cu: numpy.sort / numpy.argsort along one axis on the device with CUB's radix sort
 * (sort.h).
 *
 * The input is read through a strided layout whose rows (every position but the sorted axis) are
 * outer and the sorted axis inner; each element becomes a (64-bit order key, index within its row)
 * pair, the pairs are sorted by key with cub::DeviceRadixSort::SortPairs (one row) or
 * cub::DeviceSegmentedRadixSort::SortPairs (a segment per row: `axis=`), and the result is
 * written through the output's layout: the indices (argsort) or the input's element at each
 * index (sort: its own bits).  The radix sort is stable, so ties keep index order: NumPy's stable
 * result, and the CPU kernels' (csrc/kernels/sort.c) on every kind.
 *
 * The keys are sort.c's: integers with the sign bit flipped (widened to 64 bits), floats by their
 * bits flipped to an unsigned order, every NaN one key above +inf (NaNs last, in index order);
 * argsort keys -0.0 as +0.0 (a tie, as NumPy compares), the value sort keeps -0.0 below +0.0 (the
 * CPU's value sort's order).  float16 and complex are the host's (sort_plan).
 *
 * With stream CPN_CUB_HOST the entry runs on host memory instead: the same keys and layouts and a
 * stable sort of each row's pairs (tests/c/test_cub_sort.c compares it with the CPU kernels:
 * everything but CUB and the launches, checked without a GPU).  Temporaries come from the device
 * pool and go back in stream order. */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

extern "C" {
#include "alloc.h"
}
#include "sort.h"

namespace {

constexpr uint64_t kSign = (uint64_t)1 << 63;

#include "cub_common.cuh"

__host__ __device__ __forceinline__ uint64_t fkey(uint64_t b)
{
    return b ^ ((uint64_t)((int64_t)b >> 63) | kSign);
}

/* The order key of the element at p (dtype dt); `arg`: -0.0 keyed as +0.0. */
__host__ __device__ __forceinline__ uint64_t sort_key(int dt, const char *p, bool arg)
{
    switch (dt) {
    case CPN_CUB_B: return *(const uint8_t *)p != 0;
    case CPN_CUB_I8: return (uint64_t)(int64_t)*(const int8_t *)p ^ kSign;
    case CPN_CUB_U8: return *(const uint8_t *)p;
    case CPN_CUB_I16: return (uint64_t)(int64_t)*(const int16_t *)p ^ kSign;
    case CPN_CUB_U16: return *(const uint16_t *)p;
    case CPN_CUB_I32: return (uint64_t)(int64_t)*(const int32_t *)p ^ kSign;
    case CPN_CUB_U32: return *(const uint32_t *)p;
    case CPN_CUB_I64: return (uint64_t)*(const int64_t *)p ^ kSign;
    case CPN_CUB_U64: return *(const uint64_t *)p;
    case CPN_CUB_F32: {
        float f;
        memcpy(&f, p, sizeof f);
        double d = f;
        if (d != d) return UINT64_MAX;
        if (arg && d == 0) d = 0.0;
        uint64_t b;
        memcpy(&b, &d, sizeof b);
        return fkey(b);
    }
    default: {   /* CPN_CUB_F64 */
        double d;
        memcpy(&d, p, sizeof d);
        if (d != d) return UINT64_MAX;
        if (arg && d == 0) d = 0.0;
        uint64_t b;
        memcpy(&b, &d, sizeof b);
        return fkey(b);
    }
    }
}

__global__ void k_keys(const char *in, const cpn_cub_layout l, int dt, bool arg, uint64_t *key, int64_t *idx,
                       int64_t n, int64_t len)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        key[i] = sort_key(dt, in + offset_of(l, i), arg);
        idx[i] = i % len;
    }
}

__global__ void k_offsets(int *off, int64_t nrows, int64_t len)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= nrows; i += (int64_t)gridDim.x * blockDim.x)
        off[i] = (int)(i * len);
}

/* out element i (row r = i / len): the index (arg) or the input's element r * len + idx[i]. */
__global__ void k_out(const char *in, const cpn_cub_layout il, const int64_t *idx, char *out,
                      const cpn_cub_layout ol, size_t item, bool arg, int64_t n, int64_t len)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        char *o = out + offset_of(ol, i);
        if (arg) {
            *(int64_t *)o = idx[i];
        } else {
            const char *p = in + offset_of(il, i - i % len + idx[i]);
            for (size_t b = 0; b < item; b++) o[b] = p[b];
        }
    }
}

size_t item_of(int dt)
{
    switch (dt) {
    case CPN_CUB_B: case CPN_CUB_I8: case CPN_CUB_U8: return 1;
    case CPN_CUB_I16: case CPN_CUB_U16: return 2;
    case CPN_CUB_I32: case CPN_CUB_U32: case CPN_CUB_F32: return 4;
    default: return 8;
    }
}

}  // namespace

extern "C" cudaError_t cpn_cub_sort(int dt, int arg, const char *in, const struct cpn_cub_layout *il,
                                    int64_t nrows, int64_t len, char *out, const struct cpn_cub_layout *ol,
                                    cudaStream_t s)
{
    const int64_t n = nrows * len;
    const size_t item = item_of(dt);
    if (n == 0) return cudaSuccess;
    if (n > INT32_MAX) return cudaErrorInvalidValue;   /* sort_plan keeps these on the host */
    if (s == CPN_CUB_HOST) {   /* host emulation: the same keys, a stable sort of each row */
        std::vector<std::pair<uint64_t, int64_t>> row((size_t)len);
        for (int64_t r = 0; r < nrows; r++) {
            for (int64_t j = 0; j < len; j++) row[(size_t)j] = {sort_key(dt, in + offset_of(*il, r * len + j), arg != 0), j};
            std::stable_sort(row.begin(), row.end(),
                             [](const std::pair<uint64_t, int64_t> &a, const std::pair<uint64_t, int64_t> &b) {
                                 return a.first < b.first;
                             });
            for (int64_t j = 0; j < len; j++) {
                char *o = out + offset_of(*ol, r * len + j);
                if (arg) *(int64_t *)o = row[(size_t)j].second;
                else memcpy(o, in + offset_of(*il, r * len + row[(size_t)j].second), item);
            }
        }
        return cudaSuccess;
    }
    Temps T;
    ALLOC(kin, uint64_t, n);
    ALLOC(kout, uint64_t, n);
    ALLOC(iin, int64_t, n);
    ALLOC(iout, int64_t, n);
    k_keys<<<grid_for(n), kBlock, 0, s>>>(in, *il, dt, arg != 0, kin, iin, n, len);
    TRY(cudaGetLastError());
    size_t tb = 0;
    if (nrows == 1) {
        TRY(cub::DeviceRadixSort::SortPairs(nullptr, tb, kin, kout, iin, iout, (int)n, 0, 64, s));
        void *tmp = T.get(tb);
        if (!tmp) return cudaErrorMemoryAllocation;
        TRY(cub::DeviceRadixSort::SortPairs(tmp, tb, kin, kout, iin, iout, (int)n, 0, 64, s));
    } else {
        ALLOC(off, int, nrows + 1);
        k_offsets<<<grid_for(nrows + 1), kBlock, 0, s>>>(off, nrows, len);
        TRY(cudaGetLastError());
        TRY(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, tb, kin, kout, iin, iout, (int)n, (int)nrows, off,
                                                     off + 1, 0, 64, s));
        void *tmp = T.get(tb);
        if (!tmp) return cudaErrorMemoryAllocation;
        TRY(cub::DeviceSegmentedRadixSort::SortPairs(tmp, tb, kin, kout, iin, iout, (int)n, (int)nrows, off,
                                                     off + 1, 0, 64, s));
    }
    k_out<<<grid_for(n), kBlock, 0, s>>>(in, *il, iout, out, *ol, item, arg != 0, n, len);
    return cudaGetLastError();
}
