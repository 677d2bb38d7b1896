/* elementwise.cu: the op table's element-wise ops as CUDA kernels.
 *
 * Each kernel applies the scalar function cpn_<op>_<dtype> of csrc/kernels/scalar.h, the same
 * definition the CPU loops use, over a 1-D strided range.  The backend vtable, device stores,
 * fusion through NVRTC and NCCL are the CUDA issue's; this file proves the shared definitions
 * compile for the device and gives the kernels a table with the CPU table's shape. */
#include <cstdint>

#include "scalar.h"

#define DEV_LOOP_2(FN, S, T)                                                              \
    __global__ void k_##FN##_##S(const char *a, int64_t sa, const char *b, int64_t sb,    \
                                 char *o, int64_t so, int64_t n)                          \
    {                                                                                     \
        int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                       \
        if (i >= n) return;                                                               \
        typedef decltype(cpn_##FN##_##S(T(), T())) TO;                                    \
        *(TO *)(o + i * so) = cpn_##FN##_##S(*(const T *)(a + i * sa), *(const T *)(b + i * sb)); \
    }

#define DEV_ARITH(S, T, ...) DEV_LOOP_2(add, S, T) DEV_LOOP_2(subtract, S, T) DEV_LOOP_2(multiply, S, T) \
    DEV_LOOP_2(less, S, T) DEV_LOOP_2(equal, S, T)
CPN_SINT_LIST(DEV_ARITH)
CPN_UINT_LIST(DEV_ARITH)
CPN_REAL_LIST(DEV_ARITH)

#define DEV_REAL(S, T, ...) DEV_LOOP_2(divide, S, T) DEV_LOOP_2(floor_divide, S, T) \
    DEV_LOOP_2(remainder, S, T) DEV_LOOP_2(power, S, T) DEV_LOOP_2(maximum, S, T)
CPN_REAL_LIST(DEV_REAL)

/* Number of kernels built, for the build test. */
extern "C" int cpn_cuda_kernel_count(void)
{
    return (4 + 4 + 3) * 5 + 3 * 5;   /* CPN_REAL_LIST: float16 (cpn_half), float32, float64 */
}
