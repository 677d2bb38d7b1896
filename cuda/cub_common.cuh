/* cub_common.cuh: what the CUB wrappers (reduce.cu, sort.cu) share: the block size and grid of a
 * grid-stride loop, an element's offset in a cpn_cub_layout, and the temporaries of one device
 * call (back to the pool when the call returns) with the early-return helpers around them.
 * Include after alloc.h and reduce.h, inside the file's anonymous namespace. */
#ifndef CPN_CUDA_CUB_COMMON_CUH
#define CPN_CUDA_CUB_COMMON_CUH

constexpr int kBlock = 256;

/* Grid of a grid-stride loop over n elements. */
inline unsigned grid_for(int64_t n)
{
    int64_t b = (n + kBlock - 1) / kBlock;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

/* The byte offset of the i-th element (C order) of layout l. */
__host__ __device__ __forceinline__ int64_t offset_of(const cpn_cub_layout &l, int64_t i)
{
    int64_t off = 0;
    for (int d = l.ndim - 1; d >= 0; d--) {
        off += (i % l.shape[d]) * l.stride[d];
        i /= l.shape[d];
    }
    return off;
}

struct Temps {
    void *p[8] = {};
    size_t n[8] = {};
    int k = 0;
    void *get(size_t bytes)
    {
        if (k == 8) return nullptr;
        if (bytes == 0) bytes = 1;
        void *q = cpn_alloc_device(bytes);
        if (q) {
            p[k] = q;
            n[k++] = bytes;
        }
        return q;
    }
    ~Temps()
    {
        for (int i = k - 1; i >= 0; i--) cpn_free_device(p[i], n[i]);
    }
};

#define TRY(...)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (__VA_ARGS__);                                                  \
        if (e_ != cudaSuccess) return e_;                                                \
    } while (0)
#define ALLOC(var, type, count)                                                          \
    type *var = (type *)T.get((size_t)(count) * sizeof(type));                           \
    if (!var) return cudaErrorMemoryAllocation

#endif
