/* select.c: order statistics per lane -- median, quantile/percentile (NumPy's 13 methods) and
 * their NaN-ignoring variants.
 *
 * Each lane (the elements of the reduced dimensions for one position of the kept ones, C order)
 * is gathered into a contiguous scratch buffer of the input dtype; floating lanes are checked
 * for NaN (any NaN makes every result of the lane NaN, as NumPy's partition puts NaN last and its
 * NaN check copies it) or, for the nan- variants, compacted to their non-NaN elements.  The
 * order statistics a lane needs are found by introselect (quickselect with a median-of-three
 * pivot, falling back to heapsort when partitions go badly), O(n) per lane, like NumPy's
 * partition.  Lanes are split over OpenMP threads, each with its own scratch.
 *
 * The arithmetic that turns order statistics into results is NumPy's, written out operation by
 * operation (numpy/lib/_function_base_impl.py: _quantile, _get_indexes, _get_gamma, _lerp and
 * the method table; _median's mean of the middle elements), with each operation rounded to the
 * dtype NumPy computes it in.  Values are carried as doubles and rounded after each operation
 * (`rnd`): for +, -, * and / of float16/float32 operands this equals the narrow arithmetic, since
 * double has more than twice their precision plus two bits. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kernels.h"
#include "status.h"

/* ---- rounding and element access --------------------------------------------------------------- */

static double rnd(enum cpn_dtype dt, double x)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT16: return (double)(_Float16)x;
    case CPN_DTYPE_FLOAT32: return (double)(float)x;
    default: return x;
    }
}

static double load(enum cpn_dtype dt, const char *p)
{
    switch (dt) {
    case CPN_DTYPE_BOOL: return *(const _Bool *)p;
    case CPN_DTYPE_INT8: return *(const int8_t *)p;
    case CPN_DTYPE_INT16: return *(const int16_t *)p;
    case CPN_DTYPE_INT32: return *(const int32_t *)p;
    case CPN_DTYPE_INT64: return (double)*(const int64_t *)p;
    case CPN_DTYPE_UINT8: return *(const uint8_t *)p;
    case CPN_DTYPE_UINT16: return *(const uint16_t *)p;
    case CPN_DTYPE_UINT32: return *(const uint32_t *)p;
    case CPN_DTYPE_UINT64: return (double)*(const uint64_t *)p;
    case CPN_DTYPE_FLOAT16: return *(const _Float16 *)p;
    case CPN_DTYPE_FLOAT32: return *(const float *)p;
    case CPN_DTYPE_FLOAT64: return *(const double *)p;
    default: return NAN;
    }
}

static void store(enum cpn_dtype dt, char *p, double x)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT16: *(_Float16 *)p = (_Float16)x; break;
    case CPN_DTYPE_FLOAT32: *(float *)p = (float)x; break;
    case CPN_DTYPE_FLOAT64: *(double *)p = x; break;
    default: break;
    }
}

/* b - a in dtype dt, as a double: integers wrap as NumPy's subtract does (b >= a after sorting,
 * but a signed difference can exceed the type), floats round to dt. */
static double diff(enum cpn_dtype dt, const char *pa, const char *pb)
{
    switch (dt) {
    case CPN_DTYPE_INT8: return (int8_t)(uint8_t)((uint8_t)*(const int8_t *)pb - (uint8_t)*(const int8_t *)pa);
    case CPN_DTYPE_INT16:
        return (int16_t)(uint16_t)((uint16_t)*(const int16_t *)pb - (uint16_t)*(const int16_t *)pa);
    case CPN_DTYPE_INT32:
        return (int32_t)((uint32_t)*(const int32_t *)pb - (uint32_t)*(const int32_t *)pa);
    case CPN_DTYPE_INT64:
        return (double)(int64_t)((uint64_t)*(const int64_t *)pb - (uint64_t)*(const int64_t *)pa);
    case CPN_DTYPE_UINT8: return (uint8_t)(*(const uint8_t *)pb - *(const uint8_t *)pa);
    case CPN_DTYPE_UINT16: return (uint16_t)(*(const uint16_t *)pb - *(const uint16_t *)pa);
    case CPN_DTYPE_UINT32: return (uint32_t)(*(const uint32_t *)pb - *(const uint32_t *)pa);
    case CPN_DTYPE_UINT64: return (double)(uint64_t)(*(const uint64_t *)pb - *(const uint64_t *)pa);
    default: return rnd(dt, load(dt, pb) - load(dt, pa));
    }
}

/* ---- introselect, one instance per element type ------------------------------------------------ */

/* After SELECT_T(v, lo, hi, k): v[k] holds the value sorted order puts there, everything in
 * [lo, k) is <= it and everything in (k, hi) >= it.  NaN-free input. */
#define SELECT(SUF, T)                                                                              \
    static void sift_##SUF(T *v, int64_t root, int64_t n)                                          \
    {                                                                                              \
        for (;;) {                                                                                 \
            int64_t c = 2 * root + 1;                                                              \
            if (c >= n) return;                                                                    \
            if (c + 1 < n && v[c] < v[c + 1]) c++;                                                 \
            if (!(v[root] < v[c])) return;                                                         \
            T t = v[root]; v[root] = v[c]; v[c] = t;                                               \
            root = c;                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void heapsort_##SUF(T *v, int64_t n)                                                    \
    {                                                                                              \
        for (int64_t i = n / 2 - 1; i >= 0; i--) sift_##SUF(v, i, n);                             \
        for (int64_t i = n - 1; i > 0; i--) {                                                      \
            T t = v[0]; v[0] = v[i]; v[i] = t;                                                     \
            sift_##SUF(v, 0, i);                                                                   \
        }                                                                                          \
    }                                                                                              \
    static void select_##SUF(T *v, int64_t lo, int64_t hi, int64_t k)                             \
    {                                                                                              \
        int budget = 2 * (64 - __builtin_clzll((unsigned long long)(hi - lo) | 1));               \
        while (hi - lo > 16) {                                                                     \
            if (budget-- == 0) { heapsort_##SUF(v + lo, hi - lo); return; }                       \
            int64_t mid = lo + (hi - lo) / 2;                                                      \
            T a = v[lo], b = v[mid], c = v[hi - 1], p;                                             \
            p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));             \
            int64_t i = lo, j = hi - 1;                                                            \
            for (;;) { /* Hoare partition around the value p */                                    \
                while (v[i] < p) i++;                                                              \
                while (p < v[j]) j--;                                                              \
                if (i >= j) break;                                                                 \
                T t = v[i]; v[i] = v[j]; v[j] = t;                                                 \
                i++; j--;                                                                          \
            }                                                                                      \
            /* [lo, j] <= p <= [j + 1, hi) */                                                      \
            if (k <= j) hi = j + 1;                                                                \
            else lo = j + 1;                                                                       \
        }                                                                                          \
        for (int64_t i = lo + 1; i < hi; i++) { /* insertion sort of the short rest */             \
            T t = v[i];                                                                            \
            int64_t j = i;                                                                         \
            for (; j > lo && t < v[j - 1]; j--) v[j] = v[j - 1];                                   \
            v[j] = t;                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* After multiselect: v[k] is in sorted position for every k of ks (sorted, distinct, all  \
     * in [lo, hi)).  The middle k splits the range, so the work is about n log(nk), not n nk; \
     * neighbours k + 1 (interpolation) are the minimum of what lies above k. */                 \
    static void multiselect_##SUF(T *v, int64_t lo, int64_t hi, const int64_t *ks, int nk)      \
    {                                                                                              \
        while (nk > 0) {                                                                           \
            int mid = nk / 2;                                                                      \
            select_##SUF(v, lo, hi, ks[mid]);                                                      \
            multiselect_##SUF(v, lo, ks[mid], ks, mid);                                            \
            int r = mid + 1;                                                                       \
            int64_t from = ks[mid] + 1;                                                            \
            for (; r < nk && ks[r] == from; r++, from++) {                                         \
                int64_t b = from;                                                                  \
                for (int64_t i = from + 1; i < hi; i++) if (v[i] < v[b]) b = i;                    \
                T t = v[from]; v[from] = v[b]; v[b] = t;                                           \
            }                                                                                      \
            lo = from;                                                                             \
            ks += r;                                                                               \
            nk -= r;                                                                               \
        }                                                                                          \
    }                                                                                              \
    /* Copy a lane (the reduced dims at `src`, C order) into v; returns the count kept: all of \
     * them, or with skip_nan the non-NaN ones; *nan is set when a NaN was met (the first NaN   \
     * met stored in *nanval); without skip_nan the copy stops there. */                        \
    static int64_t gather_##SUF(T *v, const char *src, int nd, const int64_t *shape,               \
                                const int64_t *strides, int skip_nan, int *nan, double *nanval)   \
    {                                                                                              \
        int64_t idx[CPN_MAXDIM] = {0}, m = 0, outer = 1;                                           \
        const int64_t inner = nd ? shape[nd - 1] : 1, is = nd ? strides[nd - 1] : 0;               \
        for (int d = 0; d + 1 < nd; d++) outer *= shape[d];                                        \
        const char *p = src;                                                                       \
        for (int64_t o = 0; o < outer; o++) {                                                      \
            int seen = 0;                                                                          \
            if (is == (int64_t)sizeof(T)) {                                                        \
                const T *s = (const T *)p;                                                         \
                for (int64_t e = 0; e < inner; e++) {                                              \
                    T x = s[e];                                                                    \
                    v[m] = x;                                                                      \
                    m += x == x;                                                                   \
                    seen |= x != x;                                                                \
                }                                                                                  \
            } else {                                                                               \
                for (int64_t e = 0; e < inner; e++) {                                              \
                    T x = *(const T *)(p + e * is);                                                \
                    v[m] = x;                                                                      \
                    m += x == x;                                                                   \
                    seen |= x != x;                                                                \
                }                                                                                  \
            }                                                                                      \
            if (seen) {                                                                            \
                if (!*nan)                                                                         \
                    for (int64_t e = 0; e < inner; e++) {                                          \
                        T x = *(const T *)(p + e * is);                                            \
                        if (x != x) { *nanval = (double)x; break; }                                \
                    }                                                                              \
                *nan = 1;                                                                          \
                if (!skip_nan) return 0;                                                           \
            }                                                                                      \
            for (int d = nd - 2; d >= 0; d--) {                                                    \
                p += strides[d];                                                                   \
                if (++idx[d] < shape[d]) break;                                                    \
                p -= strides[d] * shape[d];                                                        \
                idx[d] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
        return m;                                                                                  \
    }

SELECT(b, uint8_t)
SELECT(i8, int8_t)
SELECT(i16, int16_t)
SELECT(i32, int32_t)
SELECT(i64, int64_t)
SELECT(u8, uint8_t)
SELECT(u16, uint16_t)
SELECT(u32, uint32_t)
SELECT(u64, uint64_t)
SELECT(f16, _Float16)
SELECT(f32, float)
SELECT(f64, double)

typedef void (*select_fn)(void *, int64_t, int64_t, const int64_t *, int);
typedef int64_t (*gather_fn)(void *, const char *, int, const int64_t *, const int64_t *, int,
                             int *, double *);

static int type_fns(enum cpn_dtype dt, select_fn *s, gather_fn *g)
{
#define CASE(D, SUF)                                                                               \
    case CPN_DTYPE_##D: *s = (select_fn)multiselect_##SUF; *g = (gather_fn)gather_##SUF; return 1;
    switch (dt) {
    CASE(BOOL, b) CASE(INT8, i8) CASE(INT16, i16) CASE(INT32, i32) CASE(INT64, i64)
    CASE(UINT8, u8) CASE(UINT16, u16) CASE(UINT32, u32) CASE(UINT64, u64)
    CASE(FLOAT16, f16) CASE(FLOAT32, f32) CASE(FLOAT64, f64)
    default: return 0;
    }
#undef CASE
}

/* ---- NumPy's index arithmetic ------------------------------------------------------------------ */

/* Where quantile q of n values is read: positions lo <= hi of the sorted lane and the weight t
 * of hi (continuous methods), or one position (discrete: lo == hi, take). */
struct where {
    int64_t lo, hi;
    double t;      /* gamma, rounded to the index dtype */
    int high;      /* t >= 0.5: NumPy's _lerp computes from b downwards */
};

static double py_mod1(double x) { double m = fmod(x, 1.0); return m < 0 ? m + 1.0 : m; }
static double py_mod2(double x) { double m = fmod(x, 2.0); return m < 0 ? m + 2.0 : m; }

static int64_t clamp(double x, int64_t n)
{
    int64_t i = (int64_t)x;
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

static void locate(const struct cpn_quantile_args *qa, int64_t n, double q, struct where *w)
{
    const enum cpn_dtype g = qa->gdt;
    const double N = rnd(g, (double)n), Nm1 = rnd(g, (double)(n - 1));
    double vi;
    w->t = 0;
    w->high = 0;
    switch (qa->method) {
    case CPN_QM_LINEAR:
        vi = rnd(g, Nm1 * q);
        if (qa->take) { w->lo = w->hi = clamp(vi, n); return; }
        break;
    case CPN_QM_LOWER: w->lo = w->hi = clamp(floor(rnd(g, Nm1 * q)), n); return;
    case CPN_QM_HIGHER: w->lo = w->hi = clamp(ceil(rnd(g, Nm1 * q)), n); return;
    case CPN_QM_NEAREST: w->lo = w->hi = clamp(nearbyint(rnd(g, Nm1 * q)), n); return;
    case CPN_QM_INVERTED_CDF:
    case CPN_QM_CLOSEST_OBSERVATION: {
        double idx = rnd(g, rnd(g, N * q) - 1);
        if (qa->method == CPN_QM_CLOSEST_OBSERVATION) idx = rnd(g, idx - 0.5);
        double prev = floor(idx), gamma = rnd(g, idx - prev);
        int cond = gamma == 0;
        if (qa->method == CPN_QM_CLOSEST_OBSERVATION) cond = cond && py_mod2(prev) == 1;
        w->lo = w->hi = clamp(cond ? prev : rnd(g, prev + 1), n);
        return;
    }
    case CPN_QM_AVERAGED_INVERTED_CDF: vi = rnd(g, rnd(g, N * q) - 1); break;
    case CPN_QM_MIDPOINT: {
        double x = rnd(g, Nm1 * q);
        vi = rnd(g, 0.5 * rnd(g, floor(x) + ceil(x)));
        break;
    }
    default: {   /* _compute_virtual_index: n*q + (alpha + q*(1 - alpha - beta)) - 1 */
        static const double ab[][2] = {
            [CPN_QM_INTERPOLATED_INVERTED_CDF] = {0, 1}, [CPN_QM_HAZEN] = {0.5, 0.5},
            [CPN_QM_WEIBULL] = {0, 0}, [CPN_QM_MEDIAN_UNBIASED] = {1 / 3.0, 1 / 3.0},
            [CPN_QM_NORMAL_UNBIASED] = {3 / 8.0, 3 / 8.0}};
        const double alpha = ab[qa->method][0], beta = ab[qa->method][1];
        double s = rnd(g, rnd(g, alpha) + rnd(g, q * rnd(g, 1 - alpha - beta)));
        vi = rnd(g, rnd(g, rnd(g, N * q) + s) - 1);
        break;
    }
    }
    /* _get_indexes: floor/ceil neighbours, clipped to the ends (index -1 is the last) */
    double prev = floor(vi);
    int64_t p, nx;
    if (vi >= Nm1) p = nx = -1;
    else if (vi < 0) p = nx = 0;
    else { p = (int64_t)prev; nx = (int64_t)rnd(g, prev + 1); }
    double gamma = vi - (double)p;   /* index dtype minus intp: float64 */
    if (qa->method == CPN_QM_AVERAGED_INVERTED_CDF) gamma = gamma == 0 ? 0.5 : 1.0;
    else if (qa->method == CPN_QM_MIDPOINT) gamma = py_mod1(vi) == 0 ? 0.0 : 0.5;
    w->t = rnd(g, gamma);
    w->high = w->t >= 0.5;
    w->lo = p < 0 ? n + p : p;
    w->hi = nx < 0 ? n + nx : nx;
}

/* _lerp(a, b, t) computed in cdt, the high branch in the output dtype odt. */
static double lerp(const struct cpn_quantile_args *qa, enum cpn_dtype dt, const char *pa,
                   const char *pb, const struct where *w)
{
    const enum cpn_dtype c = qa->cdt, o = qa->odt;
    double d = rnd(c, diff(dt, pa, pb));
    double tc = rnd(c, w->t);
    if (!w->high) return rnd(o, rnd(c, rnd(c, load(dt, pa)) + rnd(c, d * tc)));
    double omt = rnd(c, qa->weak ? 1.0 - w->t : rnd(qa->gdt, 1.0 - w->t));
    return rnd(o, rnd(o, load(dt, pb)) - rnd(o, rnd(c, d * omt)));
}

/* _median's mean of the middle element(s): ints and bools in float64, float16 summed in float32
 * (NumPy's mean), or in the input dtype when ma_mean (np.ma.median, nanmedian's small path). */
static double median_of(const struct cpn_quantile_args *qa, enum cpn_dtype dt, const char *pa,
                        const char *pb, int two)
{
    const enum cpn_dtype o = qa->odt;
    double a = load(dt, pa), b = load(dt, pb);
    if (dt < CPN_DTYPE_FLOAT16) return two ? rnd(o, (a + b) / 2) : rnd(o, a);
    if (qa->ma_mean) {
        if (!two) b = a;
        return rnd(o, rnd(dt, rnd(dt, a + b) / 2));
    }
    if (!two) return rnd(o, a);
    enum cpn_dtype acc = dt == CPN_DTYPE_FLOAT16 ? CPN_DTYPE_FLOAT32 : dt;
    return rnd(o, rnd(dt, rnd(acc, rnd(acc, a + b) / 2)));
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- the positions a lane's results read, and the results from them -------------------------- */

int cpn_kernel_quantile_positions(const struct cpn_quantile_args *qa, int64_t m, int64_t *ks)
{
    int nkth = 0;
    if (qa->method == CPN_QM_MEDIAN) {
        ks[nkth++] = m / 2;
        if (m % 2 == 0) ks[nkth++] = m / 2 - 1;
    } else {
        for (int64_t i = 0; i < qa->nq; i++) {
            struct where w;
            locate(qa, m, qa->q[i], &w);
            ks[nkth++] = w.lo;
            ks[nkth++] = w.hi;
        }
    }
    qsort(ks, (size_t)nkth, sizeof *ks, cmp_i64);
    int nu = 0;
    for (int i = 0; i < nkth; i++)
        if (i == 0 || ks[i] != ks[nu - 1]) ks[nu++] = ks[i];
    return nu;
}

/* The element of rank k: at(k) in a selected lane, or the k-th of `val` by ks (positions). */
struct picked {
    const char *lane;          /* a selected lane, or NULL: val[i] is rank ks[i] */
    const int64_t *ks;
    int nk;
    const char *val;
    size_t isz;
};

static const char *at(const struct picked *p, int64_t k)
{
    if (p->lane) return p->lane + (size_t)k * p->isz;
    int lo = 0, hi = p->nk - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (p->ks[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return p->val + (size_t)lo * p->isz;
}

/* The results of one lane of m values (out[i * stride], i < nq) from its order statistics. */
static void finish(const struct cpn_quantile_args *qa, enum cpn_dtype dt, int64_t m, const struct picked *p,
                   char *out, int64_t ostride)
{
    const size_t isz = cpn_dtype_size(dt);
    if (qa->method == CPN_QM_MEDIAN) {
        const char *pb = at(p, m / 2), *pa = m % 2 ? pb : at(p, m / 2 - 1);
        store(qa->odt, out, median_of(qa, dt, pa, pb, m % 2 == 0));
        return;
    }
    for (int64_t i = 0; i < qa->nq; i++) {
        struct where w;
        locate(qa, m, qa->q[i], &w);
        char *o = out + i * ostride;
        const char *pa = at(p, w.lo), *pb = at(p, w.hi);
        if (qa->take) memcpy(o, pa, isz);
        else store(qa->odt, o, lerp(qa, dt, pa, pb, &w));
    }
}

void cpn_kernel_quantile_finish(const struct cpn_quantile_args *qa, enum cpn_dtype dt, int64_t m,
                                const int64_t *ks, int nk, const char *val, char *out)
{
    const struct picked p = {NULL, ks, nk, val, cpn_dtype_size(dt)};
    finish(qa, dt, m, &p, out, (int64_t)cpn_dtype_size(qa->odt));
}

/* ---- the kernel -------------------------------------------------------------------------------- */

enum cpn_status cpn_kernel_quantile(const struct cpn_quantile_args *qa, enum cpn_dtype dt,
                                    const char *in, int ndim, const int64_t *shape,
                                    const int64_t *strides, uint64_t axes, char *out)
{
    select_fn sel;
    gather_fn gat;
    if (!type_fns(dt, &sel, &gat))
        return cpn_error(CPN_ERR_TYPE, "no quantile for dtype %s", cpn_dtype_name(dt));
    const size_t isz = cpn_dtype_size(dt), osz = cpn_dtype_size(qa->odt);
    const int is_float = dt >= CPN_DTYPE_FLOAT16;
    int64_t kshape[CPN_MAXDIM], kst[CPN_MAXDIM], rshape[CPN_MAXDIM], rst[CPN_MAXDIM];
    int nk = 0, nr = 0;
    int64_t nlanes = 1, n = 1;
    for (int d = 0; d < ndim; d++) {
        if (axes >> d & 1) { rshape[nr] = shape[d]; rst[nr++] = strides[d]; n *= shape[d]; }
        else { kshape[nk] = shape[d]; kst[nk++] = strides[d]; nlanes *= shape[d]; }
    }
    if (nlanes == 0 || qa->nq == 0) return CPN_OK;
    if (n == 0) return cpn_error(CPN_ERR_VALUE, "quantile of an empty lane");
    const int64_t nq = qa->method == CPN_QM_MEDIAN ? 1 : qa->nq;
    int nth = cpn_kernel_threads();
    if (nth > nlanes) nth = (int)nlanes;
    if (nth < 1 || nlanes * n < 16384) nth = 1;   /* a small array: waking a team cost 30 us of
                                                    * median(A, axis=1) of 32 x 31 */
    /* per thread: the lane, then 2 * nq + 2 positions to select */
    const size_t lane_bytes = ((size_t)n * isz + 63) / 64 * 64;
    const size_t per = lane_bytes + (size_t)(2 * nq + 2) * sizeof(int64_t);
    char *scratch = cpn_alloc(per * (size_t)nth);
    if (!scratch) return CPN_ERR_NOMEM;

#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (nth > 1)
    for (int64_t l = 0; l < nlanes; l++) {
        char *v = scratch + per * (size_t)omp_get_thread_num();
        int64_t *ks = (int64_t *)(v + lane_bytes);
        const char *src = in;
        for (int64_t r = l, d = nk - 1; d >= 0; d--) {
            src += (r % kshape[d]) * kst[d];
            r /= kshape[d];
        }
        int nan = 0;
        double nanval = NAN;
        int64_t m = gat(v, src, nr, rshape, rst, qa->skip_nan, &nan, &nanval);
        if (nan && !qa->skip_nan) m = 0;   /* a NaN in the lane: every result is NaN */
        if (m == 0) {
            for (int64_t i = 0; i < nq; i++) {
                store(qa->odt, out + (size_t)(i * nlanes + l) * osz, is_float ? nanval : NAN);
            }
            continue;
        }
        /* the positions every result reads, selected in increasing order on shrinking ranges */
        int nu = cpn_kernel_quantile_positions(qa, m, ks);
        sel(v, 0, m, ks, nu);
        const struct picked p = {v, NULL, 0, NULL, isz};
        finish(qa, dt, m, &p, out + (size_t)l * osz, (int64_t)((size_t)nlanes * osz));
    }
    cpn_free(scratch);
    return CPN_OK;
}
