/* matmul.c: C = A @ B for 2-D strided operands of one dtype.
 *
 * Row-major i-k-j order: each C row accumulates scaled B rows, so the innermost loop streams B and
 * C contiguously and vectorises; rows of C are split over threads.  (A BLAS call is the obvious
 * next step for float32/float64; the loop is kept for every dtype NumPy supports.) */
#include <string.h>

#include "kernels.h"
#include "scalar.h"

#define MATMUL(S, T)                                                                      \
    static void matmul_##S(const char *a, const int64_t *as, const char *b, const int64_t *bs, \
                           char *c, const int64_t *cs, int64_t m, int64_t k, int64_t n)   \
    {                                                                                     \
        _Pragma("omp parallel for schedule(static) if (m * k * n > 65536)")               \
        for (int64_t i = 0; i < m; i++) {                                                 \
            char *crow = c + i * cs[0];                                                   \
            for (int64_t j = 0; j < n; j++) *(T *)(crow + j * cs[1]) = (T)0;              \
            for (int64_t p = 0; p < k; p++) {                                             \
                const T aip = *(const T *)(a + i * as[0] + p * as[1]);                    \
                const char *brow = b + p * bs[0];                                         \
                if (bs[1] == sizeof(T) && cs[1] == sizeof(T)) {                           \
                    const T *bp = (const T *)brow;                                        \
                    T *cp = (T *)crow;                                                    \
                    for (int64_t j = 0; j < n; j++)                                       \
                        cp[j] = cpn_add_##S(cp[j], cpn_multiply_##S(aip, bp[j]));         \
                } else {                                                                  \
                    for (int64_t j = 0; j < n; j++) {                                     \
                        T *cj = (T *)(crow + j * cs[1]);                                  \
                        *cj = cpn_add_##S(*cj, cpn_multiply_##S(aip, *(const T *)(brow + j * bs[1]))); \
                    }                                                                     \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
    }
#define MATMUL_T(S, T, ...) MATMUL(S, T)
MATMUL(b, _Bool)
CPN_SINT_LIST(MATMUL_T)
CPN_UINT_LIST(MATMUL_T)
CPN_REAL_LIST(MATMUL_T)
CPN_CPLX_LIST(MATMUL_T)

typedef void (*matmul_fn)(const char *, const int64_t *, const char *, const int64_t *, char *,
                          const int64_t *, int64_t, int64_t, int64_t);
static const matmul_fn matmul_table[CPN_DTYPE_COUNT] = {
    matmul_b, matmul_i8, matmul_u8, matmul_i16, matmul_u16, matmul_i32, matmul_u32,
    matmul_i64, matmul_u64, matmul_f16, matmul_f32, matmul_f64, matmul_c64, matmul_c128,
};

enum cpn_status cpn_kernel_matmul(enum cpn_dtype dt, const char *a, const int64_t *as,
                                  const char *b, const int64_t *bs, char *c, const int64_t *cs,
                                  int64_t m, int64_t k, int64_t n)
{
    matmul_table[dt](a, as, b, bs, c, cs, m, k, n);
    return CPN_OK;
}
