/* elementwise.c: the element-wise inner loops, generated from ops.def and scalar.h, and the
 * threaded n-d driver that runs them.
 *
 * Each loop has a contiguous path (and contiguous-with-a-scalar paths) written so that the
 * compiler vectorises it, and a general strided path. */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels.h"
#include "scalar.h"
#include "status.h"

/* ---- the loops ------------------------------------------------------------------------------ */

#define OUT_T(FN, S, T) __typeof__(cpn_##FN##_##S((T)0))
#define OUT_T2(FN, S, T) __typeof__(cpn_##FN##_##S((T)0, (T)0))

#define LOOP_1(FN, S, T)                                                                  \
    static void loop_##FN##_##S(char **args, const int64_t *st, int64_t n,                \
                                struct cpn_kctx *ctx)                                     \
    {                                                                                     \
        typedef OUT_T(FN, S, T) TO;                                                       \
        (void)ctx;                                                                        \
        if (st[0] == sizeof(T) && st[1] == sizeof(TO)) {                                  \
            const T *a = (const T *)args[0];                                              \
            TO *o = (TO *)args[1];                                                        \
            for (int64_t i = 0; i < n; i++) o[i] = cpn_##FN##_##S(a[i]);                  \
        } else {                                                                          \
            for (int64_t i = 0; i < n; i++)                                               \
                *(TO *)(args[1] + i * st[1]) = cpn_##FN##_##S(*(const T *)(args[0] + i * st[0])); \
        }                                                                                 \
    }

#define LOOP_2_BODY(FN, S, T)                                                             \
    typedef OUT_T2(FN, S, T) TO;                                                          \
    const int64_t sa = st[0], sb = st[1], so = st[2];                                     \
    if (so == sizeof(TO) && sa == sizeof(T) && sb == sizeof(T)) {                         \
        const T *a = (const T *)args[0], *b = (const T *)args[1];                         \
        TO *o = (TO *)args[2];                                                            \
        for (int64_t i = 0; i < n; i++) o[i] = cpn_##FN##_##S(a[i], b[i]);                \
    } else if (so == sizeof(TO) && sa == sizeof(T) && sb == 0) {                          \
        const T *a = (const T *)args[0];                                                  \
        const T b = *(const T *)args[1];                                                  \
        TO *o = (TO *)args[2];                                                            \
        for (int64_t i = 0; i < n; i++) o[i] = cpn_##FN##_##S(a[i], b);                   \
    } else if (so == sizeof(TO) && sa == 0 && sb == sizeof(T)) {                          \
        const T a = *(const T *)args[0];                                                  \
        const T *b = (const T *)args[1];                                                  \
        TO *o = (TO *)args[2];                                                            \
        for (int64_t i = 0; i < n; i++) o[i] = cpn_##FN##_##S(a, b[i]);                   \
    } else {                                                                              \
        for (int64_t i = 0; i < n; i++)                                                   \
            *(TO *)(args[2] + i * so) = cpn_##FN##_##S(*(const T *)(args[0] + i * sa),    \
                                                       *(const T *)(args[1] + i * sb));   \
    }

#define LOOP_2(FN, S, T)                                                                  \
    static void loop_##FN##_##S(char **args, const int64_t *st, int64_t n,                \
                                struct cpn_kctx *ctx)                                     \
    {                                                                                     \
        (void)ctx;                                                                        \
        LOOP_2_BODY(FN, S, T)                                                             \
    }

/* The one ternary op, where: a bool condition selects between two operands of the loop dtype. */
#define LOOP_3(FN, S, T)                                                                  \
    static void loop_##FN##_##S(char **args, const int64_t *st, int64_t n,                \
                                struct cpn_kctx *ctx)                                     \
    {                                                                                     \
        (void)ctx;                                                                        \
        if (st[0] == 1 && st[1] == sizeof(T) && st[2] == sizeof(T) && st[3] == sizeof(T)) { \
            const _Bool *c = (const _Bool *)args[0];                                      \
            const T *a = (const T *)args[1], *b = (const T *)args[2];                     \
            T *o = (T *)args[3];                                                          \
            for (int64_t i = 0; i < n; i++) o[i] = c[i] ? a[i] : b[i];                    \
        } else {                                                                          \
            for (int64_t i = 0; i < n; i++)                                               \
                *(T *)(args[3] + i * st[3]) = *(const _Bool *)(args[0] + i * st[0])       \
                    ? *(const T *)(args[1] + i * st[1]) : *(const T *)(args[2] + i * st[2]); \
        }                                                                                 \
    }

/* Signed integer power rejects negative exponents, as NumPy does (ValueError). */
#define LOOP_2_SINT(FN, S, T)                                                             \
    static void loop_##FN##_##S(char **args, const int64_t *st, int64_t n,                \
                                struct cpn_kctx *ctx)                                     \
    {                                                                                     \
        if (CPN_OP_CHECK_NEG_##FN) {                                                      \
            for (int64_t i = 0; i < n; i++)                                               \
                if (*(const T *)(args[1] + i * st[1]) < 0) {                              \
                    __atomic_store_n(&ctx->err, 1, __ATOMIC_RELAXED);                     \
                    return;                                                               \
                }                                                                         \
        }                                                                                 \
        LOOP_2_BODY(FN, S, T)                                                             \
    }

#define CPN_OP_CHECK_NEG_power 1
#define CPN_OP_CHECK_NEG_add 0
#define CPN_OP_CHECK_NEG_subtract 0
#define CPN_OP_CHECK_NEG_multiply 0
#define CPN_OP_CHECK_NEG_floor_divide 0
#define CPN_OP_CHECK_NEG_remainder 0
#define CPN_OP_CHECK_NEG_maximum 0
#define CPN_OP_CHECK_NEG_minimum 0
#define CPN_OP_CHECK_NEG_bitwise_and 0
#define CPN_OP_CHECK_NEG_bitwise_or 0
#define CPN_OP_CHECK_NEG_bitwise_xor 0
#define CPN_OP_CHECK_NEG_left_shift 0
#define CPN_OP_CHECK_NEG_right_shift 0
#define CPN_OP_CHECK_NEG_equal 0
#define CPN_OP_CHECK_NEG_not_equal 0
#define CPN_OP_CHECK_NEG_less 0
#define CPN_OP_CHECK_NEG_less_equal 0
#define CPN_OP_CHECK_NEG_greater 0
#define CPN_OP_CHECK_NEG_greater_equal 0

/* Per class: instantiate loop kind L (1 or 2) of op FN for every dtype in the class. */
#define CLS_B(FN, L) LOOP_##L(FN, b, _Bool)
#define CLS_I(FN, L)                                                                      \
    LOOP_##L##_SI(FN, i8, int8_t) LOOP_##L##_SI(FN, i16, int16_t)                         \
    LOOP_##L##_SI(FN, i32, int32_t) LOOP_##L##_SI(FN, i64, int64_t)
#define CLS_U(FN, L)                                                                      \
    LOOP_##L(FN, u8, uint8_t) LOOP_##L(FN, u16, uint16_t)                                 \
    LOOP_##L(FN, u32, uint32_t) LOOP_##L(FN, u64, uint64_t)
#define CLS_F(FN, L) LOOP_##L(FN, f16, _Float16) LOOP_##L(FN, f32, float) LOOP_##L(FN, f64, double)
#define CLS_C(FN, L) LOOP_##L(FN, c64, float _Complex) LOOP_##L(FN, c128, double _Complex)
#define LOOP_1_SI LOOP_1
#define LOOP_2_SI LOOP_2_SINT
#define LOOP_3_SI LOOP_3

#define CLASSES_BIUFC(FN, L) CLS_B(FN, L) CLS_I(FN, L) CLS_U(FN, L) CLS_F(FN, L) CLS_C(FN, L)
#define CLASSES_IUFC(FN, L) CLS_I(FN, L) CLS_U(FN, L) CLS_F(FN, L) CLS_C(FN, L)
#define CLASSES_IUF(FN, L) CLS_I(FN, L) CLS_U(FN, L) CLS_F(FN, L)
#define CLASSES_BIU(FN, L) CLS_B(FN, L) CLS_I(FN, L) CLS_U(FN, L)
#define CLASSES_IU(FN, L) CLS_I(FN, L) CLS_U(FN, L)
#define CLASSES_FC(FN, L) CLS_F(FN, L) CLS_C(FN, L)

#define OP(E, FN, NIN, KIND, CLASSES, IDENT) CLASSES_##CLASSES(FN, NIN)
#include "ops.def"
#undef OP

/* ---- the table -------------------------------------------------------------------------- */

#define ROW_B(FN) [CPN_DTYPE_BOOL] = loop_##FN##_b,
#define ROW_I(FN)                                                                         \
    [CPN_DTYPE_INT8] = loop_##FN##_i8, [CPN_DTYPE_INT16] = loop_##FN##_i16,               \
    [CPN_DTYPE_INT32] = loop_##FN##_i32, [CPN_DTYPE_INT64] = loop_##FN##_i64,
#define ROW_U(FN)                                                                         \
    [CPN_DTYPE_UINT8] = loop_##FN##_u8, [CPN_DTYPE_UINT16] = loop_##FN##_u16,             \
    [CPN_DTYPE_UINT32] = loop_##FN##_u32, [CPN_DTYPE_UINT64] = loop_##FN##_u64,
#define ROW_F(FN)                                                                         \
    [CPN_DTYPE_FLOAT16] = loop_##FN##_f16, [CPN_DTYPE_FLOAT32] = loop_##FN##_f32,         \
    [CPN_DTYPE_FLOAT64] = loop_##FN##_f64,
#define ROW_C(FN) [CPN_DTYPE_COMPLEX64] = loop_##FN##_c64, [CPN_DTYPE_COMPLEX128] = loop_##FN##_c128,
#define ROWS_BIUFC(FN) ROW_B(FN) ROW_I(FN) ROW_U(FN) ROW_F(FN) ROW_C(FN)
#define ROWS_IUFC(FN) ROW_I(FN) ROW_U(FN) ROW_F(FN) ROW_C(FN)
#define ROWS_IUF(FN) ROW_I(FN) ROW_U(FN) ROW_F(FN)
#define ROWS_BIU(FN) ROW_B(FN) ROW_I(FN) ROW_U(FN)
#define ROWS_IU(FN) ROW_I(FN) ROW_U(FN)
#define ROWS_FC(FN) ROW_F(FN) ROW_C(FN)

static const cpn_loop_fn loop_table[][CPN_DTYPE_COUNT] = {
#define OP(E, FN, NIN, KIND, CLASSES, IDENT) [CPN_OP_##E] = {ROWS_##CLASSES(FN)},
#include "ops.def"
#undef OP
};
_Static_assert(sizeof loop_table / sizeof loop_table[0] == CPN_OP_COUNT, "one loop row per op");

cpn_loop_fn cpn_kernel_elementwise(enum cpn_opcode code, enum cpn_dtype dt)
{
    if ((unsigned)code >= CPN_OP_COUNT || (unsigned)dt >= CPN_DTYPE_COUNT) return NULL;
    return loop_table[code][dt];
}

/* ---- the threaded n-d driver ------------------------------------------------------------ */

static int n_threads;

int cpn_kernel_threads(void)
{
    if (n_threads <= 0) {
#ifdef _OPENMP
        n_threads = omp_get_max_threads();
#else
        n_threads = 1;
#endif
    }
    return n_threads;
}

void cpn_kernel_set_threads(int n) { n_threads = n > 0 ? n : 1; }

/* Below this many elements a single thread is faster than waking the team. */
#define PARALLEL_MIN 32768

void cpn_iterate(cpn_loop_fn fn, int narg, char **base, int ndim, const int64_t *shape0,
                 int64_t (*strides0)[CPN_MAXDIM], struct cpn_kctx *ctx)
{
    int64_t shape[CPN_MAXDIM], st[CPN_MAXARGS][CPN_MAXDIM];
    int nd = 0;
    /* Drop extent-1 dimensions, then merge neighbours every argument walks contiguously. */
    for (int d = 0; d < ndim; d++) {
        if (shape0[d] == 0) return;
        if (shape0[d] == 1) continue;
        shape[nd] = shape0[d];
        for (int a = 0; a < narg; a++) st[a][nd] = strides0[a][d];
        nd++;
    }
    int m = 0;
    for (int d = 1; d < nd; d++) {
        int ok = 1;
        for (int a = 0; a < narg; a++)
            if (st[a][m] != st[a][d] * shape[d]) ok = 0;
        if (ok) {
            shape[m] *= shape[d];
            for (int a = 0; a < narg; a++) st[a][m] = st[a][d];
        } else {
            m++;
            shape[m] = shape[d];
            for (int a = 0; a < narg; a++) st[a][m] = st[a][d];
        }
    }
    nd = nd ? m + 1 : 0;
    int64_t inner_st[CPN_MAXARGS];
    if (nd == 0) {
        for (int a = 0; a < narg; a++) inner_st[a] = 0;
        fn(base, inner_st, 1, ctx);
        return;
    }
    for (int a = 0; a < narg; a++) inner_st[a] = st[a][nd - 1];
    int64_t inner = shape[nd - 1], outer = 1;
    for (int d = 0; d < nd - 1; d++) outer *= shape[d];
    int nth = cpn_kernel_threads();
    if (inner * outer < PARALLEL_MIN) nth = 1;
    int64_t chunk = inner;
    if (nth > 1 && outer < 8 * nth) {
        chunk = (inner + 8 * nth - 1) / (8 * nth);
        if (chunk < 4096) chunk = 4096;
        chunk = (chunk + 63) & ~(int64_t)63;
    }
    int64_t nchunks = (inner + chunk - 1) / chunk, ntasks = outer * nchunks;
    if (nth == 1 && outer == 1) {   /* small work: no OpenMP region at all */
        fn(base, inner_st, inner, ctx);
        return;
    }
    /* Dynamic chunks of about 1/8 of a thread's share: when a core is busy with another process,
     * the running threads take over the work of a descheduled one. */
    int64_t grain = ntasks / (8 * (int64_t)nth);
    if (grain < 1) grain = 1;
#pragma omp parallel for num_threads(nth) schedule(dynamic, grain) if (nth > 1)
    for (int64_t t = 0; t < ntasks; t++) {
        int64_t row = t / nchunks, c = t % nchunks;
        char *p[CPN_MAXARGS];
        for (int a = 0; a < narg; a++) p[a] = base[a] + c * chunk * st[a][nd - 1];
        for (int d = nd - 2; d >= 0; d--) {
            int64_t i = row % shape[d];
            row /= shape[d];
            for (int a = 0; a < narg; a++) p[a] += i * st[a][d];
        }
        int64_t cnt = inner - c * chunk < chunk ? inner - c * chunk : chunk;
        fn(p, inner_st, cnt, ctx);
    }
}
