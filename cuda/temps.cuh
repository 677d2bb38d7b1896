/* temps.cuh: the temporaries of one device call (back to the pool when the call returns) and
 * the early-return helpers around them, shared by the CUB wrappers (reduce.cu, sort.cu).
 * Include after alloc.h, inside the file's anonymous namespace. */
#ifndef CPN_CUDA_TEMPS_CUH
#define CPN_CUDA_TEMPS_CUH

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
