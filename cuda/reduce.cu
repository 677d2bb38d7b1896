/* reduce.cu: reductions, scans and argmax/argmin on the device with CUB (reduce.h).
 *
 * Each entry gathers the strided input into a contiguous temporary of the work type (rows outer,
 * the reduced or scanned positions inner), runs one CUB algorithm over the rows and scatters the
 * results through the output's strides:
 *   reduce:    cub::DeviceSegmentedReduce::Reduce over the rows (cub::DeviceReduce for one row);
 *   scan:      cub::DeviceScan::InclusiveScanByKey, the key of an element its row number (mod 2^32:
 *              neighbouring rows still differ);
 *   argreduce: a reduction of (index within the row, value) pairs under NumPy's rule: the first
 *              NaN, else the first extreme.
 * Only the (op, work type) pairs devreduce.h plans are instantiated: integers and bool compute in
 * uint64 (add, multiply: wrapping, so the low bits are the narrow type's result) or int64/uint64
 * (maximum, minimum), floats in their own type, which keeps the CUB instantiations (and nvcc's
 * time) small.  Float sums and scans combine in CUB's tree order, not NumPy's pairwise or
 * sequential order: the same values up to rounding.
 *
 * With stream CPN_CUB_HOST the entries run on host memory instead, folding each row in order
 * with the same conversions, work types, operators and starting values (tests/c/test_cub.c
 * compares that with the CPU kernels: everything but CUB and the launches, checked without a GPU).
 *
 * Floating-point reports (numpy.errstate; `fpe` not NULL: one report word, devfpe.h's layout,
 * ORed with atomicOr).  The CPU loops' status flags are stated as rules on values, as fpclass.h
 * does for the generated kernels, by the same functions on the host path and the device path:
 *   reduce: the gather notes per row whether a value was NaN or non-finite (and reports the
 *           accumulator cast's overflow, float64 -> float32); the scatter classifies each row's
 *           result: infinite from finite values: overflow; NaN from finite values: overflow and
 *           invalid (an infinity only arises by overflow); NaN from non-NaN values with an
 *           infinity among them: invalid;
 *   scan:   the scatter classifies each element as the sequential step NumPy's loop takes,
 *           res[j] = res[j-1] op in[j] (fpclass.h's arithmetic rule on those three values).
 * These are exact for a CPU fold of the same values in any order, except for rows holding a
 * non-finite value, where the CPU's flags depend on the order it met the values in: a row
 * holding a NaN reports nothing (the CPU reports the overflow or invalid its order raised before
 * meeting the NaN: inf - inf, 0 * inf), and a row holding an infinity does not report an overflow
 * among its finite values.  Underflow is never reported (as for the generated kernels).
 *
 * Every kernel launch and CUB call is checked; temporaries come from the device pool and go back
 * in stream order (the one stream orders their reuse). */
#include <cstdint>
#include <cstring>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <cuda/std/limits>

extern "C" {
#include "alloc.h"
}
#include "fpclass.h"
#include "reduce.h"

namespace {

#include "cub_common.cuh"

/* The value at p (dtype dt) converted to TA as C converts (bool: nonzero). */
template <typename TA>
__host__ __device__ __forceinline__ TA load_as(const char *p, int dt)
{
    switch (dt) {
    case CPN_CUB_B: return (TA)(*(const uint8_t *)p != 0);
    case CPN_CUB_I8: return (TA) * (const int8_t *)p;
    case CPN_CUB_U8: return (TA) * (const uint8_t *)p;
    case CPN_CUB_I16: return (TA) * (const int16_t *)p;
    case CPN_CUB_U16: return (TA) * (const uint16_t *)p;
    case CPN_CUB_I32: return (TA) * (const int32_t *)p;
    case CPN_CUB_U32: return (TA) * (const uint32_t *)p;
    case CPN_CUB_I64: return (TA) * (const int64_t *)p;
    case CPN_CUB_U64: return (TA) * (const uint64_t *)p;
    case CPN_CUB_F32: return (TA) * (const float *)p;
    default: return (TA) * (const double *)p;
    }
}

/* The value at p (in_dt) cast to the accumulator dtype acc_dt (the CPU's cast), then widened to
 * the work type W. */
template <typename W>
__host__ __device__ __forceinline__ W load_work(const char *p, int in_dt, int acc_dt)
{
    switch (acc_dt) {
    case CPN_CUB_B: return (W)load_as<bool>(p, in_dt);
    case CPN_CUB_I8: return (W)load_as<int8_t>(p, in_dt);
    case CPN_CUB_U8: return (W)load_as<uint8_t>(p, in_dt);
    case CPN_CUB_I16: return (W)load_as<int16_t>(p, in_dt);
    case CPN_CUB_U16: return (W)load_as<uint16_t>(p, in_dt);
    case CPN_CUB_I32: return (W)load_as<int32_t>(p, in_dt);
    case CPN_CUB_U32: return (W)load_as<uint32_t>(p, in_dt);
    case CPN_CUB_I64: return (W)load_as<int64_t>(p, in_dt);
    case CPN_CUB_U64: return (W)load_as<uint64_t>(p, in_dt);
    case CPN_CUB_F32: return (W)load_as<float>(p, in_dt);
    default: return (W)load_as<double>(p, in_dt);
    }
}

/* Store work value w as dtype dt at p: integers keep the low bits, bool is nonzero. */
template <typename W>
__host__ __device__ __forceinline__ void store_as(char *p, int dt, W w)
{
    switch (dt) {
    case CPN_CUB_B: *(uint8_t *)p = (uint8_t)(w != (W)0); break;
    case CPN_CUB_I8: *(int8_t *)p = (int8_t)w; break;
    case CPN_CUB_U8: *(uint8_t *)p = (uint8_t)w; break;
    case CPN_CUB_I16: *(int16_t *)p = (int16_t)w; break;
    case CPN_CUB_U16: *(uint16_t *)p = (uint16_t)w; break;
    case CPN_CUB_I32: *(int32_t *)p = (int32_t)w; break;
    case CPN_CUB_U32: *(uint32_t *)p = (uint32_t)w; break;
    case CPN_CUB_I64: *(int64_t *)p = (int64_t)w; break;
    case CPN_CUB_U64: *(uint64_t *)p = (uint64_t)w; break;
    case CPN_CUB_F32: *(float *)p = (float)w; break;
    default: *(double *)p = (double)w; break;
    }
}

/* ---- floating-point classification (shared by the host and device paths) ---------------------- */

constexpr unsigned kRowNaN = 1, kRowNonFinite = 2;   /* row status bits */

/* The row status bits of one work value: NaN, or non-finite (NaN or an infinity).  For a float,
 * w - w is 0 exactly when w is finite; for an integer it is always 0. */
template <typename W>
__host__ __device__ __forceinline__ unsigned value_status(W w)
{
    if (w != w) return kRowNaN | kRowNonFinite;
    return w - w != (W)0 ? kRowNonFinite : 0u;
}

/* What converting the value at p (in_dt) to the accumulator dtype acc_dt reported (its result w):
 * only float64 -> float32 can, overflowing to an infinity (a NaN converts silently). */
template <typename W>
__host__ __device__ __forceinline__ unsigned cast_flags(const char *p, int in_dt, int acc_dt, W w)
{
    if (in_dt != CPN_CUB_F64 || acc_dt != CPN_CUB_F32) return 0;
    const double a = *(const double *)p;
    return cpn_fpc_finite(a) && cpn_fpc_isinf((double)w) ? CPN_FPC_OVERFLOW : 0u;
}

/* What a row's add or multiply reported, from its result r and the status of its values (the
 * starting value included).  Only an overflow makes an infinity from finite values, and a NaN
 * from non-NaN values is invalid (inf - inf, 0 * inf). */
template <typename W>
__host__ __device__ __forceinline__ unsigned row_flags(W r, unsigned st)
{
    const unsigned rs = value_status(r);
    if (rs & kRowNaN) {
        if (st & kRowNaN) return 0;
        return st & kRowNonFinite ? CPN_FPC_INVALID : CPN_FPC_OVERFLOW | CPN_FPC_INVALID;
    }
    return (rs & kRowNonFinite) && !(st & kRowNonFinite) ? CPN_FPC_OVERFLOW : 0u;
}

/* What the scan's step res = prev op x reported (fpclass.h's rule for arithmetic). */
template <typename W>
__host__ __device__ __forceinline__ unsigned step_flags(W prev, W x, W res)
{
    return cpn_fpe_classify(CPN_FPC_ARITH, (double)prev, (double)x, (double)res);
}

template <typename V>
struct ArgPair {
    int64_t k;
    V v;
};

/* rowst (nrows words, zeroed; NULL: not watched): each row's value_status bits; fpe: the
 * accumulator cast's findings. */
template <typename W>
__global__ void k_gather(const char *in, const cpn_cub_layout l, int in_dt, int acc_dt, W *dst, int64_t n,
                         int64_t len, unsigned *rowst, uint32_t *fpe)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const char *p = in + offset_of(l, i);
        const W w = load_work<W>(p, in_dt, acc_dt);
        dst[i] = w;
        if (rowst) {   /* non-finite values are rare: an atomic only for them */
            const unsigned s = value_status(w), c = cast_flags(p, in_dt, acc_dt, w);
            if (s) atomicOr(&rowst[i / len], s);
            if (c) atomicOr(fpe, c);
        }
    }
}

template <typename V>
__global__ void k_gather_arg(const char *in, const cpn_cub_layout l, int dt, ArgPair<V> *dst, int64_t n,
                             int64_t len)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        ArgPair<V> a;
        a.k = i % len;
        a.v = load_work<V>(in + offset_of(l, i), dt, dt);
        dst[i] = a;
    }
}

/* rowst (NULL: not watched): the gather's row status, init_st the starting value's. */
template <typename W>
__global__ void k_scatter(const W *src, char *out, const cpn_cub_layout l, int dt, int64_t n,
                          const unsigned *rowst, unsigned init_st, uint32_t *fpe)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        store_as<W>(out + offset_of(l, i), dt, src[i]);
        if (rowst) {
            const unsigned f = row_flags(src[i], rowst[i] | init_st);
            if (f) atomicOr(fpe, f);
        }
    }
}

/* The scan's results res (rows of len) with their inputs buf; fpe (NULL: not watched) gets
 * each step's findings. */
template <typename W>
__global__ void k_scatter_scan(const W *res, const W *buf, char *out, const cpn_cub_layout l, int dt, int64_t n,
                               int64_t len, uint32_t *fpe)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        store_as<W>(out + offset_of(l, i), dt, res[i]);
        if (fpe && i % len != 0) {
            const unsigned f = step_flags(res[i - 1], buf[i], res[i]);
            if (f) atomicOr(fpe, f);
        }
    }
}

template <typename V>
__global__ void k_scatter_arg(const ArgPair<V> *src, char *out, const cpn_cub_layout l, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        *(int64_t *)(out + offset_of(l, i)) = src[i].k;
}

__global__ void k_offsets(int64_t *off, int64_t nrows, int64_t len)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= nrows; i += (int64_t)gridDim.x * blockDim.x)
        off[i] = i * len;
}

__global__ void k_keys(uint32_t *keys, int64_t n, int64_t len)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        keys[i] = (uint32_t)(i / len);
}

/* ---- operators --------------------------------------------------------------------------------- */

template <typename W>
struct OpAdd {
    __host__ __device__ W operator()(const W &a, const W &b) const { return a + b; }
};
template <typename W>
struct OpMul {
    __host__ __device__ W operator()(const W &a, const W &b) const { return a * b; }
};
/* NumPy's maximum/minimum: a NaN wins (a != a is false for integers). */
template <typename W>
struct OpMax {
    __host__ __device__ W operator()(const W &a, const W &b) const { return (a > b || a != a) ? a : b; }
};
template <typename W>
struct OpMin {
    __host__ __device__ W operator()(const W &a, const W &b) const { return (a < b || a != a) ? a : b; }
};
/* argmax (mx) / argmin: the NaN with the smaller index, else the extreme, ties to the smaller
 * index.  A total preorder with the index as tie-break: associative and commutative. */
template <typename V>
struct OpArg {
    bool mx;
    __host__ __device__ ArgPair<V> operator()(const ArgPair<V> &a, const ArgPair<V> &b) const
    {
        const bool an = a.v != a.v, bn = b.v != b.v;
        if (an || bn) {
            if (an && bn) return a.k <= b.k ? a : b;
            return an ? a : b;
        }
        if (mx ? b.v > a.v : b.v < a.v) return b;
        if (mx ? a.v > b.v : a.v < b.v) return a;
        return a.k <= b.k ? a : b;
    }
};

/* The lowest and highest values of W (floats: the infinities). */
template <typename W>
__host__ W lowest()
{
    return cuda::std::numeric_limits<W>::has_infinity ? -cuda::std::numeric_limits<W>::infinity()
                                                      : cuda::std::numeric_limits<W>::lowest();
}
template <typename W>
__host__ W highest()
{
    return cuda::std::numeric_limits<W>::has_infinity ? cuda::std::numeric_limits<W>::infinity()
                                                      : cuda::std::numeric_limits<W>::max();
}

/* One value per row: rows of len contiguous values of type In in `buf`, results into `res`. */
template <typename In, typename Acc, typename Op>
cudaError_t reduce_rows(Temps &T, const In *buf, Acc *res, int64_t nrows, int64_t len, Op op, Acc init,
                        cudaStream_t s)
{
    size_t bytes = 0;
    if (nrows == 1) {
        TRY(cub::DeviceReduce::Reduce(nullptr, bytes, buf, res, len, op, init, s));
        void *tmp = T.get(bytes);
        if (!tmp) return cudaErrorMemoryAllocation;
        return cub::DeviceReduce::Reduce(tmp, bytes, buf, res, len, op, init, s);
    }
    ALLOC(off, int64_t, nrows + 1);
    k_offsets<<<grid_for(nrows + 1), kBlock, 0, s>>>(off, nrows, len);
    TRY(cudaGetLastError());
    TRY(cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, buf, res, nrows, off, off + 1, op, init, s));
    void *tmp = T.get(bytes);
    if (!tmp) return cudaErrorMemoryAllocation;
    return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, buf, res, nrows, off, off + 1, op, init, s);
}

template <typename W, typename Op>
cudaError_t reduce_op(Op op, W init, int in_dt, int acc_dt, const char *in, const cpn_cub_layout *il,
                      int64_t nrows, int64_t len, char *out, const cpn_cub_layout *ol, uint32_t *fpe,
                      cudaStream_t s)
{
    const unsigned init_st = value_status(init);
    if (s == CPN_CUB_HOST) {
        /* host emulation: the same conversions and op, each row folded in order and the start
         * combined last, op(init, row), as CUB does (and NumPy: init + the row's sum) */
        for (int64_t r = 0; r < nrows; r++) {
            W acc = init;
            unsigned st = 0;
            for (int64_t j = 0; j < len; j++) {
                const char *p = in + offset_of(*il, r * len + j);
                const W w = load_work<W>(p, in_dt, acc_dt);
                if (fpe) {
                    st |= value_status(w);
                    *fpe |= cast_flags(p, in_dt, acc_dt, w);
                }
                acc = j == 0 ? w : op(acc, w);
            }
            acc = op(init, acc);
            store_as<W>(out + offset_of(*ol, r), acc_dt, acc);
            if (fpe) *fpe |= row_flags(acc, st | init_st);
        }
        return cudaSuccess;
    }
    Temps T;
    const int64_t n = nrows * len;
    ALLOC(buf, W, n);
    ALLOC(res, W, nrows);
    unsigned *rowst = nullptr;
    if (fpe) {
        rowst = (unsigned *)T.get((size_t)nrows * sizeof(unsigned));
        if (!rowst) return cudaErrorMemoryAllocation;
        TRY(cudaMemsetAsync(rowst, 0, (size_t)nrows * sizeof(unsigned), s));
    }
    k_gather<W><<<grid_for(n), kBlock, 0, s>>>(in, *il, in_dt, acc_dt, buf, n, len, rowst, fpe);
    TRY(cudaGetLastError());
    TRY(reduce_rows<W, W>(T, buf, res, nrows, len, op, init, s));
    k_scatter<W><<<grid_for(nrows), kBlock, 0, s>>>(res, out, *ol, acc_dt, nrows, rowst, init_st, fpe);
    return cudaGetLastError();
}

template <typename W>
W init_or(const void *init, W dflt)
{
    if (!init) return dflt;
    W v;
    memcpy(&v, init, sizeof v);
    return v;
}

/* add and multiply (integers in uint64, floats), maximum and minimum: all work types. */
template <typename W, bool Arith>
cudaError_t reduce_w(int op, int in_dt, int acc_dt, const char *in, const cpn_cub_layout *il, int64_t nrows,
                     int64_t len, char *out, const cpn_cub_layout *ol, const void *init, uint32_t *fpe,
                     cudaStream_t s)
{
    switch (op) {
    case CPN_CUB_ADD:
        if constexpr (Arith) return reduce_op<W>(OpAdd<W>(), init_or<W>(init, (W)0), in_dt, acc_dt, in, il, nrows, len, out, ol, fpe, s);
        break;
    case CPN_CUB_MUL:
        if constexpr (Arith) return reduce_op<W>(OpMul<W>(), init_or<W>(init, (W)1), in_dt, acc_dt, in, il, nrows, len, out, ol, fpe, s);
        break;
    case CPN_CUB_MAX:
        return reduce_op<W>(OpMax<W>(), init_or<W>(init, lowest<W>()), in_dt, acc_dt, in, il, nrows, len, out, ol, fpe, s);
    case CPN_CUB_MIN:
        return reduce_op<W>(OpMin<W>(), init_or<W>(init, highest<W>()), in_dt, acc_dt, in, il, nrows, len, out, ol, fpe, s);
    }
    return cudaErrorInvalidValue;
}

template <typename W, typename Op>
cudaError_t scan_op(Op op, int dt, const char *in, const cpn_cub_layout *il, int64_t nrows, int64_t len,
                    char *out, const cpn_cub_layout *ol, uint32_t *fpe, cudaStream_t s)
{
    if (s == CPN_CUB_HOST) {   /* host emulation: the inclusive scan of each row in order */
        for (int64_t r = 0; r < nrows; r++) {
            W acc = load_work<W>(in + offset_of(*il, r * len), dt, dt);
            store_as<W>(out + offset_of(*ol, r * len), dt, acc);
            for (int64_t j = 1; j < len; j++) {
                const W x = load_work<W>(in + offset_of(*il, r * len + j), dt, dt), prev = acc;
                acc = op(acc, x);
                store_as<W>(out + offset_of(*ol, r * len + j), dt, acc);
                if (fpe) *fpe |= step_flags(prev, x, acc);
            }
        }
        return cudaSuccess;
    }
    Temps T;
    const int64_t n = nrows * len;
    ALLOC(buf, W, n);
    ALLOC(res, W, n);
    ALLOC(keys, uint32_t, n);
    k_gather<W><<<grid_for(n), kBlock, 0, s>>>(in, *il, dt, dt, buf, n, len, nullptr, nullptr);
    TRY(cudaGetLastError());
    k_keys<<<grid_for(n), kBlock, 0, s>>>(keys, n, len);
    TRY(cudaGetLastError());
    size_t bytes = 0;
    TRY(cub::DeviceScan::InclusiveScanByKey(nullptr, bytes, keys, buf, res, op, n, cuda::std::equal_to<uint32_t>(), s));
    void *tmp = T.get(bytes);
    if (!tmp) return cudaErrorMemoryAllocation;
    TRY(cub::DeviceScan::InclusiveScanByKey(tmp, bytes, keys, buf, res, op, n, cuda::std::equal_to<uint32_t>(), s));
    k_scatter_scan<W><<<grid_for(n), kBlock, 0, s>>>(res, buf, out, *ol, dt, n, len, fpe);
    return cudaGetLastError();
}

template <typename W, bool Arith>
cudaError_t scan_w(int op, int dt, const char *in, const cpn_cub_layout *il, int64_t nrows, int64_t len,
                   char *out, const cpn_cub_layout *ol, uint32_t *fpe, cudaStream_t s)
{
    switch (op) {
    case CPN_CUB_ADD:
        if constexpr (Arith) return scan_op<W>(OpAdd<W>(), dt, in, il, nrows, len, out, ol, fpe, s);
        break;
    case CPN_CUB_MUL:
        if constexpr (Arith) return scan_op<W>(OpMul<W>(), dt, in, il, nrows, len, out, ol, fpe, s);
        break;
    case CPN_CUB_MAX: return scan_op<W>(OpMax<W>(), dt, in, il, nrows, len, out, ol, fpe, s);
    case CPN_CUB_MIN: return scan_op<W>(OpMin<W>(), dt, in, il, nrows, len, out, ol, fpe, s);
    }
    return cudaErrorInvalidValue;
}

template <typename V>
cudaError_t arg_v(bool mx, int dt, const char *in, const cpn_cub_layout *il, int64_t nrows, int64_t len,
                  char *out, const cpn_cub_layout *ol, cudaStream_t s)
{
    /* The start loses to every element: the largest index, the weakest value (never NaN). */
    ArgPair<V> init;
    init.k = cuda::std::numeric_limits<int64_t>::max();
    init.v = mx ? lowest<V>() : highest<V>();
    OpArg<V> op;
    op.mx = mx;
    if (s == CPN_CUB_HOST) {   /* host emulation: the same pairs and operator, folded in order */
        for (int64_t r = 0; r < nrows; r++) {
            ArgPair<V> acc = init;
            for (int64_t j = 0; j < len; j++) {
                ArgPair<V> a;
                a.k = j;
                a.v = load_work<V>(in + offset_of(*il, r * len + j), dt, dt);
                acc = op(acc, a);
            }
            *(int64_t *)(out + offset_of(*ol, r)) = acc.k;
        }
        return cudaSuccess;
    }
    Temps T;
    const int64_t n = nrows * len;
    ALLOC(buf, ArgPair<V>, n);
    ALLOC(res, ArgPair<V>, nrows);
    k_gather_arg<V><<<grid_for(n), kBlock, 0, s>>>(in, *il, dt, buf, n, len);
    TRY(cudaGetLastError());
    TRY(reduce_rows<ArgPair<V>, ArgPair<V>>(T, buf, res, nrows, len, op, init, s));
    k_scatter_arg<V><<<grid_for(nrows), kBlock, 0, s>>>(res, out, *ol, nrows);
    return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t cpn_cub_reduce(int op, int work, int in_dt, int acc_dt, const char *in,
                                      const struct cpn_cub_layout *il, int64_t nrows, int64_t len, char *out,
                                      const struct cpn_cub_layout *ol, const void *init, uint32_t *fpe,
                                      cudaStream_t stream)
{
    if (nrows <= 0 || len <= 0) return cudaErrorInvalidValue;
    switch (work) {
    case CPN_CUB_W_U64: return reduce_w<uint64_t, true>(op, in_dt, acc_dt, in, il, nrows, len, out, ol, init, fpe, stream);
    case CPN_CUB_W_I64: return reduce_w<int64_t, false>(op, in_dt, acc_dt, in, il, nrows, len, out, ol, init, fpe, stream);
    case CPN_CUB_W_F32: return reduce_w<float, true>(op, in_dt, acc_dt, in, il, nrows, len, out, ol, init, fpe, stream);
    case CPN_CUB_W_F64: return reduce_w<double, true>(op, in_dt, acc_dt, in, il, nrows, len, out, ol, init, fpe, stream);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t cpn_cub_scan(int op, int work, int dt, const char *in, const struct cpn_cub_layout *il,
                                    int64_t nrows, int64_t len, char *out, const struct cpn_cub_layout *ol,
                                    uint32_t *fpe, cudaStream_t stream)
{
    if (nrows <= 0 || len <= 0) return cudaErrorInvalidValue;
    switch (work) {
    case CPN_CUB_W_U64: return scan_w<uint64_t, true>(op, dt, in, il, nrows, len, out, ol, fpe, stream);
    case CPN_CUB_W_I64: return scan_w<int64_t, false>(op, dt, in, il, nrows, len, out, ol, fpe, stream);
    case CPN_CUB_W_F32: return scan_w<float, true>(op, dt, in, il, nrows, len, out, ol, fpe, stream);
    case CPN_CUB_W_F64: return scan_w<double, true>(op, dt, in, il, nrows, len, out, ol, fpe, stream);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t cpn_cub_argreduce(int mx, int work, int dt, const char *in, const struct cpn_cub_layout *il,
                                         int64_t nrows, int64_t len, char *out, const struct cpn_cub_layout *ol,
                                         cudaStream_t stream)
{
    if (nrows <= 0 || len <= 0) return cudaErrorInvalidValue;
    switch (work) {
    case CPN_CUB_W_U64: return arg_v<uint64_t>(mx != 0, dt, in, il, nrows, len, out, ol, stream);
    case CPN_CUB_W_I64: return arg_v<int64_t>(mx != 0, dt, in, il, nrows, len, out, ol, stream);
    case CPN_CUB_W_F64: return arg_v<double>(mx != 0, dt, in, il, nrows, len, out, ol, stream);
    default: return cudaErrorInvalidValue;
    }
}

/* reduce: 4 ops on uint64, float32, float64 and 2 on int64; scan the same; argreduce 3 types. */
extern "C" int cpn_cub_variant_count(void) { return (3 * 4 + 2) * 2 + 3; }
