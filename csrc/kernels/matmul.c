/* matmul.c: C[..., m, n] = A[..., m, k] @ B[..., k, n] for strided operands of one dtype.
 *
 * float32/float64/complex64/complex128 go to BLAS (OpenBLAS, found by meson: cpn_config.h's
 * CPN_HAVE_BLAS) as NumPy does: one gemm per matrix of the batch, gemv when one side is a vector.
 * An operand BLAS cannot take as it is (a stride that is neither unit nor a leading dimension,
 * negative or zero strides) is packed into a contiguous copy first; an output BLAS cannot write is
 * computed into a temporary and copied out.  Bool and integers (which BLAS lacks), float16 and
 * every dtype of a build without BLAS take the loops below.  float16 accumulates in float32 and
 * rounds once per element, as NumPy's float16 matmul does.
 *
 * Threads: BLAS runs on OpenBLAS's own pool, sized to cupynum's thread count before each call
 * (openblas_set_num_threads when the count changed), so the two pools never run at once; the
 * loops below run on cupynum's OpenMP pool. */
#include <limits.h>
#include <string.h>

#include "alloc.h"
#include "cpn_config.h"
#include "kernels.h"
#include "scalar.h"

/* ---- the loops: every dtype -------------------------------------------------------------------
 * Row-major i-k-j order: each C row accumulates scaled B rows, so the innermost loop streams B and
 * C contiguously and vectorises; rows of C are split over threads. */
#define MATMUL(S, T)                                                                      \
    static void matmul_##S(const char *a, const int64_t *as, const char *b, const int64_t *bs, \
                           char *c, const int64_t *cs, int64_t m, int64_t k, int64_t n,   \
                           bool acc)                                                      \
    {                                                                                     \
        int nth = cpn_kernel_threads();                                                   \
        _Pragma("omp parallel for num_threads(nth) schedule(static) if (nth > 1 && m * k * n > 65536)") \
        for (int64_t i = 0; i < m; i++) {                                                 \
            char *crow = c + i * cs[0];                                                   \
            if (!acc)                                                                     \
                for (int64_t j = 0; j < n; j++) *(T *)(crow + j * cs[1]) = (T)0;          \
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
MATMUL(f32, float)
MATMUL(f64, double)
CPN_CPLX_LIST(MATMUL_T)

/* float16: products and sums in float32 in k order, one rounding per element (NumPy's loop). */
static void matmul_f16(const char *a, const int64_t *as, const char *b, const int64_t *bs, char *c,
                       const int64_t *cs, int64_t m, int64_t k, int64_t n, bool acc)
{
    int nth = cpn_kernel_threads();
#pragma omp parallel for num_threads(nth) schedule(static) if (nth > 1 && m * k * n > 65536)
    for (int64_t i = 0; i < m; i++) {
        float sum[256];
        for (int64_t j0 = 0; j0 < n; j0 += 256) {
            int64_t nj = n - j0 < 256 ? n - j0 : 256;
            for (int64_t j = 0; j < nj; j++)
                sum[j] = acc ? (float)*(const cpn_half *)(c + i * cs[0] + (j0 + j) * cs[1]) : 0.0f;
            for (int64_t p = 0; p < k; p++) {
                const float aip = (float)*(const cpn_half *)(a + i * as[0] + p * as[1]);
                const char *brow = b + p * bs[0] + j0 * bs[1];
                for (int64_t j = 0; j < nj; j++) sum[j] += aip * (float)*(const cpn_half *)(brow + j * bs[1]);
            }
            for (int64_t j = 0; j < nj; j++) *(cpn_half *)(c + i * cs[0] + (j0 + j) * cs[1]) = (cpn_half)sum[j];
        }
    }
}

typedef void (*matmul_fn)(const char *, const int64_t *, const char *, const int64_t *, char *,
                          const int64_t *, int64_t, int64_t, int64_t, bool);
static const matmul_fn matmul_table[CPN_DTYPE_COUNT] = {
    matmul_b, matmul_i8, matmul_u8, matmul_i16, matmul_u16, matmul_i32, matmul_u32,
    matmul_i64, matmul_u64, matmul_f16, matmul_f32, matmul_f64, matmul_c64, matmul_c128,
};
_Static_assert(CPN_DTYPE_COUNT == 14, "matmul_table lists every dtype");

/* ---- BLAS -------------------------------------------------------------------------------------
 * The CBLAS prototypes used, declared here so that one file serves OpenBLAS with any symbol
 * prefix (scipy-openblas32's is `scipy_`) without including either library's cblas.h.  Both
 * libraries meson accepts have 32-bit integers (LP64). */
#if CPN_HAVE_BLAS
#define CPN_CAT2(a, b) a##b
#define CPN_CAT(a, b) CPN_CAT2(a, b)
#define BLAS(name) CPN_CAT(CPN_BLAS_PREFIX, name)

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };
typedef int blasint;
void BLAS(cblas_sgemm)(int, int, int, blasint, blasint, blasint, float, const float *, blasint,
                       const float *, blasint, float, float *, blasint);
void BLAS(cblas_dgemm)(int, int, int, blasint, blasint, blasint, double, const double *, blasint,
                       const double *, blasint, double, double *, blasint);
void BLAS(cblas_cgemm)(int, int, int, blasint, blasint, blasint, const void *, const void *, blasint,
                       const void *, blasint, const void *, void *, blasint);
void BLAS(cblas_zgemm)(int, int, int, blasint, blasint, blasint, const void *, const void *, blasint,
                       const void *, blasint, const void *, void *, blasint);
void BLAS(cblas_sgemv)(int, int, blasint, blasint, float, const float *, blasint, const float *, blasint,
                       float, float *, blasint);
void BLAS(cblas_dgemv)(int, int, blasint, blasint, double, const double *, blasint, const double *,
                       blasint, double, double *, blasint);
void BLAS(cblas_cgemv)(int, int, blasint, blasint, const void *, const void *, blasint, const void *,
                       blasint, const void *, void *, blasint);
void BLAS(cblas_zgemv)(int, int, blasint, blasint, const void *, const void *, blasint, const void *,
                       blasint, const void *, void *, blasint);
float BLAS(cblas_sdot)(blasint, const float *, blasint, const float *, blasint);
double BLAS(cblas_ddot)(blasint, const double *, blasint, const double *, blasint);
void BLAS(cblas_cdotu_sub)(blasint, const void *, blasint, const void *, blasint, void *);
void BLAS(cblas_zdotu_sub)(blasint, const void *, blasint, const void *, blasint, void *);
void BLAS(openblas_set_num_threads)(int);

static int blas_threads;   /* what OpenBLAS was last told (0: not yet) */

void cpn_kernel_blas_threads(int64_t work)
{
    /* below 2^21 multiply-adds (a 128^3 product) the caller alone: OpenBLAS splits from 64^3 on,
     * and waking its pool costs more than the product (an MLP of 64-wide layers ran 0.02x NumPy
     * on a loaded machine, its 2-thread gemms waiting for a descheduled worker) */
    int n = work < ((int64_t)1 << 21) ? 1 : cpn_kernel_threads();
    if (n != blas_threads) {
        BLAS(openblas_set_num_threads)(n);
        blas_threads = n;
    }
}

static bool blas_dtype(enum cpn_dtype dt)
{
    return dt == CPN_DTYPE_FLOAT32 || dt == CPN_DTYPE_FLOAT64 || dt == CPN_DTYPE_COMPLEX64 ||
           dt == CPN_DTYPE_COMPLEX128;
}

/* Can an r x c operand with byte strides s go to a row-major BLAS call as it is?  Sets *trans
 * (NO_TRANS: rows at stride *ld elements; TRANS: columns at stride *ld) and *ld. */
static bool blas_layout(int64_t r, int64_t c, const int64_t *s, int64_t item, int *trans, blasint *ld)
{
    int64_t mr = r > 1 ? r : 1, mc = c > 1 ? c : 1;
    bool n_ok = (c <= 1 || s[1] == item) && (r <= 1 || (s[0] % item == 0 && s[0] / item >= mc));
    if (n_ok) {
        int64_t l = r <= 1 ? mc : s[0] / item;
        if (l <= INT_MAX) {
            *trans = NO_TRANS;
            *ld = (blasint)l;
            return true;
        }
    }
    bool t_ok = (r <= 1 || s[0] == item) && (c <= 1 || (s[1] % item == 0 && s[1] / item >= mr));
    if (t_ok) {
        int64_t l = c <= 1 ? mr : s[1] / item;
        if (l <= INT_MAX) {
            *trans = TRANS;
            *ld = (blasint)l;
            return true;
        }
    }
    return false;
}

/* Pack an r x c strided operand into a row-major contiguous buffer. */
/* Element copies by type: a memcpy call per element costs more than the product of a vector. */
#define PACK_AS(T)                                                                        \
    for (int64_t i = 0; i < r; i++) {                                                     \
        T *d = (T *)(dst + i * c * item);                                                 \
        const char *p = src + i * s[0];                                                   \
        for (int64_t j = 0; j < c; j++) memcpy(&d[j], p + j * s[1], sizeof(T));           \
    }

static void pack(const char *src, const int64_t *s, int64_t r, int64_t c, int64_t item, char *dst)
{
    switch (item) {
    case 4: PACK_AS(uint32_t) return;
    case 8: PACK_AS(uint64_t) return;
    case 16: PACK_AS(cpn_c128) return;
    default:
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++) memcpy(dst + (i * c + j) * item, src + i * s[0] + j * s[1], (size_t)item);
    }
}

static void unpack(const char *src, int64_t r, int64_t c, int64_t item, char *dst, const int64_t *s)
{
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++) memcpy(dst + i * s[0] + j * s[1], src + (i * c + j) * item, (size_t)item);
}

/* *c (+)= sum of x[i] y[i] (no conjugation). */
static void dot(enum cpn_dtype dt, blasint n, const char *x, blasint incx, const char *y, blasint incy, char *c,
                bool acc)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT32: {
        float r = BLAS(cblas_sdot)(n, (const float *)x, incx, (const float *)y, incy);
        *(float *)c = acc ? *(float *)c + r : r;
        break;
    }
    case CPN_DTYPE_FLOAT64: {
        double r = BLAS(cblas_ddot)(n, (const double *)x, incx, (const double *)y, incy);
        *(double *)c = acc ? *(double *)c + r : r;
        break;
    }
    case CPN_DTYPE_COMPLEX64: {
        cpn_c64 r;
        BLAS(cblas_cdotu_sub)(n, x, incx, y, incy, &r);
        *(cpn_c64 *)c = acc ? *(cpn_c64 *)c + r : r;
        break;
    }
    default: {
        cpn_c128 r;
        BLAS(cblas_zdotu_sub)(n, x, incx, y, incy, &r);
        *(cpn_c128 *)c = acc ? *(cpn_c128 *)c + r : r;
        break;
    }
    }
}

/* A long real vector . vector (NumPy's OpenBLAS splits a ddot above 10^4 elements over its
 * threads: dot of two 10^5 float64 vectors took 6.2 us there against 14.4 on one thread here):
 * DOT_PIECES single-threaded BLAS dots over consecutive pieces (multiples of 8 elements), run on
 * cupynum's own team where the measured choice takes it (cpn_kernel_team_pick), their results
 * added in order.  The pieces depend only on the length, so the bits do not depend on the team
 * (they differ from one BLAS dot's in the last places, as NumPy's threaded ones do). */
#define DOT_SPLIT ((int64_t)1 << 15)
#define DOT_PIECES 8
static bool split_dot(enum cpn_dtype dt, int64_t n, const char *x, blasint incx, const char *y, blasint incy,
                      char *c, bool acc)
{
    /* (not on the thread count: with one thread too, so that the bits are the same however
     * many threads a process or a rank has) */
    if (n < DOT_SPLIT || (dt != CPN_DTYPE_FLOAT32 && dt != CPN_DTYPE_FLOAT64)) return false;
    const int64_t item = (int64_t)cpn_dtype_size(dt), step = (n / DOT_PIECES + 7) & ~(int64_t)7;
    double part[DOT_PIECES];   /* each piece's result in its dtype (a float in the first 4 bytes) */
    cpn_kernel_blas_threads(0);
    struct cpn_team_timer tm = {.bucket = -1};
    const int nth = cpn_kernel_team_pick(CPN_TEAM_ELEMENTWISE, 8 * n, &tm);
#pragma omp parallel for num_threads(nth) schedule(static) if (nth > 1)
    for (int p = 0; p < DOT_PIECES; p++) {
        const int64_t lo = p * step < n ? p * step : n, hi = lo + step < n ? lo + step : n;
        part[p] = 0;
        if (hi > lo)
            dot(dt, (blasint)(hi - lo), x + lo * incx * item, incx, y + lo * incy * item, incy,
                (char *)&part[p], false);
    }
    cpn_kernel_team_done(&tm);
    if (dt == CPN_DTYPE_FLOAT32) {
        float s = acc ? *(float *)c : 0.0f, v;
        for (int p = 0; p < DOT_PIECES; p++) memcpy(&v, &part[p], sizeof v), s = p || acc ? s + v : v;
        *(float *)c = s;
    } else {
        double s = acc ? *(double *)c : 0.0;
        for (int p = 0; p < DOT_PIECES; p++) s = p || acc ? s + part[p] : part[p];
        *(double *)c = s;
    }
    return true;
}

/* y (len elements at byte stride ys) = op(A) x for the row-major A of r x c (lda) as gemv sees it. */
static const float one_c[2] = {1, 0}, zero_c[2] = {0, 0};
static const double one_z[2] = {1, 0}, zero_z[2] = {0, 0};

static void gemv(enum cpn_dtype dt, int trans, blasint r, blasint c, const char *a, blasint lda,
                 const char *x, blasint incx, char *y, blasint incy, bool acc)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT32:
        BLAS(cblas_sgemv)(ROW_MAJOR, trans, r, c, 1.0f, (const float *)a, lda, (const float *)x, incx,
                          acc ? 1.0f : 0.0f, (float *)y, incy);
        break;
    case CPN_DTYPE_FLOAT64:
        BLAS(cblas_dgemv)(ROW_MAJOR, trans, r, c, 1.0, (const double *)a, lda, (const double *)x, incx,
                          acc ? 1.0 : 0.0, (double *)y, incy);
        break;
    case CPN_DTYPE_COMPLEX64:
        BLAS(cblas_cgemv)(ROW_MAJOR, trans, r, c, one_c, a, lda, x, incx, acc ? one_c : zero_c, y, incy);
        break;
    default:
        BLAS(cblas_zgemv)(ROW_MAJOR, trans, r, c, one_z, a, lda, x, incx, acc ? one_z : zero_z, y, incy);
        break;
    }
}

static void gemm(enum cpn_dtype dt, int ta, int tb, blasint m, blasint n, blasint k, const char *a,
                 blasint lda, const char *b, blasint ldb, char *c, blasint ldc, bool acc)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT32:
        BLAS(cblas_sgemm)(ROW_MAJOR, ta, tb, m, n, k, 1.0f, (const float *)a, lda, (const float *)b, ldb,
                          acc ? 1.0f : 0.0f, (float *)c, ldc);
        break;
    case CPN_DTYPE_FLOAT64:
        BLAS(cblas_dgemm)(ROW_MAJOR, ta, tb, m, n, k, 1.0, (const double *)a, lda, (const double *)b, ldb,
                          acc ? 1.0 : 0.0, (double *)c, ldc);
        break;
    case CPN_DTYPE_COMPLEX64:
        BLAS(cblas_cgemm)(ROW_MAJOR, ta, tb, m, n, k, one_c, a, lda, b, ldb, acc ? one_c : zero_c, c, ldc);
        break;
    default:
        BLAS(cblas_zgemm)(ROW_MAJOR, ta, tb, m, n, k, one_z, a, lda, b, ldb, acc ? one_z : zero_z, c, ldc);
        break;
    }
}

/* Is a vector stride (bytes) one BLAS takes as an increment? */
static bool blas_inc(int64_t s, int64_t item, int64_t len, blasint *inc)
{
    if (len <= 1) s = item;
    if (s <= 0 || s % item != 0 || s / item > INT_MAX) return false;
    *inc = (blasint)(s / item);
    return true;
}

/* One m x k @ k x n product through BLAS; false when it cannot (the caller loops). */
static enum cpn_status blas_matmul(enum cpn_dtype dt, const char *a, const int64_t *as, const char *b,
                                   const int64_t *bs, char *c, const int64_t *cs, int64_t m, int64_t k,
                                   int64_t n, bool acc)
{
    int64_t item = (int64_t)cpn_dtype_size(dt);
    if (k == 0) {   /* C = 0 (or unchanged): nothing for BLAS to read */
        if (acc) return CPN_OK;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) memset(c + i * cs[0] + j * cs[1], 0, (size_t)item);
        return CPN_OK;
    }
    char *abuf = NULL, *bbuf = NULL, *cbuf = NULL;
    int64_t pas[2], pbs[2];
    int ta, tb, tc;
    blasint lda, ldb, ldc;
    if (!blas_layout(m, k, as, item, &ta, &lda)) {
        if (!(abuf = cpn_alloc((size_t)(m * k * item)))) return CPN_ERR_NOMEM;
        pack(a, as, m, k, item, abuf);
        a = abuf;
        pas[0] = k * item, pas[1] = item;
        as = pas;
        blas_layout(m, k, as, item, &ta, &lda);
    }
    if (!blas_layout(k, n, bs, item, &tb, &ldb)) {
        if (!(bbuf = cpn_alloc((size_t)(k * n * item)))) {
            cpn_free(abuf);
            return CPN_ERR_NOMEM;
        }
        pack(b, bs, k, n, item, bbuf);
        b = bbuf;
        pbs[0] = n * item, pbs[1] = item;
        bs = pbs;
        blas_layout(k, n, bs, item, &tb, &ldb);
    }
    cpn_kernel_blas_threads(m * n * k);
    blasint incc;
    if (m == 1 && n == 1) {   /* vector . vector */
        blasint inca, incb;
        if (blas_inc(as[1], item, k, &inca) && blas_inc(bs[0], item, k, &incb)) {
            if (!split_dot(dt, k, a, inca, b, incb, c, acc)) dot(dt, (blasint)k, a, inca, b, incb, c, acc);
            goto done;
        }
    }
    if (n == 1 && blas_inc(cs[0], item, m, &incc)) {
        /* matrix @ vector: c = A b */
        blasint incb;
        if (blas_inc(bs[0], item, k, &incb)) {
            blasint r = ta == NO_TRANS ? (blasint)m : (blasint)k, cc = ta == NO_TRANS ? (blasint)k : (blasint)m;
            gemv(dt, ta, r, cc, a, lda, b, incb, c, incc, acc);
            goto done;
        }
    }
    if (m == 1 && blas_inc(cs[1], item, n, &incc)) {
        /* vector @ matrix: c = B^T a */
        blasint inca;
        if (blas_inc(as[1], item, k, &inca)) {
            int tt = tb == NO_TRANS ? TRANS : NO_TRANS;
            blasint r = tb == NO_TRANS ? (blasint)k : (blasint)n, cc = tb == NO_TRANS ? (blasint)n : (blasint)k;
            gemv(dt, tt, r, cc, b, ldb, a, inca, c, incc, acc);
            goto done;
        }
    }
    if (blas_layout(m, n, cs, item, &tc, &ldc)) {
        if (tc == NO_TRANS) {
            gemm(dt, ta, tb, (blasint)m, (blasint)n, (blasint)k, a, lda, b, ldb, c, ldc, acc);
        } else {   /* C is column-major: C^T = B^T A^T, row-major */
            gemm(dt, tb == NO_TRANS ? TRANS : NO_TRANS, ta == NO_TRANS ? TRANS : NO_TRANS, (blasint)n,
                 (blasint)m, (blasint)k, b, ldb, a, lda, c, ldc, acc);
        }
    } else {
        if (!(cbuf = cpn_alloc((size_t)(m * n * item)))) {
            cpn_free(abuf);
            cpn_free(bbuf);
            return CPN_ERR_NOMEM;
        }
        if (acc) pack(c, cs, m, n, item, cbuf);
        gemm(dt, ta, tb, (blasint)m, (blasint)n, (blasint)k, a, lda, b, ldb, cbuf, (blasint)(n > 1 ? n : 1), acc);
        unpack(cbuf, m, n, item, c, cs);
    }
done:
    cpn_free(abuf);
    cpn_free(bbuf);
    cpn_free(cbuf);
    return CPN_OK;
}
#endif

const char *cpn_kernel_blas_name(void)
{
#if CPN_HAVE_BLAS
    return CPN_BLAS_NAME;
#else
    return "none";
#endif
}

static enum cpn_status matmul2d(enum cpn_dtype dt, const char *a, const int64_t *as, const char *b,
                                const int64_t *bs, char *c, const int64_t *cs, int64_t m, int64_t k,
                                int64_t n, bool acc)
{
#if CPN_HAVE_BLAS
    if (blas_dtype(dt) && m <= INT_MAX && n <= INT_MAX && k <= INT_MAX)
        return blas_matmul(dt, a, as, b, bs, c, cs, m, k, n, acc);
#endif
    matmul_table[dt](a, as, b, bs, c, cs, m, k, n, acc);
    return CPN_OK;
}

enum cpn_status cpn_kernel_matmul_add(enum cpn_dtype dt, const char *a, const int64_t *as, const char *b,
                                      const int64_t *bs, char *c, const int64_t *cs, int64_t m, int64_t k,
                                      int64_t n)
{
    if (m == 0 || n == 0) return CPN_OK;
    return matmul2d(dt, a, as, b, bs, c, cs, m, k, n, true);
}

enum cpn_status cpn_kernel_matmul(enum cpn_dtype dt, int nb, const int64_t *bshape, const char *a,
                                  const int64_t *as, const char *b, const int64_t *bs, char *c,
                                  const int64_t *cs, int64_t m, int64_t k, int64_t n)
{
    int64_t count = 1, idx[CPN_MAXDIM] = {0};
    for (int d = 0; d < nb; d++) count *= bshape[d];
    if (m == 0 || n == 0) return CPN_OK;
    for (int64_t t = 0; t < count; t++) {
        const char *ab = a, *bb = b;
        char *cb = c;
        for (int d = 0; d < nb; d++) ab += idx[d] * as[d], bb += idx[d] * bs[d], cb += idx[d] * cs[d];
        CPN_TRY(matmul2d(dt, ab, as + nb, bb, bs + nb, cb, cs + nb, m, k, n, false));
        for (int d = nb - 1; d >= 0; d--) {
            if (++idx[d] < bshape[d]) break;
            idx[d] = 0;
        }
    }
    return CPN_OK;
}

/* ---- numpy.correlate's dots ---------------------------------------------------------------------
 * NumPy's _pyarray_correlate computes each output as its dtype's dot function over the overlap
 * (float32/float64: cblas_sdot/ddot added to a double 0; complex: cblas_cdotu/zdotu_sub, each part
 * added to a double 0) except the outputs of the full overlap when the kernel has at most 11
 * elements, which small_correlate sums from 0 in ascending order, in the dtype.  The same calls
 * in the same order here give its bits (BLAS's own order inside a dot: its kernels vectorise
 * from 16 elements, and its scalar tail may fuse multiply-adds). */
static void np_dot(enum cpn_dtype dt, const char *x, const char *y, int64_t n, char *op)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT32: {
#if CPN_HAVE_BLAS
        double s = 0.;
        s += BLAS(cblas_sdot)((blasint)n, (const float *)x, 1, (const float *)y, 1);
        *(float *)op = (float)s;
#else
        float s = 0;
        for (int64_t i = 0; i < n; i++) s += ((const float *)x)[i] * ((const float *)y)[i];
        *(float *)op = s;
#endif
        return;
    }
    case CPN_DTYPE_FLOAT64: {
        double s = 0.;
#if CPN_HAVE_BLAS
        s += BLAS(cblas_ddot)((blasint)n, (const double *)x, 1, (const double *)y, 1);
#else
        for (int64_t i = 0; i < n; i++) s += ((const double *)x)[i] * ((const double *)y)[i];
#endif
        *(double *)op = s;
        return;
    }
    case CPN_DTYPE_COMPLEX64: {
#if CPN_HAVE_BLAS
        cpn_c64 r;
        BLAS(cblas_cdotu_sub)((blasint)n, x, 1, y, 1, &r);
        double re = 0., im = 0.;
        re += (double)crealf(r);
        im += (double)cimagf(r);
        ((float *)op)[0] = (float)re;
        ((float *)op)[1] = (float)im;
#else
        float re = 0, im = 0;
        for (int64_t i = 0; i < n; i++) {
            const float *a = (const float *)x + 2 * i, *b = (const float *)y + 2 * i;
            re += a[0] * b[0] - a[1] * b[1];
            im += a[1] * b[0] + a[0] * b[1];
        }
        ((float *)op)[0] = re;
        ((float *)op)[1] = im;
#endif
        return;
    }
    default: {
#if CPN_HAVE_BLAS
        cpn_c128 r;
        BLAS(cblas_zdotu_sub)((blasint)n, x, 1, y, 1, &r);
        double re = 0., im = 0.;
        re += creal(r);
        im += cimag(r);
#else
        double re = 0, im = 0;
        for (int64_t i = 0; i < n; i++) {
            const double *a = (const double *)x + 2 * i, *b = (const double *)y + 2 * i;
            re += a[0] * b[0] - a[1] * b[1];
            im += a[1] * b[0] + a[0] * b[1];
        }
#endif
        ((double *)op)[0] = re;
        ((double *)op)[1] = im;
        return;
    }
    }
}

/* small_correlate: out[i] = sum over j < NK of d[i + j] * w[j], from 0 in ascending j, for
 * i < nd (NK <= 11, float32/float64).  As NumPy, one loop per kernel length, whose constant
 * trip count lets the compiler keep the kernel in registers and vectorise across outputs (each
 * output's order stays this); outputs split among the threads where the team pays. */
#define SMALL_CORRELATE_NK(S, T, NK)                                                      \
    static void small_correlate_##S##_##NK(const T *d, int64_t nd, const T *w, T *out)    \
    {                                                                                     \
        T k[NK];                                                                          \
        for (int j = 0; j < NK; j++) k[j] = w[j];                                         \
        for (int64_t i = 0; i < nd; i++) {                                                \
            T s = 0;                                                                      \
            for (int j = 0; j < NK; j++) s += d[i + j] * k[j];                            \
            out[i] = s;                                                                   \
        }                                                                                 \
    }
#define SMALL_CORRELATE(S, T)                                                             \
    SMALL_CORRELATE_NK(S, T, 1) SMALL_CORRELATE_NK(S, T, 2) SMALL_CORRELATE_NK(S, T, 3)    \
    SMALL_CORRELATE_NK(S, T, 4) SMALL_CORRELATE_NK(S, T, 5) SMALL_CORRELATE_NK(S, T, 6)    \
    SMALL_CORRELATE_NK(S, T, 7) SMALL_CORRELATE_NK(S, T, 8) SMALL_CORRELATE_NK(S, T, 9)    \
    SMALL_CORRELATE_NK(S, T, 10) SMALL_CORRELATE_NK(S, T, 11)                              \
    typedef void (*small_correlate_##S##_fn)(const T *, int64_t, const T *, T *);          \
    static const small_correlate_##S##_fn small_correlate_##S##_table[12] = {             \
        NULL, small_correlate_##S##_1, small_correlate_##S##_2, small_correlate_##S##_3,   \
        small_correlate_##S##_4, small_correlate_##S##_5, small_correlate_##S##_6,         \
        small_correlate_##S##_7, small_correlate_##S##_8, small_correlate_##S##_9,         \
        small_correlate_##S##_10, small_correlate_##S##_11};                               \
    static void small_correlate_##S(const T *d, int64_t nd, const T *w, int nk, T *out)   \
    {                                                                                     \
        const small_correlate_##S##_fn f = small_correlate_##S##_table[nk];               \
        struct cpn_team_timer tm = {.bucket = -1};                                        \
        const int nth = cpn_kernel_team_pick(CPN_TEAM_ELEMENTWISE, nd * nk, &tm);         \
        if (nth == 1) {                                                                   \
            f(d, nd, w, out);                                                             \
        } else {                                                                          \
            _Pragma("omp parallel for num_threads(nth) schedule(static)")                 \
            for (int t = 0; t < nth; t++) {                                               \
                const int64_t a = nd * t / nth, b = nd * (t + 1) / nth;                   \
                f(d + a, b - a, w, out + a);                                              \
            }                                                                             \
        }                                                                                 \
        cpn_kernel_team_done(&tm);                                                        \
    }
SMALL_CORRELATE(f32, float)
SMALL_CORRELATE(f64, double)

void cpn_kernel_correlate(enum cpn_dtype dt, const char *a, int64_t n1, const char *v, int64_t n2, int mode,
                          char *out)
{
    const int64_t item = (int64_t)cpn_dtype_size(dt);
    int64_t n_left = 0, n_right = 0;
    if (mode == 1) {
        n_left = n2 / 2;
        n_right = n2 - n_left - 1;
    } else if (mode == 2) {
        n_left = n_right = n2 - 1;
    }
#if CPN_HAVE_BLAS
    cpn_kernel_blas_threads(n2);   /* one thread: NumPy's dots of a kernel's length */
#endif
    const char *ip1 = a, *ip2 = v + n_left * item;
    char *op = out;
    int64_t n = n2 - n_left;
    for (int64_t i = 0; i < n_left; i++, n++, ip2 -= item, op += item) np_dot(dt, ip1, ip2, n, op);
    const int64_t mid = n1 - n2 + 1;
    if (n <= 11 && dt == CPN_DTYPE_FLOAT32) {
        small_correlate_f32((const float *)ip1, mid, (const float *)ip2, (int)n, (float *)op);
        ip1 += mid * item;
        op += mid * item;
    } else if (n <= 11 && dt == CPN_DTYPE_FLOAT64) {
        small_correlate_f64((const double *)ip1, mid, (const double *)ip2, (int)n, (double *)op);
        ip1 += mid * item;
        op += mid * item;
    } else {
        for (int64_t i = 0; i < mid; i++, ip1 += item, op += item) np_dot(dt, ip1, ip2, n, op);
    }
    for (int64_t i = 0; i < n_right; i++, ip1 += item, op += item) np_dot(dt, ip1, ip2, --n, op);
}
