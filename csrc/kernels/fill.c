/* fill.c: arange, NumPy's way (the first two values are given; the rest extrapolate in the
 * dtype's own arithmetic, so results match numpy.arange bit for bit). */
#include "kernels.h"

#define ARANGE(T, START, SECOND)                                                          \
    do {                                                                                  \
        T *o = (T *)out;                                                                  \
        const T s = (T)(START);                                                           \
        const T d = (T)((T)(SECOND) - s);                                                 \
        _Pragma("omp parallel for schedule(static) if (n > 65536)")                       \
        for (int64_t k = 0; k < n; k++) {                                                 \
            int64_t i = first + k;                                                        \
            o[k] = i == 0 ? s : i == 1 ? (T)(SECOND) : (T)(s + (T)i * d);                 \
        }                                                                                 \
    } while (0)

void cpn_kernel_arange(enum cpn_dtype dt, void *out, int64_t first, int64_t n, double start,
                       double second, int64_t istart, int64_t isecond)
{
    switch (dt) {
    case CPN_DTYPE_BOOL: ARANGE(_Bool, istart, isecond); break;
    case CPN_DTYPE_INT8: ARANGE(int8_t, istart, isecond); break;
    case CPN_DTYPE_UINT8: ARANGE(uint8_t, istart, isecond); break;
    case CPN_DTYPE_INT16: ARANGE(int16_t, istart, isecond); break;
    case CPN_DTYPE_UINT16: ARANGE(uint16_t, istart, isecond); break;
    case CPN_DTYPE_INT32: ARANGE(int32_t, istart, isecond); break;
    case CPN_DTYPE_UINT32: ARANGE(uint32_t, istart, isecond); break;
    case CPN_DTYPE_INT64: ARANGE(int64_t, istart, isecond); break;
    case CPN_DTYPE_UINT64: ARANGE(uint64_t, istart, isecond); break;
    case CPN_DTYPE_FLOAT16: {
        /* NumPy fills half precision through float. */
        _Float16 *o = out;
        float s = (float)(_Float16)start, d = (float)(_Float16)second - s;
        for (int64_t k = 0; k < n; k++) {
            int64_t i = first + k;
            o[k] = i == 0 ? (_Float16)s : i == 1 ? (_Float16)second : (_Float16)(s + (float)i * d);
        }
        break;
    }
    case CPN_DTYPE_FLOAT32: ARANGE(float, start, second); break;
    case CPN_DTYPE_FLOAT64: ARANGE(double, start, second); break;
    default: break;
    }
}
