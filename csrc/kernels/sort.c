/* sort.c: numpy.sort and numpy.argsort along one axis, and the pieces the distributed sample
 * sort (runtime/samplesort.c) is made of.
 *
 * Every real dtype is sorted as unsigned 64-bit keys whose order is NumPy's: integers with the
 * sign bit flipped, floats through double with the IEEE bits made monotonic (negative values
 * complemented), NaN after +inf.  A value sort keeps the bits: NaNs are moved (stably) to the end
 * of the lane before the others are keyed, so NaN payloads and the sign of zero survive, and the
 * keys decode to the very values.  An argsort sorts (key, index) pairs as one 128-bit number
 * (key high, index low) with the canonical key (every NaN the largest key, -0.0 and +0.0 one
 * key), so every kind is stable: ties keep index order, as NumPy's stable kind does (a stable
 * order is one of the orders NumPy's quicksort may give, so the other kinds agree too).
 * Complex lanes are sorted by a stable merge sort of records in NumPy's order
 * (R + Rj < R + nanj < nan + Rj < nan + nanj, lexicographic within each class).
 *
 * The keys are sorted by Highway's vqsort (libhwy-contrib, through sort_hwy.cc) when the build
 * found it, else by a plain C LSD radix sort (stable, 8 bits per pass, passes whose byte is the
 * same in every key skipped); cpn_kernel_sort_name() says which.  A long lane is cut into one
 * chunk per thread, the chunks are sorted in parallel and merged pairwise, each merge split
 * across the threads by co-ranking; many short lanes are sorted one lane per thread.  A long
 * contiguous int64/float64 value sort on two threads is split by a sampled splitter instead
 * (sort_split2), the values sorted as themselves there.  The result
 * does not depend on the thread count (the order of equal keys is fixed by the key or the
 * index). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "alloc.h"
#include "cpn_config.h"
#include "kernels.h"
#include "status.h"

#if CPN_HAVE_VQSORT
void cpn_vqsort_u64(uint64_t *keys, size_t n);
void cpn_vqsort_i64(int64_t *keys, size_t n);
void cpn_vqsort_f64(double *keys, size_t n);
void cpn_vqsort_u128(struct cpn_sort_pair *pairs, size_t n);
#endif

#define SIGN64 ((uint64_t)1 << 63)

/* ---- keys ------------------------------------------------------------------------------------ */

static inline uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The monotonic bits of a non-NaN double (-0.0 below +0.0). */
static inline uint64_t fkey(double d)
{
    uint64_t b = dbits(d);
    return b ^ ((uint64_t)((int64_t)b >> 63) | SIGN64);   /* branch-free: vectorizes */
}

static inline double funkey(uint64_t k) { return bitsd(k ^ ((uint64_t)((int64_t)~k >> 63) | SIGN64)); }

/* The value of element p of dtype dt as a double (floats only). */
static inline double fval(enum cpn_dtype dt, const char *p)
{
    switch (dt) {
    case CPN_DTYPE_FLOAT16: return (double)*(const _Float16 *)p;
    case CPN_DTYPE_FLOAT32: return (double)*(const float *)p;
    default: return *(const double *)p;
    }
}

/* The raw key: order-preserving, exact (decodes to the same bits), -0.0 below +0.0; not for
 * NaN. */
static inline uint64_t raw_key(enum cpn_dtype dt, const char *p)
{
    switch (dt) {
    case CPN_DTYPE_BOOL: return *(const uint8_t *)p != 0;
    case CPN_DTYPE_INT8: return (uint64_t)(int64_t)*(const int8_t *)p ^ SIGN64;
    case CPN_DTYPE_UINT8: return *(const uint8_t *)p;
    case CPN_DTYPE_INT16: return (uint64_t)(int64_t)*(const int16_t *)p ^ SIGN64;
    case CPN_DTYPE_UINT16: return *(const uint16_t *)p;
    case CPN_DTYPE_INT32: return (uint64_t)(int64_t)*(const int32_t *)p ^ SIGN64;
    case CPN_DTYPE_UINT32: return *(const uint32_t *)p;
    case CPN_DTYPE_INT64: return (uint64_t)*(const int64_t *)p ^ SIGN64;
    case CPN_DTYPE_UINT64: return *(const uint64_t *)p;
    default: return fkey(fval(dt, p));
    }
}

static inline void raw_unkey(enum cpn_dtype dt, uint64_t k, char *p)
{
    switch (dt) {
    case CPN_DTYPE_BOOL: *(uint8_t *)p = (uint8_t)k; break;
    case CPN_DTYPE_INT8: *(int8_t *)p = (int8_t)(int64_t)(k ^ SIGN64); break;
    case CPN_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)k; break;
    case CPN_DTYPE_INT16: *(int16_t *)p = (int16_t)(int64_t)(k ^ SIGN64); break;
    case CPN_DTYPE_UINT16: *(uint16_t *)p = (uint16_t)k; break;
    case CPN_DTYPE_INT32: *(int32_t *)p = (int32_t)(int64_t)(k ^ SIGN64); break;
    case CPN_DTYPE_UINT32: *(uint32_t *)p = (uint32_t)k; break;
    case CPN_DTYPE_INT64: *(int64_t *)p = (int64_t)(k ^ SIGN64); break;
    case CPN_DTYPE_UINT64: *(uint64_t *)p = k; break;
    case CPN_DTYPE_FLOAT16: *(_Float16 *)p = (_Float16)funkey(k); break;
    case CPN_DTYPE_FLOAT32: *(float *)p = (float)funkey(k); break;
    default: *(double *)p = funkey(k); break;
    }
}

static inline bool is_float(enum cpn_dtype dt)
{
    return dt == CPN_DTYPE_FLOAT16 || dt == CPN_DTYPE_FLOAT32 || dt == CPN_DTYPE_FLOAT64;
}

uint64_t cpn_kernel_sort_key(enum cpn_dtype dt, const void *p)
{
    if (is_float(dt)) {
        double d = fval(dt, p);
        if (d != d) return UINT64_MAX;
        return fkey(d == 0 ? 0.0 : d);
    }
    return raw_key(dt, p);
}

/* ---- sorting keys and pairs ------------------------------------------------------------------- */

static inline bool pair_less(struct cpn_sort_pair a, struct cpn_sort_pair b)
{
    return a.key < b.key || (a.key == b.key && a.idx < b.idx);
}
static inline bool u64_less(uint64_t a, uint64_t b) { return a < b; }
static inline uint64_t pair_k(struct cpn_sort_pair p) { return p.key; }
static inline uint64_t u64_k(uint64_t k) { return k; }

/* LSD radix sort of n records by their 64-bit key (stable), tmp of n records. */
#define RADIX_DEF(NAME, T, KEY)                                                             \
    static __attribute__((unused)) void NAME(T *a, T *tmp, int64_t n)                      \
    {                                                                                       \
        if (n < 2) return;                                                                  \
        uint64_t same = ~(uint64_t)0, first = KEY(a[0]);                                    \
        for (int64_t i = 1; i < n; i++) same &= ~(KEY(a[i]) ^ first);                       \
        T *src = a, *dst = tmp;                                                             \
        for (int pass = 0; pass < 8; pass++) {                                              \
            const int sh = 8 * pass;                                                        \
            if (((same >> sh) & 0xff) == 0xff) continue;                                    \
            int64_t cnt[256] = {0};                                                         \
            for (int64_t i = 0; i < n; i++) cnt[(KEY(src[i]) >> sh) & 0xff]++;              \
            int64_t s = 0;                                                                  \
            for (int b = 0; b < 256; b++) {                                                 \
                int64_t c = cnt[b];                                                         \
                cnt[b] = s;                                                                 \
                s += c;                                                                     \
            }                                                                               \
            for (int64_t i = 0; i < n; i++) dst[cnt[(KEY(src[i]) >> sh) & 0xff]++] = src[i]; \
            T *t = src;                                                                     \
            src = dst;                                                                      \
            dst = t;                                                                        \
        }                                                                                   \
        if (src != a) memcpy(a, src, (size_t)n * sizeof(T));                                \
    }
RADIX_DEF(radix_u64, uint64_t, u64_k)
RADIX_DEF(radix_pairs, struct cpn_sort_pair, pair_k)

/* Output records [k0, k1) of the stable merge of a[0..na) and b[0..nb) into dst[k0..k1). */
#define MERGE_DEF(NAME, T, LESS)                                                            \
    static int64_t NAME##_corank(const T *a, int64_t na, const T *b, int64_t nb, int64_t k) \
    {                                                                                       \
        int64_t lo = k > nb ? k - nb : 0, hi = k < na ? k : na;                             \
        while (lo < hi) {                                                                   \
            int64_t i = lo + (hi - lo) / 2, j = k - i;                                      \
            if (j > 0 && !LESS(b[j - 1], a[i])) lo = i + 1;                                 \
            else hi = i;                                                                    \
        }                                                                                   \
        return lo;                                                                          \
    }                                                                                       \
    static void NAME(const T *a, int64_t na, const T *b, int64_t nb, T *dst, int64_t k0,    \
                     int64_t k1)                                                            \
    {                                                                                       \
        int64_t i = NAME##_corank(a, na, b, nb, k0), j = k0 - i;                            \
        const int64_t ie = NAME##_corank(a, na, b, nb, k1), je = k1 - ie;                   \
        int64_t k = k0;                                                                     \
        while (i < ie && j < je) dst[k++] = LESS(b[j], a[i]) ? b[j++] : a[i++];             \
        while (i < ie) dst[k++] = a[i++];                                                   \
        while (j < je) dst[k++] = b[j++];                                                   \
    }
MERGE_DEF(merge_u64, uint64_t, u64_less)
MERGE_DEF(merge_pairs, struct cpn_sort_pair, pair_less)

#if CPN_HAVE_VQSORT
/* Short lanes by insertion: Highway 1.0's vqsort asks getrandom() for its pivot seed on every
 * call, a system call per lane (sort(A, axis=1) of 32 x 31: 13 us against NumPy's 2).  The keys
 * (and the (key, index) pairs) are totally ordered, so any correct sort gives the same output. */
#define INSERTION_MAX 64
#define INSERTION_DEF(NAME, T, LESS)                                                        \
    static void NAME(T *a, int64_t n)                                                       \
    {                                                                                       \
        for (int64_t i = 1; i < n; i++) {                                                   \
            T v = a[i];                                                                     \
            int64_t j = i;                                                                  \
            for (; j > 0 && LESS(v, a[j - 1]); j--) a[j] = a[j - 1];                        \
            a[j] = v;                                                                       \
        }                                                                                   \
    }
INSERTION_DEF(insertion_u64, uint64_t, u64_less)
INSERTION_DEF(insertion_pairs, struct cpn_sort_pair, pair_less)
static void base_u64(uint64_t *a, uint64_t *tmp, int64_t n)
{
    (void)tmp;
    if (n <= INSERTION_MAX) insertion_u64(a, n);
    else cpn_vqsort_u64(a, (size_t)n);
}
static void base_pairs(struct cpn_sort_pair *a, struct cpn_sort_pair *tmp, int64_t n)
{
    (void)tmp;
    if (n <= INSERTION_MAX) insertion_pairs(a, n);
    else cpn_vqsort_u128(a, (size_t)n);
}
#else
#define base_u64 radix_u64
#define base_pairs radix_pairs
#endif

#define PAR_MIN 65536   /* below this a lane is sorted by one thread */

/* Sort a[0..n) with tmp[0..n) of scratch on up to nth threads: chunks sorted in parallel, then
 * rounds of pairwise merges (ping-ponging between a and tmp), each merge cut into pieces. */
#define PARSORT_DEF(NAME, T, BASE, MERGE)                                                   \
    static void NAME(T *a, T *tmp, int64_t n, int nth)                                      \
    {                                                                                       \
        if (nth < 2 || n < PAR_MIN) {                                                       \
            BASE(a, tmp, n);                                                                \
            return;                                                                         \
        }                                                                                   \
        int nc = nth;                                                                       \
        int64_t bound[65];                                                                  \
        if (nc > 64) nc = 64;                                                               \
        for (int c = 0; c <= nc; c++) bound[c] = n * c / nc;                                \
        _Pragma("omp parallel for num_threads(nth) schedule(static, 1)")                    \
        for (int c = 0; c < nc; c++)                                                        \
            BASE(a + bound[c], tmp + bound[c], bound[c + 1] - bound[c]);                    \
        T *src = a, *dst = tmp;                                                             \
        for (int w = 1; w < nc; w *= 2) {                                                   \
            const int pieces = nth * 2;                                                     \
            int npairs = (nc + 2 * w - 1) / (2 * w);                                        \
            _Pragma("omp parallel for num_threads(nth) schedule(dynamic, 1)")               \
            for (int t = 0; t < npairs * pieces; t++) {                                     \
                int p = t / pieces, q = t % pieces;                                         \
                int c0 = 2 * w * p, c1 = c0 + w < nc ? c0 + w : nc,                         \
                    c2 = c0 + 2 * w < nc ? c0 + 2 * w : nc;                                 \
                int64_t lo = bound[c0], mid = bound[c1], hi = bound[c2], len = hi - lo;     \
                int64_t k0 = len * q / pieces, k1 = len * (q + 1) / pieces;                 \
                MERGE(src + lo, mid - lo, src + mid, hi - mid, dst + lo, k0, k1);           \
            }                                                                               \
            T *s = src;                                                                     \
            src = dst;                                                                      \
            dst = s;                                                                        \
        }                                                                                   \
        if (src != a) memcpy(a, src, (size_t)n * sizeof(T));                                \
    }
PARSORT_DEF(parsort_u64, uint64_t, base_u64, merge_u64)
PARSORT_DEF(parsort_pairs, struct cpn_sort_pair, base_pairs, merge_pairs)

enum cpn_status cpn_kernel_sort_pairs(struct cpn_sort_pair *p, int64_t n)
{
    struct cpn_sort_pair *tmp = cpn_alloc((size_t)(n ? n : 1) * sizeof *tmp);
    if (!tmp) return CPN_ERR_NOMEM;
    parsort_pairs(p, tmp, n, cpn_kernel_threads());
    cpn_free(tmp);
    return CPN_OK;
}

const char *cpn_kernel_sort_name(void)
{
#if CPN_HAVE_VQSORT
    return "vqsort (highway " CPN_HWY_VERSION ")";
#else
    return "radix (plain C; libhwy-contrib not found)";
#endif
}

/* ---- complex --------------------------------------------------------------------------------- */

struct crec {
    uint64_t cls, re, im;   /* NumPy's class (2*isnan(re) + isnan(im)), then the parts' keys */
    int64_t idx;
};

static inline bool crec_less(struct crec a, struct crec b)
{
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.re != b.re) return a.re < b.re;
    if (a.im != b.im) return a.im < b.im;
    return a.idx < b.idx;
}

static inline uint64_t ckey(double d) { return d != d ? 0 : fkey(d == 0 ? 0.0 : d); }

static void msort_crec(struct crec *a, struct crec *tmp, int64_t n)
{
    if (n < 2) return;
    if (n <= 16) {   /* insertion sort: stable */
        for (int64_t i = 1; i < n; i++) {
            struct crec x = a[i];
            int64_t j = i;
            while (j > 0 && crec_less(x, a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    int64_t h = n / 2;
    msort_crec(a, tmp, h);
    msort_crec(a + h, tmp + h, n - h);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = crec_less(a[j], a[i]) ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

/* ---- two threads, one long lane: split, then sort each side ------------------------------------- *
 *
 * A contiguous int64 or float64 lane sorted by value on two threads: one splitter (the median of
 * 1023 evenly spaced elements), then every step on both threads, with no merge pass:
 *   1. each thread splits its half of the input by the splitter (branch-free: each element is
 *      written to both free ends of its region and the end its side names advances); thread 0's
 *      region is the output itself (lows up from the start, highs down from the end), thread 1's
 *      a scratch lane, so the two never write the same slot;
 *   2. thread 1's lows and highs are copied into the output's middle gap (and, when there were
 *      NaNs, thread 0's highs moved down to make room for them at the end);
 *   3. each thread sorts one side in place, then decodes it.
 * The values are sorted as themselves, with no key passes: vqsort's int64 order is NumPy's, and
 * its float64 order is NumPy's once the NaNs are out (kept bit for bit, in input order, at the
 * end); -0.0 and +0.0 compare equal there, so their order within a run of zeros is vqsort's, as
 * NumPy's own sort leaves it to its kernel.  The result is
 * the sort's whatever the splitter (the sides are disjoint ranges); the splitter only balances
 * the threads.  False where it does not apply (the output overlaps the input, too few non-NaN
 * samples): the general path sorts. */

#define SPLIT_SAMPLE 1023

#if CPN_HAVE_VQSORT
struct split_half {
    int64_t nlo, nhi, nnan;
};

/* x[0..n) into dst[0..cap) (cap >= n): the values below the splitter (key sp) up from dst[0],
 * the others down from dst[cap - 1]; float64 NaNs (their bits) to nans in order.
 * dst[nlo .. cap - nhi) is left as scratch. */
static struct split_half split_half(bool f, const char *in, int64_t n, uint64_t sp, uint64_t *dst,
                                    int64_t cap, double *nans)
{
    int64_t lo = 0, hi = cap - 1, nan = 0;
    if (!f) {
        const int64_t *x = (const int64_t *)in, s = (int64_t)(sp ^ SIGN64);
        for (int64_t i = 0; i < n; i++) {
            const int64_t v = x[i], c = v < s;
            dst[lo] = (uint64_t)v;
            dst[hi] = (uint64_t)v;
            lo += c;
            hi -= 1 - c;
        }
    } else {
        const double *x = (const double *)in, s = funkey(sp);
        double *o = (double *)dst;
        for (int64_t i = 0; i < n; i++) {
            const double d = x[i];
            if (d != d) {
                nans[nan++] = d;
                continue;
            }
            const int64_t c = d < s;
            o[lo] = d;
            o[hi] = d;
            lo += c;
            hi -= 1 - c;
        }
    }
    return (struct split_half){lo, n - nan - lo, nan};
}

static bool sort_split2(enum cpn_dtype dt, const char *in, int64_t n, char *out, uint64_t *scratch,
                        double *nanbuf)
{
    if (out < in + n * 8 && in < out + n * 8) return false;
    const double *xd = (const double *)in;
    const uint64_t *xu = (const uint64_t *)in;
    const bool f = dt == CPN_DTYPE_FLOAT64;
    uint64_t samp[SPLIT_SAMPLE];
    int ns = 0;
    for (int i = 0; i < SPLIT_SAMPLE; i++) {
        const int64_t j = (n - 1) * i / (SPLIT_SAMPLE - 1);
        if (f && xd[j] != xd[j]) continue;
        samp[ns++] = f ? fkey(xd[j]) : xu[j] ^ SIGN64;
    }
    if (ns < 16) return false;
    cpn_vqsort_u64(samp, (size_t)ns);
    const uint64_t sp = samp[ns / 2];
    uint64_t *k = (uint64_t *)out;
    const int64_t h0 = n / 2, h1 = n - h0;
    struct split_half part[2];
#pragma omp parallel num_threads(2)
    {
        int tid = 0, nt = 1;
#ifdef _OPENMP
        tid = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        for (int t = tid; t < 2; t += nt)
            part[t] = t == 0 ? split_half(f, in, h0, sp, k, n, nanbuf)
                             : split_half(f, in + h0 * 8, h1, sp, scratch, h1, nanbuf + h0);
#pragma omp barrier
        /* lows [0, L), highs [L, m), NaNs [m, n): thread 1's lows, then its highs, fill the gap
         * [nlo0, n - nhi0) of thread 0's split, less the NaNs' room at the end */
        const int64_t lo0 = part[0].nlo, hi0 = part[0].nhi, lo1 = part[1].nlo, hi1 = part[1].nhi;
        const int64_t nan = part[0].nnan + part[1].nnan;
        const int64_t L = lo0 + lo1, m = n - nan;
        for (int t = tid; t < 2; t += nt) {
            if (t == 0) {
                memcpy(k + lo0, scratch, (size_t)lo1 * 8);
            } else {
                if (nan) memmove(k + m - hi0, k + n - hi0, (size_t)hi0 * 8);
                memcpy(k + L, scratch + h1 - hi1, (size_t)hi1 * 8);
            }
        }
#pragma omp barrier
        for (int t = tid; t < 2; t += nt) {
            const int64_t b = t == 0 ? 0 : L, e = t == 0 ? L : m;
            if (!f) cpn_vqsort_i64((int64_t *)k + b, (size_t)(e - b));
            else cpn_vqsort_f64((double *)k + b, (size_t)(e - b));
            if (t == 1 && nan) {   /* the NaNs' bits, in input order */
                memcpy(k + m, nanbuf, (size_t)part[0].nnan * 8);
                memcpy(k + m + part[0].nnan, nanbuf + h0, (size_t)part[1].nnan * 8);
            }
        }
    }
    return true;
}
#endif

/* ---- one lane ---------------------------------------------------------------------------------- */

struct lane_buf {
    void *a, *b;     /* records and scratch, room for len records of the widest kind */
};

static void sort_lane(enum cpn_dtype dt, bool arg, const char *in, int64_t is, int64_t n, char *out,
                      int64_t os, int64_t base, struct lane_buf *lb, int nth)
{
    const size_t item = cpn_dtype_size(dt);
    if (dt == CPN_DTYPE_COMPLEX64 || dt == CPN_DTYPE_COMPLEX128) {
        struct crec *r = lb->a, *t = lb->b;
        for (int64_t i = 0; i < n; i++) {
            const char *p = in + i * is;
            double re = dt == CPN_DTYPE_COMPLEX64 ? ((const float *)p)[0] : ((const double *)p)[0];
            double im = dt == CPN_DTYPE_COMPLEX64 ? ((const float *)p)[1] : ((const double *)p)[1];
            r[i] = (struct crec){(uint64_t)(2 * (re != re) + (im != im)), ckey(re), ckey(im), i};
        }
        msort_crec(r, t, n);
        if (arg) {
            for (int64_t i = 0; i < n; i++) *(int64_t *)(out + i * os) = r[i].idx + base;
        } else {
            /* the records keep the index: copy the elements themselves (bits kept); the input
             * is read whole before the output is written, so out may be in */
            char *vals = (char *)t;
            for (int64_t i = 0; i < n; i++) memcpy(vals + (size_t)i * item, in + r[i].idx * is, item);
            for (int64_t i = 0; i < n; i++) memcpy(out + i * os, vals + (size_t)i * item, item);
        }
        return;
    }
    if (arg) {
        struct cpn_sort_pair *p = lb->a;
        for (int64_t i = 0; i < n; i++) p[i] = (struct cpn_sort_pair){(uint64_t)i, cpn_kernel_sort_key(dt, in + i * is)};
        parsort_pairs(p, lb->b, n, nth);
        for (int64_t i = 0; i < n; i++) *(int64_t *)(out + i * os) = (int64_t)p[i].idx + base;
        return;
    }
#if CPN_HAVE_VQSORT
    if (nth == 2 && n >= PAR_MIN && is == 8 && os == 8 &&
        (dt == CPN_DTYPE_INT64 || dt == CPN_DTYPE_FLOAT64) && sort_split2(dt, in, n, out, lb->a, lb->b))
        return;
#endif
    /* the keys are sorted in the output itself when it is a contiguous 8-byte lane */
    uint64_t *k = item == 8 && os == 8 ? (uint64_t *)out : lb->a;
    int64_t m = 0, nan = 0;
    if (dt == CPN_DTYPE_FLOAT64 && is == 8) {
        const double *x = (const double *)in;
        double *nans = lb->b;
        for (int64_t i = 0; i < n; i++) {
            if (x[i] != x[i]) {
                nans[nan++] = x[i];
            } else {
                k[m++] = fkey(x[i]);
            }
        }
        for (int64_t i = 0; i < nan; i++) memcpy(out + (m + i) * os, &nans[i], 8);
    } else if (dt == CPN_DTYPE_INT64 && is == 8) {
        const uint64_t *x = (const uint64_t *)in;
        for (int64_t i = 0; i < n; i++) k[i] = x[i] ^ SIGN64;
        m = n;
    } else if (is_float(dt)) {
        /* NaNs (kept bit for bit, in order) to the end of b; the others keyed */
        char *nans = lb->b;
        for (int64_t i = 0; i < n; i++) {
            const char *p = in + i * is;
            double d = fval(dt, p);
            if (d != d) memcpy(nans + (size_t)(nan++) * item, p, item);
            else k[m++] = fkey(d);
        }
        for (int64_t i = 0; i < nan; i++) memcpy(out + (m + i) * os, nans + (size_t)i * item, item);
    } else {
        for (int64_t i = 0; i < n; i++) k[i] = raw_key(dt, in + i * is);
        m = n;
    }
    parsort_u64(k, lb->b, m, nth);
    if (dt == CPN_DTYPE_FLOAT64 && os == 8) {
        double *o = (double *)out;
        for (int64_t i = 0; i < m; i++) o[i] = funkey(k[i]);
    } else if (dt == CPN_DTYPE_INT64 && os == 8) {
        int64_t *o = (int64_t *)out;
        for (int64_t i = 0; i < m; i++) o[i] = (int64_t)(k[i] ^ SIGN64);
    } else {
        for (int64_t i = 0; i < m; i++) raw_unkey(dt, k[i], out + i * os);
    }
}

static size_t record_size(enum cpn_dtype dt, bool arg)
{
    if (dt == CPN_DTYPE_COMPLEX64 || dt == CPN_DTYPE_COMPLEX128) return sizeof(struct crec);
    return arg ? sizeof(struct cpn_sort_pair) : sizeof(uint64_t);
}

/* One lane of a lexsort step: the stable argsort of the key read through perm (key[perm[j]])
 * composed with perm, out[j] = perm[p2[j]].  g: room for n int64 and n elements of dt. */
static void through_lane(enum cpn_dtype dt, const char *key, int64_t ks, const char *perm, int64_t ps,
                         int64_t n, char *out, int64_t os, char *g, struct lane_buf *lb, int nth)
{
    const size_t item = cpn_dtype_size(dt);
    int64_t *p2 = (int64_t *)g;
    char *kb = g + (size_t)n * sizeof(int64_t);
    for (int64_t j = 0; j < n; j++)
        memcpy(kb + (size_t)j * item, key + *(const int64_t *)(perm + j * ps) * ks, item);
    sort_lane(dt, true, kb, (int64_t)item, n, (char *)p2, (int64_t)sizeof(int64_t), 0, lb, nth);
    for (int64_t j = 0; j < n; j++) *(int64_t *)(out + j * os) = *(const int64_t *)(perm + p2[j] * ps);
}

/* What sort_lanes hands each lane. */
struct lanes {
    enum cpn_dtype dt;
    bool arg;
    const char *in;
    int64_t is;
    const char *perm;
    int64_t ps;
    char *out;
    int64_t os, base, n;
    int no;                               /* the other dimensions: extents, strides */
    const int64_t *oshape, *oist, *opst, *oost;
};

/* Lane l of L with scratch `mem` (sort_lanes' `team` bytes) on nth threads. */
static void one_lane(const struct lanes *L, int64_t l, char *mem, int nth)
{
    const size_t rec = record_size(L->dt, L->arg);
    struct lane_buf lb = {mem, mem + rec * (size_t)L->n};
    int64_t q = l, io = 0, po = 0, oo = 0;
    for (int d = L->no - 1; d >= 0; d--) {
        int64_t i = q % L->oshape[d];
        q /= L->oshape[d];
        io += i * L->oist[d];
        po += i * L->opst[d];
        oo += i * L->oost[d];
    }
    if (L->perm)
        through_lane(L->dt, L->in + io, L->is, L->perm + po, L->ps, L->n, L->out + oo, L->os,
                     mem + 2 * rec * (size_t)L->n, &lb, nth);
    else
        sort_lane(L->dt, L->arg, L->in + io, L->is, L->n, L->out + oo, L->os, L->base, &lb, nth);
}

/* The lanes of cpn_kernel_sort, or with perm of cpn_kernel_sort_through. */
static enum cpn_status sort_lanes(enum cpn_dtype dt, bool arg, const char *in, int ndim, const int64_t *shape,
                                  const int64_t *ist, const char *perm, const int64_t *pst, int axis, char *out,
                                  const int64_t *ost, int64_t index_base)
{
    int64_t nlanes = 1, oshape[CPN_MAXDIM], oist[CPN_MAXDIM], opst[CPN_MAXDIM], oost[CPN_MAXDIM];
    int no = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0) return CPN_OK;
        if (d == axis) continue;
        oshape[no] = shape[d];
        oist[no] = ist[d];
        opst[no] = perm ? pst[d] : 0;
        oost[no] = ost[d];
        no++;
        nlanes *= shape[d];
    }
    const int64_t n = ndim ? shape[axis] : 1, is = ndim ? ist[axis] : 0, os = ndim ? ost[axis] : 0;
    const int64_t ps = perm && ndim ? pst[axis] : 0;
    const size_t rec = record_size(dt, arg);
    /* a lexsort step's gathered key and the argsort of it */
    const size_t extra = perm ? (sizeof(int64_t) + cpn_dtype_size(dt)) * (size_t)n : 0;
    const size_t team = (2 * rec * (size_t)n + extra + 15) & ~(size_t)15;   /* teams stay aligned */
    int nth = cpn_kernel_threads();
    /* a team only for work that pays its wake-up (tens of us on a loaded 2-core machine: a 10x10
     * sort along axis 1 took 38 us on two threads, 4.9 on one; NumPy 0.8): under 2^14
     * element-comparisons (about log2(n) per element) one thread sorts the lanes.  (Measured
     * at load 2-4: 1000 lanes of 10, 4x10^4 comparisons, still gain from two threads, 196 us
     * against 320 -- the cost of a short lane, 0.3 us, is the next thing to look at.) */
    int lg = 1;
    while (lg < 62 && ((int64_t)1 << lg) < n) lg++;
    if ((double)nlanes * (double)n * lg < 16384.0) nth = 1;
    const bool by_lane = nlanes >= nth && (nlanes >= 4 * nth || n < PAR_MIN);
    const int teams = by_lane ? (nlanes < nth ? (int)nlanes : nth) : 1;
    char *mem = cpn_alloc((size_t)teams * team + 1);
    if (!mem) return CPN_ERR_NOMEM;
    const struct lanes L = {dt, arg, in, is, perm, ps, out, os, index_base, n, no, oshape, oist, opst, oost};
    if (by_lane && teams > 1) {
#pragma omp parallel for num_threads(teams) schedule(dynamic, 1)
        for (int64_t l = 0; l < nlanes; l++) {
            int t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            one_lane(&L, l, mem + (size_t)t * team, 1);
        }
    } else {
        for (int64_t l = 0; l < nlanes; l++) one_lane(&L, l, mem, by_lane ? 1 : nth);
    }
    cpn_free(mem);
    return CPN_OK;
}

enum cpn_status cpn_kernel_sort(enum cpn_dtype dt, bool arg, const char *in, int ndim,
                                const int64_t *shape, const int64_t *ist, int axis, char *out,
                                const int64_t *ost, int64_t index_base)
{
    return sort_lanes(dt, arg, in, ndim, shape, ist, NULL, NULL, axis, out, ost, index_base);
}

enum cpn_status cpn_kernel_sort_through(enum cpn_dtype dt, const char *key, int ndim, const int64_t *shape,
                                        const int64_t *kst, const char *perm, const int64_t *pst, int axis,
                                        char *out, const int64_t *ost)
{
    return sort_lanes(dt, true, key, ndim, shape, kst, perm, pst, axis, out, ost, 0);
}

/* ---- searching sorted lanes, runs of equal elements ------------------------------------------ */

static inline bool is_nan_el(enum cpn_dtype dt, const char *p)
{
    if (!is_float(dt)) return false;
    double d = fval(dt, p);
    return d != d;
}

/* Element i of a sorted sequence: a[i], or a[perm[i]] through a permutation. */
static inline const char *nth(const char *a, int64_t as, const char *perm, int64_t ps, int64_t i)
{
    return a + (perm ? *(const int64_t *)(perm + i * ps) : i) * as;
}

/* NumPy's complex order as three words (the NaN class -- R + Rj, R + nanj, nan + Rj, nan + nanj
 * -- then the real part's key, then the imaginary part's; a NaN part's key 0, both zeros one
 * key): keys compare as NumPy's compare does. */
static void ckey3(enum cpn_dtype dt, const char *p, uint64_t *k)
{
    double re, im;
    if (dt == CPN_DTYPE_COMPLEX64) {
        re = ((const float *)p)[0];
        im = ((const float *)p)[1];
    } else {
        re = ((const double *)p)[0];
        im = ((const double *)p)[1];
    }
    const bool nr = re != re, ni = im != im;
    k[0] = (uint64_t)(2 * nr + ni);
    k[1] = nr ? 0 : cpn_kernel_sort_key(CPN_DTYPE_FLOAT64, &re);
    k[2] = ni ? 0 : cpn_kernel_sort_key(CPN_DTYPE_FLOAT64, &im);
}

static int ckey3_cmp(const uint64_t *a, const uint64_t *b)
{
    for (int w = 0; w < 3; w++)
        if (a[w] != b[w]) return a[w] < b[w] ? -1 : 1;
    return 0;
}

/* One value's position (or membership) in sorted complex a: searchsorted_complex's element j. */
static inline void search_complex_one(enum cpn_dtype dt, const char *a, int64_t as, const char *perm,
                                      int64_t ps, int64_t n, const char *v, int64_t vs, int64_t j,
                                      char *out, int64_t os, bool right, bool found)
{
    uint64_t kv[3], ka[3];
    ckey3(dt, v + j * vs, kv);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        ckey3(dt, nth(a, as, perm, ps, mid), ka);
        const int c = ckey3_cmp(ka, kv);
        if (right ? c <= 0 : c < 0) lo = mid + 1;
        else hi = mid;
    }
    if (found) {   /* equal as == compares (a value with a NaN part equals nothing) */
        bool eq = lo < n && kv[0] == 0;
        if (eq) {
            ckey3(dt, nth(a, as, perm, ps, lo), ka);
            eq = ckey3_cmp(ka, kv) == 0;
        }
        *(uint8_t *)(out + j * os) = eq;
    } else {
        *(int64_t *)(out + j * os) = lo;
    }
}

/* cpn_kernel_searchsorted of complex elements (no OpenMP region on one thread: an if(0) region
 * still ends on libgomp's barrier, a futex wake). */
static void searchsorted_complex(enum cpn_dtype dt, const char *a, int64_t as, const char *perm, int64_t ps,
                                 int64_t n, const char *v, int64_t vs, int64_t m, char *out, int64_t os,
                                 bool right, bool found)
{
    int nth_ = m >= 4096 ? cpn_kernel_threads() : 1;
    if (nth_ > 1) {
#pragma omp parallel for num_threads(nth_) schedule(static)
        for (int64_t j = 0; j < m; j++) search_complex_one(dt, a, as, perm, ps, n, v, vs, j, out, os, right, found);
    } else {
        for (int64_t j = 0; j < m; j++) search_complex_one(dt, a, as, perm, ps, n, v, vs, j, out, os, right, found);
    }
}

/* One value's position (or membership) in sorted real a: cpn_kernel_searchsorted's element j. */
static inline void search_one(enum cpn_dtype dt, const char *a, int64_t as, const char *perm, int64_t ps,
                              int64_t n, const char *v, int64_t vs, int64_t j, char *out, int64_t os,
                              bool right, bool found)
{
    const uint64_t kv = cpn_kernel_sort_key(dt, v + j * vs);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        uint64_t ka = cpn_kernel_sort_key(dt, nth(a, as, perm, ps, mid));
        if (right ? ka <= kv : ka < kv) lo = mid + 1;
        else hi = mid;
    }
    /* found: equal as == compares (a NaN equals nothing) */
    if (found)
        *(uint8_t *)(out + j * os) = lo < n && cpn_kernel_sort_key(dt, nth(a, as, perm, ps, lo)) == kv &&
                                     !is_nan_el(dt, v + j * vs);
    else *(int64_t *)(out + j * os) = lo;
}

enum cpn_status cpn_kernel_searchsorted(enum cpn_dtype dt, const char *a, int64_t as, const char *perm,
                                        int64_t ps, int64_t n, const char *v, int64_t vs, int64_t m,
                                        char *out, int64_t os, bool right, bool found)
{
    if (dt == CPN_DTYPE_COMPLEX64 || dt == CPN_DTYPE_COMPLEX128) {
        searchsorted_complex(dt, a, as, perm, ps, n, v, vs, m, out, os, right, found);
        return CPN_OK;
    }
    int nth_ = m >= 4096 ? cpn_kernel_threads() : 1;
    if (nth_ > 1) {   /* (no region on one thread: searchsorted_complex) */
#pragma omp parallel for num_threads(nth_) schedule(static)
        for (int64_t j = 0; j < m; j++) search_one(dt, a, as, perm, ps, n, v, vs, j, out, os, right, found);
    } else {
        for (int64_t j = 0; j < m; j++) search_one(dt, a, as, perm, ps, n, v, vs, j, out, os, right, found);
    }
    return CPN_OK;
}

/* Runs of a sorted contiguous lane of T read directly (no permutation): equal as T compares
 * (-0.0 == +0.0), NaNs one run unless nan_distinct; the count on the threads (a sum of breaks). */
#define UNIQ_BRK(x, i, FLT) \
    (!((x)[i] == (x)[(i) - 1] || (FLT && !nan_distinct && (x)[i] != (x)[i] && (x)[(i) - 1] != (x)[(i) - 1])))
#define UNIQ_FAST_DEF(NAME, T, FLT)                                                                 \
    static void NAME(enum cpn_unique_mode mode, bool nan_distinct, const T *x, int64_t n, char *out, \
                     int64_t os)                                                                    \
    {                                                                                               \
        if (mode == CPN_UNIQUE_COUNT) {                                                             \
            int64_t c = n > 0;                                                                      \
            int nth = n >= (1 << 18) ? cpn_kernel_threads() : 1;                                    \
            _Pragma("omp parallel for num_threads(nth) reduction(+ : c) schedule(static) if (nth > 1)") \
            for (int64_t i = 1; i < n; i++) c += UNIQ_BRK(x, i, FLT);                               \
            *(int64_t *)out = c;                                                                    \
            return;                                                                                 \
        }                                                                                           \
        if (n == 0) return;                                                                         \
        int64_t g = 0, start = 0;                                                                   \
        for (int64_t i = 1; i < n; i++) {                                                           \
            if (!UNIQ_BRK(x, i, FLT)) continue;                                                     \
            if (mode == CPN_UNIQUE_VALUES) memcpy(out + g * os, x + start, sizeof(T));              \
            else *(int64_t *)(out + g * os) = i - start;                                            \
            g++;                                                                                    \
            start = i;                                                                              \
        }                                                                                           \
        if (mode == CPN_UNIQUE_VALUES) memcpy(out + g * os, x + start, sizeof(T));                  \
        else *(int64_t *)(out + g * os) = n - start;                                                \
    }
UNIQ_FAST_DEF(uniq_i64, int64_t, 0)
UNIQ_FAST_DEF(uniq_u64, uint64_t, 0)
UNIQ_FAST_DEF(uniq_i32, int32_t, 0)
UNIQ_FAST_DEF(uniq_u32, uint32_t, 0)
UNIQ_FAST_DEF(uniq_f64, double, 1)
UNIQ_FAST_DEF(uniq_f32, float, 1)

/* The run loop: elements read through perm (when not NULL), positions (INDEX, INVERSE) from pos
 * (stride qs; the element's own index when NULL). */
static enum cpn_status unique_runs(enum cpn_dtype dt, enum cpn_unique_mode mode, bool nan_distinct,
                                   const char *s, int64_t ss, const char *perm, int64_t ps,
                                   const char *pos, int64_t qs, int64_t n, char *out, int64_t os);

enum cpn_status cpn_kernel_unique_sorted(enum cpn_dtype dt, enum cpn_unique_mode mode, bool nan_distinct,
                                         const char *s, int64_t ss, const char *pos, int64_t qs, int64_t n,
                                         char *out, int64_t os)
{
    if (!pos || (mode != CPN_UNIQUE_INDEX && mode != CPN_UNIQUE_INVERSE))
        return cpn_kernel_unique(dt, mode, nan_distinct, s, ss, NULL, 0, n, out, os);
    return unique_runs(dt, mode, nan_distinct, s, ss, NULL, 0, pos, qs, n, out, os);
}

enum cpn_status cpn_kernel_unique(enum cpn_dtype dt, enum cpn_unique_mode mode, bool nan_distinct,
                                  const char *s, int64_t ss, const char *perm, int64_t ps, int64_t n,
                                  char *out, int64_t os)
{
    const size_t item = cpn_dtype_size(dt);
    if (!perm && (int64_t)item == ss &&
        (mode == CPN_UNIQUE_COUNT || mode == CPN_UNIQUE_VALUES || mode == CPN_UNIQUE_COUNTS)) {
        switch (dt) {
        case CPN_DTYPE_INT64: uniq_i64(mode, nan_distinct, (const int64_t *)s, n, out, os); return CPN_OK;
        case CPN_DTYPE_UINT64: uniq_u64(mode, nan_distinct, (const uint64_t *)s, n, out, os); return CPN_OK;
        case CPN_DTYPE_INT32: uniq_i32(mode, nan_distinct, (const int32_t *)s, n, out, os); return CPN_OK;
        case CPN_DTYPE_UINT32: uniq_u32(mode, nan_distinct, (const uint32_t *)s, n, out, os); return CPN_OK;
        case CPN_DTYPE_FLOAT64: uniq_f64(mode, nan_distinct, (const double *)s, n, out, os); return CPN_OK;
        case CPN_DTYPE_FLOAT32: uniq_f32(mode, nan_distinct, (const float *)s, n, out, os); return CPN_OK;
        default: break;
        }
    }
    return unique_runs(dt, mode, nan_distinct, s, ss, perm, ps, perm, ps, n, out, os);
}

static enum cpn_status unique_runs(enum cpn_dtype dt, enum cpn_unique_mode mode, bool nan_distinct,
                                   const char *s, int64_t ss, const char *perm, int64_t ps,
                                   const char *pos, int64_t qs, int64_t n, char *out, int64_t os)
{
    const size_t item = cpn_dtype_size(dt);
    int64_t g = -1, start = 0;
    uint64_t prev = 0;
    for (int64_t i = 0; i <= n; i++) {
        /* does a new run start at i (or the last one end at n)? */
        bool brk = i == n;
        uint64_t k = 0;
        if (i < n) {
            const char *p = nth(s, ss, perm, ps, i);
            k = cpn_kernel_sort_key(dt, p);
            brk = i == 0 || k != prev || (nan_distinct && is_nan_el(dt, p));
        }
        if (brk && g >= 0) {   /* run g is [start, i) */
            switch (mode) {
            case CPN_UNIQUE_VALUES: memcpy(out + g * os, nth(s, ss, perm, ps, start), item); break;
            case CPN_UNIQUE_COUNTS: *(int64_t *)(out + g * os) = i - start; break;
            case CPN_UNIQUE_INDEX: *(int64_t *)(out + g * os) = pos ? *(const int64_t *)(pos + start * qs) : start; break;
            default: break;
            }
        }
        if (i == n) break;
        if (brk) {
            g++;
            start = i;
        }
        if (mode == CPN_UNIQUE_INVERSE) *(int64_t *)(out + (pos ? *(const int64_t *)(pos + i * qs) : i) * os) = g;
        prev = k;
    }
    if (mode == CPN_UNIQUE_COUNT) *(int64_t *)out = g + 1;
    return CPN_OK;
}
