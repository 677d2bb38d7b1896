/* cpn_device.h: the prelude of every generated kernel (cuda/codegen.c).  Under NVRTC there are
 * no system headers: the fixed-width integer types are declared here; the arithmetic comes from
 * the same scalar.h and philox.h the CPU loops compile, so one definition serves both. */
#ifndef CPN_DEVICE_H
#define CPN_DEVICE_H

#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
/* What scalar.h takes from <stdint.h> and <math.h> on the host. */
#define INT32_MAX 2147483647
#define INT32_MIN (-INT32_MAX - 1)
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fc00000)
#else
#include <stdint.h>
#endif

#include "scalar.h"
#include "fpclass.h"
#include "philox.h"
#include "devargs.h"

/* NumPy's arange in the dtype's own arithmetic (csrc/kernels/fill.c). */
template <typename T, typename P>
static __device__ __forceinline__ T cpn_arange(int64_t i, P start, P second)
{
    const T s = (T)start;
    const T d = (T)((T)second - s);
    return i == 0 ? s : i == 1 ? (T)second : (T)(s + (T)i * d);
}
/* float16 as fill.c computes it: in float from the rounded start, the step not rounded. */
template <>
__device__ __forceinline__ cpn_half cpn_arange<cpn_half, double>(int64_t i, double start, double second)
{
    const float s = (float)(cpn_half)start, d = (float)(cpn_half)second - s;
    return i == 0 ? (cpn_half)s : i == 1 ? (cpn_half)second : (cpn_half)(s + (float)i * d);
}

#endif
